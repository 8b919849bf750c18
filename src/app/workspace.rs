//! Which files belong to a run, and how its paths are shown: one answer for every command
//! and every source. A run's paths are relative to one root: the repository's working
//! tree (or the repository itself, bare), or, outside git, the directory that holds what
//! the user named. The directories the user named are the run's targets.

use crate::error;
use std::path::{Component, Path, PathBuf};

use crate::pipeline::PolicyFile;
use crate::policy::{Finding, GlobBase};
use crate::report::ReportFormat;
use crate::report::findings::Summary;
use crate::source::worktree::{ListedDir, lexical_absolute};
use crate::source::{Git, WorktreeSource, disk, join};

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
    /// target itself), with the files git does not track marked as local-only.
    pub(crate) fn worktree_source(&self, recursive: bool) -> Result<WorktreeSource, error::Error> {
        let scopes =
            self.targets.iter().map(|t| ListedDir { dir: t.scope.clone(), recursive }).collect();
        let repo = self.git.as_ref().map(|_| self.root.clone());
        let src = WorktreeSource::scoped(self.root.clone(), scopes, repo);
        Ok(match self.git.as_ref().map(Git::tracked) {
            Some(Ok(tracked)) => src.with_tracked(tracked),
            // The worktree is readable without the index: only local-only files cannot be
            // told apart then.
            Some(Err(e)) => {
                // The message escaped as the path is: a subject escaped for one line, then
                // `clean` over the whole (a no-op on the escaped subject).
                let e = e.map_path(crate::report::clean_line);
                super::output::write_note(&format!(
                    "note: {}; files git does not track are not told apart\n",
                    crate::report::clean(&e.to_string())
                ));
                src
            }
            None => src,
        })
    }

    /// The target directories, as paths of the run.
    pub(crate) fn scopes(&self) -> Vec<String> {
        self.targets.iter().map(|t| t.scope.clone()).collect()
    }

    /// Is a path of the run inside one of the targets (each with everything below it)?
    pub(crate) fn covers(&self, path: &str) -> bool {
        self.targets.iter().any(|t| under(path, &t.scope))
    }

    /// `--policy PATH`: the file on disk, for every module; its globs are relative to its
    /// directory.
    pub(crate) fn fixed_policy(&self, file: &Path) -> Result<PolicyFile, error::Error> {
        let shown = shown_path(file);
        let bytes = read_named(file, disk::Kind::Policy, shown.clone())?;
        let text = String::from_utf8(bytes)
            .map_err(|e| error::Error::NotUtf8 { path: shown.clone(), source: e.utf8_error() })?;
        let real = std::fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf());
        let dir = real.parent().map(Path::to_path_buf).unwrap_or_default();
        let base = if self.root.as_os_str().is_empty() {
            GlobBase::default()
        } else if let Ok(rel) = dir.strip_prefix(&self.root) {
            GlobBase { dir: slashed(rel), down: String::new() }
        } else if let Ok(rel) = self.root.strip_prefix(&dir) {
            GlobBase { dir: String::new(), down: slashed(rel) }
        } else {
            GlobBase::default()
        };
        let path =
            if self.root.as_os_str().is_empty() { shown } else { relative(&self.root, &real) };
        Ok(PolicyFile { path, text, base })
    }

    /// How this run's paths are shown: under the name the user gave each target, else
    /// relative to the working directory.
    pub(crate) fn shown(&self) -> Shown {
        let mut targets: Vec<(String, String)> =
            self.targets.iter().map(|t| (t.scope.clone(), t.typed.clone())).collect();
        targets.sort_by_key(|(scope, _)| std::cmp::Reverse(scope.len()));
        Shown { root: self.root.clone(), targets, identity: false, in_repo: self.git.is_some() }
    }
}

/// How a run's paths are shown to the user. `compact`, `human` and `json` show them as
/// the user named them (or relative to the working directory); `github` and `sarif` name
/// files from the repository's root, from any working directory, as GitHub expects.
#[derive(Clone, Debug)]
pub(crate) struct Shown {
    root: PathBuf,
    targets: Vec<(String, String)>,
    /// The hook and the review show paths from the repository's root.
    identity: bool,
    in_repo: bool,
}

impl Shown {
    /// Paths as they are: relative to the repository's root.
    pub(crate) fn repository() -> Shown {
        Shown { root: PathBuf::new(), targets: Vec::new(), identity: true, in_repo: true }
    }

    /// A path of the run, for people.
    pub(crate) fn path(&self, p: &str) -> String {
        if self.identity {
            return p.to_string();
        }
        for (scope, typed) in &self.targets {
            if let Some(rest) = strip_dir(p, scope) {
                return match (typed.is_empty(), rest.is_empty()) {
                    (true, true) => ".".into(),
                    (_, true) => typed.clone(),
                    _ => join(typed, rest),
                };
            }
        }
        shown_path(&self.root.join(p))
    }

    /// A path of the run as a report format wants it.
    pub(crate) fn path_for(&self, p: &str, format: ReportFormat) -> String {
        if format.paths_from_root() && self.in_repo { p.to_string() } else { self.path(p) }
    }

    /// Rewrites the paths of findings and of a summary for a report format.
    pub(crate) fn apply(
        &self,
        findings: &mut [Finding],
        summary: &mut Summary,
        format: ReportFormat,
    ) {
        for f in findings {
            for site in std::iter::once(&mut f.primary).chain(f.related.iter_mut()) {
                site.path = self.path_for(&site.path, format);
            }
        }
        for p in summary.policies.iter_mut().flatten().chain(summary.local_only.iter_mut()) {
            *p = self.path_for(p, format);
        }
        for p in &mut summary.judged {
            *p = self.path_for(p, format);
        }
    }

    /// An error about a path of the run, with the path as the user knows it.
    pub(crate) fn error(&self, e: error::Error) -> error::Error {
        e.map_path(|p| self.path(p))
    }
}

/// `rest` when `p` is `dir` itself (`""`) or below it.
fn strip_dir<'a>(p: &'a str, dir: &str) -> Option<&'a str> {
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
fn slashed(p: &Path) -> String {
    p.to_string_lossy().replace(std::path::MAIN_SEPARATOR, "/")
}

/// `to` relative to the directory `from` (both absolute), with `..` where needed.
fn relative(from: &Path, to: &Path) -> String {
    let (a, b): (Vec<Component>, Vec<Component>) =
        (from.components().collect(), to.components().collect());
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut out: Vec<String> = vec!["..".to_string(); a.len() - common];
    out.extend(b[common..].iter().map(|c| c.as_os_str().to_string_lossy().into_owned()));
    out.join("/")
}

/// A path as the user should see it: relative to the working directory when they share
/// a directory (`../.override-guard.toml`), never resolved through links.
pub(crate) fn shown_path(p: &Path) -> String {
    let shown = (|| {
        let abs = lexical_absolute(p)?;
        let cwd = lexical_absolute(&std::env::current_dir().ok()?)?;
        let (a, c): (Vec<Component>, Vec<Component>) =
            (abs.components().collect(), cwd.components().collect());
        let common = a.iter().zip(&c).take_while(|(x, y)| x == y).count();
        if common < 2 {
            return None; // Only `/` in common: the absolute path says more.
        }
        let mut rel = PathBuf::new();
        for _ in common..c.len() {
            rel.push("..");
        }
        for x in &a[common..] {
            rel.push(x);
        }
        Some(if rel.as_os_str().is_empty() { PathBuf::from(".") } else { rel })
    })()
    .unwrap_or_else(|| p.to_path_buf());
    slashed(&shown)
}

/// A directory the user named, as a display prefix (`examples`, or empty for `.`).
pub(crate) fn display_root(p: &Path) -> String {
    let s = slashed(p);
    let s = s.trim_end_matches('/');
    let s = s.strip_prefix("./").unwrap_or(s);
    if s == "." { String::new() } else { s.to_string() }
}

/// A file the user named on the command line (`--policy`, `--baseline`, `--var-file`,
/// `remap`'s log), shown as `shown`. It may be anywhere, but where its path as written lies
/// in a repository, a link there leading out of it is the repository's content, not the
/// user's choice (a pull request can replace a file the CI workflow names by a link to a
/// runner's secret): it is not read, and naming the target itself is the way to read that.
pub(super) fn read_named(
    path: &std::path::Path,
    kind: disk::Kind,
    shown: String,
) -> Result<Vec<u8>, error::Error> {
    named_inside(path, &shown)?;
    disk::read(path, kind, disk::Links::Follow).map_err(|e| e.error(shown))
}

/// Refuses a path named on the command line (to read or to write: `--write-baseline`,
/// `init --path`) that lies in a repository as written but leads out of it through a link,
/// its own or a directory's on its way; `shown` names it.
pub(super) fn named_inside(path: &Path, shown: &str) -> Result<(), error::Error> {
    if let Some(repo) = crate::source::worktree::repository(path)
        && let Some(real) = crate::source::worktree::resolved(path)
        && !real.starts_with(&repo)
    {
        return Err(error::Error::NamedLinkOutside { path: shown.to_string() });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_shown_under_the_name_the_user_gave() {
        let shown = Shown {
            root: PathBuf::from("/r"),
            targets: vec![("envs/dev".into(), "dev".into()), ("".into(), "../..".into())],
            identity: false,
            in_repo: true,
        };
        assert_eq!(shown.path("envs/dev/main.tf"), "dev/main.tf");
        assert_eq!(shown.path("envs/dev"), "dev");
        assert_eq!(shown.path("app/main.tf"), "../../app/main.tf");
        assert_eq!(shown.path_for("envs/dev/main.tf", ReportFormat::Sarif), "envs/dev/main.tf");
        assert_eq!(shown.path_for("envs/dev/main.tf", ReportFormat::Github), "envs/dev/main.tf");
        assert_eq!(shown.path_for("envs/dev/main.tf", ReportFormat::Compact), "dev/main.tf");
    }

    #[test]
    fn relative_paths_climb_where_needed() {
        assert_eq!(relative(Path::new("/a/b"), Path::new("/a/c/p.toml")), "../c/p.toml");
        assert_eq!(relative(Path::new("/a"), Path::new("/a/p.toml")), "p.toml");
        assert_eq!(
            common_ancestor([Path::new("/a/b/c"), Path::new("/a/b/d")].into_iter()),
            PathBuf::from("/a/b")
        );
    }
}
