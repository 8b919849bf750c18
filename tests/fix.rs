//! `fix` and `fold` end to end, in real git repositories (the fixture suites are in
//! `tests/cases/fix.rs`):
//! - fixture folders `tests/fixtures/{fix,fold}/<case>/`: `before/` is committed, the
//!   command runs, and the files must equal `after/` byte for byte; `diff.snap` pins what
//!   `--dry-run` prints (a case without `after/` is a refusal: `refusal.snap` pins why,
//!   and nothing may change);
//! - a second `fix` changes nothing, and `fix --check` agrees;
//! - formatting: only the generated comment lines differ (CRLF, tabs, alignment and
//!   comments kept), also over every merge fixture;
//! - safety: the index is never written, files git cannot restore are refused.

use crate::util::{Sandbox, files_of, index_bytes};

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

/// `fold` merges the module as the audit does, with the release its pin names: Terraform
/// 1.12 has no action blocks (policy fixture 85, confirmed on each release), so a module
/// pinned to it has no effective configuration to fold, where the newest release would
/// fold the override's action into the original's.
#[test]
fn fold_merges_with_the_release_the_module_pins() {
    let s = Sandbox::new();
    let action = |command: &str| {
        format!(
            "action \"local_command\" \"hello\" {{\n  config {{\n    command = \"{command}\"\n  }}\n}}\n"
        )
    };
    s.commit(
        &[
            ("m/main.tf", action("echo").as_str()),
            ("m/override.tf", action("ls").as_str()),
            ("m/.terraform-version", "1.12.2\n"),
        ],
        "init",
    );
    let before = files_of(&s.root);
    let run = s.run(&["fold", "m/override.tf"]);
    assert_eq!(run.code, 1, "{}", run.shown());
    assert_eq!(
        run.err(),
        "error: cannot fold m: Terraform rejects this module, so it has no effective configuration to keep; `override-guard audit` shows why\nnothing was changed\n"
    );
    assert_eq!(files_of(&s.root), before);
    // Pinned to a release that has them, the action folds.
    std::fs::write(s.path("m/.terraform-version"), "1.14.9\n").unwrap();
    s.git(&["add", "-A"]);
    let run = s.run(&["fold", "--dry-run", "m/override.tf"]);
    assert_eq!(run.code, 0, "{}", run.shown());
    assert!(run.out().contains("+    command = \"ls\""), "{}", run.shown());
}

/// An override that swaps the backend is folded only where the policy lets it through or
/// `--allow-backend-swap` says so, and the output says which: folded, the swap would be
/// the original's own, and no audit would report it any more.
#[test]
fn fold_refuses_a_backend_swap_the_policy_denies_unless_told() {
    let s = Sandbox::new();
    let main = "terraform {\n  backend \"s3\" {\n    bucket = \"state\"\n    key    = \"app.tfstate\"\n  }\n}\n";
    let swap = "terraform {\n  backend \"local\" {\n    path = \"dev.tfstate\"\n  }\n}\n";
    s.commit(&[("dev/main.tf", main), ("dev/backend_override.tf", swap)], "init");
    let before = files_of(&s.root);
    let at = "dev/backend_override.tf:2";
    let what = "backend_override.tf replaces backend \"s3\" with backend \"local\"";
    for args in [
        &["fold", "dev/backend_override.tf"][..],
        &["fold", "--dry-run", "dev/backend_override.tf"],
    ] {
        let run = s.run(args);
        assert_eq!(run.code, 1, "{args:?}: {}", run.shown());
        assert_eq!(
            run.err(),
            format!(
                "error: cannot fold {at}: the policy denies this backend swap (backend-swap): {what}. Folded, the swap would be the original's own, where no override file shows it any more; pass --allow-backend-swap to fold it anyway\nnothing was changed\n"
            ),
            "{args:?}"
        );
        assert!(run.out().is_empty(), "{args:?}: {}", run.shown());
        assert_eq!(files_of(&s.root), before, "{args:?}");
    }
    let run = s.run(&["fold", "dev/backend_override.tf", "--allow-backend-swap"]);
    assert_eq!(run.code, 0, "{}", run.shown());
    assert_eq!(
        run.err(),
        format!(
            "note: {at}: --allow-backend-swap folds a backend swap the policy denies (backend-swap): {what}\nrewrote dev/main.tf\ndeleted dev/backend_override.tf\n"
        )
    );
    assert_eq!(std::fs::read_to_string(s.path("dev/main.tf")).unwrap(), swap);
    assert!(!s.path("dev/backend_override.tf").exists());
    // A policy that warns of swaps folds with a note; one that allows them, silently.
    s.git(&["checkout", "--", "."]);
    for (level, note) in [
        (
            "warn",
            format!(
                "note: {at}: fold takes in a backend swap the policy warns of (backend-swap): {what}\n"
            ),
        ),
        ("allow", String::new()),
    ] {
        s.write(".override-guard.toml", format!("[rules]\nbackend-swap = \"{level}\"\n"));
        let run = s.run(&["fold", "--dry-run", "dev/backend_override.tf"]);
        assert_eq!(run.code, 0, "{level}: {}", run.shown());
        assert_eq!(
            run.err(),
            format!("{note}fold would change the files above; nothing was written\n"),
            "{level}"
        );
    }
}

/// A file that starts with a UTF-8 byte order mark (Terraform reads past it): `fix` writes
/// its comment after the mark, `fix --check` then agrees and `audit` is satisfied; `fold`
/// keeps the mark.
#[test]
fn fix_and_fold_write_after_a_byte_order_mark() {
    let s = Sandbox::new();
    let main = "\u{feff}resource \"a\" \"b\" {\n  x = 1\n}\n";
    s.commit(&[("main.tf", main), ("override.tf", "resource \"a\" \"b\" {\n  x = 2\n}\n")], "init");
    let run = s.run(&["fix"]);
    assert_eq!(run.code, 0, "{}", run.shown());
    assert_eq!(
        std::fs::read_to_string(s.path("main.tf")).unwrap(),
        "\u{feff}# NOTE: x is overridden in override.tf\nresource \"a\" \"b\" {\n  x = 1\n}\n"
    );
    let run = s.run(&["fix", "--check"]);
    assert_eq!(run.code, 0, "{}", run.shown());
    let run = s.run(&["audit", ".", "--format", "compact"]);
    assert!(!run.out().contains("missing-override-comment"), "{}", run.shown());
    s.git(&["add", "-A"]);
    let run = s.run(&["fold", "override.tf"]);
    assert_eq!(run.code, 0, "{}", run.shown());
    let folded = std::fs::read_to_string(s.path("main.tf")).unwrap();
    assert!(folded.starts_with('\u{feff}') && folded.contains("x = 2"), "{folded:?}");
}

/// What a `fix` killed between writing its temporary copies and replacing the files leaves:
/// `fix --check` names each file it did not reach and keeps the copy; `fix` names it,
/// removes the copy and writes what is still missing. A copy whose writer still runs is
/// another run's, and left alone.
#[cfg(unix)]
#[test]
fn fix_names_and_removes_what_a_killed_run_left() {
    let s = Sandbox::new();
    let main = "resource \"a\" \"b\" {\n  x = 1\n}\n";
    s.commit(
        &[("m/main.tf", main), ("m/override.tf", "resource \"a\" \"b\" {\n  x = 2\n}\n")],
        "init",
    );
    let dead = {
        let mut c = std::process::Command::new("true").spawn().unwrap();
        let id = c.id();
        c.wait().unwrap();
        id
    };
    let left = format!(".main.tf.override-guard-{dead}-0.tmp");
    let live = format!(".main.tf.override-guard-{}-0.tmp", std::process::id());
    s.write(&format!("m/{left}"), "# NOTE: half\n");
    s.write(&format!("m/{live}"), "another run's\n");
    let run = s.run(&["fix", "--check"]);
    assert_eq!(run.code, 1, "{}", run.shown());
    let note = format!(
        "note: m/main.tf: an earlier run of override-guard (process {dead}) was stopped before it replaced this file, which it did not change; `override-guard fix` removes its unfinished copy ({left})\n"
    );
    assert!(run.err().contains(&note), "{}", run.shown());
    assert!(s.path(&format!("m/{left}")).exists());
    let run = s.run(&["fix"]);
    assert_eq!(run.code, 0, "{}", run.shown());
    assert!(run.err().contains("; its unfinished copy is removed ("), "{}", run.shown());
    assert!(run.err().contains("fixed m/main.tf\n"), "{}", run.shown());
    assert!(!s.path(&format!("m/{left}")).exists());
    assert!(s.path(&format!("m/{live}")).exists(), "a live run's copy was removed");
    assert!(!run.err().contains(&live), "{}", run.shown());
}
