//! Wiring of `fix`, and what it shares with `fold` (`fold.rs`), the other command that
//! writes: both plan on the worktree (pure, in [`crate::fix`]), show or check the plan, and
//! only then write through [`super::write`], after making sure git holds a copy of
//! everything they would change.

use crate::error;
use crate::terraform::release::EngineChoice;
use std::path::Path;

use rayon::prelude::*;

use super::leftovers;
use super::outcome::Outcome;
use super::output::{write_err, write_out};
use super::policies::{judging, refused, today};
use super::sources::print_notes;
use super::workspace::{Shown, Workspace, display_root, fixed_policy, worktree_source};
use super::write::{self, Change, Together};
use crate::fix::{FileEdit, comments};
use crate::pipeline::Choice;
use crate::pipeline::audit::Ask;
use crate::report::{self, Style};
use crate::source::{Git, Source};

/// What to do with a plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Mode {
    Write,
    DryRun,
    Check,
}

pub(super) fn fix(
    path: &Path,
    mode: Mode,
    allow_dirty: bool,
    engine: EngineChoice,
    policy_path: Option<&Path>,
    style: Style,
) -> Result<Outcome, error::Error> {
    let ws = Workspace::worktree(&[path.to_path_buf()])?;
    let shown = Shown::of(&ws);
    let src = worktree_source(&ws, true);
    let listed = src.modules().map_err(|e| shown.error(e));
    print_notes(src.notes(), &shown);
    leftovers::note(&ws.root, &src.leftovers(), mode == Mode::Write, |p| shown.path(p));
    let dirs: Vec<(String, Vec<String>)> = listed?.into_iter().collect();
    let choice = match policy_path {
        Some(p) => Choice::Fixed(fixed_policy(&ws, p)?),
        None => Choice::Nearest,
    };
    let scopes = ws.scopes();
    let asked = dirs.iter().map(|(d, _)| d.as_str()).chain(scopes.iter().map(String::as_str));
    let ask = Ask { choice: &choice, levels: &[], engine, today: today() };
    let Some(audit) = judging(&src, &ask, asked, &shown, style)? else {
        return Ok(Outcome::Error);
    };
    if refused(&audit.policies, &shown, style) {
        return Ok(Outcome::Error);
    }
    // Each module is loaded, planned and dropped, in parallel, as `audit` does. A plan
    // only shown is turned into its diff there too: the edited texts (and the module's
    // texts they hold) go with the module, and no diff is left to draw on one thread.
    let plans: Vec<(comments::Plan, Diffs)> = dirs
        .par_iter()
        .map(|(dir, names)| {
            let m = audit.module(&src, dir, names).map_err(|e| shown.error(e))?;
            let (_, g) = audit.policies.of(dir);
            let mut plan = comments::plan(&m, &g.policy, &g.base, audit.today);
            let diffs = match mode {
                Mode::Write => Diffs::default(),
                Mode::DryRun | Mode::Check => {
                    let files = plan.edits.len();
                    let text = diffs(&plan.edits, |p| shown.path(p));
                    plan.edits.clear();
                    Diffs { files, text }
                }
            };
            Ok((plan, diffs))
        })
        .collect::<Result<_, error::Error>>()?;
    let mut edits = Vec::new();
    let mut problems = Vec::new();
    let mut diffed = Diffs::default();
    for (plan, d) in plans {
        edits.extend(plan.edits);
        problems.extend(plan.problems);
        diffed.files += d.files;
        diffed.text.push_str(&d.text);
    }
    for p in &problems {
        let at = if p.line > 0 { format!(":{}", p.line) } else { String::new() };
        write_err(&format!(
            "warning: {}{at}: {}\n",
            report::clean_line(&shown.path(&p.path)),
            report::clean_line(&p.message)
        ));
    }
    let left = if problems.is_empty() { Outcome::Clean } else { Outcome::Findings };
    if edits.is_empty() && diffed.files == 0 {
        if problems.is_empty() {
            write_err("nothing to fix: every overridden original has its warning comment\n");
        }
        return Ok(left);
    }
    let noun = |n: usize| if n == 1 { "file" } else { "files" };
    let name = |p: &str| shown.path(p);
    match mode {
        Mode::DryRun | Mode::Check => {
            write_out(&diffed.text);
            let n = diffed.files;
            if mode == Mode::Check {
                write_err(&format!(
                    "{n} {} need warning comments added or updated; `override-guard fix` writes them\n",
                    noun(n)
                ));
                Ok(Outcome::Findings)
            } else {
                write_err(&format!("fix would change {n} {}; nothing was written\n", noun(n)));
                Ok(left)
            }
        }
        Mode::Write => {
            let changes = to_changes(&edits, &ws.root, name);
            write::refuse_not_utf8(&changes)?;
            if let Some(out) = refuse_dirty(&changes, path, allow_dirty)? {
                return Ok(out);
            }
            let written = write::commit(&changes, Together::Each)?;
            for &k in &written.done {
                write_err(&format!("fixed {}\n", report::clean_line(&changes[k].shown)));
            }
            if written.say_left() { Ok(Outcome::Error) } else { Ok(left) }
        }
    }
}

pub(super) fn show_diffs(edits: &[FileEdit], name: impl Fn(&str) -> String) {
    write_out(&diffs(edits, name));
}

/// The unified diffs of some edits, each file named as `name` says.
fn diffs(edits: &[FileEdit], name: impl Fn(&str) -> String) -> String {
    let mut out = String::new();
    for e in edits {
        out.push_str(&e.diff(&name(&e.path)));
    }
    out
}

/// Edits already drawn as diffs: how many files, and the text.
#[derive(Default)]
struct Diffs {
    files: usize,
    text: String,
}

/// The writes of some edits: each file under `dir`, shown as `name` says.
pub(super) fn to_changes(
    edits: &[FileEdit],
    dir: &Path,
    name: impl Fn(&str) -> String,
) -> Vec<Change> {
    edits
        .iter()
        .map(|e| Change {
            path: dir.join(&e.path),
            shown: name(&e.path),
            before: e.before.as_bytes().to_vec(),
            after: e.after.as_ref().map(|a| a.as_bytes().to_vec()),
        })
        .collect()
}

/// Refuses (printing why) unless git's index holds the current content of every file to
/// change, so that `git checkout -- FILE` can undo the command; `--allow-dirty` skips it.
pub(super) fn refuse_dirty(
    changes: &[Change],
    start: &Path,
    allow_dirty: bool,
) -> Result<Option<Outcome>, error::Error> {
    if allow_dirty {
        return Ok(None);
    }
    let hint = "stage or commit them first (then `git diff` shows the change, and `git checkout -- FILE` undoes it), or pass --allow-dirty";
    let git = match Git::discover(start) {
        Ok(g) if !g.is_bare() => g,
        _ => {
            let shown = display_root(start);
            write_err(&format!(
                "error: {} is not in a git worktree, so nothing could undo this change; pass --allow-dirty to write anyway\n",
                report::clean_line(if shown.is_empty() { "." } else { &shown })
            ));
            return Ok(Some(Outcome::Error));
        }
    };
    let mut dirty = Vec::new();
    for c in changes {
        let why = match git.relative(&c.path) {
            None => Some("outside the repository's worktree"),
            Some(rel) => match git.matches_index(&rel, &c.before)? {
                Some(true) => None,
                Some(false) => Some("has changes that are not staged"),
                None => Some("is not tracked by git"),
            },
        };
        if let Some(why) = why {
            dirty.push(format!("error: {} {why}\n", report::clean_line(&c.shown)));
        }
    }
    if dirty.is_empty() {
        return Ok(None);
    }
    write_err(&format!("{}{hint}; nothing was written\n", dirty.concat()));
    Ok(Some(Outcome::Error))
}
