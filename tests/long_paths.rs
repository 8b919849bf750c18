//! An index entry whose path is 4,095 bytes or longer, made and committed by git itself:
//! every command that reads the index must still read it (gix-index misreads such entries
//! of index versions 2 and 3; `src/source/index_file.rs` says how), and judge the ordinary
//! module beside it. And the index is named from the repository's root in errors.

use crate::texts::{DB_MAIN, WEAKEN};
use crate::util::{Run, Sandbox};

/// A path of exactly `len` bytes: `top/`, directories of 199 bytes, one shorter and
/// `last` (no file is made: the index alone holds it).
fn long_path(top: &str, len: usize, last: &str) -> String {
    let mut p = format!("{top}/");
    while len - p.len() - last.len() > 200 {
        p.push_str(&"d".repeat(199));
        p.push('/');
    }
    p.push_str(&"x".repeat(len - p.len() - last.len()));
    p.push_str(last);
    assert_eq!(p.len(), len);
    p
}

/// `db/` committed, two entries with long paths added to the index (a text file of 4,095
/// bytes and a module file of 5,000, whose module is ordinary) and committed, then the
/// weakening `db/override.tf` staged.
fn repository() -> (Sandbox, Vec<String>) {
    let s = Sandbox::new();
    s.commit(&[("db/main.tf", DB_MAIN)], "db");
    s.write("blob.txt", "text\n");
    s.write("vpc.tf", "resource \"aws_vpc\" \"a\" {}\n");
    let text = s.git(&["hash-object", "-w", "blob.txt"]).trim().to_string();
    let tf = s.git(&["hash-object", "-w", "vpc.tf"]).trim().to_string();
    std::fs::remove_file(s.path("blob.txt")).expect("rm");
    std::fs::remove_file(s.path("vpc.tf")).expect("rm");
    let long = vec![long_path("notes", 4095, "/a.txt"), long_path("deep", 5000, "/main.tf")];
    s.git(&["update-index", "--add", "--cacheinfo", &format!("100644,{text},{}", long[0])]);
    s.git(&["update-index", "--add", "--cacheinfo", &format!("100644,{tf},{}", long[1])]);
    s.git(&["commit", "-q", "--no-verify", "-m", "long paths"]);
    s.stage(&[("db/override.tf", WEAKEN)]);
    (s, long)
}

/// The commands that read the index, and the exit code each gives for the weakening.
const READERS: &[(&[&str], i32)] = &[
    (&["check", "--format", "compact"], 1),
    (&["audit", "--staged", "--format", "compact"], 1),
    (&["diff", "--format", "compact"], 1),
    (&["show", "db", "--staged", "--color", "never"], 0),
];

#[track_caller]
fn expect(got: &Run, code: i32, what: &str) {
    assert_eq!(got.code, code, "{what}\n{}", got.shown());
    assert!(!got.err().contains("panicked"), "{what}\n{}", got.shown());
}

#[test]
fn paths_of_4095_bytes_and_more_in_the_index_are_read_in_every_index_version() {
    let (s, long) = repository();
    // git itself reads them.
    let listed = s.git(&["ls-files"]);
    assert!(long.iter().all(|p| listed.lines().any(|l| l == p)), "{listed}");
    for version in ["2", "3", "4"] {
        s.git(&["update-index", "--index-version", version]);
        // git writes version 3 only for entries with extended flags: skip-worktree on the
        // long entry gives it one (two bytes more before its path).
        let skip = if version == "3" { "--skip-worktree" } else { "--no-skip-worktree" };
        s.git(&["update-index", skip, &long[0]]);
        let written = std::fs::read(s.path(".git/index")).expect("index");
        assert_eq!(
            written[4..8],
            version.parse::<u32>().unwrap().to_be_bytes(),
            "the version git wrote"
        );
        for (args, code) in READERS {
            let what = format!("index version {version}: {args:?}");
            let got = s.run(args);
            expect(&got, *code, &what);
            if args[0] != "show" {
                assert!(
                    got.out().contains("db/override.tf:3:5: error[weakened-safeguard]"),
                    "{what}\n{}",
                    got.shown()
                );
            }
        }
        // The module under the long path is one of the index's, read whole.
        let got = s.run(&["audit", "--staged", "--format", "compact"]);
        let out = got.out();
        let last = out.lines().last().unwrap_or_default();
        assert!(
            last.starts_with("2 modules, 3 files, 1 override file"),
            "version {version}\n{}",
            got.shown()
        );
        let dir = long[1].trim_end_matches("/main.tf");
        let got = s.run(&["show", dir, "--staged", "--color", "never"]);
        expect(&got, 0, "show the long module");
        assert!(got.out().contains("resource \"aws_vpc\" \"a\""), "{}", got.shown());
    }
    // The hook lets a commit without findings through, long paths and all.
    s.git(&["update-index", "--index-version", "2"]);
    s.git(&["rm", "-q", "--cached", "db/override.tf"]);
    expect(&s.run(&["check", "--format", "compact"]), 0, "nothing staged");
}

#[test]
fn a_damaged_index_with_long_paths_is_still_an_error() {
    let (s, _) = repository();
    let index = s.path(".git/index");
    let good = std::fs::read(&index).expect("index");
    let mut bad = good.clone();
    let mid = bad.len() / 2;
    bad[mid] ^= 0xff;
    std::fs::write(&index, &bad).expect("write");
    for (args, _) in READERS {
        let got = s.run(args);
        expect(&got, 2, &format!("{args:?}"));
        assert!(
            got.err().contains("error: .git/index: the index's checksum does not match"),
            "{args:?}\n{}",
            got.shown()
        );
    }
    // A split index's entries are in another file this reader does not read: refused.
    std::fs::write(&index, &good).expect("write");
    s.git(&["update-index", "--split-index"]);
    let got = s.run(&["check", "--format", "compact"]);
    expect(&got, 2, "split");
    assert!(got.err().contains("split index"), "{}", got.shown());
    s.git(&["update-index", "--no-split-index"]);
    expect(&s.run(&["check", "--format", "compact"]), 1, "whole again");
}

#[test]
fn an_index_error_names_the_index_from_the_root_not_by_an_absolute_path() {
    let s = Sandbox::new();
    s.commit(&[("db/main.tf", DB_MAIN)], "db");
    let index = s.path(".git/index");
    let mut bad = std::fs::read(&index).expect("index");
    let n = bad.len();
    bad[n - 5] ^= 0xff;
    std::fs::write(&index, &bad).expect("write");
    let abs = s.tmp.path().to_string_lossy().into_owned();
    let canon =
        std::fs::canonicalize(s.tmp.path()).expect("canonical").to_string_lossy().into_owned();
    for dir in ["", "db"] {
        for (args, _) in READERS {
            let mut cmd = s.command(dir);
            let out = cmd.args(*args).output().expect("runs");
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{dir}: {args:?}\n{err}");
            assert!(err.contains("error: .git/index: "), "{dir}: {args:?}\n{err}");
            assert!(!err.contains(&abs) && !err.contains(&canon), "{dir}: {args:?}\n{err}");
            assert!(!err.contains("/./") && !err.contains("/../"), "{dir}: {args:?}\n{err}");
        }
    }
}
