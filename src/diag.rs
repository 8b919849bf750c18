//! Diagnostics in Terraform's shape: a severity, a summary, a detail, and the range they
//! are about. The texts are Terraform's own, so users can search for them.

use crate::terraform::Span;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Warning,
    Error,
}

/// One diagnostic about the configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub summary: String,
    pub detail: String,
    /// Where it points (Terraform's `Subject`).
    pub subject: Option<Span>,
    /// Other places worth showing (e.g. the earlier declaration of a duplicate).
    pub related: Vec<(Span, String)>,
}

impl Diagnostic {
    pub fn error(summary: impl Into<String>, detail: impl Into<String>, subject: Span) -> Self {
        Diagnostic {
            severity: Severity::Error,
            summary: summary.into(),
            detail: detail.into(),
            subject: Some(subject),
            related: Vec::new(),
        }
    }

    pub fn warning(summary: impl Into<String>, detail: impl Into<String>, subject: Span) -> Self {
        Diagnostic { severity: Severity::Warning, ..Diagnostic::error(summary, detail, subject) }
    }

    /// Adds a related label.
    pub fn with_related(mut self, span: Span, label: impl Into<String>) -> Self {
        self.related.push((span, label.into()));
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}
