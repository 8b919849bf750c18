//! `protected-attribute`: attributes a team says no override may touch. See [`RULE`].

use super::options::Options;
use super::rule::Rule;
use crate::finding::{Finding, Level};
use crate::policy::context::{Context, Node};
use crate::policy::validate::{Field, Kind, Validator, Value};
use crate::terraform::{Block, Item};

pub(super) static RULE: Rule = Rule {
    id: super::RuleId::ProtectedAttribute,
    level: Level::Deny,
    summary: "an override changes an attribute the policy protects",
    doc: "\
What it checks
  Every path an override file sets, against the `attributes` globs of the policy. Paths
  are dotted addresses with the attribute or nested block at the end:
  `resource.aws_s3_bucket.logs.acl`, `module.vpc.source`, `provider.aws.region`,
  `local.env`, `terraform.backend`, `terraform.required_providers.aws`. `*` matches one
  segment, `**` any number. Nothing is protected until the policy lists something.

Why
  Some settings are the reason a module exists (an ACL, a module's source, the backend).
  Protecting them makes an override of them a review-blocking finding instead of a
  surprise in production.

Example
  [rules.protected-attribute]
  attributes = [\"resource.aws_s3_bucket.*.acl\", \"module.*.source\", \"terraform.backend\"]
",
    options: &[Field {
        name: "attributes",
        kind: Kind::Globs,
        required: false,
        default: Some("[]"),
        help: "dotted attribute paths (globs) that overrides must not set",
    }],
    configure: Some(configure),
    check: Some(check),
    inline: true,
};

/// Reads `attributes`: dotted paths become `/`-separated globs, so `*` matches one
/// segment; the patterns as written are kept to name the one that matched.
pub(super) fn configure(v: &mut Validator<'_>, name: &str, val: &Value<'_>, o: &mut Options) -> bool {
    let o = &mut o.protected;
    match name {
        "attributes" => {
            let set = v.glob_set(val, name, |s| s.replace('.', "/"));
            if set.is_some() {
                o.raw = v.strings(val, name).into_iter().map(|(s, _)| s).collect();
            }
            o.attributes = set;
        }
        _ => return false,
    }
    true
}

fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    let p = &cx.options.protected;
    if p.attributes.is_none() {
        return;
    }
    // An override's `required_version` is one change per original it replaces: one
    // finding for what it sets.
    let mut seen = std::collections::HashSet::new();
    for c in &cx.changes {
        if !seen.insert(c.over.span()) {
            continue;
        }
        let mut paths = vec![(c.address.clone(), c.over.head())];
        if let Node::Block(b) = c.over {
            collect(&c.address, b, &mut paths);
        }
        let mut originals = Vec::new();
        if let Some(Node::Block(b)) = c.base {
            collect(&c.address, b, &mut originals);
        }
        let mut reported: Vec<String> = Vec::new();
        for (path, span) in paths {
            if reported.iter().any(|r| path.starts_with(&format!("{r}."))) {
                continue;
            }
            let Some(pattern) = p.matches(&path) else { continue };
            reported.push(path.clone());
            let mut f = Finding::new(
                RULE.id,
                format!("{} overrides protected `{path}`", cx.name(c.file())),
                cx.site(span, format!("protected by `{pattern}`")),
            )
            .address(path.clone())
            .help("change it in the original file, where it is reviewed, or ask for an exception");
            let original = originals.iter().find(|(p, _)| *p == path).map(|(_, s)| *s);
            if let Some(s) = original.or(c.base.map(|b| b.head())) {
                f = f.related(cx.site(s, "the original"));
            }
            out.push(f);
        }
    }
}

fn collect(prefix: &str, b: &Block, out: &mut Vec<(String, crate::terraform::Span)>) {
    for i in b.body.items.iter() {
        let (name, span) = match i {
            Item::Attr(a) => (a.name.clone(), a.span),
            Item::Block(n) => (i.merge_name().to_string(), n.def_span),
            Item::Json(j) => (j.name.clone(), j.span),
        };
        let path = format!("{prefix}.{name}");
        out.push((path.clone(), span));
        if let Item::Block(n) = i {
            collect(&path, n, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::merge::load_texts;
    use crate::policy::Policy;
    use crate::policy::context::Context;

    /// An override's `required_version` replaces every primary file's: one finding for
    /// what it sets, however many originals it replaces.
    #[test]
    fn one_finding_for_a_required_version_that_replaces_several() {
        let version = |v: &str| format!("terraform {{\n  required_version = \"{v}\"\n}}\n");
        let (a, b, o) = (version(">= 0.9.3"), version(">= 1.0"), version(">= 0.12"));
        let m = load_texts("", &[("a.tf", &a), ("versions.tf", &b), ("override.tf", &o)], None);
        let text = "[rules.protected-attribute]\nattributes = [\"terraform.required_version\"]\n";
        let policy = Policy::parse("policy.toml", text).unwrap();
        let cx = Context::new(&m, None, &policy.options, &Default::default(), &[]);
        assert_eq!(cx.changes.len(), 2);
        let mut out = Vec::new();
        super::check(&cx, &mut out);
        let got: Vec<(String, String)> =
            out.into_iter().map(|f| (f.primary.path.clone(), f.message)).collect();
        let want = [(
            "override.tf".to_string(),
            "override.tf overrides protected `terraform.required_version`".to_string(),
        )];
        assert_eq!(got, want);
    }
}
