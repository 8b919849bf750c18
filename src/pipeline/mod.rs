//! The pipeline as one piece, without the command line: a source's modules loaded (with
//! what the rules need besides the merge, `load`), the policy that governs each one found
//! (`policies`), and each judged (`audit`); which modules a change touches (`change`) and
//! which of them one invocation of the pre-commit hook owns (`hook`). Pure apart from the
//! [`crate::source::Source`] it reads through, so the fixture tests, the benchmark, the
//! commands and the language server all call the same code.
//!
//! The files here import each other's items directly; this file only names them.

pub mod audit;
pub(crate) mod change;
pub(crate) mod compare;
pub(crate) mod hook;
pub(crate) mod load;
pub mod policies;

pub use load::Progress;
pub(crate) use load::var_files;
pub use policies::Policies;
pub use policies::{Choice, PolicyFile};
