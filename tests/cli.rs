//! End-to-end runs of the binary on the bundled examples and on temporary directories.

use crate::util::bin;

#[test]
fn audit_of_the_examples_reports_override_files_and_the_one_broken_module() {
    let out = bin()
        .args(["audit", "examples", "--format", "compact"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("note[override-file]"), "{stdout}");
    assert!(stdout.contains("error[merge-error]: Invalid default value for variable"), "{stdout}");
    assert!(
        stdout
            .lines()
            .last()
            .is_some_and(|l| l.contains("override files") && l.ends_with("1 error")),
        "{stdout}"
    );
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
