//! The policy file (`.override-guard.toml`): read with spans, validated by hand so that
//! every mistake (unknown key, wrong type, bad glob or regex, unknown rule id) becomes a
//! diagnostic pointing into the TOML, with a "did you mean" where one fits.
//!
//! Without a policy file the built-in `policies/default.toml` applies; it is parsed by the
//! same code, so the file in the repository is exactly what runs.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;

use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};
use regex::Regex;
use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::Level;
use super::rules::{self, RULES, RuleId};
use crate::diag::did_you_mean;

/// The built-in default policy.
pub const DEFAULT: &str = include_str!("../../policies/default.toml");
/// Every rule at `deny`, for teams that allow overrides only where they say so.
pub const STRICT: &str = include_str!("../../policies/strict.toml");
/// Every key with its default and a one-line comment: the reference.
pub const TEMPLATE: &str = include_str!("../../policies/template.toml");
/// What `init` writes.
pub const STARTER: &str = include_str!("../../policies/starter.toml");

/// A calendar date (exception expiry).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Date {
    pub year: u16,
    pub month: u8,
    pub day: u8,
}

impl Date {
    /// The date (UTC) of a count of days since 1970-01-01 (Howard Hinnant's algorithm).
    pub fn from_days(days: i64) -> Date {
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z.rem_euclid(146_097);
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = (doy - (153 * mp + 2) / 5 + 1) as u8;
        let month = if mp < 10 { mp + 3 } else { mp - 9 } as u8;
        let year = (yoe + era * 400 + i64::from(month <= 2)) as u16;
        Date { year, month, day }
    }
}

impl std::fmt::Display for Date {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

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
    pub override_file: OverrideFileOptions,
    pub comment: CommentOptions,
    pub protected: ProtectedOptions,
}

/// A rule's level and where it applies.
#[derive(Clone, Debug)]
struct RuleConfig {
    level: Level,
    paths: Option<GlobSet>,
    exclude: Option<GlobSet>,
    scopes: Vec<Scope>,
}

/// `[[rules.<id>.scope]]`: a different level for some paths.
#[derive(Clone, Debug)]
struct Scope {
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

/// See [`CommentOptions::matcher_for`].
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

/// A mistake in the policy file.
#[derive(Clone, Debug, thiserror::Error)]
#[error("invalid policy file: {message}")]
pub struct PolicyError {
    pub path: String,
    pub text: Arc<str>,
    pub span: Range<usize>,
    pub message: String,
    pub help: Option<String>,
}

impl miette::Diagnostic for PolicyError {
    fn code<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        Some(Box::new("policy"))
    }

    fn help<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        self.help.as_ref().map(|h| Box::new(h) as Box<dyn std::fmt::Display>)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
        let len = self.span.end.saturating_sub(self.span.start);
        Some(Box::new(std::iter::once(miette::LabeledSpan::new_primary_with_span(
            Some("here".into()),
            (self.span.start, len),
        ))))
    }
}

impl PolicyError {
    /// 1-based line and column of the error.
    pub fn line_col(&self) -> (usize, usize) {
        let before = self.text.get(..self.span.start.min(self.text.len())).unwrap_or("");
        let line = before.matches('\n').count() + 1;
        let col = before.rsplit('\n').next().map_or(0, |s| s.chars().count()) + 1;
        (line, col)
    }
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
        let mut v = Validator { path, text: Arc::from(text), errors: Vec::new() };
        let root = match DeTable::parse(text) {
            Ok(t) => t,
            Err(e) => {
                let span = e.span().unwrap_or(0..0);
                v.err(span, e.message().trim_end().to_string(), None);
                return Err(v.errors);
            }
        };
        let mut policy = Policy {
            origin: Origin::File { path: path.to_string(), text: v.text.clone() },
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
            override_file: OverrideFileOptions::default(),
            comment: CommentOptions::default(),
            protected: ProtectedOptions::default(),
        };
        for (key, value) in root.get_ref() {
            match key.get_ref().as_ref() {
                "rules" => v.rules(value, &mut policy),
                "exceptions" => {
                    for t in v.array_of_tables(value) {
                        if let Some(e) = v.exception(t) {
                            policy.exceptions.push(e);
                        }
                    }
                }
                other => v.unknown(key, other, &["rules", "exceptions"], "top-level key"),
            }
        }
        if v.errors.is_empty() {
            Ok(policy)
        } else {
            v.errors.sort_by_key(|e| e.span.start);
            Err(v.errors)
        }
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

/// Does `text` name the file `name` (not merely end with it, as `logs_override.tf` ends
/// with `override.tf`)?
fn names_file(text: &str, name: &str) -> bool {
    let part = |c: char| c.is_alphanumeric() || matches!(c, '_' | '-' | '.');
    text.match_indices(name).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + name.len()..].chars().next();
        !before.is_some_and(part) && !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}

type Value<'i> = Spanned<DeValue<'i>>;

struct Validator<'t> {
    path: &'t str,
    text: Arc<str>,
    errors: Vec<PolicyError>,
}

impl Validator<'_> {
    fn err(&mut self, span: Range<usize>, message: impl Into<String>, help: Option<String>) {
        self.errors.push(PolicyError {
            path: self.path.to_string(),
            text: self.text.clone(),
            span,
            message: message.into(),
            help,
        });
    }

    fn unknown(
        &mut self,
        key: &Spanned<std::borrow::Cow<'_, str>>,
        name: &str,
        known: &[&str],
        what: &str,
    ) {
        let help = match did_you_mean(name, known.iter().copied()) {
            Some(s) => format!("did you mean `{s}`?"),
            None => format!("expected one of {}", list(known)),
        };
        // `what` may hold `{}` where the name goes (`key {} in a scope`).
        let quoted = format!("`{name}`");
        let message = if what.contains("{}") {
            format!("unknown {}", what.replace("{}", &quoted))
        } else {
            format!("unknown {what} {quoted}")
        };
        self.err(key.span(), message, Some(help));
    }

    fn wrong_type(&mut self, v: &Value<'_>, key: &str, expected: &str) {
        self.err(
            v.span(),
            format!("`{key}` must be {expected}, not {}", v.get_ref().type_str()),
            None,
        );
    }

    fn table<'a, 'i>(&mut self, v: &'a Value<'i>, key: &str) -> Option<&'a DeTable<'i>> {
        match v.get_ref() {
            DeValue::Table(t) => Some(t),
            _ => {
                self.wrong_type(v, key, "a table");
                None
            }
        }
    }

    fn array_of_tables<'a, 'i>(
        &mut self,
        v: &'a Value<'i>,
    ) -> Vec<(&'a DeTable<'i>, Range<usize>)> {
        match v.get_ref() {
            DeValue::Array(items) => {
                let mut out = Vec::new();
                for item in items.iter() {
                    match item.get_ref() {
                        DeValue::Table(t) => out.push((t, item.span())),
                        _ => self.wrong_type(item, "an entry", "a table"),
                    }
                }
                out
            }
            DeValue::Table(t) => vec![(t, v.span())],
            _ => {
                self.wrong_type(v, "this", "an array of tables");
                Vec::new()
            }
        }
    }

    fn level(&mut self, v: &Value<'_>) -> Option<Level> {
        match v.get_ref().as_str() {
            Some(s) => match Level::parse(s) {
                Some(l) => Some(l),
                None => {
                    let guess = match s {
                        "error" => Some("deny"),
                        "warning" => Some("warn"),
                        "off" | "none" | "ignore" => Some("allow"),
                        _ => did_you_mean(s, ["allow", "warn", "deny"]),
                    };
                    let help = guess
                        .map_or("expected one of `allow`, `warn`, `deny`".into(), |d| {
                            format!("did you mean `{d}`?")
                        });
                    self.err(v.span(), format!("unknown level `{s}`"), Some(help));
                    None
                }
            },
            None => {
                self.wrong_type(v, "level", "one of \"allow\", \"warn\", \"deny\"");
                None
            }
        }
    }

    fn string(&mut self, v: &Value<'_>, key: &str) -> Option<String> {
        match v.get_ref().as_str() {
            Some(s) => Some(s.to_string()),
            None => {
                self.wrong_type(v, key, "a string");
                None
            }
        }
    }

    fn boolean(&mut self, v: &Value<'_>, key: &str) -> Option<bool> {
        let b = v.get_ref().as_bool();
        if b.is_none() {
            self.wrong_type(v, key, "true or false");
        }
        b
    }

    /// A list of strings; a single string is accepted as a list of one.
    fn strings(&mut self, v: &Value<'_>, key: &str) -> Vec<(String, Range<usize>)> {
        match v.get_ref() {
            DeValue::String(s) => vec![(s.to_string(), v.span())],
            DeValue::Array(items) => {
                let mut out = Vec::new();
                for i in items.iter() {
                    match i.get_ref().as_str() {
                        Some(s) => out.push((s.to_string(), i.span())),
                        None => self.wrong_type(i, key, "a list of strings"),
                    }
                }
                out
            }
            _ => {
                self.wrong_type(v, key, "a list of strings");
                Vec::new()
            }
        }
    }

    /// Path globs: `/` is a separator that `*` does not cross; `**` does.
    fn globs(&mut self, v: &Value<'_>, key: &str) -> Option<GlobSet> {
        self.glob_set(v, key, |s| s.trim_start_matches("./").trim_end_matches('/').to_string())
    }

    fn glob_set(
        &mut self,
        v: &Value<'_>,
        key: &str,
        norm: impl Fn(&str) -> String,
    ) -> Option<GlobSet> {
        let mut b = GlobSetBuilder::new();
        let mut ok = true;
        for (s, span) in self.strings(v, key) {
            match glob(&norm(&s)) {
                Ok(g) => {
                    b.add(g);
                }
                Err(e) => {
                    ok = false;
                    self.err(span, format!("invalid glob `{s}`: {}", e.kind()), None);
                }
            }
        }
        if !ok {
            return None;
        }
        match b.build() {
            Ok(set) => Some(set),
            Err(e) => {
                self.err(v.span(), format!("invalid globs: {e}"), None);
                None
            }
        }
    }

    fn rules(&mut self, v: &Value<'_>, policy: &mut Policy) {
        let Some(t) = self.table(v, "rules") else { return };
        let ids: Vec<&str> = RULES.iter().map(|r| r.id.as_str()).collect();
        for (key, value) in t {
            let Some(rule) = rules::find(key.get_ref()) else {
                self.unknown(key, key.get_ref(), &ids, "rule");
                continue;
            };
            if value.get_ref().is_str() {
                if let Some(level) = self.level(value) {
                    policy.set_level(rule.id, level);
                }
                continue;
            }
            let DeValue::Table(rt) = value.get_ref() else {
                self.wrong_type(
                    value,
                    key.get_ref(),
                    "a level (\"allow\", \"warn\", \"deny\") or a table",
                );
                continue;
            };
            let mut rc =
                RuleConfig { level: rule.level, paths: None, exclude: None, scopes: Vec::new() };
            let mut known = vec!["level", "paths", "exclude", "scope"];
            known.extend(rule.options.iter().map(|(name, _)| *name));
            for (k, val) in rt {
                match k.get_ref().as_ref() {
                    "level" => rc.level = self.level(val).unwrap_or(rc.level),
                    "paths" => rc.paths = self.globs(val, "paths"),
                    "exclude" => rc.exclude = self.globs(val, "exclude"),
                    "scope" => {
                        for (st, _) in self.array_of_tables(val) {
                            if let Some(s) = self.scope(st) {
                                rc.scopes.push(s);
                            }
                        }
                    }
                    name if rule.options.iter().any(|(o, _)| *o == name) => {
                        self.option(rule.id, name, val, policy)
                    }
                    name => {
                        self.unknown(k, name, &known, &format!("key {{}} in [rules.{}]", rule.id))
                    }
                }
            }
            policy.rules.insert(rule.id, rc);
        }
    }

    fn scope(&mut self, t: &DeTable<'_>) -> Option<Scope> {
        let (mut paths, mut exclude, mut level) = (None, None, None);
        let mut first_key = 0..0;
        for (k, v) in t {
            if first_key == (0..0) {
                first_key = k.span();
            }
            match k.get_ref().as_ref() {
                "paths" => paths = self.globs(v, "paths"),
                "exclude" => exclude = self.globs(v, "exclude"),
                "level" => level = self.level(v),
                name => self.unknown(k, name, &["paths", "exclude", "level"], "key {} in a scope"),
            }
        }
        match (paths, level) {
            (Some(paths), Some(level)) => Some(Scope { paths, exclude, level }),
            _ => {
                if !t.contains_key("paths") || !t.contains_key("level") {
                    self.err(first_key, "a scope needs both `paths` and `level`", None);
                }
                None
            }
        }
    }

    fn option(&mut self, rule: RuleId, name: &str, v: &Value<'_>, p: &mut Policy) {
        match (rule, name) {
            (RuleId::OverrideFile, "allow-paths") => {
                p.override_file.allow_paths = self.globs(v, name)
            }
            (RuleId::OverrideFile, "only-json") => {
                p.override_file.only_json = self.boolean(v, name).unwrap_or(false)
            }
            (RuleId::OverrideFile, "max-per-module") => match v.get_ref().as_integer() {
                Some(n) => match n.as_str().parse::<usize>() {
                    Ok(n) if n >= 1 => p.override_file.max_per_module = Some(n),
                    _ => self.err(v.span(), "`max-per-module` must be a whole number ≥ 1", None),
                },
                None => self.wrong_type(v, name, "an integer"),
            },
            (RuleId::MissingOverrideComment, "pattern") => {
                if let Some(s) = self.string(v, name) {
                    match Regex::new(&s.replace("{override}", "override\\.tf")) {
                        Ok(_) => p.comment.pattern = Some(s),
                        Err(e) => self.err(v.span(), format!("invalid regex: {e}"), None),
                    }
                }
            }
            (RuleId::ProtectedAttribute, "attributes") => {
                let set = self.glob_set(v, name, |s| s.replace('.', "/"));
                if set.is_some() {
                    p.protected.raw = self.strings(v, name).into_iter().map(|(s, _)| s).collect();
                }
                p.protected.attributes = set;
            }
            // Only the names a rule lists in its `options` come here (others are refused
            // as unknown keys); a listed name without an arm above would be ignored, which
            // `every_listed_option_is_read` catches.
            _ => {}
        }
    }

    fn exception(&mut self, (t, span): (&DeTable<'_>, Range<usize>)) -> Option<Exception> {
        let mut rule = None;
        let (mut paths, mut address, mut reason, mut expires) = (None, None, None, None);
        let mut path_globs = None;
        let mut ok = true;
        for (k, v) in t {
            match k.get_ref().as_ref() {
                "rule" => {
                    let Some(s) = self.string(v, "rule") else {
                        ok = false;
                        continue;
                    };
                    match rules::find(&s) {
                        Some(r) => rule = Some(r.id),
                        None => {
                            ok = false;
                            let help = did_you_mean(&s, RULES.iter().map(|r| r.id.as_str()))
                                .map(|d| format!("did you mean `{d}`?"));
                            self.err(v.span(), format!("unknown rule `{s}`"), help);
                        }
                    }
                }
                "paths" => {
                    paths = self.globs(v, "paths");
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
                "address" => address = self.glob_set(v, "address", |s| s.replace('.', "/")),
                "reason" => {
                    reason = self.string(v, "reason");
                    if reason.as_deref().is_some_and(|r| r.trim().is_empty()) {
                        self.err(v.span(), "an exception's `reason` must not be empty", None);
                        ok = false;
                    }
                }
                "expires" => match v.get_ref() {
                    DeValue::Datetime(dt) if dt.time.is_none() => {
                        expires = dt.date.map(|d| Date { year: d.year, month: d.month, day: d.day })
                    }
                    _ => self.wrong_type(v, "expires", "a date such as 2027-01-31"),
                },
                name => self.unknown(
                    k,
                    name,
                    &["rule", "paths", "address", "reason", "expires"],
                    "key {} in an exception",
                ),
            }
        }
        let head = span.start..span.start;
        if rule.is_none() && ok && !t.contains_key("rule") {
            self.err(head.clone(), "an exception needs a `rule`", None);
        }
        if reason.is_none() && !t.contains_key("reason") {
            self.err(
                head,
                "an exception needs a `reason`",
                Some("say why the finding is accepted, e.g. reason = \"generated by CI\"".into()),
            );
        }
        Some(Exception { rule: rule?, paths, path_globs, address, reason: reason?, expires, span })
            .filter(|_| ok)
    }
}

fn glob(s: &str) -> Result<Glob, globset::Error> {
    GlobBuilder::new(s).literal_separator(true).build()
}

fn list(items: &[&str]) -> String {
    items.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every option a rule lists is read by `option` (a value of the wrong type is an
    /// error): the catch-all there never swallows a documented option.
    #[test]
    fn every_listed_option_is_read() {
        for rule in RULES {
            for (name, _) in rule.options {
                let text = format!("[rules.{}]\n{name} = {{ wrong = true }}\n", rule.id);
                assert!(
                    Policy::parse("p.toml", &text).is_err(),
                    "[rules.{}] {name} is listed but not read",
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

    #[test]
    fn the_template_names_every_rule_and_option() {
        for r in RULES {
            assert!(TEMPLATE.contains(&format!("[rules.{}]", r.id)), "{}", r.id);
            for (o, _) in r.options {
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

    #[test]
    fn civil_dates_from_days() {
        assert_eq!(Date::from_days(0).to_string(), "1970-01-01");
        assert_eq!(Date::from_days(20_414).to_string(), "2025-11-22");
        assert_eq!(Date::from_days(11_016).to_string(), "2000-02-29");
    }
}
