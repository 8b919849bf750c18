//! The effective configuration in Terraform's JSON configuration syntax: one document that
//! Terraform accepts as `main.tf.json`. Expressions become `"${…}"` templates, except where
//! Terraform expects bare references (`depends_on`, `provider`, a variable's `type`, …).

use serde_json::{Map, Value, json};

use super::{JsonForm, Shape, Shapes, left_out};
use crate::merge::Module;
use crate::terraform::Span;
use crate::terraform::schema::Schema;
use crate::terraform::{Block, Body, Item, json};

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
