//! The registry: what is made of the list of every rule (`RULES`, declared with the rule
//! files in `mod.rs`): lookup by id, the functions that read the options of the rules that
//! have some, the generated `docs/rules.md`. Above every rule file and imported by none of
//! them: the policy file's reader and the evaluation know the rules only through it.

use super::RULES;
use super::options::Configure;
use super::rule::Rule;
use crate::finding::RuleId;

/// The function that reads a rule's options, if it has any.
pub(crate) fn configure(id: RuleId) -> Option<Configure> {
    RULES.iter().find(|r| r.id == id).and_then(|r| r.configure)
}

/// Looks a rule up by id.
pub fn find(id: &str) -> Option<&'static Rule> {
    RULES.iter().copied().find(|r| r.id.as_str() == id)
}

/// May an inline suppression silence this rule's findings (see [`Rule::inline`])?
pub fn inline(id: RuleId) -> bool {
    RULES.iter().find(|r| r.id == id).is_none_or(|r| r.inline)
}

/// Where a rule is documented on the web: its section of `docs/rules.md` in the
/// repository named in `Cargo.toml` (SARIF's `helpUri`, for code scanning's rule help).
pub(crate) fn doc_url(id: &str) -> String {
    format!("{}/blob/main/docs/rules.md#{id}", env!("CARGO_PKG_REPOSITORY"))
}

/// `docs/rules.md`: every rule's documentation, as `explain` prints it, under a heading
/// whose anchor is the rule id. Generated here; a test keeps the file in step.
#[cfg(test)]
fn markdown() -> String {
    let mut out = String::from(
        "# override-guard rules\n\n\
         Generated from the rules' own documentation: `override-guard explain RULE` prints the\n\
         same text. Each section's anchor is the rule id (SARIF results link here).\n\n\
         | rule | default | what it finds |\n|---|---|---|\n",
    );
    for r in RULES {
        out.push_str(&format!(
            "| [`{0}`](#{0}) | {1} | {2} |\n",
            r.id,
            r.level.as_str(),
            r.summary
        ));
    }
    for r in RULES {
        out.push_str(&format!(
            "\n## `{}`\n\nDefault level: **{}**. Finds: {}.\n\n```text\n{}",
            r.id,
            r.level.as_str(),
            r.summary,
            r.doc
        ));
        if !r.doc.ends_with('\n') {
            out.push('\n');
        }
        out.push_str("```\n");
        if !r.options.is_empty() {
            out.push_str("\nOptions (in `[rules.");
            out.push_str(r.id.as_str());
            out.push_str("]`):\n\n");
            for o in r.options {
                out.push_str(&format!("- `{}`: {}\n", o.name, o.help));
            }
        }
    }
    out
}

/// ` (did you mean `x`?)` for a misspelt rule id, or nothing.
pub(crate) fn suggestion(id: &str) -> String {
    crate::diag::did_you_mean(id, RULES.iter().map(|r| r.id.as_str()))
        .map(|d| format!(" (did you mean `{d}`?)"))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each file beside the registry is a rule file of the one list of rules (a file the
    /// list misses is not even compiled, so its rule would be silently absent), and every
    /// id has its rule in `RULES`, once, its `Rule` naming that id.
    #[test]
    fn every_rule_file_and_every_id_is_in_the_registry() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let finding = std::fs::read_to_string(root.join("src/finding/mod.rs")).expect("the list");
        let list = &finding[finding.find("macro_rules! rules").expect("the list of rules")..];
        let list = &list[..list.find("pub(crate) use rules;").expect("its end")];
        let dir = root.join("src/policy/rules");
        for entry in std::fs::read_dir(&dir).expect("the rules' directory") {
            let name = entry.expect("an entry").file_name().to_string_lossy().into_owned();
            let stem = name.strip_suffix(".rs").unwrap_or(&name);
            if ["mod", "options", "registry", "rule"].contains(&stem) {
                continue;
            }
            let line = |l: &str| l.trim().starts_with(&format!("{stem}:"));
            assert!(list.lines().any(line), "{name} is not in the list of rules (finding::rules!)");
        }
        let mut listed: Vec<RuleId> = RULES.iter().map(|r| r.id).collect();
        listed.sort();
        assert_eq!(listed, RuleId::ALL.to_vec(), "each id has one rule in RULES, in list order");
    }

    /// A file written from the code is what the code writes; `OVERRIDE_GUARD_WRITE_DOCS=1`
    /// writes it (`cargo test --lib NAME` re-generates just that one).
    fn up_to_date(rel: &str, want: &str, test: &str) {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
        if std::env::var_os("OVERRIDE_GUARD_WRITE_DOCS").is_some() {
            std::fs::write(&path, want).expect("write a generated file");
        }
        let got = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(got == want, "{rel} is stale: OVERRIDE_GUARD_WRITE_DOCS=1 cargo test --lib {test}");
    }

    /// docs/rules.md is what [`markdown`] writes.
    #[test]
    fn rules_doc_is_up_to_date() {
        up_to_date("docs/rules.md", &markdown(), "rules_doc");
    }

    /// `policies/default.toml`, the built-in policy, as the rules' own default levels make it:
    /// each level is declared once, in its rule's file, and the file is written from them (a
    /// test keeps it so).
    fn default_policy() -> String {
        let mut out = String::from(
            "# The built-in policy: what override-guard applies when no .override-guard.toml is found.\n\
             # Overrides are allowed but made visible; anything that changes safety or state is denied.\n\
             # Written from each rule's default level (docs/rules.md); do not edit.\n\n[rules]\n",
        );
        for r in RULES {
            out.push_str(&format!("{} = \"{}\"\n", r.id, r.level.as_str()));
        }
        out
    }

    /// policies/default.toml is what [`default_policy`] writes.
    #[test]
    fn default_policy_file_is_up_to_date() {
        up_to_date("policies/default.toml", &default_policy(), "default_policy");
    }

    /// The registry lists the rules in the order their ids are declared: report order.
    #[test]
    fn the_registry_is_in_report_order() {
        let ids: Vec<RuleId> = RULES.iter().map(|r| r.id).collect();
        assert_eq!(ids, RuleId::ALL);
    }

    /// docs/policy.md's rule table has a row for every rule, at its default level (the
    /// description is the page's own wording).
    #[test]
    fn policy_doc_rule_table_names_every_rule() {
        let page = include_str!("../../../docs/policy.md");
        for r in RULES {
            let row = format!("| [`{0}`](rules.md#{0}) | {1} | ", r.id, r.level.as_str());
            assert!(page.contains(&row), "docs/policy.md's rule table lacks: {row}");
        }
    }

    /// A rule reads options exactly when it lists some: a listed option without a reader
    /// would be refused as unknown, a reader without listed options never called.
    #[test]
    fn rules_with_options_read_them() {
        for r in RULES {
            assert_eq!(configure(r.id).is_some(), !r.options.is_empty(), "{}", r.id);
        }
    }

    #[test]
    fn ids_are_unique_kebab_case_and_documented() {
        let mut seen = std::collections::HashSet::new();
        for r in RULES {
            assert!(seen.insert(r.id), "duplicate rule id {}", r.id);
            assert!(r.id.as_str().chars().all(|c| c.is_ascii_lowercase() || c == '-'), "{}", r.id);
            for section in ["What it checks", "Why", "Example"] {
                assert!(r.doc.contains(section), "{} lacks {section}", r.id);
            }
        }
    }
}
