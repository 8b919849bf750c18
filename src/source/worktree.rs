//! Files on disk: one directory (for `show`) or a whole tree (for `audit`), honouring
//! `.gitignore` and skipping `.terraform/` working directories.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::{Source, SourceError, join, split};
use crate::terraform::discover;

/// A directory on disk, read recursively or not.
#[derive(Clone, Debug)]
pub struct WorktreeSource {
    root: PathBuf,
    recursive: bool,
}

impl WorktreeSource {
    /// Every module below `root`.
    pub fn tree(root: impl Into<PathBuf>) -> Self {
        WorktreeSource { root: root.into(), recursive: true }
    }

    /// Only the files directly in `root` (one module).
    pub fn module(root: impl Into<PathBuf>) -> Self {
        WorktreeSource { root: root.into(), recursive: false }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    fn err(&self, path: &str, e: impl std::fmt::Display) -> SourceError {
        let shown =
            if path.is_empty() { self.root.display().to_string() } else { path.to_string() };
        SourceError { path: shown, message: e.to_string() }
    }
}

impl Source for WorktreeSource {
    fn modules(&self) -> Result<BTreeMap<String, Vec<String>>, SourceError> {
        let meta = std::fs::metadata(&self.root).map_err(|e| self.err("", e))?;
        if !meta.is_dir() {
            return Err(self.err("", "not a directory"));
        }
        let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let walker = ignore::WalkBuilder::new(&self.root)
            .hidden(false)
            .git_ignore(true)
            .git_exclude(true)
            .require_git(false)
            .max_depth(if self.recursive { None } else { Some(1) })
            .filter_entry(|e| {
                !(e.file_type().is_some_and(|t| t.is_dir())
                    && (e.file_name() == ".terraform" || e.file_name() == ".git"))
            })
            .build();
        for entry in walker {
            let entry = entry.map_err(|e| self.err("", e))?;
            if !entry.file_type().is_some_and(|t| t.is_file() || t.is_symlink()) {
                continue;
            }
            let Ok(rel) = entry.path().strip_prefix(&self.root) else {
                continue;
            };
            let Some(rel) = rel.to_str() else { continue };
            let rel = rel.replace(std::path::MAIN_SEPARATOR, "/");
            let (dir, name) = split(&rel);
            if discover::is_module_file(name) {
                out.entry(dir.to_string()).or_default().push(name.to_string());
            }
        }
        Ok(super::only_modules(out))
    }

    fn read(&self, path: &str) -> Result<Vec<u8>, SourceError> {
        let full = self.root.join(path);
        let meta = std::fs::metadata(&full).map_err(|e| self.err(path, e))?;
        if meta.is_dir() {
            return Err(self.err(path, "is a directory"));
        }
        std::fs::read(&full).map_err(|e| self.err(&join("", path), e))
    }
}
