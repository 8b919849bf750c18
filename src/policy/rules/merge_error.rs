//! `merge-error`: what Terraform or OpenTofu itself would reject. See [`RULE`].

use super::{Cx, Finding, Level, Rule};
use crate::diag::Severity;
use crate::terraform::Span;

pub static RULE: Rule = Rule {
    id: super::RuleId::MergeError,
    level: Level::Deny,
    summary: "Terraform or OpenTofu would reject the module as merged",
    doc: "\
What it checks
  Everything the engine itself reports while loading the module and merging its override
  files: an override block with no original to change, a duplicate declaration, a
  `depends_on` override, a default that no longer fits the overridden type, syntax errors.
  The texts are the engine's own, so they can be searched for. Engine warnings are
  reported at `warn` at most.

Why
  A module the engine rejects cannot be planned; finding it at commit time is cheaper
  than finding it in a pipeline.

Example
  # main.tf                        # override.tf
  variable \"port\" {                variable \"port\" {
    default = 8080                   type = bool
  }                                }
  → Invalid default value for variable: a bool is required.
",
    options: &[],
    check: Some(check),
};

fn check(cx: &Cx<'_>, out: &mut Vec<Finding>) {
    for d in &cx.m.diagnostics {
        let span = d.subject.unwrap_or(Span::new(0, 0, 0));
        if cx.m.files.files.get(span.file).is_none() {
            continue;
        }
        let mut f = Finding::new(RULE.id, d.summary.clone(), cx.site(span, "here"));
        if !d.detail.is_empty() {
            f = f.help(d.detail.clone());
        }
        for (s, label) in &d.related {
            f = f.related(cx.site(*s, label.clone()));
        }
        if d.severity == Severity::Warning {
            f.level = Level::Warn;
        }
        out.push(f);
    }
}
