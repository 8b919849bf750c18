//! What a change does to one module: its effective configuration on each side and the
//! findings it introduces or resolves. The comparison that makes it is
//! `pipeline::compare`; its drawing, `report::review`.

use std::collections::HashMap;

use super::Finding;
use super::fingerprint;

/// One module whose configuration files differ between the two sides.
#[derive(Debug)]
pub(crate) struct ModuleChange {
    /// The module directory (as shown to the user).
    pub dir: String,
    /// The configuration files that differ.
    pub files: Vec<String>,
    /// The effective configuration on each side (`None`: the module does not exist there).
    pub before: Option<String>,
    pub after: Option<String>,
    /// Findings present after the change and not before, and the reverse.
    pub introduced: Vec<Finding>,
    pub resolved: Vec<Finding>,
    /// Each effective value that differs, where the module is there on both sides and
    /// the engine accepts it on both.
    pub values: Vec<ValueChange>,
    /// The release that judged the module after the change (before, for a removed one).
    pub release: Option<String>,
    /// The effective configurations without the values of sensitive variables and
    /// outputs, for reports others read; `None` where they hold none.
    pub redacted: Option<(Option<String>, Option<String>)>,
}

/// One effective value a change makes differ: `resource.aws_s3_bucket.b.tags.Name`,
/// before and after (`None`: absent on that side).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ValueChange {
    pub path: String,
    pub before: Option<Value>,
    pub after: Option<Value>,
}

/// A value as a review shows it: its text (`None`: sensitive, so never shown), the file
/// and line it was written at, when it has one, and whether that is an override file.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Value {
    pub text: Option<String>,
    pub at: Option<(String, usize)>,
    pub by_override: bool,
}

impl ModuleChange {
    /// Did the effective configuration change (not just the files)? Provenance comments
    /// that only moved (`# ← override.tf:5` → `:6`) are no change.
    pub(crate) fn effective_changed(&self) -> bool {
        match (&self.before, &self.after) {
            (Some(a), Some(b)) => {
                a.lines().map(without_line_numbers).ne(b.lines().map(without_line_numbers))
            }
            (a, b) => a.is_some() != b.is_some(),
        }
    }

    /// The module's directory, `.` for the root, as a diff's header names it.
    pub(crate) fn dir_or_root(&self) -> String {
        if self.dir.is_empty() { ".".into() } else { self.dir.clone() }
    }

    /// The effective configurations as others may read them (see [`ModuleChange::redacted`]).
    pub(crate) fn shown(&self) -> (Option<&str>, Option<&str>) {
        match &self.redacted {
            Some((b, a)) => (b.as_deref(), a.as_deref()),
            None => (self.before.as_deref(), self.after.as_deref()),
        }
    }

    pub(crate) fn status(&self) -> &'static str {
        match (&self.before, &self.after) {
            (None, Some(_)) => "added",
            (Some(_), None) => "removed",
            (Some(b), Some(a)) if rejected_by(a).is_some() && rejected_by(b).is_none() => {
                "rejected"
            }
            _ if self.effective_changed() => "changed",
            _ => "unchanged",
        }
    }
}

/// How the text of a module's effective configuration (`pipeline::compare`) begins for a module the engine rejects.
pub(crate) const REJECTS: &str = " rejects this module:\n";

/// The engine that rejects the module this is the text of, if one does. A rendering of a
/// module it accepts begins with `# Effective configuration`.
pub(crate) fn rejected_by(text: &str) -> Option<&str> {
    let first = text.split_inclusive('\n').next()?;
    first.strip_prefix("# ")?.strip_suffix(REJECTS)
}

/// The findings of `after` that `before` does not have (counted: a second identical
/// finding is new even if one like it existed).
pub(crate) fn introduced(before: &[Finding], after: Vec<Finding>) -> Vec<Finding> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    for f in before {
        *seen.entry(fingerprint::key(f)).or_default() += 1;
    }
    after
        .into_iter()
        .filter(|f| match seen.get_mut(&fingerprint::key(f)) {
            Some(n) if *n > 0 => {
                *n -= 1;
                false
            }
            _ => true,
        })
        .collect()
}

/// A line of the `show` rendering without the line numbers of its provenance comment
/// (`# ← override.tf:5`, `# overridden by override.tf:4`), which move whenever a line is
/// added above them.
pub(crate) fn without_line_numbers(line: &str) -> std::borrow::Cow<'_, str> {
    let cut = if line.starts_with("# overridden by ") { Some(0) } else { line.rfind("# ← ") };
    let Some(at) = cut else { return line.into() };
    let (head, comment) = line.split_at(at);
    let mut out = String::with_capacity(line.len());
    out.push_str(head);
    let mut chars = comment.chars().peekable();
    while let Some(c) = chars.next() {
        if c == ':' && chars.peek().is_some_and(char::is_ascii_digit) {
            while chars.peek().is_some_and(char::is_ascii_digit) {
                chars.next();
            }
            continue;
        }
        out.push(c);
    }
    out.into()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::finding::Site;

    /// A finding at byte `at` of a four-line file.
    pub(crate) fn finding(rule: &'static str, path: &str, message: &str, at: usize) -> Finding {
        let site = Site {
            path: path.into(),
            source: "a\nb\nc\nd\n".into(),
            base: Default::default(),
            start: at,
            end: at + 1,
            label: String::new(),
        };
        Finding::new(crate::finding::RuleId::parse(rule).expect("a rule id"), message, site)
            .address("resource.x.y")
    }

    #[test]
    fn a_finding_that_only_moved_is_not_new() {
        let before = vec![finding("backend-swap", "m/override.tf", "at line 2", 2)];
        let after = vec![finding("backend-swap", "m/override.tf", "at line 3", 4)];
        assert!(introduced(&before, after).is_empty());
    }

    #[test]
    fn a_second_identical_finding_is_new() {
        let f = || finding("silent-drop", "m/main.tf", "drops tags", 0);
        let new = introduced(&[f()], vec![f(), f()]);
        assert_eq!(new.len(), 1);
        let other = introduced(&[f()], vec![finding("silent-drop", "n/main.tf", "drops tags", 0)]);
        assert_eq!(other.len(), 1, "another file is another finding");
    }
}
