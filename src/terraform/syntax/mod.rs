//! Terraform's native syntax (`.tf`, `.tofu`), read by a parser of our own: a scanner
//! ([`scan`]) and a recursive-descent parser ([`parse`]) that follow HCL's grammar, its
//! newline rules, its recovery after errors and its diagnostics word for word, in linear
//! time, producing a syntax tree ([`ast`]) with byte ranges on every node.

pub mod ast;
pub mod fmt;
pub mod parse;
pub mod printable;
pub mod scan;

pub use parse::{SyntaxError, parse_config, parse_expression, parse_template, parse_traversal_abs};
