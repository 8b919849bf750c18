//! The corpus the tool's benchmarks read from disk: the generated modules of the HCL
//! crate's benchmark (`crates/hcl/benches/corpus/`), written as a monorepo.

use std::path::Path;

#[path = "../../crates/hcl/benches/corpus/mod.rs"]
mod generated;
pub use generated::*;

/// Writes one module into `dir`.
pub fn write_module(dir: &Path, i: usize, r: &mut Rng) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    for (name, text) in module_files(i, r) {
        std::fs::write(dir.join(name), text)?;
    }
    Ok(())
}

/// Writes `modules` modules under `root` (`teamN/svcI`, 37 teams).
pub fn write_corpus(root: &Path, modules: usize) -> std::io::Result<()> {
    let mut rng = Rng(SEED);
    for i in 0..modules {
        write_module(&root.join(format!("team{}/svc{i}", i % 37)), i, &mut rng)?;
    }
    Ok(())
}

/// The path of the module the `check` and `diff` benchmarks change (the first one).
pub const CHANGED_MODULE: &str = "team0/svc0";
