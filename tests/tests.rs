//! The integration tests but the fixture suites and those that need something of the
//! machine, in one binary (see Cargo.toml `[[test]]`; the fixture suites are
//! `tests/cases/`, one named test per case; the tests that need an outside tool, minutes
//! of CPU or a user other than root are `tests/machine/`, reported ignored where they cannot run).
// A test binary has no surface: its `pub` items are shared between its own files.
#![allow(unreachable_pub)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout, clippy::print_stderr)]

mod adopt;
mod adversarial;
mod big_inputs;
mod ci_formats;
mod cli;
mod docs;
mod fix;
mod flatten;
mod git;
mod hostile;
mod local;
mod long_paths;
mod lsp;
mod lsp_hostile;
mod measure;
mod nothing_lost;
mod pins;
mod props;
mod release;
mod review;
mod sarif;
mod schema;
mod scope;
mod shapes;
mod structure;
mod texts;
mod untrusted;
mod util;
mod var_uses;
mod vars_cli;
