//! `engine-divergence`: Terraform and OpenTofu would run different configurations. See
//! [`RULE`].

use super::{Cx, Finding, Level, Rule};
use crate::merge::Module;
use crate::render::tfjson;
use crate::terraform::discover::Skip;
use crate::terraform::{FileClass, Span};

pub static RULE: Rule = Rule {
    id: "engine-divergence",
    level: Level::Warn,
    summary: "Terraform and OpenTofu compute different effective configurations",
    doc: "\
What it checks
  Loads a module that has override files or `.tofu` files with both engines and compares
  the effective configurations: `.tofu` files that shadow `.tf` files for OpenTofu only,
  override blocks one engine ignores and the other merges (`ephemeral`, `removed`), a
  `required_version` that Terraform reads from any file and OpenTofu only from `.tofu`
  files, an output `type` or
  `deprecated` only one engine knows, or a module one engine rejects.

Why
  A repository that is run by both engines (or that is migrating) must mean one thing.
  A divergence here is a plan that differs with the binary that runs it.

Example
  main.tf              instance_type = \"t3.micro\"
  main.tofu            instance_type = \"t3.large\"   # OpenTofu reads this instead
",
    options: &[],
    check: Some(check),
};

fn check(cx: &Cx<'_>, out: &mut Vec<Finding>) {
    let Some(other) = cx.other else { return };
    let (a, b) = (cx.m, other);
    if a.files.files.is_empty() || b.files.files.is_empty() {
        return; // only .tofu files: Terraform has nothing to run here
    }
    // Same files, same merge result (provenance included): nothing to compare further.
    if a.has_errors() == b.has_errors()
        && a.blocks == b.blocks
        && a.locals == b.locals
        && a.settings == b.settings
    {
        return;
    }
    let diff: Vec<String> = match (a.has_errors(), b.has_errors()) {
        (false, false) => {
            // OpenTofu reads `required_version` only from `.tofu` files, so every module
            // with one in a `.tf` file differs on it; that is not the override's doing
            // unless an override file sets it.
            let versioned = cx.changes.iter().any(|c| c.address == "terraform.required_version");
            let doc = |m: &Module| {
                let mut d = tfjson::document(m);
                if !versioned
                    && let Some(t) = d.get_mut("terraform").and_then(|t| t.as_object_mut())
                {
                    t.remove("required_version");
                }
                d
            };
            differences(&doc(a), &doc(b), "", 3)
        }
        (x, y) if x != y => vec![format!(
            "{} rejects the module, {} accepts it",
            if x { a.engine.name() } else { b.engine.name() },
            if x { b.engine.name() } else { a.engine.name() }
        )],
        _ => Vec::new(),
    };
    if diff.is_empty() {
        return;
    }
    let span = anchor(a);
    let shown: Vec<&str> = diff.iter().take(8).map(String::as_str).collect();
    let more = if diff.len() > 8 { format!(" and {} more", diff.len() - 8) } else { String::new() };
    out.push(
        Finding::new(
            RULE.id,
            format!("{} and {} compute different configurations for this module", a.engine.name(), b.engine.name()),
            cx.site(span, "the configurations diverge from here"),
        )
        .help(format!("differs: {}{more}\ncompare with `override-guard show --engine terraform` and `--engine opentofu`", shown.join(", "))),
    );
}

/// Could the engines merge this module differently? Only constructs the engines treat
/// differently in override files can make them diverge (spec §5.12), so modules without
/// them skip the second merge. `.tofu` files are the caller's check.
pub fn may_diverge(m: &Module) -> bool {
    if m.has_errors() {
        return true;
    }
    let overrides = m.parsed.iter().filter(|p| m.files.get(p.file).class == FileClass::Override);
    overrides.flat_map(|p| p.body.blocks()).any(|b| match b.kind.as_str() {
        "resource" | "data" => b.body.blocks_of("lifecycle").any(|l| {
            l.attr("destroy").is_some() || l.body.blocks_of("action_trigger").next().is_some()
        }),
        "variable" => b.attr("deprecated").is_some() || b.attr("const").is_some(),
        "output" => b.attr("type").is_some() || b.attr("deprecated").is_some(),
        "module" => b.attr("ignore_nested_deprecations").is_some(),
        "locals" | "provider" => false,
        _ => true, // terraform, ephemeral, action, removed, language, …
    })
}

/// Where to point: the first `.tofu` file that shadows another, else the first override
/// file, else the first file.
fn anchor(m: &Module) -> Span {
    let find = |name: &str| m.files.files.iter().position(|f| f.name() == name);
    let shadow = m.skipped.iter().find_map(|(name, why)| match why {
        Skip::Shadowed { by } => find(by),
        Skip::TofuFile => find(&name.replace(".tofu", ".tf")),
        Skip::Ignored => None,
    });
    let id = shadow
        .or_else(|| m.files.files.iter().position(|f| f.class == FileClass::Override))
        .unwrap_or(0);
    Span::new(id, 0, 0)
}

/// Dotted paths (down to `depth`) where two JSON documents differ.
fn differences(
    a: &serde_json::Value,
    b: &serde_json::Value,
    at: &str,
    depth: usize,
) -> Vec<String> {
    use serde_json::Value::Object;
    if a == b {
        return Vec::new();
    }
    match (a, b) {
        (Object(x), Object(y)) if depth > 0 => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.dedup();
            let mut seen = std::collections::HashSet::new();
            let mut out = Vec::new();
            for k in keys {
                if !seen.insert(k) {
                    continue;
                }
                let path = if at.is_empty() { k.clone() } else { format!("{at}.{k}") };
                match (x.get(k), y.get(k)) {
                    (Some(p), Some(q)) => out.extend(differences(p, q, &path, depth - 1)),
                    _ => out.push(path),
                }
            }
            out
        }
        (serde_json::Value::Array(x), serde_json::Value::Array(y))
            if depth > 0 && x.len() == y.len() =>
        {
            let mut out: Vec<String> = Vec::new();
            for (p, q) in x.iter().zip(y) {
                for d in differences(p, q, at, depth) {
                    if !out.contains(&d) {
                        out.push(d);
                    }
                }
            }
            out
        }
        _ => vec![if at.is_empty() { "everything".into() } else { at.to_string() }],
    }
}
