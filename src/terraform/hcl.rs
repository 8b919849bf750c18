//! Native syntax (`.tf`, `.tofu`) to the model, through hcl-edit, keeping byte spans.
//!
//! hcl-edit rejects a UTF-8 byte order mark, which Terraform accepts, so the mark is
//! skipped and every span is shifted back onto the original text.

use hcl_edit::Span as _;
use hcl_edit::expr::{Expression, ObjectKey};
use hcl_edit::structure::{self as hs, Structure};
use hcl_edit::template::{Element, Template};

use super::expr::{Expr, ExprKind, ObjKey, TplPart};
use super::{Attr, Block, Body, FileId, Item, ParsedFile, Span};
use crate::diag::Diagnostic;

/// The deepest nesting accepted; deeper input is reported rather than risking the stack.
const MAX_DEPTH: usize = 256;

/// Parses one native-syntax file.
pub fn parse(file: FileId, text: &str) -> Result<ParsedFile, Diagnostic> {
    parse_named(file, "", text)
}

/// [`parse`], with the file's shown path for messages that name an earlier location.
pub fn parse_named(file: FileId, path: &str, text: &str) -> Result<ParsedFile, Diagnostic> {
    let offset = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let input = &text[offset..];
    let scan = lexical_depth(input.as_bytes());
    let too_deep = match &scan {
        Ok(s) => s.too_deep,
        Err(_) => naive_depth(input.as_bytes()),
    };
    if let Some(pos) = too_deep {
        return Err(Diagnostic::error(
            "Nesting too deep",
            format!("Expressions and blocks may be nested at most {MAX_DEPTH} levels deep."),
            Span::new(file, pos + offset, pos + offset + 1),
        ));
    }
    // hcl-edit backtracks exponentially over unclosed brackets (`c=1+1*(1+1*(…`: a few
    // dozen take minutes); such a file is an error whatever follows, so say so first.
    // A string or heredoc left open: an error too, and the same backtracking risk.
    if let Err(pos) = scan {
        let (summary, detail) = if input.as_bytes()[pos] == b'/' {
            ("Unterminated comment", "There is no closing marker for this comment.")
        } else {
            ("Unterminated template string", "No closing marker was found for the string.")
        };
        return Err(Diagnostic::error(
            summary,
            detail,
            Span::new(file, pos + offset, pos + offset + 1),
        ));
    }
    if let Ok(Scan { lone_lt: Some(pos), .. }) = scan {
        return Err(Diagnostic::error(
            "Invalid expression",
            "Expected the start of an expression, but found an invalid expression token.",
            Span::new(file, pos + offset, pos + offset + 1),
        ));
    }
    if let Ok(Scan { unclosed: Some(pos), .. }) = scan {
        let (summary, detail) = unclosed_text(input, pos);
        return Err(Diagnostic::error(
            summary,
            detail,
            Span::new(file, pos + offset, pos + offset + 1),
        ));
    }
    let body = hcl_edit::parser::parse_body(input).map_err(|e| {
        let at = (e.location().offset() + offset).min(text.len());
        let end = text.get(at..).and_then(|r| r.chars().next()).map_or(at, |c| at + c.len_utf8());
        if e.message().contains("redefined attribute")
            && let Some((name, prev)) = earlier_attribute(text, at)
        {
            let f = super::SourceText::new(
                path.to_string(),
                super::FileClass::Primary,
                super::Syntax::Hcl,
                text.into(),
            );
            return Diagnostic::error(
                "Attribute redefined",
                format!(
                    "The argument \"{name}\" was already set at {}. Each argument may be set only once.",
                    f.range_string(prev, prev + name.len())
                ),
                Span::new(file, at, at + name.len()),
            );
        }
        let (summary, detail) = describe(e.message());
        Diagnostic::error(summary, detail, Span::new(file, at, end))
    })?;
    let cx = Cx { file, text: input, offset };
    Ok(ParsedFile { file, body: cx.body(&body), notes: Vec::new() })
}

/// For hcl-edit's "redefined attribute" error at `at`: the attribute's name and where it
/// was first set (the first line before `at` that starts with `name =`).
fn earlier_attribute(text: &str, at: usize) -> Option<(String, usize)> {
    let rest = text.get(at..)?;
    let name: String =
        rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '-').collect();
    if name.is_empty() {
        return None;
    }
    let mut start = 0;
    for line in text[..at].split_inclusive('\n') {
        let indent = line.len() - line.trim_start().len();
        if let Some(after) = line.trim_start().strip_prefix(name.as_str())
            && after.trim_start().starts_with('=')
            && !after.trim_start().starts_with("==")
        {
            return Some((name, start + indent));
        }
        start += line.len();
    }
    None
}

/// Quick bracket-depth scan so pathological nesting never reaches the recursive parser.
/// Brackets in comments, string literals and heredocs are text, not nesting, but the
/// `${ … }` and `%{ … }` of templates are; when the scan ends inside a string, heredoc or
/// comment (the parser will reject the file, after reading how far?), every bracket counts.
pub(crate) fn nesting_too_deep(input: &str) -> Option<usize> {
    match lexical_depth(input.as_bytes()) {
        Ok(scan) => scan.too_deep,
        Err(_) => naive_depth(input.as_bytes()),
    }
}

/// Terraform's words for a bracket left open at the end of a file.
fn unclosed_text(input: &str, at: usize) -> (&'static str, &'static str) {
    let before = input[..at].trim_end().chars().last();
    match input.as_bytes()[at] {
        b'(' => (
            "Unbalanced parentheses",
            "Expected a closing parenthesis to terminate the expression.",
        ),
        b'[' => (
            "Unterminated tuple constructor expression",
            "There is no corresponding closing bracket before the end of the file. This may be caused by incorrect bracket nesting elsewhere in this file.",
        ),
        // A brace after a value position opens an object; otherwise a block body.
        _ if matches!(before, Some('=' | ':' | '(' | '[' | ',' | '?')) => (
            "Unterminated object constructor expression",
            "There is no corresponding closing brace before the end of the file. This may be caused by incorrect brace nesting elsewhere in this file.",
        ),
        _ => (
            "Unclosed configuration block",
            "There is no closing brace for this block before the end of the file. This may be caused by incorrect brace nesting elsewhere in this file.",
        ),
    }
}

/// Does the byte before offset `at` (spaces skipped) leave an operand expected there?
fn operand_expected(b: &[u8], at: usize) -> bool {
    let before = b[..at].trim_ascii_end();
    match before.last() {
        // `a.*` and `a[*]` end a splat, not a multiplication.
        Some(b'*') => !matches!(before.get(before.len().wrapping_sub(2)), Some(b'.' | b'[')),
        Some(c) => b"=(,[{?:!-+/%&|<>".contains(c),
        None => false,
    }
}

/// What [`lexical_depth`] finds: where nesting passes [`MAX_DEPTH`], and the first
/// bracket still open at the end of the input.
struct Scan {
    too_deep: Option<usize>,
    unclosed: Option<usize>,
    /// The first `<` where an operand is expected (after `(`, `=`, an operator…): always
    /// a syntax error, and one hcl-edit backtracks over exponentially in nested brackets.
    lone_lt: Option<usize>,
}

fn naive_depth(b: &[u8]) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in b.iter().enumerate() {
        match c {
            b'{' | b'[' | b'(' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Some(i);
                }
            }
            b'}' | b']' | b')' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

/// What the scan is inside of.
enum Frame<'a> {
    /// `{`, `[` or `(` in an expression, at this offset.
    Bracket(usize),
    /// `${` or `%{` in a template: an expression until its `}`.
    Interp,
    /// A quoted string, opened at this offset.
    Str(usize),
    /// A heredoc, until a line holding only its marker; opened at this offset.
    Heredoc(&'a [u8], usize),
}

/// The offset where nesting passes [`MAX_DEPTH`], or `Err` when the input ends inside a
/// string, heredoc or comment.
fn lexical_depth(b: &[u8]) -> Result<Scan, usize> {
    lex(b, &mut |_, _| {})
}

/// Where the comments of a native-syntax file are, as byte ranges of `text`: `#` and `//`
/// up to the end of their line (the line break excluded), `/* … */` whole. A `#` in a
/// quoted string or in a heredoc is text, which a line-by-line reading cannot tell. A
/// file that ends inside a string, or nests too deep, yields the comments before that.
pub fn comments(text: &str) -> Vec<(usize, usize)> {
    let offset = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let mut out = Vec::new();
    let input = text.get(offset..).unwrap_or("");
    let _ = lex(input.as_bytes(), &mut |s, e| out.push((s + offset, e + offset)));
    out
}

/// [`lexical_depth`]'s scan, telling `comment` where each comment is.
fn lex(b: &[u8], comment: &mut dyn FnMut(usize, usize)) -> Result<Scan, usize> {
    let mut stack: Vec<Frame> = Vec::new();
    let mut depth = 0usize;
    let mut lone_lt = None;
    let mut i = 0;
    let line_end =
        |from: usize| b[from..].iter().position(|&c| c == b'\n').map_or(b.len(), |p| from + p);
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        match stack.last() {
            Some(Frame::Str(_)) => match c {
                b'\\' => i += 1,
                b'"' => {
                    stack.pop();
                }
                b'$' | b'%' if next == Some(c) && b.get(i + 2) == Some(&b'{') => i += 2,
                b'$' | b'%' if next == Some(b'{') => {
                    stack.push(Frame::Interp);
                    depth += 1;
                    i += 1;
                }
                _ => {}
            },
            Some(Frame::Heredoc(marker, _)) => {
                let at_line_start = i == 0 || b[i - 1] == b'\n';
                let end = line_end(i);
                if at_line_start && b[i..end].trim_ascii() == *marker {
                    stack.pop();
                    i = end;
                    continue;
                }
                match c {
                    b'$' | b'%' if next == Some(c) && b.get(i + 2) == Some(&b'{') => i += 2,
                    b'$' | b'%' if next == Some(b'{') => {
                        stack.push(Frame::Interp);
                        depth += 1;
                        i += 1;
                    }
                    _ => {}
                }
            }
            _ => match c {
                b'"' => stack.push(Frame::Str(i)),
                b'#' => {
                    let end = line_end(i);
                    comment(i, end);
                    i = end;
                }
                b'/' if next == Some(b'/') => {
                    let end = line_end(i);
                    comment(i, end);
                    i = end;
                }
                b'/' if next == Some(b'*') => {
                    let close = b[i + 2..].windows(2).position(|w| w == b"*/").ok_or(i)?;
                    comment(i, i + 2 + close + 2);
                    i += 2 + close + 1;
                }
                b'<' if next == Some(b'<') => {
                    let start = i + 2 + usize::from(b.get(i + 2) == Some(&b'-'));
                    let end = line_end(start);
                    let marker = b[start..end].trim_ascii();
                    if !marker.is_empty()
                        && marker
                            .iter()
                            .all(|c| c.is_ascii_alphanumeric() || *c == b'_' || *c == b'-')
                    {
                        stack.push(Frame::Heredoc(marker, i));
                        i = end;
                    } else if lone_lt.is_none() && operand_expected(b, i) {
                        lone_lt = Some(i);
                    }
                }
                b'<' if lone_lt.is_none() && operand_expected(b, i) => lone_lt = Some(i),
                b'{' | b'[' | b'(' => {
                    stack.push(Frame::Bracket(i));
                    depth += 1;
                    if depth > MAX_DEPTH {
                        return Ok(Scan { too_deep: Some(i), unclosed: None, lone_lt: None });
                    }
                }
                b'}' | b']' | b')' => {
                    if matches!(stack.last(), Some(Frame::Bracket(_) | Frame::Interp)) {
                        stack.pop();
                        depth -= 1;
                    }
                }
                _ => {}
            },
        }
        if depth > MAX_DEPTH {
            return Ok(Scan { too_deep: Some(i), unclosed: None, lone_lt: None });
        }
        i += 1;
    }
    if let Some(at) = stack.iter().find_map(|f| match f {
        Frame::Str(at) | Frame::Heredoc(_, at) => Some(*at),
        _ => None,
    }) {
        return Err(at);
    }
    let unclosed = stack.iter().find_map(|f| match f {
        Frame::Bracket(at) => Some(*at),
        _ => None,
    });
    Ok(Scan { too_deep: None, unclosed, lone_lt })
}

/// Terraform's wording for the syntax errors it shares with hcl-edit; hcl-edit's own
/// message otherwise.
fn describe(message: &str) -> (String, String) {
    if message.starts_with("invalid expression") {
        return (
            "Invalid expression".into(),
            "Expected the start of an expression, but found an invalid expression token.".into(),
        );
    }
    ("Invalid HCL syntax".into(), format!("{}.", capitalise(message)))
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::from("syntax error"),
    }
}

struct Cx<'a> {
    file: FileId,
    text: &'a str,
    offset: usize,
}

impl Cx<'_> {
    fn span(&self, r: Option<std::ops::Range<usize>>) -> Span {
        let r = r.unwrap_or(0..0);
        Span::new(self.file, r.start + self.offset, r.end + self.offset)
    }

    fn src(&self, r: Option<std::ops::Range<usize>>) -> String {
        r.and_then(|r| self.text.get(r)).unwrap_or("").to_string()
    }

    fn body(&self, body: &hs::Body) -> Body {
        let items = body
            .iter()
            .map(|s| match s {
                Structure::Attribute(a) => Item::Attr(self.attr(a)),
                Structure::Block(b) => Item::Block(self.block(b)),
            })
            .collect();
        Body { items }
    }

    fn attr(&self, a: &hs::Attribute) -> Attr {
        Attr {
            name: a.key.as_str().to_string(),
            name_span: self.span(a.key.span()),
            expr: self.expr(&a.value),
            span: self.span(a.span()),
            displaced: Vec::new(),
        }
    }

    fn block(&self, b: &hs::Block) -> Block {
        let start = b.ident.span().map_or(0, |r| r.start);
        let end = b
            .labels
            .last()
            .and_then(|l| l.span())
            .or_else(|| b.ident.span())
            .map_or(start, |r| r.end);
        Block {
            kind: b.ident.as_str().to_string(),
            labels: b.labels.iter().map(|l| l.as_str().to_string()).collect(),
            def_span: self.span(Some(start..end)),
            span: self.span(b.span()),
            body: self.body(&b.body),
            displaced: Vec::new(),
        }
    }

    fn expr(&self, e: &Expression) -> Expr {
        let span = e.span();
        let kind = match e {
            Expression::Null(_) => ExprKind::Null,
            Expression::Bool(b) => ExprKind::Bool(*b.value()),
            Expression::Number(n) => ExprKind::Number(self.src(n.span()).trim().to_string()),
            Expression::String(s) => ExprKind::Template(vec![TplPart::Lit(s.value().clone())]),
            Expression::StringTemplate(t) => ExprKind::Template(self.template(t)),
            Expression::HeredocTemplate(h) => ExprKind::Template(self.template(&h.template)),
            Expression::Array(a) => ExprKind::Tuple(a.iter().map(|x| self.expr(x)).collect()),
            Expression::Object(o) => ExprKind::Object(
                o.iter()
                    .map(|(k, v)| {
                        let key = match k {
                            ObjectKey::Ident(i) => ObjKey::Name(i.as_str().to_string()),
                            ObjectKey::Expression(Expression::String(s)) => {
                                ObjKey::Name(s.value().clone())
                            }
                            ObjectKey::Expression(x) => ObjKey::Expr(self.expr(x)),
                        };
                        (key, self.expr(v.expr()))
                    })
                    .collect(),
            ),
            Expression::Parenthesis(p) => return self.expr(p.inner()),
            _ => ExprKind::Raw(self.src(span.clone())),
        };
        Expr { kind, span: self.span(span.clone()), source: Some(self.src(span)) }
    }

    fn template(&self, t: &Template) -> Vec<TplPart> {
        let mut parts: Vec<TplPart> = Vec::new();
        for el in t.iter() {
            match el {
                Element::Literal(l) => match parts.last_mut() {
                    Some(TplPart::Lit(prev)) => prev.push_str(l.value()),
                    _ => parts.push(TplPart::Lit(l.value().clone())),
                },
                Element::Interpolation(i) => parts.push(TplPart::Code(self.src(i.span()))),
                Element::Directive(d) => parts.push(TplPart::Code(self.src(d.span()))),
            }
        }
        parts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(text: &str) -> Body {
        parse(0, text).expect("parses").body
    }

    #[test]
    fn spans_point_into_the_original_text_even_after_a_bom() {
        let text = "\u{feff}resource \"a\" \"b\" {\n  x = 1\n}\n";
        let b = body(text);
        let Item::Block(block) = &b.items[0] else { panic!("block") };
        assert_eq!(&text[block.def_span.start..block.def_span.end], "resource \"a\" \"b\"");
        let attr = block.attr("x").expect("x");
        assert_eq!(&text[attr.expr.span.start..attr.expr.span.end], "1");
    }

    #[test]
    fn templates_keep_interpolations_as_source() {
        let b = body("x = \"a-${var.y}-$${z}\"\n");
        let a = b.attr("x").expect("x");
        assert_eq!(
            a.expr.kind,
            ExprKind::Template(vec![
                TplPart::Lit("a-".into()),
                TplPart::Code("${var.y}".into()),
                TplPart::Lit("-${z}".into()),
            ])
        );
    }

    #[test]
    fn syntax_errors_are_diagnostics_with_a_location() {
        let err = parse(0, "resource \"a\" {\n  x = \n}\n").expect_err("fails");
        assert_eq!(err.summary, "Invalid expression");
        assert!(err.subject.is_some());
    }

    #[test]
    fn deep_nesting_is_refused_not_overflowed() {
        let text = format!("x = {}1{}\n", "[".repeat(10_000), "]".repeat(10_000));
        let err = parse(0, &text).expect_err("too deep");
        assert_eq!(err.summary, "Nesting too deep");
    }

    #[test]
    fn brackets_in_comments_strings_and_heredocs_are_not_nesting() {
        let open = "(".repeat(300);
        for text in [
            format!("# {open}\nx = 1\n"),
            format!("// {open}\nx = 1\n"),
            format!("/* {open} */\nx = 1\n"),
            format!("x = \"{open}\"\n"),
            format!("x = \"\\\"{open}\"\n"),
            format!("x = \"$${{{open}\"\n"),
            format!("x = <<EOT\n{open}\nEOT\ny = 1\n"),
            format!("x = <<-EOT\n  {open}\n  EOT\n"),
        ] {
            assert_eq!(nesting_too_deep(&text), None, "{text}");
        }
        // The expressions of templates do nest, in strings and heredocs alike.
        let deep = format!("{}1{}", "[".repeat(300), "]".repeat(300));
        assert!(nesting_too_deep(&format!("x = \"${{{deep}}}\"\n")).is_some());
        assert!(nesting_too_deep(&format!("x = <<EOT\n${{{deep}}}\nEOT\n")).is_some());
        // A file that ends inside a string counts every bracket: the parser may read it
        // differently.
        assert!(nesting_too_deep(&format!("x = \"{open}\n")).is_some());
        assert!(nesting_too_deep(&format!("/* {open}\n")).is_some());
    }

    #[test]
    fn comments_are_found_outside_strings_and_heredocs() {
        let text = "\u{feff}# head\nx = \"a # not\" # tail\ny = <<EOT\n# body\n// body\nEOT\nz = 1 // slash\n/* a\n b */ w = \"//\"\n";
        let got: Vec<&str> = comments(text).into_iter().map(|(s, e)| &text[s..e]).collect();
        assert_eq!(got, ["# head", "# tail", "// slash", "/* a\n b */"]);
        // Interpolations in a heredoc are expressions, but their text is still the heredoc's.
        let text = "x = <<-EOT\n  ${var.a} # not\n  EOT\n# yes\n";
        let got: Vec<&str> = comments(text).into_iter().map(|(s, e)| &text[s..e]).collect();
        assert_eq!(got, ["# yes"]);
    }

    #[test]
    fn unclosed_brackets_are_refused_before_the_parser_backtracks() {
        // Found by fuzzing (tests/fixtures/fuzz/): hcl-edit takes exponential time here.
        let text = format!("c = {}\n", "1+1*(".repeat(60));
        let err = parse(0, &text).expect_err("unclosed");
        assert_eq!(err.summary, "Unbalanced parentheses");
        let fixture = include_str!("../../tests/fixtures/fuzz/hcl-exponential-unclosed-parens.tf");
        assert!(parse(0, fixture).is_err());
        // Also found by fuzzing: unclosed `%{` and a heredoc without its marker (15 s).
        let slow = include_bytes!("../../tests/fixtures/fuzz/hcl-slow-unterminated-heredoc.tf");
        let err = parse(0, &String::from_utf8_lossy(slow)).expect_err("unterminated");
        assert_eq!(err.summary, "Unterminated template string");
        let lone = include_str!("../../tests/fixtures/fuzz/hcl-exponential-lone-lt.tf");
        assert_eq!(parse(0, lone).expect_err("lone <").summary, "Invalid expression");
        for ok in ["x = a < b\n", "x = a.* < b\n", "x = a[*] < 2\n", "x = (a) <= 1\n"] {
            assert!(parse(0, ok).is_ok(), "{ok}");
        }
        assert_eq!(
            parse(0, "x = [1, 2\n").expect_err("").summary,
            "Unterminated tuple constructor expression"
        );
        assert_eq!(
            parse(0, "resource \"a\" \"b\" {\n").expect_err("").summary,
            "Unclosed configuration block"
        );
    }
}
