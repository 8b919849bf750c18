//! The policy: a team's rules about override files, turned into findings.
//!
//! [`config`] reads and validates the TOML policy (mistakes become diagnostics pointing
//! into it, through the validator in `validate`, which the rules use for their own
//! options too); [`context`] pairs every override block with the original it changes;
//! [`rules`] holds one file per rule; [`suppress`] applies inline suppressions and policy
//! exceptions. [`evaluate`] is pure: modules and a policy in, findings out.

pub mod baseline;
pub mod config;
pub mod context;
mod date;

pub mod rules;
pub mod suppress;
mod validate;

pub use crate::finding::{Finding, Level, RuleId, Site, Tally};
pub use config::Policy;
pub use date::Date;
pub use validate::PolicyError;

use crate::merge::Module;
use crate::terraform::Span;

/// Sites are made from a module's files here: the finding types below the policy know
/// nothing of modules.
impl Site {
    /// A site in one of a module's files.
    pub fn in_module(m: &Module, span: Span, label: impl Into<String>) -> Site {
        Site::in_files(&m.files, span, label)
    }

    /// A place in one of `files` (a module's, or a variables report's).
    pub fn in_files(files: &crate::terraform::Files, span: Span, label: impl Into<String>) -> Site {
        let f = files.get(span.file);
        Site {
            path: f.path.clone(),
            source: f.text.clone(),
            start: span.start.min(f.text.len()),
            end: span.end.min(f.text.len()),
            label: label.into(),
        }
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
    base: &GlobBase,
    today: Date,
    scope: &Scope,
) -> Vec<Finding> {
    use rayon::prelude::*;
    let partials: Vec<Partial> =
        subjects.par_iter().map(|s| evaluate_module(policy, s, base, today)).collect();
    conclude(policy, partials, today, scope)
}

/// One module's findings, and which exceptions they used: what a run keeps of a module
/// once it is evaluated, so the module itself can be dropped (the audit streams).
pub struct Partial {
    findings: Vec<Finding>,
    ledger: suppress::Ledger,
}

impl Partial {
    /// A module not judged (its policy file is broken): no findings, no exception used.
    pub fn unjudged(policy: &Policy) -> Partial {
        Partial { findings: Vec::new(), ledger: suppress::Ledger::new(policy) }
    }
}

/// The `policy-error` findings of a broken policy file, one per mistake, at `level`.
pub fn broken_policy(errors: &[PolicyError], level: Level) -> Vec<Finding> {
    errors
        .iter()
        .map(|e| {
            let site = Site {
                path: e.path.clone(),
                source: e.text.clone(),
                start: e.span.start.min(e.text.len()),
                end: e.span.end.min(e.text.len()),
                label: "here".into(),
            };
            let not_judged =
                "the modules this policy file governs are not judged until it is fixed";
            let help = match &e.help {
                Some(h) => format!("{h}\n{not_judged}"),
                None => not_judged.to_string(),
            };
            let mut f = Finding::new(RuleId::PolicyError, e.message.clone(), site).help(help);
            f.level = level;
            f
        })
        .collect()
}

/// Evaluates the policy on one module.
pub fn evaluate_module(policy: &Policy, s: &Subject<'_>, base: &GlobBase, today: Date) -> Partial {
    let mut ledger = suppress::Ledger::new(policy);
    let findings = evaluate_one(policy, s, base, today, &mut ledger, None);
    Partial { findings, ledger }
}

/// The findings of one rule on one module, decided exactly as [`evaluate_module`] decides
/// them (level, scopes, inline suppressions, exceptions): what `fix` asks before it writes
/// the comments `missing-override-comment` wants.
pub fn findings_of(
    policy: &Policy,
    s: &Subject<'_>,
    base: &GlobBase,
    today: Date,
    rule: RuleId,
) -> Vec<Finding> {
    let mut ledger = suppress::Ledger::new(policy);
    evaluate_one(policy, s, base, today, &mut ledger, Some(rule))
}

/// The run's findings from its modules' partial results, in their order, followed by
/// the findings about the policy's exceptions (unused or expired).
pub fn conclude(
    policy: &Policy,
    partials: impl IntoIterator<Item = Partial>,
    today: Date,
    scope: &Scope,
) -> Vec<Finding> {
    conclude_all(&[(policy, scope.clone())], partials.into_iter().map(|p| (0, p)), today)
}

/// [`conclude`] for a run whose modules are governed by several policies: each partial
/// comes with the index of its policy in `policies`. Module findings keep their order;
/// then come each policy's findings about its exceptions, in the order of `policies`.
pub fn conclude_all(
    policies: &[(&Policy, Scope)],
    partials: impl IntoIterator<Item = (usize, Partial)>,
    today: Date,
) -> Vec<Finding> {
    let mut ledgers: Vec<suppress::Ledger> =
        policies.iter().map(|(p, _)| suppress::Ledger::new(p)).collect();
    let mut out = Vec::new();
    for (i, p) in partials {
        if let Some(l) = ledgers.get_mut(i) {
            l.absorb(&p.ledger);
        }
        out.extend(p.findings);
    }
    for ((policy, scope), ledger) in policies.iter().zip(&ledgers) {
        out.extend(ledger.findings(policy, today, scope));
    }
    out
}

fn evaluate_one(
    policy: &Policy,
    s: &Subject<'_>,
    base: &GlobBase,
    today: Date,
    ledger: &mut suppress::Ledger,
    only: Option<RuleId>,
) -> Vec<Finding> {
    let cx = context::Context::new(s.module, s.other, &policy.options, base, s.tfvars);
    let mut found = Vec::new();
    for rule in rules::RULES {
        if let Some(check) = rule.check
            && policy.may_fire(rule.id)
            && only.is_none_or(|o| o == rule.id)
        {
            check(&cx, &mut found);
        }
    }
    let mut comments = suppress::Inline::scan(s.module);
    let mut out = Vec::new();
    for mut f in found {
        let path = base.of(&f.primary.path);
        f.level = policy.level_for(f.rule, &path).min(f.level);
        if f.level == Level::Allow {
            continue;
        }
        if comments.suppresses(s.module, &f) || ledger.excepts(policy, &f, &path, today) {
            continue;
        }
        out.push(f);
    }
    if only.is_none() {
        out.extend(comments.findings(s.module, policy, base));
    }
    out
}

/// How much of the area a policy governs an evaluation saw. An exception that matched
/// nothing is only known to be unused when every module it could match was evaluated:
/// the pre-commit hook sees the modules a change touches (`Part`), `audit DIR` the
/// directories named (`Covers`, relative to the policy file's directory; `""` is all).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scope {
    Covers(Vec<String>),
    Part,
}

impl Scope {
    /// Everything the policy governs.
    pub fn whole() -> Scope {
        Scope::Covers(vec![String::new()])
    }

    /// Does the run cover every path an exception with these path globs could match?
    /// Judged by the globs' literal leading directories (`envs/dev/**` → `envs/dev`);
    /// an exception without paths applies everywhere.
    pub fn covers(&self, globs: Option<&[String]>) -> bool {
        let Scope::Covers(dirs) = self else { return false };
        let within = |lit: &str| {
            dirs.iter().any(|d| {
                d.is_empty()
                    || lit == d
                    || lit.strip_prefix(d.as_str()).is_some_and(|r| r.starts_with('/'))
            })
        };
        match globs {
            None => within(""),
            Some(globs) => globs.iter().all(|g| within(&literal_prefix(g))),
        }
    }
}

/// The leading components of a glob that hold no pattern characters.
fn literal_prefix(glob: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    for part in glob.trim_start_matches("./").split('/') {
        if part.contains(['*', '?', '[', ']', '{', '}', '\\']) {
            break;
        }
        out.push(part);
    }
    out.join("/")
}

/// How the paths of a run (relative to its root) become paths relative to the directory
/// of the policy file that governs them, which is what a policy's globs are written
/// against: strip the policy's directory (`dir`), or, for a policy above the root, put the
/// way down to the root (`down`) in front.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GlobBase {
    pub dir: String,
    pub down: String,
}

impl GlobBase {
    /// A path of the run, relative to the policy's directory. A path outside that
    /// directory (a policy named with `--policy` elsewhere) is left as it is.
    pub fn of(&self, path: &str) -> String {
        let rest = if self.dir.is_empty() {
            path
        } else if path == self.dir {
            ""
        } else {
            match path.strip_prefix(self.dir.as_str()).and_then(|r| r.strip_prefix('/')) {
                Some(r) => r,
                None => return path.to_string(),
            }
        };
        crate::path::join(&self.down, rest)
    }

    /// Does this policy's directory hold `path` (a directory of the run)?
    pub fn holds(&self, path: &str) -> bool {
        self.dir.is_empty()
            || path == self.dir
            || path.strip_prefix(self.dir.as_str()).is_some_and(|r| r.starts_with('/'))
    }
}
