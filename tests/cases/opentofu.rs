//! OpenTofu-specific behaviour (spec §1.2, §3, §4, §5): `tests/fixtures/opentofu/<case>/`
//! holds a module and `expected.json` written from the contract (OpenTofu cannot be run
//! here, so these are the spec's expectations, not an engine's recorded output).

use override_guard::merge::Module;
use override_guard::terraform::{Block, Item};
use serde_json::{Value, json};

use std::path::Path;

use crate::fixture::{fixtures, load_fixture};
use crate::{per_case, whole};

fn origins(m: &Module) -> serde_json::Map<String, Value> {
    let mut out = serde_json::Map::new();
    let mut add = |addr: String, b: &Block| {
        for item in b.body.items.iter() {
            if let Item::Attr(a) = item {
                out.insert(format!("{addr}.{}", a.name), json!(m.files.short(a.span)));
            }
        }
    };
    for b in &m.blocks {
        add(format!("{}.{}", b.kind, b.labels.join(".")), b);
    }
    // The merged encryption block, all the way down.
    fn walk(m: &Module, addr: &str, b: &Block, out: &mut serde_json::Map<String, Value>) {
        for item in b.body.items.iter() {
            match item {
                Item::Attr(a) => {
                    out.insert(format!("{addr}.{}", a.name), json!(m.files.short(a.span)));
                }
                Item::Block(n) => {
                    let mut next = format!("{addr}.{}", n.kind);
                    for l in &n.labels {
                        next.push('.');
                        next.push_str(l);
                    }
                    walk(m, &next, n, out);
                }
                Item::Json(_) => {}
            }
        }
    }
    if let Some(e) = &m.settings.encryption {
        walk(m, "encryption", e, &mut out);
    }
    out
}

/// The nested blocks of the merged encryption block, in order (`key_provider.pbkdf2.main`).
fn encryption_blocks(m: &Module) -> Vec<String> {
    let mut out = Vec::new();
    for b in m.settings.encryption.iter().flat_map(|e| e.body.blocks()) {
        out.push(
            std::iter::once(b.kind.clone())
                .chain(b.labels.iter().cloned())
                .collect::<Vec<_>>()
                .join("."),
        );
    }
    out
}

/// Every check of the suite, one test per case.
pub fn trials() -> Vec<libtest_mimic::Trial> {
    let mut out = vec![whole("opentofu", "count", || assert!(!fixtures("opentofu").is_empty()))];
    out.extend(per_case("opentofu", "follows-the-contract", fixtures("opentofu"), contract));
    out
}

/// Files, diagnostics, encryption blocks, the effective blocks (`resource.T.N`), ignored
/// files and origins as `expected.json` says.
fn contract(case: &Path) {
    {
        let want: Value = serde_json::from_str(
            &std::fs::read_to_string(case.join("expected.json")).expect("expected.json"),
        )
        .expect("json");
        let m = load_fixture(case);
        let name = case.display();
        let files: Vec<&str> = m.files.files.iter().map(|f| f.name()).collect();
        assert_eq!(json!(files), want["files"], "{name}: files");
        let diags: Vec<Value> = m
            .diagnostics
            .iter()
            .map(|d| {
                let s = d.subject.expect("subject");
                let f = m.files.get(s.file);
                json!({"summary": d.summary, "file": f.name(), "line": f.line_col(s.start).0})
            })
            .collect();
        assert_eq!(json!(diags), want["diagnostics"], "{name}: diagnostics");
        if let Some(want_blocks) = want.get("encryption_blocks") {
            assert_eq!(&json!(encryption_blocks(&m)), want_blocks, "{name}: encryption blocks");
        }
        if let Some(want_blocks) = want.get("blocks") {
            let got: Vec<String> = m
                .blocks
                .iter()
                .map(|b| {
                    std::iter::once(b.kind.as_str())
                        .chain(b.labels.iter().map(String::as_str))
                        .collect::<Vec<_>>()
                        .join(".")
                })
                .collect();
            assert_eq!(&json!(got), want_blocks, "{name}: blocks");
        }
        if let Some(want_ignored) = want.get("ignored") {
            let got: Vec<String> = m.ignored.iter().map(|i| m.files.short(i.span)).collect();
            assert_eq!(&json!(got), want_ignored, "{name}: ignored");
        }
        let got = origins(&m);
        for (k, v) in want["origins"].as_object().into_iter().flatten() {
            assert_eq!(got.get(k), Some(v), "{name}: origin of {k}");
        }
    }
}
