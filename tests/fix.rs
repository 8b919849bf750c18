//! `fix` and `fold` end to end, in real git repositories:
//! - fixture folders `tests/fixtures/{fix,fold}/<case>/`: `before/` is committed, the
//!   command runs, and the files must equal `after/` byte for byte; `diff.snap` pins what
//!   `--dry-run` prints (a case without `after/` is a refusal: `refusal.snap` pins why,
//!   and nothing may change);
//! - a second `fix` changes nothing, and `fix --check` agrees;
//! - formatting: only the generated comment lines differ (CRLF, tabs, alignment and
//!   comments kept), also over every merge fixture;
//! - safety: the index is never written, files git cannot restore are refused.

use std::collections::BTreeMap;
use std::path::Path;

use override_guard::fix::comments::{self, generated};
use override_guard::merge::load_texts;
use override_guard::policy::Policy;
use override_guard::terraform::syntax::fmt;

use crate::util::{Sandbox, fixtures, load_fixture};

/// Every file under `dir` (recursively, without `.git`), by relative path.
fn files_of(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("readable") {
            let p = e.expect("entry").path();
            if p.file_name().is_some_and(|n| n == ".git") {
                continue;
            }
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).expect("inside").to_string_lossy().replace('\\', "/");
                out.insert(rel, std::fs::read(&p).expect("readable"));
            }
        }
    }
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

fn index_bytes(s: &Sandbox) -> Vec<u8> {
    std::fs::read(s.path(".git/index")).expect("an index")
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

#[test]
fn fix_fixtures() {
    let cases = fixtures("fix");
    assert!(cases.len() >= 8);
    for case in cases {
        let s = committed(&case.join("before"));
        let index = index_bytes(&s);
        let dry = s.run(&["fix", "--dry-run", "."]);
        snapshot(&case, "diff", &dry.out());
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

#[test]
fn fold_fixtures() {
    let cases = fixtures("fold");
    assert!(cases.len() >= 8);
    for case in cases {
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
            snapshot(&case, "diff", &dry.out());
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
            snapshot(&case, "refusal", &run.err());
            assert_eq!(files_of(&s.root), before, "{}: a refusal changed files", case.display());
        }
        assert_eq!(index_bytes(&s), index, "{}: fold wrote the index", case.display());
    }
}

/// `fix` on every merge fixture: only generated comment lines are added, and a second
/// plan on the result is empty (idempotence), under the built-in policy.
#[test]
fn fix_is_idempotent_and_adds_only_comments_on_every_merge_fixture() {
    let policy = Policy::builtin();
    let mut fixed = 0;
    for case in fixtures("merge").into_iter().chain(fixtures("opentofu")) {
        let m = load_fixture(&case);
        let plan = comments::plan(
            &m,
            &policy,
            &Default::default(),
            override_guard::policy::Date { year: 2026, month: 11, day: 22 },
        );
        if plan.edits.is_empty() {
            continue;
        }
        fixed += 1;
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
        let second = comments::plan(
            &again,
            &policy,
            &Default::default(),
            override_guard::policy::Date { year: 2026, month: 11, day: 22 },
        );
        assert!(
            second.edits.is_empty(),
            "{}: a second fix changes {:?}",
            case.display(),
            second.edits
        );
    }
    assert!(fixed >= 60, "only {fixed} fixtures needed a comment");
}

#[test]
fn fix_refuses_files_git_cannot_restore_unless_allowed() {
    let s = Sandbox::new();
    let main = "resource \"a\" \"b\" {\n  x = 1\n}\n";
    s.commit(&[("main.tf", main), ("override.tf", "resource \"a\" \"b\" {\n  x = 2\n}\n")], "init");
    // An unstaged change.
    s.write("main.tf", format!("{main}\n"));
    let index = index_bytes(&s);
    let run = s.run(&["fix"]);
    assert_eq!(run.code, 2, "{}", run.shown());
    assert!(run.err().contains("main.tf has changes that are not staged"), "{}", run.shown());
    assert_eq!(std::fs::read_to_string(s.path("main.tf")).unwrap(), format!("{main}\n"));
    // Staged: git holds a copy, so fix may write.
    s.git(&["add", "main.tf"]);
    let staged = index_bytes(&s);
    let run = s.run(&["fix"]);
    assert_eq!(run.code, 0, "{}", run.shown());
    assert!(
        std::fs::read_to_string(s.path("main.tf"))
            .unwrap()
            .starts_with("# NOTE: x is overridden in override.tf\n")
    );
    assert_eq!(index_bytes(&s), staged);
    assert_ne!(staged, index);
    // Untracked files are refused too; --allow-dirty writes. (The override is tracked: a
    // local-only override gets no comment, see below.)
    s.write("extra/main.tf", main);
    s.write("extra/override.tf", "resource \"a\" \"b\" {\n  x = 3\n}\n");
    s.git(&["add", "extra/override.tf"]);
    let run = s.run(&["fix", "extra"]);
    assert_eq!(run.code, 2, "{}", run.shown());
    assert!(run.err().contains("extra/main.tf is not tracked by git"), "{}", run.shown());
    let run = s.run(&["fix", "extra", "--allow-dirty"]);
    assert_eq!(run.code, 0, "{}", run.shown());
    assert_eq!(run.err(), "fixed extra/main.tf\n");
}

#[test]
fn outside_git_only_allow_dirty_writes() {
    let s = Sandbox::empty();
    s.write("main.tf", "resource \"a\" \"b\" {\n  x = 1\n}\n");
    s.write("override.tf", "resource \"a\" \"b\" {\n  x = 2\n}\n");
    let run = s.run(&["fold", "override.tf"]);
    assert_eq!(run.code, 2, "{}", run.shown());
    assert!(run.err().contains("not in a git worktree"), "{}", run.shown());
    assert!(s.path("override.tf").exists());
    let run = s.run(&["fold", "override.tf", "--allow-dirty"]);
    assert_eq!(run.code, 0, "{}", run.shown());
    assert!(!s.path("override.tf").exists());
    assert_eq!(
        std::fs::read_to_string(s.path("main.tf")).unwrap(),
        "resource \"a\" \"b\" {\n  x = 2\n}\n"
    );
}

#[cfg(unix)]
#[test]
fn writes_keep_permissions_and_do_not_follow_links() {
    use std::os::unix::fs::PermissionsExt;
    let s = Sandbox::new();
    s.commit(
        &[
            ("main.tf", "resource \"a\" \"b\" {\n  x = 1\n}\n"),
            ("override.tf", "resource \"a\" \"b\" {\n  x = 2\n}\n"),
        ],
        "init",
    );
    std::fs::set_permissions(s.path("main.tf"), std::fs::Permissions::from_mode(0o600)).unwrap();
    let run = s.run(&["fix"]);
    assert_eq!(run.code, 0, "{}", run.shown());
    assert_eq!(std::fs::metadata(s.path("main.tf")).unwrap().permissions().mode() & 0o777, 0o600);
    // A module file that is a link inside the repository: never written through.
    s.write("real/main.tf", "resource \"a\" \"c\" {\n  x = 1\n}\n");
    std::fs::create_dir_all(s.path("linked")).unwrap();
    std::os::unix::fs::symlink("../real/main.tf", s.path("linked/main.tf")).unwrap();
    s.write("linked/override.tf", "resource \"a\" \"c\" {\n  x = 2\n}\n");
    s.git(&["add", "-A"]);
    let run = s.run(&["fix", "linked"]);
    assert_eq!(run.code, 2, "{}", run.shown());
    assert!(run.err().contains("symbolic link"), "{}", run.shown());
    assert!(std::fs::symlink_metadata(s.path("linked/main.tf")).unwrap().file_type().is_symlink());
}

#[test]
fn fold_refuses_everything_when_one_module_cannot_fold() {
    let s = Sandbox::new();
    s.commit(
        &[
            ("a/main.tf", "resource \"a\" \"b\" {\n  x = 1\n}\n"),
            ("a/override.tf", "resource \"a\" \"b\" {\n  x = 2\n}\n"),
            (
                "b/main.tf",
                "resource \"a\" \"b\" {\n  depends_on = [a.c]\n}\nresource \"a\" \"c\" {}\n",
            ),
            ("b/override.tf", "resource \"a\" \"b\" {\n  depends_on = []\n}\n"),
        ],
        "init",
    );
    let before = files_of(&s.root);
    let run = s.run(&["fold", "a/override.tf", "b/override.tf"]);
    assert_eq!(run.code, 1, "{}", run.shown());
    assert_eq!(
        run.err(),
        "error: cannot fold b/override.tf:2: depends_on = [] in an override changes nothing: folding it would make it take effect; delete it from the override file first\nnothing was changed\n"
    );
    assert_eq!(files_of(&s.root), before);
    let run = s.run(&["fold", "a/main.tf"]);
    assert_eq!(run.code, 1);
    assert!(run.err().contains("a/main.tf: not an override file"), "{}", run.shown());
}
