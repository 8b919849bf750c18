//! Two states compared, module by module: the one comparison behind `diff`, `check
//! --new-only` and the review's renderers. Each state is judged by its own policies (an
//! [`Audit`] found in that state); then, for every module the change touches, its
//! effective configuration on each side and the findings that appear and disappear.
//! Pure: sources in, a [`Comparison`] out.

use std::collections::{BTreeMap, BTreeSet};

use super::audit::{Audit, Counts, Judged};
use crate::error;
use crate::finding::change::{ModuleChange, REJECTS, Value, ValueChange, introduced};
use crate::merge::Module;
use crate::merge::compare::{Path, Step, differences};
use crate::policy::Finding;
use crate::report::findings::Summary;
use crate::source::{Scoped, Source, split};
use crate::terraform::expr::Src;
use crate::terraform::{Block, Expr, ExprKind, FileClass, Item, Span};

/// Each module of `dirs` in `src`, judged on its own by `audit` (found in that state).
pub(crate) fn judge_dirs(
    audit: &Audit,
    src: &dyn Source,
    dirs: &BTreeSet<String>,
) -> Result<BTreeMap<String, Judged>, error::Error> {
    let scoped = Scoped { inner: src, dirs };
    let modules: Vec<(String, Vec<String>)> = scoped.modules()?.into_iter().collect();
    audit.judge(&scoped, &modules)
}

/// The findings of `after` that no module of the state before had: what a change adds
/// (`check --new-only`). Counted, so a second identical finding is new.
pub(crate) fn new_only(before: &BTreeMap<String, Judged>, after: Vec<Finding>) -> Vec<Finding> {
    let old: Vec<Finding> = before.values().flat_map(|j| j.findings.iter().cloned()).collect();
    introduced(&old, after)
}

/// The modules a change touched, each judged on both sides.
pub(crate) struct Comparison {
    /// Per module whose files differ, or whose findings do (a policy changed), in
    /// directory order.
    pub(crate) changes: Vec<ModuleChange>,
    /// The state after the change, by module directory.
    pub(crate) after: BTreeMap<String, Judged>,
}

impl Comparison {
    /// Compares the judged modules of `dirs` on both sides; `changed` are the paths whose
    /// content differs. A module judged again only for its policy's sake, with nothing
    /// changed, is no news and left out.
    pub(crate) fn new(
        before: &BTreeMap<String, Judged>,
        after: BTreeMap<String, Judged>,
        dirs: &BTreeSet<String>,
        changed: &BTreeSet<String>,
    ) -> Comparison {
        let mut changes = Vec::new();
        for dir in dirs {
            let (b, a) = (before.get(dir), after.get(dir));
            let findings = |j: Option<&Judged>| j.map(|j| j.findings.clone()).unwrap_or_default();
            let (fb, fa) = (findings(b), findings(a));
            let change = ModuleChange {
                dir: dir.clone(),
                files: changed
                    .iter()
                    .filter(|p| split(p).0 == dir)
                    .map(|p| split(p).1.to_string())
                    .collect(),
                before: b.map(|j| effective_text(&j.loaded.module)),
                after: a.map(|j| effective_text(&j.loaded.module)),
                introduced: introduced(&fb, fa.clone()),
                resolved: introduced(&fa, fb),
                values: match (b, a) {
                    (Some(b), Some(a)) => values(&b.loaded.module, &a.loaded.module),
                    _ => Vec::new(),
                },
                release: a.or(b).map(|j| j.loaded.module.release.to_string()),
                redacted: redacted_texts(b, a),
            };
            if !change.files.is_empty()
                || !change.introduced.is_empty()
                || !change.resolved.is_empty()
            {
                changes.push(change);
            }
        }
        Comparison { changes, after }
    }

    /// Every finding the change introduces, module by module.
    pub(crate) fn introduced(&self) -> Vec<Finding> {
        self.changes.iter().flat_map(|c| c.introduced.iter().cloned()).collect()
    }

    /// The summary of a report of what the change introduces: the changed modules as they
    /// are after it (their files, policies and releases).
    pub(crate) fn summary(&self) -> Summary {
        let now: Vec<&Judged> =
            self.changes.iter().filter_map(|c| self.after.get(&c.dir)).collect();
        let mut policies: Vec<Option<String>> = Vec::new();
        for j in &now {
            if !policies.contains(&j.policy) {
                policies.push(j.policy.clone());
            }
        }
        let mut summary = Summary {
            modules: self.changes.len(),
            judged: now.iter().map(|j| j.loaded.module.dir.clone()).collect(),
            policies,
            ..Default::default()
        };
        for j in &now {
            Counts::of(&j.loaded.module).add_to(&mut summary);
        }
        summary
    }
}

/// The effective configuration as `show` prints it; for a module the engine rejects,
/// its errors instead (there is no effective configuration to show).
fn effective_text(m: &Module) -> String {
    if m.has_errors() {
        let mut out = format!("# {}{REJECTS}", m.engine.name());
        for d in m.diagnostics.iter().filter(|d| d.is_error()) {
            for line in crate::report::compact(&m.files, d, "merge-error").lines() {
                out.push_str(&format!("# {line}\n"));
            }
        }
        return out;
    }
    crate::render::hcl::review(m)
}

/// The effective values that differ between two accepted configurations of a module,
/// sensitive ones without their text.
fn values(b: &Module, a: &Module) -> Vec<ValueChange> {
    if b.has_errors() || a.has_errors() {
        return Vec::new();
    }
    let place = |m: &Module, at: Option<Span>| {
        at.map(|s| {
            let f = m.files.get(s.file);
            ((f.path.clone(), f.line_col(s.start).0), f.class == FileClass::Override)
        })
    };
    let hidden = sensitive_names(&[Some(b), Some(a)]);
    differences(b, a)
        .into_iter()
        .map(|d| {
            let hide = sensitive_leaf(&hidden, &d.path);
            let shown = |v: Option<serde_json::Value>, at, m| {
                v.map(|v| {
                    let (at, by_override) =
                        place(m, at).map_or((None, false), |(a, o)| (Some(a), o));
                    Value { text: (!hide).then(|| value_text(&v)), at, by_override }
                })
            };
            ValueChange {
                path: d.path.to_string(),
                before: shown(d.left, d.left_at, b),
                after: shown(d.right, d.right_at, a),
            }
        })
        .collect()
}

/// A leaf's value as it reads best: a string that is one interpolation (`"${var.x}"`, as
/// JSON writes a reference) as the expression it holds, anything else as JSON.
fn value_text(v: &serde_json::Value) -> String {
    if let serde_json::Value::String(s) = v
        && let Some(inner) = s.strip_prefix("${").and_then(|r| r.strip_suffix('}'))
        && one_interpolation(inner)
    {
        return inner.to_string();
    }
    v.to_string()
}

/// Is `${inner}` one interpolation: do its braces balance, none closing before the end?
fn one_interpolation(inner: &str) -> bool {
    let mut depth = 0usize;
    for c in inner.chars() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => return false,
            '}' => depth -= 1,
            _ => {}
        }
    }
    depth == 0
}

/// The argument of a variable or output that holds its value, which `sensitive = true`
/// hides.
fn held_value(b: &Block) -> Option<&'static str> {
    let arg = match b.kind.as_str() {
        "variable" => "default",
        "output" => "value",
        _ => return None,
    };
    (b.attr("sensitive").and_then(|s| s.expr.as_bool()) == Some(true)).then_some(arg)
}

/// The variables and outputs either side makes sensitive (kind and name): a value one
/// side hides is hidden on both, or the side before would show what the change hides.
fn sensitive_names<'m>(sides: &[Option<&'m Module>]) -> Vec<(&'m str, &'m str)> {
    let mut out = Vec::new();
    for m in sides.iter().flatten() {
        for b in &m.blocks {
            if let (Some(_), Some(name)) = (held_value(b), b.labels.first()) {
                out.push((b.kind.as_str(), name.as_str()));
            }
        }
    }
    out
}

/// Is the leaf at `path` (part of) a sensitive variable's default or output's value?
fn sensitive_leaf(hidden: &[(&str, &str)], path: &Path) -> bool {
    let [Step::Key(kind), Step::Label(name), Step::Key(arg), ..] = path.0.as_slice() else {
        return false;
    };
    let held = if kind == "variable" { "default" } else { "value" };
    arg == held && hidden.contains(&(kind.as_str(), name.as_str()))
}

/// Both sides' effective configurations with every sensitive value replaced by
/// `(sensitive)`; `None` where neither side holds one.
fn redacted_texts(
    b: Option<&Judged>,
    a: Option<&Judged>,
) -> Option<(Option<String>, Option<String>)> {
    let (b, a) = (b.map(|j| &j.loaded.module), a.map(|j| &j.loaded.module));
    let hidden = sensitive_names(&[b, a]);
    if hidden.is_empty() {
        return None;
    }
    let text = |m: Option<&Module>| m.map(|m| effective_text(&redacted(m, &hidden)));
    Some((text(b), text(a)))
}

fn redacted(m: &Module, hidden: &[(&str, &str)]) -> Module {
    let mut m = m.clone();
    let mask: std::sync::Arc<str> = "(sensitive)".into();
    for b in &mut m.blocks {
        let held = if b.kind == "variable" { "default" } else { "value" };
        let named = b.labels.first().is_some_and(|n| hidden.contains(&(b.kind.as_str(), n)));
        if !named {
            continue;
        }
        for i in b.body.items_mut() {
            if let Item::Attr(a) = i
                && a.name == held
            {
                let src = Src::slice(&mask, 0..mask.len());
                a.expr =
                    Expr { kind: ExprKind::Raw(src.clone()), span: a.expr.span, source: Some(src) };
            }
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reference_reads_as_written() {
        let t = |s: &str| value_text(&serde_json::Value::String(s.into()));
        assert_eq!(t("${var.x}"), "var.x");
        assert_eq!(t("${merge(a, { b = 1 })}"), "merge(a, { b = 1 })");
        assert_eq!(t("${a}-${b}"), "\"${a}-${b}\"");
        assert_eq!(t("x"), "\"x\"");
        assert_eq!(value_text(&serde_json::json!(3)), "3");
    }
    use crate::pipeline::Choice;
    use crate::pipeline::audit::Ask;
    use crate::policy::Date;
    use crate::source::MemorySource;
    use crate::terraform::release::EngineChoice;

    fn judged(src: &MemorySource, dirs: &BTreeSet<String>) -> BTreeMap<String, Judged> {
        let ask = Ask {
            choice: &Choice::Nearest,
            levels: &[],
            engine: EngineChoice::Files,
            today: Date::from_days(0),
        };
        let audit = Audit::find(src, &ask, dirs.iter().map(String::as_str)).expect("policy");
        judge_dirs(&audit, src, dirs).expect("judged")
    }

    /// A new override file changes the module's effective configuration and introduces
    /// its findings; a module with no changed file and the same findings is left out; a
    /// module gone after the change has no text after.
    #[test]
    fn a_change_is_compared_module_by_module() {
        let before = MemorySource::new()
            .with("app/main.tf", "resource \"a\" \"b\" {\n  x = 1\n}\n")
            .with("old/main.tf", "locals {\n  y = 1\n}\n")
            .with("same/main.tf", "locals {\n  z = 1\n}\n");
        let after = MemorySource::new()
            .with("app/main.tf", "resource \"a\" \"b\" {\n  x = 1\n}\n")
            .with("app/override.tf", "resource \"a\" \"b\" {\n  x = 2\n}\n")
            .with("same/main.tf", "locals {\n  z = 1\n}\n");
        let dirs: BTreeSet<String> = ["app", "old", "same"].map(String::from).into();
        let changed: BTreeSet<String> = ["app/override.tf", "old/main.tf"].map(String::from).into();
        let old = judged(&before, &dirs);
        let c = Comparison::new(&old, judged(&after, &dirs), &dirs, &changed);
        let shown: Vec<(&str, &[String], bool, bool)> = c
            .changes
            .iter()
            .map(|m| (m.dir.as_str(), m.files.as_slice(), m.before.is_some(), m.after.is_some()))
            .collect();
        let files = |f: &str| vec![f.to_string()];
        assert_eq!(
            shown,
            [
                ("app", &files("override.tf")[..], true, true),
                ("old", &files("main.tf")[..], true, false)
            ]
        );
        let app = &c.changes[0];
        assert!(app.effective_changed());
        assert!(app.after.as_deref().is_some_and(|t| t.contains("x = 2")), "{:?}", app.after);
        let rules: Vec<&str> = c.introduced().iter().map(|f| f.rule.as_str()).collect();
        assert!(rules.contains(&"missing-override-comment"), "{rules:?}");
        assert_eq!(c.summary().modules, 2);
        assert_eq!(c.summary().judged, ["app"], "only the modules that exist after");
        assert!(new_only(&old, c.introduced()).len() == c.introduced().len());
        assert!(new_only(&c.after, c.introduced()).is_empty());
    }
}
