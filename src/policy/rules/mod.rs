//! The rules: one file per rule, each with its id, default level, options, its
//! documentation (what `explain` prints) and its check. Ids are kebab-case and unique.
//! A rule with options also reads and validates them itself (`configure`), so the
//! policy file's reader knows the rules only through the registry.
//!
//! The files sit in layers, each importing only those below it: `rule.rs` (what a rule
//! is) and `options.rs` (the rules' option slots) below the rule files, `registry.rs`
//! (what is made of the list of all rules) above them. This file declares them, lists
//! their rules (from the one list of rules, `finding::rules!`) and hands their names on.

mod options;
mod registry;
mod rule;

/// Declares the rule files and lists their rules in [`RULES`], in report order, from the
/// one list of rules (`finding::rules!`).
macro_rules! rule_files {
    ($($file:ident: $($variant:ident => $id:literal = $rule:ident),+;)+) => {
        $(pub(crate) mod $file;)+
        /// Every rule, in report order.
        pub static RULES: &[&Rule] = &[$($(&$file::$rule,)+)+];
    };
}

crate::finding::rules!(rule_files);

pub use crate::finding::RuleId;
pub use options::CommentMatcher;
pub use options::Options;
pub(crate) use registry::{configure, doc_url, suggestion};
pub use registry::{find, inline};
pub use rule::Rule;
