//! `missing-override-comment`: an overridden original without a warning comment. See
//! [`RULE`].

use std::collections::HashSet;

use regex::Regex;

use super::options::Options;
use super::rule::Rule;
use crate::finding::{Finding, Level};
use crate::policy::context::{Context, comments_around};
use crate::policy::validate::{Field, Key, Kind, Validator, Value};
use crate::terraform::Syntax;

pub static RULE: Rule = Rule {
    id: super::RuleId::MissingOverrideComment,
    level: Level::Warn,
    summary: "an original that an override file changes has no comment saying so",
    doc: "\
What it checks
  Every block, attribute or local value of an ordinary file that an override file changes
  must have a comment directly above it (or above a block that encloses it) that names the
  override file; in JSON files, a `\"//\"` property in the block's object. `pattern` is a
  regex the comment must match instead; `{override}` in it stands for the override file's
  name. The finding shows both places. An override's `required_version` replaces the
  constraint of every primary file: each wants its comment.

  An override block that changes nothing is no change: one that is empty (its arguments
  commented out), or holds only what Terraform ignores in an override file (which
  `ignored-override` reports), wants no comment, and `show` does not mark its original
  overridden. A value an override sets equal to the original's is a change: the
  override's value is the one that runs, and an edit of the original would be silently
  overridden, so its original wants the comment.

Why
  Terraform's own advice for override files: \"in the original file, put a comment on
  every block that an override file changes\", so a reader of the original is warned that
  what they read is not what runs.

Example
  # main.tf
  # NOTE: instance_type is overridden by override.tf
  resource \"aws_instance\" \"web\" {
    instance_type = \"t3.micro\"
  }
",
    options: &[Field {
        name: "pattern",
        kind: Kind::Regex,
        required: false,
        default: Some("\"{override}\""),
        help: "regex the warning comment must match; {override} is the file name",
    }],
    check: Some(check),
    inline: true,
};

/// Reads `pattern`, compiled here once with a sample file name in place of `{override}`
/// so that a broken regex is a mistake in the policy file, not a surprise during a run.
pub(super) fn configure(
    v: &mut Validator<'_>,
    key: &Key<'_>,
    val: &Value<'_>,
    o: &mut Options,
) -> bool {
    let name = key.get_ref().as_ref();
    match name {
        "pattern" => {
            if let Some(s) = v.string(val, name) {
                match Regex::new(&s.replace("{override}", "override\\.tf")) {
                    Ok(_) => o.comment.pattern = Some(s),
                    Err(e) => v.err(val.span(), format!("invalid regex: {e}"), None),
                }
            }
        }
        _ => return false,
    }
    true
}

fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    let mut seen = HashSet::new();
    let mut matchers = Vec::new();
    for c in &cx.changes {
        let Some(base) = c.base else { continue };
        let over_span = c.over.head();
        if cx.m.ignored.iter().any(|i| i.span == over_span || i.span == c.over.span()) {
            continue;
        }
        // A local-only override file (git does not track it) is `local-override`'s: a
        // committed comment must not name a file the repository does not have.
        if cx.m.files.get(c.file()).local.is_some() {
            continue;
        }
        if !seen.insert((base.span(), c.file())) {
            continue;
        }
        let name = cx.name(c.file());
        let re = match matchers.iter().find(|(f, _)| *f == c.file()) {
            Some((_, m)) => m,
            None => {
                let Some(m) = cx.options.comment.matcher_for(name) else { continue };
                matchers.push((c.file(), m));
                &matchers[matchers.len() - 1].1
            }
        };
        if comments_around(cx.m, base.span()).iter().any(|k| re.is_match(&k.text)) {
            continue;
        }
        let json = cx.m.files.get(base.span().file).syntax == Syntax::Json;
        let help = if let Some(p) = &cx.options.comment.pattern {
            format!("add a comment directly above it that matches the policy's pattern `{p}`")
        } else if json {
            format!(
                "add a \"//\" property naming {name} to this block's object (`override-guard fix` writes one)"
            )
        } else {
            format!(
                "add a comment naming {name} directly above it (`override-guard fix` writes one)"
            )
        };
        out.push(
            Finding::new(
                RULE.id,
                format!("{} is changed by {name}, but nothing in the original says so", c.address),
                cx.site(
                    base.head(),
                    if json {
                        "no \"//\" comment naming the override"
                    } else {
                        "no warning comment above this"
                    },
                ),
            )
            .address(c.address.clone())
            .related(cx.site(over_span, "changed here"))
            .help(help),
        );
    }
}
