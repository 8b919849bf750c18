//! Bodies, attributes and blocks: a configuration file's structure.

use crate::ast::*;
use crate::scan::{Kind, Token};

use super::literal::{go_quote_inner, unescape};
use super::parser::{Parser, Seen, range, tr};

impl<'a> Parser<'a> {
    pub(super) fn body(&mut self, end: Kind) -> Body {
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

    pub(super) fn body_item(&mut self) -> Option<Item> {
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

    pub(super) fn attribute(&mut self, ident: Token, single_line: bool) -> Attribute {
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

    pub(super) fn block(&mut self, ident: Token) -> Option<Block> {
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
            _ => self.one_line_block(o_brace),
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

    /// A one-line block with a single argument, `a { b = 1 }`, after its `{`.
    fn one_line_block(&mut self, o_brace: Token) -> Body {
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

    pub(super) fn single_attr_body(&mut self) -> Option<Body> {
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
    pub(super) fn quoted_string_literal(&mut self) -> (String, Range) {
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
}
