//! The effective configuration as one native-syntax file that Terraform accepts as
//! `main.tf`, with a `# ← file:line` comment on every value an override file supplied.

use super::{JsonForm, LeftOut, Shape, Shapes, left_out};
use crate::merge::Module;
use crate::terraform::expr::{hcl_quote, is_ident};
use crate::terraform::{Attr, Block, Item, Span, json};

/// Renders the module, laid out as `terraform fmt` lays it out. Same input, same bytes.
pub fn render(m: &Module) -> String {
    let text = layout(m);
    override_guard_hcl::fmt::format(&text).unwrap_or(text)
}

/// [`render`], for comparing two states of a module (`diff`): nested blocks of a body are
/// printed grouped by their type, in the order of the types' names (blocks of one type
/// keep their order, which is theirs). Terraform's merge puts an override's blocks after
/// the others, so without it a block re-stated by an override would show as removed in one
/// place and added in another, though blocks of different types have no order.
pub fn review(m: &Module) -> String {
    let text = layout_as(m, true);
    override_guard_hcl::fmt::format(&text).unwrap_or(text)
}

/// The rendering before `terraform fmt`'s layout: every expression exactly as written.
pub fn layout(m: &Module) -> String {
    layout_as(m, false)
}

/// `Terraform` where the newest release judged and no pin or policy chose it (as before
/// releases were modelled; `--engine terraform` alone too); else the release and why:
/// `Terraform 1.9.8, pinned in .terraform-version:1`.
pub(crate) fn judged_by(m: &Module) -> String {
    if !m.release_said() {
        return m.engine.name().to_string();
    }
    format!("{}, {}", m.release, m.choice.from)
}

fn layout_as(m: &Module, grouped: bool) -> String {
    let shapes = Shapes::of(m);
    let mut p = Printer { m: Some(m), out: String::new(), left: left_out(m), grouped };
    let names: Vec<&str> = m.files.files.iter().map(|f| f.name()).collect();
    p.out.push_str(&format!(
        "# Effective configuration ({}) merged from: {}\n",
        judged_by(m),
        if names.is_empty() { "(no files)".to_string() } else { names.join(", ") }
    ));
    // Files git does not track: what runs here is not what CI and the team run.
    for f in &m.files.files {
        if let Some(l) = f.local {
            p.out.push_str(&format!(
                "# local-only: {} is {} (this checkout runs it; CI and teammates do not)\n",
                f.name(),
                l.describe()
            ));
        }
    }
    let s = &m.settings;
    if !s.is_empty() {
        p.out.push_str("\nterraform {\n");
        if let Some(a) = s.required_version.first() {
            p.attr(a, 1);
        }
        if !s.required_providers.is_empty() {
            p.out.push_str("  required_providers {\n");
            for a in &s.required_providers {
                p.attr(a, 2);
            }
            p.out.push_str("  }\n");
        }
        for b in [&s.backend, &s.cloud, &s.state_store, &s.encryption].into_iter().flatten() {
            p.block(b, 1, None);
        }
        for item in &s.other {
            p.item(item, 1, None, "terraform");
        }
        p.out.push_str("}\n");
        // Several constraints all apply; one block may set the argument only once.
        for a in s.required_version.iter().skip(1) {
            p.out.push_str("\nterraform {\n");
            p.attr(a, 1);
            p.out.push_str("}\n");
        }
    }
    if !m.locals.is_empty() {
        p.out.push_str("\nlocals {\n");
        for a in &m.locals {
            p.attr(a, 1);
        }
        p.out.push_str("}\n");
    }
    for b in &m.blocks {
        p.out.push('\n');
        let overrides: Vec<String> = b
            .displaced
            .iter()
            .filter(|s| m.from_override(**s))
            .map(|s| m.files.short(*s))
            .collect();
        if !overrides.is_empty() && !m.from_override(b.span) {
            p.out.push_str(&format!("# overridden by {}\n", overrides.join(", ")));
        }
        p.block(b, 0, shapes.top(b));
    }
    p.out
}

/// One block in native syntax, without provenance, indented `level` steps of two spaces
/// (`fold` writes a JSON override's block into a native file with it).
pub(crate) fn block_text(b: &Block, level: usize) -> String {
    let mut p = Printer { m: None, out: String::new(), left: Vec::new(), grouped: false };
    p.block(b, level, None);
    p.out
}

struct Printer<'a> {
    /// `None`: print without provenance comments.
    m: Option<&'a Module>,
    out: String,
    /// Arguments printed as a note instead (see [`left_out`]).
    left: Vec<LeftOut>,
    /// Nested blocks grouped by type (see [`review`]).
    grouped: bool,
}

impl Printer<'_> {
    fn origin(&self, span: Span) -> Option<String> {
        let m = self.m?;
        m.from_override(span).then(|| format!("# ← {}", m.files.short(span)))
    }

    fn indent(&mut self, level: usize) {
        for _ in 0..level {
            self.out.push_str("  ");
        }
    }

    /// `shape`: how native-syntax files write the body this item is in (`parent`: its
    /// block kind), which decides whether a JSON property prints as an argument or blocks.
    fn item(&mut self, item: &Item, level: usize, shape: Option<&Shape>, parent: &str) {
        match item {
            Item::Attr(a) => match self.left.iter().find(|l| l.span == a.span) {
                Some(l) => {
                    let note = format!("# NOTE: {}\n", l.why);
                    self.indent(level);
                    self.out.push_str(&note);
                }
                None => self.attr(a, level),
            },
            Item::Block(b) => self.block(b, level, Shape::child(shape, parent, b)),
            Item::Json(j) => {
                let guess = match JsonForm::of(shape, j) {
                    JsonForm::Blocks(blocks) => {
                        for b in &blocks {
                            self.block(b, level, Shape::child(shape, parent, b));
                        }
                        return;
                    }
                    JsonForm::Argument { guess } => guess,
                };
                if guess && self.m.is_some() {
                    self.indent(level);
                    self.out.push_str(&format!(
                        "# NOTE: {} is printed as an argument, a guess: no native-syntax file here says whether it is one or nested blocks\n",
                        j.name
                    ));
                }
                let a = Attr {
                    name: j.name.clone(),
                    name_span: j.name_span,
                    expr: json::expr_from_value(&j.value),
                    span: j.span,
                    displaced: Vec::new(),
                };
                self.attr(&a, level);
            }
        }
    }

    fn attr(&mut self, a: &Attr, level: usize) {
        // What no flattened block can say (an override's type without its defaults).
        if let Some(m) = self.m {
            for i in m.ignored.iter().filter(|i| i.span == a.span) {
                self.indent(level);
                self.out.push_str(&format!("# NOTE: {} (Terraform)\n", i.what));
            }
        }
        let value = a.expr.to_hcl();
        let name = if is_ident(&a.name) { a.name.clone() } else { hcl_quote(&a.name) };
        let origin = self.origin(a.span);
        if value.contains('\n') {
            if let Some(o) = &origin {
                self.indent(level);
                self.out.push_str(o);
                self.out.push('\n');
            }
            self.indent(level);
            self.out.push_str(&format!("{name} = {value}\n"));
        } else {
            self.indent(level);
            self.out.push_str(&format!("{name} = {value}"));
            if let Some(o) = origin {
                self.out.push(' ');
                self.out.push_str(&o);
            }
            self.out.push('\n');
        }
    }

    fn block(&mut self, b: &Block, level: usize, shape: Option<&Shape>) {
        self.indent(level);
        self.out.push_str(&b.kind);
        for l in &b.labels {
            self.out.push(' ');
            self.out.push_str(&hcl_quote(l));
        }
        self.out.push_str(" {");
        if let Some(o) = self.origin(b.span) {
            self.out.push(' ');
            self.out.push_str(&o);
        }
        self.out.push('\n');
        let mut items: Vec<&Item> = b.body.items.iter().collect();
        if self.grouped {
            // The blocks' places, refilled with the blocks sorted by type (stably).
            let places: Vec<usize> =
                (0..items.len()).filter(|&i| matches!(items[i], Item::Block(_))).collect();
            let mut blocks: Vec<&Item> = places.iter().map(|&i| items[i]).collect();
            blocks.sort_by(|x, y| match (x, y) {
                (Item::Block(x), Item::Block(y)) => x.kind.cmp(&y.kind),
                _ => std::cmp::Ordering::Equal,
            });
            for (&i, b) in places.iter().zip(blocks) {
                items[i] = b;
            }
        }
        for item in items {
            self.item(item, level + 1, shape, &b.kind);
        }
        self.indent(level);
        self.out.push_str("}\n");
    }
}

#[cfg(test)]
mod tests {
    use crate::merge::load_texts;

    /// A CRLF file's line breaks print as LF (the output guard would turn a CR into
    /// `\u000d`, which Terraform cannot read); a heredoc's CRs are its value's, so it
    /// prints as a quoted string with `\r` escapes.
    #[test]
    fn crlf_sources_print_lf_line_breaks() {
        let main = "locals {\r\n  a = {\r\n    b = 1\r\n  }\r\n  c = <<EOT\r\nx\r\nEOT\r\n  d = max(\r\n    1,\r\n  2)\r\n}\r\n";
        let m = load_texts("", &[("main.tf", main)], None);
        let out = super::render(&m);
        assert!(!out.contains('\r'), "{out}");
        assert!(out.contains("  a = {\n    b = 1\n  }\n"), "{out}");
        assert!(out.contains("c = \"x\\r\\n\""), "{out}");
        let json = crate::render::tfjson::render(&m);
        assert!(json.contains(r#""c": "x\r\n""#), "{json}");
        assert!(json.contains(r#""d": "${max(\n    1,\n  2)}""#), "{json}");
    }

    /// Terraform merges count onto for_each (and const onto sensitive or ephemeral), which no block may
    /// say together: the printed module keeps what Terraform uses, and says what it left out.
    #[test]
    fn what_one_block_cannot_say_is_left_out_with_a_note() {
        let main =
            "resource \"a\" \"b\" {\n  count = 2\n}\nvariable \"v\" {\n  sensitive = true\n}\n";
        let over =
            "resource \"a\" \"b\" {\n  for_each = {}\n}\nvariable \"v\" {\n  const = true\n}\n";
        let m = load_texts("", &[("main.tf", main), ("override.tf", over)], None);
        assert!(!m.has_errors(), "{:?}", m.diagnostics);
        let out = super::render(&m);
        assert!(out.contains("  count = 2\n  # NOTE: for_each (override.tf:2) left out: Terraform merges it, but with count also set it uses count\n}"), "{out}");
        assert!(
            out.contains("  sensitive = true\n  # NOTE: const = true (override.tf:5) left out:"),
            "{out}"
        );
        let code: Vec<&str> = out.lines().filter(|l| !l.trim_start().starts_with('#')).collect();
        assert!(!code.iter().any(|l| l.contains("for_each") || l.contains("const")), "{out}");
        let d = crate::render::tfjson::document(&m);
        assert_eq!(d["resource"][0]["a"]["b"], serde_json::json!({"count": 2}));
        assert_eq!(d["variable"][0]["v"], serde_json::json!({"sensitive": true}));
        // const with ephemeral: ephemeral stays.
        let main = "variable \"e\" {\n  ephemeral = true\n}\n";
        let over = "variable \"e\" {\n  const = true\n}\n";
        let e = load_texts("", &[("main.tf", main), ("override.tf", over)], None);
        let out = super::render(&e);
        assert!(out.contains("  ephemeral = true\n  # NOTE: const = true (override.tf:2) left out: Terraform merges const and ephemeral, which one block may not say (\"Const variable cannot be ephemeral\"), and keeps the value ephemeral\n"), "{out}");
        // The merged configuration itself keeps both, as Terraform's does.
        assert!(m.blocks[0].attr("for_each").is_some() && m.blocks[1].attr("const").is_some());
    }

    /// A JSON property prints as nested blocks where a native file writes that name as a
    /// block for the resource type, at any depth and in a dynamic block's content; else it
    /// prints as an argument, with a note that this is a guess.
    #[test]
    fn json_nested_blocks_print_as_blocks_where_native_files_say_so() {
        let main = "resource \"t\" \"a\" {\n  r {\n    f {\n      p = 1\n    }\n    z {}\n  }\n  dynamic \"s\" {\n    for_each = []\n    content {\n      r {\n        f {}\n      }\n    }\n  }\n}\nresource \"t\" \"b\" {\n  x = 1\n}\n";
        let over = r#"{"resource": {"t": {"b": {"r": [{"f": {"p": 2}, "o": {"q": 3}, "z": []}],
            "dynamic": {"s": {"for_each": [1], "content": {"r": [{"f": [{"p": 4}]}]}}}}}}}"#;
        let m = load_texts("", &[("main.tf", main), ("override.tf.json", over)], None);
        let out: String = super::render(&m)
            .lines()
            .map(|l| l.split(" # ←").next().unwrap_or(l).trim_end().to_string() + "\n")
            .collect();
        assert!(out.contains("  r {\n    f {\n      p = 2"), "{out}");
        assert!(out.contains("    content {\n      r {\n        f {\n          p = 4"), "{out}");
        assert!(
            out.contains("    # NOTE: o is printed as an argument, a guess: no native-syntax file here says whether it is one or nested blocks\n    o = { q = 3 }"),
            "{out}"
        );
        assert_eq!(out.matches("# NOTE").count(), 1, "{out}");
        let d = crate::render::tfjson::document(&m);
        let b = &d["resource"][1]["t"]["b"];
        assert_eq!(b["r"][0]["f"], serde_json::json!([{"p": 2}]));
        assert_eq!(b["r"][0]["o"], serde_json::json!({"q": 3}));
        assert_eq!(b["dynamic"][0]["s"]["content"][0]["r"][0]["f"], serde_json::json!([{"p": 4}]));
        // `"z": []` is no blocks: printed as none. Both renderings load to the same.
        assert_eq!(b["r"][0].get("z"), None);
        for (name, text) in
            [("main.tf", super::render(&m)), ("main.tf.json", crate::render::tfjson::render(&m))]
        {
            let again = load_texts("", &[(name, text.as_str())], None);
            assert_eq!(crate::render::tfjson::document(&again), d, "{name}: {text}");
        }
    }
}
