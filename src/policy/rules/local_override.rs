//! `local-override`: an override file that only this checkout has. See [`RULE`].

use super::rule::Rule;
use crate::finding::{Finding, Level};
use crate::policy::context::Context;
use crate::terraform::FileClass;

pub(super) static RULE: Rule = Rule {
    id: super::RuleId::LocalOverride,
    level: Level::Warn,
    summary: "an override file git does not track changes what this checkout runs",
    doc: "\
What it checks
  An override file in the worktree that git does not track: git-ignored, or untracked.
  Terraform reads it all the same, so `terraform plan` in this checkout runs a
  configuration that CI and the rest of the team do not. The finding says what the file
  changes and what the other rules make of it (a backend swap, a weakened safeguard, …).
  `audit`, `show`, `vars`, `diff --worktree` and `fold` read such files; the hook
  (`check`) judges what is committed, and notes them. `missing-override-comment` and
  `fix` leave them out: a committed comment must not name a file the repository does
  not have.

Why
  GitHub's standard Terraform `.gitignore` ignores `override.tf`, `override.tf.json`,
  `*_override.tf` and `*_override.tf.json`, \"as they are usually used to override
  resources locally\". A local override that swaps the backend or resizes an instance is
  invisible to every review and makes this checkout's plan differ from everyone else's.
  That `.gitignore` does not cover OpenTofu's `override.tofu`, `*_override.tofu` and their
  JSON forms: add them if you keep local OpenTofu overrides.

Example
  # .gitignore                # override.tf (git-ignored)
  override.tf                 terraform {
                                backend \"local\" {}
                              }
  → override.tf is git-ignored: this checkout runs a configuration that CI and
    teammates do not; it changes terraform.backend
",
    options: &[],
    configure: None,
    check: Some(check),
    inline: true,
};

/// The rules whose verdict on a local override file is worth repeating in its finding.
const ANALYSES: &[&Rule] = &[
    &super::backend_swap::RULE,
    &super::weakened_safeguard::RULE,
    &super::protected_attribute::RULE,
    &super::silent_drop::RULE,
    &super::ignored_override::RULE,
];

fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    let local: Vec<usize> = (0..cx.m.files.files.len())
        .filter(|&i| {
            let f = cx.m.files.get(i);
            f.class == FileClass::Override && f.local.is_some()
        })
        .collect();
    if local.is_empty() {
        return;
    }
    // What the other rules say, once for the module.
    let mut verdicts = Vec::new();
    for rule in ANALYSES {
        if let Some(check) = rule.check {
            check(cx, &mut verdicts);
        }
    }
    for id in local {
        let f = cx.m.files.get(id);
        let Some(how) = f.local else { continue };
        let mut changes: Vec<&str> = Vec::new();
        let mut related = Vec::new();
        for c in cx.changes.iter().filter(|c| c.file() == id) {
            if !changes.contains(&c.address.as_str()) {
                changes.push(&c.address);
                if let Some(base) = c.base
                    && related.len() < 3
                {
                    related.push(cx.site(base.head(), "changed by the local override"));
                }
            }
        }
        let what = match changes.len() {
            0 => "it changes nothing".to_string(),
            n if n > 5 => format!("it changes {} and {} more", changes[..5].join(", "), n - 5),
            _ => format!("it changes {}", changes.join(", ")),
        };
        let mut help: Vec<String> = verdicts
            .iter()
            .filter(|v| v.primary.path == f.path)
            .map(|v| format!("{}: {}", v.rule, v.message))
            .collect();
        help.dedup();
        help.push(format!(
            "commit it so that everyone runs the same configuration, or delete it; `override-guard show {}` shows what runs here",
            if cx.m.dir.is_empty() { "." } else { &cx.m.dir }
        ));
        let mut finding = Finding::new(
            RULE.id,
            format!(
                "{} is {}: this checkout runs a configuration that CI and teammates do not; {what}",
                f.name(),
                how.describe()
            ),
            cx.site(super::override_file::first_line(cx, id), "local-only override"),
        )
        .help(help.join("\n"));
        finding.related = related;
        out.push(finding);
    }
}
