//! `weakened-safeguard`: an override that switches a safety off. See [`RULE`].

use super::rule::Rule;
use crate::cty::Type;
use crate::finding::{Finding, Level};
use crate::merge::variables::type_spec;
use crate::policy::context::Context;
use crate::terraform::constraint::{self, Constraint};
use crate::terraform::release::{self, Feature, Release};
use crate::terraform::{Attr, Block};

pub(super) static RULE: Rule = Rule {
    id: super::RuleId::WeakenedSafeguard,
    level: Level::Deny,
    summary: "an override turns a safeguard of the original off",
    doc: "\
What it checks
  The effective configuration (every override file merged in Terraform's order) against
  the original, where the effective value is an override file's:
  - `prevent_destroy = false` where the original had `true`;
  - `ignore_changes = all` where the original did not;
  - a variable's or output's `sensitive = false` where the original had `true`;
  - a variable's `ephemeral = false` where the original had `true` (its value is then
    stored in plan files);
  - a variable's `nullable = true` where the original had `false`;
  - a variable's `type` loosened: to `any` (anywhere inside it, where the original had a
    concrete type), or a required object attribute made `optional`;
  - a relaxed `required_version` (a lower minimum or a dropped upper bound). Terraform
    requires the constraints of every primary file, and an override file's replace them
    all: they are judged together. OpenTofu from 1.12 checks each `.tofu` file's
    constraint on its own, so an override cannot relax it there;
  - changes OpenTofu's state or plan encryption: switches a `state`, `plan` or remote
    state `method` (to `unencrypted` above all), sets a `fallback` (state that still
    reads with the old method, or unencrypted), or changes the settings of a key
    provider or method the original declares.
  The finding names the override file whose value Terraform keeps. An override file that
  turns a safeguard off and a later one that sets it back leave nothing weakened.
  Validations, preconditions and postconditions cannot be overridden at all (Terraform
  rejects the override file).

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
    configure: None,
    check: Some(check),
    inline: true,
};

/// Judges the effective configuration, not each override file alone: a later override
/// file that sets a safeguard back leaves nothing weakened, and the finding names the
/// override file whose value Terraform keeps.
fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    // In the order of the override files and of their lines.
    let mut found: Vec<(crate::terraform::Span, Finding)> = Vec::new();
    let mut flag = |address: &str, over: &Attr, originals: &[&Attr], what: String| {
        let mut f = Finding::new(
            RULE.id,
            format!("{address}: {what}"),
            cx.site(over.span, "weakened here"),
        )
        .address(address.to_string())
        .help("keep the safeguard, or change it in the original where it is reviewed");
        for o in originals {
            f = f.related(cx.site(o.span, "the original safeguard"));
        }
        found.push((over.span, f));
    };
    // What an override file set: the original's own values are no weakening of it.
    let set = |a: &&Attr| cx.m.from_override(a.span);
    for e in &cx.m.blocks {
        let Some(address) = e.address() else { continue };
        let Some(b) = cx.originals.object(&address) else { continue };
        match b.kind.as_str() {
            "resource" | "data" => {
                let (bl, el) = (lifecycle(b), lifecycle(e));
                let now = |name: &str| el.and_then(|l| l.attr(name)).filter(set);
                let was = |name: &str| bl.and_then(|l| l.attr(name));
                if let Some(a) = now("prevent_destroy")
                    && boolean(a) == Some(false)
                    && let Some(orig) = was("prevent_destroy")
                    && boolean(orig) == Some(true)
                {
                    flag(&address, a, &[orig], "prevent_destroy is turned off".into());
                }
                if let Some(a) = now("ignore_changes")
                    && a.expr.as_keyword() == Some("all")
                {
                    let orig = was("ignore_changes");
                    if orig.is_none_or(|o| o.expr.as_keyword() != Some("all")) {
                        flag(
                            &address,
                            a,
                            orig.as_slice(),
                            "ignore_changes = all stops Terraform correcting drift".into(),
                        );
                    }
                }
            }
            "variable" | "output" => {
                let now = |name: &str| e.attr(name).filter(set);
                let turned = |name: &str, from: bool| {
                    now(name).filter(|a| boolean(a) == Some(!from)).and_then(|a| {
                        b.attr(name).filter(|o| boolean(o) == Some(from)).map(|o| (a, o))
                    })
                };
                if let Some((a, orig)) = turned("sensitive", true) {
                    flag(&address, a, &[orig], "sensitive is turned off".into());
                }
                if b.kind != "variable" {
                    continue;
                }
                if let Some((a, orig)) = turned("ephemeral", true) {
                    flag(
                        &address,
                        a,
                        &[orig],
                        "ephemeral is turned off: its value is now stored in plan files".into(),
                    );
                }
                if let Some((a, orig)) = turned("nullable", false) {
                    flag(
                        &address,
                        a,
                        &[orig],
                        "nullable is turned on: null values are now accepted".into(),
                    );
                }
                if let (Some(a), Some(orig)) = (now("type"), b.attr("type"))
                    && let (Ok(ot), Ok(bt)) = (type_spec(a), type_spec(orig))
                    && looser(&bt.ty, &ot.ty)
                {
                    flag(
                        &address,
                        a,
                        &[orig],
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
    required_version(cx, &mut flag);
    if let (Some(b), Some(e)) = (cx.originals.encryption, &cx.m.settings.encryption) {
        encryption(b, e, &|a| cx.m.from_override(a.span), &mut |over, was, what| {
            flag("terraform.encryption", over, was.as_slice(), what)
        });
    }
    found.sort_by_key(|(s, _)| (s.file, s.start));
    out.extend(found.into_iter().map(|(_, f)| f));
}

/// Terraform requires every primary file's `required_version`; an override file's
/// replaces them all (OpenTofu checks each `.tofu` file's on its own, so an override
/// cannot relax it there). Relaxed: the effective constraints allow a version at the
/// edges that the originals together rejected.
fn required_version(cx: &Context<'_>, flag: &mut impl FnMut(&str, &Attr, &[&Attr], String)) {
    let now = &cx.m.settings.required_version;
    let was = &cx.originals.versions;
    if cx.m.release.has(Feature::TofuFileVersions)
        || was.is_empty()
        || now.is_empty()
        || !now.iter().all(|a| cx.m.from_override(a.span))
    {
        return;
    }
    let texts = |v: &mut dyn Iterator<Item = &Attr>| -> Option<Vec<String>> {
        v.map(|a| a.expr.as_str()).collect()
    };
    let (Some(old), Some(new)) = (texts(&mut was.iter().copied()), texts(&mut now.iter())) else {
        return;
    };
    if !relaxes(&old, &new) {
        return;
    }
    // The modelled releases the override lets in: what the relaxing means in practice.
    let parse = |v: &[String]| -> Option<Vec<Constraint>> {
        v.iter().map(|s| Constraint::parse(s).ok()).collect()
    };
    let let_in = match (parse(&old), parse(&new)) {
        (Some(o), Some(n)) => {
            let before = constraint::admitted(&o, cx.m.engine);
            let now: Vec<Release> = constraint::admitted(&n, cx.m.engine)
                .into_iter()
                .filter(|r| !before.iter().any(|b| b.version.minor == r.version.minor))
                .collect();
            match now.as_slice() {
                [] => String::new(),
                _ => format!(": it admits {}, which the original excludes", release::spans(&now)),
            }
        }
        _ => String::new(),
    };
    let quoted = |v: &[String]| v.iter().map(|s| format!("\"{s}\"")).collect::<Vec<_>>();
    let what = match old.len() {
        1 => format!(
            "required_version {} is relaxed to {}{let_in}",
            quoted(&old)[0],
            quoted(&new).join(" and ")
        ),
        _ => format!(
            "required_version {} are relaxed to {} (an override file's replaces every primary file's){let_in}",
            crate::diag::list(&quoted(&old)),
            quoted(&new).join(" and ")
        ),
    };
    flag("terraform.required_version", &now[0], was, what);
}

/// OpenTofu's encryption: what the effective block (`now`, override files merged into
/// the original) holds that an override file set (`set`) and that weakens the original's
/// targets (`state`, `plan`, the remote state data sources) or changes the key providers
/// and methods the original has.
fn encryption(
    base: &Block,
    now: &Block,
    set: &dyn Fn(&Attr) -> bool,
    flag: &mut impl FnMut(&Attr, Option<&Attr>, String),
) {
    let nested = |b: &'_ Block, kind: &str, labels: &[String]| -> Option<Block> {
        b.body.blocks_of(kind).find(|x| x.labels == labels).cloned()
    };
    let mut targets: Vec<(String, Block, Option<Block>)> = Vec::new();
    for o in now.body.blocks() {
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
                for a in o.body.attrs().filter(|a| set(a) && a.name != "encrypted_metadata_alias") {
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
        if let Some(m) = t.attr("method").filter(|m| set(m)) {
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
            let Some(m) = f.attr("method").filter(|m| set(m)) else { continue };
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

/// Do the constraints `new` allow a version that the constraints `old` (all of them
/// together) rejected at their edges? Unreadable constraints are no judgement.
fn relaxes(old: &[String], new: &[String]) -> bool {
    let (Some((ol, oh)), Some((nl, nh))) = (together(old), together(new)) else { return false };
    cmp(&nl, &ol).is_lt()
        || match (oh, nh) {
            (Some(_), None) => true,
            (Some(o), Some(n)) => cmp(&n, &o).is_gt(),
            _ => false,
        }
}

/// The bounds of several constraints that must all hold: the highest minimum and the
/// lowest upper bound.
fn together(all: &[String]) -> Option<(Vec<u64>, Option<Vec<u64>>)> {
    let mut low: Vec<u64> = vec![0];
    let mut high: Option<Vec<u64>> = None;
    for s in all {
        let (l, h) = bounds(s)?;
        low = max(low, l);
        if let Some(h) = h
            && high.as_ref().is_none_or(|x| cmp(&h, x).is_lt())
        {
            high = Some(h);
        }
    }
    Some((low, high))
}

#[cfg(test)]
mod tests {
    use crate::merge::load_texts;
    use crate::policy::Policy;
    use crate::policy::context::Context;

    /// What the rule says of a module: (file, message) of each finding.
    fn findings(files: &[(&str, &str)]) -> Vec<(String, String)> {
        let m = load_texts("", files, None);
        assert!(!m.has_errors(), "{:?}", m.diagnostics);
        let policy = Policy::builtin();
        let cx = Context::new(&m, None, &policy.options, &Default::default(), &[]);
        let mut out = Vec::new();
        super::check(&cx, &mut out);
        out.into_iter().map(|f| (f.primary.path.clone(), f.message)).collect()
    }

    const ENCRYPTED: &str = "terraform {\n  encryption {\n    key_provider \"pbkdf2\" \"main\" {\n      passphrase = var.passphrase\n    }\n    method \"aes_gcm\" \"secure\" {\n      keys = key_provider.pbkdf2.main\n    }\n    method \"unencrypted\" \"migrate\" {}\n    state {\n      method = method.aes_gcm.secure\n    }\n  }\n}\nvariable \"passphrase\" {\n  type      = string\n  sensitive = true\n}\n";
    const SWITCHED_OFF: &str = "terraform {\n  encryption {\n    state {\n      method = method.unencrypted.migrate\n    }\n  }\n}\n";
    const SWITCHED_BACK: &str = "terraform {\n  encryption {\n    state {\n      method = method.aes_gcm.secure\n    }\n  }\n}\n";

    /// OpenTofu merges encryption deeply, override file by override file: a later file
    /// that sets the original's method back leaves the state encrypted; one that changes
    /// something else leaves the earlier file's method, which the finding names.
    #[test]
    fn encryption_is_judged_as_merged() {
        let off = [("main.tofu", ENCRYPTED), ("a_override.tofu", SWITCHED_OFF)];
        let want = vec![(
            "a_override.tofu".to_string(),
            "terraform.encryption: encryption of state is switched off (method.unencrypted.migrate)"
                .to_string(),
        )];
        assert_eq!(findings(&off), want);
        let back = [
            ("main.tofu", ENCRYPTED),
            ("a_override.tofu", SWITCHED_OFF),
            ("b_override.tofu", SWITCHED_BACK),
        ];
        assert_eq!(findings(&back), []);
        let other =
            "terraform {\n  encryption {\n    state {\n      enforced = true\n    }\n  }\n}\n";
        let later = [
            ("main.tofu", ENCRYPTED),
            ("a_override.tofu", SWITCHED_OFF),
            ("b_override.tofu", other),
        ];
        assert_eq!(findings(&later), want);
    }

    fn relaxes(old: &str, new: &str) -> bool {
        all(&[old], &[new])
    }

    fn all(old: &[&str], new: &[&str]) -> bool {
        let owned = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        super::relaxes(&owned(old), &owned(new))
    }

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

    /// Several primary files' constraints all hold: the highest minimum and the lowest
    /// upper bound are what an override's replacement is judged against, whichever file
    /// comes first.
    #[test]
    fn several_constraints_are_judged_together() {
        assert!(all(&[">= 0.9.3", ">= 1.0"], &[">= 0.12"]));
        assert!(all(&[">= 1.0", ">= 0.9.3"], &[">= 0.12"]));
        assert!(!all(&[">= 0.9.3", ">= 1.0"], &[">= 1.0"]));
        assert!(all(&[">= 1.0", "< 2.0"], &[">= 1.0"]));
        assert!(!all(&[">= 1.0", "< 2.0"], &[">= 1.2", "< 2.0"]));
        assert!(all(&[">= 1.5"], &[">= 1.0", "< 2.0"]));
        assert!(!all(&[">= 1.5", "nonsense"], &[">= 1.0"]));
    }
}
