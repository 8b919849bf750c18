//! The escape hatches: inline `override-guard:ignore[rule] reason` comments in the module's
//! files, and `[[exceptions]]` in the policy. Both report their own misuse.

use std::sync::LazyLock;

use regex::Regex;

use super::config::Origin;
use super::context::comments_around;
use super::rules::{self, RULES};
use super::{Coverage, Date, Finding, GlobBase, Level, Policy, Site};
use crate::diag::did_you_mean;
use crate::finding::RuleId;
use crate::merge::Module;
use crate::terraform::{Item, Span, Syntax};

const MARKER: &str = "override-guard:ignore[";

/// The tool's name followed by `ignore`, written loosely: any case, `_`, a space or
/// nothing for the hyphen, spaces around an optional colon, an optional `[`. What it
/// matches is a suppression someone meant to write (see [`near_miss`]).
static LOOSE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(?:^|[^a-z0-9_-])(override[-_ ]?guard)([ \t]*:?[ \t]*)([a-z]+)([ \t]*\[)?")
        .unwrap_or_else(|_| unreachable!())
});

/// What a suppression covers, which depends on where it is written.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Place {
    /// On the lines directly above an item, or a `"//"` in its JSON object: that item
    /// and everything in it.
    Above,
    /// In the file's header comment: the whole file.
    File,
    /// At the end of a line of code, as tflint allows: what starts on that line, whose
    /// code is the bytes `from..to`.
    Trailing { from: usize, to: usize },
}

/// Files without this word (in any case) hold no suppression, not even a near miss: a
/// literal search, much cheaper than scanning every file's comments.
static GUARD: std::sync::LazyLock<regex::bytes::Regex> = std::sync::LazyLock::new(|| {
    regex::bytes::Regex::new("(?i-u)guard").unwrap_or_else(|_| unreachable!())
});

/// One inline suppression.
#[derive(Debug)]
struct Suppression {
    /// The comment (or JSON string) it is written in.
    span: Span,
    rules: Vec<String>,
    reason: String,
    malformed: bool,
    place: Place,
    /// Almost a suppression: it suppresses nothing, and says what was meant.
    near: Option<NearMiss>,
    used: bool,
}

/// A comment that tries to be a suppression but is not read as one.
#[derive(Debug, PartialEq)]
struct NearMiss {
    /// What differs from the real form, for the message.
    problems: Vec<String>,
    /// The suppression as it should be written.
    fixed: String,
}

/// The inline suppressions of one module.
#[derive(Debug, Default)]
pub struct Inline {
    items: Vec<Suppression>,
}

impl Inline {
    /// Finds every suppression comment in the module's files, and those that almost are.
    pub fn scan(m: &Module) -> Inline {
        let mut items = Vec::new();
        for (id, f) in m.files.files.iter().enumerate() {
            if !GUARD.is_match(f.text.as_bytes()) {
                continue;
            }
            let parsed = m.parsed.iter().find(|p| p.file == id);
            let first_item =
                parsed.and_then(|p| p.body.items.first()).map_or(f.text.len(), |i| match i {
                    Item::Attr(a) => a.span.start,
                    Item::Block(b) => b.span.start,
                    Item::Json(j) => j.span.start,
                });
            match f.syntax {
                Syntax::Hcl => {
                    // The comment lines on the first item are that item's, not the file's.
                    let above_first: Vec<(usize, usize)> =
                        super::context::lines_above(&f.text, first_item)
                            .into_iter()
                            .map(|(s, e, _)| (s, e))
                            .collect();
                    for &(start, end) in parsed.map_or(&[][..], |p| &p.comments) {
                        let Some(raw) = f.text.get(start..end) else { continue };
                        let raw = raw.trim_end();
                        let line_start = f.text[..start].rfind('\n').map_or(0, |i| i + 1);
                        let code = f.text[line_start..start].trim_start_matches('\u{feff}');
                        let place = if !code.trim().is_empty() {
                            Place::Trailing { from: line_start, to: start }
                        } else if start < first_item
                            && !above_first.iter().any(|&(s, e)| s <= start && start < e)
                        {
                            Place::File
                        } else {
                            Place::Above
                        };
                        let (lead, body) = if let Some(b) = raw.strip_prefix('#') {
                            ("#", b)
                        } else if let Some(b) = raw.strip_prefix("//") {
                            ("//", b)
                        } else {
                            let b = raw.strip_prefix("/*").unwrap_or(raw);
                            ("/*", b.strip_suffix("*/").unwrap_or(b))
                        };
                        let span = Span::new(id, start, start + raw.len());
                        items.extend(read(span, lead, body.trim(), place));
                    }
                }
                Syntax::Json => {
                    let root = m.parsed.iter().find(|p| p.file == id);
                    for n in root.map(|p| p.notes.as_slice()).unwrap_or_default() {
                        let file_wide = f
                            .text
                            .get(..n.covers.start)
                            .unwrap_or("")
                            .trim_start_matches('\u{feff}')
                            .trim()
                            .is_empty();
                        let place = if file_wide { Place::File } else { Place::Above };
                        items.extend(read(n.span, "", n.text.trim(), place));
                    }
                }
            }
        }
        Inline { items }
    }

    /// Is the finding suppressed by a comment on one of its places? Marks the comment used.
    pub fn suppresses(&mut self, m: &Module, f: &Finding) -> bool {
        if self.items.is_empty() {
            return false;
        }
        let any_above = self.items.iter().any(|s| s.place == Place::Above);
        for site in std::iter::once(&f.primary).chain(&f.related) {
            let Some(file) = m.files.files.iter().position(|x| x.path == site.path) else {
                continue;
            };
            let span = Span::new(file, site.start, site.end);
            let comments = if any_above { comments_around(m, span) } else { Vec::new() };
            // A module the engine refuses is not silenced by a comment in it.
            if !rules::inline(f.rule) {
                return false;
            }
            for s in &mut self.items {
                if s.malformed
                    || s.near.is_some()
                    || !s.rules.iter().any(|r| r == f.rule.as_str() || r == "all")
                {
                    continue;
                }
                let on_site = s.span.file == file
                    && match s.place {
                        Place::File => true,
                        Place::Trailing { from, to } => from <= site.start && site.start < to,
                        // A comment line's span may start before the marker (a BOM).
                        Place::Above => comments.iter().any(|c| {
                            c.span.start <= s.span.start
                                && s.span.start < c.span.end.max(c.span.start + 1)
                        }),
                    };
                if on_site {
                    s.used = true;
                    return true;
                }
            }
        }
        false
    }

    /// Misused suppressions: no reason, unknown rule id, malformed, almost written right,
    /// or unused.
    pub fn findings(&self, m: &Module, policy: &Policy, base: &GlobBase) -> Vec<Finding> {
        let mut out = Vec::new();
        for s in self.items.iter() {
            let site = |label: &str| Site::in_module(m, s.span, label);
            let path = base.of(&m.files.get(s.span.file).path);
            let mut push = |rule: RuleId, f: Finding| {
                let level = policy.level_for(rule, &path);
                if level != Level::Allow {
                    out.push(Finding { level, ..f });
                }
            };
            if let Some(n) = &s.near {
                push(
                    RuleId::BadSuppression,
                    Finding::new(
                        RuleId::BadSuppression,
                        format!(
                            "suppression comment not recognised ({}): it suppresses nothing",
                            n.problems.join(", ")
                        ),
                        site("not read as a suppression"),
                    )
                    .help(format!("did you mean `{}`?", n.fixed)),
                );
                continue;
            }
            if s.malformed {
                push(
                    RuleId::BadSuppression,
                    Finding::new(
                        RuleId::BadSuppression,
                        "malformed suppression comment",
                        site("here"),
                    )
                    .help("write it as `# override-guard:ignore[rule-id] reason`"),
                );
                continue;
            }
            let unknown: Vec<&String> =
                s.rules.iter().filter(|r| *r != "all" && rules::find(r).is_none()).collect();
            for r in &unknown {
                let help = did_you_mean(r, RULES.iter().map(|r| r.id.as_str()))
                    .map_or("`override-guard explain` lists the rules".into(), |d| {
                        format!("did you mean `{d}`?")
                    });
                push(
                    RuleId::BadSuppression,
                    Finding::new(
                        RuleId::BadSuppression,
                        format!("suppression names unknown rule `{r}`"),
                        site("here"),
                    )
                    .help(help),
                );
            }
            let fixed: Vec<RuleId> = s
                .rules
                .iter()
                .filter_map(|r| RuleId::parse(r))
                .filter(|r| !rules::inline(*r))
                .collect();
            for r in &fixed {
                push(
                    RuleId::BadSuppression,
                    Finding::new(
                        RuleId::BadSuppression,
                        format!(
                            "`{r}` cannot be suppressed inline: {} refuses the module whatever a comment in it says",
                            m.engine.name()
                        ),
                        site("suppresses nothing"),
                    )
                    .help(format!(
                        "fix the module, or accept it for a time in the policy: an `[[exceptions]]` entry with rule = \"{r}\", `paths` naming the module, a `reason` and an `expires` date"
                    )),
                );
            }
            if s.reason.is_empty() {
                push(
                    RuleId::BadSuppression,
                    Finding::new(
                        RuleId::BadSuppression,
                        "suppression without a reason",
                        site("here"),
                    )
                    .help("say why after the brackets: `# override-guard:ignore[rule-id] reason`"),
                );
            }
            let in_force = s.rules.iter().any(|r| {
                r == "all"
                    || RuleId::parse(r).is_some_and(|r| {
                        rules::inline(r) && policy.level_for(r, &path) != Level::Allow
                    })
            });
            if !s.used && unknown.is_empty() && in_force {
                push(
                    RuleId::UnusedSuppression,
                    Finding::new(
                        RuleId::UnusedSuppression,
                        format!("suppression of {} matches no finding", s.rules.join(", ")),
                        site("suppresses nothing"),
                    )
                    .help(if s.rules.iter().any(|r| r == "all") && m.has_errors() {
                        format!(
                            "remove it; `all` does not cover merge-error: {} refuses the module whatever a comment in it says",
                            m.engine.name()
                        )
                    } else {
                        "remove it".to_string()
                    }),
                );
            }
        }
        out
    }
}

/// A comment's text (`body`, markers stripped; `lead` is `#`, `//`, `/*`, or empty for
/// a JSON string) as a suppression, a near miss, or nothing.
fn read(span: Span, lead: &str, body: &str, place: Place) -> Option<Suppression> {
    if lead != "/*"
        && let Some((_, after)) = body.split_once(MARKER)
    {
        return Some(parse(span, after, place));
    }
    let near = near_miss(lead, body)?;
    Some(Suppression {
        span,
        rules: Vec::new(),
        reason: String::new(),
        malformed: false,
        place,
        near: Some(near),
        used: false,
    })
}

fn parse(span: Span, after: &str, place: Place) -> Suppression {
    let (rules, reason, malformed) = match after.split_once(']') {
        Some((ids, rest)) => {
            let rules: Vec<String> =
                ids.split(',').map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect();
            let malformed = rules.is_empty();
            (rules, rest.trim().trim_end_matches("*/").trim().to_string(), malformed)
        }
        None => (Vec::new(), String::new(), true),
    };
    Suppression { span, rules, reason, malformed, place, near: None, used: false }
}

/// A comment that reads as an attempt at `override-guard:ignore[rule] reason` written
/// slightly wrong, and how it should read. Prose that merely names the tool (`checked by
/// override-guard`, `override-guard ignores JSON comments`) is not one: the name must be
/// followed by the word `ignore`, and unless the comment starts with it, by brackets too.
fn near_miss(lead: &str, body: &str) -> Option<NearMiss> {
    let caps = LOOSE.captures_iter(body).find(|c| {
        let (Some(name), Some(word)) = (c.get(1), c.get(3)) else { return false };
        let at_start = name.start() == 0;
        let bracket = c.get(4).is_some();
        let word = word.as_str().to_ascii_lowercase();
        let ignore = word == "ignore" || (bracket && strsim::levenshtein(&word, "ignore") <= 2);
        ignore && (at_start || (bracket && lead != "/*"))
    })?;
    let (name, sep, word) = (caps.get(1)?.as_str(), caps.get(2)?.as_str(), caps.get(3)?.as_str());
    let bracket = caps.get(4).map(|b| b.as_str());
    let rest = body.get(caps.get(0)?.end()..).unwrap_or("");
    let mut problems: Vec<String> = Vec::new();
    let mut problem = |p: String| {
        if !problems.contains(&p) {
            problems.push(p);
        }
    };
    if lead == "/*" {
        problem("a block comment".into());
    }
    if name != "override-guard" {
        if name.eq_ignore_ascii_case("override-guard") {
            problem("wrong case".into());
        } else {
            problem(format!("`{name}` instead of `override-guard`"));
        }
    }
    if !sep.contains(':') {
        problem("no colon after the name".into());
    } else if sep != ":" {
        problem("spaces around the colon".into());
    }
    if word != "ignore" {
        if word.eq_ignore_ascii_case("ignore") {
            problem("wrong case".into());
        } else {
            problem(format!("`{word}` instead of `ignore`"));
        }
    }
    let (ids, reason) = match bracket {
        Some(b) => {
            if b != "[" {
                problem("a space before the brackets".into());
            }
            match rest.split_once(']') {
                Some((ids, reason)) => (ids.to_string(), reason),
                None => split_word(rest),
            }
        }
        None => {
            problem("no brackets around the rule ids".into());
            let (word, reason) = split_word(rest.trim_start().trim_start_matches(':'));
            let parts: Vec<&str> = word.split(',').map(str::trim).collect();
            if !word.is_empty() && parts.iter().all(|p| rule_like(p)) {
                (word, reason)
            } else {
                (String::new(), rest.trim_start().trim_start_matches(':'))
            }
        }
    };
    let ids: Vec<String> = ids
        .split(',')
        .map(str::trim)
        .filter(|i| !i.is_empty())
        .map(|i| {
            if i == "all" || rules::find(i).is_some() {
                i.to_string()
            } else {
                did_you_mean(i, RULES.iter().map(|r| r.id.as_str())).unwrap_or(i).to_string()
            }
        })
        .collect();
    let ids = if ids.is_empty() { "rule-id".to_string() } else { ids.join(", ") };
    let reason = reason.trim();
    let reason = if reason.is_empty() { "<reason>" } else { reason };
    let fixed = match lead {
        "" => format!("\"//\": \"override-guard:ignore[{ids}] {reason}\""),
        "//" => format!("// override-guard:ignore[{ids}] {reason}"),
        _ => format!("# override-guard:ignore[{ids}] {reason}"),
    };
    Some(NearMiss { problems, fixed })
}

/// The first word of `s` and what follows it.
fn split_word(s: &str) -> (String, &str) {
    let s = s.trim_start();
    let end = s.find(char::is_whitespace).unwrap_or(s.len());
    (s[..end].to_string(), &s[end..])
}

/// Could this word be a rule id (a real one, `all`, or one misspelt)?
fn rule_like(word: &str) -> bool {
    word == "all"
        || rules::find(word).is_some()
        || did_you_mean(word, RULES.iter().map(|r| r.id.as_str())).is_some()
}

/// The policy's exceptions, and which were used.
pub(crate) struct Ledger {
    used: Vec<bool>,
    expired_hit: Vec<bool>,
}

impl Ledger {
    pub(crate) fn new(policy: &Policy) -> Ledger {
        Ledger {
            used: vec![false; policy.exceptions.len()],
            expired_hit: vec![false; policy.exceptions.len()],
        }
    }

    /// Adds what another ledger (of another module) saw.
    pub(crate) fn absorb(&mut self, other: &Ledger) {
        for (a, b) in self.used.iter_mut().zip(&other.used) {
            *a |= *b;
        }
        for (a, b) in self.expired_hit.iter_mut().zip(&other.expired_hit) {
            *a |= *b;
        }
    }

    /// Does an exception cover this finding (at `path`, relative to the policy)?
    pub(crate) fn excepts(
        &mut self,
        policy: &Policy,
        f: &Finding,
        path: &str,
        today: Date,
    ) -> bool {
        for (i, e) in policy.exceptions.iter().enumerate() {
            if e.rule != f.rule
                || e.paths.as_ref().is_some_and(|g| !g.is_match(path))
                || e.address.as_ref().is_some_and(|g| {
                    !f.address.as_ref().is_some_and(|a| g.is_match(a.replace('.', "/")))
                })
            {
                continue;
            }
            if e.expires.is_some_and(|d| d < today) {
                self.expired_hit[i] = true;
                continue;
            }
            self.used[i] = true;
            return true;
        }
        false
    }

    /// Expired and unused exceptions, pointing into the policy file. Only exceptions the
    /// run saw all of (see [`Coverage::covers`]) are judged, and those that met a finding of
    /// the evaluated modules (an expired one that no longer hides it): an exception for
    /// another directory is neither unused nor used by `audit envs/dev`.
    pub(crate) fn findings(&self, policy: &Policy, today: Date, scope: &Coverage) -> Vec<Finding> {
        let Origin::File { path, text } = &policy.origin else { return Vec::new() };
        let mut out = Vec::new();
        for (i, e) in policy.exceptions.iter().enumerate() {
            if !self.expired_hit[i] && !scope.covers(e.path_globs.as_deref()) {
                continue;
            }
            let site = |label: &str| Site {
                path: path.clone(),
                source: text.clone(),
                base: Default::default(),
                start: e.span.start,
                end: e.span.end,
                label: label.to_string(),
            };
            let (rule, f) = match e.expires {
                Some(d) if d < today => (
                    RuleId::ExpiredException,
                    Finding::new(
                        RuleId::ExpiredException,
                        format!("exception for {} expired on {d}", e.rule),
                        site("expired"),
                    )
                    .help(if self.expired_hit[i] {
                        "the findings it covered are reported again: fix them, or renew the exception with a new date"
                    } else {
                        "it matches nothing any more: remove it"
                    }),
                ),
                _ if !self.used[i] => (
                    RuleId::UnusedException,
                    Finding::new(
                        RuleId::UnusedException,
                        format!("exception for {} matches no finding", e.rule),
                        site("matches nothing"),
                    )
                    .help("remove it, or fix its paths or address"),
                ),
                _ => continue,
            };
            let level = policy.level_for(rule, "");
            if level != Level::Allow {
                out.push(Finding { level, ..f });
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::merge::load_texts;

    fn fixed(lead: &str, body: &str) -> Option<String> {
        near_miss(lead, body).map(|n| n.fixed)
    }

    #[test]
    fn near_misses_say_what_was_meant() {
        let cases = [
            ("override-guard: ignore[override-file] sizing", "spaces around the colon"),
            ("override-guard :ignore[override-file] sizing", "spaces around the colon"),
            ("override-guard:ignore override-file sizing", "no brackets around the rule ids"),
            ("override-guard:ignore: override-file sizing", "no brackets around the rule ids"),
            ("override-guard ignore[override-file] sizing", "no colon after the name"),
            ("Override-Guard:Ignore[override-file] sizing", "wrong case"),
            (
                "override_guard:ignore[override-file] sizing",
                "`override_guard` instead of `override-guard`",
            ),
            (
                "overrideguard:ignore[override-file] sizing",
                "`overrideguard` instead of `override-guard`",
            ),
            ("override-guard:ignore [override-file] sizing", "a space before the brackets"),
            ("override-guard:ingore[override-file] sizing", "`ingore` instead of `ignore`"),
            ("TODO override-guard: ignore[override-file] sizing", "spaces around the colon"),
        ];
        for (body, problem) in cases {
            let n = near_miss("#", body).unwrap_or_else(|| panic!("{body}"));
            assert_eq!(n.problems, [problem], "{body}");
            assert_eq!(n.fixed, "# override-guard:ignore[override-file] sizing", "{body}");
        }
        // Misspelt ids are corrected too; a missing reason or id is a placeholder.
        assert_eq!(
            fixed("//", "override-guard:ignore overide-file,all why").as_deref(),
            Some("// override-guard:ignore[override-file, all] why")
        );
        assert_eq!(
            fixed("#", "override-guard: ignore this file, it is generated").as_deref(),
            Some("# override-guard:ignore[rule-id] this file, it is generated")
        );
        assert_eq!(
            fixed("#", "override-guard ignore").as_deref(),
            Some("# override-guard:ignore[rule-id] <reason>")
        );
        assert_eq!(
            fixed("", "override-guard: ignore[weakened-safeguard] restores").as_deref(),
            Some("\"//\": \"override-guard:ignore[weakened-safeguard] restores\"")
        );
        let n = near_miss("/*", "override-guard:ignore[backend-swap] local state");
        assert_eq!(n.map(|n| n.problems), Some(vec!["a block comment".to_string()]));
    }

    #[test]
    fn prose_about_the_tool_is_not_a_near_miss() {
        for body in [
            "checked by override-guard",
            "override-guard ignores JSON comments",
            "override-guard: checked on every commit",
            "run `override-guard fix` after changing this",
            "see the override-guard docs: ignore nothing here",
            "NOTE: instance_type is overridden in override.tf",
            "NOTE: this block is overridden in override-guard_override.tf",
            "override guard ignored list",
        ] {
            assert_eq!(near_miss("#", body), None, "{body}");
        }
        // Prose in a block comment is not held to the suppression form either.
        assert_eq!(near_miss("/*", "Write override-guard:ignore[rule] reason above it"), None);
    }

    fn places(files: &[(&str, &str)]) -> Vec<(String, Place, bool)> {
        let m = load_texts("", files, None);
        Inline::scan(&m)
            .items
            .iter()
            .map(|s| (m.files.text(s.span).to_string(), s.place, s.near.is_some()))
            .collect()
    }

    #[test]
    fn suppressions_are_read_from_comments_only() {
        let main = "# override-guard:ignore[override-file] header\n\nresource \"a\" \"b\" {\n  user_data = <<EOT\n# override-guard:ignore[silent-drop] shell comment\n# override-guard: ignore[silent-drop] shell comment\nEOT\n  name = \"# override-guard:ignore[silent-drop] text\" # override-guard:ignore[silent-drop] tail\n}\n";
        let got = places(&[("main.tf", main)]);
        let tail = main.find("# override-guard:ignore[silent-drop] tail").unwrap_or_default();
        let line = main[..tail].rfind('\n').map_or(0, |i| i + 1);
        assert_eq!(
            got,
            [
                ("# override-guard:ignore[override-file] header".to_string(), Place::File, false),
                (
                    "# override-guard:ignore[silent-drop] tail".to_string(),
                    Place::Trailing { from: line, to: tail },
                    false
                ),
            ]
        );
    }

    fn finding(m: &Module, file: &str, at: &str, rule: &'static str) -> Finding {
        let id = m.files.files.iter().position(|f| f.path == file).unwrap_or_default();
        let start = m.files.get(id).text.find(at).unwrap_or_default();
        let rule = RuleId::parse(rule).expect("a rule id");
        Finding::new(rule, "x", Site::in_module(m, Span::new(id, start, start + at.len()), "x"))
    }

    #[test]
    fn a_trailing_suppression_covers_what_starts_on_its_line() {
        let main = "resource \"a\" \"b\" { # override-guard:ignore[override-file] header\n  x = 1 // override-guard:ignore[all] value\n  y = 2\n}\n";
        let m = load_texts("", &[("main.tf", main)], None);
        let mut inline = Inline::scan(&m);
        assert!(
            inline.suppresses(&m, &finding(&m, "main.tf", "resource \"a\" \"b\"", "override-file"))
        );
        assert!(
            !inline.suppresses(&m, &finding(&m, "main.tf", "resource \"a\" \"b\"", "silent-drop"))
        );
        assert!(inline.suppresses(&m, &finding(&m, "main.tf", "x = 1", "silent-drop")));
        assert!(!inline.suppresses(&m, &finding(&m, "main.tf", "y = 2", "override-file")));
        assert!(inline.findings(&m, &Policy::builtin(), &GlobBase::default()).is_empty());

        // On the line of an attribute inside the block, not on the block.
        let main =
            "resource \"a\" \"b\" {\n  x = 1 # override-guard:ignore[silent-drop] value\n}\n";
        let m = load_texts("", &[("main.tf", main)], None);
        let mut inline = Inline::scan(&m);
        assert!(
            !inline.suppresses(&m, &finding(&m, "main.tf", "resource \"a\" \"b\"", "silent-drop"))
        );
        let unused: Vec<String> = inline
            .findings(&m, &Policy::builtin(), &GlobBase::default())
            .into_iter()
            .map(|f| f.message)
            .collect();
        assert_eq!(unused, ["suppression of silent-drop matches no finding"]);
    }

    /// A module the engine refuses is not silenced by a comment, neither by its rule id
    /// (a `bad-suppression`) nor by `all` (which still covers the other rules there).
    #[test]
    fn a_merge_error_is_not_suppressed_inline() {
        let main = "# override-guard:ignore[merge-error, override-file] legacy\nresource \"a\" \"b\" {} # override-guard:ignore[all] generated\n";
        let m = load_texts("", &[("main.tf", main)], None);
        let mut inline = Inline::scan(&m);
        let at = "resource \"a\" \"b\"";
        assert!(!inline.suppresses(&m, &finding(&m, "main.tf", at, "merge-error")));
        assert!(inline.suppresses(&m, &finding(&m, "main.tf", at, "override-file")));
        let got: Vec<(RuleId, String)> = inline
            .findings(&m, &Policy::builtin(), &GlobBase::default())
            .into_iter()
            .map(|f| (f.rule, f.message))
            .collect();
        assert_eq!(
            got,
            [
                (
                    RuleId::BadSuppression,
                    "`merge-error` cannot be suppressed inline: Terraform refuses the module whatever a comment in it says".to_string()
                ),
                (RuleId::UnusedSuppression, "suppression of all matches no finding".to_string()),
            ]
        );
    }

    #[test]
    fn a_near_miss_suppresses_nothing_and_is_reported() {
        let main = "# override-guard: ignore[override-file] sizing\nresource \"a\" \"b\" {}\n";
        let m = load_texts("", &[("main.tf", main)], None);
        let mut inline = Inline::scan(&m);
        assert!(
            !inline
                .suppresses(&m, &finding(&m, "main.tf", "resource \"a\" \"b\"", "override-file"))
        );
        let got: Vec<(String, Option<String>)> = inline
            .findings(&m, &Policy::builtin(), &GlobBase::default())
            .into_iter()
            .map(|f| (f.message, f.help))
            .collect();
        assert_eq!(
            got,
            [(
                "suppression comment not recognised (spaces around the colon): it suppresses nothing"
                    .to_string(),
                Some("did you mean `# override-guard:ignore[override-file] sizing`?".to_string())
            )]
        );
    }
}
