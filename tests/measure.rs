//! Running the binary as the adversarial and big-input tests do: reaped with `wait4` for its
//! exit status, its own peak memory and its own CPU time, with a watchdog for hangs.
//!
//! Every budget here bounds what the child alone used, with headroom no busy machine can
//! cross: peak resident memory at twice what it measured, CPU time (not wall time, which
//! grows with whatever else runs) at many times it. A regression these budgets catch is a
//! change of growth (quadratic memory or time), not a few per cent; the figures themselves
//! are the benchmark's (`cargo bench --bench scale`). The wall-clock watchdog only ends a
//! run that hangs.
#![cfg(unix)]
#![allow(dead_code)] // each of the two test binaries uses part of it

use std::ffi::OsStr;
use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::util::Sandbox;

/// How deep the nesting tests nest: far beyond any sane configuration, and deep enough
/// to overflow a recursive parser's stack.
pub const DEEP: usize = 10_000;

/// Peak resident memory allowed for a run: a constant for the process itself plus a
/// multiple of the bytes of configuration it reads, both twice what was measured. Measured
/// in a debug build: a trivial run 18 MiB; 50 MiB of resource blocks 2.03 GiB (~41 bytes
/// per input byte: the syntax tree, the model and the source text); 100,000 attributes
/// (1.7 MB) 104 MiB for `audit`, 130 to 150 MiB for `show` from run to run (the
/// allocator's segments per thread); 10,000 override files (0.6 MB) 53 MiB; a 10 MB line
/// 99 MiB. A budget of 1.15 times the figure once failed six runs in ten. Since the
/// tokens, the syntax tree and the model are no longer held at once, the 50 MiB take 0.81
/// GiB (~16 bytes per input byte; the hostile shapes have bounds of their own,
/// [`assert_rss_multiple`]).
pub const RSS_BASE_KIB: u64 = 128 * 1024;
/// See [`RSS_BASE_KIB`]: twice the 41 bytes per input byte measured then.
pub const RSS_PER_INPUT_BYTE: u64 = 96;

/// Longest any run may take before the watchdog kills it: a hang detector, far above any
/// run's time on a busy machine (the 50 MB audit takes ~45 s alone in a debug build on two
/// cores, ~95 s beside the rest of the suite). Speed is bounded by CPU time instead
/// ([`assert_cpu_within`]).
pub const RUN_TIMEOUT: Duration = Duration::from_secs(900);

/// A finished run of the binary, reaped with `wait4`.
pub struct Measured {
    /// The exit code, `None` when a signal ended it.
    pub code: Option<i32>,
    pub signal: Option<i32>,
    /// Killed by the watchdog.
    pub timed_out: bool,
    pub stdout: String,
    pub stderr: String,
    /// `ru_maxrss`: peak resident set size in KiB (Linux).
    pub max_rss_kib: u64,
    /// The test process's own peak RSS once the child is reaped. Linux carries the
    /// high-water mark of the address space a process `exec`s from into its `ru_maxrss`,
    /// and `Command` spawns with `vfork` semantics, so the child's figure is never below
    /// this: a peak under it is masked.
    pub inherited_kib: u64,
    pub elapsed: Duration,
    /// CPU time the child itself spent, user and system (`ru_utime` + `ru_stime`): unlike
    /// the wall time, it does not grow when other processes share the cores.
    pub cpu: Duration,
}

impl Measured {
    /// Everything printed, stdout then stderr.
    pub fn all(&self) -> String {
        format!("{}{}", self.stdout, self.stderr)
    }

    /// What the run printed (cut short: some outputs are megabytes), for messages.
    pub fn shown(&self) -> String {
        fn cut(s: &str) -> &str {
            let mut end = s.len().min(4000);
            while !s.is_char_boundary(end) {
                end -= 1;
            }
            &s[..end]
        }
        format!(
            "exit {:?}, signal {:?}, timed out {}, {:?} ({:?} CPU), peak RSS {} KiB\n--- stdout:\n{}\n--- stderr:\n{}",
            self.code,
            self.signal,
            self.timed_out,
            self.elapsed,
            self.cpu,
            self.max_rss_kib,
            cut(&self.stdout),
            cut(&self.stderr)
        )
    }
}

/// Runs `cmd` to the end, draining its output in threads, and reaps it with `wait4` for
/// its exit status and peak memory. Past `timeout` the child is killed (SIGKILL) and the
/// result says so. The pid stays ours until `wait4` reaps it, so the kill cannot hit
/// another process.
pub fn measure(cmd: Command, timeout: Duration) -> Measured {
    measure_stdin(cmd, Stdio::null(), timeout)
}

/// [`measure`], with `stdin` as the child's standard input.
#[expect(clippy::zombie_processes, reason = "reaped with libc::wait4, which std cannot see")]
pub fn measure_stdin(mut cmd: Command, stdin: Stdio, timeout: Duration) -> Measured {
    cmd.stdin(stdin).stdout(Stdio::piped()).stderr(Stdio::piped());
    let start = Instant::now();
    let mut child = cmd.spawn().expect("the binary starts");
    let pid = libc::pid_t::try_from(child.id()).expect("pid fits");
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = r.read_to_end(&mut buf);
            buf
        })
    };
    let out = drain(Box::new(child.stdout.take().expect("stdout")));
    let err = drain(Box::new(child.stderr.take().expect("stderr")));
    let mut status: libc::c_int = 0;
    // SAFETY: an all-zero rusage is a valid value for wait4 to fill in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let mut timed_out = false;
    loop {
        // SAFETY: `pid` is our unreaped child; both pointers are valid for writes.
        let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        if r == pid {
            break;
        }
        if r == -1 {
            let e = std::io::Error::last_os_error();
            assert_eq!(e.kind(), std::io::ErrorKind::Interrupted, "wait4: {e}");
            continue;
        }
        if !timed_out && start.elapsed() > timeout {
            // SAFETY: the child is not reaped yet, so `pid` still names it.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            timed_out = true;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let elapsed = start.elapsed();
    // SAFETY: as above, for our own usage.
    let mut own: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: a valid pointer for writes.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut own) };
    let text = |b: Vec<u8>| String::from_utf8_lossy(&b).into_owned();
    Measured {
        code: libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status)),
        signal: libc::WIFSIGNALED(status).then(|| libc::WTERMSIG(status)),
        timed_out,
        stdout: text(out.join().expect("stdout reader")),
        stderr: text(err.join().expect("stderr reader")),
        max_rss_kib: u64::try_from(usage.ru_maxrss).unwrap_or(0),
        inherited_kib: u64::try_from(own.ru_maxrss).unwrap_or(0),
        elapsed,
        cpu: cpu_time(&usage),
    }
}

/// User plus system time of a `rusage`.
fn cpu_time(usage: &libc::rusage) -> Duration {
    let tv = |t: libc::timeval| {
        Duration::from_secs(u64::try_from(t.tv_sec).unwrap_or(0))
            + Duration::from_micros(u64::try_from(t.tv_usec).unwrap_or(0))
    };
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

/// Runs the binary at the sandbox's repository root.
pub fn og<S: AsRef<OsStr>>(s: &Sandbox, args: &[S]) -> Measured {
    og_env(s, args, &[])
}

/// [`og`] with extra environment variables (raw bytes allowed).
pub fn og_env<S: AsRef<OsStr>>(s: &Sandbox, args: &[S], env: &[(&str, &OsStr)]) -> Measured {
    let mut cmd = s.command(".");
    cmd.args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    measure(cmd, RUN_TIMEOUT)
}

/// The run ended by itself, with an exit code, without a panic.
#[track_caller]
pub fn assert_sane(what: &str, m: &Measured) {
    assert!(!m.timed_out, "{what}: still running, killed by the watchdog\n{}", m.shown());
    assert!(
        m.signal.is_none(),
        "{what}: killed by signal {:?} (a stack overflow aborts)\n{}",
        m.signal,
        m.shown()
    );
    assert!(!m.stderr.contains("panicked"), "{what}: panicked\n{}", m.shown());
    assert!(m.code.is_some(), "{what}: no exit code\n{}", m.shown());
}

/// [`assert_sane`], and the exit code is `code`.
#[track_caller]
pub fn expect_code(what: &str, m: &Measured, code: i32) {
    assert_sane(what, m);
    assert_eq!(m.code, Some(code), "{what}\n{}", m.shown());
}

/// The compact line of a `merge-error` in `path`, with a line number within `1..=lines`.
#[track_caller]
pub fn assert_merge_error_in(what: &str, m: &Measured, path: &str, lines: usize) {
    let found = m.stdout.lines().find(|l| {
        l.strip_prefix(path)
            .and_then(|rest| rest.strip_prefix(':'))
            .filter(|rest| rest.contains(": error[merge-error]: "))
            .and_then(|rest| rest.split(':').next())
            .and_then(|line| line.parse::<usize>().ok())
            .is_some_and(|line| (1..=lines).contains(&line))
    });
    assert!(found.is_some(), "{what}: no merge-error at a line of {path}\n{}", m.shown());
}

/// The peak memory stayed within the budget for `input` bytes of configuration (or
/// under what the child inherits from this process: see [`Measured::inherited_kib`]).
#[track_caller]
pub fn assert_rss_within(what: &str, m: &Measured, input: u64) {
    let budget = RSS_BASE_KIB + RSS_PER_INPUT_BYTE * input / 1024;
    eprintln!(
        "{what}: {input} bytes in, {:?}, peak RSS {} KiB (budget {budget} KiB, inherited floor {} KiB)",
        m.elapsed, m.max_rss_kib, m.inherited_kib
    );
    if m.max_rss_kib > budget && m.max_rss_kib <= m.inherited_kib {
        eprintln!("{what}: over budget, but not above this process's own peak: masked");
    }
    assert!(m.max_rss_kib > 0, "{what}: no rusage");
    assert!(
        m.max_rss_kib <= budget.max(m.inherited_kib),
        "{what}: peak RSS over budget\n{}",
        m.shown()
    );
}

/// The process's own part of [`assert_rss_multiple`]'s budget: a trivial run of a debug
/// build peaks at 25 MiB; about twice that.
pub const MULTIPLE_BASE_KIB: u64 = 48 * 1024;

/// The peak memory stayed within [`MULTIPLE_BASE_KIB`] and `per_byte` bytes for each byte
/// of `input` (for the hostile shapes, `tests/shapes.rs`, about twice what a debug build
/// measured; or under what the child inherits from this process: see
/// [`Measured::inherited_kib`]).
#[track_caller]
pub fn assert_rss_multiple(what: &str, m: &Measured, input: u64, per_byte: u64) {
    let budget = MULTIPLE_BASE_KIB + per_byte * input / 1024;
    let ratio = m.max_rss_kib as f64 * 1024.0 / input.max(1) as f64;
    eprintln!(
        "{what}: {input} bytes in, {:?} ({:?} CPU), peak RSS {} KiB, {ratio:.1}x the input (budget {budget} KiB, inherited floor {} KiB)",
        m.elapsed, m.cpu, m.max_rss_kib, m.inherited_kib
    );
    assert!(m.max_rss_kib > 0, "{what}: no rusage");
    assert!(
        m.max_rss_kib <= budget.max(m.inherited_kib),
        "{what}: peak RSS over budget\n{}",
        m.shown()
    );
}

/// The run's own CPU time stayed within `budget`: set many times what it measured, so that
/// only a change of growth (a quadratic path) crosses it, never a busy machine.
#[track_caller]
pub fn assert_cpu_within(what: &str, m: &Measured, budget: Duration) {
    eprintln!("{what}: {:?} CPU, {:?} wall (CPU budget {budget:?})", m.cpu, m.elapsed);
    assert!(m.cpu <= budget, "{what}: CPU time over budget\n{}", m.shown());
}

/// A sandbox with a git repository (so policy discovery stops at it).
pub fn sandbox() -> Sandbox {
    Sandbox::new()
}

/// Stages every file, as in a repository where the files are committed: an override file
/// git does not track is local-only, which is not what these tests are about.
pub fn committed(s: &Sandbox) {
    s.git(&["add", "-A"]);
}

/// Writes a file whose name is raw bytes (relative to the repository).
pub fn write_raw(s: &Sandbox, rel: &[u8], content: &[u8]) {
    let p = s.root.join(OsStr::from_bytes(rel));
    std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
    std::fs::write(p, content).expect("write");
}
