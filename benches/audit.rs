//! Audit speed over a generated repository (1,000 modules, ~6,000 files by default):
//! hcl-edit's raw `parse_body`, override-guard's parse-only time, and a full `audit`
//! load, each reported as the median of several runs. `cargo bench --bench audit [-- N]`.

use std::time::{Duration, Instant};

use override_guard::app::{Progress, load_all, load_subjects};
use override_guard::policy::{Date, Policy};
use override_guard::report::findings;

const TODAY: Date = Date { year: 2026, month: 11, day: 22 };
use override_guard::source::{Source, WorktreeSource};
use override_guard::terraform::{FileClass, SourceText, Syntax, hcl, json};

mod corpus;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() -> std::io::Result<()> {
    let modules: usize = std::env::args().skip(1).find_map(|a| a.parse().ok()).unwrap_or(1000);
    let runs = 7;
    let tmp = tempfile::tempdir()?;
    corpus::write_corpus(tmp.path(), modules)?;
    let src = WorktreeSource::tree(tmp.path());
    let dirs = src.modules().map_err(std::io::Error::other)?;
    let mut files: Vec<(String, String)> = Vec::new();
    for (dir, names) in &dirs {
        for n in names {
            let p = override_guard::source::join(dir, n);
            let bytes = src.read(&p).map_err(std::io::Error::other)?;
            files.push((p, String::from_utf8_lossy(&bytes).into_owned()));
        }
    }
    let bytes: usize = files.iter().map(|(_, t)| t.len()).sum();
    println!(
        "corpus: {modules} modules, {} files, {:.1} MiB",
        files.len(),
        bytes as f64 / 1048576.0
    );

    let time = |f: &dyn Fn()| -> Duration {
        median(
            (0..runs)
                .map(|_| {
                    let t = Instant::now();
                    f();
                    t.elapsed()
                })
                .collect(),
        )
    };
    let raw = time(&|| {
        for (p, t) in &files {
            if p.ends_with(".tf") {
                let _ = hcl_edit::parser::parse_body(t);
            }
        }
    });
    let ours_hcl = time(&|| {
        for (id, (p, t)) in files.iter().enumerate() {
            if p.ends_with(".tf") {
                let _ = hcl::parse(id, t);
            }
        }
    });
    let parse_only = time(&|| {
        for (id, (p, t)) in files.iter().enumerate() {
            if p.ends_with(".json") {
                let s =
                    SourceText::new(p.clone(), FileClass::Primary, Syntax::Json, t.as_str().into());
                let _ = json::parse(id, &s);
            } else {
                let _ = hcl::parse(id, t);
            }
        }
    });
    let merge = time(&|| {
        let _ = load_all(&src, None);
    });
    let policy = Policy::builtin();
    let audit = time(&|| {
        let loaded = load_subjects(&src, None, &Progress::none()).unwrap_or_default();
        let (findings, summary) = override_guard::audit::run(
            &policy,
            &loaded,
            "",
            TODAY,
            override_guard::policy::Scope::Whole,
        );
        let _ = findings::compact(&findings, &summary);
    });
    let threads = rayon::current_num_threads();
    println!("hcl-edit parse_body, .tf files (1 thread):     {:>8.1} ms", raw.as_secs_f64() * 1e3);
    println!(
        "override-guard parse, .tf files (1 thread):    {:>8.1} ms  ({:.2}x hcl-edit)",
        ours_hcl.as_secs_f64() * 1e3,
        ours_hcl.as_secs_f64() / raw.as_secs_f64()
    );
    println!(
        "override-guard parse-only, all files (1 thread): {:>6.1} ms",
        parse_only.as_secs_f64() * 1e3
    );
    println!(
        "merge: walk + read + parse + merge ({threads} threads):          {:>6.1} ms  ({:.2}x parse-only)",
        merge.as_secs_f64() * 1e3,
        merge.as_secs_f64() / parse_only.as_secs_f64()
    );
    println!(
        "audit: merge + other engine + policy + report ({threads} threads): {:>6.1} ms  ({:+.1}% over merge)",
        audit.as_secs_f64() * 1e3,
        (audit.as_secs_f64() / merge.as_secs_f64() - 1.0) * 100.0
    );
    println!("medians of {runs} runs");
    Ok(())
}
