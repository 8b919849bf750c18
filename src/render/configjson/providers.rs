//! Providers in the configuration representation, the parts that need no module walk: a
//! `provider_config` entry and how its key is found through the calling modules, the
//! provider a local name and a resource mean, and version constraints in Terraform's
//! normal form. `marshalProviderConfigs` itself walks the module tree, in `mod.rs`.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use crate::merge::Module;
use crate::terraform::{Attr, Block, Expr};

/// One `provider_config` entry, with the key of the configuration it stands for in a
/// calling module (Terraform's `parentKey`, never printed).
pub(super) struct ProviderConfig {
    pub(super) value: Map<String, Value>,
    pub(super) full_name: String,
    pub(super) parent_key: String,
}

/// The fields of a `required_providers` entry: `source` and `version`.
pub(super) fn requirement(a: &Attr) -> (Option<String>, Option<String>) {
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
pub(super) fn fqn(m: &Module, local: &str) -> String {
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
pub(super) fn resource_provider(b: &Block) -> String {
    if let Some(p) = b.attr("provider") {
        let text = p.expr.as_str().unwrap_or_else(|| p.expr.to_hcl());
        return text.trim().to_string();
    }
    let ty = b.labels.first().map(String::as_str).unwrap_or_default();
    ty.split('_').next().unwrap_or(ty).to_string()
}

/// `ProviderRequirementsShallow`: every provider the module names, with its version
/// `configuration_aliases` of a `required_providers` entry, as `name.alias`.
pub(super) fn configuration_aliases(a: &Attr) -> Vec<String> {
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
pub(super) fn passed_providers(call: &Block) -> Vec<(String, String)> {
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
pub(super) fn source_key(start: &str, full: &str, m: &BTreeMap<String, ProviderConfig>) -> String {
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
pub(super) fn normalize_provider_keys(module: &mut Value, pcs: &BTreeMap<String, ProviderConfig>) {
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

/// `VersionConstraintsString`: the constraints deduplicated, sorted by version, each as
/// `op major.minor.patch` (`~> major.minor` for a two-part pessimistic one). A constraint
/// that does not parse is kept as written.
pub(super) fn version_constraints(all: &[String]) -> String {
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
