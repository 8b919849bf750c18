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
//!   left out. `dynamic` blocks are left out, as Terraform leaves them out.
//! - A module call's `module` is the called module's own configuration only when its source
//!   is a local path that could be read (Terraform needs `init` for the others); without it,
//!   every argument of the call is listed, where Terraform lists the child's variables only.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value, json};

use super::{JsonForm, Shape, Shapes};
use crate::merge::Module;
use crate::merge::variables;
use crate::terraform::expr::{escape_template_literal, hcl_quote, template_text};
use crate::terraform::{Attr, Block, Body, Expr, Item, Syntax, json};
use override_guard_hcl::ast::{self, Key, Node, Part, Step};
use override_guard_hcl::parse::go_quote_inner;

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

/// One `provider_config` entry, with the key of the configuration it stands for in a
/// calling module (Terraform's `parentKey`, never printed).
struct ProviderConfig {
    value: Map<String, Value>,
    full_name: String,
    parent_key: String,
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

/// The fields of a `required_providers` entry: `source` and `version`.
fn requirement(a: &Attr) -> (Option<String>, Option<String>) {
    if let Some(s) = a.expr.as_str() {
        // The legacy form: a version constraint alone.
        return (None, Some(s));
    }
    let mut source = None;
    let mut version = None;
    for (k, v) in a.expr.as_object().unwrap_or_default() {
        let name = match k {
            crate::terraform::ObjKey::Name(n) => n.clone(),
            crate::terraform::ObjKey::Expr(e) => e.as_str().unwrap_or_default(),
        };
        match name.as_str() {
            "source" => source = v.as_str(),
            "version" => version = v.as_str(),
            _ => {}
        }
    }
    (source, version)
}

/// The provider a local name means in a module: its `required_providers` source, or
/// `hashicorp/<name>` (the built-in `terraform` provider aside).
fn fqn(m: &Module, local: &str) -> String {
    let source = m.settings.required_providers.iter().find(|a| a.name == local);
    if let Some((Some(src), _)) = source.map(requirement)
        && let Ok((host, ns, ty)) = crate::merge::decode::provider_source(&src)
    {
        let ns = if ns.is_empty() { "hashicorp".to_string() } else { ns };
        return format!("{host}/{ns}/{ty}");
    }
    if local == "terraform" {
        return "terraform.io/builtin/terraform".into();
    }
    format!("registry.terraform.io/hashicorp/{local}")
}

/// The local name of the provider configuration a resource uses: its `provider`
/// argument, or the prefix of its type (Terraform's implied provider).
fn resource_provider(b: &Block) -> String {
    if let Some(p) = b.attr("provider") {
        let text = p.expr.as_str().unwrap_or_else(|| p.expr.to_hcl());
        return text.trim().to_string();
    }
    let ty = b.labels.first().map(String::as_str).unwrap_or_default();
    ty.split('_').next().unwrap_or(ty).to_string()
}

/// `ProviderRequirementsShallow`: every provider the module names, with its version
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

/// `configuration_aliases` of a `required_providers` entry, as `name.alias`.
fn configuration_aliases(a: &Attr) -> Vec<String> {
    let mut out = Vec::new();
    for (k, v) in a.expr.as_object().unwrap_or_default() {
        if matches!(k, crate::terraform::ObjKey::Name(n) if n == "configuration_aliases") {
            for e in v.as_tuple().unwrap_or_default() {
                out.push(e.as_str().unwrap_or_else(|| e.to_hcl()).trim().to_string());
            }
        }
    }
    out
}

/// A module call's `providers` map: (name in the child, name in the caller).
fn passed_providers(call: &Block) -> Vec<(String, String)> {
    let Some(p) = call.attr("providers") else { return Vec::new() };
    let name = |e: &Expr| e.as_str().unwrap_or_else(|| e.to_hcl()).trim().to_string();
    p.expr
        .as_object()
        .unwrap_or_default()
        .iter()
        .map(|(k, v)| {
            let k = match k {
                crate::terraform::ObjKey::Name(n) => n.clone(),
                crate::terraform::ObjKey::Expr(e) => name(e),
            };
            (k, name(v))
        })
        .collect()
}

/// `findSourceProviderKey`: up the chain of calling modules to the configuration that
/// has no parent of the same provider.
fn source_key(start: &str, full: &str, m: &BTreeMap<String, ProviderConfig>) -> String {
    let mut found = String::new();
    let mut k = start.to_string();
    let mut steps = 0;
    while !k.is_empty() && steps < 1000 {
        match m.get(&k) {
            Some(pc) if pc.full_name == full => {
                found = k.clone();
                k = pc.parent_key.clone();
            }
            _ => break,
        }
        steps += 1;
    }
    found
}

/// `normalizeModuleProviderKeys`: a resource of a called module that uses its caller's
/// provider configuration names that configuration.
fn normalize_provider_keys(module: &mut Value, pcs: &BTreeMap<String, ProviderConfig>) {
    if let Some(Value::Array(rs)) = module.get_mut("resources") {
        for r in rs {
            let Some(k) = r.get("provider_config_key").and_then(Value::as_str) else { continue };
            if let Some(pc) = pcs.get(k)
                && pcs.contains_key(&pc.parent_key)
            {
                r["provider_config_key"] = json!(pc.parent_key);
            }
        }
    }
    if let Some(Value::Object(calls)) = module.get_mut("module_calls") {
        for (_, c) in calls.iter_mut() {
            if let Some(m) = c.get_mut("module") {
                normalize_provider_keys(m, pcs);
            }
        }
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
    Some((address, Value::Object(r)))
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

/// A reference as Terraform parses it (`addrs.Reference`): the referenced object, the
/// steps after it, and the shorter address Terraform adds after the object (a resource or
/// module call without its instance key).
struct Ref {
    subject: String,
    remaining: Vec<TStep>,
    extra: Option<String>,
}

/// A step of a static traversal.
#[derive(Clone)]
enum TStep {
    Attr(String),
    Index(IndexKey),
}

#[derive(Clone)]
enum IndexKey {
    Int(String),
    Str(String),
    Other,
}

/// The references of an expression, as `marshalExpression` lists them: for each
/// traversal in the order HCL's `Variables` finds them, the whole reference, then each
/// shorter prefix down to the referenced object.
pub(crate) fn references(e: &ast::Expr) -> Vec<String> {
    let mut traversals = Vec::new();
    variables_of(e, &mut Vec::new(), &mut traversals);
    let mut out = Vec::new();
    for t in traversals {
        let Some(r) = parse_ref(&t) else { continue };
        let mut remains = r.remaining.clone();
        while !remains.is_empty() {
            out.push(format!("{}{}", r.subject, traversal_str(&remains)));
            remains.pop();
        }
        out.push(r.subject.clone());
        if let Some(x) = r.extra {
            out.push(x);
        }
    }
    out
}

/// `traversalStr`: `.name`, `["key"]` (Go quoting), `[0]`.
fn traversal_str(steps: &[TStep]) -> String {
    let mut s = String::new();
    for st in steps {
        match st {
            TStep::Attr(n) => {
                s.push('.');
                s.push_str(n);
            }
            TStep::Index(k) => {
                s.push('[');
                match k {
                    IndexKey::Int(n) => s.push_str(n),
                    IndexKey::Str(v) => s.push_str(&format!("\"{}\"", go_quote_inner(v))),
                    IndexKey::Other => {}
                }
                s.push(']');
            }
        }
    }
    s
}

/// A static traversal: a root name and the steps HCL folds into it (attributes, and
/// indexes by a literal).
type Traversal = (String, Vec<TStep>);

/// The static traversal an expression starts with, when it is one.
fn traversal(e: &ast::Expr) -> Option<Traversal> {
    match &e.node {
        Node::Variable(n) => Some((n.clone(), Vec::new())),
        Node::Traversal { source, steps } => {
            let Node::Variable(root) = &source.node else { return None };
            let mut out = Vec::new();
            for s in steps {
                match static_step(s) {
                    Some(st) => out.push(st),
                    None => break,
                }
            }
            Some((root.clone(), out))
        }
        _ => None,
    }
}

/// A step HCL's parser folds into a traversal: an attribute, or an index by a literal.
fn static_step(s: &Step) -> Option<TStep> {
    match s {
        Step::Attr(n, _) => Some(TStep::Attr(n.clone())),
        Step::Index(k, _) => Some(TStep::Index(match &k.node {
            Node::Number(n) => match crate::cty::Number::parse(n) {
                Some(num) => IndexKey::Int(num.to_text()),
                None => IndexKey::Other,
            },
            Node::Template { parts, wrap: false, .. } => match parts.as_slice() {
                [] => IndexKey::Str(String::new()),
                [Part::Lit(l, _)] => IndexKey::Str(l.clone()),
                _ => return None,
            },
            Node::Bool(_) | Node::Null => IndexKey::Other,
            _ => return None,
        })),
    }
}

/// HCL's `Variables`: the traversals that start at a root name, in walk order, without
/// the names `for` expressions bind.
fn variables_of(e: &ast::Expr, scope: &mut Vec<String>, out: &mut Vec<Traversal>) {
    let mut walk = |e: &ast::Expr, scope: &mut Vec<String>| variables_of(e, scope, out);
    match &e.node {
        Node::Null | Node::Bool(_) | Node::Number(_) | Node::SplatItem | Node::Invalid => {}
        Node::Variable(_) | Node::Traversal { .. } if traversal(e).is_some() => {
            let Some(t) = traversal(e) else { return };
            let folded = t.1.len();
            if !scope.contains(&t.0) {
                out.push(t);
            }
            // Steps after the first dynamic index: their keys are expressions too.
            if let Node::Traversal { steps, .. } = &e.node {
                for s in &steps[folded..] {
                    if let Step::Index(k, _) = s {
                        variables_of(k, scope, out);
                    }
                }
            }
        }
        Node::Variable(_) => {}
        Node::Traversal { source, steps } => {
            walk(source, scope);
            for s in steps {
                if let Step::Index(k, _) = s {
                    variables_of(k, scope, out);
                }
            }
        }
        Node::Template { parts, .. } => parts_vars(parts, scope, out),
        Node::Tuple(items) => items.iter().for_each(|i| variables_of(i, scope, out)),
        Node::Object(items) => {
            for (k, v) in items {
                if let Key::Expr(k) = k {
                    variables_of(k, scope, out);
                }
                variables_of(v, scope, out);
            }
        }
        Node::Parens(e) => walk(e, scope),
        Node::Call(c) => c.args.iter().for_each(|a| variables_of(a, scope, out)),
        Node::Splat { source, each } => {
            walk(source, scope);
            walk(each, scope);
        }
        Node::Unary { operand, .. } => walk(operand, scope),
        Node::Binary { first, rest } => {
            walk(first, scope);
            for (_, e) in rest {
                variables_of(e, scope, out);
            }
        }
        Node::Conditional { cond, yes, no } => {
            walk(cond, scope);
            walk(yes, scope);
            walk(no, scope);
        }
        Node::For(f) => {
            variables_of(&f.collection, scope, out);
            let n = scope.len();
            scope.extend(f.key_var.iter().cloned());
            scope.push(f.value_var.clone());
            for x in [f.key.as_ref(), Some(&f.value), f.cond.as_ref()].into_iter().flatten() {
                variables_of(x, scope, out);
            }
            scope.truncate(n);
        }
    }
}

fn parts_vars(parts: &[Part], scope: &mut Vec<String>, out: &mut Vec<Traversal>) {
    for p in parts {
        match p {
            Part::Lit(..) => {}
            Part::Interp(e, _) => variables_of(e, scope, out),
            Part::If(d) => {
                variables_of(&d.cond, scope, out);
                parts_vars(&d.yes, scope, out);
                parts_vars(&d.no, scope, out);
            }
            Part::For(d) => {
                variables_of(&d.collection, scope, out);
                let n = scope.len();
                scope.extend(d.key_var.iter().cloned());
                scope.push(d.value_var.clone());
                parts_vars(&d.body, scope, out);
                scope.truncate(n);
            }
        }
    }
}

/// An instance key as an address writes it: `[0]`, `["a"]` (HCL quoting).
fn instance_key(k: &IndexKey) -> Option<String> {
    match k {
        IndexKey::Int(n) if n.parse::<i64>().is_ok() => Some(format!("[{n}]")),
        IndexKey::Str(s) => Some(format!("[{}]", hcl_quote(s))),
        _ => None,
    }
}

/// `addrs.ParseRef`: what a traversal refers to, or nothing when it is no reference.
fn parse_ref(t: &Traversal) -> Option<Ref> {
    let (root, steps) = t;
    let attr = |i: usize| match steps.get(i) {
        Some(TStep::Attr(n)) => Some(n.clone()),
        _ => None,
    };
    let single = |prefix: &str| -> Ref {
        // `parseSingleAttrRef`: without a name, the reference names nothing after it.
        match attr(0) {
            Some(n) => Ref {
                subject: format!("{prefix}.{n}"),
                remaining: steps[1..].to_vec(),
                extra: None,
            },
            None => Ref { subject: format!("{prefix}."), remaining: Vec::new(), extra: None },
        }
    };
    match root.as_str() {
        "count" | "each" | "local" | "path" | "terraform" | "var" => Some(single(root)),
        "self" => Some(Ref { subject: "self".into(), remaining: steps.clone(), extra: None }),
        "module" => {
            let call = format!("module.{}", attr(0)?);
            let mut rest = &steps[1..];
            let mut inst = call.clone();
            let mut keyed = false;
            if let Some(TStep::Index(k)) = rest.first() {
                inst = format!("{call}{}", instance_key(k)?);
                keyed = true;
                rest = &rest[1..];
                if rest.is_empty() {
                    return Some(Ref { subject: inst, remaining: Vec::new(), extra: Some(call) });
                }
            }
            match rest.first() {
                None => Some(Ref { subject: call, remaining: Vec::new(), extra: None }),
                Some(TStep::Attr(out)) => Some(Ref {
                    subject: format!("{inst}.{out}"),
                    remaining: rest[1..].to_vec(),
                    extra: Some(if keyed { inst } else { call }),
                }),
                Some(TStep::Index(_)) => None,
            }
        }
        "data" | "resource" | "ephemeral" | "list" | "action" => {
            let ty = attr(0)?;
            let prefix = match root.as_str() {
                "resource" => String::new(),
                r => format!("{r}."),
            };
            resource_ref(&format!("{prefix}{ty}"), &steps[1..])
        }
        "template" | "lazy" | "arg" => None,
        "string" | "number" | "bool" | "any" if steps.is_empty() => None,
        _ => resource_ref(root, steps),
    }
}

/// `parseResourceRef`, after the type: the name, then an optional instance key.
fn resource_ref(ty: &str, steps: &[TStep]) -> Option<Ref> {
    let Some(TStep::Attr(name)) = steps.first() else { return None };
    let resource = format!("{ty}.{name}");
    let rest = &steps[1..];
    if let Some(TStep::Index(k)) = rest.first() {
        let subject = format!("{resource}{}", instance_key(k)?);
        return Some(Ref { subject, remaining: rest[1..].to_vec(), extra: Some(resource) });
    }
    Some(Ref { subject: resource, remaining: rest.to_vec(), extra: None })
}

/// `VersionConstraintsString`: the constraints deduplicated, sorted by version, each as
/// `op major.minor.patch` (`~> major.minor` for a two-part pessimistic one). A constraint
/// that does not parse is kept as written.
pub(crate) fn version_constraints(all: &[String]) -> String {
    // (version, operator rank, text)
    type Term = ((u64, u64, u64, String), u8, String);
    let mut terms: Vec<Term> = Vec::new();
    for c in all {
        for t in c.split(',') {
            let t = t.trim();
            if t.is_empty() {
                continue;
            }
            let ops = [("~>", 5u8), (">=", 2), ("<=", 4), ("!=", 6), (">", 1), ("<", 3), ("=", 0)];
            let (op, rank, rest) = ops
                .iter()
                .find_map(|(o, r)| t.strip_prefix(o).map(|rest| (*o, *r, rest.trim())))
                .unwrap_or(("", 0, t));
            let (core, suffix) = match rest.find(['-', '+']) {
                Some(i) => (&rest[..i], &rest[i..]),
                None => (rest, ""),
            };
            let nums: Vec<Option<u64>> =
                core.trim_start_matches('v').split('.').map(|p| p.parse().ok()).collect();
            if nums.is_empty() || nums.len() > 3 || nums.iter().any(Option::is_none) {
                terms.push(((u64::MAX, 0, 0, t.to_string()), 0, t.to_string()));
                continue;
            }
            let n = |i: usize| nums.get(i).copied().flatten().unwrap_or(0);
            let (ma, mi, pa) = (n(0), n(1), n(2));
            let text = match op {
                "~>" if nums.len() < 3 => format!("~> {ma}.{mi}{suffix}"),
                "" | "=" => format!("{ma}.{mi}.{pa}{suffix}"),
                o => format!("{o} {ma}.{mi}.{pa}{suffix}"),
            };
            terms.push(((ma, mi, pa, suffix.to_string()), rank, text));
        }
    }
    terms.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)));
    terms.dedup_by(|a, b| a.2 == b.2);
    terms.into_iter().map(|t| t.2).collect::<Vec<_>>().join(", ")
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
            super::version_constraints(&c.iter().map(|s| s.to_string()).collect::<Vec<_>>())
        };
        assert_eq!(v(&[">= 4.0, ~> 5.1", "~> 5"]), ">= 4.0.0, ~> 5.0, ~> 5.1");
        assert_eq!(v(&["3.6.0"]), "3.6.0");
        assert_eq!(v(&["~> 1.2.3"]), "~> 1.2.3");
    }
}
