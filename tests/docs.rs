//! The docs cannot drift from the code: README.md stays short enough to read in minutes,
//! every relative link of README.md and `docs/*.md` leads to a file (and a heading) that
//! exists, and every command transcript in them is run.
//!
//! A transcript is a fenced block (`console`, `text`, `sh`…) with a `$ ` prompt line. The
//! HTML comment on the line above it says who runs it:
//!
//! - `<!-- run: NAME -->`: this file does. `tests/transcripts/NAME.sh` prepares a fresh
//!   temporary directory (most make a git repository holding a copy of `examples/`), then
//!   each `$ ` line runs there, in one shell (a `cd` or a `git add` carries over to the next
//!   line), with `override-guard` (and `cargo run --release --`) the binary under test.
//!   What it prints, stdout and stderr together, must be the lines below the prompt; a
//!   line `…` stands for any number of lines, and trailing blanks are not compared.
//! - `<!-- tested by tests/FILE.rs: FN -->`: the test `FN` of that file does (it must exist
//!   and read this page), for a transcript that needs what the shell cannot give (a
//!   temporary path in the output, say).
//!
//! A transcript with neither fails the test, naming its page and line.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use crate::util::{doc_pages, hermetic};

/// How long the README may be: what it is, how to install and adopt it, where it runs;
/// the reference is in `docs/`.
const README_LINES: usize = 500;

#[test]
fn the_readme_is_at_most_500_lines() {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README.md");
    let n = readme.lines().count();
    assert!(n <= README_LINES, "README.md has {n} lines; move reference text into docs/");
}

/// A fenced block of a page: where it opens (1-based), its info string, its lines (the
/// fence's indentation taken off) and the HTML comment on the line above it, if any.
struct Block {
    page: String,
    line: usize,
    lang: String,
    lines: Vec<String>,
    marker: Option<String>,
}

fn blocks(page: &str, text: &str) -> Vec<Block> {
    let mut out = vec![];
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let trimmed = lines[i].trim_start();
        if let Some(info) = trimmed.strip_prefix("```") {
            let indent = lines[i].len() - trimmed.len();
            let marker = lines[..i]
                .iter()
                .rev()
                .find(|l| !l.trim().is_empty())
                .map(|l| l.trim())
                .filter(|l| l.starts_with("<!--") && l.ends_with("-->"))
                .map(|l| l.trim_start_matches("<!--").trim_end_matches("-->").trim().to_string());
            let open = i;
            let mut body = vec![];
            i += 1;
            while i < lines.len() && lines[i].trim() != "```" {
                let l = lines[i];
                let cut = l.len() - l.trim_start().len();
                body.push(l[cut.min(indent)..].to_string());
                i += 1;
            }
            out.push(Block {
                page: page.to_string(),
                line: open + 1,
                lang: info.trim().to_string(),
                lines: body,
                marker,
            });
        }
        i += 1;
    }
    out
}

/// Prose with fenced blocks and inline code taken out: what links are read from.
fn prose(text: &str) -> String {
    let mut out = String::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            out.push('\n');
            continue;
        }
        if !fenced {
            // Inline code spans: every other backtick-delimited piece.
            let kept: String = line
                .split('`')
                .enumerate()
                .filter(|(n, _)| n % 2 == 0)
                .map(|(_, s)| s)
                .collect::<Vec<_>>()
                .join(" ");
            out.push_str(&kept);
        }
        out.push('\n');
    }
    out
}

/// The anchors GitHub gives a page's headings: lower case, punctuation but `-` and `_`
/// dropped, spaces as `-`, a repeated one numbered `-1`, `-2`…
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = BTreeSet::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        if fenced || !line.starts_with('#') {
            continue;
        }
        let heading = line.trim_start_matches('#');
        if !heading.starts_with(' ') {
            continue;
        }
        let slug: String = heading
            .trim()
            .chars()
            .filter_map(|c| match c {
                ' ' => Some('-'),
                '-' | '_' => Some(c),
                c if c.is_alphanumeric() => Some(c.to_lowercase().next().unwrap_or(c)),
                _ => None,
            })
            .collect();
        let n = seen.entry(slug.clone()).or_default();
        out.insert(if *n == 0 { slug.clone() } else { format!("{slug}-{n}") });
        *n += 1;
    }
    out
}

/// Every relative link (`[text](target)`, `![alt](target)`) of README.md and `docs/*.md`
/// names a file or directory that exists, and its `#anchor`, a heading of that page.
#[test]
fn every_relative_link_of_the_docs_resolves() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut broken = vec![];
    let mut checked = 0;
    for (page, text) in doc_pages() {
        let dir = Path::new(&page).parent().unwrap_or(Path::new(""));
        let prose = prose(&text);
        for (at, _) in prose.match_indices("](") {
            let rest = &prose[at + 2..];
            let Some(end) = rest.find(')') else { continue };
            let target = rest[..end].split_whitespace().next().unwrap_or_default();
            if target.is_empty() || target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            checked += 1;
            let (file, anchor) = target.split_once('#').unwrap_or((target, ""));
            let path = if file.is_empty() { root.join(&page) } else { root.join(dir).join(file) };
            if !path.exists() {
                broken.push(format!("{page}: {target}: no such file"));
                continue;
            }
            if !anchor.is_empty() {
                let linked = std::fs::read_to_string(&path).unwrap_or_default();
                if !anchors(&linked).contains(anchor) {
                    broken.push(format!("{page}: {target}: no such heading"));
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
    assert!(checked > 40, "only {checked} links were found: is the link reader broken?");
}

/// The slug reader agrees with GitHub on the headings these pages link to.
#[test]
fn anchors_are_githubs() {
    let got = anchors(
        "# A\n## `show DIR`: the effective configuration\n## Install, completions, manual pages\n\
         ```\n# not a heading\n```\n## In CI\n## In CI\n",
    );
    let want = [
        "a",
        "show-dir-the-effective-configuration",
        "install-completions-manual-pages",
        "in-ci",
        "in-ci-1",
    ];
    assert_eq!(got, want.iter().map(|s| s.to_string()).collect());
}

fn is_transcript(b: &Block) -> bool {
    matches!(b.lang.as_str(), "" | "console" | "text" | "sh" | "shell" | "bash")
        && b.lines.iter().any(|l| l.starts_with("$ "))
}

/// Whether `want` (with `…` lines standing for any number of lines) is `got`.
fn matches(want: &[&str], got: &[&str]) -> bool {
    match want.split_first() {
        None => got.is_empty(),
        Some((w, rest)) if w.trim() == "…" => (0..=got.len()).any(|n| matches(rest, &got[n..])),
        Some((w, rest)) => {
            got.first().is_some_and(|g| g.trim_end() == w.trim_end()) && matches(rest, &got[1..])
        }
    }
}

fn trim_blank_end(mut lines: Vec<&str>) -> Vec<&str> {
    while lines.last().is_some_and(|l| l.trim().is_empty()) {
        lines.pop();
    }
    lines
}

/// The record separator the script prints between two commands' output.
const SEPARATOR: &str = "\u{1e}\n";

/// Runs a `run:` transcript; `Err` says where and how it differs.
fn run_transcript(b: &Block, setup: &str) -> Result<(), String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let here = format!("{}:{}", b.page, b.line);
    let scripts = root.join("tests/transcripts");
    if !scripts.join(format!("{setup}.sh")).is_file() {
        return Err(format!("{here}: no tests/transcripts/{setup}.sh"));
    }
    // Each command and the lines it should print.
    let mut steps: Vec<(String, Vec<&str>)> = vec![];
    for l in &b.lines {
        if let Some(cmd) = l.strip_prefix("$ ") {
            steps.push((cmd.to_string(), vec![]));
        } else if let Some((_, out)) = steps.last_mut() {
            out.push(l);
        } else {
            return Err(format!("{here}: output before the first `$ ` line"));
        }
    }
    let tmp = tempfile::tempdir().expect("tempdir");
    for d in ["home", "work", "bin"] {
        std::fs::create_dir(tmp.path().join(d)).expect("mkdir");
    }
    std::os::unix::fs::symlink(
        env!("CARGO_BIN_EXE_override-guard"),
        tmp.path().join("bin/override-guard"),
    )
    .expect("link the binary");
    let mut script = String::from("set -e\n. \"$OG_TRANSCRIPTS/lib.sh\"\n");
    script.push_str(&format!(
        ". \"$OG_TRANSCRIPTS/{setup}.sh\" >../setup.log 2>&1\nset +e\nexec 2>&1\n"
    ));
    for (n, (cmd, _)) in steps.iter().enumerate() {
        if n > 0 {
            script.push_str("__og_status=$?\n");
        }
        script.push_str("printf '\\036\\n'\n");
        if n > 0 {
            script.push_str("(exit $__og_status)\n");
        }
        script.push_str(&cmd.replace("cargo run --release -- ", "override-guard "));
        script.push('\n');
    }
    let mut sh = Command::new("sh");
    hermetic(&mut sh, &tmp.path().join("home"));
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs = vec![tmp.path().join("bin")];
    dirs.extend(std::env::split_paths(&path));
    let out = sh
        .args(["-c", &script])
        .current_dir(tmp.path().join("work"))
        .env("PATH", std::env::join_paths(dirs).expect("PATH"))
        .env("OG_EXAMPLES", root.join("examples"))
        .env("OG_TRANSCRIPTS", &scripts)
        .output()
        .expect("sh runs");
    let printed = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut parts = printed.split(SEPARATOR);
    let before = parts.next().unwrap_or_default();
    let parts: Vec<&str> = parts.collect();
    if parts.len() != steps.len() || !before.is_empty() {
        let log = std::fs::read_to_string(tmp.path().join("setup.log")).unwrap_or_default();
        return Err(format!("{here}: the setup {setup} failed:\n{log}{printed}"));
    }
    for ((cmd, want), got) in steps.iter().zip(parts) {
        let want = trim_blank_end(want.clone());
        let got = trim_blank_end(got.lines().collect());
        if !matches(&want, &got) {
            return Err(format!(
                "{here}: `$ {cmd}` printed\n{}\n---- where the page shows\n{}",
                got.join("\n"),
                want.join("\n")
            ));
        }
    }
    Ok(())
}

/// A `tested by` transcript: the test named exists and reads this page.
fn tested_by(b: &Block, by: &str) -> Result<(), String> {
    let here = format!("{}:{}", b.page, b.line);
    let Some((file, name)) = by.split_once(": ") else {
        return Err(format!("{here}: `tested by FILE: TEST`, not `{by}`"));
    };
    let code = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(file))
        .map_err(|e| format!("{here}: {file}: {e}"))?;
    let Some(at) = code.find(&format!("fn {name}(")) else {
        return Err(format!("{here}: {file} has no test {name}"));
    };
    let body = &code[at..];
    let body = &body[..body[1..].find("\nfn ").map_or(body.len(), |n| n + 1)];
    let first = b.lines.iter().find(|l| l.starts_with("$ ")).expect("a prompt");
    let page = Path::new(&b.page).file_name().and_then(|n| n.to_str()).unwrap_or_default();
    if !body.contains(page) || !body.contains(first.as_str()) {
        return Err(format!("{here}: {file}'s {name} does not read {page} for `{first}`"));
    }
    Ok(())
}

/// Every transcript of README.md and `docs/*.md` is run, by this test or the one its
/// marker names; one that no test runs fails it.
#[test]
fn every_transcript_of_the_docs_is_run() {
    let all: Vec<Block> = doc_pages()
        .iter()
        .flat_map(|(page, text)| blocks(page, text))
        .filter(is_transcript)
        .collect();
    assert!(all.len() >= 15, "only {} transcripts were found", all.len());
    let failures: Vec<String> = std::thread::scope(|scope| {
        let runs: Vec<_> = all
            .iter()
            .map(|b| {
                scope.spawn(move || match b.marker.as_deref() {
                    Some(m) if m.starts_with("run: ") => run_transcript(b, &m[5..]),
                    Some(m) if m.starts_with("tested by ") => tested_by(b, &m[10..]),
                    _ => Err(format!(
                        "{}:{}: a transcript that no test runs (`<!-- run: SETUP -->` or \
                         `<!-- tested by tests/FILE.rs: TEST -->` on the line above it)",
                        b.page, b.line
                    )),
                })
            })
            .collect();
        runs.into_iter().filter_map(|r| r.join().expect("no panic").err()).collect()
    });
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Every test SECURITY.md names beside a promise exists (a `fn` of that name in `tests/`
/// or `src/`), so the page cannot keep a promise with a test that was renamed or removed.
#[test]
fn every_test_security_md_names_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let page = std::fs::read_to_string(root.join("SECURITY.md")).unwrap();
    let tested = &page[page.find("## How it is tested").expect("a section on the tests")..];
    let mut code = String::new();
    let mut stack = vec![root.join("tests"), root.join("src")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                code.push_str(&std::fs::read_to_string(&p).unwrap());
            }
        }
    }
    let mut named = 0;
    for quoted in tested.split('`').skip(1).step_by(2) {
        let is_name = quoted.contains('_')
            && quoted.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
        if is_name {
            named += 1;
            assert!(
                code.contains(&format!("fn {quoted}(")),
                "SECURITY.md names `{quoted}`, which no test is"
            );
        }
    }
    assert!(named >= 40, "the tests were not read: {named}");
}
