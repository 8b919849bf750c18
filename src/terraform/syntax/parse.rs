//! The parser: tokens to a syntax tree, recursive descent with one token of lookahead and
//! no backtracking. Its rules, recovery and diagnostics are HCL's native-syntax parser's,
//! as Terraform reports them: same summaries, details and ranges, same order, and after an
//! error the same recovery, so what follows is still read as Terraform reads it.

use std::collections::HashMap;

use super::ast::*;
use super::scan::{Kind, Mode, Token, scan};

/// The deepest nesting of expressions and blocks read. Terraform's own parser has no limit
/// below what its stack allows; beyond this one the input is refused with a diagnostic
/// instead of risking a stack overflow (no configuration comes near it).
pub const MAX_DEPTH: usize = 1000;

/// A syntax error: what, why, and where (a byte range of the source).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    pub summary: String,
    pub detail: String,
    pub range: Range,
}

/// A whole configuration file (native syntax). The body is complete up to the errors;
/// what an error left out is skipped as HCL's recovery skips it.
/// The errors are the scanner's token checks first, then the syntax errors, in
/// Terraform's order.
pub fn parse_config(src: &str) -> (Body, Vec<SyntaxError>) {
    parse_tokens(src, &scan(src.as_bytes(), Mode::Normal))
}

/// [`parse_config`] of tokens already scanned from `src` (the formatter needs both).
pub fn parse_tokens(src: &str, tokens: &[super::scan::Token]) -> (Body, Vec<SyntaxError>) {
    let mut p = Parser::new(src, tokens);
    p.errors = super::scan::invalid_tokens(src.as_bytes(), tokens);
    let body = p.body(Kind::Eof);
    (body, p.errors)
}

/// A standalone expression (a variable default in a variables file, a type constraint),
/// newlines ignored as inside parentheses.
pub fn parse_expression(src: &str) -> (Expr, Vec<SyntaxError>) {
    let tokens = scan(src.as_bytes(), Mode::Normal);
    let mut p = Parser::new(src, &tokens);
    p.errors = super::scan::invalid_tokens(src.as_bytes(), &tokens);
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
    let tokens = scan(src.as_bytes(), Mode::Template);
    let mut p = Parser::new(src, &tokens);
    p.errors = super::scan::invalid_tokens(src.as_bytes(), &tokens);
    let start = p.peek().start;
    let (parts, wrap, range) = p.template_inner(Kind::Eof, false);
    let range = if parts.is_empty() { start..start } else { range };
    (Expr { node: Node::Template { parts, heredoc: false, wrap }, range: range.clone() }, p.errors)
}

/// The tokens, seen with or without newlines and comments, as HCL's peeker shows them.
struct Peeker<'a> {
    toks: &'a [Token],
    src: &'a [u8],
    next: usize,
    /// Whether newlines count, innermost last (brackets turn them off, bodies on).
    nl: Vec<bool>,
}

impl Peeker<'_> {
    fn next_token(&self) -> (Token, usize) {
        let include = self.nl.last().copied().unwrap_or(true);
        for i in self.next..self.toks.len() {
            let t = self.toks[i];
            match t.kind {
                Kind::Comment => {
                    // A line comment ends its line: where newlines count, it is one.
                    if include && t.text(self.src).last() == Some(&b'\n') {
                        return (Token { kind: Kind::Newline, ..t }, i + 1);
                    }
                    continue;
                }
                Kind::Newline if !include => continue,
                _ => return (t, i + 1),
            }
        }
        let last = self.toks.len().saturating_sub(1);
        (
            self.toks.get(last).copied().unwrap_or(Token { kind: Kind::Eof, start: 0, end: 0 }),
            self.toks.len(),
        )
    }
}

/// The attribute names a body has set so far. Bodies are small: a list is searched
/// until it grows long, then a map keeps a body of many thousands linear.
#[derive(Default)]
struct Seen<'a> {
    list: Vec<(&'a str, Range)>,
    map: HashMap<&'a str, Range>,
}

impl<'a> Seen<'a> {
    const LIST: usize = 24;

    fn get(&self, name: &str) -> Option<Range> {
        if self.map.is_empty() {
            self.list.iter().find(|(n, _)| *n == name).map(|(_, r)| r.clone())
        } else {
            self.map.get(name).cloned()
        }
    }

    fn insert(&mut self, name: &'a str, range: Range) {
        if self.map.is_empty() && self.list.len() < Self::LIST {
            self.list.push((name, range));
        } else {
            self.map.extend(self.list.drain(..));
            self.map.insert(name, range);
        }
    }
}

struct Parser<'a> {
    src: &'a str,
    peek: Peeker<'a>,
    /// Set once recovery was attempted: later "unexpected token" errors are likely the
    /// recovery's fault and are not reported (HCL's rule).
    recovery: bool,
    errors: Vec<SyntaxError>,
    depth: usize,
    too_deep: bool,
    /// Where the other places its messages name are.
    places: Places<'a>,
}

fn range(a: &Range, b: &Range) -> Range {
    a.start.min(b.start)..a.end.max(b.end)
}

fn tr(t: Token) -> Range {
    t.start..t.end
}

impl<'a> Parser<'a> {
    fn new(src: &'a str, toks: &'a [Token]) -> Parser<'a> {
        Parser {
            src,
            peek: Peeker { toks, src: src.as_bytes(), next: 0, nl: vec![true] },
            recovery: false,
            errors: Vec::new(),
            depth: 0,
            too_deep: false,
            places: Places::new(src),
        }
    }

    fn peek(&self) -> Token {
        self.peek.next_token().0
    }

    fn read(&mut self) -> Token {
        let (t, i) = self.peek.next_token();
        self.peek.next = i;
        t
    }

    /// The range of the token read last (HCL's `PrevRange`).
    fn prev_range(&self) -> Range {
        if self.peek.next == 0 {
            return tr(self.peek());
        }
        // The token read last, as it was read (a comment read as a newline keeps its range).
        tr(self.peek.toks[self.peek.next - 1])
    }

    fn text(&self, t: Token) -> &'a str {
        self.src.get(t.start..t.end).unwrap_or("")
    }

    fn error(&mut self, summary: &str, detail: impl Into<String>, range: Range) {
        self.errors.push(SyntaxError { summary: summary.into(), detail: detail.into(), range });
    }

    /// Skips to just after the `end` that closes the current bracket (HCL's `recover`).
    fn recover(&mut self, end: Kind) -> Token {
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
    fn recover_over(&mut self, start: Kind) {
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
    fn recover_after_body_item(&mut self) {
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
    fn enter(&mut self, at: Range) -> bool {
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

    // ----- bodies -----

    fn body(&mut self, end: Kind) -> Body {
        let start = self.prev_range();
        let mut items = Vec::new();
        let mut seen = Seen::default();
        let end_range;
        loop {
            let next = self.peek();
            if next.kind == end {
                end_range = tr(next);
                self.read();
                break;
            }
            match next.kind {
                Kind::Newline => {
                    self.read();
                }
                Kind::Ident => {
                    let Some(item) = self.body_item() else { continue };
                    if let Item::Attr(a) = &item {
                        let name = self.src.get(a.name_range.clone()).unwrap_or_default();
                        if let Some(prev) = seen.get(name) {
                            let at = self.places.range_string(&prev);
                            self.error(
                                "Attribute redefined",
                                format!(
                                    "The argument \"{}\" was already set at {}. Each argument may be set only once.",
                                    a.name, at
                                ),
                                a.name_range.clone(),
                            );
                            continue;
                        }
                        seen.insert(name, a.name_range.clone());
                    }
                    items.push(item);
                }
                _ => {
                    let bad = self.read();
                    if !self.recovery {
                        match bad.kind {
                            Kind::OQuote => self.error(
                                "Invalid argument name",
                                "Argument names must not be quoted.",
                                tr(bad),
                            ),
                            Kind::Eof if end == Kind::CBrace => self.error(
                                "Unclosed configuration block",
                                "There is no closing brace for this block before the end of the file. This may be caused by incorrect brace nesting elsewhere in this file.",
                                start.clone(),
                            ),
                            Kind::Eof => self.error(
                                "Unclosed configuration body",
                                "Found end of file before the end of this configuration body.",
                                start.clone(),
                            ),
                            _ => self.error(
                                "Argument or block definition required",
                                "An argument or block definition is required here.",
                                tr(bad),
                            ),
                        }
                    }
                    end_range = self.prev_range();
                    self.recover(end);
                    break;
                }
            }
        }
        Body { items, range: range(&start, &end_range) }
    }

    fn body_item(&mut self) -> Option<Item> {
        let ident = self.read();
        if ident.kind != Kind::Ident {
            self.recover_after_body_item();
            self.error(
                "Argument or block definition required",
                "An argument or block definition is required here.",
                tr(ident),
            );
            return None;
        }
        match self.peek().kind {
            Kind::Equal => Some(Item::Attr(self.attribute(ident, false))),
            Kind::OQuote | Kind::OBrace | Kind::Ident => self.block(ident).map(Item::Block),
            _ => {
                self.recover_after_body_item();
                self.error(
                    "Argument or block definition required",
                    "An argument or block definition is required here. To set an argument, use the equals sign \"=\" to introduce the argument value.",
                    tr(ident),
                );
                None
            }
        }
    }

    fn attribute(&mut self, ident: Token, single_line: bool) -> Attribute {
        self.read(); // =
        let before = self.errors.len();
        let expr = self.expression();
        let failed = self.errors.len() > before;
        let end_range;
        if self.recovery && failed {
            end_range = self.prev_range();
            self.recover_after_body_item();
        } else {
            end_range = self.prev_range();
            if !single_line {
                let end = self.peek();
                if end.kind != Kind::Newline && end.kind != Kind::Eof {
                    if !self.recovery {
                        let (summary, detail) = if end.kind == Kind::Comma {
                            (
                                "Unexpected comma after argument",
                                "Argument definitions must be separated by newlines, not commas. An argument definition must end with a newline.",
                            )
                        } else {
                            (
                                "Missing newline after argument",
                                "An argument definition must end with a newline.",
                            )
                        };
                        self.error(summary, detail, tr(end));
                    }
                    self.recover_after_body_item();
                } else {
                    self.read(); // newline
                }
            }
        }
        Attribute {
            name: self.text(ident).to_string(),
            name_range: tr(ident),
            expr,
            range: range(&tr(ident), &end_range),
        }
    }

    fn block(&mut self, ident: Token) -> Option<Block> {
        let kind = self.text(ident).to_string();
        let mut labels = Vec::new();
        let o_brace;
        loop {
            let t = self.peek();
            match t.kind {
                Kind::OBrace => {
                    o_brace = self.read();
                    break;
                }
                Kind::OQuote => {
                    let (label, r) = self.quoted_string_literal();
                    labels.push((label, r));
                }
                Kind::Ident => {
                    let t = self.read();
                    labels.push((self.text(t).to_string(), tr(t)));
                }
                _ => {
                    match t.kind {
                        Kind::Equal => self.error(
                            "Invalid block definition",
                            "The equals sign \"=\" indicates an argument definition, and must not be used when defining a block.",
                            tr(t),
                        ),
                        Kind::Newline => self.error(
                            "Invalid block definition",
                            "A block definition must have block content delimited by \"{\" and \"}\", starting on the same line as the block header.",
                            tr(t),
                        ),
                        _ if !self.recovery => self.error(
                            "Invalid block definition",
                            "Either a quoted string block label or an opening brace (\"{\") is expected here.",
                            tr(t),
                        ),
                        _ => {}
                    }
                    self.recover_after_body_item();
                    return Some(Block {
                        kind,
                        kind_range: tr(ident),
                        labels,
                        open_brace: tr(ident),
                        body: Body { items: Vec::new(), range: tr(ident) },
                        range: tr(ident),
                    });
                }
            }
        }
        if !self.enter(tr(o_brace)) {
            self.recover(Kind::CBrace);
            return None;
        }
        let body = match self.peek().kind {
            Kind::Newline | Kind::Eof | Kind::CBrace => self.body(Kind::CBrace),
            _ => {
                // A one-line block with a single argument: `a { b = 1 }`.
                let mark = self.errors.len();
                let body = self.single_attr_body();
                let body_errors = self.errors.split_off(mark);
                let next = self.peek();
                match next.kind {
                    Kind::CBrace => {
                        self.read();
                    }
                    Kind::Comma => {
                        self.error(
                            "Invalid single-argument block definition",
                            "Single-line block syntax can include only one argument definition. To define multiple arguments, use the multi-line block syntax with one argument definition per line.",
                            tr(next),
                        );
                        self.recover(Kind::CBrace);
                    }
                    Kind::Newline => {
                        self.error(
                            "Invalid single-argument block definition",
                            "An argument definition on the same line as its containing block creates a single-line block definition, which must also be closed on the same line. Place the block's closing brace immediately after the argument definition.",
                            tr(next),
                        );
                        self.recover(Kind::CBrace);
                    }
                    _ => {
                        if !self.recovery {
                            if next.kind == Kind::Eof {
                                self.error(
                                    "Unclosed configuration block",
                                    "There is no closing brace for this block before the end of the file. This may be caused by incorrect brace nesting elsewhere in this file.",
                                    tr(o_brace),
                                );
                            } else {
                                self.error(
                                    "Invalid single-argument block definition",
                                    "A single-line block definition must end with a closing brace immediately after its single argument definition.",
                                    tr(next),
                                );
                            }
                        }
                        self.recover(Kind::CBrace);
                    }
                }
                self.errors.extend(body_errors);
                body.unwrap_or(Body { items: Vec::new(), range: tr(o_brace) })
            }
        };
        self.depth -= 1;
        let c_brace = self.prev_range();
        let eol = self.peek();
        if eol.kind == Kind::Newline || eol.kind == Kind::Eof {
            self.read();
        } else {
            if !self.recovery {
                self.error(
                    "Missing newline after block definition",
                    "A block definition must end with a newline.",
                    tr(eol),
                );
            }
            self.recover_after_body_item();
        }
        Some(Block {
            kind,
            kind_range: tr(ident),
            labels,
            open_brace: tr(o_brace),
            body,
            range: range(&tr(ident), &c_brace),
        })
    }

    fn single_attr_body(&mut self) -> Option<Body> {
        let ident = self.read();
        if ident.kind != Kind::Ident {
            self.recover_after_body_item();
            self.error(
                "Argument or block definition required",
                "An argument or block definition is required here.",
                tr(ident),
            );
            return None;
        }
        let next = self.peek();
        match next.kind {
            Kind::Equal => {
                let a = self.attribute(ident, true);
                let r = a.range.clone();
                Some(Body { items: vec![Item::Attr(a)], range: r })
            }
            Kind::OQuote | Kind::OBrace | Kind::Ident => {
                self.recover_after_body_item();
                self.error(
                    "Argument definition required",
                    format!(
                        "A single-line block definition can contain only a single argument. If you meant to define argument \"{}\", use an equals sign to assign it a value. To define a nested block, place it on a line of its own within its parent block.",
                        go_quote_inner(self.text(ident))
                    ),
                    range(&tr(ident), &tr(next)),
                );
                None
            }
            _ => {
                self.recover_after_body_item();
                self.error(
                    "Argument or block definition required",
                    "An argument or block definition is required here. To set an argument, use the equals sign \"=\" to introduce the argument value.",
                    tr(ident),
                );
                None
            }
        }
    }

    /// A quoted string with no template sequences (a block label).
    fn quoted_string_literal(&mut self) -> (String, Range) {
        let o = self.read();
        let mut out = String::new();
        let end_range;
        loop {
            let t = self.read();
            match t.kind {
                Kind::CQuote => {
                    end_range = tr(t);
                    break;
                }
                Kind::QuotedLit => {
                    let (s, errs) = unescape(self.text(t), t.start, true);
                    self.errors.extend(errs);
                    out.push_str(&s);
                }
                Kind::TemplateControl | Kind::TemplateInterp => {
                    let which = if t.kind == Kind::TemplateControl { "%" } else { "$" };
                    self.error(
                        "Invalid string literal",
                        format!(
                            "Template sequences are not allowed in this string. To include a literal \"{which}\", double it (as \"{which}{which}\") to escape it."
                        ),
                        tr(t),
                    );
                    out.push_str(which);
                    out.push_str("{ ... }");
                    self.recover(Kind::TemplateSeqEnd);
                }
                Kind::Eof => {
                    self.error(
                        "Unterminated string literal",
                        "Unable to find the closing quote mark before the end of the file.",
                        tr(t),
                    );
                    end_range = tr(t);
                    break;
                }
                _ => {
                    self.error(
                        "Invalid string literal",
                        "This item is not valid in a string literal.",
                        tr(t),
                    );
                    self.recover(Kind::CQuote);
                    end_range = tr(t);
                    break;
                }
            }
        }
        (out, range(&tr(o), &end_range))
    }

    // ----- expressions -----

    /// An expression: operators and the conditional, around terms. Few stack frames per
    /// level of nesting (expression, operators, term, bracket), so deep input stays cheap.
    fn expression(&mut self) -> Expr {
        let at = tr(self.peek());
        if !self.enter(at.clone()) {
            return Expr { node: Node::Invalid, range: at };
        }
        let e = self.conditional(at);
        self.depth -= 1;
        e
    }

    fn conditional(&mut self, start: Range) -> Expr {
        let before = self.errors.len();
        let cond = self.binary(0);
        if self.recovery && self.errors.len() > before {
            return cond;
        }
        if self.peek().kind != Kind::Question {
            return cond;
        }
        self.read();
        let before = self.errors.len();
        let yes = self.expression();
        if self.recovery && self.errors.len() > before {
            return cond;
        }
        let colon = self.peek();
        if colon.kind != Kind::Colon {
            self.error(
                "Missing false expression in conditional",
                "The conditional operator (...?...:...) requires a false expression, delimited by a colon.",
                tr(colon),
            );
            return cond;
        }
        self.read();
        let before = self.errors.len();
        let no = self.expression();
        if self.recovery && self.errors.len() > before {
            return cond;
        }
        let r = range(&start, &no.range);
        Expr {
            node: Node::Conditional { cond: Box::new(cond), yes: Box::new(yes), no: Box::new(no) },
            range: r,
        }
    }

    /// Binary operators of precedence `min` and up (0 is `||`), by precedence climbing:
    /// left-associative within a level, and a chain of one level is one node, however
    /// long. After an operand with errors in recovery, what was built before it is
    /// returned (HCL's rule at every level).
    fn binary(&mut self, min: usize) -> Expr {
        let before = self.errors.len();
        let first = self.term();
        let mut lhs = self.traversals(first);
        if self.recovery && self.errors.len() > before {
            return lhs;
        }
        // The level of the chain `lhs` is, when this loop built it.
        let mut chain: Option<usize> = None;
        while let Some((level, op)) = operator(self.peek().kind) {
            if level < min {
                break;
            }
            self.read();
            let before = self.errors.len();
            let rhs = self.binary(level + 1);
            if self.recovery && self.errors.len() > before {
                break;
            }
            let end = rhs.range.end;
            match (&mut lhs.node, chain) {
                (Node::Binary { rest, .. }, Some(c)) if c == level => rest.push((op, rhs)),
                _ => {
                    let start = lhs.range.start;
                    lhs = Expr {
                        node: Node::Binary { first: Box::new(lhs), rest: vec![(op, rhs)] },
                        range: start..end,
                    };
                    chain = Some(level);
                }
            }
            lhs.range.end = end;
        }
        lhs
    }

    /// Attribute access, indexes and splats after a term.
    fn traversals(&mut self, from: Expr) -> Expr {
        let mut ret = from;
        loop {
            let next = self.peek();
            match next.kind {
                Kind::Dot => {
                    let dot = self.read();
                    let attr = self.peek();
                    match attr.kind {
                        Kind::Ident => {
                            let t = self.read();
                            let r = range(&tr(dot), &tr(t));
                            ret = step(ret, Step::Attr(self.text(t).to_string(), r.clone()), r);
                        }
                        Kind::NumberLit => {
                            let t = self.read();
                            let text = self.text(t);
                            let r = range(&tr(dot), &tr(t));
                            if let Some((a, b)) = text.split_once('.') {
                                self.error(
                                    "Invalid legacy index syntax",
                                    format!("When using the legacy index syntax, chaining two indexes together is not permitted. Use the proper index syntax instead, like [{a}][{b}]."),
                                    tr(t),
                                );
                                let key = Expr { node: Node::Invalid, range: tr(t) };
                                ret = step(ret, Step::Index(Box::new(key), r.clone()), r);
                                continue;
                            }
                            let key = self.number(t);
                            ret = step(ret, Step::Index(Box::new(key), r.clone()), r);
                        }
                        Kind::Star => {
                            // An attribute-only splat: `.*` and the attribute (or legacy
                            // index) steps after it apply to each element.
                            let marker = self.read();
                            let mut each = Vec::new();
                            let mut last = tr(marker);
                            let mut broken = false;
                            while self.peek().kind == Kind::Dot {
                                let dot = self.read();
                                let n = self.peek();
                                if n.kind == Kind::NumberLit {
                                    let t = self.read();
                                    let text = self.text(t);
                                    let r = range(&tr(dot), &tr(t));
                                    if let Some((a, b)) = text.split_once('.') {
                                        self.error(
                                            "Invalid legacy index syntax",
                                            format!("When using the legacy index syntax, chaining two indexes together is not permitted. Use the proper index syntax with a full splat expression [*] instead, like [{a}][{b}]."),
                                            tr(attr),
                                        );
                                        let key = Expr { node: Node::Invalid, range: tr(t) };
                                        each.push(Step::Index(Box::new(key), r));
                                        last = tr(t);
                                        continue;
                                    }
                                    let key = self.number(t);
                                    each.push(Step::Index(Box::new(key), r));
                                    last = tr(t);
                                    continue;
                                }
                                if n.kind != Kind::Ident {
                                    if !self.recovery {
                                        if n.kind == Kind::Star {
                                            self.error(
                                                "Nested splat expression not allowed",
                                                "A splat expression (*) cannot be used inside another attribute-only splat expression.",
                                                tr(n),
                                            );
                                        } else {
                                            self.error(
                                                "Invalid attribute name",
                                                "An attribute name is required after a dot.",
                                                tr(attr),
                                            );
                                        }
                                    }
                                    self.recovery = true;
                                    broken = true;
                                    break;
                                }
                                let t = self.read();
                                each.push(Step::Attr(
                                    self.text(t).to_string(),
                                    range(&tr(dot), &tr(t)),
                                ));
                                last = tr(t);
                            }
                            if broken {
                                continue;
                            }
                            let item =
                                Expr { node: Node::SplatItem, range: range(&tr(dot), &tr(marker)) };
                            let each = if each.is_empty() {
                                item
                            } else {
                                let r = item.range.start..last.end;
                                Expr {
                                    node: Node::Traversal { source: Box::new(item), steps: each },
                                    range: r,
                                }
                            };
                            let r = ret.range.start..last.end;
                            ret = Expr {
                                node: Node::Splat { source: Box::new(ret), each: Box::new(each) },
                                range: r,
                            };
                        }
                        _ => {
                            self.error(
                                "Invalid attribute name",
                                "An attribute name is required after a dot.",
                                tr(attr),
                            );
                            let r = ret.range.start..dot.end;
                            ret = Expr { node: Node::Invalid, range: r };
                            self.recovery = true;
                        }
                    }
                }
                Kind::OBrack => {
                    let open = self.read();
                    if self.peek().kind == Kind::Star {
                        self.read();
                        let mut close = self.read();
                        if close.kind != Kind::CBrack && !self.recovery {
                            // HCL points at the token its recovery stops at (the `]`, or
                            // the end of the file), not at the one found instead.
                            close = self.recover(Kind::CBrack);
                            self.error(
                                "Missing close bracket on splat index",
                                "The star for a full splat operator must be immediately followed by a closing bracket (\"]\").",
                                tr(close),
                            );
                        }
                        // The rest of the traversal applies to each element.
                        let item =
                            Expr { node: Node::SplatItem, range: range(&tr(open), &tr(close)) };
                        if !self.enter(item.range.clone()) {
                            return Expr { node: Node::Invalid, range: ret.range.start..close.end };
                        }
                        let each = self.traversals(item);
                        self.depth -= 1;
                        let r = ret.range.start..each.range.end.max(close.end);
                        ret = Expr {
                            node: Node::Splat { source: Box::new(ret), each: Box::new(each) },
                            range: r,
                        };
                        continue;
                    }
                    self.peek.nl.push(false);
                    let before = self.errors.len();
                    let key = self.expression();
                    let close;
                    if self.recovery && self.errors.len() > before {
                        close = self.recover(Kind::CBrack);
                    } else {
                        let c = self.read();
                        if c.kind != Kind::CBrack && !self.recovery {
                            // As for a splat: where the recovery stops.
                            close = self.recover(Kind::CBrack);
                            self.error(
                                "Missing close bracket on index",
                                "The index operator must end with a closing bracket (\"]\").",
                                tr(close),
                            );
                        } else {
                            close = c;
                        }
                    }
                    self.peek.nl.pop();
                    let r = range(&tr(open), &tr(close));
                    ret = step(ret, Step::Index(Box::new(key), r.clone()), r);
                }
                _ => return ret,
            }
        }
    }

    fn number(&mut self, t: Token) -> Expr {
        let text = self.text(t);
        if crate::terraform::number::Number::parse(text).is_none() {
            self.error(
                "Invalid number literal",
                "Failed to recognize the value of this number literal.",
                tr(t),
            );
            return Expr { node: Node::Invalid, range: tr(t) };
        }
        Expr { node: Node::Number(text.to_string()), range: tr(t) }
    }

    fn term(&mut self) -> Expr {
        let start = self.peek();
        match start.kind {
            Kind::OParen => {
                let open = self.read();
                self.peek.nl.push(false);
                let before = self.errors.len();
                let inner = self.expression();
                if self.errors.len() > before {
                    self.recover(Kind::CParen);
                    self.peek.nl.pop();
                    return inner;
                }
                let close = self.peek();
                if close.kind != Kind::CParen {
                    self.error(
                        "Unbalanced parentheses",
                        "Expected a closing parenthesis to terminate the expression.",
                        tr(close),
                    );
                    self.recovery = true;
                }
                let c = self.read();
                self.peek.nl.pop();
                Expr { node: Node::Parens(Box::new(inner)), range: range(&tr(open), &tr(c)) }
            }
            Kind::NumberLit => {
                let t = self.read();
                self.number(t)
            }
            Kind::Ident => {
                let t = self.read();
                let next = self.peek().kind;
                if next == Kind::OParen || next == Kind::DoubleColon {
                    return self.call(t);
                }
                let node = match self.text(t) {
                    "true" => Node::Bool(true),
                    "false" => Node::Bool(false),
                    "null" => Node::Null,
                    name => Node::Variable(name.to_string()),
                };
                Expr { node, range: tr(t) }
            }
            Kind::OQuote | Kind::OHeredoc => {
                let open = self.read();
                let close = if open.kind == Kind::OQuote { Kind::CQuote } else { Kind::CHeredoc };
                let flush = open.kind == Kind::OHeredoc && self.text(open).starts_with("<<-");
                let (parts, wrap, _) = self.template_inner(close, flush);
                let r = range(&tr(open), &self.prev_range());
                Expr {
                    node: Node::Template { parts, heredoc: open.kind == Kind::OHeredoc, wrap },
                    range: r,
                }
            }
            Kind::Minus | Kind::Bang => {
                let t = self.read();
                if !self.enter(tr(t)) {
                    return Expr { node: Node::Invalid, range: tr(t) };
                }
                let term = self.term();
                let operand = self.traversals(term);
                self.depth -= 1;
                let op = if t.kind == Kind::Minus { UnaryOp::Neg } else { UnaryOp::Not };
                let r = range(&tr(t), &operand.range);
                Expr { node: Node::Unary { op, operand: Box::new(operand) }, range: r }
            }
            Kind::OBrack => self.tuple(),
            Kind::OBrace => self.object(),
            _ => {
                if !self.recovery {
                    if start.kind == Kind::Eof {
                        self.error(
                            "Missing expression",
                            "Expected the start of an expression, but found the end of the file.",
                            tr(start),
                        );
                    } else {
                        self.error(
                            "Invalid expression",
                            "Expected the start of an expression, but found an invalid expression token.",
                            tr(start),
                        );
                    }
                }
                self.recovery = true;
                Expr { node: Node::Invalid, range: tr(start) }
            }
        }
    }

    fn call(&mut self, name: Token) -> Expr {
        let mut open = self.read();
        let mut full_name = self.text(name).to_string();
        let mut name_end = name.end;
        while open.kind == Kind::DoubleColon {
            let next = self.read();
            if next.kind != Kind::Ident {
                self.error(
                    "Missing function name",
                    "Function scope resolution symbol :: must be followed by a function name in this scope.",
                    tr(next),
                );
                self.recover_over(Kind::OParen);
                return Expr { node: Node::Invalid, range: range(&tr(name), &tr(next)) };
            }
            full_name.push_str("::");
            full_name.push_str(self.text(next));
            name_end = next.end;
            open = self.read();
        }
        if open.kind != Kind::OParen {
            self.error(
                "Missing open parenthesis",
                "Function selector must be followed by an open parenthesis to begin the function call.",
                tr(open),
            );
            self.recover_over(Kind::OParen);
            return Expr { node: Node::Invalid, range: range(&tr(name), &tr(open)) };
        }
        let mut args = Vec::new();
        let mut expand = false;
        let mut close = open;
        self.peek.nl.push(false);
        loop {
            if self.peek().kind == Kind::CParen {
                close = self.read();
                break;
            }
            let before = self.errors.len();
            let arg = self.expression();
            args.push(arg);
            if self.recovery && self.errors.len() > before {
                let t = self.recover(Kind::CParen);
                if t.kind == Kind::CParen {
                    close = t;
                }
                break;
            }
            let sep = self.read();
            if sep.kind == Kind::CParen {
                close = sep;
                break;
            }
            if sep.kind == Kind::Ellipsis {
                expand = true;
                if self.peek().kind != Kind::CParen {
                    if !self.recovery {
                        self.error(
                            "Missing closing parenthesis",
                            "An expanded function argument (with ...) must be immediately followed by closing parentheses.",
                            tr(sep),
                        );
                    }
                    close = self.recover(Kind::CParen);
                } else {
                    close = self.read();
                }
                break;
            }
            if sep.kind != Kind::Comma {
                if sep.kind == Kind::Eof {
                    self.error(
                        "Unterminated function call",
                        "There is no closing parenthesis for this function call before the end of the file. This may be caused by incorrect parenthesis nesting elsewhere in this file.",
                        range(&tr(name), &tr(open)),
                    );
                } else {
                    self.error(
                        "Missing argument separator",
                        "A comma is required to separate each function argument from the next.",
                        tr(sep),
                    );
                }
                close = self.recover(Kind::CParen);
                break;
            }
            if self.peek().kind == Kind::CParen {
                close = self.read();
                break;
            }
        }
        self.peek.nl.pop();
        Expr {
            node: Node::Call { name: full_name, name_range: name.start..name_end, args, expand },
            range: range(&tr(name), &tr(close)),
        }
    }

    fn tuple(&mut self) -> Expr {
        let open = self.read();
        self.peek.nl.push(false);
        if self.is_keyword(self.peek(), "for") {
            let e = self.for_expr(open);
            self.peek.nl.pop();
            return e;
        }
        let mut items = Vec::new();
        let close;
        loop {
            if self.peek().kind == Kind::CBrack {
                close = self.read();
                break;
            }
            let before = self.errors.len();
            let e = self.expression();
            items.push(e);
            if self.recovery && self.errors.len() > before {
                close = self.recover(Kind::CBrack);
                break;
            }
            let next = self.peek();
            if next.kind == Kind::CBrack {
                close = self.read();
                break;
            }
            if next.kind != Kind::Comma {
                if !self.recovery {
                    if next.kind == Kind::Eof {
                        self.error(
                            "Unterminated tuple constructor expression",
                            "There is no corresponding closing bracket before the end of the file. This may be caused by incorrect bracket nesting elsewhere in this file.",
                            tr(open),
                        );
                    } else {
                        self.error(
                            "Missing item separator",
                            "Expected a comma to mark the beginning of the next item.",
                            tr(next),
                        );
                    }
                }
                close = self.recover(Kind::CBrack);
                break;
            }
            self.read();
        }
        self.peek.nl.pop();
        Expr { node: Node::Tuple(items), range: range(&tr(open), &tr(close)) }
    }

    fn is_keyword(&self, t: Token, word: &str) -> bool {
        t.kind == Kind::Ident && self.text(t) == word
    }

    fn object(&mut self) -> Expr {
        let open = self.read();
        // `for` is looked for with newlines off: `{⏎ for …` is a `for` expression.
        self.peek.nl.push(false);
        let is_for = self.is_keyword(self.peek(), "for");
        if is_for {
            let e = self.for_expr(open);
            self.peek.nl.pop();
            return e;
        }
        self.peek.nl.pop();
        self.peek.nl.push(true);
        let e = self.object_rest(open);
        self.peek.nl.pop();
        e
    }

    fn object_rest(&mut self, open: Token) -> Expr {
        let mut items: Vec<(Key, Expr)> = Vec::new();
        let close;
        loop {
            let next = self.peek();
            if next.kind == Kind::Newline {
                self.read();
                continue;
            }
            if next.kind == Kind::CBrace {
                close = self.read();
                break;
            }
            let forced = next.kind == Kind::OParen;
            let before = self.errors.len();
            let key = self.expression();
            if self.recovery && self.errors.len() > before {
                close = self.recover(Kind::CBrace);
                break;
            }
            // A bare name is a literal string key (so are `null`, `true`, `false`), unless
            // it is in parentheses.
            let key = match &key.node {
                Node::Variable(name) if !forced => Key::Name(name.clone(), key.range.clone()),
                Node::Null if !forced => Key::Name("null".into(), key.range.clone()),
                Node::Bool(b) if !forced => Key::Name(b.to_string(), key.range.clone()),
                _ => Key::Expr(key),
            };
            let next = self.peek();
            if next.kind != Kind::Equal && next.kind != Kind::Colon {
                if !self.recovery {
                    match next.kind {
                        Kind::Newline | Kind::Comma => self.error(
                            "Missing attribute value",
                            "Expected an attribute value, introduced by an equals sign (\"=\").",
                            tr(next),
                        ),
                        Kind::Ident => self.error(
                            "Missing key/value separator",
                            "Expected an equals sign (\"=\") to mark the beginning of the attribute value. If you intended to given an attribute name containing periods or spaces, write the name in quotes to create a string literal.",
                            tr(next),
                        ),
                        Kind::Eof => self.error(
                            "Unterminated object constructor expression",
                            "There is no corresponding closing brace before the end of the file. This may be caused by incorrect brace nesting elsewhere in this file.",
                            tr(open),
                        ),
                        _ => self.error(
                            "Missing key/value separator",
                            "Expected an equals sign (\"=\") to mark the beginning of the attribute value.",
                            tr(next),
                        ),
                    }
                }
                close = self.recover(Kind::CBrace);
                break;
            }
            self.read();
            let before = self.errors.len();
            let value = self.expression();
            if self.recovery && self.errors.len() > before {
                close = self.recover(Kind::CBrace);
                break;
            }
            items.push((key, value));
            let next = self.peek();
            if next.kind == Kind::CBrace {
                close = self.read();
                break;
            }
            if next.kind != Kind::Comma && next.kind != Kind::Newline {
                if !self.recovery {
                    if next.kind == Kind::Eof {
                        self.error(
                            "Unterminated object constructor expression",
                            "There is no corresponding closing brace before the end of the file. This may be caused by incorrect brace nesting elsewhere in this file.",
                            tr(open),
                        );
                    } else {
                        self.error(
                            "Missing attribute separator",
                            "Expected a newline or comma to mark the beginning of the next attribute.",
                            tr(next),
                        );
                    }
                }
                close = self.recover(Kind::CBrace);
                break;
            }
            self.read();
        }
        Expr { node: Node::Object(items), range: range(&tr(open), &tr(close)) }
    }

    fn for_expr(&mut self, open: Token) -> Expr {
        self.peek.nl.push(false);
        let e = self.for_rest(open);
        self.peek.nl.pop();
        e
    }

    fn for_failed(&mut self, open: Token, close_kind: Kind) -> Expr {
        let close = self.recover(close_kind);
        Expr { node: Node::Invalid, range: range(&tr(open), &tr(close)) }
    }

    fn for_rest(&mut self, open: Token) -> Expr {
        self.read(); // for
        let object = open.kind == Kind::OBrace;
        let close_kind = if object { Kind::CBrace } else { Kind::CBrack };
        let for_error = |p: &mut Self, detail: &str| {
            if !p.recovery {
                let at = tr(p.peek());
                p.error("Invalid 'for' expression", detail, at);
            }
        };
        if self.peek().kind != Kind::Ident {
            for_error(self, "For expression requires variable name after 'for'.");
            return self.for_failed(open, close_kind);
        }
        let t = self.read();
        let mut value_var = self.text(t).to_string();
        let mut key_var = None;
        if self.peek().kind == Kind::Comma {
            key_var = Some(value_var);
            self.read();
            if self.peek().kind != Kind::Ident {
                for_error(self, "For expression requires value variable name after comma.");
                return self.for_failed(open, close_kind);
            }
            let t = self.read();
            value_var = self.text(t).to_string();
        }
        if !self.is_keyword(self.peek(), "in") {
            for_error(
                self,
                "For expression requires the 'in' keyword after its name declarations.",
            );
            return self.for_failed(open, close_kind);
        }
        self.read();
        let before = self.errors.len();
        let collection = self.expression();
        if self.recovery && self.errors.len() > before {
            return self.for_failed(open, close_kind);
        }
        if self.peek().kind != Kind::Colon {
            for_error(self, "For expression requires a colon after the collection expression.");
            return self.for_failed(open, close_kind);
        }
        self.read();
        let before = self.errors.len();
        let mut value = self.expression();
        let mut key = None;
        if self.peek().kind == Kind::FatArrow {
            self.read();
            key = Some(value);
            value = self.expression();
        }
        if self.recovery && self.errors.len() > before {
            return self.for_failed(open, close_kind);
        }
        let mut group = None;
        if self.peek().kind == Kind::Ellipsis {
            group = Some(self.read());
        }
        let mut cond = None;
        if self.is_keyword(self.peek(), "if") {
            self.read();
            let before = self.errors.len();
            cond = Some(self.expression());
            if self.recovery && self.errors.len() > before {
                return self.for_failed(open, close_kind);
            }
        }
        let close = if self.peek().kind == close_kind {
            self.read()
        } else {
            if !self.recovery {
                let at = tr(self.peek());
                self.error(
                    "Invalid 'for' expression",
                    "Extra characters after the end of the 'for' expression.",
                    at,
                );
            }
            self.recover(close_kind)
        };
        if !object {
            if let Some(k) = &key {
                self.error(
                    "Invalid 'for' expression",
                    "Key expression is not valid when building a tuple.",
                    k.range.clone(),
                );
            }
            if let Some(g) = group {
                self.error(
                    "Invalid 'for' expression",
                    "Grouping ellipsis (...) cannot be used when building a tuple.",
                    tr(g),
                );
            }
        } else if key.is_none() {
            self.error(
                "Invalid 'for' expression",
                "Key expression is required when building an object.",
                value.range.clone(),
            );
        }
        let r = range(&tr(open), &tr(close));
        Expr {
            node: Node::For(Box::new(ForExpr {
                key_var,
                value_var,
                collection,
                key,
                value,
                cond,
                group: group.is_some(),
                object,
            })),
            range: r,
        }
    }

    // ----- templates -----

    /// A template's parts up to `end`: (parts, whether it is exactly one interpolation,
    /// its range).
    fn template_inner(&mut self, end: Kind, flush: bool) -> (Vec<Part>, bool, Range) {
        let (mut toks, range) = self.template_tokens(end);
        if flush {
            flush_heredoc(&mut toks);
        }
        meld(&mut toks);
        let wrap = toks.len() == 2 && matches!(toks[0], TplTok::Interp(..));
        let mut tp = TemplateParser {
            toks,
            pos: 0,
            errors: Vec::new(),
            places: &self.places,
            depth: self.depth,
            abandoned: false,
        };
        let parts = tp.root();
        self.errors.extend(tp.errors);
        (parts, wrap, range)
    }

    fn template_tokens(&mut self, end: Kind) -> (Vec<TplTok>, Range) {
        let start = tr(self.peek());
        let mut out: Vec<TplTok> = Vec::new();
        let mut ltrim_next = false;
        let mut next_can_trim_prev = false;
        let end_range;
        loop {
            let next = self.read();
            if next.kind == end {
                end_range = tr(next);
                break;
            }
            let ltrim = std::mem::take(&mut ltrim_next);
            let can_trim_prev = std::mem::take(&mut next_can_trim_prev);
            match next.kind {
                Kind::StringLit | Kind::QuotedLit => {
                    let (mut s, errs) =
                        unescape(self.text(next), next.start, next.kind == Kind::QuotedLit);
                    self.errors.extend(errs);
                    if ltrim {
                        s = s.trim_start().to_string();
                    }
                    out.push(TplTok::Lit(s, tr(next)));
                    next_can_trim_prev = true;
                }
                Kind::TemplateInterp => {
                    if can_trim_prev && next.end - next.start == 3 {
                        trim_last(&mut out);
                    }
                    self.peek.nl.push(false);
                    let before = self.errors.len();
                    let expr = self.expression();
                    let _ = before;
                    let close = self.peek();
                    if close.kind != Kind::TemplateSeqEnd {
                        if !self.recovery {
                            match close.kind {
                                Kind::Eof => self.error(
                                    "Unclosed template interpolation sequence",
                                    "There is no closing brace for this interpolation sequence before the end of the file. This might be caused by incorrect nesting inside the given expression.",
                                    start.clone(),
                                ),
                                Kind::Colon => self.error(
                                    "Extra characters after interpolation expression",
                                    "Template interpolation doesn't expect a colon at this location. Did you intend this to be a literal sequence to be processed as part of another language? If so, you can escape it by starting with \"$${\" instead of just \"${\".",
                                    tr(close),
                                ),
                                Kind::CQuote | Kind::OQuote if end == Kind::CQuote => self.error(
                                    "Unclosed template interpolation sequence",
                                    "There is no closing brace for this interpolation sequence before the end of the quoted template. This might be caused by incorrect nesting inside the given expression.",
                                    start.clone(),
                                ),
                                _ => self.error(
                                    "Extra characters after interpolation expression",
                                    "Expected a closing brace to end the interpolation expression, but found extra characters.\n\nThis can happen when you include interpolation syntax for another language, such as shell scripting, but forget to escape the interpolation start token. If this is an embedded sequence for another language, escape it by starting with \"$${\" instead of just \"${\".",
                                    tr(close),
                                ),
                            }
                        }
                        self.recover(Kind::TemplateSeqEnd);
                    } else {
                        self.read();
                        if close.end - close.start == 2 {
                            ltrim_next = true;
                        }
                    }
                    self.peek.nl.pop();
                    out.push(TplTok::Interp(expr, range(&tr(next), &tr(close))));
                }
                Kind::TemplateControl => {
                    if can_trim_prev && next.end - next.start == 3 {
                        trim_last(&mut out);
                    }
                    self.peek.nl.push(false);
                    let kw = self.peek();
                    if kw.kind != Kind::Ident {
                        if !self.recovery {
                            self.error(
                                "Invalid template directive",
                                "A template directive keyword (\"if\", \"for\", etc) is expected at the beginning of a %{ sequence.",
                                tr(kw),
                            );
                        }
                        self.recover(Kind::TemplateSeqEnd);
                        self.peek.nl.pop();
                        continue;
                    }
                    self.read();
                    let word = self.text(kw);
                    match word {
                        "if" => {
                            let cond = self.expression();
                            let r = range(&tr(next), &tr(self.peek()));
                            out.push(TplTok::If(cond, r));
                        }
                        "else" | "endif" | "endfor" => {
                            let r = range(&tr(next), &tr(self.peek()));
                            out.push(TplTok::End(word.to_string(), r));
                        }
                        "for" => {
                            let directive_error = |p: &mut Self, detail: &str| {
                                if !p.recovery {
                                    let at = tr(p.peek());
                                    p.error("Invalid 'for' directive", detail, at);
                                }
                                p.recover(Kind::TemplateSeqEnd);
                                p.peek.nl.pop();
                            };
                            if self.peek().kind != Kind::Ident {
                                directive_error(
                                    self,
                                    "For directive requires variable name after 'for'.",
                                );
                                continue;
                            }
                            let t = self.read();
                            let mut value_var = self.text(t).to_string();
                            let mut key_var = None;
                            if self.peek().kind == Kind::Comma {
                                key_var = Some(value_var);
                                self.read();
                                if self.peek().kind != Kind::Ident {
                                    directive_error(
                                        self,
                                        "For directive requires value variable name after comma.",
                                    );
                                    continue;
                                }
                                let t = self.read();
                                value_var = self.text(t).to_string();
                            }
                            if !self.is_keyword(self.peek(), "in") {
                                directive_error(
                                    self,
                                    "For directive requires 'in' keyword after names.",
                                );
                                continue;
                            }
                            self.read();
                            let collection = self.expression();
                            let r = range(&tr(next), &tr(self.peek()));
                            out.push(TplTok::For(key_var, value_var, collection, r));
                        }
                        _ => {
                            if !self.recovery {
                                let suggestion = ["if", "for", "else", "endif", "endfor"]
                                    .iter()
                                    .find(|s| strsim::levenshtein(word, s) < 3)
                                    .map(|s| format!(" Did you mean \"{s}\"?"))
                                    .unwrap_or_default();
                                self.error(
                                    "Invalid template control keyword",
                                    format!(
                                        "\"{}\" is not a valid template control keyword.{suggestion}",
                                        go_quote_inner(word)
                                    ),
                                    tr(kw),
                                );
                            }
                            self.recover(Kind::TemplateSeqEnd);
                            self.peek.nl.pop();
                            continue;
                        }
                    }
                    let close = self.peek();
                    if close.kind != Kind::TemplateSeqEnd {
                        if !self.recovery {
                            self.error(
                                &format!("Extra characters in {word} marker"),
                                "Expected a closing brace to end the sequence, but found extra characters.",
                                tr(close),
                            );
                        }
                        self.recover(Kind::TemplateSeqEnd);
                    } else {
                        self.read();
                        if close.end - close.start == 2 {
                            ltrim_next = true;
                        }
                    }
                    self.peek.nl.pop();
                }
                _ => {
                    if !self.recovery {
                        self.error(
                            "Unterminated template string",
                            "No closing marker was found for the string.",
                            tr(next),
                        );
                    }
                    let last = self.recover(end);
                    end_range = tr(last);
                    break;
                }
            }
        }
        if out.is_empty() {
            out.push(TplTok::Lit(String::new(), start.end..start.end));
        }
        let r = range(&start, &end_range);
        out.push(TplTok::EndOfTemplate(end_range));
        (out, r)
    }
}

/// The operators of each precedence level, lowest first.
const LEVELS: [&[(Kind, BinaryOp)]; 6] = [
    &[(Kind::Or, BinaryOp::Or)],
    &[(Kind::And, BinaryOp::And)],
    &[(Kind::EqualOp, BinaryOp::Eq), (Kind::NotEqual, BinaryOp::NotEq)],
    &[
        (Kind::GreaterThan, BinaryOp::Greater),
        (Kind::GreaterThanEq, BinaryOp::GreaterEq),
        (Kind::LessThan, BinaryOp::Less),
        (Kind::LessThanEq, BinaryOp::LessEq),
    ],
    &[(Kind::Plus, BinaryOp::Add), (Kind::Minus, BinaryOp::Sub)],
    &[(Kind::Star, BinaryOp::Mul), (Kind::Slash, BinaryOp::Div), (Kind::Percent, BinaryOp::Mod)],
];

/// A binary operator token: its precedence level (index into [`LEVELS`]) and operator.
fn operator(k: Kind) -> Option<(usize, BinaryOp)> {
    LEVELS
        .iter()
        .enumerate()
        .find_map(|(level, ops)| ops.iter().find(|(t, _)| *t == k).map(|(_, op)| (level, *op)))
}

fn opposite(k: Kind) -> Option<Kind> {
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

/// Adds a traversal step, extending the traversal the expression already is.
fn step(e: Expr, s: Step, r: Range) -> Expr {
    let start = e.range.start;
    match e.node {
        Node::Traversal { .. } => {
            let mut e = e;
            if let Node::Traversal { steps, .. } = &mut e.node {
                steps.push(s);
            }
            e.range = start..r.end.max(e.range.end);
            e
        }
        _ => Expr {
            node: Node::Traversal { source: Box::new(e), steps: vec![s] },
            range: start..r.end,
        },
    }
}

/// A template token, after the sequences were parsed.
enum TplTok {
    Lit(String, Range),
    Interp(Expr, Range),
    If(Expr, Range),
    For(Option<String>, String, Expr, Range),
    /// `else`, `endif` or `endfor`.
    End(String, Range),
    EndOfTemplate(Range),
}

/// `~` before a sequence: trims the spaces at the end of the literal before it.
fn trim_last(out: &mut [TplTok]) {
    if let Some(TplTok::Lit(s, _)) = out.last_mut() {
        let t = s.trim_end().len();
        s.truncate(t);
    }
}

/// `<<-`: the smallest indentation of the lines is removed from every line.
fn flush_heredoc(toks: &mut [TplTok]) {
    let mut min = usize::MAX;
    let mut newline = true;
    let mut adjust = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        if newline {
            newline = false;
            match t {
                TplTok::Lit(s, _) => {
                    let trimmed = s.trim_start();
                    let spaces = if trimmed.is_empty() && s.ends_with('\n') {
                        usize::MAX
                    } else {
                        adjust.push(i);
                        s[..s.len() - trimmed.len()].chars().count()
                    };
                    min = min.min(spaces);
                }
                TplTok::EndOfTemplate(_) => break,
                _ => min = 0,
            }
        }
        if let TplTok::Lit(s, _) = t
            && s.ends_with('\n')
        {
            newline = true;
        }
    }
    if min == usize::MAX {
        return;
    }
    for i in adjust {
        if let Some(TplTok::Lit(s, r)) = toks.get_mut(i) {
            let cut: usize = s.chars().take(min).map(char::len_utf8).sum();
            s.replace_range(..cut, "");
            r.start += cut;
        }
    }
}

/// Consecutive literals become one.
fn meld(toks: &mut Vec<TplTok>) {
    let mut out: Vec<TplTok> = Vec::with_capacity(toks.len());
    for t in toks.drain(..) {
        if let (TplTok::Lit(s, r), Some(TplTok::Lit(ps, pr))) = (&t, out.last_mut()) {
            ps.push_str(s);
            pr.end = r.end;
            continue;
        }
        out.push(t);
    }
    *toks = out;
}

/// Builds the parts of a template from its tokens: `if` and `for` directives take the
/// parts up to their `endif`/`endfor`.
struct TemplateParser<'a, 'p> {
    toks: Vec<TplTok>,
    pos: usize,
    errors: Vec<SyntaxError>,
    places: &'p Places<'a>,
    /// Nesting, directives included (they nest like brackets).
    depth: usize,
    /// Set when the template was too deep to read: the directives left open are not
    /// reported one by one.
    abandoned: bool,
}

impl TemplateParser<'_, '_> {
    fn error(&mut self, summary: &str, detail: impl Into<String>, range: Range) {
        self.errors.push(SyntaxError { summary: summary.into(), detail: detail.into(), range });
    }

    fn root(&mut self) -> Vec<Part> {
        let mut out = Vec::new();
        loop {
            if matches!(self.toks.get(self.pos), Some(TplTok::EndOfTemplate(_)) | None) {
                break;
            }
            if let Some(p) = self.part() {
                out.push(p);
            }
        }
        out
    }

    fn take(&mut self) -> TplTok {
        let t = std::mem::replace(&mut self.toks[self.pos], TplTok::Lit(String::new(), 0..0));
        self.pos += 1;
        t
    }

    fn position(&self, r: &Range) -> String {
        self.places.range_string(r)
    }

    fn part(&mut self) -> Option<Part> {
        match self.toks.get(self.pos) {
            Some(TplTok::Lit(..)) => match self.take() {
                TplTok::Lit(s, r) => Some(Part::Lit(s, r)),
                _ => None,
            },
            Some(TplTok::Interp(..)) => match self.take() {
                TplTok::Interp(e, r) => Some(Part::Interp(e, r)),
                _ => None,
            },
            Some(TplTok::If(..) | TplTok::For(..)) if self.depth >= MAX_DEPTH => {
                let r = match self.take() {
                    TplTok::If(_, r) | TplTok::For(_, _, _, r) => r,
                    _ => 0..0,
                };
                self.error(
                    "Nesting too deep",
                    format!(
                        "Expressions and blocks may be nested at most {MAX_DEPTH} levels deep."
                    ),
                    r,
                );
                // The rest of the template is not read, nor reported on.
                self.pos = self.toks.len().saturating_sub(1);
                self.abandoned = true;
                None
            }
            Some(TplTok::If(..)) => {
                self.depth += 1;
                let p = self.if_directive();
                self.depth -= 1;
                p
            }
            Some(TplTok::For(..)) => {
                self.depth += 1;
                let p = self.for_directive();
                self.depth -= 1;
                p
            }
            Some(TplTok::End(..)) => {
                let TplTok::End(word, r) = self.take() else { return None };
                self.error(
                    &format!("Unexpected {word} directive"),
                    "The control directives within this template are unbalanced.",
                    r,
                );
                None
            }
            Some(TplTok::EndOfTemplate(r)) => {
                let r = r.clone();
                self.error(
                    "Unexpected end of template",
                    "The control directives within this template are unbalanced.",
                    r,
                );
                None
            }
            None => None,
        }
    }

    fn if_directive(&mut self) -> Option<Part> {
        let TplTok::If(cond, open) = self.take() else { return None };
        let (mut yes, mut no) = (Vec::new(), Vec::new());
        let mut in_else = false;
        let endif;
        loop {
            match self.toks.get(self.pos) {
                Some(TplTok::EndOfTemplate(_)) | None => {
                    if self.abandoned {
                        return None;
                    }
                    let at = self.position(&open);
                    let end = match self.toks.get(self.pos) {
                        Some(TplTok::EndOfTemplate(r)) => r.clone(),
                        _ => open.clone(),
                    };
                    self.error(
                        "Unexpected end of template",
                        format!(
                            "The if directive at {at} is missing its corresponding endif directive."
                        ),
                        end,
                    );
                    return None;
                }
                Some(TplTok::End(..)) => {
                    let TplTok::End(word, r) = self.take() else { return None };
                    match word.as_str() {
                        "else" if !in_else => {
                            in_else = true;
                            continue;
                        }
                        "else" => {
                            let at = self.position(&open);
                            self.error(
                                "Unexpected else directive",
                                format!("Already in the else clause for the if started at {at}."),
                                r,
                            );
                        }
                        "endif" => {
                            endif = r;
                            break;
                        }
                        other => {
                            let at = self.position(&open);
                            self.error(
                                &format!("Unexpected {other} directive"),
                                format!("Expecting an endif directive for the if started at {at}."),
                                r,
                            );
                        }
                    }
                    return None;
                }
                _ => {
                    if let Some(p) = self.part() {
                        if in_else { no.push(p) } else { yes.push(p) }
                    }
                }
            }
        }
        let r = range(&open, &endif);
        Some(Part::If { cond, yes, no, range: r })
    }

    fn for_directive(&mut self) -> Option<Part> {
        let TplTok::For(key_var, value_var, collection, open) = self.take() else { return None };
        let mut body = Vec::new();
        let endfor;
        loop {
            match self.toks.get(self.pos) {
                Some(TplTok::EndOfTemplate(_)) | None => {
                    if self.abandoned {
                        return None;
                    }
                    let at = self.position(&open);
                    let end = match self.toks.get(self.pos) {
                        Some(TplTok::EndOfTemplate(r)) => r.clone(),
                        _ => open.clone(),
                    };
                    self.error(
                        "Unexpected end of template",
                        format!("The for directive at {at} is missing its corresponding endfor directive."),
                        end,
                    );
                    return None;
                }
                Some(TplTok::End(..)) => {
                    let TplTok::End(word, r) = self.take() else { return None };
                    match word.as_str() {
                        "endfor" => {
                            endfor = r;
                            break;
                        }
                        "else" => self.error(
                            "Unexpected else directive",
                            "An else clause is not expected for a for directive.",
                            r,
                        ),
                        other => {
                            let at = self.position(&open);
                            self.error(
                                &format!("Unexpected {other} directive"),
                                format!("Expecting an endfor directive corresponding to the for directive at {at}."),
                                r,
                            );
                        }
                    }
                    return None;
                }
                _ => {
                    if let Some(p) = self.part() {
                        body.push(p);
                    }
                }
            }
        }
        let r = range(&open, &endfor);
        Some(Part::For { key_var, value_var, collection, body, range: r })
    }
}

/// Lines and columns of one text, for the messages that name another place in it. The
/// line starts are found once, on first use, and a column is counted on from the last one
/// asked for on the same line: thousands of such messages stay linear in the text.
struct Places<'a> {
    src: &'a str,
    starts: std::cell::OnceCell<Vec<usize>>,
    /// The last answer: (its line's start, its offset, its 0-based column).
    last: std::cell::Cell<Option<(usize, usize, usize)>>,
}

impl<'a> Places<'a> {
    fn new(src: &'a str) -> Self {
        Places { src, starts: std::cell::OnceCell::new(), last: std::cell::Cell::new(None) }
    }

    /// HCL's `file:line,col-col` (or `file:line,col-line,col`) of a range, as its messages
    /// name another place; `{file}` stands for the file's path, which the caller knows.
    fn range_string(&self, r: &Range) -> String {
        let (l1, c1) = self.line_col(r.start);
        let (l2, c2) = self.line_col(r.end);
        if l1 == l2 {
            format!("{{file}}:{l1},{c1}-{c2}")
        } else {
            format!("{{file}}:{l1},{c1}-{l2},{c2}")
        }
    }

    /// 1-based line and column of a byte offset, as HCL counts them (see [`columns`]).
    fn line_col(&self, at: usize) -> (usize, usize) {
        let src = self.src;
        let at = at.min(src.len());
        let starts = self.starts.get_or_init(|| {
            std::iter::once(0).chain(src.match_indices('\n').map(|(i, _)| i + 1)).collect()
        });
        let line = match starts.binary_search(&at) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        };
        let start = starts.get(line).copied().unwrap_or(0);
        let col = match self.last.get() {
            Some((s, from, col)) if s == start && from <= at => {
                col + columns(src.get(from..at).unwrap_or(""), from == 0)
            }
            _ => columns(src.get(start..at).unwrap_or(""), start == 0),
        };
        self.last.set(Some((start, at, col)));
        (line + 1, col + 1)
    }
}

/// How many columns a line's text up to some point takes, as HCL counts them: grapheme
/// clusters (a letter and its combining accent, an emoji sequence joined by zero-width
/// joiners, are one), and on the first line a byte order mark is none.
pub fn columns(line: &str, first_line: bool) -> usize {
    use unicode_segmentation::UnicodeSegmentation;
    let line = if first_line { line.strip_prefix('\u{feff}').unwrap_or(line) } else { line };
    line.graphemes(true).count()
}

/// A string as Go's `%q` shows it, without the quotes (for the few messages that quote
/// user text that way).
pub fn go_quote_inner(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out
}

/// A template literal's text with its escapes resolved (HCL's `ParseStringLiteralToken`):
/// backslash escapes in quoted strings, `$${` and `%%{` everywhere.
pub fn unescape(text: &str, at: usize, quoted: bool) -> (String, Vec<SyntaxError>) {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut errors = Vec::new();
    let mut i = 0;
    let mut lit_start = 0;
    let flush = |out: &mut String, from: usize, to: usize| {
        if let Some(s) = text.get(from..to) {
            out.push_str(s);
        }
    };
    while i < b.len() {
        match b[i] {
            b'\\' if quoted => {
                flush(&mut out, lit_start, i);
                let start = i;
                let Some(&sel) = b.get(i + 1) else {
                    errors.push(SyntaxError {
                        summary: "Invalid escape sequence".into(),
                        detail:
                            "Backslash must be followed by an escape sequence selector character."
                                .into(),
                        range: at + i..at + i + 1,
                    });
                    out.push('\\');
                    i += 1;
                    lit_start = i;
                    continue;
                };
                match sel {
                    b'n' => out.push('\n'),
                    b'r' => out.push('\r'),
                    b't' => out.push('\t'),
                    b'"' => out.push('"'),
                    b'\\' => out.push('\\'),
                    b'u' | b'U' => {
                        let max = if sel == b'u' { 4 } else { 8 };
                        let mut j = i + 2;
                        while j < b.len() && j < i + 2 + max && b[j].is_ascii_hexdigit() {
                            j += 1;
                        }
                        let slice = &text[i..j];
                        i = j;
                        lit_start = i;
                        if j - start - 2 != max {
                            errors.push(SyntaxError {
                                summary: "Invalid escape sequence".into(),
                                detail: if sel == b'u' {
                                    "The \\u escape sequence must be followed by four hexadecimal digits.".into()
                                } else {
                                    "The \\U escape sequence must be followed by eight hexadecimal digits.".into()
                                },
                                range: at + start..at + j,
                            });
                            out.push_str(slice);
                            continue;
                        }
                        let n = u32::from_str_radix(&slice[2..], 16).unwrap_or(u32::MAX);
                        match char::from_u32(n) {
                            Some(c) => out.push(c),
                            None => {
                                errors.push(SyntaxError {
                                    summary: "Invalid escape sequence".into(),
                                    detail: format!("Cannot encode character U+{n:04x} in UTF-8."),
                                    range: at + start..at + j,
                                });
                                out.push_str(slice);
                            }
                        }
                        continue;
                    }
                    _ => {
                        let n = text[i + 1..].chars().next().map_or(1, char::len_utf8);
                        let sym = &text[i + 1..i + 1 + n];
                        errors.push(SyntaxError {
                            summary: "Invalid escape sequence".into(),
                            detail: format!(
                                "The symbol \"{}\" is not a valid escape sequence selector.",
                                go_quote_inner(sym)
                            ),
                            range: at + i..at + i + 1 + n,
                        });
                        out.push_str(sym);
                        i += 1 + n;
                        lit_start = i;
                        continue;
                    }
                }
                i += 2;
                lit_start = i;
            }
            b'$' | b'%' if b.get(i + 1) == Some(&b[i]) && b.get(i + 2) == Some(&b'{') => {
                flush(&mut out, lit_start, i);
                out.push(b[i] as char);
                out.push('{');
                i += 3;
                lit_start = i;
            }
            _ => i += 1,
        }
    }
    flush(&mut out, lit_start, b.len());
    (out, errors)
}

/// One step of an absolute traversal as [`parse_traversal_abs`] reads it: a name (the root
/// or an attribute), or an index (`None`), with its range.
pub type TraversalStep = (Option<String>, Range);

/// HCL's `ParseTraversalAbs`: the text of a string read as a reference (a quoted reference,
/// a JSON string). What it read before an error is kept, as HCL keeps it; the errors are
/// the scanner's token checks, then the first syntax error.
pub fn parse_traversal_abs(src: &str) -> (Vec<TraversalStep>, Vec<SyntaxError>) {
    let tokens: Vec<Token> = scan(src.as_bytes(), Mode::Normal)
        .into_iter()
        .filter(|t| !matches!(t.kind, Kind::Comment | Kind::Newline))
        .collect();
    let mut errors = super::scan::invalid_tokens(src.as_bytes(), &tokens);
    let text = |t: &Token| String::from_utf8_lossy(t.text(src.as_bytes())).into_owned();
    let eof = Token { kind: Kind::Eof, start: src.len(), end: src.len() };
    let at = |i: usize| tokens.get(i).copied().unwrap_or(eof);
    let mut err = |summary: &str, detail: &str, t: Token| {
        // HCL's end-of-input token is one byte wide.
        let end = if t.kind == Kind::Eof { t.start + 1 } else { t.end };
        errors.push(SyntaxError {
            summary: summary.into(),
            detail: detail.into(),
            range: t.start..end,
        })
    };
    let mut out = Vec::new();
    let root = at(0);
    if root.kind != Kind::Ident {
        err("Variable name required", "Must begin with a variable name.", root);
        return (out, errors);
    }
    out.push((Some(text(&root)), root.start..root.end));
    let mut i = 1;
    loop {
        let next = at(i);
        match next.kind {
            Kind::Eof => break,
            Kind::Dot => {
                let name = at(i + 1);
                i += 2;
                if name.kind != Kind::Ident {
                    let detail = if name.kind == Kind::Star {
                        "Splat expressions (.*) may not be used here."
                    } else {
                        "Dot must be followed by attribute name."
                    };
                    err("Attribute name required", detail, name);
                    break;
                }
                out.push((Some(text(&name)), next.start..name.end));
            }
            Kind::OBrack => {
                let key = at(i + 1);
                let close = match key.kind {
                    Kind::NumberLit => {
                        i += 2;
                        at(i)
                    }
                    Kind::OQuote => {
                        i += 2;
                        while matches!(at(i).kind, Kind::QuotedLit) {
                            i += 1;
                        }
                        if at(i).kind != Kind::CQuote {
                            err(
                                "Invalid string literal",
                                "Template sequences are not allowed in this string. To include a literal \"$\", double it (as \"$$\") to escape it.",
                                at(i),
                            );
                            break;
                        }
                        i += 1;
                        at(i)
                    }
                    Kind::Star => {
                        err(
                            "Attribute name required",
                            "Splat expressions ([*]) may not be used here.",
                            key,
                        );
                        break;
                    }
                    _ => {
                        err(
                            "Index value required",
                            "Index brackets must contain either a literal number or a literal string.",
                            key,
                        );
                        break;
                    }
                };
                i += 1;
                if close.kind != Kind::CBrack {
                    err(
                        "Unclosed index brackets",
                        "Index key must be followed by a closing bracket.",
                        close,
                    );
                    out.push((None, next.start..close.end));
                    break;
                }
                out.push((None, next.start..close.end));
            }
            _ => {
                err(
                    "Invalid character",
                    "Expected an attribute access or an index operator.",
                    next,
                );
                break;
            }
        }
    }
    (out, errors)
}
