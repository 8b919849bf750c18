//! Wiring: picks a source per command, runs the pipeline, prints, and decides the exit
//! code (0 clean, 1 findings, 2 usage/I-O errors or a module Terraform rejects).

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;

use std::collections::{BTreeMap, BTreeSet};

use crate::cli::{
    Cli, Color, Command, FromArgs, PolicyArgs, ReportFormat, ShowFormat, VarArg, VarsFormat,
};
use crate::merge::{self, Module};
use crate::policy::config::Origin;
use crate::policy::rules::engine_divergence;
use crate::policy::{self, Date, Finding, Level, Policy, Scope, Subject, Tally, rules};
use crate::report::{self, Escapes, Style, findings};
use crate::source::{Git, GitSource, Scoped, Source, SourceError, View, WorktreeSource, split};
use crate::terraform::discover::Engine;
use crate::{audit, render, review};

mod edit;
mod write;

/// What a run ends with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Clean = 0,
    Findings = 1,
    Error = 2,
}

/// Runs a parsed command line. A report that could not be written whole (a full disk, a
/// closed file) is an error even when the run itself succeeded: a cut-short SARIF file
/// must not pass for a clean one.
pub fn run(cli: &Cli) -> Result<Outcome, SourceError> {
    let outcome = dispatch(cli)?;
    match STDOUT_ERROR.lock().map(|mut e| e.take()) {
        Ok(Some(e)) => Err(SourceError {
            path: "standard output".into(),
            message: format!("the output could not be written whole: {e}"),
        }),
        _ => Ok(outcome),
    }
}

fn dispatch(cli: &Cli) -> Result<Outcome, SourceError> {
    use clap::CommandFactory;
    let style = Style { color: use_color(cli.color), width: 100 };
    COLOR.store(style.color, Ordering::Relaxed);
    match &cli.command {
        Command::Show { dir, format, engine, from } => {
            if from.staged || from.rev.is_some() {
                let git = Git::discover(existing_dir(dir))?;
                let src = git_source(&git, from, git_view(&git, dir, false)?)?;
                notes(&src);
                show(&src, *format, *engine, style)
            } else {
                let src = WorktreeSource::module(dir);
                let out = show(&src, *format, *engine, style);
                disk_notes(&src, &display_root(dir));
                out
            }
        }
        Command::Audit { path, format, engine, from, policy } => {
            audit_cmd(path, report_format(*format), *engine, from, policy, style)
        }
        Command::Check { files, new_only, format, engine, policy } => {
            check(files, *new_only, report_format(*format), *engine, policy, style)
        }
        Command::Diff { revs, worktree, format, engine, policy } => {
            diff(revs, *worktree, format.unwrap_or(ReportFormat::Human), *engine, policy, style)
        }
        Command::Vars { dir, format, show_sensitive, engine, order, .. } => {
            vars_cmd(dir, order, *format, *show_sensitive, *engine, style)
        }
        Command::Fix { path, dry_run, check, allow_dirty, engine, policy } => {
            let mode = match (dry_run, check) {
                (true, _) => edit::Mode::DryRun,
                (_, true) => edit::Mode::Check,
                _ => edit::Mode::Write,
            };
            edit::fix(path, mode, *allow_dirty, *engine, policy.as_deref(), style)
        }
        Command::Fold { files, dry_run, allow_dirty, engine } => {
            edit::fold(files, *dry_run, *allow_dirty, *engine)
        }
        Command::Init { path, stdout } => init(path, *stdout),
        Command::Explain { rule } => Ok(explain(rule.as_deref())),
        Command::Completions { shell } => {
            let mut out = Vec::new();
            clap_complete::generate(*shell, &mut Cli::command(), "override-guard", &mut out);
            write_out(&String::from_utf8_lossy(&out));
            Ok(Outcome::Clean)
        }
        Command::Man { command } => man(command.as_deref()),
    }
}

/// Human on a terminal, compact otherwise (pipes, hook runners, CI logs).
fn report_format(f: Option<ReportFormat>) -> ReportFormat {
    f.unwrap_or(if std::io::stdout().is_terminal() {
        ReportFormat::Human
    } else {
        ReportFormat::Compact
    })
}

fn use_color(c: Color) -> bool {
    match c {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => {
            std::io::stderr().is_terminal()
                && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
        }
    }
}

/// Loads every module the source has, in parallel, in directory order.
pub fn load_all(src: &dyn Source, engine: Option<Engine>) -> Result<Vec<Module>, SourceError> {
    let dirs: Vec<(String, Vec<String>)> = src.modules()?.into_iter().collect();
    dirs.par_iter().map(|(dir, names)| merge::load(dir, names, engine, |p| src.read(p))).collect()
}

fn show(
    src: &dyn Source,
    format: ShowFormat,
    engine: Option<Engine>,
    style: Style,
) -> Result<Outcome, SourceError> {
    let mut dirs = src.modules()?;
    let names = dirs.remove("").unwrap_or_default();
    let m = merge::load("", &names, engine, |p| src.read(p))?;
    if m.files.files.is_empty() {
        return Err(SourceError {
            path: ".".into(),
            message: "no Terraform or OpenTofu configuration files here".into(),
        });
    }
    if m.has_errors() {
        let mut err = String::new();
        for d in &m.diagnostics {
            err.push_str(&report::human(&m.files, d, "merge-error", style));
        }
        err.push_str(&format!(
            "{} would reject this module: {} error(s)\n",
            m.engine.name(),
            m.diagnostics.iter().filter(|d| d.is_error()).count()
        ));
        write_err(&err);
        return Ok(Outcome::Error);
    }
    let mut warn = String::new();
    for d in &m.diagnostics {
        warn.push_str(&report::human(&m.files, d, "merge-error", style));
    }
    write_err(&warn);
    let text = match format {
        ShowFormat::Hcl => render::hcl::render(&m),
        ShowFormat::TfJson => render::tfjson::render(&m),
        ShowFormat::Json => render::json::render(&m),
    };
    write_syntax(&text);
    Ok(Outcome::Clean)
}

/// `vars`: the module's variables with every value the files, flags and environment give
/// them. Reads the module, its auto-loaded variables files, the `--var-file`s and
/// `TF_VAR_*`; everything after that is pure.
fn vars_cmd(
    dir: &Path,
    order: &[VarArg],
    format: VarsFormat,
    reveal: bool,
    engine: Option<Engine>,
    style: Style,
) -> Result<Outcome, SourceError> {
    use crate::vars::{CliArg, Inputs, VarFile};
    let src = WorktreeSource::module(dir);
    let mut dirs = src.modules()?;
    disk_notes(&src, &display_root(dir));
    let names = dirs.remove("").unwrap_or_default();
    let m = merge::load("", &names, engine, |p| src.read(p))?;
    if m.files.files.is_empty() {
        let shown = shown_path(dir);
        return Err(SourceError {
            path: if shown.is_empty() { ".".into() } else { shown },
            message: "no Terraform or OpenTofu configuration files here".into(),
        });
    }
    if m.has_errors() {
        let mut err = String::new();
        for d in m.diagnostics.iter().filter(|d| d.is_error()) {
            err.push_str(&report::human(&m.files, d, "merge-error", style));
        }
        err.push_str(&format!("{} would reject this module\n", m.engine.name()));
        write_err(&err);
        return Ok(Outcome::Error);
    }
    let io =
        |p: &Path, e: std::io::Error| SourceError { path: shown_path(p), message: e.to_string() };
    let entries: Vec<String> = std::fs::read_dir(dir)
        .map_err(|e| io(dir, e))?
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .collect();
    let mut auto = Vec::new();
    for name in crate::vars::auto_files(entries.iter().map(String::as_str)) {
        let path = dir.join(&name);
        if let Some(why) = src.outside(&name) {
            print_notes(std::iter::once((name.as_str(), why)), &display_root(dir));
            continue;
        }
        let text = std::fs::read(&path).map_err(|e| io(&path, e))?;
        auto.push(VarFile { path: name, text: String::from_utf8_lossy(&text).into() });
    }
    let mut cli = Vec::new();
    for arg in order {
        cli.push(match arg {
            VarArg::Var(v) => CliArg::Var(v.clone()),
            VarArg::File(p) => {
                let shown = p.to_string_lossy().replace(std::path::MAIN_SEPARATOR, "/");
                match std::fs::read(p) {
                    Ok(t) => CliArg::File(Ok(VarFile {
                        path: shown,
                        text: String::from_utf8_lossy(&t).into(),
                    })),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => CliArg::File(Err(shown)),
                    Err(e) => return Err(io(p, e)),
                }
            }
        });
    }
    // vars_os: an unrelated variable that is not UTF-8 must not stop the run; a TF_VAR_
    // one that is not is read as Terraform would not: lossily (Go strings are bytes).
    let env = std::env::vars_os()
        .filter_map(|(k, v)| {
            let k = k.into_string().ok()?;
            k.starts_with("TF_VAR_").then(|| (k, v.to_string_lossy().into_owned()))
        })
        .collect();
    let r = crate::vars::collect(&m, &Inputs { auto, cli, env });
    let module = display_root(dir);
    match format {
        VarsFormat::Human => write_out(&report::vars::human(&r, &module, reveal, style)),
        VarsFormat::Json => write_syntax(&report::vars::json(&r, &module, reveal)),
    }
    Ok(if r.has_errors() { Outcome::Error } else { Outcome::Clean })
}

fn audit_cmd(
    path: &Path,
    format: ReportFormat,
    engine: Option<Engine>,
    from: &FromArgs,
    args: &PolicyArgs,
    style: Style,
) -> Result<Outcome, SourceError> {
    let ((mut findings, summary), policy) = if from.staged || from.rev.is_some() {
        let git = Git::discover(existing_dir(path))?;
        let view = git_view(&git, path, true)?;
        let src = git_source(&git, from, view.clone())?;
        notes(&src);
        let found = git_policy(&git, &src, args)?;
        let Some(policy) = load_policy(found, args, style)? else { return Ok(Outcome::Error) };
        let prefix = git_prefix(&git, &view.base, args, &policy);
        let run = audit_source(&src, engine, &policy, &prefix, today(), &Progress::new())?;
        (run, policy)
    } else {
        let found = match &args.policy {
            Some(p) => Some(read_policy_file(p)?),
            None => find_policy(path)?.map(|p| read_policy_file(&p)).transpose()?,
        };
        let Some(policy) = load_policy(found, args, style)? else { return Ok(Outcome::Error) };
        let src = WorktreeSource::tree(path);
        let prefix = policy_prefix(path, &policy);
        // Errors name files as findings do: under the audited directory.
        let run = audit_source(&src, engine, &policy, &prefix, today(), &Progress::new()).map_err(
            |e| SourceError { path: crate::source::join(&display_root(path), &e.path), ..e },
        )?;
        disk_notes(&src, &display_root(path));
        (run, policy)
    };
    let shown_root = display_root(path);
    for f in &mut findings {
        for site in std::iter::once(&mut f.primary).chain(f.related.iter_mut()) {
            if !matches!(&policy.origin, Origin::File { path, .. } if *path == site.path) {
                site.path = crate::source::join(&shown_root, &site.path);
            }
        }
    }
    print_findings(&render_findings(&findings, &summary, format, style), format);
    Ok(outcome(&findings, args.deny_warnings))
}

/// Prints a rendered report with the escapes its format reads back.
fn print_findings(text: &str, format: ReportFormat) {
    match format {
        ReportFormat::Json | ReportFormat::Sarif => write_syntax(text),
        ReportFormat::Human | ReportFormat::Compact | ReportFormat::Github => write_out(text),
    }
}

fn render_findings(
    findings: &[Finding],
    summary: &findings::Summary,
    format: ReportFormat,
    style: Style,
) -> String {
    match format {
        ReportFormat::Human => findings::human(findings, summary, style),
        ReportFormat::Compact => findings::compact(findings, summary),
        ReportFormat::Json => findings::json(findings, summary),
        ReportFormat::Sarif => report::sarif::render(findings),
        ReportFormat::Github => findings::github(findings, summary),
    }
}

/// The directory git discovery starts from: the path itself, or the working directory
/// when the path does not exist (a module deleted since the revision asked for).
fn existing_dir(p: &Path) -> &Path {
    if p.is_dir() { p } else { Path::new(".") }
}

/// A user's directory as a view of the repository.
fn git_view(git: &Git, dir: &Path, recursive: bool) -> Result<View, SourceError> {
    let base = git.relative(dir).ok_or_else(|| SourceError {
        path: shown_path(dir),
        message: "outside the repository's working tree".into(),
    })?;
    Ok(View { base, recursive })
}

/// The index or a revision, per `--staged` / `--rev`, with every blob of the view read.
fn git_source(git: &Git, from: &FromArgs, view: View) -> Result<GitSource, SourceError> {
    let mut src = match &from.rev {
        Some(rev) => git.rev(rev, view)?,
        None => git.index(view)?,
    };
    git.load(&mut src, None)?;
    Ok(src)
}

/// Prints what a git source skipped.
fn notes(src: &GitSource) {
    let all = src.notes_for(|_| true);
    print_notes(all.iter().map(|(p, n)| (*p, *n)), "");
}

/// `note:` lines about what a source skipped (paths under `prefix` as shown).
fn print_notes<'a>(notes: impl Iterator<Item = (&'a str, &'a str)>, prefix: &str) {
    let mut err = String::new();
    for (path, n) in notes {
        let path = crate::source::join(prefix, path);
        err.push_str(&format!("note: {}: {n}\n", report::clean_line(&path)));
    }
    write_err(&err);
}

/// The notes of a worktree source, once it has listed its files.
fn disk_notes(src: &WorktreeSource, prefix: &str) {
    let all = src.notes();
    print_notes(all.iter().map(|(p, n)| (p.as_str(), n.as_str())), prefix);
}

/// The policy file for a git source: `--policy` (on disk), else the nearest one in it.
fn git_policy(
    git: &Git,
    src: &GitSource,
    args: &PolicyArgs,
) -> Result<Option<(String, String)>, SourceError> {
    match &args.policy {
        Some(p) => Some(read_policy_file(p)).transpose(),
        None => git.find_policy(src),
    }
}

/// The prefix that makes module paths of a git view at `base` relative to the policy's
/// directory (see [`policy_prefix`]).
fn git_prefix(git: &Git, base: &str, args: &PolicyArgs, policy: &Policy) -> String {
    let prefix = match &args.policy {
        Some(_) => git.workdir().map(|w| policy_prefix(&w.join(base), policy)),
        None => git_policy_prefix(base, policy),
    };
    prefix.unwrap_or_default()
}

/// For a policy file read from git (repository-relative path): the view's base relative
/// to the policy's directory.
fn git_policy_prefix(base: &str, policy: &Policy) -> Option<String> {
    let Origin::File { path, .. } = &policy.origin else { return Some(String::new()) };
    let dir = split(path).0;
    if dir.is_empty() {
        return Some(base.to_string());
    }
    let rest = base.strip_prefix(dir)?;
    if rest.is_empty() || rest.starts_with('/') {
        Some(rest.trim_start_matches('/').to_string())
    } else {
        None
    }
}

/// The pre-commit hook: the modules the staged change touches (HEAD vs index, plus the
/// modules of the files named), loaded whole from the index.
fn check(
    files: &[PathBuf],
    new_only: bool,
    format: ReportFormat,
    engine: Option<Engine>,
    args: &PolicyArgs,
    style: Style,
) -> Result<Outcome, SourceError> {
    let git = Git::discover(Path::new("."))?;
    let mut staged = git.staged()?;
    let found = git_policy(&git, &staged.index, args)?;
    let Some(policy) = load_policy(found, args, style)? else { return Ok(Outcome::Error) };
    // A policy change can change the verdict on every module: check them all then.
    let mut dirs: BTreeSet<String> = if args.policy.is_none() && staged.policy_changed {
        staged.index.modules()?.into_keys().collect()
    } else {
        dirs_of(&staged.changed)
    };
    for f in files {
        let Some(rel) = git.relative(f) else { continue };
        let dir = if staged.index.has_module(&rel) { rel } else { split(&rel).0.to_string() };
        dirs.insert(dir);
    }
    // Modules whose files were all deleted have nothing left to check.
    dirs.retain(|d| staged.index.has_module(d));
    let mut err = String::new();
    for (path, note) in
        staged.index.notes_for(|p| staged.changed.contains(p) || dirs.contains(split(p).0))
    {
        err.push_str(&format!("note: {}: {}\n", report::clean_line(path), report::clean(note)));
    }
    write_err(&err);
    git.load(&mut staged.index, Some(&dirs))?;
    let subjects =
        load_subjects(&Scoped { inner: &staged.index, dirs: &dirs }, engine, &Progress::none())?;
    let prefix = git_prefix(&git, "", args, &policy);
    let (mut findings, summary) = audit::run(&policy, &subjects, &prefix, today(), Scope::Part);
    if new_only {
        // Introduced by the staged change, policy included: HEAD is judged by HEAD's policy.
        let old_policy = if args.policy.is_none() && staged.policy_changed {
            let found = git.find_policy(staged.head_for(&dirs))?;
            let Some(p) = load_policy(found, args, style)? else { return Ok(Outcome::Error) };
            Some(p)
        } else {
            None
        };
        let old_policy = old_policy.as_ref().unwrap_or(&policy);
        let prefix = git_prefix(&git, "", args, old_policy);
        let head = staged.head_for(&dirs);
        git.load(head, Some(&dirs))?;
        let before =
            load_subjects(&Scoped { inner: &*head, dirs: &dirs }, engine, &Progress::none())?;
        let (old, _) = audit::run(old_policy, &before, &prefix, today(), Scope::Part);
        findings = review::introduced(&old, findings);
    }
    if subjects.is_empty() && matches!(format, ReportFormat::Human | ReportFormat::Compact) {
        write_out("no staged change to a Terraform or OpenTofu module: nothing to check\n");
        return Ok(Outcome::Clean);
    }
    print_findings(&render_findings(&findings, &summary, format, style), format);
    Ok(outcome(&findings, args.deny_warnings))
}

/// The text of the policy file a side has at its root (or nearest above, on disk).
fn side_policy(git: &Git, o: &Opened) -> Result<Option<(String, String)>, SourceError> {
    match o {
        Opened::Git(g) => git.find_policy(g),
        Opened::Disk(w) => find_policy(w.root())?.map(|p| read_policy_file(&p)).transpose(),
    }
}

fn policy_text(git: &Git, o: &Opened) -> Result<Option<String>, SourceError> {
    Ok(side_policy(git, o)?.map(|(_, text)| text))
}

/// The module directories of some paths.
fn dirs_of(paths: &BTreeSet<String>) -> BTreeSet<String> {
    paths.iter().map(|p| split(p).0.to_string()).collect()
}

/// One side of a `diff`.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Side {
    Rev(String),
    Index,
    Worktree,
}

impl Side {
    fn label(&self) -> &str {
        match self {
            Side::Rev(r) => r,
            Side::Index => "index",
            Side::Worktree => "worktree",
        }
    }
}

/// `git diff`'s argument forms, turned into two sides.
fn diff_sides(git: &Git, revs: &[String], worktree: bool) -> Result<(Side, Side), SourceError> {
    let rev = |r: &str| Side::Rev(if r.is_empty() { "HEAD".to_string() } else { r.to_string() });
    Ok(match revs {
        [] if worktree => (Side::Index, Side::Worktree),
        [] => (Side::Rev("HEAD".into()), Side::Index),
        [one] => {
            if let Some((a, b)) = one.split_once("...") {
                let b = if b.is_empty() { "HEAD" } else { b };
                let a = if a.is_empty() { "HEAD" } else { a };
                (Side::Rev(git.merge_base(a, b)?), rev(b))
            } else if let Some((a, b)) = one.split_once("..") {
                (rev(a), rev(b))
            } else {
                (rev(one), Side::Worktree)
            }
        }
        [a, b] => (rev(a), rev(b)),
        _ => {
            return Err(SourceError {
                path: revs.join(" "),
                message: "at most two revisions".into(),
            });
        }
    })
}

enum Opened {
    Git(GitSource),
    Disk(WorktreeSource),
}

impl Opened {
    fn source(&self) -> &dyn Source {
        match self {
            Opened::Git(g) => g,
            Opened::Disk(w) => w,
        }
    }
}

fn open_side(git: &Git, side: &Side) -> Result<Opened, SourceError> {
    let root = View { base: String::new(), recursive: true };
    Ok(match side {
        Side::Rev(r) => Opened::Git(git.rev(r, root)?),
        Side::Index => Opened::Git(git.index(root)?),
        Side::Worktree => {
            let dir = git.workdir().ok_or_else(|| SourceError {
                path: ".".into(),
                message: "a bare repository has no worktree".into(),
            })?;
            Opened::Disk(WorktreeSource::tree(dir))
        }
    })
}

/// The review helper: for every module whose files differ between two states, the diff
/// of its effective configuration and the findings that appear and disappear.
fn diff(
    revs: &[String],
    worktree: bool,
    format: ReportFormat,
    engine: Option<Engine>,
    args: &PolicyArgs,
    style: Style,
) -> Result<Outcome, SourceError> {
    let git = Git::discover(Path::new("."))?;
    let (old_side, new_side) = diff_sides(&git, revs, worktree)?;
    // Sources, changed files, and whether the policy file itself changed (then every
    // module is judged again, each side by its own policy).
    let (mut old, mut new, changed, policy_changed, dirs) =
        if old_side == Side::Rev("HEAD".into()) && new_side == Side::Index {
            // The common case, fast: only the trees the index does not vouch for are read.
            let staged = git.staged()?;
            let changed = staged.changed.clone();
            let policy_changed = args.policy.is_none() && staged.policy_changed;
            let mut dirs = dirs_of(&changed);
            if policy_changed {
                dirs.extend(staged.index.modules()?.into_keys());
            }
            let (head, index) = staged.into_sides(&dirs);
            (Opened::Git(head), Opened::Git(index), changed, policy_changed, dirs)
        } else {
            let mut old = open_side(&git, &old_side)?;
            let mut new = open_side(&git, &new_side)?;
            let changed = match (&old, &new) {
                (Opened::Git(a), Opened::Git(b)) => a.changed(b),
                _ => {
                    // The worktree has no blob ids: compare contents.
                    for o in [&mut old, &mut new] {
                        if let Opened::Git(g) = o {
                            git.load(g, None)?;
                        }
                    }
                    let changed = crate::source::changed(old.source(), new.source())?;
                    for o in [&old, &new] {
                        if let Opened::Disk(w) = o {
                            disk_notes(w, "");
                        }
                    }
                    changed
                }
            };
            let policy_changed =
                args.policy.is_none() && policy_text(&git, &old)? != policy_text(&git, &new)?;
            let mut dirs = dirs_of(&changed);
            if policy_changed {
                dirs.extend(old.source().modules()?.into_keys());
                dirs.extend(new.source().modules()?.into_keys());
            }
            (old, new, changed, policy_changed, dirs)
        };
    for o in [&mut old, &mut new] {
        if let Opened::Git(g) = o {
            git.load(g, Some(&dirs))?;
        }
    }
    let found = match &args.policy {
        Some(p) => Some(read_policy_file(p)?),
        None => side_policy(&git, &new)?,
    };
    let Some(policy) = load_policy(found, args, style)? else { return Ok(Outcome::Error) };
    let old_policy = if policy_changed {
        let Some(p) = load_policy(side_policy(&git, &old)?, args, style)? else {
            return Ok(Outcome::Error);
        };
        Some(p)
    } else {
        None
    };
    let side = |o: &Opened| -> Result<BTreeMap<String, Loaded>, SourceError> {
        let scoped = Scoped { inner: o.source(), dirs: &dirs };
        let loaded = load_subjects(&scoped, engine, &Progress::none())?;
        Ok(loaded.into_iter().map(|l| (l.module.dir.clone(), l)).collect())
    };
    let (before, after) = (side(&old)?, side(&new)?);
    let evaluate = |policy: &Policy, l: Option<&Loaded>| -> Vec<Finding> {
        let prefix = git_prefix(&git, "", args, policy);
        l.map(|l| policy::evaluate(policy, &[l.subject()], &prefix, today(), Scope::Part))
            .unwrap_or_default()
    };
    let mut changes = Vec::new();
    for dir in &dirs {
        let (b, a) = (before.get(dir), after.get(dir));
        let (fb, fa) = (evaluate(old_policy.as_ref().unwrap_or(&policy), b), evaluate(&policy, a));
        let change = review::ModuleChange {
            dir: dir.clone(),
            files: changed
                .iter()
                .filter(|p| split(p).0 == dir)
                .map(|p| split(p).1.to_string())
                .collect(),
            before: b.map(|l| review::effective_text(&l.module)),
            after: a.map(|l| review::effective_text(&l.module)),
            introduced: review::introduced(&fb, fa.clone()),
            resolved: review::introduced(&fa, fb),
        };
        // Judged again only for the policy's sake, and nothing changed: not news.
        if !change.files.is_empty() || !change.introduced.is_empty() || !change.resolved.is_empty()
        {
            changes.push(change);
        }
    }
    if policy_changed {
        write_err(
            "note: the policy file changed: each side is judged by its own policy, every module again\n",
        );
    }
    let labels = (old_side.label(), new_side.label());
    let introduced: Vec<Finding> = changes.iter().flat_map(|c| c.introduced.clone()).collect();
    let text = match format {
        ReportFormat::Human => review::human(&changes, labels, style),
        ReportFormat::Json => review::json(&changes, labels),
        other => {
            // The files of the changed modules as they are after the change.
            let now: Vec<&Module> =
                changes.iter().filter_map(|c| after.get(&c.dir)).map(|l| &l.module).collect();
            let summary = findings::Summary {
                modules: changes.len(),
                files: now.iter().map(|m| m.files.files.len()).sum(),
                override_files: now.iter().map(|m| m.override_files().count()).sum(),
                policy: policy.describe(),
                builtin_policy: matches!(policy.origin, Origin::BuiltIn),
            };
            render_findings(&introduced, &summary, other, style)
        }
    };
    print_findings(&text, format);
    Ok(outcome(&introduced, args.deny_warnings))
}

/// 1 when a finding is at deny level (or a warning, with `--deny-warnings`).
pub fn outcome(findings: &[Finding], deny_warnings: bool) -> Outcome {
    let t = Tally::of(findings);
    if t.deny > 0 || (deny_warnings && t.warn > 0) { Outcome::Findings } else { Outcome::Clean }
}

/// A module with, when the engines could disagree about it, its load under the other one.
pub struct Loaded {
    pub module: Module,
    pub other: Option<Module>,
    /// The variables files Terraform would load by itself, in its order.
    pub tfvars: Vec<crate::vars::VarFile>,
}

impl Loaded {
    pub fn subject(&self) -> Subject<'_> {
        Subject { module: &self.module, other: self.other.as_ref(), tfvars: &self.tfvars }
    }
}

/// Loads every module of a source in parallel, with the other engine's view of those that
/// have override or `.tofu` files (for `engine-divergence`).
pub fn load_subjects(
    src: &dyn Source,
    engine: Option<Engine>,
    progress: &Progress,
) -> Result<Vec<Loaded>, SourceError> {
    let dirs: Vec<(String, Vec<String>)> = src.modules()?.into_iter().collect();
    progress.start(dirs.len());
    let out = dirs
        .par_iter()
        .map(|(dir, names)| load_subject(src, dir, names, engine, progress))
        .collect();
    progress.finish();
    out
}

/// Loads one module (see [`load_subjects`]) and ticks the progress bar.
pub fn load_subject(
    src: &dyn Source,
    dir: &str,
    names: &[String],
    engine: Option<Engine>,
    progress: &Progress,
) -> Result<Loaded, SourceError> {
    let module = merge::load(dir, names, engine, |p| src.read(p))?;
    let tofu = names.iter().any(|n| n.ends_with(".tofu") || n.ends_with(".tofu.json"));
    let other = if tofu || engine_divergence::may_diverge(&module) {
        let e = match module.engine {
            Engine::Terraform => Engine::OpenTofu,
            Engine::OpenTofu => Engine::Terraform,
        };
        // Without .tofu files both engines load the same files: re-merge those.
        Some(if tofu {
            merge::load(dir, names, Some(e), |p| src.read(p))?
        } else {
            merge::reassemble(&module, e)
        })
    } else {
        None
    };
    let mut tfvars = Vec::new();
    for name in crate::vars::auto_files(names.iter().map(String::as_str)) {
        let path = crate::source::join(dir, &name);
        let text = src.read(&path)?;
        tfvars.push(crate::vars::VarFile { path, text: String::from_utf8_lossy(&text).into() });
    }
    progress.tick();
    Ok(Loaded { module, other, tfvars })
}

/// The audit of every module of a source, streamed: each module is loaded, judged and
/// dropped (see [`audit::run_each`]).
pub fn audit_source(
    src: &dyn Source,
    engine: Option<Engine>,
    policy: &Policy,
    prefix: &str,
    today: Date,
    progress: &Progress,
) -> Result<(Vec<Finding>, findings::Summary), SourceError> {
    let dirs: Vec<(String, Vec<String>)> = src.modules()?.into_iter().collect();
    progress.start(dirs.len());
    let load = |dir: &str, names: &[String]| load_subject(src, dir, names, engine, progress);
    let out = audit::run_each(policy, &dirs, load, prefix, today, Scope::Whole);
    progress.finish();
    out
}

/// A policy file's text, with its path as shown to the user.
fn read_policy_file(file: &Path) -> Result<(String, String), SourceError> {
    let shown = shown_path(file);
    let text = std::fs::read_to_string(file)
        .map_err(|e| SourceError { path: shown.clone(), message: e.to_string() })?;
    Ok((shown, text))
}

/// The policy in force: the file found (`--policy`, else the nearest
/// `.override-guard.toml` up to the repository root, on disk or in git), else the
/// built-in default; then the command line's levels. `None` after printing the policy
/// file's mistakes.
fn load_policy(
    found: Option<(String, String)>,
    args: &PolicyArgs,
    style: Style,
) -> Result<Option<Policy>, SourceError> {
    let mut policy = match found {
        None => Policy::builtin(),
        Some((shown, text)) => match Policy::parse(&shown, &text) {
            Ok(p) => p,
            Err(errors) => {
                let mut err = String::new();
                for e in errors {
                    err.push_str(&report::policy_error(e, style));
                }
                write_err(&err);
                return Ok(None);
            }
        },
    };
    let levels =
        [(&args.deny, Level::Deny), (&args.warn, Level::Warn), (&args.allow, Level::Allow)];
    for (ids, level) in levels {
        for id in ids {
            match rules::find(id) {
                Some(r) => policy.set_level(r.id, level),
                None => {
                    let hint = rules::suggestion(id);
                    write_err(&format!(
                        "error: unknown rule `{}`{hint}; `override-guard explain` lists the rules\n",
                        report::clean(id)
                    ));
                    return Ok(None);
                }
            }
        }
    }
    Ok(Some(policy))
}

const POLICY_FILE: &str = ".override-guard.toml";

/// Walks up from `start` to the first `.override-guard.toml`, stopping at a repository root.
fn find_policy(start: &Path) -> Result<Option<PathBuf>, SourceError> {
    use crate::source::worktree::{boundary, lexical_absolute};
    let Some(mut dir) = lexical_absolute(start) else { return Ok(None) };
    let inside = boundary(start);
    loop {
        let candidate = dir.join(POLICY_FILE);
        if candidate.is_file() {
            // A repository's policy may not be a link out of it: that is not its to give.
            let real = std::fs::canonicalize(&candidate).ok();
            if let Some(b) = &inside
                && !real.is_some_and(|r| r.starts_with(b))
            {
                return Err(SourceError {
                    path: shown_path(&candidate),
                    message: "a symbolic link leading out of the repository; not read (name it with --policy to use it)".into(),
                });
            }
            return Ok(Some(candidate));
        }
        if dir.join(".git").exists() || !dir.pop() {
            return Ok(None);
        }
    }
}

/// A path as the user should see it: relative to the working directory when they share
/// a directory (`../.override-guard.toml`), never resolved through links.
fn shown_path(p: &Path) -> String {
    use std::path::Component;
    let shown = (|| {
        let abs = crate::source::worktree::lexical_absolute(p)?;
        let cwd = crate::source::worktree::lexical_absolute(&std::env::current_dir().ok()?)?;
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
    shown.to_string_lossy().replace(std::path::MAIN_SEPARATOR, "/")
}

/// The audited directory as a display prefix (`examples`, or empty for `.`).
fn display_root(p: &Path) -> String {
    let s = p.to_string_lossy().replace(std::path::MAIN_SEPARATOR, "/");
    let s = s.trim_end_matches('/');
    let s = s.strip_prefix("./").unwrap_or(s);
    if s == "." { String::new() } else { s.to_string() }
}

/// The audited directory relative to the policy file's directory, so policy globs are
/// written relative to the policy file.
fn policy_prefix(root: &Path, policy: &Policy) -> String {
    let Origin::File { path, .. } = &policy.origin else { return String::new() };
    let (Ok(root), Some(dir)) = (
        std::fs::canonicalize(root),
        std::fs::canonicalize(path).ok().and_then(|p| p.parent().map(Path::to_path_buf)),
    ) else {
        return String::new();
    };
    root.strip_prefix(&dir)
        .map(|r| r.to_string_lossy().replace(std::path::MAIN_SEPARATOR, "/"))
        .unwrap_or_default()
}

/// Today's date (UTC), for exception expiry.
fn today() -> Date {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    Date::from_days((secs / 86_400) as i64)
}

fn init(path: &Path, stdout: bool) -> Result<Outcome, SourceError> {
    if stdout {
        write_out(policy::config::STARTER);
        return Ok(Outcome::Clean);
    }
    let shown = shown_path(path);
    let mut file = match std::fs::OpenOptions::new().write(true).create_new(true).open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            write_err(&format!(
                "error: {shown} already exists; not overwriting it (use --stdout to print the starter policy)\n"
            ));
            return Ok(Outcome::Error);
        }
        Err(e) => return Err(SourceError { path: shown, message: e.to_string() }),
    };
    file.write_all(policy::config::STARTER.as_bytes())
        .map_err(|e| SourceError { path: shown.clone(), message: e.to_string() })?;
    write_err(&format!("wrote {shown}; `override-guard explain` describes every rule\n"));
    Ok(Outcome::Clean)
}

/// `man [COMMAND]`: the manual page of the tool, or of one command (as git has
/// `git-commit(1)`), generated from the same definitions as `--help`.
fn man(command: Option<&str>) -> Result<Outcome, SourceError> {
    use clap::CommandFactory;
    let cli = Cli::command();
    let page = match command {
        None => cli,
        Some(name) => {
            let Some(sub) = cli.find_subcommand(name) else {
                let names: Vec<&str> = cli.get_subcommands().map(|c| c.get_name()).collect();
                write_err(&format!(
                    "error: no command `{}`; commands: {}\n",
                    report::clean_line(name),
                    names.join(", ")
                ));
                return Ok(Outcome::Error);
            };
            let full = format!("override-guard-{name}");
            sub.clone().display_name(full.clone()).bin_name(full).version(env!("CARGO_PKG_VERSION"))
        }
    };
    let mut out = Vec::new();
    clap_mangen::Man::new(page)
        .render(&mut out)
        .map_err(|e| SourceError { path: "-".into(), message: e.to_string() })?;
    write_out(&String::from_utf8_lossy(&out));
    Ok(Outcome::Clean)
}

fn explain(rule: Option<&str>) -> Outcome {
    match rule {
        None => {
            let mut out = String::from("Rules (default level):\n");
            for r in rules::RULES {
                out.push_str(&format!("  {:<26} {:<5}  {}\n", r.id, r.level.as_str(), r.summary));
            }
            out.push_str(
                "\n`override-guard explain RULE` prints what a rule checks, why, and an example.\n",
            );
            write_out(&out);
            Outcome::Clean
        }
        Some(id) => match rules::find(id) {
            Some(r) => {
                let mut out =
                    format!("{} (default: {})\n{}\n\n{}", r.id, r.level.as_str(), r.summary, r.doc);
                if !r.options.is_empty() {
                    out.push_str("\nOptions\n");
                    for (name, what) in r.options {
                        out.push_str(&format!("  {name}: {what}\n"));
                    }
                }
                write_out(&out);
                Outcome::Clean
            }
            None => {
                let hint = rules::suggestion(id);
                write_err(&format!("error: unknown rule `{}`{hint}\n", report::clean(id)));
                Outcome::Error
            }
        },
    }
}

/// A progress bar on stderr, shown only on a terminal and only once a run takes longer
/// than a moment; never in pipes or CI.
pub struct Progress {
    bar: Option<ProgressBar>,
    started: Instant,
    shown: AtomicBool,
}

impl Progress {
    pub fn new() -> Progress {
        let tty = std::io::stderr().is_terminal()
            && std::env::var_os("CI").is_none()
            && std::env::var("TERM").map_or(true, |t| t != "dumb");
        Progress {
            bar: tty.then(ProgressBar::hidden),
            started: Instant::now(),
            shown: AtomicBool::new(false),
        }
    }

    /// No progress at all (tests, library use).
    pub fn none() -> Progress {
        Progress { bar: None, started: Instant::now(), shown: AtomicBool::new(false) }
    }

    fn start(&self, total: usize) {
        if let Some(b) = &self.bar {
            b.set_length(total as u64);
        }
    }

    fn tick(&self) {
        let Some(b) = &self.bar else { return };
        b.inc(1);
        if !self.shown.load(Ordering::Relaxed)
            && self.started.elapsed() > Duration::from_millis(300)
        {
            self.shown.store(true, Ordering::Relaxed);
            b.set_style(
                ProgressStyle::with_template("{bar:30} {pos}/{len} modules")
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            b.set_draw_target(ProgressDrawTarget::stderr());
        }
    }

    fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

impl Default for Progress {
    fn default() -> Self {
        Progress::none()
    }
}

/// Whether this run draws colours (set once, in [`run`]): the output guard keeps colour
/// sequences only then.
static COLOR: AtomicBool = AtomicBool::new(false);

/// The first error writing to stdout, other than a closed pipe; [`run`] turns it into exit
/// 2. Once set (or once the pipe is closed), nothing more is written.
static STDOUT_ERROR: std::sync::Mutex<Option<std::io::Error>> = std::sync::Mutex::new(None);
static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

/// Writes to stdout and flushes, so that an error is seen here and not lost at exit. A
/// closed pipe (`| head`) ends the output quietly, as ripgrep does; any other error is
/// kept for [`run`].
fn stdout_write(s: &str) {
    if STDOUT_CLOSED.load(Ordering::Relaxed) {
        return;
    }
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(s.as_bytes()).and_then(|()| out.flush()) {
        STDOUT_CLOSED.store(true, Ordering::Relaxed);
        if e.kind() != std::io::ErrorKind::BrokenPipe
            && let Ok(mut first) = STDOUT_ERROR.lock()
        {
            first.get_or_insert(e);
        }
    }
}

/// Prints text for people on stdout, through the output guard.
fn write_out(s: &str) {
    stdout_write(&report::guard(s, Escapes::Text, COLOR.load(Ordering::Relaxed)));
}

/// Prints JSON, SARIF or HCL on stdout, through the output guard (with the syntax's own
/// escapes, so the document means the same).
fn write_syntax(s: &str) {
    stdout_write(&report::guard(s, Escapes::Syntax, COLOR.load(Ordering::Relaxed)));
}

/// Prints on stderr, through the output guard. Its errors are not kept: there is nowhere
/// left to report them.
fn write_err(s: &str) {
    let s = report::guard(s, Escapes::Text, COLOR.load(Ordering::Relaxed));
    let _ = std::io::stderr().lock().write_all(s.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policy_globs_are_relative_to_the_policy_files_directory() {
        let at = |path: &str| Policy::parse(path, "").map_err(|_| ()).unwrap();
        assert_eq!(git_policy_prefix("envs/dev", &at(".override-guard.toml")).unwrap(), "envs/dev");
        assert_eq!(git_policy_prefix("envs/dev", &at("envs/.override-guard.toml")).unwrap(), "dev");
        assert_eq!(git_policy_prefix("envs", &at("envs/.override-guard.toml")).unwrap(), "");
        assert_eq!(git_policy_prefix("", &Policy::builtin()).unwrap(), "");
        assert_eq!(git_policy_prefix("envsx/dev", &at("envs/.override-guard.toml")), None);
    }

    #[test]
    fn dirs_of_paths() {
        let paths: BTreeSet<String> =
            ["a/b/main.tf", "a/b/override.tf", "main.tf"].into_iter().map(String::from).collect();
        assert_eq!(dirs_of(&paths).into_iter().collect::<Vec<_>>(), ["", "a/b"]);
    }
}
