//! The effective configuration as the object Terraform writes under `"configuration"` in
//! `terraform show -json` (its "configuration representation"), so that policies written
//! against plan JSON can read the merged module offline, without `terraform init`.
//!
//! This follows Terraform's `internal/command/jsonconfig` (`config.go`, `expression.go`),
//! checked on Terraform 1.15.5:
//! - an expression is `{"constant_value": V}` when it evaluates without any variable or
//!   function (`marshalExpression` evaluates it with no context and keeps the value when it
//!   is known), and `{"references": […]}` lists each reference with every shorter prefix of
//!   it down to the referenced object (and the resource or module call without its key);
//!   an expression with neither is `{}`;
//! - resources are sorted by address, managed ones before data sources; `count_expression`
//!   is given when `count` has constant value or references, else `for_each_expression`;
//! - `provider_config` holds each provider block, each required provider and each provider
//!   a resource implies, keyed `name` or `name.alias` (`module.x:name` in a called module,
//!   unless it is the calling module's configuration), with the resolved version
//!   constraints in Terraform's normal form;
//! - variables have `default` (converted to their type), `description`, `sensitive`, and
//!   nothing else: Terraform writes no `nullable`, `type` or `ephemeral` there.
//!
//! What differs, since no provider schema is at hand (override-guard never runs init):
//! - Terraform decodes a resource's body with the provider's schema: it tells arguments from
//!   nested blocks, drops names the schema lacks and gives `schema_version`. Here every
//!   argument is listed, every nested block is a list of objects (a `.tf.json` property is
//!   a block when a native-syntax file writes that name as one), and `schema_version` is
//!   given for the built-in provider's resource types only. `dynamic` blocks are left out, as Terraform leaves them out.
//! - A module call's `module` is the called module's own configuration only when its source
//!   is a local path that could be read (Terraform needs `init` for the others); without it,
//!   every argument of the call is listed, where Terraform lists the child's variables only.

mod providers;
mod references;

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value, json};

use super::{JsonForm, Shape, Shapes};
use crate::merge::Module;
use crate::merge::variables;
use crate::terraform::expr::{escape_template_literal, template_text};
use crate::terraform::{Attr, Block, Body, Expr, Item, Syntax, json};
use override_guard_hcl::ast::{Node, Part};
use providers::{
    ProviderConfig, configuration_aliases, fqn, normalize_provider_keys, passed_providers,
    requirement, resource_provider, source_key, version_constraints,
};
use references::{TStep, parse_ref, references, traversal};

/// A module with the modules its calls load (by call name): those with a readable local
/// source.
#[derive(Debug)]
pub struct ModuleTree {
    pub module: Module,
    pub calls: BTreeMap<String, ModuleTree>,
}

impl ModuleTree {
    pub fn leaf(module: Module) -> ModuleTree {
        ModuleTree { module, calls: BTreeMap::new() }
    }
}

/// Renders the configuration object (pretty-printed, trailing newline).
pub fn render(t: &ModuleTree) -> String {
    let mut s = serde_json::to_string_pretty(&configuration(t)).unwrap_or_default();
    s.push('\n');
    s
}

/// The configuration object as a value, with keys sorted as Terraform's (Go's) are.
pub fn configuration(t: &ModuleTree) -> Value {
    let mut pcs: BTreeMap<String, ProviderConfig> = BTreeMap::new();
    provider_configs(t, "", None, &mut pcs);
    let mut root = module(t, "");
    normalize_provider_keys(&mut root, &pcs);
    let mut out = Map::new();
    let kept: Map<String, Value> = pcs
        .into_iter()
        .filter(|(_, pc)| pc.parent_key.is_empty())
        .map(|(k, pc)| (k, Value::Object(pc.value)))
        .collect();
    if !kept.is_empty() {
        out.insert("provider_config".into(), Value::Object(kept));
    }
    out.insert("root_module".into(), root);
    sorted(Value::Object(out))
}

/// Go's `encoding/json` writes map keys in order; so does this, everywhere.
fn sorted(v: Value) -> Value {
    match v {
        Value::Object(o) => {
            let mut entries: Vec<(String, Value)> = o.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(entries.into_iter().map(|(k, v)| (k, sorted(v))).collect())
        }
        Value::Array(a) => Value::Array(a.into_iter().map(sorted).collect()),
        v => v,
    }
}

/// `opaqueProviderKey`: the key, prefixed with the module's address outside the root.
fn key(provider: &str, addr: &str) -> String {
    if addr.is_empty() { provider.to_string() } else { format!("{addr}:{provider}") }
}

fn child_addr(addr: &str, call: &str) -> String {
    if addr.is_empty() { format!("module.{call}") } else { format!("{addr}.module.{call}") }
}

/// The blocks of a kind.
fn blocks_of<'a>(m: &'a Module, kind: &'a str) -> impl Iterator<Item = &'a Block> + 'a {
    m.blocks.iter().filter(move |b| b.kind == kind)
}

/// The managed resources, or the data sources (a check block's own one included:
/// Terraform's `Module.appendFile` adds it to the module's data resources; unlike the
/// rest, this case was read from Terraform's code, not compared with its output).
fn resources_of<'a>(m: &'a Module, mode: &'a str) -> impl Iterator<Item = &'a Block> + 'a {
    let scoped = blocks_of(m, "check").filter(move |_| mode == "data");
    blocks_of(m, mode).chain(scoped.flat_map(|c| c.body.blocks_of("data")))
}

/// An argument's value as Terraform decodes a static string (`source`, `version`, an
/// alias): the literal text.
fn static_str(a: &Attr) -> Option<String> {
    if a.expr.source.is_none() {
        return a.expr.to_json_literal().as_str().map(str::to_string);
    }
    match variables::value_of(&a.expr) {
        Ok(crate::cty::Value::String(s)) => Some(s),
        _ => a.expr.as_str(),
    }
}

/// constraints (from `required_providers` and provider blocks' `version`).
fn requirements(m: &Module) -> BTreeMap<String, Vec<String>> {
    let mut reqs: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for a in &m.settings.required_providers {
        let e = reqs.entry(fqn(m, &a.name)).or_default();
        if let (_, Some(v)) = requirement(a) {
            e.push(v);
        }
    }
    for b in m.blocks.iter() {
        match b.kind.as_str() {
            "provider" => {
                let Some(name) = b.labels.first() else { continue };
                let e = reqs.entry(fqn(m, name)).or_default();
                if let Some(v) = b.attr("version").and_then(static_str) {
                    e.push(v);
                }
            }
            "resource" | "data" | "ephemeral" | "action" | "check" => {
                for r in
                    std::iter::once(b).chain(b.body.blocks_of("data").filter(|_| b.kind == "check"))
                {
                    if r.kind == "check" {
                        continue;
                    }
                    let local = resource_provider(r);
                    let local = local.split('.').next().unwrap_or_default();
                    reqs.entry(fqn(m, local)).or_default();
                }
            }
            _ => {}
        }
    }
    reqs
}

/// `marshalProviderConfigs`.
fn provider_configs(
    t: &ModuleTree,
    addr: &str,
    parent: Option<&str>,
    out: &mut BTreeMap<String, ProviderConfig>,
) {
    let m = &t.module;
    let reqs = requirements(m);
    let constraint =
        |full: &str| reqs.get(full).map(|v| version_constraints(v)).unwrap_or_default();
    let shapes = Shapes::of(m);
    let entry = |name: &str, full: &str, alias: Option<&str>, exprs: Option<Value>| {
        let mut v = Map::new();
        v.insert("name".into(), json!(name));
        v.insert("full_name".into(), json!(full));
        if let Some(a) = alias.filter(|a| !a.is_empty()) {
            v.insert("alias".into(), json!(a));
        }
        let c = constraint(full);
        if !c.is_empty() {
            v.insert("version_constraint".into(), json!(c));
        }
        if !addr.is_empty() {
            v.insert("module_address".into(), json!(addr));
        }
        if let Some(Value::Object(e)) = &exprs
            && !e.is_empty()
        {
            v.insert("expressions".into(), Value::Object(e.clone()));
        }
        ProviderConfig { value: v, full_name: full.to_string(), parent_key: String::new() }
    };
    for b in blocks_of(m, "provider") {
        let Some(name) = b.labels.first() else { continue };
        let alias = b.attr("alias").and_then(static_str);
        let full = fqn(m, name);
        let k = match &alias {
            Some(a) => format!("{name}.{a}"),
            None => name.clone(),
        };
        let exprs = Value::Object(expressions(&b.body, shapes.top(b), "provider", m, None));
        out.insert(key(&k, addr), entry(name, &full, alias.as_deref(), Some(exprs)));
    }
    for a in &m.settings.required_providers {
        let full = fqn(m, &a.name);
        for alias in configuration_aliases(a) {
            out.entry(key(&alias, addr)).or_insert_with(|| entry(&a.name, &full, None, None));
        }
        let k = key(&a.name, addr);
        if out.contains_key(&k) {
            continue;
        }
        let mut pc = entry(&a.name, &full, None, None);
        if let Some(p) = parent {
            pc.parent_key = source_key(&key(&a.name, p), &full, out);
        }
        out.insert(k, pc);
    }
    // Terraform takes the providers in Go's map order, so with several providers of one
    // type the first wins at random; here the one the bare type name means comes first.
    let mut fulls: Vec<&String> = reqs.keys().collect();
    fulls.sort_by_key(|f| *f != &fqn(m, f.rsplit('/').next().unwrap_or_default()));
    for full in fulls {
        let ty = full.rsplit('/').next().unwrap_or_default();
        let k = key(ty, addr);
        if out.contains_key(&k) {
            continue;
        }
        let mut pc = entry(ty, full, None, None);
        if let Some(p) = parent {
            pc.parent_key = source_key(&key(ty, p), full, out);
        }
        out.insert(k, pc);
    }
    for call in blocks_of(m, "module") {
        let Some(name) = call.labels.first() else { continue };
        let Some(child) = t.calls.get(name) else { continue };
        let caddr = child_addr(addr, name);
        for (in_child, in_parent) in passed_providers(call) {
            let local = in_child.split('.').next().unwrap_or_default();
            let full = fqn(&child.module, local);
            let mut v = Map::new();
            v.insert("name".into(), json!(in_child));
            v.insert("full_name".into(), json!(full));
            v.insert("module_address".into(), json!(caddr));
            let parent_key = source_key(&key(&in_parent, addr), &full, out);
            out.insert(
                key(&in_child, &caddr),
                ProviderConfig { value: v, full_name: full, parent_key },
            );
        }
        provider_configs(child, &caddr, Some(addr), out);
    }
}

/// `marshalModule`.
fn module(t: &ModuleTree, addr: &str) -> Value {
    let m = &t.module;
    let shapes = Shapes::of(m);
    let mut out = Map::new();
    let mut resources = Vec::new();
    for mode in ["resource", "data"] {
        let mut rs: Vec<(String, Value)> =
            resources_of(m, mode).filter_map(|b| resource(m, &shapes, b, addr)).collect();
        rs.sort_by(|a, b| a.0.cmp(&b.0));
        resources.extend(rs.into_iter().map(|(_, v)| v));
    }
    if !resources.is_empty() {
        out.insert("resources".into(), Value::Array(resources));
    }
    let mut outputs = Map::new();
    for b in blocks_of(m, "output") {
        let Some(name) = b.labels.first() else { continue };
        let mut o = Map::new();
        if flag(b, "sensitive") {
            o.insert("sensitive".into(), json!(true));
        }
        o.insert("expression".into(), b.attr("value").map_or_else(|| json!({}), expression));
        depends_on(b, &mut o);
        if let Some(d) = b.attr("description").and_then(static_str).filter(|d| !d.is_empty()) {
            o.insert("description".into(), json!(d));
        }
        outputs.insert(name.clone(), Value::Object(o));
    }
    if !outputs.is_empty() {
        out.insert("outputs".into(), Value::Object(outputs));
    }
    let mut calls = Map::new();
    for b in blocks_of(m, "module") {
        let Some(name) = b.labels.first() else { continue };
        calls.insert(name.clone(), module_call(m, b, t.calls.get(name), &child_addr(addr, name)));
    }
    if !calls.is_empty() {
        out.insert("module_calls".into(), Value::Object(calls));
    }
    let mut vars = Map::new();
    for b in blocks_of(m, "variable") {
        let Some(name) = b.labels.first() else { continue };
        vars.insert(name.clone(), variable(b));
    }
    if !vars.is_empty() {
        out.insert("variables".into(), Value::Object(vars));
    }
    let mut actions: Vec<(String, Value)> = blocks_of(m, "action")
        .filter_map(|b| {
            let (ty, name) = (b.labels.first()?, b.labels.get(1)?);
            let address = format!("action.{ty}.{name}");
            let mut a = Map::new();
            a.insert("address".into(), json!(address));
            a.insert("type".into(), json!(ty));
            a.insert("name".into(), json!(name));
            a.insert("provider_config_key".into(), json!(key(&resource_provider(b), addr)));
            count_and_for_each(b, &mut a);
            Some((address, Value::Object(a)))
        })
        .collect();
    actions.sort_by(|a, b| a.0.cmp(&b.0));
    if !actions.is_empty() {
        out.insert("actions".into(), Value::Array(actions.into_iter().map(|(_, v)| v).collect()));
    }
    Value::Object(out)
}

/// A static flag (`sensitive = true`) that is set.
fn flag(b: &Block, name: &str) -> bool {
    b.attr(name).and_then(|a| variables::static_flag(&a.expr)) == Some(true)
}

/// `count_expression`, or else `for_each_expression`: each only when it has a constant
/// value or references (`marshalExpression(...).Empty()`).
fn count_and_for_each(b: &Block, out: &mut Map<String, Value>) {
    let non_empty = |a: Option<&Attr>| {
        let e = expression(a?);
        (e.as_object().is_some_and(|o| !o.is_empty())).then_some(e)
    };
    if let Some(e) = non_empty(b.attr("count")) {
        out.insert("count_expression".into(), e);
    } else if let Some(e) = non_empty(b.attr("for_each")) {
        out.insert("for_each_expression".into(), e);
    }
}

/// `depends_on`: each entry's referenced object (`addrs.ParseRef(..).Subject`).
fn depends_on(b: &Block, out: &mut Map<String, Value>) {
    let Some(a) = b.attr("depends_on") else { return };
    let entries: Vec<Value> = a
        .expr
        .as_tuple()
        .unwrap_or_default()
        .iter()
        .map(|e| {
            let text = e.as_str().unwrap_or_else(|| e.to_hcl());
            let (parsed, errors) = override_guard_hcl::parse_expression(text.trim());
            let subject = errors
                .is_empty()
                .then(|| traversal(&parsed))
                .flatten()
                .and_then(|t| parse_ref(&t))
                .map(|r| r.subject);
            // Terraform leaves an entry it cannot parse empty.
            json!(subject.unwrap_or_default())
        })
        .collect();
    if !entries.is_empty() {
        out.insert("depends_on".into(), Value::Array(entries));
    }
}

/// `marshalResources`, for one resource: its address (for sorting) and its object.
fn resource(m: &Module, shapes: &Shapes, b: &Block, addr: &str) -> Option<(String, Value)> {
    let (ty, name) = (b.labels.first()?, b.labels.get(1)?);
    let data = b.kind == "data";
    let address = if data { format!("data.{ty}.{name}") } else { format!("{ty}.{name}") };
    let mut r = Map::new();
    r.insert("address".into(), json!(address));
    r.insert("mode".into(), json!(if data { "data" } else { "managed" }));
    r.insert("type".into(), json!(ty));
    r.insert("name".into(), json!(name));
    r.insert("provider_config_key".into(), json!(key(&resource_provider(b), addr)));
    let provisioners: Vec<Value> = b
        .body
        .blocks_of("provisioner")
        .filter(|_| !data)
        .map(|p| {
            let mut o = Map::new();
            o.insert("type".into(), json!(p.labels.first().cloned().unwrap_or_default()));
            let e = expressions(&p.body, None, "provisioner", m, None);
            if !e.is_empty() {
                o.insert("expressions".into(), Value::Object(e));
            }
            Value::Object(o)
        })
        .collect();
    if !provisioners.is_empty() {
        r.insert("provisioners".into(), Value::Array(provisioners));
    }
    let e = expressions(&b.body, shapes.top(b), &b.kind, m, None);
    if !e.is_empty() {
        r.insert("expressions".into(), Value::Object(e));
    }
    count_and_for_each(b, &mut r);
    depends_on(b, &mut r);
    if let Some(v) = builtin_schema_version(m, b) {
        r.insert("schema_version".into(), json!(v));
    }
    Some((address, Value::Object(r)))
}

/// `schema_version`: the version of the resource type's schema, which Terraform always
/// writes and only the provider knows. Terraform's built-in provider is the one known here:
/// both its resource types, `terraform_data` and the `terraform_remote_state` data source,
/// are at version 0 (`internal/builtin/providers/terraform`). Any other is left out.
fn builtin_schema_version(m: &Module, b: &Block) -> Option<u64> {
    let local = resource_provider(b);
    let local = local.split('.').next().unwrap_or_default();
    if fqn(m, local) != "terraform.io/builtin/terraform" {
        return None;
    }
    match (b.kind.as_str(), b.labels.first()?.as_str()) {
        ("resource", "terraform_data") | ("data", "terraform_remote_state") => Some(0),
        _ => None,
    }
}

/// A module call's `source` or `version` as Terraform 1.15 evaluates it: a constant
/// expression, or a reference to a variable with a default (a `const` variable).
pub fn module_arg(m: &Module, call: &Block, name: &str) -> Option<String> {
    let e = &call.attr(name)?.expr;
    if let Ok(crate::cty::Value::String(s)) = variables::value_of(e) {
        return Some(s);
    }
    let source = variables::source_of(e);
    let (parsed, errors) = override_guard_hcl::parse_expression(&source);
    // `"${var.x}"` is the value of `var.x`.
    let parsed = match &parsed.node {
        Node::Template { parts, wrap: true, .. } => match parts.as_slice() {
            [Part::Interp(e, _)] => e.clone(),
            _ => parsed,
        },
        _ => parsed,
    };
    if let (true, Some((root, steps))) = (errors.is_empty(), traversal(&parsed))
        && let ("var", [TStep::Attr(var)]) = (root.as_str(), steps.as_slice())
    {
        let v = blocks_of(m, "variable").find(|b| b.labels.first() == Some(var))?;
        if let Ok(crate::cty::Value::String(s)) = variables::value_of(&v.attr("default")?.expr) {
            return Some(s);
        }
    }
    e.as_str()
}

/// `marshalModuleCall`.
fn module_call(m: &Module, b: &Block, child: Option<&ModuleTree>, addr: &str) -> Value {
    let mut c = Map::new();
    if let Some(s) = module_arg(m, b, "source") {
        c.insert("source".into(), json!(s));
    }
    if let Some(v) = module_arg(m, b, "version").filter(|v| !v.is_empty()) {
        c.insert("version_constraint".into(), json!(v));
    }
    count_and_for_each(b, &mut c);
    // Terraform decodes the call's arguments with the child's variables as the schema.
    let names: Option<BTreeSet<String>> = child.map(|t| {
        blocks_of(&t.module, "variable").filter_map(|v| v.labels.first().cloned()).collect()
    });
    let e = expressions(&b.body, None, "module", m, names.as_ref());
    if !e.is_empty() {
        c.insert("expressions".into(), Value::Object(e));
    }
    if let Some(t) = child {
        c.insert("module".into(), module(t, addr));
    }
    depends_on(b, &mut c);
    Value::Object(c)
}

/// A variable: `default` as Terraform stores it (converted to the variable's type, with
/// optional attributes' defaults), `description`, `sensitive`.
fn variable(b: &Block) -> Value {
    let mut v = Map::new();
    if let Some(d) = b.attr("default") {
        let value = if d.expr.source.is_none() {
            // JSON syntax, read without a context: strings are taken as they are.
            Some(literal_value(&d.expr, true))
        } else {
            variables::value_of(&d.expr).ok()
        };
        if let Some(value) = value {
            // The type's optional-attribute defaults apply where the block that sets the
            // default sets the type too; an override's default is only converted
            // (`Variable.merge`), so Terraform stores those attributes null.
            let converted =
                b.attr("type").and_then(|t| variables::type_spec(t).ok()).and_then(|spec| {
                    match t_file(b) == Some(d.span.file) {
                        true => crate::cty::check_default(&spec, &value, true).ok(),
                        false => crate::cty::convert(&value, &spec.ty).ok(),
                    }
                });
            v.insert("default".into(), converted.unwrap_or(value).to_json());
        }
    }
    if let Some(d) = b.attr("description").and_then(static_str).filter(|d| !d.is_empty()) {
        v.insert("description".into(), json!(d));
    }
    if flag(b, "sensitive") {
        v.insert("sensitive".into(), json!(true));
    }
    Value::Object(v)
}

/// The file a variable's `type` comes from.
fn t_file(b: &Block) -> Option<crate::terraform::FileId> {
    b.attr("type").map(|t| t.span.file)
}

/// The arguments of a body that are configuration, not meta-arguments, per block kind.
fn meta(kind: &str, name: &str) -> bool {
    let list: &[&str] = match kind {
        "resource" => &["count", "for_each", "provider", "depends_on"],
        "data" | "ephemeral" => &["count", "for_each", "provider", "depends_on"],
        "provider" => &["alias", "version"],
        "module" => &["source", "version", "count", "for_each", "providers", "depends_on"],
        "provisioner" => &["when", "on_failure"],
        _ => &[],
    };
    list.contains(&name)
}

/// Whether a body of this kind has an escaping block `_` (resources, data sources,
/// providers, module calls, provisioners).
fn escapes(kind: &str) -> bool {
    use crate::terraform::schema::Schema;
    let schema = match kind {
        "provisioner" => Schema::Provisioner,
        k => Schema::top_block(k).map_or(Schema::Unknown, |(_, s)| s),
    };
    crate::render::tfjson::read_as_blocks(schema, "_")
}

/// Meta-blocks of a kind, which are no part of its configuration.
fn meta_block(kind: &str, name: &str) -> bool {
    match kind {
        "resource" => matches!(name, "lifecycle" | "connection" | "provisioner"),
        "data" | "ephemeral" => name == "lifecycle",
        "provisioner" => name == "connection",
        _ => false,
    }
}

/// `marshalExpressions`: each argument's expression, each nested block as a list of
/// objects of expressions. `dynamic` blocks are left out, as Terraform's decoding with the
/// low-level schema leaves them out. `only`: the names a module call's child declares.
fn expressions(
    body: &Body,
    shape: Option<&Shape>,
    kind: &str,
    m: &Module,
    only: Option<&BTreeSet<String>>,
) -> Map<String, Value> {
    let mut out = Map::new();
    let keep = |n: &str| !meta(kind, n) && only.is_none_or(|o| o.contains(n));
    let block = |out: &mut Map<String, Value>, b: &Block| {
        if b.kind == "dynamic" || meta_block(kind, &b.kind) || only.is_some() {
            return;
        }
        let inner = expressions(&b.body, Shape::child(shape, kind, b), &b.kind, m, None);
        let entry = out.entry(b.kind.clone()).or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(list) = entry {
            list.push(Value::Object(inner));
        }
    };
    for item in body.items.iter() {
        match item {
            Item::Attr(a) if keep(&a.name) => {
                out.insert(a.name.clone(), expression(a));
            }
            Item::Attr(_) => {}
            // The escaping block's content is the body's own configuration, meta-argument
            // names included (`_ { count = 2 }` is the provider's `count`).
            Item::Block(b) if b.kind == "_" && escapes(kind) => {
                for (k, v) in expressions(&b.body, shape, "_", m, only) {
                    match (out.get_mut(&k), v) {
                        (Some(Value::Array(have)), Value::Array(more)) => have.extend(more),
                        (_, v) => {
                            out.insert(k, v);
                        }
                    }
                }
            }
            Item::Block(b) => block(&mut out, b),
            Item::Json(j) => match JsonForm::of(shape, j) {
                JsonForm::Blocks(blocks) => {
                    for b in &blocks {
                        block(&mut out, b);
                    }
                }
                JsonForm::Argument { .. } if keep(&j.name) => {
                    let e = json::expr_from_value(&j.value);
                    out.insert(j.name.clone(), expression_of(&e, m.files.get(j.span.file).syntax));
                }
                JsonForm::Argument { .. } => {}
            },
        }
    }
    out
}

fn expression(a: &Attr) -> Value {
    let syntax = if a.expr.source.is_some() { Syntax::Hcl } else { Syntax::Json };
    expression_of(&a.expr, syntax)
}

/// `marshalExpression`: the constant value when the expression evaluates without a
/// context, and the references it makes.
fn expression_of(e: &Expr, syntax: Syntax) -> Value {
    let mut out = Map::new();
    let source = variables::source_of(e);
    let (parsed, errors) = override_guard_hcl::parse_expression(&source);
    let constant = match syntax {
        // HCL's JSON syntax reads every string literally when there is no context.
        Syntax::Json => Some(literal_value(e, false)),
        _ if errors.is_empty() => crate::cty::eval_expr(&parsed).ok(),
        _ => None,
    };
    if let Some(v) = constant {
        out.insert("constant_value".into(), v.to_json());
    }
    let refs = if errors.is_empty() { references(&parsed) } else { Vec::new() };
    if !refs.is_empty() {
        out.insert("references".into(), json!(refs));
    }
    Value::Object(out)
}

/// The value of a JSON-syntax expression read without a context: strings as written.
/// `raw`: the expression was decoded as a literal already (a variable's default), so its
/// text holds no sequences to write back.
fn literal_value(e: &Expr, raw: bool) -> crate::cty::Value {
    use crate::cty::Value as V;
    use crate::terraform::ExprKind as K;
    match &e.kind {
        K::Null => V::Null(crate::cty::Type::Dynamic),
        K::Bool(b) => V::Bool(*b),
        K::Number(n) => match crate::cty::Number::parse(n) {
            Some(n) => V::Number(n),
            None => V::String(n.clone()),
        },
        K::Template(parts) if raw => V::String(e.as_str().unwrap_or_else(|| template_text(parts))),
        K::Template(parts) => V::String(template_text(parts)),
        K::Tuple(items) => V::Tuple(items.iter().map(|i| literal_value(i, raw)).collect()),
        K::Object(entries) => V::Object(
            entries
                .iter()
                .map(|(k, v)| {
                    let k = match k {
                        crate::terraform::ObjKey::Name(n) if raw => n.clone(),
                        crate::terraform::ObjKey::Name(n) => escape_template_literal(n),
                        crate::terraform::ObjKey::Expr(e) => match &e.kind {
                            K::Template(p) => template_text(p),
                            _ => e.to_hcl(),
                        },
                    };
                    (k, literal_value(v, raw))
                })
                .collect(),
        ),
        K::Raw(src) => V::String(format!("${{{}}}", src.as_str().trim())),
    }
}

#[cfg(test)]
mod tests {
    use crate::merge::load_texts;
    use serde_json::json;

    fn config(files: &[(&str, &str)]) -> serde_json::Value {
        super::configuration(&super::ModuleTree::leaf(load_texts("", files, None)))
    }

    /// Each reference with its shorter prefixes, the resource or module call without its
    /// key last, as Terraform 1.15.5 lists them; `for` symbols are no references.
    #[test]
    fn references_unwrap_as_terraform_lists_them() {
        let main = "resource \"a_b\" \"r\" {\n  x = a_c.d[0].id\n  y = module.m[\"k\"].out.z\n  z = [for v in var.l : v.n if local.f]\n  w = data.t.n\n  u = var.m[count.index]\n  s = a_c.e[*].id\n}\n";
        let c = config(&[("main.tf", main)]);
        let e = &c["root_module"]["resources"][0]["expressions"];
        assert_eq!(e["x"], json!({"references": ["a_c.d[0].id", "a_c.d[0]", "a_c.d"]}));
        assert_eq!(
            e["y"],
            json!({"references": ["module.m[\"k\"].out.z", "module.m[\"k\"].out", "module.m[\"k\"]"]})
        );
        assert_eq!(e["z"], json!({"references": ["var.l", "local.f"]}));
        assert_eq!(e["w"], json!({"references": ["data.t.n"]}));
        assert_eq!(e["u"], json!({"references": ["var.m", "count.index"]}));
        assert_eq!(e["s"], json!({"references": ["a_c.e"]}));
    }

    /// A constant is what evaluates with no context: operators, templates and `for` over
    /// literals; a function call is neither constant nor a reference.
    #[test]
    fn constants_evaluate_without_a_context() {
        let main = "resource \"a_b\" \"r\" {\n  a = 1 + 2\n  b = \"x${1}\"\n  c = upper(\"x\")\n  d = { z = 1, a = [true, null] }\n  e = \"${2}\"\n}\n";
        let c = config(&[("main.tf", main)]);
        let e = &c["root_module"]["resources"][0]["expressions"];
        assert_eq!(e["a"], json!({"constant_value": 3}));
        assert_eq!(e["b"], json!({"constant_value": "x1"}));
        assert_eq!(e["c"], json!({}));
        assert_eq!(e["d"], json!({"constant_value": {"a": [true, null], "z": 1}}));
        assert_eq!(e["e"], json!({"constant_value": 2}));
    }

    /// HCL's JSON syntax reads strings literally without a context: a template is both a
    /// constant (its text) and references (Terraform 1.15.5).
    #[test]
    fn json_templates_are_text_and_references() {
        let main = r#"{"resource": {"a_b": {"r": {"x": "v-${var.n}"}}}}"#;
        let c = config(&[("main.tf.json", main)]);
        let e = &c["root_module"]["resources"][0]["expressions"];
        assert_eq!(e["x"], json!({"constant_value": "v-${var.n}", "references": ["var.n"]}));
    }

    #[test]
    fn version_constraints_in_terraform_normal_form() {
        let v = |c: &[&str]| {
            super::providers::version_constraints(
                &c.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
            )
        };
        assert_eq!(v(&[">= 4.0, ~> 5.1", "~> 5"]), ">= 4.0.0, ~> 5.0, ~> 5.1");
        assert_eq!(v(&["3.6.0"]), "3.6.0");
        assert_eq!(v(&["~> 1.2.3"]), "~> 1.2.3");
    }
}
