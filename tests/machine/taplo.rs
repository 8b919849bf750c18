//! taplo, the TOML toolkit behind VS Code's Even Better TOML, checks policy files against
//! `schema/override-guard.schema.json` as an editor does: with `--schema`, and through the
//! `#:schema` line the starter policy carries (here pointing at the file beside it, as the
//! published address cannot be fetched in a test). taplo is named by `OVERRIDE_GUARD_TAPLO`
//! (`.ci/run` installs a pinned `@taplo/cli` from npm and sets it); without it the test is
//! reported ignored.

use std::path::Path;
use std::process::Command;

use crate::util::Sandbox;

pub const TAPLO: &str = "OVERRIDE_GUARD_TAPLO";

/// A policy with four mistakes, and what taplo says about each.
const BAD: &str = "[rules]\nbackend-swop = \"deny\"\nsilent-drop = \"denny\"\n\n[rules.override-file]\nallow-path = [\"envs/dev/**\"]\nonly-json = \"yes\"\n";
const SAID: &[&str] = &[
    "'backend-swop' was unexpected",
    "\"denny\" does not match \"^(allow|warn|deny)$\"",
    "'allow-path' was unexpected",
    "\"yes\" is not of type \"boolean\"",
];

/// taplo's exit status and messages on one file (`schema`: the `--schema` address).
fn lint(taplo: &std::ffi::OsStr, file: &Path, schema: Option<&str>) -> (bool, String) {
    let mut cmd = Command::new(taplo);
    cmd.args(["lint", "--no-auto-config", "--colors", "never"]);
    if let Some(s) = schema {
        cmd.args(["--schema", s]);
    }
    let out = cmd.arg(file).output().expect("taplo runs");
    (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
}

pub fn taplo_checks_policies_against_the_schema() {
    let taplo = std::env::var_os(TAPLO).filter(|v| !v.is_empty()).unwrap_or_else(|| {
        panic!("{TAPLO}=path/to/taplo runs the taplo test (as .ci/run does, from npm's @taplo/cli)")
    });
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let schema_path = root.join("schema/override-guard.schema.json");
    let schema = format!("file://{}", schema_path.display());
    let s = Sandbox::empty();

    let mut good = vec![root.join("examples/.override-guard.toml")];
    for name in ["default", "strict", "starter", "template"] {
        good.push(root.join(format!("policies/{name}.toml")));
    }
    for f in &good {
        let (ok, said) = lint(&taplo, f, Some(&schema));
        assert!(ok, "taplo refuses {}: {said}", f.display());
    }
    s.write("bad/.override-guard.toml", BAD);
    let (ok, said) = lint(&taplo, &s.path("bad/.override-guard.toml"), Some(&schema));
    assert!(!ok, "taplo accepts the bad policy");
    for m in SAID {
        assert!(said.contains(m), "taplo does not say {m}: {said}");
    }

    // The starter's `#:schema` line, pointed at the schema beside the file.
    let starter = override_guard::policy::config::STARTER;
    let (first, rest) = starter.split_once('\n').expect("lines");
    assert!(first.starts_with("#:schema https://"), "{first}");
    std::fs::copy(&schema_path, s.path("override-guard.schema.json")).expect("copy");
    let local = format!("#:schema ./override-guard.schema.json\n{rest}");
    s.write(".override-guard.toml", &local);
    let (ok, said) = lint(&taplo, &s.path(".override-guard.toml"), None);
    assert!(ok, "taplo refuses the starter: {said}");
    s.write(".override-guard.toml", format!("{local}\n[rules.override-fil]\nlevel = \"deny\"\n"));
    let (ok, said) = lint(&taplo, &s.path(".override-guard.toml"), None);
    assert!(
        !ok && said.contains("'override-fil' was unexpected"),
        "taplo did not read the #:schema line: {said}"
    );
}
