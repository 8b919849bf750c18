//! A worktree's file contents kept between the runs of a long-lived process (the language
//! server re-judges a module at every keystroke): every read asks the disk for the file's
//! metadata first, and a file whose length, modification or change time, or inode differs
//! from what was cached is read again. Nothing served is staler than that check.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use super::{Error, ParentPolicy, Source, WorktreeSource};
use crate::terraform::Local;

/// Contents by full path, with the metadata they were read under.
#[derive(Default)]
pub(crate) struct FileCache {
    files: Mutex<HashMap<PathBuf, (Stamp, Vec<u8>)>>,
}

impl FileCache {
    /// How many files are held.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.files.lock().map_or(0, |f| f.len())
    }

    /// Forgets the files below `dir` (a module no longer shown).
    pub(crate) fn forget(&self, dir: &Path) {
        if let Ok(mut f) = self.files.lock() {
            f.retain(|p, _| !p.starts_with(dir));
        }
    }
}

/// What tells a file's contents changed without reading them.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Stamp {
    len: u64,
    modified: Option<SystemTime>,
    #[cfg(unix)]
    unix: (u64, u64, i64, i64),
}

impl Stamp {
    /// The stamp of a regular file; `None` for anything else (a link is read through the
    /// worktree every time, which checks where it leads).
    fn of(full: &Path) -> Option<Stamp> {
        let m = std::fs::symlink_metadata(full).ok()?;
        if !m.file_type().is_file() {
            return None;
        }
        #[cfg(unix)]
        let unix = {
            use std::os::unix::fs::MetadataExt;
            (m.dev(), m.ino(), m.ctime(), m.ctime_nsec())
        };
        Some(Stamp {
            len: m.len(),
            modified: m.modified().ok(),
            #[cfg(unix)]
            unix,
        })
    }

    /// The later of the modification and change times: the last write, however its
    /// modification time was set afterwards.
    fn written(&self) -> Option<SystemTime> {
        #[cfg(unix)]
        let changed = {
            let (_, _, secs, nanos) = self.unix;
            u64::try_from(secs).ok().and_then(|s| {
                let nanos = u32::try_from(nanos).ok()?;
                SystemTime::UNIX_EPOCH.checked_add(Duration::new(s, nanos))
            })
        };
        #[cfg(not(unix))]
        let changed = None;
        changed.max(self.modified)
    }

    /// Written so recently that another write within the file system's timestamp
    /// granularity could leave the stamp unchanged ("racily clean", as git says): such a
    /// file is not trusted from the cache. Whole-second times mean a coarse file system.
    fn recent(&self) -> bool {
        let Some(at) = self.written() else { return true };
        let coarse = at.duration_since(SystemTime::UNIX_EPOCH).is_ok_and(|d| d.subsec_nanos() == 0);
        let window = if coarse { Duration::from_secs(2) } else { Duration::from_millis(50) };
        // A time in the future (a clock set back) is recent too.
        SystemTime::now().duration_since(at).map_or(true, |age| age < window)
    }
}

/// A worktree source whose reads go through a [`FileCache`].
pub(crate) struct Cached {
    pub inner: WorktreeSource,
    pub cache: std::sync::Arc<FileCache>,
}

impl Source for Cached {
    fn read(&self, path: &str) -> Result<Vec<u8>, Error> {
        let full = self.inner.root().join(path);
        let Some(stamp) = Stamp::of(&full) else {
            if let Ok(mut f) = self.cache.files.lock() {
                f.remove(&full);
            }
            return self.inner.read(path);
        };
        if let Ok(f) = self.cache.files.lock()
            && let Some((at, bytes)) = f.get(&full)
            && *at == stamp
            && !stamp.recent()
        {
            return Ok(bytes.clone());
        }
        let bytes = self.inner.read(path)?;
        // Kept only when nothing changed while it was read.
        if Stamp::of(&full).as_ref() == Some(&stamp)
            && let Ok(mut f) = self.cache.files.lock()
        {
            f.insert(full, (stamp, bytes.clone()));
        }
        Ok(bytes)
    }

    super::by_inner!(
        modules,
        modules_in,
        test_dir_files,
        blob_id,
        policy_file,
        pin_file,
        policy_paths,
        parent_policy,
        local
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set_modified(path: &Path, at: SystemTime) {
        let f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
        f.set_modified(at).unwrap();
    }

    #[test]
    fn a_file_changed_behind_the_cache_is_read_again() {
        let tmp = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(tmp.path()).unwrap();
        let file = root.join("main.tf");
        let old = SystemTime::now() - Duration::from_secs(60);
        std::fs::write(&file, "aaaa").unwrap();
        set_modified(&file, old);
        let cache = std::sync::Arc::new(FileCache::default());
        let cached = Cached { inner: WorktreeSource::module(root.clone()), cache: cache.clone() };
        assert_eq!(cached.read("main.tf").unwrap(), b"aaaa");
        assert_eq!(cache.len(), 1);
        assert_eq!(cached.read("main.tf").unwrap(), b"aaaa");

        // Same length, a new modification time.
        std::fs::write(&file, "bbbb").unwrap();
        set_modified(&file, old + Duration::from_secs(1));
        assert_eq!(cached.read("main.tf").unwrap(), b"bbbb");
        // Same length and the same modification time as cached: the change time differs.
        std::fs::write(&file, "cccc").unwrap();
        set_modified(&file, old + Duration::from_secs(1));
        assert_eq!(cached.read("main.tf").unwrap(), b"cccc");

        // A file just written is not trusted from the cache.
        std::fs::write(&file, "dddd").unwrap();
        assert_eq!(cached.read("main.tf").unwrap(), b"dddd");
        assert_eq!(cached.read("main.tf").unwrap(), b"dddd");

        // Deleted: an error, as without the cache, and forgotten.
        std::fs::remove_file(&file).unwrap();
        assert!(cached.read("main.tf").is_err());
        assert_eq!(cache.len(), 0);
    }

    /// A module loaded through the cache (contents and parses kept) is the module a fresh
    /// load gives, to the last byte of its debug form, after edits, new and deleted files.
    #[test]
    fn a_cached_load_is_a_fresh_load() {
        let tmp = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(tmp.path()).unwrap();
        let main = "resource \"a\" \"b\" {\n  x = 1\n  tags = { n = \"b\" }\n}\n";
        let over = "resource \"a\" \"b\" {\n  x = 2\n}\n";
        std::fs::write(root.join("main.tf"), main).unwrap();
        std::fs::write(root.join("override.tf"), over).unwrap();
        std::fs::write(root.join("other.tf"), "locals {\n  y = 3\n}\n").unwrap();
        let cache = std::sync::Arc::new(FileCache::default());
        let parses = crate::merge::Parses::default();
        let load = |cached: bool| {
            let through =
                Cached { inner: WorktreeSource::module(root.clone()), cache: cache.clone() };
            let names = through.modules().unwrap().remove("").unwrap();
            let m = if cached {
                crate::merge::load_reusing("", &names, None, |p| through.read(p), Some(&parses))
            } else {
                crate::merge::load("", &names, None, |p| through.inner.read(p))
            };
            format!("{:?}", m.unwrap())
        };
        let same = || {
            let first = load(true);
            std::thread::sleep(Duration::from_millis(60));
            // Served from the cache now that the files are old enough.
            assert_eq!(load(true), load(false));
            assert_eq!(first, load(false));
        };
        same();
        std::fs::write(root.join("override.tf"), "resource \"a\" \"b\" {\n  x = 3\n}\n").unwrap();
        same();
        std::fs::write(root.join("more_override.tf"), "locals {\n  y = 4\n}\n").unwrap();
        same();
        std::fs::remove_file(root.join("other.tf")).unwrap();
        same();
        std::fs::write(root.join("main.tf"), "resource \"a\" \"b\" {\n  x = \n").unwrap();
        same();
    }

    #[cfg(unix)]
    #[test]
    fn links_are_not_cached() {
        let tmp = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(tmp.path()).unwrap();
        std::fs::write(root.join("real.tf"), "x").unwrap();
        std::os::unix::fs::symlink(root.join("real.tf"), root.join("link.tf")).unwrap();
        let cache = std::sync::Arc::new(FileCache::default());
        let cached = Cached { inner: WorktreeSource::module(root.clone()), cache: cache.clone() };
        assert_eq!(cached.read("link.tf").unwrap(), b"x");
        assert_eq!(cache.len(), 0);
    }
}
