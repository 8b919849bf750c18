//! The tests that need something of the machine besides the binary (see Cargo.toml
//! `[[test]] machine`): an outside tool (the pre-commit framework, prek, maturin, Neovim,
//! regopy, vsce, taplo, tombi), a minute of CPU (the big inputs), a user whom file
//! permissions stop (not root), or the release artifacts that `.ci/release-check build`
//! leaves.
//!
//! libtest's `#[test]` cannot decide at run time that a test is not to run, so a test that
//! returned early when its tool was missing was reported `ok` without having run. Here each
//! test names what it needs; where the machine cannot give it, the test is reported
//! `ignored` and a `note:` line says why and how to run it. `--include-ignored` runs it
//! anyway, and it then fails saying what is missing. `.ci/run` gives every need it can,
//! and `OVERRIDE_GUARD_REQUIRE_E2E` turns a missing pre-commit or maturin into a failure.
// A test binary has no surface: its `pub` items are shared between its own files.
#![allow(unreachable_pub)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout, clippy::print_stderr)]
#![cfg(unix)]

use libtest_mimic::{Arguments, Trial};

mod adoption;
mod big;
mod editor;
#[path = "../measure.rs"]
mod measure;
mod precommit;
mod recipes;
mod rego;
mod release;
mod review;
mod scanners;
#[path = "../shapes.rs"]
mod shapes;
#[path = "../texts.rs"]
mod texts;
mod toml_editors;
mod unprivileged;
#[path = "../util.rs"]
#[allow(dead_code)] // shared with the other test binaries, which use the rest
mod util;
mod vscode;

/// The environment variable that runs the slowest tests (tens of megabytes, ten thousand
/// files: a minute of a debug build's CPU between them; `big.rs`). `.ci/run` sets it.
const SLOW_TESTS: &str = "OVERRIDE_GUARD_SLOW_TESTS";

/// What a test needs that a machine may not have.
#[derive(Clone, Copy)]
enum Need {
    /// Minutes of a debug build's CPU between them: `OVERRIDE_GUARD_SLOW_TESTS=1`.
    Slow,
    /// Executables or folders named by these environment variables.
    Tools(&'static [&'static str]),
    /// A user whom a file's permissions stop (root reads a file of mode 000).
    NotRoot,
    /// The artifacts `.ci/release-check build` leaves in target/release-artifacts/.
    ReleaseArtifacts,
}

impl Need {
    /// Why the machine cannot give it, or `None` when it can.
    fn unmet(self) -> Option<String> {
        let set = |var: &str| std::env::var_os(var).is_some_and(|v| !v.is_empty());
        match self {
            Need::Slow if set(SLOW_TESTS) => None,
            Need::Slow => {
                Some(format!("slow; {}=1 cargo test runs it (as .ci/run does)", SLOW_TESTS))
            }
            // Neovim, vsce and taplo are installed by .ci/run only where the machine allows
            // (apt-get as root, npm): their tests stay ignored without them.
            Need::Tools(vars)
                if set(precommit::REQUIRE_VAR)
                    && !vars
                        .iter()
                        .any(|v| [editor::NVIM, toml_editors::TAPLO, vscode::VSCE].contains(v)) =>
            {
                None
            }
            Need::Tools(vars) => {
                let missing: Vec<&str> = vars.iter().copied().filter(|v| !set(v)).collect();
                (!missing.is_empty()).then(|| {
                    format!(
                        "{} not set (see tests/machine/{}; .ci/run sets {})",
                        missing.join(", "),
                        if vars.contains(&editor::NVIM) {
                            "editor.rs"
                        } else if vars.contains(&scanners::CHECKOV) {
                            "scanners.rs"
                        } else if vars.contains(&rego::PYTHON) {
                            "rego.rs"
                        } else if vars.contains(&review::PYTHON) {
                            "review.rs"
                        } else if vars.contains(&vscode::VSCE) {
                            "vscode.rs"
                        } else if vars.contains(&toml_editors::TAPLO)
                            || vars.contains(&toml_editors::TOMBI)
                        {
                            "toml_editors.rs"
                        } else {
                            "precommit.rs"
                        },
                        if missing.len() == 1 { "it" } else { "them" }
                    )
                })
            }
            // SAFETY: geteuid has no preconditions and cannot fail.
            Need::NotRoot if unsafe { libc::geteuid() } != 0 => None,
            Need::NotRoot => Some("running as root, whom file permissions do not stop".into()),
            Need::ReleaseArtifacts => release::unmet(),
        }
    }
}

/// Every test of this binary: name, need, body.
const TESTS: &[(&str, Need, fn())] = &[
    (
        "adoption/the_readme_adoption_steps_let_the_first_commit_through",
        Need::Tools(&[precommit::PRE_COMMIT_VAR]),
        adoption::the_readme_adoption_steps_let_the_first_commit_through,
    ),
    (
        "big/a_fifty_megabyte_file_gives_the_correct_result",
        Need::Slow,
        big::a_fifty_megabyte_file_gives_the_correct_result,
    ),
    (
        "big/a_hundred_thousand_attributes_in_one_block",
        Need::Slow,
        big::a_hundred_thousand_attributes_in_one_block,
    ),
    (
        "big/overriding_a_hundred_thousand_attributes_takes_linear_time",
        Need::Slow,
        big::overriding_a_hundred_thousand_attributes_takes_linear_time,
    ),
    (
        "big/audit_time_is_linear_in_the_findings",
        Need::Slow,
        big::audit_time_is_linear_in_the_findings,
    ),
    ("big/ten_thousand_override_files", Need::Slow, big::ten_thousand_override_files),
    (
        "big/many_unclosed_openers_are_read_in_linear_time",
        Need::Slow,
        big::many_unclosed_openers_are_read_in_linear_time,
    ),
    (
        "big/hostile_shapes_at_tens_of_megabytes_stay_within_their_multiples",
        Need::Slow,
        big::hostile_shapes_at_tens_of_megabytes_stay_within_their_multiples,
    ),
    (
        "editor/neovim_shows_diagnostics_hover_and_hints_and_applies_the_comment_action",
        Need::Tools(&[editor::NVIM]),
        editor::neovim_shows_diagnostics_hover_and_hints_and_applies_the_comment_action,
    ),
    (
        "precommit/pre_commit_framework_blocks_commits_by_their_staged_content",
        Need::Tools(&[precommit::PRE_COMMIT_VAR]),
        precommit::pre_commit_framework_blocks_commits_by_their_staged_content,
    ),
    (
        "precommit/prek_runs_the_hooks_built_from_source",
        Need::Tools(&[precommit::PREK_VAR]),
        precommit::prek_runs_the_hooks_built_from_source,
    ),
    (
        "precommit/the_python_hooks_install_the_prebuilt_wheel",
        Need::Tools(&[
            precommit::PRE_COMMIT_VAR,
            precommit::MATURIN_VAR,
            precommit::WHEELHOUSE_VAR,
        ]),
        precommit::the_python_hooks_install_the_prebuilt_wheel,
    ),
    (
        "rego/a_rego_policy_on_config_json_sees_the_merged_configuration",
        Need::Tools(&[rego::PYTHON]),
        rego::a_rego_policy_on_config_json_sees_the_merged_configuration,
    ),
    (
        "review/cmark_gfm_renders_the_review_with_its_tables_links_and_folded_diffs",
        Need::Tools(&[review::PYTHON]),
        review::cmark_gfm_renders_the_review_with_its_tables_links_and_folded_diffs,
    ),
    (
        "review/bitbucket_renderers_show_the_review_with_no_html_in_it",
        Need::Tools(&[review::PYTHON]),
        review::bitbucket_renderers_show_the_review_with_no_html_in_it,
    ),
    (
        "recipes/the_merge_request_and_pull_request_recipes_post_their_review",
        Need::Tools(&[review::PYTHON]),
        recipes::the_merge_request_and_pull_request_recipes_post_their_review,
    ),
    (
        "recipes/the_actions_check_comments_what_a_push_adds_on_its_commit",
        Need::Tools(&[review::PYTHON]),
        recipes::the_actions_check_comments_what_a_push_adds_on_its_commit,
    ),
    (
        "recipes/the_actions_diff_reviews_a_pull_request_in_a_comment_and_the_job_summary",
        Need::Tools(&[review::PYTHON]),
        recipes::the_actions_diff_reviews_a_pull_request_in_a_comment_and_the_job_summary,
    ),
    (
        "recipes/the_gitlab_push_recipe_comments_what_a_push_adds_on_its_commit",
        Need::Tools(&[review::PYTHON]),
        recipes::the_gitlab_push_recipe_comments_what_a_push_adds_on_its_commit,
    ),
    (
        "recipes/the_bitbucket_push_recipe_comments_what_a_push_adds_on_its_commit",
        Need::Tools(&[review::PYTHON]),
        recipes::the_bitbucket_push_recipe_comments_what_a_push_adds_on_its_commit,
    ),
    (
        "recipes/the_bitbucket_data_center_recipe_posts_its_review",
        Need::Tools(&[review::PYTHON]),
        recipes::the_bitbucket_data_center_recipe_posts_its_review,
    ),
    (
        "review/the_review_poster_edits_its_own_comment_found_by_its_marker",
        Need::Tools(&[review::PYTHON]),
        review::the_review_poster_edits_its_own_comment_found_by_its_marker,
    ),
    (
        "release/every_archive_matches_its_sum_holds_the_docs_and_runs",
        Need::ReleaseArtifacts,
        release::every_archive_matches_its_sum_holds_the_docs_and_runs,
    ),
    (
        "release/each_wheel_is_named_for_its_platform_and_carries_the_binary",
        Need::ReleaseArtifacts,
        release::each_wheel_is_named_for_its_platform_and_carries_the_binary,
    ),
    (
        "scanners/checkov_judges_the_effective_module_on_the_users_own_lines",
        Need::Tools(&[scanners::CHECKOV]),
        scanners::checkov_judges_the_effective_module_on_the_users_own_lines,
    ),
    (
        "scanners/a_primary_made_safe_by_an_override_gives_no_failure",
        Need::Tools(&[scanners::CHECKOV]),
        scanners::a_primary_made_safe_by_an_override_gives_no_failure,
    ),
    (
        "scanners/a_tofu_twin_is_scanned_instead_of_its_tf",
        Need::Tools(&[scanners::CHECKOV]),
        scanners::a_tofu_twin_is_scanned_instead_of_its_tf,
    ),
    (
        "toml_editors/taplo_checks_policies_against_the_schema",
        Need::Tools(&[toml_editors::TAPLO]),
        toml_editors::taplo_checks_policies_against_the_schema,
    ),
    (
        "toml_editors/tombi_checks_policies_through_their_schema_line",
        Need::Tools(&[toml_editors::TOMBI]),
        toml_editors::tombi_checks_policies_through_their_schema_line,
    ),
    (
        "unprivileged/an_unreadable_file_is_a_finding_of_its_module",
        Need::NotRoot,
        unprivileged::an_unreadable_file_is_a_finding_of_its_module,
    ),
    (
        "unprivileged/an_unlistable_directory_is_a_note_and_the_rest_is_judged",
        Need::NotRoot,
        unprivileged::an_unlistable_directory_is_a_note_and_the_rest_is_judged,
    ),
    (
        "vscode/the_packaged_extension_carries_the_licence_texts",
        Need::Tools(&[vscode::VSCE]),
        vscode::the_packaged_extension_carries_the_licence_texts,
    ),
];

fn main() {
    let args = Arguments::from_args();
    let trials = TESTS
        .iter()
        .map(|&(name, need, body)| {
            let why = need.unmet();
            if let Some(why) = &why {
                println!("note: {name} is ignored: {why}");
            }
            Trial::test(name, move || {
                body();
                Ok(())
            })
            .with_ignored_flag(why.is_some())
        })
        .collect();
    libtest_mimic::run(&args, trials).exit();
}
