//! Tokens, and the lists of them: the compact one the parser reads (twelve bytes a token,
//! where a file's offsets fit 32 bits: a file of short tokens has one for every three or
//! four bytes, and the list was larger than the file's syntax tree). The scanner
//! ([`crate::scan`]) makes them; [`crate::code`] reads them back.

/// A token kind. The names follow HCL's, so its parser's rules read the same here.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    OBrace,
    CBrace,
    OBrack,
    CBrack,
    OParen,
    CParen,
    OQuote,
    CQuote,
    OHeredoc,
    CHeredoc,
    Star,
    Slash,
    Plus,
    Minus,
    Percent,
    Equal,
    EqualOp,
    NotEqual,
    LessThan,
    LessThanEq,
    GreaterThan,
    GreaterThanEq,
    And,
    Or,
    Bang,
    Dot,
    Comma,
    DoubleColon,
    Ellipsis,
    FatArrow,
    Question,
    Colon,
    TemplateInterp,
    TemplateControl,
    TemplateSeqEnd,
    /// Quoted-string text; may hold backslash escapes.
    QuotedLit,
    /// Heredoc or bare-template text; no backslash escapes.
    StringLit,
    NumberLit,
    Ident,
    Comment,
    Newline,
    Eof,
    BitwiseAnd,
    BitwiseOr,
    BitwiseNot,
    BitwiseXor,
    Apostrophe,
    Backtick,
    Semicolon,
    Invalid,
    BadUtf8,
    QuotedNewline,
}

/// One token: its kind and the bytes it covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: Kind,
    pub start: usize,
    pub end: usize,
}

impl Token {
    pub fn text<'a>(&self, src: &'a [u8]) -> &'a [u8] {
        src.get(self.start..self.end).unwrap_or_default()
    }
}

/// A token with 32-bit offsets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packed {
    start: u32,
    end: u32,
    kind: Kind,
}

impl Packed {
    pub fn token(self) -> Token {
        Token { kind: self.kind, start: self.start as usize, end: self.end as usize }
    }
}

/// Where the scanner puts its tokens.
pub trait Sink {
    fn push(&mut self, t: Token);
}

impl Sink for Vec<Token> {
    fn push(&mut self, t: Token) {
        Vec::push(self, t);
    }
}

/// Only filled by [`crate::scan::scan_tokens`], which checks that the text's offsets fit.
impl Sink for Vec<Packed> {
    fn push(&mut self, t: Token) {
        let fit = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        Vec::push(self, Packed { start: fit(t.start), end: fit(t.end), kind: t.kind });
    }
}

/// A text's tokens: packed, or as they are for a text of 4 GiB or more.
pub enum Tokens {
    Packed(Vec<Packed>),
    Wide(Vec<Token>),
}

impl Tokens {
    pub fn as_slice(&self) -> TokSlice<'_> {
        match self {
            Tokens::Packed(t) => TokSlice::Packed(t),
            Tokens::Wide(t) => TokSlice::Wide(t),
        }
    }
}

/// Tokens to read, in either form.
#[derive(Clone, Copy)]
pub enum TokSlice<'a> {
    Packed(&'a [Packed]),
    Wide(&'a [Token]),
}

impl<'a> TokSlice<'a> {
    pub fn len(self) -> usize {
        match self {
            TokSlice::Packed(t) => t.len(),
            TokSlice::Wide(t) => t.len(),
        }
    }

    pub fn is_empty(self) -> bool {
        self.len() == 0
    }

    pub fn get(self, i: usize) -> Option<Token> {
        match self {
            TokSlice::Packed(t) => t.get(i).map(|p| p.token()),
            TokSlice::Wide(t) => t.get(i).copied(),
        }
    }

    pub fn iter(self) -> impl Iterator<Item = Token> + 'a {
        (0..self.len()).filter_map(move |i| self.get(i))
    }
}
