//! The HCL crate's own benchmark: the parser, the formatter and the JSON checker over a
//! generated corpus, in memory and on one thread, so the figures are the crate's alone (no
//! file system, no thread pool). The corpus (`corpus/`) is the one the tool's benchmark
//! writes to disk, the same on every run (seeded).
//! Medians of several runs.
//!
//! `cargo bench -p override-guard-hcl --bench parse [-- [MODULES] [--runs N]]`
//! (default: 1000 modules, 7 runs).
// A test binary has no surface: its `pub` items are shared between its own files.
#![allow(unreachable_pub)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout, clippy::print_stderr)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use override_guard_hcl::{fmt, json, parse_config};

mod corpus;

/// The native files and the JSON files of `modules` modules.
fn corpus(modules: usize) -> (Vec<String>, Vec<String>) {
    let mut r = corpus::Rng(corpus::SEED);
    let mut native = Vec::new();
    let mut jsons = Vec::new();
    for i in 0..modules {
        for (name, text) in corpus::module_files(i, &mut r) {
            if name.ends_with(".json") {
                jsons.push(text);
            } else if name.ends_with(".tf") || name.ends_with(".tofu") {
                native.push(text);
            }
        }
    }
    (native, jsons)
}

fn time(runs: usize, f: impl Fn()) -> Duration {
    let mut v: Vec<Duration> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let mut modules = 1000;
    let mut runs = 7;
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--runs" => runs = it.next().and_then(|v| v.parse().ok()).unwrap_or(runs).max(1),
            // `cargo bench` passes `--bench`; anything else that is no number is ignored too.
            _ => modules = a.parse().unwrap_or(modules),
        }
    }
    let (native, jsons) = corpus(modules);
    let mib = |files: &[String]| files.iter().map(String::len).sum::<usize>() as f64 / 1048576.0;
    let (n_mib, j_mib) = (mib(&native), mib(&jsons));
    for f in &native {
        let (_, errors) = parse_config(f);
        assert!(errors.is_empty(), "the corpus must parse: {errors:?}");
    }
    println!(
        "{modules} modules: {} native files ({n_mib:.1} MiB), {} JSON files ({j_mib:.2} MiB); medians of {runs} runs, one thread",
        native.len(),
        jsons.len()
    );
    let report = |what: &str, d: Duration, mib: f64| {
        println!(
            "{what:<24} {:>9.1} ms  {:>7.1} MiB/s",
            d.as_secs_f64() * 1e3,
            mib / d.as_secs_f64()
        );
    };
    let parse = time(runs, || native.iter().for_each(|f| drop(black_box(parse_config(f)))));
    report("parse_config", parse, n_mib);
    let format = time(runs, || native.iter().for_each(|f| drop(black_box(fmt::format(f)))));
    report("fmt::format", format, n_mib);
    let check = time(runs, || jsons.iter().for_each(|f| drop(black_box(json::check(f)))));
    report("json::check", check, j_mib);
}
