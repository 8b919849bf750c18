//! `diff` as a reviewer reads it: a module that becomes one Terraform rejects is said to
//! be once, not printed whole as removed; a nested block an override re-states, which
//! Terraform's merge puts after the others, does not show the blocks around it as moved.

use crate::util::{Sandbox, markdown_of, review_history};

const MAIN: &str = "resource \"aws_instance\" \"web\" {\n  instance_type = \"t3.micro\"\n  ami           = \"ami-123\"\n  tags = {\n    Team = \"payments\"\n  }\n\n  root_block_device {\n    volume_size = 8\n  }\n\n  metadata_options {\n    http_tokens = \"required\"\n  }\n}\n";

#[test]
fn a_module_that_becomes_rejected_is_said_once() {
    let s = Sandbox::new();
    s.commit(&[("app/main.tf", MAIN)], "app");
    s.stage(&[("app/override.tf", "resource \"aws_instance\" \"other\" {\n}\n")]);
    let run = s.run(&["diff", "--color", "never"]);
    assert_eq!(run.code, 1, "{}", run.shown());
    let out = run.out();
    assert!(
        out.starts_with("module app (now rejected by Terraform)\nFindings introduced (1):\n"),
        "{out}"
    );
    assert!(out.contains("Missing resource to override"), "{out}");
    assert!(
        !out.contains("-  instance_type"),
        "the old configuration is printed as removed:\n{out}"
    );
    let run = s.run(&["diff", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&run.stdout).expect("JSON");
    assert_eq!(v["modules"][0]["status"], "rejected", "{}", run.shown());
}

#[test]
fn a_nested_block_an_override_restates_moves_nothing_else() {
    let s = Sandbox::new();
    s.commit(&[("app/main.tf", MAIN)], "app");
    let over = "resource \"aws_instance\" \"web\" {\n  root_block_device {\n    volume_size = 16\n  }\n}\n";
    s.stage(&[("app/override.tf", over)]);
    let run = s.run(&["diff", "--color", "never"]);
    assert_eq!(run.code, 0, "{}", run.shown());
    let out = run.out();
    let removed: Vec<&str> =
        out.lines().filter(|l| l.starts_with('-') && !l.starts_with("---")).collect();
    let added: Vec<&str> =
        out.lines().filter(|l| l.starts_with('+') && !l.starts_with("+++")).collect();
    assert!(
        removed
            .iter()
            .chain(&added)
            .all(|l| !l.contains("metadata_options") && !l.contains("http_tokens")),
        "a block the override does not touch shows as moved:\n{out}"
    );
    assert!(removed.iter().any(|l| l.contains("volume_size = 8")), "{out}");
    assert!(
        added.iter().any(|l| l.contains("volume_size = 16") && l.contains("# ← override.tf:3")),
        "{out}"
    );
}

#[test]
fn the_markdown_review_says_what_each_commit_of_a_history_did() {
    let s = Sandbox::new();
    review_history(&s);

    // An override file added: a backend swap and a value changed, with where each was.
    let (code, md) = markdown_of(&s, "HEAD~3");
    assert_eq!(code, 1, "{md}");
    assert!(md.starts_with("<!-- override-guard review -->\n## override-guard review\n\n❌ **Not safe to merge under the policy**"), "{md}");
    assert!(md.contains("### <code>examples/network</code> · 2 values changed by <code>backend_override.tf</code> · judged by Terraform 1.15.5\n"), "{md}");
    assert!(md.contains("| <code>resource.aws_vpc.main.enable_dns_hostnames</code> | <code>true</code> · [examples/network/main.tf:12](https://example.com/o/r/blob/BEFORE/examples/network/main.tf#L12) | <code>false</code> · [examples/network/backend_override.tf:8](https://example.com/o/r/blob/AFTER/examples/network/backend_override.tf#L8) |"), "{md}");
    assert!(md.contains("<code>&quot;/tmp/state &#124; &lt;script&gt;alert(1)&lt;/script&gt; &#96;x&#96;&quot;</code>"), "{md}");
    assert!(md.contains("🛑 **error** `backend-swap` [examples/network/backend_override.tf:2](https://example.com/o/r/blob/AFTER/examples/network/backend_override.tf#L2)"), "{md}");
    assert!(md.contains("<details><summary>Effective configuration diff</summary>\n\n```diff\n--- HEAD~3~1:examples/network\n"), "{md}");

    // An override changed: the new value, and a variable made sensitive shows no value
    // on either side, in the table or in the diff.
    let (code, md) = markdown_of(&s, "HEAD~2");
    assert_eq!(code, 0, "{md}");
    assert!(
        md.contains("⚠️ **Safe to merge under the policy**, with 1 warning introduced."),
        "{md}"
    );
    assert!(
        md.contains("### <code>examples/app</code> · 3 values changed by <code>override.tf</code>"),
        "{md}"
    );
    assert!(md.contains("| <code>resource.aws_instance.web.instance_type</code> | <code>&quot;m6i.large&quot;</code>"), "{md}");
    assert!(
        md.contains(
            "| <code>variable.ami_id.default</code> | *(sensitive)* · [examples/app/variables.tf:4]"
        ),
        "{md}"
    );
    assert!(!md.contains("ami-secret") && !md.contains("ami-0a1b2c3d4e5f67890"), "{md}");
    assert!(md.contains("+  default     = (sensitive) # ← override.tf:17\n"), "{md}");

    // An original deleted: the override's module call has no base any more.
    let (code, md) = markdown_of(&s, "HEAD~1");
    assert_eq!(code, 1, "{md}");
    assert!(md.contains("### <code>examples/app</code> · now rejected by Terraform: <code>Missing module call to override: There is no module call named &quot;logs_bucket&quot;."), "{md}");
    assert!(!md.contains("<details>"), "a rejected module's diff removes every line:\n{md}");

    // An override aimed at a resource that is not there.
    let (code, md) = markdown_of(&s, "HEAD");
    assert_eq!(code, 1, "{md}");
    assert!(md.contains("### <code>examples/network</code> · now rejected by Terraform: <code>Missing resource to override:"), "{md}");
    assert!(md.contains("**Findings resolved (2)**"), "{md}");
}

#[test]
fn a_markdown_review_longer_than_the_limit_lists_the_modules_it_leaves_out() {
    let s = Sandbox::new();
    review_history(&s);
    let run = s.run(&["diff", "HEAD~4", "HEAD~2", "--format", "markdown", "--max-chars", "3000"]);
    let md = run.out();
    assert!(md.chars().count() <= 3000, "{}", md.chars().count());
    assert!(md.contains("not shown to fit the comment limit"), "{md}");
    assert_eq!(
        md.matches("| Value | Before | After |").count(),
        md.matches("\n### ").count(),
        "{md}"
    );
}

#[test]
fn a_push_comment_says_what_its_commits_introduce() {
    let s = Sandbox::new();
    review_history(&s);
    let check = |from: &str, to: &str, new_only: bool| {
        let mut args = vec!["check", "--from-ref", from, "--to-ref", to, "--format", "markdown"];
        args.extend(["--link-base", "https://example.com/o/r/blob/AFTER"]);
        if new_only {
            args.push("--new-only");
        }
        let run = s.run(&args);
        (run.code, run.out())
    };

    // The commit that adds a backend swap: its errors, in the one module it touches,
    // linked; nothing of the modules it leaves alone (envs/dev swaps its backend too).
    let (code, md) = check("HEAD~4", "HEAD~3", true);
    assert_eq!(code, 1, "{md}");
    assert!(md.starts_with("<!-- override-guard review -->\n## override-guard\n\n❌ **Not safe to merge under the policy**: <code>HEAD&#126;4</code> → <code>HEAD&#126;3</code> introduces 3 errors. 1 module judged.\n"), "{md}");
    assert!(md.contains("### <code>examples/network</code> · 3 errors, 1 warning\n"), "{md}");
    assert!(md.contains("- 🛑 **error** `backend-swap` [examples/network/backend_override.tf:2](https://example.com/o/r/blob/AFTER/examples/network/backend_override.tf#L2): "), "{md}");
    assert!(!md.contains("envs/dev"), "{md}");

    // The commit that changes the override: only the warning it adds; without
    // --new-only, the findings of the module it touches, counted.
    let (code, md) = check("HEAD~3", "HEAD~2", true);
    assert_eq!(code, 0, "{md}");
    assert!(
        md.contains(
            "⚠️ **Safe to merge under the policy**, with 1 warning introduced. 1 module judged.\n"
        ),
        "{md}"
    );
    assert_eq!(md.matches("\n- ").count(), 1, "{md}");
    let (_, all) = check("HEAD~3", "HEAD~2", false);
    assert!(
        all.contains(
            "in the 1 module that <code>HEAD&#126;3</code> → <code>HEAD&#126;2</code> touches.\n"
        ),
        "{all}"
    );
    assert!(
        all.starts_with("<!-- override-guard review -->\n## override-guard\n\n⚠️ **1 warning** in"),
        "{all}"
    );
}

#[test]
fn the_bitbucket_review_has_no_html_and_keeps_values_in_their_code_spans() {
    let s = Sandbox::new();
    review_history(&s);
    let run = s.run(&["diff", "HEAD~4", "HEAD~3", "--format", "markdown", "--flavor", "bitbucket"]);
    let md = run.out();
    assert!(md.starts_with("[//]: # (override-guard review)\n## override-guard review\n"), "{md}");
    assert!(md.contains("\n- `terraform.backend[0].local.path`: — → ``\"/tmp/state | <script>alert(1)</script> `x`\"`` · examples/network/backend_override.tf:3\n"), "{md}");
    assert!(
        !md.contains("<details>") && !md.contains("<code>") && !md.contains("| Value |"),
        "{md}"
    );
}

#[test]
fn a_comment_option_without_the_markdown_format_is_refused_not_ignored() {
    let s = Sandbox::new();
    s.commit(&[("app/main.tf", MAIN)], "app");
    for args in [
        &["diff", "--link-base", "https://example.com/blob/1"][..],
        &["diff", "--format", "json", "--link-base-before", "https://example.com/blob/0"],
        &["check", "--new-only", "--flavor", "bitbucket"],
        &["audit", "--format", "sarif", "--max-chars", "1000", "app"],
    ] {
        let run = s.run(args);
        assert_eq!(run.code, 2, "{args:?}: {}", run.shown());
        let flag =
            args.iter().find(|a| a.starts_with("--") && *a != &"--format" && *a != &"--new-only");
        let said = format!("{} is read only with --format markdown", flag.expect("a flag"));
        assert!(run.err().contains(&said), "{args:?}: {}", run.shown());
        assert!(run.stdout.is_empty(), "{args:?}: {}", run.shown());
    }
    let run = s.run(&["audit", "--format", "markdown", "--max-chars", "1000", "app"]);
    assert_eq!(run.code, 0, "{}", run.shown());
}

/// The repository's root module is `.` in the review's title, and a merge error names the
/// block it is about (the engine's detail after its summary) in every format of a line.
#[test]
fn a_root_module_rejected_is_named_and_its_merge_error_says_which_block() {
    let s = Sandbox::new();
    s.commit(&[("main.tf", MAIN)], "root");
    s.stage(&[("override.tf", "resource \"aws_instance\" \"other\" {\n}\n")]);
    let detail = "Missing resource to override: There is no aws_instance resource named \"other\".";
    let run = s.run(&["diff", "--color", "never"]);
    assert_eq!(run.code, 1, "{}", run.shown());
    assert!(run.out().starts_with("module . (now rejected by Terraform)\n"), "{}", run.shown());
    let run = s.run(&["diff", "--format", "markdown"]);
    let line = run.out().lines().find(|l| l.contains("`merge-error`")).map(str::to_string);
    assert!(line.as_deref().is_some_and(|l| l.contains(detail)), "{}", run.shown());
    let run = s.run(&["check", "--format", "markdown", "--flavor", "bitbucket"]);
    assert!(run.out().contains("There is no aws_instance resource named"), "{}", run.shown());
    let run = s.run(&["check", "--format", "compact"]);
    assert!(run.out().contains(detail), "{}", run.shown());
}
