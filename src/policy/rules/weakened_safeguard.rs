//! `weakened-safeguard`: an override that switches a safety off. See [`RULE`].

use super::rule::Rule;
use crate::cty::Type;
use crate::finding::{Finding, Level};
use crate::merge::variables::type_spec;
use crate::policy::context::Context;
use crate::terraform::discover::Engine;
use crate::terraform::{Attr, Block};

pub(super) static RULE: Rule = Rule {
    id: super::RuleId::WeakenedSafeguard,
    level: Level::Deny,
    summary: "an override turns a safeguard of the original off",
    doc: "\
What it checks
  An override that, compared with the original:
  - sets `prevent_destroy = false` where the original had `true`;
  - sets `ignore_changes = all` where the original did not;
  - sets a variable's or output's `sensitive = false` where the original had `true`;
  - sets a variable's `nullable = true` where the original had `false`;
  - loosens a variable's `type`: to `any` (anywhere inside it, where the original had a
    concrete type), or makes a required object attribute `optional`;
  - relaxes `required_version` (a lower minimum or a dropped upper bound). Terraform
    replaces the constraint with the override's; OpenTofu checks each `.tofu` file's
    constraint on its own, so an override cannot relax it there;
  - changes OpenTofu's state or plan encryption: switches a `state`, `plan` or remote
    state `method` (to `unencrypted` above all), sets a `fallback` (state that still
    reads with the old method, or unencrypted), or changes the settings of a key
    provider or method the original declares.

Why
  Safeguards are written into the original on purpose and reviewed there. An override
  that removes one is a change to safety that no reviewer of the original sees.

Example
  # main.tf                              # override.tf
  resource \"aws_db_instance\" \"main\" {    resource \"aws_db_instance\" \"main\" {
    lifecycle { prevent_destroy = true }   lifecycle { prevent_destroy = false }
  }                                      }
",
    options: &[],
    check: Some(check),
};

fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    for c in &cx.changes {
        let Some(base) = c.base else { continue };
        let mut flag = |over: &Attr, orig: Option<&Attr>, what: String| {
            let mut f = Finding::new(
                RULE.id,
                format!("{}: {what}", c.address),
                cx.site(over.span, "weakened here"),
            )
            .address(c.address.clone())
            .help("keep the safeguard, or change it in the original where it is reviewed");
            if let Some(o) = orig {
                f = f.related(cx.site(o.span, "the original safeguard"));
            }
            out.push(f);
        };
        if c.address == "terraform.required_version" {
            if let (Some(b), Some(o)) = (base.attr(), c.over.attr())
                && cx.m.engine == Engine::Terraform
                && let (Some(bs), Some(os)) = (b.expr.as_str(), o.expr.as_str())
                && relaxes(&bs, &os)
            {
                flag(o, Some(b), format!("required_version \"{bs}\" is relaxed to \"{os}\""));
            }
            continue;
        }
        if c.address == "terraform.encryption" {
            if let (Some(b), Some(o)) = (base.block(), c.over.block()) {
                encryption(b, o, &mut flag);
            }
            continue;
        }
        let (Some(b), Some(o)) = (base.block(), c.over.block()) else { continue };
        match b.kind.as_str() {
            "resource" | "data" => {
                let (bl, ol) = (lifecycle(b), lifecycle(o));
                if let Some(ol) = ol {
                    if let Some(a) = ol.attr("prevent_destroy")
                        && boolean(a) == Some(false)
                        && let Some(orig) = bl.and_then(|l| l.attr("prevent_destroy"))
                        && boolean(orig) == Some(true)
                    {
                        flag(a, Some(orig), "prevent_destroy is turned off".into());
                    }
                    if let Some(a) = ol.attr("ignore_changes")
                        && a.expr.as_keyword() == Some("all")
                    {
                        let orig = bl.and_then(|l| l.attr("ignore_changes"));
                        if orig.is_none_or(|o| o.expr.as_keyword() != Some("all")) {
                            flag(
                                a,
                                orig,
                                "ignore_changes = all stops Terraform correcting drift".into(),
                            );
                        }
                    }
                }
            }
            "variable" | "output" => {
                if let Some(a) = o.attr("sensitive")
                    && boolean(a) == Some(false)
                    && let Some(orig) = b.attr("sensitive")
                    && boolean(orig) == Some(true)
                {
                    flag(a, Some(orig), "sensitive is turned off".into());
                }
                if b.kind == "variable"
                    && let Some(a) = o.attr("nullable")
                    && boolean(a) == Some(true)
                    && let Some(orig) = b.attr("nullable")
                    && boolean(orig) == Some(false)
                {
                    flag(
                        a,
                        Some(orig),
                        "nullable is turned on: null values are now accepted".into(),
                    );
                }
                if b.kind == "variable"
                    && let (Some(a), Some(orig)) = (o.attr("type"), b.attr("type"))
                    && let (Ok(ot), Ok(bt)) = (type_spec(a), type_spec(orig))
                    && looser(&bt.ty, &ot.ty)
                {
                    flag(
                        a,
                        Some(orig),
                        format!(
                            "the type is loosened from {} to {}: values the original rejects are now accepted",
                            bt.ty.to_hcl(),
                            ot.ty.to_hcl()
                        ),
                    );
                }
            }
            _ => {}
        }
    }
}

/// OpenTofu's encryption: what an override changes in the targets (`state`, `plan`, the
/// remote state data sources) and in the key providers and methods the original has.
fn encryption(base: &Block, over: &Block, flag: &mut impl FnMut(&Attr, Option<&Attr>, String)) {
    let nested = |b: &'_ Block, kind: &str, labels: &[String]| -> Option<Block> {
        b.body.blocks_of(kind).find(|x| x.labels == labels).cloned()
    };
    let mut targets: Vec<(String, Block, Option<Block>)> = Vec::new();
    for o in over.body.blocks() {
        match o.kind.as_str() {
            "state" | "plan" => {
                targets.push((o.kind.clone(), o.clone(), nested(base, &o.kind, &[])))
            }
            "remote_state_data_sources" => {
                let b = nested(base, &o.kind, &[]);
                for t in o.body.blocks() {
                    let name = match t.kind.as_str() {
                        "default" => "remote state data sources (default)".to_string(),
                        _ => format!("remote state data source {}", t.labels.join(".")),
                    };
                    let orig = b.as_ref().and_then(|b| nested(b, &t.kind, &t.labels));
                    targets.push((name, t.clone(), orig));
                }
            }
            "key_provider" | "method" => {
                let Some(orig) = nested(base, &o.kind, &o.labels) else { continue };
                let what = format!("{} \"{}\"", o.kind, o.labels.join("\" \""));
                // (An alias for a key provider the original has is ignored, not changed.)
                for a in o.body.attrs().filter(|a| a.name != "encrypted_metadata_alias") {
                    let was = orig.attr(&a.name);
                    if was.is_none_or(|w| w.expr != a.expr) {
                        flag(a, was, format!("{what}: {} is changed", a.name));
                    }
                }
            }
            _ => {}
        }
    }
    for (name, t, orig) in targets {
        if let Some(m) = t.attr("method") {
            let was = orig.as_ref().and_then(|o| o.attr("method"));
            let text = m.expr.to_hcl();
            if text.trim().starts_with("method.unencrypted.") {
                flag(m, was, format!("encryption of {name} is switched off ({})", text.trim()));
            } else if was.is_none_or(|w| w.expr != m.expr) {
                flag(
                    m,
                    was,
                    format!("the encryption method of {name} is changed to {}", text.trim()),
                );
            }
        }
        for f in t.body.blocks_of("fallback") {
            let Some(m) = f.attr("method") else { continue };
            let was = orig
                .as_ref()
                .and_then(|o| o.body.blocks_of("fallback").next())
                .and_then(|f| f.attr("method"));
            if was.is_none_or(|w| w.expr != m.expr) {
                flag(
                    m,
                    was,
                    format!(
                        "{name} now also reads with a fallback method ({})",
                        m.expr.to_hcl().trim()
                    ),
                );
            }
        }
    }
}

/// Does `over` accept values `base` rejects, by putting `any` where `base` has a concrete
/// type or by making a required object attribute optional? (A different concrete type is a
/// change, not a loosening.)
fn looser(base: &Type, over: &Type) -> bool {
    match (base, over) {
        (Type::Dynamic, _) => false,
        (_, Type::Dynamic) => true,
        (Type::List(b), Type::List(o))
        | (Type::Set(b), Type::Set(o))
        | (Type::Map(b), Type::Map(o)) => looser(b, o),
        (Type::Tuple(b), Type::Tuple(o)) => {
            b.len() == o.len() && b.iter().zip(o).any(|(x, y)| looser(x, y))
        }
        (Type::Object(b), Type::Object(o)) => b.attrs.iter().any(|(k, bt)| match o.attrs.get(k) {
            Some(ot) => (o.optional.contains(k) && !b.optional.contains(k)) || looser(bt, ot),
            None => false,
        }),
        _ => false,
    }
}

/// A literal boolean, as Terraform converts it: `false`, or the JSON string `"false"`.
fn boolean(a: &Attr) -> Option<bool> {
    a.expr.as_bool().or_else(|| match a.expr.as_str().as_deref() {
        Some("true") => Some(true),
        Some("false") => Some(false),
        _ => None,
    })
}

fn lifecycle(b: &Block) -> Option<&Block> {
    b.body.blocks_of("lifecycle").next()
}

/// Bounds of a version constraint (`>= 1.5, < 2.0`, `~> 1.6`): lowest allowed and the
/// version everything must stay below (None when unbounded).
fn bounds(s: &str) -> Option<(Vec<u64>, Option<Vec<u64>>)> {
    let mut low: Vec<u64> = vec![0];
    let mut high: Option<Vec<u64>> = None;
    let mut tighten = |v: Vec<u64>| {
        if high.as_ref().is_none_or(|h| cmp(&v, h).is_lt()) {
            high = Some(v);
        }
    };
    for clause in s.split(',') {
        let c = clause.trim();
        let (op, ver) = ["~>", ">=", "<=", "!=", ">", "<", "="]
            .iter()
            .find_map(|op| c.strip_prefix(op).map(|rest| (*op, rest.trim())))
            .unwrap_or(("=", c));
        let ver = ver.trim_start_matches('v');
        let nums: Vec<u64> = ver.split(['.', '-']).take(3).map_while(|p| p.parse().ok()).collect();
        if nums.is_empty() {
            return None;
        }
        match op {
            ">=" | ">" => low = max(low, nums),
            "=" => {
                low = max(low, nums.clone());
                tighten(bump(&nums, nums.len()));
            }
            "<" | "<=" => tighten(nums),
            "~>" => {
                low = max(low, nums.clone());
                let keep = nums.len().saturating_sub(1).max(1);
                tighten(bump(&nums, keep));
            }
            _ => {}
        }
    }
    Some((low, high))
}

fn bump(v: &[u64], keep: usize) -> Vec<u64> {
    let mut out: Vec<u64> = v.iter().take(keep).copied().collect();
    if let Some(last) = out.last_mut() {
        *last += 1;
    }
    out
}

fn cmp(a: &[u64], b: &[u64]) -> std::cmp::Ordering {
    let n = a.len().max(b.len());
    (0..n)
        .map(|i| a.get(i).unwrap_or(&0).cmp(b.get(i).unwrap_or(&0)))
        .find(|o| o.is_ne())
        .unwrap_or(std::cmp::Ordering::Equal)
}

fn max(a: Vec<u64>, b: Vec<u64>) -> Vec<u64> {
    if cmp(&a, &b).is_lt() { b } else { a }
}

/// Does `new` allow a version that `old` rejected at its edges?
fn relaxes(old: &str, new: &str) -> bool {
    let (Some((ol, oh)), Some((nl, nh))) = (bounds(old), bounds(new)) else { return false };
    cmp(&nl, &ol).is_lt()
        || match (oh, nh) {
            (Some(_), None) => true,
            (Some(o), Some(n)) => cmp(&n, &o).is_gt(),
            _ => false,
        }
}

#[cfg(test)]
mod tests {
    use super::relaxes;

    #[test]
    fn version_constraints_relax_or_not() {
        assert!(relaxes(">= 1.6", ">= 1.5"));
        assert!(relaxes(">= 1.6, < 2.0", ">= 1.6"));
        assert!(relaxes("~> 1.6", ">= 1.6"));
        assert!(relaxes("~> 1.6.2", "~> 1.6"));
        assert!(!relaxes(">= 1.5", ">= 1.6"));
        assert!(!relaxes("~> 1.6", "~> 1.6.3"));
        assert!(!relaxes(">= 1.5", "1.9.0"));
        assert!(!relaxes("nonsense", ">= 1.0"));
    }
}
