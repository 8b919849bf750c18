//! The one error type of the native-syntax scanner and parser.

use crate::ast::Range;

/// A syntax error: what, why, and where (a byte range of the source).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    pub summary: String,
    pub detail: String,
    pub range: Range,
}
