//! `version-mismatch`: the release a module is pinned to is not one it can run on, or
//! not one the tool can judge it for. See [`RULE`].

use std::sync::Arc;

use super::rule::Rule;
use crate::finding::{Finding, Level, Site};
use crate::policy::context::Context;
use crate::terraform::{choose, pins};

pub(super) static RULE: Rule = Rule {
    id: super::RuleId::VersionMismatch,
    level: Level::Warn,
    summary: "a version file pins a release the module's required_version excludes, or one not modelled",
    doc: "\
What it checks
  Without `--engine` or a policy's `engine`, each module is judged for the release the team
  runs it with: the nearest `.opentofu-version`, `.terraform-version`, `.tfswitchrc`,
  `.tool-versions` or `mise.toml` `[tools]` entry in its directory or a parent (as tenv and
  tfswitch read them), else the newest modelled release its effective `required_version`
  admits, else the newest modelled release. Reported, on the pin's line: a pinned release
  the module's `required_version` excludes (Terraform refuses to run the module with it), a
  pin of a release not modelled (the nearest modelled one judges instead), a pin that
  matches no release or names the other engine than the module's `.tofu` files; on the
  constraint: a `required_version` that admits no modelled release, and one in a `.tf`
  file of a module judged for OpenTofu 1.12 or later, which reads only the constraints of
  `.tofu` files (and `language` blocks) and ignores it.

Why
  The loader changes with almost every release: which blocks an override file may hold,
  which it merges, ignores or rejects. A module judged for another release than the one
  that runs it is judged wrongly, and a pin its own constraint excludes fails at `init`.

Example
  .terraform-version   1.9.2
  main.tf              terraform { required_version = \">= 1.10\" }
",
    options: &[],
    configure: None,
    check: Some(check),
    inline: false,
};

fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    let choice = &cx.m.choice;
    let constraint = cx.m.settings.required_version.first();
    let module = if cx.m.dir.is_empty() {
        "the root module".to_string()
    } else {
        format!("module {}", cx.m.dir)
    };
    for note in &choice.notes {
        let mut message = match note {
            choose::Finding::Mismatch { release, constraint, .. } => format!(
                "this pin runs {release} for {module}, whose required_version `{constraint}` excludes it: {} refuses to run the module",
                release.engine.name()
            ),
            choose::Finding::NotModelled { pin, judged } => format!(
                "this pin (`{}`) names a release override-guard does not model: {module} is judged for {judged}, the nearest modelled",
                pin.text
            ),
            other => other.to_string(),
        };
        let site = match (note.pin(), &choice.pin_text) {
            (Some(pin), Some(text)) => {
                // The site names the pin's file and line: the message need not.
                let at = format!("{}:{}: ", pin.file, pin.line);
                if let Some(rest) = message.strip_prefix(&at) {
                    message = rest.to_string();
                }
                pin_site(pin, text)
            }
            _ => match constraint {
                Some(a) => cx.site(a.span, "this constraint"),
                None => continue,
            },
        };
        let help = match note {
            choose::Finding::Mismatch { .. } => {
                "pin a release the constraint admits, or relax the constraint"
            }
            choose::Finding::NotModelled { .. } | choose::Finding::PreRelease { .. } => {
                "`--engine` or the policy's `engine` names a modelled release to judge with"
            }
            _ => "fix the pin, or name the release with `--engine` or the policy's `engine`",
        };
        let mut f = Finding::new(RULE.id, message, site).help(help);
        if let (Some(_), Some(a)) = (note.pin(), constraint) {
            f = f.related(cx.site(a.span, "the module's constraint"));
        }
        out.push(f);
    }
    // A constraint the release reads and ignores: whoever wrote it believes the module
    // refuses the releases it excludes; OpenTofu runs it with any.
    for a in &cx.m.settings.unread_versions {
        let text = a.expr.as_str().map(|t| format!(" `{t}`")).unwrap_or_default();
        let holds = match constraint.and_then(|c| c.expr.as_str()) {
            Some(c) => format!("only `{c}` of its .tofu files holds for {module}"),
            None => format!("nothing constrains the release that runs {module}"),
        };
        out.push(
            Finding::new(
                RULE.id,
                format!(
                    "required_version{text} in a .tf file is ignored by {}, which reads only the constraints of .tofu files: {holds}",
                    cx.m.release
                ),
                cx.site(a.span, "ignored by OpenTofu"),
            )
            .help("put the constraint in a .tofu file (versions.tofu) for OpenTofu, keeping this one for Terraform"),
        );
    }
}

/// The pin's line in its file.
fn pin_site(pin: &pins::Pin, text: &Arc<str>) -> Site {
    let mut start = 0;
    for _ in 1..pin.line {
        match text[start..].find('\n') {
            Some(i) => start += i + 1,
            None => break,
        }
    }
    let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    let end = if text[start..end].ends_with('\r') { end - 1 } else { end };
    Site::new(pin.file.clone(), text.clone(), start, end, "the pin")
}
