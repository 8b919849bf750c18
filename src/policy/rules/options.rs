//! The rules' options: the slot each rule with options fills from its `[rules.<id>]` table
//! and reads in its check, and the signature of the function that fills it. Below the
//! rules and the context (which hands the options to the checks), so that the rules, the
//! context and the policy file's reader all take them from here.

use globset::GlobSet;
use regex::Regex;

use crate::policy::validate::{Validator, Value};

/// Every rule's options, each slot filled by its rule's `Configure` and read by its
/// check; a rule without options has no slot.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub override_file: OverrideFileOptions,
    pub comment: CommentOptions,
    pub protected: ProtectedOptions,
}

/// Reads one key of `[rules.<id>]` that the rule lists in its `options` into its slot,
/// reporting a bad value through the validator. `false` means the rule does not know the
/// key after all, which the caller reports as unknown: nothing is accepted unread.
pub(crate) type Configure = fn(&mut Validator<'_>, &str, &Value<'_>, &mut Options) -> bool;

/// Options of `override-file`.
#[derive(Clone, Debug, Default)]
pub struct OverrideFileOptions {
    pub allow_paths: Option<GlobSet>,
    pub only_json: bool,
    pub max_per_module: Option<usize>,
}

/// Options of `missing-override-comment`.
#[derive(Clone, Debug, Default)]
pub struct CommentOptions {
    /// The comment must match this; `{override}` stands for the override file's name.
    pub pattern: Option<String>,
}

impl CommentOptions {
    /// What a warning comment about one override file must match: the file's name, or
    /// the policy's regex (compiled once per override file, not per block).
    pub fn matcher_for(&self, override_name: &str) -> Option<CommentMatcher> {
        match &self.pattern {
            None => Some(CommentMatcher::Names(override_name.to_string())),
            Some(p) => Regex::new(&p.replace("{override}", &regex::escape(override_name)))
                .ok()
                .map(CommentMatcher::Regex),
        }
    }
}

/// See `CommentOptions::matcher_for`.
#[derive(Clone, Debug)]
pub enum CommentMatcher {
    Names(String),
    Regex(Regex),
}

impl CommentMatcher {
    pub fn is_match(&self, comment: &str) -> bool {
        match self {
            CommentMatcher::Names(n) => names_file(comment, n),
            CommentMatcher::Regex(r) => r.is_match(comment),
        }
    }
}

/// Does `text` name the file `name` (not merely end with it, as `logs_override.tf` ends
/// with `override.tf`)?
fn names_file(text: &str, name: &str) -> bool {
    let part = |c: char| c.is_alphanumeric() || matches!(c, '_' | '-' | '.');
    text.match_indices(name).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let mut rest = text[i + name.len()..].chars();
        let after = rest.next();
        // A sentence's full stop ends the name; `override.tf.json` is another file.
        let longer = match after {
            Some('.') => rest.next().is_some_and(char::is_alphanumeric),
            Some(c) => c.is_alphanumeric() || c == '_' || c == '-',
            None => false,
        };
        !before.is_some_and(part) && !longer
    })
}

/// Options of `protected-attribute`.
#[derive(Clone, Debug, Default)]
pub struct ProtectedOptions {
    /// Dotted attribute paths, globs per segment (`resource.aws_s3_bucket.*.acl`).
    pub attributes: Option<GlobSet>,
    pub raw: Vec<String>,
}

impl ProtectedOptions {
    /// The first protected pattern that matches a dotted path.
    pub fn matches(&self, dotted: &str) -> Option<&str> {
        let set = self.attributes.as_ref()?;
        let path = dotted.replace('.', "/");
        set.matches(&path).first().map(|&i| self.raw[i].as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::names_file;

    #[test]
    fn a_comment_names_the_file_and_not_a_longer_one() {
        for yes in [
            "overridden by override.tf",
            "see override.tf.",
            "(override.tf)",
            "`override.tf`: instance type",
            "override.tf",
        ] {
            assert!(names_file(yes, "override.tf"), "{yes}");
        }
        for no in [
            "overridden by b_override.tf",
            "see override.tf.json",
            "override.tfvars",
            "override.tf-old",
            "my-override.tf",
        ] {
            assert!(!names_file(no, "override.tf"), "{no}");
        }
    }
}
