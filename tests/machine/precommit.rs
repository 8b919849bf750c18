//! End to end with the real pre-commit framework (https://pre-commit.com): a snapshot of this
//! project's worktree is the hook repository, a temporary Terraform repository installs the
//! hooks from it, and `git commit` is blocked or let through. Both ways a hook installs:
//!
//! - `override-guard-src`: pre-commit's `pip install` builds `python/` from source with maturin,
//!   which runs cargo with `--locked` (release, dependencies from crates.io), into
//!   `target/precommit-e2e` so that later runs only rebuild this crate (incrementally); the
//!   hook repository's Cargo.lock pins a dependency older than the registry's newest, and the
//!   binary built must name exactly the lock's versions;
//! - `override-guard` (`language: python`): the wheel is built here with maturin (from
//!   `python/pyproject.toml`), and pre-commit's `pip install` of the hook repository finds it
//!   through `PIP_FIND_LINKS`, offline: the cold first run is timed and printed.
//!
//! Needs a pre-commit executable in `OVERRIDE_GUARD_PRE_COMMIT` (and for the wheel, a maturin
//! executable in `OVERRIDE_GUARD_MATURIN` and a directory holding a setuptools wheel in
//! `OVERRIDE_GUARD_WHEELHOUSE`: what pip needs to build the placeholder package offline);
//! without them the tests are reported ignored (they run, and fail saying what is missing,
//! when `OVERRIDE_GUARD_REQUIRE_E2E` is set, as in CI, whose `.ci/run` installs all three from
//! PyPI, pinned). The same hooks under prek, a reimplementation of pre-commit, need a prek
//! executable in `OVERRIDE_GUARD_PREK` (`.ci/run` installs it from PyPI, pinned).

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Instant;

use tempfile::TempDir;

pub const PRE_COMMIT_VAR: &str = "OVERRIDE_GUARD_PRE_COMMIT";
pub const MATURIN_VAR: &str = "OVERRIDE_GUARD_MATURIN";
pub const WHEELHOUSE_VAR: &str = "OVERRIDE_GUARD_WHEELHOUSE";
pub const REQUIRE_VAR: &str = "OVERRIDE_GUARD_REQUIRE_E2E";
pub const PREK_VAR: &str = "OVERRIDE_GUARD_PREK";

/// A dependency the hook repository's Cargo.lock pins older than the newest version its
/// requirements allow (an unlocked build would take a newer one): `(name, locked version,
/// checksum)`, the older one, written over the lock's entry by [`pin_an_older_dependency`].
const OLDER: (&str, &str, &str) = (
    "percent-encoding",
    "2.3.1",
    "e3148f5046208a5d56bcfc03053e3ca6334e51da8dfb19b6cdc8b306fae3283e",
);

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

/// The prek executable named by the environment (see [`pre_commit`]).
fn prek() -> PathBuf {
    let path = std::env::var_os(PREK_VAR).filter(|v| !v.is_empty()).unwrap_or_else(|| {
        panic!(
            "{PREK_VAR} is not set: set it to a prek executable, e.g. after \
             `target/ci-venv/bin/pip install prek`, {PREK_VAR}=target/ci-venv/bin/prek"
        )
    });
    let path = std::path::absolute(PathBuf::from(&path))
        .unwrap_or_else(|e| panic!("{PREK_VAR}={path:?}: {e}"));
    assert!(path.is_file(), "{PREK_VAR}={} is not a file", path.display());
    path
}

/// The pre-commit executable named by the environment (the test is reported ignored
/// without it, unless `OVERRIDE_GUARD_REQUIRE_E2E` asks for it to run and fail).
pub fn pre_commit() -> PathBuf {
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
pub struct Sandbox {
    root: TempDir,
    envs: Vec<(OsString, OsString)>,
}

impl Sandbox {
    pub fn new() -> Sandbox {
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
            ("PRE_COMMIT_HOME".into(), pre_commit_home.clone().into_os_string()),
            ("PREK_HOME".into(), pre_commit_home.join("prek").into_os_string()),
            ("PRE_COMMIT_COLOR".into(), "never".into()),
            ("CARGO_TARGET_DIR".into(), target_dir.into_os_string()),
            // Each run builds this crate again from a new clone: incrementally, about twice as
            // fast (the dependencies are reused from the target directory either way).
            ("CARGO_PROFILE_RELEASE_INCREMENTAL".into(), "true".into()),
            // What these tests prove is that the runners build the hooks and run them, not how
            // fast the result runs: unoptimised, the four builds (the wheel, the `-src` hook
            // under pre-commit twice and under prek) cost a few minutes less of CI.
            ("CARGO_PROFILE_RELEASE_OPT_LEVEL".into(), "0".into()),
        ];
        envs.extend(keep("CARGO_HOME", ".cargo"));
        envs.extend(keep("RUSTUP_HOME", ".rustup"));
        Sandbox { root, envs }
    }

    pub fn path(&self) -> &Path {
        self.root.path()
    }

    /// `program` in `dir` with the inherited environment (PATH, proxies, certificates, the
    /// toolchain) less what redirects git, configures pre-commit or cargo's target, plus ours.
    pub fn command(&self, program: impl AsRef<OsStr>, dir: &Path) -> Command {
        let mut cmd = Command::new(program);
        cmd.current_dir(dir);
        for (name, _) in std::env::vars_os() {
            let n = name.to_string_lossy();
            if n.starts_with("GIT_")
                || n.starts_with("PRE_COMMIT")
                || n.starts_with("PREK")
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

pub fn run(cmd: &mut Command, what: &str) -> Output {
    cmd.output().unwrap_or_else(|e| panic!("could not start `{what}`: {e}"))
}

/// stdout and stderr together (git sends hook output to stderr).
pub fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

/// One maturin build at a time (the wheel, the `-src` hook under pre-commit and under
/// prek): maturin moves the binary it built out of the shared target directory, so two
/// builds at once (the tests run in parallel) take each other's file.
fn hook_build() -> std::sync::MutexGuard<'static, ()> {
    static BUILD: std::sync::Mutex<()> = std::sync::Mutex::new(());
    BUILD.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Pins the hook repository's commit with the runner's own command (`pin`), then installs
/// the hook environment (`install`: the slow part, the build, timed) and checks that the
/// build took `Cargo.lock`'s versions. `home`: where the runner keeps its environments.
pub fn pin_and_install(
    sandbox: &Sandbox,
    repo: &UserRepo<'_>,
    runner: &Path,
    pin: &[&str],
    install: &[&str],
    home: &Path,
    (hook_repo, rev): (&Path, &str),
) {
    let name = runner.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let what = format!("{name} {}", pin.join(" "));
    let out = run(sandbox.command(runner, &repo.dir).args(pin), &what);
    expect_success(&out, &what);
    let config = repo.read(".pre-commit-config.yaml");
    assert!(config.contains(&format!("rev: {rev}")), "{what} did not pin {rev}:\n{config}");
    let what = format!("{name} {}", install.join(" "));
    let started = Instant::now();
    let building = hook_build();
    let out = run(sandbox.command(runner, &repo.dir).args(install), &what);
    drop(building);
    expect_success(&out, &what);
    eprintln!("{what}: {:.1?}", started.elapsed());
    assert_built_from_lock(home, hook_repo);
}

pub fn expect_success(out: &Output, what: &str) {
    assert!(out.status.success(), "`{what}` failed ({}):\n{}", out.status, text(out));
}

/// The line pre-commit prints for our hook (its name starts with the hook id).
fn hook_line(output: &str) -> Option<&str> {
    output.lines().find(|l| is_hook_line(l))
}

fn is_hook_line(l: &str) -> bool {
    l.starts_with("override-guard") && l.contains("..")
}

/// What the framework printed under our hook's line: its `- hook id:` and `- duration:`
/// lines (a `verbose` hook shows them on every run) and the hook's own output, up to the
/// next hook's line (a commit's own output comes first: git's stdout, then the hook's).
fn hook_block(output: &str) -> Vec<&str> {
    output
        .lines()
        .skip_while(|l| !is_hook_line(l))
        .skip(1)
        .take_while(|l| !l.contains("....."))
        .filter(|l| !l.trim().is_empty())
        .collect()
}

/// A passing commit's hook printed nothing of its own: the framework's lines only (and
/// they are there: the hook is `verbose`).
fn assert_quiet_pass(output: &str) {
    let block = hook_block(output);
    eprintln!("a clean run shows:\n{}", block.join("\n"));
    assert!(block.iter().any(|l| l.starts_with("- hook id: override-guard")), "{output}");
    assert!(block.iter().all(|l| l.starts_with("- ")), "a clean check printed:\n{output}");
}

/// Every `name-version` Cargo.lock holds.
fn locked_crates(lock: &str) -> std::collections::BTreeSet<String> {
    let mut out = std::collections::BTreeSet::new();
    let mut name = None;
    for line in lock.lines() {
        if let Some(n) = line.strip_prefix("name = ") {
            name = Some(n.trim_matches('"').to_string());
        } else if let (Some(v), Some(n)) = (line.strip_prefix("version = "), name.take()) {
            out.insert(format!("{n}-{}", v.trim_matches('"')));
        }
    }
    out
}

/// The crates a binary was built from, as `name-version`: the paths of the registry's copy
/// of each crate's sources stay in the binary (panic locations), stripped or not.
fn built_crates(binary: &Path) -> std::collections::BTreeSet<String> {
    let bytes = std::fs::read(binary).unwrap_or_else(|e| panic!("read {}: {e}", binary.display()));
    let needle = b"registry/src/";
    let mut out = std::collections::BTreeSet::new();
    let mut i = 0;
    while let Some(at) = bytes[i..].windows(needle.len()).position(|w| w == needle) {
        let rest = &bytes[i + at + needle.len()..];
        // `index.crates.io-HASH/name-version/src/...`
        let mut parts = rest.split(|b| *b == b'/');
        if let (Some(_index), Some(krate), Some(_)) = (parts.next(), parts.next(), parts.next())
            && let Ok(k) = std::str::from_utf8(krate)
            && !k.is_empty()
            && k.len() < 100
        {
            out.insert(k.to_string());
        }
        i += at + needle.len();
    }
    out
}

/// The hook's binary in the framework's environments (under `home`) was built from exactly
/// the hook repository's Cargo.lock: every crate it names is the lock's version, the
/// older one [`pin_an_older_dependency`] wrote included.
fn assert_built_from_lock(home: &Path, hook_repo: &Path) {
    let found: Vec<PathBuf> = walk_for(home, "override-guard")
        .into_iter()
        .filter(|p| p.parent().is_some_and(|d| d.ends_with("bin")))
        .collect();
    assert_eq!(found.len(), 1, "one override-guard binary in {}: {found:?}", home.display());
    let lock =
        std::fs::read_to_string(hook_repo.join("Cargo.lock")).expect("the hook's Cargo.lock");
    let (locked, built) = (locked_crates(&lock), built_crates(&found[0]));
    let older = format!("{}-{}", OLDER.0, OLDER.1);
    assert!(built.contains(&older), "the binary does not name {older}: {built:?}");
    let stray: Vec<&String> = built.iter().filter(|c| !locked.contains(*c)).collect();
    assert!(stray.is_empty(), "built from versions Cargo.lock does not hold: {stray:?}");
    eprintln!("{} crates built, each at Cargo.lock's version", built.len());
}

/// Writes an older version of [`OLDER`]'s crate over the hook repository's Cargo.lock
/// entry and commits it: a build that ignores the lock takes the newer one (the lock's own,
/// at least). Returns the new commit.
pub fn pin_an_older_dependency(sandbox: &Sandbox, hook_repo: &Path) -> String {
    let path = hook_repo.join("Cargo.lock");
    let lock = std::fs::read_to_string(&path).expect("the hook's Cargo.lock");
    let (name, version, checksum) = OLDER;
    let start = lock
        .find(&format!("\nname = \"{name}\"\nversion = "))
        .unwrap_or_else(|| panic!("Cargo.lock has no {name}: pick another crate for OLDER"));
    let entry_end = lock[start + 1..].find("\n\n").map_or(lock.len(), |e| start + 1 + e);
    let entry = &lock[start..entry_end];
    assert!(
        !entry.contains(&format!("version = \"{version}\"")),
        "Cargo.lock already pins {name} {version}: pick an older version for OLDER"
    );
    let new_entry: String = entry
        .lines()
        .map(|l| {
            if l.starts_with("version = ") {
                format!("version = \"{version}\"")
            } else if l.starts_with("checksum = ") {
                format!("checksum = \"{checksum}\"")
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(&path, format!("{}{new_entry}{}", &lock[..start], &lock[entry_end..]))
        .expect("write Cargo.lock");
    sandbox.git_ok(hook_repo, &["commit", "--quiet", "--no-verify", "-am", "an older dependency"]);
    sandbox.git_ok(hook_repo, &["rev-parse", "HEAD"])
}

/// `override-guard init --pre-commit` in `dir`: the policy and the hook configuration it
/// writes, the configuration pointed at the snapshot instead of the project's home.
fn init_with_hook(sandbox: &Sandbox, dir: &Path, hook_repo_yaml: &str) -> String {
    let out = run(
        sandbox.command(env!("CARGO_BIN_EXE_override-guard"), dir).args(["init", "--pre-commit"]),
        "override-guard init --pre-commit",
    );
    expect_success(&out, "override-guard init --pre-commit");
    let written = std::fs::read_to_string(dir.join(".pre-commit-config.yaml"))
        .expect("init --pre-commit writes .pre-commit-config.yaml");
    let home = concat!("- repo: ", env!("CARGO_PKG_REPOSITORY"), "\n");
    assert!(written.contains(home), "{written}");
    // Before the first release: built from source at the default branch.
    assert!(written.contains("    rev: main\n"), "{written}");
    assert!(written.contains("      - id: override-guard-src\n"), "{written}");
    let config = written.replace(home, &format!("- repo: {hook_repo_yaml}\n"));
    std::fs::write(dir.join(".pre-commit-config.yaml"), &config).expect("write the config");
    config
}

/// Copies the files `git ls-files` lists for this project (as they are in the worktree, so
/// uncommitted edits count) into a new repository and commits them: the hook repository.
/// Returns its directory and the commit.
pub fn snapshot_of_this_project(sandbox: &Sandbox) -> (PathBuf, String) {
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

    // The branch `init --pre-commit` names before a release.
    sandbox.git_ok(&snapshot, &["init", "--quiet", "--initial-branch=main"]);
    sandbox.git_ok(&snapshot, &["add", "--all"]);
    sandbox.git_ok(&snapshot, &["commit", "--quiet", "--no-verify", "-m", "snapshot"]);
    let rev = sandbox.git_ok(&snapshot, &["rev-parse", "HEAD"]);
    (snapshot, rev)
}

pub struct UserRepo<'a> {
    pub sandbox: &'a Sandbox,
    pub dir: PathBuf,
}

impl UserRepo<'_> {
    pub fn write(&self, name: &str, content: &str) {
        std::fs::write(self.dir.join(name), content)
            .unwrap_or_else(|e| panic!("write {name}: {e}"));
    }

    pub fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.dir.join(name)).unwrap_or_else(|e| panic!("read {name}: {e}"))
    }

    pub fn git(&self, args: &[&str]) -> String {
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
    pub fn commit_passes(&self, message: &str) -> String {
        let before = self.head();
        let out = self.commit(message);
        let output = text(&out);
        assert!(out.status.success(), "commit `{message}` was blocked ({}):\n{output}", out.status);
        let line = hook_line(&output)
            .unwrap_or_else(|| panic!("commit `{message}`: the hook did not run:\n{output}"));
        assert!(line.ends_with("Passed"), "commit `{message}`: {line}\n{output}");
        assert_ne!(self.head(), before, "commit `{message}` succeeded but HEAD did not move");
        output
    }

    /// A commit the hook blocks with `rule`: nonzero exit, HEAD unchanged.
    pub fn commit_blocked(&self, message: &str, rule: &str) -> String {
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

    /// The commits every framework is first tried with: the base (a clean module, which
    /// the hook passes without a word of its own), an override without its comment (a
    /// warning: it goes through, and the warning is shown), then an override turning
    /// prevent_destroy off (blocked).
    fn base_warning_and_blocked(&self) {
        self.git(&["add", "--all"]);
        let out = self.commit("base");
        let output = text(&out);
        assert!(out.status.success(), "the base commit was blocked ({}):\n{output}", out.status);
        assert!(
            hook_line(&output).is_some_and(|l| l.ends_with("Passed")),
            "the hook did not pass on the base commit:\n{output}"
        );
        assert_quiet_pass(&output);

        self.write("override.tf", &good_override("t3.small"));
        self.git(&["add", "override.tf"]);
        let output = self.commit_passes("an override, without its comment");
        assert!(
            hook_block(&output).iter().any(|l| l.contains("warning[missing-override-comment]")),
            "the warning is not shown:\n{output}"
        );
        eprintln!("a warning-only commit shows:\n{}", hook_block(&output).join("\n"));

        self.write("override.tf", BAD_OVERRIDE);
        self.git(&["add", "override.tf"]);
        self.commit_blocked("turn prevent_destroy off", "weakened-safeguard");
    }
}

pub fn pre_commit_framework_blocks_commits_by_their_staged_content() {
    let pre_commit = pre_commit();
    let started = Instant::now();
    let sandbox = Sandbox::new();

    let out = run(sandbox.command(&pre_commit, sandbox.path()).arg("--version"), "pre-commit");
    expect_success(&out, "pre-commit --version");
    eprintln!("using {}", text(&out).trim());

    let (hook_repo, _) = snapshot_of_this_project(&sandbox);
    let rev = pin_an_older_dependency(&sandbox, &hook_repo);

    let repo = UserRepo { sandbox: &sandbox, dir: sandbox.path().join("infra") };
    std::fs::create_dir(&repo.dir).expect("create the user repository");
    repo.git(&["init", "--quiet"]);
    repo.write("main.tf", MAIN_TF);
    // A JSON string is a YAML double-quoted scalar: any temporary path is safe in it.
    let hook_repo_yaml =
        serde_json::to_string(hook_repo.to_str().expect("temporary paths are UTF-8"))
            .expect("a JSON string");
    // What `init --pre-commit` writes, and what it says to do next: `pre-commit autoupdate`
    // pins the commit of the branch.
    init_with_hook(&sandbox, &repo.dir, &hook_repo_yaml);
    pin_and_install(
        &sandbox,
        &repo,
        &pre_commit,
        &["autoupdate"],
        &["install", "--install-hooks"],
        &sandbox.path().join("pre-commit-home"),
        (&hook_repo, &rev),
    );

    // The base commit passes quietly, a warning goes through, (a) an override turning
    // prevent_destroy off is blocked.
    repo.base_warning_and_blocked();

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
    assert_quiet_pass(&output);

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
    // runs of the hook, and each module is judged by one of them. Every module has a
    // finding (an override without its comment: a warning), so that every run prints its
    // summary (a clean run under the framework prints nothing).
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
        } else {
            std::fs::write(dir.join("override.tf"), good_override("t3.large")).expect("write");
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

/// The same under prek (a reimplementation of pre-commit that reads the same files): the
/// configuration `init --pre-commit` writes, pinned by `prek update --bleeding-edge
/// --freeze`, installs the hook built
/// from source from Cargo.lock; a clean commit passes without a word of the hook's, a
/// warning reaches the committer on a commit that goes through, a deny finding blocks the
/// commit, and `prek run --all-files` judges what is committed.
pub fn prek_runs_the_hooks_built_from_source() {
    let prek = prek();
    let sandbox = Sandbox::new();
    let out = run(sandbox.command(&prek, sandbox.path()).arg("--version"), "prek --version");
    expect_success(&out, "prek --version");
    eprintln!("using {}", text(&out).trim());

    let (hook_repo, _) = snapshot_of_this_project(&sandbox);
    let rev = pin_an_older_dependency(&sandbox, &hook_repo);
    let hook_repo_yaml =
        serde_json::to_string(hook_repo.to_str().expect("temporary paths are UTF-8"))
            .expect("a JSON string");
    let repo = UserRepo { sandbox: &sandbox, dir: sandbox.path().join("infra") };
    std::fs::create_dir(&repo.dir).expect("create the user repository");
    repo.git(&["init", "--quiet"]);
    repo.write("main.tf", MAIN_TF);
    init_with_hook(&sandbox, &repo.dir, &hook_repo_yaml);
    // Without a tag, `prek update` keeps the branch; these flags pin its commit.
    pin_and_install(
        &sandbox,
        &repo,
        &prek,
        &["update", "--bleeding-edge", "--freeze"],
        &["install", "--prepare-hooks"],
        &sandbox.path().join("pre-commit-home/prek"),
        (&hook_repo, &rev),
    );

    repo.base_warning_and_blocked();

    // What is committed, as CI runs it.
    repo.git(&["commit", "--quiet", "--no-verify", "-m", "without the hook"]);
    let out = run(sandbox.command(&prek, &repo.dir).args(["run", "--all-files"]), "prek run");
    assert!(!out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("override.tf:3:5: error[weakened-safeguard]"), "{}", text(&out));
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
    let building = hook_build();
    let out = run(
        sandbox
            .command(&maturin, &project.join("python"))
            .args(["build", "--release", "--quiet", "--out"])
            .arg(&wheels),
        "maturin build",
    );
    drop(building);
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
    // Written is success: the findings are recorded, not judged.
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
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
