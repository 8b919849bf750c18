//! Files on disk: one directory (for `show`) or a whole tree (for `audit`), honouring
//! `.gitignore` and skipping `.terraform/` working directories. Nothing outside the
//! repository is read through a symbolic link (see [`boundary`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::{Source, SourceError, join, split};
use crate::terraform::discover;

/// Why a configuration file whose path is not UTF-8 stops the run.
pub const NOT_UTF8: &str = "the path is not valid UTF-8: override-guard cannot judge the module Terraform would load; rename it";

/// A directory on disk, read recursively or not.
#[derive(Clone, Debug)]
pub struct WorktreeSource {
    root: PathBuf,
    recursive: bool,
    /// Where reads must stay (canonical): the enclosing repository, else `root` itself.
    boundary: Option<PathBuf>,
    /// Files skipped while listing (links out of the repository), as (path, why).
    notes: std::sync::Arc<Mutex<Vec<(String, String)>>>,
}

impl WorktreeSource {
    /// Every module below `root`.
    pub fn tree(root: impl Into<PathBuf>) -> Self {
        Self::new(root.into(), true)
    }

    /// Only the files directly in `root` (one module).
    pub fn module(root: impl Into<PathBuf>) -> Self {
        Self::new(root.into(), false)
    }

    fn new(root: PathBuf, recursive: bool) -> Self {
        let boundary = boundary(&root);
        WorktreeSource { root, recursive, boundary, notes: Default::default() }
    }

    /// What the listing skipped, as (path, why), for `note:` lines.
    pub fn notes(&self) -> Vec<(String, String)> {
        self.notes.lock().map(|n| n.clone()).unwrap_or_default()
    }

    /// Why a file (relative to the root) is not to be read, when it is a symbolic link
    /// leading out of the repository.
    pub fn outside(&self, path: &str) -> Option<&'static str> {
        let full = self.root.join(path);
        let link = std::fs::symlink_metadata(&full).ok()?;
        if link.is_symlink() { self.inside(&full).err() } else { None }
    }

    /// Refuses a path that resolves outside the boundary (a link out of the repository).
    fn inside(&self, full: &Path) -> Result<(), &'static str> {
        let Some(b) = &self.boundary else { return Ok(()) };
        match std::fs::canonicalize(full) {
            Ok(real) if real.starts_with(b) => Ok(()),
            Ok(_) => Err("symbolic link leading out of the repository; not read"),
            // A dangling link: reading it reports the error itself.
            Err(_) => Ok(()),
        }
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
        self.inside(&self.root).map_err(|_| {
            self.err("", "a symbolic link to a directory outside the repository; not read")
        })?;
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
            let Some(rel) = rel.to_str() else {
                // Terraform reads such a file; skipping it would judge a module without it.
                let lossy = rel.to_string_lossy().replace(std::path::MAIN_SEPARATOR, "/");
                if discover::is_module_file(split(&lossy).1) {
                    return Err(self.err(&lossy, NOT_UTF8));
                }
                continue;
            };
            let rel = rel.replace(std::path::MAIN_SEPARATOR, "/");
            let (dir, name) = split(&rel);
            if !discover::is_module_file(name) {
                continue;
            }
            if entry.path_is_symlink()
                && let Err(why) = self.inside(entry.path())
            {
                if let Ok(mut n) = self.notes.lock() {
                    n.push((rel.clone(), why.to_string()));
                }
                continue;
            }
            out.entry(dir.to_string()).or_default().push(name.to_string());
        }
        Ok(super::only_modules(out))
    }

    fn read(&self, path: &str) -> Result<Vec<u8>, SourceError> {
        let full = self.root.join(path);
        let link = std::fs::symlink_metadata(&full).map_err(|e| self.err(path, e))?;
        if link.is_symlink() {
            self.inside(&full).map_err(|why| self.err(path, why))?;
        }
        let meta = std::fs::metadata(&full).map_err(|e| self.err(path, e))?;
        if meta.is_dir() {
            return Err(self.err(path, "is a directory"));
        }
        if !meta.is_file() {
            // A FIFO or a device would block or never end.
            return Err(self.err(path, "not a regular file; not read"));
        }
        std::fs::read(&full).map_err(|e| self.err(&join("", path), e))
    }
}

/// The directory reads must stay in: the repository `root` lies in (the nearest ancestor,
/// by the path as written, holding `.git`), else `root` itself; canonical. A repository's
/// content may link anywhere, and what it links to out of the repository is not its to
/// show; a directory outside any repository is what the user named.
pub fn boundary(root: &Path) -> Option<PathBuf> {
    let abs = lexical_absolute(root)?;
    let top = abs.ancestors().find(|d| d.join(".git").exists()).unwrap_or(&abs);
    std::fs::canonicalize(top).ok()
}

/// `p` made absolute (against the working directory) with `.` and `..` taken lexically,
/// without resolving links: the path as the user wrote it, so its ancestors are its own.
pub fn lexical_absolute(p: &Path) -> Option<PathBuf> {
    let mut abs = PathBuf::new();
    for c in std::path::absolute(p).ok()?.components() {
        match c {
            std::path::Component::ParentDir => {
                abs.pop();
            }
            std::path::Component::CurDir => {}
            c => abs.push(c),
        }
    }
    Some(abs)
}
