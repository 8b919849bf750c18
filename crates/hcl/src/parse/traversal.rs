//! Traversals: attribute access, indexes and splats after a term, and HCL's
//! `ParseTraversalAbs` for references written as strings.

use crate::ast::*;
use crate::error::SyntaxError;
use crate::scan::{Kind, Mode, Token, scan};

use super::parser::{Parser, range, tr};

impl<'a> Parser<'a> {
    /// Attribute access, indexes and splats after a term.
    pub(super) fn traversals(&mut self, from: Expr) -> Expr {
        let mut ret = from;
        loop {
            ret = match self.peek().kind {
                Kind::Dot => self.after_dot(ret),
                Kind::OBrack => match self.after_bracket(ret) {
                    Ok(e) => e,
                    Err(invalid) => return invalid,
                },
                _ => return ret,
            };
        }
    }

    /// `.name`, `.0` (a legacy index) or `.*` after `ret`.
    fn after_dot(&mut self, ret: Expr) -> Expr {
        let dot = self.read();
        let attr = self.peek();
        match attr.kind {
            Kind::Ident => {
                let t = self.read();
                let r = range(&tr(dot), &tr(t));
                step(ret, Step::Attr(self.text(t).to_string(), r.clone()), r)
            }
            Kind::NumberLit => {
                let t = self.read();
                let index = self.legacy_index(dot, t, false, tr(t));
                step(ret, index, range(&tr(dot), &tr(t)))
            }
            Kind::Star => self.attr_splat(ret, dot, attr),
            _ => {
                self.error(
                    "Invalid attribute name",
                    "An attribute name is required after a dot.",
                    tr(attr),
                );
                self.recovery = true;
                let r = ret.range.start..dot.end;
                Expr { node: Node::Invalid, range: r }
            }
        }
    }

    /// An attribute-only splat, `ret.*`: the attribute (or legacy index) steps after it
    /// apply to each element.
    fn attr_splat(&mut self, ret: Expr, dot: Token, attr: Token) -> Expr {
        let marker = self.read();
        let mut each = Vec::new();
        let mut last = tr(marker);
        let mut broken = false;
        while self.peek().kind == Kind::Dot {
            let dot = self.read();
            let n = self.peek();
            if n.kind == Kind::NumberLit {
                let t = self.read();
                each.push(self.legacy_index(dot, t, true, tr(attr)));
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
            each.push(Step::Attr(self.text(t).to_string(), range(&tr(dot), &tr(t))));
            last = tr(t);
        }
        if broken {
            return ret;
        }
        let item = Expr { node: Node::SplatItem, range: range(&tr(dot), &tr(marker)) };
        let each = if each.is_empty() {
            item
        } else {
            let r = item.range.start..last.end;
            Expr { node: Node::Traversal { source: Box::new(item), steps: each }, range: r }
        };
        let r = ret.range.start..last.end;
        Expr { node: Node::Splat { source: Box::new(ret), each: Box::new(each) }, range: r }
    }

    /// A legacy index step, `.0`, the number `t` after `dot`. Two at once (`.1.2`, one
    /// number token) is an error at `at`, worded for a plain traversal or, `in_splat`, for
    /// an attribute-only splat.
    fn legacy_index(&mut self, dot: Token, t: Token, in_splat: bool, at: Range) -> Step {
        let r = range(&tr(dot), &tr(t));
        let Some((a, b)) = self.text(t).split_once('.') else {
            return Step::Index(Box::new(self.number(t)), r);
        };
        let proper = if in_splat {
            "the proper index syntax with a full splat expression [*] instead"
        } else {
            "the proper index syntax instead"
        };
        self.error(
            "Invalid legacy index syntax",
            format!("When using the legacy index syntax, chaining two indexes together is not permitted. Use {proper}, like [{a}][{b}]."),
            at,
        );
        Step::Index(Box::new(Expr { node: Node::Invalid, range: tr(t) }), r)
    }

    /// `[key]` or `[*]` after `ret`; `Err` with the invalid expression when the nesting is
    /// too deep to go on.
    fn after_bracket(&mut self, ret: Expr) -> Result<Expr, Expr> {
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
            let item = Expr { node: Node::SplatItem, range: range(&tr(open), &tr(close)) };
            if !self.enter(item.range.clone()) {
                return Err(Expr { node: Node::Invalid, range: ret.range.start..close.end });
            }
            let each = self.traversals(item);
            self.depth -= 1;
            let r = ret.range.start..each.range.end.max(close.end);
            return Ok(Expr {
                node: Node::Splat { source: Box::new(ret), each: Box::new(each) },
                range: r,
            });
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
        Ok(step(ret, Step::Index(Box::new(key), r.clone()), r))
    }
}

/// Adds a traversal step, extending the traversal the expression already is.
pub(super) fn step(e: Expr, s: Step, r: Range) -> Expr {
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
    let mut errors = crate::code::invalid_tokens(src.as_bytes(), tokens.iter().copied());
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
