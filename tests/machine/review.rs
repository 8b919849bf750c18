//! The Markdown review as a pull request shows it: rendered by cmark-gfm (the renderer
//! GitHub's is built on, from PyPI, run by `tests/review/gfm.py`), the HTML of each
//! commit of a history has the tables, links and folded diffs it should, and what a
//! repository wrote stays text. The Python with cmarkgfm installed is named by
//! `OVERRIDE_GUARD_GFM_PYTHON` (`.ci/run` installs a pinned cmarkgfm into its venv and
//! sets it); without it the test is reported ignored. The page of the first commit is
//! left in `target/review/review.html`, which `docs/screenshot/review.sh` photographs.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::util::{Sandbox, markdown_of, review_history};

pub const PYTHON: &str = "OVERRIDE_GUARD_GFM_PYTHON";

/// `diff COMMIT~1 COMMIT --format markdown`, linked, rendered by cmark-gfm.
fn rendered(python: &std::ffi::OsStr, s: &Sandbox, commit: &str, page: bool) -> String {
    let (code, md) = markdown_of(s, commit);
    assert!(code <= 1, "diff failed: {md}");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/review/gfm.py");
    let mut cmd = Command::new(python);
    cmd.arg(script);
    if page {
        cmd.arg("--page");
    }
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python starts");
    child.stdin.take().expect("stdin").write_all(md.as_bytes()).expect("input written");
    let out = child.wait_with_output().expect("python ends");
    assert!(out.status.success(), "cmark-gfm failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("UTF-8 HTML")
}

pub fn cmark_gfm_renders_the_review_with_its_tables_links_and_folded_diffs() {
    let python = std::env::var_os(PYTHON).filter(|v| !v.is_empty()).unwrap_or_else(|| {
        panic!("{PYTHON}=path/to/python (with cmarkgfm installed) runs this test, as .ci/run does")
    });
    let s = Sandbox::new();
    review_history(&s);

    let html = rendered(&python, &s, "HEAD~3", false);
    assert!(html.contains("<h3><code>examples/network</code> · 2 values changed by <code>backend_override.tf</code>"), "{html}");
    assert_eq!(html.matches("<table>").count(), 1, "{html}");
    assert_eq!(html.matches("<tr>").count(), 3, "a header and two values:\n{html}");
    assert!(html.contains("<td><code>false</code> · <a href=\"https://example.com/o/r/blob/AFTER/examples/network/backend_override.tf#L8\">examples/network/backend_override.tf:8</a></td>"), "{html}");
    assert!(
        html.contains(
            "<a href=\"https://example.com/o/r/blob/BEFORE/examples/network/main.tf#L12\">"
        ),
        "{html}"
    );
    // The hostile value is one cell's text: its pipe split nothing, its tag is no tag.
    assert!(
        html.contains(
            "<code>&quot;/tmp/state | &lt;script&gt;alert(1)&lt;/script&gt; `x`&quot;</code>"
        ),
        "{html}"
    );
    assert!(!html.contains("<script"), "{html}");
    assert!(html.contains("<details><summary>Effective configuration diff</summary>\n<pre lang=\"diff\"><code>--- HEAD~3~1:examples/network\n"), "{html}");
    assert!(html.contains("</code></pre>\n</details>"), "{html}");
    assert!(!html.contains("<del>"), "a revision's ~ made strike-through:\n{html}");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/review");
    std::fs::create_dir_all(&dir).expect("mkdir");
    std::fs::write(dir.join("review.html"), rendered(&python, &s, "HEAD~3", true)).expect("write");

    // The sensitive value is nowhere, rendered or not.
    let html = rendered(&python, &s, "HEAD~2", false);
    assert!(html.contains("<td><em>(sensitive)</em> · <a href=\"https://example.com/o/r/blob/BEFORE/examples/app/variables.tf#L4\">"), "{html}");
    assert!(!html.contains("ami-secret") && !html.contains("ami-0a1b2c3d4e5f67890"), "{html}");

    // A rejected module: the engine's words, no table, no diff.
    let html = rendered(&python, &s, "HEAD", false);
    assert!(
        html.contains("now rejected by Terraform: <code>Missing resource to override:"),
        "{html}"
    );
    assert!(!html.contains("<table>") && !html.contains("<details>"), "{html}");
    assert!(html.contains("<strong>Findings resolved (2)</strong>"), "{html}");
}

/// `action/post_review.py` against a stand-in of GitHub's and GitLab's comment APIs
/// (`tests/review/forge_api.py`, real HTTP on loopback): it edits the comment holding
/// the last review, found by its marker across pages, not the last comment; one it may
/// not edit is left alone; without one it posts a new comment.
pub fn the_review_poster_edits_its_own_comment_found_by_its_marker() {
    for forge in ["github", "gitlab"] {
        poster_on(forge);
    }
}

fn poster_on(forge: &str) {
    let python = std::env::var_os(PYTHON)
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| panic!("{PYTHON}=path/to/python runs this test, as .ci/run does"));
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let s = Sandbox::empty();
    let marker = "<!-- override-guard review -->";
    let comment = |id: u64, login: &str, body: &str| serde_json::json!({"id": id, "user": {"login": login}, "body": body});
    let mut seed = vec![
        comment(1, "alice", "please look at the backend"),
        comment(2, "github-actions[bot]", &format!("{marker}\n## override-guard review\nold")),
    ];
    // Enough comments after it for two pages, the last of them another tool's, and a
    // reply that quotes the review (its marker too), which the token may not edit.
    for id in 3..=140 {
        seed.push(comment(id, "bob", "a reply"));
    }
    seed.push(comment(141, "carol", &format!("{marker}\nquoted")));
    seed.push(comment(142, "other-bot[bot]", "plan: 3 to change"));
    let post = |seed: &[serde_json::Value]| -> (String, Vec<serde_json::Value>) {
        let seed_path = s.beside("seed.json");
        std::fs::write(&seed_path, serde_json::to_vec(seed).expect("json")).expect("write");
        let mut api = Command::new(&python)
            .arg(root.join("tests/review/forge_api.py"))
            .arg(&seed_path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("the stand-in starts");
        let mut port = String::new();
        std::io::BufRead::read_line(
            &mut std::io::BufReader::new(api.stdout.as_mut().expect("stdout")),
            &mut port,
        )
        .expect("its port");
        let url = format!("http://127.0.0.1:{}", port.trim());
        let review = s.beside("review.md");
        std::fs::write(&review, format!("{marker}\n## override-guard review\nnew\n")).expect("w");
        let mut poster = Command::new(&python);
        poster.arg(root.join("action/post_review.py")).args([forge, "o/r", "7"]).arg(&review);
        match forge {
            "github" => poster.env("GITHUB_API_URL", &url).env("GITHUB_TOKEN", "t0ken"),
            _ => poster.env("CI_API_V4_URL", format!("{url}/api/v4")).env("GITLAB_TOKEN", "t0ken"),
        };
        let out = poster.output().expect("the poster runs");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let state = Command::new(&python)
            .args(["-c", "import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1]).read().decode())"])
            .arg(format!("{url}/state"))
            .output()
            .expect("state read");
        drop(api.stdin.take());
        api.wait().expect("the stand-in ends");
        let state: Vec<serde_json::Value> = serde_json::from_slice(&state.stdout).expect("state");
        (String::from_utf8_lossy(&out.stdout).trim().to_string(), state)
    };

    let (said, state) = post(&seed);
    assert_eq!(said, "edited comment 2", "{forge}");
    assert_eq!(state.len(), seed.len(), "a comment was added");
    assert_eq!(state[1]["body"], format!("{marker}\n## override-guard review\nnew\n"));
    assert_eq!(state[140]["body"], format!("{marker}\nquoted"), "another's comment was edited");
    assert_eq!(state[141]["body"], "plan: 3 to change");

    // No review yet: a new comment, at the end.
    seed.remove(1);
    let (said, state) = post(&seed);
    assert_eq!(said, "posted comment 143");
    assert_eq!(state.len(), seed.len() + 1);
    assert_eq!(state[seed.len()]["user"]["login"], "github-actions[bot]");
}
