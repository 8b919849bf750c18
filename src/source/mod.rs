//! Where file contents come from. Only sources (and the app wiring) touch the filesystem
//! or git; everything after them works on the bytes they return.

pub mod git;
pub mod memory;
pub mod worktree;

pub use git::{Git, GitSource, View};
pub use memory::MemorySource;
pub use worktree::WorktreeSource;

use std::collections::{BTreeMap, BTreeSet};

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

    /// [`Source::modules`], only for the directories in `dirs`. Sources that can answer
    /// without listing everything do (the pre-commit hook touches a few modules of many).
    fn modules_in(
        &self,
        dirs: &BTreeSet<String>,
    ) -> Result<BTreeMap<String, Vec<String>>, SourceError> {
        let mut all = self.modules()?;
        all.retain(|dir, _| dirs.contains(dir));
        Ok(all)
    }

    /// The bytes of one file.
    fn read(&self, path: &str) -> Result<Vec<u8>, SourceError>;

    /// A content id (git's blob id) when the source knows it without reading: two files
    /// with the same id have the same bytes.
    fn blob_id(&self, _path: &str) -> Option<String> {
        None
    }
}

/// A listing of module files with the directories that hold no configuration file (only
/// variables files) left out: they are no module.
pub(crate) fn only_modules(
    mut all: BTreeMap<String, Vec<String>>,
) -> BTreeMap<String, Vec<String>> {
    use crate::terraform::discover;
    all.retain(|_, names| {
        names.iter().any(|n| discover::config_ext(n, discover::Engine::OpenTofu).is_some())
    });
    all
}

/// Another source, narrowed to some module directories: the pre-commit hook loads only
/// the modules a change touches.
pub struct Scoped<'a> {
    pub inner: &'a dyn Source,
    pub dirs: &'a BTreeSet<String>,
}

impl Source for Scoped<'_> {
    fn modules(&self) -> Result<BTreeMap<String, Vec<String>>, SourceError> {
        self.inner.modules_in(self.dirs)
    }

    fn read(&self, path: &str) -> Result<Vec<u8>, SourceError> {
        self.inner.read(path)
    }

    fn blob_id(&self, path: &str) -> Option<String> {
        self.inner.blob_id(path)
    }
}

/// Configuration files that differ between two sources (added, deleted or modified),
/// compared by blob id when both know it, else by content.
pub fn changed(a: &dyn Source, b: &dyn Source) -> Result<BTreeSet<String>, SourceError> {
    let files = |s: &dyn Source| -> Result<BTreeSet<String>, SourceError> {
        Ok(s.modules()?
            .into_iter()
            .flat_map(|(dir, names)| names.into_iter().map(move |n| join(&dir, &n)))
            .collect())
    };
    let (fa, fb) = (files(a)?, files(b)?);
    let mut out: BTreeSet<String> = fa.symmetric_difference(&fb).cloned().collect();
    for path in fa.intersection(&fb) {
        let same = match (a.blob_id(path), b.blob_id(path)) {
            (Some(x), Some(y)) => x == y,
            _ => a.read(path)? == b.read(path)?,
        };
        if !same {
            out.insert(path.clone());
        }
    }
    Ok(out)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changed_sees_added_deleted_and_modified_files() {
        let a = MemorySource::new()
            .with("m/main.tf", "a")
            .with("m/override.tf", "b")
            .with("n/main.tf", "c")
            .with("README.md", "x");
        let b = MemorySource::new()
            .with("m/main.tf", "a")
            .with("n/main.tf", "c2")
            .with("o/main.tofu", "d")
            .with("README.md", "y");
        let got: Vec<String> = changed(&a, &b).unwrap().into_iter().collect();
        assert_eq!(got, ["m/override.tf", "n/main.tf", "o/main.tofu"]);
    }

    #[test]
    fn scoped_keeps_only_the_named_modules() {
        let src = MemorySource::new().with("m/main.tf", "a").with("n/main.tf", "b");
        let dirs: BTreeSet<String> = ["n".to_string()].into();
        let got = Scoped { inner: &src, dirs: &dirs }.modules().unwrap();
        assert_eq!(got.keys().collect::<Vec<_>>(), ["n"]);
    }
}
