//! One integration-test binary (see Cargo.toml `[[test]]`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout, clippy::print_stderr)]

mod adopt;
mod adversarial;
mod cli;
mod fix;
mod fmt;
mod fold;
mod git;
mod local;
mod merge;
mod nothing_lost;
mod opentofu;
mod policy;
mod precommit;
mod props;
mod release;
mod sarif;
mod scope;
mod syntax;
mod types;
mod untrusted;
mod util;
mod vars;
mod vars_cli;
