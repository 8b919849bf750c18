//! The review helper's logic: what a change does to each module's effective
//! configuration, and which findings it introduces or resolves. Pure: loaded modules and
//! findings of both sides in, a report out.

use std::collections::HashMap;

use serde_json::json;

use crate::merge::Module;
use crate::policy::{Finding, Level, Tally};
use crate::render;
use crate::report::{self, Style, clean, findings};

/// One module whose configuration files differ between the two sides.
#[derive(Debug)]
pub struct ModuleChange {
    /// The module directory (as shown to the user).
    pub dir: String,
    /// The configuration files that differ.
    pub files: Vec<String>,
    /// The effective configuration on each side (`None`: the module does not exist there).
    pub before: Option<String>,
    pub after: Option<String>,
    /// Findings present after the change and not before, and the reverse.
    pub introduced: Vec<Finding>,
    pub resolved: Vec<Finding>,
}

impl ModuleChange {
    /// Did the effective configuration change (not just the files)?
    pub fn effective_changed(&self) -> bool {
        self.before != self.after
    }

    fn status(&self) -> &'static str {
        match (&self.before, &self.after) {
            (None, Some(_)) => "added",
            (Some(_), None) => "removed",
            _ if self.effective_changed() => "changed",
            _ => "unchanged",
        }
    }
}

/// The effective configuration as `show` prints it; for a module the engine rejects,
/// its errors instead (there is no effective configuration to show).
pub fn effective_text(m: &Module) -> String {
    if m.has_errors() {
        let mut out = format!("# {} rejects this module:\n", m.engine.name());
        for d in m.diagnostics.iter().filter(|d| d.is_error()) {
            for line in report::compact(&m.files, d, "merge-error").lines() {
                out.push_str(&format!("# {line}\n"));
            }
        }
        return out;
    }
    render::hcl::render(m)
}

/// A finding's identity across two versions of a file: line numbers move when lines are
/// added above it, so digits do not count.
pub fn fingerprint(f: &Finding) -> String {
    let message: String = f.message.chars().filter(|c| !c.is_ascii_digit()).collect();
    format!(
        "{}\u{0}{}\u{0}{}\u{0}{}",
        f.rule,
        f.primary.path,
        f.address.as_deref().unwrap_or(""),
        message
    )
}

/// The findings of `after` that `before` does not have (counted: a second identical
/// finding is new even if one like it existed).
pub fn introduced(before: &[Finding], after: Vec<Finding>) -> Vec<Finding> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    for f in before {
        *seen.entry(fingerprint(f)).or_default() += 1;
    }
    after
        .into_iter()
        .filter(|f| match seen.get_mut(&fingerprint(f)) {
            Some(n) if *n > 0 => {
                *n -= 1;
                false
            }
            _ => true,
        })
        .collect()
}

/// A unified diff of two texts (empty when equal), headed with the two sides' names.
pub fn unified(before: &str, after: &str, old: &str, new: &str) -> String {
    if before == after {
        return String::new();
    }
    similar::TextDiff::from_lines(before, after)
        .unified_diff()
        .context_radius(3)
        .header(old, new)
        .to_string()
}

const RED: &str = "\x1b[31m";
const GREEN: &str = "\x1b[32m";
const CYAN: &str = "\x1b[36m";
const BOLD: &str = "\x1b[1m";
const RESET: &str = "\x1b[0m";

fn paint(line: &str, color: bool) -> String {
    if !color {
        return line.to_string();
    }
    let code = if line.starts_with("+++") || line.starts_with("---") {
        BOLD
    } else if line.starts_with('+') {
        GREEN
    } else if line.starts_with('-') {
        RED
    } else if line.starts_with("@@") {
        CYAN
    } else {
        return line.to_string();
    };
    format!("{code}{line}{RESET}")
}

/// The review report: per module, the effective-configuration diff, then the findings
/// the change introduces and resolves; last, the modules whose files changed but whose
/// effective configuration did not.
pub fn human(changes: &[ModuleChange], sides: (&str, &str), style: Style) -> String {
    let mut out = String::new();
    let (old, new) = sides;
    for c in changes.iter().filter(|c| c.effective_changed()) {
        let title = format!("module {} ({})", clean(&c.dir), c.status());
        out.push_str(&if style.color { format!("{BOLD}{title}{RESET}\n") } else { title + "\n" });
        let diff = unified(
            c.before.as_deref().unwrap_or(""),
            c.after.as_deref().unwrap_or(""),
            &format!("{}:{}", old, c.dir_or_root()),
            &format!("{}:{}", new, c.dir_or_root()),
        );
        for line in diff.lines() {
            out.push_str(&paint(&clean(line), style.color));
            out.push('\n');
        }
        findings_block(&mut out, c, style);
        out.push('\n');
    }
    let same: Vec<&ModuleChange> = changes.iter().filter(|c| !c.effective_changed()).collect();
    if !same.is_empty() {
        out.push_str("Files changed, effective configuration unchanged:\n");
        for c in &same {
            out.push_str(&format!("  {} ({})\n", clean(&c.dir_or_root()), c.files.join(", ")));
            findings_block(&mut out, c, style);
        }
        out.push('\n');
    }
    out.push_str(&summary(changes));
    out.push('\n');
    out
}

fn findings_block(out: &mut String, c: &ModuleChange, style: Style) {
    if !c.introduced.is_empty() {
        out.push_str(&format!("Findings introduced ({}):\n", c.introduced.len()));
        for f in &c.introduced {
            out.push_str(&findings::human_one(f, style));
        }
    }
    if !c.resolved.is_empty() {
        out.push_str(&format!("Findings resolved ({}):\n", c.resolved.len()));
        for f in &c.resolved {
            out.push_str(&format!("  {}\n", one_line(f)));
        }
    }
}

impl ModuleChange {
    fn dir_or_root(&self) -> String {
        if self.dir.is_empty() { ".".into() } else { self.dir.clone() }
    }
}

/// `path:line:col: level[rule]: message`, as in the compact report.
fn one_line(f: &Finding) -> String {
    let (l, c) = f.primary.start_line_col();
    let level = if f.level == Level::Deny { "error" } else { "warning" };
    format!(
        "{}:{l}:{c}: {level}[{}]: {}",
        clean(&f.primary.path),
        f.rule,
        clean(&f.message).replace('\n', " ")
    )
}

/// The closing line: how many modules changed, and the findings balance.
pub fn summary(changes: &[ModuleChange]) -> String {
    let effective = changes.iter().filter(|c| c.effective_changed()).count();
    let new: Vec<Finding> = changes.iter().flat_map(|c| c.introduced.iter().cloned()).collect();
    let gone: usize = changes.iter().map(|c| c.resolved.len()).sum();
    let t = Tally::of(&new);
    format!(
        "{} module{} with changed files, {} with a changed effective configuration; findings: {} introduced ({} error{}, {} warning{}), {} resolved",
        changes.len(),
        if changes.len() == 1 { "" } else { "s" },
        effective,
        new.len(),
        t.deny,
        if t.deny == 1 { "" } else { "s" },
        t.warn,
        if t.warn == 1 { "" } else { "s" },
        gone
    )
}

/// The machine-readable review (schema version 1, documented in the README).
pub fn json(changes: &[ModuleChange], sides: (&str, &str)) -> String {
    let finding = |f: &Finding| {
        let (line, column) = f.primary.start_line_col();
        json!({
            "rule": f.rule,
            "level": f.level,
            "message": f.message,
            "address": f.address,
            "path": f.primary.path,
            "line": line,
            "column": column,
        })
    };
    let doc = json!({
        "version": 1,
        "tool": {"name": "override-guard", "version": env!("CARGO_PKG_VERSION")},
        "from": sides.0,
        "to": sides.1,
        "modules": changes.iter().map(|c| json!({
            "path": c.dir,
            "status": c.status(),
            "files": c.files,
            "diff": unified(
                c.before.as_deref().unwrap_or(""),
                c.after.as_deref().unwrap_or(""),
                &format!("{}:{}", sides.0, c.dir_or_root()),
                &format!("{}:{}", sides.1, c.dir_or_root()),
            ),
            "introduced": c.introduced.iter().map(finding).collect::<Vec<_>>(),
            "resolved": c.resolved.iter().map(finding).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    });
    let mut out = serde_json::to_string_pretty(&doc).unwrap_or_default();
    out.push('\n');
    out
}
