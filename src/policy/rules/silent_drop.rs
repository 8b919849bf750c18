//! `silent-drop`: an override that removes more than it shows. See [`RULE`].

use super::rule::Rule;
use crate::finding::{Finding, Level};
use crate::policy::context::Context;
use crate::terraform::{Block, Expr, ExprKind, Item, ObjKey};

pub(super) static RULE: Rule = Rule {
    id: super::RuleId::SilentDrop,
    level: Level::Warn,
    summary: "an override removes content that its reader does not see",
    doc: "\
What it checks
  Merges that drop content without saying so:
  - nested blocks are replaced by type, wholesale: an override with one `ingress` block
    drops every `ingress` block of the original (and one `provisioner` drops them all);
  - a `required_providers` entry in an override without `source` resets the provider to
    the default `hashicorp/<name>` on the registry;
  - a module call's `providers` map is replaced whole, so entries it does not repeat are
    dropped.

Why
  An override that looks like an addition is a deletion. The reader of the override sees
  one block; the reader of the original sees three; Terraform keeps one.

Example
  # main.tf                          # override.tf
  resource \"aws_security_group\" \"a\" { resource \"aws_security_group\" \"a\" {
    ingress { from_port = 22 }          ingress { from_port = 443 }
    ingress { from_port = 443 }       }
  }                                   → the original's 2 ingress blocks are dropped
",
    options: &[],
    configure: None,
    check: Some(check),
    inline: true,
};

fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    for c in &cx.changes {
        let Some(base) = c.base else { continue };
        // Encryption merges its key providers and methods by name, not by block type.
        if c.address == "terraform.encryption" {
            continue;
        }
        if let (Some(b), Some(o)) = (base.block(), c.over.block()) {
            nested_blocks(cx, &c.address, b, o, out);
            if b.kind == "module" {
                providers_map(cx, &c.address, b, o, out);
            }
        }
        if c.address.starts_with("terraform.required_providers.")
            && let (Some(b), Some(o)) = (base.attr(), c.over.attr())
        {
            let name = &o.name;
            let Some(src) = source(&b.expr) else { continue };
            if source(&o.expr).is_some() || is_default(&src, name) {
                continue;
            }
            out.push(
                Finding::new(
                    RULE.id,
                    format!(
                        "{} sets provider `{name}` without a source: `{src}` becomes `hashicorp/{name}`",
                        cx.name(c.file())
                    ),
                    cx.site(o.span, "no source here"),
                )
                .address(c.address.clone())
                .related(cx.site(b.span, "original source"))
                .help(format!("repeat source = \"{src}\" in the override")),
            );
        }
    }
}

/// Nested blocks of the override replace every original block of the same type.
fn nested_blocks(
    cx: &Context<'_>,
    address: &str,
    base: &Block,
    over: &Block,
    out: &mut Vec<Finding>,
) {
    // The escaping block `_` too: its content is the body's own, merged argument by
    // argument.
    let merged_by_argument: &[&str] = match base.kind.as_str() {
        "resource" | "data" | "ephemeral" | "module" => &["lifecycle", "_"],
        "provider" => &["_"],
        _ => &[],
    };
    let mut done: Vec<String> = Vec::new();
    for ob in over.body.blocks() {
        let ty = type_name(ob).to_string();
        if merged_by_argument.contains(&ty.as_str()) || done.contains(&ty) {
            continue;
        }
        done.push(ty.clone());
        let originals: Vec<&Block> = base.body.blocks().filter(|b| type_name(b) == ty).collect();
        let replacements: Vec<&Block> = over.body.blocks().filter(|b| type_name(b) == ty).collect();
        if originals.is_empty() {
            continue;
        }
        let lost: Vec<String> = originals
            .iter()
            .flat_map(|b| content(b).items.iter().map(Item::merge_name))
            .filter(|n| {
                !replacements.iter().any(|r| content(r).items.iter().any(|i| i.merge_name() == *n))
            })
            .map(|n| format!("`{n}`"))
            .fold(Vec::new(), |mut v, n| {
                if !v.contains(&n) {
                    v.push(n);
                }
                v
            });
        // A `dynamic` block stands for any number of blocks: only lost arguments count.
        let dynamic = replacements.iter().any(|r| r.kind == "dynamic");
        if (dynamic || originals.len() <= replacements.len()) && lost.is_empty() {
            continue;
        }
        let what = if ty == "provisioner" {
            format!("all {} provisioner(s) of the original are dropped", originals.len())
        } else {
            format!(
                "the original's {} `{ty}` block(s) are replaced by {}",
                originals.len(),
                replacements.len()
            )
        };
        let lost =
            if lost.is_empty() { String::new() } else { format!("; lost: {}", lost.join(", ")) };
        let mut f = Finding::new(
            RULE.id,
            format!("{address}: {what}{lost}"),
            cx.site(replacements[0].def_span, format!("replaces every `{ty}` block")),
        )
        .address(address.to_string())
        .help(format!("nested blocks merge by type, not one by one: repeat every `{ty}` block you mean to keep"));
        for o in &originals {
            f = f.related(cx.site(o.def_span, "dropped"));
        }
        out.push(f);
    }
}

/// A module call's `providers` map is replaced, not merged.
fn providers_map(
    cx: &Context<'_>,
    address: &str,
    base: &Block,
    over: &Block,
    out: &mut Vec<Finding>,
) {
    let (Some(b), Some(o)) = (base.attr("providers"), over.attr("providers")) else { return };
    let (Some(bk), Some(ok)) = (b.expr.as_object(), o.expr.as_object()) else { return };
    if ok.is_empty() {
        return;
    }
    let over_keys: Vec<String> = ok.iter().map(|(k, _)| key(k)).collect();
    let lost: Vec<String> =
        bk.iter().map(|(k, _)| key(k)).filter(|k| !over_keys.contains(k)).collect();
    if lost.is_empty() {
        return;
    }
    out.push(
        Finding::new(
            RULE.id,
            format!("{address}: the providers map is replaced whole; {} dropped", lost.join(", ")),
            cx.site(o.span, "replaces the whole map"),
        )
        .address(address.to_string())
        .related(cx.site(b.span, "original map"))
        .help("repeat every entry of the original providers map in the override"),
    );
}

/// What a nested block declares: a `dynamic` block's `content`, or the block's body.
fn content(b: &Block) -> &crate::terraform::Body {
    if b.kind == "dynamic" {
        b.body.blocks_of("content").next().map_or(&b.body, |c| &c.body)
    } else {
        &b.body
    }
}

/// A nested block's type for merging (`dynamic "x"` counts as `x`).
fn type_name(b: &Block) -> &str {
    if b.kind == "dynamic" { b.labels.first().map_or("dynamic", String::as_str) } else { &b.kind }
}

fn key(k: &ObjKey) -> String {
    match k {
        ObjKey::Name(n) => n.clone(),
        ObjKey::Expr(e) => e.as_str().unwrap_or_else(|| e.to_hcl()),
    }
}

/// The `source` of a provider requirement, if it states one.
fn source(e: &Expr) -> Option<String> {
    match &e.kind {
        ExprKind::Object(items) => items
            .iter()
            .find(|(k, _)| key(k) == "source")
            .map(|(_, v)| v.as_str().unwrap_or_else(|| v.to_hcl())),
        _ => None,
    }
}

/// Does a source already name the default a missing source falls back to?
fn is_default(src: &str, name: &str) -> bool {
    let s = src.to_ascii_lowercase();
    let tail = format!("hashicorp/{name}");
    s == tail || s.ends_with(&format!("/{tail}"))
}
