//! What every layer above the policy speaks of: a finding (a rule, a level, a message,
//! the places it is about) and the counts of a run. Ground floor: a finding carries its
//! file's text, so reports need nothing else to draw it, and this imports nothing of the
//! crate (a `Site` is made from a module's files in `policy`).

pub(crate) mod change;
pub(crate) mod fingerprint;

use std::sync::Arc;

use override_guard_hcl::{Columns, LineIndex};

/// The one list of rules, in report order: for each rule file under `policy/rules/`, the
/// rules it holds, each with the variant the code names, the kebab-case id users write, and
/// the `Rule` static the file defines. A new rule is its file and its line here. The list
/// is handed to a macro (`rules!(callback)`), so that this floor makes [`RuleId`] of it and
/// the policy floor declares the files and their `RULES` from the same lines, without
/// importing upwards.
macro_rules! rules {
    ($callback:ident) => {
        $callback! {
            merge_error: MergeError => "merge-error" = RULE;
            override_file: OverrideFile => "override-file" = RULE;
            local_override: LocalOverride => "local-override" = RULE;
            misnamed_override: MisnamedOverride => "misnamed-override" = RULE;
            missing_override_comment: MissingOverrideComment => "missing-override-comment" = RULE;
            backend_swap: BackendSwap => "backend-swap" = RULE;
            silent_drop: SilentDrop => "silent-drop" = RULE;
            ignored_override: IgnoredOverride => "ignored-override" = RULE;
            weakened_safeguard: WeakenedSafeguard => "weakened-safeguard" = RULE;
            protected_attribute: ProtectedAttribute => "protected-attribute" = RULE;
            engine_divergence: EngineDivergence => "engine-divergence" = RULE;
            version_mismatch: VersionMismatch => "version-mismatch" = RULE;
            version_divergence: VersionDivergence => "version-divergence" = RULE;
            tfvars: VariableShadowed => "variable-shadowed" = SHADOWED,
                UndeclaredVariableValue => "undeclared-variable-value" = UNDECLARED;
            meta: ExpiredException => "expired-exception" = EXPIRED_EXCEPTION,
                UnusedException => "unused-exception" = UNUSED_EXCEPTION,
                BadSuppression => "bad-suppression" = BAD_SUPPRESSION,
                UnusedSuppression => "unused-suppression" = UNUSED_SUPPRESSION,
                PolicyError => "policy-error" = POLICY_ERROR;
        }
    };
}
pub(crate) use rules;

/// Makes [`RuleId`] of the list of rules (the files and statics are the policy's).
macro_rules! rule_ids {
    ($($file:ident: $($variant:ident => $id:literal = $rule:ident),+;)+) => {
        /// A rule's identity. Its kebab-case name (`as_str`) is what users write in policies,
        /// suppressions and `--deny`, and what reports print; in the code, an enum, so that a
        /// misspelt id is a compile error and the policy's table is keyed by it.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum RuleId {
            $($($variant,)+)+
        }

        impl RuleId {
            /// Every rule, in report order.
            pub const ALL: [RuleId; [$($(stringify!($variant)),+),+].len()] =
                [$($(RuleId::$variant,)+)+];

            pub fn as_str(self) -> &'static str {
                match self {
                    $($(RuleId::$variant => $id,)+)+
                }
            }
        }
    };
}

rules!(rule_ids);

impl RuleId {
    /// The rule of a kebab-case name.
    pub fn parse(s: &str) -> Option<RuleId> {
        RuleId::ALL.into_iter().find(|r| r.as_str() == s)
    }
}

impl std::fmt::Display for RuleId {
    /// Padded as asked (`{:<26}`), so that lists of rules line up.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

impl serde::Serialize for RuleId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// How seriously a rule's findings are taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Allow,
    Warn,
    Deny,
}

impl Level {
    /// Every level, from off to failing.
    pub const ALL: [Level; 3] = [Level::Allow, Level::Warn, Level::Deny];

    pub fn as_str(self) -> &'static str {
        match self {
            Level::Allow => "allow",
            Level::Warn => "warn",
            Level::Deny => "deny",
        }
    }

    pub fn parse(s: &str) -> Option<Level> {
        match s {
            "allow" => Some(Level::Allow),
            "warn" => Some(Level::Warn),
            "deny" => Some(Level::Deny),
            _ => None,
        }
    }
}

/// A place in a file, self-contained so that reports need nothing else to draw it.
#[derive(Clone, Debug)]
pub struct Site {
    /// Path as shown to the user.
    pub path: String,
    /// The file's text (shared), so a report can show the lines around the site; once an
    /// audit keeps the finding for its report, only those lines (see [`Finding::trim`]).
    pub source: Arc<str>,
    /// Where `source` begins in the file (zero for the whole text).
    pub base: Base,
    /// Byte offsets in `source`.
    pub start: usize,
    pub end: usize,
    pub label: String,
}

/// Where a site's text begins in its file: its byte offset and its line (0-based).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Base {
    pub offset: usize,
    pub line: usize,
}

impl Site {
    /// A site in the whole text of its file.
    pub fn new(
        path: impl Into<String>,
        source: Arc<str>,
        start: usize,
        end: usize,
        label: impl Into<String>,
    ) -> Site {
        Site { path: path.into(), source, base: Base::default(), start, end, label: label.into() }
    }

    /// 1-based line and column (in characters) of a byte offset of this site's text. A
    /// byte-order mark is not a column (editors and Terraform start the line after it).
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let (l, c) =
            line_index(&self.source).line_col(&self.source, offset, Columns::CharsAfterBom);
        (l + self.base.line, c)
    }

    pub fn start_line_col(&self) -> (usize, usize) {
        self.line_col(self.start)
    }

    pub fn end_line_col(&self) -> (usize, usize) {
        self.line_col(self.end)
    }

    /// Byte offsets of the site in its file.
    pub fn file_span(&self) -> (usize, usize) {
        (self.base.offset + self.start, self.base.offset + self.end)
    }
}

/// Lines kept on each side of a trimmed finding's sites: more than a report draws (one
/// line of context, and the drawing reads one more to choose it).
const KEPT_AROUND: usize = 3;

/// A trimmed text longer than this (lines of a minified file) is not copied: the site
/// keeps sharing the whole file's text.
const LONGEST_EXCERPT: usize = 16 * 1024;

/// Do the lines before `at` count the same for every reader, and does the text from `at`
/// start a line as a reader of it alone would see it? Not when a lone `\r` (which ends a
/// line for a terminal, not for an editor) comes before it, or a `U+FEFF` starts it (a
/// byte-order mark, were it the file's start).
fn plain_lines_before(text: &Arc<str>, at: usize) -> bool {
    at == 0 || facts(text).1.is_none_or(|i| i >= at) && !text[at..].starts_with('\u{feff}')
}

/// The line index of `text`.
fn line_index(text: &Arc<str>) -> Arc<LineIndex> {
    facts(text).0
}

/// The line index of `text`, and where its first lone `\r` is. Reports ask for the line of
/// every finding, and a file can have thousands, each site holding the file's text: the
/// last few files' facts are kept (per thread), so each file is scanned once instead of
/// once per finding (the sites of a finding alternate between its files), and the
/// findings of one long line, reported in order, cost its length once.
fn facts(text: &Arc<str>) -> (Arc<LineIndex>, Option<usize>) {
    type Cache = std::cell::RefCell<Vec<(Arc<str>, Arc<LineIndex>, Option<usize>)>>;
    thread_local! {
        static CACHE: Cache = const { std::cell::RefCell::new(Vec::new()) };
    }
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        if let Some(i) = c.iter().position(|(t, ..)| Arc::ptr_eq(t, text)) {
            let hit = c.remove(i);
            let facts = (hit.1.clone(), hit.2);
            c.push(hit);
            return facts;
        }
        #[cfg(test)]
        SCANS.with(|n| n.set(n.get() + 1));
        let index = Arc::new(LineIndex::new(text));
        let b = text.as_bytes();
        let lone_cr =
            text.match_indices('\r').map(|(i, _)| i).find(|&i| b.get(i + 1) != Some(&b'\n'));
        if c.len() == 8 {
            c.remove(0);
        }
        c.push((text.clone(), index.clone(), lone_cr));
        (index, lone_cr)
    })
}

/// `why` as a sentence: a capital first letter and a full stop (a message's words, which
/// start small and end bare, where a report writes prose).
pub(crate) fn sentence(why: &str) -> String {
    let mut c = why.chars();
    let first: String = c.next().map(|f| f.to_uppercase().collect()).unwrap_or_default();
    let rest = c.as_str().trim_end_matches('.');
    format!("{first}{rest}.")
}

#[cfg(test)]
thread_local! {
    /// How many texts [`facts`] has scanned on this thread.
    static SCANS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// One finding: a rule, its level for this place, what is wrong, and where.
#[derive(Clone, Debug)]
pub struct Finding {
    pub rule: RuleId,
    pub level: Level,
    pub message: String,
    pub help: Option<String>,
    /// The configuration address the finding is about, when there is one
    /// (`resource.aws_s3_bucket.logs`, `local.x`, `terraform.backend`).
    pub address: Option<String>,
    pub primary: Site,
    /// Other places worth showing: the original block, the override that changes it.
    pub related: Vec<Site>,
}

impl Finding {
    pub fn new(rule: RuleId, message: impl Into<String>, primary: Site) -> Self {
        Finding {
            rule,
            level: Level::Deny,
            message: message.into(),
            help: None,
            address: None,
            primary,
            related: Vec::new(),
        }
    }

    /// What must follow the message for a one-line report to say which object it is
    /// about: a merge error's message is the engine's summary ("Missing base output
    /// definition to override"), and its detail names the object.
    pub fn detail(&self) -> Option<&str> {
        self.help.as_deref().filter(|d| self.rule == RuleId::MergeError && !d.trim().is_empty())
    }

    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    pub fn address(mut self, address: impl Into<String>) -> Self {
        self.address = Some(address.into());
        self
    }

    pub fn related(mut self, site: Site) -> Self {
        // Most findings have one or two related sites, and an audit keeps every finding
        // of the repository until the report: a list grown by doubling would hold room
        // for four.
        self.related.reserve_exact(1);
        self.related.push(site);
        self
    }

    /// Keeps, of each file the finding names, only the lines a report draws around its
    /// sites, and lets go of the whole text. An audit keeps every finding of the
    /// repository until its report: holding whole files would keep most of the
    /// repository's text alive (the original and the override of every finding). The
    /// sites of one file share one excerpt, so they are still drawn together.
    pub fn trim(&mut self) {
        let mut sites: Vec<&mut Site> =
            std::iter::once(&mut self.primary).chain(self.related.iter_mut()).collect();
        let mut done = vec![false; sites.len()];
        for i in 0..sites.len() {
            if done[i] || sites[i].base != Base::default() {
                continue;
            }
            let text = sites[i].source.clone();
            let same: Vec<usize> =
                (i..sites.len()).filter(|&j| Arc::ptr_eq(&sites[j].source, &text)).collect();
            let lo = same.iter().map(|&j| sites[j].start).min().unwrap_or(0).min(text.len());
            let hi = same.iter().map(|&j| sites[j].end).max().unwrap_or(0).min(text.len());
            let index = line_index(&text);
            let first = index.line(lo).saturating_sub(KEPT_AROUND);
            let from = index.line_start(first).unwrap_or(0);
            let to = index.line_start(index.line(hi) + KEPT_AROUND + 1).unwrap_or(text.len());
            if from == 0 && to == text.len()
                || to - from > LONGEST_EXCERPT
                || !plain_lines_before(&text, from)
            {
                same.iter().for_each(|&j| done[j] = true);
                continue;
            }
            let Some(part) = text.get(from..to) else { continue };
            let part: Arc<str> = Arc::from(part);
            for &j in &same {
                let s = &mut *sites[j];
                s.source = part.clone();
                s.base = Base { offset: from, line: first };
                s.start = s.start.min(text.len()) - from;
                s.end = s.end.min(text.len()).max(from) - from;
                done[j] = true;
            }
        }
    }
}

/// Counts of findings by level, and whether the run fails.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Tally {
    pub deny: usize,
    pub warn: usize,
}

impl Tally {
    pub(crate) fn of<'a>(findings: impl IntoIterator<Item = &'a Finding>) -> Tally {
        let mut t = Tally::default();
        for f in findings {
            match f.level {
                Level::Deny => t.deny += 1,
                Level::Warn => t.warn += 1,
                Level::Allow => {}
            }
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Trimming the findings of a file scans it once, however many there are: the sites
    /// of each finding alternate between two files, and twenty thousand findings in a
    /// 1 MB file each scanning it cost seconds.
    #[test]
    fn trimming_many_findings_scans_each_file_once() {
        let lines = |n: usize| -> Arc<str> {
            (0..n).map(|i| format!("  a{i} = {i}\n")).collect::<String>().into()
        };
        let (main, over) = (lines(2000), lines(1000));
        let site = |text: &Arc<str>, line: usize| {
            let start = text.match_indices('\n').nth(line).map_or(0, |(i, _)| i + 1);
            Site::new("m.tf", text.clone(), start, start + 2, "")
        };
        let before = SCANS.with(std::cell::Cell::get);
        for k in 0..1000 {
            let mut f =
                Finding::new(RuleId::OverrideFile, "m", site(&main, 2 * k)).related(site(&over, k));
            f.trim();
            assert!(f.primary.source.len() < 200 && f.related[0].source.len() < 200);
        }
        assert_eq!(SCANS.with(std::cell::Cell::get) - before, 2);
    }

    #[test]
    fn rule_ids_take_a_width() {
        assert_eq!(format!("{:<19}|", RuleId::MisnamedOverride), "misnamed-override  |");
        assert_eq!(RuleId::parse("misnamed-override"), Some(RuleId::MisnamedOverride));
    }
}
