//! How a run's paths are shown: one answer for every command and every source (which files
//! belong to a run is the workspace's, `source/workspace.rs`), and the files named on the
//! command line, read or refused.

use crate::error;
use std::path::{Component, Path, PathBuf};

use crate::pipeline::PolicyFile;
use crate::policy::{Finding, GlobBase};
use crate::report::ReportFormat;
use crate::report::findings::Summary;
pub(crate) use crate::source::workspace::{Opened, Pair, State, Workspace, display_root, under};
use crate::source::workspace::{slashed, strip_dir};
use crate::source::worktree::lexical_absolute;
use crate::source::{WorktreeSource, disk, join};

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
    /// How this run's paths are shown: under the name the user gave each target, else
    /// relative to the working directory.
    pub(crate) fn of(ws: &Workspace) -> Shown {
        let mut targets: Vec<(String, String)> =
            ws.targets.iter().map(|t| (t.scope.clone(), t.typed.clone())).collect();
        targets.sort_by_key(|(scope, _)| std::cmp::Reverse(scope.len()));
        Shown { root: ws.root.clone(), targets, identity: false, in_repo: ws.git.is_some() }
    }

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

/// `--policy PATH`: the file on disk, for every module; its globs are relative to its
/// directory.
pub(crate) fn fixed_policy(ws: &Workspace, file: &Path) -> Result<PolicyFile, error::Error> {
    let shown = shown_path(file);
    let bytes = read_named(file, disk::Kind::Policy, shown.clone())?;
    let text = String::from_utf8(bytes)
        .map_err(|e| error::Error::NotUtf8 { path: shown.clone(), source: e.utf8_error() })?;
    let real = std::fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf());
    let dir = real.parent().map(Path::to_path_buf).unwrap_or_default();
    let base = if ws.root.as_os_str().is_empty() {
        GlobBase::default()
    } else if let Ok(rel) = dir.strip_prefix(&ws.root) {
        GlobBase { dir: slashed(rel), down: String::new() }
    } else if let Ok(rel) = ws.root.strip_prefix(&dir) {
        GlobBase { dir: String::new(), down: slashed(rel) }
    } else {
        GlobBase::default()
    };
    let path = if ws.root.as_os_str().is_empty() { shown } else { relative(&ws.root, &real) };
    Ok(PolicyFile { path, text, base })
}

/// The run's source for `state` (see [`Workspace::open`]), with a note when git's index
/// cannot be read for a worktree.
pub(crate) fn open(ws: &Workspace, state: State<'_>) -> Result<Opened, error::Error> {
    let (opened, untracked) = ws.open(state)?;
    if let Some(e) = untracked {
        note_untracked(e);
    }
    Ok(opened)
}

/// Two states of the run and what differs between them (see [`Workspace::open_pair`]),
/// with a note when git's index cannot be read for a worktree side.
pub(crate) fn open_pair(
    ws: &Workspace,
    before: State<'_>,
    after: State<'_>,
) -> Result<Pair, error::Error> {
    let (pair, untracked) = ws.open_pair(before, after)?;
    if let Some(e) = untracked {
        note_untracked(e);
    }
    Ok(pair)
}

/// The worktree below the targets (see [`Workspace::worktree_source`]), with a note when
/// git's index cannot be read.
pub(crate) fn worktree_source(ws: &Workspace, recursive: bool) -> WorktreeSource {
    let (src, untracked) = ws.worktree_source(recursive);
    if let Some(e) = untracked {
        note_untracked(e);
    }
    src
}

/// Git's index could not be read: the worktree is read without it, and only the files git
/// does not track cannot be told apart. The message is escaped as the path is: a subject
/// escaped for one line, then `clean` over the whole (a no-op on the escaped subject).
fn note_untracked(e: error::Error) {
    let e = e.map_path(crate::report::clean_line);
    super::output::write_note(&format!(
        "note: {}; files git does not track are not told apart\n",
        crate::report::clean(&e.to_string())
    ));
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
    }
}
