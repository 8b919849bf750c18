//! A baseline: the findings a repository already had when it adopted override-guard
//! (`audit --write-baseline FILE`), so that `--baseline FILE` reports only new ones, as
//! checkov's `--create-baseline` does. Findings are matched by `finding::fingerprint`,
//! which survives lines added above them; a fixed finding simply stops matching. It
//! records debt only: not a finding about a file git does not track, not a module the
//! engine refuses, not a mistake in a policy file (see `recordable`). Pure: the caller
//! reads and writes the file.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use super::Finding;

/// The file's format version; another is refused with a clear message.
const VERSION: u32 = 1;

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    version: u32,
    /// Which tool wrote it (a checkov baseline given by mistake is refused).
    tool: String,
    findings: Vec<Entry>,
}

/// One recorded finding. Only the fingerprint is matched; the rest is for the reader of
/// the file (and for a reviewer of the change that adds it).
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    rule: String,
    path: String,
    fingerprint: String,
    #[serde(default)]
    message: String,
}

/// A baseline as read.
#[derive(Debug, Default)]
pub(crate) struct Baseline {
    known: HashSet<String>,
}

impl Baseline {
    /// Reads a baseline file's text; the error says what is wrong, with the line.
    pub(crate) fn parse(text: &str) -> Result<Baseline, String> {
        let file: File = serde_json::from_str(text).map_err(|e| {
            format!(
                "not an override-guard baseline: {} (line {}, column {})",
                strip_position(&e),
                e.line(),
                e.column()
            )
        })?;
        if file.tool != "override-guard" {
            return Err(format!("a baseline of `{}`, not of override-guard", file.tool));
        }
        if file.version != VERSION {
            return Err(format!(
                "baseline version {} (this override-guard reads version {VERSION}): write it again with `override-guard audit --write-baseline`",
                file.version
            ));
        }
        Ok(Baseline { known: file.findings.into_iter().map(|e| e.fingerprint).collect() })
    }

    /// The findings it does not record (in order), and how many it hid. `fingerprints`
    /// are the findings' own, in the same order (`finding::fingerprint::all`).
    /// A module the engine refuses and a mistake in a policy file are never hidden, even
    /// by a file that records them (one written by hand, or by an older version).
    pub(crate) fn filter(
        &self,
        findings: Vec<Finding>,
        fingerprints: &[String],
    ) -> (Vec<Finding>, usize) {
        use crate::finding::RuleId;
        let before = findings.len();
        let kept: Vec<Finding> = findings
            .into_iter()
            .zip(fingerprints)
            .filter(|(f, fp)| {
                matches!(f.rule, RuleId::MergeError | RuleId::PolicyError)
                    || !self.known.contains(fp.as_str())
            })
            .map(|(f, _)| f)
            .collect();
        let hidden = before - kept.len();
        (kept, hidden)
    }
}

/// serde_json's message without its own ` at line L column C` (we say it our way).
fn strip_position(e: &serde_json::Error) -> String {
    let s = e.to_string();
    match s.rfind(" at line ") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

/// What a baseline leaves out, by kind, and why.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Left {
    /// About a file git does not track (git-ignored, untracked): the baseline is
    /// committed, the file is not, and nobody else has the finding.
    pub local: usize,
    /// A module the engine refuses: not debt, excused only by an expiring exception.
    pub merge_errors: usize,
    /// A mistake in a policy file: fixed, not recorded.
    pub policy_errors: usize,
}

impl Left {
    /// Lines for the note after "wrote FILE": nothing when nothing was left out.
    pub fn said(&self) -> String {
        let n =
            |k: usize, one: &str, many: &str| format!("{k} {}", if k == 1 { one } else { many });
        let mut out = String::new();
        if self.local > 0 {
            out.push_str(&format!(
                "not recorded: {} about files git does not track (git-ignored or untracked): the baseline is committed without them\n",
                n(self.local, "finding", "findings")
            ));
        }
        if self.merge_errors > 0 {
            out.push_str(&format!(
                "not recorded: {}: a module the engine refuses is no debt to record; fix it, or excuse it with an `[[exceptions]]` entry naming the module, with an `expires` date\n",
                n(self.merge_errors, "merge-error", "merge-errors")
            ));
        }
        if self.policy_errors > 0 {
            out.push_str(&format!(
                "not recorded: {}: a mistake in a policy file is no debt to record; fix the policy file\n",
                n(self.policy_errors, "policy-error", "policy-errors")
            ));
        }
        out
    }
}

/// The findings a baseline may record, each with its fingerprint, and what it leaves out:
/// a finding about a file that exists only in this checkout (`local`, per finding), a
/// module the engine refuses (`merge-error`) or a mistake in a policy file
/// (`policy-error`), which no baseline excuses.
pub(crate) fn recordable(
    findings: &[Finding],
    fingerprints: &[String],
    local: &[bool],
) -> (Vec<(Finding, String)>, Left) {
    use crate::finding::RuleId;
    let mut left = Left::default();
    let mut kept = Vec::new();
    for (i, (f, fp)) in findings.iter().zip(fingerprints).enumerate() {
        match f.rule {
            RuleId::MergeError => left.merge_errors += 1,
            RuleId::PolicyError => left.policy_errors += 1,
            _ if local.get(i).copied().unwrap_or(false) => left.local += 1,
            _ => kept.push((f.clone(), fp.clone())),
        }
    }
    (kept, left)
}

/// The baseline file of some findings (`fingerprints` in the same order), sorted by path,
/// rule and fingerprint so that a re-written baseline differs only where findings did.
pub fn write(findings: &[Finding], fingerprints: &[String]) -> String {
    let mut entries: Vec<Entry> = findings
        .iter()
        .zip(fingerprints)
        .map(|(f, fp)| Entry {
            rule: f.rule.to_string(),
            path: f.primary.path.clone(),
            fingerprint: fp.clone(),
            message: f.message.clone(),
        })
        .collect();
    entries.sort_by(|a, b| {
        (&a.path, &a.rule, &a.fingerprint).cmp(&(&b.path, &b.rule, &b.fingerprint))
    });
    let file = File { version: VERSION, tool: "override-guard".into(), findings: entries };
    let mut out = serde_json::to_string_pretty(&file).unwrap_or_default();
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finding::fingerprint;
    use crate::policy::Site;

    fn finding(path: &str, text: &str, needle: &str, message: &str) -> Finding {
        let start = text.find(needle).unwrap_or(0);
        let site = Site::new(path, text.into(), start, start + needle.len(), "");
        Finding::new(crate::finding::RuleId::BackendSwap, message, site)
    }

    #[test]
    fn a_written_baseline_hides_what_it_recorded_and_nothing_else() {
        let text = "terraform {\n  backend \"s3\" {}\n}\n";
        let old = vec![finding("a/override.tf", text, "backend", "swaps the backend")];
        let file = write(&old, &fingerprint::all(&old));
        let b = Baseline::parse(&file).expect("parses");
        assert_eq!(b.known.len(), 1);
        // Lines added above it: still known. A second, new one: reported.
        let shifted = format!("\n\n{text}");
        let now = vec![
            finding("a/override.tf", &shifted, "backend", "swaps the backend"),
            finding("b/override.tf", text, "backend", "swaps the backend"),
        ];
        let (kept, hidden) = b.filter(now.clone(), &fingerprint::all(&now));
        assert_eq!(hidden, 1);
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].primary.path, "b/override.tf");
        // A second identical finding in the same file is new too.
        let twice = vec![old[0].clone(), old[0].clone()];
        assert_eq!(b.filter(twice.clone(), &fingerprint::all(&twice)).1, 1);
    }

    /// No baseline records, nor hides, a module the engine refuses or a policy mistake;
    /// one written leaves out what is about a file only this checkout has.
    #[test]
    fn refused_modules_policy_mistakes_and_local_files_are_not_debt() {
        use crate::finding::RuleId;
        let text = "terraform {\n  backend \"s3\" {}\n}\n";
        let mut all = vec![
            finding("a/override.tf", text, "backend", "swaps the backend"),
            finding("b/local_override.tf", text, "backend", "swaps the backend"),
            finding("c/override.tf", text, "terraform", "Missing resource to override"),
            finding(".override-guard.toml", text, "terraform", "unknown key"),
        ];
        all[2].rule = RuleId::MergeError;
        all[3].rule = RuleId::PolicyError;
        let fps = fingerprint::all(&all);
        let (kept, left) = recordable(&all, &fps, &[false, true, false, false]);
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].0.primary.path, "a/override.tf");
        assert_eq!(left, Left { local: 1, merge_errors: 1, policy_errors: 1 });
        assert_eq!(left.said().lines().count(), 3);
        assert_eq!(Left::default().said(), "");
        // A file that records them anyway (by hand, or an older version) hides neither.
        let b = Baseline::parse(&write(&all, &fps)).expect("parses");
        let (shown, hidden) = b.filter(all.clone(), &fps);
        assert_eq!(hidden, 2);
        let rules: Vec<RuleId> = shown.iter().map(|f| f.rule).collect();
        assert_eq!(rules, [RuleId::MergeError, RuleId::PolicyError]);
    }

    #[test]
    fn broken_or_foreign_files_are_refused_with_a_reason() {
        let e = Baseline::parse("{\n  \"version\": 1,\n  \"tool\": \"override-guard\"\n")
            .expect_err("cut short");
        assert!(e.contains("line 4"), "{e}");
        let e = Baseline::parse("{\"version\": 1, \"tool\": \"checkov\", \"findings\": []}")
            .expect_err("checkov");
        assert!(e.contains("`checkov`"), "{e}");
        let e = Baseline::parse("{\"version\": 2, \"tool\": \"override-guard\", \"findings\": []}")
            .expect_err("v2");
        assert!(e.contains("version 2"), "{e}");
        let e = Baseline::parse("{\"failed_checks\": []}").expect_err("unknown field");
        assert!(e.contains("not an override-guard baseline"), "{e}");
    }
}
