//! The `fix` and `fold` fixture suites, end to end in real git repositories:
//! `tests/fixtures/{fix,fold}/<case>/`: `before/` is committed, the command runs, and the
//! files must equal `after/` byte for byte; `diff.snap` pins what `--dry-run` prints (a
//! case without `after/` is a refusal: `refusal.snap` pins why, and nothing may change).
//! Also `fix` over every merge fixture: only generated comment lines are added and a
//! second plan is empty.

use std::path::Path;

use override_guard::fix::comments::{self, generated};
use override_guard::merge::load_texts;
use override_guard::policy::Policy;
use override_guard_hcl::fmt;

use crate::fixture::{fixtures, load_fixture};
use crate::util::{Sandbox, files_of, index_bytes};
use crate::{per_case, whole};

/// Every check of the suites, one test per case.
pub fn trials() -> Vec<libtest_mimic::Trial> {
    let mut out = vec![
        whole("fix", "count", || assert!(fixtures("fix").len() >= 8)),
        whole("fold-repo", "count", || assert!(fixtures("fold").len() >= 8)),
        whole("fix-merge", "count", || {
            let fixed = needing_comments();
            assert!(fixed >= 60, "only {fixed} fixtures needed a comment");
        }),
    ];
    out.extend(per_case("fix", "fixes", fixtures("fix"), fix_case));
    out.extend(per_case("fold-repo", "folds", fixtures("fold"), fold_case));
    let merge = fixtures("merge").into_iter().chain(fixtures("opentofu")).collect();
    out.extend(per_case("fix-merge", "only-comments-and-idempotent", merge, fix_merge_fixture));
    out
}

/// A sandbox whose repository holds `dir`'s files, committed.
fn committed(dir: &Path) -> Sandbox {
    let s = Sandbox::new();
    for (rel, bytes) in files_of(dir) {
        s.write(&rel, bytes);
    }
    s.git(&["add", "-A"]);
    s.git(&["commit", "-q", "--no-verify", "-m", "before"]);
    s
}

fn snapshot(case: &Path, name: &str, text: &str) {
    let case_name = case.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
    insta::with_settings!({snapshot_path => case, prepend_module_to_snapshot => false, snapshot_suffix => "", input_file => case.join("before"), description => case_name}, {
        insta::assert_snapshot!(name, text);
    });
}

/// Every line a fix removes or adds is a generated comment (native files): nothing else
/// moved, and the line endings are the file's own.
/// Lines are compared with their spaces collapsed: a file that was as `terraform fmt`
/// writes it is kept so, which may re-align the `=` of a neighbour.
fn only_comment_lines_differ(before: &str, after: &str) -> Result<(), String> {
    // A byte order mark stays the first character, before whatever comes first now.
    let bom = '\u{feff}';
    if before.starts_with(bom) != after.starts_with(bom) {
        return Err("the byte order mark is no longer the first character".into());
    }
    let (before, after) = (before.trim_start_matches(bom), after.trim_start_matches(bom));
    let words = |t: &str| -> Vec<String> {
        t.split('\n')
            .map(|l| l.split([' ', '\t']).filter(|w| !w.is_empty()).collect::<Vec<_>>().join(" "))
            .collect()
    };
    let (a, b) = (words(before), words(after));
    let ops = similar::capture_diff_slices(similar::Algorithm::Myers, &a, &b);
    for op in ops {
        let (tag, old, new) = op.as_tag_tuple();
        if tag == similar::DiffTag::Equal {
            continue;
        }
        for line in a[old].iter().chain(&b[new]) {
            let t = line.trim_end_matches('\r').trim();
            let body = t.strip_prefix('#').map(str::trim);
            if body.and_then(generated).is_none() {
                return Err(format!("a line other than a generated comment changed: {line:?}"));
            }
        }
    }
    if before.contains("\r\n") && after.split_inclusive('\n').any(|l| !l.ends_with("\r\n")) {
        return Err("a CRLF file got a bare LF line".into());
    }
    Ok(())
}

/// `before/` committed, `fix` run: the files equal `after/`, only comments differ, and
/// a second run has nothing to do.
fn fix_case(case: &Path) {
    {
        let s = committed(&case.join("before"));
        let index = index_bytes(&s);
        let dry = s.run(&["fix", "--dry-run", "."]);
        snapshot(case, "diff", &dry.out());
        assert_eq!(
            files_of(&s.root),
            files_of(&case.join("before")),
            "--dry-run wrote: {}",
            dry.shown()
        );
        let run = s.run(&["fix", "."]);
        assert!(run.code == 0 || run.code == 1, "{}: {}", case.display(), run.shown());
        let want = files_of(&case.join("after"));
        let got = files_of(&s.root);
        for (rel, bytes) in &want {
            assert_eq!(
                String::from_utf8_lossy(got.get(rel).map_or(&[][..], |b| b)),
                String::from_utf8_lossy(bytes),
                "{}: {rel}",
                case.display()
            );
        }
        assert_eq!(got.len(), want.len(), "{}", case.display());
        for (rel, bytes) in &files_of(&case.join("before")) {
            if rel.ends_with(".tf") {
                let (b, a) = (String::from_utf8_lossy(bytes), String::from_utf8_lossy(&got[rel]));
                if let Err(e) = only_comment_lines_differ(&b, &a) {
                    panic!("{}: {rel}: {e}", case.display());
                }
            }
        }
        assert_eq!(index_bytes(&s), index, "{}: fix wrote the index", case.display());
        // A second run has nothing to do; --check agrees (exit 1 only for what needs a hand).
        let check = s.run(&["fix", "--check", "."]);
        assert!(check.out().is_empty(), "{}: not idempotent:\n{}", case.display(), check.shown());
        assert_eq!(check.code, run.code, "{}", check.shown());
    }
}

/// `before/` committed, `fold` run on its override files: the files equal `after/`, or
/// the refusal is pinned and nothing changed.
fn fold_case(case: &Path) {
    {
        let before = files_of(&case.join("before"));
        let s = committed(&case.join("before"));
        let index = index_bytes(&s);
        let overrides: Vec<&String> = before
            .keys()
            .filter(|n| {
                let n = n.trim_end_matches(".json");
                n.ends_with("_override.tf") || n == "override.tf"
            })
            .collect();
        let mut args = vec!["fold", "--dry-run"];
        args.extend(overrides.iter().map(|s| s.as_str()));
        let dry = s.run(&args);
        assert_eq!(files_of(&s.root), before, "--dry-run wrote: {}", dry.shown());
        args.remove(1);
        let run = s.run(&args);
        if case.join("after").exists() {
            assert_eq!(dry.code, 0, "{}: {}", case.display(), dry.shown());
            snapshot(case, "diff", &dry.out());
            assert_eq!(run.code, 0, "{}: {}", case.display(), run.shown());
            let want = files_of(&case.join("after"));
            let got = files_of(&s.root);
            assert_eq!(
                got.keys().collect::<Vec<_>>(),
                want.keys().collect::<Vec<_>>(),
                "{}",
                case.display()
            );
            for (rel, bytes) in &want {
                assert_eq!(
                    String::from_utf8_lossy(&got[rel]),
                    String::from_utf8_lossy(bytes),
                    "{}: {rel}",
                    case.display()
                );
            }
        } else {
            assert_eq!(run.code, 1, "{}: {}", case.display(), run.shown());
            assert_eq!(dry.code, 1, "{}", dry.shown());
            snapshot(case, "refusal", &run.err());
            assert_eq!(files_of(&s.root), before, "{}: a refusal changed files", case.display());
        }
        assert_eq!(index_bytes(&s), index, "{}: fold wrote the index", case.display());
    }
}

/// `fix` on every merge fixture: only generated comment lines are added, and a second
/// plan on the result is empty (idempotence), under the built-in policy.
/// How many merge and OpenTofu fixtures need a comment under the built-in policy.
fn needing_comments() -> usize {
    let policy = Policy::builtin();
    fixtures("merge")
        .into_iter()
        .chain(fixtures("opentofu"))
        .filter(|case| !comment_plan(&load_fixture(case), &policy).edits.is_empty())
        .count()
}

fn comment_plan(m: &override_guard::merge::Module, policy: &Policy) -> comments::Plan {
    comments::plan(
        m,
        policy,
        &Default::default(),
        override_guard::policy::Date { year: 2026, month: 11, day: 22 },
    )
}

/// `fix` on a merge fixture: only generated comment lines are added, and a second plan on
/// the result is empty (idempotence), under the built-in policy.
fn fix_merge_fixture(case: &Path) {
    let policy = Policy::builtin();
    {
        let m = load_fixture(case);
        let plan = comment_plan(&m, &policy);
        if plan.edits.is_empty() {
            return;
        }
        let mut files: Vec<(String, String)> =
            m.files.files.iter().map(|f| (f.name().to_string(), f.text.to_string())).collect();
        for e in &plan.edits {
            let slot = files.iter_mut().find(|(n, _)| e.path == *n).expect("a file of the module");
            let after = e.after.clone().expect("fix never deletes");
            if !slot.0.ends_with(".json")
                && let Err(err) = only_comment_lines_differ(&slot.1, &after)
            {
                panic!("{}: {}: {err}", case.display(), slot.0);
            }
            if !slot.0.ends_with(".json") && fmt::is_formatted(&slot.1) {
                assert!(
                    fmt::is_formatted(&after),
                    "{}: {}: no longer as terraform fmt writes it",
                    case.display(),
                    slot.0
                );
            }
            slot.1 = after;
        }
        let pairs: Vec<(&str, &str)> =
            files.iter().map(|(n, t)| (n.as_str(), t.as_str())).collect();
        let again = load_texts("", &pairs, Some(m.engine));
        let second = comment_plan(&again, &policy);
        assert!(
            second.edits.is_empty(),
            "{}: a second fix changes {:?}",
            case.display(),
            second.edits
        );
    }
}
