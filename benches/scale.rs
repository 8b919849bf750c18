//! The benchmark suite: a generated monorepo (see `corpus/mod.rs`) of 1,000 and 10,000
//! modules, committed to git, and what a user waits for on it: `audit` (wall time and peak
//! memory), `check` of one staged module, `diff` of one module, against the floor any such
//! tool pays, parsing every file (with hcl-edit's own parser measured alone beside ours).
//! Medians of several runs; processes are timed whole, start-up included.
//!
//! `cargo bench --bench scale [-- [SIZE...] [--runs N] [--keep DIR] [--checkov PATH]]`
//! - `SIZE`: module counts (default 1000 and 10000);
//! - `--keep DIR`: write the corpora under DIR and leave them there;
//! - `--checkov PATH`: also time `checkov -d DIR --framework terraform` on each corpus.
// A test binary has no surface: its `pub` items are shared between its own files.
#![allow(unreachable_pub)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout, clippy::print_stderr)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rayon::prelude::*;

use override_guard::source::{Source, WorktreeSource};

/// The binary's allocator, so that in-memory figures compare with the processes'.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;
use override_guard::terraform::{FileClass, SourceText, Syntax, hcl, json};

#[path = "common/child.rs"]
mod child;
mod corpus;

struct Args {
    sizes: Vec<usize>,
    runs: usize,
    keep: Option<PathBuf>,
    checkov: Option<PathBuf>,
}

fn args() -> Args {
    let mut a = Args { sizes: Vec::new(), runs: 5, keep: None, checkov: None };
    let mut it = std::env::args().skip(1);
    while let Some(s) = it.next() {
        match s.as_str() {
            "--runs" => a.runs = it.next().and_then(|v| v.parse().ok()).unwrap_or(a.runs),
            "--keep" => a.keep = it.next().map(PathBuf::from),
            "--checkov" => a.checkov = it.next().map(PathBuf::from),
            _ => {
                if let Ok(n) = s.parse() {
                    a.sizes.push(n)
                }
            }
        }
    }
    if a.sizes.is_empty() {
        a.sizes = vec![1000, 10000];
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
        "machine: {} cores ({} rayon threads); medians of {} runs",
        std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
        rayon::current_num_threads(),
        a.runs
    );
    for &n in &a.sizes {
        let tmp = tempfile::tempdir()?;
        let root = match &a.keep {
            Some(k) => k.join(format!("corpus-{n}")),
            None => tmp.path().join("repo"),
        };
        if root.exists() {
            std::fs::remove_dir_all(&root)?;
        }
        bench(&root, n, &a)?;
    }
    Ok(())
}

fn bench(root: &Path, n: usize, a: &Args) -> std::io::Result<()> {
    corpus::write_corpus(root, n)?;
    let files = read_corpus(root)?;
    let bytes: usize = files.iter().map(|(_, t)| t.len()).sum();
    let mib = bytes as f64 / 1048576.0;
    println!("\n== {n} modules: {} files, {mib:.1} MiB", files.len());

    // The floor: parsing every file, in memory (hcl-edit alone, then ours), then walking,
    // reading and parsing as `audit` must, with the same threads.
    let raw = time(a.runs, || {
        files.par_iter().filter(|(p, _)| !p.ends_with(".json")).for_each(|(_, t)| {
            let _ = hcl_edit::parser::parse_body(t);
        })
    });
    // Our parser alone on the same files: the syntax tree, no conversion to the model.
    let ours = time(a.runs, || {
        files.par_iter().filter(|(p, _)| !p.ends_with(".json")).for_each(|(_, t)| {
            let _ = override_guard_hcl::parse_config(t);
        })
    });
    let parse =
        time(a.runs, || files.par_iter().enumerate().for_each(|(id, (p, t))| parse_one(id, p, t)));
    let parse1 =
        time(a.runs, || files.iter().enumerate().for_each(|(id, (p, t))| parse_one(id, p, t)));
    // Parsing and the merge with Terraform's load-time checks, every module from memory:
    // what `audit` pays before its rules, its walk and its report, and what it can never
    // leave out (the merge's errors are the `merge-error` findings of every module).
    let modules = read_modules(root)?;
    let load = time(a.runs, || {
        modules.par_iter().for_each(|(dir, names, bytes)| {
            let read = |p: &str| Ok::<_, std::io::Error>(bytes.get(p).cloned().unwrap_or_default());
            let _ = override_guard::merge::load(dir, names, None, read);
        })
    });
    let src = WorktreeSource::tree(root);
    let walk_parse = time(a.runs, || {
        let dirs: Vec<(String, Vec<String>)> =
            src.modules().unwrap_or_default().into_iter().collect();
        dirs.par_iter().for_each(|(dir, names)| {
            for (id, name) in names.iter().enumerate() {
                let p = override_guard::source::join(dir, name);
                if let Ok(b) = src.read(&p) {
                    parse_one(id, &p, &String::from_utf8_lossy(&b));
                }
            }
        })
    });

    // The same walk and reads with hcl-edit's parser (JSON files through ours): the
    // floor `audit` had before the parser was ours, kept so the ratio stays visible.
    let walk_parse_edit = time(a.runs, || {
        let dirs: Vec<(String, Vec<String>)> =
            src.modules().unwrap_or_default().into_iter().collect();
        dirs.par_iter().for_each(|(dir, names)| {
            for (id, name) in names.iter().enumerate() {
                let p = override_guard::source::join(dir, name);
                if let Ok(b) = src.read(&p) {
                    let t = String::from_utf8_lossy(&b);
                    if p.ends_with(".json") {
                        parse_one(id, &p, &t);
                    } else {
                        let _ = hcl_edit::parser::parse_body(&t);
                    }
                }
            }
        })
    });

    git(root, &["init", "-q", "-b", "main"])?;
    git(root, &["add", "-A"])?;
    git(root, &["commit", "-q", "-m", "corpus"])?;
    git(root, &["gc", "-q"])?;

    let audit = measure(root, &["audit", ".", "--format", "compact"], &[0, 1], a.runs)?;
    // Plans every warning comment of the corpus and proves each edited module unchanged.
    let fix = measure(root, &["fix", "--check", "."], &[0, 1], a.runs)?;
    // One module's change is staged: an override that swaps the state backend (deny, exit 1).
    let staged = root.join(corpus::CHANGED_MODULE).join("backend_override.tf");
    std::fs::write(&staged, "terraform {\n  backend \"local\" {}\n}\n")?;
    git(root, &["add", "--", &format!("{}/backend_override.tf", corpus::CHANGED_MODULE)])?;
    let check = measure(root, &["check", "--format", "compact"], &[1], a.runs)?;
    let diff = measure(root, &["diff", "--color", "never"], &[1], a.runs)?;
    let version = measure(root, &["--version"], &[0], a.runs)?;
    let one_override = format!("{}/backend_override.tf", corpus::CHANGED_MODULE);
    let fold = measure(root, &["fold", "--dry-run", &one_override], &[0, 1], a.runs)?;

    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!("parse, in memory, hcl-edit parse_body on .tf files: {:>9.1} ms", ms(raw));
    println!(
        "parse, in memory, our parser on the same files:      {:>9.1} ms  {:.2}x faster",
        ms(ours),
        ms(raw) / ms(ours).max(1e-9)
    );
    println!("parse, in memory, all files, 1 thread:              {:>9.1} ms", ms(parse1));
    println!("parse, in memory, all files:                        {:>9.1} ms", ms(parse));
    println!(
        "load, in memory: parse + merge, every module:       {:>9.1} ms  the merge alone {:.1} ms, {:.2}x parse-only",
        ms(load),
        ms(load) - ms(parse),
        (ms(load) - ms(parse)) / ms(walk_parse).max(1e-9)
    );
    println!("parse-only: walk + read + parse, all files:         {:>9.1} ms", ms(walk_parse));
    println!("parse-only with hcl-edit's parser for .tf files:    {:>9.1} ms", ms(walk_parse_edit));
    println!(
        "audit (process, --format compact):                  {:>9.1} ms  {:.2}x parse-only, {:.2}x in-memory parse, {:.2}x parse-only with hcl-edit",
        ms(audit.wall),
        audit.wall.as_secs_f64() / walk_parse.as_secs_f64(),
        audit.wall.as_secs_f64() / parse.as_secs_f64(),
        audit.wall.as_secs_f64() / walk_parse_edit.as_secs_f64()
    );
    println!(
        "audit peak memory (max RSS):                        {:>9.1} MiB  {:.2}x the corpus",
        audit.rss_mib,
        audit.rss_mib / mib
    );
    println!(
        "fix --check, whole corpus (process):                {:>9.1} ms  {:.2}x audit, {:.1} MiB",
        ms(fix.wall),
        fix.wall.as_secs_f64() / audit.wall.as_secs_f64(),
        fix.rss_mib
    );
    println!("fold --dry-run, one override file (process):        {:>9.1} ms", ms(fold.wall));
    println!("check, one module staged (process):                 {:>9.1} ms", ms(check.wall));
    println!("diff, HEAD -> index, one module (process):          {:>9.1} ms", ms(diff.wall));
    println!("--version (process start):                          {:>9.1} ms", ms(version.wall));
    println!(
        "peak memory: check {:.1} MiB, diff {:.1} MiB, --version {:.1} MiB",
        check.rss_mib, diff.rss_mib, version.rss_mib
    );

    if let Some(checkov) = &a.checkov {
        std::fs::remove_file(&staged)?;
        git(root, &["reset", "-q"])?;
        let args =
            ["-d", ".", "--framework", "terraform", "--quiet", "--compact", "--skip-download"];
        let m = run_measured(root, checkov, &args)?;
        println!(
            "checkov -d . --framework terraform (one run):        {:>9.1} ms, {:.1} MiB max RSS, exit {}",
            ms(m.wall),
            m.rss_mib,
            m.code
        );
    }
    Ok(())
}

/// Every file of the corpus the tool reads (Terraform, OpenTofu and variables files).
fn read_corpus(root: &Path) -> std::io::Result<Vec<(String, String)>> {
    let src = WorktreeSource::tree(root);
    let mut out = Vec::new();
    for (dir, names) in src.modules().map_err(std::io::Error::other)? {
        for n in names {
            let p = override_guard::source::join(&dir, &n);
            let b = src.read(&p).map_err(std::io::Error::other)?;
            out.push((p, String::from_utf8_lossy(&b).into_owned()));
        }
    }
    Ok(out)
}

/// Every module of the corpus: its directory, its file names, and each file's bytes by path.
type InMemory = (String, Vec<String>, std::collections::HashMap<String, Vec<u8>>);

fn read_modules(root: &Path) -> std::io::Result<Vec<InMemory>> {
    let src = WorktreeSource::tree(root);
    let mut out = Vec::new();
    for (dir, names) in src.modules().map_err(std::io::Error::other)? {
        let mut bytes = std::collections::HashMap::new();
        for n in &names {
            let p = override_guard::source::join(&dir, n);
            let b = src.read(&p).map_err(std::io::Error::other)?;
            bytes.insert(p, b);
        }
        out.push((dir, names, bytes));
    }
    Ok(out)
}

fn parse_one(id: usize, p: &str, t: &str) {
    if p.ends_with(".json") {
        let s = SourceText::new(p.to_string(), FileClass::Primary, Syntax::Json, t.into());
        let _ = json::parse(id, &s);
    } else {
        let _ = hcl::parse(id, t);
    }
}

fn time(runs: usize, f: impl Fn()) -> Duration {
    median(
        (0..runs)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed()
            })
            .collect(),
    )
}

fn median<T: PartialOrd + Copy>(mut v: Vec<T>) -> T {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    v[v.len() / 2]
}

struct Measured {
    wall: Duration,
    rss_mib: f64,
    code: i32,
}

/// Median wall time and median peak RSS of the binary with `args` in `dir`; checks the
/// exit code is one of `codes`.
fn measure(dir: &Path, args: &[&str], codes: &[i32], runs: usize) -> std::io::Result<Measured> {
    let bin = env!("CARGO_BIN_EXE_override-guard");
    let mut walls = Vec::new();
    let mut rss = Vec::new();
    for _ in 0..runs {
        let m = run_measured(dir, Path::new(bin), args)?;
        if !codes.contains(&m.code) {
            let out = Command::new(bin).args(args).current_dir(dir).output()?;
            return Err(std::io::Error::other(format!(
                "override-guard {args:?} exited {}: {}",
                m.code,
                String::from_utf8_lossy(&out.stderr)
            )));
        }
        walls.push(m.wall);
        rss.push(m.rss_mib);
    }
    Ok(Measured { wall: median(walls), rss_mib: median(rss), code: 0 })
}

/// Runs `program` with `args` in `dir`, output discarded: its wall time, peak RSS and exit
/// code. The run goes through a fresh copy of this benchmark (`--run-child`): Linux counts
/// the memory of the process a child was forked from into the child's peak RSS, and this
/// process holds whole corpora.
fn run_measured(dir: &Path, program: &Path, args: &[&str]) -> std::io::Result<Measured> {
    let r = child::measured(dir, program, args)?;
    Ok(Measured { wall: r.wall, rss_mib: r.rss_mib, code: r.code })
}

fn git(dir: &Path, args: &[&str]) -> std::io::Result<()> {
    let status = Command::new("git")
        .args(["-c", "user.name=bench", "-c", "user.email=bench@example.com"])
        .args(["-c", "commit.gpgsign=false", "-c", "gc.auto=0", "-c", "core.hooksPath=/dev/null"])
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
