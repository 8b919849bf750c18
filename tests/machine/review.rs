//! The Markdown review as a pull request shows it: rendered by cmark-gfm (the renderer
//! GitHub's is built on, from PyPI, run by `tests/review/render.py`), the HTML of each
//! commit of a history has the tables, links and folded diffs it should, and what a
//! repository wrote stays text; in Bitbucket's flavour, rendered by CommonMark with raw
//! HTML refused and by Python-Markdown, it needs no HTML at all. The Python with
//! cmarkgfm and Markdown installed is named by `OVERRIDE_GUARD_GFM_PYTHON` (`.ci/run`
//! installs pinned ones into its venv and sets it); without it the tests are reported
//! ignored. The page of the first commit is left in `target/review/review.html`, which
//! `docs/screenshot/review.sh` photographs.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::util::{Sandbox, markdown_in, markdown_of, review_history};

pub const PYTHON: &str = "OVERRIDE_GUARD_GFM_PYTHON";

/// `md` rendered to HTML by `renderer` (see `tests/review/render.py`).
fn render(python: &std::ffi::OsStr, renderer: &str, md: &str, page: bool) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/review/render.py");
    let mut cmd = Command::new(python);
    cmd.arg(script).arg(renderer);
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
    assert!(out.status.success(), "{renderer} failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("UTF-8 HTML")
}

/// `diff COMMIT~1 COMMIT --format markdown`, linked, rendered by cmark-gfm.
fn rendered(python: &std::ffi::OsStr, s: &Sandbox, commit: &str, page: bool) -> String {
    let (code, md) = markdown_of(s, commit);
    assert!(code <= 1, "diff failed: {md}");
    render(python, "cmark-gfm", &md, page)
}

pub fn python() -> std::ffi::OsString {
    std::env::var_os(PYTHON).filter(|v| !v.is_empty()).unwrap_or_else(|| {
        panic!("{PYTHON}=path/to/python (with cmarkgfm and Markdown installed) runs this test, as .ci/run does")
    })
}

pub fn cmark_gfm_renders_the_review_with_its_tables_links_and_folded_diffs() {
    let python = python();
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

/// Bitbucket's flavour, through a CommonMark renderer that refuses raw HTML and through
/// Python-Markdown with its HTML readers removed: no HTML was needed (nothing refused,
/// the marker unseen), the values are lists of code spans that hold a hostile value
/// whole, and the lines are linked; the push comment of `check --new-only` too.
pub fn bitbucket_renderers_show_the_review_with_no_html_in_it() {
    let python = python();
    let s = Sandbox::new();
    review_history(&s);
    let (code, md) = markdown_in(&s, "HEAD~3", "bitbucket");
    assert_eq!(code, 1, "{md}");
    let run = s.run(&[
        "check",
        "--new-only",
        "--from-ref",
        "HEAD~4",
        "--to-ref",
        "HEAD~3",
        "--format",
        "markdown",
        "--flavor",
        "bitbucket",
        "--link-base",
        "https://example.com/o/r/src/AFTER",
    ]);
    assert_eq!(run.code, 1, "{}", run.shown());
    let push = run.out();
    for renderer in ["cmark-gfm-safe", "python-markdown"] {
        let html = render(&python, renderer, &md, false);
        for absent in
            ["raw HTML omitted", "<script", "<details", "<table", "override-guard review)"]
        {
            assert!(!html.contains(absent), "{renderer}: {absent}\n{html}");
        }
        assert!(html.contains("<h3><code>examples/network</code> · 2 values changed by <code>backend_override.tf</code> · judged by Terraform 1.15.5</h3>"), "{renderer}\n{html}");
        assert!(html.contains("<li><code>resource.aws_vpc.main.enable_dns_hostnames</code>: <code>true</code> · <a href=\"https://example.com/o/r/blob/BEFORE/examples/network/main.tf#lines-12\">examples/network/main.tf:12</a> → <code>false</code> · <a href=\"https://example.com/o/r/blob/AFTER/examples/network/backend_override.tf#lines-8\">"), "{renderer}\n{html}");
        // The hostile value whole in its code span: its pipe, tag and backticks are text.
        assert!(
            html.contains("/tmp/state | &lt;script&gt;alert(1)&lt;/script&gt; `x`"),
            "{renderer}\n{html}"
        );
        assert!(
            html.contains("<p><code>HEAD~3~1</code> → <code>HEAD~3</code>: "),
            "{renderer}\n{html}"
        );
        assert!(
            html.contains("<strong>Effective configuration diff</strong>"),
            "{renderer}\n{html}"
        );

        let html = render(&python, renderer, &push, false);
        assert!(
            !html.contains("raw HTML omitted") && !html.contains("override-guard review)"),
            "{renderer}\n{html}"
        );
        assert!(
            html.contains("<h3><code>examples/network</code> · 3 errors, 1 warning</h3>"),
            "{renderer}\n{html}"
        );
        assert!(html.contains("<li>🛑 <strong>error</strong> <code>backend-swap</code> <a href=\"https://example.com/o/r/src/AFTER/examples/network/backend_override.tf#lines-2\">"), "{renderer}\n{html}");
    }
}

/// `action/post_review.py` against a stand-in of GitHub's (a pull request's comments
/// and a commit's), GitLab's (a merge request's notes and a commit's discussions) and
/// Bitbucket's (Cloud's pull requests and commits, and Data Center with its activities
/// and versions) comment APIs
/// (`tests/review/forge_api.py`, real HTTP on loopback): it edits the comment holding
/// the last review, found by its marker across pages, not the last comment; one it may
/// not edit is left alone; without one it posts a new comment.
pub fn the_review_poster_edits_its_own_comment_found_by_its_marker() {
    for forge in [
        "github",
        "github-commit",
        "gitlab",
        "gitlab-commit",
        "bitbucket",
        "bitbucket-commit",
        "bitbucket-server",
    ] {
        poster_on(forge);
    }
}

/// The stand-in of the hosts' APIs (`tests/review/forge_api.py`), serving `seed` until
/// dropped.
pub struct StandIn {
    child: std::process::Child,
    python: std::ffi::OsString,
    pub url: String,
}

impl StandIn {
    pub fn start(s: &Sandbox, seed: &[serde_json::Value]) -> StandIn {
        let python = python();
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let seed_path = s.beside("seed.json");
        std::fs::write(&seed_path, serde_json::to_vec(seed).expect("json")).expect("write");
        let mut child = Command::new(&python)
            .arg(root.join("tests/review/forge_api.py"))
            .arg(&seed_path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("the stand-in starts");
        let mut port = String::new();
        std::io::BufRead::read_line(
            &mut std::io::BufReader::new(child.stdout.as_mut().expect("stdout")),
            &mut port,
        )
        .expect("its port");
        let url = format!("http://127.0.0.1:{}", port.trim());
        StandIn { child, python, url }
    }

    /// The comments as they are now.
    pub fn state(&self) -> Vec<serde_json::Value> {
        let out = Command::new(&self.python)
            .args(["-c", "import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1]).read().decode())"])
            .arg(format!("{}/state", self.url))
            .output()
            .expect("state read");
        serde_json::from_slice(&out.stdout).expect("state")
    }
}

impl Drop for StandIn {
    fn drop(&mut self) {
        drop(self.child.stdin.take());
        let _ = self.child.wait();
    }
}

/// A comment as the stand-in holds it.
pub fn comment(id: u64, login: &str, body: &str) -> serde_json::Value {
    serde_json::json!({"id": id, "user": {"login": login}, "body": body})
}

fn poster_on(forge: &str) {
    let python = python();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let s = Sandbox::empty();
    let marker = match forge {
        "bitbucket" | "bitbucket-commit" | "bitbucket-server" => "[//]: # (override-guard review)",
        _ => "<!-- override-guard review -->",
    };
    let number = if forge.ends_with("-commit") { "abc123" } else { "7" };
    let mut seed = vec![
        comment(1, "alice", "please look at the backend"),
        comment(2, "github-actions[bot]", &format!("{marker}\n## override-guard review\nold")),
    ];
    // Edited twice before: Bitbucket Data Center takes an edit that names this version.
    seed[1]["version"] = 2.into();
    // Enough comments after it for two pages, the last of them another tool's, and a
    // reply that quotes the review (its marker too), which the token may not edit.
    for id in 3..=140 {
        seed.push(comment(id, "bob", "a reply"));
    }
    seed.push(comment(141, "carol", &format!("{marker}\nquoted")));
    seed.push(comment(142, "other-bot[bot]", "plan: 3 to change"));
    // The poster's run with the token `token` (none: unset): its exit code, its output
    // (stdout, or stderr when it failed), and the comments afterwards.
    let run = |seed: &[serde_json::Value], token: Option<&str>| {
        let api = StandIn::start(&s, seed);
        let url = &api.url;
        let review = s.beside("review.md");
        std::fs::write(&review, format!("{marker}\n## override-guard review\nnew\n")).expect("w");
        let mut poster = Command::new(&python);
        poster.arg(root.join("action/post_review.py")).args([forge, "o/r", number]).arg(&review);
        let var = match forge {
            "gitlab" | "gitlab-commit" => {
                poster.env("CI_API_V4_URL", format!("{url}/api/v4"));
                "GITLAB_TOKEN"
            }
            "bitbucket" | "bitbucket-commit" => {
                poster.env("BITBUCKET_API_URL", format!("{url}/2.0"));
                "BITBUCKET_TOKEN"
            }
            "bitbucket-server" => {
                poster.env("BITBUCKET_SERVER_URL", url);
                "BITBUCKET_TOKEN"
            }
            _ => {
                poster.env("GITHUB_API_URL", url);
                "GITHUB_TOKEN"
            }
        };
        match token {
            Some(t) => poster.env(var, t),
            None => poster.env_remove(var),
        };
        let out = poster.output().expect("the poster runs");
        let text = if out.status.success() { &out.stdout } else { &out.stderr };
        let text = String::from_utf8_lossy(text).trim().to_string();
        (out.status.code(), text, api.state())
    };
    let post = |seed: &[serde_json::Value]| -> (String, Vec<serde_json::Value>) {
        let (code, said, state) = run(seed, Some("t0ken"));
        assert_eq!(code, Some(0), "{said}");
        (said, state)
    };

    // A wrong token, and none: the host's words or the variable's name, no traceback,
    // nothing written.
    let (code, said, state) = run(&seed, Some("wrong"));
    assert_eq!(code, Some(1), "{said}");
    assert!(
        said.starts_with("post_review.py: 401 Unauthorized from http://127.0.0.1:")
            && said.ends_with("Bad credentials\"}"),
        "{forge}: {said}"
    );
    assert_eq!(state, seed, "{forge}");
    let (code, said, _) = run(&seed, None);
    assert_eq!(code, Some(1), "{said}");
    assert!(
        said.starts_with("post_review.py: ")
            && said.contains("_TOKEN is not set")
            && !said.contains("Traceback"),
        "{said}"
    );

    let (said, state) = post(&seed);
    assert_eq!(said, "edited comment 2", "{forge}");
    assert_eq!(state.len(), seed.len(), "a comment was added");
    assert_eq!(state[1]["body"], format!("{marker}\n## override-guard review\nnew\n"));
    assert_eq!(state[140]["body"], format!("{marker}\nquoted"), "another's comment was edited");
    assert_eq!(state[141]["body"], "plan: 3 to change");

    // The review on the second page: found there.
    let mut later = seed.clone();
    later[1] = comment(2, "github-actions[bot]", "an earlier note, no review");
    later[119] = comment(120, "github-actions[bot]", &format!("{marker}\nolder"));
    let (said, _) = post(&later);
    assert_eq!(said, "edited comment 120", "{forge}: the second page was not read");

    // No review yet: a new comment, at the end.
    seed.remove(1);
    let (said, state) = post(&seed);
    assert_eq!(said, "posted comment 143");
    assert_eq!(state.len(), seed.len() + 1);
    assert_eq!(state[seed.len()]["user"]["login"], "github-actions[bot]");
}
