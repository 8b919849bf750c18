//! A JSON document read in one pass from its text into what its reader wants (the value
//! tree with spans of a configuration file, the values of a variables file), with no
//! syntax tree in between: the tree of the JSON reader, then ours built from it, then the
//! values, had been several copies of a document held at once.
//!
//! The document has passed HCL's checks first ([`super::parse_value`]'s), so it is JSON by
//! HCL's rules; the tokens are cut by the JSON reader's own scanner (jsonc-parser's), which
//! decodes strings and reports the strings HCL reads but it does not (an unpaired
//! surrogate escape) with its own error, as before.

use std::borrow::Cow;

use jsonc_parser::tokens::Token;
use jsonc_parser::{ParseOptions, Scanner, ScannerOptions};

use crate::diag::{Diagnostic, FileId, Span};

/// A JSON value that holds no other.
pub(crate) enum Scalar<'t> {
    Null,
    Bool(bool),
    /// As written.
    Number(&'t str),
    /// Escapes decoded.
    String(Cow<'t, str>),
}

/// What each value of a document becomes, built from the inside out. `depth` is how many
/// arrays and objects hold the value (the document's root: 0).
pub(crate) trait Build<'t> {
    type Out;
    fn scalar(&mut self, depth: usize, s: Scalar<'t>, span: Span) -> Self::Out;
    fn array(&mut self, depth: usize, items: Vec<Self::Out>, span: Span) -> Self::Out;
    /// A property of an object at `depth` (the span of its name includes the quotes): kept
    /// for [`Build::object`], or taken by the builder itself (`None`).
    fn property(
        &mut self,
        depth: usize,
        name: Cow<'t, str>,
        name_span: Span,
        value: Self::Out,
        value_span: Span,
    ) -> Option<(Cow<'t, str>, Span, Self::Out)> {
        let _ = (depth, value_span);
        Some((name, name_span, value))
    }
    /// The properties kept, in the order written, a name given twice kept twice.
    fn object(
        &mut self,
        depth: usize,
        props: Vec<(Cow<'t, str>, Span, Self::Out)>,
        span: Span,
    ) -> Self::Out;
}

/// Reads `text` (which passed HCL's checks) with `b`.
pub(crate) fn read<'t, B: Build<'t>>(
    file: FileId,
    text: &'t str,
    b: &mut B,
) -> Result<B::Out, Vec<Diagnostic>> {
    let mut r = Reader {
        scanner: Scanner::new(text, &scanner_options()),
        tok: None,
        start: 0,
        end: 0,
        last_end: 0,
        file,
    };
    let read = r.advance().and_then(|()| r.value(b, 0)).and_then(|v| match r.tok {
        None => Ok(v),
        Some(_) => Err(Broken::Unexpected),
    });
    read.map_err(|e| {
        let e = match e {
            Broken::Syntax(e) => e,
            // HCL read what the JSON reader does not: its own parse says why.
            Broken::Unexpected => match jsonc_parser::parse_to_ast(
                text,
                &jsonc_parser::CollectOptions::default(),
                &strict(),
            ) {
                Err(e) => e,
                Ok(_) => {
                    return vec![Diagnostic::error(
                        "Invalid JSON syntax",
                        "The JSON data could not be read.",
                        Span::new(file, r.start, r.end),
                    )];
                }
            },
        };
        let at = e.range();
        vec![Diagnostic::error(
            "Invalid JSON syntax",
            format!("{}.", e.kind()),
            Span::new(file, at.start, at.end.max(at.start)),
        )]
    })
}

/// Strict JSON, as Terraform reads it.
pub(crate) fn strict() -> ParseOptions {
    ParseOptions {
        allow_comments: false,
        allow_loose_object_property_names: false,
        allow_trailing_commas: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    }
}

/// The scanner's part of [`strict`].
fn scanner_options() -> ScannerOptions {
    let o = strict();
    ScannerOptions {
        allow_single_quoted_strings: o.allow_single_quoted_strings,
        allow_hexadecimal_numbers: o.allow_hexadecimal_numbers,
        allow_unary_plus_numbers: o.allow_unary_plus_numbers,
        allow_bare_decimal_point_numbers: o.allow_bare_decimal_point_numbers,
        allow_non_finite_numbers: o.allow_non_finite_numbers,
        allow_extended_string_escapes: o.allow_extended_string_escapes,
    }
}

enum Broken {
    /// The scanner's error (a string it does not decode).
    Syntax(jsonc_parser::errors::ParseError),
    /// A token where the grammar has none: not after HCL's checks.
    Unexpected,
}

impl From<jsonc_parser::errors::ParseError> for Broken {
    fn from(e: jsonc_parser::errors::ParseError) -> Self {
        Broken::Syntax(e)
    }
}

struct Reader<'t> {
    scanner: Scanner<'t>,
    /// The current token (`None` at the end), and its range.
    tok: Option<Token<'t>>,
    start: usize,
    end: usize,
    /// Where the token before the current one ended (the end of the value just read).
    last_end: usize,
    file: FileId,
}

impl<'t> Reader<'t> {
    fn advance(&mut self) -> Result<(), Broken> {
        self.last_end = self.end;
        self.tok = self.scanner.scan()?;
        self.start = self.scanner.token_start();
        self.end = self.scanner.token_end();
        Ok(())
    }

    fn span(&self, start: usize, end: usize) -> Span {
        Span::new(self.file, start, end)
    }

    /// The value at the current token; after it, the token that follows the value.
    /// Recursion is bounded by the depth check the document passed first.
    fn value<B: Build<'t>>(&mut self, b: &mut B, depth: usize) -> Result<B::Out, Broken> {
        let (start, end) = (self.start, self.end);
        let scalar = match self.tok.take() {
            Some(Token::OpenBrace) => return self.object(b, depth),
            Some(Token::OpenBracket) => return self.array(b, depth),
            Some(Token::Null) => Scalar::Null,
            Some(Token::Boolean(v)) => Scalar::Bool(v),
            Some(Token::Number(n)) => Scalar::Number(n),
            Some(Token::String(s)) => Scalar::String(s),
            _ => return Err(Broken::Unexpected),
        };
        self.advance()?;
        Ok(b.scalar(depth, scalar, self.span(start, end)))
    }

    fn object<B: Build<'t>>(&mut self, b: &mut B, depth: usize) -> Result<B::Out, Broken> {
        let start = self.start;
        self.advance()?;
        let mut props = Vec::new();
        loop {
            let name = match self.tok.take() {
                Some(Token::CloseBrace) => break,
                Some(Token::String(name)) => name,
                _ => return Err(Broken::Unexpected),
            };
            let name_span = self.span(self.start, self.end);
            self.advance()?;
            if self.tok != Some(Token::Colon) {
                return Err(Broken::Unexpected);
            }
            self.advance()?;
            let value_start = self.start;
            let v = self.value(b, depth + 1)?;
            let value_span = self.span(value_start, self.last_end);
            props.extend(b.property(depth, name, name_span, v, value_span));
            match self.tok {
                Some(Token::Comma) => self.advance()?,
                Some(Token::CloseBrace) => {}
                _ => return Err(Broken::Unexpected),
            }
        }
        let span = self.span(start, self.end);
        self.advance()?;
        Ok(b.object(depth, props, span))
    }

    fn array<B: Build<'t>>(&mut self, b: &mut B, depth: usize) -> Result<B::Out, Broken> {
        let start = self.start;
        self.advance()?;
        let mut items = Vec::new();
        loop {
            if self.tok == Some(Token::CloseBracket) {
                break;
            }
            items.push(self.value(b, depth + 1)?);
            match self.tok {
                Some(Token::Comma) => self.advance()?,
                Some(Token::CloseBracket) => {}
                _ => return Err(Broken::Unexpected),
            }
        }
        let span = self.span(start, self.end);
        self.advance()?;
        Ok(b.array(depth, items, span))
    }
}
