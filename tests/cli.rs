//! End-to-end runs of the binary on the bundled examples and on temporary directories.

use crate::util::bin;

#[test]
fn audit_of_the_examples_shows_every_rule() {
    let out = bin()
        .args(["audit", "examples", "--format", "compact"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    // `local-override` needs a file git does not track: no committed example can have one
    // (tests/local.rs covers it); `policy-error` a broken policy file, which would leave
    // the modules it governs unjudged (tests/scope.rs covers it).
    use override_guard::policy::RuleId;
    for rule in override_guard::policy::rules::RULES
        .iter()
        .filter(|r| ![RuleId::LocalOverride, RuleId::PolicyError].contains(&r.id))
    {
        assert!(stdout.contains(&format!("[{}]: ", rule.id)), "{} missing:\n{stdout}", rule.id);
    }
    assert!(stdout.contains("error[merge-error]: Invalid default value for variable"), "{stdout}");
    assert!(
        stdout.lines().last().is_some_and(|l| l.ends_with("(examples/.override-guard.toml)")),
        "{stdout}"
    );
    let sarif = bin()
        .args(["audit", "examples", "--format", "sarif"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("runs");
    crate::sarif::keep_for_schema_check("cli-formats", &String::from_utf8_lossy(&sarif.stdout));
}

/// The README's transcript of `audit examples/ --format compact` is what the audit prints.
#[test]
fn the_readme_transcript_of_the_examples_is_current() {
    let readme = include_str!("../README.md");
    let command = "$ cargo run --release -- audit examples/ --format compact\n";
    let start = readme.find(command).expect("the README shows the audit") + command.len();
    let shown = &readme[start..start + readme[start..].find("```").expect("end of the block")];
    let out = bin()
        .args(["audit", "examples/", "--format", "compact"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("runs");
    assert_eq!(String::from_utf8_lossy(&out.stdout), shown);
}

/// The README shows the hook configuration `init --pre-commit` writes, as it writes it, and
/// the source build it, the docs and the plain git hook name for before a release is this
/// project's.
#[test]
fn the_readme_shows_the_hook_configuration_init_writes() {
    let readme = include_str!("../README.md");
    let out = bin().args(["init", "--pre-commit", "--stdout"]).output().expect("runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let written = String::from_utf8_lossy(&out.stdout);
    let shown: String = written
        .lines()
        .map(|l| if l.is_empty() { "\n".to_string() } else { format!("   {l}\n") })
        .collect();
    assert!(readme.contains(&format!("```yaml\n{shown}   ```\n")), "the README lacks:\n{shown}");
    let git = format!("cargo install --locked --git {}", env!("CARGO_PKG_REPOSITORY"));
    assert!(readme.contains(&git), "{git}");
    let hook = include_str!("../hooks/pre-commit");
    assert!(hook.contains(&git), "hooks/pre-commit does not name {git}");
    let mut texts = crate::util::doc_pages();
    texts.push(("hooks/pre-commit".to_string(), hook.to_string()));
    for (file, text) in texts {
        for (at, _) in text.match_indices("--git ") {
            if text[..at].ends_with("diff ") {
                continue; // `git diff`'s header, in a transcript
            }
            let url = text[at + 6..].split(['`', ' ', '"', '\n']).next().unwrap_or("");
            assert_eq!(url, env!("CARGO_PKG_REPOSITORY"), "a `--git` URL in {file}");
        }
    }
}

/// `init --pre-commit` writes the policy and, at the top of the repository, the hook
/// configuration, and overwrites neither.
#[test]
fn init_writes_the_hook_configuration_at_the_top_of_the_repository() {
    let dir = tempfile::tempdir().expect("tempdir");
    let git = std::process::Command::new("git")
        .args(["init", "--quiet"])
        .current_dir(dir.path())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("git");
    assert!(git.status.success());
    std::fs::create_dir(dir.path().join("infra")).expect("mkdir");
    let init = || {
        bin()
            .args(["init", "--pre-commit"])
            .current_dir(dir.path().join("infra"))
            .output()
            .expect("runs")
    };
    let out = init();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let config =
        std::fs::read_to_string(dir.path().join(".pre-commit-config.yaml")).expect("written");
    let printed = bin().args(["init", "--pre-commit", "--stdout"]).output().expect("runs");
    assert_eq!(config, String::from_utf8_lossy(&printed.stdout));
    assert!(dir.path().join("infra/.override-guard.toml").is_file());
    std::fs::write(dir.path().join(".pre-commit-config.yaml"), "mine\n").expect("write");
    let out = init();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("../.pre-commit-config.yaml already exists; not overwriting it"), "{err}");
    let kept = std::fs::read_to_string(dir.path().join(".pre-commit-config.yaml")).expect("read");
    assert_eq!(kept, "mine\n");
}

/// A module whose override changes a block that has no warning comment.
fn module_with_an_override() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir(dir.path().join(".git")).expect("mkdir");
    std::fs::create_dir_all(dir.path().join("stack")).expect("mkdir");
    std::fs::write(
        dir.path().join("stack/main.tf"),
        "resource \"aws_instance\" \"web\" {\n  instance_type = \"t3.micro\"\n}\n",
    )
    .expect("write");
    std::fs::write(
        dir.path().join("stack/override.tf"),
        "resource \"aws_instance\" \"web\" {\n  instance_type = \"m6i.large\"\n}\n",
    )
    .expect("write");
    dir
}

fn audit(dir: &std::path::Path, args: &[&str]) -> (Option<i32>, String, String) {
    let out = bin().arg("audit").args(args).current_dir(dir).output().expect("runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn exit_codes_follow_the_levels() {
    let dir = module_with_an_override();
    let d = dir.path();
    let (code, out, _) = audit(d, &["--format", "compact"]);
    assert_eq!(code, Some(0), "warnings only: {out}");
    assert!(out.contains("stack/main.tf:1:1: warning[missing-override-comment]"), "{out}");
    assert!(out.contains("(built-in default policy)"), "{out}");
    assert_eq!(audit(d, &["--format", "compact", "--deny-warnings"]).0, Some(1));
    let (code, out, _) = audit(d, &["--format", "compact", "--deny", "override-file"]);
    assert_eq!(code, Some(1));
    assert!(
        out.contains(
            "error[override-file]: override file override.tf changes resource.aws_instance.web"
        ),
        "{out}"
    );
    let (code, out, _) = audit(d, &["--format", "compact", "--allow", "missing-override-comment"]);
    assert_eq!(code, Some(0));
    assert!(!out.contains("missing-override-comment"), "{out}");
    let (code, _, err) = audit(d, &["--deny", "override-files"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("unknown rule `override-files` (did you mean `override-file`?)"), "{err}");
}

#[test]
fn the_policy_is_found_above_the_audited_directory_and_its_mistakes_point_into_it() {
    let dir = module_with_an_override();
    let d = dir.path();
    std::fs::write(
        d.join(".override-guard.toml"),
        "[rules.override-file]\nlevel = \"deny\"\nallow-paths = [\"stack/**\"]\n",
    )
    .expect("write");
    let (code, out, _) = audit(&d.join("stack"), &["--format", "compact"]);
    assert_eq!(code, Some(0), "allowed by the policy one level up: {out}");
    assert!(
        out.ends_with("(../.override-guard.toml)\n") || out.contains(".override-guard.toml)"),
        "{out}"
    );
    std::fs::write(d.join(".override-guard.toml"), "[rules.override-file]\nlevel = \"denyy\"\n")
        .expect("write");
    // Broken, it is a finding in the file (the module it governs is not judged).
    let (code, out, _) = audit(d, &["--format", "human", "--color", "never"]);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("unknown level `denyy`"), "{out}");
    assert!(out.contains(".override-guard.toml:2:9"), "{out}");
    assert!(out.contains("did you mean `deny`?"), "{out}");
    // Named with --policy, it stops the run.
    let (code, _, err) = audit(
        d,
        &["--color", "never", "--policy", &d.join(".override-guard.toml").to_string_lossy()],
    );
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("unknown level `denyy`"), "{err}");
}

/// The places a merge error's detail names are relative to the module, as Terraform run in
/// the module writes them, however far above it the audit starts; the finding's own path
/// stays relative to where the audit ran.
#[test]
fn a_detail_names_places_relative_to_its_module() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    std::fs::create_dir(d.join(".git")).expect("mkdir");
    std::fs::create_dir_all(d.join("envs/dev")).expect("mkdir");
    std::fs::write(
        d.join("envs/dev/main.tf"),
        "variable \"a\" {}\nlocals {\n  x = 1\n  x = 2\n}\n",
    )
    .expect("write");
    std::fs::write(d.join("envs/dev/vars.tf"), "variable \"a\" {}\n").expect("write");
    let (code, out, _) = audit(d, &[".", "--format", "json"]);
    assert_eq!(code, Some(1), "{out}");
    let report: serde_json::Value = serde_json::from_str(&out).expect("json");
    let findings = report["findings"].as_array().expect("findings");
    let help = |summary: &str| {
        let f = findings.iter().find(|f| f["message"] == summary);
        f.map(|f| (f["help"].as_str().unwrap_or("").to_string(), f["location"]["path"].clone()))
    };
    assert_eq!(
        help("Duplicate variable declaration"),
        Some((
            "A variable named \"a\" was already declared at main.tf:1,1-13. Variable names must be unique within a module.".to_string(),
            serde_json::json!("envs/dev/vars.tf")
        )),
        "{out}"
    );
    assert_eq!(
        help("Attribute redefined").map(|h| h.0),
        Some("The argument \"x\" was already set at main.tf:3,3-4. Each argument may be set only once.".to_string()),
        "{out}"
    );
}

#[test]
fn every_report_format_is_well_formed() {
    let dir = module_with_an_override();
    let d = dir.path();
    let (_, out, _) = audit(d, &["--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["version"], 1);
    assert_eq!(v["findings"][0]["rule"], "missing-override-comment");
    assert_eq!(v["findings"][0]["location"]["path"], "stack/main.tf");
    assert_eq!(v["findings"][0]["related"][0]["path"], "stack/override.tf");
    let (_, out, _) = audit(d, &["--format", "sarif"]);
    crate::sarif::keep_for_schema_check("cli", &out);
    let v: serde_json::Value = serde_json::from_str(&out).expect("sarif is json");
    assert_eq!(v["version"], "2.1.0");
    assert_eq!(v["runs"][0]["results"][0]["ruleId"], "missing-override-comment");
    let (_, out, _) = audit(d, &["--format", "github"]);
    assert!(out.starts_with("::warning file=stack/main.tf,line=1,col=1,"), "{out}");
    let (_, out, _) = audit(d, &["--format", "human", "--color", "never"]);
    assert!(
        out.contains("╭─[stack/main.tf:1:1]") && out.contains("╭─[stack/override.tf:1:1]"),
        "{out}"
    );
}

#[test]
fn control_characters_never_reach_the_terminal() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("main.tf"), "resource \"a\" \"b\" {\n  x = \"\x1b[2J\"\n}\n")
        .expect("write");
    std::fs::write(
        dir.path().join("ev\x1b[31mil_override.tf"),
        "resource \"a\" \"b\" {\n  x = \"\x1b]0;pwned\x07\"\n}\n",
    )
    .expect("write");
    for format in ["human", "compact", "github"] {
        let (_, out, err) =
            audit(dir.path(), &["--format", format, "--color", "never", "--deny", "override-file"]);
        assert!(out.contains("override-file"), "{format}: {out}");
        assert!(!out.contains('\x1b') && !err.contains('\x1b'), "{format}: {out:?}");
    }
}

#[test]
fn init_writes_a_starter_policy_once_and_explain_documents_every_rule() {
    let dir = tempfile::tempdir().expect("tempdir");
    let run = |args: &[&str]| bin().args(args).current_dir(dir.path()).output().expect("runs");
    assert_eq!(run(&["init"]).status.code(), Some(0));
    let written =
        std::fs::read_to_string(dir.path().join(".override-guard.toml")).expect("written");
    assert!(override_guard::policy::Policy::parse("p", &written).is_ok());
    std::fs::write(dir.path().join(".override-guard.toml"), "# mine\n").expect("write");
    let again = run(&["init"]);
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("already exists"));
    assert_eq!(
        std::fs::read_to_string(dir.path().join(".override-guard.toml")).expect("kept"),
        "# mine\n"
    );
    let list = String::from_utf8_lossy(&run(&["explain"]).stdout).into_owned();
    for rule in override_guard::policy::rules::RULES {
        assert!(list.contains(rule.id.as_str()), "{}", rule.id);
        let one = run(&["explain", rule.id.as_str()]);
        assert_eq!(one.status.code(), Some(0));
        assert!(String::from_utf8_lossy(&one.stdout).contains("What it checks"));
    }
    let bad = run(&["explain", "backend-swp"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("did you mean `backend-swap`?"));
}

#[test]
fn show_prints_provenance_and_exits_2_on_a_rejected_module() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("main.tf"), "resource \"a\" \"b\" {\n  x = 1\n}\n")
        .expect("write");
    std::fs::write(dir.path().join("override.tf"), "resource \"a\" \"b\" {\n  x = 2\n}\n")
        .expect("write");
    let out = bin().args(["show", "--color", "never"]).arg(dir.path()).output().expect("runs");
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("x = 2 # ← override.tf:2"));

    std::fs::write(dir.path().join("override.tf"), "resource \"a\" \"c\" {\n  x = 2\n}\n")
        .expect("write");
    let out = bin().args(["show", "--color", "never"]).arg(dir.path()).output().expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("Missing resource to override"));
}

/// An argument Terraform's JSON syntax would read as nested blocks under its name, with no
/// escaping block to hold it (`dynamic = {…}`), makes `--format tf-json` print nothing and
/// exit 2, naming it; `--format hcl` prints it.
#[test]
fn show_tf_json_refuses_an_argument_json_cannot_hold() {
    let dir = tempfile::tempdir().expect("tempdir");
    let main = "resource \"a\" \"b\" {\n  lifecycle = { prevent_destroy = true }\n  dynamic   = { x = 1 }\n}\n";
    std::fs::write(dir.path().join("main.tf"), main).expect("write");
    let out = bin().args(["show", "--format", "tf-json"]).arg(dir.path()).output().expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty(), "{}", String::from_utf8_lossy(&out.stdout));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("error: main.tf:3: the argument `dynamic = …` cannot be written in Terraform's JSON syntax"), "{err}");
    assert!(!err.contains("lifecycle"), "lifecycle goes in the escaping block: {err}");
    let out = bin().args(["show"]).arg(dir.path()).output().expect("runs");
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("  dynamic   = { x = 1 }\n"));
}

#[test]
fn bad_input_is_a_diagnostic_never_a_panic() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cases: [(&str, &[u8]); 5] = [
        ("main.tf", b"resource \"a\" {\n  x = \n}\n"),
        ("main.tf", b"x = \"\xff\xfe\"\n"),
        ("main.tf.json", b"{\"resource\": [1,}"),
        ("main.tf", b"\xef\xbb\xbflocals {\r\n  a = 1\r\n}\r\n"),
        ("main.tf", b""),
    ];
    for (name, bytes) in cases {
        for f in ["main.tf", "main.tf.json"] {
            let _ = std::fs::remove_file(dir.path().join(f));
        }
        std::fs::write(dir.path().join(name), bytes).expect("write");
        let out = bin().args(["show", "--color", "never"]).arg(dir.path()).output().expect("runs");
        let code = out.status.code();
        assert!(code == Some(0) || code == Some(2), "{name}: exit {code:?}");
        if code == Some(2) {
            assert!(
                String::from_utf8_lossy(&out.stderr).contains(name),
                "names the file: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
}

#[test]
fn a_missing_directory_is_an_io_error() {
    let out = bin().args(["audit", "does/not/exist"]).output().expect("runs");
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn every_command_has_examples_a_man_page_and_completions() {
    let run = |args: &[&str]| {
        let out = bin().args(args).output().expect("runs");
        (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned())
    };
    let commands =
        ["show", "vars", "audit", "check", "diff", "init", "explain", "completions", "man"];
    for c in commands {
        let (code, help) = run(&[c, "--help"]);
        assert_eq!(code, Some(0));
        assert!(
            help.contains("Examples") && help.contains("\n  override-guard "),
            "`{c} --help` has no examples:\n{help}"
        );
        let (code, page) = run(&["man", c]);
        assert_eq!(code, Some(0));
        assert!(page.contains(&format!(".TH override-guard-{c} 1")), "{page}");
    }
    let (code, page) = run(&["man"]);
    assert_eq!(code, Some(0));
    assert!(page.contains(".TH override-guard 1"), "{page}");
    for c in commands {
        assert!(page.contains(c), "the main page lists {c}");
    }
    assert_eq!(run(&["man", "nope"]).0, Some(2));
    for (shell, marker) in [
        ("bash", "complete -F _override__guard"),
        ("zsh", "#compdef override-guard"),
        ("fish", "complete -c override-guard"),
        ("elvish", "override-guard"),
        ("powershell", "override-guard"),
    ] {
        let (code, script) = run(&["completions", shell]);
        assert_eq!(code, Some(0));
        assert!(script.contains(marker), "{shell}: {script}");
        assert!(script.contains("audit") && script.contains("new-only"), "{shell}");
    }
}

/// A report cut short is an error: writing to a full device (Linux's `/dev/full`) exits 2
/// and says so, instead of passing for a whole report.
#[cfg(target_os = "linux")]
#[test]
fn a_report_that_cannot_be_written_whole_exits_2() {
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full").expect("/dev/full");
    for format in ["sarif", "compact", "json"] {
        let out = bin()
            .args(["audit", "examples", "--format", format])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stdout(full.try_clone().expect("dup"))
            .output()
            .expect("runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{format}: {err}");
        assert!(
            err.contains("error: standard output: the output could not be written whole: No space left on device"),
            "{format}: {err}"
        );
    }
    let out = bin()
        .args(["show", "examples/app"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(full)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
}

/// A reader that stops early (`| head -1`) ends the output quietly: no error, and the exit
/// code is still the verdict.
#[test]
fn a_closed_pipe_ends_the_output_quietly() {
    use std::io::Read;
    let mut child = bin()
        .args(["audit", "examples", "--format", "compact"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("runs");
    drop(child.stdout.take());
    let mut err = String::new();
    child.stderr.take().expect("stderr").read_to_string(&mut err).expect("read");
    let status = child.wait().expect("waits");
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(!err.contains("error"), "{err}");
}

/// The pre-commit framework passes only files that exist: a name that exists nowhere
/// (not on disk, not staged, not deleted by the change) is a typo by hand, an error that
/// names it (exit 2), not a silent pass. A file the change deletes is judged as before.
#[test]
fn check_of_a_file_that_exists_nowhere_is_an_error() {
    use crate::texts::DB_MAIN;
    let s = crate::util::Sandbox::new();
    s.commit(&[("db/main.tf", DB_MAIN)], "init");
    for (args, said) in [
        (&["check", "db/mian.tf"][..], "db/mian.tf: no such file, in the worktree or in the index"),
        (&["check", "nowhere/main.tf"], "nowhere/main.tf: no such file"),
        (&["check", "../nowhere.tf"], "../nowhere.tf: no such file"),
        (
            &["check", "--from-ref", "HEAD", "--to-ref", "HEAD", "x.tf"],
            "x.tf: no such file, in the worktree or in HEAD",
        ),
    ] {
        let run = s.run(args);
        assert_eq!(run.code, 2, "{args:?}: {}", run.shown());
        assert!(run.err().contains(said), "{args:?}: {}", run.shown());
    }
    // Deleted and staged: named, and judged.
    s.git(&["rm", "-q", "db/main.tf"]);
    let run = s.run(&["check", "--format", "compact", "db/main.tf"]);
    assert_eq!(run.code, 0, "{}", run.shown());
}

/// A bare repository has no worktree to read: `audit` and `show` ask for a revision
/// (exit 2), as `check` and `--staged` do, rather than audit no configuration files.
#[test]
fn a_bare_repository_has_no_worktree_to_audit() {
    let s = crate::util::Sandbox::new();
    s.commit(&[("db/main.tf", crate::texts::DB_MAIN)], "init");
    s.git_in(s.tmp.path(), &["clone", "-q", "--bare", "repo", "bare.git"]);
    for args in [&["audit"][..], &["audit", "."], &["show", "db"]] {
        let run = s.run_env("../bare.git", args, &[]);
        assert_eq!(run.code, 2, "{args:?}: {}", run.shown());
        assert!(run.err().contains("a bare repository has no worktree"), "{}", run.shown());
        assert!(run.err().contains("--rev"), "{args:?}: {}", run.shown());
    }
    assert_eq!(s.run_env("../bare.git", &["audit", "--rev", "HEAD"], &[]).code, 0);
}
