//! The fixture suites, one named test per case (see Cargo.toml `[[test]] cases`).
//!
//! Each case of `tests/fixtures/<suite>/` is a test called `<suite>/<case>/<check>`, so a
//! failure names its case, every failing case is listed (not only the first), cases run in
//! parallel, and one case can be run alone:
//! `cargo test --test cases -- merge/148` or `cargo test --test cases -- --exact
//! syntax/541-type-error/agrees-with-terraform`. Checks over a whole suite (how many cases
//! it has, pinned summaries) are tests of their own, named `<suite>/<check>`.
// A test binary has no surface: its `pub` items are shared between its own files.
#![allow(unreachable_pub)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout, clippy::print_stderr)]

use std::path::{Path, PathBuf};

use libtest_mimic::{Arguments, Trial};

mod fix;
mod fixture;
mod fmt;
mod fold;
mod merge;
mod opentofu;
mod policy;
mod syntax;
#[path = "../util.rs"]
#[allow(dead_code)] // shared with the other test binary, which uses the rest
mod util;
mod vars;

/// The name of a case's folder.
pub fn case_name(case: &Path) -> String {
    case.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string()
}

/// One test per case of `cases`, named `<suite>/<case>/<check>`, running `run` on it.
pub fn per_case(
    suite: &str,
    check: &str,
    cases: Vec<PathBuf>,
    run: fn(&Path),
) -> impl Iterator<Item = Trial> {
    let (suite, check) = (suite.to_string(), check.to_string());
    cases.into_iter().map(move |case| {
        Trial::test(format!("{suite}/{}/{check}", case_name(&case)), move || {
            run(&case);
            Ok(())
        })
    })
}

/// A test over a whole suite, named `<suite>/<check>`.
pub fn whole(suite: &str, check: &str, run: fn()) -> Trial {
    Trial::test(format!("{suite}/{check}"), move || {
        run();
        Ok(())
    })
}

/// The README's count of each fixture suite (`tests/fixtures/<suite>/… (N cases`) is the
/// number of cases the suite has: the docs cannot drift from the tests.
fn readme_counts() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let mut checked = 0;
    for suite in ["merge", "vars", "policy", "fix", "fold", "syntax"] {
        let mention = format!("tests/fixtures/{suite}/");
        for (at, _) in readme.match_indices(&mention) {
            let rest = &readme[at..];
            let Some(open) = rest.find(" (").filter(|&i| i < 40) else { continue };
            let after = &rest[open + 2..];
            let raw: String =
                after.chars().take_while(|c| c.is_ascii_digit() || *c == ',').collect();
            let Ok(said) = raw.replace(',', "").parse::<usize>() else { continue };
            if !after[raw.len()..].starts_with(" cases") {
                continue;
            }
            let has = fixture::fixtures(suite).len();
            assert_eq!(said, has, "README.md says {suite} has {said} cases; it has {has}");
            checked += 1;
        }
    }
    assert!(checked >= 6, "the README's fixture counts were not found ({checked})");
}

fn main() {
    let args = Arguments::from_args();
    let mut trials = Vec::new();
    trials.extend(merge::trials());
    trials.extend(opentofu::trials());
    trials.extend(syntax::trials());
    trials.extend(fmt::trials());
    trials.extend(vars::trials());
    trials.extend(policy::trials());
    trials.extend(fix::trials());
    trials.extend(fold::trials());
    trials.push(whole("readme", "fixture-counts", readme_counts));
    libtest_mimic::run(&args, trials).exit();
}
