//! What a run ends with, and the exit status that says it.

use crate::policy::{Finding, Tally};

/// What a run ends with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    Clean,
    Findings,
    Error,
    /// `scan`: the scanner's own exit status, passed on.
    Scanner(u8),
    /// Ended by this signal (Ctrl-C, a CI job's timeout) once what it made was removed.
    Stopped(i32),
}

impl Outcome {
    /// The process's exit status.
    pub(crate) fn code(self) -> u8 {
        match self {
            Outcome::Clean => 0,
            Outcome::Findings => 1,
            Outcome::Error => 2,
            Outcome::Scanner(c) => c,
            Outcome::Stopped(sig) => u8::try_from(128 + sig).unwrap_or(2),
        }
    }
}

/// 1 when a finding is at deny level (or a warning, with `--deny-warnings`).
pub(super) fn outcome(findings: &[Finding], deny_warnings: bool) -> Outcome {
    let t = Tally::of(findings);
    if t.deny > 0 || (deny_warnings && t.warn > 0) { Outcome::Findings } else { Outcome::Clean }
}
