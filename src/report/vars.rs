//! The `vars` report: each variable's effective declaration with provenance, its value and
//! the chain of sources that set it. Pure: a [`crate::vars::Report`] in, text out.

use serde_json::{Value as Json, json};

use super::Style;
use crate::terraform::{Attr, Files, Span};
use crate::vars::{From, Outcome, Report, Setting, Var};

const HIDDEN: &str = "(sensitive)";

fn at(files: &Files, span: Span) -> String {
    files.short(span)
}

/// Where an attribute of the merged declaration came from, and what it replaced.
fn provenance(files: &Files, a: &Attr) -> String {
    let mut s = at(files, a.span);
    if let Some(prev) = a.displaced.last() {
        s.push_str(&format!(" (replaces {})", at(files, *prev)));
    }
    s
}

fn shown(v: &Var, value: &crate::cty::Value, reveal: bool) -> String {
    if v.sensitive && !reveal { HIDDEN.to_string() } else { value.to_hcl() }
}

/// How a setting is named: the file and line, the flag, or the environment variable.
fn setting_label(files: &Files, name: &str, sensitive: bool, s: &Setting) -> String {
    match &s.from {
        From::Env(key) => key.clone(),
        From::File { auto: true, .. } => at(files, s.at),
        From::File { auto: false, .. } => format!("--var-file {}", at(files, s.at)),
        From::Var(_) if sensitive => format!("--var {name}=…"),
        From::Var(_) => {
            let text = files.get(s.at.file).text.replace('\n', " ");
            let text: String = text.chars().take(40).collect();
            format!("--var {name}={text}")
        }
    }
}

fn source_label(files: &Files, v: &Var) -> Option<String> {
    match &v.outcome {
        Outcome::Value(_, Some(i)) => v.chain.get(*i).map(|s| match &s.from {
            From::Var(_) => format!("--var {}=…", v.name),
            _ => setting_label(files, &v.name, v.sensitive, s),
        }),
        Outcome::Value(_, None) => Some("default".into()),
        _ => None,
    }
}

/// The human report.
pub(crate) fn human(r: &Report, module: &str, reveal: bool, style: Style) -> String {
    let mut out = String::new();
    let name = if module.is_empty() { "." } else { module };
    out.push_str(&format!("module {name}: {} variable(s)\n", r.vars.len()));
    for v in &r.vars {
        out.push('\n');
        match &v.outcome {
            Outcome::Value(val, _) => out.push_str(&format!(
                "var.{} = {}   (from {})\n",
                v.name,
                shown(v, val, reveal),
                source_label(&r.files, v).unwrap_or_default()
            )),
            Outcome::Prompted => out.push_str(&format!(
                "var.{}: no value and no default: would be prompted for\n",
                v.name
            )),
            Outcome::Invalid => out.push_str(&format!(
                "var.{}: the value given does not fit (see the error below)\n",
                v.name
            )),
        }
        out.push_str(&format!("    {:<11} {}\n", "declared", at(&r.files, v.block.def_span)));
        for key in ["type", "default", "sensitive", "nullable", "ephemeral", "description"] {
            let Some(a) = v.block.attr(key) else { continue };
            let text = match key {
                "default" => match &v.default {
                    Some(d) => shown(v, d, reveal),
                    None => a.expr.to_hcl(),
                },
                "type" => a.expr.source.as_ref().map_or_else(|| a.expr.to_hcl(), |s| s.to_string()),
                _ => a.expr.to_hcl(),
            };
            let text: String = text.replace('\n', " ");
            let text = if text.chars().count() > 40 {
                format!("{}…", text.chars().take(39).collect::<String>())
            } else {
                text
            };
            out.push_str(&format!("    {key:<11} {text:<28} {}\n", provenance(&r.files, a)));
        }
        if !v.chain.is_empty() {
            let mut links: Vec<String> = Vec::new();
            if let Some(d) = &v.default {
                links.push(format!("default {}", shown(v, d, reveal)));
            }
            for s in &v.chain {
                let label = match &s.from {
                    From::Var(_) => "--var".to_string(),
                    _ => setting_label(&r.files, &v.name, v.sensitive, s),
                };
                links.push(format!("{label} {}", shown(v, &s.value, reveal)));
            }
            out.push_str(&format!("    {:<11} {}\n", "set by", links.join(" < ")));
        }
    }
    if !r.undeclared.is_empty() {
        out.push('\n');
        for (name, s) in &r.undeclared {
            out.push_str(&format!(
                "{name} is set by {} but the module declares no variable \"{name}\"\n",
                setting_label(&r.files, name, false, s)
            ));
        }
    }
    for d in &r.diagnostics {
        out.push('\n');
        out.push_str(&super::human(&r.files, d, "tfvars", style));
    }
    out
}

/// override-guard's JSON view of the report.
pub(crate) fn json(r: &Report, module: &str, reveal: bool) -> String {
    let value = |v: &Var, val: &crate::cty::Value| -> Json {
        if v.sensitive && !reveal { Json::String(HIDDEN.into()) } else { val.to_json() }
    };
    let vars: Vec<Json> = r
        .vars
        .iter()
        .map(|v| {
            let attr = |k: &str| {
                v.block.attr(k).map(|a| json!({"at": at(&r.files, a.span), "replaces": a.displaced.iter().map(|s| at(&r.files, *s)).collect::<Vec<_>>()}))
            };
            let (status, val) = match &v.outcome {
                Outcome::Value(x, Some(_)) => ("set", value(v, x)),
                Outcome::Value(x, None) => ("default", value(v, x)),
                Outcome::Prompted => ("prompted", Json::Null),
                Outcome::Invalid => ("invalid", Json::Null),
            };
            json!({
                "name": v.name,
                "declared_at": at(&r.files, v.block.def_span),
                "type": v.spec.ty.to_hcl(),
                "type_from": attr("type"),
                "default": v.default.as_ref().map(|d| value(v, d)),
                "default_from": attr("default"),
                "sensitive": v.sensitive,
                "nullable": v.nullable,
                "status": status,
                "value": val,
                "source": source_label(&r.files, v),
                "chain": v.chain.iter().map(|s| json!({
                    "source": setting_label(&r.files, &v.name, v.sensitive, s),
                    "value": value(v, &s.value),
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    let undeclared: Vec<Json> = r
        .undeclared
        .iter()
        .map(|(n, s)| json!({"name": n, "source": setting_label(&r.files, n, false, s)}))
        .collect();
    let diagnostics: Vec<Json> = r
        .diagnostics
        .iter()
        .map(|d| {
            json!({
                "severity": d.severity,
                "summary": d.summary,
                "detail": d.detail,
                "at": d.subject.map(|s| at(&r.files, s)),
            })
        })
        .collect();
    let doc = json!({
        "version": 1,
        "module": if module.is_empty() { "." } else { module },
        "variables": vars,
        "undeclared": undeclared,
        "diagnostics": diagnostics,
    });
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_default();
    s.push('\n');
    s
}
