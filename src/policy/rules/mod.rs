//! The rules: one file per rule, each with its id, default level, options, its
//! documentation (what `explain` prints) and its check. Ids are kebab-case and unique.
//! A rule with options also reads and validates them itself (`configure`), so the
//! policy file's reader knows the rules only through the registry.
//!
//! The files sit in layers, each importing only those below it: `rule.rs` (what a rule
//! is) and `options.rs` (the rules' option slots) below the rule files, `registry.rs`
//! (what is made of the list of all rules) above them. This file declares them, lists
//! their rules (`rule_files!`: one line a file) and hands their names on.

mod options;
mod registry;
mod rule;

/// Declares the rule files and lists their rules in [`RULES`], in report order: a rule's
/// file is one line here (with its rules, when it holds several).
macro_rules! rule_files {
    ($($vis:vis $file:ident: $($rule:ident),+;)+) => {
        $($vis mod $file;)+
        /// Every rule, in report order.
        pub static RULES: &[&Rule] = &[$($(&$file::$rule,)+)+];
    };
}

rule_files! {
    merge_error: RULE;
    override_file: RULE;
    local_override: RULE;
    misnamed_override: RULE;
    pub(crate) missing_override_comment: RULE;
    backend_swap: RULE;
    silent_drop: RULE;
    ignored_override: RULE;
    weakened_safeguard: RULE;
    protected_attribute: RULE;
    pub(crate) engine_divergence: RULE;
    version_mismatch: RULE;
    version_divergence: RULE;
    tfvars: SHADOWED, UNDECLARED;
    meta: EXPIRED_EXCEPTION, UNUSED_EXCEPTION, BAD_SUPPRESSION, UNUSED_SUPPRESSION, POLICY_ERROR;
}

pub use crate::finding::RuleId;
pub use options::CommentMatcher;
pub use options::Options;
pub(crate) use registry::{configure, doc_url, suggestion};
pub use registry::{find, inline};
pub use rule::Rule;
