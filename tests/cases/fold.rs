//! `fold` against the merge conformance fixtures: every module with override files either
//! folds into primary files whose effective configuration equals the original's, value
//! for value, or is refused with a reason. The list of outcomes is pinned, so a change in
//! either direction shows up in review.

use override_guard::fix::fold;
use override_guard::merge::{Module, load_texts};
use override_guard::render::tfjson;

use std::path::Path;

use crate::fixture::{fixtures, load_fixture};
use crate::{per_case, whole};

/// The module after a successful fold, loaded from the written texts alone.
fn folded(m: &Module, edits: &[override_guard::fix::FileEdit]) -> Module {
    let mut files: Vec<(String, String)> = Vec::new();
    for f in &m.files.files {
        match edits.iter().find(|e| e.path == f.path) {
            Some(e) => {
                if let Some(after) = &e.after {
                    files.push((f.name().to_string(), after.clone()));
                }
            }
            None => files.push((f.name().to_string(), f.text.to_string())),
        }
    }
    let pairs: Vec<(&str, &str)> = files.iter().map(|(n, t)| (n.as_str(), t.as_str())).collect();
    load_texts("", &pairs, Some(m.engine))
}

/// The merge and OpenTofu fixtures: fold's plan for each one's override files.
fn cases() -> Vec<std::path::PathBuf> {
    fixtures("merge").into_iter().chain(fixtures("opentofu")).collect()
}

/// Every check of the suite: each fixture on its own, and the pinned list of outcomes.
pub fn trials() -> Vec<libtest_mimic::Trial> {
    let mut out: Vec<_> = per_case("fold", "same-configuration-or-refused", cases(), |case| {
        outcome(case);
    })
    .collect();
    out.push(whole("fold", "outcomes", || {
        let mut lines: Vec<String> = cases().iter().filter_map(|c| outcome(c)).collect();
        let ok = lines.iter().filter(|l| l.contains(": folded, ")).count();
        let refused = lines.len() - ok;
        let rejected = lines.iter().filter(|l| l.contains("rejects this module")).count();
        // docs/architecture.md's counts are these.
        let readme = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/architecture.md"),
        )
        .unwrap();
        let readme = readme.split_whitespace().collect::<Vec<_>>().join(" ");
        let said = format!(
            "Of the {} fixture modules with override files, {ok} fold. Of the {refused} refused, {rejected} are modules Terraform or OpenTofu rejects; the other {} are refused for a stated reason.",
            lines.len(),
            refused - rejected
        );
        assert!(readme.contains(&said), "docs/architecture.md should say: {said}");
        lines.insert(0, format!("{ok} folded, {refused} refused"));
        insta::with_settings!({prepend_module_to_snapshot => false, snapshot_path => "../snapshots"}, {
            insta::assert_snapshot!(
                "tests__fold__every_fixture_folds_to_the_same_configuration_or_is_refused_with_a_reason",
                lines.join("\n")
            );
        });
    }));
    out
}

/// Folds a fixture's override files and checks the result: `None` when it has none, else
/// the line the pinned list holds for it.
fn outcome(case: &Path) -> Option<String> {
    let name = format!(
        "{}/{}",
        case.parent().and_then(|p| p.file_name()).unwrap().to_string_lossy(),
        case.file_name().unwrap().to_string_lossy()
    );
    let m = load_fixture(case);
    let names: Vec<String> = m.override_files().map(|f| f.name().to_string()).collect();
    if names.is_empty() {
        return None;
    }
    Some(match fold::plan(&m, &names) {
        Ok(plan) => {
            let edits = plan.edits;
            let after = folded(&m, &edits);
            assert!(after.override_files().next().is_none(), "{name}: overrides left");
            assert!(!after.has_errors(), "{name}: {:?}", after.diagnostics);
            assert_eq!(tfjson::document(&after), tfjson::document(&m), "{name}");
            let rewritten = edits.iter().filter(|e| e.after.is_some()).count();
            format!("{name}: folded, {rewritten} rewritten, {} deleted", names.len())
        }
        Err(r) => {
            let first = &r[0];
            let at = if first.line > 0 { format!(":{}", first.line) } else { String::new() };
            format!("{name}: refused: {}{at}: {}", first.path, first.reason)
        }
    })
}
