//! Wiring: picks a source per command, runs the pipeline, prints, and decides the exit
//! code (0 clean, 1 findings, 2 usage/I-O errors or a module Terraform rejects).

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;

use crate::cli::{Cli, Color, Command, PolicyArgs, ReportFormat, ShowFormat};
use crate::merge::{self, Module};
use crate::policy::config::Origin;
use crate::policy::rules::engine_divergence;
use crate::policy::{self, Date, Finding, Level, Policy, Subject, Tally, rules};
use crate::report::{self, Style, findings};
use crate::source::{Source, SourceError, WorktreeSource};
use crate::terraform::discover::Engine;
use crate::{audit, render};

/// What a run ends with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Clean = 0,
    Findings = 1,
    Error = 2,
}

/// Runs a parsed command line.
pub fn run(cli: &Cli) -> Result<Outcome, SourceError> {
    let style = Style { color: use_color(cli.color), width: 100 };
    match &cli.command {
        Command::Show { dir, format, engine } => {
            show(&WorktreeSource::module(dir), *format, *engine, style)
        }
        Command::Audit { path, format, engine, policy } => {
            let format = format.unwrap_or(if std::io::stdout().is_terminal() {
                ReportFormat::Human
            } else {
                ReportFormat::Compact
            });
            audit_cmd(path, format, *engine, policy, style)
        }
        Command::Init { path, stdout } => init(path, *stdout),
        Command::Explain { rule } => Ok(explain(rule.as_deref())),
    }
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
    write_out(&text);
    Ok(Outcome::Clean)
}

fn audit_cmd(
    path: &Path,
    format: ReportFormat,
    engine: Option<Engine>,
    args: &PolicyArgs,
    style: Style,
) -> Result<Outcome, SourceError> {
    let Some(policy) = load_policy(path, args, style)? else { return Ok(Outcome::Error) };
    let src = WorktreeSource::tree(path);
    let subjects = load_subjects(&src, engine, &Progress::new())?;
    let prefix = policy_prefix(path, &policy);
    let (mut findings, summary) = audit::run(&policy, &subjects, &prefix, today());
    let shown_root = display_root(path);
    for f in &mut findings {
        for site in std::iter::once(&mut f.primary).chain(f.related.iter_mut()) {
            if !matches!(&policy.origin, Origin::File { path, .. } if *path == site.path) {
                site.path = crate::source::join(&shown_root, &site.path);
            }
        }
    }
    let text = match format {
        ReportFormat::Human => findings::human(&findings, &summary, style),
        ReportFormat::Compact => findings::compact(&findings, &summary),
        ReportFormat::Json => findings::json(&findings, &summary),
        ReportFormat::Sarif => report::sarif::render(&findings),
        ReportFormat::Github => findings::github(&findings, &summary),
    };
    write_out(&text);
    Ok(outcome(&findings, args.deny_warnings))
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
}

impl Loaded {
    pub fn subject(&self) -> Subject<'_> {
        Subject { module: &self.module, other: self.other.as_ref() }
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
        .map(|(dir, names)| {
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
            progress.tick();
            Ok(Loaded { module, other })
        })
        .collect();
    progress.finish();
    out
}

/// The policy in force: `--policy`, else the nearest `.override-guard.toml` from the
/// audited directory up to the repository root, else the built-in default; then the
/// command line's levels. `None` after printing the policy file's mistakes.
fn load_policy(
    start: &Path,
    args: &PolicyArgs,
    style: Style,
) -> Result<Option<Policy>, SourceError> {
    let file = match &args.policy {
        Some(p) => Some(p.clone()),
        None => find_policy(start),
    };
    let mut policy = match file {
        None => Policy::builtin(),
        Some(file) => {
            let shown = shown_path(&file);
            let text = std::fs::read_to_string(&file)
                .map_err(|e| SourceError { path: shown.clone(), message: e.to_string() })?;
            match Policy::parse(&shown, &text) {
                Ok(p) => p,
                Err(errors) => {
                    let mut err = String::new();
                    for e in errors {
                        err.push_str(&report::policy_error(e, style));
                    }
                    write_err(&err);
                    return Ok(None);
                }
            }
        }
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
fn find_policy(start: &Path) -> Option<PathBuf> {
    let mut dir = std::fs::canonicalize(start).ok()?;
    loop {
        let candidate = dir.join(POLICY_FILE);
        if candidate.is_file() {
            return Some(candidate);
        }
        if dir.join(".git").exists() || !dir.pop() {
            return None;
        }
    }
}

/// A path as the user should see it: relative to the working directory when inside it.
fn shown_path(p: &Path) -> String {
    let abs = std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let cwd = std::env::current_dir().ok().and_then(|c| std::fs::canonicalize(c).ok());
    let rel = cwd.and_then(|c| abs.strip_prefix(&c).ok().map(Path::to_path_buf));
    rel.unwrap_or_else(|| p.to_path_buf()).to_string_lossy().replace(std::path::MAIN_SEPARATOR, "/")
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

/// Writes to stdout; a closed pipe (`| head`) is not an error.
fn write_out(s: &str) {
    let _ = std::io::stdout().lock().write_all(s.as_bytes());
}

fn write_err(s: &str) {
    let _ = std::io::stderr().lock().write_all(s.as_bytes());
}
