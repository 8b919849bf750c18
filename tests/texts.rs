//! The module texts the integration tests share: one original with a safeguard and the
//! overrides that keep, weaken or only touch it, with the findings they cause under the
//! built-in policy. One copy, so a change of the rule's wording is one edit.
#![allow(dead_code)] // each test binary uses part of it

/// An original with a safeguard.
pub const DB_MAIN: &str =
    "resource \"aws_db_instance\" \"main\" {\n  lifecycle {\n    prevent_destroy = true\n  }\n}\n";
/// An override that turns it off: `weakened-safeguard` (deny) at `override.tf:3:5`.
pub const WEAKEN: &str =
    "resource \"aws_db_instance\" \"main\" {\n  lifecycle {\n    prevent_destroy = false\n  }\n}\n";
/// An override that only changes a plain attribute (a `missing-override-comment` warning).
pub const HARMLESS: &str =
    "resource \"aws_db_instance\" \"main\" {\n  instance_class = \"db.t3.large\"\n}\n";
/// The deny finding [`WEAKEN`] causes, after `DIR/FILE:3:5: ` in the compact format.
pub const WEAKENED: &str =
    "error[weakened-safeguard]: resource.aws_db_instance.main: prevent_destroy is turned off";
/// [`WEAKENED`] as the compact line of an override in `db/`.
pub fn weakened_in(dir: &str) -> String {
    format!("{dir}/override.tf:3:5: {WEAKENED}")
}
