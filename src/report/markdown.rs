//! The review as a pull-request comment (GitHub- and GitLab-flavoured Markdown): a verdict
//! line, then per module what happened in one line, a table of the effective values the
//! change makes differ with where each side's value was written, the findings introduced
//! and resolved, and the unified diff folded in `<details>`. The same findings list is the
//! Markdown report of `audit` and `check`.
//!
//! Everything taken from a repository is escaped here: values and messages cannot close a
//! table cell, a code span or a fenced block, nor bring HTML of their own. A long review
//! is cut between modules, never inside one, to fit the platform's comment limit.

use super::findings::Summary;
use super::review::{summary as summary_line, unified};
use crate::finding::change::{ModuleChange, Value, rejected_by};
use crate::finding::{Finding, Level, Tally};
use crate::terraform::discover::{Engine, config_ext, is_override};

/// The first line of every review: how the Action finds its own comment to edit it.
pub(crate) const MARKER: &str = "<!-- override-guard review -->";

/// GitHub's limit on a comment's length, in characters.
pub(crate) const GITHUB_LIMIT: usize = 65_536;

/// The longest value a table cell shows, in characters; the rest is cut with `…`.
const CELL_CHARS: usize = 120;

/// The most rows of values a module's table holds; the others are counted below it.
const TABLE_ROWS: usize = 50;

/// Where the lines a review names are on the code host: prefixes to which `path#Lline`
/// is added (`https://github.com/OWNER/REPO/blob/COMMIT`), for the state after the change
/// and, when given, the state before it.
#[derive(Clone, Debug, Default)]
pub(crate) struct Links {
    pub after: Option<String>,
    pub before: Option<String>,
}

impl Links {
    fn to(base: Option<&str>, path: &str, line: usize) -> Option<String> {
        let base = base?.trim_end_matches('/');
        Some(format!("{base}/{}#L{line}", super::sarif::uri(path)))
    }
}

/// Text from a repository as Markdown text: each character that starts inline markup
/// (emphasis, code, links and images, HTML, table cells, strike-through, GitLab's math)
/// is backslash-escaped, which CommonMark reads as the character itself; `&` becomes
/// `&amp;` so that no entity is read; a line break is a space, so that the text stays in
/// its list item or cell. It never starts a line, so block markup cannot begin.
pub(crate) fn text(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    let chars: Vec<char> = s.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        match c {
            '_' if inside_word(&chars, i) => out.push('_'),
            '&' => out.push_str("&amp;"),
            '\n' | '\r' | '\t' => out.push(' '),
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '|' | '~' | '!' | '$' => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// A finding's message: its text, with the spans it quotes in backticks (an address, a
/// value) as code. A message with an odd number of backticks is all text.
fn message(s: &str) -> String {
    let parts: Vec<&str> = s.split('`').collect();
    if parts.len().is_multiple_of(2) {
        return text(s);
    }
    let mut out = String::new();
    for (i, p) in parts.iter().enumerate() {
        out.push_str(&if i % 2 == 1 { code(p, CELL_CHARS) } else { text(p) });
    }
    out
}

/// A value as inline code that survives a table: an HTML `<code>` element. Markdown goes
/// on inside it (cmark-gfm reads `HEAD~1 … HEAD~2` there as strike-through), so every
/// character that starts markup is an entity, read as the character itself: HTML's own
/// (`<script>` is text), the pipe (a table row is split at a raw `|`), the backtick,
/// emphasis, strike-through, links and math. Cut at `max` characters, on one line.
pub(crate) fn code(s: &str, max: usize) -> String {
    let mut out = String::from("<code>");
    let chars: Vec<char> = s.chars().take(max + 1).collect();
    for (i, &c) in chars.iter().enumerate() {
        if i == max {
            out.push('…');
            break;
        }
        match c {
            '_' if inside_word(&chars, i) => out.push('_'),
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '|' | '`' | '\\' | '*' | '_' | '~' | '[' | ']' | '!' | '$' => {
                out.push_str(&format!("&#{};", c as u32))
            }
            '\n' => out.push_str("\\n"),
            c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out.push_str("</code>");
    out
}

/// Is the character at `i` between two letters or digits? An underscore there cannot
/// open or close emphasis (CommonMark's flanking rules), so `aws_instance` stays as it is.
fn inside_word(chars: &[char], i: usize) -> bool {
    let word = |j: Option<usize>| j.and_then(|j| chars.get(j)).is_some_and(|c| c.is_alphanumeric());
    word(i.checked_sub(1)) && word(Some(i + 1))
}

/// A fenced code block for `body`, its fence longer than any run of backticks in it, so
/// that no line of the body can close it.
fn fenced(info: &str, body: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in body.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat((longest + 1).max(3));
    let mut out = format!("{fence}{info}\n");
    for line in body.lines() {
        out.push_str(&line.replace(|c: char| c.is_control() && c != '\t', "\u{fffd}"));
        out.push('\n');
    }
    out.push_str(&fence);
    out.push('\n');
    out
}

/// `file:line`, linked where the host is known.
fn place(at: &(String, usize), base: Option<&str>) -> String {
    let (path, line) = at;
    let shown = format!("{}:{line}", text(path));
    match Links::to(base, path, *line) {
        Some(url) => format!("[{shown}]({url})"),
        None => shown,
    }
}

/// A value cell: the value and where it was written, or a dash where there is none.
fn cell(v: Option<&Value>, base: Option<&str>) -> String {
    let Some(v) = v else { return "—".into() };
    let shown = match &v.text {
        Some(t) => code(t, CELL_CHARS),
        None => "*(sensitive)*".into(),
    };
    match &v.at {
        Some(at) => format!("{shown} · {}", place(at, base)),
        None => shown,
    }
}

/// Errors first, then warnings, each in the order found.
fn by_level(found: &[Finding]) -> Vec<&Finding> {
    let mut out: Vec<&Finding> = found.iter().collect();
    out.sort_by_key(|f| std::cmp::Reverse(f.level));
    out
}

/// One finding as a list item: its level, rule, place and message.
fn finding(f: &Finding, base: Option<&str>) -> String {
    let (line, _) = f.primary.start_line_col();
    let level = match f.level {
        Level::Deny => "🛑 **error**",
        _ => "⚠️ **warning**",
    };
    let at = place(&(f.primary.path.clone(), line), base);
    format!("- {level} `{}` {at}: {}\n", f.rule, message(&f.message))
}

fn findings_lists(c: &ModuleChange, links: &Links) -> String {
    let mut out = String::new();
    if !c.introduced.is_empty() {
        out.push_str(&format!("\n**Findings introduced ({})**\n\n", c.introduced.len()));
        for f in by_level(&c.introduced) {
            out.push_str(&finding(f, links.after.as_deref()));
        }
    }
    if !c.resolved.is_empty() {
        out.push_str(&format!("\n**Findings resolved ({})**\n\n", c.resolved.len()));
        for f in by_level(&c.resolved) {
            out.push_str(&finding(f, links.before.as_deref()));
        }
    }
    out
}

/// What happened to a module, in one line.
fn what_happened(c: &ModuleChange) -> String {
    let (before, after) = c.shown();
    let overrides: Vec<String> = c
        .files
        .iter()
        .filter(|f| config_ext(f, Engine::OpenTofu).is_some_and(|ext| is_override(f, ext)))
        .map(|f| code(f, CELL_CHARS))
        .collect();
    match c.status() {
        "added" if overrides.is_empty() => "module added".into(),
        "added" => format!("module added, with {}", overrides.join(", ")),
        _ if before.and_then(rejected_by).is_some() && after.and_then(rejected_by).is_none() => {
            let engine = before.and_then(rejected_by).unwrap_or("the engine");
            format!("no longer rejected by {}", text(engine))
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
                Some(w) => format!("now rejected by {}: {}", text(engine), code(w, 200)),
                None => format!("now rejected by {}", text(engine)),
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
            let names =
                |l: &[&str]| l.iter().map(|f| code(f, CELL_CHARS)).collect::<Vec<_>>().join(", ");
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

/// One module's section, and its diff folded in `<details>` when it has one: the whole
/// diff, or (`short`) a note that it is too long for the comment.
fn module(c: &ModuleChange, sides: (&str, &str), links: &Links) -> (String, Option<[String; 2]>) {
    let mut out = format!("### {} · {}", code(&c.dir_or_root(), CELL_CHARS), what_happened(c));
    if let Some(r) = &c.release {
        out.push_str(&format!(" · judged by {}", text(r)));
    }
    out.push('\n');
    if !c.values.is_empty() {
        out.push_str("\n| Value | Before | After |\n|---|---|---|\n");
        for v in c.values.iter().take(TABLE_ROWS) {
            out.push_str(&format!(
                "| {} | {} | {} |\n",
                code(&v.path, CELL_CHARS),
                cell(v.before.as_ref(), links.before.as_deref()),
                cell(v.after.as_ref(), links.after.as_deref()),
            ));
        }
        if c.values.len() > TABLE_ROWS {
            out.push_str(&format!(
                "\n{} more values changed: the diff below has them all.\n",
                c.values.len() - TABLE_ROWS
            ));
        }
    }
    out.push_str(&findings_lists(c, links));
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
        let fold = |inside: &str| {
            format!("\n<details><summary>Effective configuration diff</summary>\n\n{inside}\n</details>\n\n")
        };
        [
            fold(&fenced("diff", &diff)),
            fold("Too long for this comment: `override-guard diff` prints it in full.\n"),
        ]
    });
    (out, folded)
}

/// The verdict under the policy: what the change introduces decides it.
fn verdict(changes: &[ModuleChange]) -> String {
    let new: Vec<Finding> = changes.iter().flat_map(|c| c.introduced.iter().cloned()).collect();
    let t = Tally::of(&new);
    let s = |n: usize| if n == 1 { "" } else { "s" };
    if t.deny > 0 {
        format!(
            "❌ **Not safe to merge under the policy**: this change introduces {} error{}.",
            t.deny,
            s(t.deny)
        )
    } else if t.warn > 0 {
        format!(
            "⚠️ **Safe to merge under the policy**, with {} warning{} introduced.",
            t.warn,
            s(t.warn)
        )
    } else {
        "✅ **Safe to merge under the policy**: this change introduces no finding.".into()
    }
}

/// The review comment: at most `limit` characters, modules cut whole.
pub(crate) fn review(
    changes: &[ModuleChange],
    sides: (&str, &str),
    links: &Links,
    limit: usize,
) -> String {
    let mut out = format!(
        "{MARKER}\n## override-guard review\n\n{}\n\n{} → {}: {}\n\n",
        verdict(changes),
        code(sides.0, CELL_CHARS),
        code(sides.1, CELL_CHARS),
        text(&summary_line(changes)),
    );
    let same: Vec<&ModuleChange> = changes.iter().filter(|c| !c.effective_changed()).collect();
    let mut tail = String::new();
    if !same.is_empty() {
        tail.push_str("**Files changed, effective configuration unchanged**\n\n");
        for c in &same {
            let why = if c.files.is_empty() { "policy change".into() } else { c.files.join(", ") };
            tail.push_str(&format!("- {} ({})\n", code(&c.dir_or_root(), CELL_CHARS), text(&why)));
            for f in by_level(&c.introduced) {
                tail.push_str(&format!("  {}", finding(f, links.after.as_deref())));
            }
        }
        tail.push('\n');
    }
    let chars = |s: &str| s.chars().count();
    // Room for the tail and for the note on modules left out.
    let note_room = 200 + changes.iter().map(|c| chars(&c.dir) + 16).sum::<usize>();
    let mut used = chars(&out) + chars(&tail) + note_room;
    let mut left_out: Vec<&ModuleChange> = Vec::new();
    for c in changes.iter().filter(|c| c.effective_changed()) {
        let (head, folded) = module(c, sides, links);
        // The whole diff where it fits, else the note, else the module is left out.
        let tries = match folded {
            Some([full, short]) => vec![head.clone() + &full, head + &short],
            None => vec![head + "\n"],
        };
        let section = tries.into_iter().find(|s| used + chars(s) <= limit);
        match section {
            Some(s) if left_out.is_empty() => {
                used += chars(&s);
                out.push_str(&s);
            }
            _ => left_out.push(c),
        }
    }
    out.push_str(&tail);
    if !left_out.is_empty() {
        let dirs: Vec<String> = left_out.iter().map(|c| code(&c.dir_or_root(), 80)).collect();
        out.push_str(&format!(
            "**{} more module{} changed, not shown to fit the comment limit**: {}. `override-guard diff` shows them all.\n",
            left_out.len(),
            if left_out.len() == 1 { "" } else { "s" },
            dirs.join(", ")
        ));
    }
    out
}

/// The Markdown report of `audit` and `check`: the findings, errors first, under the
/// verdict and the run's summary.
pub(crate) fn findings(found: &[Finding], summary: &Summary) -> String {
    let t = Tally::of(found);
    let mut out = format!("{MARKER}\n## override-guard\n\n");
    if t.deny > 0 {
        out.push_str(&format!(
            "❌ **{} error{}**, {} warning{}",
            t.deny,
            if t.deny == 1 { "" } else { "s" },
            t.warn,
            if t.warn == 1 { "" } else { "s" }
        ));
    } else if t.warn > 0 {
        out.push_str(&format!("⚠️ **{} warning{}**", t.warn, if t.warn == 1 { "" } else { "s" }));
    } else {
        out.push_str("✅ **No findings**");
    }
    out.push_str(&format!(
        " in {} module{}.\n\n",
        summary.modules,
        if summary.modules == 1 { "" } else { "s" }
    ));
    for f in by_level(found) {
        out.push_str(&finding(f, None));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finding::change::ValueChange;
    use crate::finding::change::tests::finding as a_finding;

    fn change(values: Vec<ValueChange>) -> ModuleChange {
        ModuleChange {
            dir: "app".into(),
            files: vec!["override.tf".into()],
            before: Some("# Effective configuration\nx = 1\n".into()),
            after: Some("# Effective configuration\nx = 2\n".into()),
            introduced: vec![],
            resolved: vec![],
            values,
            release: Some("Terraform 1.15.5".into()),
            redacted: None,
        }
    }

    fn value(text: &str, path: &str, line: usize) -> Option<Value> {
        let by_override = path.ends_with("override.tf");
        Some(Value { text: Some(text.into()), at: Some((path.into(), line)), by_override })
    }

    fn row(before: &str, after: &str) -> ValueChange {
        ValueChange {
            path: "resource.a.b.x".into(),
            before: value(before, "app/main.tf", 3),
            after: value(after, "app/override.tf", 2),
        }
    }

    /// The table's rows, as a GFM parser splits them: at each `|` not escaped.
    fn cells(line: &str) -> usize {
        let mut n = 0;
        let mut esc = false;
        for c in line.chars() {
            match c {
                '\\' if !esc => esc = true,
                '|' if !esc => n += 1,
                _ => esc = false,
            }
        }
        n
    }

    #[test]
    fn a_change_is_a_verdict_a_line_a_table_and_a_folded_diff() {
        let c = change(vec![row("1", "2")]);
        let links = Links { after: Some("https://h/o/r/blob/abc".into()), before: None };
        let md = review(&[c], ("HEAD", "index"), &links, GITHUB_LIMIT);
        assert!(md.starts_with(MARKER), "{md}");
        assert!(md.contains("✅ **Safe to merge under the policy**"), "{md}");
        assert!(md.contains("### <code>app</code> · 1 value changed by <code>override.tf</code> · judged by Terraform 1.15.5\n"), "{md}");
        assert!(md.contains("| <code>resource.a.b.x</code> | <code>1</code> · app/main.tf:3 | <code>2</code> · [app/override.tf:2](https://h/o/r/blob/abc/app/override.tf#L2) |\n"), "{md}");
        assert!(md.contains("<details><summary>Effective configuration diff</summary>\n\n```diff\n--- HEAD:app\n+++ index:app\n"), "{md}");
        assert!(md.contains("\n</details>\n"), "{md}");
    }

    #[test]
    fn a_module_added_names_its_override_files_and_one_accepted_again_says_so() {
        let mut c = change(vec![]);
        c.before = None;
        c.files = vec!["main.tf".into(), "backend_override.tf".into()];
        assert_eq!(what_happened(&c), "module added, with <code>backend_override.tf</code>");
        let mut c = change(vec![]);
        c.before = Some(format!(
            "# Terraform{}# x.tf:1:1: error[merge-error]: no\n",
            crate::finding::change::REJECTS
        ));
        assert_eq!(what_happened(&c), "no longer rejected by Terraform");
    }

    #[test]
    fn hostile_values_stay_inside_their_cell() {
        for hostile in ["a|b", "`x`", "<script>alert(1)</script>", "line\nbreak", "\\|", "&lt;"] {
            let md = review(
                &[change(vec![row(hostile, "ok")])],
                ("a", "b"),
                &Links::default(),
                GITHUB_LIMIT,
            );
            let line = md.lines().find(|l| l.starts_with("| <code>resource")).unwrap_or_default();
            assert_eq!(cells(line), 4, "{hostile:?} broke the row: {line}");
            assert!(!line.contains("<script>"), "{line}");
            assert!(!line.contains('`'), "{line}");
        }
    }

    #[test]
    fn a_long_value_is_cut() {
        let long = "x".repeat(100_000);
        let md =
            review(&[change(vec![row(&long, "ok")])], ("a", "b"), &Links::default(), GITHUB_LIMIT);
        assert!(md.chars().count() < 5_000, "{}", md.len());
        assert!(md.contains(&format!("<code>{}…</code>", "x".repeat(CELL_CHARS))));
    }

    #[test]
    fn a_sensitive_value_shows_only_its_place() {
        let hidden = ValueChange {
            path: "variable.token.default".into(),
            before: Some(Value {
                text: None,
                at: Some(("app/variables.tf".into(), 4)),
                by_override: false,
            }),
            after: Some(Value {
                text: None,
                at: Some(("app/override.tf".into(), 2)),
                by_override: true,
            }),
        };
        let md = review(&[change(vec![hidden])], ("a", "b"), &Links::default(), GITHUB_LIMIT);
        assert!(md.contains("| <code>variable.token.default</code> | *(sensitive)* · app/variables.tf:4 | *(sensitive)* · app/override.tf:2 |"), "{md}");
    }

    #[test]
    fn a_diff_cannot_close_its_fence() {
        let mut c = change(vec![]);
        c.after =
            Some("# Effective configuration\nx = \"```\"\n</details><script>x</script>\n".into());
        let md = review(&[c], ("a", "b"), &Links::default(), GITHUB_LIMIT);
        assert!(md.contains("\n````diff\n"), "{md}");
        assert!(md.contains("\n````\n\n</details>"), "{md}");
    }

    #[test]
    fn messages_are_text() {
        let f = a_finding("backend-swap", "app/o.tf", "swap *now* [x](javascript:y) <b>|</b>", 0);
        let line = finding(&f, None);
        assert_eq!(
            line,
            "- 🛑 **error** `backend-swap` app/o.tf:1: swap \\*now\\* \\[x\\](javascript:y) \\<b\\>\\|\\</b\\>\n"
        );
    }

    #[test]
    fn a_message_quotes_code_as_code() {
        assert_eq!(message("`path` is *set*"), "<code>path</code> is \\*set\\*");
        assert_eq!(message("one ` alone"), "one \\` alone");
        assert_eq!(message("`<b>|`"), "<code>&lt;b&gt;&#124;</code>");
        assert_eq!(code("aws_s3 _x_ a_", 20), "<code>aws_s3 &#95;x&#95; a&#95;</code>");
        assert_eq!(text("aws_s3 _x_"), "aws_s3 \\_x\\_");
    }

    #[test]
    fn a_review_over_the_limit_leaves_whole_modules_out() {
        let big: Vec<ModuleChange> = (0..40)
            .map(|i| {
                let mut c = change((0..30).map(|_| row("1", "2")).collect());
                c.dir = format!("m{i:02}");
                c
            })
            .collect();
        let md = review(&big, ("a", "b"), &Links::default(), 20_000);
        assert!(md.chars().count() <= 20_000, "{}", md.chars().count());
        assert!(md.contains("more modules changed, not shown to fit the comment limit"), "{md}");
        // Every table that begins ends: no module is cut inside its table.
        let shown = md.matches("| Value | Before | After |").count();
        assert_eq!(md.matches("### <code>m").count(), shown);
        assert_eq!(md.matches("| <code>resource.a.b.x</code>").count(), shown * 30);
    }
}
