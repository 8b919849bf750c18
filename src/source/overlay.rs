//! Another source with some files replaced by text held in memory: an editor's unsaved
//! buffers over the disk, so the language server judges what the user sees.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::{Error, POLICY_FILE, ParentPolicy, Source, join, split};
use crate::terraform::Local;
use crate::terraform::discover::is_listed;

/// `inner`, with `buffers` (source paths) read first. A buffer whose file does not exist
/// yet is listed too: a new file being written belongs to its module.
pub(crate) struct Overlay {
    pub inner: Box<dyn Source>,
    pub buffers: HashMap<String, String>,
}

impl Overlay {
    fn add_buffers(
        &self,
        mut listing: BTreeMap<String, Vec<String>>,
        dirs: Option<&BTreeSet<String>>,
    ) -> BTreeMap<String, Vec<String>> {
        for path in self.buffers.keys() {
            let (dir, name) = split(path);
            if !is_listed(name) || dirs.is_some_and(|d| !d.contains(dir)) {
                continue;
            }
            let names = listing.entry(dir.to_string()).or_default();
            if !names.iter().any(|n| n == name) {
                names.push(name.to_string());
                names.sort();
            }
        }
        // A buffer alone (a test file in `tests/`, a variables file) makes no module.
        super::only_modules(listing)
    }
}

impl Source for Overlay {
    fn modules(&self) -> Result<BTreeMap<String, Vec<String>>, Error> {
        Ok(self.add_buffers(self.inner.modules()?, None))
    }

    fn modules_in(&self, dirs: &BTreeSet<String>) -> Result<BTreeMap<String, Vec<String>>, Error> {
        Ok(self.add_buffers(self.inner.modules_in(dirs)?, Some(dirs)))
    }

    fn test_dir_files(&self, dir: &str) -> Result<Vec<String>, Error> {
        let mut files = self.inner.test_dir_files(dir)?;
        let tests = join(dir, crate::terraform::discover::TEST_DIR);
        let mut buffered: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for (d, name) in self.buffers.keys().map(|p| split(p)).filter(|(d, _)| *d == tests) {
            buffered.entry(d.to_string()).or_default().push(name.to_string());
        }
        files.extend(super::test_dir_files(&buffered, dir));
        files.sort();
        files.dedup();
        Ok(files)
    }

    fn read(&self, path: &str) -> Result<Vec<u8>, Error> {
        match self.buffers.get(path) {
            Some(text) => Ok(text.clone().into_bytes()),
            None => self.inner.read(path),
        }
    }

    fn pin_file(&self, path: &str) -> Option<Vec<u8>> {
        match self.buffers.get(path) {
            Some(text) => Some(text.clone().into_bytes()),
            None => self.inner.pin_file(path),
        }
    }

    fn policy_file(&self, dir: &str) -> Result<Option<String>, Error> {
        match self.buffers.get(&join(dir, POLICY_FILE)) {
            Some(text) => Ok(Some(text.clone())),
            None => self.inner.policy_file(dir),
        }
    }

    super::by_inner!(policy_paths, parent_policy, local);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::MemorySource;

    #[test]
    fn buffers_come_before_the_inner_source_and_new_files_are_listed() {
        let disk = MemorySource::new().with("m/main.tf", "disk").with("n/main.tf", "n");
        let buffers: HashMap<String, String> = [
            ("m/main.tf".to_string(), "buffer".to_string()),
            ("m/override.tf".to_string(), "new".to_string()),
            ("m/notes.md".to_string(), "not configuration".to_string()),
            ("m/main.tf.override".to_string(), "misnamed".to_string()),
            ("m/.override-guard.toml".to_string(), "[rules]".to_string()),
        ]
        .into();
        let o = Overlay { inner: Box::new(disk), buffers };
        assert_eq!(o.read("m/main.tf").unwrap(), b"buffer");
        assert_eq!(o.read("n/main.tf").unwrap(), b"n");
        let dirs: BTreeSet<String> = ["m".to_string()].into();
        let listed = o.modules_in(&dirs).unwrap();
        assert_eq!(listed.keys().collect::<Vec<_>>(), ["m"]);
        // A name that looks like an override file is listed for `misnamed-override`.
        assert_eq!(listed["m"], ["main.tf", "main.tf.override", "override.tf"]);
        assert_eq!(o.policy_file("m").unwrap().as_deref(), Some("[rules]"));
        assert_eq!(o.policy_file("n").unwrap(), None);
    }
}
