//! Reading fixture cases: the folders of a suite, their `case.toml`, their module.

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

/// A fixture's `case.toml` (empty when it has none), parsed as TOML: a malformed one
/// fails the test that reads it.
pub fn case_toml(case: &Path) -> toml::Table {
    let path = case.join("case.toml");
    match std::fs::read_to_string(&path) {
        Ok(text) => text.parse().unwrap_or_else(|e| panic!("{}: {e}", path.display())),
        Err(_) => toml::Table::new(),
    }
}

/// A string value of a `case.toml`.
pub fn case_str<'a>(case: &'a toml::Table, key: &str) -> Option<&'a str> {
    case.get(key).and_then(toml::Value::as_str)
}

/// Loads a fixture module with the engine its `case.toml` names (next to `module/`).
pub fn load_fixture(case: &Path) -> Module {
    let toml = case_toml(case);
    let engine = match case_str(&toml, "engine") {
        Some("opentofu") => Engine::OpenTofu,
        _ => Engine::Terraform,
    };
    load_dir_as(&case.join("module"), Some(engine))
}

pub fn load_dir_as(dir: &Path, engine: Option<Engine>) -> Module {
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
