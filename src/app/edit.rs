//! Wiring of the two commands that write: `fix` and `fold`. They plan on the worktree
//! (pure, in [`crate::fix`]), show or check the plan, and only then write through
//! [`super::write`], after making sure git holds a copy of everything they would change.

use crate::error;
use crate::terraform::release::EngineChoice;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::leftovers;
use super::outcome::Outcome;
use super::output::{write_err, write_out};
use super::policies::{judging, refused, resolve_policies, today};
use super::sources::print_disk_notes;
use super::workspace::{Workspace, display_root};
use super::write::{self, Change, Together};
use crate::fix::{FileEdit, comments, fold};
use crate::merge;
use crate::pipeline::{Choice, mark_local};
use crate::report::{self, Style};
use crate::source::{Git, Source, WorktreeSource, join};

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
    let shown = ws.shown();
    let src = ws.worktree_source(true)?;
    let listed = src.modules().map_err(|e| shown.error(e));
    print_disk_notes(&src, &shown);
    leftovers::note(&ws.root, &src.leftovers(), mode == Mode::Write, |p| shown.path(p));
    let dirs: Vec<(String, Vec<String>)> = listed?.into_iter().collect();
    let choice = match policy_path {
        Some(p) => Choice::Fixed(ws.fixed_policy(p)?),
        None => Choice::Nearest,
    };
    let scopes = ws.scopes();
    let asked = dirs.iter().map(|(d, _)| d.as_str()).chain(scopes.iter().map(String::as_str));
    let Some(policies) = resolve_policies(&src, &choice, asked, &shown, style)? else {
        return Ok(Outcome::Error);
    };
    let today = today();
    // Each module is loaded, planned and dropped, in parallel, as `audit` does. A plan
    // only shown is turned into its diff there too: the edited texts (and the module's
    // texts they hold) go with the module, and no diff is left to draw on one thread.
    let plans: Vec<(comments::Plan, Diffs)> = dirs
        .par_iter()
        .map(|(dir, names)| {
            let mut m =
                merge::load(dir, names, engine, |p| src.read(p)).map_err(|e| shown.error(e))?;
            mark_local(&mut m, &src);
            let (_, g) = policies.of(dir);
            let mut plan = comments::plan(&m, &g.policy, &g.base, today);
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
    // Files fold into the module of their directory: group them by it.
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
    let mut all: Vec<(PathBuf, String, Vec<FileEdit>)> = Vec::new();
    let mut refused = false;
    for (dir, names) in groups.into_values() {
        let root = display_root(&dir);
        let src = WorktreeSource::module(&dir);
        let found = src.modules()?.remove("").unwrap_or_default();
        leftovers::note(&dir, &src.leftovers(), !dry_run, |p| shown(&root, p));
        let m = merge::load("", &found, engine, |p| src.read(p))
            .map_err(|e| e.map_path(|p| join(&root, p)))?;
        let Some(swaps) = backend_swaps(&dir, &names, engine, style)? else {
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
                        report::clean_line(&shown(&root, &n.path)),
                        n.line,
                        report::clean_line(&n.reason)
                    ));
                }
                all.push((dir, root, folded.edits));
            }
            Err(refusals) => {
                refused = true;
                for r in refusals {
                    let at = if r.line > 0 { format!(":{}", r.line) } else { String::new() };
                    let path = shown(&root, &r.path);
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
        for (_, root, edits) in &all {
            show_diffs(edits, |p| join(root, p));
        }
        write_err("fold would change the files above; nothing was written\n");
        return Ok(Outcome::Clean);
    }
    let mut changes = Vec::new();
    for (dir, root, edits) in &all {
        changes.extend(to_changes(edits, dir, |p| join(root, p)));
    }
    let start = all.first().map_or(Path::new("."), |(d, _, _)| d.as_path());
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

/// A backend swap among the override files to fold, as the module's policy judges it.
struct Swap {
    /// `path:line`, as shown.
    at: String,
    message: String,
    /// The policy denies it (else it warns of it).
    denied: bool,
}

/// The backend swaps among the override files `names` of the module in `dir`, as the
/// policy that governs it judges them (suppressions and exceptions included). `None` when a
/// broken policy file governs the module (its mistakes are printed), as `fix` and `diff`
/// refuse to judge around one. Folding would turn a swap into the original's own backend,
/// which no later audit reports: the policy has its say first.
fn backend_swaps(
    dir: &Path,
    names: &[String],
    engine: EngineChoice,
    style: Style,
) -> Result<Option<Vec<Swap>>, error::Error> {
    use crate::finding::{Level, RuleId};
    use crate::pipeline::audit::Ask;
    let ws = Workspace::worktree(&[dir.to_path_buf()])?;
    let shown = ws.shown();
    let src = ws.worktree_source(false)?;
    let modules: Vec<(String, Vec<String>)> =
        src.modules().map_err(|e| shown.error(e))?.into_iter().collect();
    let ask = Ask { choice: &Choice::Nearest, levels: &[], engine, today: today() };
    let dirs = modules.iter().map(|(d, _)| d.as_str());
    let Some(audit) = judging(&src, &ask, dirs, &shown, style)? else { return Ok(None) };
    if refused(&audit.policies, &shown, style) {
        return Ok(None);
    }
    let judged = audit.judge(&src, &modules).map_err(|e| shown.error(e))?;
    let swaps = judged
        .values()
        .flat_map(|j| &j.findings)
        .filter(|f| f.rule == RuleId::BackendSwap && f.level != Level::Allow)
        .filter(|f| names.iter().any(|n| n == crate::path::split(&f.primary.path).1))
        .map(|f| {
            let (line, _) = f.primary.start_line_col();
            let at = format!("{}:{line}", report::clean_line(&shown.path(&f.primary.path)));
            Swap { at, message: report::clean_line(&f.message), denied: f.level == Level::Deny }
        })
        .collect();
    Ok(Some(swaps))
}

/// A module path under the directory the user named, `.` for the directory itself.
fn shown(root: &str, path: &str) -> String {
    let p = if path.is_empty() { root.to_string() } else { join(root, path) };
    if p.is_empty() { ".".to_string() } else { p }
}

fn show_diffs(edits: &[FileEdit], name: impl Fn(&str) -> String) {
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
fn to_changes(edits: &[FileEdit], dir: &Path, name: impl Fn(&str) -> String) -> Vec<Change> {
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
fn refuse_dirty(
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
