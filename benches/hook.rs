//! The pre-commit hook and the review helper as a user runs them: a whole process
//! (start-up included) on a generated git repository of 1,000 modules (~6,000 files)
//! with one module's override changed and staged. Reports medians of several runs, with
//! the repository's objects loose (just committed) and packed (after `git gc`).
//! `cargo bench --bench hook [-- N]`.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod corpus;

fn git(dir: &Path, args: &[&str]) -> std::io::Result<()> {
    let status = Command::new("git")
        .args(["-c", "user.name=bench", "-c", "user.email=bench@example.com"])
        .args(["-c", "commit.gpgsign=false", "-c", "gc.auto=0"])
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

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Median wall time of the binary with `args`, run in `dir`; checks the exit code.
fn time(dir: &Path, args: &[&str], expect: i32, runs: usize) -> std::io::Result<Duration> {
    let bin = env!("CARGO_BIN_EXE_override-guard");
    let mut times = Vec::new();
    for _ in 0..runs {
        let t = Instant::now();
        let out = Command::new(bin)
            .args(args)
            .current_dir(dir)
            .env_remove("GIT_DIR")
            .env_remove("GIT_INDEX_FILE")
            .env_remove("GIT_WORK_TREE")
            .output()?;
        times.push(t.elapsed());
        if out.status.code() != Some(expect) {
            return Err(std::io::Error::other(format!(
                "override-guard {args:?} exited {:?}: {}{}",
                out.status.code(),
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )));
        }
    }
    Ok(median(times))
}

fn main() -> std::io::Result<()> {
    let modules: usize = std::env::args().skip(1).find_map(|a| a.parse().ok()).unwrap_or(1000);
    let runs = 21;
    let tmp = tempfile::tempdir()?;
    let root = tmp.path();
    corpus::write_corpus(root, modules)?;
    git(root, &["init", "-q", "-b", "main"])?;
    git(root, &["add", "-A"])?;
    git(root, &["commit", "-q", "-m", "corpus"])?;
    // One module's override changes: it swaps the state backend (a deny finding, exit 1).
    let changed = root.join("team0/svc0/override.tf");
    let text = std::fs::read_to_string(&changed)? + "\nterraform {\n  backend \"local\" {}\n}\n";
    std::fs::write(&changed, text)?;
    git(root, &["add", "team0/svc0/override.tf"])?;
    println!("repository: {modules} modules, {} files, one module change staged", modules * 6);
    for state in ["loose objects", "packed (git gc)"] {
        if state.starts_with("packed") {
            git(root, &["gc", "-q"])?;
        }
        let check = time(root, &["check", "--format", "compact"], 1, runs)?;
        let new_only = time(root, &["check", "--new-only", "--format", "compact"], 1, runs)?;
        let diff = time(root, &["diff", "--color", "never"], 1, runs)?;
        let version = time(root, &["--version"], 0, runs)?;
        println!("{state}:");
        println!("  override-guard --version (process start):  {:>7.1} ms", ms(version));
        println!("  override-guard check:                      {:>7.1} ms", ms(check));
        println!("  override-guard check --new-only:           {:>7.1} ms", ms(new_only));
        println!("  override-guard diff (HEAD vs index):       {:>7.1} ms", ms(diff));
    }
    println!("medians of {runs} runs, wall time including process start");
    Ok(())
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
