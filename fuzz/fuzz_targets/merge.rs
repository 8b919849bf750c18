//! Bytes → a module directory of several files → `merge::load` (discovery, parsing, the
//! merge); then the diagnostics are drawn and the effective configuration is rendered,
//! as `show` does; then `fix` and `fold` plan their edits (a fold they accept must give
//! the same effective configuration: `fold` checks that itself, and a panic here is a bug).
//!
//! Input format: see `module_input.rs` (NUL-separated chunks: the engine, then
//! `NAME\nCONTENT` files, names replaced from a fixed list where needed).
#![no_main]

use std::collections::HashMap;

use libfuzzer_sys::fuzz_target;

#[path = "module_input.rs"]
mod module_input;
use override_guard::merge;
use override_guard::render;
use override_guard::report::{self, Style};

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
    let (engine, parsed) = module_input::parse(data, NAMES, 16);
    let names: Vec<String> = parsed.iter().map(|(n, _)| n.clone()).collect();
    let files: HashMap<String, Vec<u8>> = parsed.into_iter().collect();
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
