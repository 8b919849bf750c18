//! The policy: a team's rules about override files, turned into findings.
//!
//! [`config`] reads and validates the TOML policy (mistakes become diagnostics pointing
//! into it, through the validator in `validate`, which the rules use for their own
//! options too); [`context`] pairs every override block with the original it changes;
//! [`rules`] holds one file per rule; [`suppress`] applies inline suppressions and policy
//! exceptions. [`evaluate()`] is pure: modules and a policy in, findings out.
//!
//! The files import one way, from the evaluation at the top (`evaluate.rs`) down through
//! the suppressions, the policy file's reader, the rule registry, the rules and the
//! context to what a run's paths are to a policy (`scope.rs`), sites in a module's files
//! (`site.rs`) and the generic validator. This file defines nothing: it declares the
//! files and hands their names on, so `crate::policy::X` is the way in from outside.

pub mod baseline;
pub mod config;
pub mod context;
mod date;
mod evaluate;
pub mod rules;
pub mod schema;
mod scope;
mod site;
pub mod suppress;
mod validate;

pub(crate) use crate::finding::Tally;
pub use crate::finding::{Finding, Level, RuleId, Site};
pub use config::Policy;
pub use date::Date;
pub use evaluate::Subject;
pub use evaluate::evaluate;
pub(crate) use evaluate::{
    NOT_JUDGED, Partial, broken_policy, conclude_all, evaluate_module, findings_of,
};
pub use scope::{Coverage, GlobBase};
pub use validate::PolicyError;
