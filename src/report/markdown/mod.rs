//! The review as a pull-request comment, in GitHub's and GitLab's Markdown or in
//! Bitbucket's: a verdict line, then per module what happened in one line, the effective
//! values the change makes differ with where each side's value was written, the findings
//! introduced and resolved, and the unified diff. The findings of `audit` and `check`
//! (`check --new-only`: what a push adds) are a comment of the same kind.
//!
//! Everything taken from a repository is escaped (see [`flavor`]): values and messages
//! cannot close a table cell, a code span or a fenced block, nor bring HTML of their own.
//! A long comment is cut between modules, never inside one, to fit the host's limit.

mod flavor;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;

use super::findings::{Summary, plural as suffix};
use super::review::{summary as summary_line, unified};
use crate::finding::change::{ModuleChange, Value, rejected_by};
use crate::finding::{Finding, Level, Tally, sentence};
use crate::terraform::discover::{Engine, config_ext, is_override};
pub(crate) use flavor::Flavor;
use flavor::fenced;

/// The longest value a table cell shows, in characters; the rest is cut with `…`.
const CELL_CHARS: usize = 120;

/// The most rows of values a module's table holds; the others are counted below it.
const TABLE_ROWS: usize = 50;

/// The most findings one list of a module shows, errors first; the others are counted in
/// its last item, so that a module with thousands of findings still has a section.
const LIST_FINDINGS: usize = 50;

/// Where the lines a comment names are on the code host: prefixes to which the path and
/// the line's anchor are added (`https://github.com/OWNER/REPO/blob/COMMIT`), for the
/// state after the change and, when given, the state before it.
#[derive(Clone, Debug, Default)]
pub(crate) struct Links {
    pub after: Option<String>,
    pub before: Option<String>,
}

impl Links {
    /// The URL of `path` at `line`: `base` with `{path}` and `{line}` filled in when it
    /// names them (Bitbucket Data Center's `…/browse/{path}?at=COMMIT#{line}`, Azure
    /// DevOps' `…?path=/{path}&version=GCCOMMIT&line={line}`), else `base/path` and the
    /// flavour's anchor. What would end the Markdown link early is percent-encoded.
    fn to(f: Flavor, base: Option<&str>, path: &str, line: usize) -> Option<String> {
        let base: String = base?
            .chars()
            .map(|c| match c {
                ' ' | '(' | ')' | '<' | '>' | '[' | ']' | '`' | '"' => format!("%{:02X}", c as u32),
                c => c.to_string(),
            })
            .collect();
        let path = super::sarif::uri(path);
        if base.contains("{path}") {
            return Some(base.replace("{path}", &path).replace("{line}", &line.to_string()));
        }
        Some(format!("{}/{path}{}", base.trim_end_matches('/'), f.line_anchor(line)))
    }
}

/// What a findings comment speaks of: modules as they are (`audit`), or the modules a
/// change touches as it leaves them (`check`), with `new_only` only what it introduces.
#[derive(Clone, Debug, Default)]
pub(crate) enum Scope {
    #[default]
    Modules,
    Change {
        from: String,
        to: String,
        new_only: bool,
    },
}

/// How a comment is written: in whose Markdown, linked to which lines, within how many
/// characters, and (for findings) of what.
#[derive(Clone, Debug)]
pub(crate) struct Comment {
    pub flavor: Flavor,
    pub links: Links,
    pub limit: usize,
    pub scope: Scope,
}

impl Default for Comment {
    fn default() -> Self {
        Comment {
            flavor: Flavor::Gfm,
            links: Links::default(),
            limit: Flavor::Gfm.limit(),
            scope: Scope::Modules,
        }
    }
}

/// A finding's message: its text, with the spans it quotes in backticks (an address, a
/// value) as code. A message with an odd number of backticks is all text.
fn message(f: Flavor, s: &str) -> String {
    let parts: Vec<&str> = s.split('`').collect();
    if parts.len().is_multiple_of(2) {
        return f.text(s);
    }
    let mut out = String::new();
    for (i, p) in parts.iter().enumerate() {
        out.push_str(&if i % 2 == 1 { f.code(p, CELL_CHARS) } else { f.text(p) });
    }
    out
}

/// `file:line`, linked where the host is known.
fn place(f: Flavor, at: &(String, usize), base: Option<&str>) -> String {
    let (path, line) = at;
    let shown = format!("{}:{line}", f.text(path));
    match Links::to(f, base, path, *line) {
        Some(url) => format!("[{shown}]({url})"),
        None => shown,
    }
}

/// A value and where it was written, or a dash where there is none.
fn cell(f: Flavor, v: Option<&Value>, base: Option<&str>) -> String {
    let Some(v) = v else { return "—".into() };
    let shown = match &v.text {
        Some(t) => f.code(t, CELL_CHARS),
        None => "*(sensitive)*".into(),
    };
    match &v.at {
        Some(at) => format!("{shown} · {}", place(f, at, base)),
        None => shown,
    }
}

/// Errors first, then warnings, each in the order found.
fn by_level<'a>(found: impl IntoIterator<Item = &'a Finding>) -> Vec<&'a Finding> {
    let mut out: Vec<&Finding> = found.into_iter().collect();
    out.sort_by_key(|f| std::cmp::Reverse(f.level));
    out
}

/// A list of findings, errors first, at most [`LIST_FINDINGS`] of them, each item behind
/// `indent`; `command` shows the ones counted.
fn finding_list<'a>(
    fl: Flavor,
    found: impl IntoIterator<Item = &'a Finding>,
    base: Option<&str>,
    indent: &str,
    command: &str,
) -> String {
    let all = by_level(found);
    let mut out = String::new();
    for x in all.iter().take(LIST_FINDINGS) {
        out.push_str(indent);
        out.push_str(&finding(fl, x, base));
    }
    if let Some(n) = all.len().checked_sub(LIST_FINDINGS).filter(|n| *n > 0) {
        out.push_str(&format!(
            "{indent}- and {n} more finding{}: `{command}` shows them all\n",
            suffix(n)
        ));
    }
    out
}

/// One finding as a list item: its level, rule, place and message.
fn finding(fl: Flavor, f: &Finding, base: Option<&str>) -> String {
    let (line, _) = f.primary.start_line_col();
    let level = match f.level {
        Level::Deny => "🛑 **error**",
        _ => "⚠️ **warning**",
    };
    let at = place(fl, &(f.primary.path.clone(), line), base);
    let mut said = message(fl, &f.message);
    if let Some(detail) = f.detail() {
        said.push_str(": ");
        said.push_str(&message(fl, detail));
    }
    format!("- {level} `{}` {at}: {said}\n", f.rule)
}

/// A module's findings introduced (linked after the change) and resolved (before it).
fn findings_lists(c: &ModuleChange, cm: &Comment) -> String {
    let mut out = String::new();
    let lists = [
        ("introduced", &c.introduced, cm.links.after.as_deref()),
        ("resolved", &c.resolved, cm.links.before.as_deref()),
    ];
    for (what, found, base) in lists {
        if !found.is_empty() {
            out.push_str(&format!("\n**Findings {what} ({})**\n\n", found.len()));
            out.push_str(&finding_list(cm.flavor, found, base, "", "override-guard diff"));
        }
    }
    out
}

/// What happened to a module, in one line.
fn what_happened(f: Flavor, c: &ModuleChange) -> String {
    let (before, after) = c.shown();
    let overrides: Vec<String> = c
        .files
        .iter()
        .filter(|f| config_ext(f, Engine::OpenTofu).is_some_and(|ext| is_override(f, ext)))
        .map(|name| f.code(name, CELL_CHARS))
        .collect();
    match c.status() {
        "added" if overrides.is_empty() => "module added".into(),
        "added" => format!("module added, with {}", overrides.join(", ")),
        _ if before.and_then(rejected_by).is_some() && after.and_then(rejected_by).is_none() => {
            let engine = before.and_then(rejected_by).unwrap_or("the engine");
            format!("no longer rejected by {}", f.text(engine))
        }
        "removed" => "module removed".into(),
        "rejected" => {
            let engine = after.and_then(rejected_by).unwrap_or("the engine");
            // The first error's words, as the review's text gives them after its place
            // and rule (`path:line:col: error[merge-error]: …`).
            let why = after.and_then(|a| a.lines().nth(1)).map(|l| match l.split_once("]: ") {
                Some((_, words)) => words,
                None => l.trim_start_matches("# "),
            });
            match why {
                Some(w) => format!("now rejected by {}: {}", f.text(engine), f.code(w, 200)),
                None => format!("now rejected by {}", f.text(engine)),
            }
        }
        _ if c.values.is_empty() => "effective configuration changed".into(),
        _ => {
            // Where each new value comes from (the old one, for a value the change
            // removes): the override files among them are what a reader must know.
            let (mut overrides, mut others): (Vec<&str>, Vec<&str>) = (Vec::new(), Vec::new());
            let mut by_override = 0;
            for v in &c.values {
                let Some(side) = v.after.as_ref().or(v.before.as_ref()) else { continue };
                let Some((path, _)) = &side.at else { continue };
                let name = path.rsplit('/').next().unwrap_or(path);
                let list = if side.by_override { &mut overrides } else { &mut others };
                by_override += usize::from(side.by_override);
                if !list.contains(&name) {
                    list.push(name);
                }
            }
            let n = c.values.len();
            let values = |n: usize| if n == 1 { "value" } else { "values" };
            let names = |l: &[&str]| {
                l.iter().map(|name| f.code(name, CELL_CHARS)).collect::<Vec<_>>().join(", ")
            };
            match (by_override, others.is_empty()) {
                (0, true) => format!("{n} {} changed", values(n)),
                (0, false) => format!("{n} {} changed in {}", values(n), names(&others)),
                (k, true) => format!("{k} {} changed by {}", values(k), names(&overrides)),
                (k, false) => {
                    format!("{n} {} changed, {k} of them by {}", values(n), names(&overrides))
                }
            }
        }
    }
}

/// The values a module's change makes differ: a table in GFM, a list in Bitbucket's.
fn values(c: &ModuleChange, cm: &Comment) -> String {
    let f = cm.flavor;
    let (before, after) = (cm.links.before.as_deref(), cm.links.after.as_deref());
    let mut out = String::from(if f.tables() {
        "\n| Value | Before | After |\n|---|---|---|\n"
    } else {
        "\n"
    });
    for v in c.values.iter().take(TABLE_ROWS) {
        let (path, old, new) = (
            f.code(&v.path, CELL_CHARS),
            cell(f, v.before.as_ref(), before),
            cell(f, v.after.as_ref(), after),
        );
        out.push_str(&if f.tables() {
            format!("| {path} | {old} | {new} |\n")
        } else {
            format!("- {path}: {old} → {new}\n")
        });
    }
    if c.values.len() > TABLE_ROWS {
        out.push_str(&format!(
            "\n{} more values changed: the diff below has them all.\n",
            c.values.len() - TABLE_ROWS
        ));
    }
    out
}

/// One module's section, and its diff (folded in `<details>` where the host allows) when
/// it has one: the whole diff, or (`short`) a note that it is too long for the comment.
fn module(c: &ModuleChange, sides: (&str, &str), cm: &Comment) -> (String, Option<[String; 2]>) {
    let f = cm.flavor;
    let mut out = format!("### {} · {}", f.code(&c.dir_or_root(), CELL_CHARS), what_happened(f, c));
    if let Some(r) = &c.release {
        out.push_str(&format!(" · judged by {}", f.text(r)));
    }
    out.push('\n');
    if !c.values.is_empty() {
        out.push_str(&values(c, cm));
    }
    out.push_str(&findings_lists(c, cm));
    let (before, after) = c.shown();
    let diff = unified(
        before.unwrap_or(""),
        after.unwrap_or(""),
        &format!("{}:{}", sides.0, c.dir_or_root()),
        &format!("{}:{}", sides.1, c.dir_or_root()),
    );
    // A rejected module has no configuration after: its findings say why, not a diff
    // that removes every line.
    let folded = (!diff.is_empty() && c.status() != "rejected").then(|| {
        let title = "Effective configuration diff";
        [
            f.fold(title, &fenced("diff", &diff)),
            f.fold(title, "Too long for this comment: `override-guard diff` prints it in full.\n"),
        ]
    });
    (out, folded)
}

/// `1 error`, `2 errors`.
fn plural(n: usize, one: &str) -> String {
    format!("{n} {one}{}", suffix(n))
}

/// The verdict under the policy: what the change introduces decides it.
fn verdict(introduced: &Tally, what: &str) -> String {
    if introduced.deny > 0 {
        format!(
            "❌ **Not safe to merge under the policy**: {what} introduces {}.",
            plural(introduced.deny, "error")
        )
    } else if introduced.warn > 0 {
        format!(
            "⚠️ **Safe to merge under the policy**, with {} introduced.",
            plural(introduced.warn, "warning")
        )
    } else {
        format!("✅ **Safe to merge under the policy**: {what} introduces no finding.")
    }
}

/// The room kept for the note on what is left out: its words, and the names of the
/// modules it lists, which give way to "and N more" past an eighth of the comment.
fn note_room(dirs: impl Iterator<Item = usize>, limit: usize) -> usize {
    NOTE_WORDS + dirs.map(|d| d + 16).sum::<usize>().min(limit / 8)
}

/// The characters of a note's own words: the count, the sentence and the command.
const NOTE_WORDS: usize = 300;

/// The note on what did not fit, after what did, in at most `room` characters (and its
/// words at least): the modules' names while they fit, then how many more.
fn left_out_note(f: Flavor, what: &str, dirs: &[String], command: &str, room: usize) -> String {
    let room = room.max(NOTE_WORDS) - NOTE_WORDS;
    let mut names = String::new();
    for (i, d) in dirs.iter().enumerate() {
        let name = f.code(d, 80);
        let more = format!(", and {} more", dirs.len() - i);
        let sep = if i == 0 { "" } else { ", " };
        if names.chars().count() + sep.len() + name.chars().count() + more.len() > room {
            names.push_str(if i == 0 { &more[6..] } else { &more });
            break;
        }
        names.push_str(sep);
        names.push_str(&name);
    }
    format!(
        "**{what}, not shown to fit the comment limit**: {names}. `{command}` shows them all.\n"
    )
}

/// The review comment: at most `cm.limit` characters, modules cut whole.
pub(crate) fn review(changes: &[ModuleChange], sides: (&str, &str), cm: &Comment) -> String {
    let f = cm.flavor;
    let introduced: Vec<&Finding> = changes.iter().flat_map(|c| &c.introduced).collect();
    let mut out = format!(
        "{}\n## override-guard review\n\n{}\n\n{} → {}: {}\n\n",
        f.marker(),
        verdict(&Tally::of(introduced), "this change"),
        f.code(sides.0, CELL_CHARS),
        f.code(sides.1, CELL_CHARS),
        f.text(&summary_line(changes)),
    );
    let same: Vec<&ModuleChange> = changes.iter().filter(|c| !c.effective_changed()).collect();
    let mut tail = String::new();
    let chars = |s: &str| s.chars().count();
    if !same.is_empty() {
        tail.push_str("**Files changed, effective configuration unchanged**\n\n");
        // A quarter of the comment at most: a policy change can touch every module.
        for (i, c) in same.iter().enumerate() {
            let why = match c.files.len() {
                0 => "policy change".to_string(),
                1..=5 => c.files.join(", "),
                n => format!("{}, and {} more files", c.files[..5].join(", "), n - 5),
            };
            let mut entry =
                format!("- {} ({})\n", f.code(&c.dir_or_root(), CELL_CHARS), f.text(&why));
            let after = cm.links.after.as_deref();
            entry.push_str(&finding_list(f, &c.introduced, after, "  ", "override-guard diff"));
            if chars(&tail) + chars(&entry) > cm.limit / 4 {
                let n = same.len() - i;
                tail.push_str(&format!(
                    "- {n} more module{}, not shown to fit the comment limit\n",
                    suffix(n)
                ));
                break;
            }
            tail.push_str(&entry);
        }
        tail.push('\n');
    }
    // Room for the tail and for the note on modules left out.
    let note = note_room(changes.iter().map(|c| chars(&c.dir)), cm.limit);
    let mut used = chars(&out) + chars(&tail) + note;
    let mut left_out: Vec<String> = Vec::new();
    for c in changes.iter().filter(|c| c.effective_changed()) {
        let (head, folded) = module(c, sides, cm);
        // The whole diff where it fits, else the note, else the module is left out.
        let tries = match folded {
            Some([full, short]) => vec![head.clone() + &full, head + &short],
            None => vec![head + "\n"],
        };
        let section = tries.into_iter().find(|s| used + chars(s) <= cm.limit);
        match section {
            Some(s) if left_out.is_empty() => {
                used += chars(&s);
                out.push_str(&s);
            }
            _ => left_out.push(c.dir_or_root()),
        }
    }
    out.push_str(&tail);
    if !left_out.is_empty() {
        let n = left_out.len();
        let what = format!("{n} more module{} changed", suffix(n));
        let room = cm.limit.saturating_sub(chars(&out));
        out.push_str(&left_out_note(f, &what, &left_out, "override-guard diff", room));
    }
    out
}

/// The findings of `audit` and `check` as a comment: a verdict, the releases that judged
/// when something chose them, then the findings by module, errors first, each with its
/// rule, linked place and message; at most `cm.limit` characters, modules cut whole.
pub(crate) fn findings(found: &[Finding], summary: &Summary, cm: &Comment) -> String {
    let f = cm.flavor;
    let t = Tally::of(found);
    let counts = if t.deny + t.warn == 0 {
        "✅ **No findings**".to_string()
    } else {
        format!("{} **{}**", if t.deny > 0 { "❌" } else { "⚠️" }, tally_words(&t))
    };
    let modules = plural(summary.modules, "module");
    let head = match &cm.scope {
        Scope::Modules => format!("{counts} in {modules}."),
        Scope::Change { from, to, new_only: true } => {
            let what = format!("{} → {}", f.code(from, CELL_CHARS), f.code(to, CELL_CHARS));
            format!("{} {modules} judged.", verdict(&t, &what))
        }
        Scope::Change { from, to, new_only: false } => format!(
            "{counts} in the {modules} that {} → {} touches.",
            f.code(from, CELL_CHARS),
            f.code(to, CELL_CHARS)
        ),
    };
    let mut out = format!("{}\n## override-guard\n\n{head}\n\n", f.marker());
    if summary.releases_said && !summary.releases.is_empty() {
        let each: Vec<String> = summary
            .releases
            .iter()
            .map(|(r, n)| format!("{} ({})", f.text(&r.to_string()), plural(*n, "module")))
            .collect();
        out.push_str(&format!("Judged by {}.\n\n", each.join(", ")));
    }
    if summary.baselined > 0 {
        out.push_str(&format!(
            "{} recorded in the baseline {} not shown.\n\n",
            plural(summary.baselined, "finding"),
            if summary.baselined == 1 { "is" } else { "are" }
        ));
    }
    let mut by_dir: BTreeMap<&str, Vec<&Finding>> = BTreeMap::new();
    for x in found {
        // A policy file's mistakes are its own, not the findings of the module beside it.
        let dir = match x.rule {
            crate::finding::RuleId::PolicyError => &x.primary.path,
            _ => x.primary.path.rsplit_once('/').map_or("", |(d, _)| d),
        };
        by_dir.entry(dir).or_default().push(x);
    }
    let chars = |s: &str| s.chars().count();
    let mut used = chars(&out) + note_room(by_dir.keys().map(|d| chars(d)), cm.limit);
    let (mut left_out, mut left_findings) = (Vec::new(), 0);
    let command = match cm.scope {
        Scope::Modules => "override-guard audit",
        Scope::Change { .. } => "override-guard check",
    };
    for (dir, list) in &by_dir {
        let shown = if dir.is_empty() { "." } else { dir };
        let lt = Tally::of(list.iter().copied());
        let mut section = format!("### {} · {}\n\n", f.code(shown, CELL_CHARS), tally_words(&lt));
        if list.iter().any(|x| x.rule == crate::finding::RuleId::PolicyError) {
            section.push_str(&format!("{}\n\n", sentence(crate::policy::NOT_JUDGED)));
        }
        let after = cm.links.after.as_deref();
        section.push_str(&finding_list(f, list.iter().copied(), after, "", command));
        section.push('\n');
        if left_out.is_empty() && used + chars(&section) <= cm.limit {
            used += chars(&section);
            out.push_str(&section);
        } else {
            left_out.push(shown.to_string());
            left_findings += list.len();
        }
    }
    if !left_out.is_empty() {
        let n = left_out.len();
        let what = format!("{} in {n} more module{}", plural(left_findings, "finding"), suffix(n));
        let room = cm.limit.saturating_sub(chars(&out));
        out.push_str(&left_out_note(f, &what, &left_out, command, room));
    }
    out
}

/// `2 errors, 1 warning`, or one of them alone.
fn tally_words(t: &Tally) -> String {
    match (t.deny, t.warn) {
        (d, 0) => plural(d, "error"),
        (0, w) => plural(w, "warning"),
        (d, w) => format!("{}, {}", plural(d, "error"), plural(w, "warning")),
    }
}
