//! Where file contents come from. Only sources (and the app wiring) touch the filesystem
//! or git; everything after them works on the bytes they return.

pub mod memory;
pub mod worktree;

pub use memory::MemorySource;
pub use worktree::WorktreeSource;

use std::collections::BTreeMap;

/// An I/O failure while listing or reading, with the path it concerns.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[error("{path}: {message}")]
#[diagnostic(code(override_guard::io))]
pub struct SourceError {
    pub path: String,
    pub message: String,
}

/// A tree of files: paths are `/`-separated and relative to the source's root.
pub trait Source: Sync {
    /// Every configuration file (any engine's extensions, ignored names included so
    /// discovery can report them), grouped by directory: `dir -> [file names]`.
    /// The root directory is `""`.
    fn modules(&self) -> Result<BTreeMap<String, Vec<String>>, SourceError>;

    /// The bytes of one file.
    fn read(&self, path: &str) -> Result<Vec<u8>, SourceError>;
}

/// `dir/name`, or `name` at the root.
pub fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() { name.to_string() } else { format!("{dir}/{name}") }
}

/// Splits `a/b/c.tf` into (`a/b`, `c.tf`).
pub fn split(path: &str) -> (&str, &str) {
    match path.rfind('/') {
        Some(i) => (&path[..i], &path[i + 1..]),
        None => ("", path),
    }
}
