//! Wiring of `fold`: the override files named folded into their modules' primary files,
//! after the policy's word on any backend swap among them (see `edit.rs` for what it
//! shares with `fix`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::edit::{refuse_dirty, show_diffs, to_changes};
use super::leftovers;
use super::outcome::Outcome;
use super::output::write_err;
use super::policies::{judging, refused, today};
use super::workspace::{Shown, Workspace, worktree_source};
use super::write::{self, Together};
use crate::error;
use crate::fix::{FileEdit, fold};
use crate::pipeline::Choice;
use crate::report::{self, Style};
use crate::source::Source;
use crate::terraform::release::EngineChoice;

/// What `fold` is told it may do besides folding.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Allow {
    /// Write over files git does not hold (`--allow-dirty`).
    pub(super) dirty: bool,
    /// Fold a backend swap the policy denies (`--allow-backend-swap`).
    pub(super) backend_swap: bool,
}

pub(super) fn fold(
    files: &[PathBuf],
    dry_run: bool,
    allow: Allow,
    engine: EngineChoice,
    style: Style,
) -> Result<Outcome, error::Error> {
    let groups = by_directory(files)?;
    let mut all: Vec<(PathBuf, PathBuf, Shown, Vec<FileEdit>)> = Vec::new();
    let mut refused = false;
    for (dir, names) in groups.into_values() {
        let Some(Module { ws, shown, module: m, swaps }) =
            judged_module(&dir, &names, !dry_run, engine, style)?
        else {
            return Ok(Outcome::Error);
        };
        for Swap { at, message, denied } in &swaps {
            if *denied && !allow.backend_swap {
                refused = true;
                write_err(&format!(
                    "error: cannot fold {at}: the policy denies this backend swap (backend-swap): {message}. Folded, the swap would be the original's own, where no override file shows it any more; pass --allow-backend-swap to fold it anyway\n",
                ));
            } else {
                let how = if *denied {
                    "--allow-backend-swap folds a backend swap the policy denies"
                } else {
                    "fold takes in a backend swap the policy warns of"
                };
                write_err(&format!("note: {at}: {how} (backend-swap): {message}\n"));
            }
        }
        if swaps.iter().any(|w| w.denied) && !allow.backend_swap {
            continue;
        }
        match fold::plan(&m, &names) {
            Ok(folded) => {
                for n in &folded.notes {
                    write_err(&format!(
                        "note: {}:{}: {}\n",
                        report::clean_line(&shown.path(&n.path)),
                        n.line,
                        report::clean_line(&n.reason)
                    ));
                }
                all.push((dir, ws.root, shown, folded.edits));
            }
            Err(refusals) => {
                refused = true;
                for r in refusals {
                    let at = if r.line > 0 { format!(":{}", r.line) } else { String::new() };
                    let path = shown.path(&r.path);
                    write_err(&format!(
                        "error: cannot fold {}{at}: {}\n",
                        report::clean_line(&path),
                        report::clean_line(&r.reason)
                    ));
                }
            }
        }
    }
    if refused {
        write_err("nothing was changed\n");
        return Ok(Outcome::Findings);
    }
    if dry_run {
        for (_, _, shown, edits) in &all {
            show_diffs(edits, |p| shown.path(p));
        }
        write_err("fold would change the files above; nothing was written\n");
        return Ok(Outcome::Clean);
    }
    let mut changes = Vec::new();
    for (_, root, shown, edits) in &all {
        changes.extend(to_changes(edits, root, |p| shown.path(p)));
    }
    let start = all.first().map_or(Path::new("."), |(d, ..)| d.as_path());
    write::refuse_not_utf8(&changes)?;
    if let Some(out) = refuse_dirty(&changes, start, allow.dirty)? {
        return Ok(out);
    }
    let written = write::commit(&changes, Together::All)?;
    for &k in &written.done {
        let c = &changes[k];
        let verb = if c.after.is_some() { "rewrote" } else { "deleted" };
        write_err(&format!("{verb} {}\n", report::clean_line(&c.shown)));
    }
    if written.say_left() {
        if !written.done.is_empty() {
            write_err(
                "error: the fold is applied in part only: `git diff` shows what was written, `git checkout -- FILE` undoes it\n",
            );
        }
        return Ok(Outcome::Error);
    }
    Ok(Outcome::Clean)
}

/// The files to fold by the module of their directory (as named, keyed by the absolute
/// directory so `a/x_override.tf` and `./a/y_override.tf` fold together), each file once.
fn by_directory(
    files: &[PathBuf],
) -> Result<BTreeMap<PathBuf, (PathBuf, Vec<String>)>, error::Error> {
    let mut groups: BTreeMap<PathBuf, (PathBuf, Vec<String>)> = BTreeMap::new();
    for f in files {
        let shown = f.to_string_lossy().into_owned();
        let Some(name) = f.file_name().and_then(|n| n.to_str()) else {
            return Err(error::Error::NotAFileName { path: shown });
        };
        match std::fs::symlink_metadata(f) {
            Err(e) => return Err(error::Error::io(shown, e)),
            Ok(_) if f.is_dir() => return Err(error::Error::FoldDirectory { path: shown }),
            Ok(_) => {}
        }
        let dir = f
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
            .to_path_buf();
        let key = crate::source::worktree::lexical_absolute(&dir).unwrap_or_else(|| dir.clone());
        let entry = groups.entry(key).or_insert_with(|| (dir, Vec::new()));
        if !entry.1.iter().any(|n| n == name) {
            entry.1.push(name.to_string());
        }
    }
    Ok(groups)
}

/// A backend swap among the override files to fold, as the module's policy judges it.
struct Swap {
    /// `path:line`, as shown.
    at: String,
    message: String,
    /// The policy denies it (else it warns of it).
    denied: bool,
}

/// The module of `dir` as the audit judges it (its release chosen alike), read through
/// the workspace of `dir`, and the backend swaps among its override files `names` as its
/// policy judges them (suppressions and exceptions included). `None` when a broken policy
/// file governs it (its mistakes are printed), as `fix` and `diff` refuse to judge around
/// one. Folding would turn a swap into the original's own backend, which no later audit
/// reports: the policy has its say first.
fn judged_module(
    dir: &Path,
    names: &[String],
    remove_leftovers: bool,
    engine: EngineChoice,
    style: Style,
) -> Result<Option<Module>, error::Error> {
    use crate::finding::{Level, RuleId};
    use crate::pipeline::audit::Ask;
    let ws = Workspace::worktree(&[dir.to_path_buf()])?;
    let shown = Shown::of(&ws);
    let src = worktree_source(&ws, false);
    leftovers::note(&ws.root, &src.leftovers(), remove_leftovers, |p| shown.path(p));
    let scope = ws.targets.first().map(|t| t.scope.clone()).unwrap_or_default();
    let mut listed = src.modules().map_err(|e| shown.error(e))?;
    let found = listed.remove(&scope).unwrap_or_default();
    let ask = Ask { choice: &Choice::Nearest, levels: &[], engine, today: today() };
    let Some(audit) = judging(&src, &ask, [scope.as_str()], &shown, style)? else {
        return Ok(None);
    };
    if refused(&audit.policies, &shown, style) {
        return Ok(None);
    }
    let judged = audit.judge(&src, &[(scope, found)]).map_err(|e| shown.error(e))?;
    // One module was asked for, and the judging answers each.
    let Some(j) = judged.into_values().next() else { return Ok(None) };
    let swaps = j
        .findings
        .iter()
        .filter(|f| f.rule == RuleId::BackendSwap && f.level != Level::Allow)
        .filter(|f| names.iter().any(|n| n == crate::path::split(&f.primary.path).1))
        .map(|f| {
            let (line, _) = f.primary.start_line_col();
            let at = format!("{}:{line}", report::clean_line(&shown.path(&f.primary.path)));
            Swap { at, message: report::clean_line(&f.message), denied: f.level == Level::Deny }
        })
        .collect();
    Ok(Some(Module { ws, shown, module: j.loaded.module, swaps }))
}

/// A module to fold, with where it was read from and how its paths are shown.
struct Module {
    ws: Workspace,
    shown: Shown,
    module: crate::merge::Module,
    swaps: Vec<Swap>,
}
