//! The rule registry: one file per rule, each with its id, default level, options, its
//! documentation (what `explain` prints) and its check. Ids are kebab-case and unique.

mod backend_swap;
pub mod engine_divergence;
mod ignored_override;
mod local_override;
mod merge_error;
mod meta;
pub mod missing_override_comment;
mod override_file;
mod protected_attribute;
mod silent_drop;
mod tfvars;
mod weakened_safeguard;

use super::context::Cx;
use super::{Finding, Level};

/// A check: reads the context, pushes findings (their level is set by the policy later;
/// a check may lower it, e.g. Terraform warnings are at most `warn`).
pub type Check = fn(&Cx<'_>, &mut Vec<Finding>);

/// One rule.
pub struct Rule {
    pub id: &'static str,
    /// The level without a policy saying otherwise (`policies/default.toml` agrees).
    pub level: Level,
    /// One line, for lists and SARIF.
    pub summary: &'static str,
    /// "What it checks / Why / Example": what `explain` prints.
    pub doc: &'static str,
    /// Rule-specific keys of `[rules.<id>]`, with a one-line description each.
    pub options: &'static [(&'static str, &'static str)],
    /// `None` for rules about the policy itself (exceptions and suppressions).
    pub check: Option<Check>,
}

/// Every rule, in report order.
pub static RULES: &[&Rule] = &[
    &merge_error::RULE,
    &override_file::RULE,
    &local_override::RULE,
    &missing_override_comment::RULE,
    &backend_swap::RULE,
    &silent_drop::RULE,
    &ignored_override::RULE,
    &weakened_safeguard::RULE,
    &protected_attribute::RULE,
    &engine_divergence::RULE,
    &tfvars::SHADOWED,
    &tfvars::UNDECLARED,
    &meta::EXPIRED_EXCEPTION,
    &meta::UNUSED_EXCEPTION,
    &meta::BAD_SUPPRESSION,
    &meta::UNUSED_SUPPRESSION,
];

/// Looks a rule up by id.
pub fn find(id: &str) -> Option<&'static Rule> {
    RULES.iter().copied().find(|r| r.id == id)
}

/// ` (did you mean `x`?)` for a misspelt rule id, or nothing.
pub fn suggestion(id: &str) -> String {
    crate::policy::config::did_you_mean(id, RULES.iter().map(|r| r.id))
        .map(|d| format!(" (did you mean `{d}`?)"))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_kebab_case_and_documented() {
        let mut seen = std::collections::HashSet::new();
        for r in RULES {
            assert!(seen.insert(r.id), "duplicate rule id {}", r.id);
            assert!(r.id.chars().all(|c| c.is_ascii_lowercase() || c == '-'), "{}", r.id);
            for section in ["What it checks", "Why", "Example"] {
                assert!(r.doc.contains(section), "{} lacks {section}", r.id);
            }
        }
    }
}
