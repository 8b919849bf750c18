//! OpenTofu's state and plan encryption (`terraform { encryption { … } }`), merged as
//! OpenTofu's `internal/encryption/config` merges an override file's block into the
//! module's:
//!
//! - `key_provider` and `method` blocks match by type and name; a match has its body
//!   merged argument by argument (as a resource's), anything else is added. A key
//!   provider's `encrypted_metadata_alias` is decoded out of its body before the merge and
//!   so never reaches a key provider the module already has.
//! - `state` and `plan`: `method` and `fallback` are replaced when the override sets them
//!   (a `fallback` whole), and `enforced` is the original's *or* the override's: an
//!   override can switch enforcement on, never off.
//! - `remote_state_data_sources`: its `default` merges like a target, its
//!   `remote_state_data_source` blocks match by name.

use super::body::{merge_body, replaced_attr};
use super::{Ignored, Module};
use crate::terraform::{Block, Item};

/// The module's encryption block (if any) with one override file's merged into it.
pub(super) fn merge(m: &mut Module, base: Option<Block>, over: &Block) -> Block {
    let Some(mut out) = base else {
        return over.clone();
    };
    out.displaced.push(over.def_span);
    for item in over.body.items.iter() {
        let Item::Block(o) = item else {
            // Attributes are decode errors (the schema has none): nothing to merge.
            continue;
        };
        match o.kind.as_str() {
            "key_provider" | "method" => match find(&mut out, &o.kind, &o.labels) {
                Some(b) => {
                    if o.kind == "key_provider"
                        && let Some(a) = o.attr("encrypted_metadata_alias")
                    {
                        m.ignored.push(Ignored {
                            span: a.span,
                            what: "encrypted_metadata_alias of a key provider the module already has is not merged from override files".into(),
                            label: "has no effect",
                        });
                    }
                    merge_body(&mut b.body, &o.body, &["encrypted_metadata_alias"], &[]);
                    b.displaced.push(o.def_span);
                }
                None => out.body.items_mut().push(Item::Block(o.clone())),
            },
            "state" | "plan" => match find(&mut out, &o.kind, &[]) {
                Some(b) => target(m, b, o, true),
                None => out.body.items_mut().push(Item::Block(o.clone())),
            },
            "remote_state_data_sources" => match find(&mut out, &o.kind, &[]) {
                Some(b) => remote(m, b, o),
                None => out.body.items_mut().push(Item::Block(o.clone())),
            },
            _ => {}
        }
    }
    out
}

/// The nested block of `b` with this type and these labels.
fn find<'a>(b: &'a mut Block, kind: &str, labels: &[String]) -> Option<&'a mut Block> {
    b.body.items_mut().iter_mut().find_map(|i| match i {
        Item::Block(x) if x.kind == kind && x.labels == labels => Some(x),
        _ => None,
    })
}

/// `mergeTargetConfigs` (and `mergeEnforceableTargetConfigs` when `enforceable`).
fn target(m: &mut Module, base: &mut Block, over: &Block, enforceable: bool) {
    base.displaced.push(over.def_span);
    if let Some(a) = over.attr("method") {
        set(base, a);
    }
    if enforceable && let Some(a) = over.attr("enforced") {
        let on = |b: &Block| b.attr("enforced").and_then(|e| e.expr.as_bool()).unwrap_or(false);
        match a.expr.as_bool() {
            Some(false) if on(base) => m.ignored.push(Ignored {
                span: a.span,
                what: "enforced = false cannot switch encryption enforcement off from an override file".into(),
                label: "has no effect",
            }),
            Some(false) => {}
            _ => set(base, a),
        }
    }
    if let Some(f) = over.body.blocks_of("fallback").next() {
        let old: Vec<_> = base.body.blocks_of("fallback").map(|b| b.span).collect();
        base.body.items_mut().retain(|i| !matches!(i, Item::Block(b) if b.kind == "fallback"));
        let mut f = f.clone();
        f.displaced = old;
        base.body.items_mut().push(Item::Block(f));
    }
}

fn remote(m: &mut Module, base: &mut Block, over: &Block) {
    base.displaced.push(over.def_span);
    for o in over.body.blocks() {
        let labels: &[String] = match o.kind.as_str() {
            "default" => &[],
            "remote_state_data_source" => &o.labels,
            _ => continue,
        };
        match find(base, &o.kind, labels) {
            Some(b) => target(m, b, o, false),
            None => base.body.items_mut().push(Item::Block(o.clone())),
        }
    }
}

/// Replaces or adds an attribute, remembering what it displaced.
fn set(b: &mut Block, a: &crate::terraform::Attr) {
    match b.body.items_mut().iter_mut().find(|i| matches!(i, Item::Attr(x) if x.name == a.name)) {
        Some(Item::Attr(x)) => *x = replaced_attr(x, a),
        _ => b.body.items_mut().push(Item::Attr(a.clone())),
    }
}
