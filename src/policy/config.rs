//! The policy file (`.override-guard.toml`): read with spans, validated by hand so that
//! every mistake (unknown key, wrong type, bad glob or regex, unknown rule id) becomes a
//! diagnostic pointing into the TOML, with a "did you mean" where one fits.
//!
//! Without a policy file the built-in `policies/default.toml` applies; it is parsed by the
//! same code, so the file in the repository is exactly what runs.
//!
//! This file knows the policy's shape (rules with levels, paths and scopes; exceptions);
//! each rule reads its own options (`rules::configure`), through the same generic
//! validator (`validate`). The rules never import this file.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;

use globset::GlobSet;
use toml::de::{DeTable, DeValue};

use super::Level;
use super::date::Date;
use super::rules::{self, Options, RULES, RuleId};
use super::validate::{Field, Kind, PolicyError, Validator, Value, names};
use crate::diag::did_you_mean;
use crate::terraform::release::Release;

/// The built-in default policy.
pub const DEFAULT: &str = include_str!("../../policies/default.toml");
/// Every rule at `deny`, for teams that allow overrides only where they say so.
#[cfg(test)]
pub(crate) const STRICT: &str = include_str!("../../policies/strict.toml");
/// Every key with its default and a one-line comment: the reference.
pub const TEMPLATE: &str = include_str!("../../policies/template.toml");
/// What `init` writes.
pub const STARTER: &str = include_str!("../../policies/starter.toml");

/// The keys of the policy file: the reader looks every key up in these tables (and each
/// rule's `options`), and the JSON Schema (`schema.rs`) is written from the same tables.
pub(crate) const TOP: &[Field] = &[
    Field {
        name: "engine",
        kind: Kind::Release,
        required: false,
        default: None,
        help: "the engine and release the modules under this policy run on (`terraform@1.9`, \
               `opentofu@1.10`); `--engine` wins over it, and without either the release is \
               detected per module (version files, then `required_version`)",
    },
    Field {
        name: "rules",
        kind: Kind::Rules,
        required: false,
        default: None,
        help: "each rule's level (`rule-id = \"deny\"`) or table (`[rules.rule-id]`); \
               a rule not named keeps its default level",
    },
    Field {
        name: "exceptions",
        kind: Kind::Tables(EXCEPTION),
        required: false,
        default: None,
        help: "accepted findings, each with a reason and maybe an end date",
    },
];

/// The keys every `[rules.<id>]` table has, before the rule's own options.
pub const RULE: &[Field] = &[
    Field {
        name: "level",
        kind: Kind::Level,
        required: false,
        default: None,
        help: "the level everywhere the rule applies: \"allow\" (off), \"warn\" (reported, \
               exit 0), \"deny\" (reported, exit 1)",
    },
    Field {
        name: "paths",
        kind: Kind::Globs,
        required: false,
        default: Some("[\"**\"]"),
        help: "globs (relative to the policy file) where the rule applies",
    },
    Field {
        name: "exclude",
        kind: Kind::Globs,
        required: false,
        default: Some("[]"),
        help: "globs where it does not apply",
    },
    Field {
        name: "scope",
        kind: Kind::Tables(SCOPE),
        required: false,
        default: None,
        help: "another level for some paths; the last matching scope wins",
    },
];

/// The keys of a `[[rules.<id>.scope]]`.
pub(crate) const SCOPE: &[Field] = &[
    Field {
        name: "paths",
        kind: Kind::Globs,
        required: true,
        default: None,
        help: "globs (relative to the policy file) where this level applies",
    },
    Field {
        name: "exclude",
        kind: Kind::Globs,
        required: false,
        default: Some("[]"),
        help: "globs left out of `paths`",
    },
    Field {
        name: "level",
        kind: Kind::Level,
        required: true,
        default: None,
        help: "the level there: \"allow\", \"warn\" or \"deny\"",
    },
];

/// The keys of an `[[exceptions]]`.
pub(crate) const EXCEPTION: &[Field] = &[
    Field { name: "rule", kind: Kind::Rule, required: true, default: None, help: "the rule id" },
    Field {
        name: "paths",
        kind: Kind::Globs,
        required: false,
        default: Some("[\"**\"]"),
        help: "globs of the finding's file (default: all)",
    },
    Field {
        name: "address",
        kind: Kind::Globs,
        required: false,
        default: None,
        help: "globs of the finding's address, dotted, `*` per segment (default: all)",
    },
    Field {
        name: "reason",
        kind: Kind::NonBlank,
        required: true,
        default: None,
        help: "why the finding is accepted",
    },
    Field {
        name: "expires",
        kind: Kind::Date,
        required: false,
        default: None,
        help: "a date (2027-01-31, not a string): after it the exception stops applying",
    },
];

/// Where the policy came from.
#[derive(Clone, Debug)]
pub enum Origin {
    BuiltIn,
    File { path: String, text: Arc<str> },
}

/// A validated policy.
#[derive(Clone, Debug)]
pub struct Policy {
    pub origin: Origin,
    rules: HashMap<RuleId, RuleConfig>,
    pub exceptions: Vec<Exception>,
    /// The rules' own options, each read by its rule.
    pub options: Options,
    /// `engine = "terraform@1.9"`: the release the modules it governs run on.
    pub engine: Option<Release>,
}

/// A rule's level and where it applies.
#[derive(Clone, Debug)]
struct RuleConfig {
    level: Level,
    paths: Option<GlobSet>,
    exclude: Option<GlobSet>,
    scopes: Vec<LevelByPath>,
}

/// `[[rules.<id>.scope]]`: a different level for some paths.
#[derive(Clone, Debug)]
struct LevelByPath {
    paths: GlobSet,
    exclude: Option<GlobSet>,
    level: Level,
}

/// `[[exceptions]]`: a finding the team has accepted, with a reason and maybe an end date.
#[derive(Clone, Debug)]
pub struct Exception {
    pub rule: RuleId,
    pub paths: Option<GlobSet>,
    /// The `paths` globs as written (normalized): a run judges the exception unused only
    /// when it saw every directory they can match.
    pub path_globs: Option<Vec<String>>,
    pub address: Option<GlobSet>,
    pub reason: String,
    pub expires: Option<Date>,
    /// The exception's table in the policy file.
    pub span: Range<usize>,
}

impl Policy {
    /// The built-in default.
    pub fn builtin() -> Policy {
        match Policy::parse("default.toml", DEFAULT) {
            Ok(mut p) => {
                p.origin = Origin::BuiltIn;
                p
            }
            // The bundled file is tested; an error here is a bug in this build.
            Err(errors) => panic!("the built-in policy is invalid: {errors:?}"),
        }
    }

    /// Reads and validates a policy file's text.
    pub fn parse(path: &str, text: &str) -> Result<Policy, Vec<PolicyError>> {
        let mut v = Validator::new(path, text);
        let root = match DeTable::parse(text) {
            Ok(t) => t,
            Err(e) => {
                let span = e.span().unwrap_or(0..0);
                v.err(span, e.message().trim_end().to_string(), None);
                return Err(v.finish());
            }
        };
        let mut policy = Policy {
            origin: Origin::File { path: path.to_string(), text: v.text().clone() },
            rules: RULES
                .iter()
                .map(|r| {
                    let rc = RuleConfig {
                        level: r.level,
                        paths: None,
                        exclude: None,
                        scopes: Vec::new(),
                    };
                    (r.id, rc)
                })
                .collect(),
            exceptions: Vec::new(),
            options: Options::default(),
            engine: None,
        };
        for (key, value) in root.get_ref() {
            let Some(field) = v.known(key, TOP, "top-level key") else { continue };
            match field.name {
                "rules" => rules(&mut v, value, &mut policy),
                "engine" => {
                    if let Some(text) = v.string(value, "engine") {
                        match Release::parse(&text) {
                            Ok(r) => policy.engine = Some(r),
                            Err(e) => v.err(value.span(), e.to_string(), None),
                        }
                    }
                }
                "exceptions" => {
                    for t in v.array_of_tables(value) {
                        if let Some(e) = exception(&mut v, t) {
                            policy.exceptions.push(e);
                        }
                    }
                }
                _ => {}
            }
        }
        let errors = v.finish();
        if errors.is_empty() { Ok(policy) } else { Err(errors) }
    }

    /// The level of a rule for a path (relative to the policy's directory).
    pub fn level_for(&self, rule: RuleId, path: &str) -> Level {
        let Some(rc) = self.rules.get(&rule) else { return Level::Warn };
        let mut level = rc.level;
        if rc.paths.as_ref().is_some_and(|g| !g.is_match(path))
            || rc.exclude.as_ref().is_some_and(|g| g.is_match(path))
        {
            level = Level::Allow;
        }
        for s in &rc.scopes {
            if s.paths.is_match(path) && !s.exclude.as_ref().is_some_and(|g| g.is_match(path)) {
                level = s.level;
            }
        }
        level
    }

    /// Can a rule produce anything at all under this policy? (Skips work for `allow`.)
    pub fn may_fire(&self, rule: RuleId) -> bool {
        self.rules.get(&rule).is_none_or(|rc| {
            rc.level != Level::Allow || rc.scopes.iter().any(|s| s.level != Level::Allow)
        })
    }

    /// `--deny/--warn/--allow RULE` from the command line: one level everywhere.
    pub fn set_level(&mut self, rule: RuleId, level: Level) {
        self.rules
            .insert(rule, RuleConfig { level, paths: None, exclude: None, scopes: Vec::new() });
    }

    /// The path to show for the policy (`built-in default` without a file).
    pub fn describe(&self) -> String {
        match &self.origin {
            Origin::BuiltIn => "built-in default policy".into(),
            Origin::File { path, .. } => path.clone(),
        }
    }
}

/// `[rules]`: each rule's level, paths and scopes here; its own options by the rule.
fn rules(vd: &mut Validator<'_>, v: &Value<'_>, policy: &mut Policy) {
    let Some(t) = vd.table(v, "rules") else { return };
    let ids: Vec<&str> = RULES.iter().map(|r| r.id.as_str()).collect();
    for (key, value) in t {
        let Some(rule) = rules::find(key.get_ref()) else {
            vd.unknown(key, key.get_ref(), &ids, "rule");
            continue;
        };
        if value.get_ref().is_str() {
            if let Some(level) = vd.level(value) {
                policy.set_level(rule.id, level);
            }
            continue;
        }
        let DeValue::Table(rt) = value.get_ref() else {
            vd.wrong_type(
                value,
                key.get_ref(),
                "a level (\"allow\", \"warn\", \"deny\") or a table",
            );
            continue;
        };
        let mut rc =
            RuleConfig { level: rule.level, paths: None, exclude: None, scopes: Vec::new() };
        let mut known = names(RULE);
        known.extend(names(rule.options));
        for (k, val) in rt {
            let name = k.get_ref().as_ref();
            if !RULE.iter().any(|f| f.name == name) {
                // Only a listed option reaches its rule, and the rule may still refuse
                // it: whatever no one reads is reported, never passed over.
                let listed = rule.options.iter().any(|o| o.name == name);
                let read = listed
                    && rules::configure(rule.id)
                        .is_some_and(|c| c(vd, name, val, &mut policy.options));
                if !read {
                    vd.unknown(k, name, &known, &format!("key {{}} in [rules.{}]", rule.id))
                }
                continue;
            }
            match name {
                "level" => rc.level = vd.level(val).unwrap_or(rc.level),
                "paths" => rc.paths = vd.globs(val, "paths"),
                "exclude" => rc.exclude = vd.globs(val, "exclude"),
                "scope" => {
                    for (st, _) in vd.array_of_tables(val) {
                        if let Some(s) = scope(vd, st) {
                            rc.scopes.push(s);
                        }
                    }
                }
                _ => {}
            }
        }
        policy.rules.insert(rule.id, rc);
    }
}

/// One `[[rules.<id>.scope]]`.
fn scope(vd: &mut Validator<'_>, t: &DeTable<'_>) -> Option<LevelByPath> {
    let (mut paths, mut exclude, mut level) = (None, None, None);
    let mut first_key = 0..0;
    for (k, v) in t {
        if first_key == (0..0) {
            first_key = k.span();
        }
        let Some(field) = vd.known(k, SCOPE, "key {} in a scope") else { continue };
        match field.name {
            "paths" => paths = vd.globs(v, "paths"),
            "exclude" => exclude = vd.globs(v, "exclude"),
            "level" => level = vd.level(v),
            _ => {}
        }
    }
    match (paths, level) {
        (Some(paths), Some(level)) => Some(LevelByPath { paths, exclude, level }),
        _ => {
            if !t.contains_key("paths") || !t.contains_key("level") {
                vd.err(first_key, "a scope needs both `paths` and `level`", None);
            }
            None
        }
    }
}

/// One `[[exceptions]]`; `None` when it is incomplete (the mistake is reported).
fn exception(vd: &mut Validator<'_>, (t, span): (&DeTable<'_>, Range<usize>)) -> Option<Exception> {
    let mut rule = None;
    let (mut paths, mut address, mut reason, mut expires) = (None, None, None, None);
    let mut path_globs = None;
    let mut ok = true;
    for (k, v) in t {
        let Some(field) = vd.known(k, EXCEPTION, "key {} in an exception") else { continue };
        match field.name {
            "rule" => {
                let Some(s) = vd.string(v, "rule") else {
                    ok = false;
                    continue;
                };
                match rules::find(&s) {
                    Some(r) => rule = Some(r.id),
                    None => {
                        ok = false;
                        let help = did_you_mean(&s, RULES.iter().map(|r| r.id.as_str()))
                            .map(|d| format!("did you mean `{d}`?"));
                        vd.err(v.span(), format!("unknown rule `{s}`"), help);
                    }
                }
            }
            "paths" => {
                paths = vd.globs(v, "paths");
                let raw = match v.get_ref() {
                    DeValue::String(s) => vec![s.to_string()],
                    DeValue::Array(items) => items
                        .iter()
                        .filter_map(|i| i.get_ref().as_str().map(str::to_string))
                        .collect(),
                    _ => Vec::new(),
                };
                path_globs = Some(
                    raw.iter()
                        .map(|s| s.trim_start_matches("./").trim_end_matches('/').to_string())
                        .collect(),
                );
            }
            "address" => address = vd.glob_set(v, "address", |s| s.replace('.', "/")),
            "reason" => {
                reason = vd.string(v, "reason");
                if reason.as_deref().is_some_and(|r| r.trim().is_empty()) {
                    vd.err(v.span(), "an exception's `reason` must not be empty", None);
                    ok = false;
                }
            }
            "expires" => match v.get_ref() {
                DeValue::Datetime(dt) if dt.time.is_none() => {
                    expires = dt.date.map(|d| Date { year: d.year, month: d.month, day: d.day })
                }
                _ => vd.wrong_type(v, "expires", "a date such as 2027-01-31"),
            },
            _ => {}
        }
    }
    let head = span.start..span.start;
    if rule.is_none() && ok && !t.contains_key("rule") {
        vd.err(head.clone(), "an exception needs a `rule`", None);
    }
    if reason.is_none() && !t.contains_key("reason") {
        vd.err(
            head.clone(),
            "an exception needs a `reason`",
            Some("say why the finding is accepted, e.g. reason = \"generated by CI\"".into()),
        );
    }
    // A module the engine refuses is accepted where it is, for a time: never everywhere,
    // never for good (an inline comment cannot silence it at all).
    if let Some(r) = rule.filter(|r| !rules::inline(*r)) {
        let missing: Vec<&str> = [("`paths`", paths.is_none()), ("`expires`", expires.is_none())]
            .into_iter()
            .filter_map(|(k, m)| m.then_some(k))
            .collect();
        if !missing.is_empty() && ok {
            ok = false;
            vd.err(
                head.clone(),
                format!("an exception for {r} needs {}", missing.join(" and ")),
                Some(
                    "a module the engine refuses is excused where it is and for a time: `paths` naming the module, and an `expires` date (paths = [\"legacy/network\"], expires = 2027-06-30)"
                        .to_string(),
                ),
            );
        }
    }
    Some(Exception { rule: rule?, paths, path_globs, address, reason: reason?, expires, span })
        .filter(|_| ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every option a rule lists is read (a value of the wrong type is an error), not
    /// silently passed over.
    #[test]
    fn every_listed_option_is_read() {
        for rule in RULES {
            for name in names(rule.options) {
                let text = format!("[rules.{}]\n{name} = {{ wrong = true }}\n", rule.id);
                assert!(
                    Policy::parse("p.toml", &text).is_err(),
                    "[rules.{}] {name} is listed but not read",
                    rule.id
                );
            }
        }
    }

    /// ... and read by its rule: the error about a wrong value is the rule's, not the
    /// "unknown key" that a listed option without a reader would get.
    #[test]
    fn every_listed_option_reaches_its_rule() {
        for rule in RULES {
            for name in names(rule.options) {
                let text = format!("[rules.{}]\n{name} = {{ wrong = true }}\n", rule.id);
                let errors = errors(&text);
                assert!(
                    !errors.is_empty() && errors.iter().all(|e| !e.contains("unknown key")),
                    "[rules.{}] {name}: {errors:?}",
                    rule.id
                );
            }
        }
    }

    fn errors(text: &str) -> Vec<String> {
        match Policy::parse("p.toml", text) {
            Ok(_) => Vec::new(),
            Err(e) => e
                .into_iter()
                .map(|e| {
                    format!(
                        "{}:{}: {} ({})",
                        e.line_col().0,
                        e.line_col().1,
                        e.message,
                        e.help.unwrap_or_default()
                    )
                })
                .collect(),
        }
    }

    #[test]
    fn bundled_policies_are_valid() {
        for (name, text) in
            [("default", DEFAULT), ("strict", STRICT), ("template", TEMPLATE), ("starter", STARTER)]
        {
            assert!(errors(text).is_empty(), "{name}: {:?}", errors(text));
        }
    }

    /// A module the engine refuses is excused only where it is, for a time.
    #[test]
    fn an_exception_for_a_merge_error_names_the_module_and_expires() {
        let e = |body: &str| {
            errors(&format!("[[exceptions]]\nrule = \"merge-error\"\nreason = \"r\"\n{body}"))
        };
        let why = "a module the engine refuses is excused where it is and for a time: `paths` naming the module, and an `expires` date (paths = [\"legacy/network\"], expires = 2027-06-30)";
        assert_eq!(
            e(""),
            [format!("1:1: an exception for merge-error needs `paths` and `expires` ({why})")]
        );
        assert_eq!(
            e("paths = [\"legacy/**\"]\n"),
            [format!("1:1: an exception for merge-error needs `expires` ({why})")]
        );
        assert_eq!(
            e("expires = 2027-06-30\n"),
            [format!("1:1: an exception for merge-error needs `paths` ({why})")]
        );
        assert!(e("paths = [\"legacy/**\"]\nexpires = 2027-06-30\n").is_empty());
        // Other rules need neither.
        assert!(errors("[[exceptions]]\nrule = \"backend-swap\"\nreason = \"r\"\n").is_empty());
    }

    #[test]
    fn the_template_names_every_rule_and_option() {
        for r in RULES {
            assert!(TEMPLATE.contains(&format!("[rules.{}]", r.id)), "{}", r.id);
            for o in names(r.options) {
                assert!(TEMPLATE.contains(&format!("{o} =")), "{}.{o}", r.id);
            }
        }
    }

    #[test]
    fn mistakes_point_into_the_file_with_suggestions() {
        assert_eq!(
            errors("[rules.override-fil]\nlevel = \"deny\"\n"),
            ["1:8: unknown rule `override-fil` (did you mean `override-file`?)"]
        );
        assert_eq!(
            errors("[rules.override-file]\nlevel = \"denyy\"\n"),
            ["2:9: unknown level `denyy` (did you mean `deny`?)"]
        );
        assert_eq!(
            errors("[rules.override-file]\nallow-path = []\n"),
            [
                "2:1: unknown key `allow-path` in [rules.override-file] (did you mean `allow-paths`?)"
            ]
        );
        assert_eq!(
            errors("[rules.override-file]\npaths = [\"a/[b\"]\n"),
            ["2:10: invalid glob `a/[b`: unclosed character class; missing ']' ()"]
        );
        assert_eq!(
            errors("[rules]\nmerge-error = 3\n"),
            [
                "2:15: `merge-error` must be a level (\"allow\", \"warn\", \"deny\") or a table, not integer ()"
            ]
        );
        assert_eq!(
            errors("[[exceptions]]\nrule = \"override-file\"\n"),
            [
                "1:1: an exception needs a `reason` (say why the finding is accepted, e.g. reason = \"generated by CI\")"
            ]
        );
    }

    #[test]
    fn scopes_and_paths_decide_the_level() {
        let p = Policy::parse(
            "p.toml",
            "[rules.override-file]\nlevel = \"deny\"\nexclude = [\"legacy/**\"]\n[[rules.override-file.scope]]\npaths = [\"envs/dev/**\"]\nlevel = \"warn\"\n",
        )
        .unwrap();
        assert_eq!(p.level_for(RuleId::OverrideFile, "app/override.tf"), Level::Deny);
        assert_eq!(p.level_for(RuleId::OverrideFile, "envs/dev/override.tf"), Level::Warn);
        assert_eq!(p.level_for(RuleId::OverrideFile, "legacy/x/override.tf"), Level::Allow);
        assert_eq!(p.level_for(RuleId::OverrideFile, "envs/devx/override.tf"), Level::Deny);
    }
}
