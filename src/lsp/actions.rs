//! The code actions, as edits in byte offsets: exactly what `fix` and `fold` would write
//! (their plans, cut down to the item at the cursor where the action is about one), and
//! the suppression comment. Pure: the server turns them into workspace edits.

// Public to the fuzz target (`--cfg fuzzing`), private to the crate otherwise.
#![cfg_attr(not(fuzzing), allow(unreachable_pub))]

use override_guard_hcl::LineIndex;

use super::text::{Encoding, Lines};
use crate::finding::{Finding, Level, RuleId};
use crate::fix::{comments, fold};
use crate::merge::Module;
use crate::policy::{Date, GlobBase, Policy};
use crate::terraform::{FileClass, Syntax};

/// Replace `start..end` of a file's text with `new_text`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextEdit {
    pub start: usize,
    pub end: usize,
    pub new_text: String,
}

/// What an action does to one file: edits, or (`None`) deleting it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileChange {
    pub path: String,
    pub edits: Option<Vec<TextEdit>>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    QuickFix,
    Rewrite,
}

/// One code action.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Action {
    pub title: String,
    pub kind: Kind,
    pub changes: Vec<FileChange>,
    /// Why the action cannot be taken here (shown greyed out, with this reason).
    pub disabled: Option<String>,
    /// The findings it resolves (indexes into the findings it was given).
    pub resolves: Vec<usize>,
}

/// What a suppression says until its author says why.
pub const REASON_PLACEHOLDER: &str = "TODO: say why this override is intended";

/// The actions at `start..end` of the file `path` of a module: the warning comment for a
/// `missing-override-comment` finding there (and for the whole module), a suppression for
/// every finding there, and folding when the file is an override file.
pub fn at(
    m: &Module,
    findings: &[Finding],
    policy: &Policy,
    base: &GlobBase,
    today: Date,
    path: &str,
    range: std::ops::Range<usize>,
) -> Vec<Action> {
    let (start, end) = (range.start, range.end);
    let Some(file) = m.files.files.iter().find(|f| f.path == path) else { return Vec::new() };
    let here: Vec<usize> = findings
        .iter()
        .enumerate()
        .filter(|(_, f)| f.primary.path == path && f.primary.start <= end && start <= f.primary.end)
        .map(|(i, _)| i)
        .collect();
    let mut out = Vec::new();
    let missing: Vec<usize> = here
        .iter()
        .copied()
        .filter(|&i| findings[i].rule == RuleId::MissingOverrideComment)
        .collect();
    if !missing.is_empty() || file.class == FileClass::Override {
        let plan = comments::plan(m, policy, base, today);
        for &i in &missing {
            let f = &findings[i];
            if let Some(edit) = plan.edits.iter().find(|e| e.path == path)
                && let Some(after) = &edit.after
            {
                let hunks = hunks(&edit.before, after);
                let line = line_of(&edit.before, f.primary.start);
                // The comment goes directly above the block: the change that ends there.
                if let Some(h) =
                    hunks.iter().filter(|h| h.end_line <= line).max_by_key(|h| h.end_line)
                {
                    out.push(Action {
                        title: "Add the warning comment".into(),
                        kind: Kind::QuickFix,
                        changes: vec![FileChange {
                            path: path.to_string(),
                            edits: Some(vec![h.edit.clone()]),
                        }],
                        disabled: None,
                        resolves: vec![i],
                    });
                }
            }
        }
        let changes: Vec<FileChange> = plan
            .edits
            .iter()
            .filter_map(|e| {
                let after = e.after.as_ref()?;
                let edits: Vec<TextEdit> =
                    hunks(&e.before, after).into_iter().map(|h| h.edit).collect();
                (!edits.is_empty()).then(|| FileChange { path: e.path.clone(), edits: Some(edits) })
            })
            .collect();
        if !changes.is_empty()
            && (missing.is_empty()
                || plan.edits.len() > 1
                || changes[0].edits.as_ref().is_some_and(|e| e.len() > 1))
        {
            out.push(Action {
                title: "Add every missing warning comment in this module".into(),
                kind: Kind::QuickFix,
                changes,
                disabled: None,
                resolves: missing.clone(),
            });
        }
    }
    if file.class == FileClass::Override {
        let mut fold = fold_action(m, file.name());
        // `fold` refuses a backend swap the policy denies unless told otherwise: so does
        // the action, which has no way to be told.
        let swap = findings.iter().find(|f| {
            f.rule == RuleId::BackendSwap && f.level == Level::Deny && f.primary.path == path
        });
        if let Some(f) = swap
            && fold.disabled.is_none()
        {
            fold.changes.clear();
            fold.disabled = Some(format!(
                "the policy denies this backend swap (backend-swap): {}; `override-guard fold --allow-backend-swap` folds it anyway",
                f.message
            ));
        }
        out.push(fold);
    }
    for &i in &here {
        if let Some(a) = suppress(&file.text, file.syntax, &findings[i], i) {
            out.push(a);
        }
    }
    out
}

/// "Fold this override into the original": `fold`'s edits, or its refusal as the reason
/// the action cannot be taken.
pub fn fold_action(m: &Module, name: &str) -> Action {
    let title = format!("Fold {name} into the original files");
    match fold::plan(m, &[name.to_string()]) {
        Ok(folded) => Action {
            title,
            kind: Kind::Rewrite,
            changes: folded
                .edits
                .iter()
                .map(|e| FileChange {
                    path: e.path.clone(),
                    edits: e
                        .after
                        .as_ref()
                        .map(|after| hunks(&e.before, after).into_iter().map(|h| h.edit).collect()),
                })
                .collect(),
            disabled: None,
            resolves: Vec::new(),
        },
        Err(refusals) => {
            let reason = refusals
                .iter()
                .map(|r| {
                    let at =
                        if r.line > 0 { format!("{}:{}: ", r.path, r.line) } else { String::new() };
                    format!("{at}{}", r.reason)
                })
                .collect::<Vec<_>>()
                .join("; ");
            Action {
                title,
                kind: Kind::Rewrite,
                changes: Vec::new(),
                disabled: Some(reason),
                resolves: Vec::new(),
            }
        }
    }
}

/// "Suppress with a reason": the inline suppression, on its own line above the line the
/// finding starts on, indented as that line. Native syntax only (JSON takes a `"//"`
/// property, which depends on the object).
fn suppress(text: &str, syntax: Syntax, f: &Finding, index: usize) -> Option<Action> {
    // A module the engine refuses is not silenced by a comment (`merge-error`): no such
    // action is offered, on a syntax error or any other load failure.
    if syntax != Syntax::Hcl || !crate::policy::rules::inline(f.rule) {
        return None;
    }
    let lines = Lines::new(text, Encoding::Utf8);
    let (line_start, _) = lines.line_range(lines.line_of(f.primary.start));
    let indent = lines.indent_of(f.primary.start);
    let eol = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let rule = f.rule.as_str();
    Some(Action {
        title: format!("Suppress `{rule}` here with a reason"),
        kind: Kind::QuickFix,
        changes: vec![FileChange {
            path: f.primary.path.clone(),
            edits: Some(vec![TextEdit {
                start: line_start,
                end: line_start,
                new_text: format!(
                    "{indent}# override-guard:ignore[{rule}] {REASON_PLACEHOLDER}{eol}"
                ),
            }]),
        }],
        disabled: None,
        resolves: vec![index],
    })
}

/// A change between two texts: `edit`, which ends before the 0-based line `end_line` of
/// the old text.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Hunk {
    edit: TextEdit,
    end_line: usize,
}

fn line_of(text: &str, offset: usize) -> usize {
    LineIndex::new(text).line(offset)
}

/// The lines of a text with their line breaks, and where each starts.
fn lines(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut at = 0;
    for l in text.split_inclusive('\n') {
        out.push((at, l));
        at += l.len();
    }
    out
}

/// The changes that turn `before` into `after`, line by line. `fix` and `fold` change a
/// few places of a file; matching the lines greedily (a line of `after` that is not the
/// next line of `before` is inserted, unless that line comes back soon in `after`, where
/// the lines of `before` up to it were replaced) finds them, and the result is checked:
/// applied to `before` the hunks give `after`, or there is one hunk, the whole text.
fn hunks(before: &str, after: &str) -> Vec<Hunk> {
    let (b, a) = (lines(before), lines(after));
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < b.len() || j < a.len() {
        if i < b.len() && j < a.len() && b[i].1 == a[j].1 {
            i += 1;
            j += 1;
            continue;
        }
        // The nearest pair of equal lines ahead: (lines of before skipped, of after).
        let mut best: Option<(usize, usize)> = None;
        // Changes are local: past this distance the rest is one replacement.
        let reach = (b.len() - i + a.len() - j).min(SEARCH);
        'search: for d in 1..=reach {
            for bi in 0..=d {
                let aj = d - bi;
                if i + bi < b.len() && j + aj < a.len() && b[i + bi].1 == a[j + aj].1 {
                    best = Some((bi, aj));
                    break 'search;
                }
            }
        }
        let (bi, aj) = best.unwrap_or((b.len() - i, a.len() - j));
        let start = b.get(i).map_or(before.len(), |l| l.0);
        let end = b.get(i + bi).map_or(before.len(), |l| l.0);
        let new_text: String = a[j..j + aj].iter().map(|l| l.1).collect();
        out.push(Hunk { edit: TextEdit { start, end, new_text }, end_line: i + bi });
        i += bi;
        j += aj;
    }
    if apply(before, out.iter().map(|h| &h.edit)) == after {
        out
    } else {
        vec![Hunk {
            edit: TextEdit { start: 0, end: before.len(), new_text: after.to_string() },
            end_line: b.len(),
        }]
    }
}

/// How far ahead (lines of both texts together) [`hunks`] looks for the next equal pair.
const SEARCH: usize = 256;

/// `text` with non-overlapping edits (in order) applied.
pub fn apply<'e>(text: &str, edits: impl IntoIterator<Item = &'e TextEdit>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for e in edits {
        out.push_str(&text[at..e.start]);
        out.push_str(&e.new_text);
        at = e.end;
    }
    out.push_str(&text[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::merge::load_texts;
    use crate::policy::Site;

    const MAIN: &str = "locals {\n  a = 1\n}\n\nresource \"aws_instance\" \"web\" {\n  instance_type = \"t3.micro\"\n}\n\nresource \"aws_s3_bucket\" \"logs\" {\n  bucket = \"logs\"\n}\n";
    const OVER: &str = "resource \"aws_instance\" \"web\" {\n  instance_type = \"m6i.large\"\n}\n\nresource \"aws_s3_bucket\" \"logs\" {\n  bucket = \"other\"\n}\n";

    fn module() -> Module {
        load_texts("", &[("main.tf", MAIN), ("override.tf", OVER)], None)
    }

    fn finding(rule: RuleId, path: &str, text: &str, needle: &str) -> Finding {
        let start = text.find(needle).unwrap();
        Finding::new(rule, "m", Site::new(path, text.into(), start, start + needle.len(), ""))
    }

    #[test]
    fn hunks_rebuild_the_new_text() {
        let cases = [
            ("a\nb\nc\n", "a\n# x\nb\nc\n"),
            ("a\nb\nc\n", "# x\na\nb\n# y\nc\n"),
            ("a\n# old\nb\n", "a\n# new\nb\n"),
            ("a\nb\n", ""),
            ("", "a\n"),
            ("a\nb", "a\nb\n"),
        ];
        for (before, after) in cases {
            let h = hunks(before, after);
            assert_eq!(apply(before, h.iter().map(|h| &h.edit)), after, "{before:?} -> {after:?}");
        }
        let h = hunks("a\nb\nc\n", "a\n# x\nb\nc\n");
        assert_eq!(h.len(), 1);
        assert_eq!(h[0].edit, TextEdit { start: 2, end: 2, new_text: "# x\n".into() });
        assert_eq!(h[0].end_line, 1);
    }

    #[test]
    fn the_comment_action_is_fix_s_edit_for_that_block() {
        let m = module();
        let policy = Policy::builtin();
        let today = Date { year: 2026, month: 11, day: 26 };
        let f = finding(
            RuleId::MissingOverrideComment,
            "main.tf",
            MAIN,
            "resource \"aws_s3_bucket\" \"logs\"",
        );
        let findings = vec![f];
        let at = MAIN.find("aws_s3_bucket").unwrap();
        let actions =
            self::at(&m, &findings, &policy, &GlobBase::default(), today, "main.tf", at..at);
        let one = actions.iter().find(|a| a.title == "Add the warning comment").unwrap();
        let edits = one.changes[0].edits.as_ref().unwrap();
        assert_eq!(edits.len(), 1);
        let after = apply(MAIN, edits);
        // Exactly one comment line, right above the bucket's block.
        let added: Vec<&str> = after.lines().filter(|l| !MAIN.lines().any(|o| o == *l)).collect();
        assert_eq!(added.len(), 1, "{after}");
        assert!(added[0].contains("override.tf"), "{after}");
        let bucket_line = after.lines().position(|l| l.contains("aws_s3_bucket")).unwrap();
        assert_eq!(after.lines().nth(bucket_line - 1), Some(added[0]));
        // The module-wide action is fix's whole plan.
        let all = actions.iter().find(|a| a.title.starts_with("Add every")).unwrap();
        let plan = comments::plan(&m, &policy, &GlobBase::default(), today);
        let whole = apply(MAIN, all.changes[0].edits.as_ref().unwrap());
        assert_eq!(Some(whole), plan.edits[0].after.clone());
        // A suppression is offered for the finding.
        let s = actions.iter().find(|a| a.title.starts_with("Suppress")).unwrap();
        let suppressed = apply(MAIN, s.changes[0].edits.as_ref().unwrap());
        assert!(suppressed.contains(&format!("# override-guard:ignore[missing-override-comment] {REASON_PLACEHOLDER}\nresource \"aws_s3_bucket\"")), "{suppressed}");
    }

    /// A module the engine refuses is not silenced by a comment: no suppression is
    /// offered for a `merge-error` (a syntax error typed half-way), while the other
    /// findings at the same place keep theirs.
    #[test]
    fn no_suppression_is_offered_for_a_merge_error() {
        let broken = "resource \"aws_instance\" \"web\" {\n  instance_type = \n";
        let m = load_texts("", &[("main.tf", MAIN), ("override.tf", broken)], None);
        let policy = Policy::builtin();
        let today = Date { year: 2026, month: 11, day: 26 };
        let findings = vec![
            finding(RuleId::MergeError, "override.tf", broken, "instance_type"),
            finding(RuleId::OverrideFile, "override.tf", broken, "instance_type"),
        ];
        let at = broken.find("instance_type").unwrap();
        let actions =
            self::at(&m, &findings, &policy, &GlobBase::default(), today, "override.tf", at..at);
        let titles: Vec<&str> = actions.iter().map(|a| a.title.as_str()).collect();
        assert!(!titles.iter().any(|t| t.contains("merge-error")), "{titles:?}");
        assert!(titles.contains(&"Suppress `override-file` here with a reason"), "{titles:?}");
    }

    #[test]
    fn fold_is_offered_in_override_files_or_says_why_not() {
        let m = module();
        let a = fold_action(&m, "override.tf");
        assert_eq!(a.disabled, None);
        let deleted: Vec<&str> =
            a.changes.iter().filter(|c| c.edits.is_none()).map(|c| c.path.as_str()).collect();
        assert_eq!(deleted, ["override.tf"]);
        let main = a.changes.iter().find(|c| c.path == "main.tf").unwrap();
        let folded = apply(MAIN, main.edits.as_ref().unwrap());
        assert!(folded.contains("m6i.large") && folded.contains("\"other\""), "{folded}");

        // A backend swap the policy denies is not folded from the editor either.
        let main = "terraform {\n  backend \"s3\" {\n    bucket = \"a\"\n  }\n}\n";
        let over = "terraform {\n  backend \"local\" {}\n}\n";
        let swapped = load_texts("", &[("main.tf", main), ("override.tf", over)], None);
        let today = Date { year: 2026, month: 11, day: 26 };
        let swap = finding(RuleId::BackendSwap, "override.tf", over, "backend \"local\"");
        for (level, refused) in [(Level::Deny, true), (Level::Warn, false)] {
            let findings = vec![Finding { level, ..swap.clone() }];
            let policy = Policy::builtin();
            let acts = self::at(
                &swapped,
                &findings,
                &policy,
                &GlobBase::default(),
                today,
                "override.tf",
                0..0,
            );
            let fold = acts.iter().find(|a| a.title.starts_with("Fold")).unwrap();
            assert_eq!(fold.disabled.is_some(), refused, "{level:?}: {:?}", fold.disabled);
            assert_eq!(fold.changes.is_empty(), refused, "{level:?}");
        }

        let broken =
            load_texts("", &[("main.tf", MAIN), ("override.tf", "resource \"x\" \"y\" {\n")], None);
        let refused = fold_action(&broken, "override.tf");
        assert!(refused.changes.is_empty());
        assert!(refused.disabled.is_some_and(|r| r.contains("rejects this module")));
    }
}
