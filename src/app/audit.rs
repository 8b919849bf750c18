//! `audit PATH…`, and the baselines it writes and reads.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::outcome::{Outcome, outcome};
use super::output::{print_findings, write_note};
use super::policies::{cli_levels, found, policy_choice, today};
use super::progress::Bar;
use super::sources::{Read, read};
use super::workspace::Shown;
use crate::cli::{FromArgs, PolicyArgs};
use crate::error;
use crate::pipeline::audit::{Ask, Audit, Found};
use crate::policy::{self, Finding};
use crate::report::{self, Style, findings};
use crate::report::{Report, ReportFormat};
use crate::source::disk;
use crate::terraform::release::EngineChoice;

/// `audit`'s baseline files: the one to read, the one to write.
#[derive(Clone, Copy, Default)]
pub(super) struct Baselines<'a> {
    pub(super) read: Option<&'a Path>,
    pub(super) write: Option<&'a Path>,
}

/// The findings with the paths SARIF shows (from the repository's root in a repository):
/// what a baseline records and is matched by, whatever directory is audited from where.
fn at_sarif_paths(findings: &[Finding], shown: &Shown) -> Vec<Finding> {
    let mut at: Vec<Finding> = findings.to_vec();
    for f in &mut at {
        f.primary.path = shown.path_for(&f.primary.path, ReportFormat::Sarif);
    }
    at
}

/// Reads a baseline file from disk.
pub(super) fn read_baseline(path: &Path) -> Result<policy::baseline::Baseline, error::Error> {
    let shown = super::workspace::shown_path(path);
    let bytes = super::workspace::read_named(path, disk::Kind::Report, shown.clone()).map_err(
        |e| match e {
            error::Error::Io { path, source } => error::Error::ReadBaseline { path, source },
            e => e,
        },
    )?;
    let text = String::from_utf8(bytes)
        .map_err(|e| error::Error::NotUtf8 { path: shown.clone(), source: e.utf8_error() })?;
    policy::baseline::Baseline::parse(&text)
        .map_err(|message| error::Error::BadBaseline { path: shown, message })
}

/// Writes a baseline file (whole, or not at all) of the findings it may record, and says
/// what it recorded and what it left out (see [`policy::baseline::Left`]). `local`: for
/// each finding, whether it is about a file that exists only in this checkout.
pub(super) fn write_baseline(
    path: &Path,
    findings: &[Finding],
    fps: &[String],
    local: &[bool],
) -> Result<(), error::Error> {
    let (kept, left) = policy::baseline::recordable(findings, fps, local);
    let (findings, fps): (Vec<Finding>, Vec<String>) = kept.into_iter().unzip();
    let text = policy::baseline::write(&findings, &fps);
    let name = super::workspace::shown_path(path);
    super::workspace::named_inside(path, &name)?;
    super::write::atomic(path, text.as_bytes()).map_err(|e| error::Error::io(name.clone(), e))?;
    write_note(&format!(
        "wrote {name}: {} finding{} recorded; `--baseline {name}` reports only new ones\n{}",
        findings.len(),
        if findings.len() == 1 { "" } else { "s" },
        left.said()
    ));
    Ok(())
}

pub(super) fn audit_cmd(
    paths: &[PathBuf],
    report: &Report,
    engine: EngineChoice,
    from: &FromArgs,
    args: &PolicyArgs,
    baseline: Baselines<'_>,
    style: Style,
) -> Result<Outcome, error::Error> {
    // A broken baseline is refused before the work, not after.
    let known = baseline.read.map(read_baseline).transpose()?;
    let Some(Audited { mut findings, mut summary, shown, local }) =
        audited(paths, engine, from, args, style)?
    else {
        return Ok(Outcome::Error);
    };
    if baseline.write.is_some() || known.is_some() {
        let at = at_sarif_paths(&findings, &shown);
        let fps = crate::finding::fingerprint::all(&at);
        if let Some(path) = baseline.write {
            let sites = |f: &Finding| {
                let mut all = std::iter::once(&f.primary).chain(&f.related);
                all.any(|s| local.contains(&s.path))
            };
            let local: Vec<bool> = findings.iter().map(sites).collect();
            write_baseline(path, &at, &fps, &local)?;
        }
        if let Some(known) = &known {
            (findings, summary.baselined) = known.filter(findings, &fps);
        }
    }
    summary.quiet = args.quiet;
    let format = report.format;
    shown.apply(&mut findings, &mut summary, format);
    print_findings(&report.render(&findings, &summary, style), format);
    // Writing a baseline is the run's purpose, and done: the findings it shows are debt
    // recorded, not a failure.
    if baseline.write.is_some() {
        return Ok(Outcome::Clean);
    }
    Ok(outcome(&findings, args.deny_warnings))
}

/// What an audit found, before its paths are shown.
pub(super) struct Audited {
    pub(super) findings: Vec<Finding>,
    pub(super) summary: findings::Summary,
    pub(super) shown: Shown,
    /// The paths the findings name of files that exist only in this checkout.
    pub(super) local: HashSet<String>,
}

/// The audit of some paths: its findings and summary (paths not yet as shown), or `None`
/// when a policy file is broken (its errors are printed).
pub(super) fn audited(
    paths: &[PathBuf],
    engine: EngineChoice,
    from: &FromArgs,
    args: &PolicyArgs,
    style: Style,
) -> Result<Option<Audited>, error::Error> {
    let Some(levels) = cli_levels(args) else { return Ok(None) };
    let Read { ws, shown, opened, modules } = read(paths, from, true)?;
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
    let ask = Ask { choice: &choice, levels: &levels, engine, today: today() };
    let run = Audit::audit(src, &ask, &modules, &ws.scopes(), &Bar::new());
    let Some(Found { findings, summary, local }) = found(run, &shown, style)? else {
        return Ok(None);
    };
    Ok(Some(Audited { findings, summary, shown, local }))
}
