//! Expressions: conditionals, operators by precedence, terms, function calls, tuples,
//! objects and `for` expressions.

use crate::ast::*;
use crate::scan::{Kind, Token};

use super::parser::{Parser, range, tr};

impl<'a> Parser<'a> {
    /// An expression: operators and the conditional, around terms. Few stack frames per
    /// level of nesting (expression, operators, term, bracket), so deep input stays cheap.
    pub(super) fn expression(&mut self) -> Expr {
        let at = tr(self.peek());
        if !self.enter(at.clone()) {
            return Expr { node: Node::Invalid, range: at };
        }
        let e = self.conditional(at);
        self.depth -= 1;
        e
    }

    pub(super) fn conditional(&mut self, start: Range) -> Expr {
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
    pub(super) fn binary(&mut self, min: usize) -> Expr {
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

    pub(super) fn number(&mut self, t: Token) -> Expr {
        let text = self.text(t);
        if crate::number::parse(text).is_none() {
            self.error(
                "Invalid number literal",
                "Failed to recognize the value of this number literal.",
                tr(t),
            );
            return Expr { node: Node::Invalid, range: tr(t) };
        }
        Expr { node: Node::Number(text.to_string()), range: tr(t) }
    }

    pub(super) fn term(&mut self) -> Expr {
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

    pub(super) fn call(&mut self, name: Token) -> Expr {
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
            node: Node::Call(Box::new(Call {
                name: full_name,
                name_range: name.start..name_end,
                args,
                expand,
            })),
            range: range(&tr(name), &tr(close)),
        }
    }

    pub(super) fn tuple(&mut self) -> Expr {
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

    pub(super) fn is_keyword(&self, t: Token, word: &str) -> bool {
        t.kind == Kind::Ident && self.text(t) == word
    }

    pub(super) fn object(&mut self) -> Expr {
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

    pub(super) fn object_rest(&mut self, open: Token) -> Expr {
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

    pub(super) fn for_expr(&mut self, open: Token) -> Expr {
        self.peek.nl.push(false);
        let e = self.for_rest(open);
        self.peek.nl.pop();
        e
    }

    pub(super) fn for_failed(&mut self, open: Token, close_kind: Kind) -> Expr {
        let close = self.recover(close_kind);
        Expr { node: Node::Invalid, range: range(&tr(open), &tr(close)) }
    }

    pub(super) fn for_rest(&mut self, open: Token) -> Expr {
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
}

/// The operators of each precedence level, lowest first.
pub(super) const LEVELS: [&[(Kind, BinaryOp)]; 6] = [
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
pub(super) fn operator(k: Kind) -> Option<(usize, BinaryOp)> {
    LEVELS
        .iter()
        .enumerate()
        .find_map(|(level, ops)| ops.iter().find(|(t, _)| *t == k).map(|(_, op)| (level, *op)))
}
