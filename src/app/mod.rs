//! Wiring: picks a source per command, runs the pipeline, prints, and decides the exit
//! code (0 clean, 1 findings, 2 usage/I-O errors or a module Terraform rejects).
//!
//! Dispatch is here; each command has its file (`show`, `audit`, `check`, `diff`, `vars`,
//! `edit` for `fix` and `fold`, `flatten` for `flatten`, `scan` and `remap` with the tree
//! they write in `flat_tree`, `init`, `explain` for `explain` and `man`), which decides
//! what to read and how to print; the judging itself is the pipeline's
//! ([`crate::pipeline::audit::Audit`]). Beside them is what they share: `outcome` (exit codes),
//! `sources` (what a run reads), `policies` (which policy governs what), `output`
//! (everything printed), `progress`, `workspace` (paths as the user typed them) and
//! `write` (the only code that changes a user's files). The children import what they use
//! from each other by name; none imports this file.

use crate::error;
use std::sync::atomic::Ordering;

use crate::cli::{Cli, Command};
use crate::report::ReportFormat;
use crate::report::Style;
use crate::report::markdown::Scope;

mod audit;
mod check;
mod diff;
mod edit;
mod explain;
mod flat_tree;
mod flatten;
mod fold;
mod init;
mod leftovers;
mod lsp;
mod outcome;
mod output;
mod policies;
mod progress;
mod show;
mod sources;
mod stop;
mod vars;
pub(crate) mod workspace;
mod write;

use audit::{Baselines, audit_cmd};
use diff::diff;
use explain::{explain, man};
use init::init;
use lsp::lsp;
pub(crate) use outcome::Outcome;
use output::{COLOR, QUIET, STDOUT_ERROR, report_format, use_color, write_out};
use show::show;
use vars::vars_cmd;

/// The stack of every thread that parses: the parser descends recursively, and a file
/// may nest up to its limit of levels. Address space only: pages are used as touched.
const STACK: usize = 256 << 20;

/// The command line of this process, run whole: arguments parsed, the command run on a
/// thread with a parser's stack (and rayon's threads too), its error printed, and its
/// exit status (0 clean, 1 findings, 2 an error, or a scanner's own).
pub fn command_line() -> std::process::ExitCode {
    use std::io::Write;
    use std::process::ExitCode;
    let _ = rayon::ThreadPoolBuilder::new().stack_size(STACK).build_global();
    let run = std::thread::Builder::new().stack_size(STACK).spawn(|| {
        let cli = Cli::parse_ordered();
        match run(&cli) {
            Ok(o) => ExitCode::from(o.code()),
            Err(e) => {
                // The path may come from a hostile repository: escaped, line breaks included.
                let line = format!("error: {}\n", e.map_path(crate::report::clean_line));
                let guarded = crate::report::guard(&line, crate::report::Escapes::Text, false);
                let _ = std::io::stderr().write_all(guarded.as_bytes());
                ExitCode::from(Outcome::Error.code())
            }
        }
    });
    match run.map(|h| h.join()) {
        Ok(Ok(code)) => code,
        // A panic was reported on stderr already; a thread that could not start is ours.
        Ok(Err(_)) => ExitCode::from(101),
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "error: cannot start: {e}");
            ExitCode::from(Outcome::Error.code())
        }
    }
}

/// Runs a parsed command line. A report that could not be written whole (a full disk, a
/// closed file) is an error even when the run itself succeeded: a cut-short SARIF file
/// must not pass for a clean one.
pub(crate) fn run(cli: &Cli) -> Result<Outcome, error::Error> {
    let outcome = dispatch(cli)?;
    match STDOUT_ERROR.lock().map(|mut e| e.take()) {
        Ok(Some(e)) => Err(error::Error::Stdout { source: std::sync::Arc::new(e) }),
        _ => Ok(outcome),
    }
}

fn dispatch(cli: &Cli) -> Result<Outcome, error::Error> {
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
        Command::Show { dir, format, engine, from } => {
            show(dir, from, *format, engine.unwrap_or_default(), style)
        }
        Command::Audit {
            paths,
            format,
            engine,
            from,
            policy,
            baseline,
            write_baseline,
            comment,
        } => {
            let baseline =
                Baselines { read: baseline.baseline.as_deref(), write: write_baseline.as_deref() };
            let report = comment.report(report_format(*format), Scope::Modules, None)?;
            audit_cmd(paths, &report, engine.unwrap_or_default(), from, policy, baseline, style)
        }
        Command::Check {
            files,
            new_only,
            format,
            engine,
            policy,
            from_ref,
            to_ref,
            baseline,
            comment,
        } => {
            let range = check::Range::from_args(from_ref.as_deref(), to_ref.as_deref())?;
            let hook = check::Hook {
                files,
                new_only: *new_only,
                format: report_format(*format),
                comment,
                engine: engine.unwrap_or_default(),
                args: policy,
                baseline: baseline.baseline.as_deref(),
                range,
                style,
            };
            hook.run()
        }
        Command::Diff { revs, worktree, format, engine, policy, comment, link_base_before } => {
            // The review names its two sides itself: the scope words only a findings
            // comment, which `diff` does not write.
            let format = format.unwrap_or(ReportFormat::Human);
            let report = comment.report(format, Scope::Modules, link_base_before.as_deref())?;
            diff(revs, *worktree, &report, engine.unwrap_or_default(), policy, style)
        }
        Command::Vars { dir, format, show_sensitive, engine, order, .. } => {
            vars_cmd(dir, order, *format, *show_sensitive, engine.unwrap_or_default(), style)
        }
        Command::Fix { path, dry_run, check, allow_dirty, engine, policy } => {
            let mode = match (dry_run, check) {
                (true, _) => edit::Mode::DryRun,
                (_, true) => edit::Mode::Check,
                _ => edit::Mode::Write,
            };
            edit::fix(
                path,
                mode,
                *allow_dirty,
                engine.unwrap_or_default(),
                policy.as_deref(),
                style,
            )
        }
        Command::Fold { files, dry_run, allow_dirty, allow_backend_swap, engine } => {
            let allow = fold::Allow { dirty: *allow_dirty, backend_swap: *allow_backend_swap };
            fold::fold(files, *dry_run, allow, engine.unwrap_or_default(), style)
        }
        Command::Flatten { paths, out, force, engine } => {
            flatten::flatten(paths, out, *force, engine.unwrap_or_default())
        }
        Command::Scan { path, command, format, engine } => {
            flatten::scan(path, command, *format, engine.unwrap_or_default())
        }
        Command::Remap { sarif, tree, format } => flatten::remap_cmd(sarif, tree, *format),
        Command::Init { path, stdout, pre_commit } => init(path, *stdout, *pre_commit),
        Command::Explain { rule } => Ok(explain(rule.as_deref())),
        Command::Lsp => lsp(),
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
