//! The generic half of reading a policy file: a validator that turns every mistake (wrong
//! type, bad glob, unknown key or level) into a [`PolicyError`] pointing into the TOML.
//! Both `config` (the policy's shape) and the rules (their own options) use it, so it
//! lives apart from either: neither has to import the other for it.

use std::borrow::Cow;
use std::ops::Range;
use std::sync::Arc;

use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};
use override_guard_hcl::{Columns, LineIndex};
use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::Level;
use crate::diag::did_you_mean;

/// A value of the policy file, with its place in it.
pub(super) type Value<'i> = Spanned<DeValue<'i>>;
/// A key of the policy file, with its place in it.
pub(super) type Key<'i> = Spanned<Cow<'i, str>>;

/// One key of a table of the policy file (a field), as the reader accepts it and as the JSON Schema
/// (`schema.rs`) describes it: each table's keys are declared once, in a list of these, so
/// that the reader and the schema cannot disagree about which keys there are.
#[derive(Debug)]
pub struct Field {
    pub name: &'static str,
    pub kind: Kind,
    /// A table without it is a mistake.
    pub required: bool,
    /// Its value when unset, as TOML (`"[]"`, `"false"`): what `policies/template.toml`
    /// writes after the key; `None` when unset means something no value says.
    pub default: Option<&'static str>,
    /// One line, for `explain`, `docs/rules.md` and an editor's completion.
    pub help: &'static str,
}

/// What a key holds.
#[derive(Debug)]
pub enum Kind {
    /// `"allow"`, `"warn"` or `"deny"`.
    Level,
    /// `true` or `false`.
    Bool,
    /// A string with something besides whitespace in it.
    NonBlank,
    /// A regular expression (Rust's `regex` syntax, which JSON Schema cannot check).
    Regex,
    /// A glob or a list of globs (a single string is a list of one).
    Globs,
    /// A whole number, 1 or more.
    Count,
    /// A TOML local date (`2027-01-31`), not a string.
    Date,
    /// A rule id.
    Rule,
    /// An engine and maybe its release: `terraform`, `terraform@1.9`, `opentofu@1.10`.
    Release,
    /// `[rules]`: a level or a table per rule id, each with its rule's options.
    Rules,
    /// An array of tables (a single table is an array of one), with these keys.
    Tables(&'static [Field]),
}

/// The names of a table's keys.
pub(super) fn names(keys: &[Field]) -> Vec<&'static str> {
    keys.iter().map(|k| k.name).collect()
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
        LineIndex::new(&self.text).line_col(&self.text, self.span.start, Columns::Chars)
    }
}

/// Collects the mistakes of one policy file; the readers below report into it and carry
/// on, so that one run shows every mistake, not only the first.
pub(crate) struct Validator<'t> {
    path: &'t str,
    text: Arc<str>,
    errors: Vec<PolicyError>,
}

impl<'t> Validator<'t> {
    pub(crate) fn new(path: &'t str, text: &str) -> Validator<'t> {
        Validator { path, text: Arc::from(text), errors: Vec::new() }
    }

    /// The file's text, shared with the errors and the policy's origin.
    pub(crate) fn text(&self) -> &Arc<str> {
        &self.text
    }

    /// The mistakes found, in the order they appear in the file.
    pub(crate) fn finish(mut self) -> Vec<PolicyError> {
        self.errors.sort_by_key(|e| e.span.start);
        self.errors
    }

    pub(crate) fn err(
        &mut self,
        span: Range<usize>,
        message: impl Into<String>,
        help: Option<String>,
    ) {
        self.errors.push(PolicyError {
            path: self.path.to_string(),
            text: self.text.clone(),
            span,
            message: message.into(),
            help,
        });
    }

    pub(crate) fn unknown(&mut self, key: &Key<'_>, name: &str, known: &[&str], what: &str) {
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

    /// The declared key named by `key`, or `None` after reporting it unknown: a reader
    /// that looks its keys up here reads only declared ones (`what` as for [`Self::unknown`]).
    pub(crate) fn known<'k>(
        &mut self,
        key: &Key<'_>,
        keys: &'k [Field],
        what: &str,
    ) -> Option<&'k Field> {
        let name = key.get_ref().as_ref();
        let found = keys.iter().find(|k| k.name == name);
        if found.is_none() {
            self.unknown(key, name, &names(keys), what);
        }
        found
    }

    pub(crate) fn wrong_type(&mut self, v: &Value<'_>, key: &str, expected: &str) {
        self.err(
            v.span(),
            format!("`{key}` must be {expected}, not {}", v.get_ref().type_str()),
            None,
        );
    }

    pub(crate) fn table<'a, 'i>(&mut self, v: &'a Value<'i>, key: &str) -> Option<&'a DeTable<'i>> {
        match v.get_ref() {
            DeValue::Table(t) => Some(t),
            _ => {
                self.wrong_type(v, key, "a table");
                None
            }
        }
    }

    pub(crate) fn array_of_tables<'a, 'i>(
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

    pub(crate) fn level(&mut self, v: &Value<'_>) -> Option<Level> {
        match v.get_ref().as_str() {
            Some(s) => match Level::parse(s) {
                Some(l) => Some(l),
                None => {
                    let guess = match s {
                        "error" => Some("deny"),
                        "warning" => Some("warn"),
                        "off" | "none" | "ignore" => Some("allow"),
                        _ => did_you_mean(s, Level::ALL.map(Level::as_str)),
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

    pub(crate) fn string(&mut self, v: &Value<'_>, key: &str) -> Option<String> {
        match v.get_ref().as_str() {
            Some(s) => Some(s.to_string()),
            None => {
                self.wrong_type(v, key, "a string");
                None
            }
        }
    }

    pub(crate) fn boolean(&mut self, v: &Value<'_>, key: &str) -> Option<bool> {
        let b = v.get_ref().as_bool();
        if b.is_none() {
            self.wrong_type(v, key, "true or false");
        }
        b
    }

    /// A list of strings; a single string is accepted as a list of one.
    pub(crate) fn strings(&mut self, v: &Value<'_>, key: &str) -> Vec<(String, Range<usize>)> {
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
    pub(crate) fn globs(&mut self, v: &Value<'_>, key: &str) -> Option<GlobSet> {
        self.glob_set(v, key, |s| s.trim_start_matches("./").trim_end_matches('/').to_string())
    }

    /// Globs of any kind: `norm` turns each into a path-shaped glob first (dotted
    /// addresses become `/`-separated, so `*` matches one segment).
    pub(crate) fn glob_set(
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
}

fn glob(s: &str) -> Result<Glob, globset::Error> {
    GlobBuilder::new(s).literal_separator(true).build()
}

fn list(items: &[&str]) -> String {
    items.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(", ")
}
