//! What a rule is: its id, default level, documentation, options and check. Below every
//! rule file (each defines one `Rule`) and above the context the checks read; the list of
//! all rules is the registry's, above the rules.

use super::options::Configure;
use crate::finding::{Finding, Level, RuleId};
use crate::policy::context::Context;
use crate::policy::validate::Field;

/// A check: reads the context, pushes findings (their level is set by the policy later;
/// a check may lower it, e.g. Terraform warnings are at most `warn`).
pub(crate) type Check = fn(&Context<'_>, &mut Vec<Finding>);

/// One rule.
pub struct Rule {
    pub id: RuleId,
    /// The level without a policy saying otherwise (`policies/default.toml` is written from it).
    pub level: Level,
    /// One line, for lists and SARIF.
    pub summary: &'static str,
    /// "What it checks / Why / Example": what `explain` prints.
    pub doc: &'static str,
    /// Rule-specific keys of `[rules.<id>]`: what each holds, its default and a line of
    /// help (the reader, the JSON Schema and the documentation all take them from here).
    pub options: &'static [Field],
    /// Reads those keys into the rule's slot of [`Options`](super::Options); `Some` exactly when
    /// `options` lists any (a test sees to it).
    pub(crate) configure: Option<Configure>,
    /// `None` for rules about the policy itself (exceptions and suppressions).
    pub check: Option<Check>,
    /// Whether an inline `override-guard:ignore[…]` comment may silence its findings.
    /// Not for a module the engine refuses to load: that is no matter of style a comment
    /// in the module can settle, and only an expiring `[[exceptions]]` entry naming the
    /// module excuses it.
    pub inline: bool,
}
