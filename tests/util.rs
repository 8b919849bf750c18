//! Helpers shared by the integration tests.

use std::path::{Path, PathBuf};

use override_guard::merge::{self, Module};
use override_guard::terraform::discover::Engine;

/// The fixture folders of a suite, sorted.
pub fn fixtures(suite: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(suite);
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("fixture suite exists")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

/// Loads a fixture module with the engine its `case.toml` names (next to `module/`).
pub fn load_fixture(case: &Path) -> Module {
    let toml = std::fs::read_to_string(case.join("case.toml")).unwrap_or_default();
    let engine =
        if toml.contains("engine = \"opentofu\"") { Engine::OpenTofu } else { Engine::Terraform };
    load_dir_as(&case.join("module"), Some(engine))
}

fn load_dir_as(dir: &Path, engine: Option<Engine>) -> Module {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("module dir")
        .map(|e| e.expect("entry"))
        .filter(|e| e.file_type().map(|t| t.is_file()).unwrap_or(false))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let read = |p: &str| std::fs::read(dir.join(p));
    merge::load("", &names, engine, read).expect("readable")
}

/// The binary under test.
pub fn bin() -> std::process::Command {
    std::process::Command::new(env!("CARGO_BIN_EXE_override-guard"))
}
