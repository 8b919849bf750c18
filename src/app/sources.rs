//! The run's sources: the directories named on the command line, from the worktree, the
//! index or a revision, and the notes about what a source skipped.

use std::path::PathBuf;

use super::output::write_note;
pub(super) use super::workspace::Opened;
use super::workspace::{Shown, State, Workspace, open as open_state};
use crate::cli::FromArgs;
use crate::error;
use crate::report;

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
/// `recursive`), with their blobs read from git, and what the source skipped printed.
fn modules_of(
    ws: &Workspace,
    opened: &mut Opened,
    recursive: bool,
    shown: &Shown,
) -> Result<Vec<(String, Vec<String>)>, error::Error> {
    let modules = ws.modules(opened, recursive);
    // A worktree knows what it skipped once it has listed, whether or not that failed.
    if modules.is_ok() || matches!(opened, Opened::Disk(_)) {
        print_notes(opened.notes(|p| ws.covers(p)), shown);
    }
    modules.map_err(|e| shown.error(e))
}

/// `note:` lines about what a source skipped.
pub(super) fn print_notes(notes: Vec<(String, String)>, shown: &Shown) {
    let mut err = String::new();
    for (path, n) in notes {
        err.push_str(&format!(
            "note: {}: {}\n",
            report::clean_line(&shown.path(&path)),
            report::clean(&n)
        ));
    }
    write_note(&err);
}
