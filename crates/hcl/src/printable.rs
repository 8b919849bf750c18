//! An expression's source as it is printed (`show` in every format, hover texts): the line
//! ends of the file it came from stay behind. Between tokens a CRLF is only a line break,
//! so it prints as LF; inside a heredoc the CR is part of the string (Terraform keeps it in
//! the value), which no heredoc can hold without a raw CR, so such a heredoc prints as the
//! quoted string of the same value, with `\r` escapes. Every printer goes through here
//! (override-guard's expression printers), so none of them sees a raw CR.

use std::borrow::Cow;

use crate::ast::{ForPart, IfPart, Node, Part};
use crate::scan::{self, Kind, Mode, Token};

/// A native-syntax expression's source, printable: line breaks LF, heredocs that hold a
/// CR as quoted strings. Source without a CR is returned as it is.
pub fn expression(src: &str) -> Cow<'_, str> {
    if !src.contains('\r') {
        return Cow::Borrowed(src);
    }
    // A heredoc's closing marker needs the newline the file had after it.
    let text = format!("{src}\n");
    let mut out = rewrite(&text, Mode::Normal, false);
    out.pop();
    Cow::Owned(out)
}

/// Template text without delimiters (a directive's source, a JSON-syntax string), for a
/// JSON string: code's line breaks LF, literal text as it is (its CRs are the value's,
/// and JSON escapes them).
pub fn template(src: &str) -> Cow<'_, str> {
    if !src.contains('\r') {
        return Cow::Borrowed(src);
    }
    Cow::Owned(rewrite(src, Mode::Template, false))
}

/// Template text without delimiters, for the inside of a native-syntax quoted string:
/// literal text escaped as a quoted string needs (a line break in a directive's body is
/// `\n`), code's line breaks LF.
pub fn quoted_template(src: &str) -> Cow<'_, str> {
    if !src.contains(['\r', '\n', '"', '\\']) && !src.chars().any(char::is_control) {
        return Cow::Borrowed(src);
    }
    Cow::Owned(rewrite(src, Mode::Template, true))
}

/// A reference as Terraform's JSON syntax reads one back: its traversal parser takes no
/// legacy index, so `triggers.0.x` (which native syntax allows) is written `triggers[0].x`.
pub fn traversal(src: &str) -> Cow<'_, str> {
    let toks = scan::scan(src.as_bytes(), Mode::Normal);
    let legacy = |w: &[Token]| w[0].kind == Kind::Dot && w[1].kind == Kind::NumberLit;
    if !toks.windows(2).any(legacy) {
        return Cow::Borrowed(src);
    }
    let mut out = String::with_capacity(src.len() + 4);
    let mut pos = 0;
    let mut i = 0;
    while i < toks.len() {
        let t = toks[i];
        out.push_str(src.get(pos..t.start).unwrap_or(""));
        match toks.get(i + 1) {
            Some(n) if legacy(&[t, *n]) => {
                // `.0.1` scans as one number: two indexes (an error in native syntax too).
                for k in text_of(src, n).split('.') {
                    out.push_str(&format!("[{k}]"));
                }
                pos = n.end;
                i += 2;
            }
            _ => {
                out.push_str(text_of(src, &t));
                pos = t.end;
                i += 1;
            }
        }
    }
    out.push_str(src.get(pos..).unwrap_or(""));
    Cow::Owned(out)
}

/// CRLF as LF.
fn lf(s: &str) -> Cow<'_, str> {
    if s.contains("\r\n") { Cow::Owned(s.replace("\r\n", "\n")) } else { Cow::Borrowed(s) }
}

fn text_of<'a>(src: &'a str, t: &Token) -> &'a str {
    src.get(t.start..t.end).unwrap_or("")
}

/// The token walk behind the three entry points; `quote_literals`: template text at the
/// outermost level is escaped for a quoted string.
fn rewrite(src: &str, mode: Mode, quote_literals: bool) -> String {
    let toks = scan::scan(src.as_bytes(), mode);
    let mut out = String::with_capacity(src.len() + 8);
    let mut pos = 0;
    // Open `${`/`%{` sequences and quoted strings: literal text is the template's own only
    // at depth 0.
    let mut depth = 0usize;
    let mut i = 0;
    while i < toks.len() {
        let t = toks[i];
        if t.start < pos {
            i += 1;
            continue;
        }
        out.push_str(&lf(src.get(pos..t.start).unwrap_or("")));
        let text = text_of(src, &t);
        match t.kind {
            Kind::OHeredoc => {
                if let Some(close) = matching_close(&toks, i)
                    && toks[i..close]
                        .iter()
                        .any(|x| x.kind == Kind::StringLit && text_of(src, x).contains('\r'))
                    && let Some(q) = heredoc_as_quoted(src.get(t.start..toks[close].end))
                {
                    out.push_str(&q);
                    pos = toks[close].end;
                    i = close + 1;
                    continue;
                }
                out.push_str(&lf(text));
                depth += 1;
            }
            Kind::CHeredoc => {
                out.push_str(text);
                depth = depth.saturating_sub(1);
            }
            Kind::OQuote | Kind::TemplateInterp | Kind::TemplateControl => {
                out.push_str(text);
                depth += 1;
            }
            Kind::CQuote | Kind::TemplateSeqEnd => {
                out.push_str(text);
                depth = depth.saturating_sub(1);
            }
            Kind::StringLit if quote_literals && depth == 0 => quote_literal(text, &mut out),
            Kind::StringLit | Kind::QuotedLit => out.push_str(text),
            _ => out.push_str(&lf(text)),
        }
        pos = t.end;
        i += 1;
    }
    out.push_str(&lf(src.get(pos..).unwrap_or("")));
    out
}

/// The index of the `CHeredoc` that closes the `OHeredoc` at `open`.
fn matching_close(toks: &[Token], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (j, t) in toks.iter().enumerate().skip(open) {
        match t.kind {
            Kind::OHeredoc => depth += 1,
            Kind::CHeredoc => {
                depth -= 1;
                if depth == 0 {
                    return Some(j);
                }
            }
            _ => {}
        }
    }
    None
}

/// Template literal text (where `$${` and `%%{` are escapes already) as quoted-string
/// text.
fn quote_literal(s: &str, out: &mut String) {
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
}

/// A heredoc (from `<<` to its closing marker) as the quoted string of the same value: the
/// parser has applied `<<-`'s indentation and the strip markers to the literal text,
/// which is escaped; interpolations and directives keep their code
/// (directives spaced as `terraform fmt` spaces them).
fn heredoc_as_quoted(src: Option<&str>) -> Option<String> {
    let text = format!("{}\n", src?);
    let (e, errors) = crate::parse::parse_expression(&text);
    if !errors.is_empty() {
        return None;
    }
    let Node::Template { parts, heredoc: true, .. } = &e.node else { return None };
    let mut out = String::from("\"");
    quoted_parts(&text, parts, &mut out);
    out.push('"');
    Some(out)
}

fn quoted_parts(src: &str, parts: &[Part], out: &mut String) {
    let code =
        |e: &crate::ast::Expr| expression(src.get(e.range.clone()).unwrap_or("")).into_owned();
    for p in parts {
        match p {
            Part::Lit(s, _) => {
                // In a quoted string as in a heredoc, `${` and `%{` start a sequence.
                let mut lit = String::new();
                quote_literal(s, &mut lit);
                out.push_str(&lit.replace("${", "$${").replace("%{", "%%{"));
            }
            Part::Interp(e, _) => {
                out.push_str("${");
                out.push_str(&code(e));
                out.push('}');
            }
            Part::If(d) => {
                let IfPart { cond, yes, no, .. } = &**d;
                out.push_str(&format!("%{{if {}}}", code(cond)));
                quoted_parts(src, yes, out);
                if !no.is_empty() {
                    out.push_str("%{else}");
                    quoted_parts(src, no, out);
                }
                out.push_str("%{endif}");
            }
            Part::For(d) => {
                let ForPart { key_var, value_var, collection, body, .. } = &**d;
                let vars = match key_var {
                    Some(k) => format!("{k}, {value_var}"),
                    None => value_var.clone(),
                };
                out.push_str(&format!("%{{for {vars} in {}}}", code(collection)));
                quoted_parts(src, body, out);
                out.push_str("%{endfor}");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_without_a_carriage_return_is_not_copied() {
        assert!(matches!(expression("join(\",\", [\n  a,\n])"), Cow::Borrowed(_)));
        assert!(matches!(template("a ${b}"), Cow::Borrowed(_)));
    }

    #[test]
    fn crlf_between_tokens_prints_as_lf() {
        assert_eq!(
            expression("{\r\n  a = 1 # one\r\n  b = [\r\n    2,\r\n  ]\r\n}"),
            "{\n  a = 1 # one\n  b = [\n    2,\n  ]\n}"
        );
        assert_eq!(expression("\"a\" # x\r\n"), "\"a\" # x\n");
    }

    /// Terraform keeps the CR of a CRLF heredoc in the value: the quoted string says so.
    #[test]
    fn a_heredoc_with_crlf_becomes_the_quoted_string_of_its_value() {
        assert_eq!(
            expression("<<EOT\r\nline \"1\" \\ $${x}\r\n  ${var.y}\r\nEOT"),
            "\"line \\\"1\\\" \\\\ $${x}\\r\\n  ${var.y}\\r\\n\""
        );
        // `<<-` removes the indentation; strip markers are applied to the text.
        assert_eq!(expression("<<-EOT\r\n    a\r\n      b\r\n    EOT"), "\"a\\r\\n  b\\r\\n\"");
        assert_eq!(
            expression(
                "<<EOT\r\n%{ for x in [1,\r\n2] ~}\r\n${x}\r\n%{ endfor }\r\n%{if a}y%{else}n%{endif}\r\nEOT"
            ),
            "\"%{for x in [1,\n2]}${x}\\r\\n%{endfor}\\r\\n%{if a}y%{else}n%{endif}\\r\\n\""
        );
        // Inside a call, and a heredoc without any CR stays a heredoc.
        assert_eq!(expression("trimspace(<<EOT\r\nx\r\nEOT\r\n)"), "trimspace(\"x\\r\\n\"\n)");
        assert_eq!(expression("f(<<EOT\nx\nEOT\r\n)"), "f(<<EOT\nx\nEOT\n)");
    }

    #[test]
    fn templates_keep_literal_crs_for_json_and_escape_them_for_quoted_strings() {
        assert_eq!(
            template("%{ if a }x\r\ny%{ endif }${f(\r\n1)}"),
            "%{ if a }x\r\ny%{ endif }${f(\n1)}"
        );
        assert_eq!(
            quoted_template("%{ if a }x\r\n\"y\"%{ endif }${\"q\"}"),
            "%{ if a }x\\r\\n\\\"y\\\"%{ endif }${\"q\"}"
        );
        assert!(matches!(quoted_template("${a} b"), Cow::Borrowed(_)));
    }

    #[test]
    fn legacy_indexes_are_written_in_brackets() {
        assert_eq!(traversal("triggers.0.x"), "triggers[0].x");
        assert_eq!(traversal("aws_instance.a.1.id"), "aws_instance.a[1].id");
        assert_eq!(traversal("tags[\"a.0\"].b"), "tags[\"a.0\"].b");
        assert!(matches!(traversal("a[0].b"), Cow::Borrowed(_)));
    }
}
