//! The run's sources: the directories named on the command line, from the worktree, the
//! index or a revision, and the notes about what a source skipped.

use std::collections::BTreeSet;
use std::path::PathBuf;

use super::output::write_note;
pub(super) use super::workspace::Opened;
use super::workspace::{Shown, State, Workspace, open as open_state};
use crate::cli::FromArgs;
use crate::error;
use crate::report;
use crate::source::{GitSource, WorktreeSource};

/// What a command reads: the directories named (as the user typed them), their source,
/// and the modules in them.
pub(super) struct Read {
    pub(super) ws: Workspace,
    pub(super) shown: Shown,
    pub(super) opened: Opened,
    pub(super) modules: Vec<(String, Vec<String>)>,
}

/// Reads the directories named, from the worktree or from git (`--staged` / `--rev`):
/// their modules (below them too, with `recursive`), with the notes about what the
/// source skipped printed.
pub(super) fn read(
    paths: &[PathBuf],
    from: &FromArgs,
    recursive: bool,
) -> Result<Read, error::Error> {
    let ws = workspace(paths, from)?;
    let shown = Shown::of(&ws);
    let mut opened = open(&ws, from, recursive)?;
    let modules = modules_of(&ws, &mut opened, recursive, &shown)?;
    Ok(Read { ws, shown, opened, modules })
}

/// The directories named, from the worktree, or from git with `--staged` / `--rev`.
fn workspace(paths: &[PathBuf], from: &FromArgs) -> Result<Workspace, error::Error> {
    if from.staged || from.rev.is_some() {
        Workspace::git(paths)
    } else {
        Workspace::worktree(paths)
    }
}

/// The run's source: the index or a revision (per `--staged` / `--rev`), else the worktree
/// below the targets (with their subdirectories or not).
fn open(ws: &Workspace, from: &FromArgs, recursive: bool) -> Result<Opened, error::Error> {
    let state = match (&ws.git, &from.rev) {
        (Some(_), Some(rev)) => State::Revision(rev),
        (Some(_), None) if from.staged => State::Index,
        _ => State::Worktree { recursive },
    };
    open_state(ws, state)
}

/// The modules of an opened source that lie in the targets (below them too, with
/// `recursive`), with their blobs read from git; a worktree's listing notes are printed.
fn modules_of(
    ws: &Workspace,
    opened: &mut Opened,
    recursive: bool,
    shown: &Shown,
) -> Result<Vec<(String, Vec<String>)>, error::Error> {
    let listed = opened.source().modules();
    if let Opened::Disk(d) = &*opened {
        print_disk_notes(d, shown);
    }
    let modules: Vec<(String, Vec<String>)> = listed
        .map_err(|e| shown.error(e))?
        .into_iter()
        .filter(
            |(d, _)| {
                if recursive { ws.covers(d) } else { ws.targets.iter().any(|t| t.scope == *d) }
            },
        )
        .collect();
    if let (Opened::Git(g), Some(git)) = (&mut *opened, &ws.git) {
        let dirs: BTreeSet<String> = modules.iter().map(|(d, _)| d.clone()).collect();
        git.load(g, Some(&dirs))?;
        print_git_notes(g, shown, |p| ws.covers(p));
    }
    Ok(modules)
}

/// `note:` lines about what a source skipped.
pub(super) fn print_notes<'a>(notes: impl Iterator<Item = (&'a str, &'a str)>, shown: &Shown) {
    let mut err = String::new();
    for (path, n) in notes {
        err.push_str(&format!(
            "note: {}: {}\n",
            report::clean_line(&shown.path(path)),
            report::clean(n)
        ));
    }
    write_note(&err);
}

/// What a git source skipped, for the paths `keep` accepts.
pub(super) fn print_git_notes(src: &GitSource, shown: &Shown, keep: impl Fn(&str) -> bool) {
    print_notes(src.notes_for(keep).into_iter(), shown);
}

/// What a worktree source skipped, once it has listed its files.
pub(super) fn print_disk_notes(src: &WorktreeSource, shown: &Shown) {
    let all = src.notes();
    print_notes(all.iter().map(|(p, n)| (p.as_str(), n.as_str())), shown);
}
