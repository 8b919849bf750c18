//! The repository-wide audit: the policy evaluated on every module, and the totals the
//! report's summary shows. Pure: modules come in through a loader, findings go out.

use rayon::prelude::*;

use crate::app::Loaded;
use crate::policy::{self, Date, Finding, Partial, Policy, Scope, Subject};
use crate::report::findings::Summary;

/// Evaluates `policy` on every loaded module; `prefix` maps module paths to policy-relative
/// ones.
pub fn run(
    policy: &Policy,
    loaded: &[Loaded],
    prefix: &str,
    today: Date,
    scope: Scope,
) -> (Vec<Finding>, Summary) {
    let subjects: Vec<Subject<'_>> = loaded.iter().map(Loaded::subject).collect();
    let findings = policy::evaluate(policy, &subjects, prefix, today, scope);
    let mut summary = summary(policy, loaded.len());
    for l in loaded {
        count(&mut summary, l);
    }
    (findings, summary)
}

/// The same as [`run`], but each module is loaded by `load`, evaluated and dropped before
/// the next is loaded (a few at a time, in parallel): the memory an audit needs is what
/// its findings keep, not the whole repository's parsed configuration.
pub fn run_each<E: Send>(
    policy: &Policy,
    modules: &[(String, Vec<String>)],
    load: impl Fn(&str, &[String]) -> Result<Loaded, E> + Sync,
    prefix: &str,
    today: Date,
    scope: Scope,
) -> Result<(Vec<Finding>, Summary), E> {
    let per_module: Vec<(Partial, usize, usize)> = modules
        .par_iter()
        .map(|(dir, names)| {
            let l = load(dir, names)?;
            let partial = policy::evaluate_module(policy, &l.subject(), prefix, today);
            Ok((partial, l.module.files.files.len(), l.module.override_files().count()))
        })
        .collect::<Result<_, E>>()?;
    let mut summary = summary(policy, modules.len());
    for (_, files, overrides) in &per_module {
        summary.files += files;
        summary.override_files += overrides;
    }
    let findings = policy::conclude(policy, per_module.into_iter().map(|(p, ..)| p), today, scope);
    Ok((findings, summary))
}

fn summary(policy: &Policy, modules: usize) -> Summary {
    Summary {
        modules,
        policy: policy.describe(),
        builtin_policy: matches!(policy.origin, policy::config::Origin::BuiltIn),
        ..Summary::default()
    }
}

fn count(summary: &mut Summary, l: &Loaded) {
    summary.files += l.module.files.files.len();
    summary.override_files += l.module.override_files().count();
}
