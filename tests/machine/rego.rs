//! A real Rego policy on `show --format config-json`: the policy of `tests/rego/` (no
//! publicly accessible database), evaluated by regopy (rego-cpp's Python bindings) through
//! `tests/rego/deny.py`, sees what the override file turns on, which the primary file alone
//! does not. The Python with regopy installed is named by `OVERRIDE_GUARD_REGOPY_PYTHON`
//! (`.ci/run` installs a pinned regopy into its venv and sets it); without it the test is
//! reported ignored.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::util::{Sandbox, bin};

pub const PYTHON: &str = "OVERRIDE_GUARD_REGOPY_PYTHON";

const MAIN: &str = "resource \"aws_db_instance\" \"main\" {\n  engine              = \"postgres\"\n  publicly_accessible = false\n}\n";
const OVERRIDE: &str = "resource \"aws_db_instance\" \"main\" {\n  publicly_accessible = true\n}\n";

/// The policy's messages on the configuration of `dir`.
fn deny(python: &std::ffi::OsStr, s: &Sandbox, dir: &str) -> Vec<String> {
    let out = bin()
        .args(["show", dir, "--format", "config-json"])
        .current_dir(s.path(""))
        .output()
        .expect("override-guard runs");
    assert!(out.status.success(), "show failed: {}", String::from_utf8_lossy(&out.stderr));
    let rego = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/rego");
    let mut child = Command::new(python)
        .arg(rego.join("deny.py"))
        .arg(rego.join("public_db.rego"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python starts");
    child.stdin.take().expect("stdin").write_all(&out.stdout).expect("input written");
    let res = child.wait_with_output().expect("python ends");
    assert!(
        res.status.success(),
        "the policy did not run: {}",
        String::from_utf8_lossy(&res.stderr)
    );
    serde_json::from_slice(&res.stdout).expect("a JSON list of messages")
}

pub fn a_rego_policy_on_config_json_sees_the_merged_configuration() {
    let python = std::env::var_os(PYTHON).filter(|v| !v.is_empty()).unwrap_or_else(|| {
        panic!(
            "{PYTHON}=path/to/python (with regopy installed) runs the Rego test, as .ci/run does"
        )
    });
    let s = Sandbox::empty();
    s.write("prod/main.tf", MAIN);
    s.write("prod/override.tf", OVERRIDE);
    s.write("base/main.tf", MAIN);
    assert_eq!(deny(&python, &s, "prod"), ["aws_db_instance.main is publicly accessible"]);
    assert_eq!(deny(&python, &s, "base"), Vec::<String>::new());
}
