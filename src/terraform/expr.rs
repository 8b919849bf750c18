//! Expressions, decoded just far enough to compare them, to read the few static values the
//! merge needs (aliases, `ignore_changes = all`, defaults), and to print them in either
//! syntax. Anything else is kept as HCL source text ([`ExprKind::Raw`]).

use std::sync::Arc;

use super::Span;
use override_guard_hcl::printable;

/// A piece of a file's text, shared with the file instead of copied: every expression
/// keeps its source, so a copy per node (and per clone of a merged block) was a
/// quarter of the allocations of an audit.
#[derive(Clone)]
pub struct Src {
    text: Arc<str>,
    start: u32,
    end: u32,
}

impl Src {
    /// `text[range]`; a range outside the text (or not on character boundaries) is empty.
    pub fn slice(text: &Arc<str>, range: std::ops::Range<usize>) -> Src {
        match (u32::try_from(range.start), u32::try_from(range.end)) {
            (Ok(start), Ok(end)) if text.get(range.clone()).is_some() => {
                Src { text: text.clone(), start, end }
            }
            _ => Src::from(""),
        }
    }

    pub fn as_str(&self) -> &str {
        self.text.get(self.start as usize..self.end as usize).unwrap_or("")
    }

    /// Do both point into the same text (no copy was made)?
    pub fn shares_text_with(&self, other: &Src) -> bool {
        Arc::ptr_eq(&self.text, &other.text)
    }
}

impl std::ops::Deref for Src {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl From<&str> for Src {
    fn from(s: &str) -> Src {
        Src { start: 0, end: s.len() as u32, text: Arc::from(s) }
    }
}

impl From<String> for Src {
    fn from(s: String) -> Src {
        Src::from(s.as_str())
    }
}

impl PartialEq for Src {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl std::fmt::Debug for Src {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

impl std::fmt::Display for Src {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An expression with its origin.
#[derive(Clone, Debug)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
    /// The verbatim native-syntax source, when the expression was written in HCL; printing
    /// it back unchanged keeps heredocs, comments inside objects and the author's layout.
    pub source: Option<Src>,
}

/// Structural equality: two expressions are equal when they mean the same, wherever
/// and in whichever syntax they were written.
impl PartialEq for Expr {
    fn eq(&self, other: &Self) -> bool {
        self.kind == other.kind
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    Null,
    Bool(bool),
    /// A number literal, as written.
    Number(String),
    /// A quoted string or heredoc: literal text and `${…}` / `%{…}` sequences.
    Template(Vec<TplPart>),
    /// Shared, as a body's items are: a merged module holds the values of the files it
    /// was merged from, and copied a literal of a million elements whole for every local.
    Tuple(Arc<Vec<Expr>>),
    Object(Arc<Vec<(ObjKey, Expr)>>),
    /// Any other expression (reference, call, operator, conditional, `for`), as HCL source.
    Raw(Src),
}

impl ExprKind {
    pub fn tuple(items: Vec<Expr>) -> Self {
        ExprKind::Tuple(Arc::new(items))
    }

    pub fn object(entries: Vec<(ObjKey, Expr)>) -> Self {
        ExprKind::Object(Arc::new(entries))
    }
}

/// A piece of a template.
#[derive(Clone, Debug, PartialEq)]
pub enum TplPart {
    /// Literal text, unescaped.
    Lit(String),
    /// An interpolation or directive, as template source (`${var.x}`, `%{ if … }…%{ endif }`).
    Code(String),
}

/// An object key: a literal name or a computed expression.
#[derive(Clone, Debug, PartialEq)]
pub enum ObjKey {
    Name(String),
    /// Boxed: most keys are names, and an entry was as large as two expressions.
    Expr(Box<Expr>),
}

impl Expr {
    pub fn new(kind: ExprKind, span: Span) -> Self {
        Expr { kind, span, source: None }
    }

    /// The literal string value, when the expression is a plain string without sequences.
    pub fn as_str(&self) -> Option<String> {
        match &self.kind {
            ExprKind::Template(parts) => {
                let mut s = String::new();
                for p in parts {
                    match p {
                        TplPart::Lit(l) => s.push_str(l),
                        TplPart::Code(_) => return None,
                    }
                }
                Some(s)
            }
            _ => None,
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self.kind, ExprKind::Null)
    }

    /// The literal bool value, if any.
    pub fn as_bool(&self) -> Option<bool> {
        match &self.kind {
            ExprKind::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// A bare keyword or reference such as `all`, as written.
    pub fn as_keyword(&self) -> Option<&str> {
        match &self.kind {
            ExprKind::Raw(s) => Some(s.trim()),
            _ => None,
        }
    }

    /// Elements of a tuple literal.
    pub fn as_tuple(&self) -> Option<&[Expr]> {
        match &self.kind {
            ExprKind::Tuple(v) => Some(v),
            _ => None,
        }
    }

    /// Entries of an object literal.
    pub fn as_object(&self) -> Option<&[(ObjKey, Expr)]> {
        match &self.kind {
            ExprKind::Object(v) => Some(v),
            _ => None,
        }
    }

    /// This expression as native-syntax source.
    pub fn to_hcl(&self) -> String {
        if let Some(src) = &self.source {
            return printable::expression(src).into_owned();
        }
        let mut out = String::new();
        write_hcl(&self.kind, &mut out);
        out
    }

    /// This expression as a JSON-syntax value (strings are templates).
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value as J;
        match &self.kind {
            ExprKind::Null => J::Null,
            ExprKind::Bool(b) => J::Bool(*b),
            ExprKind::Number(n) => serde_json::from_str::<serde_json::Number>(n)
                .map(J::Number)
                .unwrap_or_else(|_| J::String(format!("${{{n}}}"))),
            ExprKind::Template(parts) => J::String(template_text(parts)),
            ExprKind::Tuple(items) => J::Array(items.iter().map(Expr::to_json).collect()),
            ExprKind::Object(entries) => {
                let mut map = serde_json::Map::new();
                for (k, v) in entries.iter() {
                    let key = match k {
                        ObjKey::Name(n) => escape_template_literal(n),
                        ObjKey::Expr(e) => match &e.kind {
                            ExprKind::Template(p) => template_text(p),
                            _ => format!("${{{}}}", e.to_hcl()),
                        },
                    };
                    map.insert(key, v.to_json());
                }
                J::Object(map)
            }
            ExprKind::Raw(src) => J::String(format!("${{{}}}", printable::expression(src).trim())),
        }
    }

    /// This expression as a JSON-syntax value that Terraform reads without evaluating it
    /// (a description, a default): strings are written as they are, since JSON syntax
    /// takes them literally there. Anything that is not a literal is written as in
    /// [`Expr::to_json`].
    pub fn to_json_literal(&self) -> serde_json::Value {
        use serde_json::Value as J;
        match &self.kind {
            ExprKind::Tuple(items) => J::Array(items.iter().map(Expr::to_json_literal).collect()),
            ExprKind::Object(entries) => {
                let mut map = serde_json::Map::new();
                for (k, v) in entries.iter() {
                    let key = match k {
                        ObjKey::Name(n) => n.clone(),
                        ObjKey::Expr(e) => match e.as_str() {
                            Some(s) => s,
                            None => return self.to_json(),
                        },
                    };
                    map.insert(key, v.to_json_literal());
                }
                J::Object(map)
            }
            _ => match self.as_str() {
                Some(s) => J::String(s),
                None => self.to_json(),
            },
        }
    }

    /// The expression as a JSON string holding a bare expression, which is how Terraform's
    /// JSON syntax spells references and type constraints (`"depends_on": ["aws_vpc.x"]`).
    pub fn to_json_reference(&self) -> serde_json::Value {
        use serde_json::Value as J;
        match &self.kind {
            ExprKind::Tuple(items) => J::Array(items.iter().map(Expr::to_json_reference).collect()),
            ExprKind::Object(entries) => {
                let mut map = serde_json::Map::new();
                for (k, v) in entries.iter() {
                    let key = match k {
                        ObjKey::Name(n) => n.clone(),
                        ObjKey::Expr(e) => e.to_hcl(),
                    };
                    map.insert(key, v.to_json_reference());
                }
                J::Object(map)
            }
            // Written `null` in native syntax it is a name (`provider = null`: the null
            // provider); JSON's null is no reference.
            ExprKind::Null if self.source.is_none() => J::Null,
            // A legacy quoted reference (`provider = "aws.west"`) is the reference itself.
            _ => match self.as_str() {
                Some(s) => J::String(printable::traversal(s.trim()).into_owned()),
                None => J::String(printable::traversal(self.to_hcl().trim()).into_owned()),
            },
        }
    }
}

/// Template text as JSON syntax spells it: literals with `${`/`%{` escaped, sequences as is.
pub(crate) fn template_text(parts: &[TplPart]) -> String {
    let mut s = String::new();
    for p in parts {
        match p {
            TplPart::Lit(l) => s.push_str(&escape_template_literal(l)),
            TplPart::Code(c) => s.push_str(&printable::template(c)),
        }
    }
    s
}

/// Escape template sequence introducers in literal text.
pub(crate) fn escape_template_literal(s: &str) -> String {
    s.replace("${", "$${").replace("%{", "%%{")
}

/// A quoted native-syntax string literal for `s` (escapes and template introducers).
pub(crate) fn hcl_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    push_hcl_literal(s, &mut out);
    out.push('"');
    out
}

fn push_hcl_literal(s: &str, out: &mut String) {
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '$' | '%' if chars.peek() == Some(&'{') => {
                out.push(c);
                out.push(c);
            }
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
}

/// Is `s` a valid HCL identifier (so it can be an unquoted key or label)?
pub(crate) fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if c.is_alphabetic() || c == '_' => {}
        _ => return false,
    }
    chars.all(|c| c.is_alphanumeric() || c == '_' || c == '-')
}

fn write_hcl(kind: &ExprKind, out: &mut String) {
    match kind {
        ExprKind::Null => out.push_str("null"),
        ExprKind::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        ExprKind::Number(n) => out.push_str(n),
        ExprKind::Template(parts) => {
            out.push('"');
            for p in parts {
                match p {
                    TplPart::Lit(l) => push_hcl_literal(l, out),
                    TplPart::Code(c) => out.push_str(&printable::quoted_template(c)),
                }
            }
            out.push('"');
        }
        ExprKind::Tuple(items) => {
            out.push('[');
            for (i, e) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&e.to_hcl());
            }
            out.push(']');
        }
        ExprKind::Object(entries) => {
            if entries.is_empty() {
                out.push_str("{}");
                return;
            }
            out.push_str("{ ");
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                match k {
                    ObjKey::Name(n) if is_ident(n) => out.push_str(n),
                    ObjKey::Name(n) => out.push_str(&hcl_quote(n)),
                    ObjKey::Expr(e) => {
                        out.push('(');
                        out.push_str(&e.to_hcl());
                        out.push(')');
                    }
                }
                out.push_str(" = ");
                out.push_str(&v.to_hcl());
            }
            out.push_str(" }");
        }
        ExprKind::Raw(src) => out.push_str(&printable::expression(src)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tpl(parts: Vec<TplPart>) -> Expr {
        Expr::new(ExprKind::Template(parts), Span::default())
    }

    #[test]
    fn templates_print_in_both_syntaxes() {
        let e = tpl(vec![TplPart::Lit("a\"b ${x}\n".into()), TplPart::Code("${var.y}".into())]);
        assert_eq!(e.to_hcl(), r#""a\"b $${x}\n${var.y}""#);
        assert_eq!(e.to_json(), serde_json::json!("a\"b $${x}\n${var.y}"));
        assert_eq!(e.as_str(), None);
        assert_eq!(tpl(vec![TplPart::Lit("x".into())]).as_str().as_deref(), Some("x"));
    }

    #[test]
    fn raw_expressions_become_interpolations_in_json() {
        let e = Expr::new(ExprKind::Raw("var.x".into()), Span::default());
        assert_eq!(e.to_json(), serde_json::json!("${var.x}"));
        assert_eq!(e.to_json_reference(), serde_json::json!("var.x"));
    }

    #[test]
    fn identifiers() {
        assert!(is_ident("foo-bar_1"));
        assert!(!is_ident("1foo"));
        assert!(!is_ident("a.b"));
    }
}
