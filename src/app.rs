//! Wiring: picks a source per command, runs the pipeline, prints, and decides the exit
//! code (0 clean, 1 findings, 2 usage/I-O errors or a module Terraform rejects).

use std::io::{IsTerminal, Write};

use rayon::prelude::*;

use crate::cli::{Cli, Color, Command, ReportFormat, ShowFormat};
use crate::merge::{self, Module};
use crate::report::{self, Style};
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
        Command::Audit { path, format, engine } => {
            let format = format.unwrap_or(if std::io::stdout().is_terminal() {
                ReportFormat::Human
            } else {
                ReportFormat::Compact
            });
            audit_cmd(&WorktreeSource::tree(path), format, *engine, style)
        }
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
    src: &dyn Source,
    format: ReportFormat,
    engine: Option<Engine>,
    style: Style,
) -> Result<Outcome, SourceError> {
    let modules = load_all(src, engine)?;
    let text = match format {
        ReportFormat::Human => audit::human(&modules, style),
        ReportFormat::Compact => audit::compact(&modules),
        ReportFormat::Json => audit::json(&modules),
    };
    write_out(&text);
    Ok(if modules.iter().any(Module::has_errors) { Outcome::Findings } else { Outcome::Clean })
}

/// Writes to stdout; a closed pipe (`| head`) is not an error.
fn write_out(s: &str) {
    let _ = std::io::stdout().lock().write_all(s.as_bytes());
}

fn write_err(s: &str) {
    let _ = std::io::stderr().lock().write_all(s.as_bytes());
}
