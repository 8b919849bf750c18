//! End-to-end runs of `override-guard vars` on temporary modules. Every run uses the
//! module directory as its working directory and passes `.` so that no temporary path
//! ends up in the output.

use std::path::Path;
use std::process::Output;

use serde_json::Value;

use crate::util::bin;

/// A temporary module with the given files.
fn module(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).expect("write");
    }
    dir
}

/// Runs `vars .` in `dir` with `args`, `env` and no `TF_VAR_` variable from the test's own
/// environment.
fn vars(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = bin();
    cmd.args(["vars", ".", "--color", "never"]).args(args).current_dir(dir);
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("TF_VAR_") {
            cmd.env_remove(key);
        }
    }
    cmd.envs(env.iter().copied());
    cmd.output().expect("runs")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The JSON report of `vars . --format json` plus `args`; the run must exit with `code`.
fn json(dir: &Path, args: &[&str], env: &[(&str, &str)], code: i32) -> Value {
    let mut all = vec!["--format", "json"];
    all.extend_from_slice(args);
    let out = vars(dir, &all, env);
    assert_eq!(out.status.code(), Some(code), "{}\n{}", stdout(&out), stderr(&out));
    serde_json::from_slice(&out.stdout).expect("JSON report")
}

/// The JSON entry of one variable.
fn var<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["variables"]
        .as_array()
        .expect("variables")
        .iter()
        .find(|v| v["name"] == name)
        .unwrap_or_else(|| panic!("no variable {name} in {report:#}"))
}

/// `(source, value)` of every step of a variable's chain.
fn chain(v: &Value) -> Vec<(String, Value)> {
    v["chain"]
        .as_array()
        .expect("chain")
        .iter()
        .map(|s| (s["source"].as_str().expect("source").to_string(), s["value"].clone()))
        .collect()
}

const VARIABLES: &str = r#"# NOTE: overridden by variables_override.tf
variable "region" {
  type    = string
  default = "eu-central-1"
}

variable "replicas" {
  type    = number
  default = 1
}

variable "instance_type" {
  type    = string
  default = "t3.small"
}

variable "db_password" {
  type      = string
  sensitive = true
}

variable "owner" {
  type        = string
  description = "team that owns the stack"
}
"#;

/// Defaults, `terraform.tfvars`, an `.auto.tfvars` file, an override that changes a type,
/// a sensitive variable and one without any value.
fn stack() -> tempfile::TempDir {
    module(&[
        ("variables.tf", VARIABLES),
        ("variables_override.tf", "variable \"region\" {\n  type = any\n}\n"),
        ("terraform.tfvars", "replicas    = 2\ndb_password = \"hunter2\"\n"),
        ("ci.auto.tfvars", "replicas = 3\n"),
    ])
}

#[test]
fn vars_human_report() {
    let dir = stack();
    let out = vars(dir.path(), &[], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(!text.contains("hunter2"), "{text}");
    assert!(text.contains("var.owner: no value and no default: would be prompted for"), "{text}");
    insta::assert_snapshot!("vars_human_report", text);
}

#[test]
fn vars_json_report_of_the_stack() {
    let dir = stack();
    let r = json(dir.path(), &[], &[], 0);
    assert_eq!(r["module"], ".");
    let names: Vec<&str> =
        r["variables"].as_array().unwrap().iter().map(|v| v["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["region", "replicas", "instance_type", "db_password", "owner"]);

    let region = var(&r, "region");
    assert_eq!(region["type"], "any");
    assert_eq!(region["type_from"]["at"], "variables_override.tf:2");
    assert_eq!(region["type_from"]["replaces"], serde_json::json!(["variables.tf:3"]));
    assert_eq!((&region["status"], &region["source"]), (&"default".into(), &"default".into()));

    let replicas = var(&r, "replicas");
    assert_eq!(replicas["value"], 3);
    assert_eq!(replicas["source"], "ci.auto.tfvars:1");
    assert_eq!(
        chain(replicas),
        [("terraform.tfvars:1".into(), 2.into()), ("ci.auto.tfvars:1".into(), 3.into())]
    );

    let owner = var(&r, "owner");
    assert_eq!(owner["status"], "prompted");
    assert!(owner["value"].is_null() && owner["source"].is_null(), "{owner:#}");
}

#[test]
fn vars_command_line_values_apply_in_command_line_order() {
    let dir = module(&[
        ("variables.tf", "variable \"replicas\" {\n  type    = number\n  default = 1\n}\n"),
        ("terraform.tfvars", "replicas = 2\n"),
        ("a.tfvars", "replicas = 7\n"),
        ("b.tfvars", "replicas = 9\n"),
    ]);
    let d = dir.path();

    // --var before --var-file: the file wins.
    let r = json(d, &["--var", "replicas=5", "--var-file", "a.tfvars"], &[], 0);
    let v = var(&r, "replicas");
    assert_eq!(v["value"], 7);
    assert_eq!(v["source"], "--var-file a.tfvars:1");
    let sources: Vec<String> = chain(v).into_iter().map(|(s, _)| s).collect();
    assert_eq!(sources, ["terraform.tfvars:1", "--var replicas=5", "--var-file a.tfvars:1"]);

    // --var-file before --var: the flag wins, and its value is converted to the type.
    let r = json(d, &["--var-file", "a.tfvars", "--var", "replicas=5"], &[], 0);
    let v = var(&r, "replicas");
    assert_eq!(v["value"], 5);
    assert!(v["source"].as_str().unwrap().starts_with("--var replicas="), "{v:#}");
    let sources: Vec<String> = chain(v).into_iter().map(|(s, _)| s).collect();
    assert_eq!(sources, ["terraform.tfvars:1", "--var-file a.tfvars:1", "--var replicas=5"]);

    // Interleaved: the last of all wins.
    let r = json(
        d,
        &["--var-file", "b.tfvars", "--var", "replicas=5", "--var-file", "a.tfvars"],
        &[],
        0,
    );
    let v = var(&r, "replicas");
    assert_eq!(v["value"], 7);
    assert_eq!(v["source"], "--var-file a.tfvars:1");
    let sources: Vec<String> = chain(v).into_iter().map(|(s, _)| s).collect();
    assert_eq!(
        sources,
        [
            "terraform.tfvars:1",
            "--var-file b.tfvars:1",
            "--var replicas=5",
            "--var-file a.tfvars:1"
        ]
    );

    // Two --var flags for the same variable: the later one.
    let r = json(d, &["--var", "replicas=5", "--var", "replicas=6"], &[], 0);
    assert_eq!(var(&r, "replicas")["value"], 6);
}

#[test]
fn vars_tf_var_environment_sits_between_default_and_files() {
    let dir = module(&[
        (
            "variables.tf",
            "variable \"replicas\" {\n  type    = number\n  default = 1\n}\n\nvariable \"instance_type\" {\n  type    = string\n  default = \"t3.small\"\n}\n",
        ),
        ("terraform.tfvars", "replicas = 2\n"),
    ]);
    let env = [("TF_VAR_instance_type", "m5.large"), ("TF_VAR_replicas", "11")];
    let r = json(dir.path(), &[], &env, 0);

    let it = var(&r, "instance_type");
    assert_eq!(it["value"], "m5.large");
    assert_eq!(it["source"], "TF_VAR_instance_type");
    assert_eq!(it["status"], "set");

    // terraform.tfvars comes after the environment, so it wins.
    let replicas = var(&r, "replicas");
    assert_eq!(replicas["value"], 2);
    assert_eq!(replicas["source"], "terraform.tfvars:1");
    let sources: Vec<String> = chain(replicas).into_iter().map(|(s, _)| s).collect();
    assert_eq!(sources, ["TF_VAR_replicas", "terraform.tfvars:1"]);

    // Without the environment, the default applies.
    let r = json(dir.path(), &[], &[], 0);
    assert_eq!(var(&r, "instance_type")["value"], "t3.small");
    assert_eq!(var(&r, "instance_type")["source"], "default");
}

#[test]
fn vars_sensitive_values_are_hidden_unless_asked_for() {
    let dir = stack();
    let d = dir.path();
    let env = [("TF_VAR_db_password", "from-the-environment")];

    let out = vars(d, &[], &env);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("var.db_password = (sensitive)   (from terraform.tfvars:2)"), "{text}");
    assert!(!text.contains("hunter2") && !text.contains("from-the-environment"), "{text}");

    let r = json(d, &[], &env, 0);
    let v = var(&r, "db_password");
    assert_eq!(v["sensitive"], true);
    assert_eq!(v["value"], "(sensitive)");
    assert!(chain(v).iter().all(|(_, x)| x == "(sensitive)"), "{v:#}");
    let all = r.to_string();
    assert!(!all.contains("hunter2") && !all.contains("from-the-environment"), "{all}");
    // A value given on the command line is not shown in the chain's source either.
    let r = json(d, &["--var", "db_password=from-the-flag"], &env, 0);
    let all = r.to_string();
    assert!(!all.contains("from-the-flag"), "{all}");

    let out = vars(d, &["--show-sensitive"], &env);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("var.db_password = \"hunter2\"   (from terraform.tfvars:2)"), "{text}");

    let r = json(d, &["--show-sensitive"], &env, 0);
    let v = var(&r, "db_password");
    assert_eq!(v["value"], "hunter2");
    assert_eq!(
        chain(v),
        [
            ("TF_VAR_db_password".into(), "from-the-environment".into()),
            ("terraform.tfvars:2".into(), "hunter2".into())
        ]
    );
}

#[test]
fn vars_a_value_of_the_wrong_type_exits_2() {
    let dir = module(&[
        ("main.tf", "variable \"replicas\" {\n  type = number\n}\n"),
        ("terraform.tfvars", "replicas = \"three\"\n"),
    ]);
    let out = vars(dir.path(), &[], &[]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    let text = stdout(&out);
    assert!(text.contains("var.replicas: the value given does not fit"), "{text}");
    assert!(text.contains("Invalid value for input variable"), "{text}");
    assert!(text.contains("terraform.tfvars:1:12"), "{text}");

    let r = json(dir.path(), &[], &[], 2);
    assert_eq!(var(&r, "replicas")["status"], "invalid");
    let diags = r["diagnostics"].as_array().expect("diagnostics");
    assert_eq!(diags.len(), 1, "{r:#}");
    assert_eq!(diags[0]["severity"], "error");
    assert_eq!(diags[0]["summary"], "Invalid value for input variable");
    assert_eq!(diags[0]["at"], "terraform.tfvars:1");

    // The same value through --var is also rejected.
    let ok = module(&[("main.tf", "variable \"replicas\" {\n  type = number\n}\n")]);
    assert_eq!(vars(ok.path(), &["--var", "replicas=three"], &[]).status.code(), Some(2));
    assert_eq!(vars(ok.path(), &["--var", "replicas=3"], &[]).status.code(), Some(0));
}

#[test]
fn vars_needs_a_directory_with_configuration_files() {
    let dir = module(&[("terraform.tfvars", "replicas = 2\n")]);
    let out = vars(dir.path(), &[], &[]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("no Terraform or OpenTofu configuration files here"),
        "{}",
        stderr(&out)
    );

    let out = bin().args(["vars", "missing"]).current_dir(dir.path()).output().expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("missing"), "{}", stderr(&out));

    let out = vars(dir.path(), &["--format", "yaml"], &[]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}

/// A binary file saved as `.auto.tfvars` (or given with `--var-file`) is one error, as a
/// binary `.tf` file is: Terraform's first, saying how many others are left out, not one
/// per byte it cannot read. Text in another encoding keeps each of its errors.
#[test]
fn a_binary_variables_file_is_one_error() {
    let dir = module(&[("main.tf", "variable \"a\" {}\n")]);
    // An executable's first bytes: NUL bytes, invalid UTF-8, hundreds of errors.
    let binary: Vec<u8> = (0..2048u32).map(|i| (i * 37 % 256) as u8).collect();
    std::fs::write(dir.path().join("given.tfvars.json"), &binary).expect("write");
    std::fs::write(dir.path().join("given.tfvars"), &binary).expect("write");
    let auto = dir.path().join("x.auto.tfvars");
    for (file, args) in [
        (Some(&auto), &[][..]),
        (None, &["--var-file", "given.tfvars"][..]),
        (None, &["--var-file", "given.tfvars.json"][..]),
    ] {
        if let Some(f) = file {
            std::fs::write(f, &binary).expect("write");
        }
        let out = vars(dir.path(), args, &[]);
        let text = format!("{}{}", stdout(&out), stderr(&out));
        assert_eq!(text.matches("This looks like a binary file").count(), 1, "{text}");
        // (The drawing wraps the help.)
        // (One other error, in JSON, is "1 other error is not shown".)
        assert!(
            text.contains("other error") && (text.contains("are not") || text.contains("is not")),
            "{text}"
        );
        assert!(text.lines().count() < 60, "{} lines:\n{text}", text.lines().count());
        if let Some(f) = file {
            std::fs::remove_file(f).expect("remove");
        }
    }
    // Latin-1 text: two errors, each shown.
    std::fs::write(&auto, b"a = caf\xe9\nb = d\xe9j\xe0\n").expect("write");
    let out = vars(dir.path(), &[], &[]);
    let text = format!("{}{}", stdout(&out), stderr(&out));
    assert!(text.contains("x.auto.tfvars") && !text.contains("binary file"), "{text}");
}

/// `vars` merges the module with the release the audit chooses (here a version file's):
/// Terraform 1.9 has no ephemeral variables (1.10 brought them), so it rejects the module.
#[test]
fn vars_merges_with_the_release_the_module_pins() {
    let main =
        "variable \"a\" {\n  type      = string\n  default   = \"x\"\n  ephemeral = true\n}\n";
    let dir = module(&[("main.tf", main), (".terraform-version", "1.9.8\n")]);
    let out = vars(dir.path(), &[], &[]);
    assert_eq!(out.status.code(), Some(2), "{}\n{}", stdout(&out), stderr(&out));
    assert!(stderr(&out).contains("An argument named \"ephemeral\" is not expected here."));
    std::fs::write(dir.path().join(".terraform-version"), "1.10.5\n").expect("write");
    let out = vars(dir.path(), &[], &[]);
    assert_eq!(out.status.code(), Some(0), "{}\n{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).contains("var.a = \"x\"   (from default)"), "{}", stdout(&out));
}
