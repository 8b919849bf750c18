//! The policy: a team's rules about override files, turned into findings.
//!
//! [`config`] reads and validates the TOML policy (mistakes become diagnostics pointing
//! into it); [`context`] pairs every override block with the original it changes;
//! [`rules`] holds one file per rule; [`suppress`] applies inline suppressions and policy
//! exceptions. [`evaluate`] is pure: modules and a policy in, findings out.

pub mod config;
pub mod context;
pub mod rules;
pub mod suppress;

use std::sync::Arc;

pub use config::{Date, Policy, PolicyError};

use crate::merge::Module;
use crate::terraform::Span;

/// How seriously a rule's findings are taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Allow,
    Warn,
    Deny,
}

impl Level {
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
    /// The whole file's text (shared), so a report can show the lines around the site.
    pub source: Arc<str>,
    pub start: usize,
    pub end: usize,
    pub label: String,
}

impl Site {
    /// A site in one of a module's files.
    pub fn in_module(m: &Module, span: Span, label: impl Into<String>) -> Site {
        let f = m.files.get(span.file);
        Site {
            path: f.path.clone(),
            source: f.text.clone(),
            start: span.start.min(f.text.len()),
            end: span.end.min(f.text.len()),
            label: label.into(),
        }
    }

    /// 1-based line and column (in characters) of a byte offset of this site's file. A
    /// byte-order mark is not a column (editors and Terraform start the line after it).
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.source.len());
        let starts = line_starts(&self.source);
        let line = starts.partition_point(|&s| s <= offset);
        let start = starts[line - 1];
        let text = self.source.get(start..offset);
        let mut col = text.map_or(offset - start, |s| s.chars().count());
        if start == 0 && col > 0 && self.source.starts_with('\u{feff}') {
            col -= 1;
        }
        (line, col + 1)
    }

    pub fn start_line_col(&self) -> (usize, usize) {
        self.line_col(self.start)
    }

    pub fn end_line_col(&self) -> (usize, usize) {
        self.line_col(self.end)
    }
}

/// The offsets at which the lines of `text` start. Reports ask for the line of every
/// finding, and a file can have thousands: the last few files' line tables are kept
/// (per thread), so each file is scanned once instead of once per finding.
fn line_starts(text: &Arc<str>) -> Arc<[usize]> {
    type Cache = std::cell::RefCell<Vec<(Arc<str>, Arc<[usize]>)>>;
    thread_local! {
        static CACHE: Cache = const { std::cell::RefCell::new(Vec::new()) };
    }
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        if let Some(i) = c.iter().position(|(t, _)| Arc::ptr_eq(t, text)) {
            let hit = c.remove(i);
            let starts = hit.1.clone();
            c.push(hit);
            return starts;
        }
        let starts: Arc<[usize]> =
            std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect();
        if c.len() == 8 {
            c.remove(0);
        }
        c.push((text.clone(), starts.clone()));
        starts
    })
}

/// One finding: a rule, its level for this place, what is wrong, and where.
#[derive(Clone, Debug)]
pub struct Finding {
    pub rule: &'static str,
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
    pub fn new(rule: &'static str, message: impl Into<String>, primary: Site) -> Self {
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

    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    pub fn address(mut self, address: impl Into<String>) -> Self {
        self.address = Some(address.into());
        self
    }

    pub fn related(mut self, site: Site) -> Self {
        self.related.push(site);
        self
    }
}

/// A module to evaluate, with the same module loaded by the other engine when that could
/// differ (for `engine-divergence`).
pub struct Subject<'a> {
    pub module: &'a Module,
    pub other: Option<&'a Module>,
    /// The variables files the module's directory holds (for the tfvars rules).
    pub tfvars: &'a [crate::vars::VarFile],
}

/// Evaluates the policy on modules (in parallel). Findings come back in module order,
/// then rule order; `allow`-level findings are dropped; suppressions and exceptions applied.
pub fn evaluate(
    policy: &Policy,
    subjects: &[Subject<'_>],
    prefix: &str,
    today: Date,
    scope: Scope,
) -> Vec<Finding> {
    use rayon::prelude::*;
    let partials: Vec<Partial> =
        subjects.par_iter().map(|s| evaluate_module(policy, s, prefix, today)).collect();
    conclude(policy, partials, today, scope)
}

/// One module's findings, and which exceptions they used: what a run keeps of a module
/// once it is evaluated, so the module itself can be dropped (the audit streams).
pub struct Partial {
    findings: Vec<Finding>,
    ledger: suppress::Ledger,
}

/// Evaluates the policy on one module.
pub fn evaluate_module(policy: &Policy, s: &Subject<'_>, prefix: &str, today: Date) -> Partial {
    let mut ledger = suppress::Ledger::new(policy);
    let findings = evaluate_one(policy, s, prefix, today, &mut ledger);
    Partial { findings, ledger }
}

/// The run's findings from its modules' partial results, in their order, followed by
/// the findings about the policy's exceptions (unused or expired).
pub fn conclude(
    policy: &Policy,
    partials: impl IntoIterator<Item = Partial>,
    today: Date,
    scope: Scope,
) -> Vec<Finding> {
    let mut ledger = suppress::Ledger::new(policy);
    let mut out = Vec::new();
    for p in partials {
        ledger.absorb(&p.ledger);
        out.extend(p.findings);
    }
    out.extend(ledger.findings(policy, today, scope));
    out
}

fn evaluate_one(
    policy: &Policy,
    s: &Subject<'_>,
    prefix: &str,
    today: Date,
    ledger: &mut suppress::Ledger,
) -> Vec<Finding> {
    let cx = context::Cx::new(s.module, s.other, policy, prefix, s.tfvars);
    let mut found = Vec::new();
    for rule in rules::RULES {
        if let Some(check) = rule.check
            && policy.may_fire(rule.id)
        {
            check(&cx, &mut found);
        }
    }
    let mut comments = suppress::Inline::scan(s.module);
    let mut out = Vec::new();
    for mut f in found {
        let path = join_prefix(prefix, &f.primary.path);
        f.level = policy.level_for(f.rule, &path).min(f.level);
        if f.level == Level::Allow {
            continue;
        }
        if comments.suppresses(s.module, &f) || ledger.excepts(policy, &f, &path, today) {
            continue;
        }
        out.push(f);
    }
    out.extend(comments.findings(s.module, policy, prefix));
    out
}

/// How much of the repository an evaluation sees. An exception that matched nothing is
/// only known to be unused when every module was evaluated; the pre-commit hook sees
/// the modules a change touches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    Whole,
    Part,
}

/// `prefix/path`, or `path` when there is no prefix.
pub fn join_prefix(prefix: &str, path: &str) -> String {
    if prefix.is_empty() { path.to_string() } else { format!("{prefix}/{path}") }
}

/// Counts of findings by level, and whether the run fails.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub deny: usize,
    pub warn: usize,
}

impl Tally {
    pub fn of(findings: &[Finding]) -> Tally {
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
