//! The escape hatches: inline `override-guard:ignore[rule] reason` comments in the module's
//! files, and `[[exceptions]]` in the policy. Both report their own misuse.

use super::config::{Origin, did_you_mean};
use super::context::comments_around;
use super::rules::{self, RULES};
use super::{Date, Finding, GlobBase, Level, Policy, Scope, Site};
use crate::merge::Module;
use crate::terraform::{Span, Syntax};

const MARKER: &str = "override-guard:ignore[";

/// One inline suppression.
#[derive(Debug)]
struct Suppression {
    /// The comment (or JSON string) it is written in.
    span: Span,
    rules: Vec<String>,
    reason: String,
    malformed: bool,
    /// In the file's header: applies to the whole file.
    file_wide: bool,
    used: bool,
}

/// The inline suppressions of one module.
#[derive(Debug, Default)]
pub struct Inline {
    items: Vec<Suppression>,
}

impl Inline {
    /// Finds every suppression comment in the module's files.
    pub fn scan(m: &Module) -> Inline {
        let mut items = Vec::new();
        for (id, f) in m.files.files.iter().enumerate() {
            if !f.text.contains(MARKER) {
                continue;
            }
            let first_item =
                m.parsed.iter().find(|p| p.file == id).and_then(|p| p.body.items.first()).map_or(
                    f.text.len(),
                    |i| match i {
                        crate::terraform::Item::Attr(a) => a.span.start,
                        crate::terraform::Item::Block(b) => b.span.start,
                        crate::terraform::Item::Json(j) => j.span.start,
                    },
                );
            match f.syntax {
                Syntax::Hcl => {
                    let above_first: Vec<usize> = super::context::lines_above(&f.text, first_item)
                        .into_iter()
                        .map(|(s, _, _)| s)
                        .collect();
                    let mut start = 0;
                    for raw in f.text.split_inclusive('\n') {
                        let line = raw.trim_end_matches('\n').trim_end_matches('\r');
                        let t = line.trim();
                        let lead = line.len() - line.trim_start().len();
                        if (t.starts_with('#') || t.starts_with("//")) && t.contains(MARKER) {
                            let s = start + lead;
                            let span = Span::new(id, s, start + line.trim_end().len());
                            let file_wide = s < first_item && !above_first.contains(&s);
                            items.push(parse(span, t, file_wide));
                        }
                        start += raw.len();
                    }
                }
                Syntax::Json => {
                    let root = m.parsed.iter().find(|p| p.file == id);
                    for n in root.map(|p| p.notes.as_slice()).unwrap_or_default() {
                        if n.text.contains(MARKER) {
                            let file_wide = f
                                .text
                                .get(..n.covers.start)
                                .unwrap_or("")
                                .trim_start_matches('\u{feff}')
                                .trim()
                                .is_empty();
                            items.push(parse(n.span, &n.text, file_wide));
                        }
                    }
                }
            }
        }
        Inline { items }
    }

    /// Is the finding suppressed by a comment on one of its places? Marks the comment used.
    pub fn suppresses(&mut self, m: &Module, f: &Finding) -> bool {
        if self.items.is_empty() {
            return false;
        }
        for site in std::iter::once(&f.primary).chain(&f.related) {
            let Some(file) = m.files.files.iter().position(|x| x.path == site.path) else {
                continue;
            };
            let span = Span::new(file, site.start, site.end);
            let comments = comments_around(m, span);
            for s in &mut self.items {
                if s.malformed || !s.rules.iter().any(|r| r == f.rule || r == "all") {
                    continue;
                }
                if (s.file_wide && s.span.file == file) || comments.iter().any(|c| c.span == s.span)
                {
                    s.used = true;
                    return true;
                }
            }
        }
        false
    }

    /// Misused suppressions: no reason, unknown rule id, malformed, or unused.
    pub fn findings(&self, m: &Module, policy: &Policy, base: &GlobBase) -> Vec<Finding> {
        let mut out = Vec::new();
        for s in &self.items {
            let site = |label: &str| Site::in_module(m, s.span, label);
            let path = base.of(&m.files.get(s.span.file).path);
            let mut push = |rule: &'static str, f: Finding| {
                let level = policy.level_for(rule, &path);
                if level != Level::Allow {
                    out.push(Finding { level, ..f });
                }
            };
            if s.malformed {
                push(
                    "bad-suppression",
                    Finding::new("bad-suppression", "malformed suppression comment", site("here"))
                        .help("write it as `# override-guard:ignore[rule-id] reason`"),
                );
                continue;
            }
            let unknown: Vec<&String> =
                s.rules.iter().filter(|r| *r != "all" && rules::find(r).is_none()).collect();
            for r in &unknown {
                let help = did_you_mean(r, RULES.iter().map(|r| r.id))
                    .map_or("`override-guard explain` lists the rules".into(), |d| {
                        format!("did you mean `{d}`?")
                    });
                push(
                    "bad-suppression",
                    Finding::new(
                        "bad-suppression",
                        format!("suppression names unknown rule `{r}`"),
                        site("here"),
                    )
                    .help(help),
                );
            }
            if s.reason.is_empty() {
                push(
                    "bad-suppression",
                    Finding::new("bad-suppression", "suppression without a reason", site("here"))
                        .help(
                            "say why after the brackets: `# override-guard:ignore[rule-id] reason`",
                        ),
                );
            }
            let in_force =
                s.rules.iter().any(|r| r == "all" || policy.level_for(r, &path) != Level::Allow);
            if !s.used && unknown.is_empty() && in_force {
                push(
                    "unused-suppression",
                    Finding::new(
                        "unused-suppression",
                        format!("suppression of {} matches no finding", s.rules.join(", ")),
                        site("suppresses nothing"),
                    )
                    .help("remove it"),
                );
            }
        }
        out
    }
}

fn parse(span: Span, text: &str, file_wide: bool) -> Suppression {
    let after = text.split_once(MARKER).map_or("", |(_, a)| a);
    let (rules, reason, malformed) = match after.split_once(']') {
        Some((ids, rest)) => {
            let rules: Vec<String> =
                ids.split(',').map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect();
            let malformed = rules.is_empty();
            (rules, rest.trim().trim_end_matches("*/").trim().to_string(), malformed)
        }
        None => (Vec::new(), String::new(), true),
    };
    Suppression { span, rules, reason, malformed, file_wide, used: false }
}

/// The policy's exceptions, and which were used.
pub struct Ledger {
    used: Vec<bool>,
    expired_hit: Vec<bool>,
}

impl Ledger {
    pub fn new(policy: &Policy) -> Ledger {
        Ledger {
            used: vec![false; policy.exceptions.len()],
            expired_hit: vec![false; policy.exceptions.len()],
        }
    }

    /// Adds what another ledger (of another module) saw.
    pub fn absorb(&mut self, other: &Ledger) {
        for (a, b) in self.used.iter_mut().zip(&other.used) {
            *a |= *b;
        }
        for (a, b) in self.expired_hit.iter_mut().zip(&other.expired_hit) {
            *a |= *b;
        }
    }

    /// Does an exception cover this finding (at `path`, relative to the policy)?
    pub fn excepts(&mut self, policy: &Policy, f: &Finding, path: &str, today: Date) -> bool {
        for (i, e) in policy.exceptions.iter().enumerate() {
            if e.rule != f.rule
                || e.paths.as_ref().is_some_and(|g| !g.is_match(path))
                || e.address.as_ref().is_some_and(|g| {
                    !f.address.as_ref().is_some_and(|a| g.is_match(a.replace('.', "/")))
                })
            {
                continue;
            }
            if e.expires.is_some_and(|d| d < today) {
                self.expired_hit[i] = true;
                continue;
            }
            self.used[i] = true;
            return true;
        }
        false
    }

    /// Expired and unused exceptions, pointing into the policy file. Only exceptions the
    /// run saw all of (see [`Scope::covers`]) are judged, and those that met a finding of
    /// the evaluated modules (an expired one that no longer hides it): an exception for
    /// another directory is neither unused nor used by `audit envs/dev`.
    pub fn findings(&self, policy: &Policy, today: Date, scope: &Scope) -> Vec<Finding> {
        let Origin::File { path, text } = &policy.origin else { return Vec::new() };
        let mut out = Vec::new();
        for (i, e) in policy.exceptions.iter().enumerate() {
            if !self.expired_hit[i] && !scope.covers(e.path_globs.as_deref()) {
                continue;
            }
            let site = |label: &str| Site {
                path: path.clone(),
                source: text.clone(),
                start: e.span.start,
                end: e.span.end,
                label: label.to_string(),
            };
            let (rule, f) = match e.expires {
                Some(d) if d < today => (
                    "expired-exception",
                    Finding::new(
                        "expired-exception",
                        format!("exception for {} expired on {d}", e.rule),
                        site("expired"),
                    )
                    .help(if self.expired_hit[i] {
                        "the findings it covered are reported again: fix them, or renew the exception with a new date"
                    } else {
                        "it matches nothing any more: remove it"
                    }),
                ),
                _ if !self.used[i] => (
                    "unused-exception",
                    Finding::new(
                        "unused-exception",
                        format!("exception for {} matches no finding", e.rule),
                        site("matches nothing"),
                    )
                    .help("remove it, or fix its paths or address"),
                ),
                _ => continue,
            };
            let level = policy.level_for(rule, "");
            if level != Level::Allow {
                out.push(Finding { level, ..f });
            }
        }
        out
    }
}
