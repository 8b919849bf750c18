//! The comment recipes as a CI service runs them: the GitLab merge-request and push jobs,
//! the Bitbucket Pipelines pull-request and push steps and the Bitbucket Data Center
//! commands of docs/git-and-ci.md, and the GitHub Action's `diff` and `check` steps (action.yml),
//! each run by bash in a repository whose history adds an override file, with the
//! service's variables set and the hosts' API stood in for (`tests/review/forge_api.py`).
//! Only the install lines (`pip install`, `curl`) are left out: the binary under test and
//! the checkout's `action/post_review.py` take their place.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::review::{StandIn, comment};
use crate::util::{Sandbox, review_history};

const ME: &str = "github-actions[bot]";

/// The shell commands of a YAML `script:` list in the docs block holding `anchor`: each
/// item, its continuation lines folded into it as YAML folds a plain scalar.
fn recipe(anchor: &str) -> Vec<String> {
    let page = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/git-and-ci.md");
    let text = std::fs::read_to_string(page).expect("the page");
    let block = text
        .split("```yaml\n")
        .skip(1)
        .map(|b| b.split("\n```").next().unwrap_or_default())
        .find(|b| b.contains(anchor))
        .unwrap_or_else(|| panic!("docs/git-and-ci.md has no yaml block with {anchor}"));
    let indent = |l: &str| l.len() - l.trim_start().len();
    let mut lines = block.lines().skip_while(|l| l.trim() != "script:");
    let at = indent(lines.next().expect("a script: list"));
    let mut out: Vec<String> = Vec::new();
    for line in lines {
        if line.trim().is_empty() {
            continue;
        }
        if indent(line) <= at {
            break;
        }
        match line.trim().strip_prefix("- ") {
            Some(item) => out.push(item.to_string()),
            None => {
                let last = out.last_mut().expect("an item before its continuation");
                last.push(' ');
                last.push_str(line.trim());
            }
        }
    }
    out
}

/// The `run:` script of the Action's step `name`, dedented.
fn action_step(name: &str) -> String {
    let action = Path::new(env!("CARGO_MANIFEST_DIR")).join("action.yml");
    let text = std::fs::read_to_string(action).expect("action.yml");
    let step = text
        .split("\n    - name: ")
        .find(|s| s.starts_with(name))
        .unwrap_or_else(|| panic!("action.yml has no step {name}"));
    let run = step.split("      run: |\n").nth(1).expect("a run: script");
    run.lines()
        .take_while(|l| l.trim().is_empty() || l.starts_with("        "))
        .map(|l| l.get(8..).unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n")
}

/// bash running `script` in the repository with `env`, the binary under test first on
/// PATH; its exit code and output.
fn bash(s: &Sandbox, script: &str, env: &[(&str, String)]) -> (i32, String) {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_override-guard"));
    let path = format!(
        "{}:{}",
        bin.parent().expect("its directory").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut cmd = Command::new("bash");
    s.hermetic(&mut cmd);
    cmd.arg("-c").arg(script).current_dir(s.path("")).env("PATH", path);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("bash runs");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code().unwrap_or(-1), text)
}

/// The history of `review_history`, checked out at the commit that adds
/// `backend_override.tf`, with an `origin` whose branch `target` is the commit before.
fn pushed() -> (Sandbox, String, String) {
    let s = Sandbox::new();
    review_history(&s);
    let base = s.git(&["rev-parse", "HEAD~4"]).trim().to_string();
    let head = s.git(&["rev-parse", "HEAD~3"]).trim().to_string();
    let origin = s.beside("origin.git");
    let origin_s = origin.to_string_lossy().into_owned();
    s.git(&["clone", "-q", "--bare", ".", &origin_s]);
    s.git_in(&origin, &["update-ref", "refs/heads/target", &base]);
    s.git(&["remote", "add", "origin", &origin_s]);
    s.git(&["checkout", "-q", "--detach", &head]);
    let poster = Path::new(env!("CARGO_MANIFEST_DIR")).join("action/post_review.py");
    std::fs::copy(poster, s.path("post_review.py")).expect("the poster copied");
    (s, base, head)
}

/// The script of a recipe without its install lines, which it must have.
fn without_installs(lines: Vec<String>) -> String {
    let (installs, run): (Vec<String>, Vec<String>) =
        lines.into_iter().partition(|l| l.starts_with("pip install ") || l.starts_with("curl "));
    assert_eq!(installs.len(), 2, "the recipe installs the tool and fetches the poster");
    assert!(installs[1].ends_with("/action/post_review.py"), "{installs:?}");
    format!("set -e\n{}", run.join("\n"))
}

/// The comments the stand-in holds at the end, and the one the recipe posted.
fn posted(api: &StandIn) -> String {
    let state = api.state();
    assert_eq!(state.len(), 2, "one comment posted: {state:?}");
    assert_eq!(state[1]["user"]["login"], ME);
    state[1]["body"].as_str().expect("a body").to_string()
}

pub fn the_merge_request_and_pull_request_recipes_post_their_review() {
    let (s, base, head) = pushed();

    let api = StandIn::start(&s, &[comment(1, "alice", "lgtm?")]);
    let script = without_installs(recipe("CI_MERGE_REQUEST_IID"));
    let (code, out) = bash(
        &s,
        &script,
        &[
            ("CI_MERGE_REQUEST_DIFF_BASE_SHA", base.clone()),
            ("CI_COMMIT_SHA", head.clone()),
            ("CI_PROJECT_URL", "https://gitlab.example/o/r".into()),
            ("CI_PROJECT_ID", "o/r".into()),
            ("CI_MERGE_REQUEST_IID", "7".into()),
            ("CI_API_V4_URL", format!("{}/api/v4", api.url)),
            ("GITLAB_TOKEN", "t0ken".into()),
        ],
    );
    assert_eq!(code, 0, "{script}\n{out}");
    let body = posted(&api);
    assert!(body.starts_with("<!-- override-guard review -->\n## override-guard review\n\n❌ **Not safe to merge under the policy**"), "{body}");
    assert!(
        body.contains(&format!(
            "(https://gitlab.example/o/r/-/blob/{head}/examples/network/backend_override.tf#L8)"
        )),
        "{body}"
    );
    assert!(
        body.contains(&format!(
            "(https://gitlab.example/o/r/-/blob/{base}/examples/network/main.tf#L12)"
        )),
        "{body}"
    );

    let api = StandIn::start(&s, &[comment(1, "alice", "lgtm?")]);
    let script = without_installs(recipe("BITBUCKET_PR_ID"));
    let (code, out) = bash(
        &s,
        &script,
        &[
            ("BITBUCKET_PR_DESTINATION_BRANCH", "target".into()),
            ("BITBUCKET_GIT_HTTP_ORIGIN", "https://bitbucket.example/o/r".into()),
            ("BITBUCKET_COMMIT", head.clone()),
            ("BITBUCKET_REPO_FULL_NAME", "o/r".into()),
            ("BITBUCKET_PR_ID", "7".into()),
            ("BITBUCKET_API_URL", format!("{}/2.0", api.url)),
            ("BITBUCKET_TOKEN", "t0ken".into()),
        ],
    );
    assert_eq!(code, 0, "{script}\n{out}");
    let body = posted(&api);
    assert!(body.starts_with("[//]: # (override-guard review)\n## override-guard review\n\n❌ **Not safe to merge under the policy**"), "{body}");
    assert!(body.contains(&format!("(https://bitbucket.example/o/r/src/{head}/examples/network/backend_override.tf#lines-8)")), "{body}");
    assert!(
        body.contains(&format!(
            "(https://bitbucket.example/o/r/src/{base}/examples/network/main.tf#lines-12)"
        )),
        "{body}"
    );
    assert!(!body.contains("<code>") && !body.contains("<details>"), "{body}");
}

/// The variables the Action's steps read, as GitHub sets them for `command` on a runner
/// whose temporary directory, outputs and job summary are under the sandbox.
fn action_env(s: &Sandbox, command: &str, api: &StandIn) -> Vec<(&'static str, String)> {
    let temp = s.beside("runner-temp");
    std::fs::create_dir_all(&temp).expect("mkdir");
    let summary = s.beside("step-summary.md");
    std::fs::write(&summary, "").expect("an empty job summary");
    vec![
        ("COMMAND", command.to_string()),
        ("PATHS", ".".into()),
        ("ARGS", String::new()),
        ("SARIF", "false".into()),
        ("COMMENT", "true".into()),
        ("SUMMARY", "true".into()),
        ("FAIL", "true".into()),
        ("BASE_SHA", String::new()),
        ("BEFORE_SHA", String::new()),
        ("DEFAULT_BRANCH", "target".into()),
        ("SERVER_URL", "https://github.example".into()),
        ("GITHUB_REPOSITORY", "o/r".into()),
        ("GITHUB_OUTPUT", s.beside("github-output").display().to_string()),
        ("GITHUB_STEP_SUMMARY", summary.display().to_string()),
        ("RUNNER_TEMP", temp.display().to_string()),
        ("GITHUB_ACTION_PATH", env!("CARGO_MANIFEST_DIR").to_string()),
        ("GITHUB_API_URL", api.url.clone()),
        ("GITHUB_TOKEN", "t0ken".into()),
    ]
}

/// `env` with `name` set to `value`.
fn with(
    mut env: Vec<(&'static str, String)>,
    name: &'static str,
    value: &str,
) -> Vec<(&'static str, String)> {
    env.retain(|(k, _)| *k != name);
    env.push((name, value.to_string()));
    env
}

/// The job summary the steps wrote.
fn job_summary(s: &Sandbox) -> String {
    std::fs::read_to_string(s.beside("step-summary.md")).expect("the job summary")
}

pub fn the_actions_check_comments_what_a_push_adds_on_its_commit() {
    let (s, base, head) = pushed();
    let run = action_step("run override-guard");
    let post = action_step("comment what the push adds on its commit");
    // A push after `base`, and the first push of a new branch (GitHub's `before` is
    // zeros): both compare with the commit before the override file.
    for before in [base.clone(), "0".repeat(40)] {
        let api = StandIn::start(&s, &[comment(1, "alice", "nice")]);
        let env = with(action_env(&s, "check", &api), "BEFORE_SHA", &before);
        let (code, out) = bash(&s, &run, &env);
        assert_eq!(code, 1, "the push adds errors:\n{out}");
        assert!(out.contains("::error file=examples/network/backend_override.tf,line=2"), "{out}");
        assert!(!out.contains("envs/dev"), "a module the push leaves alone:\n{out}");
        let (code, out) = bash(&s, &post, &env);
        assert_eq!(code, 0, "{out}");
        assert!(out.starts_with("posted comment 2"), "{out}");
        let body = posted(&api);
        let short = |id: &str| id[..7].to_string();
        assert!(body.starts_with(&format!("<!-- override-guard review -->\n## override-guard\n\n❌ **Not safe to merge under the policy**: <code>{}</code> → <code>{}</code> introduces 3 errors. 1 module judged.\n", short(&base), short(&head))), "{before}:\n{body}");
        assert!(
            body.contains(&format!(
                "(https://github.example/o/r/blob/{head}/examples/network/backend_override.tf#L2)"
            )),
            "{body}"
        );
        assert_eq!(job_summary(&s), body, "the job summary holds what was posted");
    }
}

/// The Action's `diff` on a pull request: the review in the job summary and as the pull
/// request's comment; from a fork, whose token is read-only, in the job summary alone;
/// with `comment: false` and `summary: false`, nowhere.
pub fn the_actions_diff_reviews_a_pull_request_in_a_comment_and_the_job_summary() {
    let (s, base, head) = pushed();
    let run = action_step("run override-guard");
    let post = action_step("comment the review on the pull request");
    let api = StandIn::start(&s, &[comment(1, "alice", "lgtm?")]);
    let env = with(action_env(&s, "diff", &api), "BASE_SHA", &base);
    let env = with(with(with(env, "PR", "7"), "EVENT", "pull_request"), "HEAD_REPO", "o/r");
    let (code, out) = bash(&s, &run, &env);
    assert_eq!(code, 1, "the change introduces errors:\n{out}");
    assert!(out.contains("::error file=examples/network/backend_override.tf,line="), "{out}");
    let (code, out) = bash(&s, &post, &env);
    assert_eq!(code, 0, "{out}");
    let body = posted(&api);
    assert!(body.starts_with("<!-- override-guard review -->\n## override-guard review\n\n❌ **Not safe to merge under the policy**"), "{body}");
    assert!(
        body.contains(&format!(
            "(https://github.example/o/r/blob/{head}/examples/network/backend_override.tf#L8)"
        )),
        "{body}"
    );
    assert!(
        body.contains(&format!(
            "(https://github.example/o/r/blob/{base}/examples/network/main.tf#L12)"
        )),
        "{body}"
    );
    assert_eq!(job_summary(&s), body);

    let api = StandIn::start(&s, &[comment(1, "alice", "lgtm?")]);
    let fork = with(action_env(&s, "diff", &api), "BASE_SHA", &base);
    let fork = with(with(with(fork, "PR", "7"), "EVENT", "pull_request"), "HEAD_REPO", "someone/r");
    assert_eq!(bash(&s, &run, &fork).0, 1);
    let (code, out) = bash(&s, &post, &fork);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.starts_with("::notice::a pull request from a fork (someone/r) gets a read-only token"),
        "{out}"
    );
    assert_eq!(api.state().len(), 1, "posted from a fork");
    assert_eq!(job_summary(&s), body, "the fork's review is in the job summary");

    let quiet = with(with(fork, "COMMENT", "false"), "SUMMARY", "false");
    std::fs::remove_file(s.beside("runner-temp/override-guard-review.md")).expect("the review");
    std::fs::write(s.beside("step-summary.md"), "").expect("a new job's summary");
    assert_eq!(bash(&s, &run, &quiet).0, 1);
    assert!(!s.beside("runner-temp/override-guard-review.md").exists(), "a review made unasked");
    assert_eq!(job_summary(&s), "");

    // `audit` has no comment to post: asking for one is said, not silently dropped.
    let (_, out) = bash(&s, &run, &with(with(quiet, "COMMAND", "audit"), "COMMENT", "true"));
    assert!(out.contains("::warning::comment: true posts what diff"), "{out}");
}

pub fn the_gitlab_push_recipe_comments_what_a_push_adds_on_its_commit() {
    let (s, base, head) = pushed();
    let script = without_installs(recipe("CI_COMMIT_BEFORE_SHA"));
    for before in [base.clone(), "0".repeat(40)] {
        let api = StandIn::start(&s, &[comment(1, "alice", "nice")]);
        let (code, out) = bash(
            &s,
            &script,
            &[
                ("CI_COMMIT_BEFORE_SHA", before.clone()),
                ("CI_DEFAULT_BRANCH", "target".into()),
                ("CI_COMMIT_SHA", head.clone()),
                ("CI_PROJECT_URL", "https://gitlab.example/o/r".into()),
                ("CI_PROJECT_ID", "o/r".into()),
                ("CI_API_V4_URL", format!("{}/api/v4", api.url)),
                ("GITLAB_TOKEN", "t0ken".into()),
            ],
        );
        assert_eq!(code, 0, "{script}\n{out}");
        let body = posted(&api);
        assert!(body.starts_with(&format!("<!-- override-guard review -->\n## override-guard\n\n❌ **Not safe to merge under the policy**: <code>{}</code> → <code>{}</code> introduces 3 errors.", &base[..7], &head[..7])), "{before}:\n{body}");
        assert!(
            body.contains(&format!(
                "(https://gitlab.example/o/r/-/blob/{head}/examples/network/backend_override.tf#L2)"
            )),
            "{body}"
        );
    }
}

/// The shell block of docs/git-and-ci.md holding `anchor`, its placeholders for the
/// project and repository filled in as a user would.
fn shell_recipe(anchor: &str) -> String {
    let page = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/git-and-ci.md");
    let text = std::fs::read_to_string(page).expect("the page");
    let block = text
        .split("```sh\n")
        .skip(1)
        .map(|b| b.split("\n```").next().unwrap_or_default())
        .find(|b| b.contains(anchor))
        .unwrap_or_else(|| panic!("docs/git-and-ci.md has no sh block with {anchor}"));
    format!(
        "set -e\n{}",
        block
            .replace("KEY/REPO", "o/r")
            .replace("/projects/KEY/repos/REPO/", "/projects/o/repos/r/")
    )
}

pub fn the_bitbucket_data_center_recipe_posts_its_review() {
    let (s, base, head) = pushed();
    let api = StandIn::start(&s, &[comment(1, "alice", "lgtm?")]);
    let script = shell_recipe("bitbucket-server");
    assert!(!script.contains("KEY") && !script.contains("REPO"), "{script}");
    let (code, out) = bash(
        &s,
        &script,
        &[
            ("CHANGE_TARGET", "target".into()),
            ("CHANGE_ID", "7".into()),
            ("BITBUCKET_SERVER_URL", api.url.clone()),
            ("BITBUCKET_TOKEN", "t0ken".into()),
        ],
    );
    assert_eq!(code, 0, "{script}\n{out}");
    let body = posted(&api);
    let browse = format!("{}/projects/o/repos/r/browse", api.url);
    assert!(body.starts_with("[//]: # (override-guard review)\n## override-guard review\n\n❌ **Not safe to merge under the policy**"), "{body}");
    assert!(
        body.contains(&format!("({browse}/examples/network/backend_override.tf?at={head}#8)")),
        "{body}"
    );
    assert!(body.contains(&format!("({browse}/examples/network/main.tf?at={base}#12)")), "{body}");
}

/// The Bitbucket Pipelines push step: on a branch, from where it leaves `main`; on `main`
/// itself, from the commit's first parent; either way what the commit adds, on it.
pub fn the_bitbucket_push_recipe_comments_what_a_push_adds_on_its_commit() {
    let (s, base, head) = pushed();
    let script = without_installs(recipe("bitbucket-commit"));
    let origin = s.beside("origin.git");
    for main in [&base, &head] {
        s.git_in(&origin, &["update-ref", "refs/heads/main", main]);
        let api = StandIn::start(&s, &[comment(1, "alice", "nice")]);
        let (code, out) = bash(
            &s,
            &script,
            &[
                ("BITBUCKET_COMMIT", head.clone()),
                ("BITBUCKET_GIT_HTTP_ORIGIN", "https://bitbucket.example/o/r".into()),
                ("BITBUCKET_REPO_FULL_NAME", "o/r".into()),
                ("BITBUCKET_API_URL", format!("{}/2.0", api.url)),
                ("BITBUCKET_TOKEN", "t0ken".into()),
            ],
        );
        assert_eq!(code, 0, "{script}\n{out}");
        let body = posted(&api);
        let verdict = format!(
            "[//]: # (override-guard review)\n## override-guard\n\n❌ **Not safe to merge under the policy**: `{}` → `{}` introduces 3 errors.",
            &base[..7],
            &head[..7]
        );
        assert!(body.starts_with(&verdict), "main at {main}:\n{body}");
        assert!(
            body.contains(&format!(
                "(https://bitbucket.example/o/r/src/{head}/examples/network/backend_override.tf#lines-2)"
            )),
            "{body}"
        );
    }
}
