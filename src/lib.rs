//! override-guard: makes Terraform and OpenTofu override files visible and enforceable.
//!
//! Terraform merges `override.tf`, `*_override.tf` (and their JSON and `.tofu` forms) into
//! the blocks of a module's other files, so what `main.tf` says is not what runs. This
//! crate computes a module's effective configuration exactly as Terraform and OpenTofu do,
//! with where every value came from, and judges it against a policy.
//!
//! # The library
//!
//! What a user of the crate needs, in the order a run takes it:
//!
//! - **load** — a [`source`] yields a tree's files ([`source::WorktreeSource`] on disk,
//!   [`source::GitSource`] from git's index or a revision, [`source::MemorySource`] in
//!   memory); [`merge::load`] reads one module directory into its effective
//!   [`merge::Module`] (the model is [`terraform`]'s, the diagnostics [`diag`]'s, in
//!   Terraform's words);
//! - **judge** — [`pipeline`] finds the [`policy`] that governs each module and judges it
//!   ([`pipeline::audit::Audit`]), the same entry every command and the language server
//!   call;
//! - **render** — [`render`] prints a module as `show` does (HCL, tf-json, JSON, Terraform's
//!   `configuration` JSON), [`report`] prints findings (human, compact, JSON, SARIF,
//!   GitHub, GitLab, JUnit, Checkstyle);
//! - and around them: [`vars`] (variable values from files, flags and the environment),
//!   [`fix`] (the planned edits of `fix` and `fold`), [`lsp::serve`] (the language server),
//!   [`command_line`] (the whole tool).
//!
//! ```
//! use override_guard::pipeline::Choice;
//! use override_guard::pipeline::audit::{Ask, Audit};
//! use override_guard::policy::{Date, RuleId};
//! use override_guard::render;
//! use override_guard::terraform::release::EngineChoice;
//! use override_guard::source::{MemorySource, Source};
//!
//! let src = MemorySource::new()
//!     .with("db/main.tf", "resource \"aws_db_instance\" \"main\" {\n  lifecycle {\n    prevent_destroy = true\n  }\n}\n")
//!     .with("db/override.tf", "resource \"aws_db_instance\" \"main\" {\n  lifecycle {\n    prevent_destroy = false\n  }\n}\n");
//!
//! // Load: the source's modules, each directory with its files.
//! let modules: Vec<(String, Vec<String>)> = src.modules()?.into_iter().collect();
//!
//! // Judge: the policy of each module (here none is written: the built-in one), then
//! // every module merged and judged by it.
//! let today = Date { year: 2026, month: 11, day: 27 };
//! let ask = Ask { choice: &Choice::Nearest, levels: &[], engine: EngineChoice::Files, today };
//! let audit = Audit::find(&src, &ask, modules.iter().map(|(dir, _)| dir.as_str()))
//!     .map_err(|e| format!("{e:?}"))?;
//! let judged = audit.judge(&src, &modules)?;
//! let db = &judged["db"];
//! let rules: Vec<RuleId> = db.findings.iter().map(|f| f.rule).collect();
//! assert!(rules.contains(&RuleId::WeakenedSafeguard), "{rules:?}");
//!
//! // Render: what Terraform runs.
//! let effective = render::hcl::render(&db.loaded.module);
//! assert!(effective.contains("prevent_destroy = false"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # How it is built
//!
//! A [`source`] yields file bytes → [`terraform::discover`] picks and orders a directory's
//! files → [`terraform::hcl`]/[`terraform::json`] read them with spans → [`merge`]
//! computes the effective configuration with provenance and Terraform's own errors →
//! [`policy`] judges it → [`render`]/[`report`] print it. Only the sources, the language
//! server's protocol loop and the command line's wiring do I/O. Under everything, HCL
//! itself (scanner, parser, syntax tree, formatter, JSON syntax errors, the line index) is
//! a crate of the workspace of its own, [`override_guard_hcl`] (`crates/hcl/`), which
//! knows nothing of this one. Each module imports only those below it (docs/architecture.md,
//! "How it is built", has the floors); the modules that are not the library's surface (the
//! type system, the command line, flattening for scanners, the review of two states) are
//! private to the crate.

pub(crate) mod app;
pub(crate) mod cli;
pub(crate) mod cty;
pub mod diag;
pub mod error;
pub(crate) mod finding;
pub mod fix;
pub(crate) mod flatten;
pub mod lsp;
pub mod merge;
pub(crate) mod path;
pub mod pipeline;
pub mod policy;
pub mod render;
pub mod report;
pub mod source;
pub mod terraform;
pub mod vars;

pub use app::command_line;
