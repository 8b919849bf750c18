//! `ignored-override`: override content the engine reads and then ignores. See [`RULE`].

use super::rule::Rule;
use crate::finding::{Finding, Level};
use crate::policy::context::Context;

pub(super) static RULE: Rule = Rule {
    id: super::RuleId::IgnoredOverride,
    level: Level::Warn,
    summary: "override content that Terraform or OpenTofu silently ignores",
    doc: "\
What it checks
  Things an override file says that have no effect, with no error from the engine:
  `ephemeral` and `removed` blocks (Terraform), lifecycle arguments other than
  `create_before_destroy`, `prevent_destroy` and `ignore_changes` (so
  `replace_triggered_by`), `provider_meta`, `depends_on = []`, an output's
  `description = \"\"`, an empty `ignore_changes`, a narrower `ignore_changes` over an
  original `all`, a module call's empty `providers = {}`, a JSON `null` or `[]` where the
  original has nested blocks of that name (zero blocks: the original's stay),
  OpenTofu's `required_version` outside `.tofu` files (from 1.12) and a provider's
  `for_each` (from 1.9), Terraform 1.13's `action` blocks (dropped without experiments;
  merged from 1.14), and the defaults of `optional()` attributes in a variable `type` set
  by an override file (the type is taken, its defaults are not: those attributes stay
  null). What a release ignores changes from release to release: the finding names the
  release judged (see `--engine` and version pins).

Why
  The author of the override believes it changes something. It does not, and nothing
  says so: the next reader believes it too.

Example
  # override.tf
  resource \"aws_instance\" \"web\" {
    lifecycle {
      replace_triggered_by = [aws_ami.latest]   # ignored in an override file
    }
  }
",
    options: &[],
    configure: None,
    check: Some(check),
    inline: true,
};

fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    let mut ignored: Vec<_> = cx.m.ignored.iter().collect();
    ignored.sort_by_key(|i| (i.span.file, i.span.start));
    let release = cx.m.release.to_string();
    for i in ignored {
        // What is ignored changes from release to release: the finding names the one judged.
        let said_by = i.what.strip_prefix(cx.m.engine.name()).filter(|r| r.starts_with(' '));
        // Where the other engine merges it (OpenTofu's `deprecated`), the finding holds
        // for this engine only, and removing the argument would change what the other runs.
        // An engine that rejects the module (a provider's `for_each` in Terraform, an
        // action in OpenTofu) runs nothing of it: no comparison.
        // Nor does one that does not read the file (Terraform and a `.tofu` file).
        let path = &cx.m.files.get(i.span.file).path;
        let other = cx.other.filter(|o| {
            !o.has_errors()
                && o.files.files.iter().any(|f| &f.path == path)
                && !o.ignored.iter().any(|j| j.span == i.span)
        });
        let (what, help) = match other {
            Some(o) => {
                let that = o.engine.name();
                let what = match said_by {
                    Some(rest) => format!("{release}{rest}; {that} does not"),
                    None => format!("{} by {release}; {that} does not ignore it", i.what),
                };
                let help = format!(
                    "move the change into the original file for both engines, or keep it for {that} (see engine-divergence)"
                );
                (what, help)
            }
            None => {
                let what = match said_by {
                    Some(rest) => format!("{release}{rest}"),
                    None => format!("{} ({release})", i.what),
                };
                (what, "remove it, or move the change into the original file".into())
            }
        };
        out.push(Finding::new(RULE.id, what, cx.site(i.span, i.label)).help(help));
    }
}
