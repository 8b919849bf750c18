//! The repository-wide audit: the policy evaluated on every loaded module, and the totals
//! the report's summary shows. Pure: loaded modules in, findings out.

use crate::app::Loaded;
use crate::policy::{self, Date, Finding, Policy, Scope, Subject};
use crate::report::findings::Summary;

/// Evaluates `policy` on every module; `prefix` maps module paths to policy-relative ones.
pub fn run(
    policy: &Policy,
    loaded: &[Loaded],
    prefix: &str,
    today: Date,
    scope: Scope,
) -> (Vec<Finding>, Summary) {
    let subjects: Vec<Subject<'_>> = loaded.iter().map(Loaded::subject).collect();
    let findings = policy::evaluate(policy, &subjects, prefix, today, scope);
    let mut summary = Summary {
        modules: loaded.len(),
        policy: policy.describe(),
        builtin_policy: matches!(policy.origin, policy::config::Origin::BuiltIn),
        ..Summary::default()
    };
    for l in loaded {
        summary.files += l.module.files.files.len();
        summary.override_files += l.module.override_files().count();
    }
    (findings, summary)
}
