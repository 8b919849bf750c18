//! The configuration files of one git state, sorted as git sorts paths (byte-wise), their
//! paths kept in one buffer.
//!
//! The index of a large monorepo lists tens of thousands of configuration files, and the
//! pre-commit hook reads it at every commit: a map of owned path strings cost more to build
//! than git's own reading of the index. One buffer and one sorted list cost two allocations,
//! and every lookup is a binary search.

use std::ops::Range;

/// One configuration file: its blob id, and its bytes once read.
pub(super) struct FileEntry {
    path: Range<u32>,
    /// The length of the path's directory part: the loops over every file ask for it.
    dir_len: u32,
    pub id: gix::ObjectId,
    pub data: Option<Vec<u8>>,
}

impl FileEntry {
    /// The directory part of this entry's `path` (as [`crate::path::split`] gives it).
    pub(super) fn dir<'a>(&self, path: &'a str) -> &'a str {
        &path[..(self.dir_len as usize).min(path.len())]
    }
}

/// Configuration file paths, sorted, each with its [`FileEntry`].
#[derive(Default)]
pub(super) struct FileList {
    text: String,
    entries: Vec<FileEntry>,
}

impl FileList {
    /// An empty list with room for about `n` files.
    pub(super) fn with_capacity(n: usize) -> FileList {
        FileList { text: String::with_capacity(n * 48), entries: Vec::with_capacity(n) }
    }

    /// Appends a file. Index and tree entries arrive sorted; [`FileList::finish`] sorts
    /// them when they were not (a sparse index's expanded directories come last).
    /// `name_len`: the length of the path's last component, which the caller has found.
    pub(super) fn push(&mut self, path: &str, name_len: usize, id: gix::ObjectId) {
        let entry = self.entry(path, name_len, id);
        self.entries.push(entry);
    }

    fn entry(&mut self, path: &str, name_len: usize, id: gix::ObjectId) -> FileEntry {
        let start = self.text.len();
        self.text.push_str(path);
        // No `/` before the name: the directory is the root.
        let dir_len = span(0, path.len().saturating_sub(name_len + 1)).end;
        FileEntry { path: span(start, self.text.len()), dir_len, id, data: None }
    }

    /// Sorts by path when needed; of two entries for one path the last pushed is kept, as
    /// collecting into a map would keep it.
    pub(super) fn finish(mut self) -> FileList {
        let text = &self.text;
        let path = |e: &FileEntry| &text[e.path.start as usize..e.path.end as usize];
        if !self.entries.is_sorted_by(|a, b| path(a) < path(b)) {
            self.entries.sort_by(|a, b| path(a).cmp(path(b)));
            // `dedup_by` keeps the first of equal neighbours: move the last one there.
            self.entries.dedup_by(|later, earlier| {
                let same = path(later) == path(earlier);
                if same {
                    std::mem::swap(later, earlier);
                }
                same
            });
        }
        self
    }

    fn path_of(&self, e: &FileEntry) -> &str {
        &self.text[e.path.start as usize..e.path.end as usize]
    }

    fn position(&self, path: &str) -> Result<usize, usize> {
        self.entries.binary_search_by(|e| self.path_of(e).cmp(path))
    }

    pub(super) fn get(&self, path: &str) -> Option<&FileEntry> {
        self.position(path).ok().map(|i| &self.entries[i])
    }

    pub(super) fn get_mut(&mut self, path: &str) -> Option<&mut FileEntry> {
        self.position(path).ok().map(|i| &mut self.entries[i])
    }

    pub(super) fn contains(&self, path: &str) -> bool {
        self.position(path).is_ok()
    }

    /// Adds a file that is not there yet (a file already listed keeps its entry).
    pub(super) fn insert_missing(&mut self, path: &str, id: gix::ObjectId) {
        if let Err(at) = self.position(path) {
            let entry = self.entry(path, crate::path::split(path).1.len(), id);
            self.entries.insert(at, entry);
        }
    }

    /// Every file, in order.
    pub(super) fn iter(&self) -> impl Iterator<Item = (&str, &FileEntry)> {
        self.entries.iter().map(|e| (self.path_of(e), e))
    }

    /// Every file, in order, with its entry to change.
    pub(super) fn iter_mut(&mut self) -> impl Iterator<Item = (&str, &mut FileEntry)> {
        let text = &self.text;
        self.entries.iter_mut().map(|e| (&text[e.path.start as usize..e.path.end as usize], e))
    }

    /// The files whose path starts with `prefix`: they sort together.
    pub(super) fn starting_with<'a>(
        &'a self,
        prefix: &'a str,
    ) -> impl Iterator<Item = (&'a str, &'a FileEntry)> {
        let from = self.entries.partition_point(|e| self.path_of(e) < prefix);
        self.entries[from..]
            .iter()
            .map(|e| (self.path_of(e), e))
            .take_while(move |(p, _)| p.starts_with(prefix))
    }
}

/// A path's place in the buffer. Paths beyond 4 GiB of text in one state are not a
/// repository git can hold in its index (its entries' offsets are 32-bit too).
fn span(start: usize, end: usize) -> Range<u32> {
    let at = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    at(start)..at(end)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(n: u8) -> gix::ObjectId {
        gix::ObjectId::from_bytes_or_panic(&[n; 20])
    }

    #[test]
    fn lookups_and_prefixes_follow_byte_order() {
        let mut l = FileList::with_capacity(4);
        for (i, p) in ["a.tf", "a/b.tf", "a/c/d.tf", "b/x.tf"].iter().enumerate() {
            l.push(p, crate::path::split(p).1.len(), id(i as u8));
        }
        let l = l.finish();
        assert!(l.contains("a/b.tf") && !l.contains("a/b"));
        assert_eq!(l.get("b/x.tf").map(|e| e.id), Some(id(3)));
        let dirs: Vec<&str> = l.iter().map(|(p, e)| e.dir(p)).collect();
        assert_eq!(dirs, ["", "a", "a/c", "b"]);
        let under: Vec<&str> = l.starting_with("a/").map(|(p, _)| p).collect();
        assert_eq!(under, ["a/b.tf", "a/c/d.tf"]);
        assert_eq!(l.starting_with("").count(), 4);
    }

    #[test]
    fn unsorted_input_is_sorted_and_the_last_duplicate_wins() {
        let mut l = FileList::with_capacity(4);
        l.push("m/z.tf", 4, id(1));
        l.push("m/a.tf", 4, id(2));
        l.push("m/z.tf", 4, id(3));
        let mut l = l.finish();
        let all: Vec<(&str, gix::ObjectId)> = l.iter().map(|(p, e)| (p, e.id)).collect();
        assert_eq!(all, [("m/a.tf", id(2)), ("m/z.tf", id(3))]);
        l.insert_missing("m/m.tf", id(4));
        l.insert_missing("m/a.tf", id(5));
        let all: Vec<(&str, gix::ObjectId)> = l.iter().map(|(p, e)| (p, e.id)).collect();
        assert_eq!(all, [("m/a.tf", id(2)), ("m/m.tf", id(4)), ("m/z.tf", id(3))]);
        for (_, e) in l.iter_mut() {
            e.data = Some(Vec::new());
        }
        assert!(l.iter().all(|(_, e)| e.data.is_some()));
    }
}
