//! `undeclared-variable-value` and the files other commands load with a module: a value
//! that a query file declares, or a test file (beside the module or in its `tests/`
//! directory) declares or refers to, is used by `terraform query` or `terraform test`, and
//! is no finding, read from every source: the worktree (the module alone or a tree), a
//! revision and the index.

use crate::util::Sandbox;

const FILES: [(&str, &str); 5] = [
    ("app/main.tf", "variable \"input\" {\n  default = null\n}\n"),
    ("app/query.tfquery.hcl", "variable \"environment\" {\n  type = string\n}\n"),
    (
        "app/main.tftest.hcl",
        "variable \"region\" {\n  type = string\n}\n\nrun \"r\" {\n  command = plan\n}\n",
    ),
    (
        "app/tests/org.tftest.hcl",
        "variables {\n  input = var.org_name\n}\n\nrun \"o\" {\n  command = plan\n}\n",
    ),
    (
        "app/terraform.tfvars",
        "environment   = \"production\"\norg_name      = \"my-org\"\nregion        = \"eu-west-1\"\ninstnace_type = \"t3.micro\"\n",
    ),
];

/// The one finding: the value nothing uses.
const TYPO: &str = "app/terraform.tfvars:4:17: warning[undeclared-variable-value]: \"instnace_type\" is set here, but the module declares no such variable: Terraform ignores the value";

#[track_caller]
fn only_the_typo(stdout: &str) {
    let found: Vec<&str> =
        stdout.lines().filter(|l| l.contains("undeclared-variable-value")).collect();
    assert_eq!(found, [TYPO], "{stdout}");
}

#[test]
fn values_query_and_test_files_use_are_no_finding_from_any_source() {
    let s = Sandbox::new();
    s.commit(&FILES, "app");
    only_the_typo(&s.run(&["audit", "--format", "compact"]).out());
    only_the_typo(&s.run(&["audit", "--format", "compact", "app"]).out());
    only_the_typo(&s.run(&["audit", "--format", "compact", "--rev", "HEAD"]).out());
    // A staged change to the variables file: the hook reads the test directory from the
    // index too.
    s.stage(&[("app/terraform.tfvars", &format!("{}extra = 1\n", FILES[4].1))]);
    let got = s.run(&["check", "--format", "compact"]).out();
    let found: Vec<&str> =
        got.lines().filter(|l| l.contains("undeclared-variable-value")).collect();
    assert_eq!(found.len(), 2, "{got}");
    assert!(found.contains(&TYPO), "{got}");
    assert!(found.iter().any(|l| l.contains("\"extra\" is set here")), "{got}");
    // HEAD's side of the change reads the unchanged test directory too: nothing resolved.
    let got = s.run(&["diff", "--format", "json"]).out();
    let v: serde_json::Value = serde_json::from_str(&got).expect("json");
    let findings = |side: &str| v["modules"][0][side].as_array().map_or(0, Vec::len);
    assert_eq!((findings("introduced"), findings("resolved")), (1, 0), "{got}");
}
