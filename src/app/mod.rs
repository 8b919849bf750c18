//! Wiring: picks a source per command, runs the pipeline, prints, and decides the exit
//! code (0 clean, 1 findings, 2 usage/I-O errors or a module Terraform rejects).

use std::collections::{BTreeMap, BTreeSet};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::cli::{
    Cli, Color, Command, FromArgs, PolicyArgs, ReportFormat, ShowFormat, VarArg, VarsFormat,
};
use crate::merge;
use crate::pipeline::audit::Audit;
use crate::pipeline::policies::Trouble;
use crate::pipeline::{Choice, Judged, Policies, judge};
use crate::policy::{self, Date, Finding, Level, Tally, rules};
use crate::report::{self, Escapes, Style, findings};
use crate::source::{Git, GitSource, Scoped, Source, SourceError, WorktreeSource, join, split};
use crate::terraform::discover::Engine;
use crate::{render, review};
use workspace::{Shown, Workspace, under};

mod check;
mod edit;
pub mod workspace;
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
    if let Command::Audit { policy, .. }
    | Command::Check { policy, .. }
    | Command::Diff { policy, .. } = &cli.command
    {
        QUIET.store(policy.quiet, Ordering::Relaxed);
    }
    let outcome = match &cli.command {
        Command::Show { dir, format, engine, from } => show(dir, from, *format, *engine, style),
        Command::Audit { paths, format, engine, from, policy, baseline, write_baseline } => {
            let baseline =
                Baselines { read: baseline.baseline.as_deref(), write: write_baseline.as_deref() };
            audit_cmd(paths, report_format(*format), *engine, from, policy, baseline, style)
        }
        Command::Check { files, new_only, format, engine, policy, from_ref, to_ref, baseline } => {
            let range = check::Range::from_args(from_ref.as_deref(), to_ref.as_deref())?;
            let hook = check::Hook {
                files,
                new_only: *new_only,
                format: report_format(*format),
                engine: *engine,
                args: policy,
                baseline: baseline.baseline.as_deref(),
                range,
                style,
            };
            hook.run()
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
    }?;
    // --soft-fail: findings are reported but do not fail the run; errors still do.
    let soft = matches!(&cli.command, Command::Audit { policy, .. } | Command::Check { policy, .. } | Command::Diff { policy, .. } if policy.soft_fail);
    Ok(if soft && outcome == Outcome::Findings { Outcome::Clean } else { outcome })
}

/// `audit`'s baseline files: the one to read, the one to write.
#[derive(Clone, Copy, Default)]
struct Baselines<'a> {
    read: Option<&'a Path>,
    write: Option<&'a Path>,
}

/// The findings' fingerprints, computed on the paths SARIF shows (from the repository's
/// root in a repository), so a baseline matches whatever directory is audited from where.
fn fingerprints(findings: &[Finding], shown: &Shown) -> Vec<String> {
    let mut at: Vec<Finding> = findings.to_vec();
    for f in &mut at {
        f.primary.path = shown.path_for(&f.primary.path, ReportFormat::Sarif);
    }
    policy::fingerprint::all(&at)
}

/// Reads a baseline file from disk.
fn read_baseline(path: &Path) -> Result<policy::baseline::Baseline, SourceError> {
    let shown = workspace::shown_path(path);
    let text = std::fs::read_to_string(path).map_err(|e| SourceError {
        path: shown.clone(),
        message: format!("cannot read the baseline: {e}"),
    })?;
    policy::baseline::Baseline::parse(&text).map_err(|message| SourceError { path: shown, message })
}

/// Writes a baseline file (whole, or not at all) and says so.
fn write_baseline(
    path: &Path,
    findings: &[Finding],
    fps: &[String],
    shown: &Shown,
) -> Result<(), SourceError> {
    let mut at: Vec<Finding> = findings.to_vec();
    for f in &mut at {
        f.primary.path = shown.path_for(&f.primary.path, ReportFormat::Sarif);
    }
    let text = policy::baseline::write(&at, fps);
    let name = workspace::shown_path(path);
    write::atomic(path, text.as_bytes())
        .map_err(|e| SourceError { path: name.clone(), message: e.to_string() })?;
    write_note(&format!(
        "wrote {name}: {} finding{} recorded; `--baseline {name}` reports only new ones\n",
        findings.len(),
        if findings.len() == 1 { "" } else { "s" }
    ));
    Ok(())
}

/// The directories named, from the worktree, or from git with `--staged` / `--rev`.
fn workspace(paths: &[PathBuf], from: &FromArgs) -> Result<Workspace, SourceError> {
    if from.staged || from.rev.is_some() {
        Workspace::git(paths)
    } else {
        Workspace::worktree(paths)
    }
}

/// The run's source: the index or a revision (per `--staged` / `--rev`), else the worktree
/// below the targets (with their subdirectories or not).
fn open(ws: &Workspace, from: &FromArgs, recursive: bool) -> Result<Opened, SourceError> {
    Ok(match (ws.git.as_ref(), &from.rev) {
        (Some(git), Some(rev)) => Opened::Git(git.rev(rev)?),
        (Some(git), None) if from.staged => Opened::Git(git.index()?),
        _ => Opened::Disk(ws.worktree_source(recursive)?),
    })
}

/// The modules of an opened source that lie in the targets (below them too, with
/// `recursive`), with their blobs read from git; a worktree's listing notes are printed.
fn modules_of(
    ws: &Workspace,
    opened: &mut Opened,
    recursive: bool,
    shown: &Shown,
) -> Result<Vec<(String, Vec<String>)>, SourceError> {
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

/// `show DIR`: the effective configuration of one module, from the worktree (every file
/// Terraform would read there, local-only ones marked), the index or a revision.
fn show(
    dir: &Path,
    from: &FromArgs,
    format: ShowFormat,
    engine: Option<Engine>,
    style: Style,
) -> Result<Outcome, SourceError> {
    let ws = workspace(std::slice::from_ref(&dir.to_path_buf()), from)?;
    let shown = ws.shown();
    let Some(target) = ws.targets.first() else { return Ok(Outcome::Error) };
    let scope = target.scope.clone();
    let mut opened = open(&ws, from, false)?;
    let names = modules_of(&ws, &mut opened, false, &shown)?
        .into_iter()
        .find_map(|(d, names)| (d == scope).then_some(names))
        .unwrap_or_default();
    let src = opened.source();
    if names.is_empty() {
        return Err(no_configuration(&ws, src, matches!(opened, Opened::Git(_)), &scope, &shown));
    }
    let mut m = merge::load("", &names, engine, |p| src.read(&join(&scope, p)))
        .map_err(|e| shown.error(e))?;
    for f in &mut m.files.files {
        f.local = src.local(&join(&scope, &f.path));
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

/// The error for a directory without configuration files: it names the directory as the
/// user wrote it, and the modules below it when there are some.
fn no_configuration(
    ws: &Workspace,
    src: &dyn Source,
    from_git: bool,
    scope: &str,
    shown: &Shown,
) -> SourceError {
    let below: Vec<String> = if from_git {
        src.modules().map(|m| m.into_keys().collect()).unwrap_or_default()
    } else {
        ws.worktree_source(true)
            .and_then(|w| w.modules())
            .map(|m| m.into_keys().collect())
            .unwrap_or_default()
    };
    let below: Vec<String> = below
        .into_iter()
        .filter(|d| d != scope && under(d, scope))
        .map(|d| shown.path(&d))
        .collect();
    let message = if below.is_empty() {
        "no Terraform or OpenTofu configuration files here".to_string()
    } else {
        let more =
            if below.len() > 3 { format!(" and {} more", below.len() - 3) } else { String::new() };
        format!(
            "no Terraform or OpenTofu configuration files here; its modules are in subdirectories: {}{more} (show one of them, or audit them all with `override-guard audit {}`)",
            below.iter().take(3).cloned().collect::<Vec<_>>().join(", "),
            shown.path(scope)
        )
    };
    SourceError { path: shown.path(scope), message }
}

/// `--deny/--warn/--allow`, checked: an unknown rule id is a usage error (printed; `None`).
fn cli_levels(args: &PolicyArgs) -> Option<Vec<(&'static str, Level)>> {
    let mut out = Vec::new();
    let levels =
        [(&args.deny, Level::Deny), (&args.warn, Level::Warn), (&args.allow, Level::Allow)];
    for (ids, level) in levels {
        for id in ids {
            match rules::find(id) {
                Some(r) => out.push((r.id, level)),
                None => {
                    let hint = rules::suggestion(id);
                    write_err(&format!(
                        "error: unknown rule `{}`{hint}; `override-guard explain` lists the rules\n",
                        report::clean(id)
                    ));
                    return None;
                }
            }
        }
    }
    Some(out)
}

/// How the run finds its policies: `--policy PATH`, else the nearest file per module.
fn policy_choice(ws: &Workspace, args: &PolicyArgs) -> Result<Choice, SourceError> {
    Ok(match &args.policy {
        Some(p) => Choice::Fixed(ws.fixed_policy(p)?),
        None => Choice::Nearest,
    })
}

/// The policies of `dirs` in `src`; their files' mistakes are printed (`None` then).
fn resolve_policies<'a>(
    src: &dyn Source,
    choice: &Choice,
    dirs: impl IntoIterator<Item = &'a str>,
    levels: &[(&'static str, Level)],
    shown: &Shown,
    style: Style,
) -> Result<Option<Policies>, SourceError> {
    match Policies::resolve(src, choice, dirs, levels) {
        Ok(p) => Ok(Some(p)),
        Err(Trouble::Source(e)) => Err(shown.error(e)),
        Err(Trouble::Policy(errors)) => {
            let mut err = String::new();
            for mut e in errors {
                e.path = shown.path(&e.path);
                err.push_str(&report::policy_error(e, style));
            }
            write_err(&err);
            Ok(None)
        }
    }
}

fn audit_cmd(
    paths: &[PathBuf],
    format: ReportFormat,
    engine: Option<Engine>,
    from: &FromArgs,
    args: &PolicyArgs,
    baseline: Baselines<'_>,
    style: Style,
) -> Result<Outcome, SourceError> {
    // A broken baseline is refused before the work, not after.
    let known = baseline.read.map(read_baseline).transpose()?;
    let Some((mut findings, mut summary, shown)) = audited(paths, engine, from, args, style)?
    else {
        return Ok(Outcome::Error);
    };
    let fps = fingerprints(&findings, &shown);
    if let Some(path) = baseline.write {
        write_baseline(path, &findings, &fps, &shown)?;
    }
    if let Some(known) = &known {
        (findings, summary.baselined) = known.filter(findings, &fps);
    }
    summary.quiet = args.quiet;
    shown.apply(&mut findings, &mut summary, format);
    print_findings(&render_findings(&findings, &summary, format, style), format);
    Ok(outcome(&findings, args.deny_warnings))
}

/// The audit of some paths: its findings and summary (paths not yet as shown), or `None`
/// when a policy file is broken (its errors are printed).
fn audited(
    paths: &[PathBuf],
    engine: Option<Engine>,
    from: &FromArgs,
    args: &PolicyArgs,
    style: Style,
) -> Result<Option<(Vec<Finding>, findings::Summary, Shown)>, SourceError> {
    let Some(levels) = cli_levels(args) else { return Ok(None) };
    let ws = workspace(paths, from)?;
    let shown = ws.shown();
    let mut opened = open(&ws, from, true)?;
    let modules = modules_of(&ws, &mut opened, true, &shown)?;
    let src = opened.source();
    if modules.is_empty() {
        let named: Vec<String> = ws.targets.iter().map(|t| shown.path(&t.scope)).collect();
        write_note(&format!(
            "warning: no Terraform or OpenTofu configuration files under {}{}\n",
            report::clean_line(&named.join(", ")),
            match &from.rev {
                Some(r) => format!(" in {}", report::clean_line(r)),
                None if from.staged => " in the index".to_string(),
                None => String::new(),
            }
        ));
    }
    let choice = policy_choice(&ws, args)?;
    let scopes = ws.scopes();
    let dirs = modules.iter().map(|(d, _)| d.as_str()).chain(scopes.iter().map(String::as_str));
    let Some(policies) = resolve_policies(src, &choice, dirs, &levels, &shown, style)? else {
        return Ok(None);
    };
    let audit = Audit {
        policies: &policies,
        engine,
        today: today(),
        scopes: policies.list.iter().map(|g| g.coverage(&scopes)).collect(),
    };
    let (findings, summary) = audit.run(src, &modules, &Bar::new()).map_err(|e| shown.error(e))?;
    Ok(Some((findings, summary, shown)))
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

/// `note:` lines about what a source skipped.
fn print_notes<'a>(notes: impl Iterator<Item = (&'a str, &'a str)>, shown: &Shown) {
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
fn print_git_notes(src: &GitSource, shown: &Shown, keep: impl Fn(&str) -> bool) {
    print_notes(src.notes_for(keep).into_iter(), shown);
}

/// What a worktree source skipped, once it has listed its files.
fn print_disk_notes(src: &WorktreeSource, shown: &Shown) {
    let all = src.notes();
    print_notes(all.iter().map(|(p, n)| (p.as_str(), n.as_str())), shown);
}

/// The module directories of some paths.
fn dirs_of(paths: &BTreeSet<String>) -> BTreeSet<String> {
    paths.iter().map(|p| split(p).0.to_string()).collect()
}

/// The module directories a source has under some directories (a changed policy's).
fn modules_under(src: &dyn Source, dirs: &BTreeSet<String>) -> Result<Vec<String>, SourceError> {
    if dirs.is_empty() {
        return Ok(Vec::new()); // listing every module of a large repository costs
    }
    Ok(src.modules()?.into_keys().filter(|m| dirs.iter().any(|d| under(m, d))).collect())
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

fn open_side(ws: &Workspace, git: &Git, side: &Side) -> Result<Opened, SourceError> {
    Ok(match side {
        Side::Rev(r) => Opened::Git(git.rev(r)?),
        Side::Index => Opened::Git(git.index()?),
        Side::Worktree => {
            if git.workdir().is_none() {
                return Err(SourceError {
                    path: ".".into(),
                    message: "a bare repository has no worktree".into(),
                });
            }
            Opened::Disk(ws.worktree_source(true)?)
        }
    })
}

/// The review helper: for every module whose files differ between two states, the diff
/// of its effective configuration and the findings that appear and disappear. Each side
/// is judged by its own policies; a changed policy file has every module it governs
/// judged again.
fn diff(
    revs: &[String],
    worktree: bool,
    format: ReportFormat,
    engine: Option<Engine>,
    args: &PolicyArgs,
    style: Style,
) -> Result<Outcome, SourceError> {
    let Some(levels) = cli_levels(args) else { return Ok(Outcome::Error) };
    let ws = Workspace::repository()?;
    let Some(git) = ws.git.as_ref() else { return Ok(Outcome::Error) };
    let shown = Shown::repository();
    let choice = policy_choice(&ws, args)?;
    let nearest = matches!(choice, Choice::Nearest);
    let (old_side, new_side) = diff_sides(git, revs, worktree)?;
    let (mut old, mut new, changed, policies_changed) =
        if old_side == Side::Rev("HEAD".into()) && new_side == Side::Index {
            // The common case, fast: only the trees the index does not vouch for are read.
            let staged = git.staged()?;
            let changed = staged.changed.clone();
            let policies_changed = staged.policies_changed.clone();
            let mut dirs = dirs_of(&changed);
            dirs.extend(modules_under(&staged.index, &dirs_of(&policies_changed))?);
            let (head, index) = staged.into_sides(&dirs);
            (Opened::Git(head), Opened::Git(index), changed, policies_changed)
        } else {
            let mut old = open_side(&ws, git, &old_side)?;
            let mut new = open_side(&ws, git, &new_side)?;
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
                            print_disk_notes(w, &shown);
                        }
                    }
                    changed
                }
            };
            let policies_changed = crate::source::changed_policies(old.source(), new.source())?;
            (old, new, changed, policies_changed)
        };
    let policies_changed = if nearest { policies_changed } else { BTreeSet::new() };
    let mut dirs = dirs_of(&changed);
    let governed = dirs_of(&policies_changed);
    dirs.extend(modules_under(old.source(), &governed)?);
    dirs.extend(modules_under(new.source(), &governed)?);
    for o in [&mut old, &mut new] {
        if let Opened::Git(g) = o {
            git.load(g, Some(&dirs))?;
        }
    }
    let side = |o: &Opened| -> Result<Option<BTreeMap<String, Judged>>, SourceError> {
        let src = o.source();
        let Some(policies) = resolve_policies(
            src,
            &choice,
            dirs.iter().map(String::as_str),
            &levels,
            &shown,
            style,
        )?
        else {
            return Ok(None);
        };
        let scoped = Scoped { inner: src, dirs: &dirs };
        Ok(Some(judge(&scoped, &policies, engine, today())?))
    };
    let (Some(before), Some(after)) = (side(&old)?, side(&new)?) else {
        return Ok(Outcome::Error);
    };
    let mut changes = Vec::new();
    for dir in &dirs {
        let (b, a) = (before.get(dir), after.get(dir));
        let (fb, fa) = (
            b.map(|j| j.findings.clone()).unwrap_or_default(),
            a.map(|j| j.findings.clone()).unwrap_or_default(),
        );
        let change = review::ModuleChange {
            dir: dir.clone(),
            files: changed
                .iter()
                .filter(|p| split(p).0 == dir)
                .map(|p| split(p).1.to_string())
                .collect(),
            before: b.map(|j| review::effective_text(&j.loaded.module)),
            after: a.map(|j| review::effective_text(&j.loaded.module)),
            introduced: review::introduced(&fb, fa.clone()),
            resolved: review::introduced(&fa, fb),
        };
        // Judged again only for the policy's sake, and nothing changed: not news.
        if !change.files.is_empty() || !change.introduced.is_empty() || !change.resolved.is_empty()
        {
            changes.push(change);
        }
    }
    for p in &policies_changed {
        write_note(&format!(
            "note: {} changed: each side is judged by its own policies, every module it governs again\n",
            report::clean_line(p)
        ));
    }
    let labels = (old_side.label(), new_side.label());
    let introduced: Vec<Finding> = changes.iter().flat_map(|c| c.introduced.clone()).collect();
    let text = match format {
        ReportFormat::Human => review::human(&changes, labels, style),
        ReportFormat::Json => review::json(&changes, labels),
        other => {
            // The files of the changed modules as they are after the change.
            let now: Vec<&Judged> = changes.iter().filter_map(|c| after.get(&c.dir)).collect();
            let mut policies: Vec<Option<String>> = Vec::new();
            for j in &now {
                if !policies.contains(&j.policy) {
                    policies.push(j.policy.clone());
                }
            }
            let mut summary = findings::Summary {
                modules: changes.len(),
                policies,
                quiet: args.quiet,
                ..Default::default()
            };
            for j in &now {
                let c = crate::pipeline::audit::Counts::of(&j.loaded.module);
                summary.files += c.files;
                summary.override_files += c.overrides;
                summary.local_only.extend(c.local);
            }
            render_findings(&introduced, &summary, other, style)
        }
    };
    print_findings(&text, format);
    Ok(outcome(&introduced, args.deny_warnings))
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
    let root = workspace::display_root(dir);
    let note = |path: &str, why: &str| {
        write_err(&format!(
            "note: {}: {}\n",
            report::clean_line(&join(&root, path)),
            report::clean(why)
        ))
    };
    for (path, why) in src.notes() {
        note(&path, &why);
    }
    let names = dirs.remove("").unwrap_or_default();
    let m = merge::load("", &names, engine, |p| src.read(p))?;
    if m.files.files.is_empty() {
        let shown = workspace::shown_path(dir);
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
    let io = |p: &Path, e: std::io::Error| SourceError {
        path: workspace::shown_path(p),
        message: e.to_string(),
    };
    let entries: Vec<String> = std::fs::read_dir(dir)
        .map_err(|e| io(dir, e))?
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .collect();
    let mut auto = Vec::new();
    for name in crate::vars::auto_files(entries.iter().map(String::as_str)) {
        let path = dir.join(&name);
        if let Some(why) = src.outside(&name) {
            note(&name, why);
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
    let module = root;
    match format {
        VarsFormat::Human => write_out(&report::vars::human(&r, &module, reveal, style)),
        VarsFormat::Json => write_syntax(&report::vars::json(&r, &module, reveal)),
    }
    Ok(if r.has_errors() { Outcome::Error } else { Outcome::Clean })
}

/// 1 when a finding is at deny level (or a warning, with `--deny-warnings`).
pub fn outcome(findings: &[Finding], deny_warnings: bool) -> Outcome {
    let t = Tally::of(findings);
    if t.deny > 0 || (deny_warnings && t.warn > 0) { Outcome::Findings } else { Outcome::Clean }
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
    let shown = workspace::shown_path(path);
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
    offer_baseline(path);
    Ok(Outcome::Clean)
}

/// After `init`: when the repository already has findings under the new policy, says how
/// to adopt it without fixing them all first. Silent when the audit cannot run.
fn offer_baseline(policy: &Path) {
    let Some(dir) =
        policy.parent().map(|d| if d.as_os_str().is_empty() { Path::new(".") } else { d })
    else {
        return;
    };
    let was = QUIET.swap(true, Ordering::Relaxed);
    let found = audited(
        &[dir.to_path_buf()],
        None,
        &FromArgs::default(),
        &PolicyArgs::default(),
        Style::plain(),
    );
    QUIET.store(was, Ordering::Relaxed);
    let Ok(Some((findings, _, _))) = found else { return };
    if findings.is_empty() {
        return;
    }
    let t = Tally::of(&findings);
    let base = workspace::shown_path(&dir.join(".override-guard-baseline.json"));
    write_err(&format!(
        "this repository already has {} error{} and {} warning{} under this policy; to adopt it without fixing them first, record them in a baseline:\n  override-guard audit {} --write-baseline {base}\nthen `--baseline {base}` (audit, and the hook's `check`) reports only new ones; `check --new-only` needs no file\n",
        t.deny,
        if t.deny == 1 { "" } else { "s" },
        t.warn,
        if t.warn == 1 { "" } else { "s" },
        workspace::shown_path(dir),
    ));
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
pub struct Bar {
    bar: Option<ProgressBar>,
    started: Instant,
    shown: AtomicBool,
}

impl Bar {
    pub fn new() -> Bar {
        let tty = std::io::stderr().is_terminal()
            && !QUIET.load(Ordering::Relaxed)
            && std::env::var_os("CI").is_none()
            && std::env::var("TERM").map_or(true, |t| t != "dumb");
        Bar {
            bar: tty.then(ProgressBar::hidden),
            started: Instant::now(),
            shown: AtomicBool::new(false),
        }
    }
}

impl Default for Bar {
    fn default() -> Self {
        Bar::new()
    }
}

impl crate::pipeline::Progress for Bar {
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

/// Whether this run prints only findings and errors (`--quiet`, set once in [`dispatch`]).
static QUIET: AtomicBool = AtomicBool::new(false);

/// A note, hint or warning on stderr: what `--quiet` leaves out.
fn write_note(s: &str) {
    if !QUIET.load(Ordering::Relaxed) {
        write_err(s);
    }
}
