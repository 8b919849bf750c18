//! Templates: quoted strings and heredocs read into literal and interpolation tokens,
//! `~` trimming and `<<-` indentation, then handed to the directive reader.

use crate::ast::*;
use crate::scan::{Kind, Token};

use super::directive::{TemplateParser, TplTok};
use super::literal::{go_quote_inner, unescape};
use super::parser::{Parser, range, tr};

impl<'a> Parser<'a> {
    /// A template's parts up to `end`: (parts, whether it is exactly one interpolation,
    /// its range).
    pub(super) fn template_inner(&mut self, end: Kind, flush: bool) -> (Vec<Part>, bool, Range) {
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

    pub(super) fn template_tokens(&mut self, end: Kind) -> (Vec<TplTok>, Range) {
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
                Kind::TemplateInterp | Kind::TemplateControl => {
                    // `~` after the opening: the literal before loses its trailing spaces.
                    if can_trim_prev && next.end - next.start == 3 {
                        trim_last(&mut out);
                    }
                    self.peek.nl.push(false);
                    if next.kind == Kind::TemplateInterp {
                        let (tok, trim) = self.interpolation(next, &start, end);
                        out.push(tok);
                        ltrim_next = trim;
                    } else if let Some((tok, word)) = self.directive(next) {
                        out.push(tok);
                        ltrim_next = self.directive_end(word);
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

    /// `${ expr }` after its opening `next`, in a template that began at `start` and ends
    /// with `end`: the token, and whether it closes with `~}` (the literal after it is
    /// trimmed).
    fn interpolation(&mut self, next: Token, start: &Range, end: Kind) -> (TplTok, bool) {
        let expr = self.expression();
        let close = self.peek();
        let mut trim = false;
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
            trim = close.end - close.start == 2;
        }
        (TplTok::Interp(expr, range(&tr(next), &tr(close))), trim)
    }

    /// `%{ if … }`, `%{ for … }`, `%{ else }`, `%{ endif }`, `%{ endfor }` after its
    /// opening `next`, up to its closing brace: the token and its keyword, or `None` after
    /// an error (reported, and recovered past the sequence).
    fn directive(&mut self, next: Token) -> Option<(TplTok, &'a str)> {
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
            return None;
        }
        self.read();
        let word = self.text(kw);
        let tok = match word {
            "if" => {
                let cond = self.expression();
                TplTok::If(cond, range(&tr(next), &tr(self.peek())))
            }
            "else" | "endif" | "endfor" => {
                TplTok::End(word.to_string(), range(&tr(next), &tr(self.peek())))
            }
            "for" => self.for_directive(next)?,
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
                return None;
            }
        };
        Some((tok, word))
    }

    /// `for [key,] value in collection` after `%{`.
    fn for_directive(&mut self, next: Token) -> Option<TplTok> {
        let directive_error = |p: &mut Self, detail: &str| {
            if !p.recovery {
                let at = tr(p.peek());
                p.error("Invalid 'for' directive", detail, at);
            }
            p.recover(Kind::TemplateSeqEnd);
            None
        };
        if self.peek().kind != Kind::Ident {
            return directive_error(self, "For directive requires variable name after 'for'.");
        }
        let t = self.read();
        let mut value_var = self.text(t).to_string();
        let mut key_var = None;
        if self.peek().kind == Kind::Comma {
            key_var = Some(value_var);
            self.read();
            if self.peek().kind != Kind::Ident {
                return directive_error(
                    self,
                    "For directive requires value variable name after comma.",
                );
            }
            let t = self.read();
            value_var = self.text(t).to_string();
        }
        if !self.is_keyword(self.peek(), "in") {
            return directive_error(self, "For directive requires 'in' keyword after names.");
        }
        self.read();
        let collection = self.expression();
        let r = range(&tr(next), &tr(self.peek()));
        Some(TplTok::For(key_var, value_var, collection, r))
    }

    /// The closing brace of a directive (`word`'s): whether it is `~}` (the literal after
    /// it is trimmed), or an error and recovery past it.
    fn directive_end(&mut self, word: &str) -> bool {
        let close = self.peek();
        if close.kind == Kind::TemplateSeqEnd {
            self.read();
            return close.end - close.start == 2;
        }
        if !self.recovery {
            self.error(
                &format!("Extra characters in {word} marker"),
                "Expected a closing brace to end the sequence, but found extra characters.",
                tr(close),
            );
        }
        self.recover(Kind::TemplateSeqEnd);
        false
    }
}

/// `~` before a sequence: trims the spaces at the end of the literal before it.
pub(super) fn trim_last(out: &mut [TplTok]) {
    if let Some(TplTok::Lit(s, _)) = out.last_mut() {
        let t = s.trim_end().len();
        s.truncate(t);
    }
}

/// `<<-`: the smallest indentation of the lines is removed from every line.
pub(super) fn flush_heredoc(toks: &mut [TplTok]) {
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
pub(super) fn meld(toks: &mut Vec<TplTok>) {
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
