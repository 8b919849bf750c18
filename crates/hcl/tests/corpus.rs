//! The crate's own corpus: every file of `tests/fixtures/` (native syntax `.tf`, JSON
//! syntax `.tf.json`) is read as Terraform reads it, and its diagnostics (summary, detail,
//! and where, as `line,column-line,column` the way HCL counts columns) must be the ones
//! its `.expected` file lists, one a line, in order; a `valid-` file must have none. A
//! native file must also come back unchanged from the formatter when it is valid.
//!
//! `OVERRIDE_GUARD_HCL_BLESS=1 cargo test -p override-guard-hcl --test corpus` rewrites
//! the `.expected` files from what the parser says (review the diff).
#![allow(unreachable_pub)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use override_guard_hcl::{Columns, LineIndex, json, parse_config};

/// The diagnostics of one file, one a line.
fn diagnostics(name: &str, text: &str) -> String {
    let (errors, columns): (Vec<_>, _) = if name.ends_with(".tf.json") {
        let errors = json::check(text);
        (errors.into_iter().map(|(s, d, a, b)| (s.to_string(), d, a..b)).collect(), Columns::Chars)
    } else {
        let (_, errors) = parse_config(text);
        (errors.into_iter().map(|e| (e.summary, e.detail, e.range)).collect(), Columns::Graphemes)
    };
    let index = LineIndex::new(text);
    let mut out = String::new();
    for (summary, detail, range) in errors {
        let (l1, c1) = index.line_col(text, range.start, columns);
        let (l2, c2) = index.line_col(text, range.end, columns);
        out.push_str(&format!("{l1},{c1}-{l2},{c2}: {summary}: {detail}\n"));
    }
    out
}

#[test]
fn every_fixture_gives_its_expected_diagnostics() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let bless = std::env::var_os("OVERRIDE_GUARD_HCL_BLESS").is_some();
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tf") || n.ends_with(".tf.json"))
        .collect();
    names.sort();
    assert!(names.len() >= 10, "the corpus is gone: {names:?}");
    let mut failed = Vec::new();
    for name in &names {
        let text = std::fs::read_to_string(dir.join(name)).unwrap();
        let got = diagnostics(name, &text);
        let expected_path = dir.join(format!("{name}.expected"));
        if name.starts_with("valid") {
            assert_eq!(got, "", "{name} is valid");
            assert!(!expected_path.exists(), "{name} is valid: no .expected file");
            if name.ends_with(".tf") {
                assert_eq!(
                    override_guard_hcl::fmt::format(&text).as_deref(),
                    Some(&*text),
                    "{name}"
                );
            }
            continue;
        }
        assert!(!got.is_empty(), "{name} is broken: no diagnostic");
        if bless {
            std::fs::write(&expected_path, &got).unwrap();
            continue;
        }
        let want = std::fs::read_to_string(&expected_path).unwrap_or_default();
        if got != want {
            failed.push(format!("{name}:\n--- expected\n{want}--- got\n{got}"));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}
