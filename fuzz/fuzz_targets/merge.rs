//! Bytes → a module directory of several files → `merge::load` (discovery, parsing, the
//! merge); then the diagnostics are drawn and the effective configuration is rendered,
//! as `show` does; then `fix` and `fold` plan their edits (a fold they accept must give
//! the same effective configuration: `fold` checks that itself, and a panic here is a bug).
//!
//! Input format (so seeds can be written by hand and made from fixture directories):
//! chunks separated by NUL bytes. The first chunk picks the engine: `terraform`,
//! `opentofu`, anything else lets `load` choose. Every later chunk is one file:
//! `NAME\nCONTENT`. A name that is empty, holds `/`, or repeats an earlier name is
//! replaced by one from a fixed list (main.tf, override.tf, a_override.tf.json, x.tofu…),
//! so any byte string is a valid input.
#![no_main]

use std::collections::HashMap;

use libfuzzer_sys::fuzz_target;
use override_guard::merge;
use override_guard::render;
use override_guard::report::{self, Style};
use override_guard::terraform::discover::Engine;

const NAMES: &[&str] = &[
    "main.tf",
    "override.tf",
    "a_override.tf.json",
    "x.tofu",
    "main.tf.json",
    "variables.tf",
    "main_override.tf",
    "override.tf.json",
    "x_override.tofu",
    "x.tofu.json",
    "override.tofu.json",
    "b.tf",
];

fuzz_target!(|data: &[u8]| {
    let mut chunks = data.split(|&b| b == 0);
    let engine = match chunks.next() {
        Some(b"terraform") => Some(Engine::Terraform),
        Some(b"opentofu") => Some(Engine::OpenTofu),
        _ => None,
    };
    let mut names: Vec<String> = Vec::new();
    let mut files: HashMap<String, Vec<u8>> = HashMap::new();
    for (i, chunk) in chunks.enumerate().take(16) {
        let (name, content) = match chunk.iter().position(|&b| b == b'\n') {
            Some(nl) => (String::from_utf8_lossy(&chunk[..nl]).into_owned(), &chunk[nl + 1..]),
            None => (String::new(), chunk),
        };
        let name = if name.is_empty() || name.contains('/') || files.contains_key(&name) {
            let fallback = NAMES[i % NAMES.len()];
            if files.contains_key(fallback) {
                continue;
            }
            fallback.to_string()
        } else {
            name
        };
        names.push(name.clone());
        files.insert(name, content.to_vec());
    }
    let read = |p: &str| -> Result<Vec<u8>, std::convert::Infallible> {
        Ok(files.get(p).cloned().unwrap_or_default())
    };
    let Ok(m) = merge::load("", &names, engine, read);
    for d in &m.diagnostics {
        let _ = report::compact(&m.files, d, "merge-error");
        let _ = report::human(&m.files, d, "merge-error", Style::plain());
    }
    let _ = render::hcl::render(&m);
    let _ = override_guard::fix::comments::plan(
        &m,
        &override_guard::policy::Policy::builtin(),
        &Default::default(),
        override_guard::policy::Date { year: 2026, month: 11, day: 22 },
    );
    let overrides: Vec<String> = m.override_files().map(|f| f.name().to_string()).collect();
    let _ = override_guard::fix::fold::plan(&m, &overrides);
});
