//! Syntax conformance: every `tests/fixtures/syntax/<case>/` holds a small module (`.tf`
//! files, native syntax, valid or broken) and what Terraform 1.15.5 said about it
//! (`expected.json`, written by `record.py` in that folder). Loading the case must give
//! Terraform's verdict and its diagnostics, in its order: severity, summary, detail, file,
//! and where each starts (line, column, byte). Cases where we knowingly differ are listed,
//! with the reason, in `known-differences.txt`; a listed case that agrees fails too, so the
//! list stays true.

use std::collections::BTreeMap;
use std::path::Path;

use override_guard::merge::{self, Module};
use override_guard::terraform::discover::Engine;
use serde_json::{Value, json};

use crate::fixture::fixtures;
use crate::{case_name, per_case, whole};

/// The corpus is meant to stay broad: this many cases at least.
const MIN_CASES: usize = 300;

fn load(case: &Path) -> Module {
    let mut names: Vec<String> = std::fs::read_dir(case)
        .expect("case dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tf"))
        .collect();
    names.sort();
    let read = |p: &str| std::fs::read(case.join(p));
    merge::load("", &names, Some(Engine::Terraform), read).expect("readable")
}

/// Our diagnostics in the shape `expected.json` records Terraform's.
fn ours(m: &Module) -> Vec<Value> {
    m.diagnostics
        .iter()
        .map(|d| {
            let (file, line, column, byte) = match d.subject {
                Some(s) => {
                    let f = m.files.get(s.file);
                    let (l, c) = f.line_col(s.start);
                    (json!(f.name()), json!(l), json!(c), json!(s.start))
                }
                None => (Value::Null, Value::Null, Value::Null, Value::Null),
            };
            json!({
                "severity": d.severity,
                "summary": d.summary,
                "detail": d.detail,
                "filename": file,
                "line": line,
                "column": column,
                "byte": byte,
            })
        })
        .collect()
}

/// One diagnostic on one line: `error 3:7 (byte 21) main.tf: Summary — Detail`.
fn show(d: &Value) -> String {
    let s = |k: &str| d[k].as_str().unwrap_or("").to_string();
    format!(
        "{} {}:{} (byte {}) {}: {} — {}",
        s("severity"),
        d["line"],
        d["column"],
        d["byte"],
        s("filename"),
        s("summary"),
        s("detail")
    )
}

/// What differs between our verdict and diagnostics and Terraform's, one line each.
fn disagreements(m: &Module, expected: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let theirs_valid = expected["valid"].as_bool().unwrap_or(false);
    if m.has_errors() == theirs_valid {
        out.push(format!(
            "verdict: override-guard says {}, Terraform says {}",
            if m.has_errors() { "invalid" } else { "valid" },
            if theirs_valid { "valid" } else { "invalid" }
        ));
    }
    let mine = ours(m);
    let theirs: Vec<Value> = expected["diagnostics"].as_array().cloned().unwrap_or_default();
    for i in 0..mine.len().max(theirs.len()) {
        match (mine.get(i), theirs.get(i)) {
            (Some(a), Some(b)) if a == b => {}
            (Some(a), Some(b)) => {
                out.push(format!("#{}: override-guard {}", i + 1, show(a)));
                out.push(format!("#{}: Terraform      {}", i + 1, show(b)));
            }
            (Some(a), None) => out.push(format!("#{}: only override-guard: {}", i + 1, show(a))),
            (None, Some(b)) => out.push(format!("#{}: only Terraform:      {}", i + 1, show(b))),
            (None, None) => {}
        }
    }
    out
}

/// `known-differences.txt`: case name, then the reason, one case a line (`#` comments).
fn known_differences(root: &Path) -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(root.join("known-differences.txt")).unwrap_or_default();
    let mut out = BTreeMap::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
        let (name, reason) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        assert!(!reason.trim().is_empty(), "known difference without a reason: {line}");
        assert!(out.insert(name.to_string(), reason.trim().to_string()).is_none(), "{name} twice");
    }
    out
}

/// The binary parses on threads with this much stack (the parser descends recursively, and
/// a few cases nest up to its limit): the test does the same.
const STACK: usize = 256 << 20;

/// Every check of the suite, one test per case.
pub fn trials() -> Vec<libtest_mimic::Trial> {
    let mut out = vec![
        whole("syntax", "count", || {
            let n = fixtures("syntax").len();
            assert!(n >= MIN_CASES, "only {n} syntax cases (want {MIN_CASES})");
        }),
        whole("syntax", "known-differences-name-cases", || {
            let names: Vec<String> = fixtures("syntax").iter().map(|c| case_name(c)).collect();
            for name in known_differences(&root()).keys() {
                assert!(names.contains(name), "known-differences.txt names no case {name}");
            }
        }),
    ];
    out.extend(per_case("syntax", "agrees-with-terraform", fixtures("syntax"), |case| {
        let case = case.to_path_buf();
        let run = std::thread::Builder::new().stack_size(STACK).spawn(move || agrees(&case));
        if let Err(panic) = run.expect("a thread starts").join() {
            std::panic::resume_unwind(panic);
        }
    }));
    out
}

fn root() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/syntax")
}

/// Terraform's verdict and diagnostics, or a difference listed with its reason.
fn agrees(case: &Path) {
    let name = case_name(case);
    let text = std::fs::read_to_string(case.join("expected.json")).expect("expected.json");
    let expected: Value = serde_json::from_str(&text).expect("expected.json is JSON");
    let diffs = disagreements(&load(case), &expected);
    match (diffs.is_empty(), known_differences(&root()).get(&name)) {
        (true, None) | (false, Some(_)) => {}
        (true, Some(_)) => {
            panic!("{name} is listed in known-differences.txt but agrees now: remove it")
        }
        (false, None) => panic!("{name} disagrees with Terraform:\n  {}", diffs.join("\n  ")),
    }
}
