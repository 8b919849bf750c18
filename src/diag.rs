//! The ground floor of the model: byte ranges in a module's files, and diagnostics in
//! Terraform's shape (a severity, a summary, a detail, and the range they are about). The
//! texts are Terraform's own, so users can search for them. Imports nothing of the crate.

/// Index of a file in a module's registry of files (`terraform::Files`).
pub(crate) type FileId = usize;

/// A byte range in one file of the registry; offsets are into the file's original text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Span {
    pub file: FileId,
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub fn new(file: FileId, start: usize, end: usize) -> Self {
        Span { file, start, end }
    }
}

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
    /// What the engine's text leaves out but the user needs, shown at the subject: the
    /// system's reason a file could not be read ("No such file or directory").
    pub cause: Option<Box<str>>,
}

impl Diagnostic {
    pub fn error(summary: impl Into<String>, detail: impl Into<String>, subject: Span) -> Self {
        Diagnostic {
            severity: Severity::Error,
            summary: summary.into(),
            detail: detail.into(),
            subject: Some(subject),
            related: Vec::new(),
            cause: None,
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

    /// Adds the cause (see [`Diagnostic::cause`]).
    pub fn with_cause(mut self, cause: impl Into<String>) -> Self {
        self.cause = Some(cause.into().into_boxed_str());
        self
    }

    /// The detail, with the cause on a line of its own when there is one.
    pub fn explained(&self) -> String {
        match &self.cause {
            Some(cause) if self.detail.is_empty() => cause.to_string(),
            Some(cause) => format!("{}\n{cause}", self.detail),
            None => self.detail.clone(),
        }
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// `a`, `a and b`, `a, b and c`; past four names, `a, b, c and 2 more`.
pub fn list(names: &[String]) -> String {
    let shown: Vec<&str> =
        names.iter().take(if names.len() > 4 { 3 } else { 4 }).map(|s| s.as_str()).collect();
    let more = names.len() - shown.len();
    match (shown.as_slice(), more) {
        ([], _) => String::new(),
        ([one], 0) => one.to_string(),
        (_, 0) => format!("{} and {}", shown[..shown.len() - 1].join(", "), shown[shown.len() - 1]),
        (_, n) => format!("{} and {n} more", shown.join(", ")),
    }
}

/// Suggests the closest of `candidates` to a misspelt `word`.
pub(crate) fn did_you_mean<'c>(
    word: &str,
    candidates: impl IntoIterator<Item = &'c str>,
) -> Option<&'c str> {
    candidates
        .into_iter()
        .map(|c| (strsim::jaro_winkler(word, c), c))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}
