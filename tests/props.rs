//! Property tests (proptest) of the merge on generated modules.
//!
//! The generator builds a small model of a module — primary files (`.tf`, `.tf.json`,
//! sometimes `main.tofu`) and override files (`override.tf`, `x_override.tf`,
//! `y_override.tf.json`, `override.tf.json`) holding resource / data / variable / output /
//! locals / module / provider / terraform (required_providers, backend, cloud) / check /
//! moved / import blocks with nested blocks (lifecycle, dynamic, ingress, provisioner, …),
//! literals, lists, objects, references, templates, heredocs and comments — and prints it in
//! native or JSON syntax (sometimes with CRLF or a byte order mark). Names come from small
//! pools and override headers are mostly taken from the primaries, so overrides usually hit
//! an existing block and sometimes miss (a merge error); one module in ten keeps duplicate
//! primaries, a few have a misspelt block type or a missing label, and where allowed one in
//! ten gets a byte-level corruption. About half of the generated modules merge cleanly.
//!
//! Properties (192 cases each, the same on every run: the seed is fixed unless
//! `PROPTEST_RNG_SEED=N` names another, `PROPTEST_CASES` raises the count; no failure files
//! are written):
//! 1. `merge::load` and the three renderers never panic, on generated modules (also merged
//!    again by the other engine) and on raw bytes / token soup.
//! 2. The `show` renderings of a valid module are fixed points: tf-json → `main.tf.json` →
//!    tf-json gives the same text; hcl → `main.tf` → hcl gives the same text once the
//!    provenance comments and header are stripped, and the same effective configuration
//!    (tf-json document) as the original module.
//! 3. Shuffling (or reversing) the names the source yields changes nothing: all three
//!    renderings and the diagnostics and ignored items are equal.
//! 4. Without override files the effective configuration is the primaries themselves:
//!    (a) blocks, locals and settings equal the parsed top-level content, in order, with
//!    nothing displaced or ignored;
//!    (b) concatenating the native-syntax primaries into one file gives the same
//!    configuration and the same kinds of errors;
//!    (c) adding empty override files changes nothing (diagnostics included).
//! 5. The same module printed all in native and all in JSON syntax: both valid or both
//!    rejected, and the same configuration.
//! 6. An override restating primary blocks as they are changes nothing (or is rejected
//!    only for what overrides may not contain).
//! 7. Applying the override files a second time changes nothing.
//!
//! The `bug_*` tests at the end are the minimal reproductions of what these found; they
//! are ignored until fixed. The generator steers clear of those inputs (each place says
//! which) so that the properties keep looking for new failures.

use std::collections::{BTreeSet, HashMap};
use std::convert::Infallible;
use std::fmt;

use override_guard::merge::{self, Module, Settings, load_texts};
use override_guard::render;
use override_guard::terraform::discover::Engine;
use override_guard::terraform::schema::{Prop, Schema};
use override_guard::terraform::{Block, Item};
use proptest::prelude::*;
use proptest::sample::{Index, select, subsequence};
use proptest::test_runner::Config;

// ---------------------------------------------------------------------------------------
// The model and its two printers
// ---------------------------------------------------------------------------------------

#[derive(Clone, Debug)]
enum Val {
    Null,
    Bool(bool),
    Num(&'static str),
    /// A literal string (escaped as each syntax needs).
    Str(&'static str),
    /// A quoted template: literal parts and `${…}` / `%{…}` sequences.
    Tpl(Vec<Part>),
    /// A bare expression: native as is, JSON as `"${…}"`.
    Expr(&'static str),
    /// A reference where Terraform expects one (`depends_on`, `type`, …): JSON as a plain
    /// string.
    Bare(&'static str),
    Heredoc {
        indent: bool,
        lines: Vec<&'static str>,
    },
    List(Vec<Val>),
    Obj(Vec<(Key, Val)>),
}

#[derive(Clone, Debug)]
enum Part {
    Lit(&'static str),
    Seq(&'static str),
}

#[derive(Clone, Debug)]
enum Key {
    Ident(&'static str),
    Quoted(&'static str),
    Expr(&'static str),
}

#[derive(Clone, Debug)]
struct Blk {
    kind: &'static str,
    labels: Vec<&'static str>,
    items: Vec<It>,
    /// JSON: a single block as `[{…}]` rather than `{…}`.
    json_array: bool,
}

#[derive(Clone, Debug)]
enum It {
    Attr(&'static str, Val),
    Block(Blk),
    Comment(&'static str),
}

/// Template escaping of literal text (both syntaxes).
fn tpl_escape(s: &str) -> String {
    s.replace("${", "$${").replace("%{", "%%{")
}

fn hcl_string_lit(s: &str) -> String {
    let mut out = String::new();
    for c in tpl_escape(s).chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out
}

fn json_str(s: &str) -> String {
    serde_json::to_string(s).expect("string")
}

impl Val {
    fn hcl(&self, level: usize, out: &mut String) {
        match self {
            Val::Null => out.push_str("null"),
            Val::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Val::Num(n) => out.push_str(n),
            Val::Str(s) => {
                out.push('"');
                out.push_str(&hcl_string_lit(s));
                out.push('"');
            }
            Val::Tpl(parts) => {
                out.push('"');
                for p in parts {
                    match p {
                        Part::Lit(s) => out.push_str(&hcl_string_lit(s)),
                        Part::Seq(s) => out.push_str(s),
                    }
                }
                out.push('"');
            }
            Val::Expr(e) | Val::Bare(e) => out.push_str(e),
            Val::Heredoc { indent, lines } => {
                out.push_str(if *indent { "<<-EOT\n" } else { "<<EOT\n" });
                for l in lines {
                    if *indent {
                        out.push_str(&"  ".repeat(level + 1));
                    }
                    out.push_str(l);
                    out.push('\n');
                }
                if *indent {
                    out.push_str(&"  ".repeat(level));
                }
                out.push_str("EOT");
            }
            Val::List(items) => {
                out.push('[');
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    v.hcl(level, out);
                    // A heredoc's closing marker must be alone on its line.
                    if matches!(v, Val::Heredoc { .. }) {
                        out.push('\n');
                        out.push_str(&"  ".repeat(level));
                    }
                }
                out.push(']');
            }
            Val::Obj(entries) => {
                if entries.is_empty() {
                    out.push_str("{}");
                    return;
                }
                out.push_str("{\n");
                for (k, v) in entries {
                    out.push_str(&"  ".repeat(level + 1));
                    match k {
                        Key::Ident(n) => out.push_str(n),
                        Key::Quoted(n) => {
                            out.push('"');
                            out.push_str(&hcl_string_lit(n));
                            out.push('"');
                        }
                        Key::Expr(e) => {
                            out.push('(');
                            out.push_str(e);
                            out.push(')');
                        }
                    }
                    out.push_str(" = ");
                    v.hcl(level + 1, out);
                    out.push('\n');
                }
                out.push_str(&"  ".repeat(level));
                out.push('}');
            }
        }
    }

    /// The value where Terraform does not evaluate it: JSON strings are taken as written.
    fn json_literal(&self) -> String {
        match self {
            Val::Str(s) => json_str(s),
            Val::Tpl(parts) if parts.iter().all(|p| matches!(p, Part::Lit(_))) => {
                let text: String = parts
                    .iter()
                    .map(|p| match p {
                        Part::Lit(s) | Part::Seq(s) => s.to_string(),
                    })
                    .collect();
                json_str(&text)
            }
            // Heredoc lines are template source: their `$${` is a literal `${`.
            Val::Heredoc { .. } => {
                let templated: String = serde_json::from_str(&self.json()).expect("a JSON string");
                json_str(&templated.replace("$${", "${").replace("%%{", "%{"))
            }
            Val::List(items) => {
                format!("[{}]", items.iter().map(Val::json_literal).collect::<Vec<_>>().join(", "))
            }
            Val::Obj(entries) if entries.iter().all(|(k, _)| !matches!(k, Key::Expr(_))) => {
                let parts: Vec<String> = entries
                    .iter()
                    .map(|(k, v)| {
                        let (Key::Ident(n) | Key::Quoted(n) | Key::Expr(n)) = k;
                        format!("{}: {}", json_str(n), v.json_literal())
                    })
                    .collect();
                format!("{{{}}}", parts.join(", "))
            }
            other => other.json(),
        }
    }

    fn json(&self) -> String {
        match self {
            Val::Null => "null".into(),
            Val::Bool(b) => b.to_string(),
            Val::Num(n) => n.to_string(),
            Val::Str(s) => json_str(&tpl_escape(s)),
            Val::Tpl(parts) => {
                let s: String = parts
                    .iter()
                    .map(|p| match p {
                        Part::Lit(s) => tpl_escape(s),
                        Part::Seq(s) => s.to_string(),
                    })
                    .collect();
                json_str(&s)
            }
            Val::Expr(e) => json_str(&format!("${{{e}}}")),
            Val::Bare(e) => json_str(e),
            Val::Heredoc { indent, lines } => {
                // `<<-` removes the smallest indentation of the lines (not the marker's).
                let cut = if *indent {
                    lines
                        .iter()
                        .map(|l| l.len() - l.trim_start_matches(' ').len())
                        .min()
                        .unwrap_or(0)
                } else {
                    0
                };
                json_str(&lines.iter().map(|l| format!("{}\n", &l[cut..])).collect::<String>())
            }
            Val::List(items) => {
                format!("[{}]", items.iter().map(Val::json).collect::<Vec<_>>().join(", "))
            }
            Val::Obj(entries) => {
                let parts: Vec<String> = entries
                    .iter()
                    .map(|(k, v)| {
                        let key = match k {
                            Key::Ident(n) | Key::Quoted(n) => json_str(&tpl_escape(n)),
                            Key::Expr(e) => json_str(&format!("${{{e}}}")),
                        };
                        format!("{key}: {}", v.json())
                    })
                    .collect();
                format!("{{{}}}", parts.join(", "))
            }
        }
    }
}

impl Blk {
    fn hcl(&self, level: usize, out: &mut String) {
        let pad = "  ".repeat(level);
        out.push_str(&pad);
        out.push_str(self.kind);
        for l in &self.labels {
            out.push_str(&format!(" \"{l}\""));
        }
        if self.items.is_empty() {
            out.push_str(" {}\n");
            return;
        }
        out.push_str(" {\n");
        for it in self.items.iter() {
            match it {
                It::Attr(n, v) => {
                    out.push_str(&pad);
                    out.push_str("  ");
                    out.push_str(n);
                    out.push_str(" = ");
                    v.hcl(level + 1, out);
                    out.push('\n');
                }
                It::Block(b) => b.hcl(level + 1, out),
                It::Comment(c) => {
                    out.push_str(&pad);
                    out.push_str("  # ");
                    out.push_str(c);
                    out.push('\n');
                }
            }
        }
        out.push_str(&pad);
        out.push_str("}\n");
    }

    /// The block without its type: labels as nested objects around the body (whose
    /// schema is `schema`).
    fn json_value(&self, schema: Schema) -> String {
        let mut v = json_body(&self.items, schema);
        for l in self.labels.iter().rev() {
            v = format!("{{{}: {v}}}", json_str(l));
        }
        v
    }
}

/// A JSON body: attributes as properties, blocks grouped by type (first appearance).
/// What the body's schema reads without evaluating is written literally.
fn json_body(items: &[It], schema: Schema) -> String {
    let mut props: Vec<(String, String)> = Vec::new();
    let mut groups: Vec<(&str, Vec<&Blk>)> = Vec::new();
    let mut order: Vec<Result<usize, usize>> = Vec::new(); // Ok(prop) / Err(group)
    for it in items {
        match it {
            // A repeated argument stays native-only: in a JSON body whose schema only the
            // provider knows it is no load error (see `bug_repeated_json_property_rendered_twice`).
            It::Attr(n, _) if props.iter().any(|(p, _)| p == n) => {}
            It::Attr(n, v) => {
                order.push(Ok(props.len()));
                let text =
                    if schema.prop(n) == Prop::Literal { v.json_literal() } else { v.json() };
                props.push((n.to_string(), text));
            }
            It::Comment(c) => {
                order.push(Ok(props.len()));
                props.push(("//".into(), json_str(c)));
            }
            It::Block(b) => match groups.iter_mut().find(|(k, _)| *k == b.kind) {
                Some((_, list)) => list.push(b),
                None => {
                    order.push(Err(groups.len()));
                    groups.push((b.kind, vec![b]));
                }
            },
        }
    }
    let parts: Vec<String> = order
        .iter()
        .map(|o| match o {
            Ok(i) => format!("{}: {}", json_str(&props[*i].0), props[*i].1),
            Err(g) => {
                let (kind, list) = &groups[*g];
                let child = schema.child(kind);
                let value = if list.len() == 1 && !list[0].json_array {
                    list[0].json_value(child)
                } else {
                    format!(
                        "[{}]",
                        list.iter().map(|b| b.json_value(child)).collect::<Vec<_>>().join(", ")
                    )
                };
                format!("{}: {value}", json_str(kind))
            }
        })
        .collect();
    format!("{{{}}}", parts.join(", "))
}

fn file_text(blocks: &[Blk], json: bool) -> String {
    if json {
        // A resource with one label cannot be written in JSON syntax: its body's properties
        // would be read as the name (and a non-identifier property name is then printed
        // as a quoted attribute name, see `bug_non_identifier_json_property_name_rendered`).
        let items: Vec<It> = blocks
            .iter()
            .filter(|b| !(b.kind == "resource" && b.labels.len() < 2))
            .cloned()
            .map(It::Block)
            .collect();
        let mut s = json_body(&items, Schema::Top);
        s.push('\n');
        s
    } else {
        let mut s = String::new();
        for (i, b) in blocks.iter().enumerate() {
            if i > 0 {
                s.push('\n');
            }
            b.hcl(0, &mut s);
        }
        s
    }
}

// ---------------------------------------------------------------------------------------
// Strategies
// ---------------------------------------------------------------------------------------

const NUMS: &[&str] = &["0", "1", "3", "42", "-1", "3.14", "1e3", "12345678901234567890", "0.1"];
const STRS: &[&str] = &[
    "",
    "web",
    "t3.micro",
    "us-east-1",
    "10.0.0.0/16",
    "a \"quoted\" word",
    "back\\slash",
    "tab\there",
    "two\nlines",
    "${not_interpolated}",
    "%{literal}",
    "$",
    "100%",
    "$${x}",
    "unicode ✓ é",
    ">= 1.5.0",
];
const EXPRS: &[&str] = &[
    "var.region",
    "var.tags",
    "local.common_tags",
    "aws_vpc.main.id",
    "aws_instance.web[0].id",
    "module.vpc.vpc_id",
    "data.aws_ami.ubuntu.id",
    "merge(local.common_tags, { Name = \"web\" })",
    "var.enabled ? 1 : 0",
    "[for s in var.zones : upper(s)]",
    "{ for k, v in var.tags : k => v }",
    "length(var.zones) > 0",
    "each.value",
    "count.index",
    "jsonencode({ a = 1 })",
    "lookup(var.tags, \"}\", null)",
    "concat(\n    var.zones,\n    [\"x\"],\n  )",
    "(var.replicas + 1) * 2",
    "var.tags[\"env\"]",
    "-var.replicas",
    "trimspace(<<EOT\n  hello ${var.region}\nEOT\n  )",
    "concat(\n    var.zones, # every zone\n    [\"x\"],\n  )",
    "var.enabled ? \"a\" : /* fallback */ \"b\"",
];
const SEQS: &[&str] = &[
    "${var.region}",
    "${local.service}",
    "${aws_instance.web.id}",
    "${upper(var.env)}",
    "%{ if var.enabled }on%{ else }off%{ endif }",
    "${\"nested\"}",
    "%{ for z in var.zones }${z},%{ endfor }",
];
const HEREDOC_LINES: &[&str] = &[
    "hello",
    "name: ${var.region}",
    "say \"hi\"",
    "  indented",
    "{ \"json\": true }",
    "$${literal}",
    "%{ if var.enabled }yes%{ endif }",
    "back\\slash",
];
const KEYS: &[&str] = &["Name", "env", "team", "owner"];
const QUOTED_KEYS: &[&str] = &["a b", "x-y", "with.dot", "${k}"];
const KEY_EXPRS: &[&str] = &["var.key", "local.service"];

fn part() -> impl Strategy<Value = Part> {
    prop_oneof![3 => select(STRS).prop_map(Part::Lit), 2 => select(SEQS).prop_map(Part::Seq)]
}

/// A literal ending in `$` or `%` before a `${`/`%{` sequence would print as the escape
/// `$${`/`%%{`: a different template, and a broken one for `%{ if }…%{ else }`. In
/// native syntax that is a parse error, but in a JSON value whose schema only the provider
/// knows it goes unchecked (see `bug_invalid_json_template_rendered_as_literal`); keep
/// templates as meant by separating the two with a space.
fn no_accidental_escape(parts: Vec<Part>) -> Vec<Part> {
    let mut out: Vec<Part> = Vec::new();
    for p in parts {
        if let (Some(Part::Lit(prev)), Part::Seq(_)) = (out.last(), &p)
            && (prev.ends_with('$') || prev.ends_with('%'))
        {
            out.push(Part::Lit(" "));
        }
        out.push(p);
    }
    out
}

fn key() -> impl Strategy<Value = Key> {
    prop_oneof![
        8 => select(KEYS).prop_map(Key::Ident),
        2 => select(QUOTED_KEYS).prop_map(Key::Quoted),
        1 => select(KEY_EXPRS).prop_map(Key::Expr),
    ]
}

fn leaf() -> BoxedStrategy<Val> {
    prop_oneof![
        1 => Just(Val::Null),
        2 => any::<bool>().prop_map(Val::Bool),
        3 => select(NUMS).prop_map(Val::Num),
        6 => select(STRS).prop_map(Val::Str),
        3 => prop::collection::vec(part(), 1..4).prop_map(|p| Val::Tpl(no_accidental_escape(p))),
        5 => select(EXPRS).prop_map(Val::Expr),
        // Never empty: hcl-edit closes an empty heredoc at the next marker line of the file
        // (see `bug_empty_heredoc_swallows_what_follows`).
        1 => (any::<bool>(), prop::collection::vec(select(HEREDOC_LINES), 1..3))
            .prop_map(|(indent, lines)| Val::Heredoc { indent, lines }),
    ]
    .boxed()
}

fn val() -> BoxedStrategy<Val> {
    leaf()
        .prop_recursive(2, 10, 3, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..3).prop_map(Val::List),
                prop::collection::vec((key(), inner), 0..3).prop_map(|e| Val::Obj(unique_keys(e))),
            ]
        })
        .boxed()
}

/// Object keys are kept unique: a repeated key is a parse error for hcl-edit but not for
/// Terraform (see `bug_duplicate_object_key_rejected`), which would hide everything else.
fn unique_keys(entries: Vec<(Key, Val)>) -> Vec<(Key, Val)> {
    let mut seen = BTreeSet::new();
    entries
        .into_iter()
        .filter(|(k, _)| match k {
            Key::Ident(n) | Key::Quoted(n) | Key::Expr(n) => seen.insert(*n),
        })
        .collect()
}

fn string_list() -> BoxedStrategy<Val> {
    prop::collection::vec(select(STRS).prop_map(Val::Str), 0..3).prop_map(Val::List).boxed()
}

fn tags() -> BoxedStrategy<Val> {
    prop_oneof![
        3 => prop::collection::vec((select(KEYS).prop_map(Key::Ident), select(STRS).prop_map(Val::Str)), 0..3)
            .prop_map(|e| Val::Obj(unique_keys(e))),
        1 => Just(Val::Expr("merge(local.common_tags, { Name = \"web\" })")),
        1 => Just(Val::Expr("local.common_tags")),
    ]
    .boxed()
}

/// An optional item.
fn opt(p: f64, s: impl Strategy<Value = It> + 'static) -> BoxedStrategy<Option<It>> {
    prop::option::weighted(p, s).boxed()
}

fn attr(name: &'static str, s: BoxedStrategy<Val>) -> impl Strategy<Value = It> {
    s.prop_map(move |v| It::Attr(name, v))
}

fn comment() -> impl Strategy<Value = It> {
    select(&["note: keep in sync", "TODO", "override: intentional"][..]).prop_map(It::Comment)
}

fn blk(kind: &'static str, labels: Vec<&'static str>, items: Vec<It>, json_array: bool) -> Blk {
    Blk { kind, labels, items, json_array }
}

/// Nested block with an arbitrary body of plain attributes.
fn nested(
    kind: &'static str,
    labels: Vec<&'static str>,
    names: &'static [&'static str],
) -> BoxedStrategy<Blk> {
    (prop::collection::vec((select(names), val()), 0..3), any::<bool>())
        .prop_map(move |(attrs, arr)| {
            let items = dedupe_attrs(attrs.into_iter().map(|(n, v)| It::Attr(n, v)).collect());
            blk(kind, labels.clone(), items, arr)
        })
        .boxed()
}

/// Drops attributes whose name already appeared (one in 20 bodies keep them: an error).
fn dedupe_attrs(items: Vec<It>) -> Vec<It> {
    let mut seen = BTreeSet::new();
    items
        .into_iter()
        .filter(|i| match i {
            It::Attr(n, _) => seen.insert(*n),
            _ => true,
        })
        .collect()
}

fn flatten(items: Vec<Option<It>>, extra: Vec<It>) -> Vec<It> {
    items.into_iter().flatten().chain(extra).collect()
}

fn lifecycle() -> BoxedStrategy<Blk> {
    (
        opt(0.5, attr("create_before_destroy", any::<bool>().prop_map(Val::Bool).boxed())),
        opt(0.4, attr("prevent_destroy", any::<bool>().prop_map(Val::Bool).boxed())),
        opt(
            0.4,
            attr(
                "ignore_changes",
                prop_oneof![
                    3 => prop::collection::vec(select(&["tags", "ami", "tags[\"Name\"]"][..]).prop_map(Val::Bare), 0..3)
                        .prop_map(Val::List),
                    1 => Just(Val::Bare("all")),
                ]
                .boxed(),
            ),
        ),
        opt(
            0.1,
            attr(
                "replace_triggered_by",
                Just(Val::List(vec![Val::Bare("aws_vpc.main.id")])).boxed(),
            ),
        ),
        opt(0.05, Just(It::Block(blk("precondition", vec![], vec![
            It::Attr("condition", Val::Expr("var.replicas > 0")),
            It::Attr("error_message", Val::Str("need replicas")),
        ], false)))),
        any::<bool>(),
    )
        .prop_map(|(a, b, c, d, e, arr)| blk("lifecycle", vec![], flatten(vec![a, b, c, d, e], vec![]), arr))
        .boxed()
}

fn resource_nested() -> BoxedStrategy<Blk> {
    prop_oneof![
        3 => nested("ingress", vec![], &["from_port", "to_port", "protocol", "cidr_blocks"]),
        2 => nested("ebs_block_device", vec![], &["device_name", "volume_size"]),
        2 => (select(&["ingress", "ebs_block_device"][..]), opt(0.2, attr("iterator", Just(Val::Bare("rule")).boxed())),
              nested("content", vec![], &["from_port", "to_port", "device_name"]), any::<bool>())
            .prop_map(|(label, it, content, arr)| {
                let mut items = vec![It::Attr("for_each", Val::Expr("var.tags"))];
                items.extend(it);
                items.push(It::Block(content));
                blk("dynamic", vec![label], items, arr)
            }),
        1 => (select(&["local-exec", "remote-exec"][..]), select(STRS), any::<bool>()).prop_map(|(l, s, arr)| {
                blk("provisioner", vec![l], vec![It::Attr("command", Val::Str(s))], arr)
            }),
        1 => nested("connection", vec![], &["host", "user", "type"]),
    ]
    .boxed()
}

const RES_ATTRS: &[&str] = &["ami", "instance_type", "subnet_id", "bucket", "name", "enabled"];

fn resource_body(is_override: bool) -> BoxedStrategy<Vec<It>> {
    let dep = if is_override { 0.03 } else { 0.15 };
    (
        prop::collection::vec((select(RES_ATTRS), val()), 0..4),
        opt(0.3, attr("tags", tags())),
        opt(
            0.15,
            prop_oneof![
                attr(
                    "count",
                    prop_oneof![
                        select(NUMS).prop_map(Val::Num),
                        Just(Val::Expr("var.enabled ? 1 : 0"))
                    ]
                    .boxed()
                ),
                attr("for_each", prop_oneof![Just(Val::Expr("var.tags")), tags()].boxed()),
            ],
        ),
        opt(
            0.1,
            attr(
                "provider",
                select(&["aws.west", "aws", "google.eu"][..]).prop_map(Val::Bare).boxed(),
            ),
        ),
        opt(
            dep,
            attr(
                "depends_on",
                prop::collection::vec(
                    select(&["aws_vpc.main", "module.vpc", "aws_instance.web"][..])
                        .prop_map(Val::Bare),
                    0..3,
                )
                .prop_map(Val::List)
                .boxed(),
            ),
        ),
        prop::option::weighted(0.3, lifecycle()),
        prop::collection::vec(resource_nested(), 0..3),
        opt(0.1, comment()),
        prop::bool::weighted(0.05),
    )
        .prop_map(|(attrs, t, ce, p, d, lc, nested, c, dups)| {
            let mut items: Vec<It> = attrs.into_iter().map(|(n, v)| It::Attr(n, v)).collect();
            items.extend([t, ce, p, d].into_iter().flatten());
            if !dups {
                items = dedupe_attrs(items);
            }
            items.extend(c);
            items.extend(lc.map(It::Block));
            items.extend(nested.into_iter().map(It::Block));
            items
        })
        .boxed()
}

fn data_body() -> BoxedStrategy<Vec<It>> {
    (
        opt(0.5, attr("most_recent", any::<bool>().prop_map(Val::Bool).boxed())),
        opt(0.5, attr("owners", string_list())),
        prop::collection::vec(
            (select(&["name", "tag:Name"][..]), string_list()).prop_map(|(n, v)| {
                blk(
                    "filter",
                    vec![],
                    vec![It::Attr("name", Val::Str(n)), It::Attr("values", v)],
                    false,
                )
            }),
            0..2,
        ),
        opt(0.05, attr("depends_on", Just(Val::List(vec![Val::Bare("aws_vpc.main")])).boxed())),
    )
        .prop_map(|(a, b, f, d)| flatten(vec![a, b, d], f.into_iter().map(It::Block).collect()))
        .boxed()
}

const TYPES: &[&str] = &[
    "string",
    "number",
    "bool",
    "list(string)",
    "map(string)",
    "any",
    "set(string)",
    "object({ name = string, size = optional(number, 1) })",
];

/// A default that usually fits the type.
fn default_for(ty: &'static str) -> BoxedStrategy<Val> {
    let fitting: BoxedStrategy<Val> = match ty {
        "string" => select(STRS).prop_map(Val::Str).boxed(),
        "number" => select(NUMS).prop_map(Val::Num).boxed(),
        "bool" => any::<bool>().prop_map(Val::Bool).boxed(),
        "list(string)" | "set(string)" => string_list(),
        "map(string)" => tags(),
        "object({ name = string, size = optional(number, 1) })" => {
            (select(STRS), prop::option::of(select(NUMS)))
                .prop_map(|(n, s)| {
                    let mut e = vec![(Key::Ident("name"), Val::Str(n))];
                    e.extend(s.map(|s| (Key::Ident("size"), Val::Num(s))));
                    Val::Obj(e)
                })
                .boxed()
        }
        _ => val(),
    };
    prop_oneof![6 => fitting, 1 => leaf(), 1 => Just(Val::Null)].boxed()
}

fn variable_body(is_override: bool) -> BoxedStrategy<Vec<It>> {
    let val_p = if is_override { 0.02 } else { 0.15 };
    (
        prop::option::weighted(0.6, select(TYPES)),
        prop::bool::weighted(0.6),
        opt(0.5, attr("description", select(STRS).prop_map(Val::Str).boxed())),
        opt(0.2, attr("sensitive", any::<bool>().prop_map(Val::Bool).boxed())),
        opt(0.2, attr("nullable", any::<bool>().prop_map(Val::Bool).boxed())),
        opt(
            val_p,
            Just(It::Block(blk(
                "validation",
                vec![],
                vec![
                    It::Attr("condition", Val::Expr("length(var.zones) > 0")),
                    It::Attr("error_message", Val::Str("Must not be empty.")),
                ],
                false,
            ))),
        ),
    )
        .prop_flat_map(|(ty, with_default, d, s, n, v)| {
            let default: BoxedStrategy<Option<Val>> = if with_default {
                default_for(ty.unwrap_or("any")).prop_map(Some).boxed()
            } else {
                Just(None).boxed()
            };
            default.prop_map(move |def| {
                let mut items: Vec<It> = Vec::new();
                items.extend(ty.map(|t| It::Attr("type", Val::Bare(t))));
                items.extend(def.map(|v| It::Attr("default", v)));
                items.extend([d.clone(), s.clone(), n.clone(), v.clone()].into_iter().flatten());
                items
            })
        })
        .boxed()
}

fn output_body(is_override: bool) -> BoxedStrategy<Vec<It>> {
    let dep = if is_override { 0.03 } else { 0.15 };
    (
        opt(
            0.8,
            attr("value", prop_oneof![3 => select(EXPRS).prop_map(Val::Expr), 1 => val()].boxed()),
        ),
        opt(0.4, attr("description", select(STRS).prop_map(Val::Str).boxed())),
        opt(0.3, attr("sensitive", any::<bool>().prop_map(Val::Bool).boxed())),
        opt(dep, attr("depends_on", Just(Val::List(vec![Val::Bare("aws_instance.web")])).boxed())),
    )
        .prop_map(|(a, b, c, d)| flatten(vec![a, b, c, d], vec![]))
        .boxed()
}

fn locals_body(is_override: bool) -> BoxedStrategy<Vec<It>> {
    let n = if is_override { 1..3 } else { 1..4 };
    prop::collection::vec(
        (select(&["common_tags", "service", "env", "name_prefix", "zones"][..]), val()),
        n,
    )
    .prop_map(|a| dedupe_attrs(a.into_iter().map(|(n, v)| It::Attr(n, v)).collect()))
    .boxed()
}

fn module_body(is_override: bool) -> BoxedStrategy<Vec<It>> {
    let dep = if is_override { 0.03 } else { 0.1 };
    (
        opt(
            if is_override { 0.3 } else { 0.95 },
            attr(
                "source",
                select(
                    &[
                        "./modules/vpc",
                        "terraform-aws-modules/vpc/aws",
                        "git::https://example.com/m.git?ref=v1",
                    ][..],
                )
                .prop_map(Val::Str)
                .boxed(),
            ),
        ),
        opt(0.4, attr("version", select(&["~> 5.0", "1.2.3"][..]).prop_map(Val::Str).boxed())),
        opt(0.1, attr("count", select(NUMS).prop_map(Val::Num).boxed())),
        opt(
            0.2,
            attr(
                "providers",
                prop_oneof![
                    Just(Val::Obj(vec![(Key::Ident("aws"), Val::Bare("aws.west"))])),
                    Just(Val::Obj(vec![])),
                ]
                .boxed(),
            ),
        ),
        opt(dep, attr("depends_on", Just(Val::List(vec![Val::Bare("aws_vpc.main")])).boxed())),
        prop::collection::vec(
            (select(&["cidr", "name", "enable_nat", "azs", "tags"][..]), val()),
            0..3,
        ),
    )
        .prop_map(|(a, b, c, d, e, inputs)| {
            dedupe_attrs(flatten(
                vec![a, b, c, d, e],
                inputs.into_iter().map(|(n, v)| It::Attr(n, v)).collect(),
            ))
        })
        .boxed()
}

fn provider_body() -> BoxedStrategy<Vec<It>> {
    (
        opt(0.7, attr("region", select(STRS).prop_map(Val::Str).boxed())),
        opt(0.3, attr("alias", select(&["west", "east"][..]).prop_map(Val::Str).boxed())),
        prop::option::weighted(
            0.3,
            (tags(), any::<bool>())
                .prop_map(|(t, arr)| blk("default_tags", vec![], vec![It::Attr("tags", t)], arr)),
        ),
        prop::option::weighted(0.2, nested("assume_role", vec![], &["role_arn", "session_name"])),
    )
        .prop_map(|(r, a, d, ar)| {
            flatten(vec![r, a], d.into_iter().chain(ar).map(It::Block).collect())
        })
        .boxed()
}

fn terraform_body(is_override: bool) -> BoxedStrategy<Vec<It>> {
    let requirement = prop_oneof![
        4 => (prop::option::weighted(0.8, select(&["hashicorp/aws", "acme/aws", "hashicorp/google"][..])),
              prop::option::weighted(0.8, select(&["~> 5.0", ">= 4.0"][..])))
            .prop_map(|(s, v)| {
                let mut e = Vec::new();
                e.extend(s.map(|s| (Key::Ident("source"), Val::Str(s))));
                e.extend(v.map(|v| (Key::Ident("version"), Val::Str(v))));
                Val::Obj(e)
            }),
        1 => Just(Val::Str("~> 5.0")),
    ];
    let storage = prop_oneof![
        3 => (select(&["s3", "local"][..]), prop::collection::vec((select(&["bucket", "key", "region", "path"][..]), select(STRS).prop_map(Val::Str)), 0..3), any::<bool>())
            .prop_map(|(l, a, arr)| blk("backend", vec![l], dedupe_attrs(a.into_iter().map(|(n, v)| It::Attr(n, v)).collect()), arr)),
        1 => (select(&["acme", "other"][..]), any::<bool>()).prop_map(|(o, arr)| {
                blk("cloud", vec![], vec![
                    It::Attr("organization", Val::Str(o)),
                    It::Block(blk("workspaces", vec![], vec![It::Attr("name", Val::Str("prod"))], false)),
                ], arr)
            }),
    ];
    (
        opt(
            0.4,
            attr(
                "required_version",
                select(&[">= 1.5.0", "~> 1.9", "< 2.0.0"][..]).prop_map(Val::Str).boxed(),
            ),
        ),
        prop::option::weighted(
            0.6,
            (
                prop::collection::vec((select(&["aws", "google"][..]), requirement), 1..3),
                any::<bool>(),
            )
                .prop_map(|(e, arr)| {
                    blk(
                        "required_providers",
                        vec![],
                        dedupe_attrs(e.into_iter().map(|(n, v)| It::Attr(n, v)).collect()),
                        arr,
                    )
                }),
        ),
        prop::option::weighted(if is_override { 0.3 } else { 0.4 }, storage),
        prop::bool::weighted(0.05),
    )
        .prop_map(|(v, rp, st, two)| {
            let mut items: Vec<It> = v.into_iter().collect();
            items.extend(rp.map(It::Block));
            items.extend(st.clone().map(It::Block));
            if two {
                items.extend(st.map(It::Block));
            }
            items
        })
        .boxed()
}

/// A block of the given header with a body fitting its kind.
fn block_for(
    kind: &'static str,
    labels: Vec<&'static str>,
    is_override: bool,
) -> BoxedStrategy<Blk> {
    let body = match kind {
        "resource" => resource_body(is_override),
        "data" => data_body(),
        "variable" => variable_body(is_override),
        "output" => output_body(is_override),
        "locals" => locals_body(is_override),
        "module" => module_body(is_override),
        "provider" => provider_body(),
        "terraform" => terraform_body(is_override),
        "moved" => Just(vec![
            It::Attr("from", Val::Bare("aws_instance.old")),
            It::Attr("to", Val::Bare("aws_instance.web")),
        ])
        .boxed(),
        "import" => Just(vec![
            It::Attr("to", Val::Bare("aws_instance.web")),
            It::Attr("id", Val::Str("i-123")),
        ])
        .boxed(),
        "check" => (
            prop::option::weighted(
                0.5,
                (
                    select(&[["aws_ami", "ubuntu"], ["aws_vpc", "main"]][..]),
                    data_body(),
                    any::<bool>(),
                )
                    .prop_map(|(l, body, arr)| It::Block(blk("data", l.to_vec(), body, arr))),
            ),
            Just(It::Block(blk(
                "assert",
                vec![],
                vec![
                    It::Attr("condition", Val::Expr("var.replicas > 0")),
                    It::Attr("error_message", Val::Str("no")),
                ],
                false,
            ))),
        )
            .prop_map(|(data, assert)| data.into_iter().chain([assert]).collect())
            .boxed(),
        _ => resource_body(is_override),
    };
    (body, any::<bool>())
        .prop_map(move |(items, arr)| blk(kind, labels.clone(), items, arr))
        .boxed()
}

/// A top-level header: kind and labels, from small pools.
fn header() -> BoxedStrategy<(&'static str, Vec<&'static str>)> {
    prop_oneof![
        8 => (select(&["aws_instance", "aws_security_group", "aws_s3_bucket"][..]), select(&["web", "main", "logs"][..]))
            .prop_map(|(t, n)| ("resource", vec![t, n])),
        2 => (select(&["aws_ami", "aws_vpc"][..]), select(&["ubuntu", "main"][..])).prop_map(|(t, n)| ("data", vec![t, n])),
        4 => select(&["region", "instance_type", "replicas", "tags", "zones"][..]).prop_map(|n| ("variable", vec![n])),
        3 => select(&["ip", "id", "arn"][..]).prop_map(|n| ("output", vec![n])),
        3 => Just(("locals", vec![])),
        2 => select(&["vpc", "db"][..]).prop_map(|n| ("module", vec![n])),
        2 => select(&["aws", "google"][..]).prop_map(|n| ("provider", vec![n])),
        3 => Just(("terraform", vec![])),
        1 => Just(("check", vec!["health"])),
        1 => prop_oneof![
            Just(("moved", vec![])),
            Just(("import", vec![])),
            Just(("resourse", vec!["aws_instance", "web"])),
            Just(("resource", vec!["aws_instance"])),
        ],
    ]
    .boxed()
}

fn primary_block() -> BoxedStrategy<Blk> {
    header().prop_flat_map(|(k, l)| block_for(k, l, false)).boxed()
}

/// The address a primary's header is known by (duplicates share it).
fn address(b: &Blk) -> Option<String> {
    match b.kind {
        "locals" | "terraform" | "moved" | "import" => None,
        "provider" => {
            let alias = b.items.iter().find_map(|i| match i {
                It::Attr("alias", Val::Str(a)) => Some(*a),
                _ => None,
            });
            Some(format!("provider.{}.{}", b.labels.join("."), alias.unwrap_or("")))
        }
        _ => Some(format!("{}.{}", b.kind, b.labels.join("."))),
    }
}

#[derive(Clone)]
struct Case {
    files: Vec<(String, String)>,
    engine: Option<Engine>,
    /// The model the files were printed from (file name, blocks).
    spec: Vec<(String, Vec<Blk>)>,
}

impl fmt::Debug for Case {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "Case (engine {:?})", self.engine)?;
        for (n, t) in &self.files {
            writeln!(f, "---- {n}\n{t}")?;
        }
        Ok(())
    }
}

impl Case {
    fn names(&self) -> Vec<String> {
        self.files.iter().map(|(n, _)| n.clone()).collect()
    }
}

const PRIMARY_NAMES: &[&str] =
    &["main.tf", "network.tf.json", "outputs.tf", "variables.tf.json", "versions.tf"];
const OVERRIDE_NAMES: &[&str] =
    &["override.tf", "x_override.tf", "y_override.tf.json", "override.tf.json"];

/// One byte-level change: delete, insert a token, truncate, or duplicate a line.
#[derive(Clone, Debug)]
struct Corruption {
    file: Index,
    at: Index,
    op: u8,
}

fn corrupt(text: &str, c: &Corruption) -> String {
    let bounds: Vec<usize> = text.char_indices().map(|(i, _)| i).chain([text.len()]).collect();
    let at = bounds[c.at.index(bounds.len())];
    let next = bounds.iter().copied().find(|&b| b > at).unwrap_or(at);
    match c.op % 7 {
        0 => format!("{}{}", &text[..at], &text[next..]),
        1 => format!("{}{{{}", &text[..at], &text[at..]),
        2 => format!("{}\"{}", &text[..at], &text[at..]),
        3 => format!("{}}}{}", &text[..at], &text[at..]),
        4 => text[..at].to_string(),
        5 => format!("{}${{{}", &text[..at], &text[at..]),
        _ => {
            let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
            let line_end = text[at..].find('\n').map_or(text.len(), |i| at + i + 1);
            format!("{}{}", &text[..line_end], &text[line_start..])
        }
    }
}

/// Drops blocks whose address already appeared; with `keep_dups` only repeated `check`
/// blocks go (an override of a data block nested in a repeated check panics, see
/// `bug_override_of_data_in_repeated_check_panics`).
fn dedupe_blocks(blocks: Vec<Blk>, keep_dups: bool) -> Vec<Blk> {
    let mut seen = BTreeSet::new();
    blocks
        .into_iter()
        .filter(|b| (keep_dups && b.kind != "check") || address(b).is_none_or(|a| seen.insert(a)))
        .collect()
}

/// A module: primaries, then overrides aimed mostly at what the primaries declare.
fn module_case(with_overrides: bool, allow_corruption: bool) -> BoxedStrategy<Case> {
    (prop::collection::vec(primary_block(), 1..7), prop::bool::weighted(0.1))
        .prop_flat_map(move |(prims, keep_dups)| {
            let prims = dedupe_blocks(prims, keep_dups);
            // Top-level headers, and the data blocks nested in check blocks.
            let headers: Vec<(&'static str, Vec<&'static str>)> = prims
                .iter()
                .map(|b| (b.kind, b.labels.clone()))
                .chain(prims.iter().filter(|b| b.kind == "check").flat_map(|b| {
                    b.items.iter().filter_map(|i| match i {
                        It::Block(d) if d.kind == "data" => Some(("data", d.labels.clone())),
                        _ => None,
                    })
                }))
                .collect();
            let target = select(headers);
            let ov_block = prop_oneof![
                8 => target.prop_flat_map(|(k, l)| block_for(k, l, true)),
                1 => header().prop_flat_map(|(k, l)| block_for(k, l, true)),
            ];
            let n_ov = if with_overrides { 0..5 } else { 0..1 };
            let n = prims.len();
            (
                Just(prims),
                prop::collection::vec(ov_block, n_ov),
                subsequence(PRIMARY_NAMES, 1..=3),
                prop::bool::weighted(0.1),
                prop::collection::vec(any::<Index>(), n),
                subsequence(OVERRIDE_NAMES, 1..=2),
                prop::collection::vec(any::<Index>(), 4),
                if allow_corruption {
                    prop::option::weighted(
                        0.1,
                        (any::<Index>(), any::<Index>(), any::<u8>())
                            .prop_map(|(file, at, op)| Corruption { file, at, op }),
                    )
                    .boxed()
                } else {
                    Just(None).boxed()
                },
                (
                    prop::option::weighted(0.15, Just(Engine::OpenTofu)),
                    prop::collection::vec(
                        (prop::bool::weighted(0.08), prop::bool::weighted(0.05)),
                        8,
                    ),
                ),
            )
        })
        .prop_map(
            |(
                prims,
                ovs,
                pnames,
                tofu,
                passign,
                onames,
                oassign,
                corruption,
                (engine, encodings),
            )| {
                let mut pnames: Vec<&str> = pnames;
                if tofu {
                    pnames.push("main.tofu");
                }
                let mut files: Vec<(String, Vec<Blk>)> =
                    pnames.iter().map(|n| (n.to_string(), Vec::new())).collect();
                for (b, i) in prims.into_iter().zip(passign) {
                    let k = i.index(files.len());
                    files[k].1.push(b);
                }
                if !ovs.is_empty() {
                    let first = files.len();
                    files.extend(onames.iter().map(|n| (n.to_string(), Vec::new())));
                    for (j, b) in ovs.into_iter().enumerate() {
                        let k = first + oassign[j % oassign.len()].index(onames.len());
                        files[k].1.push(b);
                    }
                }
                let spec = files.clone();
                let mut files: Vec<(String, String)> = files
                    .into_iter()
                    .zip(encodings)
                    .map(|((n, blocks), (crlf, bom))| {
                        let mut text = file_text(&blocks, n.ends_with(".json"));
                        if crlf {
                            text = text.replace('\n', "\r\n");
                        }
                        if bom {
                            text.insert(0, '\u{feff}');
                        }
                        (n, text)
                    })
                    .collect();
                if let Some(c) = corruption {
                    let k = c.file.index(files.len());
                    files[k].1 = corrupt(&files[k].1, &c);
                }
                Case { files, engine, spec }
            },
        )
        .boxed()
}

/// Files as raw bytes, and the engine asked for.
type RawModule = (Vec<(String, Vec<u8>)>, Option<Engine>);

/// Arbitrary content: raw bytes, token soup, or a generated file cut short.
fn junk_case() -> BoxedStrategy<RawModule> {
    let tokens = prop::collection::vec(
        select(
            &[
                "resource",
                "\"a\"",
                "{",
                "}",
                "[",
                "]",
                "(",
                ")",
                "=",
                "\n",
                "<<EOT\n",
                "EOT",
                "${",
                "%{",
                "\"",
                "override",
                "lifecycle",
                "dynamic",
                "locals",
                "terraform",
                "backend",
                "variable",
                "type",
                "default",
                "null",
                "1",
                ",",
                ":",
                "#",
                "/*",
                "*/",
                "\\",
                "\u{feff}",
                "✓",
                "depends_on",
                "[]",
                "{}",
                "\"//\"",
            ][..],
        ),
        0..40,
    )
    .prop_map(|t| t.concat().into_bytes());
    let content = prop_oneof![
        prop::collection::vec(any::<u8>(), 0..200),
        tokens,
        (primary_block(), any::<bool>(), any::<Index>()).prop_map(|(b, json, cut)| {
            let mut bytes = file_text(&[b], json).into_bytes();
            bytes.truncate(cut.index(bytes.len() + 1));
            bytes
        }),
    ];
    let names = subsequence(
        &[
            "main.tf",
            "a.tf.json",
            "override.tf",
            "x_override.tf.json",
            "main.tofu",
            "b_override.tofu.json",
        ][..],
        1..=4,
    );
    (
        names,
        prop::collection::vec(content, 4),
        prop::option::of(select(&[Engine::Terraform, Engine::OpenTofu][..])),
    )
        .prop_map(|(names, contents, engine)| {
            (names.into_iter().zip(contents).map(|(n, c)| (n.to_string(), c)).collect(), engine)
        })
        .boxed()
}

// ---------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------

fn load_bytes(files: &[(String, Vec<u8>)], names: &[String], engine: Option<Engine>) -> Module {
    let map: HashMap<&str, &[u8]> = files.iter().map(|(n, t)| (n.as_str(), t.as_slice())).collect();
    let read = |p: &str| -> Result<Vec<u8>, Infallible> {
        Ok(map.get(p).map(|t| t.to_vec()).unwrap_or_default())
    };
    match merge::load("", names, engine, read) {
        Ok(m) => m,
        Err(never) => match never {},
    }
}

fn load(case: &Case, names: &[String]) -> Module {
    let files: Vec<(String, Vec<u8>)> =
        case.files.iter().map(|(n, t)| (n.clone(), t.clone().into_bytes())).collect();
    load_bytes(&files, names, case.engine)
}

/// Everything a user sees of a merge: all three renderings and the diagnostics.
fn everything(m: &Module) -> (String, String, String, String) {
    (
        render::hcl::render(m),
        render::tfjson::render(m),
        render::json::render(m),
        format!("{:?}{:?}", m.diagnostics, m.ignored),
    )
}

/// The hcl rendering without provenance: the header line, `# overridden by` lines and
/// `# ← file:line` comments (trailing or on a line of their own).
fn strip_provenance(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let t = line.trim_start();
        if t.starts_with("# Effective configuration")
            || t.starts_with("# overridden by ")
            || t.starts_with("# ← ")
            // What the flattened block cannot say (an override type's ignored defaults).
            || t.starts_with("# NOTE: ")
        {
            continue;
        }
        let line = match line.find(" # ← ") {
            Some(i) => line[..i].trim_end(),
            None => line,
        };
        out.push_str(line);
        out.push('\n');
    }
    // Without the comments, lines that were apart may now align: lay them out again.
    override_guard_hcl::fmt::format(&out).unwrap_or(out)
}

fn errors(m: &Module) -> Vec<String> {
    m.diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| format!("{}: {}", d.summary, d.detail))
        .collect()
}

/// The same cases on every run, so that a verdict never depends on the run's luck: the
/// seed is fixed unless `PROPTEST_RNG_SEED=N` asks for other cases, and `PROPTEST_CASES`
/// raises the count, for a deeper local run (a failure found so becomes a fixture).
fn config() -> Config {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(192);
    let default = Config::default();
    let rng_seed = match std::env::var_os("PROPTEST_RNG_SEED") {
        Some(_) => default.rng_seed,
        None => proptest::test_runner::RngSeed::Fixed(0x6f76_6572_7269_6465),
    };
    Config { cases, rng_seed, failure_persistence: None, ..default }
}

/// The identity of property 4a: the primaries' top-level content, as parsed, in order.
fn unmerged(m: &Module) -> Module {
    let mut e = m.clone();
    e.blocks.clear();
    e.locals.clear();
    e.settings = Settings::default();
    for f in &m.parsed {
        for item in f.body.items.iter() {
            let Item::Block(b) = item else { continue };
            match b.kind.as_str() {
                "locals" => e.locals.extend(b.body.attrs().cloned()),
                "terraform" => settings_of(&mut e.settings, b),
                _ => e.blocks.push(b.clone()),
            }
        }
    }
    e
}

fn settings_of(s: &mut Settings, t: &Block) {
    for item in t.body.items.iter() {
        match item {
            Item::Attr(a) if a.name == "required_version" => s.required_version.push(a.clone()),
            Item::Block(b) if b.kind == "required_providers" => {
                s.required_providers_span = Some(b.def_span);
                s.required_providers = b.body.attrs().cloned().collect();
            }
            Item::Block(b) if b.kind == "backend" => s.backend = Some(b.clone()),
            Item::Block(b) if b.kind == "cloud" => s.cloud = Some(b.clone()),
            other => s.other.push(other.clone()),
        }
    }
}

/// Repeated arguments dropped, nested blocks as JSON arrays.
fn normalise(mut b: Blk) -> Blk {
    b.items = dedupe_attrs(b.items);
    for it in &mut b.items {
        if let It::Block(n) = it {
            *n = normalise(n.clone());
            n.json_array = true;
        }
    }
    b
}

/// The case printed again from its model, each file in its own syntax, with nested blocks
/// as JSON arrays (`{…}` and `[{…}]` are the same blocks, but a provider-defined body
/// keeps JSON as written, so the documents would differ).
fn normalised(case: &Case) -> Case {
    let files = case
        .spec
        .iter()
        .map(|(name, blocks)| {
            let blocks: Vec<Blk> = blocks.iter().cloned().map(normalise).collect();
            (name.clone(), file_text(&blocks, name.ends_with(".json")))
        })
        .collect();
    Case { files, engine: case.engine, spec: case.spec.clone() }
}

/// The case's model printed again with every file in one syntax (`stem.tf` or
/// `stem.tf.json`, `.tofu` likewise), repeated arguments dropped (a load error only in
/// native syntax) and nested blocks as JSON arrays (`{…}` and `[{…}]` are the same blocks,
/// but a provider-defined body keeps JSON as written). `None` when two files would share a
/// name.
fn in_one_syntax(case: &Case, json: bool) -> Option<Case> {
    // Left out: a misspelt block type, which JSON syntax drops silently (see
    // `bug_json_unknown_top_level_property_ignored`), and a resource with one label, which
    // JSON syntax cannot even write (its body's properties would be read as the name).
    if case
        .spec
        .iter()
        .flat_map(|(_, b)| b)
        .any(|b| b.kind == "resourse" || (b.kind == "resource" && b.labels.len() < 2))
    {
        return None;
    }
    let mut files = Vec::new();
    let mut seen = BTreeSet::new();
    for (name, blocks) in &case.spec {
        let (stem, ext) = [(".tf.json", "tf"), (".tf", "tf"), (".tofu", "tofu")]
            .iter()
            .find_map(|(suffix, ext)| name.strip_suffix(suffix).map(|s| (s, *ext)))?;
        if !seen.insert((stem, ext)) {
            return None;
        }
        let name = if json { format!("{stem}.{ext}.json") } else { format!("{stem}.{ext}") };
        let blocks: Vec<Blk> = blocks.iter().cloned().map(normalise).collect();
        files.push((name, file_text(&blocks, json)));
    }
    Some(Case { files, engine: case.engine, spec: Vec::new() })
}

fn nothing_displaced(m: &Module) -> bool {
    fn block(b: &Block) -> bool {
        b.displaced.is_empty()
            && b.body.items.iter().all(|i| match i {
                Item::Attr(a) => a.displaced.is_empty(),
                Item::Block(b) => block(b),
                Item::Json(j) => j.displaced.is_empty(),
            })
    }
    m.blocks.iter().all(block)
        && m.locals.iter().all(|a| a.displaced.is_empty())
        && m.settings.backend.iter().chain(&m.settings.cloud).all(block)
        && m.settings
            .required_version
            .iter()
            .chain(&m.settings.required_providers)
            .all(|a| a.displaced.is_empty())
}

// ---------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------

/// Two tf-json documents that say the same, where one writes a single nested block as
/// an object and the other as a list of one: whether a `.tf.json` property prints as a
/// block is decided by the native files of the module that write that name as one
/// (an override, say), which folding removes.
fn same_up_to_one_block(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    use serde_json::Value::{Array, Object};
    match (a, b) {
        (Object(x), Object(y)) => {
            x.len() == y.len()
                && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same_up_to_one_block(v, w)))
        }
        (Array(x), Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(v, w)| same_up_to_one_block(v, w))
        }
        (Object(_), Array(y)) | (Array(y), Object(_)) if y.len() == 1 => {
            let (o, one) = if a.is_object() { (a, &y[0]) } else { (b, &y[0]) };
            same_up_to_one_block(o, one)
        }
        _ => a == b,
    }
}

proptest! {
    #![proptest_config(config())]

    /// 1. Never a panic, whatever the files say.
    #[test]
    fn merge_never_panics_on_generated_modules(case in module_case(true, true)) {
        let m = load(&case, &case.names());
        let _ = everything(&m);
        let other = if m.engine == Engine::Terraform { Engine::OpenTofu } else { Engine::Terraform };
        let _ = everything(&merge::reassemble(&m, other));
    }

    /// 1. Never a panic on arbitrary bytes either.
    #[test]
    fn merge_never_panics_on_arbitrary_bytes((files, engine) in junk_case()) {
        let names: Vec<String> = files.iter().map(|(n, _)| n.clone()).collect();
        let m = load_bytes(&files, &names, engine);
        let _ = everything(&m);
    }

    /// 2. The tf-json and hcl renderings of a valid module are fixed points.
    #[test]
    fn renderings_are_fixed_points(case in module_case(true, false)) {
        let m = load(&case, &case.names());
        // A merge may leave a block with both count and for_each, which no single block
        // may say (see merge fixture 050): no rendering of it can load.
        let both = m.blocks.iter().any(|b| b.attr("count").is_some() && b.attr("for_each").is_some());
        if m.has_errors() || both {
            return Ok(());
        }
        let want = render::tfjson::document(&m);

        // OpenTofu reads required_version only from .tofu files: its renderings are loaded
        // as main.tofu(.json) (see `bug_opentofu_rendering_as_main_tf_drops_required_version`).
        let (tf, tf_json) = match m.engine {
            Engine::Terraform => ("main.tf", "main.tf.json"),
            Engine::OpenTofu => ("main.tofu", "main.tofu.json"),
        };
        let t1 = render::tfjson::render(&m);
        let j = load_texts("", &[(tf_json, t1.as_str())], Some(m.engine));
        prop_assert!(!j.has_errors(), "tf-json rendering rejected: {:?}\n{t1}", errors(&j));
        let t2 = render::tfjson::render(&j);
        prop_assert_eq!(&t1, &t2, "tf-json rendering is no fixed point");

        let h1 = render::hcl::render(&m);
        let h = load_texts("", &[(tf, h1.as_str())], Some(m.engine));
        prop_assert!(!h.has_errors(), "hcl rendering rejected: {:?}\n{h1}", errors(&h));
        let h2 = render::hcl::render(&h);
        prop_assert_eq!(strip_provenance(&h1), strip_provenance(&h2), "hcl rendering is no fixed point");
        // Before its layout, the rendering says exactly what the module says; the layout
        // is `terraform fmt`'s, which only moves spaces and unwraps `"${x}"` to `x`.
        let raw = load_texts("", &[(tf, render::hcl::layout(&m).as_str())], Some(m.engine));
        prop_assert_eq!(render::tfjson::document(&raw), want, "hcl rendering changes the configuration\n{}", h1);
    }

    /// 3. The order the source yields the names in does not matter.
    #[test]
    fn merge_is_independent_of_listing_order(
        (case, shuffled) in module_case(true, true)
            .prop_flat_map(|c| { let n = c.names(); (Just(c), Just(n).prop_shuffle()) })
    ) {
        let a = load(&case, &case.names());
        let mut reversed = case.names();
        reversed.reverse();
        for names in [shuffled, reversed] {
            let b = load(&case, &names);
            prop_assert_eq!(everything(&a), everything(&b), "listing {:?}", names);
        }
    }

    /// 4a. Without override files, the effective configuration is the parsed primaries.
    #[test]
    fn primaries_alone_are_their_own_configuration(case in module_case(false, false)) {
        let m = load(&case, &case.names());
        prop_assert!(m.override_files().next().is_none());
        prop_assert!(m.ignored.is_empty(), "ignored: {:?}", m.ignored);
        prop_assert!(nothing_displaced(&m), "something displaced without overrides");
        if m.has_errors() || m.engine != Engine::Terraform {
            return Ok(());
        }
        let e = unmerged(&m);
        prop_assert_eq!(&m.blocks, &e.blocks);
        prop_assert_eq!(&m.locals, &e.locals);
        prop_assert_eq!(&m.settings, &e.settings);
        prop_assert_eq!(render::tfjson::render(&m), render::tfjson::render(&e));
    }

    /// 4b. File boundaries between native-syntax primaries do not matter.
    #[test]
    fn concatenated_primaries_give_the_same_configuration(case in module_case(false, false)) {
        let hcl: Vec<(String, String)> =
            case.files.iter().filter(|(n, _)| n.ends_with(".tf")).cloned().collect();
        if hcl.is_empty() {
            return Ok(());
        }
        let split = Case { files: hcl.clone(), engine: Some(Engine::Terraform), spec: Vec::new() };
        let a = load(&split, &split.names());
        prop_assume!(a.parse_diagnostics().next().is_none());
        // A byte order mark only counts at the start of a file.
        let joined: String =
            hcl.iter().map(|(_, t)| format!("{}\n", t.trim_start_matches('\u{feff}'))).collect();
        let one = Case { files: vec![("main.tf".into(), joined)], engine: Some(Engine::Terraform), spec: Vec::new() };
        let b = load(&one, &one.names());
        let summaries = |m: &Module| -> BTreeSet<String> {
            m.diagnostics.iter().filter(|d| d.is_error()).map(|d| d.summary.clone()).collect()
        };
        prop_assert_eq!(summaries(&a), summaries(&b));
        prop_assert_eq!(render::tfjson::render(&a), render::tfjson::render(&b));
    }

    /// 5. (Beyond the brief.) The same module written all in native syntax and all in JSON
    /// syntax: both valid or both rejected, and when valid the same configuration.
    #[test]
    fn native_and_json_syntax_agree(case in module_case(true, false)) {
        let (Some(hcl), Some(json)) = (in_one_syntax(&case, false), in_one_syntax(&case, true)) else {
            return Ok(());
        };
        let a = load(&hcl, &hcl.names());
        let b = load(&json, &json.names());
        // A call or a reference where Terraform does not evaluate (a variable's default)
        // is an error in native syntax; in JSON syntax the same text is a literal string.
        let static_only = |m: &Module| {
            m.diagnostics.iter().filter(|d| d.is_error()).all(|d| {
                d.summary == "Function calls not allowed" || d.summary == "Variables not allowed"
            })
        };
        if a.has_errors() && !b.has_errors() && static_only(&a) {
            return Ok(());
        }
        prop_assert_eq!(
            a.has_errors(),
            b.has_errors(),
            "native {:?}\njson {:?}\n{:?}{:?}",
            errors(&a),
            errors(&b),
            hcl,
            json
        );
        if !a.has_errors() {
            prop_assert_eq!(
                render::tfjson::document(&a),
                render::tfjson::document(&b),
                "{:?}{:?}",
                hcl,
                json
            );
        }
    }

    /// 6. (Beyond the brief.) An override file restating primary blocks as they are, in
    /// either syntax, changes nothing — or is rejected for what overrides may not contain
    /// (`depends_on`, `validation`, `precondition`, `moved`, …).
    #[test]
    fn restating_primaries_in_an_override_changes_nothing(
        case in module_case(false, false),
        mask in prop::collection::vec(prop::bool::weighted(0.7), 8),
        json in any::<bool>(),
    ) {
        let case = normalised(&case);
        let a = load(&case, &case.names());
        if a.has_errors() {
            return Ok(());
        }
        // Only what was loaded (OpenTofu skips `main.tf` next to `main.tofu`).
        let loaded: BTreeSet<&str> = a.files.files.iter().map(|f| f.name()).collect();
        let restated: Vec<Blk> = case
            .spec
            .iter()
            .filter(|(name, _)| loaded.contains(name.as_str()))
            .flat_map(|(_, blocks)| blocks)
            .zip(mask.iter().cycle())
            // `terraform` blocks all or none: an override's required_version constraints
            // replace all the primaries' ones.
            .filter(|(b, keep)| if b.kind == "terraform" { mask[0] } else { **keep })
            // A misspelt type passes in JSON (`bug_json_unknown_top_level_property_ignored`).
            .filter(|(b, _)| b.kind != "resourse")
            // JSON cannot write a block with too few labels, so a JSON primary never had
            // it; restated in native syntax it is (rightly) an error.
            .filter(|(b, _)| match b.kind {
                "resource" | "data" | "ephemeral" => b.labels.len() == 2,
                "variable" | "output" | "module" | "provider" | "check" => b.labels.len() == 1,
                _ => true,
            })
            .map(|(b, _)| normalise(b.clone()))
            .collect();
        let name = if json { "restate_override.tf.json" } else { "restate_override.tf" };
        let mut with = case.clone();
        with.files.push((name.to_string(), file_text(&restated, json)));
        let b = load(&with, &with.names());
        let unexpected: Vec<String> = b
            .diagnostics
            .iter()
            .filter(|d| d.is_error())
            .filter(|d| {
                !["Can't override", "Cannot override", "Unsupported override"]
                    .iter()
                    .any(|p| d.summary.starts_with(p))
            })
            // A JSON primary's `"${…}"` default is literal text; restated in native
            // syntax it is a call or a reference where none may be.
            .filter(|d| {
                json || !(d.summary == "Function calls not allowed" || d.summary == "Variables not allowed")
            })
            .map(|d| format!("{}: {}", d.summary, d.detail))
            .collect();
        prop_assert!(unexpected.is_empty(), "{:?}\n{:?}", unexpected, with);
        if !b.has_errors() {
            prop_assert_eq!(
                render::tfjson::document(&a),
                render::tfjson::document(&b),
                "{:?}",
                with
            );
        }
    }

    /// 7. (Beyond the brief.) Overrides replace: the override files applied a second time
    /// (copies named `zz_…`, merged after the originals) change nothing.
    #[test]
    fn overrides_applied_twice_change_nothing(case in module_case(true, true)) {
        let a = load(&case, &case.names());
        let mut twice = case.clone();
        for f in a.override_files() {
            let text = case.files.iter().find(|(n, _)| n == f.name()).map(|(_, t)| t.clone());
            twice.files.push((format!("zz_{}", f.name()), text.unwrap_or_default()));
        }
        let b = load(&twice, &twice.names());
        if a.has_errors() {
            prop_assert!(b.has_errors());
            return Ok(());
        }
        // Not quite: a variable's default is re-checked against each override's type, so
        // `type = list(string)` then `type = bool, default = true`, applied twice, meets
        // `true` with `list(string)` (Terraform's `Variable.merge` errs the same way).
        let others: Vec<String> = errors(&b)
            .into_iter()
            .filter(|e| !e.starts_with("Invalid default value for variable"))
            .collect();
        prop_assert!(others.is_empty(), "{:?}", others);
        if !b.has_errors() {
            prop_assert_eq!(render::tfjson::document(&a), render::tfjson::document(&b));
        }
    }

    /// 8. `fold` never panics, and when it folds, the primary files it writes say alone
    /// what primaries and overrides said together (checked here independently of the
    /// check `fold` makes itself).
    #[test]
    fn fold_keeps_the_configuration_or_refuses(case in module_case(true, true)) {
        let m = load(&case, &case.names());
        let names: Vec<String> = m.override_files().map(|f| f.name().to_string()).collect();
        if let Ok(edits) = override_guard::fix::fold::plan(&m, &names).map(|f| f.edits) {
            let mut folded = case.clone();
            folded.files.retain(|(n, _)| !names.contains(n));
            for e in edits.iter().filter(|e| e.after.is_some()) {
                let slot = folded.files.iter_mut().find(|(n, _)| *n == e.path);
                prop_assert!(slot.is_some(), "fold wrote a file that is not the module's: {}", e.path);
                if let Some(slot) = slot {
                    slot.1 = e.after.clone().unwrap_or_default();
                }
            }
            let b = load(&folded, &folded.names());
            prop_assert!(!b.has_errors(), "{:?}", errors(&b));
            prop_assert!(b.override_files().next().is_none());
            let (before, after) = (render::tfjson::document(&m), render::tfjson::document(&b));
            prop_assert!(same_up_to_one_block(&before, &after), "{before}\n!=\n{after}");
        }
    }

    /// 9. `fix` never panics, and a second run has nothing to do.
    #[test]
    fn fix_twice_is_fix_once(case in module_case(true, true)) {
        let m = load(&case, &case.names());
        let policy = override_guard::policy::Policy::builtin();
        let plan = override_guard::fix::comments::plan(&m, &policy, &Default::default(), override_guard::policy::Date { year: 2026, month: 11, day: 22 });
        let mut fixed = case.clone();
        for e in &plan.edits {
            if let Some(slot) = fixed.files.iter_mut().find(|(n, _)| *n == e.path) {
                slot.1 = e.after.clone().unwrap_or_default();
            }
        }
        let again = override_guard::fix::comments::plan(&load(&fixed, &fixed.names()), &policy, &Default::default(), override_guard::policy::Date { year: 2026, month: 11, day: 22 });
        prop_assert!(again.edits.is_empty(), "{:?}", again.edits.iter().map(|e| e.diff(&e.path)).collect::<Vec<_>>());
    }

    /// 4c. Empty override files change nothing.
    #[test]
    fn empty_override_files_change_nothing(
        case in module_case(false, true),
        empties in subsequence(&[("override.tf", ""), ("x_override.tf", "# nothing here\n"), ("y_override.tf.json", "{}\n"), ("z_override.tf.json", "{\"//\": \"empty\"}")][..], 1..=4)
    ) {
        let a = load(&case, &case.names());
        let mut with = case.clone();
        with.files.extend(empties.iter().map(|(n, t)| (n.to_string(), t.to_string())));
        let b = load(&with, &with.names());
        prop_assert_eq!(render::tfjson::render(&a), render::tfjson::render(&b));
        prop_assert_eq!(strip_provenance(&render::hcl::render(&a)), strip_provenance(&render::hcl::render(&b)));
        prop_assert_eq!(format!("{:?}", a.diagnostics), format!("{:?}", b.diagnostics));
        prop_assert_eq!(&a.ignored, &b.ignored);
    }
}

// ---------------------------------------------------------------------------------------
// Regressions for what the properties found (minimal inputs, shrunk by hand)
// ---------------------------------------------------------------------------------------

/// HCL's `ObjectConsExpr` has no duplicate-key check (the last item wins, at evaluation),
/// so Terraform loads this module; hcl-edit refuses the file ("redefined object key") and
/// `show` says Terraform would reject it. Found by `renderings_are_fixed_points`: a JSON
/// value with a repeated key (accepted) printed as a native object (rejected).
#[test]

fn bug_duplicate_object_key_rejected() {
    let m = load_texts(
        "",
        &[("main.tf", "locals {\n  tags = { owner = \"a\", owner = \"b\" }\n}\n")],
        None,
    );
    assert!(!m.has_errors(), "{:?}", errors(&m));
    assert_eq!(m.locals.len(), 1);
}

/// An empty heredoc (`<<EOT` then the marker line) is closed by hcl-edit 0.10 at the *next*
/// marker line of the file when there is one: `c` vanishes into `a`'s text without any
/// diagnostic (HCL's scanner ends a heredoc at the first line that is the marker alone).
/// Found by `concatenated_primaries_give_the_same_configuration`.
#[test]

fn bug_empty_heredoc_swallows_what_follows() {
    let text = "locals {\n  a = <<EOT\nEOT\n  c = <<EOT\ny\nEOT\n}\n";
    let m = load_texts("", &[("main.tf", text)], None);
    let names: Vec<&str> = m.locals.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, ["a", "c"]);
    assert_eq!(m.locals[0].expr.as_str().as_deref(), Some(""));
}

/// HCL ends a heredoc only at a line holding the marker alone (`TrimSpace(line) ==
/// marker` in its scanner), so `EOT]` does not close it and Terraform reports an
/// unterminated heredoc; hcl-edit accepts the marker followed by `]`, and `show` prints a
/// configuration for a module Terraform rejects. Found while making the generator's lists
/// valid. (Terraform's exact error to be confirmed with `terraform validate`.)
#[test]

fn bug_heredoc_marker_not_alone_on_its_line_accepted() {
    let m = load_texts("", &[("main.tf", "locals {\n  a = [<<EOT\nx\nEOT]\n}\n")], None);
    assert!(
        m.has_errors(),
        "accepted: {:?}",
        m.locals.iter().map(|a| a.expr.to_hcl()).collect::<Vec<_>>()
    );
}

/// A JSON value in a provider-defined body is kept unchecked; when it holds an invalid
/// template (`%{ else }` without `if`, which Terraform rejects once the provider schema
/// decodes it), the hcl rendering escapes it into the valid literal `"%%{ else }"`: the
/// `show` output is a different, accepted configuration. Found by
/// `renderings_are_fixed_points` (the tf-json rendering keeps the text as is).
#[test]
#[ignore = "bug: the hcl rendering turns an invalid JSON template into a literal string"]
fn bug_invalid_json_template_rendered_as_literal() {
    let json = r#"{"resource": {"aws_s3_bucket": {"web": {"tags": {"a": "%{ else }"}}}}}"#;
    let m = load_texts("", &[("main.tf.json", json)], None);
    assert!(!m.has_errors());
    let hcl = render::hcl::render(&m);
    let again = load_texts("", &[("main.tf", hcl.as_str())], Some(m.engine));
    assert_eq!(render::tfjson::document(&again), render::tfjson::document(&m), "{hcl}");
}

/// Under OpenTofu, `required_version` counts only in `.tofu` files (the merge's rule), so
/// the renderings of an OpenTofu module, which docs/commands.md says load as `main.tf` /
/// `main.tf.json`, lose the constraint when loaded under those names. Found by
/// `renderings_are_fixed_points` (which now loads them as `main.tofu(.json)`).
#[test]
#[ignore = "bug: an OpenTofu rendering loaded as main.tf(.json) drops required_version"]
fn bug_opentofu_rendering_as_main_tf_drops_required_version() {
    let tofu = "terraform {\n  required_version = \"< 2.0.0\"\n}\n";
    let m = load_texts("", &[("main.tofu", tofu)], None);
    assert_eq!(m.engine, Engine::OpenTofu);
    assert_eq!(m.settings.required_version.len(), 1);
    let want = render::tfjson::document(&m);
    for (name, text) in
        [("main.tf.json", render::tfjson::render(&m)), ("main.tf", render::hcl::render(&m))]
    {
        let again = load_texts("", &[(name, text.as_str())], Some(Engine::OpenTofu));
        assert_eq!(render::tfjson::document(&again), want, "via {name}");
    }
}

/// A top-level JSON property that is no block type (a misspelt `"resourse"`) is an error
/// in Terraform whatever its value ("Extraneous JSON object property", from the file
/// schema's `Content`); here it is one only for a scalar value, while an object, array or
/// null value is kept as an ambiguous JSON item and dropped by the merge: the resource
/// vanishes and `show` exits 0. Found by `native_and_json_syntax_agree` (the native
/// `resourse` block is "Unsupported block type").
#[test]
fn bug_json_unknown_top_level_property_ignored() {
    for name in ["main.tf.json", "x_override.tf.json"] {
        let json = r#"{"resourse": {"aws_instance": {"web": {"ami": "x"}}}}"#;
        let m = load_texts(
            "",
            &[("main.tf", "resource \"aws_instance\" \"web\" {}\n"), (name, json)],
            None,
        );
        let summaries: Vec<&str> = m.diagnostics.iter().map(|d| d.summary.as_str()).collect();
        assert_eq!(summaries, ["Extraneous JSON object property"], "in {name}");
    }
}

/// A JSON property repeated in a provider-defined body (`"ingress"` twice, which Terraform
/// JSON syntax reads as blocks of both) is accepted, and the hcl rendering prints it as an
/// attribute twice: `Attribute redefined` when the output is loaded as `main.tf`. (More
/// generally an ambiguous JSON property is printed as an attribute, `ingress = [{…}]`,
/// where the provider's schema may want blocks.) Found by `renderings_are_fixed_points`.
#[test]
#[ignore = "bug: a repeated JSON property is rendered as a repeated attribute"]
fn bug_repeated_json_property_rendered_twice() {
    let json = r#"{"resource": {"aws_security_group": {"web": {"ingress": [{"from_port": 1}], "ingress": [{"from_port": 2}]}}}}"#;
    let m = load_texts("", &[("main.tf.json", json)], None);
    assert!(!m.has_errors());
    let hcl = render::hcl::render(&m);
    let again = load_texts("", &[("main.tf", hcl.as_str())], Some(m.engine));
    assert!(!again.has_errors(), "{:?}\n{hcl}", errors(&again));
}

/// A JSON property whose name is no identifier, in a provider-defined body, is accepted
/// (Terraform checks names only against the provider's schema, at validate) and the hcl
/// rendering prints it as a quoted attribute name, `"with.dot" = null`, which no HCL
/// parser accepts: `show`'s output does not load. Minor: the provider would reject the
/// name anyway. Found by `renderings_are_fixed_points`.
#[test]
#[ignore = "bug (minor): a non-identifier JSON property name is rendered as a quoted attribute name"]
fn bug_non_identifier_json_property_name_rendered() {
    let json = r#"{"resource": {"aws_instance": {"web": {"with.dot": null}}}}"#;
    let m = load_texts("", &[("main.tf.json", json)], None);
    assert!(!m.has_errors());
    let hcl = render::hcl::render(&m);
    let again = load_texts("", &[("main.tf", hcl.as_str())], Some(m.engine));
    assert!(!again.has_errors(), "{:?}\n{hcl}", errors(&again));
}

/// A `check` block repeated in the primaries is reported ("Duplicate check") and not kept,
/// but a data block nested in the repeat is still registered for overrides, at the index
/// the repeat would have had in the module's blocks. An override of that data block then
/// indexes past the end (a panic: `show` and `audit` crash), or, when another block has
/// taken that index, merges into one of that block's nested blocks. Found by
/// `renderings_are_fixed_points` (a panic in `merge::load`).
#[test]
fn bug_override_of_data_in_repeated_check_panics() {
    let check =
        "check \"health\" {\n  assert {\n    condition = true\n    error_message = \"x\"\n  }\n}\n";
    let repeat = "check \"health\" {\n  data \"aws_ami\" \"ubuntu\" {}\n}\n";
    let over = "data \"aws_ami\" \"ubuntu\" {\n  most_recent = true\n}\n";
    let texts = [
        format!("{check}\n{repeat}"),
        format!(
            "{check}\n{repeat}\nresource \"aws_instance\" \"web\" {{\n  ebs_block_device {{}}\n}}\n"
        ),
    ];
    for main in &texts {
        let m = load_texts("", &[("main.tf", main.as_str()), ("override.tf", over)], None);
        assert!(
            m.diagnostics.iter().any(|d| d.summary == "Duplicate check \"health\" configuration")
        );
        let resource = m.blocks.iter().find(|b| b.kind == "resource");
        assert!(!format!("{resource:?}").contains("most_recent"), "merged into {resource:?}");
    }
}
