//! `terraform fmt`, reproduced: the canonical layout Terraform's formatter gives a
//! native-syntax file. `show --format hcl` prints through it, and `fix` and `fold` use it
//! to leave a file that was canonical still canonical.
//!
//! Terraform formats in two steps, and so do we. First its `fmt` command rewrites a few
//! expressions (an attribute that is a single interpolation `"${x}"` loses its quotes; a
//! variable's legacy type `"string"` or bare `list` becomes `string` or `list(any)`; block
//! labels are quoted). Then HCL's writer changes only whitespace: indentation by bracket
//! depth, one space or none between tokens, and `=` signs and trailing comments aligned
//! over runs of consecutive lines.

use crate::ast::{Body, Item};
use crate::parse::parse_tokens;
use crate::scan::{Kind, Mode, Token, scan};

/// The text as `terraform fmt` writes it, or `None` when it has syntax errors (Terraform
/// does not format such a file either).
pub fn format(src: &str) -> Option<String> {
    let scanned = scan(src.as_bytes(), Mode::Normal);
    let edits = {
        let (body, errors) = parse_tokens(src, &scanned);
        if !errors.is_empty() {
            return None;
        }
        let mut edits = Vec::new();
        rewrites(&body, &mut Vec::new(), src, &scanned, &mut edits);
        edits
    };
    Some(Laid::out(src, &scanned, edits).text())
}

/// Is the text already as `terraform fmt` writes it? (`true` for text with syntax errors:
/// there is nothing canonical to compare with.)
pub fn is_formatted(src: &str) -> bool {
    format(src).is_none_or(|f| f == src)
}

/// [`is_formatted`] for a text its caller knows to parse without errors. Most texts that
/// are not canonical are told so by their whitespace alone, before the parse the rewrites
/// need: canonical text has nothing left for a rewrite to change, so it is also canonical
/// when laid out without them.
pub fn is_formatted_valid(src: &str) -> bool {
    standing(src, &scan(src.as_bytes(), Mode::Normal)) != Standing::Changed
}

/// How a text stands against `terraform fmt`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Standing {
    /// `fmt` would change it.
    Changed,
    /// Canonical, with nothing for `fmt`'s rewrites to do: a text with the same code
    /// tokens (only comments and blank lines differ) needs only the layout, [`lay_out`].
    Plain,
    /// Canonical otherwise: a syntax error, or rewrites that write what is there.
    Canonical,
}

/// How `src`, known to parse without errors and `scanned` ([`Mode::Normal`]), stands.
pub fn standing(src: &str, scanned: &[Token]) -> Standing {
    if !Laid::out(src, scanned, Vec::new()).is(src) {
        return Standing::Changed;
    }
    // Laid out as `fmt` lays it out: canonical unless one of its rewrites is left to make.
    let (body, errors) = parse_tokens(src, scanned);
    if !errors.is_empty() {
        return Standing::Canonical;
    }
    let mut edits = Vec::new();
    rewrites(&body, &mut Vec::new(), src, scanned, &mut edits);
    match edits.is_empty() {
        true => Standing::Plain,
        false if Laid::out(src, scanned, edits).is(src) => Standing::Canonical,
        false => Standing::Changed,
    }
}

/// The text laid out as HCL's writer lays it out, without `fmt`'s rewrites and without
/// parsing it: [`format()`] for a text with the code tokens of a [`Standing::Plain`] one
/// (the rewrites are decided by the code tokens, and it has none to make).
pub fn lay_out(src: &str) -> String {
    Laid::out(src, &scan(src.as_bytes(), Mode::Normal), Vec::new()).text()
}

/// A text's tokens laid out as HCL's writer lays them out.
struct Laid<'a> {
    bom: &'static str,
    toks: Vec<Tok<'a>>,
    /// Spaces written after the last token.
    tail: usize,
}

impl<'a> Laid<'a> {
    /// `scanned` (the tokens of `src`) with `edits` (Terraform's rewrites) applied, laid
    /// out.
    fn out(src: &'a str, scanned: &[Token], mut edits: Vec<Edit<'a>>) -> Laid<'a> {
        let bom = if src.starts_with('\u{feff}') { "\u{feff}" } else { "" };
        // What follows the last token is written back as that many spaces, as HCL's writer
        // does with the gap before its end-of-file token.
        let tail = match scanned.len() {
            n if n >= 2 => scanned[n - 1].start - scanned[n - 2].end,
            _ => src.len() - bom.len(),
        };
        let mut toks: Vec<Tok> =
            scanned.iter().filter(|t| t.kind != Kind::Eof).map(|t| Tok::of(src, t)).collect();
        // Edits never overlap: apply them from the last, so earlier indexes stay valid.
        edits.sort_by_key(|e: &Edit| std::cmp::Reverse(e.from));
        for e in edits {
            toks.splice(e.from..e.to, e.with);
        }
        let lines = lines(&toks);
        indent(&mut toks, &lines);
        spaces(&mut toks, &lines);
        cells(&mut toks, &lines);
        Laid { bom, toks, tail }
    }

    /// The text as laid out.
    fn text(&self) -> String {
        let len = self.toks.iter().map(|t| t.spaces as usize + t.text.len()).sum::<usize>();
        let mut out = String::with_capacity(self.bom.len() + len + self.tail);
        out.push_str(self.bom);
        for t in &self.toks {
            for _ in 0..t.spaces {
                out.push(' ');
            }
            out.push_str(t.text);
        }
        out.extend(std::iter::repeat_n(' ', self.tail));
        out
    }

    /// Is the layout `src`, byte for byte? Stops at the first difference.
    fn is(&self, src: &str) -> bool {
        let Some(mut rest) = src.strip_prefix(self.bom) else { return false };
        for t in &self.toks {
            let n = t.spaces as usize;
            if !rest.get(..n).is_some_and(|sp| sp.bytes().all(|b| b == b' ')) {
                return false;
            }
            let Some(r) = rest[n..].strip_prefix(t.text) else { return false };
            rest = r;
        }
        rest.len() == self.tail && rest.bytes().all(|b| b == b' ')
    }
}

/// A token being laid out: its text (the source's, or one a rewrite wrote) and the spaces
/// written before it.
#[derive(Clone, Copy)]
struct Tok<'a> {
    kind: Kind,
    spaces: u32,
    text: &'a str,
}

impl<'a> Tok<'a> {
    fn new(kind: Kind, text: &'a str) -> Self {
        Tok { kind, spaces: 0, text }
    }

    fn of(src: &'a str, t: &Token) -> Self {
        Tok::new(t.kind, src.get(t.start..t.end).unwrap_or(""))
    }

    /// Columns it takes, spaces before included (characters stand in for grapheme clusters).
    fn columns(&self) -> usize {
        self.spaces as usize + self.text.chars().count()
    }

    fn ends_line(&self) -> bool {
        self.kind == Kind::Newline || (self.kind == Kind::Comment && self.text.ends_with('\n'))
    }
}

/// Replace tokens `from..to` with `with`.
struct Edit<'a> {
    from: usize,
    to: usize,
    with: Vec<Tok<'a>>,
}

/// The index range of the tokens inside byte range `r`.
fn token_range(toks: &[Token], r: &std::ops::Range<usize>) -> (usize, usize) {
    let from = toks.partition_point(|t| t.start < r.start);
    let to = toks.partition_point(|t| t.start < r.end);
    (from, to)
}

/// Terraform's `fmt` command's own rewrites, body by body.
fn rewrites<'a>(
    body: &Body,
    in_blocks: &mut Vec<&'a str>,
    src: &'a str,
    toks: &[Token],
    out: &mut Vec<Edit<'a>>,
) {
    for item in &body.items {
        match item {
            Item::Attr(a) => {
                let (from, to) = token_range(toks, &a.expr.range);
                let Some(first) = toks.get(from) else { continue };
                let is_type =
                    in_blocks.len() == 1 && in_blocks[0] == "variable" && a.name == "type";
                if !is_type && first.kind != Kind::OQuote {
                    continue;
                }
                let expr: Vec<Tok> = toks[from..to].iter().map(|t| Tok::of(src, t)).collect();
                let new = if is_type { type_expr(&expr) } else { value_expr(&expr) };
                if let Some(with) = new {
                    out.push(Edit { from, to, with });
                }
            }
            Item::Block(b) => {
                for (_, range) in &b.labels {
                    let (from, to) = token_range(toks, range);
                    if let [t] = &toks[from..to]
                        && t.kind == Kind::Ident
                    {
                        // An identifier needs no escapes: quoting it is all there is to do.
                        let with = vec![
                            Tok::new(Kind::OQuote, "\""),
                            Tok::of(src, t),
                            Tok::new(Kind::CQuote, "\""),
                        ];
                        out.push(Edit { from, to, with });
                    }
                }
                // Comments between the labels go, as `SetLabels` rebuilds them.
                if let (Some((_, first)), Some((_, last))) = (b.labels.first(), b.labels.last()) {
                    let (from, to) = token_range(toks, &(first.end..last.start));
                    for (i, t) in toks.iter().enumerate().take(to).skip(from) {
                        if t.kind == Kind::Comment {
                            out.push(Edit { from: i, to: i + 1, with: Vec::new() });
                        }
                    }
                }
                let kind = src.get(b.kind_range.clone()).unwrap_or("");
                in_blocks.push(kind);
                rewrites(&b.body, in_blocks, src, toks, out);
                in_blocks.pop();
            }
        }
    }
}

/// `"${x}"` becomes `x` (in parentheses when it spans lines): Terraform's
/// `formatValueExpr`.
fn value_expr<'a>(t: &[Tok<'a>]) -> Option<Vec<Tok<'a>>> {
    let n = t.len();
    if n < 5
        || t[0].kind != Kind::OQuote
        || t[1].kind != Kind::TemplateInterp
        || t[n - 2].kind != Kind::TemplateSeqEnd
        || t[n - 1].kind != Kind::CQuote
    {
        return None;
    }
    let inside = &t[2..n - 2];
    let mut quotes = 0i32;
    for tok in inside {
        match tok.kind {
            Kind::OQuote => quotes += 1,
            Kind::CQuote => quotes -= 1,
            _ if quotes > 0 => {}
            Kind::TemplateInterp | Kind::TemplateSeqEnd | Kind::QuotedLit => return None,
            _ => {}
        }
    }
    let first = inside.iter().position(|t| t.kind != Kind::Newline).unwrap_or(inside.len());
    let last = inside.iter().rposition(|t| t.kind != Kind::Newline).map_or(first, |i| i + 1);
    let trimmed = &inside[first..last.max(first)];
    let (mut multi, mut lead, mut trail) = (false, false, false);
    for (i, tok) in trimmed.iter().enumerate() {
        if i == 0 && tok.kind == Kind::OParen {
            lead = true;
        } else if tok.kind == Kind::Newline {
            multi = true;
        } else if i + 1 == trimmed.len() && tok.kind == Kind::CParen {
            trail = true;
        }
    }
    let mut out = trimmed.to_vec();
    if multi && !(lead && trail) {
        out.insert(0, Tok::new(Kind::OParen, "("));
        out.push(Tok::new(Kind::CParen, ")"));
    }
    Some(out)
}

/// A variable's type: bare `list`/`map`/`set` get `(any)`, legacy quoted `"string"`,
/// `"list"` and `"map"` become `string`, `list(string)`, `map(string)`: Terraform's
/// `formatTypeExpr`.
fn type_expr<'a>(t: &[Tok<'a>]) -> Option<Vec<Tok<'a>>> {
    let call = |name: &'static str, arg: &'static str| {
        Some(vec![
            Tok::new(Kind::Ident, name),
            Tok::new(Kind::OParen, "("),
            Tok::new(Kind::Ident, arg),
            Tok::new(Kind::CParen, ")"),
        ])
    };
    match t {
        [k] if k.kind == Kind::Ident => match k.text {
            "list" => call("list", "any"),
            "map" => call("map", "any"),
            "set" => call("set", "any"),
            _ => None,
        },
        [o, s, c]
            if o.kind == Kind::OQuote && s.kind == Kind::QuotedLit && c.kind == Kind::CQuote =>
        {
            match s.text {
                "string" => Some(vec![Tok::new(Kind::Ident, "string")]),
                "list" => call("list", "string"),
                "map" => call("map", "string"),
                _ => None,
            }
        }
        _ => None,
    }
}

/// One line's cells, as token index ranges: everything up to the `=` of an attribute
/// (`lead`), the `=` and the value (`assign`), a trailing line comment (`comment`).
#[derive(Clone, Copy, Default)]
struct Line {
    lead: (usize, usize),
    assign: Option<(usize, usize)>,
    comment: Option<usize>,
}

fn lines(toks: &[Tok]) -> Vec<Line> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, t) in toks.iter().enumerate() {
        if t.ends_line() {
            out.push(Line { lead: (start, i + 1), ..Line::default() });
            start = i + 1;
        }
    }
    if start < toks.len() {
        out.push(Line { lead: (start, toks.len()), ..Line::default() });
    }
    for line in &mut out {
        let (s, mut e) = line.lead;
        if e - s > 1 && toks[e - 1].kind == Kind::Comment {
            line.comment = Some(e - 1);
            e -= 1;
            line.lead.1 = e;
        }
        if let Some(eq) = (s + 1..e).find(|&i| toks[i].kind == Kind::Equal) {
            let net: i32 = toks[eq..e].iter().map(|t| bracket_change(t.kind)).sum();
            if net == 0 {
                line.assign = Some((eq, e));
                line.lead.1 = eq;
            }
        }
    }
    out
}

fn bracket_change(k: Kind) -> i32 {
    match k {
        Kind::OBrace
        | Kind::OBrack
        | Kind::OParen
        | Kind::TemplateControl
        | Kind::TemplateInterp => 1,
        Kind::CBrace | Kind::CBrack | Kind::CParen | Kind::TemplateSeqEnd => -1,
        _ => 0,
    }
}

/// Indentation: two spaces per level of brackets left open by earlier lines (HCL's
/// `formatIndent`, which remembers how many brackets each line opened).
fn indent(toks: &mut [Tok], lines: &[Line]) {
    let mut stack: Vec<i32> = Vec::new();
    for line in lines {
        let (s, e) = line.lead;
        if s == e {
            continue;
        }
        if toks[s].kind == Kind::Newline {
            toks[s].spaces = 0;
            continue;
        }
        let mut net = 0;
        for t in &toks[s..e] {
            net += bracket_change(t.kind);
            if t.kind == Kind::OHeredoc {
                break;
            }
        }
        if let Some((a, b)) = line.assign {
            net += toks[a..b].iter().map(|t| bracket_change(t.kind)).sum::<i32>();
        }
        if net > 0 {
            toks[s].spaces = 2 * stack.len() as u32;
            stack.push(net);
            continue;
        }
        let mut closed = -net;
        while closed > 0 {
            let Some(top) = stack.last_mut() else { break };
            if closed > *top {
                closed -= *top;
                stack.pop();
            } else if closed < *top {
                *top -= closed;
                closed = 0;
            } else {
                stack.pop();
                closed = 0;
            }
        }
        toks[s].spaces = 2 * stack.len() as u32;
    }
}

/// Spaces between the tokens of each cell (HCL's `formatSpaces`).
fn spaces(toks: &mut [Tok], lines: &[Line]) {
    let cell = |toks: &mut [Tok], (s, e): (usize, usize), first_gets_one: bool| {
        if first_gets_one && s < e {
            toks[s].spaces = 1;
        }
        for i in s..e.saturating_sub(1) {
            let before = (i > s).then(|| toks[i - 1].kind);
            let one = space_after(&toks[i], before, &toks[i + 1]);
            toks[i + 1].spaces = u32::from(one);
        }
    };
    for line in lines {
        cell(toks, line.lead, false);
        if let Some(a) = line.assign {
            cell(toks, a, true);
        }
    }
}

/// HCL's `spaceAfterToken`: does `after` get a space when it follows `subject`?
fn space_after(subject: &Tok, before: Option<Kind>, after: &Tok) -> bool {
    use Kind as K;
    let (s, a) = (subject.kind, after.kind);
    let template = |k: Kind| matches!(k, K::QuotedLit | K::StringLit);
    if a == K::Newline {
        return false;
    }
    if s == K::Ident && a == K::OParen {
        return false;
    }
    if (s == K::Ident && a == K::DoubleColon) || (s == K::DoubleColon && a == K::Ident) {
        return false;
    }
    if s == K::Dot || a == K::Dot {
        return false;
    }
    if a == K::Comma || a == K::Ellipsis {
        return false;
    }
    if s == K::Comma {
        return true;
    }
    if template(s)
        || s == K::OQuote
        || s == K::OHeredoc
        || template(a)
        || a == K::CQuote
        || a == K::CHeredoc
    {
        return false;
    }
    if s == K::Ident && subject.text == "in" && before == Some(K::Ident) {
        return true;
    }
    if a == K::OBrack && (s == K::Ident || s == K::NumberLit || bracket_change(s) < 0) {
        return false;
    }
    if s == K::Bang {
        return false;
    }
    if s == K::Minus {
        return !matches!(
            before,
            None | Some(
                K::OParen
                    | K::OBrace
                    | K::OBrack
                    | K::Equal
                    | K::Colon
                    | K::Comma
                    | K::Question
                    | K::Plus
                    | K::Star
                    | K::Slash
                    | K::Percent
                    | K::Minus
                    | K::EqualOp
                    | K::NotEqual
                    | K::GreaterThan
                    | K::GreaterThanEq
                    | K::LessThan
                    | K::LessThanEq
                    | K::And
                    | K::Or
                    | K::Bang
            )
        );
    }
    if s == K::OBrace || a == K::CBrace {
        return !(s == K::OBrace && a == K::CBrace);
    }
    if matches!(s, K::TemplateInterp | K::TemplateControl) && a == K::OBrace {
        return true;
    }
    if s == K::CBrace && a == K::TemplateSeqEnd {
        return true;
    }
    if s == K::TemplateSeqEnd && matches!(a, K::TemplateInterp | K::TemplateControl) {
        return false;
    }
    if bracket_change(s) > 0 || bracket_change(a) < 0 {
        return false;
    }
    true
}

/// Aligns `=` signs, then trailing comments, over runs of consecutive lines that have
/// them (HCL's `formatCells`).
fn cells(toks: &mut [Tok], lines: &[Line]) {
    let width =
        |toks: &[Tok], (s, e): (usize, usize)| toks[s..e].iter().map(Tok::columns).sum::<usize>();
    let mut run: Vec<&Line> = Vec::new();
    let close = |toks: &mut [Tok], run: &mut Vec<&Line>| {
        let max = run.iter().map(|l| width(toks, l.lead)).max().unwrap_or(0);
        for l in run.drain(..) {
            if let Some((a, _)) = l.assign {
                toks[a].spaces = (max - width(toks, l.lead) + 1) as u32;
            }
        }
    };
    for line in lines {
        if line.assign.is_some() {
            run.push(line);
        } else if !run.is_empty() {
            close(toks, &mut run);
        }
    }
    close(toks, &mut run);
    let before_comment =
        |toks: &[Tok], l: &Line| width(toks, l.lead) + l.assign.map_or(0, |a| width(toks, a));
    let mut run: Vec<&Line> = Vec::new();
    let close = |toks: &mut [Tok], run: &mut Vec<&Line>| {
        let max = run.iter().map(|l| before_comment(toks, l)).max().unwrap_or(0);
        for l in run.drain(..) {
            if let Some(c) = l.comment {
                toks[c].spaces = (max - before_comment(toks, l) + 1) as u32;
            }
        }
    };
    for line in lines {
        if line.comment.is_some() {
            run.push(line);
        } else if !run.is_empty() {
            close(toks, &mut run);
        }
    }
    close(toks, &mut run);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_directives_keep_their_spacing() {
        let src = "locals {\n  zones = [false, \"%{for z in var.zones}${z},%{endfor}${local.service}\"]\n  b = \"%{if true}x%{endif}\"\n}\n";
        let want = "locals {\n  zones = [false, \"%{for z in var.zones}${z},%{endfor}${local.service}\"]\n  b     = \"%{if true}x%{endif}\"\n}\n";
        assert_eq!(format(src).as_deref(), Some(want));
    }
}
