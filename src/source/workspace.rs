//! Which files belong to a run: its root (the repository's working tree, or the repository
//! itself when bare, or outside git the directory that holds what the user named), the
//! directories the user named (its targets), and the source each state of it is read
//! from. The front door every command opens its run by.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

use super::worktree::{ListedDir, lexical_absolute};
use super::{Cached, FileCache, Git, GitSource, Overlay, Source, Tracked, WorktreeSource, join};
use crate::error;

/// A directory the user named.
#[derive(Clone, Debug)]
pub(crate) struct Target {
    /// As they wrote it, as a display prefix (`examples`, `""` for `.`).
    pub typed: String,
    /// The same directory as a path of the run.
    pub scope: String,
}

/// The root, the targets, and the repository when there is one.
pub(crate) struct Workspace {
    pub git: Option<Git>,
    pub root: PathBuf,
    pub targets: Vec<Target>,
}

impl Workspace {
    /// Directories on disk. Each must exist and be a directory; errors name it as written.
    pub(crate) fn worktree(paths: &[PathBuf]) -> Result<Workspace, error::Error> {
        // A bare repository's files are objects, not a worktree: reading its directory
        // would find "no configuration files" where the revisions hold them.
        let first = paths.first().map_or(Path::new("."), PathBuf::as_path);
        if Git::discover(existing_dir(first)).is_ok_and(|g| g.is_bare()) {
            let path = Some(display_root(first)).filter(|t| !t.is_empty()).unwrap_or(".".into());
            return Err(error::Error::BareWorktree { path });
        }
        let mut named = Vec::new();
        for p in paths {
            let typed = display_root(p);
            let shown = if typed.is_empty() { ".".to_string() } else { typed.clone() };
            let io = |e| error::Error::io(shown.clone(), e);
            let meta = std::fs::metadata(p).map_err(io)?;
            if !meta.is_dir() {
                return Err(error::Error::NotADirectory { path: shown });
            }
            let real = std::fs::canonicalize(p).map_err(io)?;
            named.push((typed, shown, real, lexical_absolute(p).unwrap_or_else(|| p.clone())));
        }
        // The repository is found from the path as written: a directory linked out of the
        // repository is still named inside it (and refused below).
        let lexical = lexical_absolute(first).unwrap_or_else(|| first.to_path_buf());
        let start = lexical.ancestors().find(|d| d.join(".git").exists()).unwrap_or(first);
        let git = Git::discover(start).ok().filter(|g| g.workdir().is_some());
        let workdir = git.as_ref().and_then(|g| g.workdir()).map(Path::to_path_buf);
        let root = match &workdir {
            Some(w) => std::fs::canonicalize(w)
                .map_err(|e| error::Error::io(w.display().to_string(), e))?,
            None => common_ancestor(named.iter().map(|n| n.2.as_path())),
        };
        let lexical_top = workdir.as_deref().and_then(lexical_absolute);
        let mut targets = Vec::new();
        for (typed, shown, real, lexical) in named {
            let Ok(rel) = real.strip_prefix(&root) else {
                return Err(if lexical_top.as_ref().is_some_and(|t| lexical.starts_with(t)) {
                    error::Error::DirectoryLinkOutside { path: shown }
                } else {
                    let first = display_root(first);
                    let first = if first.is_empty() { ".".to_string() } else { first };
                    error::Error::OtherRepository { path: shown, first }
                });
            };
            targets.push(Target { typed, scope: slashed(rel) });
        }
        Ok(Workspace { git, root, targets })
    }

    /// The git repository of the first path (or of the working directory), for reading its
    /// index or a revision. Paths need not exist on disk (a module deleted since).
    pub(crate) fn git(paths: &[PathBuf]) -> Result<Workspace, error::Error> {
        let first = paths.first().map_or(Path::new("."), PathBuf::as_path);
        let git = Git::discover(existing_dir(first))?;
        let root = match git.workdir() {
            Some(w) => std::fs::canonicalize(w)
                .map_err(|e| error::Error::io(w.display().to_string(), e))?,
            None => PathBuf::new(),
        };
        let mut targets = Vec::new();
        for p in paths {
            let typed = display_root(p);
            let scope = git.relative(p).ok_or_else(|| error::Error::OutsideWorktree {
                path: if typed.is_empty() { ".".into() } else { typed.clone() },
            })?;
            targets.push(Target { typed, scope });
        }
        Ok(Workspace { git: Some(git), root, targets })
    }

    /// The repository of the working directory: the hook and the review name no path.
    pub(crate) fn repository() -> Result<Workspace, error::Error> {
        let mut ws = Workspace::git(&[])?;
        ws.targets = vec![Target { typed: String::new(), scope: String::new() }];
        Ok(ws)
    }

    /// The worktree below the targets (each target with its subdirectories, or only the
    /// target itself), with the files git does not track marked as local-only; and why
    /// they could not be, when git's index cannot be read (the worktree is readable
    /// without it).
    pub(crate) fn worktree_source(
        &self,
        recursive: bool,
    ) -> (WorktreeSource, Option<error::Error>) {
        let src = self.below_targets(recursive);
        match self.git.as_ref().map(Git::tracked) {
            Some(Ok(tracked)) => (src.with_tracked(tracked), None),
            Some(Err(e)) => (src, Some(e)),
            None => (src, None),
        }
    }

    fn below_targets(&self, recursive: bool) -> WorktreeSource {
        self.scoped(self.targets.iter().map(|t| ListedDir { dir: t.scope.clone(), recursive }))
    }

    /// The worktree's files in `dirs` themselves (paths of the run), whatever the targets:
    /// a module a shown one calls, the checkout of modules a commit changes.
    pub(crate) fn worktree_of(&self, dirs: impl IntoIterator<Item = String>) -> WorktreeSource {
        self.scoped(dirs.into_iter().map(|dir| ListedDir { dir, recursive: false }))
    }

    fn scoped(&self, scopes: impl Iterator<Item = ListedDir>) -> WorktreeSource {
        let repo = self.git.as_ref().map(|_| self.root.clone());
        WorktreeSource::scoped(self.root.clone(), scopes.collect(), repo)
    }

    /// A file on disk as a path of the run, when it lies below the root (its directory's
    /// links resolved, as the root's are).
    pub(crate) fn run_path(&self, path: &Path) -> Option<String> {
        let (parent, name) = (path.parent()?, path.file_name()?);
        let parent = std::fs::canonicalize(parent).ok()?;
        let dir = parent.strip_prefix(&self.root).ok()?;
        Some(join(&slashed(dir), &name.to_string_lossy()))
    }

    /// The target directories, as paths of the run.
    pub(crate) fn scopes(&self) -> Vec<String> {
        self.targets.iter().map(|t| t.scope.clone()).collect()
    }

    /// Is a path of the run inside one of the targets (each with everything below it)?
    pub(crate) fn covers(&self, path: &str) -> bool {
        self.targets.iter().any(|t| under(path, &t.scope))
    }

    /// An editor's run of the one module directory `dir` (as it lies on disk): its
    /// workspace, and the buffers over its files (see [`State::Editor`]).
    pub(crate) fn editor(
        dir: PathBuf,
        state: State<'_>,
    ) -> Result<(Workspace, Opened), error::Error> {
        let ws = Workspace::worktree(&[dir])?;
        let (opened, _) = ws.open(state)?;
        Ok((ws, opened))
    }

    /// The run's source for `state`: the worktree below the targets (with their
    /// subdirectories or not), the index, or a revision; and, for the worktree, why git's
    /// index could not be read, when it could not (see [`Workspace::worktree_source`]).
    pub(crate) fn open(
        &self,
        state: State<'_>,
    ) -> Result<(Opened, Option<error::Error>), error::Error> {
        // A workspace of git states is made by `Workspace::git`, which finds the repository.
        let git = || {
            self.git.as_ref().ok_or_else(|| error::Error::NotARepository {
                path: ".".into(),
                source: std::sync::Arc::new(std::io::Error::other("no repository was opened")),
            })
        };
        Ok(match state {
            State::Worktree { recursive } => {
                let (src, untracked) = self.worktree_source(recursive);
                (Opened::Disk(src), untracked)
            }
            State::Index => (Opened::Git(git()?.index()?), None),
            State::Revision(rev) => (Opened::Git(git()?.rev(rev)?), None),
            State::Editor { buffers, cache, index } => {
                let mut disk = self.below_targets(false);
                if let Some(t) = self.git.as_ref().and_then(|git| index.tracked(git, &self.root)) {
                    disk = disk.with_tracked(t);
                }
                let buffers = buffers
                    .iter()
                    .filter_map(|(path, text)| Some((self.run_path(path)?, text.clone())))
                    .collect();
                let inner = Box::new(Cached { inner: disk, cache: cache.clone() });
                (Opened::Editor(Overlay { inner, buffers }), None)
            }
        })
    }
    /// Two states and the files that differ between them, for the commands that compare;
    /// and, for a worktree side, why git's index could not be read. HEAD against the index
    /// reads only the trees the index does not vouch for (see [`Git::staged`]); a worktree
    /// side has no blob ids, so contents are compared.
    pub(crate) fn open_pair(
        &self,
        before: State<'_>,
        after: State<'_>,
    ) -> Result<(Pair, Option<error::Error>), error::Error> {
        if let (State::Revision("HEAD"), State::Index, Some(git)) = (before, after, &self.git) {
            let s = git.staged()?;
            let (before, after) = (Opened::Git(s.head), Opened::Git(s.index));
            let (changed, policies_changed) = (s.changed, s.policies_changed);
            let pruned = Some(s.pruned);
            return Ok((Pair { before, after, changed, policies_changed, pruned }, None));
        }
        let (mut before, a) = self.open(before)?;
        let (mut after, b) = self.open(after)?;
        let changed = match (&before, &after) {
            (Opened::Git(a), Opened::Git(b)) => a.changed(b),
            _ => {
                for o in [&mut before, &mut after] {
                    self.load(o, None)?;
                }
                super::changed(before.source(), after.source())?
            }
        };
        let policies_changed = super::changed_policies(before.source(), after.source())?;
        let pair = Pair { before, after, changed, policies_changed, pruned: None };
        Ok((pair, a.or(b)))
    }

    /// The modules of an opened state that lie in the targets (below them too, with
    /// `recursive`), their blobs read when the state is git's.
    pub(crate) fn modules(
        &self,
        opened: &mut Opened,
        recursive: bool,
    ) -> Result<Vec<(String, Vec<String>)>, error::Error> {
        let wanted = |d: &str| {
            if recursive { self.covers(d) } else { self.targets.iter().any(|t| t.scope == d) }
        };
        let modules: Vec<(String, Vec<String>)> =
            opened.source().modules()?.into_iter().filter(|(d, _)| wanted(d)).collect();
        let dirs: BTreeSet<String> = modules.iter().map(|(d, _)| d.clone()).collect();
        self.load(opened, Some(&dirs))?;
        Ok(modules)
    }

    /// Reads the blobs of a git state's modules in `dirs` (`None`: every module); the other
    /// states read their files when asked.
    pub(crate) fn load(
        &self,
        opened: &mut Opened,
        dirs: Option<&BTreeSet<String>>,
    ) -> Result<(), error::Error> {
        match (opened, &self.git) {
            (Opened::Git(g), Some(git)) => git.load(g, dirs),
            _ => Ok(()),
        }
    }
}

/// Two states of a run and what differs between them.
pub(crate) struct Pair {
    before: Opened,
    pub after: Opened,
    /// Configuration files added, deleted or modified.
    pub changed: BTreeSet<String>,
    /// Policy files added, deleted or modified.
    pub policies_changed: BTreeSet<String>,
    /// HEAD against the index: the directories whose staged content equals HEAD's, where
    /// HEAD was not read.
    pruned: Option<HashSet<String>>,
}

impl Pair {
    /// The state before, complete for `dirs`.
    pub(crate) fn before_for(&mut self, dirs: &BTreeSet<String>) -> &mut Opened {
        if let (Some(pruned), Opened::Git(head), Opened::Git(index)) =
            (&self.pruned, &mut self.before, &self.after)
        {
            head.fill_head(index, pruned, dirs);
        }
        &mut self.before
    }

    /// The state before, as far as [`Pair::before_for`] has completed it.
    pub(crate) fn before(&self) -> &Opened {
        &self.before
    }

    /// Is it HEAD against the index (so the state after is what git tracks)?
    pub(crate) fn staged(&self) -> bool {
        self.pruned.is_some()
    }
}

/// A state of a run's files.
#[derive(Clone, Copy)]
pub(crate) enum State<'a> {
    /// The files on disk below the targets (each with its subdirectories, or not).
    Worktree { recursive: bool },
    /// What git's index holds.
    Index,
    /// What a revision holds.
    Revision(&'a str),
    /// An editor's unsaved buffers (by path on disk) over the files of the targets
    /// themselves, read through a cache kept between runs; `index`, what git's index
    /// holds, read again only when it changed.
    Editor {
        buffers: &'a HashMap<PathBuf, String>,
        cache: &'a std::sync::Arc<FileCache>,
        index: &'a IndexCache,
    },
}

/// Each repository's index as an editor's server last read it, with its modification
/// time: a keystroke must not cost reading a large index.
#[derive(Default)]
pub(crate) struct IndexCache(Mutex<HashMap<PathBuf, (Option<SystemTime>, Tracked)>>);

impl IndexCache {
    /// Which files git's index holds, read again only when the index changed.
    fn tracked(&self, git: &Git, root: &Path) -> Option<Tracked> {
        let stamp = std::fs::metadata(root.join(".git/index")).and_then(|m| m.modified()).ok();
        // A run that failed may have left the lock poisoned: the cache is whole between
        // its statements.
        let mut cache = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((at, t)) = cache.get(root)
            && stamp.is_some()
            && *at == stamp
        {
            return Some(t.clone());
        }
        let t = git.tracked().ok()?;
        cache.insert(root.to_path_buf(), (stamp, t.clone()));
        Some(t)
    }
}

/// The kinds of source a run reads.
pub(crate) enum Opened {
    Git(GitSource),
    Disk(WorktreeSource),
    Editor(Overlay),
}

impl Opened {
    pub(crate) fn source(&self) -> &dyn Source {
        match self {
            Opened::Git(g) => g,
            Opened::Disk(w) => w,
            Opened::Editor(e) => e,
        }
    }

    /// What the state skipped (a file that is not what its name says, a link that leads
    /// nowhere), at the paths `keep` accepts, for the caller to say: a worktree knows once
    /// it has listed its files, git once it has read them; an editor's buffers say nothing
    /// the worktree would not.
    pub(crate) fn notes(&self, keep: impl Fn(&str) -> bool) -> Vec<(String, String)> {
        match self {
            Opened::Git(g) => {
                g.notes_for(keep).into_iter().map(|(p, n)| (p.to_string(), n.to_string())).collect()
            }
            Opened::Disk(w) => w.notes().into_iter().filter(|(p, _)| keep(p)).collect(),
            Opened::Editor(_) => Vec::new(),
        }
    }
}

/// `rest` when `p` is `dir` itself (`""`) or below it.
pub(crate) fn strip_dir<'a>(p: &'a str, dir: &str) -> Option<&'a str> {
    if p == ".." || p.starts_with("../") {
        return None; // above the root (a policy file found in a parent directory)
    }
    if dir.is_empty() {
        return Some(p);
    }
    if p == dir {
        return Some("");
    }
    p.strip_prefix(dir)?.strip_prefix('/')
}

/// Is `p` the directory `dir` or below it?
pub(crate) fn under(p: &str, dir: &str) -> bool {
    strip_dir(p, dir).is_some()
}

/// The directory git discovery starts from: the path itself, or the working directory
/// when the path does not exist (a module deleted since the revision asked for).
fn existing_dir(p: &Path) -> &Path {
    if p.is_dir() { p } else { Path::new(".") }
}

/// The deepest directory holding all of `dirs` (absolute).
fn common_ancestor<'a>(mut dirs: impl Iterator<Item = &'a Path>) -> PathBuf {
    let Some(first) = dirs.next() else { return PathBuf::from("/") };
    let mut common = first.to_path_buf();
    for d in dirs {
        while !d.starts_with(&common) {
            if !common.pop() {
                break;
            }
        }
    }
    common
}

/// A relative path as `/`-separated text.
pub(crate) fn slashed(p: &Path) -> String {
    p.to_string_lossy().replace(std::path::MAIN_SEPARATOR, "/")
}

/// A directory the user named, as a display prefix (`examples`, or empty for `.`).
pub(crate) fn display_root(p: &Path) -> String {
    let s = slashed(p);
    let s = s.trim_end_matches('/');
    let s = s.strip_prefix("./").unwrap_or(s);
    if s == "." { String::new() } else { s.to_string() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_root_outside_git_holds_every_directory_named() {
        assert_eq!(
            common_ancestor([Path::new("/a/b/c"), Path::new("/a/b/d")].into_iter()),
            PathBuf::from("/a/b")
        );
        assert_eq!(display_root(Path::new("./examples/")), "examples");
        assert_eq!(display_root(Path::new(".")), "");
        assert!(under("a/b", "a") && under("a", "a") && !under("ab", "a") && !under("../x", ""));
    }
}
