//! OpenTofu-specific behaviour (spec §1.2, §3, §4, §5): `tests/fixtures/opentofu/<case>/`
//! holds a module and `expected.json` written from the contract (OpenTofu cannot be run
//! here, so these are the spec's expectations, not an engine's recorded output).

use override_guard::merge::Module;
use override_guard::terraform::{Block, Item};
use serde_json::{Value, json};

use crate::util::{fixtures, load_fixture};

fn origins(m: &Module) -> serde_json::Map<String, Value> {
    let mut out = serde_json::Map::new();
    let mut add = |addr: String, b: &Block| {
        for item in &b.body.items {
            if let Item::Attr(a) = item {
                out.insert(format!("{addr}.{}", a.name), json!(m.files.short(a.span)));
            }
        }
    };
    for b in &m.blocks {
        add(format!("{}.{}", b.kind, b.labels.join(".")), b);
    }
    out
}

#[test]
fn opentofu_fixtures_follow_the_contract() {
    let cases = fixtures("opentofu");
    assert!(!cases.is_empty());
    for case in cases {
        let want: Value = serde_json::from_str(
            &std::fs::read_to_string(case.join("expected.json")).expect("expected.json"),
        )
        .expect("json");
        let m = load_fixture(&case);
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
        let got = origins(&m);
        for (k, v) in want["origins"].as_object().into_iter().flatten() {
            assert_eq!(got.get(k), Some(v), "{name}: origin of {k}");
        }
    }
}
