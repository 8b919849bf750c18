//! The integration tests but the fixture suites, in one binary (see Cargo.toml `[[test]]`;
//! the fixture suites are `tests/cases/`, one named test per case).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout, clippy::print_stderr)]

mod adopt;
mod adversarial;
mod cli;
mod editor;
mod fix;
mod git;
mod local;
mod lsp;
mod nothing_lost;
mod precommit;
mod props;
mod release;
mod sarif;
mod scope;
mod types;
mod untrusted;
mod util;
mod vars_cli;
