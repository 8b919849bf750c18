//! `version-divergence`: the releases a module's `required_version` admits do not agree
//! about it. See [`RULE`].

use super::rule::Rule;
use crate::diag::Diagnostic;
use crate::finding::{Finding, Level};
use crate::merge::{self, Module};
use crate::policy::context::{Context, lifecycle_varies, override_blocks};
use crate::terraform::constraint::{self, Constraint};
use crate::terraform::release::Release;
use crate::terraform::Item;

pub(super) static RULE: Rule = Rule {
    id: super::RuleId::VersionDivergence,
    level: Level::Warn,
    summary: "the releases a module's required_version admits load its override files differently",
    doc: "\
What it checks
  Merges a module that has override files and a `required_version` again for every modelled
  release of its engine that the constraint admits, and compares what each makes of it:
  whether it loads, with which error, and the effective configuration. Where they differ,
  the finding names the releases of each outcome (\"`>= 1.9` admits Terraform 1.9–1.15:
  1.9–1.14 reject this module (Unsupported argument), 1.15 loads it\"). A module judged for
  one release (a version file, `--engine`) still runs on whatever its constraint lets a
  teammate or CI install.

Why
  The loader changes with almost every release: an override that one admitted release
  merges, another ignores or rejects. A constraint that admits both promises a module it
  does not keep.

Example
  main.tf              terraform { required_version = \">= 1.9\" }
  override.tf          variable \"region\" { const = true }   # Unsupported argument before 1.15
",
    options: &[],
    configure: None,
    check: Some(check),
    inline: true,
};

/// What one release makes of the module.
#[derive(PartialEq)]
enum Outcome<'a> {
    Rejected(&'a str, &'a str),
    Loaded,
}

fn outcome(m: &Module) -> (Outcome<'_>, Option<&Diagnostic>) {
    match m.diagnostics.iter().find(|d| d.is_error()) {
        Some(d) => (Outcome::Rejected(&d.summary, &d.detail), Some(d)),
        None => (Outcome::Loaded, None),
    }
}

/// Consecutive admitted releases that make the same of a module, with what the first made.
struct Run {
    from: Release,
    to: Release,
    module: Module,
}

fn runs_of(m: &Module, admitted: &[Release]) -> Vec<Run> {
    let same = |a: &Module, b: &Module| {
        outcome(a).0 == outcome(b).0
            && (a.has_errors()
                || (a.blocks == b.blocks && a.locals == b.locals && a.settings == b.settings))
    };
    let mut runs: Vec<Run> = Vec::new();
    for &r in admitted {
        let jm = if r == m.release { m.clone() } else { merge::rejudged(m, r) };
        match runs.last_mut() {
            Some(run) if same(&run.module, &jm) => run.to = r,
            _ => runs.push(Run { from: r, to: r, module: jm }),
        }
    }
    runs
}

/// Could the releases merge this module's override files differently? Only what the
/// loader's changes touch can (see `release::Feature`), and a module that fails (whose
/// words change); the others skip the merges, one per release.
fn may_vary(m: &Module) -> bool {
    m.has_errors()
        || override_blocks(m).any(|b| match b.kind.as_str() {
            "resource" | "data" => lifecycle_varies(b),
        "variable" => {
            ["const", "deprecated", "ephemeral"].iter().any(|a| b.attr(a).is_some())
                || b.body.blocks_of("validation").next().is_some()
        }
        "output" => ["type", "deprecated", "ephemeral"].iter().any(|a| b.attr(a).is_some()),
        "module" => {
            ["ignore_nested_deprecations", "source", "version"].iter().any(|a| b.attr(a).is_some())
        }
        "locals" | "provider" => false,
        "terraform" => b.body.items.iter().any(|i| match i {
            Item::Block(x) => {
                !matches!(x.kind.as_str(), "backend" | "cloud" | "required_providers")
            }
            Item::Attr(a) => a.name != "required_version",
            Item::Json(_) => true,
        }),
        _ => true, // ephemeral, action, removed, import, check, …
    })
}

fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    let m = cx.m;
    if m.override_files().next().is_none() || m.parsed.is_empty() || !may_vary(m) {
        return;
    }
    let texts: Vec<String> =
        m.settings.required_version.iter().filter_map(|a| a.expr.as_str()).collect();
    let Ok(constraints) = texts.iter().map(|t| Constraint::parse(t)).collect::<Result<Vec<_>, _>>()
    else {
        return;
    };
    let Some(site) = m.settings.required_version.first() else { return };
    let admitted = constraint::admitted(&constraints, m.engine);
    if admitted.len() < 2 {
        return;
    }
    let runs = runs_of(m, &admitted);
    if runs.len() < 2 {
        return;
    }
    // The same releases without the override files: where the primary files alone already
    // split them the same way, the override files add nothing to it.
    let base = merge::without_overrides(m);
    let bounds = |rs: &[Run]| rs.iter().map(|r| (r.from, r.to)).collect::<Vec<_>>();
    if bounds(&runs_of(&base, &admitted)) == bounds(&runs) {
        return;
    }
    let (first, last) = (admitted[0], admitted[admitted.len() - 1]);
    let minor = |r: &Release| format!("{}.{}", r.version.major, r.version.minor);
    let span = |(a, b): (&Release, &Release)| {
        if a == b { minor(a) } else { format!("{}–{}", minor(a), minor(b)) }
    };
    let loaded = runs.iter().filter(|r| !r.module.has_errors()).count();
    let mut parts = Vec::new();
    let mut error_site = None;
    for r in &runs {
        let one = r.from == r.to;
        let what = match outcome(&r.module) {
            (Outcome::Rejected(summary, _), d) => {
                if error_site.is_none() {
                    error_site = d.and_then(|d| d.subject);
                }
                format!("{} this module ({summary})", if one { "rejects" } else { "reject" })
            }
            // Several runs that load: each computes its own configuration.
            (Outcome::Loaded, _) if loaded > 1 => {
                format!(
                    "{} it to a configuration of {}",
                    if one { "loads" } else { "load" },
                    if one { "its own" } else { "their own" }
                )
            }
            (Outcome::Loaded, _) => (if one { "loads it" } else { "load it" }).to_string(),
        };
        parts.push(format!("{} {what}", span((&r.from, &r.to))));
    }
    let message = format!(
        "`{}` admits {} {}, which disagree about this module's override files: {}",
        texts.join("`, `"),
        m.engine.name(),
        span((&first, &last)),
        parts.join("; ")
    );
    let mut f = Finding::new(RULE.id, message, cx.site(site.span, "admits these releases"))
        .help(format!(
            "narrow the constraint to the releases the module is meant for, or compare with `override-guard show --engine {}@{}`",
            m.engine.name().to_ascii_lowercase(),
            minor(&first)
        ));
    if let Some(s) = error_site {
        f = f.related(cx.site(s, "rejected here by some of them"));
    }
    out.push(f);
}
