//! The review drawn: a change's modules for people (`diff`'s human report) and for
//! programs (its JSON), and the unified diffs `diff`, `fix` and `fold` print.

use serde_json::json;

use crate::finding::change::{ModuleChange, rejected_by, without_line_numbers};
use crate::finding::{Finding, Tally};
use crate::report::{Style, clean, findings};

/// A unified diff of two renderings (empty when equal), headed with the two sides'
/// names. Lines are matched without their provenance line numbers, so a comment added at
/// the top of an override file does not mark every overridden value as changed; the
/// lines printed are the real ones.
pub(crate) fn unified(before: &str, after: &str, old: &str, new: &str) -> String {
    let a: Vec<&str> = before.lines().collect();
    let b: Vec<&str> = after.lines().collect();
    let na: Vec<_> = a.iter().map(|l| without_line_numbers(l)).collect();
    let nb: Vec<_> = b.iter().map(|l| without_line_numbers(l)).collect();
    unified_keyed(&a, &b, &na, &nb, old, new)
}

/// A unified diff of two texts as they are (`fix` and `fold` show what they would write).
pub(crate) fn unified_text(before: &str, after: &str, old: &str, new: &str) -> String {
    let a: Vec<&str> = before.lines().collect();
    let b: Vec<&str> = after.lines().collect();
    unified_keyed(&a, &b, &a, &b, old, new)
}

/// The diff of lines `a` → `b`, matched by their keys `na` → `nb`.
fn unified_keyed<K: Eq + std::hash::Hash + Ord>(
    a: &[&str],
    b: &[&str],
    na: &[K],
    nb: &[K],
    old: &str,
    new: &str,
) -> String {
    if na == nb {
        return String::new();
    }
    let ops = similar::capture_diff_slices(similar::Algorithm::Myers, na, nb);
    let mut out = format!("--- {old}\n+++ {new}\n");
    for group in similar::group_diff_ops(ops, 3) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else { continue };
        let (o0, n0) = (first.old_range().start, first.new_range().start);
        let (o1, n1) = (last.old_range().end, last.new_range().end);
        let range = |start: usize, end: usize| {
            let len = end - start;
            let shown = if len == 0 { start } else { start + 1 };
            if len == 1 { format!("{shown}") } else { format!("{shown},{len}") }
        };
        out.push_str(&format!("@@ -{} +{} @@\n", range(o0, o1), range(n0, n1)));
        for op in &group {
            let (tag, old_r, new_r) = op.as_tag_tuple();
            match tag {
                similar::DiffTag::Equal => {
                    for line in &b[new_r] {
                        out.push_str(&format!(" {line}\n"));
                    }
                }
                _ => {
                    for line in &a[old_r] {
                        out.push_str(&format!("-{line}\n"));
                    }
                    for line in &b[new_r] {
                        out.push_str(&format!("+{line}\n"));
                    }
                }
            }
        }
    }
    out
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
pub(crate) fn human(changes: &[ModuleChange], sides: (&str, &str), style: Style) -> String {
    let mut out = String::new();
    let (old, new) = sides;
    for c in changes.iter().filter(|c| c.effective_changed()) {
        let after = c.after.as_deref().unwrap_or("");
        let status = match rejected_by(after) {
            // Said once, not as every line of the configuration as removed.
            Some(engine) if c.status() == "rejected" => format!("now rejected by {engine}"),
            _ => c.status().to_string(),
        };
        let title = format!("module {} ({status})", clean(&c.dir_or_root()));
        out.push_str(&if style.color { format!("{BOLD}{title}{RESET}\n") } else { title + "\n" });
        if c.status() == "rejected" {
            // The merge errors are findings the change introduces, drawn below; only when
            // the policy lets them pass are they said here.
            if !c.introduced.iter().any(|f| f.rule == crate::finding::RuleId::MergeError) {
                for line in after.lines().skip(1) {
                    out.push_str(&clean(line.strip_prefix("# ").unwrap_or(line)));
                    out.push('\n');
                }
            }
            findings_block(&mut out, c, style);
            out.push('\n');
            continue;
        }
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
            let why = if c.files.is_empty() { "policy change".into() } else { c.files.join(", ") };
            out.push_str(&format!("  {} ({})\n", clean(&c.dir_or_root()), clean(&why)));
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
            out.push_str(&format!("  {}\n", findings::compact_line(f)));
        }
    }
}

/// The closing line: how many modules changed, and the findings balance.
pub(crate) fn summary(changes: &[ModuleChange]) -> String {
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

/// The machine-readable review (schema version 1, documented in docs/git-and-ci.md).
pub(crate) fn json(changes: &[ModuleChange], sides: (&str, &str)) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finding::change::tests::finding;

    #[test]
    fn unified_diff_is_empty_for_equal_texts_and_headed_otherwise() {
        assert_eq!(unified("a\n", "a\n", "x", "y"), "");
        let d = unified("a\nb\n", "a\nc\n", "HEAD:m", "index:m");
        assert!(d.starts_with("--- HEAD:m\n+++ index:m\n@@ "), "{d}");
        assert!(d.contains("-b\n+c\n"), "{d}");
        assert_eq!(d, "--- HEAD:m\n+++ index:m\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n");
    }

    #[test]
    fn provenance_that_only_moved_is_no_change() {
        let before = "# overridden by override.tf:4\nresource \"a\" \"b\" {\n  x = 1 # ← override.tf:5\n  y = 2\n}\n";
        let after = "# overridden by override.tf:6\nresource \"a\" \"b\" {\n  x = 1 # ← override.tf:7\n  y = 3\n}\n";
        let d = unified(before, after, "a", "b");
        assert_eq!(
            d,
            "--- a\n+++ b\n@@ -1,5 +1,5 @@\n # overridden by override.tf:6\n resource \"a\" \"b\" {\n   x = 1 # ← override.tf:7\n-  y = 2\n+  y = 3\n }\n"
        );
        assert_eq!(unified(before, &before.replace(":5", ":9"), "a", "b"), "");
        assert_eq!(without_line_numbers("  s = \"a:1\" # ← x.tf:12"), "  s = \"a:1\" # ← x.tf");
    }

    #[test]
    fn modules_with_equal_effective_configurations_are_listed_apart() {
        let same = ModuleChange {
            dir: "m".into(),
            files: vec!["main.tf".into()],
            before: Some("x\n".into()),
            after: Some("x\n".into()),
            introduced: vec![],
            resolved: vec![],
            values: vec![],
            release: None,
            redacted: None,
        };
        let added = ModuleChange {
            dir: "n".into(),
            files: vec!["main.tf".into()],
            before: None,
            after: Some("y\n".into()),
            introduced: vec![finding("merge-error", "n/main.tf", "bad", 0)],
            resolved: vec![],
            values: vec![],
            release: None,
            redacted: None,
        };
        let text = human(&[same, added], ("HEAD", "index"), Style::plain());
        assert!(text.starts_with("module n (added)\n--- HEAD:n\n+++ index:n\n"), "{text}");
        assert!(
            text.contains("Files changed, effective configuration unchanged:\n  m (main.tf)\n")
        );
        assert!(text.ends_with(
            "2 modules with changed files, 1 with a changed effective configuration; findings: 1 introduced (1 error, 0 warnings), 0 resolved\n"
        ));
    }
}
