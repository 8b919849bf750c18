//! Nothing is lost, nothing is written: every command and subcommand form, in success
//! and in failure, leaves the sandbox it runs in (the repository with its `.git` — index,
//! refs, objects, config, everything —, the worktree, a linked worktree, a bare clone and
//! the home directory) exactly as it was: the same paths, bytes, link targets,
//! permissions, modification times and inodes. `init` creates exactly the file it names
//! and changes nothing else; `fix` and `fold` write nothing when they show, check or
//! refuse (what they write is tested in `tests/fix.rs`).
//!
//! The table [`CASES`] drives it: adding a command is one line. Each fixture is built
//! once and every case of it runs against it, with a snapshot before and after each run.

use crate::texts::*;
use std::path::Path;

use crate::util::{Sandbox, Snapshot, bin, snapshot_tree, tree_changes};

/// A valid policy with an exception and a protected attribute.
const POLICY: &str = "[rules.protected-attribute]\nattributes = [\"resource.*.*.key_name\"]\n\n\
    [[exceptions]]\nrule = \"override-file\"\npaths = [\"db/override.tf\"]\nreason = \"sizing\"\n";
/// A root module with typed variables and variables files.
const APP_VARS: &str = "variable \"n\" {\n  type    = number\n  default = 1\n}\n\n\
    variable \"name\" {\n  type    = string\n  default = \"x\"\n}\n";

/// The states a repository can be in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fx {
    /// Commits, a tag, a branch, staged and unstaged changes, untracked files, an
    /// executable file, a symbolic link, an alternative index, a linked worktree next to
    /// the repository (`../wt`) and a bare clone (`../bare.git`).
    Busy,
    /// A malformed policy file, committed valid, broken in the index and the worktree.
    BadPolicy,
    /// `db/main.tf` does not parse (index and worktree).
    ParseError,
    /// `.git/index` is garbage.
    CorruptIndex,
    /// The blob of `db/main.tf` (in HEAD and the index) is gone from the object store.
    MissingObject,
    /// A merge stopped on a conflict in `db/main.tf`.
    Unmerged,
    /// A variables file gives a number variable a string (`vars` rejects it).
    BadVars,
    /// A plain directory, no git repository.
    NoGit,
}

/// One run: in the fixture `fx`, from `dir` (relative to the repository), `args`, with
/// `env`, must exit `code`; `creates`: the one file it may create (repository-relative).
#[derive(Clone, Copy, Debug)]
struct Case {
    fx: Fx,
    dir: &'static str,
    args: &'static [&'static str],
    code: i32,
    env: &'static [(&'static str, &'static str)],
    creates: Option<&'static str>,
    /// What the binary reads on stdin, made for the sandbox's root (the language server).
    input: Option<fn(&Path) -> Vec<u8>>,
}

const fn run(fx: Fx, args: &'static [&'static str], code: i32) -> Case {
    Case { fx, dir: ".", args, code, env: &[], creates: None, input: None }
}

impl Case {
    const fn in_dir(self, dir: &'static str) -> Case {
        Case { dir, ..self }
    }
    const fn env(self, env: &'static [(&'static str, &'static str)]) -> Case {
        Case { env, ..self }
    }
    const fn creates(self, path: &'static str) -> Case {
        Case { creates: Some(path), ..self }
    }
    const fn input(self, input: fn(&Path) -> Vec<u8>) -> Case {
        Case { input: Some(input), ..self }
    }
}

use Fx::*;

/// Every command form, in success and failure. One line per run.
const CASES: &[Case] = &[
    // show: worktree, index, revisions, every format; a bad revision, no module, no dir.
    run(Busy, &["show", "db", "--color", "never"], 0),
    run(Busy, &["show", "db", "--color", "always"], 0),
    run(Busy, &["show", "db", "--format", "tf-json"], 0),
    run(Busy, &["show", "db", "--format", "json"], 0),
    run(Busy, &["show", "db", "--engine", "opentofu"], 0),
    run(Busy, &["show", "--staged", "db"], 0),
    run(Busy, &["show", "--rev", "HEAD~1", "db", "--format", "json"], 0),
    run(Busy, &["show", "--rev", "v1", "db"], 0),
    run(Busy, &["show", "--staged"], 0).in_dir("db"),
    run(Busy, &["show", "--rev", "no-such-rev", "db"], 2),
    run(Busy, &["show", "--staged", "--rev", "HEAD", "db"], 2),
    run(Busy, &["show", "scripts"], 2),
    run(Busy, &["show", "does/not/exist"], 2),
    run(Busy, &["show", "--rev", "HEAD", "db"], 0).in_dir("../bare.git"),
    // audit: worktree, index, revisions, every format, every policy option.
    run(Busy, &["audit"], 0),
    run(Busy, &["audit", "--format", "human", "--color", "never"], 0),
    run(Busy, &["audit", "--format", "human", "--color", "always"], 0),
    run(Busy, &["audit", "--format", "json"], 0),
    run(Busy, &["audit", "--format", "sarif"], 0),
    run(Busy, &["audit", "--format", "github"], 0),
    run(Busy, &["audit", "--deny", "override-file"], 0),
    run(Busy, &["audit", "--deny", "missing-override-comment"], 1),
    run(Busy, &["audit", "--deny-warnings"], 1),
    run(Busy, &["audit", "--allow", "missing-override-comment", "--warn", "backend-swap"], 0),
    run(Busy, &["audit", "--policy", "../policy.toml"], 1),
    run(Busy, &["audit", "--engine", "opentofu", "db"], 0),
    run(Busy, &["audit"], 0).in_dir("db"),
    run(Busy, &["audit", "--staged"], 1),
    run(Busy, &["audit", "--staged", "--format", "sarif"], 1),
    run(Busy, &["audit", "--rev", "HEAD"], 0),
    run(Busy, &["audit", "--rev", "feature", "--format", "json"], 1),
    run(Busy, &["audit", "--rev", "HEAD"], 0).in_dir("../bare.git"),
    run(Busy, &["audit", "--staged"], 2).in_dir("../bare.git"),
    run(Busy, &["audit"], 2).in_dir("../bare.git"),
    run(Busy, &["audit", "--rev", "no-such-rev"], 2),
    run(Busy, &["audit", "db", "net", "--format", "sarif"], 0),
    run(Busy, &["audit", "db", "no/such/dir"], 2),
    run(Busy, &["audit", ".", "--format", "github"], 0).in_dir("db"),
    run(Busy, &["audit", "--deny", "no-such-rule"], 2),
    run(Busy, &["audit", "--policy", "missing.toml"], 2),
    run(Busy, &["audit", "does/not/exist"], 2),
    run(Busy, &["audit", "--format", "bogus"], 2),
    // check: the hook, every form.
    run(Busy, &["check"], 1),
    run(Busy, &["check", "--new-only"], 1),
    run(Busy, &["check", "--format", "json"], 1),
    run(Busy, &["check", "--format", "sarif", "--color", "always"], 1),
    run(Busy, &["check", "--format", "github"], 1),
    run(Busy, &["check", "--allow", "weakened-safeguard"], 0),
    run(Busy, &["check", "db/main.tf", "net"], 1),
    run(Busy, &["check", "db/main.tf", "net", "README.md", "../outside.tf"], 2),
    run(Busy, &["check", "db/no-such-file.tf"], 2),
    run(Busy, &["check", "--policy", "../policy.toml"], 1),
    run(Busy, &["check"], 1).in_dir("db"),
    run(Busy, &["check"], 1).env(&[("GIT_INDEX_FILE", ".git/alt-index")]),
    run(Busy, &["check"], 0).env(&[("GIT_INDEX_FILE", ".git/no-such-index")]),
    run(Busy, &["check"], 1).in_dir("../wt"),
    run(Busy, &["check"], 2).in_dir("../bare.git"),
    run(Busy, &["check", "--deny", "no-such-rule"], 2),
    run(Busy, &["check", "--rev", "HEAD"], 2),
    run(Busy, &["check", "--from-ref", "HEAD~1", "--to-ref", "HEAD"], 0),
    run(Busy, &["check", "--from-ref", "HEAD~1", "--to-ref", "feature", "--new-only"], 1),
    run(Busy, &["check"], 0).env(&[("PRE_COMMIT_FROM_REF", "v1"), ("PRE_COMMIT_TO_REF", "HEAD")]),
    run(Busy, &["check", "--from-ref", "no-such-rev", "--to-ref", "HEAD"], 2),
    run(Busy, &["check", "--from-ref", "HEAD"], 2),
    // diff: every form of sides, every format.
    run(Busy, &["diff"], 1),
    run(Busy, &["diff", "--color", "always"], 1),
    run(Busy, &["diff", "--format", "json"], 1),
    run(Busy, &["diff", "--format", "compact"], 1),
    run(Busy, &["diff", "--format", "sarif"], 1),
    run(Busy, &["diff", "--format", "github"], 1),
    run(Busy, &["diff", "--worktree"], 0),
    run(Busy, &["diff", "HEAD"], 0),
    run(Busy, &["diff", "HEAD~1", "HEAD"], 0),
    run(Busy, &["diff", "HEAD~1..HEAD", "--format", "json"], 0),
    run(Busy, &["diff", "main...feature"], 1),
    run(Busy, &["diff", "feature.."], 0),
    run(Busy, &["diff", "--policy", "../policy.toml"], 1),
    run(Busy, &["diff"], 1).in_dir("db"),
    run(Busy, &["diff", "HEAD~1", "HEAD"], 0).in_dir("../bare.git"),
    run(Busy, &["diff"], 2).in_dir("../bare.git"),
    run(Busy, &["diff", "no-such-rev"], 2),
    run(Busy, &["diff", "main", "feature", "HEAD"], 2),
    run(Busy, &["diff", "--worktree", "HEAD"], 2),
    // vars: formats, flags, files; a type error, a missing file, no module.
    run(Busy, &["vars", "app"], 0),
    run(Busy, &["vars", "app", "--format", "json", "--show-sensitive"], 0),
    run(Busy, &["vars", "app", "--var", "n=3", "--var-file", "app/extra.tfvars"], 0),
    run(Busy, &["vars", "."], 0).in_dir("app").env(&[("TF_VAR_n", "7")]),
    run(Busy, &["vars", "app", "--var", "n=abc"], 2),
    run(Busy, &["vars", "app"], 0).env(&[("TF_VAR_n", "not-a-number")]),
    run(Busy, &["vars", "app", "--var-file", "app/a.auto.tfvars"], 0)
        .env(&[("TF_VAR_x", "$(touch x)")]),
    run(Busy, &["vars", "app", "--var", "undeclared=1"], 2),
    run(Busy, &["vars", "app", "--var-file", "missing.tfvars"], 2),
    run(Busy, &["vars", "scripts"], 2),
    run(Busy, &["vars", "does/not/exist"], 2),
    // init: never overwrites; writes exactly the one file it is asked for.
    run(Busy, &["init"], 2),
    run(Busy, &["init", "--stdout"], 0),
    run(Busy, &["init", "--path", "new.toml"], 0).creates("new.toml"),
    run(Busy, &["init"], 0).in_dir("net").creates("net/.override-guard.toml"),
    run(Busy, &["init", "--path", "db/main.tf"], 2),
    run(Busy, &["init", "--path", "docs/link"], 2),
    run(Busy, &["init", "--path", "no/such/dir/p.toml"], 2),
    // explain, and the command line itself.
    // fix and fold write only when asked, and only over content git holds: showing,
    // checking and refusing write nothing (their writes are tested in tests/fix.rs).
    run(Busy, &["fix", "--dry-run", "db"], 0),
    run(Busy, &["fix", "--dry-run"], 0).in_dir("db"),
    run(Busy, &["fix", "--check", "db"], 1),
    run(Busy, &["fix", "--check", "net"], 0),
    run(Busy, &["fix", "--dry-run", "--check", "db"], 2),
    run(Busy, &["fix", "does/not/exist"], 2),
    // flatten writes only under --out ({out}: a directory of the fixture's run, outside
    // the sandbox its snapshots cover); scan only in a temporary directory it removes; remap writes nothing.
    run(Busy, &["flatten", "--out", "{out}", "--force"], 0),
    run(Busy, &["flatten", "--out", "db"], 2),
    run(Busy, &["remap", "-", "--tree", "{out}"], 0)
        .input(|_| b"{\"version\": \"2.1.0\", \"runs\": []}".to_vec()),
    run(Busy, &["remap", "no-such.sarif", "--tree", "{out}"], 2),
    run(Busy, &["scan", "--", "sh", "-c", "echo '{\"runs\": []}' # {}"], 0),
    run(Busy, &["scan", "--", "true", "{}"], 2),
    run(Busy, &["fold", "--dry-run", "db/override.tf"], 0),
    run(Busy, &["fold", "db/override.tf"], 2),
    run(Busy, &["fold", "db/main.tf"], 1),
    run(Busy, &["fold", "db/no_override.tf"], 2),
    run(Busy, &["fold", "db"], 2),
    run(Busy, &["fold"], 2),
    run(Busy, &["lsp"], 0).input(lsp_session),
    run(Busy, &["lsp"], 2),
    run(BadPolicy, &["lsp"], 0).input(lsp_session),
    run(ParseError, &["lsp"], 0).input(lsp_session),
    run(CorruptIndex, &["lsp"], 0).input(lsp_session),
    run(NoGit, &["lsp"], 0).input(lsp_session),
    run(Busy, &["explain"], 0),
    run(Busy, &["explain", "backend-swap"], 0),
    run(Busy, &["explain", "backend-swp"], 2),
    run(Busy, &["completions", "bash"], 0),
    run(Busy, &["completions", "zsh"], 0),
    run(Busy, &["completions", "cmd"], 2),
    run(Busy, &["man"], 0),
    run(Busy, &["man", "check"], 0),
    run(Busy, &["man", "nope"], 2),
    run(Busy, &["--version"], 0),
    run(Busy, &["--help"], 0),
    run(Busy, &["audit", "--help"], 0),
    run(Busy, &["no-such-command"], 2),
    run(Busy, &[], 2),
    // A malformed policy: a finding of the audit and the hook (its modules not judged);
    // diff and --policy fail; show and vars do not read it.
    run(BadPolicy, &["audit"], 1),
    run(BadPolicy, &["audit", "--format", "json"], 1),
    run(BadPolicy, &["audit", "--staged"], 1),
    run(BadPolicy, &["audit", "--rev", "HEAD"], 0),
    run(BadPolicy, &["check"], 1),
    run(BadPolicy, &["check", "--new-only"], 1),
    run(BadPolicy, &["diff"], 2),
    run(BadPolicy, &["diff", "--worktree"], 2),
    run(BadPolicy, &["show", "db"], 0),
    run(BadPolicy, &["audit", "--policy", ".override-guard.toml"], 2),
    // A parse error in a .tf file.
    run(ParseError, &["show", "db"], 2),
    run(ParseError, &["show", "--staged", "db"], 2),
    run(ParseError, &["show", "--rev", "HEAD", "db"], 0),
    run(ParseError, &["vars", "db"], 2),
    run(ParseError, &["audit"], 1),
    run(ParseError, &["audit", "--staged", "--format", "json"], 1),
    run(ParseError, &["check"], 1),
    run(ParseError, &["check", "--new-only"], 1),
    run(ParseError, &["diff"], 1),
    run(ParseError, &["diff", "--worktree"], 0),
    // A corrupt index: whatever reads it fails; worktree and revisions are fine.
    run(CorruptIndex, &["check"], 2),
    run(CorruptIndex, &["check", "--new-only"], 2),
    run(CorruptIndex, &["diff"], 2),
    run(CorruptIndex, &["diff", "--worktree"], 2),
    run(CorruptIndex, &["audit", "--staged"], 2),
    run(CorruptIndex, &["show", "--staged", "db"], 2),
    run(CorruptIndex, &["audit"], 0),
    run(CorruptIndex, &["audit", "--rev", "HEAD"], 0),
    run(CorruptIndex, &["diff", "HEAD~1", "HEAD"], 0),
    // A missing object.
    run(MissingObject, &["audit", "--rev", "HEAD"], 2),
    run(MissingObject, &["show", "--rev", "HEAD", "db"], 2),
    run(MissingObject, &["audit", "--staged"], 2),
    run(MissingObject, &["show", "--staged", "db"], 2),
    run(MissingObject, &["check"], 2),
    run(MissingObject, &["check", "--new-only"], 2),
    run(MissingObject, &["diff"], 2),
    run(MissingObject, &["diff", "HEAD~1", "HEAD"], 2),
    run(MissingObject, &["diff", "HEAD"], 2),
    run(MissingObject, &["audit"], 0),
    // An unmerged index.
    run(Unmerged, &["check"], 2),
    run(Unmerged, &["check", "--new-only"], 2),
    run(Unmerged, &["diff"], 2),
    run(Unmerged, &["diff", "--worktree"], 2),
    run(Unmerged, &["audit", "--staged"], 2),
    run(Unmerged, &["show", "--staged", "db"], 2),
    run(Unmerged, &["audit", "--rev", "HEAD"], 0),
    // vars: a value Terraform rejects.
    run(BadVars, &["vars", "app"], 2),
    run(BadVars, &["vars", "app", "--format", "json"], 2),
    run(BadVars, &["vars", "app", "--var", "n=5"], 0),
    run(BadVars, &["audit"], 0),
    run(BadPolicy, &["fix", "--dry-run"], 2),
    run(ParseError, &["fix", "db"], 1),
    run(ParseError, &["fold", "db/override.tf"], 1),
    // No git at all.
    run(NoGit, &["check"], 2),
    run(NoGit, &["diff"], 2),
    run(NoGit, &["audit", "--staged"], 2),
    run(NoGit, &["show", "--rev", "HEAD", "db"], 2),
    run(NoGit, &["audit"], 0),
    run(NoGit, &["show", "db"], 0),
    run(NoGit, &["init", "--path", "p.toml"], 0).creates("p.toml"),
    run(NoGit, &["fix"], 2),
    run(NoGit, &["fold", "db/override.tf"], 2),
    run(NoGit, &["fold", "db/override.tf", "--dry-run"], 0),
];

/// Builds a fixture: a sandbox whose repository is in the state `fx` names.
fn build(fx: Fx) -> Sandbox {
    if fx == NoGit {
        let s = Sandbox::empty();
        s.write("db/main.tf", DB_MAIN);
        s.write("db/override.tf", HARMLESS);
        return s;
    }
    let s = Sandbox::new();
    s.commit(&[("db/main.tf", DB_MAIN), ("net/main.tf", "resource \"aws_vpc\" \"a\" {}\n")], "one");
    match fx {
        Busy => busy(&s),
        BadPolicy => {
            s.commit(&[(".override-guard.toml", POLICY), ("db/override.tf", HARMLESS)], "p");
            s.stage(&[(".override-guard.toml", "[rules.override-file]\nlevel = \"denyy\"\n")]);
            s.write(".override-guard.toml", "[rules]\nnot-a-rule = \"deny\"\n");
        }
        ParseError => {
            s.commit(&[("db/override.tf", HARMLESS)], "override");
            s.stage(&[("db/main.tf", "resource \"aws_db_instance\" {\n  x = \n}\n")]);
        }
        CorruptIndex => {
            s.commit(&[("db/override.tf", HARMLESS)], "override");
            std::fs::write(s.path(".git/index"), b"DIRC\0\0\0\x02garbage, not an index")
                .expect("write");
        }
        MissingObject => {
            s.commit(&[("db/override.tf", HARMLESS)], "override");
            s.stage(&[("db/override.tf", WEAKEN)]);
            s.write("db/override.tf", HARMLESS);
            let id = s.git(&["rev-parse", "HEAD:db/main.tf"]);
            let (dir, file) = id.trim().split_at(2);
            std::fs::remove_file(s.path(&format!(".git/objects/{dir}/{file}")))
                .expect("a loose object");
        }
        Unmerged => {
            s.git(&["checkout", "-q", "-b", "other"]);
            s.commit(&[("db/main.tf", &DB_MAIN.replace("true", "false"))], "theirs");
            s.git(&["checkout", "-q", "main"]);
            s.commit(&[("db/main.tf", &DB_MAIN.replace("main", "primary"))], "ours");
            s.commit(
                &[("db/main.tf", &DB_MAIN.replace("main", "primary").replace("true", "!false"))],
                "ours again",
            );
            assert!(!s.git_status(&["merge", "-q", "other"]), "the merge should conflict");
        }
        BadVars => {
            s.commit(
                &[("app/variables.tf", APP_VARS), ("app/terraform.tfvars", "n = \"abc\"\n")],
                "vars",
            );
        }
        NoGit => unreachable!(),
    }
    s
}

/// See [`Fx::Busy`].
fn busy(s: &Sandbox) {
    s.commit(
        &[
            (".override-guard.toml", POLICY),
            ("db/override.tf", HARMLESS),
            ("app/variables.tf", APP_VARS),
            ("app/terraform.tfvars", "n = 2\n"),
            ("app/a.auto.tfvars", "name = \"auto\"\n"),
            ("app/extra.tfvars", "name = \"extra\"\n"),
            ("scripts/run.sh", "#!/bin/sh\nexit 0\n"),
            ("docs/README.md", "docs\n"),
        ],
        "two",
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let perms = std::fs::Permissions::from_mode(0o755);
        std::fs::set_permissions(s.path("scripts/run.sh"), perms).expect("chmod");
        std::os::unix::fs::symlink("README.md", s.path("docs/link")).expect("ln");
        std::os::unix::fs::symlink("../db/main.tf", s.path("docs/main-link.tf")).expect("ln");
    }
    s.git(&["add", "-A"]);
    s.git(&["commit", "-q", "--no-verify", "-m", "three"]);
    s.git(&["tag", "v1"]);
    s.git(&["branch", "feature"]);
    s.git(&["checkout", "-q", "feature"]);
    s.commit(&[("db/override.tf", WEAKEN)], "weaken on a branch");
    s.git(&["checkout", "-q", "main"]);
    // Staged: the weakening override and a change to net; the worktree: a harmless
    // override again, another net, untracked files.
    s.stage(&[("db/override.tf", WEAKEN), ("net/main.tf", "resource \"aws_vpc\" \"b\" {}\n")]);
    s.write("db/override.tf", HARMLESS);
    s.write("net/main.tf", "resource \"aws_vpc\" \"c\" {}\n");
    s.write("scratch/untracked.tf", "resource \"null_resource\" \"x\" {}\n");
    s.write("notes.txt", "untracked\n");
    std::fs::copy(s.path(".git/index"), s.path(".git/alt-index")).expect("copy index");
    // Next to the repository: a policy, a linked worktree with a staged change, a bare clone.
    std::fs::write(s.beside("policy.toml"), "[rules.missing-override-comment]\nlevel = \"deny\"\n")
        .expect("write");
    let wt = s.beside("wt");
    s.git(&["worktree", "add", "-q", "-b", "wt-branch", wt.to_str().expect("utf-8")]);
    std::fs::write(wt.join("db/override.tf"), WEAKEN).expect("write");
    s.git_in(&wt, &["add", "db/override.tf"]);
    s.git_in(s.tmp.path(), &["clone", "-q", "--bare", "repo", "bare.git"]);
    // Packed refs and objects too, not only loose ones.
    s.git(&["pack-refs", "--all"]);
}

/// Runs every case of a fixture, each between two snapshots of the whole sandbox.
fn run_cases(fx: Fx) {
    let s = build(fx);
    // `{out}` in a case's arguments; removed with the fixture's run.
    let out = tempfile::tempdir().expect("tempdir");
    let mut failures = Vec::new();
    for case in CASES.iter().filter(|c| c.fx == fx) {
        if let Err(why) = run_case(&s, case, &out.path().join("flat")) {
            failures.push(format!("{:?} in {} {:?}: {why}", case.fx, case.dir, case.args));
        }
    }
    assert!(failures.is_empty(), "{} case(s) failed:\n\n{}", failures.len(), failures.join("\n\n"));
}

/// An editor's session with the language server: `db/main.tf` opened, changed without
/// saving, every request asked (code actions included: they are only offered, never
/// applied by the server), then shutdown and exit.
fn lsp_session(root: &Path) -> Vec<u8> {
    let uri = format!("file://{}/db/main.tf", std::fs::canonicalize(root).expect("root").display());
    let text = std::fs::read_to_string(root.join("db/main.tf")).unwrap_or_default();
    let at = serde_json::json!({"line": 0, "character": 0});
    let doc = serde_json::json!({"uri": uri});
    let range = serde_json::json!({"start": at, "end": {"line": 999, "character": 0}});
    let messages = [
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"processId": null, "capabilities": {}}}),
        serde_json::json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}),
        serde_json::json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": uri, "languageId": "terraform", "version": 1, "text": text}}}),
        serde_json::json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": format!("{text}\n# typed\n")}]}}),
        serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "textDocument/hover", "params": {"textDocument": doc, "position": at}}),
        serde_json::json!({"jsonrpc": "2.0", "id": 3, "method": "textDocument/inlayHint", "params": {"textDocument": doc, "range": range}}),
        serde_json::json!({"jsonrpc": "2.0", "id": 4, "method": "textDocument/codeAction", "params": {"textDocument": doc, "range": range, "context": {"diagnostics": []}}}),
        serde_json::json!({"jsonrpc": "2.0", "method": "textDocument/didSave", "params": {"textDocument": doc}}),
        serde_json::json!({"jsonrpc": "2.0", "id": 5, "method": "shutdown"}),
        serde_json::json!({"jsonrpc": "2.0", "method": "exit"}),
    ];
    let mut out = Vec::new();
    for m in messages {
        let body = m.to_string();
        out.extend(format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes());
    }
    out
}

fn run_case(s: &Sandbox, case: &Case, out: &Path) -> Result<(), String> {
    let args: Vec<String> =
        case.args.iter().map(|a| a.replace("{out}", &out.to_string_lossy())).collect();
    let root = s.tmp.path();
    let before = snapshot_tree(root);
    let got = match case.input {
        Some(input) => s.run_input(case.dir, &args, case.env, &input(&s.root)),
        None => s.run_env(case.dir, &args, case.env),
    };
    let after = snapshot_tree(root);
    let mut problems = Vec::new();
    if got.code != case.code {
        problems.push(format!("exit {} (expected {})", got.code, case.code));
    }
    let changes = tree_changes(&before, &after);
    match case.creates {
        None => problems.extend(changes),
        Some(rel) => problems.extend(created_only(s, &before, &after, rel, changes)),
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!("{}\n{}", problems.join("\n"), got.shown()))
    }
}

/// The changes other than `rel` created with the starter policy in it, and its directory's
/// times updated for that entry (which `init` must do); removes the file for the next case.
fn created_only(
    s: &Sandbox,
    before: &Snapshot,
    after: &Snapshot,
    rel: &str,
    changes: Vec<String>,
) -> Vec<String> {
    let file = s.path(rel);
    let in_sandbox = file.strip_prefix(s.tmp.path()).expect("inside").to_path_buf();
    let parent = in_sandbox.parent().expect("parent").display().to_string();
    let created = format!("{}: created", in_sandbox.display());
    let mut problems: Vec<String> = changes
        .into_iter()
        .filter(|c| {
            *c != created
                && *c != format!("{parent}: mtime changed")
                && *c != format!("{parent}: inode or ctime changed (replaced, or metadata touched)")
        })
        .collect();
    if before.0.contains_key(&in_sandbox) || !after.0.contains_key(&in_sandbox) {
        problems.push(format!("{rel} was not created"));
    } else {
        let written = std::fs::read_to_string(&file).expect("read");
        if written != override_guard::policy::config::STARTER {
            problems.push(format!("{rel} does not hold the starter policy"));
        }
        std::fs::remove_file(&file).expect("remove");
    }
    problems
}

#[test]
fn a_busy_repository_is_left_as_it_was() {
    run_cases(Busy);
}

#[test]
fn a_malformed_policy_changes_nothing() {
    run_cases(BadPolicy);
}

#[test]
fn a_parse_error_changes_nothing() {
    run_cases(ParseError);
}

#[test]
fn a_corrupt_index_is_not_repaired_or_rewritten() {
    run_cases(CorruptIndex);
}

#[test]
fn a_missing_object_is_not_fetched_or_rewritten() {
    run_cases(MissingObject);
}

#[test]
fn an_unmerged_index_is_left_unmerged() {
    run_cases(Unmerged);
}

#[test]
fn a_rejected_variable_value_changes_nothing() {
    run_cases(BadVars);
}

#[test]
fn without_git_nothing_is_written_either() {
    run_cases(NoGit);
}

/// The table stays complete: every subcommand has a run that succeeds and one that fails,
/// and every fixture is used.
#[test]
fn the_table_covers_every_command_in_success_and_failure() {
    // The commands as `--help` lists them: two-space indented names under `Commands:`.
    let help = bin().arg("--help").output().unwrap();
    let help = String::from_utf8(help.stdout).unwrap();
    let listed = help.split("Commands:\n").nth(1).expect("--help lists the commands");
    let subs: Vec<&str> = listed
        .lines()
        .take_while(|l| !l.is_empty())
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert!(subs.len() >= 15, "{subs:?}");
    for sub in subs.into_iter().filter(|n| *n != "help") {
        let of =
            |ok: bool| CASES.iter().any(|c| c.args.first() == Some(&sub) && (c.code == 0) == ok);
        assert!(of(true), "no successful run of `{sub}` in CASES");
        assert!(of(false), "no failing run of `{sub}` in CASES");
    }
    for fx in [Busy, BadPolicy, ParseError, CorruptIndex, MissingObject, Unmerged, BadVars, NoGit] {
        assert!(CASES.iter().any(|c| c.fx == fx), "{fx:?} has no case");
    }
}

/// The snapshot itself sees what it must: a rewrite with the same bytes, a mode change,
/// a lock file created and removed, a link retargeted.
#[test]
fn the_snapshot_sees_every_kind_of_write() {
    let s = Sandbox::new();
    s.commit(&[("db/main.tf", DB_MAIN)], "one");
    let root = s.tmp.path();
    let index = s.path(".git/index");
    let same = |f: &dyn Fn()| {
        let before = snapshot_tree(root);
        std::thread::sleep(std::time::Duration::from_millis(10));
        f();
        tree_changes(&before, &snapshot_tree(root))
    };
    let bytes = std::fs::read(&index).expect("read");
    assert!(!same(&|| std::fs::write(&index, &bytes).expect("write")).is_empty());
    let lock = s.path(".git/index.lock");
    let changes = same(&|| {
        std::fs::write(&lock, b"").expect("write");
        std::fs::remove_file(&lock).expect("rm");
    });
    assert!(changes.iter().any(|c| c.starts_with("repo/.git: mtime")), "{changes:?}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let main = s.path("db/main.tf");
        let changes = same(&|| {
            std::fs::set_permissions(&main, std::fs::Permissions::from_mode(0o600)).expect("chmod")
        });
        assert!(changes.iter().any(|c| c.contains("mode")), "{changes:?}");
        std::os::unix::fs::symlink("a", s.path("link")).expect("ln");
        let changes = same(&|| {
            std::fs::remove_file(s.path("link")).expect("rm");
            std::os::unix::fs::symlink("b", s.path("link")).expect("ln");
        });
        assert!(changes.iter().any(|c| c == "repo/link: link retargeted"), "{changes:?}");
    }
}
