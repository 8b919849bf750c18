//! `merge-error`: what Terraform or OpenTofu itself would reject. See [`RULE`].

use super::rule::Rule;
use crate::diag::{Diagnostic, Severity};
use crate::finding::{Finding, Level};
use crate::policy::Site;
use crate::policy::context::Context;
use crate::terraform::{Files, Span};

pub(super) static RULE: Rule = Rule {
    id: super::RuleId::MergeError,
    level: Level::Deny,
    summary: "Terraform or OpenTofu would reject the module as merged",
    doc: "\
What it checks
  Everything the engine itself reports while loading the module and merging its override
  files: an override block with no original to change, a duplicate declaration, a
  `depends_on` override, a default that no longer fits the overridden type, syntax errors,
  a file that cannot be read (a dangling symbolic link), including the variables files
  Terraform loads by itself (`*.auto.tfvars`), which stop `terraform plan`.
  The texts are the engine's own, so they can be searched for. Engine warnings are
  reported at `warn` at most. A binary file saved under a configuration file's name
  (not UTF-8, with NUL bytes or other control characters) is one finding, the engine's
  first error, where the engine reports one for nearly every byte, and says what the
  file most likely is: one git-crypt encrypted (it starts with git-crypt's header; git
  stores it so, and a checkout holds it so until `git-crypt unlock`), or another binary
  file.
  A load failure is no matter of style: an inline suppression cannot silence it (nor can
  `ignore[all]`), and one that names `merge-error` is a `bad-suppression`. Only an
  `[[exceptions]]` entry excuses it, and it must name the module in `paths` and give an
  `expires` date: the module is accepted as broken for a time, not for good.

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
    configure: None,
    check: Some(check),
    inline: false,
};

fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    report(&cx.m.files, &cx.m.diagnostics, out);
    // A variables file Terraform loads by itself but cannot read (a dangling link) stops
    // `terraform plan` as surely.
    if let Some(r) = &cx.vars {
        report(&r.files, r.read_failures(), out);
    }
}

fn report<'d>(
    files: &Files,
    diags: impl IntoIterator<Item = &'d Diagnostic>,
    out: &mut Vec<Finding>,
) {
    for d in diags {
        let span = d.subject.unwrap_or(Span::new(0, 0, 0));
        if files.files.get(span.file).is_none() {
            continue;
        }
        let mut f = Finding::new(RULE.id, d.summary.clone(), Site::in_files(files, span, "here"));
        let help = d.explained();
        if !help.is_empty() {
            f = f.help(help);
        }
        for (s, label) in &d.related {
            f = f.related(Site::in_files(files, *s, label.clone()));
        }
        if d.severity == Severity::Warning {
            f.level = Level::Warn;
        }
        out.push(f);
    }
}
