//! Local-only override files: GitHub's standard Terraform `.gitignore` ignores
//! `override.tf` and `*_override.tf` "as they are usually used to override resources
//! locally", and Terraform reads them anyway. Worktree reads must see what `terraform plan`
//! sees; the hook judges what is committed and says what it leaves out.

use crate::util::Sandbox;

/// GitHub's Terraform.gitignore, the part about overrides.
const GITIGNORE: &str = "\
# Exclude all .tfvars files, which are likely to contain sensitive data
*.tfvars
*.tfvars.json

# Ignore override files as they are usually used to override resources locally and so
# are not checked in
override.tf
override.tf.json
*_override.tf
*_override.tf.json
";

const MAIN: &str = "terraform {\n  backend \"s3\" {\n    bucket = \"acme-state\"\n    key    = \"app.tfstate\"\n  }\n}\n\nresource \"aws_instance\" \"web\" {\n  instance_type = \"t3.micro\"\n}\n";

/// What a developer keeps locally: state on the laptop, a bigger instance.
const LOCAL: &str = "terraform {\n  backend \"local\" {}\n}\n\nresource \"aws_instance\" \"web\" {\n  instance_type = \"m6i.large\"\n}\n";

/// A repository with the standard `.gitignore`, `app/main.tf` committed and an ignored
/// `app/override.tf` in the worktree.
fn repo() -> Sandbox {
    let s = Sandbox::new();
    s.commit(&[(".gitignore", GITIGNORE), ("app/main.tf", MAIN)], "init");
    s.write("app/override.tf", LOCAL);
    s
}

#[test]
fn show_prints_what_terraform_runs_in_the_directory_and_marks_the_local_file() {
    let s = repo();
    let run = s.run(&["show", "app"]);
    assert_eq!(run.code, 0, "{}", run.shown());
    let out = run.out();
    assert!(out.starts_with("# Effective configuration (Terraform) merged from: main.tf, override.tf\n# local-only: override.tf is git-ignored"), "{out}");
    assert!(out.contains("instance_type = \"m6i.large\" # ← override.tf:6"), "{out}");
    assert!(out.contains("backend \"local\""), "{out}");
    let run = s.run(&["show", "app", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&run.out()).expect("json");
    assert_eq!(v["files"][1]["path"], "override.tf");
    assert_eq!(v["files"][1]["local"], "ignored");
    assert!(v["files"][0].get("local").is_none(), "{}", v["files"]);
    // As staged, the local file is not there.
    let run = s.run(&["show", "app", "--staged"]);
    assert!(!run.out().contains("m6i.large"), "{}", run.shown());
}

#[test]
fn audit_judges_the_local_file_and_says_it_is_local() {
    let s = repo();
    let run = s.run(&["audit", "--format", "compact"]);
    assert_eq!(run.code, 1, "{}", run.shown());
    let out = run.out();
    assert!(out.contains("app/override.tf:1:1: warning[local-override]: override.tf is git-ignored: this checkout runs a configuration that CI and teammates do not; it changes terraform.backend, resource.aws_instance.web\n"), "{out}");
    // The other rules judge what runs here.
    assert!(
        out.contains(
            "error[backend-swap]: override.tf replaces backend \"s3\" with backend \"local\""
        ),
        "{out}"
    );
    // A committed comment must not name a file the repository does not have.
    assert!(!out.contains("missing-override-comment"), "{out}");
    assert!(out.ends_with("1 module, 2 files (1 local-only), 1 override file: 1 error, 1 warning (built-in default policy)\n"), "{out}");
    let run = s.run(&["audit", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&run.out()).expect("json");
    assert_eq!(v["summary"]["local_only"], serde_json::json!(["app/override.tf"]));
    let help = v["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .find(|f| f["rule"] == "local-override")
        .expect("local-override")["help"]
        .as_str()
        .expect("help")
        .to_string();
    assert!(
        help.contains("backend-swap: override.tf replaces backend \"s3\" with backend \"local\""),
        "{help}"
    );
    // Committed, it is an ordinary override file.
    s.git(&["add", "-f", "app/override.tf"]);
    let run = s.run(&["audit", "--format", "compact"]);
    assert!(!run.out().contains("local-override"), "{}", run.shown());
    assert!(run.out().contains("missing-override-comment"), "{}", run.shown());
}

#[test]
fn an_untracked_override_is_local_too() {
    let s = Sandbox::new();
    s.commit(&[("app/main.tf", MAIN)], "init");
    s.write(
        "app/web_override.tf",
        "resource \"aws_instance\" \"web\" {\n  instance_type = \"m6i.large\"\n}\n",
    );
    let run = s.run(&["audit", "--format", "compact"]);
    assert_eq!(run.code, 0, "{}", run.shown());
    assert!(
        run.out().contains(
            "app/web_override.tf:1:1: warning[local-override]: web_override.tf is untracked: "
        ),
        "{}",
        run.shown()
    );
}

#[test]
fn the_hook_judges_the_commit_and_names_the_local_files_it_leaves_out() {
    let s = repo();
    s.write("app/main.tf", MAIN.replace("t3.micro", "t3.small"));
    s.git(&["add", "app/main.tf"]);
    let run = s.run(&["check", "--format", "compact"]);
    assert_eq!(run.code, 0, "{}", run.shown());
    assert!(
        run.out().ends_with(
            "1 module, 1 file, 0 override files: 0 errors, 0 warnings (built-in default policy)\n"
        ),
        "{}",
        run.shown()
    );
    assert!(run.err().contains("note: app/override.tf is in this checkout but not in git (git-ignored): Terraform reads it here, so what you plan locally is not what this commit runs\n"), "{}", run.shown());
}

#[test]
fn fix_writes_no_comment_naming_a_local_file_and_removes_its_old_one() {
    let s = repo();
    // Once committed, fix wrote the comment; then the file went local.
    s.git(&["add", "-f", "app/override.tf"]);
    let run = s.run(&["fix"]);
    assert_eq!(run.code, 0, "{}", run.shown());
    let fixed = std::fs::read_to_string(s.path("app/main.tf")).expect("read");
    assert!(fixed.contains("# NOTE: instance_type is overridden in override.tf\n"), "{fixed}");
    s.git(&["add", "app/main.tf"]);
    s.git(&["rm", "-q", "--cached", "app/override.tf"]);
    let run = s.run(&["fix", "--dry-run"]);
    assert_eq!(run.code, 0, "{}", run.shown());
    assert!(
        run.out().contains("-# NOTE: instance_type is overridden in override.tf\n"),
        "{}",
        run.shown()
    );
    let run = s.run(&["audit", "--format", "compact"]);
    assert!(!run.out().contains("missing-override-comment"), "{}", run.shown());
}

#[test]
fn vars_and_the_worktree_diff_see_the_local_file() {
    let s = Sandbox::new();
    s.commit(
        &[
            (".gitignore", GITIGNORE),
            ("app/variables.tf", "variable \"size\" {\n  default = \"small\"\n}\n"),
        ],
        "init",
    );
    s.write("app/variables_override.tf", "variable \"size\" {\n  default = \"huge\"\n}\n");
    let run = s.run(&["vars", "app"]);
    assert_eq!(run.code, 0, "{}", run.shown());
    assert!(run.out().contains("var.size = \"huge\""), "{}", run.shown());
    let run = s.run(&["diff", "--worktree", "--color", "never"]);
    assert!(
        run.out().contains("+  default = \"huge\" # ← variables_override.tf:2"),
        "{}",
        run.shown()
    );
}

#[test]
fn ignored_directories_are_still_pruned() {
    let s = Sandbox::new();
    s.commit(&[(".gitignore", "vendor/\n"), ("app/main.tf", MAIN)], "init");
    s.write("vendor/mod/main.tf", "resource \"x\" \"y\" {}\n");
    s.write("vendor/mod/override.tf", "resource \"x\" \"y\" {\n  z = 1\n}\n");
    s.write(".terraform/modules/m/override.tf", "resource \"x\" \"y\" {\n  z = 1\n}\n");
    let run = s.run(&["audit", "--format", "compact"]);
    assert_eq!(run.code, 0, "{}", run.shown());
    assert!(run.out().starts_with("1 module, 1 file, 0 override files"), "{}", run.shown());
    // A directory named on the command line is read, ignored or not.
    let run = s.run(&["show", "vendor/mod"]);
    assert_eq!(run.code, 0, "{}", run.shown());
    assert!(run.out().contains("z = 1 # ← override.tf:2"), "{}", run.shown());
}

#[test]
fn explain_local_override_speaks_of_opentofu_too() {
    let s = Sandbox::empty();
    let run = s.run(&["explain", "local-override"]);
    assert_eq!(run.code, 0, "{}", run.shown());
    assert!(run.out().contains("override.tofu"), "{}", run.shown());
    assert!(run.out().starts_with("local-override (default: warn)\n"), "{}", run.shown());
}
