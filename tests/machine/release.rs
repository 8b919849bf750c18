//! The release artifacts that `.ci/release-check build` leaves in `target/release-artifacts/`
//! (docs/releasing.md), as a user gets them: each archive matches its SHA-256 sum, holds
//! what the README says, and its binary runs (an aarch64 one under qemu-aarch64, which the
//! script installs) and audits examples/ as this build does; each wheel is named for its
//! platform and carries the binary. Without the artifacts the tests are reported ignored.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Where the script leaves them.
pub fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("target/release-artifacts")
}

/// Why the tests cannot run here, or `None` when the script left its artifacts.
pub fn unmet() -> Option<String> {
    (!dir().join("dist/SHA256SUMS").is_file()).then(|| {
        "no target/release-artifacts/dist/SHA256SUMS (`.ci/release-check build` makes it)".into()
    })
}

const TARGETS: &[&str] = &[
    "x86_64-unknown-linux-gnu",
    "x86_64-unknown-linux-musl",
    "aarch64-unknown-linux-gnu",
    "aarch64-unknown-linux-musl",
];

/// The command that runs a binary of `target` on this (x86_64) machine.
fn runner(target: &str, bin: &Path) -> Command {
    if target.starts_with("x86_64-") {
        return Command::new(bin);
    }
    let mut cmd = Command::new("qemu-aarch64");
    if target.ends_with("-gnu") {
        cmd.args(["-L", "/usr/aarch64-linux-gnu"]);
    }
    cmd.arg(bin);
    cmd
}

/// `audit examples/` as the binary under test prints it, to compare the artifacts with.
fn audit(mut cmd: Command) -> (Option<i32>, String) {
    let out = cmd
        .args(["audit", "examples/", "--format", "compact", "--color", "never"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs (qemu-aarch64 for an aarch64 one: .ci/release-check installs it)");
    (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned())
}

pub fn every_archive_matches_its_sum_holds_the_docs_and_runs() {
    let version = env!("CARGO_PKG_VERSION");
    let dist = dir().join("dist");
    let sums = std::fs::read_to_string(dist.join("SHA256SUMS")).expect("SHA256SUMS");
    let ok = Command::new("sha256sum")
        .args(["-c", "--quiet", "SHA256SUMS"])
        .current_dir(&dist)
        .status()
        .expect("sha256sum runs");
    assert!(ok.success(), "an archive does not match SHA256SUMS");
    let expected = super::util::bin()
        .args(["audit", "examples/", "--format", "compact", "--color", "never"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("override-guard runs");
    let expected = String::from_utf8_lossy(&expected.stdout).into_owned();
    assert!(expected.lines().count() > 5, "{expected}");
    let mut seen = 0;
    for line in sums.lines() {
        let (_, file) = line.split_once("  ").expect("`SUM  FILE` lines");
        // Each archive's own .sha256 is its line of SHA256SUMS.
        let own = std::fs::read_to_string(dist.join(format!("{file}.sha256"))).expect(".sha256");
        assert_eq!(own.trim_end(), line, "{file}.sha256");
        let name = file.strip_suffix(".tar.gz").expect("a .tar.gz");
        let target =
            name.strip_prefix(&format!("override-guard-{version}-")).unwrap_or_else(|| {
                panic!("{file} is not named override-guard-{version}-TARGET.tar.gz")
            });
        assert!(TARGETS.contains(&target), "{file}: unknown target {target}");
        let tmp = tempfile::tempdir().expect("a temporary directory");
        let untar = Command::new("tar")
            .arg("-xzf")
            .arg(dist.join(file))
            .arg("-C")
            .arg(tmp.path())
            .status()
            .expect("tar runs");
        assert!(untar.success(), "{file} does not unpack");
        let root = tmp.path().join(name);
        for doc in ["LICENSE-MIT", "LICENSE-APACHE"] {
            let here = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join(doc)).unwrap();
            assert_eq!(std::fs::read(root.join(doc)).ok(), Some(here), "{file}: {doc}");
        }
        for doc in [
            "README.md",
            "CHANGELOG.md",
            "completions/override-guard.bash",
            "completions/_override-guard",
            "completions/override-guard.fish",
            "man/override-guard.1",
            "man/override-guard-audit.1",
        ] {
            let len = std::fs::metadata(root.join(doc)).map(|m| m.len()).unwrap_or(0);
            assert!(len > 100, "{file}: {doc} is missing or empty");
        }
        let bin = root.join("override-guard");
        let version_out = runner(target, &bin).arg("--version").output().expect("runs");
        assert_eq!(
            String::from_utf8_lossy(&version_out.stdout).trim(),
            format!("override-guard {version}"),
            "{file}"
        );
        let (code, out) = audit(runner(target, &bin));
        assert_eq!(code, Some(1), "{file}: audit examples/ (legacy/ is broken on purpose)");
        assert_eq!(
            out, expected,
            "{file}: audit differs from this build's (run .ci/release-check build again?)"
        );
        seen += 1;
    }
    assert!(seen >= 1, "SHA256SUMS lists no archive");
}

pub fn each_wheel_is_named_for_its_platform_and_carries_the_binary() {
    let version = env!("CARGO_PKG_VERSION");
    let wheels = dir().join("wheels");
    let mut names: Vec<String> = std::fs::read_dir(&wheels)
        .expect("target/release-artifacts/wheels")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".whl"))
        .collect();
    names.sort();
    assert!(!names.is_empty(), "no wheel");
    let allowed: Vec<String> = [
        "manylinux2014_x86_64.manylinux_2_17_x86_64",
        "manylinux2014_aarch64.manylinux_2_17_aarch64",
        "musllinux_1_2_x86_64",
        "musllinux_1_2_aarch64",
    ]
    .iter()
    .map(|tag| format!("override_guard-{version}-py3-none-{tag}.whl"))
    .collect();
    for name in &names {
        assert!(allowed.contains(name), "{name} is not one of {allowed:?}");
        // A wheel is a zip: Python's own reader lists it.
        let listed = Command::new("python3")
            .args([
                "-c",
                "import sys, zipfile; print('\\n'.join(zipfile.ZipFile(sys.argv[1]).namelist()))",
            ])
            .arg(wheels.join(name))
            .output()
            .expect("python3 runs");
        let listed = String::from_utf8_lossy(&listed.stdout);
        for want in [
            format!("override_guard-{version}.data/scripts/override-guard"),
            format!("override_guard-{version}.dist-info/METADATA"),
            format!("override_guard-{version}.dist-info/WHEEL"),
        ] {
            assert!(listed.lines().any(|l| l == want), "{name} lacks {want}:\n{listed}");
        }
    }
}
