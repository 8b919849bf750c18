//! `backend-swap`: an override that replaces where state lives. See [`RULE`].

use super::rule::Rule;
use crate::finding::{Finding, Level};
use crate::policy::context::Context;
use crate::terraform::{Block, Item};

pub(super) static RULE: Rule = Rule {
    id: super::RuleId::BackendSwap,
    level: Level::Deny,
    summary: "an override file replaces the backend or cloud block",
    doc: "\
What it checks
  An override file's `backend` or `cloud` block in a `terraform` block. Terraform replaces
  the whole state configuration with it, so this flags a different backend type, a
  `backend` <-> `cloud` swap, a backend where the originals keep state locally, and the
  same type with arguments silently dropped or set to other values (another bucket or
  key is another state). The finding shows the state configuration before and after.

Why
  Where state lives decides what Terraform believes exists. An override that points a
  module at another bucket, or drops `dynamodb_table` locking, is invisible in `main.tf`
  and can lead to a plan that recreates everything, or to two runs writing one state.

Example
  # main.tf                               # override.tf
  terraform {                             terraform {
    backend \"s3\" {                          backend \"s3\" {
      bucket         = \"tf-state\"             bucket = \"tf-state-dev\"
      dynamodb_table = \"tf-lock\"            }
    }                                     }
  }                                       → dynamodb_table is dropped
",
    options: &[],
    check: Some(check),
};

fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    for c in &cx.changes {
        if c.address != "terraform.backend" && c.address != "terraform.cloud" {
            continue;
        }
        let Some(over) = c.over.block() else { continue };
        let base = c.base.and_then(|b| b.block());
        let message = match base {
            None => format!(
                "{} moves state from the local default to {}",
                cx.name(c.file()),
                name(over)
            ),
            Some(b) if b.kind != over.kind || b.labels != over.labels => {
                format!("{} replaces {} with {}", cx.name(c.file()), name(b), name(over))
            }
            Some(b) => {
                let dropped = dropped(b, over);
                if dropped.is_empty() {
                    let changed = changed(b, over);
                    if changed.is_empty() {
                        continue;
                    }
                    format!(
                        "{} changes {}: {} {}",
                        cx.name(c.file()),
                        name(b),
                        changed.join(", "),
                        if changed.len() == 1 { "differs" } else { "differ" }
                    )
                } else {
                    format!(
                        "{} replaces {} whole: {} {} dropped",
                        cx.name(c.file()),
                        name(b),
                        dropped.join(", "),
                        if dropped.len() == 1 { "is" } else { "are" }
                    )
                }
            }
        };
        let was = base.map_or("local state (no backend)".to_string(), |b| describe(cx, b));
        let mut f =
            Finding::new(RULE.id, message, cx.site(over.def_span, "new state configuration"))
                .address(c.address.clone())
                .help(format!("was:     {was}\nbecomes: {}", describe(cx, over)));
        if let Some(b) = base {
            f = f.related(cx.site(b.def_span, "original state configuration"));
        }
        out.push(f);
    }
}

fn name(b: &Block) -> String {
    match b.labels.first() {
        Some(l) => format!("{} \"{l}\"", b.kind),
        None => b.kind.clone(),
    }
}

/// Names the original sets that the replacement does not.
fn dropped(base: &Block, over: &Block) -> Vec<String> {
    base.body
        .items
        .iter()
        .map(Item::merge_name)
        .filter(|n| !over.body.items.iter().any(|i| i.merge_name() == *n))
        .map(|n| format!("`{n}`"))
        .collect()
}

/// Arguments both set, to different values: the state now lives somewhere else.
fn changed(base: &Block, over: &Block) -> Vec<String> {
    base.body
        .attrs()
        .filter(|a| over.attr(&a.name).is_some_and(|o| o.expr != a.expr))
        .map(|a| format!("`{}`", a.name))
        .collect()
}

/// `backend "s3" { bucket = "x", key = "y" }` on one line.
fn describe(cx: &Context<'_>, b: &Block) -> String {
    let parts: Vec<String> = b
        .body
        .items
        .iter()
        .map(|i| match i {
            Item::Attr(a) => format!("{} = {}", a.name, one_line(&a.expr.to_hcl())),
            Item::Block(n) => format!("{} {{…}}", n.kind),
            Item::Json(j) => format!("{} = {}", j.name, one_line(cx.m.files.text(j.value.span))),
        })
        .collect();
    if parts.is_empty() {
        format!("{} {{}}", name(b))
    } else {
        format!("{} {{ {} }}", name(b), parts.join(", "))
    }
}

fn one_line(s: &str) -> String {
    let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if s.chars().count() > 60 {
        format!("{}…", s.chars().take(59).collect::<String>())
    } else {
        s
    }
}
