//! The git sources end to end: real repositories made with the `git` CLI in temporary
//! directories, the binary run against them (`check`, `diff`, `show --staged`,
//! `audit --rev`), and the plain `hooks/pre-commit` installed and run by `git commit`.
//!
//! Every child process gets a hermetic environment: no inherited `GIT_*` variable (these
//! tests may themselves run inside a git hook), a temporary HOME, no system or global
//! git configuration, a fixed author and committer.

use crate::texts::*;
use std::path::Path;
use std::process::{Command, Output};

use crate::util::{
    SANDBOX_GIT_CONFIG as GIT_CONFIG, Sandbox, assert_same_tree, bin, hermetic, snapshot_tree,
};

/// The binary's path, for the hook (`OVERRIDE_GUARD`).
const BIN: &str = env!("CARGO_BIN_EXE_override-guard");

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The shared sandbox (`util::Sandbox`: a temporary directory with a home and `repo/`,
/// hermetic git and binary) with what these tests add: `git init` options, git with an
/// environment, and runs as `(exit code, stdout, stderr)`.
struct Repo(Sandbox);

impl std::ops::Deref for Repo {
    type Target = Sandbox;
    fn deref(&self) -> &Sandbox {
        &self.0
    }
}

impl Repo {
    /// `git init` with the default object format.
    fn new() -> Repo {
        Repo(Sandbox::new())
    }

    /// Only the temporary directory and the home, no `repo/` (for tests that make the
    /// repository themselves, or may be unable to).
    fn empty() -> Repo {
        let s = Sandbox::empty();
        std::fs::remove_dir(&s.root).expect("remove the empty repo/");
        Repo(s)
    }

    /// `git` with the hermetic environment in `dir`; the output whatever the status.
    fn git_output(&self, dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
        let mut cmd = Command::new("git");
        hermetic(&mut cmd, &self.home());
        cmd.args(GIT_CONFIG).args(args).current_dir(dir);
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.output().expect("git runs")
    }

    /// `git rev-parse REV`.
    fn rev_parse(&self, rev: &str) -> String {
        self.git(&["rev-parse", rev]).trim().to_string()
    }

    /// The binary with the hermetic environment, in `dir`.
    fn og_in(&self, dir: &Path) -> Command {
        let mut cmd = bin();
        hermetic(&mut cmd, &self.home());
        cmd.current_dir(dir);
        cmd
    }

    /// Runs the binary in `dir`: (exit code, stdout, stderr).
    fn run_in(&self, dir: &Path, args: &[&str]) -> (i32, String, String) {
        let out = self.og_in(dir).args(args).output().expect("binary runs");
        let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
        assert!(!stderr.contains("panicked"), "panic: {stderr}");
        (out.status.code().unwrap_or(-1), stdout, stderr)
    }

    /// Runs the binary at the repository's root.
    fn run(&self, args: &[&str]) -> (i32, String, String) {
        self.run_in(&self.root, args)
    }
}

/// Asserts an exit code, showing everything the run printed when it differs.
#[track_caller]
fn expect_code(got: &(i32, String, String), code: i32) {
    assert_eq!(got.0, code, "stdout:\n{}\nstderr:\n{}", got.1, got.2);
}

/// The `N module(s), ...` summary line of a compact report.
fn summary_line(stdout: &str) -> &str {
    stdout.lines().last().unwrap_or_default()
}

/// A repository with `db/main.tf` (a safeguard) committed.
fn db_repo() -> Repo {
    let r = Repo::new();
    r.commit(&[("db/main.tf", DB_MAIN)], "db");
    r
}

#[test]
fn check_judges_the_staged_content_not_the_worktree() {
    let r = db_repo();
    // Staged: the weakening override. Worktree: already fixed, not staged.
    r.stage(&[("db/override.tf", WEAKEN)]);
    r.write("db/override.tf", HARMLESS);
    let got = r.run(&["check", "--format", "compact"]);
    expect_code(&got, 1);
    assert!(got.1.lines().any(|l| *l == weakened_in("db")), "{}", got.1);
    assert_eq!(
        summary_line(&got.1),
        "1 module, 2 files, 1 override file: 1 error, 1 warning (built-in default policy)"
    );

    // The reverse: a good version staged, the worktree weakened.
    r.stage(&[("db/override.tf", HARMLESS)]);
    r.write("db/override.tf", WEAKEN);
    let got = r.run(&["check", "--format", "compact"]);
    expect_code(&got, 0);
    assert!(!got.1.contains("weakened-safeguard"), "{}", got.1);
    assert!(got.1.contains("db/main.tf:1:1: warning[missing-override-comment]"), "{}", got.1);
}

/// Copies the project's `hooks/pre-commit` into the repository.
fn install_hook(r: &Repo) {
    let hook = r.path(".git/hooks/pre-commit");
    std::fs::create_dir_all(hook.parent().expect("parent")).expect("mkdir hooks");
    std::fs::copy(Path::new(env!("CARGO_MANIFEST_DIR")).join("hooks/pre-commit"), &hook)
        .expect("copy hook");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
}

#[test]
fn the_hook_reads_the_temporary_index_of_commit_all_and_commit_paths() {
    let r = db_repo();
    r.commit(&[("db/override.tf", HARMLESS)], "a harmless override");
    install_hook(&r);
    let hook_env = [("OVERRIDE_GUARD", BIN)];
    let head = r.rev_parse("HEAD");

    // The bad change is only in the worktree; `commit -a` stages it into a temporary
    // index, which the hook must read.
    r.write("db/override.tf", WEAKEN);
    let out = r.git_output(&r.root, &["commit", "-a", "-m", "weaken"], &hook_env);
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(!out.status.success(), "commit -a went through:\n{all}");
    assert!(all.lines().any(|l| *l == weakened_in("db")), "{all}");
    assert_eq!(r.rev_parse("HEAD"), head, "no commit made");

    let out = r.git_output(&r.root, &["commit", "-m", "weaken", "db/override.tf"], &hook_env);
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(!out.status.success(), "commit PATHS went through:\n{all}");
    assert!(all.lines().any(|l| *l == weakened_in("db")), "{all}");
    assert_eq!(r.rev_parse("HEAD"), head, "no commit made");
    // The real index was left as it was: nothing staged.
    assert_eq!(r.git(&["diff", "--cached", "--name-only"]), "");

    // A plain commit takes only what is staged: an unrelated module; the weakening
    // override stays in the worktree and is not committed.
    r.stage(&[("net/main.tf", "resource \"aws_vpc\" \"main\" {}\n")]);
    let out = r.git_output(&r.root, &["commit", "-m", "network"], &hook_env);
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "commit blocked:\n{all}");
    assert_ne!(r.rev_parse("HEAD"), head);
    assert_eq!(r.git(&["show", "HEAD:db/override.tf"]), HARMLESS);
    assert_eq!(r.git(&["status", "--porcelain"]), " M db/override.tf\n");

    // And a plain commit of the staged bad change is blocked too.
    let head = r.rev_parse("HEAD");
    r.git(&["add", "db/override.tf"]);
    let out = r.git_output(&r.root, &["commit", "-m", "weaken"], &hook_env);
    assert!(!out.status.success(), "{}", text(&out.stderr));
    assert_eq!(r.rev_parse("HEAD"), head);
}

#[test]
fn check_reads_the_index_git_index_file_names() {
    let r = db_repo();
    r.stage(&[("db/override.tf", HARMLESS)]);
    // An alternative index with the weakening override, built the way git builds one.
    std::fs::copy(r.path(".git/index"), r.path(".git/alt-index")).expect("copy index");
    r.write("db/override.tf", WEAKEN);
    let alt = r.path(".git/alt-index");
    let alt = alt.to_str().expect("utf-8 path");
    let out = r.git_output(&r.root, &["add", "db/override.tf"], &[("GIT_INDEX_FILE", alt)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    r.write("db/override.tf", HARMLESS);

    let plain = r.run(&["check", "--format", "compact"]);
    expect_code(&plain, 0);
    assert!(!plain.1.contains("weakened-safeguard"), "{}", plain.1);

    let with_alt = r
        .og_in(&r.root)
        .args(["check", "--format", "compact"])
        .env("GIT_INDEX_FILE", alt)
        .output()
        .expect("runs");
    let stdout = text(&with_alt.stdout);
    assert_eq!(with_alt.status.code(), Some(1), "{stdout}{}", text(&with_alt.stderr));
    assert!(stdout.lines().any(|l| *l == weakened_in("db")), "{stdout}");

    // A relative GIT_INDEX_FILE, as git itself passes it to hooks, from the root.
    let relative = r
        .og_in(&r.root)
        .args(["check", "--format", "compact"])
        .env("GIT_INDEX_FILE", ".git/alt-index")
        .output()
        .expect("runs");
    assert_eq!(relative.status.code(), Some(1), "{}", text(&relative.stderr));
}

#[test]
fn nothing_is_written_to_the_repository() {
    let r = db_repo();
    r.commit(&[("db/override.tf", HARMLESS)], "a harmless override");
    r.stage(&[("db/override.tf", WEAKEN), ("net/main.tf", "resource \"aws_vpc\" \"a\" {}\n")]);
    r.write("net/main.tf", "resource \"aws_vpc\" \"b\" {}\n");
    let index = r.path(".git/index");
    let mtime = std::fs::metadata(&index).and_then(|m| m.modified()).expect("mtime");
    let before = snapshot_tree(&r.root);
    let runs: [(&[&str], i32); 8] = [
        (&["check", "--format", "compact"], 1),
        (&["check", "--new-only", "--format", "json"], 1),
        (&["diff", "--color", "never"], 1),
        (&["diff", "--worktree", "--color", "never"], 0),
        (&["diff", "HEAD", "--format", "json"], 1),
        (&["show", "--staged", "db", "--color", "never"], 0),
        (&["audit", "--rev", "HEAD", "--format", "compact"], 0),
        (&["audit", "--staged", "--format", "compact"], 1),
    ];
    for (args, code) in runs {
        let got = r.run(args);
        assert_eq!(got.0, code, "{args:?}:\n{}{}", got.1, got.2);
    }
    assert_same_tree(&before, &snapshot_tree(&r.root));
    assert_eq!(std::fs::metadata(&index).and_then(|m| m.modified()).expect("mtime"), mtime);

    // A clean check (the index equal to HEAD but for a harmless change) writes nothing either.
    r.git(&["reset", "-q"]);
    r.stage(&[("db/override.tf", HARMLESS), ("net/main.tf", "resource \"aws_vpc\" \"c\" {}\n")]);
    let mtime = std::fs::metadata(&index).and_then(|m| m.modified()).expect("mtime");
    let before = snapshot_tree(&r.root);
    expect_code(&r.run(&["check", "--format", "compact"]), 0);
    expect_code(&r.run(&["diff", "--color", "never"]), 0);
    assert_same_tree(&before, &snapshot_tree(&r.root));
    assert_eq!(std::fs::metadata(&index).and_then(|m| m.modified()).expect("mtime"), mtime);
}

#[test]
fn deleting_a_committed_override_is_seen_from_the_index() {
    let r = db_repo();
    r.commit(&[("db/override.tf", WEAKEN)], "old debt");
    let got = r.run(&["check", "--format", "compact", "db"]);
    expect_code(&got, 1);
    r.git(&["rm", "-q", "db/override.tf"]);
    // The worktree no longer has it either; only the index says which files the module has.
    let got = r.run(&["check", "--format", "compact"]);
    expect_code(&got, 0);
    assert_eq!(
        got.1,
        "1 module, 1 file, 0 override files: 0 errors, 0 warnings (built-in default policy)\n"
    );

    let got = r.run(&["diff", "--color", "never"]);
    expect_code(&got, 0);
    let out = &got.1;
    assert!(out.starts_with("module db (changed)\n--- HEAD:db\n+++ index:db\n"), "{out}");
    assert!(out.contains("\n-    prevent_destroy = false # ← override.tf:3\n"), "{out}");
    assert!(out.contains("\n+    prevent_destroy = true\n"), "{out}");
    assert!(out.contains("Findings resolved (2):\n"), "{out}");
    assert!(out.contains(&format!("\n  {}\n", weakened_in("db"))), "{out}");
    assert!(out.ends_with(
        "1 module with changed files, 1 with a changed effective configuration; findings: 0 introduced (0 errors, 0 warnings), 2 resolved\n"
    ), "{out}");

    let got = r.run(&["diff", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&got.1).expect("json");
    assert_eq!(v["modules"][0]["path"], "db");
    assert_eq!(v["modules"][0]["status"], "changed");
    assert_eq!(v["modules"][0]["files"], serde_json::json!(["override.tf"]));
    assert_eq!(v["modules"][0]["resolved"][1]["rule"], "weakened-safeguard");
}

#[test]
fn a_file_moved_between_modules_touches_both() {
    let r = db_repo();
    r.commit(
        &[("db/override.tf", HARMLESS), ("web/main.tf", "resource \"aws_instance\" \"web\" {}\n")],
        "two modules",
    );
    r.git(&["mv", "db/override.tf", "web/override.tf"]);
    let got = r.run(&["check", "--format", "compact"]);
    expect_code(&got, 1);
    // web gained an override of a resource it does not have; db lost its override.
    assert!(got.1.contains("web/override.tf:1:1: error[merge-error]:"), "{}", got.1);
    assert!(summary_line(&got.1).starts_with("2 modules, 3 files, 1 override file:"), "{}", got.1);

    let got = r.run(&["diff", "--format", "json"]);
    expect_code(&got, 1);
    let v: serde_json::Value = serde_json::from_str(&got.1).expect("json");
    let modules: Vec<(&str, &str)> = v["modules"]
        .as_array()
        .expect("modules")
        .iter()
        .map(|m| (m["path"].as_str().unwrap_or("?"), m["status"].as_str().unwrap_or("?")))
        .collect();
    // web is now one Terraform rejects: said so, not as a change of its configuration.
    assert_eq!(modules, [("db", "changed"), ("web", "rejected")]);
    assert_eq!(v["modules"][0]["resolved"][0]["rule"], "missing-override-comment");
    assert_eq!(v["modules"][1]["introduced"][0]["rule"], "merge-error");

    // A whole module renamed: the old directory is gone, the new one is checked.
    r.git(&["reset", "-q", "--hard"]);
    r.git(&["mv", "web", "frontend"]);
    let got = r.run(&["check", "--format", "compact"]);
    expect_code(&got, 0);
    assert!(summary_line(&got.1).starts_with("1 module, 1 file,"), "{}", got.1);
    let got = r.run(&["diff", "--color", "never"]);
    expect_code(&got, 0);
    assert!(got.1.contains("module frontend (added)\n--- HEAD:frontend\n+++ index:frontend\n"));
    assert!(got.1.contains("module web (removed)\n--- HEAD:web\n+++ index:web\n"), "{}", got.1);
}

#[test]
fn new_only_leaves_out_the_debt_already_committed() {
    let r = db_repo();
    r.commit(&[("db/override.tf", WEAKEN)], "old debt");
    // An unrelated change to the same module.
    r.stage(&[("db/main.tf", &format!("{DB_MAIN}\nvariable \"region\" {{}}\n"))]);
    let got = r.run(&["check", "--format", "compact"]);
    expect_code(&got, 1);
    assert!(got.1.lines().any(|l| *l == weakened_in("db")), "{}", got.1);
    let got = r.run(&["check", "--new-only", "--format", "compact"]);
    expect_code(&got, 0);
    assert!(!got.1.contains("weakened-safeguard"), "{}", got.1);
    assert!(!got.1.contains("missing-override-comment"), "{}", got.1);
    assert_eq!(
        got.1,
        "1 module, 2 files, 1 override file: 0 errors, 0 warnings (built-in default policy)\n"
    );

    // A new violation: only it is reported.
    let main = format!("{DB_MAIN}\nvariable \"password\" {{\n  sensitive = true\n}}\n");
    let over = format!("{WEAKEN}\nvariable \"password\" {{\n  sensitive = false\n}}\n");
    r.stage(&[("db/main.tf", &main), ("db/override.tf", &over)]);
    let got = r.run(&["check", "--new-only", "--format", "compact"]);
    expect_code(&got, 1);
    let lines: Vec<&str> = got.1.lines().collect();
    assert_eq!(
        lines,
        [
            "db/main.tf:7:1: warning[missing-override-comment]: variable.password is changed by override.tf, but no comment above it names override.tf",
            "db/override.tf:8:3: error[weakened-safeguard]: variable.password: sensitive is turned off",
            "1 module, 2 files, 1 override file: 1 error, 1 warning (built-in default policy)",
        ],
        "{}",
        got.1
    );
    // Without --new-only both are there.
    let got = r.run(&["check", "--format", "compact"]);
    expect_code(&got, 1);
    assert_eq!(got.1.matches("error[weakened-safeguard]").count(), 2, "{}", got.1);
}

#[test]
fn an_unborn_head_is_the_empty_tree() {
    let r = Repo::new();
    r.stage(&[("db/main.tf", DB_MAIN), ("db/override.tf", WEAKEN)]);
    let got = r.run(&["check", "--format", "compact"]);
    expect_code(&got, 1);
    assert!(got.1.lines().any(|l| *l == weakened_in("db")), "{}", got.1);
    let got = r.run(&["check", "--new-only", "--format", "compact"]);
    expect_code(&got, 1);
    assert!(got.1.lines().any(|l| *l == weakened_in("db")), "{}", got.1);

    let got = r.run(&["diff", "--color", "never"]);
    expect_code(&got, 1);
    let out = &got.1;
    assert!(
        out.starts_with("module db (added)\n--- HEAD:db\n+++ index:db\n@@ -0,0 +1,8 @@\n"),
        "{out}"
    );
    assert!(out.contains("Findings introduced (2):\n"), "{out}");
    let got = r.run(&["diff", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&got.1).expect("json");
    assert_eq!(v["modules"][0]["status"], "added");
    assert_eq!(v["from"], "HEAD");
    assert_eq!(v["to"], "index");
}

#[test]
fn a_detached_head_works() {
    let r = db_repo();
    r.commit(&[("db/override.tf", WEAKEN)], "weaken");
    r.git(&["checkout", "-q", "--detach"]);
    r.stage(&[("db/override.tf", HARMLESS)]);
    let got = r.run(&["check", "--format", "compact"]);
    expect_code(&got, 0);
    assert!(summary_line(&got.1).starts_with("1 module, 2 files, 1 override file:"), "{}", got.1);
    let got = r.run(&["audit", "--rev", "HEAD~1", "--format", "compact"]);
    expect_code(&got, 0);
    assert_eq!(
        got.1,
        "1 module, 1 file, 0 override files: 0 errors, 0 warnings (built-in default policy)\n"
    );
    let got = r.run(&["audit", "--rev", "HEAD", "--format", "compact"]);
    expect_code(&got, 1);
    assert!(got.1.lines().any(|l| *l == weakened_in("db")), "{}", got.1);
}

#[test]
fn a_linked_worktree_has_its_own_index() {
    let r = db_repo();
    let wt = r.beside("wt");
    r.git(&["worktree", "add", "-q", "-b", "feature", wt.to_str().expect("utf-8")]);
    std::fs::write(wt.join("db/override.tf"), WEAKEN).expect("write");
    r.git_in(&wt, &["add", "db/override.tf"]);

    let got = r.run_in(&wt, &["check", "--format", "compact"]);
    expect_code(&got, 1);
    assert!(got.1.lines().any(|l| *l == weakened_in("db")), "{}", got.1);
    let got = r.run_in(&wt.join("db"), &["diff", "--format", "json"]);
    expect_code(&got, 1);
    let v: serde_json::Value = serde_json::from_str(&got.1).expect("json");
    assert_eq!(v["modules"][0]["files"], serde_json::json!(["override.tf"]));

    // The main worktree's index has none of it.
    let got = r.run(&["check", "--format", "compact"]);
    expect_code(&got, 0);
    assert_eq!(got.1, "no staged change to a Terraform or OpenTofu module: nothing to check\n");
    // And the other way round.
    r.stage(&[("db/override.tf", WEAKEN)]);
    r.git_in(&wt, &["rm", "-q", "--cached", "db/override.tf"]);
    expect_code(&r.run(&["check", "--format", "compact"]), 1);
    expect_code(&r.run_in(&wt, &["check", "--format", "compact"]), 0);
}

#[test]
fn a_bare_repository_has_revisions_but_no_index() {
    let r = db_repo();
    r.commit(&[("db/override.tf", WEAKEN)], "weaken");
    let bare = r.beside("bare.git");
    r.git_in(r.tmp.path(), &["clone", "-q", "--bare", "repo", "bare.git"]);

    let got = r.run_in(&bare, &["audit", "--rev", "HEAD", "--format", "compact"]);
    expect_code(&got, 1);
    assert!(got.1.lines().any(|l| *l == weakened_in("db")), "{}", got.1);
    let got = r.run_in(&bare, &["show", "--rev", "HEAD~1", "db", "--color", "never"]);
    expect_code(&got, 0);
    assert!(got.1.contains("    prevent_destroy = true\n"), "{}", got.1);
    let got = r.run_in(&bare, &["diff", "HEAD~1", "HEAD", "--format", "json"]);
    expect_code(&got, 1);

    for args in [
        &["check"][..],
        &["check", "--new-only"],
        &["show", "--staged", "db"],
        &["audit", "--staged"],
        &["diff"],
    ] {
        let got = r.run_in(&bare, args);
        expect_code(&got, 2);
        assert!(got.2.contains("bare repository has no index"), "{args:?}: {}", got.2);
        assert!(got.2.contains("--rev"), "{args:?}: {}", got.2);
    }
    let got = r.run_in(&bare, &["diff", "HEAD"]);
    expect_code(&got, 2);
    assert!(got.2.contains("bare repository has no worktree"), "{}", got.2);
}

#[test]
fn a_sha256_repository_works() {
    let r = Repo::empty();
    let out = r.git_output(
        r.tmp.path(),
        &["init", "-q", "-b", "main", "--object-format=sha256", "repo"],
        &[],
    );
    // Git has made SHA-256 repositories since 2.29 (2020): a git that cannot is too old for
    // these tests, which is a failure to see, not a test to pass without running.
    assert!(
        out.status.success(),
        "this git cannot create a SHA-256 repository: {}",
        text(&out.stderr)
    );
    r.commit(&[("db/main.tf", DB_MAIN)], "db");
    assert_eq!(r.rev_parse("HEAD").len(), 64, "a SHA-256 object id");
    r.stage(&[("db/override.tf", WEAKEN)]);
    let got = r.run(&["check", "--format", "compact"]);
    expect_code(&got, 1);
    assert!(got.1.lines().any(|l| *l == weakened_in("db")), "{}", got.1);
    r.git(&["commit", "-q", "--no-verify", "-m", "weaken"]);
    let got = r.run(&["audit", "--rev", "HEAD~1", "--format", "compact"]);
    expect_code(&got, 0);
    assert!(summary_line(&got.1).starts_with("1 module, 1 file,"), "{}", got.1);
    let got = r.run(&["audit", "--rev", "HEAD", "--format", "compact"]);
    expect_code(&got, 1);
    let got = r.run(&["diff", "HEAD~1...HEAD", "--format", "json"]);
    expect_code(&got, 1);
    let v: serde_json::Value = serde_json::from_str(&got.1).expect("json");
    assert_eq!(v["from"].as_str().map(str::len), Some(64), "{}", got.1);
}

/// A repository with a submodule at `vendor/shared` (itself holding a module).
fn repo_with_submodule() -> Repo {
    let r = db_repo();
    let sub = r.beside("shared");
    r.git_in(r.tmp.path(), &["init", "-q", "-b", "main", "shared"]);
    std::fs::write(sub.join("main.tf"), "resource \"aws_s3_bucket\" \"b\" {}\n").expect("write");
    r.git_in(&sub, &["add", "main.tf"]);
    r.git_in(&sub, &["commit", "-q", "-m", "shared"]);
    r.git(&[
        "-c",
        "protocol.file.allow=always",
        "submodule",
        "add",
        "-q",
        sub.to_str().expect("utf-8"),
        "vendor/shared",
    ]);
    r
}

#[test]
fn a_submodule_is_skipped_with_a_note() {
    let r = repo_with_submodule();
    let got = r.run(&["audit", "--staged", "--format", "compact"]);
    expect_code(&got, 0);
    assert_eq!(
        got.2, "note: vendor/shared: submodule skipped (audit it in its own repository)\n",
        "{}",
        got.1
    );
    assert!(summary_line(&got.1).starts_with("1 module, 1 file,"), "{}", got.1);
    r.git(&["commit", "-q", "--no-verify", "-m", "submodule"]);
    let got = r.run(&["audit", "--rev", "HEAD", "--format", "compact"]);
    expect_code(&got, 0);
    assert!(got.2.contains("note: vendor/shared: submodule skipped"), "{}", got.2);
}

#[cfg(unix)]
#[test]
fn a_symbolic_link_inside_the_repository_reads_the_staged_target() {
    let r = db_repo();
    // `shared/weaken.hcl` is not a configuration file: `shared` is no module.
    r.stage(&[("shared/weaken.hcl", WEAKEN)]);
    std::os::unix::fs::symlink("../shared/weaken.hcl", r.path("db/override.tf")).expect("ln");
    r.git(&["add", "db/override.tf"]);
    // Fixed in the worktree, not staged: the staged target is what counts.
    r.write("shared/weaken.hcl", HARMLESS);
    let got = r.run(&["check", "--format", "compact"]);
    expect_code(&got, 1);
    assert!(got.1.lines().any(|l| *l == weakened_in("db")), "{}", got.1);
    assert!(!got.2.contains("note:"), "{}", got.2);
    let got = r.run(&["show", "--staged", "db", "--color", "never"]);
    expect_code(&got, 0);
    assert!(got.1.contains("prevent_destroy = false # ← override.tf:3"), "{}", got.1);
    // Staged fixed, worktree bad.
    r.git(&["add", "shared/weaken.hcl"]);
    r.write("shared/weaken.hcl", WEAKEN);
    let got = r.run(&["check", "--format", "compact"]);
    expect_code(&got, 0);
    assert!(!got.1.contains("weakened-safeguard"), "{}", got.1);
    assert!(summary_line(&got.1).starts_with("1 module, 2 files, 1 override file"), "{}", got.1);
}

/// The hook lists the index's files only where HEAD's tree had to be read; what it needs
/// under the directories the staged change leaves alone is still there: a link's target,
/// the modules a changed policy governs, their state before the change.
#[cfg(unix)]
#[test]
fn the_hook_sees_the_files_of_directories_the_change_leaves_alone() {
    let r = db_repo();
    r.commit(&[("shared/weaken.hcl", WEAKEN), ("app/main.tf", DB_MAIN)], "shared, app");
    r.commit(&[("app/override.tf", WEAKEN)], "an override already there");
    // Only the link is staged: its target is in a directory the change leaves alone.
    std::os::unix::fs::symlink("../shared/weaken.hcl", r.path("db/override.tf")).expect("ln");
    r.git(&["add", "db/override.tf"]);
    let got = r.run(&["check", "--format", "compact"]);
    expect_code(&got, 1);
    assert!(got.1.lines().any(|l| *l == weakened_in("db")), "{}", got.1);
    assert!(!got.1.contains("app/"), "{}", got.1);
    r.git(&["commit", "-q", "--no-verify", "-m", "link"]);
    // A policy staged at the top governs both modules, whose files are unchanged.
    r.stage(&[(".override-guard.toml", "[rules.override-file]\nlevel = \"deny\"\n")]);
    let got = r.run(&["check", "--format", "compact"]);
    expect_code(&got, 1);
    for dir in ["app", "db"] {
        assert!(got.1.lines().any(|l| *l == weakened_in(dir)), "{dir}\n{}", got.1);
        let line = format!("{dir}/override.tf:1:1: error[override-file]");
        assert!(got.1.contains(&line), "{dir}\n{}", got.1);
    }
    // What the policy change introduces: the override-file findings, not the old ones.
    let got = r.run(&["check", "--format", "compact", "--new-only"]);
    expect_code(&got, 1);
    assert!(got.1.contains("app/override.tf:1:1: error[override-file]"), "{}", got.1);
    assert!(!got.1.lines().any(|l| *l == weakened_in("app")), "{}", got.1);
    let got = r.run(&["diff", "--format", "compact"]);
    expect_code(&got, 1);
    assert!(got.1.contains("db/override.tf:1:1: error[override-file]"), "{}", got.1);
}

#[cfg(unix)]
/// A module whose override files are symbolic links out of the repository (one relative,
/// one absolute), both to a weakening override.
fn repo_with_outside_links() -> Repo {
    let r = db_repo();
    let outside = r.beside("outside.tf");
    std::fs::write(&outside, WEAKEN).expect("write");
    std::os::unix::fs::symlink("../../outside.tf", r.path("db/a_override.tf")).expect("ln");
    std::os::unix::fs::symlink(&outside, r.path("db/b_override.tf")).expect("ln");
    r.git(&["add", "db"]);
    r
}

#[cfg(unix)]
#[test]
fn a_symbolic_link_out_of_the_repository_is_not_followed() {
    let r = repo_with_outside_links();
    let notes = "note: db/a_override.tf: symbolic link leading out of the repository; not read\n\
                 note: db/b_override.tf: symbolic link to an absolute path, outside the repository; not read\n";
    let got = r.run(&["audit", "--staged", "--format", "compact"]);
    expect_code(&got, 0);
    assert_eq!(got.2, notes, "{}", got.1);
    assert!(!got.1.contains("weakened-safeguard"), "{}", got.1);
    let got = r.run(&["show", "--staged", "db", "--color", "never"]);
    expect_code(&got, 0);
    assert_eq!(got.2, notes);
    assert!(got.1.contains("merged from: main.tf\n"), "{}", got.1);
    let got = r.run(&["check", "--format", "compact"]);
    expect_code(&got, 0);
    assert!(!got.1.contains("weakened-safeguard"), "{}", got.1);
}

#[cfg(unix)]
#[test]
fn check_notes_what_it_skips() {
    let r = repo_with_outside_links();
    let got = r.run(&["check", "--format", "compact"]);
    expect_code(&got, 0);
    assert!(got.2.contains("note: db/a_override.tf: symbolic link leading out"), "{}", got.2);
    assert!(got.2.contains("note: db/b_override.tf: symbolic link to an absolute"), "{}", got.2);

    let r = repo_with_submodule();
    let got = r.run(&["check", "--format", "compact"]);
    expect_code(&got, 0);
    assert!(got.2.contains("note: vendor/shared: submodule skipped"), "{}", got.2);
}

#[test]
fn a_merge_conflict_is_an_error_naming_the_path() {
    let r = db_repo();
    r.git(&["checkout", "-q", "-b", "other"]);
    r.commit(&[("db/main.tf", &DB_MAIN.replace("true", "false"))], "theirs");
    r.git(&["checkout", "-q", "main"]);
    r.commit(&[("db/main.tf", &DB_MAIN.replace("main", "primary"))], "ours");
    r.commit(
        &[("db/main.tf", &DB_MAIN.replace("main", "primary").replace("true", "null"))],
        "ours again",
    );
    let out = r.git_output(&r.root, &["merge", "-q", "other"], &[]);
    assert!(!out.status.success(), "the merge should conflict");
    for args in [&["check"][..], &["diff"], &["audit", "--staged"]] {
        let got = r.run(args);
        expect_code(&got, 2);
        assert!(got.2.contains("db/main.tf"), "{args:?}: {}", got.2);
        assert!(got.2.contains("unmerged"), "{args:?}: {}", got.2);
    }
}

/// main: `db` with a harmless override; branch `feature` from there: the override
/// changes one value; then main gains `net`.
fn repo_with_a_branch() -> Repo {
    let r = db_repo();
    let over = "resource \"aws_db_instance\" \"main\" {\n  instance_class = \"db.t3.large\"\n}\n";
    r.commit(&[("db/override.tf", over)], "override");
    r.git(&["checkout", "-q", "-b", "feature"]);
    r.commit(&[("db/override.tf", &over.replace("large", "xlarge"))], "bigger");
    r.git(&["checkout", "-q", "main"]);
    r.commit(&[("net/main.tf", "resource \"aws_vpc\" \"main\" {}\n")], "net");
    r
}

fn modules_of(json: &str) -> Vec<(String, String)> {
    let v: serde_json::Value = serde_json::from_str(json).expect("json");
    v["modules"]
        .as_array()
        .expect("modules")
        .iter()
        .map(|m| {
            (
                m["path"].as_str().unwrap_or("?").to_string(),
                m["status"].as_str().unwrap_or("?").to_string(),
            )
        })
        .collect()
}

#[test]
fn diff_takes_the_forms_git_diff_takes() {
    let r = repo_with_a_branch();
    let two_dots = [("db".to_string(), "changed".to_string()), ("net".into(), "removed".into())];
    for args in [&["main", "feature"][..], &["main..feature"]] {
        let got = r.run(&[&["diff", "--color", "never"][..], args].concat());
        expect_code(&got, 0);
        assert!(got.1.contains("module db (changed)\n--- main:db\n+++ feature:db\n"), "{}", got.1);
        assert!(
            got.1.contains("\n-  instance_class = \"db.t3.large\" # ← override.tf:2\n+  instance_class = \"db.t3.xlarge\" # ← override.tf:2\n"),
            "{}",
            got.1
        );
        assert!(got.1.contains("module net (removed)\n--- main:net\n+++ feature:net\n"));
        let got = r.run(&[&["diff", "--format", "json"][..], args].concat());
        assert_eq!(modules_of(&got.1), two_dots, "{args:?}");
    }
    // The branch's own change only, from the merge base.
    // Named as `git log --oneline` names it: the short id.
    let base = r.git(&["merge-base", "main", "feature"]).trim().to_string();
    let base = r.git(&["rev-parse", "--short", &base]).trim().to_string();
    let got = r.run(&["diff", "main...feature", "--color", "never"]);
    expect_code(&got, 0);
    assert!(
        got.1.starts_with(&format!("module db (changed)\n--- {base}:db\n+++ feature:db\n")),
        "{}",
        got.1
    );
    assert!(!got.1.contains("net"), "{}", got.1);
    let got = r.run(&["diff", "main...feature", "--format", "json"]);
    assert_eq!(modules_of(&got.1), [("db".to_string(), "changed".to_string())]);
    // `A..` and `...B` default the other side to HEAD (main).
    let got = r.run(&["diff", "feature..", "--format", "json"]);
    assert_eq!(
        modules_of(&got.1),
        [("db".to_string(), "changed".to_string()), ("net".into(), "added".into())]
    );
    let got = r.run(&["diff", "...feature", "--format", "json"]);
    assert_eq!(modules_of(&got.1), [("db".to_string(), "changed".to_string())]);
    // One revision: it against the worktree.
    r.write("net/main.tf", "resource \"aws_vpc\" \"main\" {\n  cidr_block = \"10.0.0.0/16\"\n}\n");
    let got = r.run(&["diff", "HEAD~1", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&got.1).expect("json");
    assert_eq!((v["from"].as_str(), v["to"].as_str()), (Some("HEAD~1"), Some("worktree")));
    assert_eq!(modules_of(&got.1), [("net".to_string(), "added".to_string())]);
    let got = r.run(&["diff", "--worktree", "--format", "json"]);
    assert_eq!(modules_of(&got.1), [("net".to_string(), "changed".to_string())]);
    // Mistakes.
    let got = r.run(&["diff", "nope"]);
    expect_code(&got, 2);
    assert!(got.2.contains("nope") && got.2.contains("unknown revision"), "{}", got.2);
    let got = r.run(&["diff", "main", "feature", "HEAD"]);
    expect_code(&got, 2);
    assert!(got.2.contains("unexpected value 'HEAD'"), "{}", got.2);
}

#[test]
fn diff_of_a_one_line_override_change() {
    let r = Repo::new();
    let main = "# NOTE: overridden by override.tf\nresource \"aws_instance\" \"web\" {\n  instance_type = \"t3.micro\"\n  ami           = \"ami-123\"\n}\n";
    let over = "resource \"aws_instance\" \"web\" {\n  instance_type = \"m6i.large\"\n}\n";
    r.commit(&[("app/main.tf", main), ("app/override.tf", over)], "app");
    r.stage(&[("app/override.tf", &over.replace("m6i.large", "m6i.2xlarge"))]);
    let got = r.run(&["diff", "--color", "never"]);
    expect_code(&got, 0);
    assert_eq!(got.2, "");
    insta::assert_snapshot!("diff_one_line_override_change", got.1);
}

#[test]
fn diff_of_files_whose_effective_configuration_is_unchanged() {
    let r = db_repo();
    r.stage(&[("db/main.tf", &format!("# The database.\n{DB_MAIN}\n\n# (end)\n"))]);
    let got = r.run(&["diff", "--color", "never"]);
    expect_code(&got, 0);
    assert_eq!(
        got.1,
        "Files changed, effective configuration unchanged:\n  db (main.tf)\n\n\
         1 module with changed files, 0 with a changed effective configuration; findings: 0 introduced (0 errors, 0 warnings), 0 resolved\n"
    );
    let got = r.run(&["diff", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&got.1).expect("json");
    assert_eq!(v["modules"][0]["status"], "unchanged");
    assert_eq!(v["modules"][0]["diff"], "");
}

#[test]
fn check_hints_add_modules_the_change_does_not_touch() {
    let r = db_repo();
    r.commit(
        &[("web/main.tf", "resource \"aws_instance\" \"web\" {}\n"), ("db/override.tf", HARMLESS)],
        "two modules",
    );
    r.stage(&[("web/main.tf", "resource \"aws_instance\" \"web\" {\n  ami = \"x\"\n}\n")]);
    let got = r.run(&["check", "--format", "compact"]);
    expect_code(&got, 0);
    assert_eq!(
        got.1,
        "1 module, 1 file, 0 override files: 0 errors, 0 warnings (built-in default policy)\n"
    );
    let warned = "db/main.tf:1:1: warning[missing-override-comment]";
    for hint in ["db/main.tf", "db/override.tf", "db", "./db/"] {
        let got = r.run(&["check", "--format", "compact", hint]);
        expect_code(&got, 0);
        assert!(got.1.contains(warned), "{hint}: {}", got.1);
        assert!(summary_line(&got.1).starts_with("2 modules, 3 files, 1 override file:"));
    }
    // From a subdirectory, hints are relative to it.
    let got = r.run_in(&r.path("web"), &["check", "--format", "compact", "../db/main.tf"]);
    assert!(summary_line(&got.1).starts_with("2 modules,"), "{}", got.1);
    // Hints that exist and name no module change nothing (nowhere: tests/cli.rs).
    for hint in [".git", "..", "db/../.git"] {
        let got = r.run(&["check", "--format", "compact", hint]);
        expect_code(&got, 0);
        assert!(summary_line(&got.1).starts_with("1 module,"), "{hint}: {}", got.1);
    }
}

#[test]
fn check_from_a_subdirectory_shows_paths_from_the_root() {
    let r = db_repo();
    r.commit(&[("net/vpc/main.tf", "resource \"aws_vpc\" \"main\" {}\n")], "net");
    r.stage(&[("db/override.tf", WEAKEN)]);
    for sub in ["db", "net/vpc", "net"] {
        let got = r.run_in(&r.path(sub), &["check", "--format", "compact"]);
        expect_code(&got, 1);
        assert!(got.1.lines().any(|l| *l == weakened_in("db")), "{sub}: {}", got.1);
        let got = r.run_in(&r.path(sub), &["diff", "--format", "json"]);
        expect_code(&got, 1);
        let v: serde_json::Value = serde_json::from_str(&got.1).expect("json");
        assert_eq!(v["modules"][0]["path"], "db");
        assert_eq!(v["modules"][0]["introduced"][1]["path"], "db/override.tf");
    }
}

#[test]
fn a_relative_git_index_file_is_relative_to_the_top_level_as_in_git() {
    let r = db_repo();
    r.stage(&[("db/override.tf", WEAKEN)]);
    std::fs::copy(r.path(".git/index"), r.path(".git/alt-index")).expect("copy");
    r.git(&["reset", "-q"]);
    // git reads `.git/alt-index` of the top level, from a subdirectory too (a plain
    // `git commit` passes `GIT_INDEX_FILE=.git/index` to its hooks, relative).
    let listed =
        r.git_output(&r.path("db"), &["ls-files"], &[("GIT_INDEX_FILE", ".git/alt-index")]);
    assert_eq!(text(&listed.stdout), "main.tf\noverride.tf\n");
    let out = r
        .og_in(&r.path("db"))
        .args(["check", "--format", "compact"])
        .env("GIT_INDEX_FILE", ".git/alt-index")
        .output()
        .expect("runs");
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}{}", text(&out.stderr));
    assert!(stdout.lines().any(|l| *l == weakened_in("db")), "{stdout}");
}

#[test]
fn a_bare_repository_error_suggests_what_the_command_accepts() {
    let r = db_repo();
    r.git_in(r.tmp.path(), &["clone", "-q", "--bare", "repo", "bare.git"]);
    let bare = r.beside("bare.git");
    for args in [&["check"][..], &["diff"]] {
        let got = r.run_in(&bare, args);
        expect_code(&got, 2);
        assert!(got.2.contains("bare repository has no index"), "{args:?}: {}", got.2);
        // `check --rev` and `diff --rev` are usage errors: the hint must name something
        // that works (`audit --rev REV`, `diff A B`).
        assert!(!got.2.contains("; use --rev"), "{args:?}: {}", got.2);
    }
    let got = r.run_in(&bare, &["check", "--rev", "HEAD"]);
    expect_code(&got, 2);
    assert!(got.2.contains("unexpected argument '--rev'"), "{}", got.2);
}

#[test]
fn a_sparse_index_still_has_every_module() {
    let r = db_repo();
    r.commit(
        &[("db/override.tf", HARMLESS), ("net/main.tf", "resource \"aws_vpc\" \"a\" {}\n")],
        "two modules",
    );
    r.git(&["sparse-checkout", "set", "--cone", "--sparse-index", "net"]);
    // db/ is now one tree entry in the index, and absent from the worktree.
    assert!(r.git(&["ls-files", "--sparse"]).contains("db/\n"));
    assert!(!r.path("db").exists());
    // Nothing is staged: there is nothing to review.
    let got = r.run(&["diff", "--format", "json"]);
    expect_code(&got, 0);
    assert_eq!(modules_of(&got.1), [], "{}", got.1);
    // The staged content still has db.
    let got = r.run(&["audit", "--staged", "--format", "compact"]);
    expect_code(&got, 0);
    assert!(summary_line(&got.1).starts_with("2 modules, 3 files, 1 override file"), "{}", got.1);
    let got = r.run(&["show", "--staged", "db", "--color", "never"]);
    expect_code(&got, 0);
    assert!(got.1.contains("instance_class = \"db.t3.large\" # ← override.tf:2"), "{}", got.1);
}

#[test]
fn diff_reports_findings_a_staged_policy_change_introduces() {
    let r = db_repo();
    r.commit(&[("db/override.tf", HARMLESS)], "a harmless override");
    r.stage(&[(".override-guard.toml", "[rules.override-file]\nlevel = \"deny\"\n")]);
    let got = r.run(&["check", "--format", "compact"]);
    expect_code(&got, 1);
    assert!(got.1.contains("db/override.tf:1:1: error[override-file]"), "{}", got.1);
    // The same staged change, reviewed: it makes db's override a deny finding.
    let got = r.run(&["diff", "--format", "compact"]);
    expect_code(&got, 1);
    assert!(got.1.contains("db/override.tf:1:1: error[override-file]"), "{}", got.1);
}

/// A file named like an override file that no engine reads (`main_override.tf.txt`) is
/// seen by the hook from the index when it alone is staged, and is seen in each state as
/// that state has it: the index, the worktree, a revision.
#[test]
fn a_misnamed_override_is_seen_from_the_index_alone() {
    let r = db_repo();
    install_hook(&r);
    let hook_env = [("OVERRIDE_GUARD", BIN)];
    let txt = "db/main_override.tf.txt:1:1: warning[misnamed-override]: main_override.tf.txt is not an override file: Terraform does not read it at all, because of the `.txt` at the end of its name";
    let suffix = "db/db.tf.override:1:1: warning[misnamed-override]";
    // Staged: the `.txt` one only. Worktree only: another one, which the hook must not see.
    r.stage(&[("db/main_override.tf.txt", WEAKEN)]);
    r.write("db/db.tf.override", WEAKEN);
    let got = r.run(&["check", "--format", "compact"]);
    expect_code(&got, 0);
    assert!(got.1.lines().any(|l| l == txt), "{}", got.1);
    assert!(!got.1.contains(suffix), "{}", got.1);
    assert_eq!(
        summary_line(&got.1),
        "1 module, 1 file, 0 override files: 0 errors, 1 warning (built-in default policy)"
    );
    // A deny-level policy for the rule makes the hook refuse the commit.
    let got = r.run(&["check", "--format", "compact", "--deny", "misnamed-override"]);
    expect_code(&got, 1);
    let out = r.git_output(&r.root, &["commit", "-m", "a local override, misnamed"], &hook_env);
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "a warning blocked the commit:\n{all}");
    assert!(all.contains("warning[misnamed-override]"), "{all}");
    // The worktree has both; the revision committed has the `.txt` one.
    let got = r.run(&["audit", "--format", "compact"]);
    assert!(got.1.lines().any(|l| l == txt), "{}", got.1);
    assert!(got.1.contains(suffix), "{}", got.1);
    let got = r.run(&["audit", "--rev", "HEAD", "--format", "compact"]);
    assert!(got.1.lines().any(|l| l == txt), "{}", got.1);
    assert!(!got.1.contains(suffix), "{}", got.1);
    // Renamed as the finding says, it is an override file: nothing misnamed is left.
    r.git(&["mv", "db/main_override.tf.txt", "db/main_override.tf"]);
    std::fs::remove_file(r.path("db/db.tf.override")).expect("rm");
    let got = r.run(&["check", "--format", "compact"]);
    expect_code(&got, 1);
    assert!(!got.1.contains("misnamed-override"), "{}", got.1);
    assert!(got.1.contains("db/main_override.tf:3:5: error[weakened-safeguard]"), "{}", got.1);
}
