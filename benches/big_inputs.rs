//! Hostile big inputs (`tests/shapes.rs`: a variables file of small objects, a list of
//! numbers, resource blocks, JSON lists and bodies, …): the peak memory and the time of
//! `audit` on each, at a few sizes, as ratios to the input. Each run is a fresh process
//! reaped with `wait4` (peak resident set, CPU time); figures are medians. A change of
//! growth shows as a ratio that climbs with the size.
//!
//! `cargo bench --bench big_inputs [-- [MB...] [--runs N] [--shape NAME]... [--bin PATH]]`
//! - `MB`: input sizes in megabytes (default 1, 4 and 16);
//! - `--shape NAME`: only these shapes (default all; names as `tests/shapes.rs` gives them);
//! - `--bin PATH`: measure that binary instead of this build's (a build before a change).
// A test binary has no surface: its `pub` items are shared between its own files.
#![allow(unreachable_pub)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout, clippy::print_stderr)]

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

#[path = "common/child.rs"]
mod child;
#[path = "../tests/shapes.rs"]
mod shapes;

struct Args {
    sizes: Vec<usize>,
    runs: usize,
    shapes: Vec<String>,
    bin: std::path::PathBuf,
}

fn args() -> Args {
    let mut a = Args {
        sizes: Vec::new(),
        runs: 5,
        shapes: Vec::new(),
        bin: env!("CARGO_BIN_EXE_override-guard").into(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(s) = it.next() {
        match s.as_str() {
            "--runs" => a.runs = it.next().and_then(|v| v.parse().ok()).unwrap_or(a.runs),
            "--shape" => a.shapes.extend(it.next()),
            "--bin" => a.bin = it.next().map(Into::into).unwrap_or(a.bin),
            _ => {
                if let Ok(n) = s.parse() {
                    a.sizes.push(n)
                }
            }
        }
    }
    if a.sizes.is_empty() {
        a.sizes = vec![1, 4, 16];
    }
    a
}

fn main() -> std::io::Result<()> {
    let mut it = std::env::args().skip(1);
    if it.next().as_deref() == Some("--run-child") {
        return child::run_child(it);
    }
    let a = args();
    println!(
        "machine: {} cores, load average {} before; medians of {} runs",
        std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
        load_average(),
        a.runs
    );
    println!(
        "{:<22} {:>9} {:>11} {:>8} {:>10} {:>10} {:>10}",
        "shape", "input", "peak RSS", "x input", "wall", "CPU", "CPU/MiB"
    );
    for shape in shapes::ALL {
        if !a.shapes.is_empty() && !a.shapes.iter().any(|s| s == shape.name) {
            continue;
        }
        for &mb in &a.sizes {
            let tmp = tempfile::tempdir()?;
            let dir = tmp.path().join("m");
            let bytes = (shape.write)(&dir, shape.per_mb * mb)?;
            // Committed, as in a repository: an untracked file would be a local-only note.
            git(tmp.path(), &["init", "-q"])?;
            git(tmp.path(), &["add", "-A"])?;
            let m = measure(&a.bin, tmp.path(), &["audit", "m", "--format", "compact"], a.runs)?;
            let mib = bytes as f64 / 1048576.0;
            println!(
                "{:<22} {:>5.1} MiB {:>7.1} MiB {:>7.1}x {:>7.0} ms {:>7.0} ms {:>7.0} ms",
                shape.name,
                mib,
                m.rss_mib,
                m.rss_mib / mib,
                m.wall.as_secs_f64() * 1e3,
                m.cpu.as_secs_f64() * 1e3,
                m.cpu.as_secs_f64() * 1e3 / mib
            );
        }
    }
    println!("load average {} after", load_average());
    Ok(())
}

/// The first three fields of `/proc/loadavg` (`?` where there is none).
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

fn median<T: PartialOrd + Copy>(mut v: Vec<T>) -> T {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    v[v.len() / 2]
}

struct Measured {
    wall: Duration,
    cpu: Duration,
    rss_mib: f64,
}

/// Medians of `runs` runs of the binary with `args` in `dir` (each must exit 0 or 1).
fn measure(bin: &Path, dir: &Path, args: &[&str], runs: usize) -> std::io::Result<Measured> {
    let (mut walls, mut cpus, mut rss) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..runs {
        let r = child::measured(dir, bin, args)?;
        let code = r.code;
        if code != 0 && code != 1 {
            return Err(std::io::Error::other(format!("override-guard {args:?} exited {code}")));
        }
        walls.push(r.wall);
        cpus.push(r.cpu);
        rss.push(r.rss_mib);
    }
    Ok(Measured { wall: median(walls), cpu: median(cpus), rss_mib: median(rss) })
}

fn git(dir: &Path, args: &[&str]) -> std::io::Result<()> {
    let status = Command::new("git")
        .args(["-c", "user.name=bench", "-c", "user.email=bench@example.com"])
        .args(["-c", "core.hooksPath=/dev/null"])
        .args(args)
        .current_dir(dir)
        .env_remove("GIT_DIR")
        .env_remove("GIT_INDEX_FILE")
        .env_remove("GIT_WORK_TREE")
        .stdout(Stdio::null())
        .status()?;
    if status.success() {
        Ok(())
    } else {
        Err(std::io::Error::other(format!("git {args:?} failed")))
    }
}
