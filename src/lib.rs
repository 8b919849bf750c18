//! override-guard: makes Terraform and OpenTofu override files visible.
//!
//! One pipeline: a [`source`] yields file bytes → [`terraform::discover`] picks and orders
//! a directory's files → [`terraform::hcl`]/[`terraform::json`] parse them with spans →
//! [`merge`] computes the effective configuration with provenance and Terraform's own
//! errors → [`policy`] judges it → [`render`]/[`report`] print it; [`fix`] plans the edits
//! of `fix` and `fold`; [`pipeline`] runs the whole for a source, without the command line;
//! [`lsp`] serves it to editors. Only `source`, `lsp`'s protocol loop, `app` and `main` do
//! I/O. Under everything, HCL itself (scanner, parser, syntax tree, formatter, JSON syntax
//! errors, the line index) is a crate of the workspace of its own, [`override_guard_hcl`]
//! (`crates/hcl/`), which knows nothing of this one. The ground floor of this crate
//! ([`path`], [`diag`], [`finding`]) imports nothing of it but that; each module imports
//! only those below it (README, "How it is built", has the floors).

pub mod app;
pub mod cli;
pub mod cty;
pub mod diag;
pub mod error;
pub mod finding;
pub mod fix;
pub mod flatten;
pub mod lsp;
pub mod merge;
pub mod path;
pub mod pipeline;
pub mod policy;
pub mod render;
pub mod report;
pub mod review;
pub mod source;
pub mod terraform;
pub mod vars;
