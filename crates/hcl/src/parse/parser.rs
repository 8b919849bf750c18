//! The parser's state, shared by the productions (bodies, expressions, traversals,
//! templates): the token cursor with HCL's newline rules, error collection, recovery and
//! the nesting limit.

use std::cell::{Cell, OnceCell};
use std::collections::HashMap;

use crate::ast::Range;
use crate::error::SyntaxError;
use crate::lines::{Columns, LineIndex};
use crate::scan::{Kind, Packed, TokSlice, Token};

/// The deepest nesting of expressions and blocks read. Terraform's own parser has no limit
/// below what its stack allows; beyond this one the input is refused with a diagnostic
/// instead of risking a stack overflow (no configuration comes near it).
pub const MAX_DEPTH: usize = 1000;

/// The tokens, seen with or without newlines and comments, as HCL's peeker shows them.
pub(super) struct Peeker<'a> {
    pub(super) toks: TokSlice<'a>,
    pub(super) src: &'a [u8],
    pub(super) next: usize,
    /// Whether newlines count, innermost last (brackets turn them off, bodies on).
    pub(super) nl: Vec<bool>,
    /// The last answer of [`Peeker::next_token`] and what it was asked from (`next`,
    /// whether newlines counted): a production peeks at the same token several times
    /// before it reads it, and each peek would walk past the same comments again.
    pub(super) last: Cell<Option<(usize, bool, Token, usize)>>,
}

impl Peeker<'_> {
    /// The next token that counts, and the index after it. The list's form is matched
    /// once, not at every token: this runs at every peek.
    pub(super) fn next_token(&self) -> (Token, usize) {
        let include = self.nl.last().copied().unwrap_or(true);
        if let Some((next, inc, t, i)) = self.last.get()
            && next == self.next
            && inc == include
        {
            return (t, i);
        }
        let (t, i) = match self.toks {
            TokSlice::Packed(t) => first_token(self.src, t, self.next, include, Packed::token),
            TokSlice::Wide(t) => first_token(self.src, t, self.next, include, |t| t),
        };
        self.last.set(Some((self.next, include, t, i)));
        (t, i)
    }
}

/// [`Peeker::next_token`] over one form of the list.
#[inline(always)]
fn first_token<T: Copy>(
    src: &[u8],
    toks: &[T],
    from: usize,
    include: bool,
    token: impl Fn(T) -> Token,
) -> (Token, usize) {
    for (i, &t) in toks.iter().enumerate().skip(from) {
        let t = token(t);
        match t.kind {
            Kind::Comment => {
                // A line comment ends its line: where newlines count, it is one.
                if include && t.text(src).last() == Some(&b'\n') {
                    return (Token { kind: Kind::Newline, ..t }, i + 1);
                }
            }
            Kind::Newline if !include => {}
            _ => return (t, i + 1),
        }
    }
    let last = toks.last().map_or(Token { kind: Kind::Eof, start: 0, end: 0 }, |&t| token(t));
    (last, toks.len())
}

/// The attribute names a body has set so far. Bodies are small: a list is searched
/// until it grows long, then a map keeps a body of many thousands linear.
#[derive(Default)]
pub(super) struct Seen<'a> {
    pub(super) list: Vec<(&'a str, Range)>,
    pub(super) map: HashMap<&'a str, Range>,
}

impl<'a> Seen<'a> {
    const LIST: usize = 24;

    pub(super) fn get(&self, name: &str) -> Option<Range> {
        if self.map.is_empty() {
            self.list.iter().find(|(n, _)| *n == name).map(|(_, r)| r.clone())
        } else {
            self.map.get(name).cloned()
        }
    }

    pub(super) fn insert(&mut self, name: &'a str, range: Range) {
        if self.map.is_empty() && self.list.len() < Self::LIST {
            self.list.push((name, range));
        } else {
            self.map.extend(self.list.drain(..));
            self.map.insert(name, range);
        }
    }
}

pub(super) struct Parser<'a> {
    pub(super) src: &'a str,
    pub(super) peek: Peeker<'a>,
    /// Set once recovery was attempted: later "unexpected token" errors are likely the
    /// recovery's fault and are not reported (HCL's rule).
    pub(super) recovery: bool,
    pub(super) errors: Vec<SyntaxError>,
    pub(super) depth: usize,
    pub(super) too_deep: bool,
    /// Where the other places its messages name are.
    pub(super) places: Places<'a>,
}

pub(super) fn range(a: &Range, b: &Range) -> Range {
    a.start.min(b.start)..a.end.max(b.end)
}

pub(super) fn tr(t: Token) -> Range {
    t.start..t.end
}

impl<'a> Parser<'a> {
    pub(super) fn new(src: &'a str, toks: TokSlice<'a>) -> Parser<'a> {
        Parser {
            src,
            peek: Peeker {
                toks,
                src: src.as_bytes(),
                next: 0,
                nl: vec![true],
                last: Cell::new(None),
            },
            recovery: false,
            errors: Vec::new(),
            depth: 0,
            too_deep: false,
            places: Places::new(src),
        }
    }

    pub(super) fn peek(&self) -> Token {
        self.peek.next_token().0
    }

    pub(super) fn read(&mut self) -> Token {
        let (t, i) = self.peek.next_token();
        self.peek.next = i;
        t
    }

    /// The range of the token read last (HCL's `PrevRange`).
    pub(super) fn prev_range(&self) -> Range {
        if self.peek.next == 0 {
            return tr(self.peek());
        }
        // The token read last, as it was read (a comment read as a newline keeps its range).
        match self.peek.toks.get(self.peek.next - 1) {
            Some(t) => tr(t),
            None => tr(self.peek()),
        }
    }

    pub(super) fn text(&self, t: Token) -> &'a str {
        self.src.get(t.start..t.end).unwrap_or("")
    }

    pub(super) fn error(&mut self, summary: &str, detail: impl Into<String>, range: Range) {
        self.errors.push(SyntaxError { summary: summary.into(), detail: detail.into(), range });
    }

    /// Skips to just after the `end` that closes the current bracket (HCL's `recover`).
    pub(super) fn recover(&mut self, end: Kind) -> Token {
        let start = opposite(end);
        self.recovery = true;
        let mut nest = 0usize;
        loop {
            let t = self.read();
            let mut k = t.kind;
            if end == Kind::TemplateSeqEnd && k == Kind::TemplateControl {
                k = Kind::TemplateInterp;
            }
            if Some(k) == start {
                nest += 1;
            } else if k == end {
                if nest == 0 {
                    return t;
                }
                nest -= 1;
            } else if k == Kind::Eof {
                return t;
            }
        }
    }

    /// Skips to the bracket `start` opens next and past its end (HCL's `recoverOver`).
    pub(super) fn recover_over(&mut self, start: Kind) {
        loop {
            let t = self.read();
            if t.kind == start || t.kind == Kind::Eof {
                break;
            }
        }
        if let Some(end) = opposite(start) {
            self.recover(end);
        }
    }

    /// Skips the rest of a broken body item: to the end of its line, brackets balanced.
    pub(super) fn recover_after_body_item(&mut self) {
        self.recovery = true;
        let mut open: Vec<Kind> = Vec::new();
        loop {
            let t = self.read();
            match t.kind {
                Kind::Newline if open.is_empty() => break,
                Kind::Eof => break,
                Kind::OBrace
                | Kind::OBrack
                | Kind::OParen
                | Kind::OQuote
                | Kind::OHeredoc
                | Kind::TemplateInterp
                | Kind::TemplateControl => open.push(t.kind),
                Kind::CBrace | Kind::CBrack | Kind::CParen | Kind::CQuote | Kind::CHeredoc => {
                    let opener = opposite(t.kind);
                    while open.last().is_some_and(|o| Some(*o) != opener) {
                        open.pop();
                    }
                    open.pop();
                }
                Kind::TemplateSeqEnd => {
                    while open
                        .last()
                        .is_some_and(|o| *o != Kind::TemplateInterp && *o != Kind::TemplateControl)
                    {
                        open.pop();
                    }
                    open.pop();
                }
                _ => {}
            }
        }
    }

    /// Enters one level of nesting; `false` (after reporting it once) when too deep.
    pub(super) fn enter(&mut self, at: Range) -> bool {
        if self.depth >= MAX_DEPTH {
            if !self.too_deep {
                self.too_deep = true;
                self.error(
                    "Nesting too deep",
                    format!(
                        "Expressions and blocks may be nested at most {MAX_DEPTH} levels deep."
                    ),
                    at,
                );
            }
            self.recovery = true;
            return false;
        }
        self.depth += 1;
        true
    }
}

pub(super) fn opposite(k: Kind) -> Option<Kind> {
    Some(match k {
        Kind::OBrace => Kind::CBrace,
        Kind::OBrack => Kind::CBrack,
        Kind::OParen => Kind::CParen,
        Kind::OQuote => Kind::CQuote,
        Kind::OHeredoc => Kind::CHeredoc,
        Kind::CBrace => Kind::OBrace,
        Kind::CBrack => Kind::OBrack,
        Kind::CParen => Kind::OParen,
        Kind::CQuote => Kind::OQuote,
        Kind::CHeredoc => Kind::OHeredoc,
        Kind::TemplateControl | Kind::TemplateInterp => Kind::TemplateSeqEnd,
        Kind::TemplateSeqEnd => Kind::TemplateInterp,
        _ => return None,
    })
}

/// Lines and columns of one text, for the messages that name another place in it: the
/// index is built on first use (most files have no such message).
pub(super) struct Places<'a> {
    src: &'a str,
    index: OnceCell<LineIndex>,
}

impl<'a> Places<'a> {
    pub(super) fn new(src: &'a str) -> Self {
        Places { src, index: OnceCell::new() }
    }

    /// HCL's `file:line,col-col` (or `file:line,col-line,col`) of a range, as its messages
    /// name another place; `{file}` stands for the file's path, which the caller knows.
    pub(super) fn range_string(&self, r: &Range) -> String {
        let index = self.index.get_or_init(|| LineIndex::new(self.src));
        let (l1, c1) = index.line_col(self.src, r.start, Columns::Graphemes);
        let (l2, c2) = index.line_col(self.src, r.end, Columns::Graphemes);
        if l1 == l2 {
            format!("{{file}}:{l1},{c1}-{c2}")
        } else {
            format!("{{file}}:{l1},{c1}-{l2},{c2}")
        }
    }
}
