//! Content as git has it: the index (what is about to be committed) or any tree-ish (a
//! commit, a branch, `HEAD`). Every gix type stays in this file, in `git_entries.rs` (a
//! state's entries and links) and in `index_file.rs` (the index file's checksum, and what
//! gix misreads of it), so a gix upgrade touches nothing else. Nothing here writes: no
//! index refresh, no lock file, no object.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use gix::bstr::ByteSlice;
use gix::index::entry::{Mode, Stage};

use super::disk::Kind;
use super::file_list::{FileEntry, FileList};
use super::git_entries::{
    Entry, MISSING_TARGET, PolicyBlob, Sparse, Special, Unfollowed, failed, in_index,
    index_entries, list, normalize, read_blob, special,
};
use super::index_file;
use super::{Error, POLICY_FILE, Source, split};
use crate::terraform::discover;

/// An open repository.
pub struct Git {
    repo: gix::Repository,
}

impl Git {
    /// The repository containing `start`, as git itself would find it: `GIT_DIR`,
    /// `GIT_WORK_TREE`, `GIT_INDEX_FILE` (set by `git commit -a` / `git commit PATHS` for
    /// their temporary index) and `GIT_CEILING_DIRECTORIES` are honoured.
    pub fn discover(start: &Path) -> Result<Git, Error> {
        let repo = gix::discover_with_environment_overrides(start).map_err(|e| {
            Error::NotARepository { path: start.display().to_string(), source: Arc::new(e) }
        })?;
        Ok(Git { repo })
    }

    /// The working tree's root, `None` in a bare repository.
    pub fn workdir(&self) -> Option<&Path> {
        self.repo.workdir()
    }

    pub fn is_bare(&self) -> bool {
        self.repo.is_bare()
    }

    /// A user's path (relative to the working directory) as a repository-relative one,
    /// `/`-separated; `None` when it lies outside the working tree. In a bare repository
    /// paths are taken as repository-relative already.
    pub fn relative(&self, path: &Path) -> Option<String> {
        let Some(workdir) = self.workdir() else {
            return Some(normalize(&path.to_string_lossy())).flatten();
        };
        let root = std::fs::canonicalize(workdir).ok()?;
        // The path may have been deleted: its longest existing ancestor is resolved.
        let full = super::worktree::resolved(path)?;
        let rel = full.strip_prefix(&root).ok()?;
        Some(rel.to_string_lossy().replace(std::path::MAIN_SEPARATOR, "/"))
    }

    /// A path the user gave as the repository names it, from its root, as the hook names
    /// every path (and as the framework runs it, from the top): `/`-separated, `.` and
    /// `..` taken; `None` when it climbs above the root. An absolute path is taken as
    /// [`Git::relative`] takes it.
    pub fn from_root(&self, path: &Path) -> Option<String> {
        if path.is_absolute() {
            return self.relative(path);
        }
        normalize(&path.to_string_lossy().replace(std::path::MAIN_SEPARATOR, "/"))
    }

    /// A commit id as `git log --oneline` writes it: the shortest prefix that names it
    /// alone here (a side's name for reviewers); the id itself when it is no object here.
    pub fn short(&self, id: &str) -> String {
        match gix::ObjectId::from_hex(id.as_bytes()) {
            Ok(oid) => self
                .repo
                .find_object(oid)
                .map_or_else(|_| id.to_string(), |o| o.id().shorten_or_id().to_string()),
            Err(_) => id.to_string(),
        }
    }

    /// What is staged: the index (or the temporary one `GIT_INDEX_FILE` names).
    /// Unmerged entries of configuration files are an error naming them.
    pub fn index(&self) -> Result<GitSource, Error> {
        let index = self.open_index()?;
        self.index_source(&index)
    }

    /// Which files the index holds (repository-relative paths): a worktree file it does not
    /// hold exists only in this checkout. Looked up in the index itself (a binary search),
    /// not copied.
    pub fn tracked(&self) -> Result<super::Tracked, Error> {
        let index = self.open_index()?;
        Ok(Arc::new(move |path: &str| {
            index
                .entry_by_path(path.as_bytes().as_bstr())
                .is_some_and(|e| !e.flags.contains(gix::index::entry::Flags::INTENT_TO_ADD))
        }))
    }

    /// HEAD against the index, for the pre-commit hook. Reads only the parts of HEAD's
    /// tree that the index's cache of tree ids (git's `TREE` extension, kept by `git add`
    /// and `git commit`) does not already show to be unchanged: in a large repository
    /// with one module staged, that is a handful of trees instead of all of them.
    pub fn staged(&self) -> Result<Staged, Error> {
        let index_file = self.open_index()?;
        let (sparse, special) = self.index_parts(&index_file)?;
        let tree = self.tree_id("HEAD")?;
        let mut owned = Vec::new();
        let mut pruned = HashSet::new();
        self.walk(tree, "", index_file.tree(), &mut owned, &mut pruned)?;
        let entries: Vec<Entry<'_>> = owned
            .iter()
            .map(|(p, mode, id)| Entry { path: p.as_slice(), mode: *mode, id: *id })
            .collect();
        let head = GitSource::new(&self.repo, "HEAD".into(), &entries)?;
        // The index's files are listed where HEAD's tree was read; under the directories
        // the cache vouches for (nearly all of a large repository) only when a question
        // needs them.
        let files = list(index_entries(&index_file, &sparse), &special.links, |dir| {
            !dir_pruned(&pruned, dir)
        });
        let lazy = Lazy {
            index: index_file,
            sparse,
            links: HashMap::new(),
            pruned: pruned.clone(),
            full: OnceLock::new(),
        };
        let index = GitSource::from_parts("the index".into(), files, special, Some(Box::new(lazy)));
        let same = |p: &str| is_under(&pruned, p);
        let mut changed = BTreeSet::new();
        for (path, e) in index.files.iter() {
            if head.files.get(path).is_none_or(|h| h.id != e.id) {
                changed.insert(path.to_string());
            }
        }
        for (path, _) in head.files.iter() {
            if !index.files.contains(path) {
                changed.insert(path.to_string());
            }
        }
        // A file skipped with a note (a link out of the repository) still touches its
        // module: the note must reach the user.
        for (path, note) in &index.notes {
            if !same(path) && !head.notes.iter().any(|(p, n)| p == path && n == note) {
                changed.insert(path.clone());
            }
        }
        // A changed pin file changes the release of the modules below it.
        for (path, (id, _)) in &index.pins {
            if !same(path) && head.pins.get(path).is_none_or(|(h, _)| h != id) {
                changed.insert(path.clone());
            }
        }
        changed.extend(head.pins.keys().filter(|p| !index.pins.contains_key(*p)).cloned());
        let mut policies_changed: BTreeSet<String> = index
            .policies
            .iter()
            .filter(|(p, (id, _))| !same(p) && head.policies.get(*p).is_none_or(|(h, _)| h != id))
            .map(|(p, _)| p.clone())
            .collect();
        policies_changed
            .extend(head.policies.keys().filter(|p| !index.policies.contains_key(*p)).cloned());
        Ok(Staged { head, index, changed, policies_changed, pruned })
    }

    /// Collects the blobs of `tree` (at `prefix`), skipping subtrees the cache shows equal.
    fn walk(
        &self,
        tree: gix::ObjectId,
        prefix: &str,
        cache: Option<&gix::index::extension::Tree>,
        out: &mut Vec<(Vec<u8>, Mode, gix::ObjectId)>,
        pruned: &mut HashSet<String>,
    ) -> Result<(), Error> {
        if let Some(c) = cache
            && c.num_entries.is_some()
            && c.id == tree
        {
            pruned.insert(prefix.to_string());
            return Ok(());
        }
        let shown = if prefix.is_empty() { "HEAD" } else { prefix };
        let t = self.repo.find_tree(tree).map_err(|e| failed(shown, e))?;
        let decoded = t.decode().map_err(|e| failed(shown, e))?;
        for e in &decoded.entries {
            let Ok(name) = e.filename.to_str() else { continue };
            let path = super::join(prefix, name);
            if e.mode.is_tree() {
                let child = cache
                    .and_then(|c| c.children.iter().find(|k| k.name.as_slice() == name.as_bytes()));
                self.walk(e.oid.to_owned(), &path, child, out, pruned)?;
                continue;
            }
            let mode = if e.mode.is_commit() {
                Mode::COMMIT
            } else if e.mode.is_link() {
                Mode::SYMLINK
            } else if e.mode.is_executable() {
                Mode::FILE_EXECUTABLE
            } else {
                Mode::FILE
            };
            // Every blob: a symbolic link may point at any file.
            out.push((path.into_bytes(), mode, e.oid.to_owned()));
        }
        Ok(())
    }

    /// The index git would use. A relative `GIT_INDEX_FILE` is relative to the top of
    /// the working tree, as git resolves it (git moves there before reading it), not to
    /// the directory the hook runner happens to start us in.
    fn open_index(&self) -> Result<gix::index::File, Error> {
        let Some(workdir) = self.workdir() else {
            return Err(Error::BareIndex { path: self.repo.git_dir().display().to_string() });
        };
        let relative = std::env::var_os("GIT_INDEX_FILE")
            .map(PathBuf::from)
            .filter(|p| !p.as_os_str().is_empty() && p.is_relative());
        let path = relative.map_or_else(|| self.repo.index_path(), |p| workdir.join(p));
        let Ok(meta) = std::fs::metadata(&path) else {
            // A repository where nothing was ever staged.
            let empty = gix::index::State::new(self.repo.object_hash());
            return Ok(gix::index::File::from_state(empty, path));
        };
        let shown = index_file::shown(&path, workdir);
        if !meta.is_file() {
            // A FIFO or a device (`GIT_INDEX_FILE` can name one) would block or never end.
            return Err(Error::NotAFile { path: shown });
        }
        // `index.skipHash`: git writes a null checksum then, and neither git nor gix checks it.
        let skip = path == self.repo.index_path()
            && self.repo.config_snapshot().boolean("index.skipHash").unwrap_or(false);
        index_file::open(&path, self.repo.object_hash(), skip, &shown)
    }

    /// What the index holds besides its entries' list: a sparse index's directories read
    /// from their trees, and what one pass over every entry finds (policies, notes,
    /// links). Unmerged entries of configuration files are an error naming them.
    fn index_parts(&self, index: &gix::index::File) -> Result<(Sparse, Special), Error> {
        let mut conflicts = Vec::new();
        // A sparse index keeps whole directories outside the sparse cone as one tree
        // entry: their files are still part of the next commit, so read them from there.
        let mut sparse = Vec::new();
        for e in index.entries() {
            let path = e.path(index);
            if e.stage() != Stage::Unconflicted {
                if let Ok(p) = path.to_str()
                    && interesting(p)
                    && conflicts.last() != Some(&p)
                {
                    conflicts.push(p);
                }
            } else if e.mode == Mode::DIR
                && let Ok(p) = path.to_str()
            {
                self.walk(e.id, p.trim_end_matches('/'), None, &mut sparse, &mut HashSet::new())?;
            }
        }
        if !conflicts.is_empty() {
            return Err(Error::Unmerged { paths: conflicts.join(", ") });
        }
        let special =
            special(&self.repo, index_entries(index, &sparse), |p| in_index(index, &sparse, p))?;
        Ok((sparse, special))
    }

    fn index_source(&self, index: &gix::index::File) -> Result<GitSource, Error> {
        let (sparse, special) = self.index_parts(index)?;
        let files = list(index_entries(index, &sparse), &special.links, |_| true);
        Ok(GitSource::from_parts("the index".into(), files, special, None))
    }

    /// A tree-ish (`HEAD`, `main`, `v1.2`, a commit id, `HEAD~2`). `HEAD` in a repository
    /// without a commit yet is the empty tree.
    pub fn rev(&self, spec: &str) -> Result<GitSource, Error> {
        let tree = self.tree_id(spec)?;
        let index = self.repo.index_from_tree(&tree).map_err(|e| failed(spec, e))?;
        let entries: Vec<Entry<'_>> = index
            .entries()
            .iter()
            .map(|e| Entry { path: e.path(&index).as_bytes(), mode: e.mode, id: e.id })
            .collect();
        GitSource::new(&self.repo, spec.to_string(), &entries)
    }

    /// One file as the index holds it (`rev: None`) or as a revision has it, by its
    /// repository-relative path; `None` when it is not there. For files the sources do
    /// not list (a baseline), read from the state being judged.
    pub fn file_at(&self, rev: Option<&str>, path: &str) -> Result<Option<Vec<u8>>, Error> {
        use gix::bstr::ByteSlice;
        let id = match rev {
            None => {
                let index = self.open_index()?;
                match index.entry_by_path(path.as_bytes().as_bstr()) {
                    Some(e) => e.id,
                    None => return Ok(None),
                }
            }
            Some(spec) => {
                let tree = self.repo.find_tree(self.tree_id(spec)?).map_err(|e| failed(spec, e))?;
                match tree.lookup_entry_by_path(path).map_err(|e| failed(path, e))? {
                    Some(e) => e.object_id(),
                    None => return Ok(None),
                }
            }
        };
        self.blob(path, id).map(Some)
    }

    /// The best common ancestor of two revisions, as a commit id (for `A...B`).
    pub fn merge_base(&self, a: &str, b: &str) -> Result<String, Error> {
        let one = self.commit_id(a)?;
        let two = self.commit_id(b)?;
        match self.repo.merge_base(one, two) {
            Ok(Some(id)) => Ok(id.to_string()),
            Ok(None) => Err(Error::NoMergeBase { range: format!("{a}...{b}") }),
            Err(e) => Err(failed(format!("{a}...{b}"), e)),
        }
    }

    /// Reads the blobs of the modules in `dirs` (`None`: every module).
    pub fn load(
        &self,
        src: &mut GitSource,
        dirs: Option<&std::collections::BTreeSet<String>>,
    ) -> Result<(), Error> {
        // Bytes are kept in the list every question reads: the whole index, once a
        // directory it had not listed is wanted.
        let tests_of = |dir: &str| super::join(dir, discover::TEST_DIR);
        if dirs
            .is_none_or(|d| d.iter().any(|dir| src.unlisted(dir) || src.unlisted(&tests_of(dir))))
        {
            src.complete();
        }
        let read = |path: &str, e: &mut FileEntry| -> Result<(), Error> {
            if e.data.is_none() && !src.broken.contains_key(path) {
                e.data = Some(self.blob(path, e.id)?);
            }
            Ok(())
        };
        let Some(dirs) = dirs else {
            for (path, e) in src.files.iter_mut() {
                read(path, e)?;
            }
            return Ok(());
        };
        // Whether a directory is wanted (a module's, or its test directory's test files),
        // asked once per directory.
        let mut last: Option<(&str, (bool, bool))> = None;
        for (path, e) in src.files.iter_mut() {
            let dir = e.dir(path);
            let (module, tests) = match last {
                Some((d, known)) if d == dir => known,
                _ => {
                    let (parent, name) = split(dir);
                    let tests = name == discover::TEST_DIR && dirs.contains(parent);
                    let known = (dirs.contains(dir), tests);
                    last = Some((dir, known));
                    known
                }
            };
            if module || (tests && discover::is_test_file(split(path).1)) {
                read(path, e)?;
            }
        }
        Ok(())
    }

    /// Is `bytes` exactly what the index holds for the repository-relative `path`? `None`
    /// when the index has no such file (it is untracked). `fix` and `fold` only write over
    /// content the index keeps a copy of, so nothing the user has is lost.
    pub fn matches_index(&self, path: &str, bytes: &[u8]) -> Result<Option<bool>, Error> {
        use gix::bstr::ByteSlice;
        let index = self.open_index()?;
        let Some(entry) = index.entry_by_path(path.as_bytes().as_bstr()) else { return Ok(None) };
        Ok(Some(self.blob(path, entry.id)? == bytes))
    }

    fn blob(&self, path: &str, id: gix::ObjectId) -> Result<Vec<u8>, Error> {
        read_blob(&self.repo, id, Kind::Config, path)
    }

    fn commit_id(&self, spec: &str) -> Result<gix::ObjectId, Error> {
        let id = self.repo.rev_parse_single(spec).map_err(|e| bad_rev(spec, e))?;
        let obj = id.object().map_err(|e| failed(spec, e))?;
        let commit = obj
            .peel_to_kind(gix::object::Kind::Commit)
            .map_err(|_| Error::NotACommit { rev: spec.to_string() })?;
        Ok(commit.id)
    }

    fn tree_id(&self, spec: &str) -> Result<gix::ObjectId, Error> {
        if spec == "HEAD" {
            return self
                .repo
                .head_tree_id_or_empty()
                .map(|id| id.detach())
                .map_err(|e| failed(spec, e));
        }
        let id = self.repo.rev_parse_single(spec).map_err(|e| bad_rev(spec, e))?;
        let obj = id.object().map_err(|e| failed(spec, e))?;
        let tree = obj.peel_to_tree().map_err(|_| Error::NotATree { rev: spec.to_string() })?;
        Ok(tree.id)
    }
}

fn bad_rev(spec: &str, e: impl std::error::Error + Send + Sync + 'static) -> Error {
    Error::UnknownRevision { rev: spec.to_string(), source: Arc::new(e) }
}

/// Configuration files and policy files, by name: an unmerged one stops the judging. (A
/// near-miss name no engine reads does not: the module is judged without it.)
fn interesting(path: &str) -> bool {
    let name = split(path).1;
    name == POLICY_FILE || discover::is_module_file(name)
}

/// The blobs of one git state, seen from a directory of the repository.
///
/// It is built from ids only (cheap: no blob is read), so two states can be compared
/// before anything is parsed; [`Git::load`] then reads the blobs of the modules wanted.
/// (gix's repository handle is not `Send` without its `parallel` feature, so the bytes
/// are read up front rather than on demand from worker threads.)
pub struct GitSource {
    label: String,
    /// Configuration file paths, with their bytes once loaded.
    files: FileList,
    /// Every policy file (there are few: read up front).
    policies: BTreeMap<String, PolicyBlob>,
    /// Every version managers' pin file, read up front as the policies are.
    pins: BTreeMap<String, (gix::ObjectId, Vec<u8>)>,
    /// (repository-relative path, what was skipped and why).
    notes: Vec<(String, String)>,
    /// Configuration files that are links leading nowhere inside the state (dangling,
    /// looping, to a directory), with why: listed, so that their module fails as
    /// Terraform's would on a checkout, and never read.
    broken: HashMap<String, &'static str>,
    /// The index of a staged change: `files` then lists only the directories HEAD's tree
    /// was read for, and this lists the others when asked.
    lazy: Option<Box<Lazy>>,
}

/// The index's files under directories whose content equals HEAD's, listed on demand.
struct Lazy {
    index: gix::index::File,
    sparse: Sparse,
    /// The links among them, followed when the index was read (`Special::links`).
    links: HashMap<String, gix::ObjectId>,
    /// Directories whose staged content equals HEAD's.
    pruned: HashSet<String>,
    /// Every file of the index, once a question needed one under `pruned`.
    full: OnceLock<FileList>,
}

impl Lazy {
    fn full(&self) -> &FileList {
        self.full
            .get_or_init(|| list(index_entries(&self.index, &self.sparse), &self.links, |_| true))
    }
}

/// HEAD and the index, and what differs between them (see [`Git::staged`]).
pub struct Staged {
    /// HEAD, read only where it may differ from the index: see [`GitSource::fill_head`].
    pub head: GitSource,
    pub index: GitSource,
    /// Configuration files added, deleted or modified by the staged change.
    pub changed: BTreeSet<String>,
    /// Policy files added, deleted or modified.
    pub policies_changed: BTreeSet<String>,
    /// Directories whose staged content equals HEAD's.
    pub pruned: HashSet<String>,
}

impl GitSource {
    /// Makes HEAD as read for a staged change (`self`) complete for `dirs`: where the walk
    /// skipped a directory because the index equals HEAD there (`pruned`), the index's blob
    /// ids stand in. Asking again, or for more directories, is harmless.
    pub fn fill_head(
        &mut self,
        index: &GitSource,
        pruned: &HashSet<String>,
        dirs: &BTreeSet<String>,
    ) {
        // A module's test directory too, for its test files.
        let tests = dirs.iter().map(|d| (super::join(d, discover::TEST_DIR), true));
        for (dir, test_files) in dirs.iter().map(|d| (d.clone(), false)).chain(tests) {
            let dir = dir.as_str();
            let prefix = if dir.is_empty() { String::new() } else { format!("{dir}/") };
            for (path, e) in index.list_for(dir).starting_with(&prefix) {
                let wanted = !test_files || discover::is_test_file(split(path).1);
                if e.dir(path) == dir && wanted && is_under(pruned, path) {
                    self.files.insert_missing(path, e.id);
                    if let Some(why) = index.broken.get(path) {
                        self.broken.entry(path.to_string()).or_insert(why);
                    }
                }
            }
        }
        // Policy files of unchanged directories, for the policy lookup at HEAD.
        for (path, p) in &index.policies {
            if is_under(pruned, path) {
                self.policies.entry(path.clone()).or_insert_with(|| p.clone());
            }
        }
    }
}

/// Is `path` inside one of `dirs` (`""` is the whole repository)? Looks up each
/// ancestor directory, so the cost does not grow with the number of directories.
fn is_under(dirs: &HashSet<String>, path: &str) -> bool {
    if dirs.is_empty() {
        return false;
    }
    let mut dir = path;
    loop {
        dir = split(dir).0;
        if dirs.contains(dir) {
            return true;
        }
        if dir.is_empty() {
            return false;
        }
    }
}

impl GitSource {
    /// Does the directory hold configuration files (of its own, not only below it)?
    pub fn has_module(&self, dir: &str) -> bool {
        let prefix = if dir.is_empty() { String::new() } else { format!("{dir}/") };
        self.list_for(dir).starting_with(&prefix).any(|(p, _)| !p[prefix.len()..].contains('/'))
    }

    /// Does the state hold this configuration file?
    pub fn has_file(&self, path: &str) -> bool {
        self.list_for(split(path).0).contains(path)
    }

    /// Every configuration file of the state, in git's order.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.all().iter().map(|(p, _)| p)
    }

    /// Configuration files and version files whose blob differs between two states.
    pub fn changed(&self, other: &GitSource) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        let (mine, theirs) = (self.all(), other.all());
        for (p, e) in mine.iter() {
            if theirs.get(p).is_none_or(|o| o.id != e.id) {
                out.insert(p.to_string());
            }
        }
        for (p, _) in theirs.iter() {
            if !mine.contains(p) {
                out.insert(p.to_string());
            }
        }
        // A changed version file changes the release of the modules below it.
        for (p, (id, _)) in &self.pins {
            if other.pins.get(p).is_none_or(|(o, _)| o != id) {
                out.insert(p.clone());
            }
        }
        out.extend(other.pins.keys().filter(|p| !self.pins.contains_key(*p)).cloned());
        out
    }

    fn new(
        repo: &gix::Repository,
        label: String,
        entries: &[Entry<'_>],
    ) -> Result<GitSource, Error> {
        let find = |p: &[u8]| entries.iter().find(|e| e.path == p).map(|e| (e.mode, e.id));
        let special = special(repo, entries.iter().copied(), find)?;
        let files = list(entries.iter().copied(), &special.links, |_| true);
        Ok(GitSource::from_parts(label, files, special, None))
    }

    fn from_parts(
        label: String,
        files: FileList,
        special: Special,
        lazy: Option<Box<Lazy>>,
    ) -> GitSource {
        let Special { policies, notes, broken, links, pins } = special;
        let lazy = lazy.map(|mut l| {
            l.links = links;
            l
        });
        GitSource { label, files, policies, pins, notes, broken, lazy }
    }

    /// Is `dir` under a directory whose files are not listed yet?
    fn unlisted(&self, dir: &str) -> bool {
        self.lazy.as_ref().is_some_and(|l| dir_pruned(&l.pruned, dir))
    }

    /// The list that holds the files of `dir`.
    fn list_for(&self, dir: &str) -> &FileList {
        match &self.lazy {
            Some(l) if dir_pruned(&l.pruned, dir) => l.full(),
            _ => &self.files,
        }
    }

    /// Every file of the state.
    fn all(&self) -> &FileList {
        match &self.lazy {
            Some(l) => l.full(),
            None => &self.files,
        }
    }

    /// Lists every file, keeping the bytes already read.
    fn complete(&mut self) {
        let Some(l) = self.lazy.take() else { return };
        l.full();
        let Lazy { full, .. } = *l;
        let Some(mut full) = full.into_inner() else { return };
        for (path, e) in self.files.iter_mut() {
            if let (Some(data), Some(f)) = (e.data.take(), full.get_mut(path)) {
                f.data = Some(data);
            }
        }
        self.files = full;
    }

    /// The notes about paths `keep` accepts, as (path, note).
    pub fn notes_for(&self, keep: impl Fn(&str) -> bool) -> Vec<(&str, &str)> {
        self.notes.iter().filter(|(p, _)| keep(p)).map(|(p, n)| (p.as_str(), n.as_str())).collect()
    }
}

impl Source for GitSource {
    fn modules(&self) -> Result<BTreeMap<String, Vec<String>>, Error> {
        let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for (path, _) in self.all().iter() {
            let (dir, name) = split(path);
            out.entry(dir.to_string()).or_default().push(name.to_string());
        }
        Ok(super::only_modules(out))
    }

    fn modules_in(&self, dirs: &BTreeSet<String>) -> Result<BTreeMap<String, Vec<String>>, Error> {
        let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for dir in dirs {
            // A directory's files sort together, right after `dir/` (or anywhere, at the root).
            let prefix = if dir.is_empty() { String::new() } else { format!("{dir}/") };
            for (path, _) in self.list_for(dir).starting_with(&prefix) {
                let (d, name) = split(path);
                if d == dir {
                    out.entry(dir.clone()).or_default().push(name.to_string());
                }
            }
        }
        Ok(super::only_modules(out))
    }

    fn test_dir_files(&self, dir: &str) -> Result<Vec<String>, Error> {
        let tests = super::join(dir, discover::TEST_DIR);
        let prefix = format!("{tests}/");
        let mut all: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for (path, _) in self.list_for(&tests).starting_with(&prefix) {
            let (d, name) = split(path);
            if d == tests {
                all.entry(tests.clone()).or_default().push(name.to_string());
            }
        }
        Ok(super::test_dir_files(&all, dir))
    }

    fn read(&self, path: &str) -> Result<Vec<u8>, Error> {
        if let Some(why) = self.broken.get(path) {
            let missing = *why == MISSING_TARGET;
            return Err(Error::BrokenLink {
                path: path.to_string(),
                why: why.to_string(),
                missing,
                os: None,
            });
        }
        match self.list_for(split(path).0).get(path).map(|e| &e.data) {
            Some(Some(data)) => Ok(data.clone()),
            Some(None) => {
                Err(Error::NotLoaded { path: path.to_string(), state: self.label.clone() })
            }
            None => Err(Error::NotInState { path: path.to_string(), state: self.label.clone() }),
        }
    }

    fn blob_id(&self, path: &str) -> Option<String> {
        self.list_for(split(path).0).get(path).map(|e| e.id.to_string())
    }

    fn policy_paths(&self) -> Result<BTreeSet<String>, Error> {
        Ok(self.policies.keys().cloned().collect())
    }

    /// From the pins read up front: a state holds no other.
    fn pin_file(&self, path: &str) -> Option<Vec<u8>> {
        self.pins.get(path).map(|(_, bytes)| bytes.clone())
    }

    fn policy_file(&self, dir: &str) -> Result<Option<String>, Error> {
        let path = super::join(dir, POLICY_FILE);
        let shown = || format!("{path} ({})", self.label);
        match self.policies.get(&path) {
            None => Ok(None),
            Some((_, Ok(bytes))) => String::from_utf8(bytes.clone())
                .map(Some)
                .map_err(|e| Error::NotUtf8 { path: shown(), source: e.utf8_error() }),
            Some((_, Err(Unfollowed::Outside(_)))) => {
                Err(Error::PolicyLinkOutside { path: shown() })
            }
            Some((_, Err(Unfollowed::Broken(why)))) => Err(Error::BrokenLink {
                path: shown(),
                why: why.to_string(),
                missing: *why == MISSING_TARGET,
                os: None,
            }),
        }
    }
}

/// Is `dir` one of `pruned`, or inside one?
fn dir_pruned(pruned: &HashSet<String>, dir: &str) -> bool {
    !pruned.is_empty() && (pruned.contains(dir) || is_under(pruned, dir))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn is_under_matches_whole_directories() {
        let dirs: HashSet<String> = ["team0".to_string(), "a/b".to_string()].into();
        assert!(is_under(&dirs, "team0/svc1/main.tf"));
        assert!(is_under(&dirs, "a/b/main.tf"));
        assert!(!is_under(&dirs, "team01/main.tf"));
        assert!(!is_under(&dirs, "a/main.tf"));
        assert!(!is_under(&HashSet::new(), "main.tf"));
        assert!(is_under(&[String::new()].into(), "x/main.tf"));
    }

    #[test]
    fn interesting_names() {
        assert!(interesting("a/override.tf"));
        assert!(interesting("b/x.tofu.json"));
        assert!(interesting(".override-guard.toml"));
        assert!(!interesting("README.md"));
        assert!(!interesting("x.tfvars"));
        // Listed, but a conflict in a file no engine reads does not stop the judging.
        assert!(!interesting("m/main_override.tf.txt"));
    }
}
