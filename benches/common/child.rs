//! One measured run of a program, shared by the benchmarks: a fresh copy of the benchmark
//! (`--run-child`) runs it and reports what `wait4` says. Linux counts the memory of the
//! process a child was forked from into the child's peak, and a benchmark holds whole
//! corpora, so the measuring process must be a small one of its own.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What one run cost.
pub struct Run {
    pub wall: Duration,
    /// User plus system time (the scale benchmark reads wall time only).
    #[allow(dead_code)]
    pub cpu: Duration,
    pub rss_mib: f64,
    pub code: i32,
}

/// Runs `program` with `args` in `dir`, output discarded, through `--run-child`.
pub fn measured(dir: &Path, program: &Path, args: &[&str]) -> std::io::Result<Run> {
    let out = Command::new(std::env::current_exe()?)
        .arg("--run-child")
        .arg(dir)
        .arg(program)
        .args(args)
        .stderr(Stdio::inherit())
        .output()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let v: Vec<i64> = text.split_whitespace().filter_map(|w| w.parse().ok()).collect();
    let [nanos, cpu_micros, kib, code] = v[..] else {
        return Err(std::io::Error::other(format!("--run-child printed {text:?}")));
    };
    Ok(Run {
        wall: Duration::from_nanos(nanos as u64),
        cpu: Duration::from_micros(cpu_micros as u64),
        rss_mib: kib as f64 / 1024.0,
        code: code as i32,
    })
}

/// `--run-child DIR PROGRAM ARGS...`: runs PROGRAM and prints `wall-nanoseconds
/// cpu-microseconds max-rss-KiB code`.
pub fn run_child(mut it: impl Iterator<Item = String>) -> std::io::Result<()> {
    let (Some(dir), Some(program)) = (it.next(), it.next()) else {
        return Err(std::io::Error::other("--run-child DIR PROGRAM ARGS..."));
    };
    let mut cmd = Command::new(program);
    cmd.args(it).current_dir(dir).stdout(Stdio::null()).stderr(Stdio::null()).stdin(Stdio::null());
    for k in ["GIT_DIR", "GIT_INDEX_FILE", "GIT_WORK_TREE"] {
        cmd.env_remove(k);
    }
    let t = Instant::now();
    let child = cmd.spawn()?;
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid value for wait4 to fill in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: the pid is our own child's, not yet reaped (std's `Child` is dropped unwaited).
    let pid = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut usage) };
    let wall = t.elapsed();
    if pid < 0 {
        return Err(std::io::Error::last_os_error());
    }
    let code = if libc::WIFEXITED(status) { libc::WEXITSTATUS(status) } else { -1 };
    let time = |t: libc::timeval| {
        Duration::from_secs(u64::try_from(t.tv_sec).unwrap_or(0))
            + Duration::from_micros(u64::try_from(t.tv_usec).unwrap_or(0))
    };
    let cpu = (time(usage.ru_utime) + time(usage.ru_stime)).as_micros();
    println!("{} {cpu} {} {code}", wall.as_nanos(), usage.ru_maxrss);
    Ok(())
}
