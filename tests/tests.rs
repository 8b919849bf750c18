//! One integration-test binary (see Cargo.toml `[[test]]`).

mod cli;
mod merge;
mod opentofu;
mod policy;
mod sarif;
mod util;
