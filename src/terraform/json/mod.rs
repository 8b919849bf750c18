//! JSON syntax (`.tf.json`, `.tofu.json`) to the model, following Terraform's JSON
//! configuration syntax: one object level per block label, arrays as repeated blocks,
//! `null`/`[]` as zero blocks, `"//"` comments, strings as templates, and bare-expression
//! strings where Terraform expects references.

mod read;

use std::borrow::Cow;

use super::expr::{Expr, ExprKind, ObjKey, TplPart};
use super::schema::{Engines, KINDS};
use super::schema::{Prop, Schema};
use super::{
    Attr, Block, Body, FileId, Item, JsonNode, JsonProp, JsonValue, Note, ParsedFile, SourceText,
    Span,
};
use crate::diag::Diagnostic;
use override_guard_hcl::json::MAX_DEPTH;

pub(crate) use read::{Build, Scalar};

/// Parses one JSON-syntax file. Errors that still leave a usable body are returned with it;
/// a file that does not parse gives its errors alone.
pub fn parse(
    file: FileId,
    src: &SourceText,
) -> Result<(ParsedFile, Vec<Diagnostic>), Vec<Diagnostic>> {
    let root = parse_value(file, &src.text)?;
    let mut cx = Decoder { file, src: Some(src), diags: Vec::new(), notes: Vec::new() };
    // The value tree is taken apart as the model is built from it, so that it is freed as
    // the model grows (for a file as large as a generated configuration).
    let body = cx.body(root, Schema::Top);
    Ok((ParsedFile { file, body, notes: cx.notes, ..Default::default() }, cx.diags))
}

/// Parses a JSON document (strict JSON, as Terraform reads it) into a value tree with spans:
/// configuration files and `.tfvars.json` files alike. HCL's JSON parser reads both, so
/// both get its errors: a document that does not start with a value (an empty file, a
/// byte order mark, a bare word) and a root that is no object or array.
pub(crate) fn parse_value(file: FileId, text: &str) -> Result<JsonNode, Vec<Diagnostic>> {
    read_checked(file, text, &mut Nodes)
}

/// Reads a JSON document with `b`, after the checks HCL's JSON parser makes (the depth
/// first, then its errors, as Terraform reports them): the document is then JSON.
pub(crate) fn read_checked<'t, B: Build<'t>>(
    file: FileId,
    text: &'t str,
    b: &mut B,
) -> Result<B::Out, Vec<Diagnostic>> {
    if let Some(pos) = too_deep(text) {
        return Err(vec![Diagnostic::error(
            "Nesting too deep",
            format!(
                "JSON values may be nested at most {MAX_DEPTH} levels deep, where an array counts one level and an object two."
            ),
            Span::new(file, pos, pos + 1),
        )]);
    }
    // HCL's errors, as Terraform reports them (the value is read below once there are none).
    let errors = override_guard_hcl::json::check(text);
    if !errors.is_empty() {
        return Err(errors
            .into_iter()
            .map(|(summary, detail, start, end)| {
                Diagnostic::error(summary, detail, Span::new(file, start, end))
            })
            .collect());
    }
    read::read(file, text, b)
}

/// Builds the value tree with spans.
struct Nodes;

impl<'t> Build<'t> for Nodes {
    type Out = JsonNode;

    fn scalar(&mut self, _: usize, s: Scalar<'t>, span: Span) -> JsonNode {
        let value = match s {
            Scalar::Null => JsonValue::Null,
            Scalar::Bool(b) => JsonValue::Bool(b),
            Scalar::Number(n) => JsonValue::Number(n.to_string()),
            Scalar::String(s) => JsonValue::String(s.into_owned()),
        };
        JsonNode { span, value }
    }

    fn array(&mut self, _: usize, mut items: Vec<JsonNode>, span: Span) -> JsonNode {
        items.shrink_to_fit();
        JsonNode { span, value: JsonValue::Array(items) }
    }

    fn object(
        &mut self,
        _: usize,
        props: Vec<(Cow<'t, str>, Span, JsonNode)>,
        span: Span,
    ) -> JsonNode {
        let mut props: Vec<_> =
            props.into_iter().map(|(k, ks, v)| (k.into_owned(), ks, v)).collect();
        // Collected in place, the list keeps the room the reader's list had.
        props.shrink_to_fit();
        JsonNode { span, value: JsonValue::Object(props) }
    }
}

/// Nested blocks of type `kind` from a JSON value whose meaning a native-syntax layer settled.
pub(crate) fn blocks_from_value(kind: &str, n: &JsonNode) -> Vec<Block> {
    let mut cx = Decoder { file: n.span.file, src: None, diags: Vec::new(), notes: Vec::new() };
    let mut out = Vec::new();
    cx.blocks((kind, n.span), n.span, 0, Schema::Unknown, n.clone(), &mut Vec::new(), &mut out);
    out
}

/// A JSON value read as an attribute's expression.
pub(crate) fn expr_from_value(n: &JsonNode) -> Expr {
    Decoder { file: n.span.file, src: None, diags: Vec::new(), notes: Vec::new() }.expr(n.clone())
}

/// A value Terraform reads without an evaluation context: HCL's JSON syntax then takes
/// every string as it is, `${` and `$${` included, never as a template.
fn literal(n: JsonNode) -> Expr {
    let kind = match n.value {
        JsonValue::Null => ExprKind::Null,
        JsonValue::Bool(b) => ExprKind::Bool(b),
        JsonValue::Number(s) => ExprKind::Number(s),
        JsonValue::String(s) => ExprKind::Template(vec![TplPart::Lit(s)]),
        JsonValue::Array(a) => ExprKind::tuple(a.into_iter().map(literal).collect()),
        JsonValue::Object(props) => ExprKind::object(
            props.into_iter().map(|(k, _, v)| (ObjKey::Name(k), literal(v))).collect(),
        ),
    };
    Expr::new(kind, n.span)
}

/// Where the JSON reader's depth (see [`MAX_DEPTH`]) first goes past the limit.
fn too_deep(input: &str) -> Option<usize> {
    let (mut depth, mut in_str, mut esc) = (0usize, false, false);
    for (i, b) in input.bytes().enumerate() {
        if in_str {
            // As HCL's scanner reads strings: a control character ends one too.
            match (esc, b) {
                (_, 0..=31) => in_str = false,
                (true, _) => esc = false,
                (false, b'\\') => esc = true,
                (false, b'"') => in_str = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_str = true,
            b'{' | b'[' => {
                depth += if b == b'{' { 2 } else { 1 };
                if depth > MAX_DEPTH {
                    return Some(i);
                }
            }
            b'}' => depth = depth.saturating_sub(2),
            b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

fn kind_name(v: &JsonValue) -> &'static str {
    match v {
        JsonValue::Null => "null",
        JsonValue::Bool(_) => "bool",
        JsonValue::Number(_) => "number",
        JsonValue::String(_) => "string",
        JsonValue::Array(_) => "array",
        JsonValue::Object(_) => "object",
    }
}

struct Decoder<'s> {
    file: FileId,
    src: Option<&'s SourceText>,
    diags: Vec<Diagnostic>,
    notes: Vec<Note>,
}

impl Decoder<'_> {
    /// Decodes an object (or array of objects, flattened) as a body with `schema`.
    fn body(&mut self, n: JsonNode, schema: Schema) -> Body {
        let covers = n.span;
        let mut props: Vec<(String, Span, JsonNode)> = Vec::new();
        self.collect_props(n, &mut props);
        // Room for one item a property: a block body holds a few, and pushing onto an
        // empty list makes room for four items of 200 bytes.
        let mut items: Vec<Item> = Vec::with_capacity(props.len());
        // The attributes set so far, by name: searching the items for each one made a
        // body of many thousands quadratic (50,000 attributes took four seconds).
        let mut set: std::collections::HashMap<String, Span> = std::collections::HashMap::new();
        for (name, name_span, value) in props {
            let span = Span::new(self.file, name_span.start, value.span.end);
            match schema.prop(&name) {
                Prop::Comment => self.note(value, covers),
                Prop::Block(labels, child) => {
                    let mut out = Vec::new();
                    self.blocks(
                        (&name, name_span),
                        name_span,
                        labels,
                        child,
                        value,
                        &mut Vec::new(),
                        &mut out,
                    );
                    items.extend(out.into_iter().map(Item::Block));
                }
                // At the top level every property names a block type: an unknown one is an
                // error whatever its value (a misspelt `resourse` must not vanish quietly).
                Prop::Unknown if schema == Schema::Top => {
                    // Terraform's kinds, in the order its JSON reader suggests them.
                    let mut known: Vec<&str> = KINDS
                        .iter()
                        .filter(|k| k.schema.is_some() && k.engines != Engines::OpenTofu)
                        .map(|k| k.name)
                        .collect();
                    known.sort_unstable();
                    let hint = known
                        .iter()
                        .find(|k| strsim::levenshtein(k, &name) < 3)
                        .map(|k| format!(" Did you mean \"{k}\"?"))
                        .unwrap_or_default();
                    self.diags.push(Diagnostic::error(
                        "Extraneous JSON object property",
                        format!("No argument or block type is named \"{name}\".{hint}"),
                        name_span,
                    ))
                }
                Prop::Unknown
                    if matches!(
                        value.value,
                        JsonValue::Object(_) | JsonValue::Array(_) | JsonValue::Null
                    ) =>
                {
                    items.push(Item::Json(JsonProp {
                        name,
                        name_span,
                        value,
                        span,
                        displaced: Vec::new(),
                    }))
                }
                prop => {
                    if let Some(&prev) = set.get(name.as_str()) {
                        self.diags.push(
                            Diagnostic::error(
                                "Duplicate argument",
                                format!(
                                    "The argument \"{name}\" was already set at {}.",
                                    self.src
                                        .map(|s| s.range_string(prev.start, prev.end))
                                        .unwrap_or_default()
                                ),
                                name_span,
                            )
                            .with_related(prev, "first set here"),
                        );
                        continue;
                    }
                    let expr = match prop {
                        Prop::Ref => self.reference(value),
                        Prop::Literal => literal(value),
                        Prop::RefList => self.ref_list(value),
                        Prop::RefMap => self.ref_map(value),
                        _ if schema == Schema::RequiredProviders => self.requirement(value),
                        _ => self.expr(value),
                    };
                    set.insert(name.clone(), name_span);
                    items.push(Item::Attr(Attr {
                        name,
                        name_span,
                        expr,
                        span,
                        displaced: Vec::new(),
                    }));
                }
            }
        }
        Body::new(items)
    }

    fn collect_props(&mut self, n: JsonNode, out: &mut Vec<(String, Span, JsonNode)>) {
        match n.value {
            JsonValue::Object(props) if out.is_empty() => *out = props,
            JsonValue::Object(props) => out.extend(props),
            JsonValue::Array(elems) => {
                for e in elems {
                    self.collect_props(e, out);
                }
            }
            other => self.diags.push(Diagnostic::error(
                "Incorrect JSON value type",
                format!(
                    "A JSON object is required here, not {}, to define arguments and blocks.",
                    kind_name(&other)
                ),
                n.span,
            )),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn blocks(
        &mut self,
        (kind, type_span): (&str, Span),
        key_span: Span,
        labels: usize,
        schema: Schema,
        n: JsonNode,
        prefix: &mut Vec<(String, Span)>,
        out: &mut Vec<Block>,
    ) {
        let span = n.span;
        match n.value {
            JsonValue::Null => {}
            JsonValue::Array(elems) => {
                for e in elems {
                    self.blocks((kind, type_span), key_span, labels, schema, e, prefix, out);
                }
            }
            JsonValue::Object(props) if labels > 0 => {
                for (label, label_span, v) in props {
                    if label == "//" {
                        self.note(v, span);
                        continue;
                    }
                    prefix.push((label, label_span));
                    self.blocks((kind, type_span), label_span, labels - 1, schema, v, prefix, out);
                    prefix.pop();
                }
            }
            value @ JsonValue::Object(_) => out.push(Block {
                kind: kind.to_string(),
                labels: prefix.iter().map(|(l, _)| l.clone()).collect(),
                def_span: key_span,
                type_span,
                label_spans: prefix.iter().map(|(_, s)| *s).collect(),
                open_span: Span::new(span.file, span.start, span.start + 1),
                span,
                body: self.body(JsonNode { span, value }, schema),
                displaced: Vec::new(),
            }),
            other => self.diags.push(Diagnostic::error(
                "Incorrect JSON value type",
                format!(
                    "A JSON object is required here, not {}, to define a \"{kind}\" block.",
                    kind_name(&other)
                ),
                span,
            )),
        }
    }

    /// Keeps a `"//"` comment's text for the policy (warning comments, suppressions).
    fn note(&mut self, value: JsonNode, covers: Span) {
        if let JsonValue::String(text) = value.value {
            self.notes.push(Note { span: value.span, text, covers });
        }
    }

    /// A value in expression mode: strings are templates.
    ///
    /// (See [`literal`] for values Terraform reads without evaluating them.)
    fn expr(&mut self, n: JsonNode) -> Expr {
        let kind = match n.value {
            JsonValue::Null => ExprKind::Null,
            JsonValue::Bool(b) => ExprKind::Bool(b),
            JsonValue::Number(s) => ExprKind::Number(s),
            JsonValue::String(s) => ExprKind::Template(self.template(s, n.span)),
            JsonValue::Array(a) => ExprKind::tuple(a.into_iter().map(|e| self.expr(e)).collect()),
            JsonValue::Object(props) => ExprKind::object(
                props
                    .into_iter()
                    .map(|(k, ks, v)| {
                        let key = if k.contains("${") || k.contains("%{") {
                            ObjKey::Expr(Box::new(Expr::new(
                                ExprKind::Template(self.template(k, ks)),
                                ks,
                            )))
                        } else {
                            ObjKey::Name(k)
                        };
                        (key, self.expr(v))
                    })
                    .collect(),
            ),
        };
        Expr::new(kind, n.span)
    }

    fn template(&mut self, s: String, span: Span) -> Vec<TplPart> {
        if !s.contains("${") && !s.contains("%{") {
            return vec![TplPart::Lit(s)];
        }
        let (parts, errors) = crate::terraform::hcl::json_template(&s);
        for e in errors {
            self.diags.push(Diagnostic::error(e.summary, e.detail, span));
        }
        parts
    }

    /// A string holding a bare expression (reference, keyword, type constraint).
    fn reference(&mut self, n: JsonNode) -> Expr {
        match n.value {
            JsonValue::String(s) => {
                let s = s.trim();
                // A reference may also be written as a template around it.
                let s = s.strip_prefix("${").and_then(|r| r.strip_suffix('}')).unwrap_or(s);
                Expr::new(ExprKind::Raw(s.trim().into()), n.span)
            }
            value => self.expr(JsonNode { span: n.span, value }),
        }
    }

    fn ref_list(&mut self, n: JsonNode) -> Expr {
        match n.value {
            JsonValue::Array(a) => Expr::new(
                ExprKind::tuple(a.into_iter().map(|e| self.reference(e)).collect()),
                n.span,
            ),
            value => self.reference(JsonNode { span: n.span, value }),
        }
    }

    fn ref_map(&mut self, n: JsonNode) -> Expr {
        match n.value {
            JsonValue::Object(props) => Expr::new(
                ExprKind::object(
                    props
                        .into_iter()
                        .map(|(k, _, v)| (ObjKey::Name(k), self.reference(v)))
                        .collect(),
                ),
                n.span,
            ),
            value => self.expr(JsonNode { span: n.span, value }),
        }
    }

    /// A `required_providers` entry: `configuration_aliases` holds references.
    fn requirement(&mut self, n: JsonNode) -> Expr {
        match n.value {
            JsonValue::Object(props) => Expr::new(
                ExprKind::object(
                    props
                        .into_iter()
                        .map(|(k, _, v)| {
                            let e = if k == "configuration_aliases" {
                                self.ref_list(v)
                            } else {
                                literal(v)
                            };
                            (ObjKey::Name(k), e)
                        })
                        .collect(),
                ),
                n.span,
            ),
            value => self.expr(JsonNode { span: n.span, value }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROOT_SUMMARY: &str = "Root value must be object";
    const ROOT_DETAIL: &str = "The root value in a JSON-based configuration must be either a JSON object or a JSON array of objects.";

    fn src(text: &str) -> SourceText {
        SourceText::new(
            "main.tf.json".into(),
            crate::terraform::FileClass::Primary,
            crate::terraform::Syntax::Json,
            text.into(),
        )
    }

    fn body(text: &str) -> Body {
        let (f, diags) = parse(0, &src(text)).expect("parses");
        assert!(diags.is_empty(), "{diags:?}");
        f.body
    }

    #[test]
    fn labels_nest_and_arrays_repeat_blocks() {
        let b = body(
            r#"{"resource": {"aws_instance": {"web": {"ami": "x", "ebs": [{"a": 1}, {"a": 2}]}}},
                         "provider": {"aws": [{"region": "a"}, {"alias": "b", "region": "b"}]}}"#,
        );
        let blocks: Vec<_> = b.blocks().collect();
        assert_eq!(blocks.len(), 3);
        assert_eq!(blocks[0].labels, vec!["aws_instance", "web"]);
        assert!(matches!(blocks[0].body.items[1], Item::Json(_)));
        assert_eq!(blocks[2].attr("alias").and_then(|a| a.expr.as_str()).as_deref(), Some("b"));
    }

    #[test]
    fn references_are_bare_expressions_and_comments_are_skipped() {
        let b = body(
            r#"{"resource": {"a": {"b": {"//": "note", "depends_on": ["aws_vpc.x"],
                         "lifecycle": {"ignore_changes": "all"}}}}}"#,
        );
        let r = b.blocks().next().expect("block");
        assert_eq!(r.body.items.len(), 2);
        let dep = r.attr("depends_on").expect("depends_on");
        assert_eq!(
            dep.expr.as_tuple().map(|t| t[0].kind.clone()),
            Some(ExprKind::Raw("aws_vpc.x".into()))
        );
        let lc = r.body.blocks_of("lifecycle").next().expect("lifecycle");
        assert_eq!(lc.attr("ignore_changes").and_then(|a| a.expr.as_keyword()), Some("all"));
    }

    #[test]
    fn null_is_zero_blocks_and_strict_json_is_required() {
        let b = body(r#"{"terraform": null}"#);
        assert!(b.items.is_empty());
        let err = parse(0, &src("{\"a\": 1,}")).expect_err("trailing comma");
        assert_eq!(err[0].summary, "Trailing comma in object");
    }

    #[test]
    fn a_document_without_a_value_gets_hcls_errors_and_the_root_error() {
        let errs = |text: &str| {
            parse_value(0, text)
                .expect_err("refused")
                .iter()
                .map(|d| {
                    let at = d.subject.expect("subject");
                    (d.summary.clone(), d.detail.clone(), at.start, at.end)
                })
                .collect::<Vec<_>>()
        };
        let root =
            |at: usize, end: usize| (ROOT_SUMMARY.to_string(), ROOT_DETAIL.to_string(), at, end);
        let start =
            "A JSON value must start with a brace, a bracket, a number, a string, or a keyword.";
        assert_eq!(
            errs(" \n\t"),
            vec![
                ("Missing value".into(), "The JSON data ends prematurely.".into(), 3, 3),
                root(3, 3)
            ]
        );
        // A byte order mark is no whitespace to HCL (the span covers the whole character).
        assert_eq!(
            errs("\u{feff}{}"),
            vec![("Invalid start of value".into(), start.into(), 0, 3), root(0, 3)]
        );
        assert_eq!(
            errs("terraform {}"),
            vec![
                (
                    "Invalid JSON keyword".into(),
                    "\"terraform\" is not a valid JSON keyword.".into(),
                    0,
                    9
                ),
                root(0, 9)
            ]
        );
        assert_eq!(
            errs("nul"),
            vec![
                (
                    "Invalid JSON keyword".into(),
                    "\"nul\" is not a valid JSON keyword. Did you mean \"null\"?".into(),
                    0,
                    3
                ),
                root(0, 3)
            ]
        );
        assert_eq!(errs("]")[0].0, "Missing array element value");
        assert_eq!(errs(" \"x\""), vec![root(1, 4)]);
        assert!(parse_value(0, "[]").is_ok());
    }

    #[test]
    fn a_control_character_in_a_string_is_refused_at_the_character() {
        let errs = parse_value(0, "{\"locals\": {\"a\": \"x\ty\"}}").expect_err("refused");
        assert_eq!(errs[0].summary, "Invalid JSON string");
        assert_eq!(errs[0].subject.map(|s| (s.start, s.end)), Some((19, 20)));
        // Escaped, it is a tab.
        assert!(parse_value(0, "{\"locals\": {\"a\": \"x\\ty\\\\\"}}").is_ok());
    }

    /// Terraform reads 255 arrays in a `locals` value (found on a real repository); the
    /// limit is the JSON reader's own, an array counting one level and an object two.
    #[test]
    fn json_nests_up_to_the_readers_limit() {
        let deep = || {
            let doc = |arrays: usize, objects: usize| {
                format!(
                    "{{\"locals\": {{\"x\": {}{}1{}{}}}}}",
                    "[".repeat(arrays),
                    "{\"a\": ".repeat(objects),
                    "}".repeat(objects),
                    "]".repeat(arrays)
                )
            };
            // `{"locals": {"x": …}}` is two objects, four levels.
            assert!(parse_value(0, &doc(MAX_DEPTH - 4, 0)).is_ok());
            assert!(parse_value(0, &doc(0, (MAX_DEPTH - 4) / 2)).is_ok());
            assert!(parse_value(0, &doc(MAX_DEPTH - 6, 1)).is_ok());
            for over in
                [doc(MAX_DEPTH - 3, 0), doc(0, (MAX_DEPTH - 4) / 2 + 1), doc(MAX_DEPTH - 5, 1)]
            {
                let errs = parse_value(0, &over).expect_err("too deep");
                assert_eq!(errs[0].summary, "Nesting too deep");
            }
        };
        // The binary's threads have large stacks; a test thread's default is small.
        std::thread::Builder::new()
            .stack_size(64 << 20)
            .spawn(deep)
            .expect("thread")
            .join()
            .expect("no panic");
    }
}
