//! The TOML tools behind editors check policy files against
//! `schema/override-guard.schema.json` as an editor does: taplo (VS Code's Even Better
//! TOML) with `--schema` and through the `#:schema` line the starter policy carries, tombi
//! through that line (here pointing at the file beside it, as the published address cannot
//! be fetched in a test). They are named by `OVERRIDE_GUARD_TAPLO` (`.ci/run` installs a
//! pinned `@taplo/cli` from npm and sets it) and `OVERRIDE_GUARD_TOMBI` (a pinned `tombi`
//! from PyPI); without one, its test is reported ignored.

use std::path::Path;
use std::process::Command;

use crate::util::Sandbox;

pub const TAPLO: &str = "OVERRIDE_GUARD_TAPLO";
pub const TOMBI: &str = "OVERRIDE_GUARD_TOMBI";

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
    let rest = starter_without_its_schema_line();
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

/// The starter policy less its first line, the `#:schema` line of the published schema.
fn starter_without_its_schema_line() -> &'static str {
    let starter = override_guard::policy::config::STARTER;
    let (first, rest) = starter.split_once('\n').expect("lines");
    assert!(first.starts_with("#:schema https://"), "{first}");
    rest
}

/// tombi's exit status and messages on a file that names its schema by `#:schema`.
fn tombi_lint(tombi: &std::ffi::OsStr, file: &Path) -> (bool, String) {
    let out = Command::new(tombi)
        .args(["lint", "--offline"])
        .arg(file)
        .env("NO_COLOR", "1")
        .current_dir(file.parent().expect("a folder"))
        .output()
        .expect("tombi runs");
    let said =
        format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out.status.success(), said)
}

pub fn tombi_checks_policies_through_their_schema_line() {
    let tombi = std::env::var_os(TOMBI).filter(|v| !v.is_empty()).unwrap_or_else(|| {
        panic!("{TOMBI}=path/to/tombi runs the tombi test (as .ci/run does, from PyPI's tombi)")
    });
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let s = Sandbox::empty();
    std::fs::copy(
        root.join("schema/override-guard.schema.json"),
        s.path("override-guard.schema.json"),
    )
    .expect("copy");
    let line = "#:schema ./override-guard.schema.json\n";
    let mut good = vec![("starter", starter_without_its_schema_line().to_string())];
    for name in ["default", "strict"] {
        good.push((
            name,
            std::fs::read_to_string(root.join(format!("policies/{name}.toml"))).expect("read"),
        ));
    }
    let examples =
        std::fs::read_to_string(root.join("examples/.override-guard.toml")).expect("read");
    good.push(("examples", examples));
    for (name, text) in good {
        s.write(&format!("{name}.toml"), format!("{line}{text}"));
        let (ok, said) = tombi_lint(&tombi, &s.path(&format!("{name}.toml")));
        assert!(ok, "tombi refuses {name}: {said}");
    }
    // tombi knows a TOML date from a string, which taplo does not.
    let bad =
        format!("{line}{BAD}\n[[exceptions]]\nrule = \"override-fil\"\nexpires = \"2027-01-31\"\n");
    s.write("bad.toml", bad);
    let (ok, said) = tombi_lint(&tombi, &s.path("bad.toml"));
    assert!(!ok, "tombi accepts the bad policy");
    for m in [
        "\"backend-swop\" is not allowed",
        "\"denny\" does not match the pattern",
        "\"allow-path\" is not allowed",
        "expected a value of type Boolean, but found String",
        "but found \"override-fil\"",
        "\"reason\" is required",
        "expected a value of type LocalDate, but found String",
    ] {
        assert!(said.contains(m), "tombi does not say {m}: {said}");
    }
}
