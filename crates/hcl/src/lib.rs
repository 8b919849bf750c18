//! HCL as Terraform and OpenTofu read it, with no dependency on the tool that uses it
//! (override-guard). Native syntax (`.tf`, `.tofu`): a scanner ([`scan`]: its [`tokens`],
//! and the checks read off them, [`code`]) and a recursive-descent parser ([`parse`]) that
//! follow HCL's grammar, its newline rules, its
//! recovery after errors and its diagnostics word for word, in linear time, producing a
//! syntax tree ([`ast`]) with byte ranges on every node; `terraform fmt`'s layout
//! ([`fmt`]); expression sources as they print ([`printable`]); number literals
//! ([`number`]). JSON syntax (`.tf.json`): HCL's JSON parser run for its diagnostics
//! ([`json`]). And the one way lines and columns are counted ([`lines`]).

pub mod ast;
pub mod code;
pub mod error;
pub mod fmt;
pub mod json;
pub mod lines;
pub mod number;
pub mod parse;
pub mod printable;
pub mod scan;
pub mod tokens;

pub use error::SyntaxError;
pub use lines::{Columns, LineIndex};
pub use parse::{parse_config, parse_expression, parse_template, parse_traversal_abs};
