//! `override-file`: the presence of override files. See [`RULE`].

use super::options::Options;
use super::rule::Rule;
use crate::finding::{Finding, Level};
use crate::policy::context::Context;
use crate::policy::validate::{Field, Kind, Validator, Value};
use crate::terraform::{FileClass, Span, Syntax};

pub(super) static RULE: Rule = Rule {
    id: super::RuleId::OverrideFile,
    level: Level::Allow,
    summary: "an override file changes the module behind its readers' backs",
    doc: "\
What it checks
  Every override file (`override.tf`, `*_override.tf`, their `.tf.json` forms and
  OpenTofu's `.tofu`/`.tofu.json` forms), with what it changes. `allow-paths` lists globs
  where override files are accepted; `only-json` accepts machine-generated JSON overrides
  (`*_override.tf.json`) anywhere; `max-per-module` flags a module with more override files
  than that, even accepted ones.

Why
  Terraform merges override files into the blocks of the ordinary files, so a reader of
  `main.tf` cannot see what runs. Use them in special cases only: generated settings, a
  local development tweak. `allow` by default so a first audit only informs; strict teams
  set it to `deny` and list the exceptions.

Example
  [rules.override-file]
  level = \"deny\"
  allow-paths = [\"envs/dev/**\"]
  only-json = true
",
    options: &[
        Field {
            name: "allow-paths",
            kind: Kind::Globs,
            required: false,
            default: Some("[]"),
            help: "globs of override files that are accepted",
        },
        Field {
            name: "only-json",
            kind: Kind::Bool,
            required: false,
            default: Some("false"),
            help: "accept JSON-syntax override files anywhere",
        },
        Field {
            name: "max-per-module",
            kind: Kind::Count,
            required: false,
            default: None,
            help: "most override files a module may have (unset: no limit)",
        },
    ],
    configure: Some(configure),
    check: Some(check),
    inline: true,
};

/// Reads `allow-paths`, `only-json` and `max-per-module`.
pub(super) fn configure(v: &mut Validator<'_>, name: &str, val: &Value<'_>, o: &mut Options) -> bool {
    let o = &mut o.override_file;
    match name {
        "allow-paths" => o.allow_paths = v.globs(val, name),
        "only-json" => o.only_json = v.boolean(val, name).unwrap_or(false),
        "max-per-module" => match val.get_ref().as_integer() {
            Some(n) => match n.as_str().parse::<usize>() {
                Ok(n) if n >= 1 => o.max_per_module = Some(n),
                _ => v.err(val.span(), "`max-per-module` must be a whole number ≥ 1", None),
            },
            None => v.wrong_type(val, name, "an integer"),
        },
        _ => return false,
    }
    true
}

fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    let opts = &cx.options.override_file;
    let mut count = 0;
    for (id, f) in cx.m.files.files.iter().enumerate() {
        if f.class != FileClass::Override {
            continue;
        }
        count += 1;
        let head = first_line(cx, id);
        let changes: Vec<&str> = {
            let mut v: Vec<&str> = Vec::new();
            for c in cx.changes.iter().filter(|c| c.file() == id) {
                if !v.contains(&c.address.as_str()) {
                    v.push(&c.address);
                }
            }
            v
        };
        let what = if changes.is_empty() { "nothing".to_string() } else { changes.join(", ") };
        if let Some(max) = opts.max_per_module
            && count == max + 1
        {
            out.push(
                Finding::new(
                    RULE.id,
                    format!(
                        "module has {} override files; the policy allows at most {max}",
                        cx.m.override_files().count()
                    ),
                    cx.site(head, format!("override file number {count}")),
                )
                .help("fold the extra overrides into the original files"),
            );
        }
        let path = cx.base.of(&f.path);
        let accepted = opts.allow_paths.as_ref().is_some_and(|g| g.is_match(&path))
            || (opts.only_json && f.syntax == Syntax::Json);
        if accepted {
            continue;
        }
        out.push(
            Finding::new(
                RULE.id,
                format!("override file {} changes {what}", f.name()),
                cx.site(head, "override file"),
            )
            .help("readers of the original files do not see this; fold it in, or allow it in the policy"),
        );
    }
}

/// Where a finding about a whole file points: its first block's header (so a comment
/// above it can suppress the finding), else its first line.
pub(super) fn first_line(cx: &Context<'_>, id: usize) -> Span {
    let first = cx.m.parsed.iter().find(|p| p.file == id).and_then(|p| p.body.items.first());
    match first {
        Some(crate::terraform::Item::Block(b)) => return b.def_span,
        Some(crate::terraform::Item::Attr(a)) => return a.name_span,
        _ => {}
    }
    let text = &cx.m.files.get(id).text;
    let start = usize::from(text.starts_with('\u{feff}')) * 3;
    let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    Span::new(id, start, end.max(start))
}
