//! The rules: one file per rule, each with its id, default level, options, its
//! documentation (what `explain` prints) and its check. Ids are kebab-case and unique.
//! A rule with options also reads and validates them itself (`configure`), so the
//! policy file's reader knows the rules only through the registry.
//!
//! The files sit in layers, each importing only those below it: `rule.rs` (what a rule
//! is) and `options.rs` (the rules' option slots) below the rule files, `registry.rs`
//! (the list of all rules) above them. This file only declares them and hands their
//! names on.

mod backend_swap;
pub mod engine_divergence;
mod ignored_override;
mod local_override;
mod merge_error;
mod meta;
mod misnamed_override;
pub mod missing_override_comment;
mod options;
mod override_file;
mod protected_attribute;
mod registry;
mod rule;
mod silent_drop;
mod tfvars;
mod version_divergence;
mod version_mismatch;
mod weakened_safeguard;

pub use crate::finding::RuleId;
pub use options::CommentMatcher;
pub use options::Options;
pub use registry::{RULES, find, inline};
pub(crate) use registry::{configure, doc_url, suggestion};
pub use rule::Rule;
