//! An in-memory tree, for tests and for content that does not live on disk.

use std::collections::{BTreeMap, BTreeSet};

use super::{Error, POLICY_FILE, Source, join, split};
use crate::terraform::discover;

/// `path -> bytes`.
#[derive(Clone, Debug, Default)]
pub struct MemorySource {
    pub files: BTreeMap<String, Vec<u8>>,
}

impl MemorySource {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a file (builder style).
    pub fn with(mut self, path: &str, text: impl Into<Vec<u8>>) -> Self {
        self.files.insert(path.to_string(), text.into());
        self
    }
}

impl Source for MemorySource {
    fn modules(&self) -> Result<BTreeMap<String, Vec<String>>, Error> {
        let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for path in self.files.keys() {
            let (dir, name) = split(path);
            if discover::is_listed(name) {
                out.entry(dir.to_string()).or_default().push(name.to_string());
            }
        }
        Ok(super::only_modules(out))
    }

    fn test_dir_files(&self, dir: &str) -> Result<Vec<String>, Error> {
        let mut all: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let tests = join(dir, discover::TEST_DIR);
        for path in self.files.keys() {
            let (d, name) = split(path);
            if d == tests {
                all.entry(d.to_string()).or_default().push(name.to_string());
            }
        }
        Ok(super::test_dir_files(&all, dir))
    }

    fn read(&self, path: &str) -> Result<Vec<u8>, Error> {
        self.files.get(path).cloned().ok_or_else(|| Error::NoSuchFile { path: path.to_string() })
    }

    fn policy_paths(&self) -> Result<BTreeSet<String>, Error> {
        Ok(self.files.keys().filter(|p| split(p).1 == POLICY_FILE).cloned().collect())
    }

    fn policy_file(&self, dir: &str) -> Result<Option<String>, Error> {
        let path = join(dir, POLICY_FILE);
        match self.files.get(&path) {
            None => Ok(None),
            Some(bytes) => String::from_utf8(bytes.clone())
                .map(Some)
                .map_err(|e| Error::NotUtf8 { path, source: e.utf8_error() }),
        }
    }
}
