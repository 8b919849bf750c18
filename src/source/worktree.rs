//! Files on disk, as Terraform reads them: one directory (for `show`) or trees (for
//! `audit`). Ignore rules (`.gitignore`, `.git/info/exclude`, `.ignore`) prune which
//! directories are walked, and `.terraform/` working directories are skipped, but every
//! configuration file of a walked directory is listed, ignored or not: Terraform reads a
//! git-ignored `override.tf` too, and GitHub's standard Terraform `.gitignore` ignores
//! exactly those. Files git does not track are reported as local-only. Nothing outside the
//! repository is read through a symbolic link (see [`boundary`]).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use rayon::prelude::*;

use super::disk::{self, Kind, Links, Unread};
use super::{Error, POLICY_FILE, ParentPolicy, Source, Tracked, join};
use crate::terraform::{Local, discover};

/// A directory to list, relative to the source's root (`""`: the root itself).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListedDir {
    pub dir: String,
    /// Its subdirectories too (`audit`), or only the directory itself (`show`).
    pub recursive: bool,
}

/// Directories on disk below one root; paths are `/`-separated and relative to the root.
pub struct WorktreeSource {
    root: PathBuf,
    scopes: Vec<ListedDir>,
    /// Where reads must stay (canonical): the enclosing repository, else the directories
    /// the user named. A read resolving outside all of them is refused.
    boundary: Vec<PathBuf>,
    /// The enclosing repository's working tree (canonical), when there is one.
    repo: Option<PathBuf>,
    /// Which files git's index holds (root-relative paths); `None` outside git.
    /// Taken by the listing, the only reader: a large index is not kept for the run.
    tracked: std::sync::Mutex<Option<Tracked>>,
    listing: OnceLock<Result<Listing, Error>>,
}

/// What one walk found.
#[derive(Debug, Default)]
struct Listing {
    modules: BTreeMap<String, Vec<String>>,
    /// The listed test directories (`tests/`), which are no modules: their files are
    /// their parent module's (see [`Source::test_dir_files`]).
    test_dirs: BTreeMap<String, Vec<String>>,
    local: HashMap<String, Local>,
    /// Policy files of the listed directories.
    policies: BTreeSet<String>,
    /// Version managers' pin files of the listed directories.
    pins: BTreeSet<String>,
    /// The directories read whole: one without a policy file here has none on disk.
    listed: HashSet<String>,
    /// Files skipped (links out of the repository), as (path, why).
    notes: Vec<(String, String)>,
    /// Temporary copies `fix` or `fold` wrote beside a file (see [`crate::path::temp_name`]):
    /// a run that was killed leaves them.
    leftovers: Vec<String>,
}

impl Listing {
    fn absorb(&mut self, part: Listing) {
        for (dir, names) in part.modules {
            self.modules.entry(dir).or_default().extend(names);
        }
        self.local.extend(part.local);
        self.policies.extend(part.policies);
        self.pins.extend(part.pins);
        self.listed.extend(part.listed);
        self.notes.extend(part.notes);
        self.leftovers.extend(part.leftovers);
    }
}

impl WorktreeSource {
    /// Every module below `root`.
    pub fn tree(root: impl Into<PathBuf>) -> Self {
        Self::single(root.into(), true)
    }

    /// Only the files directly in `root` (one module).
    pub fn module(root: impl Into<PathBuf>) -> Self {
        Self::single(root.into(), false)
    }

    fn single(root: PathBuf, recursive: bool) -> Self {
        let repo = repository(&root);
        let boundary = boundary(&root).into_iter().collect();
        WorktreeSource {
            root,
            scopes: vec![ListedDir { dir: String::new(), recursive }],
            boundary,
            repo,
            tracked: Default::default(),
            listing: OnceLock::new(),
        }
    }

    /// Some directories below `root` (a repository's working tree, or a directory that
    /// holds what the user named). `repo` is the repository (canonical) when `root` is
    /// its working tree: reads stay inside it. Without one, reads stay inside the
    /// directories named.
    pub fn scoped(root: PathBuf, scopes: Vec<ListedDir>, repo: Option<PathBuf>) -> Self {
        let boundary = match &repo {
            Some(r) => vec![r.clone()],
            None => scopes
                .iter()
                .filter_map(|s| std::fs::canonicalize(root.join(&s.dir)).ok())
                .collect(),
        };
        let tracked = Default::default();
        WorktreeSource { root, scopes, boundary, repo, tracked, listing: OnceLock::new() }
    }

    /// Which files git's index holds (root-relative paths): the others are local-only.
    pub fn with_tracked(self, tracked: Tracked) -> Self {
        if let Ok(mut t) = self.tracked.lock() {
            *t = Some(tracked);
        }
        self
    }

    /// What the listing skipped, as (path, why), for `note:` lines.
    pub fn notes(&self) -> Vec<(String, String)> {
        match self.listing.get() {
            Some(Ok(l)) => l.notes.clone(),
            _ => Vec::new(),
        }
    }

    /// The temporary copies of `fix` and `fold` in the listed directories (paths of the
    /// source), for the commands that write to clean up after a run that was killed.
    pub fn leftovers(&self) -> Vec<String> {
        match self.listing.get() {
            Some(Ok(l)) => l.leftovers.clone(),
            _ => Vec::new(),
        }
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
        if self.boundary.is_empty() {
            return Ok(());
        }
        match std::fs::canonicalize(full) {
            Ok(real) if self.boundary.iter().any(|b| real.starts_with(b)) => Ok(()),
            Ok(_) => Err(crate::error::LINK_OUTSIDE),
            // A dangling link: reading it reports the error itself.
            Err(_) => Ok(()),
        }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// A path of the source for an error: the root itself is named as given.
    fn shown(&self, path: &str) -> String {
        if path.is_empty() { self.root.display().to_string() } else { path.to_string() }
    }

    fn listing(&self) -> Result<&Listing, Error> {
        match self.listing.get_or_init(|| self.list()) {
            Ok(l) => Ok(l),
            Err(e) => Err(e.clone()),
        }
    }

    /// Walks every scope: the walker (ignore rules on) picks the directories and says which
    /// files it would skip; each walked directory is then read whole.
    fn list(&self) -> Result<Listing, Error> {
        let mut out = Listing::default();
        let tracked = self.tracked.lock().ok().and_then(|mut t| t.take());
        for scope in &self.scopes {
            self.list_scope(scope, tracked.as_ref(), &mut out)?;
        }
        for names in out.modules.values_mut() {
            names.sort();
            names.dedup();
        }
        let tests = |dir: &str| super::split(dir).1 == discover::TEST_DIR;
        let listed = out.modules.iter().filter(|(d, _)| tests(d));
        out.test_dirs.extend(listed.map(|(d, n)| (d.clone(), n.clone())));
        out.modules = super::only_modules(std::mem::take(&mut out.modules));
        Ok(out)
    }

    fn list_scope(
        &self,
        scope: &ListedDir,
        tracked: Option<&Tracked>,
        out: &mut Listing,
    ) -> Result<(), Error> {
        let base = self.root.join(&scope.dir);
        let shown = || self.shown(&scope.dir);
        let meta = std::fs::metadata(&base).map_err(|e| Error::io(shown(), e))?;
        if !meta.is_dir() {
            return Err(Error::NotADirectory { path: shown() });
        }
        self.inside(&base).map_err(|_| Error::DirectoryLinkOutside { path: shown() })?;
        let mut walker = ignore::WalkBuilder::new(&base);
        walker
            .hidden(false)
            .git_ignore(true)
            .git_exclude(true)
            .require_git(false)
            .max_depth(if scope.recursive { None } else { Some(1) })
            .filter_entry(|e| {
                !(e.file_type().is_some_and(|t| t.is_dir())
                    && (e.file_name() == ".terraform" || e.file_name() == ".git"))
            });
        let judge = |entry| self.walked(scope, &base, tracked, entry);
        let mut found = if scope.recursive {
            // A tree is walked on every core, each entry judged where it is found, then
            // taken in the order of the paths, so that the listing and the error reported
            // first do not depend on which thread got where first.
            let found = std::sync::Mutex::new(Vec::new());
            walker.threads(rayon::current_num_threads()).build_parallel().run(|| {
                let (found, judge) = (&found, &judge);
                Box::new(move |entry| {
                    if let Some(w) = judge(entry)
                        && let Ok(mut f) = found.lock()
                    {
                        f.push(w);
                    }
                    ignore::WalkState::Continue
                })
            });
            found.into_inner().unwrap_or_else(|e| e.into_inner())
        } else {
            // One directory (an editor's module, at every keystroke): no threads to start.
            walker.build().filter_map(judge).collect()
        };
        // Stable: an error reading a directory stays after the directory itself.
        found.sort_by(|a, b| a.path().cmp(b.path()));
        let mut dirs: Vec<String> = Vec::new();
        let mut visible: HashSet<String> = HashSet::new();
        for w in found {
            match w {
                Walked::Dir(d) => dirs.push(d),
                Walked::Visible(f) => {
                    visible.insert(f);
                }
                // A directory already listed says so itself when it cannot be read.
                Walked::Unwalkable { path, why } => {
                    if !dirs.contains(&path) {
                        out.notes.push((path, format!("cannot be walked: {why}; not judged")));
                    }
                }
                Walked::Failed(_, e) => return Err(e),
            }
        }
        // Each directory is read whole, in parallel; merged in the walk's order, so the
        // listing (and the first error) is the same as one by one.
        let parts: Vec<Result<Listing, Error>> = dirs
            .par_iter()
            .map(|dir| {
                let mut part = Listing::default();
                self.list_dir(dir, &visible, tracked, &mut part).map(|()| part)
            })
            .collect();
        for part in parts {
            out.absorb(part?);
        }
        // Without recursion the test directory is listed for its test files only: it is
        // no module of this listing.
        let tests = join(&scope.dir, discover::TEST_DIR);
        if !scope.recursive
            && let Some(names) = out.modules.remove(&tests)
        {
            out.test_dirs
                .insert(tests, names.into_iter().filter(|n| discover::is_test_file(n)).collect());
        }
        Ok(())
    }

    /// What one entry of the walk of `scope` (rooted at `base`) adds to the listing.
    fn walked(
        &self,
        scope: &ListedDir,
        base: &Path,
        tracked: Option<&Tracked>,
        entry: Result<ignore::DirEntry, ignore::Error>,
    ) -> Option<Walked> {
        let shown = || self.shown(&scope.dir);
        let entry = match entry {
            Ok(entry) => entry,
            // A directory below the scope that cannot be listed (its permissions): the
            // modules in it cannot be judged, as Terraform cannot load them; the rest can.
            Err(e) if walk_path(&e).is_some_and(|p| p != base) => {
                let path = walk_path(&e)
                    .and_then(|p| p.strip_prefix(&self.root).ok())
                    .map(|p| p.to_string_lossy().replace(std::path::MAIN_SEPARATOR, "/"))
                    .unwrap_or_else(shown);
                return Some(Walked::Unwalkable { path, why: walk_reason(&e) });
            }
            Err(e) => {
                return Some(Walked::Failed(
                    String::new(),
                    Error::Walk { path: shown(), source: e },
                ));
            }
        };
        let rel = entry.path().strip_prefix(base).ok()?;
        let Some(rel) = rel.to_str() else {
            // Terraform reads such a file; skipping it would judge a module without it.
            let lossy = rel.to_string_lossy().replace(std::path::MAIN_SEPARATOR, "/");
            let file = !entry.file_type().is_some_and(|t| t.is_dir());
            if file && discover::is_module_file(lossy.rsplit('/').next().unwrap_or_default()) {
                let path = join(&scope.dir, &lossy);
                return Some(Walked::Failed(
                    path.clone(),
                    Error::PathNotUtf8 { path: self.shown(&path) },
                ));
            }
            return None;
        };
        let rel = rel.replace(std::path::MAIN_SEPARATOR, "/");
        let rel = if rel.is_empty() { scope.dir.clone() } else { join(&scope.dir, &rel) };
        if entry.file_type().is_some_and(|t| t.is_dir()) {
            // Without recursion, only the directory itself (its children are listed to
            // know which of its files are ignored).
            // The test directory too, for the module's test files alone (see `list_scope`).
            let tests = entry.depth() == 1 && entry.file_name() == discover::TEST_DIR;
            (scope.recursive || entry.depth() == 0 || tests).then_some(Walked::Dir(rel))
        } else if tracked.is_some_and(|t| !t(&rel)) {
            // Only a file git does not track needs telling: ignored, or untracked?
            Some(Walked::Visible(rel))
        } else {
            None
        }
    }

    /// Every configuration file of one directory, ignored or not.
    fn list_dir(
        &self,
        dir: &str,
        visible: &HashSet<String>,
        tracked: Option<&Tracked>,
        out: &mut Listing,
    ) -> Result<(), Error> {
        let full = self.root.join(dir);
        let entries = match std::fs::read_dir(&full) {
            Ok(entries) => entries,
            // Listed by the walk, unreadable now (its permissions): its module cannot be
            // judged, the others can.
            Err(e) if !dir.is_empty() => {
                out.notes.push((dir.to_string(), format!("cannot be listed: {e}; not judged")));
                return Ok(());
            }
            Err(e) => return Err(Error::io(self.shown(dir), e)),
        };
        out.listed.insert(dir.to_string());
        for entry in entries {
            let entry = entry.map_err(|e| Error::io(self.shown(dir), e))?;
            let name = entry.file_name();
            let Some(name) = name.to_str() else {
                // Terraform reads such a file; skipping it would judge a module without it.
                let lossy = name.to_string_lossy();
                if discover::is_module_file(&lossy) {
                    return Err(Error::PathNotUtf8 { path: self.shown(&join(dir, &lossy)) });
                }
                continue;
            };
            if name == POLICY_FILE {
                out.policies.insert(join(dir, name));
                continue;
            }
            if crate::terraform::pins::is_pin_file(name) {
                out.pins.insert(join(dir, name));
                continue;
            }
            if !discover::is_listed(name) {
                if name.starts_with('.') && crate::path::temp_of(name).is_some() {
                    out.leftovers.push(join(dir, name));
                }
                continue;
            }
            let Ok(kind) = entry.file_type() else { continue };
            // Terraform skips a directory with a configuration file's name, but lists
            // `*.auto.tfvars` by name and fails on one that is a directory.
            let auto_vars_dir = kind.is_dir() && discover::is_auto_tfvars(name);
            if !(kind.is_file() || kind.is_symlink() || auto_vars_dir) {
                continue;
            }
            let path = join(dir, name);
            if kind.is_symlink()
                && let Err(why) = self.inside(&entry.path())
            {
                out.notes.push((path, why.to_string()));
                continue;
            }
            if let Some(tracked) = tracked
                && !tracked(&path)
            {
                let local = if visible.contains(&path) { Local::Untracked } else { Local::Ignored };
                out.local.insert(path.clone(), local);
            }
            out.modules.entry(dir.to_string()).or_default().push(name.to_string());
        }
        Ok(())
    }

    /// The policy file in a directory above the root (outside any repository only: a
    /// repository's root is where its lookup stops), as the nearest parent that has one.
    fn policy_above_root(&self) -> Result<Option<ParentPolicy>, Error> {
        if self.repo.is_some() {
            return Ok(None);
        }
        let Ok(root) = std::fs::canonicalize(&self.root) else { return Ok(None) };
        if root.join(".git").exists() {
            return Ok(None);
        }
        let mut up = String::from("..");
        let mut down: Vec<String> = Vec::new();
        let mut dir = root.as_path();
        while let Some(parent) = dir.parent() {
            if let Some(name) = dir.file_name() {
                down.insert(0, name.to_string_lossy().into_owned());
            }
            let candidate = parent.join(POLICY_FILE);
            if candidate.is_file() {
                let text = read_policy_text(&candidate, self.shown(&join(&up, POLICY_FILE)))?;
                return Ok(Some(ParentPolicy {
                    path: join(&up, POLICY_FILE),
                    text,
                    down: down.join("/"),
                }));
            }
            if parent.join(".git").exists() {
                return Ok(None);
            }
            dir = parent;
            up.push_str("/..");
        }
        Ok(None)
    }
}

/// What an entry of the walk adds to a scope's listing.
enum Walked {
    /// A directory to read whole.
    Dir(String),
    /// A file git does not track, and no ignore rule hides.
    Visible(String),
    /// A directory below the scope that cannot be walked, and why.
    Unwalkable { path: String, why: String },
    /// What stops the listing (at a path: the first in path order is reported).
    Failed(String, Error),
}

impl Walked {
    fn path(&self) -> &str {
        match self {
            Walked::Dir(p) | Walked::Visible(p) | Walked::Unwalkable { path: p, .. } => p,
            Walked::Failed(p, _) => p,
        }
    }
}

/// The path a walk error is about, when it names one.
fn walk_path(e: &ignore::Error) -> Option<&Path> {
    match e {
        ignore::Error::WithPath { path, .. } => Some(path),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            walk_path(err)
        }
        _ => None,
    }
}

/// A walk error without the path it names (the note names it).
fn walk_reason(e: &ignore::Error) -> String {
    match e {
        ignore::Error::WithPath { err, .. } | ignore::Error::WithDepth { err, .. } => {
            walk_reason(err)
        }
        ignore::Error::Io(io) => io.kind().to_string(),
        e => e.to_string(),
    }
}

/// A link whose target cannot be opened: dangling (its target named), looping, or
/// otherwise unreadable.
fn broken_link(shown: String, full: &Path, e: std::io::Error) -> Error {
    let missing = e.kind() == std::io::ErrorKind::NotFound;
    let why = match std::fs::read_link(full) {
        Ok(target) if missing => {
            format!("symbolic link to {}, which does not exist", target.display())
        }
        _ => format!("symbolic link that cannot be followed: {e}"),
    };
    Error::BrokenLink { path: shown, why, missing, os: e.raw_os_error() }
}

/// A policy file's text; a policy file is read whole, UTF-8. Errors name it `shown`.
fn read_policy_text(path: &Path, shown: String) -> Result<String, Error> {
    let bytes =
        disk::read(path, Kind::Policy, Links::Follow).map_err(|e| e.error(shown.clone()))?;
    String::from_utf8(bytes).map_err(|e| Error::NotUtf8 { path: shown, source: e.utf8_error() })
}

impl Source for WorktreeSource {
    fn modules(&self) -> Result<BTreeMap<String, Vec<String>>, Error> {
        Ok(self.listing()?.modules.clone())
    }

    fn test_dir_files(&self, dir: &str) -> Result<Vec<String>, Error> {
        Ok(super::test_dir_files(&self.listing()?.test_dirs, dir))
    }

    fn read(&self, path: &str) -> Result<Vec<u8>, Error> {
        let full = self.root.join(path);
        // Most files are no link: one open that does not follow one, no lookup before it.
        match disk::read(&full, Kind::Config, Links::Refuse) {
            Err(Unread::Link) => {}
            read => return read.map_err(|e| e.error(self.shown(path))),
        }
        self.inside(&full).map_err(|_| Error::LinkOutside { path: self.shown(path) })?;
        disk::read(&full, Kind::Config, Links::Follow).map_err(|e| match e {
            Unread::Io(io) => broken_link(self.shown(path), &full, io),
            e => e.error(self.shown(path)),
        })
    }

    fn pin_file(&self, path: &str) -> Option<Vec<u8>> {
        // A listed directory without it has none on disk: the disk is not asked again.
        if let Some(Ok(l)) = self.listing.get()
            && l.listed.contains(super::split(path).0)
            && !l.pins.contains(path)
        {
            return None;
        }
        self.read(path).ok()
    }

    fn policy_file(&self, dir: &str) -> Result<Option<String>, Error> {
        let shown = join(dir, POLICY_FILE);
        // Each module's policy is looked for in every directory above it: where the
        // listing read a directory and found no policy file, the disk is not asked again.
        if let Some(Ok(l)) = self.listing.get()
            && l.listed.contains(dir)
            && !l.policies.contains(&shown)
        {
            return Ok(None);
        }
        let full = self.root.join(&shown);
        // Whatever has the name is found: a policy that cannot be read (a dangling link, a
        // directory, a FIFO) is an error, never a policy silently absent.
        let Ok(link) = std::fs::symlink_metadata(&full) else { return Ok(None) };
        if link.is_symlink() {
            match std::fs::canonicalize(&full) {
                // A repository's policy may not be a link out of it: that is not its to give.
                Ok(real) if self.repo.as_ref().is_some_and(|r| !real.starts_with(r)) => {
                    return Err(Error::PolicyLinkOutside { path: self.shown(&shown) });
                }
                Ok(_) => {}
                Err(e) => return Err(broken_link(self.shown(&shown), &full, e)),
            }
        }
        read_policy_text(&full, self.shown(&shown)).map(Some)
    }

    fn parent_policy(&self) -> Result<Option<ParentPolicy>, Error> {
        self.policy_above_root()
    }

    fn policy_paths(&self) -> Result<BTreeSet<String>, Error> {
        Ok(self.listing()?.policies.clone())
    }

    fn local(&self, path: &str) -> Option<Local> {
        self.listing().ok()?.local.get(path).copied()
    }
}

/// The repository working tree `root` lies in (the nearest ancestor, by the path as
/// written, holding `.git`), canonical.
pub(crate) fn repository(root: &Path) -> Option<PathBuf> {
    let abs = lexical_absolute(root)?;
    let top = abs.ancestors().find(|d| d.join(".git").exists())?;
    std::fs::canonicalize(top).ok()
}

/// The directory reads must stay in: the repository `root` lies in (the nearest ancestor,
/// by the path as written, holding `.git`), else `root` itself; canonical. A repository's
/// content may link anywhere, and what it links to out of the repository is not its to
/// show; a directory outside any repository is what the user named.
pub(crate) fn boundary(root: &Path) -> Option<PathBuf> {
    repository(root).or_else(|| std::fs::canonicalize(lexical_absolute(root)?).ok())
}

/// Where `p` is, or would be once created: `p` made absolute ([`lexical_absolute`]), its
/// longest existing ancestor resolved (links followed), the rest appended as written.
pub(crate) fn resolved(p: &Path) -> Option<PathBuf> {
    let abs = lexical_absolute(p)?;
    let mut existing = abs.as_path();
    let mut rest = Vec::new();
    while !existing.exists() {
        rest.push(existing.file_name()?);
        existing = existing.parent()?;
    }
    let mut full = std::fs::canonicalize(existing).ok()?;
    full.extend(rest.iter().rev());
    Some(full)
}

/// `p` made absolute (against the working directory) with `.` and `..` taken lexically,
/// without resolving links: the path as the user wrote it, so its ancestors are its own.
pub(crate) fn lexical_absolute(p: &Path) -> Option<PathBuf> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ignored_files_of_a_walked_directory_are_listed_and_marked() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        std::fs::create_dir_all(root.join("app")).unwrap();
        std::fs::create_dir_all(root.join("vendor/x")).unwrap();
        std::fs::write(root.join(".gitignore"), "override.tf\n*_override.tf\nvendor/\n").unwrap();
        for f in [
            "app/main.tf",
            "app/override.tf",
            "app/x_override.tf",
            "app/new.tf",
            "app/new.tf.override",
            "app/notes.txt",
            "vendor/x/main.tf",
        ] {
            std::fs::write(root.join(f), "").unwrap();
        }
        let tracked: Tracked = std::sync::Arc::new(|p: &str| p == "app/main.tf");
        let src = WorktreeSource::scoped(
            root.to_path_buf(),
            vec![ListedDir { dir: String::new(), recursive: true }],
            None,
        )
        .with_tracked(tracked);
        let modules = src.modules().unwrap();
        // Ignored directories are not walked; ignored files of walked ones are listed, and
        // so are names that look like override files (for `misnamed-override`).
        assert_eq!(modules.keys().collect::<Vec<_>>(), ["app"]);
        assert_eq!(
            modules["app"],
            ["main.tf", "new.tf", "new.tf.override", "override.tf", "x_override.tf"]
        );
        assert_eq!(src.local("app/main.tf"), None);
        assert_eq!(src.local("app/new.tf"), Some(Local::Untracked));
        assert_eq!(src.local("app/override.tf"), Some(Local::Ignored));
        assert_eq!(src.local("app/x_override.tf"), Some(Local::Ignored));
        // One directory alone: not its subdirectories.
        std::fs::create_dir_all(root.join("app/sub")).unwrap();
        std::fs::write(root.join("app/sub/main.tf"), "").unwrap();
        let one = WorktreeSource::scoped(
            root.to_path_buf(),
            vec![ListedDir { dir: "app".into(), recursive: false }],
            None,
        );
        assert_eq!(one.modules().unwrap().keys().collect::<Vec<_>>(), ["app"]);
    }

    /// The test files of a module's `tests/` directory are its own, with or without
    /// recursion; that directory is no module, even holding configuration files.
    #[test]
    fn a_module_s_test_directory_is_listed_for_its_test_files() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        std::fs::create_dir_all(root.join("app/tests")).unwrap();
        for f in [
            "app/main.tf",
            "app/query.tfquery.hcl",
            "app/unit.tftest.hcl",
            "app/tests/a.tftest.hcl",
            "app/tests/b.tftest.json",
            "app/tests/setup.tf",
            "app/tests/notes.md",
        ] {
            std::fs::write(root.join(f), "").unwrap();
        }
        for recursive in [false, true] {
            let dir = if recursive { String::new() } else { "app".to_string() };
            let src = WorktreeSource::scoped(
                root.to_path_buf(),
                vec![ListedDir { dir, recursive }],
                None,
            );
            let modules = src.modules().unwrap();
            let want: &[&str] = if recursive { &["app", "app/tests"] } else { &["app"] };
            assert_eq!(modules.keys().collect::<Vec<_>>(), want);
            assert_eq!(modules["app"], ["main.tf", "query.tfquery.hcl", "unit.tftest.hcl"]);
            assert_eq!(
                src.test_dir_files("app").unwrap(),
                ["tests/a.tftest.hcl", "tests/b.tftest.json"]
            );
        }
    }
}
