//! The flattened tree on disk, for `flatten` and `scan`: the output directory checked
//! (never inside what is copied, empty unless `--force`), every module planned by
//! [`crate::flatten`] and written with the files around it, and the map of its lines.

use crate::error;
use crate::terraform::release::EngineChoice;
use std::collections::BTreeSet;
use std::path::Path;

use rayon::prelude::*;

use super::workspace::{Shown, Workspace, worktree_source};
use crate::flatten::remap::{TreeMap, Unflattened};
use crate::flatten::{self, DropKind, ModulePlan};
use crate::merge;
use crate::report;
use crate::source::worktree::resolved;
use crate::source::{Source, WorktreeSource, join};

/// The map's name, in the flattened tree's root. Scanners do not read it (a hidden JSON
/// file is nobody's configuration).
pub(super) const MAP_FILE: &str = ".override-guard-map.json";

/// What writing a tree did, for the summary line.
#[derive(Default)]
pub(super) struct Tally {
    pub(super) modules: usize,
    pub(super) flattened: usize,
    /// Modules copied as they are (Terraform rejects them, or `fold` refuses).
    pub(super) refused: usize,
    pub(super) folded: usize,
    pub(super) shadowed: usize,
    pub(super) copied: usize,
    pub(super) notes: Vec<String>,
}

/// Refuses an output directory that would be part of what is flattened or hold it, that
/// lies in a `.git` directory, or that leads out of its repository through a link; and
/// one that has content, unless `force` and it is a tree `flatten` wrote before (it holds
/// the map), which is emptied then. Every check comes before anything is written or
/// removed: `--force` never empties a module, a repository or anything else of the user's.
pub(super) fn prepare_out(ws: &Workspace, out: &Path, force: bool) -> Result<(), error::Error> {
    let shown = out.display().to_string();
    let bad = |why: &str| error::Error::Usage { message: format!("--out {shown}: {why}") };
    let Some(real) = resolved(out) else {
        return Err(bad("cannot tell where it is (its parent cannot be resolved)"));
    };
    for t in &ws.targets {
        let target = ws.root.join(&t.scope);
        let named = if t.typed.is_empty() { ".".to_string() } else { t.typed.clone() };
        if real.starts_with(&target) {
            return Err(bad(&format!(
                "it is inside {named}, which is flattened: the copy would be read as modules of its own; name a directory outside it"
            )));
        }
        if target.starts_with(&real) {
            return Err(bad(&format!(
                "it holds {named}, which is flattened; name a directory outside it"
            )));
        }
    }
    if ws.root.starts_with(&real) {
        return Err(bad("it holds the repository; name a directory outside it"));
    }
    if real.ancestors().any(|a| a.file_name() == Some(std::ffi::OsStr::new(".git"))) {
        return Err(bad("it is inside a .git directory; name a directory outside it"));
    }
    if let Some(repo) = crate::source::worktree::repository(out)
        && !real.starts_with(&repo)
    {
        return Err(bad(
            "a symbolic link leading out of the repository it is in; name the directory it points to, to write there",
        ));
    }
    match std::fs::symlink_metadata(&real) {
        Err(_) => {}
        Ok(m) if !m.is_dir() => return Err(bad("exists and is not a directory")),
        Ok(_) => {
            let io = |e| error::Error::io(shown.clone(), e);
            let entries: Vec<std::fs::DirEntry> =
                std::fs::read_dir(&real).map_err(io)?.collect::<Result<_, _>>().map_err(io)?;
            if !entries.is_empty() {
                if !force {
                    return Err(bad(
                        "exists and is not empty (--force empties a tree flatten wrote before)",
                    ));
                }
                if !real.join(MAP_FILE).is_file() {
                    return Err(bad(&format!(
                        "exists and holds files flatten did not write (it has no {MAP_FILE}): --force empties only a tree flatten wrote before; name a new or empty directory"
                    )));
                }
            }
            for e in entries {
                let p = e.path();
                let removed = if e.file_type().is_ok_and(|t| t.is_dir()) {
                    std::fs::remove_dir_all(&p)
                } else {
                    std::fs::remove_file(&p)
                };
                removed.map_err(|e| error::Error::io(p.display().to_string(), e))?;
            }
        }
    }
    std::fs::create_dir_all(&real).map_err(|e| error::Error::io(shown, e))
}

/// The repository-relative directory the tree's root stands for: the targets' deepest
/// common directory.
fn tree_root(ws: &Workspace) -> String {
    let mut common: Option<Vec<&str>> = None;
    for t in &ws.targets {
        let parts: Vec<&str> = t.scope.split('/').filter(|p| !p.is_empty()).collect();
        common = Some(match common {
            None => parts,
            Some(c) => c.iter().zip(&parts).take_while(|(a, b)| a == b).map(|(a, _)| *a).collect(),
        });
    }
    common.unwrap_or_default().join("/")
}

/// A repository path under the tree's root, relative to it.
fn under_root<'a>(root: &str, path: &'a str) -> Option<&'a str> {
    if root.is_empty() {
        return Some(path);
    }
    path.strip_prefix(root).and_then(|p| p.strip_prefix('/'))
}

/// Plans every module, then writes the tree: the rewritten files, and every other file
/// under the targets as it is (git-ignored files outside modules, `.git` and
/// `.terraform` left out, as a scanner run on a fresh checkout would see them).
pub(super) fn write_tree(
    ws: &Workspace,
    out: &Path,
    engine: EngineChoice,
) -> Result<(TreeMap, Tally), error::Error> {
    let shown = Shown::of(ws);
    let src = worktree_source(ws, true);
    let dirs: Vec<(String, Vec<String>)> =
        src.modules().map_err(|e| shown.error(e))?.into_iter().collect();
    let plans: Vec<(String, Vec<String>, ModulePlan)> = dirs
        .par_iter()
        .map(|(dir, names)| {
            let m = merge::load(dir, names, engine, |p| src.read(p)).map_err(|e| shown.error(e))?;
            Ok((dir.clone(), names.clone(), flatten::plan(&m)))
        })
        .collect::<Result<_, error::Error>>()?;
    let root = tree_root(ws);
    let refused = plans.iter().filter(|p| !p.2.refused.is_empty()).count();
    let mut w = Tally { modules: plans.len(), refused, ..Tally::default() };
    let mut map = TreeMap { version: 1, root: root.clone(), ..TreeMap::default() };
    // Every file of a module, so git-ignored ones are copied too (Terraform reads them).
    let mut files: BTreeSet<String> = BTreeSet::new();
    let mut skip: BTreeSet<String> = BTreeSet::new();
    for (dir, names, plan) in plans {
        files.extend(names.iter().map(|n| join(&dir, n)));
        if !plan.refused.is_empty() {
            for r in &plan.refused {
                let at = if r.line > 0 { format!(":{}", r.line) } else { String::new() };
                w.notes.push(format!(
                    "note: {}{at}: copied as it is, not flattened: {}\n",
                    report::clean_line(&shown.path(&r.path)),
                    report::clean_line(&r.reason)
                ));
            }
            map.unflattened.extend(plan.refused.into_iter().map(Unflattened::from));
            continue;
        }
        if !plan.written.is_empty() || !plan.dropped.is_empty() {
            w.flattened += 1;
        }
        for d in plan.dropped {
            match d.kind {
                DropKind::Folded => {
                    w.folded += 1;
                    if let Some(how) = src.local(&d.source) {
                        w.notes.push(local_note(&shown.path(&d.source), how));
                    }
                }
                DropKind::Shadowed => w.shadowed += 1,
            }
            skip.insert(d.source.clone());
            map.dropped.push(d);
        }
        for mut f in plan.written {
            skip.insert(f.source.clone());
            let Some(rel) = under_root(&root, &f.path).map(str::to_string) else { continue };
            let dest = out.join(&rel);
            write_file(&dest, f.text.as_bytes())?;
            f.path = rel;
            map.files.push(f);
        }
    }
    for t in &ws.targets {
        walk_copy(ws, &src, &t.scope, out, &root, &skip, &mut files, &mut w)?;
    }
    // Module files the walk did not reach (git-ignored): Terraform reads them.
    for path in files {
        if skip.contains(&path) {
            continue;
        }
        let Some(rel) = under_root(&root, &path) else { continue };
        match src.read(&path) {
            Ok(bytes) => {
                write_file(&out.join(rel), &bytes)?;
                w.copied += 1;
            }
            // The file's own failure (a dangling link, a permission): its module failed
            // to load with it, and was copied as it is without it.
            Err(e @ error::Error::LinkOutside { .. }) | Err(e @ error::Error::TooLarge { .. }) => {
                w.notes.push(format!(
                    "note: {}: not copied: {}\n",
                    report::clean_line(&shown.path(&path)),
                    report::clean_line(&not_copied(&e))
                ))
            }
            Err(e) => match crate::merge::ReadError::unreadable(&e) {
                Some(why) => w.notes.push(format!(
                    "note: {}: not copied: {}\n",
                    report::clean_line(&shown.path(&path)),
                    report::clean_line(&why)
                )),
                None => return Err(shown.error(e)),
            },
        }
    }
    map.files.sort_by(|a, b| a.path.cmp(&b.path));
    map.dropped.sort_by(|a, b| a.source.cmp(&b.source));
    Ok((map, w))
}

/// The note on an override file git does not track, folded all the same: Terraform runs
/// it in this checkout, so the scanner judges what runs here; but CI and teammates run
/// without it, and what the scanner finds on it is this checkout's alone (a finding there
/// names a file the repository does not have).
fn local_note(path: &str, how: crate::terraform::Local) -> String {
    format!(
        "note: {}: {} override file, folded all the same: Terraform runs it in this checkout, but CI and teammates run without it, so a finding on it names a file they do not have\n",
        report::clean_line(path),
        match how {
            crate::terraform::Local::Ignored => "a git-ignored",
            crate::terraform::Local::Untracked => "an untracked",
        }
    )
}

fn write_file(dest: &Path, bytes: &[u8]) -> Result<(), error::Error> {
    // A stop of `scan` waits for this file: it removes the whole tree after.
    let _held = super::stop::hold();
    let shown = dest.display().to_string();
    if let Some(parent) = dest.parent() {
        std::fs::create_dir_all(parent).map_err(|e| error::Error::io(shown.clone(), e))?;
    }
    std::fs::write(dest, bytes).map_err(|e| error::Error::io(shown, e))
}

/// Copies the files under one target, as they are, read as module files are (see
/// [`WorktreeSource`]'s `read`): nothing a link leads to outside the repository, no FIFO,
/// socket or device, nothing over the bound. `pending` holds the module files not
/// written yet; the walk takes the ones it copies out of it.
#[allow(clippy::too_many_arguments)]
fn walk_copy(
    ws: &Workspace,
    src: &WorktreeSource,
    scope: &str,
    out: &Path,
    root: &str,
    skip: &BTreeSet<String>,
    pending: &mut BTreeSet<String>,
    w: &mut Tally,
) -> Result<(), error::Error> {
    let base = ws.root.join(scope);
    let out_real = std::fs::canonicalize(out).ok();
    let walker = ignore::WalkBuilder::new(&base)
        .hidden(false)
        .git_ignore(true)
        .git_global(false)
        .git_exclude(true)
        .ignore(false)
        .parents(true)
        .follow_links(false)
        // The notes about what is not copied come in the same order every run.
        .sort_by_file_name(|a, b| a.cmp(b))
        .filter_entry(move |e| {
            let name = e.file_name();
            !(e.file_type().is_some_and(|t| t.is_dir()) && (name == ".git" || name == ".terraform"))
        })
        .build();
    for entry in walker {
        let e = match entry {
            Ok(e) => e,
            Err(err) => {
                w.notes
                    .push(format!("note: not copied: {}\n", report::clean_line(&err.to_string())));
                continue;
            }
        };
        let full = e.path();
        if out_real.as_deref().is_some_and(|o| full.starts_with(o)) {
            continue;
        }
        let Some(ft) = e.file_type() else { continue };
        if ft.is_dir() {
            continue;
        }
        let Ok(rel_repo) = full.strip_prefix(&ws.root) else { continue };
        let path = rel_repo.to_string_lossy().replace('\\', "/");
        if skip.contains(&path) {
            pending.remove(&path);
            continue;
        }
        let Some(rel) = under_root(root, &path) else { continue };
        if ft.is_symlink() && std::fs::metadata(full).is_ok_and(|m| m.is_dir()) {
            w.notes.push(format!(
                "note: {}: a link to a directory, not copied\n",
                report::clean_line(&Shown::of(ws).path(&path))
            ));
            continue;
        }
        match src.read(&path) {
            Ok(bytes) => {
                write_file(&out.join(rel), &bytes)?;
                pending.remove(&path);
                w.copied += 1;
            }
            // A module's file is noted once, by the loop over module files.
            Err(_) if pending.contains(&path) => {}
            Err(err) => w.notes.push(format!(
                "note: {}: not copied: {}\n",
                report::clean_line(&Shown::of(ws).path(&path)),
                report::clean_line(&not_copied(&err))
            )),
        }
    }
    Ok(())
}

/// Why a file was not copied, without its path (the note names it).
fn not_copied(e: &error::Error) -> String {
    match e {
        error::Error::LinkOutside { .. } => error::LINK_OUTSIDE.to_string(),
        e => crate::merge::ReadError::unreadable(e).unwrap_or_else(|| e.to_string()),
    }
}
