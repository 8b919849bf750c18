//! `terraform fmt`, reproduced: every `tests/fixtures/fmt/<case>/` holds an `input.tf` and
//! the `expected.tf` real Terraform 1.15.5's `fmt` made of it. Our formatter must write
//! exactly that, and leave it unchanged.

use override_guard_hcl::fmt::format;

use std::path::Path;

use crate::fixture::fixtures;
use crate::{per_case, whole};

/// Every check of the suite, one test per case.
pub fn trials() -> Vec<libtest_mimic::Trial> {
    let mut out = vec![whole("fmt", "count", || {
        assert!(fixtures("fmt").len() >= 10, "at least 10 fmt fixtures");
    })];
    out.extend(per_case("fmt", "agrees-with-terraform", fixtures("fmt"), agrees_with_terraform));
    out.push(whole("fmt", "corpus-agrees-with-terraform", corpus_agrees_with_terraform));
    out
}

/// `format(input.tf)` is `expected.tf`, and `expected.tf` is a fixed point.
fn agrees_with_terraform(case: &Path) {
    let input = std::fs::read_to_string(case.join("input.tf")).expect("input.tf");
    let expected = std::fs::read_to_string(case.join("expected.tf")).expect("expected.tf");
    let got = format(&input);
    assert!(
        got.as_deref() == Some(expected.as_str()),
        "--- ours\n{}\n--- terraform\n{expected}",
        got.unwrap_or_default()
    );
    assert_eq!(
        format(&expected).as_deref(),
        Some(expected.as_str()),
        "the expected text is not a fixed point"
    );
}

/// A differential run over a larger corpus, when one is at hand: `ORIG/` and `FMT/`
/// folders with the same file names, `FMT/` written by `terraform fmt`.
fn corpus_agrees_with_terraform() {
    let Ok(root) = std::env::var("OVERRIDE_GUARD_FMT_CORPUS") else { return };
    let root = std::path::Path::new(&root);
    let (orig, want) = (root.join("orig"), root.join("fmt"));
    let mut names: Vec<_> =
        std::fs::read_dir(&orig).expect("orig/").map(|e| e.expect("entry").file_name()).collect();
    names.sort();
    let (mut same, mut bad) = (0, Vec::new());
    for n in &names {
        let (Ok(input), Ok(expected)) =
            (std::fs::read_to_string(orig.join(n)), std::fs::read_to_string(want.join(n)))
        else {
            continue;
        };
        match format(&input) {
            Some(got) if got == expected => same += 1,
            None if input == expected => same += 1,
            got => {
                // Ours beside Terraform's, to compare with `diff -r`.
                if let Ok(out) = std::env::var("OVERRIDE_GUARD_FMT_OUT") {
                    let _ = std::fs::create_dir_all(&out);
                    let _ =
                        std::fs::write(std::path::Path::new(&out).join(n), got.unwrap_or(input));
                }
                bad.push(n.to_string_lossy().into_owned())
            }
        }
    }
    eprintln!("{same} of {} files formatted as Terraform formats them", names.len());
    assert!(
        bad.is_empty(),
        "{} differ: {}",
        bad.len(),
        bad.iter().take(40).cloned().collect::<Vec<_>>().join(" ")
    );
}
