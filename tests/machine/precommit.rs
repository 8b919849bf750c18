//! End to end with the real pre-commit framework (https://pre-commit.com): a snapshot of this
//! project's worktree is the hook repository, a temporary Terraform repository installs the
//! hooks from it, and `git commit` is blocked or let through. Both ways a hook installs:
//!
//! - `override-guard-src` (`language: rust`): pre-commit builds the hook with `cargo install`
//!   (release, dependencies from crates.io), into `target/precommit-e2e` so that later runs
//!   only rebuild this crate (incrementally);
//! - `override-guard` (`language: python`): the wheel is built here with maturin (from
//!   `python/pyproject.toml`), and pre-commit's `pip install` of the hook repository finds it
//!   through `PIP_FIND_LINKS`, offline: the cold first run is timed and printed.
//!
//! Needs a pre-commit executable in `OVERRIDE_GUARD_PRE_COMMIT` (and for the wheel, a maturin
//! executable in `OVERRIDE_GUARD_MATURIN` and a directory holding a setuptools wheel in
//! `OVERRIDE_GUARD_WHEELHOUSE`: what pip needs to build the placeholder package offline);
//! without them the tests are reported ignored (they run, and fail saying what is missing,
//! when `OVERRIDE_GUARD_REQUIRE_E2E` is set, as in CI, whose `.ci/run` installs all three from
//! PyPI, pinned).

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Instant;

use tempfile::TempDir;

pub const PRE_COMMIT_VAR: &str = "OVERRIDE_GUARD_PRE_COMMIT";
pub const MATURIN_VAR: &str = "OVERRIDE_GUARD_MATURIN";
pub const WHEELHOUSE_VAR: &str = "OVERRIDE_GUARD_WHEELHOUSE";
pub const REQUIRE_VAR: &str = "OVERRIDE_GUARD_REQUIRE_E2E";

const MAIN_TF: &str = r#"resource "aws_instance" "web" {
  ami           = "ami-12345678"
  instance_type = "t3.micro"

  lifecycle {
    prevent_destroy = true
  }
}
"#;

/// main.tf once an override changes the resource: the comment keeps it free of warnings.
const MAIN_TF_NOTED: &str = r#"# NOTE: overridden by override.tf
resource "aws_instance" "web" {
  ami           = "ami-12345678"
  instance_type = "t3.micro"

  lifecycle {
    prevent_destroy = true
  }
}
"#;

const BAD_OVERRIDE: &str = r#"resource "aws_instance" "web" {
  lifecycle {
    prevent_destroy = false
  }
}
"#;

fn good_override(instance_type: &str) -> String {
    format!("resource \"aws_instance\" \"web\" {{\n  instance_type = \"{instance_type}\"\n}}\n")
}

/// The pre-commit executable named by the environment (the test is reported ignored
/// without it, unless `OVERRIDE_GUARD_REQUIRE_E2E` asks for it to run and fail).
fn pre_commit() -> PathBuf {
    let path = std::env::var_os(PRE_COMMIT_VAR).filter(|v| !v.is_empty()).unwrap_or_else(|| {
        panic!(
            "{PRE_COMMIT_VAR} is not set: set it to a pre-commit executable, e.g. after \
             `python3 -m venv target/ci-venv && target/ci-venv/bin/pip install pre-commit`, \
             {PRE_COMMIT_VAR}=target/ci-venv/bin/pre-commit"
        )
    });
    let path = std::path::absolute(PathBuf::from(&path))
        .unwrap_or_else(|e| panic!("{PRE_COMMIT_VAR}={path:?}: {e}"));
    assert!(
        path.is_file(),
        "{PRE_COMMIT_VAR}={} is not a file: point it at a pre-commit executable",
        path.display()
    );
    path
}

/// A hermetic environment for git and pre-commit: own HOME, empty git config, fixed identity,
/// fresh PRE_COMMIT_HOME; cargo keeps its home and toolchains and builds into a target
/// directory kept between runs.
struct Sandbox {
    root: TempDir,
    envs: Vec<(OsString, OsString)>,
}

impl Sandbox {
    fn new() -> Sandbox {
        let root = tempfile::tempdir().expect("a temporary directory for the sandbox");
        let home = root.path().join("home");
        let pre_commit_home = root.path().join("pre-commit-home");
        let git_config = root.path().join("gitconfig");
        std::fs::create_dir(&home).expect("create the sandbox HOME");
        std::fs::create_dir(&pre_commit_home).expect("create the sandbox PRE_COMMIT_HOME");
        std::fs::write(&git_config, "").expect("write the empty global git config");

        // Cargo and rustup find their homes under HOME unless told: keep the real ones.
        let real_home = std::env::var_os("HOME").map(PathBuf::from);
        let keep = |var: &str, under_home: &str| -> Option<(OsString, OsString)> {
            let value = std::env::var_os(var)
                .filter(|v| !v.is_empty())
                .or_else(|| real_home.as_ref().map(|h| h.join(under_home).into_os_string()))?;
            Some((var.into(), value))
        };
        let target_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/precommit-e2e");

        let mut envs: Vec<(OsString, OsString)> = vec![
            ("HOME".into(), home.into_os_string()),
            ("GIT_CONFIG_NOSYSTEM".into(), "1".into()),
            ("GIT_CONFIG_GLOBAL".into(), git_config.into_os_string()),
            ("GIT_AUTHOR_NAME".into(), "E2E Author".into()),
            ("GIT_AUTHOR_EMAIL".into(), "author@example.com".into()),
            ("GIT_COMMITTER_NAME".into(), "E2E Committer".into()),
            ("GIT_COMMITTER_EMAIL".into(), "committer@example.com".into()),
            ("GIT_TERMINAL_PROMPT".into(), "0".into()),
            ("PRE_COMMIT_HOME".into(), pre_commit_home.into_os_string()),
            ("PRE_COMMIT_COLOR".into(), "never".into()),
            ("CARGO_TARGET_DIR".into(), target_dir.into_os_string()),
            // Each run builds this crate again from a new clone: incrementally, about twice as
            // fast (the dependencies are reused from the target directory either way).
            ("CARGO_PROFILE_RELEASE_INCREMENTAL".into(), "true".into()),
        ];
        envs.extend(keep("CARGO_HOME", ".cargo"));
        envs.extend(keep("RUSTUP_HOME", ".rustup"));
        Sandbox { root, envs }
    }

    fn path(&self) -> &Path {
        self.root.path()
    }

    /// `program` in `dir` with the inherited environment (PATH, proxies, certificates, the
    /// toolchain) less what redirects git, configures pre-commit or cargo's target, plus ours.
    fn command(&self, program: impl AsRef<OsStr>, dir: &Path) -> Command {
        let mut cmd = Command::new(program);
        cmd.current_dir(dir);
        for (name, _) in std::env::vars_os() {
            let n = name.to_string_lossy();
            if n.starts_with("GIT_")
                || n.starts_with("PRE_COMMIT")
                || n.starts_with("OVERRIDE_GUARD")
                || n.starts_with("XDG_")
                || matches!(&*n, "SKIP" | "EMAIL" | "CARGO_BUILD_TARGET_DIR")
            {
                cmd.env_remove(&name);
            }
        }
        cmd.envs(self.envs.iter().map(|(k, v)| (k, v)));
        cmd
    }

    fn git(&self, dir: &Path, args: &[&str]) -> Command {
        let mut cmd = self.command("git", dir);
        cmd.args(args);
        cmd
    }

    /// Runs git and returns its stdout; panics with its output when it fails.
    fn git_ok(&self, dir: &Path, args: &[&str]) -> String {
        let out = run(&mut self.git(dir, args), &format!("git {}", args.join(" ")));
        expect_success(&out, &format!("git {}", args.join(" ")));
        String::from_utf8_lossy(&out.stdout).trim_end().to_owned()
    }
}

fn run(cmd: &mut Command, what: &str) -> Output {
    cmd.output().unwrap_or_else(|e| panic!("could not start `{what}`: {e}"))
}

/// stdout and stderr together (git sends hook output to stderr).
fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

fn expect_success(out: &Output, what: &str) {
    assert!(out.status.success(), "`{what}` failed ({}):\n{}", out.status, text(out));
}

/// The line pre-commit prints for our hook (its name starts with the hook id).
fn hook_line(output: &str) -> Option<&str> {
    output.lines().find(|l| l.starts_with("override-guard") && l.contains(".."))
}

/// Copies the files `git ls-files` lists for this project (as they are in the worktree, so
/// uncommitted edits count) into a new repository and commits them: the hook repository.
/// Returns its directory and the commit.
fn snapshot_of_this_project(sandbox: &Sandbox) -> (PathBuf, String) {
    let project = Path::new(env!("CARGO_MANIFEST_DIR"));
    // The project's own git settings (excludes, safe.directory) apply here, but not a
    // repository or index some outer git process points at.
    let mut ls = Command::new("git");
    ls.current_dir(project).args(["ls-files", "-z", "--cached", "--others", "--exclude-standard"]);
    for var in
        ["GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR"]
    {
        ls.env_remove(var);
    }
    let listed = run(&mut ls, "git ls-files in the project directory");
    assert!(
        listed.status.success(),
        "this test copies the project's files as git lists them, so the project must be a git \
         checkout: `git ls-files` in {} failed:\n{}",
        project.display(),
        text(&listed)
    );

    let snapshot = sandbox.path().join("hook-repo");
    std::fs::create_dir(&snapshot).expect("create the snapshot directory");
    let mut copied = 0;
    for rel in listed.stdout.split(|b| *b == 0).filter(|r| !r.is_empty()) {
        let rel = Path::new(std::str::from_utf8(rel).expect("project paths are UTF-8"));
        let from = project.join(rel);
        let Ok(meta) = std::fs::symlink_metadata(&from) else {
            continue; // in the index, deleted in the worktree
        };
        let to = snapshot.join(rel);
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent)
                .unwrap_or_else(|e| panic!("create {}: {e}", parent.display()));
        }
        if meta.is_symlink() {
            #[cfg(unix)]
            {
                let target = std::fs::read_link(&from)
                    .unwrap_or_else(|e| panic!("read link {}: {e}", from.display()));
                std::os::unix::fs::symlink(target, &to)
                    .unwrap_or_else(|e| panic!("link {}: {e}", to.display()));
                copied += 1;
            }
        } else if meta.is_file() {
            // Copies the permissions too (the executable bit of hooks/ and .ci/).
            std::fs::copy(&from, &to)
                .unwrap_or_else(|e| panic!("copy {} to the snapshot: {e}", from.display()));
            copied += 1;
        }
    }
    assert!(copied > 0, "git ls-files listed no file in {}", project.display());
    assert!(
        snapshot.join(".pre-commit-hooks.yaml").is_file(),
        ".pre-commit-hooks.yaml is not among the project's files"
    );

    sandbox.git_ok(&snapshot, &["init", "--quiet"]);
    sandbox.git_ok(&snapshot, &["add", "--all"]);
    sandbox.git_ok(&snapshot, &["commit", "--quiet", "--no-verify", "-m", "snapshot"]);
    let rev = sandbox.git_ok(&snapshot, &["rev-parse", "HEAD"]);
    (snapshot, rev)
}

struct UserRepo<'a> {
    sandbox: &'a Sandbox,
    dir: PathBuf,
}

impl UserRepo<'_> {
    fn write(&self, name: &str, content: &str) {
        std::fs::write(self.dir.join(name), content)
            .unwrap_or_else(|e| panic!("write {name}: {e}"));
    }

    fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.dir.join(name)).unwrap_or_else(|e| panic!("read {name}: {e}"))
    }

    fn git(&self, args: &[&str]) -> String {
        self.sandbox.git_ok(&self.dir, args)
    }

    fn head(&self) -> String {
        self.git(&["rev-parse", "HEAD"])
    }

    /// `git commit -m message` (the hook runs); returns the output.
    fn commit(&self, message: &str) -> Output {
        let started = Instant::now();
        let out = run(&mut self.sandbox.git(&self.dir, &["commit", "-m", message]), "git commit");
        eprintln!("git commit ({message}): {:.1?}, {}", started.elapsed(), out.status);
        out
    }

    /// A commit the hook lets through: HEAD moves and our hook reports Passed.
    fn commit_passes(&self, message: &str) {
        let before = self.head();
        let out = self.commit(message);
        let output = text(&out);
        assert!(out.status.success(), "commit `{message}` was blocked ({}):\n{output}", out.status);
        let line = hook_line(&output)
            .unwrap_or_else(|| panic!("commit `{message}`: the hook did not run:\n{output}"));
        assert!(line.ends_with("Passed"), "commit `{message}`: {line}\n{output}");
        assert_ne!(self.head(), before, "commit `{message}` succeeded but HEAD did not move");
    }

    /// A commit the hook blocks with `rule`: nonzero exit, HEAD unchanged.
    fn commit_blocked(&self, message: &str, rule: &str) -> String {
        let before = self.head();
        let out = self.commit(message);
        let output = text(&out);
        assert!(!out.status.success(), "commit `{message}` was not blocked:\n{output}");
        let line = hook_line(&output)
            .unwrap_or_else(|| panic!("commit `{message}`: the hook did not run:\n{output}"));
        assert!(line.ends_with("Failed"), "commit `{message}`: {line}\n{output}");
        assert!(output.contains(rule), "commit `{message}`: no {rule} in the output:\n{output}");
        assert_eq!(self.head(), before, "commit `{message}` was blocked but HEAD moved");
        output
    }
}

pub fn pre_commit_framework_blocks_commits_by_their_staged_content() {
    let pre_commit = pre_commit();
    let started = Instant::now();
    let sandbox = Sandbox::new();

    let out = run(sandbox.command(&pre_commit, sandbox.path()).arg("--version"), "pre-commit");
    expect_success(&out, "pre-commit --version");
    eprintln!("using {}", text(&out).trim());

    let (hook_repo, rev) = snapshot_of_this_project(&sandbox);

    let repo = UserRepo { sandbox: &sandbox, dir: sandbox.path().join("infra") };
    std::fs::create_dir(&repo.dir).expect("create the user repository");
    repo.git(&["init", "--quiet"]);
    repo.write("main.tf", MAIN_TF);
    // A JSON string is a YAML double-quoted scalar: any temporary path is safe in it.
    let hook_repo_yaml =
        serde_json::to_string(hook_repo.to_str().expect("temporary paths are UTF-8"))
            .expect("a JSON string");
    repo.write(
        ".pre-commit-config.yaml",
        &format!(
            "repos:\n  - repo: {hook_repo_yaml}\n    rev: {rev}\n    hooks:\n      - id: override-guard-src\n"
        ),
    );

    // Installing the hook environment is the slow part (cargo install): do it apart, timed.
    let install = Instant::now();
    let out = run(
        sandbox.command(&pre_commit, &repo.dir).args(["install", "--install-hooks"]),
        "pre-commit install --install-hooks",
    );
    expect_success(&out, "pre-commit install --install-hooks");
    eprintln!("pre-commit install --install-hooks: {:.1?}", install.elapsed());

    // The base commit: a clean module.
    repo.git(&["add", "--all"]);
    let out = repo.commit("base");
    let output = text(&out);
    assert!(out.status.success(), "the base commit was blocked ({}):\n{output}", out.status);
    assert!(
        hook_line(&output).is_some_and(|l| l.ends_with("Passed")),
        "the hook did not pass on the base commit:\n{output}"
    );

    // (a) An override turning prevent_destroy off is blocked.
    repo.write("override.tf", BAD_OVERRIDE);
    repo.git(&["add", "override.tf"]);
    repo.commit_blocked("turn prevent_destroy off", "weakened-safeguard");

    // (b) The fixed override (and main.tf saying it is overridden) goes through.
    repo.write("override.tf", &good_override("t3.large"));
    repo.write("main.tf", MAIN_TF_NOTED);
    repo.git(&["add", "override.tf", "main.tf"]);
    repo.commit_passes("a bigger instance");
    assert_eq!(repo.git(&["show", "HEAD:override.tf"]), good_override("t3.large").trim_end());

    // (c1) A good staged change with a bad unstaged edit in the worktree: pre-commit stashes
    // the edit, the hook judges the staged side, and the edit is back afterwards.
    repo.write("override.tf", &good_override("t3.xlarge"));
    repo.git(&["add", "override.tf"]);
    repo.write("override.tf", BAD_OVERRIDE);
    let before = repo.head();
    let out = repo.commit("staged good, worktree bad");
    let output = text(&out);
    assert!(out.status.success(), "a good staged change was blocked ({}):\n{output}", out.status);
    assert!(output.contains("Unstaged files detected"), "nothing was stashed:\n{output}");
    assert!(hook_line(&output).is_some_and(|l| l.ends_with("Passed")), "{output}");
    assert_ne!(repo.head(), before, "HEAD did not move");
    assert_eq!(repo.git(&["show", "HEAD:override.tf"]), good_override("t3.xlarge").trim_end());
    assert_eq!(repo.read("override.tf"), BAD_OVERRIDE, "the unstaged edit was not restored");

    // (c2) A bad staged change with a good worktree is blocked, and both sides stay as they were.
    repo.git(&["add", "override.tf"]);
    repo.write("override.tf", &good_override("t3.2xlarge"));
    let output = repo.commit_blocked("staged bad, worktree good", "weakened-safeguard");
    assert!(output.contains("Unstaged files detected"), "nothing was stashed:\n{output}");
    assert_eq!(repo.git(&["show", ":override.tf"]), BAD_OVERRIDE.trim_end());
    assert_eq!(repo.read("override.tf"), good_override("t3.2xlarge"));

    // (d) A commit that only deletes main.tf leaves the committed override overriding
    // nothing: the framework passes no file for a deletion, the hook runs anyway.
    repo.git(&["reset", "-q", "--hard"]);
    repo.git(&["rm", "-q", "main.tf"]);
    repo.commit_blocked("delete the original", "Missing resource to override");

    // (e) The fix hook, like a formatter: an override without a warning comment makes it
    // write the comment into main.tf and fail the commit; staged, the commit goes through.
    repo.git(&["reset", "-q", "--hard"]);
    repo.write(
        ".pre-commit-config.yaml",
        &format!(
            "repos:\n  - repo: {hook_repo_yaml}\n    rev: {rev}\n    hooks:\n      - id: override-guard-src\n      - id: override-guard-fix-src\n"
        ),
    );
    repo.write("main.tf", MAIN_TF);
    repo.write("override.tf", &good_override("t3.medium"));
    repo.git(&["add", "--all"]);
    let out = repo.commit("an override without its comment");
    let output = text(&out);
    assert!(!out.status.success(), "the fix hook let the commit through:\n{output}");
    assert!(output.contains("files were modified by this hook"), "{output}");
    let fixed = repo.read("main.tf");
    assert!(fixed.contains("# NOTE: instance_type is overridden in override.tf\n"), "{fixed}");
    assert_eq!(repo.git(&["show", ":main.tf"]), MAIN_TF.trim_end(), "the hook wrote the index");
    repo.git(&["add", "main.tf"]);
    repo.commit_passes("the override, with its comment");

    ci_modes(&sandbox, &pre_commit, &hook_repo_yaml, &rev);

    eprintln!("pre-commit end to end: {:.1?} in all", started.elapsed());
}

/// `pre-commit run` as CI runs it (pre-commit.ci, the pre-commit/action, a pull request
/// job): every file, or the files of a range of commits. The hook environment installed
/// above is reused (same PRE_COMMIT_HOME, same hook revision).
fn ci_modes(sandbox: &Sandbox, pre_commit: &Path, hook_repo_yaml: &str, rev: &str) {
    let repo = UserRepo { sandbox, dir: sandbox.path().join("ci") };
    std::fs::create_dir(&repo.dir).expect("create the CI repository");
    repo.git(&["init", "--quiet"]);
    repo.write(
        ".pre-commit-config.yaml",
        &format!(
            "repos:\n  - repo: {hook_repo_yaml}\n    rev: {rev}\n    hooks:\n      - id: override-guard-src\n"
        ),
    );
    let run = |args: &[&str]| -> (bool, String) {
        let out = run(
            sandbox.command(pre_commit, &repo.dir).args(["run"]).args(args),
            &format!("pre-commit run {}", args.join(" ")),
        );
        (out.status.success(), text(&out))
    };
    let commit = |message: &str| repo.git(&["commit", "--quiet", "--no-verify", "-m", message]);

    // A clean repository passes.
    std::fs::create_dir_all(repo.dir.join("db")).expect("mkdir");
    repo.write("db/main.tf", MAIN_TF);
    repo.git(&["add", "--all"]);
    commit("clean");
    let clean = repo.head();
    let (ok, output) = run(&["--all-files"]);
    assert!(ok, "a clean repository failed --all-files:\n{output}");
    assert!(hook_line(&output).is_some_and(|l| l.ends_with("Passed")), "{output}");

    // A committed deny finding: --all-files fails on it (nothing is staged).
    repo.write("db/override.tf", BAD_OVERRIDE);
    repo.git(&["add", "--all"]);
    commit("turn prevent_destroy off, without the hook");
    let bad = repo.head();
    let (ok, output) = run(&["--all-files"]);
    assert!(!ok, "--all-files passed a committed weakened safeguard:\n{output}");
    assert!(output.contains("db/override.tf:3:5: error[weakened-safeguard]"), "{output}");

    // --from-ref/--to-ref: the range that added it fails, a range without it passes.
    let (ok, output) = run(&["--from-ref", &clean, "--to-ref", &bad]);
    assert!(!ok, "the range that weakened the safeguard passed:\n{output}");
    assert!(output.contains("error[weakened-safeguard]"), "{output}");
    std::fs::create_dir_all(repo.dir.join("app")).expect("mkdir");
    repo.write("app/main.tf", "resource \"aws_instance\" \"app\" {}\n");
    repo.git(&["add", "--all"]);
    commit("an unrelated module");
    let (ok, output) = run(&["--from-ref", &bad, "--to-ref", "HEAD"]);
    assert!(ok, "a range that does not touch db/ failed:\n{output}");

    // A range that only deletes the original: the framework passes no file for it.
    repo.git(&["rm", "--quiet", "db/main.tf"]);
    commit("delete the original");
    let (ok, output) = run(&["--from-ref", "HEAD~1", "--to-ref", "HEAD"]);
    assert!(!ok, "a delete-only range passed:\n{output}");
    assert!(output.contains("Missing resource to override"), "{output}");

    // A file list too long for one command line: the framework splits it over several
    // runs of the hook, and each module is judged by one of them.
    repo.git(&["rm", "--quiet", "-r", "db"]);
    let mut expected_errors = 0;
    for m in 0..2000 {
        let dir = repo.dir.join(format!("services/team-{}/service-{m:04}", m % 5));
        std::fs::create_dir_all(&dir).expect("mkdir");
        std::fs::write(dir.join("main.tf"), MAIN_TF).expect("write");
        std::fs::write(dir.join("variables.tf"), "variable \"x\" {\n  default = 1\n}\n")
            .expect("write");
        if m % 400 == 7 {
            std::fs::write(dir.join("override.tf"), BAD_OVERRIDE).expect("write");
            expected_errors += 1;
        }
    }
    repo.git(&["add", "--all"]);
    commit("many modules");
    let (ok, output) = run(&["--all-files"]);
    assert!(!ok, "{output}");
    let summaries: Vec<&str> = output.lines().filter(|l| l.contains(" modules, ")).collect();
    assert!(
        summaries.len() >= 2,
        "the file list was not split; the test needs a longer one:\n{summaries:?}"
    );
    let modules: usize = summaries
        .iter()
        .map(|l| l.split(' ').next().and_then(|n| n.parse::<usize>().ok()).unwrap_or(0))
        .sum();
    assert_eq!(modules, 2001, "every module judged exactly once (2,000 and app/): {summaries:?}");
    let errors = output.lines().filter(|l| l.contains("error[weakened-safeguard]")).count();
    assert_eq!(errors, expected_errors, "{output}");
}

/// A path from the environment for the wheel test (see [`pre_commit`]).
fn tool(var: &str) -> PathBuf {
    let path = std::env::var_os(var)
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| panic!("{var} is not set (see this file's header; .ci/run sets it)"));
    let path =
        std::path::absolute(PathBuf::from(&path)).unwrap_or_else(|e| panic!("{var}={path:?}: {e}"));
    assert!(path.exists(), "{var}={} does not exist", path.display());
    path
}

/// The default hooks install the prebuilt wheel (`language: python`): built here with
/// maturin, found by pip through `PIP_FIND_LINKS`, with no index and no compiler involved.
/// The cold first run (pre-commit creating the hook's environment, then judging) is timed.
pub fn the_python_hooks_install_the_prebuilt_wheel() {
    let pre_commit = pre_commit();
    let (maturin, wheelhouse) = (tool(MATURIN_VAR), tool(WHEELHOUSE_VAR));
    let sandbox = Sandbox::new();
    let project = Path::new(env!("CARGO_MANIFEST_DIR"));
    let wheels = sandbox.path().join("wheels");
    let build = Instant::now();
    let out = run(
        sandbox
            .command(&maturin, &project.join("python"))
            .args(["build", "--release", "--quiet", "--out"])
            .arg(&wheels),
        "maturin build",
    );
    expect_success(&out, "maturin build --release");
    let built: Vec<String> = std::fs::read_dir(&wheels)
        .expect("the wheel directory")
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect();
    let version = env!("CARGO_PKG_VERSION");
    assert!(
        built.len() == 1 && built[0].starts_with(&format!("override_guard-{version}-py3-none-")),
        "one wheel of version {version}: {built:?}"
    );
    let build_time = build.elapsed();
    eprintln!("maturin build --release: {build_time:.1?} ({})", built[0]);

    let (hook_repo, rev) = snapshot_of_this_project(&sandbox);
    let hook_repo_yaml =
        serde_json::to_string(hook_repo.to_str().expect("temporary paths are UTF-8"))
            .expect("a JSON string");
    let repo = UserRepo { sandbox: &sandbox, dir: sandbox.path().join("infra") };
    std::fs::create_dir(&repo.dir).expect("create the user repository");
    repo.git(&["init", "--quiet"]);
    repo.write("main.tf", MAIN_TF);
    repo.write(
        ".pre-commit-config.yaml",
        &format!(
            "repos:\n  - repo: {hook_repo_yaml}\n    rev: {rev}\n    hooks:\n      - id: override-guard\n      - id: override-guard-audit\n"
        ),
    );
    repo.git(&["add", "--all"]);
    // Offline: the wheel and setuptools (to build the placeholder package) come from
    // these directories only (pip reads a list separated by spaces).
    let links = format!("{} {}", wheels.display(), wheelhouse.display());
    let pip_env = |cmd: &mut Command| {
        cmd.env("PIP_FIND_LINKS", &links)
            .env("PIP_NO_INDEX", "1")
            .env("PIP_DISABLE_PIP_VERSION_CHECK", "1");
    };

    let cold = Instant::now();
    let mut first = sandbox.command(&pre_commit, &repo.dir);
    first.args(["run", "override-guard"]);
    pip_env(&mut first);
    let out = run(&mut first, "pre-commit run (cold)");
    let output = text(&out);
    let cold = cold.elapsed();
    assert!(out.status.success(), "the first run failed ({}):\n{output}", out.status);
    assert!(output.contains("Installing environment"), "no environment was installed:\n{output}");
    assert!(hook_line(&output).is_some_and(|l| l.ends_with("Passed")), "{output}");
    let line = format!(
        "pre-commit `language: python` hook, cold first run (environment + check): {cold:.1?}; wheel build {build_time:.1?}\n"
    );
    eprint!("{line}");
    // For .ci/run to print after the tests (a passing test's output is captured).
    let report =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("target/precommit-e2e/python-hook-cold.txt");
    let _ = std::fs::create_dir_all(report.parent().unwrap_or(Path::new(".")));
    let _ = std::fs::write(&report, &line);

    // The environment holds the wheel's binary, not a build.
    let envs = sandbox.path().join("pre-commit-home");
    let found = walk_for(&envs, "override-guard");
    assert!(!found.is_empty(), "no override-guard executable in the hook environment");

    // The right verdicts, as a commit runs the hook.
    let mut install = sandbox.command(&pre_commit, &repo.dir);
    install.args(["install"]);
    pip_env(&mut install);
    expect_success(&run(&mut install, "pre-commit install"), "pre-commit install");
    let out = repo.commit("base");
    let output = text(&out);
    assert!(out.status.success(), "the base commit was blocked ({}):\n{output}", out.status);
    assert!(hook_line(&output).is_some_and(|l| l.ends_with("Passed")), "{output}");
    repo.write("override.tf", BAD_OVERRIDE);
    repo.git(&["add", "override.tf"]);
    repo.commit_blocked("turn prevent_destroy off", "weakened-safeguard");
    // The audit hook (manual stage) through the same environment.
    let mut audit = sandbox.command(&pre_commit, &repo.dir);
    audit.args(["run", "--hook-stage", "manual", "override-guard-audit"]);
    pip_env(&mut audit);
    let out = run(&mut audit, "pre-commit run override-guard-audit");
    assert!(!out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("error[weakened-safeguard]"), "{}", text(&out));

    // Adoption: today's findings in a baseline (written with the binary the hook
    // installed), staged, and named in the hook's args; the blocked change goes through.
    let binary = found.iter().find(|p| p.parent().is_some_and(|d| d.ends_with("bin")));
    let binary = binary.unwrap_or(&found[0]);
    let out = run(
        sandbox.command(binary, &repo.dir).args([
            "audit",
            "--write-baseline",
            ".override-guard-baseline.json",
        ]),
        "override-guard audit --write-baseline",
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    repo.write(
        ".pre-commit-config.yaml",
        &format!(
            "repos:\n  - repo: {hook_repo_yaml}\n    rev: {rev}\n    hooks:\n      - id: override-guard\n        args: [--baseline, .override-guard-baseline.json]\n"
        ),
    );
    repo.git(&["add", "--all"]);
    let out = repo.commit("adopt with a baseline");
    let output = text(&out);
    assert!(out.status.success(), "the baseline did not let the old finding through:\n{output}");
    assert!(hook_line(&output).is_some_and(|l| l.ends_with("Passed")), "{output}");
    // `--all-files` (pre-commit.ci): every module, the same baseline.
    let mut all = sandbox.command(&pre_commit, &repo.dir);
    all.args(["run", "--all-files", "override-guard"]);
    pip_env(&mut all);
    let out = run(&mut all, "pre-commit run --all-files");
    assert!(out.status.success(), "{}", text(&out));
}

/// Files named `name` under `dir` (no links followed).
fn walk_for(dir: &Path, name: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        for e in entries.flatten() {
            let Ok(t) = e.file_type() else { continue };
            if t.is_dir() {
                todo.push(e.path());
            } else if e.file_name() == name {
                out.push(e.path());
            }
        }
    }
    out
}
