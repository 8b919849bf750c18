//! The Terraform-language model shared by both syntaxes: files, byte spans, bodies,
//! attributes, blocks and expressions. Pure data: no I/O happens here.
//!
//! Native syntax (`.tf`, `.tofu`) and JSON syntax (`.tf.json`, `.tofu.json`) are both
//! decoded into these types so that the merge never needs to know which syntax a value
//! came from; only the printers and the provenance comments do.

pub mod choose;
pub mod constraint;
pub mod discover;
pub(crate) mod expr;
pub mod goversion;
pub mod hcl;
pub mod json;
pub(crate) mod number;
pub mod pins;
pub mod release;
pub mod schema;

pub use discover::{FileClass, Syntax};
pub use expr::TplPart;
pub use expr::{Expr, ExprKind, ObjKey};

pub(crate) use crate::diag::FileId;
pub use crate::diag::Span;

use std::sync::OnceLock;

use override_guard_hcl::{Columns, LineIndex};

/// A file that exists only in this checkout: git does not track it, so CI and the rest of
/// the team run without it (a local override, often git-ignored on purpose).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Local {
    Ignored,
    Untracked,
}

impl Local {
    pub fn describe(self) -> &'static str {
        match self {
            Local::Ignored => "git-ignored",
            Local::Untracked => "untracked",
        }
    }
}

/// One loaded configuration file.
#[derive(Clone, Debug)]
pub struct SourceText {
    /// Path as shown to the user (relative to the directory the user named, `/`-separated).
    pub path: String,
    pub class: FileClass,
    pub syntax: Syntax,
    pub text: std::sync::Arc<str>,
    /// Set when the file exists only in this checkout (see [`Local`]).
    pub local: Option<Local>,
    /// Built on first use: most files are never asked for a line.
    lines: OnceLock<LineIndex>,
}

impl SourceText {
    pub fn new(path: String, class: FileClass, syntax: Syntax, text: std::sync::Arc<str>) -> Self {
        SourceText { path, class, syntax, text, local: None, lines: OnceLock::new() }
    }

    /// The file name without its directory.
    pub fn name(&self) -> &str {
        self.path.rsplit('/').next().unwrap_or(&self.path)
    }

    /// 1-based line and column of a byte offset, as Terraform counts them: in native
    /// syntax, columns are grapheme clusters (an accent and the letter it combines with, or
    /// an emoji sequence, are one) and a leading byte order mark is no column; JSON counts
    /// characters.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let columns = match self.syntax {
            Syntax::Hcl => Columns::Graphemes,
            Syntax::Json => Columns::Chars,
        };
        self.lines().line_col(&self.text, offset, columns)
    }

    /// The file's line index, built on first use.
    pub fn lines(&self) -> &LineIndex {
        self.lines.get_or_init(|| LineIndex::new(&self.text))
    }

    /// Terraform's `hcl.Range.String()` form of a byte range of this file, named as
    /// Terraform names it when run in the module: relative to the module's directory,
    /// wherever the audit started.
    pub fn range_string(&self, start: usize, end: usize) -> String {
        let (l1, c1) = self.line_col(start);
        let (l2, c2) = self.line_col(end);
        let name = self.name();
        if l1 == l2 {
            format!("{name}:{l1},{c1}-{c2}")
        } else {
            format!("{name}:{l1},{c1}-{l2},{c2}")
        }
    }
}

/// The registry of files a module was loaded from; spans index into it.
#[derive(Clone, Debug, Default)]
pub struct Files {
    pub files: Vec<SourceText>,
}

impl Files {
    pub fn get(&self, id: FileId) -> &SourceText {
        &self.files[id]
    }

    /// The text a span covers.
    pub fn text(&self, span: Span) -> &str {
        self.files.get(span.file).and_then(|f| f.text.get(span.start..span.end)).unwrap_or("")
    }

    /// `file:line` of the start of a span, for provenance comments.
    pub fn short(&self, span: Span) -> String {
        let f = self.get(span.file);
        format!("{}:{}", f.name(), f.line_col(span.start).0)
    }

    /// Terraform's `DeclRange` of a block whose `def_span` this is, as its diagnostics give
    /// it: the same in native syntax; in JSON, HCL's `DefRange` is the opening bracket of
    /// the property's value (the `[` of an array of blocks, else the block's `{`), not the
    /// property naming it.
    pub fn decl_span(&self, def_span: Span) -> Span {
        let f = self.get(def_span.file);
        if f.syntax != Syntax::Json {
            return def_span;
        }
        let after = f.text.get(def_span.end..).unwrap_or_default();
        let Some(colon) = after.find(':') else { return def_span };
        let rest = &after[colon + 1..];
        let at = def_span.end + colon + 1 + (rest.len() - rest.trim_start().len());
        match f.text.as_bytes().get(at) {
            Some(b'{' | b'[') => Span::new(def_span.file, at, at + 1),
            _ => def_span,
        }
    }

    /// Terraform's `hcl.Range.String()` form: `file:1,3-8` or `file:1,3-4,2`.
    pub fn range_string(&self, span: Span) -> String {
        self.get(span.file).range_string(span.start, span.end)
    }
}

/// A body: attributes, blocks and (JSON only) properties whose kind the schema decides.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Body {
    /// Shared, copied on write: the merge appends every primary block as it was parsed,
    /// so an effective block holds the parsed file's items until an override changes them
    /// (a deep copy of every block was a twentieth of an audit).
    pub items: std::sync::Arc<Vec<Item>>,
}

impl Body {
    pub fn new(items: Vec<Item>) -> Self {
        Body { items: std::sync::Arc::new(items) }
    }

    /// The items to change: copied first when another body still shares them.
    pub fn items_mut(&mut self) -> &mut Vec<Item> {
        std::sync::Arc::make_mut(&mut self.items)
    }

    /// The items to keep: taken without a copy when no other body shares them.
    pub fn into_items(self) -> Vec<Item> {
        std::sync::Arc::unwrap_or_clone(self.items)
    }
}

/// One item of a body.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    Attr(Attr),
    Block(Block),
    /// A JSON property in a body whose schema only the provider knows: an attribute
    /// holding an object/list, or nested blocks. Resolved during the merge when another
    /// layer writes the same name in native syntax (spec §6 guidance).
    Json(JsonProp),
}

impl Item {
    /// The name this item is addressed by at its body level (`dynamic "x"` counts as `x`).
    pub fn merge_name(&self) -> &str {
        match self {
            Item::Attr(a) => &a.name,
            Item::Block(b) if b.kind == "dynamic" => b.labels.first().map_or("dynamic", |s| s),
            Item::Block(b) => &b.kind,
            Item::Json(j) => &j.name,
        }
    }
}

/// `name = expr`.
#[derive(Clone, Debug, PartialEq)]
pub struct Attr {
    pub name: String,
    pub name_span: Span,
    pub expr: Expr,
    /// The whole attribute (`name = expr`).
    pub span: Span,
    /// Where the values this one replaced came from (merge provenance), oldest first.
    pub displaced: Vec<Span>,
}

impl Attr {
    /// The attribute's value as Terraform's JSON syntax writes it in a body of `schema`:
    /// bare references where Terraform expects them, literal text where it reads a value
    /// without evaluating it, templates elsewhere. What only the syntax a value was
    /// written in tells apart is gone: `show` prints these values, and the merge compares
    /// effective configurations by them.
    pub fn to_json(&self, schema: schema::Schema) -> serde_json::Value {
        use schema::{Prop, Schema};
        match schema.prop(&self.name) {
            Prop::Ref | Prop::RefList | Prop::RefMap => self.expr.to_json_reference(),
            Prop::Literal => self.expr.to_json_literal(),
            _ if schema == Schema::RequiredProviders => match self.expr.as_object() {
                Some(entries) => {
                    let mut o = serde_json::Map::new();
                    for (k, v) in entries {
                        let key = match k {
                            ObjKey::Name(n) => n.clone(),
                            ObjKey::Expr(e) => e.to_hcl(),
                        };
                        let val = if key == "configuration_aliases" {
                            v.to_json_reference()
                        } else {
                            v.to_json_literal()
                        };
                        o.insert(key, val);
                    }
                    serde_json::Value::Object(o)
                }
                None => self.expr.to_json(),
            },
            _ => self.expr.to_json(),
        }
    }
}

/// `kind "label" … { body }`.
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    pub kind: String,
    pub labels: Vec<String>,
    /// Terraform's `DefRange`: the block type and its labels.
    pub def_span: Span,
    /// HCL's `TypeRange`: the block type alone (in JSON, the property naming the type).
    pub type_span: Span,
    /// HCL's `LabelRanges`, one per label (in JSON, the properties naming them).
    pub label_spans: Vec<Span>,
    /// HCL's `OpenBraceRange` (in JSON, the opening brace of the body's object): where a
    /// missing label or argument is reported.
    pub open_span: Span,
    /// The whole block.
    pub span: Span,
    pub body: Body,
    /// For merged blocks: the declarations this block replaced, or (for top-level
    /// objects) the override blocks merged into it.
    pub displaced: Vec<Span>,
}

impl Block {
    /// Terraform's `DeclRange` as its diagnostics give it (see [`Files::decl_span`]).
    pub fn decl_span(&self, files: &Files) -> Span {
        files.decl_span(self.def_span)
    }

    /// The address a top-level block is known by for duplicates and overrides. Joined by
    /// hand, not with `format!`: the merge and the rules ask it of every block.
    pub fn address(&self) -> Option<String> {
        let l = &self.labels;
        let kind = schema::Kind::named(&self.kind).filter(|k| k.addressed())?;
        if l.len() != kind.labels.len() {
            return None;
        }
        Some(match (kind.name, l.as_slice()) {
            ("provider", [p]) => match self.provider_alias() {
                Some(a) => dotted(&[kind.name, p, &a]),
                None => dotted(&[kind.name, p]),
            },
            (name, [a]) => dotted(&[name, a]),
            (name, [a, b]) => dotted(&[name, a, b]),
            _ => return None,
        })
    }

    /// The static `alias` of a provider block.
    pub fn provider_alias(&self) -> Option<String> {
        let b = self;
        b.attr("alias").map(|a| {
            a.expr.as_str().or_else(|| a.expr.as_keyword().map(str::to_string)).unwrap_or_default()
        })
    }

    pub fn attr(&self, name: &str) -> Option<&Attr> {
        self.body.attr(name)
    }
}

/// Parts joined by dots.
fn dotted(parts: &[&str]) -> String {
    let mut s = String::with_capacity(parts.iter().map(|p| p.len() + 1).sum());
    for (i, p) in parts.iter().enumerate() {
        if i > 0 {
            s.push('.');
        }
        s.push_str(p);
    }
    s
}

impl Body {
    pub fn attr(&self, name: &str) -> Option<&Attr> {
        self.items.iter().find_map(|i| match i {
            Item::Attr(a) if a.name == name => Some(a),
            _ => None,
        })
    }

    pub fn attrs(&self) -> impl Iterator<Item = &Attr> {
        self.items.iter().filter_map(|i| match i {
            Item::Attr(a) => Some(a),
            _ => None,
        })
    }

    pub fn blocks(&self) -> impl Iterator<Item = &Block> {
        self.items.iter().filter_map(|i| match i {
            Item::Block(b) => Some(b),
            _ => None,
        })
    }

    pub fn blocks_of<'a>(&'a self, kind: &'a str) -> impl Iterator<Item = &'a Block> + 'a {
        self.blocks().filter(move |b| b.kind == kind)
    }
}

/// A JSON value with byte spans, kept for properties whose meaning depends on a schema.
#[derive(Clone, Debug, PartialEq)]
pub struct JsonProp {
    pub name: String,
    pub name_span: Span,
    pub value: JsonNode,
    pub span: Span,
    pub displaced: Vec<Span>,
}

/// A JSON value tree with spans (duplicate keys and order kept).
#[derive(Clone, Debug, PartialEq)]
pub struct JsonNode {
    pub span: Span,
    pub value: JsonValue,
}

impl JsonNode {
    /// The value as it was written (numbers kept as written when JSON can hold them).
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value as J;
        match &self.value {
            JsonValue::Null => J::Null,
            JsonValue::Bool(b) => J::Bool(*b),
            JsonValue::Number(s) => serde_json::from_str(s).unwrap_or(J::String(s.clone())),
            JsonValue::String(s) => J::String(s.clone()),
            JsonValue::Array(a) => J::Array(a.iter().map(JsonNode::to_json).collect()),
            JsonValue::Object(props) => {
                J::Object(props.iter().map(|(k, _, v)| (k.clone(), v.to_json())).collect())
            }
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum JsonValue {
    Null,
    Bool(bool),
    Number(String),
    String(String),
    Array(Vec<JsonNode>),
    /// (key, key span, value)
    Object(Vec<(String, Span, JsonNode)>),
}

/// A parsed file: its top-level body.
#[derive(Clone, Debug, Default)]
pub struct ParsedFile {
    pub file: FileId,
    pub body: Body,
    /// JSON `"//"` comments.
    pub notes: Vec<Note>,
    /// Where a native-syntax file's comments are (`#`, `//` and `/* */`, as the scanner
    /// found them: never inside a string or a heredoc), byte ranges in source order. Kept
    /// from the parse's own scan, so that the rules need not scan the text again.
    pub comments: Vec<(usize, usize)>,
    /// What reading and parsing the file reported, in Terraform's order.
    pub diagnostics: Vec<crate::diag::Diagnostic>,
    /// What decoding it reported, per engine (Terraform, OpenTofu), with the version of
    /// the release it was decoded for (major, minor, patch), once asked: a parsed file is
    /// shared by every merge of it (the language server's next keystroke, the other
    /// engine's view, the module without its overrides), and decodes the same for the
    /// same release.
    pub decoded: [std::sync::OnceLock<Decoded>; 2],
}

/// A file's decoding for one release: its version (major, minor, patch) and the
/// diagnostics.
pub(crate) type Decoded = ((u32, u32, u32), Vec<crate::diag::Diagnostic>);

/// A JSON `"//"` comment and the object it sits in.
#[derive(Clone, Debug, PartialEq)]
pub struct Note {
    /// The comment's string value.
    pub span: Span,
    pub text: String,
    /// The object (block body) the comment belongs to.
    pub covers: Span,
}

#[cfg(test)]
mod tests {
    /// Addresses as Terraform names them, empty labels and a provider's alias included.
    #[test]
    fn top_level_blocks_have_their_addresses() {
        let text = "resource \"aws_s3_bucket\" \"logs\" {}\ndata \"a\" \"\" {}\nmodule \"m\" {}\n\
                    provider \"aws\" {}\nprovider \"aws\" {\n  alias = \"east\"\n}\nlocals {}\n\
                    variable \"v\" \"extra\" {}\n";
        let (f, diags) = super::hcl::parse(0, text);
        assert!(diags.is_empty(), "{diags:?}");
        let got: Vec<Option<String>> = f.body.blocks().map(|b| b.address()).collect();
        let want = [
            Some("resource.aws_s3_bucket.logs"),
            Some("data.a."),
            Some("module.m"),
            Some("provider.aws"),
            Some("provider.aws.east"),
            None,
            None,
        ];
        assert_eq!(got, want.map(|w| w.map(String::from)));
    }
}
