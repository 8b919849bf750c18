//! The repository-wide audit: every override file, what it changes, and every merge
//! error, over a set of loaded modules. Pure: takes modules, returns text.

use std::collections::BTreeMap;

use serde_json::json;

use crate::merge::Module;
use crate::report::{self, Style};
use crate::terraform::{FileClass, FileId, Item};

/// Totals over the audited modules.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    pub modules: usize,
    pub files: usize,
    pub override_files: usize,
    pub errors: usize,
}

/// Counts modules, files, override files and error diagnostics.
pub fn totals(modules: &[Module]) -> Totals {
    let mut t = Totals { modules: modules.len(), ..Totals::default() };
    for m in modules {
        t.files += m.files.files.len();
        t.override_files += m.override_files().count();
        t.errors += m.diagnostics.iter().filter(|d| d.is_error()).count();
    }
    t
}

/// For each override file of a module: the addresses of what it changes.
pub fn changes(m: &Module) -> BTreeMap<FileId, Vec<String>> {
    let mut out: BTreeMap<FileId, Vec<String>> = BTreeMap::new();
    for (id, f) in m.files.files.iter().enumerate() {
        if f.class == FileClass::Override {
            out.insert(id, Vec::new());
        }
    }
    let mut note = |file: FileId, what: String| {
        if let Some(list) = out.get_mut(&file)
            && !list.contains(&what)
        {
            list.push(what);
        }
    };
    for b in &m.blocks {
        let mut addr = b.kind.clone();
        for l in &b.labels {
            addr.push('.');
            addr.push_str(l);
        }
        if b.kind == "resource" {
            addr = b.labels.join(".");
        }
        note(b.span.file, addr.clone());
        for s in &b.displaced {
            note(s.file, addr.clone());
        }
    }
    for a in &m.locals {
        note(a.span.file, format!("local.{}", a.name));
    }
    let st = &m.settings;
    for a in &st.required_version {
        note(a.span.file, "terraform.required_version".into());
    }
    for a in &st.required_providers {
        note(a.span.file, format!("terraform.required_providers.{}", a.name));
    }
    for b in [&st.backend, &st.cloud, &st.state_store].into_iter().flatten() {
        let what = if b.kind == "backend" {
            format!("terraform.backend ({})", b.labels.join("."))
        } else {
            format!("terraform.{}", b.kind)
        };
        note(b.span.file, what);
    }
    for i in &st.other {
        if let Item::Block(b) = i {
            note(b.span.file, format!("terraform.{}", b.kind));
        }
    }
    out
}

/// The one-line summary.
pub fn summary(t: &Totals) -> String {
    format!(
        "{} module{}, {} file{}, {} override file{}, {} error{}",
        t.modules,
        plural(t.modules),
        t.files,
        plural(t.files),
        t.override_files,
        plural(t.override_files),
        t.errors,
        plural(t.errors)
    )
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn override_line(m: &Module, id: FileId, what: &[String]) -> String {
    let f = m.files.get(id);
    if what.is_empty() {
        format!("{}:1:1: note[override-file]: override file changes nothing", f.path)
    } else {
        format!("{}:1:1: note[override-file]: override file changes {}", f.path, what.join(", "))
    }
}

/// Compact form: one line per finding, then the summary.
pub fn compact(modules: &[Module]) -> String {
    let mut out = String::new();
    for m in modules {
        for (id, what) in changes(m) {
            out.push_str(&override_line(m, id, &what));
            out.push('\n');
        }
        for d in &m.diagnostics {
            out.push_str(&report::compact(&m.files, d, "merge-error"));
            out.push('\n');
        }
    }
    out.push_str(&summary(&totals(modules)));
    out.push('\n');
    out
}

/// Human form: per module, its override files and its diagnostics drawn on the source.
pub fn human(modules: &[Module], style: Style) -> String {
    let mut out = String::new();
    for m in modules {
        let ch = changes(m);
        if ch.is_empty() && m.diagnostics.is_empty() {
            continue;
        }
        let dir = if m.dir.is_empty() { "." } else { &m.dir };
        out.push_str(&format!("module {dir} ({})\n", m.engine.name()));
        for (id, what) in &ch {
            let f = m.files.get(*id);
            let what = if what.is_empty() { "nothing".to_string() } else { what.join(", ") };
            out.push_str(&format!("  override file {}: changes {what}\n", f.path));
        }
        for d in &m.diagnostics {
            out.push_str(&report::human(&m.files, d, "merge-error", style));
        }
        out.push('\n');
    }
    out.push_str(&summary(&totals(modules)));
    out.push('\n');
    out
}

/// JSON form for scripts.
pub fn json(modules: &[Module]) -> String {
    let t = totals(modules);
    let doc = json!({
        "modules": modules.iter().map(|m| json!({
            "dir": m.dir,
            "engine": m.engine,
            "override_files": changes(m).into_iter().map(|(id, what)| json!({"file": m.files.get(id).path, "changes": what})).collect::<Vec<_>>(),
            "diagnostics": m.diagnostics.iter().map(|d| json!({
                "rule": "merge-error",
                "severity": d.severity,
                "summary": d.summary,
                "detail": d.detail,
                "at": d.subject.map(|s| crate::render::location(m, s)),
            })).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "summary": {"modules": t.modules, "files": t.files, "override_files": t.override_files, "errors": t.errors},
    });
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_default();
    s.push('\n');
    s
}
