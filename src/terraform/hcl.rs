//! Native syntax (`.tf`, `.tofu`) to the model, through our own parser ([`override_guard_hcl`]),
//! keeping byte spans into the original text.

use std::sync::Arc;

use super::expr::{Expr, ExprKind, ObjKey, Src, TplPart};
use super::{Attr, Block, Body, FileId, Item, ParsedFile, Span};
use crate::diag::Diagnostic;
use override_guard_hcl::ast;
use override_guard_hcl::scan::{self, Kind, Mode};

/// Parses one native-syntax file.
pub fn parse(file: FileId, text: &str) -> (ParsedFile, Vec<Diagnostic>) {
    parse_named(file, "", text)
}

/// Parses one native-syntax file, with its shown path for the messages that name another
/// place in it. The body is what could be read (Terraform goes on with it too); the
/// diagnostics are the scanner's checks, then the syntax errors, in Terraform's order.
pub fn parse_named(file: FileId, path: &str, text: &str) -> (ParsedFile, Vec<Diagnostic>) {
    parse_shared(file, path, &Arc::from(text))
}

/// [`parse_named`] of a text the caller already shares: the expressions' sources are
/// slices of it, not copies.
pub(crate) fn parse_shared(
    file: FileId,
    path: &str,
    text: &Arc<str>,
) -> (ParsedFile, Vec<Diagnostic>) {
    parse_bytes(file, path, text.as_bytes(), text)
}

/// [`parse_named`] of a file that may not be valid UTF-8, as Terraform reads one: its
/// scanner cuts `bytes`, where a broken sequence is a token of its own ("Invalid character
/// encoding", reported once, and the syntax errors it causes; inside a comment it is no
/// error at all). `text` is `bytes` with each byte of a broken sequence replaced by one
/// character of one byte (see [`lossless_text`]), so offsets are the same in both.
pub(crate) fn parse_bytes(
    file: FileId,
    path: &str,
    bytes: &[u8],
    text: &Arc<str>,
) -> (ParsedFile, Vec<Diagnostic>) {
    let tokens = scan::scan_tokens(bytes, Mode::Normal);
    let (body, errors) = override_guard_hcl::parse::parse_scanned(text, &tokens);
    let comments = tokens
        .as_slice()
        .iter()
        .filter(|t| t.kind == Kind::Comment)
        .map(|t| (t.start, t.end))
        .collect();
    // The tokens, the syntax tree and the model are each several times the text: the
    // tokens go before the model is built, and the tree goes as the model is built from it.
    drop(tokens);
    let diags = errors.into_iter().map(|e| diagnostic(file, path, e)).collect();
    let cx = Lowering { file, text };
    (ParsedFile { file, body: cx.body(body), comments, ..Default::default() }, diags)
}

/// The text of bytes that are not all valid UTF-8, at the same offsets: each byte of a
/// broken sequence becomes U+001A (SUBSTITUTE), one byte long.
pub(crate) fn lossless_text(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        out.push_str(chunk.valid());
        out.extend(std::iter::repeat_n('\u{1a}', chunk.invalid().len()));
    }
    out
}

/// A syntax error as a diagnostic of the file.
pub fn diagnostic(file: FileId, path: &str, e: override_guard_hcl::SyntaxError) -> Diagnostic {
    Diagnostic::error(
        e.summary,
        e.detail.replace("{file}", path),
        Span::new(file, e.range.start, e.range.end),
    )
}

struct Lowering<'a> {
    file: FileId,
    text: &'a Arc<str>,
}

impl Lowering<'_> {
    fn span(&self, r: &ast::Range) -> Span {
        Span::new(self.file, r.start, r.end)
    }

    fn src(&self, r: &ast::Range) -> Src {
        Src::slice(self.text, r.clone())
    }

    fn code(&self, r: &ast::Range) -> String {
        self.text.get(r.clone()).unwrap_or("").to_string()
    }

    fn body(&self, body: ast::Body) -> Body {
        let items = body
            .items
            .into_iter()
            .map(|i| match i {
                ast::Item::Attr(a) => Item::Attr(self.attr(a)),
                ast::Item::Block(b) => Item::Block(self.block(b)),
            })
            .collect();
        Body::new(items)
    }

    fn attr(&self, a: ast::Attribute) -> Attr {
        Attr {
            name: a.name,
            name_span: self.span(&a.name_range),
            expr: self.expr(a.expr),
            span: self.span(&a.range),
            displaced: Vec::new(),
        }
    }

    fn block(&self, b: ast::Block) -> Block {
        let end = b.labels.last().map_or(b.kind_range.end, |(_, r)| r.end);
        let label_spans = b.labels.iter().map(|(_, r)| self.span(r)).collect();
        Block {
            def_span: self.span(&(b.kind_range.start..end)),
            type_span: self.span(&b.kind_range),
            kind: b.kind,
            labels: b.labels.into_iter().map(|(l, _)| l).collect(),
            label_spans,
            open_span: self.span(&b.open_brace),
            span: self.span(&b.range),
            body: self.body(b.body),
            displaced: Vec::new(),
        }
    }

    /// An expression in the model: literals, templates, tuples and objects decoded;
    /// anything else kept as its source. Parentheses are transparent to the value (as
    /// Terraform unwraps them) but kept in the source, which is what is printed. The
    /// syntax tree is taken apart as it is read, so that it is freed while the model grows.
    fn expr(&self, mut e: ast::Expr) -> Expr {
        let outer = e.range.clone();
        let (mut node, mut inner) =
            (std::mem::replace(&mut e.node, ast::Node::Null), outer.clone());
        while let ast::Node::Parens(mut x) = node {
            inner = x.range.clone();
            node = std::mem::replace(&mut x.node, ast::Node::Null);
        }
        let kind = match node {
            ast::Node::Null => ExprKind::Null,
            ast::Node::Bool(b) => ExprKind::Bool(b),
            ast::Node::Number(n) => ExprKind::Number(n),
            // A negative number is an operator on a number in HCL, but a number in value.
            ast::Node::Unary { op: ast::UnaryOp::Neg, operand }
                if matches!(&operand.node, ast::Node::Number(_)) =>
            {
                match &operand.node {
                    ast::Node::Number(n) => ExprKind::Number(format!("-{n}")),
                    _ => ExprKind::Raw(self.src(&inner)),
                }
            }
            ast::Node::Template { parts, .. } => ExprKind::Template(self.template(parts)),
            ast::Node::Tuple(items) => {
                ExprKind::tuple(items.into_iter().map(|x| self.expr(x)).collect())
            }
            ast::Node::Object(items) => ExprKind::object(
                items
                    .into_iter()
                    .map(|(k, v)| {
                        let key = match k {
                            ast::Key::Name(n, _) => ObjKey::Name(n),
                            ast::Key::Expr(mut x) => {
                                // Parentheses around a key only mark it as an expression.
                                if let ast::Node::Parens(inner) = &mut x.node {
                                    x = std::mem::replace(
                                        &mut **inner,
                                        ast::Expr { node: ast::Node::Null, range: 0..0 },
                                    );
                                }
                                match x.as_literal_str() {
                                    Some(s) => ObjKey::Name(s),
                                    None => ObjKey::Expr(Box::new(self.expr(x))),
                                }
                            }
                        };
                        (key, self.expr(v))
                    })
                    .collect(),
            ),
            _ => ExprKind::Raw(self.src(&inner)),
        };
        Expr { kind, span: self.span(&outer), source: Some(self.src(&outer)) }
    }

    /// A template's parts: literal text (escapes resolved, `<<-` indentation and strip
    /// markers applied), interpolations as their code, and each directive as a template
    /// without delimiters spells it, rebuilt from its parts: the same text whether it was
    /// written in a quoted string (with backslash escapes), a heredoc (indented, with
    /// strip markers) or JSON, so that JSON syntax reads it back as the same value.
    fn template(&self, parts: Vec<ast::Part>) -> Vec<TplPart> {
        // As many as there are parts at most (a string literal: one), not the room for four
        // that pushing onto an empty list makes.
        let mut out: Vec<TplPart> = Vec::with_capacity(parts.len());
        for p in parts {
            match p {
                ast::Part::Lit(s, _) => match out.last_mut() {
                    Some(TplPart::Lit(prev)) => prev.push_str(&s),
                    _ => out.push(TplPart::Lit(s)),
                },
                ast::Part::Interp(e, r) => out.push(TplPart::Code(self.interp(&e, &r))),
                directive => {
                    let mut code = String::new();
                    self.directive(&directive, &mut code);
                    out.push(TplPart::Code(code));
                }
            }
        }
        out
    }

    /// `${expr}`, spaced as `terraform fmt` spaces it (its strip markers are applied to the
    /// text around it). An expression ending in a heredoc keeps its source, whose closing
    /// marker needs the line break after it.
    fn interp(&self, e: &ast::Expr, whole: &ast::Range) -> String {
        let code = self.code(&e.range);
        if code.contains("<<") {
            return self.code(whole);
        }
        format!("${{{code}}}")
    }

    /// Template text for parts, directives spaced as `terraform fmt` spaces them.
    fn directive(&self, p: &ast::Part, out: &mut String) {
        match p {
            ast::Part::Lit(s, _) => out.push_str(&super::expr::escape_template_literal(s)),
            ast::Part::Interp(e, r) => out.push_str(&self.interp(e, r)),
            ast::Part::If(d) => {
                let ast::IfPart { cond, yes, no, .. } = &**d;
                out.push_str(&format!("%{{if {}}}", self.code(&cond.range)));
                yes.iter().for_each(|p| self.directive(p, out));
                if !no.is_empty() {
                    out.push_str("%{else}");
                    no.iter().for_each(|p| self.directive(p, out));
                }
                out.push_str("%{endif}");
            }
            ast::Part::For(d) => {
                let ast::ForPart { key_var, value_var, collection, body, .. } = &**d;
                let vars = match key_var {
                    Some(k) => format!("{k}, {value_var}"),
                    None => value_var.clone(),
                };
                out.push_str(&format!("%{{for {vars} in {}}}", self.code(&collection.range)));
                body.iter().for_each(|p| self.directive(p, out));
                out.push_str("%{endfor}");
            }
        }
    }
}

/// The parts of a template written as a JSON string (Terraform reads every JSON string
/// where an expression is expected as a template), with the errors of reading it.
pub(crate) fn json_template(text: &str) -> (Vec<TplPart>, Vec<override_guard_hcl::SyntaxError>) {
    let (e, errors) = override_guard_hcl::parse_template(text);
    let shared = Arc::from(text);
    let cx = Lowering { file: 0, text: &shared };
    let mut e = e;
    let parts = match &mut e.node {
        ast::Node::Template { parts, .. } => cx.template(std::mem::take(parts)),
        _ => vec![TplPart::Lit(text.to_string())],
    };
    (parts, errors)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(text: &str) -> Body {
        let (f, d) = parse(0, text);
        assert!(d.is_empty(), "{d:?}");
        f.body
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
    fn parentheses_survive_in_the_source() {
        let text = "y = (1 +\n  2)\nz = (\"a\")\n";
        let b = body(text);
        let y = b.attrs().find(|a| a.name == "y").expect("y");
        assert_eq!(y.expr.to_hcl(), "(1 +\n  2)");
        let z = b.attrs().find(|a| a.name == "z").expect("z");
        assert_eq!(z.expr.as_str().as_deref(), Some("a"));
    }

    /// Every nested expression keeps its source: a copy per level made a deeply nested
    /// value quadratic (1 MiB nested 900 levels deep took 1.9 GB and 4 s).
    #[test]
    fn nested_expressions_share_the_file_text() {
        let text: Arc<str> = Arc::from("x = [[[\"a\", b]]]\n");
        let (f, _) = parse_shared(0, "main.tf", &text);
        let x = f.body.attrs().next().expect("x").expr.clone();
        let mut e = &x;
        let outer = x.source.as_ref().expect("source");
        assert_eq!(outer.as_str(), "[[[\"a\", b]]]");
        while let Some([first, ..]) = e.as_tuple() {
            e = first;
            assert!(e.source.as_ref().expect("source").shares_text_with(outer));
        }
        assert_eq!(e.as_str().as_deref(), Some("a"));
    }

    #[test]
    fn syntax_errors_are_diagnostics_with_a_location() {
        let (_, d) = parse(0, "a = 1 b = 2\n");
        assert_eq!(d[0].summary, "Missing newline after argument");
        assert_eq!(d[0].subject.map(|s| s.start), Some(6));
    }

    #[test]
    fn duplicate_object_keys_and_line_breaks_in_for_expressions_are_valid() {
        body(
            "a = { a = 1\n a = 2 }\nb = { for k in [\"a\"] : k => 1 +\n 2 }\nc = (true\n  ? 1\n  : 2)\n",
        );
    }
}
