//! The effective configuration in Terraform's JSON configuration syntax: one document that
//! Terraform accepts as `main.tf.json`. Expressions become `"${…}"` templates, except where
//! Terraform expects bare references (`depends_on`, `provider`, a variable's `type`, …).

use serde_json::{Map, Value, json};

use super::{JsonForm, Shape, Shapes, left_out};
use crate::merge::Module;
use crate::terraform::Span;
use crate::terraform::schema::{Prop, Schema};
use crate::terraform::{Attr, Block, Body, Item, json};

/// Renders the module as a JSON document (pretty-printed, trailing newline).
pub fn render(m: &Module) -> String {
    let mut s = serde_json::to_string_pretty(&document(m)).unwrap_or_default();
    s.push('\n');
    s
}

/// The document as a value.
pub fn document(m: &Module) -> Value {
    let mut top = Map::new();
    let shapes = Shapes::of(m);
    let st = &m.settings;
    if !st.is_empty() {
        let mut t = Map::new();
        if let Some(v) = st.required_version.last() {
            // Several constraints must all hold; JSON has one property, so join them.
            let all: Vec<String> =
                st.required_version.iter().filter_map(|a| a.expr.as_str()).collect();
            let value = if all.len() == st.required_version.len() {
                json!(all.join(", "))
            } else {
                v.expr.to_json()
            };
            t.insert("required_version".into(), value);
        }
        if !st.required_providers.is_empty() {
            let mut rp = Map::new();
            for a in &st.required_providers {
                rp.insert(a.name.clone(), a.to_json(Schema::RequiredProviders));
            }
            t.insert("required_providers".into(), Value::Object(rp));
        }
        let mut body = Body::default();
        for b in [&st.backend, &st.cloud, &st.state_store, &st.encryption].into_iter().flatten() {
            body.items_mut().push(Item::Block(b.clone()));
        }
        body.items_mut().extend(st.other.iter().cloned());
        for (k, v) in body_map(&body, Schema::Terraform, None, "terraform") {
            t.insert(k, v);
        }
        top.insert("terraform".into(), Value::Object(t));
    }
    if !m.locals.is_empty() {
        let mut l = Map::new();
        for a in &m.locals {
            l.insert(a.name.clone(), a.expr.to_json());
        }
        top.insert("locals".into(), Value::Object(l));
    }
    // What one block cannot say as Terraform merged it: the printed module keeps what
    // Terraform uses (see `left_out`).
    let left: Vec<Span> = left_out(m).into_iter().map(|l| l.span).collect();
    for b in &m.blocks {
        let schema = Schema::top_block(&b.kind).map_or(Schema::Unknown, |(_, s)| s);
        let entry = top.entry(b.kind.clone()).or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(list) = entry {
            let mut v = labelled_shaped(b, schema, shapes.top(b));
            if left.iter().any(|s| b.body.attrs().any(|a| a.span == *s)) {
                let mut b = b.clone();
                b.body
                    .items_mut()
                    .retain(|i| !matches!(i, Item::Attr(a) if left.contains(&a.span)));
                v = labelled_shaped(&b, schema, shapes.top(&b));
            }
            list.push(v);
        }
    }
    Value::Object(top)
}

/// A block as Terraform's JSON syntax writes it: its labels as nested object keys.
pub(crate) fn labelled(b: &Block, schema: Schema) -> Value {
    labelled_shaped(b, schema, None)
}

/// [`labelled`], with how native-syntax files write the block's body ([`Shape`]): a JSON
/// property they write as nested blocks is printed as the list of blocks it is.
fn labelled_shaped(b: &Block, schema: Schema, shape: Option<&Shape>) -> Value {
    let mut v = Value::Object(body_map(&b.body, schema, shape, &b.kind));
    for l in b.labels.iter().rev() {
        let mut o = Map::new();
        o.insert(l.clone(), v);
        v = Value::Object(o);
    }
    v
}

fn body_map(body: &Body, schema: Schema, shape: Option<&Shape>, kind: &str) -> Map<String, Value> {
    let escaped;
    let body = match escape(body, schema) {
        Some(b) => {
            escaped = b;
            &escaped
        }
        None => body,
    };
    let mut out = Map::new();
    let block = |out: &mut Map<String, Value>, b: &Block| {
        let child = schema.child(&b.kind);
        let entry = out.entry(b.kind.clone()).or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(list) = entry {
            list.push(labelled_shaped(b, child, Shape::child(shape, kind, b)));
        }
    };
    for item in body.items.iter() {
        match item {
            Item::Attr(a) => {
                out.insert(a.name.clone(), a.to_json(schema));
            }
            Item::Json(j) => match JsonForm::of(shape, j) {
                // No blocks (`[]`) print as nothing, as in native syntax.
                JsonForm::Blocks(blocks) => {
                    for b in &blocks {
                        block(&mut out, b);
                    }
                }
                // As read (strings as templates), so that it prints as the same argument
                // written in either syntax does.
                JsonForm::Argument { .. } => {
                    out.insert(j.name.clone(), json::expr_from_value(&j.value).to_json());
                }
            },
            Item::Block(b) => block(&mut out, b),
        }
    }
    out
}

/// Does Terraform's JSON syntax read a property of this name, in a body of this schema, as
/// nested blocks? Then an argument of that name (`lifecycle = {…}` written with `=`, which
/// Terraform leaves for the provider) cannot be written under its name.
pub(crate) fn read_as_blocks(schema: Schema, name: &str) -> bool {
    matches!(schema.prop(name), Prop::Block(..))
}

/// The first argument in `body` (a body of `schema`) or in its nested blocks that
/// Terraform's JSON syntax would read as nested blocks under its name (see
/// [`read_as_blocks`]).
pub(crate) fn first_read_as_blocks(body: &Body, schema: Schema) -> Option<&Attr> {
    body.items.iter().find_map(|item| match item {
        Item::Attr(a) if read_as_blocks(schema, &a.name) => Some(a),
        Item::Block(b) => first_read_as_blocks(&b.body, schema.child(&b.kind)),
        _ => None,
    })
}

/// Can an argument JSON would read as blocks go in the body's escaping block `_`? Where the
/// body has one and the name is no block type in it either (a `dynamic` property is
/// dynamic blocks everywhere a provider's schema applies, `_` included).
fn escapable(schema: Schema, name: &str) -> bool {
    read_as_blocks(schema, "_") && !read_as_blocks(schema.child("_"), name)
}

/// An argument of the module that Terraform's JSON syntax cannot hold: written under its
/// name it would be read as nested blocks (`dynamic = {…}` as dynamic blocks, a dynamic
/// block's `content = {…}` as its content), and the body has no escaping block that could
/// hold it. The printed document leaves it out; `show --format tf-json` refuses.
#[derive(Debug)]
pub(crate) struct Unwritable {
    pub span: Span,
    pub name: String,
}

/// Every [`Unwritable`] argument of the module, in order.
pub(crate) fn unwritable(m: &Module) -> Vec<Unwritable> {
    fn walk(body: &Body, schema: Schema, out: &mut Vec<Unwritable>) {
        for item in body.items.iter() {
            match item {
                Item::Attr(a) if read_as_blocks(schema, &a.name) && !escapable(schema, &a.name) => {
                    out.push(Unwritable { span: a.span, name: a.name.clone() })
                }
                Item::Block(b) => walk(&b.body, schema.child(&b.kind), out),
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    for b in &m.blocks {
        walk(&b.body, Schema::top_block(&b.kind).map_or(Schema::Unknown, |(_, s)| s), &mut out);
    }
    out
}

/// The body with every argument that JSON would read as blocks moved into its escaping
/// block `_` (made where the body has none), whose content Terraform hands to the provider,
/// the called module or the provisioner exactly as an argument of the body itself; an
/// argument no escaping block can hold is left out (see [`Unwritable`]). `None`: nothing to
/// move.
fn escape(body: &Body, schema: Schema) -> Option<Body> {
    let moves = |a: &Attr| read_as_blocks(schema, &a.name);
    if !body.attrs().any(moves) {
        return None;
    }
    let mut items = Vec::new();
    let mut moved: Vec<Item> = Vec::new();
    let mut at = None;
    for item in body.items.iter() {
        match item {
            Item::Attr(a) if moves(a) => {
                if escapable(schema, &a.name) {
                    at.get_or_insert(items.len());
                    moved.push(item.clone());
                }
            }
            _ => items.push(item.clone()),
        }
    }
    if moved.is_empty() {
        return Some(Body::new(items));
    }
    let existing = items.iter_mut().find_map(|i| match i {
        Item::Block(b) if b.kind == "_" => Some(b),
        _ => None,
    });
    match existing {
        Some(b) => b.body.items_mut().extend(moved),
        None => {
            let span = match moved.first() {
                Some(Item::Attr(a)) => a.span,
                _ => Span::default(),
            };
            let b = Block {
                kind: "_".into(),
                labels: Vec::new(),
                def_span: span,
                type_span: span,
                label_spans: Vec::new(),
                open_span: span,
                span,
                body: Body::new(moved),
                displaced: Vec::new(),
            };
            items.insert(at.unwrap_or(items.len()), Item::Block(b));
        }
    }
    Some(Body::new(items))
}

#[cfg(test)]
mod tests {
    use crate::merge::load_texts;
    use serde_json::json;

    /// Terraform's JSON syntax spells references as bare strings, and takes descriptions
    /// and defaults as literal text.
    #[test]
    fn legacy_quoted_references_are_bare_and_static_strings_unescaped() {
        let main = "resource \"null_resource\" \"r\" {\n  provider   = \"null.foo\"\n  depends_on = [\"null_resource.s\"]\n  lifecycle {\n    ignore_changes = [\"triggers\"]\n  }\n}\nvariable \"v\" {\n  description = \"a $${x} b\"\n  default     = \"d $${y}\"\n}\nlocals {\n  t = \"e $${z}\"\n}\n";
        let d = super::document(&load_texts("", &[("main.tf", main)], None));
        let r = &d["resource"][0]["null_resource"]["r"];
        assert_eq!(r["provider"], json!("null.foo"));
        assert_eq!(r["depends_on"], json!(["null_resource.s"]));
        assert_eq!(r["lifecycle"][0]["ignore_changes"], json!(["triggers"]));
        let v = &d["variable"][0]["v"];
        assert_eq!(v["description"], json!("a ${x} b"));
        assert_eq!(v["default"], json!("d ${y}"));
        // A local value is a template: its literal `${` stays escaped.
        assert_eq!(d["locals"]["t"], json!("e $${z}"));
    }

    /// Terraform 1.15 evaluates a module call's source and version: in JSON syntax they
    /// are templates, so `"${var.path}"` prints as the expression and `$${` stays text.
    #[test]
    fn json_module_source_and_version_are_expressions() {
        let main = "module \"m\" {\n  source = \"./a\"\n}\nmodule \"n\" {\n  source = \"./a\"\n}\n";
        let over = r#"{"module": {"m": {"source": "${var.path}", "version": "${var.v}"}, "n": {"source": "./$${x}"}}}"#;
        let m = load_texts("", &[("main.tf", main), ("override.tf.json", over)], None);
        let hcl = crate::render::hcl::render(&m);
        assert!(
            hcl.contains("  source  = var.path ") && hcl.contains("  version = var.v "),
            "{hcl}"
        );
        assert!(hcl.contains("  source = \"./$${x}\" "), "{hcl}");
        let d = super::document(&m);
        assert_eq!(d["module"][0]["m"]["source"], json!("${var.path}"));
        assert_eq!(d["module"][0]["m"]["version"], json!("${var.v}"));
        assert_eq!(d["module"][1]["n"]["source"], json!("./$${x}"));
    }

    /// JSON syntax reads a directive as it is: no `<<-` indentation to remove, no strip
    /// markers left to apply, no backslash escapes. Each is printed as its value needs.
    #[test]
    fn template_directives_print_as_json_syntax_reads_them() {
        let main = "locals {\n  b = <<-EOT\n    %{~ if true ~}\n      yes\n    %{~ else ~}\n    no\n    %{~ endif ~}\n    ${ \"z\" }\n  EOT\n  d = \"%{ if true }a\\\"b\\\\c $${y}%{ endif }\"\n}\n";
        let d = super::document(&load_texts("", &[("main.tf", main)], None));
        assert_eq!(
            d["locals"]["b"],
            json!("%{if true}      yes\n%{else}    no\n%{endif}    ${\"z\"}\n")
        );
        assert_eq!(d["locals"]["d"], json!("%{if true}a\"b\\c $${y}%{endif}"));
    }

    /// An argument named like a block type of its body (`lifecycle = {…}`, left for the
    /// provider) goes in the body's escaping block `_`, which JSON reads as the body's own
    /// arguments; a `_` block the body has takes it. What no escaping block can hold
    /// (`dynamic = …`, a dynamic block's `content = …`) is left out, and listed.
    #[test]
    fn arguments_named_like_blocks_are_written_in_the_escaping_block() {
        let main = "resource \"a\" \"b\" {\n  x         = 1\n  lifecycle = { prevent_destroy = true }\n  lifecycle {\n    create_before_destroy = true\n  }\n}\nresource \"a\" \"c\" {\n  _ {\n    count = 2\n  }\n  connection = { host = \"h\" }\n  dynamic    = { y = 1 }\n  dynamic \"d\" {\n    for_each = []\n    content  = { z = 1 }\n  }\n}\nmodule \"m\" {\n  source = \"./m\"\n  locals = 1\n}\n";
        let m = load_texts("", &[("main.tf", main)], None);
        assert!(!m.has_errors(), "{:?}", m.diagnostics);
        let d = super::document(&m);
        let b = &d["resource"][0]["a"]["b"];
        assert_eq!(b["_"], json!([{"lifecycle": {"prevent_destroy": true}}]));
        assert_eq!(b["lifecycle"], json!([{"create_before_destroy": true}]));
        let c = &d["resource"][1]["a"]["c"];
        assert_eq!(c["_"], json!([{"count": 2, "connection": {"host": "h"}}]));
        assert_eq!(c.get("dynamic").map(|v| v[0].get("d").is_some()), Some(true));
        assert_eq!(c["dynamic"][0]["d"][0].get("content"), None);
        assert_eq!(c["dynamic"].as_array().map(Vec::len), Some(1));
        assert_eq!(d["module"][0]["m"]["_"], json!([{"locals": 1}]));
        let names: Vec<String> = super::unwritable(&m).into_iter().map(|u| u.name).collect();
        assert_eq!(names, ["dynamic", "content"]);
    }

    /// Terraform reads a JSON reference with a traversal parser that takes no legacy
    /// index (`Invalid expression` on `"triggers.0.x"`), so `.0` is written `[0]`.
    #[test]
    fn legacy_indexes_in_references_are_written_in_brackets() {
        let main = "resource \"null_resource\" \"r\" {\n  depends_on = [null_resource.s.0]\n  lifecycle {\n    ignore_changes       = [triggers.0.x]\n    replace_triggered_by = [null_resource.s.1.id]\n  }\n}\n";
        let d = super::document(&load_texts("", &[("main.tf", main)], None));
        let r = &d["resource"][0]["null_resource"]["r"];
        assert_eq!(r["depends_on"], json!(["null_resource.s[0]"]));
        assert_eq!(r["lifecycle"][0]["ignore_changes"], json!(["triggers[0].x"]));
        assert_eq!(r["lifecycle"][0]["replace_triggered_by"], json!(["null_resource.s[1].id"]));
    }
}
