//! override-guard's own structured view of an effective configuration, for scripts:
//! every block and attribute with its origin and the values it displaced.

use serde_json::{Value, json};

use super::location;
use crate::merge::Module;
use crate::terraform::{Attr, Block, Item};

/// Renders the view (pretty-printed, trailing newline).
pub fn render(m: &Module) -> String {
    let mut s = serde_json::to_string_pretty(&view(m)).unwrap_or_default();
    s.push('\n');
    s
}

/// The view as a value.
pub fn view(m: &Module) -> Value {
    let st = &m.settings;
    let storage: Vec<Value> = [&st.backend, &st.cloud, &st.state_store]
        .into_iter()
        .flatten()
        .map(|b| block(m, b))
        .collect();
    json!({
        "dir": m.dir,
        "engine": m.engine,
        // Which release judged, and why (the engine alone above, as before releases).
        "release": {
            "engine": m.release.engine,
            "version": m.release.version.to_string(),
            "from": m.choice.from.to_string(),
        },
        "files": m.files.files.iter().map(|f| {
            let mut o = json!({"path": f.path, "class": f.class, "syntax": f.syntax});
            if let Some(l) = f.local {
                o["local"] = json!(l);
            }
            o
        }).collect::<Vec<_>>(),
        "skipped": m.skipped.iter().map(|(n, why)| json!({"file": n, "why": why})).collect::<Vec<_>>(),
        "terraform": {
            "required_version": st.required_version.iter().map(|a| attr(m, a)).collect::<Vec<_>>(),
            "required_providers": st.required_providers.iter().map(|a| attr(m, a)).collect::<Vec<_>>(),
            "storage": storage,
            "encryption": st.encryption.as_ref().map(|b| block(m, b)),
            "other": st.other.iter().map(|i| item(m, i)).collect::<Vec<_>>(),
        },
        "locals": m.locals.iter().map(|a| attr(m, a)).collect::<Vec<_>>(),
        "blocks": m.blocks.iter().map(|b| block(m, b)).collect::<Vec<_>>(),
        "diagnostics": m.diagnostics.iter().map(|d| json!({
            "severity": d.severity,
            "summary": d.summary,
            "detail": d.detail,
            "at": d.subject.map(|s| location(m, s)),
        })).collect::<Vec<_>>(),
        "ignored": m.ignored.iter().map(|i| json!({"what": i.what, "at": location(m, i.span)})).collect::<Vec<_>>(),
    })
}

fn item(m: &Module, i: &Item) -> Value {
    match i {
        Item::Attr(a) => attr(m, a),
        Item::Block(b) => block(m, b),
        Item::Json(j) => json!({
            "attribute": j.name,
            "json": j.value.to_json(),
            "from": location(m, j.span),
            "from_override": m.from_override(j.span),
            "displaced": j.displaced.iter().map(|s| location(m, *s)).collect::<Vec<_>>(),
        }),
    }
}

fn attr(m: &Module, a: &Attr) -> Value {
    json!({
        "attribute": a.name,
        "hcl": a.expr.to_hcl(),
        "from": location(m, a.span),
        "from_override": m.from_override(a.span),
        "displaced": a.displaced.iter().map(|s| location(m, *s)).collect::<Vec<_>>(),
    })
}

fn block(m: &Module, b: &Block) -> Value {
    json!({
        "block": b.kind,
        "labels": b.labels,
        "from": location(m, b.def_span),
        "from_override": m.from_override(b.span),
        "merged": b.displaced.iter().map(|s| location(m, *s)).collect::<Vec<_>>(),
        "body": b.body.items.iter().map(|i| item(m, i)).collect::<Vec<_>>(),
    })
}
