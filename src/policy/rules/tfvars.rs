//! `variable-shadowed` and `undeclared-variable-value`: what the variables files of a root
//! module do to its variables. See [`SHADOWED`] and [`UNDECLARED`].

use super::rule::Rule;
use crate::finding::{Finding, Level};
use crate::policy::Site;
use crate::policy::context::Context;
use crate::terraform::{Files, Span};
use crate::vars::{From, Setting};

pub(super) static SHADOWED: Rule = Rule {
    id: super::RuleId::VariableShadowed,
    level: Level::Warn,
    summary: "a variable is set in several variables files and a later one silently wins",
    doc: "\
What it checks
  A variable that more than one of the module's variables files sets to different values
  (`terraform.tfvars`, `terraform.tfvars.json`, `*.auto.tfvars(.json)`). Terraform
  loads them in that order, the `.auto` ones by name, and the last value wins without a
  word. The finding shows the whole chain. `override-guard vars` adds `-var`,
  `-var-file` and `TF_VAR_` values.

Why
  Whoever edits `terraform.tfvars` sees their value and believes it applies; a file that
  sorts later overrides it, as an override file does a block.

Example
  # terraform.tfvars          # zz-ci.auto.tfvars
  instance_type = \"m5.large\"   instance_type = \"t3.micro\"   # this one wins
",
    options: &[],
    configure: None,
    check: Some(shadowed),
    inline: true,
};

pub(super) static UNDECLARED: Rule = Rule {
    id: super::RuleId::UndeclaredVariableValue,
    level: Level::Warn,
    summary: "a variables file sets a variable the module does not declare",
    doc: "\
What it checks
  A value in one of the module's variables files for a name no `variable` block
  declares. Terraform warns (\"Value for undeclared variable\") and ignores it.
  A name that another command uses is left out, though `terraform plan` warns about it
  all the same: one a query file declares (`*.tfquery.hcl`, for `terraform query`), and
  one a test file declares or refers to as `var.NAME` (`*.tftest.hcl` in the module's
  directory or in `tests/`, for `terraform test` and `tofu test`, which give such a test
  the value).

Why
  It is usually a typo or a variable that was renamed: the value the author meant to
  set is not set, and the default applies instead.

Example
  # variables.tf                 # terraform.tfvars
  variable \"instance_type\" {}    instance_typ = \"m5.large\"   # ignored
",
    options: &[],
    configure: None,
    check: Some(undeclared),
    inline: true,
};

fn site(files: &Files, span: Span, label: &str) -> Site {
    Site::in_files(files, span, label)
}

fn label(files: &Files, s: &Setting) -> String {
    match &s.from {
        From::File { .. } => files.short(s.at),
        other => other.describe(),
    }
}

fn shadowed(cx: &Context<'_>, out: &mut Vec<Finding>) {
    let Some(r) = &cx.vars else { return };
    for v in &r.vars {
        let Some(winner) = v.chain.last() else { continue };
        if v.chain.iter().all(|s| s.value.equals(&winner.value)) {
            continue;
        }
        let shown =
            |s: &Setting| if v.sensitive { "(sensitive)".to_string() } else { s.value.to_hcl() };
        let chain: Vec<String> =
            v.chain.iter().map(|s| format!("{} {}", label(&r.files, s), shown(s))).collect();
        let mut f = Finding::new(
            SHADOWED.id,
            format!(
                "var.{} is set {} times; the last one wins: {}",
                v.name,
                v.chain.len(),
                chain.join(" < ")
            ),
            site(&r.files, winner.at, "this value wins"),
        )
        .address(format!("var.{}", v.name))
        .help("set the variable in one variables file, or remove the values that never apply");
        for s in &v.chain[..v.chain.len() - 1] {
            f = f.related(site(&r.files, s.at, "silently replaced"));
        }
        out.push(f);
    }
}

/// Does an override file of the module declare `variable "name"`?
fn override_declares(cx: &Context<'_>, name: &str) -> bool {
    use crate::terraform::FileClass;
    cx.m.parsed
        .iter()
        .filter(|p| cx.m.files.get(p.file).class == FileClass::Override)
        .any(|p| p.body.blocks_of("variable").any(|b| b.labels.first().is_some_and(|l| l == name)))
}

fn undeclared(cx: &Context<'_>, out: &mut Vec<Finding>) {
    let Some(r) = &cx.vars else { return };
    let declared: Vec<&str> = r.vars.iter().map(|v| v.name.as_str()).collect();
    for (name, s) in &r.undeclared {
        if !matches!(s.from, From::File { .. }) {
            continue;
        }
        // `terraform query` or `terraform test` uses the value: no typo.
        if cx.var_uses.iter().any(|u| u.name == *name) {
            continue;
        }
        // Declared only in an override file: Terraform refuses the module ("Missing base
        // variable declaration to override", the merge-error), it ignores no value.
        if override_declares(cx, name) {
            continue;
        }
        let hint = crate::diag::did_you_mean(name, declared.iter().copied())
            .map(|d| format!("did you mean `{d}`? "))
            .unwrap_or_default();
        out.push(
            Finding::new(
                UNDECLARED.id,
                format!("\"{name}\" is set here, but the module declares no such variable: Terraform ignores the value"),
                site(&r.files, s.at, "not declared"),
            )
            .address(format!("var.{name}"))
            .help(format!("{hint}declare the variable, or remove the value")),
        );
    }
}
