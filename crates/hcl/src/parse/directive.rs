//! Template directives: the parts of a template from its tokens, with `%{ if }` and
//! `%{ for }` taking the parts up to their `endif` / `endfor`.

use crate::ast::*;
use crate::error::SyntaxError;

use super::parser::{MAX_DEPTH, Places, range};

/// A template token, after the sequences were parsed.
pub(super) enum TplTok {
    Lit(String, Range),
    Interp(Expr, Range),
    If(Expr, Range),
    For(Option<String>, String, Expr, Range),
    /// `else`, `endif` or `endfor`.
    End(String, Range),
    EndOfTemplate(Range),
}

/// Builds the parts of a template from its tokens: `if` and `for` directives take the
/// parts up to their `endif`/`endfor`.
pub(super) struct TemplateParser<'a, 'p> {
    pub(super) toks: Vec<TplTok>,
    pub(super) pos: usize,
    pub(super) errors: Vec<SyntaxError>,
    pub(super) places: &'p Places<'a>,
    /// Nesting, directives included (they nest like brackets).
    pub(super) depth: usize,
    /// Set when the template was too deep to read: the directives left open are not
    /// reported one by one.
    pub(super) abandoned: bool,
}

impl TemplateParser<'_, '_> {
    pub(super) fn error(&mut self, summary: &str, detail: impl Into<String>, range: Range) {
        self.errors.push(SyntaxError { summary: summary.into(), detail: detail.into(), range });
    }

    pub(super) fn root(&mut self) -> Vec<Part> {
        // At most a part per token left (a string literal is one), not the room for four
        // that pushing onto an empty list makes: every string of a file is a template.
        let mut out = Vec::with_capacity(self.toks.len().saturating_sub(self.pos + 1));
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

    pub(super) fn take(&mut self) -> TplTok {
        let t = std::mem::replace(&mut self.toks[self.pos], TplTok::Lit(String::new(), 0..0));
        self.pos += 1;
        t
    }

    pub(super) fn position(&self, r: &Range) -> String {
        self.places.range_string(r)
    }

    pub(super) fn part(&mut self) -> Option<Part> {
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

    pub(super) fn if_directive(&mut self) -> Option<Part> {
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
        Some(Part::If(Box::new(IfPart { cond, yes, no, range: r })))
    }

    pub(super) fn for_directive(&mut self) -> Option<Part> {
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
        Some(Part::For(Box::new(ForPart { key_var, value_var, collection, body, range: r })))
    }
}
