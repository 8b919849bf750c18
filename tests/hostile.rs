//! The hostile-repository suite: one repository that links out of itself in every place a
//! path is read (module files, variables files, a policy, a baseline, a variables file
//! named with `--var-file`, other files `flatten` copies), to a secret beside it, to
//! `/etc/passwd` and to `/dev/zero`; and whose worktree holds FIFOs, a socket and (as
//! root) device nodes where module files, a policy, a baseline and variables files are
//! looked for. Every command is run on it, each under limits this suite sets: an address
//! space of [`MEMORY`] (a read of `/dev/zero` fails there at once instead of taking the
//! machine's memory) and a watchdog of [`HANG`] (a blocked FIFO read is a failure, not a
//! CI job that never ends). Neither is a budget of speed: the runs take milliseconds.
//!
//! What must hold: every run ends by itself with 0, 1 or 2, no panic, no signal; the
//! secret appears in no output, no flattened tree and no scanner's input; the clean module
//! beside the hostile one is still judged.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::measure::{Measured, assert_sane, measure_stdin};
use crate::util::{Sandbox, snapshot_tree, tree_changes};

/// What the secret beside the repository holds: a runner's credentials, say.
const SECRET: &str = "hostile-suite-secret-7f3a1c";

/// The address space each run may take. A normal run of the suite takes under 2 GiB of
/// it with two threads (the 256 MiB stacks of each thread are most of it): reading
/// `/dev/zero` to its end is stopped long before the machine's memory is gone.
const MEMORY: u64 = 4 << 30;

/// A run still going after this has hung: the suite's runs take milliseconds.
const HANG: Duration = Duration::from_secs(120);

/// The clean module's override, which every judging run must still report.
const OK_MAIN: &str = "variable \"size\" {\n  default = 1\n}\n";
const OK_OVERRIDE: &str = "variable \"size\" {\n  default = 2\n}\n";

fn fifo(p: &Path) {
    let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0, "mkfifo {}", p.display());
}

/// A character device node with the numbers of `/dev/zero` (1, 5) or `/dev/null` (1, 3);
/// whether it could be made (only root can, and not in every container).
fn device(p: &Path, minor: u32) -> bool {
    let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
    let dev = libc::makedev(1, minor);
    // SAFETY: a valid NUL-terminated path.
    unsafe { libc::mknod(c.as_ptr(), libc::S_IFCHR | 0o644, dev) == 0 }
}

/// Whether the hostile repository holds device nodes (see [`device`]).
fn has_devices(s: &Sandbox) -> bool {
    std::fs::symlink_metadata(s.path("app/devzero.tfvars")).is_ok()
}

fn link(target: impl AsRef<Path>, at: &Path) {
    std::fs::create_dir_all(at.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(target, at).unwrap();
}

/// The hostile repository, committed (links and all), then its worktree's special files.
fn hostile() -> Sandbox {
    let s = Sandbox::new();
    let secret = s.beside("secret.txt");
    // Valid HCL and a valid variables file: read as either, it would show.
    std::fs::write(&secret, format!("stolen = \"{SECRET}\"\n")).unwrap();
    s.write("ok/main.tf", OK_MAIN);
    s.write("ok/override.tf", OK_OVERRIDE);
    s.write("app/main.tf", "variable \"stolen\" {\n  default = \"none\"\n}\n");
    s.write("app/override.tf", "variable \"stolen\" {\n  default = \"overridden\"\n}\n");
    // Links out of the repository where module and variables files are read.
    link("../../secret.txt", &s.path("app/secret.tf"));
    link(&secret, &s.path("app/secret.auto.tfvars"));
    link("/etc/passwd", &s.path("app/passwd_override.tf"));
    link("/dev/zero", &s.path("app/terraform.tfvars"));
    link("/dev/zero", &s.path("app/zero.auto.tfvars.json"));
    // Where flatten copies other files.
    link("../../secret.txt", &s.path("app/notes.txt"));
    link("/dev/zero", &s.path("app/zero.txt"));
    link("/dev/urandom", &s.path("app/random.bin"));
    // Where a policy is looked for, and where the CI workflow names a baseline and a
    // variables file.
    s.write("strict/main.tf", OK_MAIN);
    link("../../secret.txt", &s.path("strict/.override-guard.toml"));
    s.write("zeroed/main.tf", OK_MAIN);
    link("/dev/zero", &s.path("zeroed/.override-guard.toml"));
    link("/dev/zero", &s.path(".override-guard-baseline.json"));
    link("/dev/zero", &s.path("app/zero.tfvars"));
    link("../../secret.txt", &s.path("app/secret.tfvars"));
    // A directory of the repository that is a link out of it, where a path is named.
    let outside = s.beside("outside");
    std::fs::create_dir(&outside).unwrap();
    std::fs::write(outside.join("policy.toml"), format!("# {SECRET}\n[rules\n")).unwrap();
    link(&outside, &s.path("out-dir"));
    s.git(&["add", "-A"]);
    s.git(&["commit", "-q", "--no-verify", "-m", "hostile"]);
    // A staged change for the hook.
    s.write("ok/override.tf", "variable \"size\" {\n  default = 3\n}\n");
    s.git(&["add", "ok/override.tf"]);
    // The worktree's own: what git cannot hold.
    fifo(&s.path("app/pipe.tf"));
    fifo(&s.path("app/pipe.txt"));
    fifo(&s.path("app/pipe.auto.tfvars"));
    fifo(&s.path("app/fifo.tfvars"));
    fifo(&s.path("fifo-baseline.json"));
    fifo(&s.path("fifo-policy.toml"));
    std::fs::create_dir_all(s.path("piped")).unwrap();
    s.write("piped/main.tf", OK_MAIN);
    fifo(&s.path("piped/.override-guard.toml"));
    let sock = std::os::unix::net::UnixListener::bind(s.path("app/sock.tf")).unwrap();
    drop(sock); // the socket file stays
    if device(&s.path("app/devzero.tf"), 5) {
        device(&s.path("app/devnull.txt"), 3);
        device(&s.path("app/devzero.tfvars"), 5);
    } else {
        eprintln!("note: no device nodes could be made here; links to /dev/zero stand in");
    }
    s
}

/// The binary in the repository with the suite's limits: [`MEMORY`] of address space, two
/// threads (the address space grows with each), and [`HANG`].
fn run_in(s: &Sandbox, dir: &str, args: &[&OsStr], stdin: Stdio) -> Measured {
    use std::os::unix::process::CommandExt;
    let mut cmd: Command = s.command(dir);
    cmd.args(args).env("RAYON_NUM_THREADS", "2");
    // SAFETY: only setrlimit, which is async-signal-safe, between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            let limit = libc::rlimit { rlim_cur: MEMORY, rlim_max: MEMORY };
            if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    measure_stdin(cmd, stdin, HANG)
}

/// Runs the binary; it ends by itself, 0, 1 or 2, and prints nothing of the secret.
#[track_caller]
fn run(s: &Sandbox, args: &[&str]) -> Measured {
    let args: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
    let m = run_in(s, ".", &args, Stdio::null());
    let what = format!("{args:?}");
    assert_sane(&what, &m);
    assert!(matches!(m.code, Some(0..=2)), "{what}\n{}", m.shown());
    assert!(!m.all().contains(SECRET), "{what} printed the secret\n{}", m.shown());
    assert!(!m.all().contains("root:x:0:0"), "{what} printed /etc/passwd\n{}", m.shown());
    m
}

/// Every file's bytes under `dir`, for a secret to be looked for.
fn contents(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        let t = std::fs::symlink_metadata(&p).unwrap().file_type();
        assert!(!t.is_symlink() || p.starts_with(dir), "a link in the copy: {}", p.display());
        if t.is_dir() {
            out.extend(contents(&p));
        } else {
            assert!(t.is_file(), "not a regular file in the copy: {}", p.display());
            out.push((p.clone(), std::fs::read(&p).unwrap()));
        }
    }
    out
}

#[track_caller]
fn assert_no_secret_in(dir: &Path) {
    for (p, bytes) in contents(dir) {
        let text = String::from_utf8_lossy(&bytes);
        assert!(!text.contains(SECRET), "{} holds the secret", p.display());
        assert!(!text.contains("root:x:0:0"), "{} holds /etc/passwd", p.display());
    }
}

#[test]
fn every_reading_command_ends_by_itself_and_shows_nothing_from_outside() {
    let s = hostile();
    let before = snapshot_tree(&s.root);
    let judged = |m: &Measured| {
        assert!(m.all().contains("ok/main.tf"), "the clean module was not judged\n{}", m.shown());
    };
    for format in ["hcl", "tf-json", "json", "config-json"] {
        run(&s, &["show", "ok", "--format", format]);
        run(&s, &["show", "app", "--format", format]);
        run(&s, &["show", "--staged", "app", "--format", format]);
    }
    for format in ["compact", "json", "sarif", "github", "gitlab", "junit", "checkstyle", "human"] {
        // The whole tree stops at its unreadable policies (an error: see below); beside
        // the hostile module, the clean one is judged.
        run(&s, &["audit", ".", "--format", format]);
        run(&s, &["audit", "--staged", ".", "--format", format]);
        judged(&run(&s, &["audit", "app", "ok", "--format", format]));
        judged(&run(&s, &["audit", "--staged", "app", "ok", "--format", format]));
        judged(&run(&s, &["audit", "--rev", "HEAD", "app", "ok", "--format", format]));
        judged(&run(&s, &["check", "--format", format]));
        run(&s, &["check", "--format", format, "--from-ref", "HEAD", "--to-ref", "HEAD"]);
        run(&s, &["diff", "--format", format]);
        run(&s, &["diff", "HEAD", "--format", format]);
    }
    judged(&run(&s, &["check", "ok/main.tf", "ok/override.tf", "app/main.tf", "app/notes.txt"]));
    run(&s, &["diff", "--worktree"]);
    for dir in ["app", "strict", "zeroed", "piped", "ok"] {
        run(&s, &["audit", dir]);
        run(&s, &["vars", dir]);
        run(&s, &["fix", "--check", dir]);
        run(&s, &["fix", "--dry-run", dir]);
    }
    run(&s, &["fold", "--dry-run", "app/override.tf"]);
    run(&s, &["fold", "--dry-run", "ok/override.tf"]);
    for name in ["explain", "man"] {
        run(&s, &[name]);
    }
    run(&s, &["completions", "bash"]);
    assert!(
        tree_changes(&before, &snapshot_tree(&s.root)).is_empty(),
        "a command that only reads changed the repository"
    );
    // The commands that write, where they may: nothing from outside is written either.
    for dir in ["app", "strict", "zeroed", "piped", "ok"] {
        run(&s, &["fix", dir]);
    }
    run(&s, &["fold", "ok/override.tf"]);
    for (args, why) in [
        (&["init", "--path", "app/notes.txt"][..], "leading out of the repository"),
        (&["init", "--path", "ok/main.tf"], "already exists"),
        (&["audit", "ok", "--write-baseline", "app/notes.txt"], "leading out of the repository"),
        (
            &["audit", "ok", "--write-baseline", "app/passwd_override.tf"],
            "leading out of the repository",
        ),
        (&["audit", "ok", "--write-baseline", "app/pipe.txt"], "not a regular file"),
    ] {
        let m = run(&s, args);
        assert_eq!(m.code, Some(2), "{args:?}\n{}", m.shown());
        assert!(m.stderr.contains(why), "{args:?}\n{}", m.shown());
    }
    assert_eq!(
        std::fs::read_to_string(s.beside("secret.txt")).unwrap(),
        format!("stolen = \"{SECRET}\"\n")
    );
}

/// The places a path is named on the command line: a link there out of the repository
/// (to /dev/zero, to the secret), a FIFO, a device: each refused with an error naming it.
#[test]
fn what_the_command_line_names_is_read_only_if_it_is_a_regular_file() {
    let s = hostile();
    let m = run(&s, &["flatten", "ok", "--out", "flat"]);
    assert_eq!(m.code, Some(0), "{}", m.shown());
    let cases: &[(&[&str], &str, &str)] = &[
        (
            &["audit", ".", "--baseline", ".override-guard-baseline.json"],
            ".override-guard-baseline.json",
            "leading out of the repository",
        ),
        (
            &["audit", ".", "--baseline", "fifo-baseline.json"],
            "fifo-baseline.json",
            "not a regular file",
        ),
        (&["audit", ".", "--policy", "fifo-policy.toml"], "fifo-policy.toml", "not a regular file"),
        (
            &["audit", ".", "--policy", "zeroed/.override-guard.toml"],
            "zeroed/.override-guard.toml",
            "leading out of the repository",
        ),
        (&["audit", ".", "--policy", "/dev/zero"], "/dev/zero", "not a regular file"),
        (
            &["vars", "app", "--var-file", "app/zero.tfvars"],
            "app/zero.tfvars",
            "leading out of the repository",
        ),
        (
            &["vars", "app", "--var-file", "app/secret.tfvars"],
            "app/secret.tfvars",
            "leading out of the repository",
        ),
        (
            &["vars", "app", "--var-file", "app/fifo.tfvars"],
            "app/fifo.tfvars",
            "not a regular file",
        ),
        (&["vars", "app", "--var-file", "/dev/zero"], "/dev/zero", "not a regular file"),
        (
            &["remap", "fifo-baseline.json", "--tree", "flat"],
            "fifo-baseline.json",
            "not a regular file",
        ),
        (
            &["remap", ".override-guard-baseline.json", "--tree", "flat"],
            ".override-guard-baseline.json",
            "leading out of the repository",
        ),
        (&["remap", "/dev/zero", "--tree", "flat"], "/dev/zero", "not a regular file"),
        (
            &["audit", ".", "--policy", "out-dir/policy.toml"],
            "out-dir/policy.toml",
            "or a path through one",
        ),
        (
            &["audit", "ok", "--write-baseline", "out-dir/b.json"],
            "out-dir/b.json",
            "or a path through one",
        ),
        (
            &["init", "--path", "out-dir/.override-guard.toml"],
            "out-dir/.override-guard.toml",
            "or a path through one",
        ),
    ];
    for (args, path, why) in cases {
        let m = run(&s, args);
        assert_eq!(m.code, Some(2), "{args:?}\n{}", m.shown());
        assert!(m.stderr.contains(&format!("error: {path}: ")), "{args:?}\n{}", m.shown());
        assert!(m.stderr.contains(why), "{args:?}\n{}", m.shown());
    }
    if has_devices(&s) {
        let m = run(&s, &["vars", "app", "--var-file", "app/devzero.tfvars"]);
        assert_eq!(m.code, Some(2), "{}", m.shown());
        assert!(m.stderr.contains("not a regular file"), "{}", m.shown());
    }
    assert_eq!(
        std::fs::read_dir(s.beside("outside")).unwrap().count(),
        1,
        "written through out-dir"
    );
    // Named outside any repository, a file may be anywhere, and is read.
    let outside = s.beside("vars.tfvars");
    std::fs::write(&outside, "stolen = \"named\"\n").unwrap();
    let m = run(&s, &["vars", "app", "--var-file", outside.to_str().unwrap()]);
    assert!(m.stdout.contains("named"), "{}", m.shown());
}

/// The policies the lookup finds: a link out of the repository, a link to /dev/zero and a
/// FIFO are each an error naming the file, from the worktree and from git; the modules
/// they govern are not judged by the built-in default instead.
#[test]
fn a_found_policy_that_cannot_be_read_is_an_error_from_every_source() {
    let s = hostile();
    for (dir, why) in [
        ("strict", "leading out of the repository"),
        ("zeroed", "leading out of the repository"),
        ("piped", "not a regular file"),
    ] {
        let m = run(&s, &["audit", dir]);
        assert_eq!(m.code, Some(2), "{dir}\n{}", m.shown());
        assert!(m.all().contains(&format!("{dir}/.override-guard.toml: ")), "{dir}\n{}", m.shown());
        assert!(m.all().contains(why), "{dir}\n{}", m.shown());
    }
    for args in [
        &["audit", "--staged", "strict"][..],
        &["audit", "--rev", "HEAD", "strict"],
        &["audit", "--rev", "HEAD", "zeroed"],
    ] {
        let m = run(&s, args);
        assert_eq!(m.code, Some(2), "{args:?}\n{}", m.shown());
        assert!(
            m.all().contains("leading out of the repository; not read"),
            "{args:?}\n{}",
            m.shown()
        );
    }
}

/// flatten and scan write no byte from outside the repository into the tree a scanner
/// reads and a job may upload, copy no FIFO, socket or device, and say what they left out.
#[test]
fn flatten_and_scan_copy_nothing_from_outside_the_repository() {
    let s = hostile();
    let out = s.beside("flat");
    let m = run(&s, &["flatten", ".", "--out", out.to_str().unwrap()]);
    assert_no_secret_in(&out);
    let mut left_out = vec!["app/notes.txt", "app/zero.txt", "app/random.bin", "app/pipe.txt"];
    if has_devices(&s) {
        left_out.push("app/devnull.txt");
    }
    for left in left_out {
        assert!(!out.join(left).exists(), "{left} was copied");
        assert!(m.stderr.contains(&format!("note: {left}: not copied: ")), "{left}\n{}", m.shown());
    }
    assert!(out.join("ok/main.tf").is_file(), "{}", m.shown());
    // The scanner sees the copy: it looks for the secret in every file of it.
    let scanner = s.beside("scanner.sh");
    std::fs::write(
        &scanner,
        format!(
            "#!/bin/sh\nif grep -rqs {SECRET} \"$1\"; then echo LEAKED >&2; exit 9; fi\nfind \"$1\" ! -type f ! -type d >&2\nprintf '{{\"version\":\"2.1.0\",\"runs\":[{{\"tool\":{{\"driver\":{{\"name\":\"grep\"}}}},\"results\":[]}}]}}'\n"
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&scanner, std::fs::Permissions::from_mode(0o755)).unwrap();
    let m = run(&s, &["scan", ".", "--", scanner.to_str().unwrap(), "{}"]);
    assert_eq!(m.code, Some(0), "{}", m.shown());
    assert!(!m.stderr.contains("LEAKED"), "{}", m.shown());
    assert!(
        !m.stderr.contains("override-guard-flattened/"),
        "a special file was copied\n{}",
        m.shown()
    );
}

/// `scan`'s copy is its user's alone (0700), and it is gone however the run ends: by
/// itself, by Ctrl-C (SIGINT) or by a CI job's timeout (SIGTERM), which also stop the
/// scanner. The exit status says the signal (128 + its number).
#[test]
fn scan_keeps_its_copy_private_and_removes_it_when_stopped() {
    let s = Sandbox::new();
    s.commit(&[("m/main.tf", OK_MAIN), ("m/override.tf", OK_OVERRIDE)], "m");
    s.write("m/secret.auto.tfvars", "token = \"t\"\n");
    std::fs::set_permissions(
        s.path("m/secret.auto.tfvars"),
        std::os::unix::fs::PermissionsExt::from_mode(0o600),
    )
    .unwrap();
    let tmp = s.beside("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let seen = s.beside("seen");
    // The scanner says where the copy is and its mode, then waits to be stopped.
    let scanner = s.beside("slow.sh");
    std::fs::write(
        &scanner,
        format!(
            "#!/bin/sh\nstat -c '%a %n' \"$(dirname \"$1\")\" > {seen}.tmp\necho $$ >> {seen}.tmp\nmv {seen}.tmp {seen}\nexec sleep 300\n",
            seen = seen.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&scanner, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .unwrap();
    for (signal, code) in [(libc::SIGTERM, 143), (libc::SIGINT, 130), (libc::SIGHUP, 129)] {
        let _ = std::fs::remove_file(&seen);
        let mut cmd = s.command(".");
        cmd.args(["scan", ".", "--", scanner.to_str().unwrap(), "{}"])
            .env("TMPDIR", &tmp)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = Stopped(Some(cmd.spawn().unwrap()));
        let mut waited = 0;
        while !seen.exists() {
            assert!(waited < 120_000, "the scanner never started");
            std::thread::sleep(Duration::from_millis(10));
            waited += 10;
        }
        let said = std::fs::read_to_string(&seen).unwrap();
        let mut lines = said.lines();
        let (mode, copy) = lines.next().unwrap().split_once(' ').unwrap();
        assert_eq!(mode, "700", "{said}");
        assert!(Path::new(copy).starts_with(&tmp), "{said}");
        let scanner_pid: i32 = lines.next().unwrap().parse().unwrap();
        let child = child.0.take().unwrap();
        // SAFETY: a plain signal to our own child.
        unsafe { libc::kill(child.id() as i32, signal) };
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(code), "{}", String::from_utf8_lossy(&out.stderr));
        assert!(!Path::new(copy).exists(), "the copy is left behind after signal {signal}");
        assert_eq!(std::fs::read_dir(&tmp).unwrap().count(), 0, "something is left in TMPDIR");
        // SAFETY: signal 0 only asks whether the process exists.
        let alive = unsafe { libc::kill(scanner_pid, 0) } == 0;
        assert!(!alive, "the scanner still runs after signal {signal}");
    }
    // By itself: the copy is gone too.
    let ok = s.beside("ok.sh");
    std::fs::write(&ok, "#!/bin/sh\nprintf '{\"version\":\"2.1.0\",\"runs\":[]}'\n").unwrap();
    std::fs::set_permissions(&ok, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let mut cmd = s.command(".");
    cmd.args(["scan", ".", "--", ok.to_str().unwrap(), "{}"]).env("TMPDIR", &tmp);
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read_dir(&tmp).unwrap().count(), 0);
}

/// A child killed if the test fails before it is taken: a failing test leaves no scan
/// (and its scanner) running.
struct Stopped(Option<std::process::Child>);

impl Drop for Stopped {
    fn drop(&mut self) {
        if let Some(c) = &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// The language server, asked about a module of the hostile repository: it answers and
/// ends when told, under the suite's limits.
#[test]
fn the_language_server_judges_the_hostile_module_and_ends() {
    let s = hostile();
    let uri = format!("file://{}", s.path("app/main.tf").display());
    let text = std::fs::read_to_string(s.path("app/main.tf")).unwrap();
    let messages = [
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}, "rootUri": format!("file://{}", s.root.display())}}),
        serde_json::json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}),
        serde_json::json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": uri, "languageId": "terraform", "version": 1, "text": text}}}),
        serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "textDocument/hover", "params": {"textDocument": {"uri": uri}, "position": {"line": 1, "character": 3}}}),
        serde_json::json!({"jsonrpc": "2.0", "id": 3, "method": "shutdown"}),
        serde_json::json!({"jsonrpc": "2.0", "method": "exit"}),
    ];
    let mut input = Vec::new();
    for m in messages {
        let body = m.to_string();
        input.extend_from_slice(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes());
    }
    let file = s.beside("lsp-input");
    std::fs::write(&file, input).unwrap();
    let m = run_in(&s, ".", &[OsStr::new("lsp")], Stdio::from(std::fs::File::open(&file).unwrap()));
    assert_sane("lsp", &m);
    assert_eq!(m.code, Some(0), "{}", m.shown());
    assert!(m.stdout.contains("\"id\":2"), "no answer to the hover\n{}", m.shown());
    assert!(!m.all().contains(SECRET), "{}", m.shown());
}
