//! Module assembly: from a directory's files to its effective configuration, as
//! Terraform's `NewModule` does it (spec §2): required providers first, then every primary
//! file is appended with duplicate checks (§3), then every override file is merged in
//! order (§4, §5). Pure: the caller supplies the bytes.
//!
//! `decode` makes Terraform's load-time checks on each file; `primaries` appends the
//! primary files (duplicates, the required-providers pre-pass); `overrides` merges the
//! override files, block kind by block kind, through `body` (attributes and nested
//! blocks) and `encryption` (OpenTofu's); `variables` holds what a variable's type and
//! default mean (the override rules and the `vars` command read them); `compare` says
//! whether two effective configurations are the same, and where they differ.

mod binary;
mod body;
pub(crate) mod compare;
pub(crate) mod decode;
mod encryption;
#[cfg(test)]
mod kinds_tests;
mod load;
mod module;
mod overrides;
mod primaries;
pub(crate) mod variables;

pub use binary::Binary;
pub(crate) use binary::{binary_content, one_error_of_binary};
pub use load::{Parses, ReadError};
pub use load::{load, load_texts, reassemble};
pub(crate) use load::{load_reusing, load_texts_reusing, rejudged, without_overrides};
pub use module::ReleaseChoice;
pub use module::{Ignored, Module, Settings};
pub(crate) use overrides::applied_state;
