//! Printing an effective configuration: native HCL with provenance comments, Terraform's
//! JSON syntax, override-guard's own JSON view, and Terraform's JSON configuration
//! representation (`terraform show -json`'s `configuration`). Pure: returns strings.

pub mod configjson;
pub mod hcl;
pub mod json;
pub mod tfjson;

use crate::merge::Module;
use crate::terraform::Span;

/// `{"file": …, "line": …, "column": …}` of a span, with the module-relative file name.
pub(crate) fn location(m: &Module, span: Span) -> serde_json::Value {
    let f = m.files.get(span.file);
    let (line, column) = f.line_col(span.start);
    serde_json::json!({ "file": f.path, "line": line, "column": column })
}

use std::collections::{HashMap, HashSet};

use crate::terraform::{Block, Body, Item, JsonNode, JsonProp, JsonValue, Syntax};

/// How the module's native-syntax files write the nested blocks of one provider-defined
/// block type (and, inside each, of theirs): JSON syntax cannot tell an argument holding an
/// object from a nested block, and Terraform tells them apart by the provider's schema,
/// which these files are the only witness of here.
#[derive(Debug, Default)]
pub(crate) struct Shape {
    blocks: HashMap<String, Shape>,
    attrs: HashSet<String>,
}

impl Shape {
    fn learn(&mut self, body: &Body) {
        for item in body.items.iter() {
            match item {
                Item::Attr(a) => {
                    self.attrs.insert(a.name.clone());
                }
                Item::Block(b) => {
                    let inner = self.blocks.entry(item.merge_name().to_string()).or_default();
                    if b.kind == "dynamic" {
                        for c in b.body.blocks_of("content") {
                            inner.learn(&c.body);
                        }
                    } else {
                        inner.learn(&b.body);
                    }
                }
                Item::Json(_) => {}
            }
        }
    }

    /// The shape of nested block `b` of a body of this shape (`parent`: that body's block
    /// kind; a dynamic block's `content` has the shape of the blocks it makes).
    pub(crate) fn child<'a>(
        shape: Option<&'a Shape>,
        parent: &str,
        b: &Block,
    ) -> Option<&'a Shape> {
        if parent == "dynamic" && b.kind == "content" {
            return shape;
        }
        let name = if b.kind == "dynamic" { b.labels.first()? } else { &b.kind };
        shape?.blocks.get(name)
    }
}

/// The [`Shape`] of every provider-defined block type the native-syntax files write.
#[derive(Debug, Default)]
pub(crate) struct Shapes(HashMap<(String, String), Shape>);

impl Shapes {
    pub(crate) fn of(m: &Module) -> Shapes {
        let mut out = Shapes::default();
        // Only JSON syntax leaves a property undecided: without it, nothing to learn.
        if !m.files.files.iter().any(|f| f.syntax == Syntax::Json) {
            return out;
        }
        for pf in &m.parsed {
            if m.files.files.get(pf.file).map(|f| f.syntax) != Some(Syntax::Hcl) {
                continue;
            }
            for b in pf.body.blocks() {
                if let Some(key) = Self::key(b) {
                    out.0.entry(key).or_default().learn(&b.body);
                }
            }
        }
        out
    }

    fn key(b: &Block) -> Option<(String, String)> {
        match b.kind.as_str() {
            "resource" | "data" | "ephemeral" | "action" | "provider" => {
                Some((b.kind.clone(), b.labels.first()?.clone()))
            }
            _ => None,
        }
    }

    /// The shape of a top-level block's body.
    pub(crate) fn top(&self, b: &Block) -> Option<&Shape> {
        self.0.get(&Self::key(b)?)
    }
}

/// How a JSON property of a provider-defined body is printed.
pub(crate) enum JsonForm {
    /// Nested blocks: a native-syntax file writes this name as a block.
    Blocks(Vec<Block>),
    /// An argument; `guess`: its value could be nested blocks, and no native-syntax file
    /// says which.
    Argument { guess: bool },
}

impl JsonForm {
    pub(crate) fn of(shape: Option<&Shape>, j: &JsonProp) -> JsonForm {
        let could_be_blocks = match &j.value.value {
            JsonValue::Object(_) => true,
            JsonValue::Array(items) => {
                items.iter().all(|i: &JsonNode| matches!(i.value, JsonValue::Object(_)))
            }
            _ => false,
        };
        if !could_be_blocks {
            return JsonForm::Argument { guess: false };
        }
        match shape {
            Some(s) if s.blocks.contains_key(&j.name) => {
                JsonForm::Blocks(crate::terraform::json::blocks_from_value(&j.name, &j.value))
            }
            Some(s) if s.attrs.contains(&j.name) => JsonForm::Argument { guess: false },
            _ => JsonForm::Argument { guess: true },
        }
    }
}

/// An argument of the merged configuration that the printed module leaves out. Terraform
/// merges some pairs of arguments that no single block may say together (it rejects such a
/// block while decoding it); the printed module keeps the one Terraform uses, so that it
/// loads, and `--format hcl` says in one line what it left out and why.
#[derive(Debug)]
pub(crate) struct LeftOut {
    pub span: Span,
    pub why: String,
}

/// The arguments the printed module leaves out. Checked on Terraform 1.15.5; OpenTofu's
/// choices are not, so its merged blocks print whole.
pub(crate) fn left_out(m: &Module) -> Vec<LeftOut> {
    let mut out = Vec::new();
    if m.engine != crate::terraform::discover::Engine::Terraform {
        return out;
    }
    for b in &m.blocks {
        match b.kind.as_str() {
            "resource" | "data" | "ephemeral" | "action" | "module" => {
                if let (Some(_), Some(fe)) = (b.attr("count"), b.attr("for_each")) {
                    out.push(LeftOut {
                        span: fe.span,
                        why: format!(
                            "for_each ({}) left out: Terraform merges it, but with count also set it uses count",
                            m.files.short(fe.span)
                        ),
                    });
                }
            }
            "variable" => {
                let on = |n: &str| b.attr(n).and_then(|a| a.expr.as_bool()) == Some(true);
                // The first flag set is named: either keeps its effect on the value.
                let with = ["sensitive", "ephemeral"].into_iter().find(|f| on(f));
                if let (Some(c), Some(with)) = (b.attr("const").filter(|_| on("const")), with) {
                    out.push(LeftOut {
                        span: c.span,
                        why: format!(
                            "const = true ({}) left out: Terraform merges const and {with}, which one block may not say (\"Const variable cannot be {with}\"), and keeps the value {with}",
                            m.files.short(c.span)
                        ),
                    });
                }
            }
            _ => {}
        }
    }
    out
}
