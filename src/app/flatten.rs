//! Wiring of `flatten`, `scan` and `remap`: the worktree's modules planned by
//! [`crate::flatten`], the tree written under the directory the user named (or a
//! temporary one, for `scan`), the scanner run, its SARIF put back on the user's files.

use crate::error;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use rayon::prelude::*;

use super::workspace::Workspace;
use super::{Outcome, write_err, write_out};
use crate::cli::ScanFormat;
use crate::flatten::remap::{self, TreeMap, Unflattened};
use crate::flatten::{self, DropKind, ModulePlan};
use crate::merge;
use crate::report;
use crate::source::{Source, join};
use crate::terraform::discover::Engine;

/// The map's name, in the flattened tree's root. Scanners do not read it (a hidden JSON
/// file is nobody's configuration).
pub const MAP_FILE: &str = ".override-guard-map.json";

/// What writing a tree did, for the summary line.
#[derive(Default)]
struct Tally {
    modules: usize,
    flattened: usize,
    folded: usize,
    shadowed: usize,
    copied: usize,
    notes: Vec<String>,
}

pub fn flatten(
    paths: &[PathBuf],
    out: &Path,
    force: bool,
    engine: Option<Engine>,
) -> Result<Outcome, error::Error> {
    let ws = Workspace::worktree(paths)?;
    let shown_out = out.display().to_string();
    prepare_out(&ws, out, force)?;
    let (map, w) = write_tree(&ws, out, engine)?;
    let text = serde_json::to_string_pretty(&map).unwrap_or_default() + "\n";
    std::fs::write(out.join(MAP_FILE), text)
        .map_err(|e| error::Error::io(format!("{shown_out}/{MAP_FILE}"), e))?;
    for n in &w.notes {
        write_err(n);
    }
    write_err(&format!(
        "flattened {} of {} into {}: {} folded, {} left out, {} copied as {}; line map in {}\n",
        w.flattened,
        count(w.modules, "module"),
        report::clean_line(&shown_out),
        count(w.folded, "override file"),
        count(w.shadowed, "shadowed .tf file"),
        count(w.copied, "other file"),
        if w.copied == 1 { "it is" } else { "they are" },
        MAP_FILE
    ));
    Ok(if map.unflattened.is_empty() { Outcome::Clean } else { Outcome::Findings })
}

/// `1 module`, `2 modules`.
fn count(n: usize, what: &str) -> String {
    if n == 1 { format!("1 {what}") } else { format!("{n} {what}s") }
}

/// Refuses an output directory that would hold or be part of what is copied, or that
/// has content (unless `force`, which empties it first).
fn prepare_out(ws: &Workspace, out: &Path, force: bool) -> Result<(), error::Error> {
    let shown = out.display().to_string();
    let bad = |why: &str| error::Error::Usage { message: format!("--out {shown}: {why}") };
    if let Ok(real) = std::fs::canonicalize(out) {
        for t in &ws.targets {
            let target = ws.root.join(&t.scope);
            if target.starts_with(&real) {
                return Err(bad("it holds the tree to flatten; name a directory outside it"));
            }
        }
        if ws.root.starts_with(&real) {
            return Err(bad("it holds the repository; name a directory outside it"));
        }
        let io = |e| error::Error::io(shown.clone(), e);
        let entries: Vec<std::fs::DirEntry> =
            std::fs::read_dir(&real).map_err(io)?.collect::<Result<_, _>>().map_err(io)?;
        if !entries.is_empty() && !force {
            return Err(bad("exists and is not empty (--force empties it first)"));
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
    std::fs::create_dir_all(out).map_err(|e| error::Error::io(shown, e))
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
fn write_tree(
    ws: &Workspace,
    out: &Path,
    engine: Option<Engine>,
) -> Result<(TreeMap, Tally), error::Error> {
    let shown = ws.shown();
    let src = ws.worktree_source(true)?;
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
    let mut w = Tally { modules: plans.len(), ..Tally::default() };
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
                DropKind::Folded => w.folded += 1,
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
        walk_copy(ws, &t.scope, out, &root, &skip, &mut files, &mut w)?;
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

fn write_file(dest: &Path, bytes: &[u8]) -> Result<(), error::Error> {
    let shown = dest.display().to_string();
    if let Some(parent) = dest.parent() {
        std::fs::create_dir_all(parent).map_err(|e| error::Error::io(shown.clone(), e))?;
    }
    std::fs::write(dest, bytes).map_err(|e| error::Error::io(shown, e))
}

/// Copies the files under one target, as they are. `pending` holds the module files not
/// written yet; the walk takes the ones it copies out of it.
fn walk_copy(
    ws: &Workspace,
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
                report::clean_line(&ws.shown().path(&path))
            ));
            continue;
        }
        match std::fs::read(full) {
            Ok(bytes) => {
                write_file(&out.join(rel), &bytes)?;
                pending.remove(&path);
                w.copied += 1;
            }
            // A module's file is noted once, by the loop over module files.
            Err(_) if pending.contains(&path) => {}
            Err(err) => w.notes.push(format!(
                "note: {}: not copied: {err}\n",
                report::clean_line(&ws.shown().path(&path))
            )),
        }
    }
    Ok(())
}

/// A directory of its own under the system's temporary directory, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> Result<TempDir, error::Error> {
        let base = std::env::temp_dir();
        let pid = std::process::id();
        let mut last = None;
        for n in 0..1000u32 {
            let p = base.join(format!("override-guard-scan-{pid}-{n}"));
            match std::fs::create_dir(&p) {
                Ok(()) => return Ok(TempDir(p)),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
                Err(e) => return Err(error::Error::io(base.display().to_string(), e)),
            }
        }
        Err(error::Error::io(
            base.display().to_string(),
            last.unwrap_or_else(|| std::io::Error::other("no free name")),
        ))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub fn scan(
    path: &Path,
    command: &[String],
    format: ScanFormat,
    engine: Option<Engine>,
) -> Result<Outcome, error::Error> {
    let usage = |m: String| error::Error::Usage { message: m };
    let Some((program, args)) = command.split_first() else {
        return Err(usage(
            "scan needs a command after `--`, with {} for the flattened tree".into(),
        ));
    };
    if !command.iter().any(|a| a.contains("{}")) {
        return Err(usage(
            "the command does not name the tree to scan: write {} where its directory goes (`-- checkov -d {} -o sarif --output-file-path {out}`)".into(),
        ));
    }
    let ws = Workspace::worktree(&[path.to_path_buf()])?;
    let tmp = TempDir::new()?;
    let tree = tmp.0.join("override-guard-flattened");
    let report_path = tmp.0.join("report");
    std::fs::create_dir(&tree).map_err(|e| error::Error::io(tree.display().to_string(), e))?;
    let (map, w) = write_tree(&ws, &tree, engine)?;
    for n in &w.notes {
        write_err(n);
    }
    let tree_s = tree.display().to_string();
    let report_s = report_path.display().to_string();
    let fill = |a: &String| a.replace("{out}", &report_s).replace("{}", &tree_s);
    let wants_file = command.iter().any(|a| a.contains("{out}"));
    let mut cmd = Command::new(fill(program));
    cmd.args(args.iter().map(fill)).stdin(Stdio::inherit()).stderr(Stdio::inherit());
    cmd.stdout(Stdio::piped());
    let child = cmd
        .spawn()
        .map_err(|e| usage(format!("cannot run {}: {e}", report::clean_line(program))))?;
    let output = child
        .wait_with_output()
        .map_err(|e| usage(format!("cannot run {}: {e}", report::clean_line(program))))?;
    let text = if wants_file {
        // The scanner's own report on the terminal goes to stderr: stdout is ours.
        if !output.stdout.is_empty() {
            write_err(&String::from_utf8_lossy(&output.stdout));
        }
        read_report(&report_path)?
    } else {
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    let code = match output.status.code() {
        Some(c) => c,
        None => {
            write_err(&format!("error: {} was stopped by a signal\n", report::clean_line(program)));
            return Ok(Outcome::Error);
        }
    };
    let exists = |rel: &str| !rel.is_empty() && tree.join(rel).is_file();
    let roots = roots_of(&tree, &exists);
    let shown = if map.root.is_empty() { ".".to_string() } else { map.root.clone() };
    let mut log: serde_json::Value = match serde_json::from_str(text.trim_start_matches('\u{feff}'))
    {
        Ok(v) => v,
        Err(e) => {
            write_err(&format!(
                "error: {} did not give a SARIF log ({e}); scanners that print something else on stdout write SARIF to a file: put {{out}} where that file goes\n",
                report::clean_line(program)
            ));
            return Ok(Outcome::Error);
        }
    };
    match remap::sarif(&mut log, &map, &roots, &shown) {
        Ok(stats) => {
            print_log(&log, format);
            write_err(&format!(
                "{} of {} mapped back to your files: {} onto lines override files set, {} on blocks override files change\n",
                count(stats.results, "finding"),
                report::clean_line(program),
                stats.onto_overrides,
                stats.with_overrides
            ));
        }
        Err(why) => {
            write_err(&format!("error: {}: {why}\n", report::clean_line(program)));
            return Ok(Outcome::Error);
        }
    }
    Ok(Outcome::Scanner(u8::try_from(code).unwrap_or(2)))
}

/// The scanner's report: the file it wrote at `{out}`, or the one SARIF or JSON file in
/// the directory of that name (checkov's `--output-file-path` makes a directory).
fn read_report(p: &Path) -> Result<String, error::Error> {
    let shown = "{out}".to_string();
    let io = |e| error::Error::io(shown.clone(), e);
    let meta = std::fs::metadata(p).map_err(|_| error::Error::Usage {
        message: "the scanner wrote no report at {out}".into(),
    })?;
    if meta.is_file() {
        return std::fs::read_to_string(p).map_err(io);
    }
    let mut found: Vec<PathBuf> = std::fs::read_dir(p)
        .map_err(io)?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|x| x.extension().is_some_and(|e| e == "sarif" || e == "json"))
        .collect();
    found.sort();
    match found.as_slice() {
        [one] => std::fs::read_to_string(one).map_err(io),
        [] => {
            Err(error::Error::Usage { message: "the scanner wrote no SARIF file in {out}".into() })
        }
        _ => Err(error::Error::Usage {
            message: "the scanner wrote several files in {out}: ask it for SARIF alone".into(),
        }),
    }
}

pub fn remap_cmd(sarif: &Path, tree: &Path, format: ScanFormat) -> Result<Outcome, error::Error> {
    let shown = tree.display().to_string();
    let map_path = tree.join(MAP_FILE);
    let text = std::fs::read_to_string(&map_path)
        .map_err(|e| error::Error::io(format!("{shown}/{MAP_FILE}"), e))?;
    let map: TreeMap = serde_json::from_str(&text).map_err(|e| error::Error::Usage {
        message: format!("{shown}/{MAP_FILE}: not a flatten map ({e})"),
    })?;
    let log_text = if sarif == Path::new("-") {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut s)
            .map_err(|e| error::Error::io("-", e))?;
        s
    } else {
        std::fs::read_to_string(sarif)
            .map_err(|e| error::Error::io(sarif.display().to_string(), e))?
    };
    let mut log: serde_json::Value = serde_json::from_str(log_text.trim_start_matches('\u{feff}'))
        .map_err(|e| error::Error::Usage {
            message: format!("{}: not a SARIF log ({e})", sarif.display()),
        })?;
    let exists = |rel: &str| !rel.is_empty() && tree.join(rel).is_file();
    let roots = roots_of(tree, &exists);
    let root_shown = if map.root.is_empty() { ".".to_string() } else { map.root.clone() };
    remap::sarif(&mut log, &map, &roots, &root_shown)
        .map_err(|why| error::Error::Usage { message: format!("{}: {why}", sarif.display()) })?;
    print_log(&log, format);
    Ok(Outcome::Clean)
}

/// The spellings of a tree's root a scanner may have used (see [`remap::Roots`]).
fn roots_of<'a>(tree: &Path, exists: &'a dyn Fn(&str) -> bool) -> remap::Roots<'a> {
    let mut dirs = Vec::new();
    if let Some(abs) = crate::source::worktree::lexical_absolute(tree) {
        dirs.push(abs.display().to_string());
    }
    if let Ok(real) = std::fs::canonicalize(tree) {
        dirs.push(real.display().to_string());
    }
    dirs.dedup();
    let cwd = std::env::current_dir().ok().map(|c| c.display().to_string());
    remap::Roots { dirs, cwd, exists }
}

fn print_log(log: &serde_json::Value, format: ScanFormat) {
    match format {
        ScanFormat::Sarif => {
            write_out(&(serde_json::to_string_pretty(log).unwrap_or_default() + "\n"));
        }
        ScanFormat::Compact => {
            let mut out = String::new();
            for r in remap::results(log) {
                out.push_str(&format!(
                    "{}:{}:1: {}[{}]: {}\n",
                    report::clean_line(&r.path),
                    r.line,
                    r.level,
                    report::clean_line(&r.rule),
                    report::clean_line(&r.message).replace('\n', " ")
                ));
            }
            write_out(&out);
        }
        ScanFormat::Github => {
            let mut out = String::new();
            for r in remap::results(log) {
                let kind = match r.level {
                    "error" => "error",
                    "warning" => "warning",
                    _ => "notice",
                };
                out.push_str(&format!(
                    "::{kind} file={},line={},endLine={},title={}::{}\n",
                    report::findings::gh_property(&r.path),
                    r.line,
                    r.end_line,
                    report::findings::gh_property(&r.rule),
                    report::findings::gh_data(&r.message)
                ));
            }
            write_out(&out);
        }
    }
}
