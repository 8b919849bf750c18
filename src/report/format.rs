//! The report formats of `audit`, `check` and `diff`, each with its properties declared
//! once: how its findings are drawn, the escapes the last guard before the terminal writes
//! in it, whether its paths are named from the repository's root, and whether it is a
//! document written even when there is nothing to report. A new format is a variant here
//! and its drawing; every `match` below makes the compiler ask for the rest.

use super::findings::{self, Summary};
use super::{Escapes, Style, ci, markdown, sarif};
use crate::finding::Finding;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ReportFormat {
    /// Drawings of the source lines each finding names (miette).
    Human,
    /// `path:line:col: level[rule]: message`, one finding a line.
    Compact,
    /// override-guard's JSON report (schema version 1, see docs/formats.md).
    Json,
    /// SARIF 2.1.0, for code scanning.
    Sarif,
    /// GitHub Actions workflow annotations.
    Github,
    /// GitLab Code Quality report (a JSON array), for merge-request widgets.
    Gitlab,
    /// JUnit XML, for Jenkins' junit step and GitLab's test reports.
    Junit,
    /// Checkstyle XML, for Jenkins' warnings-ng and other linter dashboards.
    Checkstyle,
    /// GitHub- and GitLab-flavoured Markdown, for a pull-request comment (`diff`: the
    /// review, with its table of changed values).
    Markdown,
}

/// A report as asked for: its format and, for a Markdown comment, how it is written.
#[derive(Clone, Debug)]
pub(crate) struct Report {
    pub format: ReportFormat,
    pub comment: markdown::Comment,
}

impl Report {
    /// The findings and the run's summary, drawn in the report's format.
    pub(crate) fn render(&self, found: &[Finding], summary: &Summary, style: Style) -> String {
        match self.format {
            ReportFormat::Human => findings::human(found, summary, style),
            ReportFormat::Compact => findings::compact(found, summary),
            ReportFormat::Json => findings::json(found, summary),
            ReportFormat::Sarif => sarif::render(found, summary),
            ReportFormat::Github => findings::github(found, summary),
            ReportFormat::Gitlab => ci::gitlab(found),
            ReportFormat::Junit => ci::junit(found, summary),
            ReportFormat::Checkstyle => ci::checkstyle(found),
            ReportFormat::Markdown => markdown::findings(found, summary, &self.comment),
        }
    }
}

impl ReportFormat {
    /// How the last guard writes a character a renderer left unsafe: the JSON formats
    /// read `\u001b` back inside a string; the XML reports escape everything unsafe
    /// themselves (XML has no escape the guard could use), so the guard finds nothing.
    pub(crate) fn escapes(self) -> Escapes {
        match self {
            ReportFormat::Json | ReportFormat::Sarif | ReportFormat::Gitlab => Escapes::Syntax,
            ReportFormat::Human
            | ReportFormat::Compact
            | ReportFormat::Github
            | ReportFormat::Junit
            | ReportFormat::Checkstyle
            | ReportFormat::Markdown => Escapes::Text,
        }
    }

    /// The formats CI services read: they resolve paths from the repository's root, and
    /// SARIF's and GitLab's are the paths fingerprints and baselines are made of. The
    /// others name files as the user named them.
    pub(crate) fn paths_from_root(self) -> bool {
        match self {
            ReportFormat::Github
            | ReportFormat::Sarif
            | ReportFormat::Gitlab
            | ReportFormat::Junit
            | ReportFormat::Checkstyle
            | ReportFormat::Markdown => true,
            ReportFormat::Human | ReportFormat::Compact | ReportFormat::Json => false,
        }
    }

    /// A document a program parses (JSON, SARIF, GitLab, JUnit, Checkstyle) or posts (a
    /// Markdown comment), not lines for people or workflow commands: written even when
    /// there is nothing to report, since an empty file would not parse, and a comment
    /// should say that all is well.
    pub(crate) fn is_document(self) -> bool {
        match self {
            ReportFormat::Human | ReportFormat::Compact | ReportFormat::Github => false,
            ReportFormat::Json
            | ReportFormat::Sarif
            | ReportFormat::Gitlab
            | ReportFormat::Junit
            | ReportFormat::Checkstyle
            | ReportFormat::Markdown => true,
        }
    }

    /// Lines for people, which a clean run under a hook framework need not print.
    pub(crate) fn is_text(self) -> bool {
        matches!(self, ReportFormat::Human | ReportFormat::Compact)
    }
}
