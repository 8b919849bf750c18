//! Where file contents come from. Only sources (and the app wiring) touch the filesystem
//! or git; everything after them works on the bytes they return.

pub(crate) mod cached;
pub(crate) mod disk;
mod file_list;
pub(crate) mod git;
mod git_entries;
mod index_file;
pub(crate) mod memory;
pub(crate) mod overlay;
pub(crate) mod workspace;
pub(crate) mod worktree;

pub(crate) use cached::{Cached, FileCache};
pub use git::{Git, GitSource};
pub use memory::MemorySource;
pub(crate) use overlay::Overlay;
pub use worktree::WorktreeSource;

use std::collections::{BTreeMap, BTreeSet};

use crate::error::Error;
use crate::terraform::Local;

/// Does git's index hold this configuration file (a path of the source)? The files it does
/// not hold exist only in this checkout. A function, so that a large index is searched in
/// place rather than copied into a set.
pub(crate) type Tracked = std::sync::Arc<dyn Fn(&str) -> bool + Send + Sync>;

/// The policy file's name: the nearest one at or above a module governs it.
pub(crate) const POLICY_FILE: &str = ".override-guard.toml";

/// A policy file above a source's root (a directory outside any repository): its path
/// relative to the root (`../.override-guard.toml`), its text, and the path from its
/// directory down to the root, so module paths can be made relative to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParentPolicy {
    pub path: String,
    pub text: String,
    pub down: String,
}

/// The [`Source`] methods a source that wraps another (`self.inner`) hands on unchanged,
/// named one by one (`by_inner!(blob_id, local)`): each signature is written here once.
macro_rules! by_inner {
    ($($method:ident),+ $(,)?) => { $($crate::source::by_inner!(@ $method);)+ };
    (@ modules) => {
        fn modules(&self) -> Result<BTreeMap<String, Vec<String>>, Error> { self.inner.modules() }
    };
    (@ modules_in) => {
        fn modules_in(&self, dirs: &BTreeSet<String>) -> Result<BTreeMap<String, Vec<String>>, Error> {
            self.inner.modules_in(dirs)
        }
    };
    (@ test_dir_files) => {
        fn test_dir_files(&self, dir: &str) -> Result<Vec<String>, Error> {
            self.inner.test_dir_files(dir)
        }
    };
    (@ read) => {
        fn read(&self, path: &str) -> Result<Vec<u8>, Error> { self.inner.read(path) }
    };
    (@ blob_id) => {
        fn blob_id(&self, path: &str) -> Option<String> { self.inner.blob_id(path) }
    };
    (@ pin_file) => {
        fn pin_file(&self, path: &str) -> Option<Vec<u8>> { self.inner.pin_file(path) }
    };
    (@ policy_file) => {
        fn policy_file(&self, dir: &str) -> Result<Option<String>, Error> {
            self.inner.policy_file(dir)
        }
    };
    (@ policy_paths) => {
        fn policy_paths(&self) -> Result<BTreeSet<String>, Error> { self.inner.policy_paths() }
    };
    (@ parent_policy) => {
        fn parent_policy(&self) -> Result<Option<ParentPolicy>, Error> {
            self.inner.parent_policy()
        }
    };
    (@ local) => {
        fn local(&self, path: &str) -> Option<Local> { self.inner.local(path) }
    };
}
pub(crate) use by_inner;

/// A tree of files: paths are `/`-separated and relative to the source's root.
pub trait Source: Sync {
    /// Every configuration file (any engine's extensions, ignored names included so
    /// discovery can report them, and names that look like override files but are not:
    /// see `terraform::discover::is_listed`), grouped by directory: `dir -> [file names]`.
    /// The root directory is `""`.
    fn modules(&self) -> Result<BTreeMap<String, Vec<String>>, Error>;

    /// [`Source::modules`], only for the directories in `dirs`. Sources that can answer
    /// without listing everything do (the pre-commit hook touches a few modules of many).
    fn modules_in(&self, dirs: &BTreeSet<String>) -> Result<BTreeMap<String, Vec<String>>, Error> {
        let mut all = self.modules()?;
        all.retain(|dir, _| dirs.contains(dir));
        Ok(all)
    }

    /// The test files of the module in `dir` that its test directory holds (`tests/`,
    /// where `terraform test` looks besides the module's own directory), as paths relative
    /// to `dir` (`tests/a.tftest.hcl`). That directory is no module of its own, so
    /// [`Source::modules`] leaves it out. None for a source that cannot tell.
    fn test_dir_files(&self, _dir: &str) -> Result<Vec<String>, Error> {
        Ok(Vec::new())
    }

    /// The bytes of one file.
    fn read(&self, path: &str) -> Result<Vec<u8>, Error>;

    /// A content id (git's blob id) when the source knows it without reading: two files
    /// with the same id have the same bytes.
    fn blob_id(&self, _path: &str) -> Option<String> {
        None
    }

    /// The bytes of a version manager's pin file (`.terraform-version`, `mise.toml`, …;
    /// see [`crate::terraform::pins`]) at `path`, `None` where this state has none. Asked
    /// for every directory above every module: a source that listed a directory answers
    /// from its listing instead of asking the disk again.
    fn pin_file(&self, path: &str) -> Option<Vec<u8>> {
        self.read(path).ok()
    }

    /// The text of the policy file directly in `dir`, if there is one. Every source
    /// answers from its own state (the worktree, the index, a revision), so a module is
    /// judged by the policy of the same state.
    fn policy_file(&self, _dir: &str) -> Result<Option<String>, Error> {
        Ok(None)
    }

    /// Every policy file the source knows of (for a worktree, those in the directories
    /// it lists), so two states can be compared for a changed policy.
    fn policy_paths(&self) -> Result<BTreeSet<String>, Error> {
        Ok(BTreeSet::new())
    }

    /// The nearest policy file above the root, where the lookup does not stop at the root
    /// (a directory outside any repository).
    fn parent_policy(&self) -> Result<Option<ParentPolicy>, Error> {
        Ok(None)
    }

    /// Whether a configuration file exists only here: git does not track it.
    fn local(&self, _path: &str) -> Option<Local> {
        None
    }
}

/// The test files a listing (before [`only_modules`]) holds in the test directory of the
/// module in `dir`, as paths relative to `dir`.
pub(crate) fn test_dir_files(all: &BTreeMap<String, Vec<String>>, dir: &str) -> Vec<String> {
    use crate::terraform::discover;
    let tests = join(dir, discover::TEST_DIR);
    let names = all.get(&tests).into_iter().flatten();
    let mut out: Vec<String> =
        names.filter(|n| discover::is_test_file(n)).map(|n| join(discover::TEST_DIR, n)).collect();
    out.sort();
    out.dedup();
    out
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
pub(crate) struct Scoped<'a> {
    pub inner: &'a dyn Source,
    pub dirs: &'a BTreeSet<String>,
}

impl Source for Scoped<'_> {
    fn modules(&self) -> Result<BTreeMap<String, Vec<String>>, Error> {
        self.inner.modules_in(self.dirs)
    }

    by_inner!(
        test_dir_files,
        read,
        blob_id,
        policy_file,
        pin_file,
        parent_policy,
        policy_paths,
        local
    );
}

/// Configuration files that differ between two sources (added, deleted or modified),
/// compared by blob id when both know it, else by content.
pub fn changed(a: &dyn Source, b: &dyn Source) -> Result<BTreeSet<String>, Error> {
    let files = |s: &dyn Source| -> Result<BTreeSet<String>, Error> {
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
    // A version file in a module's directory or above pins its release: a changed one
    // changes the module (the worktree has no list of them: each is asked for).
    let mut dirs: BTreeSet<&str> = BTreeSet::new();
    for p in fa.iter().chain(&fb) {
        let mut d = split(p).0;
        while dirs.insert(d) && !d.is_empty() {
            d = split(d).0;
        }
    }
    for d in dirs {
        for name in crate::terraform::pins::pin_file_names() {
            let p = join(d, name);
            if a.pin_file(&p) != b.pin_file(&p) {
                out.insert(p);
            }
        }
    }
    Ok(out)
}

/// Policy files whose text differs between two sources (added, deleted or modified).
pub(crate) fn changed_policies(a: &dyn Source, b: &dyn Source) -> Result<BTreeSet<String>, Error> {
    let mut out = BTreeSet::new();
    for path in a.policy_paths()?.union(&b.policy_paths()?) {
        let dir = split(path).0;
        if a.policy_file(dir)? != b.policy_file(dir)? {
            out.insert(path.clone());
        }
    }
    Ok(out)
}

pub use crate::path::{join, split};

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

    /// Names that look like override files are listed beside the module's files (for
    /// `misnamed-override`); alone, they make no module.
    #[test]
    fn misnamed_overrides_are_listed_with_their_module() {
        let src = MemorySource::new()
            .with("m/main.tf", "a")
            .with("m/main_override.tf.txt", "b")
            .with("m/x_override.tfvars", "c")
            .with("m/notes.txt", "d")
            .with("m/override.tf.bak", "e")
            .with("only/override.tftest.hcl", "f");
        let got = src.modules().unwrap();
        assert_eq!(got.keys().collect::<Vec<_>>(), ["m"]);
        assert_eq!(got["m"], ["main.tf", "main_override.tf.txt", "x_override.tfvars"]);
    }

    /// Test and query files are listed with their module; a `tests/` directory of test
    /// files is no module, its files are its parent's (an editor's new buffer too).
    #[test]
    fn test_files_belong_to_their_module() {
        let src = MemorySource::new()
            .with("m/main.tf", "a")
            .with("m/q.tfquery.hcl", "b")
            .with("m/tests/a.tftest.hcl", "c")
            .with("m/tests/notes.md", "d")
            .with("tests/root.tftest.hcl", "e")
            .with("main.tf", "f");
        let got = src.modules().unwrap();
        assert_eq!(got.keys().collect::<Vec<_>>(), ["", "m"]);
        assert_eq!(got["m"], ["main.tf", "q.tfquery.hcl"]);
        assert_eq!(src.test_dir_files("m").unwrap(), ["tests/a.tftest.hcl"]);
        assert_eq!(src.test_dir_files("").unwrap(), ["tests/root.tftest.hcl"]);
        let buffers: std::collections::HashMap<String, String> =
            [("m/tests/new.tftest.hcl".to_string(), "g".to_string())].into();
        let o = Overlay { inner: Box::new(src), buffers };
        assert_eq!(o.modules().unwrap().keys().collect::<Vec<_>>(), ["", "m"]);
        assert_eq!(o.test_dir_files("m").unwrap(), ["tests/a.tftest.hcl", "tests/new.tftest.hcl"]);
    }

    #[test]
    fn scoped_keeps_only_the_named_modules() {
        let src = MemorySource::new().with("m/main.tf", "a").with("n/main.tf", "b");
        let dirs: BTreeSet<String> = ["n".to_string()].into();
        let got = Scoped { inner: &src, dirs: &dirs }.modules().unwrap();
        assert_eq!(got.keys().collect::<Vec<_>>(), ["n"]);
    }
}
