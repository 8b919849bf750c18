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
mod releases;
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

/// README.md and the pages of `docs/`, each as its path and its text.
fn doc_pages() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut names: Vec<String> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| format!("docs/{}", e.unwrap().file_name().to_string_lossy()))
        .filter(|n| n.ends_with(".md"))
        .collect();
    names.sort();
    names.insert(0, "README.md".to_string());
    names
        .into_iter()
        .map(|n| (n.clone(), std::fs::read_to_string(root.join(&n)).unwrap()))
        .collect()
}

/// The docs' count of each fixture suite (`tests/fixtures/<suite>/… (N cases`), of the
/// merge fixtures Terraform planned (`N merge fixtures whose plan succeeds`) and of the
/// syntax suite's known differences (`known-differences.txt` (N cases)) is the number the
/// suite has: the docs cannot drift from the tests.
fn readme_counts() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut checked = 0;
    for (page, text) in doc_pages() {
        for suite in ["merge", "vars", "policy", "fix", "fold", "syntax", "releases"] {
            let mention = format!("tests/fixtures/{suite}/");
            for (at, _) in text.match_indices(&mention) {
                let rest = &text[at..];
                let Some(open) = rest.find(" (").filter(|&i| i < 40) else { continue };
                let after = &rest[open + 2..];
                let raw: String =
                    after.chars().take_while(|c| c.is_ascii_digit() || *c == ',').collect();
                let Ok(said) = raw.replace(',', "").parse::<usize>() else { continue };
                if !after[raw.len()..].starts_with(" cases") {
                    continue;
                }
                let has = fixture::fixtures(suite).len();
                assert_eq!(said, has, "{page} says {suite} has {said} cases; it has {has}");
                checked += 1;
            }
        }
        let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
        for (at, _) in flat.match_indices(" merge fixtures whose plan succeeds") {
            let said: usize = flat[..at].rsplit(' ').next().unwrap().parse().unwrap();
            let has = fixture::fixtures("merge")
                .iter()
                .filter(|case| case.join("config.json").is_file())
                .count();
            assert_eq!(said, has, "{page} says {said} merge fixtures have a plan; {has} do");
            checked += 1;
        }
        let mention = "`known-differences.txt` (";
        for (at, _) in flat.match_indices(mention) {
            let said: usize =
                flat[at + mention.len()..].split(' ').next().unwrap().parse().unwrap();
            let listed =
                std::fs::read_to_string(root.join("tests/fixtures/syntax/known-differences.txt"))
                    .unwrap();
            let has = listed.lines().filter(|l| !l.is_empty() && !l.starts_with('#')).count();
            assert_eq!(said, has, "{page} says {said} known differences; the file lists {has}");
            checked += 1;
        }
    }
    // The type corpus: its cases, and how many of them are named divergences.
    let corpus = std::fs::read_to_string(root.join("tests/fixtures/types/cases.toml")).unwrap();
    let cases = corpus.lines().filter(|l| *l == "[[case]]").count();
    let code = std::fs::read_to_string(root.join("src/cty/corpus.rs")).unwrap();
    let list = code.split("KNOWN_DIVERGENCES: &[&str] = &[").nth(1).unwrap();
    let diverge = list[..list.find("];").unwrap()].matches("\",").count();
    let said = format!(
        "`tests/fixtures/types/cases.toml` ({cases} cases): a variable's type and default, and \
         what Terraform 1.15.5 made of it (the converted value and its type, or the error, \
         byte for byte). {} agree; {diverge} are named divergences",
        cases - diverge
    );
    let flat: Vec<String> = doc_pages()
        .iter()
        .map(|(_, t)| t.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    assert!(flat.iter().any(|t| t.contains(&said)), "the docs should say: {said}");
    assert!(checked >= 8, "the docs' fixture counts were not found ({checked})");
}

fn main() {
    let args = Arguments::from_args();
    let mut trials = Vec::new();
    trials.extend(merge::trials());
    trials.extend(opentofu::trials());
    trials.extend(releases::trials());
    trials.extend(syntax::trials());
    trials.extend(fmt::trials());
    trials.extend(vars::trials());
    trials.extend(policy::trials());
    trials.extend(fix::trials());
    trials.extend(fold::trials());
    trials.push(whole("readme", "fixture-counts", readme_counts));
    libtest_mimic::run(&args, trials).exit();
}
