//! The parser: tokens to a syntax tree, recursive descent with one token of lookahead and
//! no backtracking. Its rules, recovery and diagnostics are HCL's native-syntax parser's,
//! as Terraform reports them: same summaries, details and ranges, same order, and after an
//! error the same recovery, so what follows is still read as Terraform reads it.
//!
//! One file per part of the grammar, each an `impl Parser` of its productions: `body`
//! (bodies, attributes, blocks), `expr` (operators, terms, collections, `for`),
//! `traversal` (attributes, indexes, splats; `ParseTraversalAbs`), `template` (strings and
//! heredocs), `directive` (`if` and `for` in templates), `literal` (escapes). The state they
//! share (the token cursor, errors, recovery, the nesting limit) is `parser`'s; this file
//! holds only the entry points.

mod body;
mod directive;
mod expr;
mod literal;
mod parser;
mod template;
mod traversal;

use crate::ast::{Body, Expr, Node};
use crate::code::invalid_tokens;
use crate::scan::{Kind, Mode, TokSlice, Token, Tokens, scan_tokens};

pub use crate::error::SyntaxError;
pub use literal::{go_quote_inner, unescape};
pub use parser::MAX_DEPTH;
pub use traversal::{TraversalStep, parse_traversal_abs};

use parser::Parser;

/// A whole configuration file (native syntax). The body is complete up to the errors;
/// what an error left out is skipped as HCL's recovery skips it.
/// The errors are the scanner's token checks first, then the syntax errors, in
/// Terraform's order.
pub fn parse_config(src: &str) -> (Body, Vec<SyntaxError>) {
    parse_scanned(src, &scan_tokens(src.as_bytes(), Mode::Normal))
}

/// [`parse_config`] of tokens already scanned from `src` (the formatter needs both).
pub fn parse_tokens(src: &str, tokens: &[Token]) -> (Body, Vec<SyntaxError>) {
    parse_slice(src, TokSlice::Wide(tokens))
}

/// [`parse_tokens`] of the compact list [`scan_tokens`] gives.
pub fn parse_scanned(src: &str, tokens: &Tokens) -> (Body, Vec<SyntaxError>) {
    parse_slice(src, tokens.as_slice())
}

fn parse_slice(src: &str, tokens: TokSlice<'_>) -> (Body, Vec<SyntaxError>) {
    let mut p = Parser::new(src, tokens);
    p.errors = invalid_tokens(src.as_bytes(), tokens.iter());
    let body = p.body(Kind::Eof);
    (body, p.errors)
}

/// A standalone expression (a variable default in a variables file, a type constraint),
/// newlines ignored as inside parentheses.
pub fn parse_expression(src: &str) -> (Expr, Vec<SyntaxError>) {
    let tokens = scan_tokens(src.as_bytes(), Mode::Normal);
    let mut p = Parser::new(src, tokens.as_slice());
    p.errors = invalid_tokens(src.as_bytes(), tokens.as_slice().iter());
    p.peek.nl.push(false);
    let e = p.expression();
    let next = p.peek();
    if next.kind != Kind::Eof && !p.recovery {
        p.error(
            "Extra characters after expression",
            "An expression was successfully parsed, but extra characters were found after it.",
            next.start..next.end,
        );
    }
    p.peek.nl.pop();
    (e, p.errors)
}

/// A template with no delimiters (a string of JSON syntax, which Terraform reads as one).
pub fn parse_template(src: &str) -> (Expr, Vec<SyntaxError>) {
    let tokens = scan_tokens(src.as_bytes(), Mode::Template);
    let mut p = Parser::new(src, tokens.as_slice());
    p.errors = invalid_tokens(src.as_bytes(), tokens.as_slice().iter());
    let start = p.peek().start;
    let (parts, wrap, range) = p.template_inner(Kind::Eof, false);
    let range = if parts.is_empty() { start..start } else { range };
    (Expr { node: Node::Template { parts, heredoc: false, wrap }, range: range.clone() }, p.errors)
}
