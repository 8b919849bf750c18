//! Helpers shared by the integration tests.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The binary under test.
pub fn bin() -> std::process::Command {
    std::process::Command::new(env!("CARGO_BIN_EXE_override-guard"))
}

/// One path of a [`Snapshot`]: what it is, its bytes or target, and its metadata.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    pub kind: Kind,
    /// Permission bits (`st_mode & 0o7777` on Unix; the read-only flag elsewhere).
    pub mode: u32,
    /// Last modification; a directory's changes when an entry is created, removed or
    /// renamed in it, even for a moment (a lock file).
    pub mtime: std::time::SystemTime,
    /// Unix: (inode, ctime seconds, ctime nanoseconds): a file replaced by another, or
    /// its metadata changed and changed back, shows here.
    pub identity: (u64, i64, i64),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    Dir,
    File(Vec<u8>),
    Link(PathBuf),
    /// A FIFO, a socket or a device: never opened (a FIFO would block).
    Special,
}

/// Every path under a root (directories too, `.git` included): kind, bytes or link
/// target, permissions, mtime and identity.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Snapshot(pub std::collections::BTreeMap<PathBuf, Node>);

/// Snapshots everything under `root`, byte for byte, without following links.
pub fn snapshot_tree(root: &Path) -> Snapshot {
    fn node(p: &Path, kind: Kind) -> Node {
        let m = std::fs::symlink_metadata(p).expect("metadata");
        #[cfg(unix)]
        let (mode, identity) = {
            use std::os::unix::fs::{MetadataExt, PermissionsExt};
            (m.permissions().mode() & 0o7777, (m.ino(), m.ctime(), m.ctime_nsec()))
        };
        #[cfg(not(unix))]
        let (mode, identity) = (u32::from(m.permissions().readonly()), (0, 0, 0));
        Node { kind, mode, mtime: m.modified().expect("mtime"), identity }
    }
    fn walk(root: &Path, dir: &Path, out: &mut std::collections::BTreeMap<PathBuf, Node>) {
        for e in std::fs::read_dir(dir).expect("read_dir") {
            let p = e.expect("entry").path();
            let rel = p.strip_prefix(root).expect("inside").to_path_buf();
            let t = std::fs::symlink_metadata(&p).expect("metadata").file_type();
            if t.is_symlink() {
                let target = std::fs::read_link(&p).expect("readlink");
                out.insert(rel, node(&p, Kind::Link(target)));
            } else if t.is_dir() {
                out.insert(rel.clone(), node(&p, Kind::Dir));
                walk(root, &p, out);
            } else if t.is_file() {
                out.insert(rel, node(&p, Kind::File(std::fs::read(&p).expect("read"))));
            } else {
                out.insert(rel, node(&p, Kind::Special));
            }
        }
    }
    let mut out = std::collections::BTreeMap::new();
    out.insert(PathBuf::new(), node(root, Kind::Dir));
    walk(root, root, &mut out);
    Snapshot(out)
}

/// What differs between two snapshots, one line per difference (`path: what`).
pub fn tree_changes(before: &Snapshot, after: &Snapshot) -> Vec<String> {
    let mut out = Vec::new();
    for (path, b) in &before.0 {
        let shown = path.display();
        let Some(a) = after.0.get(path) else {
            out.push(format!("{shown}: removed"));
            continue;
        };
        if a.kind != b.kind {
            let what = match (&b.kind, &a.kind) {
                (Kind::File(_), Kind::File(_)) => "rewritten (other bytes)",
                (Kind::Link(_), Kind::Link(_)) => "link retargeted",
                _ => "replaced by another kind of file",
            };
            out.push(format!("{shown}: {what}"));
        }
        if a.mode != b.mode {
            out.push(format!("{shown}: mode {:o} -> {:o}", b.mode, a.mode));
        }
        if a.mtime != b.mtime {
            out.push(format!("{shown}: mtime changed"));
        }
        if a.identity != b.identity {
            out.push(format!("{shown}: inode or ctime changed (replaced, or metadata touched)"));
        }
    }
    for path in after.0.keys().filter(|p| !before.0.contains_key(*p)) {
        out.push(format!("{}: created", path.display()));
    }
    out
}

/// Asserts that nothing under the snapshot's root changed: no file created, removed,
/// rewritten (even with the same bytes), re-permissioned or retargeted.
#[track_caller]
pub fn assert_same_tree(before: &Snapshot, after: &Snapshot) {
    let changes = tree_changes(before, after);
    assert!(changes.is_empty(), "the tree changed:\n  {}", changes.join("\n  "));
}

/// The outcome of one run of the binary: exit code and raw output.
#[derive(Clone, Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

impl Run {
    pub fn out(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    pub fn err(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }

    /// Everything the run printed, for assertion messages.
    pub fn shown(&self) -> String {
        format!("exit {}\n--- stdout:\n{}\n--- stderr:\n{}", self.code, self.out(), self.err())
    }
}

/// Removes what the environment could leak in (`GIT_*`, `OVERRIDE_GUARD*`, `TF_VAR_*`,
/// `NO_COLOR`, `CI`), and pins what git needs: `home` as HOME, no system or global
/// configuration, fixed identities, the C locale.
pub fn hermetic(cmd: &mut std::process::Command, home: &Path) {
    for (key, _) in std::env::vars_os() {
        let k = key.to_string_lossy();
        if k.starts_with("GIT_") || k.starts_with("OVERRIDE_GUARD") || k.starts_with("TF_VAR_") {
            cmd.env_remove(&key);
        }
    }
    cmd.env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "Test Author")
        .env("GIT_AUTHOR_EMAIL", "author@example.com")
        .env("GIT_COMMITTER_NAME", "Test Committer")
        .env("GIT_COMMITTER_EMAIL", "committer@example.com")
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("LC_ALL", "C")
        .env("LANG", "C")
        .env_remove("NO_COLOR")
        .env_remove("CI");
}

/// A temporary directory with a home and a git repository (`repo/`), and commands (git
/// and the binary) run in a hermetic environment: no inherited `GIT_*` or
/// `OVERRIDE_GUARD*` variable, a temporary HOME, no system or global git configuration.
pub struct Sandbox {
    pub tmp: tempfile::TempDir,
    pub root: PathBuf,
}

/// `git -c ...` settings every git call of the tests gets, so no user or system setting
/// leaks in.
pub const SANDBOX_GIT_CONFIG: &[&str] = &[
    "-c",
    "init.defaultBranch=main",
    "-c",
    "commit.gpgsign=false",
    "-c",
    "tag.gpgsign=false",
    "-c",
    "core.autocrlf=false",
    "-c",
    "advice.detachedHead=false",
];

impl Sandbox {
    /// A sandbox with `git init` done in `repo/`.
    pub fn new() -> Sandbox {
        let s = Sandbox::empty();
        s.git_in(s.tmp.path(), &["init", "-q", "-b", "main", "repo"]);
        s
    }

    /// A sandbox whose `repo/` is a plain directory (no git).
    pub fn empty() -> Sandbox {
        let tmp = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir(tmp.path().join("home")).expect("mkdir home");
        std::fs::create_dir(tmp.path().join("repo")).expect("mkdir repo");
        let root = tmp.path().join("repo");
        Sandbox { tmp, root }
    }

    pub fn home(&self) -> PathBuf {
        self.tmp.path().join("home")
    }

    /// A path next to the repository, in the same temporary directory.
    pub fn beside(&self, name: &str) -> PathBuf {
        self.tmp.path().join(name)
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    /// Removes what the environment could leak in, and pins what git needs.
    pub fn hermetic(&self, cmd: &mut std::process::Command) {
        hermetic(cmd, &self.home());
    }

    /// `git` in `dir`, which must succeed; its stdout.
    pub fn git_in(&self, dir: &Path, args: &[&str]) -> String {
        let mut cmd = std::process::Command::new("git");
        self.hermetic(&mut cmd);
        let out =
            cmd.args(SANDBOX_GIT_CONFIG).args(args).current_dir(dir).output().expect("git runs");
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        assert!(
            out.status.success(),
            "git {args:?} failed:\n{}{}",
            text(&out.stdout),
            text(&out.stderr)
        );
        text(&out.stdout)
    }

    /// `git` in the repository, which must succeed; its stdout.
    pub fn git(&self, args: &[&str]) -> String {
        self.git_in(&self.root, args)
    }

    /// `git` in the repository; whether it succeeded (for commands expected to fail).
    pub fn git_status(&self, args: &[&str]) -> bool {
        let mut cmd = std::process::Command::new("git");
        self.hermetic(&mut cmd);
        cmd.args(SANDBOX_GIT_CONFIG)
            .args(args)
            .current_dir(&self.root)
            .output()
            .expect("git runs")
            .status
            .success()
    }

    /// Writes a file (bytes) under the repository, creating its directory.
    pub fn write(&self, rel: &str, content: impl AsRef<[u8]>) {
        let p = self.path(rel);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, content).expect("write");
    }

    /// Writes files and stages them.
    pub fn stage(&self, files: &[(&str, &str)]) {
        for (rel, content) in files {
            self.write(rel, content);
            self.git(&["add", "--", rel]);
        }
    }

    /// Writes files, stages everything and commits.
    pub fn commit(&self, files: &[(&str, &str)], message: &str) {
        for (rel, content) in files {
            self.write(rel, content);
        }
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "--no-verify", "-m", message]);
    }

    /// The binary in `dir` (relative to the repository) with the hermetic environment.
    pub fn command(&self, dir: &str) -> std::process::Command {
        let mut cmd = bin();
        self.hermetic(&mut cmd);
        cmd.current_dir(self.root.join(dir));
        cmd
    }

    /// Runs the binary in `dir` (relative to the repository) with extra environment.
    #[track_caller]
    pub fn run_env<S: AsRef<std::ffi::OsStr>>(
        &self,
        dir: &str,
        args: &[S],
        env: &[(&str, &str)],
    ) -> Run {
        let mut cmd = self.command(dir);
        cmd.args(args).stdin(std::process::Stdio::null());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let out = cmd.output().expect("binary runs");
        let run =
            Run { code: out.status.code().unwrap_or(-1), stdout: out.stdout, stderr: out.stderr };
        assert!(!run.err().contains("panicked"), "panic:\n{}", run.shown());
        run
    }

    /// [`Sandbox::run_env`] with `input` on the binary's stdin.
    pub fn run_input<S: AsRef<std::ffi::OsStr>>(
        &self,
        dir: &str,
        args: &[S],
        env: &[(&str, &str)],
        input: &[u8],
    ) -> Run {
        use std::io::Write;
        let mut cmd = self.command(dir);
        cmd.args(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("binary runs");
        let mut stdin = child.stdin.take().expect("stdin");
        let input = input.to_vec();
        let writer = std::thread::spawn(move || {
            let _ = stdin.write_all(&input);
        });
        let out = child.wait_with_output().expect("binary runs");
        let _ = writer.join();
        let run =
            Run { code: out.status.code().unwrap_or(-1), stdout: out.stdout, stderr: out.stderr };
        assert!(!run.err().contains("panicked"), "panic:\n{}", run.shown());
        run
    }

    /// Runs the binary at the repository's root.
    #[track_caller]
    pub fn run<S: AsRef<std::ffi::OsStr>>(&self, args: &[S]) -> Run {
        self.run_env(".", args, &[])
    }
}

/// Every file under `dir` (recursively, without `.git`), by relative path.
pub fn files_of(dir: &Path) -> BTreeMap<String, Vec<u8>> {
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

/// The bytes of a sandbox repository's index: commands must leave them as they were.
pub fn index_bytes(s: &Sandbox) -> Vec<u8> {
    std::fs::read(s.path(".git/index")).expect("an index")
}

/// The documentation a reader follows: README.md, then every page of `docs/`, in name
/// order, each as its path from the repository root and its text. Tests that check what
/// the docs say read them all, so a passage moved between pages stays checked.
pub fn doc_pages() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut names: Vec<String> = std::fs::read_dir(root.join("docs"))
        .expect("docs/")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .map(|n| format!("docs/{n}"))
        .collect();
    names.sort();
    names.insert(0, "README.md".to_string());
    names
        .into_iter()
        .map(|n| {
            let text =
                std::fs::read_to_string(root.join(&n)).unwrap_or_else(|e| panic!("{n}: {e}"));
            (n, text)
        })
        .collect()
}

/// Copies a directory tree (files and folders only).
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("read_dir") {
        let e = e.expect("entry");
        let (src, dst) = (e.path(), to.join(e.file_name()));
        if e.file_type().expect("type").is_dir() {
            copy_tree(&src, &dst);
        } else {
            std::fs::copy(&src, &dst).expect("copy");
        }
    }
}

/// A pull request's history on the bundled examples, one commit a kind of change: an
/// override file added (a backend swap, and a value with a pipe, HTML and backticks), an
/// override changed (a larger instance, a variable made sensitive), an original deleted
/// (so the override's module call has no base), and an override aimed at a resource that
/// is not there. Each is the commit `HEAD~3`..`HEAD` after the examples' own commit.
pub fn review_history(s: &Sandbox) {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    copy_tree(&examples, &s.path("examples"));
    s.commit(&[], "the examples");
    let swap = "terraform {\n  backend \"local\" {\n    path = \"/tmp/state | <script>alert(1)</script> `x`\"\n  }\n}\n\nresource \"aws_vpc\" \"main\" {\n  enable_dns_hostnames = false\n}\n";
    s.commit(&[("examples/network/backend_override.tf", swap)], "add an override file");
    let app = std::fs::read_to_string(s.path("examples/app/override.tf")).expect("read");
    let app = app.replace("m6i.large", "m6i.xlarge")
        + "\nvariable \"ami_id\" {\n  default   = \"ami-secret\"\n  sensitive = true\n}\n";
    s.commit(&[("examples/app/override.tf", &app)], "change an override file");
    std::fs::remove_file(s.path("examples/app/storage.tf")).expect("rm");
    s.commit(&[], "delete an original");
    let gone = swap.replace("\"aws_vpc\" \"main\"", "\"aws_vpc\" \"this\"");
    s.commit(&[("examples/network/backend_override.tf", &gone)], "override what is not there");
}

/// The Markdown review of one commit of [`review_history`], with links to both sides.
pub fn markdown_of(s: &Sandbox, commit: &str) -> (i32, String) {
    markdown_in(s, commit, "gfm")
}

/// The same, in the Markdown `flavor` names (`--flavor`).
pub fn markdown_in(s: &Sandbox, commit: &str, flavor: &str) -> (i32, String) {
    let (before, after) = (format!("{commit}~1"), commit.to_string());
    let run = s.run(&[
        "diff",
        &before,
        &after,
        "--format",
        "markdown",
        "--flavor",
        flavor,
        "--link-base",
        "https://example.com/o/r/blob/AFTER",
        "--link-base-before",
        "https://example.com/o/r/blob/BEFORE",
    ]);
    (run.code, run.out())
}
