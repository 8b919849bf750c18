//! What only a user whom file permissions stop can see: a file of mode 000 (root reads it
//! anyway, so these are reported ignored when the tests run as root).

use crate::texts::*;
use std::os::unix::fs::PermissionsExt;

use crate::measure::*;

/// An unreadable file fails its module, as Terraform's loader does ("Failed to read
/// file"), and every other module is still judged.
pub fn an_unreadable_file_is_a_finding_of_its_module() {
    let s = sandbox();
    s.write("m/main.tf", DB_MAIN);
    s.write("m/override.tf", WEAKEN);
    s.write("n/main.tf", DB_MAIN);
    s.write("n/override.tf", WEAKEN);
    // Staged first: git cannot read it either, afterwards.
    committed(&s);
    let p = s.path("m/override.tf");
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o000)).expect("chmod");
    assert!(std::fs::read(&p).is_err(), "mode 000 stops reading here");
    let got = og(&s, &["audit", "--format", "compact"]);
    expect_code("audit", &got, 1);
    assert!(
        got.stdout
            .lines()
            .any(|l| l == "m/override.tf:1:1: error[merge-error]: Failed to read file: The file \"override.tf\" could not be read. Permission denied (os error 13)."),
        "{}",
        got.shown()
    );
    assert!(got.stdout.contains(&format!("n/override.tf:3:5: {WEAKENED}")), "{}", got.shown());
    let got = og(&s, &["audit", "m", "--format", "json"]);
    expect_code("audit --format json", &got, 1);
    assert!(got.stdout.contains("Permission denied"), "{}", got.shown());
    let got = og(&s, &["show", "m"]);
    expect_code("show", &got, 2);
    assert!(got.stderr.contains("override.tf"), "{}", got.shown());
    assert!(got.stderr.contains("Permission denied"), "{}", got.shown());
}

/// A directory that cannot be listed is named in a note, its modules not judged; the run
/// goes on with the others.
pub fn an_unlistable_directory_is_a_note_and_the_rest_is_judged() {
    let s = sandbox();
    s.write("closed/inner/main.tf", DB_MAIN);
    s.write("open/main.tf", DB_MAIN);
    s.write("open/override.tf", WEAKEN);
    committed(&s);
    let p = s.path("closed");
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o000)).expect("chmod");
    assert!(std::fs::read_dir(&p).is_err(), "mode 000 stops listing here");
    let got = og(&s, &["audit", "--format", "compact"]);
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).expect("chmod back");
    expect_code("audit", &got, 1);
    assert!(got.stdout.contains(&format!("open/override.tf:3:5: {WEAKENED}")), "{}", got.shown());
    assert!(
        got.stderr.contains(
            "note: closed: cannot be listed: Permission denied (os error 13); not judged"
        ),
        "{}",
        got.shown()
    );
}
