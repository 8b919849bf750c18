//! The evaluation: modules and a policy in, findings out. Runs each rule of the registry on
//! a module's context, then sets the levels the policy says and applies suppressions and
//! exceptions. The top of the policy's files: nothing in the policy imports it.

use super::config::Policy;
use super::context::Context;
use super::date::Date;
use super::rules::RULES;
use super::scope::{Coverage, GlobBase};
use super::suppress;
use super::validate::PolicyError;
use crate::finding::{Finding, Level, RuleId, Site};
use crate::merge::Module;

/// A module to evaluate, with the same module loaded by the other engine when that could
/// differ (for `engine-divergence`).
pub struct Subject<'a> {
    pub module: &'a Module,
    pub other: Option<&'a Module>,
    /// The variables files the module's directory holds (for the tfvars rules).
    pub tfvars: &'a [crate::vars::VarFile],
    /// The variables its query and test files declare or refer to (their values are used).
    pub var_uses: &'a [crate::vars::uses::Use],
}

/// Evaluates the policy on modules (in parallel). Findings come back in module order,
/// then rule order; `allow`-level findings are dropped; suppressions and exceptions applied.
pub fn evaluate(
    policy: &Policy,
    subjects: &[Subject<'_>],
    base: &GlobBase,
    today: Date,
    scope: &Coverage,
) -> Vec<Finding> {
    use rayon::prelude::*;
    let partials: Vec<Partial> =
        subjects.par_iter().map(|s| evaluate_module(policy, s, base, today)).collect();
    conclude(policy, partials, today, scope)
}

/// One module's findings, and which exceptions they used: what a run keeps of a module
/// once it is evaluated, so the module itself can be dropped (the audit streams).
pub(crate) struct Partial {
    findings: Vec<Finding>,
    ledger: suppress::Ledger,
}

impl Partial {
    /// A module not judged (its policy file is broken): no findings, no exception used.
    pub(crate) fn unjudged(policy: &Policy) -> Partial {
        Partial { findings: Vec::new(), ledger: suppress::Ledger::new(policy) }
    }

    /// For a run that keeps its findings until the report: each keeps only the lines it
    /// is drawn with (see [`Finding::trim`]), not whole files.
    pub(crate) fn trim(&mut self) {
        self.findings.iter_mut().for_each(Finding::trim);
    }
}

/// What a broken policy file costs, said with each of its mistakes and by the reports
/// that group them.
pub(crate) const NOT_JUDGED: &str =
    "the modules this policy file governs are not judged until it is fixed";

/// The `policy-error` findings of a broken policy file, one per mistake, at `level`.
pub(crate) fn broken_policy(errors: &[PolicyError], level: Level) -> Vec<Finding> {
    errors
        .iter()
        .map(|e| {
            let site = Site {
                path: e.path.clone(),
                source: e.text.clone(),
                base: Default::default(),
                start: e.span.start.min(e.text.len()),
                end: e.span.end.min(e.text.len()),
                label: "here".into(),
            };
            let help = match &e.help {
                Some(h) => format!("{h}\n{NOT_JUDGED}"),
                None => NOT_JUDGED.to_string(),
            };
            let mut f = Finding::new(RuleId::PolicyError, e.message.clone(), site).help(help);
            f.level = level;
            f
        })
        .collect()
}

/// Evaluates the policy on one module.
pub(crate) fn evaluate_module(
    policy: &Policy,
    s: &Subject<'_>,
    base: &GlobBase,
    today: Date,
) -> Partial {
    let mut ledger = suppress::Ledger::new(policy);
    let mut findings = evaluate_one(policy, s, base, today, &mut ledger, None);
    // Kept until the whole run is judged: no room for more.
    findings.shrink_to_fit();
    Partial { findings, ledger }
}

/// The findings of one rule on one module, decided exactly as [`evaluate_module`] decides
/// them (level, scopes, inline suppressions, exceptions): what `fix` asks before it writes
/// the comments `missing-override-comment` wants.
pub(crate) fn findings_of(
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
pub(crate) fn conclude(
    policy: &Policy,
    partials: impl IntoIterator<Item = Partial>,
    today: Date,
    scope: &Coverage,
) -> Vec<Finding> {
    conclude_all(&[(policy, scope.clone())], partials.into_iter().map(|p| (0, p)), today)
}

/// [`conclude`] for a run whose modules are governed by several policies: each partial
/// comes with the index of its policy in `policies`. Module findings keep their order;
/// then come each policy's findings about its exceptions, in the order of `policies`.
pub(crate) fn conclude_all(
    policies: &[(&Policy, Coverage)],
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
    let cx =
        Context::new(s.module, s.other, &policy.options, base, s.tfvars).with_var_uses(s.var_uses);
    let mut found = Vec::new();
    for rule in RULES {
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
