//! The rule registry: one file per rule, each with its id, default level, options, its
//! documentation (what `explain` prints) and its check. Ids are kebab-case and unique.
//! A rule with options also reads and validates them itself ([`configure`]), so the
//! policy file's reader knows the rules only through this registry.

mod backend_swap;
pub mod engine_divergence;
mod ignored_override;
mod local_override;
mod merge_error;
mod meta;
mod misnamed_override;
pub mod missing_override_comment;
mod override_file;
mod protected_attribute;
mod silent_drop;
mod tfvars;
mod weakened_safeguard;

use super::context::Context;
use super::validate::{Key, Validator, Value};
use super::{Finding, Level};
pub use crate::finding::RuleId;
pub use missing_override_comment::{CommentMatcher, CommentOptions};
pub use override_file::OverrideFileOptions;
pub use protected_attribute::ProtectedOptions;

/// A check: reads the context, pushes findings (their level is set by the policy later;
/// a check may lower it, e.g. Terraform warnings are at most `warn`).
pub type Check = fn(&Context<'_>, &mut Vec<Finding>);

/// One rule.
pub struct Rule {
    pub id: RuleId,
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
    &misnamed_override::RULE,
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
    &meta::POLICY_ERROR,
];

/// Every rule's options, each slot filled by its rule's [`Configure`] and read by its
/// check; a rule without options has no slot.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub override_file: OverrideFileOptions,
    pub comment: CommentOptions,
    pub protected: ProtectedOptions,
}

/// Reads one key of `[rules.<id>]` that the rule lists in its `options` into its slot,
/// reporting a bad value through the validator. `false` means the rule does not know the
/// key after all, which the caller reports as unknown: nothing is accepted unread.
pub type Configure = fn(&mut Validator<'_>, &Key<'_>, &Value<'_>, &mut Options) -> bool;

/// The rules that have options, with the function that reads them. Beside [`RULES`]
/// rather than a field of [`Rule`], so the rules without options need not say so.
static CONFIGURE: &[(RuleId, Configure)] = &[
    (RuleId::OverrideFile, override_file::configure),
    (RuleId::MissingOverrideComment, missing_override_comment::configure),
    (RuleId::ProtectedAttribute, protected_attribute::configure),
];

/// The function that reads a rule's options, if it has any.
pub fn configure(id: RuleId) -> Option<Configure> {
    CONFIGURE.iter().find(|(r, _)| *r == id).map(|&(_, c)| c)
}

/// Looks a rule up by id.
pub fn find(id: &str) -> Option<&'static Rule> {
    RULES.iter().copied().find(|r| r.id.as_str() == id)
}

/// Where a rule is documented on the web: its section of `docs/rules.md` in the
/// repository named in `Cargo.toml` (SARIF's `helpUri`, for code scanning's rule help).
pub fn doc_url(id: &str) -> String {
    format!("{}/blob/main/docs/rules.md#{id}", env!("CARGO_PKG_REPOSITORY"))
}

/// `docs/rules.md`: every rule's documentation, as `explain` prints it, under a heading
/// whose anchor is the rule id. Generated here; a test keeps the file in step.
pub fn markdown() -> String {
    let mut out = String::from(
        "# override-guard rules\n\n\
         Generated from the rules' own documentation: `override-guard explain RULE` prints the\n\
         same text. Each section's anchor is the rule id (SARIF results link here).\n\n\
         | rule | default | what it finds |\n|---|---|---|\n",
    );
    for r in RULES {
        out.push_str(&format!(
            "| [`{0}`](#{0}) | {1} | {2} |\n",
            r.id,
            r.level.as_str(),
            r.summary
        ));
    }
    for r in RULES {
        out.push_str(&format!(
            "\n## `{}`\n\nDefault level: **{}**. Finds: {}.\n\n```text\n{}",
            r.id,
            r.level.as_str(),
            r.summary,
            r.doc
        ));
        if !r.doc.ends_with('\n') {
            out.push('\n');
        }
        out.push_str("```\n");
        if !r.options.is_empty() {
            out.push_str("\nOptions (in `[rules.");
            out.push_str(r.id.as_str());
            out.push_str("]`):\n\n");
            for (name, what) in r.options {
                out.push_str(&format!("- `{name}`: {what}\n"));
            }
        }
    }
    out
}

/// ` (did you mean `x`?)` for a misspelt rule id, or nothing.
pub fn suggestion(id: &str) -> String {
    crate::diag::did_you_mean(id, RULES.iter().map(|r| r.id.as_str()))
        .map(|d| format!(" (did you mean `{d}`?)"))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// docs/rules.md is what [`markdown`] writes (re-generate it with
    /// `OVERRIDE_GUARD_WRITE_DOCS=1 cargo test --lib rules_doc`).
    #[test]
    fn rules_doc_is_up_to_date() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/rules.md");
        let want = markdown();
        if std::env::var_os("OVERRIDE_GUARD_WRITE_DOCS").is_some() {
            std::fs::write(path, &want).expect("write docs/rules.md");
        }
        let got = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            got == want,
            "docs/rules.md is stale: OVERRIDE_GUARD_WRITE_DOCS=1 cargo test --lib rules_doc"
        );
    }

    /// README.md's rule table has a row for every rule, at its default level (the
    /// description is the README's own wording).
    #[test]
    fn readme_rule_table_names_every_rule() {
        let readme = include_str!("../../../README.md");
        for r in RULES {
            let row = format!("| [`{0}`](docs/rules.md#{0}) | {1} | ", r.id, r.level.as_str());
            assert!(readme.contains(&row), "README.md's rule table lacks: {row}");
        }
    }

    /// A rule reads options exactly when it lists some: a listed option without a reader
    /// would be refused as unknown, a reader without listed options never called.
    #[test]
    fn rules_with_options_read_them() {
        for r in RULES {
            assert_eq!(configure(r.id).is_some(), !r.options.is_empty(), "{}", r.id);
        }
        for (id, _) in CONFIGURE {
            assert!(RULES.iter().any(|r| r.id == *id), "{id}");
        }
    }

    #[test]
    fn ids_are_unique_kebab_case_and_documented() {
        let mut seen = std::collections::HashSet::new();
        for r in RULES {
            assert!(seen.insert(r.id), "duplicate rule id {}", r.id);
            assert!(r.id.as_str().chars().all(|c| c.is_ascii_lowercase() || c == '-'), "{}", r.id);
            for section in ["What it checks", "Why", "Example"] {
                assert!(r.doc.contains(section), "{} lacks {section}", r.id);
            }
        }
    }
}
