//! Merge conformance: every `tests/fixtures/merge/<case>/` holds a module (`module/`) and
//! what real Terraform 1.15.5 made of it (`oracle.json`, recorded with the project's
//! oracle tool). The effective configuration override-guard computes must agree with it,
//! fact by fact; `show.snap` pins the rendered output; and the rendering must re-load to
//! the same configuration (fixed point). Where a case has `config.json`, `show --format
//! config-json` must print it: each is the `configuration` object Terraform 1.15.5 wrote in
//! `terraform show -json` of a plan of the case (with stand-in providers whose schema makes
//! every argument an optional `any` and every nested block a list), confirmed equal, less
//! the `schema_version` of those providers' resources, which needs a real provider's schema
//! (the built-in provider's is known, and kept). Where a case has `tf.json`, `show
//! --format tf-json` must print it: a document Terraform was seen to load as it loads the
//! module (its `case.toml` says on which releases).

use std::path::Path;

use override_guard::merge::{Module, load_texts};
use override_guard::render;
use override_guard::terraform::{Attr, Block, ExprKind, Item, Span, Syntax};
use serde_json::{Value, json};

use crate::fixture::{fixtures, load_dir_as, load_fixture};
use crate::{case_name, per_case, whole};
use override_guard::terraform::discover::Engine;

/// `{"file": …, "line": …}` of where a value came from (line only for native syntax,
/// where the oracle records it).
fn origin(m: &Module, span: Span) -> Value {
    let f = m.files.get(span.file);
    json!({"file": f.name(), "line": f.line_col(span.start).0})
}

fn item_facts(m: &Module, item: &Item) -> Value {
    match item {
        Item::Attr(a) => origin(m, a.span),
        Item::Json(j) => json!({"file": m.files.get(j.span.file).name()}),
        Item::Block(b) => json!({
            "file": m.files.get(b.span.file).name(),
            "line": m.files.get(b.span.file).line_col(b.span.start).0,
            "dynamic": b.kind == "dynamic",
        }),
    }
}

/// Config-body facts: name → origin, or name → [block origins]. The meta-arguments
/// Terraform takes out of the body are skipped in the form its schema gives them
/// (`skip_attrs`, `skip_blocks`): written in the other form, a name stays in the body.
fn body_facts(m: &Module, items: &[Item], skip_attrs: &[&str], skip_blocks: &[&str]) -> Value {
    let mut out = serde_json::Map::new();
    for item in items {
        let name = item.merge_name().to_string();
        let skip = match item {
            Item::Block(b) => b.kind != "dynamic" && skip_blocks.contains(&name.as_str()),
            _ => skip_attrs.contains(&name.as_str()),
        };
        if skip {
            continue;
        }
        match item {
            Item::Block(_) => {
                let e = out.entry(name).or_insert_with(|| json!([]));
                if let Value::Array(list) = e {
                    list.push(item_facts(m, item));
                }
            }
            _ => {
                out.insert(name, item_facts(m, item));
            }
        }
    }
    Value::Object(out)
}

fn oracle_body(v: &Value) -> Value {
    let mut out = serde_json::Map::new();
    for (name, e) in v.as_object().into_iter().flatten() {
        let fact = match e["kind"].as_str() {
            Some("blocks") => Value::Array(
                e["blocks"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|b| json!({"file": b["file"], "line": b["lines"][0], "dynamic": b["dynamic"].as_bool().unwrap_or(false)}))
                    .collect(),
            ),
            Some("json") if e["dynamic"].as_bool() == Some(true) => json!([{"file": e["file"]}]),
            Some("json") => json!({"file": e["file"]}),
            _ => json!({"file": e["file"], "line": e["lines"][0]}),
        };
        out.insert(name.clone(), fact);
    }
    Value::Object(out)
}

/// JSON-syntax blocks have no line in the oracle: compare files only there.
pub fn relax(mine: &mut Value, oracle: &Value) {
    // The oracle reports JSON-syntax nested blocks as one JSON value: compare the file.
    if let (Value::Array(blocks), Value::Object(o)) = (&*mine, oracle)
        && !o.contains_key("line")
        && o.contains_key("file")
        && blocks.iter().all(|b| b["file"] == o["file"])
    {
        *mine = json!({"file": o["file"]});
        return;
    }
    match (mine, oracle) {
        (Value::Object(a), Value::Object(b)) => {
            if !b.contains_key("line") {
                a.remove("line");
                a.remove("dynamic");
            }
            for (k, v) in a.iter_mut() {
                if let Some(o) = b.get(k) {
                    relax(v, o);
                }
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            for (x, y) in a.iter_mut().zip(b) {
                relax(x, y);
            }
        }
        _ => {}
    }
}

fn lifecycle_facts(b: &Block) -> Value {
    let lc = b.body.blocks_of("lifecycle").next();
    let flag = |n: &str| lc.and_then(|l| l.attr(n)).and_then(|a| a.expr.as_bool()).unwrap_or(false);
    let ic = lc.and_then(|l| l.attr("ignore_changes"));
    let all = ic.and_then(|a| a.expr.as_keyword()) == Some("all");
    let list: Vec<String> = ic
        .and_then(|a| a.expr.as_tuple())
        .map(|t| t.iter().map(|e| e.to_hcl().trim().trim_matches('"').to_string()).collect())
        .unwrap_or_default();
    json!({"create_before_destroy": flag("create_before_destroy"), "prevent_destroy": flag("prevent_destroy"),
           "ignore_all_changes": all, "ignore_changes": if all { json!("*") } else { json!(list) }})
}

fn oracle_lifecycle(v: &Value) -> Value {
    let all = v["ignore_all_changes"].as_bool().unwrap_or(false);
    let list: Vec<String> = v["ignore_changes"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|x| {
            x.as_str()
                .map(str::to_string)
                .unwrap_or_else(|| x["text"].as_str().unwrap_or("").to_string())
        })
        .collect();
    json!({"create_before_destroy": v["create_before_destroy"], "prevent_destroy": v["prevent_destroy"],
           "ignore_all_changes": all, "ignore_changes": if all { json!("*") } else { json!(list) }})
}

fn opt_origin(m: &Module, a: Option<&Attr>) -> Value {
    a.map_or(Value::Null, |a| {
        if m.files.get(a.span.file).syntax == Syntax::Json {
            json!({"file": m.files.get(a.span.file).name()})
        } else {
            origin(m, a.span)
        }
    })
}

fn oracle_origin(v: &Value) -> Value {
    if v.is_null() {
        return Value::Null;
    }
    match v["syntax"].as_str() {
        Some("json") => json!({"file": v["file"]}),
        _ => json!({"file": v["file"], "line": v["lines"][0]}),
    }
}

fn str_of(a: Option<&Attr>) -> Value {
    a.and_then(|a| a.expr.as_str()).map_or(json!(""), Value::String)
}

fn bool_of(a: Option<&Attr>, default: bool) -> Value {
    json!(a.and_then(|a| a.expr.as_bool()).unwrap_or(default))
}

/// The facts override-guard computed, in the oracle's shape.
pub fn mine(m: &Module) -> Value {
    let mut resources = serde_json::Map::new();
    let mut data = serde_json::Map::new();
    let mut outputs = serde_json::Map::new();
    let mut variables = serde_json::Map::new();
    let mut modules = serde_json::Map::new();
    const META_ATTRS: [&str; 4] = ["count", "for_each", "provider", "depends_on"];
    // The escaping block `_` too: the oracle cannot see into it.
    const META_BLOCKS: [&str; 4] = ["lifecycle", "connection", "provisioner", "_"];
    for b in &m.blocks {
        match b.kind.as_str() {
            "resource" | "data" => {
                let provider_ref =
                    b.attr("provider").map_or(Value::Null, |a| a.expr.to_json_reference());
                let mut r = json!({
                    "effective": body_facts(m, &b.body.items, &META_ATTRS, &META_BLOCKS),
                    "count": opt_origin(m, b.attr("count")),
                    "for_each": opt_origin(m, b.attr("for_each")),
                    "provider_ref": provider_ref,
                    "provisioners": b.body.blocks_of("provisioner").map(|p| json!(p.labels.first())).collect::<Vec<_>>(),
                });
                let key = format!("{}.{}", b.labels[0], b.labels[1]);
                let key = if b.kind == "data" { format!("data.{key}") } else { key };
                if b.kind == "resource" {
                    r["lifecycle"] = lifecycle_facts(b);
                    resources.insert(key, r);
                } else {
                    data.insert(key, r);
                }
            }
            "output" => {
                outputs.insert(
                    b.labels[0].clone(),
                    json!({"description": str_of(b.attr("description")), "sensitive": bool_of(b.attr("sensitive"), false),
                           "value": opt_origin(m, b.attr("value"))}),
                );
            }
            "variable" => {
                variables.insert(
                    b.labels[0].clone(),
                    json!({"description": str_of(b.attr("description")), "sensitive": bool_of(b.attr("sensitive"), false),
                           "nullable": bool_of(b.attr("nullable"), true), "ephemeral": bool_of(b.attr("ephemeral"), false)}),
                );
            }
            "module" => {
                modules.insert(
                    b.labels[0].clone(),
                    json!({"effective": body_facts(m, &b.body.items, &["source", "version", "count", "for_each", "providers", "depends_on", "ignore_nested_deprecations"], &["_"]),
                           "source": opt_origin(m, b.attr("source")), "version": opt_origin(m, b.attr("version")),
                           "count": opt_origin(m, b.attr("count"))}),
                );
            }
            _ => {}
        }
    }
    let locals: serde_json::Map<String, Value> =
        m.locals.iter().map(|a| (a.name.clone(), opt_origin(m, Some(a)))).collect();
    let st = &m.settings;
    let storage = |b: &Option<Block>, with_type: bool| match b {
        None => Value::Null,
        Some(b) => {
            let mut v = json!({"config": body_facts(m, &b.body.items, &[], &[])});
            if with_type {
                v["type"] = json!(b.labels.first());
            }
            v
        }
    };
    let rp: serde_json::Map<String, Value> = st
        .required_providers
        .iter()
        .map(|a| {
            let (mut source, mut version) = (String::new(), Value::Null);
            match &a.expr.kind {
                ExprKind::Object(entries) => {
                    for (k, v) in entries.iter() {
                        match k {
                            override_guard::terraform::ObjKey::Name(n) if n == "source" => {
                                source = v.as_str().unwrap_or_default()
                            }
                            override_guard::terraform::ObjKey::Name(n) if n == "version" => {
                                version = json!(v.as_str())
                            }
                            _ => {}
                        }
                    }
                }
                _ => version = json!(a.expr.as_str()),
            }
            (a.name.clone(), json!({"source": source, "version": version}))
        })
        .collect();
    let files = |class| -> Vec<String> {
        m.files.files.iter().filter(|f| f.class == class).map(|f| f.name().to_string()).collect()
    };
    json!({
        "files": {"primary": files(override_guard::terraform::FileClass::Primary), "override": files(override_guard::terraform::FileClass::Override)},
        "resources": resources, "data": data, "outputs": outputs, "variables": variables, "modules": modules, "locals": locals,
        "terraform": {
            "backend": storage(&st.backend, true),
            "cloud": storage(&st.cloud, false),
            "required_providers": rp,
            "required_version": st.required_version.iter().map(|a| json!(a.expr.as_str())).collect::<Vec<_>>(),
        },
    })
}

/// The same facts, read from the oracle's output.
pub fn theirs(s: &Value) -> Value {
    let mut resources = serde_json::Map::new();
    let mut data = serde_json::Map::new();
    for (kind, out) in [("resources", &mut resources), ("data", &mut data)] {
        for (k, r) in s[kind].as_object().into_iter().flatten() {
            let mut v = json!({
                "effective": oracle_body(&r["config"]["effective"]),
                "count": oracle_origin(&r["count"]),
                "for_each": oracle_origin(&r["for_each"]),
                "provider_ref": r["provider_ref"],
                "provisioners": r["provisioners"].as_array().into_iter().flatten().map(|p| p["type"].clone()).collect::<Vec<_>>(),
            });
            if kind == "resources" {
                v["lifecycle"] = oracle_lifecycle(&r["lifecycle"]);
            }
            out.insert(k.clone(), v);
        }
    }
    let outputs: serde_json::Map<String, Value> = s["outputs"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, o)| (k.clone(), json!({"description": o["description"], "sensitive": o["sensitive"], "value": oracle_origin(&o["value"])})))
        .collect();
    let variables: serde_json::Map<String, Value> = s["variables"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, v)| (k.clone(), json!({"description": v["description"], "sensitive": v["sensitive"], "nullable": v["nullable"], "ephemeral": v["ephemeral"]})))
        .collect();
    let modules: serde_json::Map<String, Value> = s["modules"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, v)| {
            (k.clone(), json!({"effective": oracle_body(&v["config"]["effective"]), "source": oracle_origin(&v["source"]),
                               "version": oracle_origin(&v["version"]), "count": oracle_origin(&v["count"])}))
        })
        .collect();
    let locals: serde_json::Map<String, Value> = s["locals"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, v)| (k.clone(), oracle_origin(v)))
        .collect();
    let t = &s["terraform"];
    let storage = |v: &Value, with_type: bool| {
        if v.is_null() {
            return Value::Null;
        }
        let mut out = json!({"config": oracle_body(&v["config"])});
        if with_type {
            out["type"] = v["type"].clone();
        }
        out
    };
    let rp: serde_json::Map<String, Value> = t["required_providers"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, v)| (k.clone(), json!({"source": v["source"], "version": v["version"]["value"]})))
        .collect();
    json!({
        "files": s["files"],
        "resources": resources, "data": data, "outputs": outputs, "variables": variables, "modules": modules, "locals": locals,
        "terraform": {
            "backend": storage(&t["backend"], true),
            "cloud": storage(&t["cloud"], false),
            "required_providers": rp,
            "required_version": t["required_version"].as_array().into_iter().flatten().map(|v| v["value"].clone()).collect::<Vec<_>>(),
        },
    })
}

pub fn diagnostics(m: &Module) -> Vec<Value> {
    let mut v: Vec<Value> = m
        .diagnostics
        .iter()
        .map(|d| {
            // A diagnostic without a location has neither (Terraform gives a few no subject).
            let (file, line) = d.subject.map_or((Value::Null, Value::Null), |s| {
                let f = m.files.get(s.file);
                (json!(f.name()), json!(f.line_col(s.start).0))
            });
            json!({"severity": d.severity, "summary": d.summary, "detail": d.detail, "file": file, "line": line})
        })
        .collect();
    v.sort_by_key(|d| d.to_string());
    v
}

pub fn oracle_diagnostics(s: &Value) -> Vec<Value> {
    let mut v: Vec<Value> = s["diagnostics"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|d| json!({"severity": d["severity"], "summary": d["summary"], "detail": d["detail"], "file": d["file"], "line": d["lines"][0]}))
        .collect();
    v.sort_by_key(|d| d.to_string());
    v
}

/// Paths where two fact trees differ.
pub fn differences(a: &Value, b: &Value, path: &str, out: &mut Vec<String>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for k in keys {
                differences(
                    x.get(k).unwrap_or(&Value::Null),
                    y.get(k).unwrap_or(&Value::Null),
                    &format!("{path}.{k}"),
                    out,
                );
            }
        }
        _ if a != b => out.push(format!("{path}: override-guard {a} vs Terraform {b}")),
        _ => {}
    }
}

/// Cases whose oracle facts are known not to be Terraform's result (see their case.toml).
const ORACLE_SECTION_WRONG: [&str; 2] = ["122-json-null-block-noop", "612-escaping-block-merge"];

/// Every check of the suite, one test per case.
pub fn trials() -> Vec<libtest_mimic::Trial> {
    let mut out = vec![whole("merge", "count", || {
        assert!(fixtures("merge").len() >= 60, "at least 60 merge fixtures");
    })];
    out.extend(per_case(
        "merge",
        "agrees-with-terraform",
        fixtures("merge"),
        agrees_with_terraform,
    ));
    out.extend(per_case("merge", "show", fixtures("merge"), show_snapshot));
    out.extend(per_case("merge", "renderings-are-fixed-points", fixtures("merge"), fixed_point));
    let with_config: Vec<_> =
        fixtures("merge").into_iter().filter(|c| c.join("config.json").is_file()).collect();
    out.push(whole("merge", "config-json-count", || {
        let n = fixtures("merge").iter().filter(|c| c.join("config.json").is_file()).count();
        assert!(n >= 100, "at least 100 merge fixtures pin config-json ({n})");
    }));
    out.extend(per_case("merge", "config-json", with_config, config_json));
    let with_tf_json: Vec<_> =
        fixtures("merge").into_iter().filter(|c| c.join("tf.json").is_file()).collect();
    out.extend(per_case("merge", "tf-json", with_tf_json, tf_json));
    out
}

/// `show --format tf-json` prints the document the case's `tf.json` pins, which its
/// `case.toml` says Terraform loaded as it loaded the module.
fn tf_json(case: &Path) {
    let m = load_fixture(case);
    let want = std::fs::read_to_string(case.join("tf.json")).expect("tf.json");
    let got = render::tfjson::render(&m);
    assert!(got == want, "{}: tf-json differs; rendered:\n{got}", case_name(case));
}

/// The module with the modules its local calls load, read from the fixture's folders.
fn module_tree(dir: &Path, m: Module, depth: usize) -> render::configjson::ModuleTree {
    let mut calls = std::collections::BTreeMap::new();
    for b in m.blocks.iter().filter(|b| b.kind == "module") {
        let (Some(name), Some(source)) =
            (b.labels.first(), render::configjson::module_arg(&m, b, "source"))
        else {
            continue;
        };
        let child = dir.join(&source);
        if !(source.starts_with("./") || source.starts_with("../")) || !child.is_dir() || depth > 8
        {
            continue;
        }
        let c = load_dir_as(&child, Some(Engine::Terraform));
        if !c.has_errors() {
            calls.insert(name.clone(), module_tree(&child, c, depth + 1));
        }
    }
    render::configjson::ModuleTree { module: m, calls }
}

/// `show --format config-json` prints what Terraform 1.15.5 wrote (`config.json`).
fn config_json(case: &Path) {
    let m = load_fixture(case);
    let want = std::fs::read_to_string(case.join("config.json")).expect("config.json");
    let got = render::configjson::render(&module_tree(&case.join("module"), m, 0));
    assert!(got == want, "{}: config-json differs; rendered:\n{got}", case_name(case));
}

/// The effective configuration agrees with Terraform's, fact by fact.
fn agrees_with_terraform(case: &Path) {
    let name = case_name(case);
    let oracle: Value = serde_json::from_str(
        &std::fs::read_to_string(case.join("oracle.json")).expect("oracle.json"),
    )
    .expect("json");
    assert_eq!(oracle["terraform_version"], "1.15.5", "{name}: confirmed on Terraform 1.15.5");
    let s = &oracle["structure"];
    let m = load_fixture(case);
    let mut diffs = Vec::new();
    let (mine_d, theirs_d) = (diagnostics(&m), oracle_diagnostics(s));
    if mine_d != theirs_d {
        diffs.push(format!(
            "diagnostics:\n  override-guard {}\n  Terraform      {}",
            json!(mine_d),
            json!(theirs_d)
        ));
    }
    let mut a = mine(&m);
    let b = theirs(s);
    if theirs_d.iter().any(|d| d["severity"] == "error") {
        // With errors, Terraform's partial result is not a configuration anyone runs.
        differences(&a["files"], &b["files"], "files", &mut diffs);
    } else if !ORACLE_SECTION_WRONG.contains(&name.as_str()) {
        relax(&mut a, &b);
        differences(&a, &b, "", &mut diffs);
    }
    assert!(diffs.is_empty(), "{name} disagrees with Terraform:\n  {}", diffs.join("\n  "));
}

/// Renders what `show` prints for a module: the configuration, or the diagnostics.
fn show(m: &Module) -> String {
    if m.has_errors() {
        let mut out = String::from("[exit 2: Terraform rejects this module]\n");
        for d in &m.diagnostics {
            out.push_str(&override_guard::report::human(
                &m.files,
                d,
                "merge-error",
                override_guard::report::Style::plain(),
            ));
        }
        out
    } else {
        render::hcl::render(m)
    }
}

/// `show.snap` pins what `show` prints.
fn show_snapshot(case: &Path) {
    let m = load_fixture(case);
    let name = case_name(case);
    insta::with_settings!({snapshot_path => case, prepend_module_to_snapshot => false, snapshot_suffix => "", input_file => case.join("module"), description => name}, {
        insta::assert_snapshot!("show", show(&m));
    });
}

/// A CRLF file's line ends stay behind: the printed HCL holds no CR (the terminal guard
/// would print one as `\u000d`, which Terraform rejects), and neither does any expression
/// of the JSON view. (A CR in a value prints as an escape, `\r`.)
fn no_line_ends_of_the_source(case: &Path, hcl: &str, view: &Value) {
    assert!(!hcl.contains('\r'), "{}: a CR in the HCL rendering:\n{hcl}", case.display());
    fn walk(v: &Value, case: &Path) {
        match v {
            Value::Object(o) => {
                if let Some(Value::String(h)) = o.get("hcl") {
                    assert!(!h.contains('\r'), "{}: a CR in the JSON view: {h:?}", case.display());
                }
                o.values().for_each(|x| walk(x, case));
            }
            Value::Array(a) => a.iter().for_each(|x| walk(x, case)),
            _ => {}
        }
    }
    walk(view, case);
}

/// The tf-json and HCL renderings, loaded again as a single-file module, give the same
/// effective configuration.
fn fixed_point(case: &Path) {
    let m = load_fixture(case);
    if m.has_errors() {
        return;
    }
    // An override may leave a block with both count and for_each, which no single
    // block may say (the engine refuses it while decoding). Under Terraform the rendering
    // keeps count, which Terraform uses; OpenTofu's choice is unconfirmed, and that
    // rendering keeps both and cannot load.
    let both = m.engine == override_guard::terraform::discover::Engine::OpenTofu
        && m.blocks.iter().any(|b| b.attr("count").is_some() && b.attr("for_each").is_some());
    let want = render::tfjson::document(&m);
    let hcl = render::hcl::render(&m);
    let tfjson = render::tfjson::render(&m);
    no_line_ends_of_the_source(case, &hcl, &render::json::view(&m));
    for (file, text) in [("main.tf", hcl.as_str()), ("main.tf.json", tfjson.as_str())] {
        let again = load_texts("", &[(file, text)], Some(m.engine));
        let got = render::tfjson::document(&again);
        if both {
            let errors: Vec<&str> = again.diagnostics.iter().map(|d| d.summary.as_str()).collect();
            assert_eq!(
                errors,
                ["Invalid combination of \"count\" and \"for_each\""],
                "{}",
                case.display()
            );
            continue;
        }
        assert!(
            !again.has_errors() && got == want,
            "{} via {file} is not a fixed point: errors {:?}\n--- want\n{want:#}\n--- got\n{got:#}",
            case.display(),
            again.diagnostics.iter().map(|d| &d.summary).collect::<Vec<_>>()
        );
    }
}
