//! `diff` as a reviewer reads it: a module that becomes one Terraform rejects is said to
//! be once, not printed whole as removed; a nested block an override re-states, which
//! Terraform's merge puts after the others, does not show the blocks around it as moved.

use crate::util::Sandbox;

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
