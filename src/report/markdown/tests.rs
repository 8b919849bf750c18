//! The comment's Markdown, in both flavours, as text; tests/machine/review.rs renders it.

use super::*;
use crate::finding::change::ValueChange;
use crate::finding::change::tests::finding as a_finding;
use flavor::Flavor::{Bitbucket, Gfm};
use flavor::{BITBUCKET_MARKER, MARKER};

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
    let md = review(&[c], ("HEAD", "index"), &Comment { links, ..Comment::default() });
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
    assert_eq!(what_happened(Gfm, &c), "module added, with <code>backend_override.tf</code>");
    let mut c = change(vec![]);
    c.before = Some(format!(
        "# Terraform{}# x.tf:1:1: error[merge-error]: no\n",
        crate::finding::change::REJECTS
    ));
    assert_eq!(what_happened(Gfm, &c), "no longer rejected by Terraform");
}

#[test]
fn hostile_values_stay_inside_their_cell() {
    for hostile in ["a|b", "`x`", "<script>alert(1)</script>", "line\nbreak", "\\|", "&lt;"] {
        let md = review(&[change(vec![row(hostile, "ok")])], ("a", "b"), &Comment::default());
        let line = md.lines().find(|l| l.starts_with("| <code>resource")).unwrap_or_default();
        assert_eq!(cells(line), 4, "{hostile:?} broke the row: {line}");
        assert!(!line.contains("<script>"), "{line}");
        assert!(!line.contains('`'), "{line}");
    }
}

#[test]
fn a_long_value_is_cut() {
    let long = "x".repeat(100_000);
    let md = review(&[change(vec![row(&long, "ok")])], ("a", "b"), &Comment::default());
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
    let md = review(&[change(vec![hidden])], ("a", "b"), &Comment::default());
    assert!(md.contains("| <code>variable.token.default</code> | *(sensitive)* · app/variables.tf:4 | *(sensitive)* · app/override.tf:2 |"), "{md}");
}

#[test]
fn a_diff_cannot_close_its_fence() {
    let mut c = change(vec![]);
    c.after = Some("# Effective configuration\nx = \"```\"\n</details><script>x</script>\n".into());
    let md = review(&[c], ("a", "b"), &Comment::default());
    assert!(md.contains("\n````diff\n"), "{md}");
    assert!(md.contains("\n````\n\n</details>"), "{md}");
}

#[test]
fn messages_are_text() {
    let f = a_finding("backend-swap", "app/o.tf", "swap *now* [x](javascript:y) <b>|</b>", 0);
    let line = finding(Gfm, &f, None);
    assert_eq!(
        line,
        "- 🛑 **error** `backend-swap` app/o.tf:1: swap \\*now\\* \\[x\\](javascript:y) \\<b\\>\\|\\</b\\>\n"
    );
}

#[test]
fn a_message_quotes_code_as_code() {
    assert_eq!(message(Gfm, "`path` is *set*"), "<code>path</code> is \\*set\\*");
    assert_eq!(message(Gfm, "one ` alone"), "one \\` alone");
    assert_eq!(message(Gfm, "`<b>|`"), "<code>&lt;b&gt;&#124;</code>");
    assert_eq!(Gfm.code("aws_s3 _x_ a_", 20), "<code>aws_s3 &#95;x&#95; a&#95;</code>");
    assert_eq!(Gfm.text("aws_s3 _x_"), "aws_s3 \\_x\\_");
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
    let md = review(&big, ("a", "b"), &Comment { limit: 20_000, ..Comment::default() });
    assert!(md.chars().count() <= 20_000, "{}", md.chars().count());
    assert!(md.contains("more modules changed, not shown to fit the comment limit"), "{md}");
    // Every table that begins ends: no module is cut inside its table.
    let shown = md.matches("| Value | Before | After |").count();
    assert_eq!(md.matches("### <code>m").count(), shown);
    assert_eq!(md.matches("| <code>resource.a.b.x</code>").count(), shown * 30);
}

/// Thousands of modules (a policy change, a monorepo's rename): the note names those that
/// fit and counts the rest, the unchanged ones give way too, and the comment keeps its
/// limit in both flavours.
#[test]
fn a_review_of_thousands_of_modules_keeps_its_limit() {
    let many: Vec<ModuleChange> = (0..3000)
        .map(|i| {
            let mut c = change(vec![row("1", "2")]);
            c.dir = format!("envs/region-{i:04}/service");
            if i % 2 == 0 {
                // Files changed, the effective configuration not.
                c.after = c.before.clone();
                c.files = (0..40).map(|n| format!("f{n}.tf")).collect();
                c.introduced = vec![a_finding("missing-override-comment", "x/main.tf", "w", 0)];
            }
            c
        })
        .collect();
    for flavor in [Gfm, Bitbucket] {
        let cm = Comment { flavor, limit: flavor.limit(), ..Comment::default() };
        let md = review(&many, ("a", "b"), &cm);
        assert!(md.chars().count() <= cm.limit, "{flavor:?}: {}", md.chars().count());
        let note =
            md.lines().find(|l| l.contains("not shown to fit the comment limit**")).expect(&md);
        let (named, more) = note.rsplit_once(", and ").expect(note);
        let more: usize = more.split(' ').next().and_then(|n| n.parse().ok()).expect(note);
        let sections = md.matches("### ").count();
        assert_eq!(sections + named.matches("region-").count() + more, 1500, "{flavor:?}: {note}");
        assert!(md.contains(" more modules, not shown to fit the comment limit\n"), "{flavor:?}");
        assert!(md.contains("f4.tf, and 35 more files"), "{flavor:?}");
    }
    let found: Vec<Finding> = (0..3000)
        .map(|i| a_finding("backend-swap", &format!("envs/region-{i:04}/o.tf"), "swap", 0))
        .collect();
    let md = findings(&found, &summary(3000), &Comment { limit: 20_000, ..Comment::default() });
    assert!(md.chars().count() <= 20_000, "{}", md.chars().count());
    assert!(md.contains(" more. `override-guard audit` shows them all.\n"), "{md}");
}

/// One module with thousands of findings still has its section: its lists show the first
/// 50, errors first, and count the rest.
#[test]
fn a_module_with_thousands_of_findings_shows_the_first_and_counts_the_rest() {
    let mut found: Vec<Finding> = (0..3000)
        .map(|i| a_finding("missing-override-comment", "app/main.tf", &format!("w{i}"), 0))
        .collect();
    found.iter_mut().for_each(|x| x.level = Level::Warn);
    found.push(a_finding("backend-swap", "app/override.tf", "swap", 0));
    let md = findings(&found, &summary(1), &Comment::default());
    assert!(md.contains("### <code>app</code> · 1 error, 3000 warnings\n"), "{md}");
    assert_eq!(md.matches("\n- 🛑").count() + md.matches("\n- ⚠️").count(), 50, "{md}");
    assert!(md.contains("- 🛑 **error** `backend-swap`"), "the error was cut: {md}");
    assert!(md.contains("- and 2951 more findings: `override-guard audit` shows them all\n"));

    let mut c = change(vec![row("1", "2")]);
    c.introduced = found;
    let md = review(&[c], ("a", "b"), &Comment::default());
    assert!(md.contains("### <code>app</code>"), "{md}");
    assert!(md.contains("- and 2951 more findings: `override-guard diff` shows them all\n"));
}

/// Does `md` hold HTML a renderer would read as a tag or a comment, outside code spans
/// and fenced blocks (whose content is text)? Bitbucket shows every tag as text.
fn has_html(md: &str) -> bool {
    let mut outside = String::new();
    let mut fenced = false;
    for line in md.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        // Drop each code span: a run of backticks to the next run of the same length.
        let mut rest = line;
        while let Some(i) = rest.find('`') {
            outside.push_str(&rest[..i]);
            let run = rest[i..].chars().take_while(|&c| c == '`').count();
            let after = &rest[i + run..];
            let fence = "`".repeat(run);
            rest = match after.find(&fence) {
                Some(j) => &after[j + run..],
                None => after,
            };
        }
        outside.push_str(rest);
        outside.push('\n');
    }
    let b = outside.as_bytes();
    b.windows(2).any(|w| w[0] == b'<' && (w[1].is_ascii_alphabetic() || b"/!?".contains(&w[1])))
}

#[test]
fn bitbucket_gets_no_html_no_table_and_its_own_marker() {
    let mut c = change(vec![row("a|b", "2")]);
    c.introduced = vec![a_finding("backend-swap", "app/override.tf", "swap `<b>` <i>", 0)];
    let links = Links { after: Some("https://h/o/r/src/abc".into()), before: None };
    let cm = Comment { flavor: Bitbucket, links, ..Comment::default() };
    let md = review(&[c], ("HEAD", "index"), &cm);
    assert!(md.starts_with(&format!("{BITBUCKET_MARKER}\n")), "{md}");
    assert!(!has_html(&md), "{md}");
    assert!(!md.contains("| Value |"), "{md}");
    assert!(
        md.contains("### `app` · 1 value changed by `override.tf` · judged by Terraform 1.15.5\n"),
        "{md}"
    );
    assert!(md.contains("\n- `resource.a.b.x`: `a|b` · app/main.tf:3 → `2` · [app/override.tf:2](https://h/o/r/src/abc/app/override.tf#lines-2)\n"), "{md}");
    assert!(md.contains(": swap `<b>` &#60;i&#62;\n"), "{md}");
    assert!(has_html("a <b> `<i>`") && !has_html("`<b>` ``<a>`x`` c"));
    assert!(md.contains("\n**Effective configuration diff**\n\n```diff\n--- HEAD:app\n"), "{md}");
}

#[test]
fn a_bitbucket_code_span_holds_any_value() {
    assert_eq!(Bitbucket.code("x`y", 20), "``x`y``");
    assert_eq!(Bitbucket.code("`a``", 20), "``` `a`` ```");
    assert_eq!(Bitbucket.code("<script>|</script>\nz", 40), "`<script>|</script>\\nz`");
    assert_eq!(Bitbucket.code(" ", 20), "`   `");
    assert_eq!(Bitbucket.code(&"x".repeat(300), 3), "`xxx…`");
    assert_eq!(
        Bitbucket.text("*a* <b> ~x~ # [l](u) aws_s3"),
        "&#42;a&#42; &#60;b&#62; &#126;x&#126; &#35; &#91;l&#93;(u) aws_s3"
    );
}

fn summary(modules: usize) -> Summary {
    Summary { modules, ..Summary::default() }
}

#[test]
fn findings_say_what_a_push_introduces_by_module_linked() {
    let found = vec![
        a_finding("missing-override-comment", "app/main.tf", "no warning", 0),
        a_finding("backend-swap", "app/backend_override.tf", "swap", 0),
        a_finding("backend-swap", "net/override.tf", "swap", 0),
    ];
    let mut found = found;
    found[0].level = Level::Warn;
    let scope = Scope::Change { from: "a1b2c3".into(), to: "HEAD".into(), new_only: true };
    let links = Links { after: Some("https://h/o/r/blob/HEAD".into()), before: None };
    let cm = Comment { links, scope, ..Comment::default() };
    let md = findings(&found, &summary(2), &cm);
    assert!(md.starts_with(&format!("{MARKER}\n## override-guard\n\n❌ **Not safe to merge under the policy**: <code>a1b2c3</code> → <code>HEAD</code> introduces 2 errors. 2 modules judged.\n")), "{md}");
    let app = md.find("### <code>app</code> · 1 error, 1 warning\n").expect(&md);
    let net = md.find("### <code>net</code> · 1 error\n").expect(&md);
    assert!(app < net, "{md}");
    // Errors first inside a module.
    let swap = md
        .find("[app/backend_override.tf:1](https://h/o/r/blob/HEAD/app/backend_override.tf#L1)")
        .expect(&md);
    assert!(swap < md.find("app/main.tf:1").expect(&md), "{md}");

    let cm = Comment { scope: Scope::Modules, ..Comment::default() };
    assert!(findings(&[], &summary(3), &cm).contains("✅ **No findings** in 3 modules.\n"));
    let scope = Scope::Change { from: "HEAD".into(), to: "the index".into(), new_only: false };
    let md = findings(&found[..1], &summary(1), &Comment { scope, ..Comment::default() });
    assert!(md.contains("⚠️ **1 warning** in the 1 module that <code>HEAD</code> → <code>the index</code> touches.\n"), "{md}");
}

#[test]
fn a_policy_files_mistakes_are_listed_under_the_file() {
    let found = vec![
        a_finding("policy-error", ".override-guard.toml", "unknown rule", 0),
        a_finding("policy-error", "envs/.override-guard.toml", "unknown rule", 0),
        a_finding("backend-swap", "override.tf", "swap", 0),
    ];
    let md = findings(&found, &summary(1), &Comment::default());
    for heading in [
        "### <code>.</code> · 1 error\n",
        "### <code>.override-guard.toml</code> · 1 error\n",
        "### <code>envs/.override-guard.toml</code> · 1 error\n",
    ] {
        assert_eq!(md.matches(heading).count(), 1, "{heading}: {md}");
    }
    let said = "The modules this policy file governs are not judged until it is fixed.\n";
    assert_eq!(md.matches(said).count(), 2, "{md}");
}

#[test]
fn findings_over_the_limit_leave_whole_modules_out() {
    let found: Vec<Finding> = (0..200)
        .map(|i| a_finding("backend-swap", &format!("m{:03}/override.tf", i / 4), "swap", 0))
        .collect();
    let md = findings(&found, &summary(50), &Comment { limit: 5_000, ..Comment::default() });
    assert!(md.chars().count() <= 5_000, "{}", md.chars().count());
    let shown = md.matches("### <code>m").count();
    assert!(shown > 0 && shown < 50, "{md}");
    assert_eq!(md.matches("- 🛑").count(), shown * 4, "a module cut inside: {md}");
    let left = 200 - shown * 4;
    assert!(md.contains(&format!("**{left} findings in {} more modules, not shown to fit the comment limit**: <code>m{shown:03}</code>", 50 - shown)), "{md}");
    assert!(md.contains("`override-guard audit` shows them all."), "{md}");
}

#[test]
fn a_link_base_is_a_prefix_or_a_template() {
    let at = |base: &str, f| Links::to(f, Some(base), "app/my file.tf", 12).unwrap_or_default();
    assert_eq!(at("https://h/o/r/blob/abc/", Gfm), "https://h/o/r/blob/abc/app/my%20file.tf#L12");
    assert_eq!(
        at("https://h/o/r/src/abc", Bitbucket),
        "https://h/o/r/src/abc/app/my%20file.tf#lines-12"
    );
    assert_eq!(
        at("https://bb/projects/P/repos/r/browse/{path}?at=abc#{line}", Bitbucket),
        "https://bb/projects/P/repos/r/browse/app/my%20file.tf?at=abc#12"
    );
    assert_eq!(
        at("https://dev.azure.com/o/p/_git/r?path=/{path}&version=GCabc&line={line}", Gfm),
        "https://dev.azure.com/o/p/_git/r?path=/app/my%20file.tf&version=GCabc&line=12"
    );
    // A base that would close the Markdown link cannot.
    assert_eq!(at("https://h/a) [x](y", Gfm), "https://h/a%29%20%5Bx%5D%28y/app/my%20file.tf#L12");
}
