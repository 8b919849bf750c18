//! Policy findings for people (`human`: miette drawings of both places), for terminals
//! and editors (`compact`), for GitHub workflow annotations (`github`) and for scripts
//! (`json`, a documented and versioned schema). Pure: returns strings.

use std::collections::BTreeMap;
use std::fmt;

use miette::{Diagnostic, LabeledSpan, NamedSource, Severity};
use serde_json::json;

use super::{Lined, Style, clean, clean_line, handler, lined};
use crate::finding::{Finding, Level, Site, Tally};
use crate::policy::rules::RULES;
use crate::terraform::release::Release;

/// What a report says besides its findings.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub modules: usize,
    /// The directories of the modules judged (`""` for the root), for the reports that
    /// list each module (JUnit: a module without findings is a passing test).
    pub judged: Vec<String>,
    pub files: usize,
    pub override_files: usize,
    /// The files that exist only in this checkout (git does not track them).
    pub local_only: Vec<String>,
    /// The policies in force: each file's path, `None` for the built-in default.
    pub policies: Vec<Option<String>>,
    /// Findings a baseline recorded, not reported.
    pub baselined: usize,
    /// Say nothing besides the findings (`--quiet`).
    pub quiet: bool,
    /// The releases that judged the modules, oldest first, each with its modules' count.
    pub releases: Vec<(Release, usize)>,
    /// Did something choose a release (a pin, a policy, `--engine`)? Then the summary line
    /// names them; else each module's files chose its engine's newest, as always.
    pub releases_said: bool,
}

impl Summary {
    /// Counts a module judged for `release`.
    pub fn judged_for(&mut self, release: Release, said: bool) {
        self.releases_said |= said;
        match self.releases.binary_search_by(|(r, _)| r.cmp(&release)) {
            Ok(i) => self.releases[i].1 += 1,
            Err(i) => self.releases.insert(i, (release, 1)),
        }
    }

    /// The releases as JSON, for the JSON report and SARIF's run properties.
    pub fn releases_json(&self) -> serde_json::Value {
        self.releases
            .iter()
            .map(|(r, n)| json!({"engine": r.engine, "version": r.version.to_string(), "modules": n}))
            .collect()
    }

    /// ` (Terraform 1.12.2)`, ` (Terraform 1.15.5: 7, Terraform 1.12.2: 1)`: the release of
    /// most modules first.
    fn releases_text(&self) -> String {
        if !self.releases_said {
            return String::new();
        }
        let mut each: Vec<&(Release, usize)> = self.releases.iter().collect();
        each.sort_by(|a, b| b.1.cmp(&a.1).then(b.0.cmp(&a.0)));
        match each.as_slice() {
            [] => String::new(),
            [(r, _)] => format!(" ({r})"),
            many => {
                let each: Vec<String> = many.iter().map(|(r, n)| format!("{r}: {n}")).collect();
                format!(" ({})", each.join(", "))
            }
        }
    }

    /// The policies in force, for the summary line (none when no module was judged).
    pub(crate) fn describe_policies(&self) -> String {
        let name =
            |p: &Option<String>| p.clone().unwrap_or_else(|| "built-in default policy".into());
        match self.policies.as_slice() {
            [] => "no policy in force".into(),
            [one] => name(one),
            many => format!(
                "{} policies: {}",
                many.len(),
                many.iter().map(name).collect::<Vec<_>>().join(", ")
            ),
        }
    }
}

/// A finding shaped for miette: one file's labels, other files as related reports.
#[derive(Debug)]
struct Shown {
    message: String,
    code: Option<String>,
    severity: Option<Severity>,
    help: Option<String>,
    source: Option<NamedSource<Lined>>,
    labels: Vec<LabeledSpan>,
    related: Vec<Shown>,
}

impl fmt::Display for Shown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Shown {}

impl Diagnostic for Shown {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.code.as_ref().map(|c| Box::new(c) as Box<dyn fmt::Display>)
    }
    fn severity(&self) -> Option<Severity> {
        self.severity
    }
    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help.as_ref().map(|c| Box::new(c) as Box<dyn fmt::Display>)
    }
    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        self.source.as_ref().map(|s| s as &dyn miette::SourceCode)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        Some(Box::new(self.labels.iter().cloned()))
    }
    fn related<'a>(&'a self) -> Option<Box<dyn Iterator<Item = &'a dyn Diagnostic> + 'a>> {
        if self.related.is_empty() {
            return None;
        }
        Some(Box::new(self.related.iter().map(|r| r as &dyn Diagnostic)))
    }
}

fn label(site: &Site, primary: bool) -> LabeledSpan {
    let text = Some(clean(&site.label));
    let len = site.end.saturating_sub(site.start);
    if primary {
        LabeledSpan::new_primary_with_span(text, (site.start, len))
    } else {
        LabeledSpan::new_with_span(text, (site.start, len))
    }
}

fn source(site: &Site) -> NamedSource<Lined> {
    NamedSource::new(clean(&site.path), lined(&site.source, site.base.line))
}

fn shown(f: &Finding) -> Shown {
    if !super::drawable(&f.primary.source, f.primary.start, f.primary.end) {
        // Too long a line to draw: the place in words instead.
        let (l, c) = f.primary.start_line_col();
        return Shown {
            message: format!("{} ({}:{l}:{c})", clean(&f.message), clean(&f.primary.path)),
            code: Some(f.rule.to_string()),
            severity: Some(match f.level {
                Level::Deny => Severity::Error,
                _ => Severity::Warning,
            }),
            help: f.help.as_deref().map(clean),
            source: None,
            labels: Vec::new(),
            related: Vec::new(),
        };
    }
    let mut labels = vec![label(&f.primary, true)];
    let mut others: Vec<Vec<&Site>> = Vec::new();
    for r in &f.related {
        if r.path == f.primary.path {
            labels.push(label(r, false));
        } else if let Some(group) = others.iter_mut().find(|g| g[0].path == r.path) {
            group.push(r);
        } else {
            others.push(vec![r]);
        }
    }
    let related = others
        .into_iter()
        .map(|group| Shown {
            message: format!("in {}", clean(&group[0].path)),
            code: None,
            severity: Some(Severity::Advice),
            help: None,
            source: Some(source(group[0])),
            labels: group.iter().map(|s| label(s, false)).collect(),
            related: Vec::new(),
        })
        .collect();
    Shown {
        message: clean(&f.message),
        code: Some(f.rule.to_string()),
        severity: Some(match f.level {
            Level::Deny => Severity::Error,
            _ => Severity::Warning,
        }),
        help: f.help.as_deref().map(clean),
        source: Some(source(&f.primary)),
        labels,
        related,
    }
}

/// One finding drawn with the source lines of every place it names.
pub(crate) fn human_one(f: &Finding, style: Style) -> String {
    let mut out = String::new();
    let _ = handler(style).render_report(&mut out, &shown(f));
    out
}

/// The human report: every finding drawn, then the summary table.
pub fn human(findings: &[Finding], s: &Summary, style: Style) -> String {
    let mut out = String::new();
    for f in findings {
        out.push_str(&human_one(f, style));
        out.push('\n');
    }
    if !s.quiet {
        out.push_str(&table(findings, s));
    }
    out
}

fn level_word(l: Level) -> &'static str {
    match l {
        Level::Deny => "error",
        Level::Warn => "warning",
        Level::Allow => "note",
    }
}

/// The correction a help starts with: `did you mean `x`?`, without what follows it.
fn correction(help: &str) -> Option<&str> {
    let line = help.lines().next()?;
    let rest = line.strip_prefix("did you mean `")?;
    let end = rest.rfind("`?")?;
    line.get(..line.len() - rest.len() + end + 2)
}

/// `path:line:col: level[rule]: message`, one finding a line, then the summary line.
/// A merge error's message is the engine's summary, which does not say which object
/// (`Missing resource to override`): its detail does, so it follows on the same line. A
/// help that starts with a correction (`did you mean `level`?`, for a misspelt policy key
/// or a suppression written almost right) follows in brackets: what the committer under
/// pre-commit sees is this line.
pub fn compact(findings: &[Finding], s: &Summary) -> String {
    let mut out = String::new();
    for f in findings {
        out.push_str(&compact_line(f));
        out.push('\n');
    }
    if !s.quiet {
        out.push_str(&summary_line(findings, s));
        out.push('\n');
    }
    out
}

/// One finding as the compact report (and the review's lists) write it:
/// `path:line:col: level[rule]: message`, with a merge error's detail or a correction.
pub(super) fn compact_line(f: &Finding) -> String {
    let (l, c) = f.primary.start_line_col();
    let mut message = clean(&f.message).replace('\n', " ");
    if let Some(detail) = f.detail().map(one_line).filter(|d| !d.is_empty()) {
        message.push_str(": ");
        message.push_str(&detail);
    } else if let Some(meant) = f.help.as_deref().and_then(correction) {
        message.push_str(&format!(" ({})", clean(meant)));
    }
    format!(
        "{}:{l}:{c}: {}[{}]: {message}",
        clean_line(&f.primary.path),
        level_word(f.level),
        f.rule
    )
}

/// Text folded onto one line: its lines trimmed and joined by a space.
pub(super) fn one_line(s: &str) -> String {
    let text = clean(s).replace('\t', " ");
    text.lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" ")
}

/// GitHub Actions workflow commands: one annotation per finding.
pub fn github(findings: &[Finding], s: &Summary) -> String {
    let mut out = String::new();
    for f in findings {
        let (l, c) = f.primary.start_line_col();
        let (el, ec) = f.primary.end_line_col();
        let kind = if f.level == Level::Deny { "error" } else { "warning" };
        let mut msg = f.message.clone();
        if let Some(h) = &f.help {
            msg.push('\n');
            msg.push_str(h);
        }
        out.push_str(&format!(
            "::{kind} file={},line={l},col={c},endLine={el},endColumn={ec},title={}::{}\n",
            gh_property(&f.primary.path),
            gh_property(f.rule.as_str()),
            gh_data(&msg)
        ));
    }
    if !s.quiet {
        out.push_str(&summary_line(findings, s));
        out.push('\n');
    }
    out
}

pub(crate) fn gh_data(s: &str) -> String {
    clean(&s.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A"))
}

pub(crate) fn gh_property(s: &str) -> String {
    gh_data(s).replace(':', "%3A").replace(',', "%2C")
}

fn location(site: &Site) -> serde_json::Value {
    let (line, column) = site.start_line_col();
    let (end_line, end_column) = site.end_line_col();
    json!({
        "path": site.path,
        "line": line,
        "column": column,
        "end_line": end_line,
        "end_column": end_column,
        "byte_start": site.file_span().0,
        "byte_end": site.file_span().1,
        "label": site.label,
    })
}

/// The JSON report (schema version 1, documented in docs/formats.md).
pub fn json(findings: &[Finding], s: &Summary) -> String {
    let t = Tally::of(findings);
    let fingerprints = crate::finding::fingerprint::all(findings);
    let doc = json!({
        "version": 1,
        "tool": {"name": "override-guard", "version": env!("CARGO_PKG_VERSION")},
        "policy": s.policies.first().cloned().flatten(),
        "policies": s.policies,
        "findings": findings.iter().zip(&fingerprints).map(|(f, fingerprint)| json!({
            "rule": f.rule,
            "level": f.level,
            "message": f.message,
            "help": f.help,
            "address": f.address,
            "location": location(&f.primary),
            "related": f.related.iter().map(location).collect::<Vec<_>>(),
            "fingerprint": fingerprint,
        })).collect::<Vec<_>>(),
        "summary": {
            "modules": s.modules,
            "files": s.files,
            "override_files": s.override_files,
            "local_only": s.local_only,
            "baselined": s.baselined,
            "releases": s.releases_json(),
            "deny": t.deny,
            "warn": t.warn,
            "by_rule": by_rule(findings).into_values().map(|(r, (d, w))| (r.to_string(), json!({"deny": d, "warn": w}))).collect::<serde_json::Map<_, _>>(),
        },
    });
    let mut out = serde_json::to_string_pretty(&doc).unwrap_or_default();
    out.push('\n');
    out
}

/// Counts per rule, in registry order: (deny, warn).
fn by_rule(findings: &[Finding]) -> BTreeMap<usize, (&'static str, (usize, usize))> {
    let mut m: BTreeMap<usize, (&'static str, (usize, usize))> = BTreeMap::new();
    for f in findings {
        let idx = RULES.iter().position(|r| r.id == f.rule).unwrap_or(usize::MAX);
        let e = m.entry(idx).or_insert((f.rule.as_str(), (0, 0)));
        match f.level {
            Level::Deny => e.1.0 += 1,
            Level::Warn => e.1.1 += 1,
            Level::Allow => {}
        }
    }
    m
}

fn summary_line(findings: &[Finding], s: &Summary) -> String {
    let t = Tally::of(findings);
    let local = match s.local_only.len() {
        0 => String::new(),
        n => format!(" ({n} local-only)"),
    };
    let baselined = match s.baselined {
        0 => String::new(),
        n => format!(", {n} more in the baseline"),
    };
    format!(
        "{} module{}{}, {} file{}{local}, {} override file{}: {} error{}, {} warning{}{baselined} ({})",
        s.modules,
        plural(s.modules),
        s.releases_text(),
        s.files,
        plural(s.files),
        s.override_files,
        plural(s.override_files),
        t.deny,
        plural(t.deny),
        t.warn,
        plural(t.warn),
        clean_line(&s.describe_policies())
    )
}

/// The summary table of the human report.
pub fn table(findings: &[Finding], s: &Summary) -> String {
    let mut out = String::new();
    let rows = by_rule(findings);
    if !rows.is_empty() {
        let w = rows.values().map(|(r, _)| r.len()).max().unwrap_or(4).max(5);
        out.push_str(&format!("{:<w$}  {:>5}  {:>7}\n", "rule", "error", "warning"));
        for (rule, (d, wn)) in rows.values() {
            out.push_str(&format!("{rule:<w$}  {d:>5}  {wn:>7}\n"));
        }
        out.push('\n');
    }
    out.push_str(&summary_line(findings, s));
    out.push('\n');
    out
}

/// The `s` of a count's noun.
pub(super) fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finding::RuleId;

    fn finding(rule: &'static str, message: &str, help: &str) -> Finding {
        let site = Site {
            path: "main.tf".into(),
            source: "resource \"aws_instance\" \"web\" {}\n".into(),
            base: Default::default(),
            start: 0,
            end: 8,
            label: "here".into(),
        };
        Finding::new(crate::finding::RuleId::parse(rule).expect("a rule id"), message, site)
            .help(help)
    }

    /// What a committer sees under pre-commit is the compact line: a correction the help
    /// starts with is in it, what follows the correction is not.
    #[test]
    fn compact_lines_carry_the_correction() {
        let found = [
            finding(
                "policy-error",
                "unknown key `levle` in [rules.override-file]",
                "did you mean `level`?\nthe modules this policy file governs are not judged until it is fixed",
            ),
            finding("undeclared-variable-value", "x is set", "did you mean `size`? declare it"),
            finding("policy-error", "unknown key `zzz`", "the modules … are not judged"),
        ];
        let out = compact(&found, &Summary::default());
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(
            lines[..3],
            [
                "main.tf:1:1: error[policy-error]: unknown key `levle` in [rules.override-file] (did you mean `level`?)",
                "main.tf:1:1: error[undeclared-variable-value]: x is set (did you mean `size`?)",
                "main.tf:1:1: error[policy-error]: unknown key `zzz`",
            ]
        );
    }

    #[test]
    fn compact_merge_errors_name_the_object() {
        let found = [
            finding(
                "merge-error",
                "Missing resource to override",
                "There is no aws_instance resource named \"web\".\nAn override file can only override a resource block defined in a primary configuration file.",
            ),
            finding("override-file", "override file override.tf changes x", "fold it in"),
        ];
        let out = compact(&found, &Summary::default());
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(
            lines[0],
            "main.tf:1:1: error[merge-error]: Missing resource to override: There is no aws_instance resource named \"web\". An override file can only override a resource block defined in a primary configuration file."
        );
        // Other rules' help stays out of the line.
        assert_eq!(
            lines[1],
            "main.tf:1:1: error[override-file]: override file override.tf changes x"
        );
        // GitHub annotations carry every finding's help, merge errors included.
        let gh = github(&found[..1], &Summary::default());
        assert!(
            gh.contains("::Missing resource to override%0AThere is no aws_instance resource named \"web\".%0AAn override file"),
            "{gh}"
        );
    }

    /// Every report of `found`, in every format.
    fn every_report(found: &[Finding]) -> Vec<String> {
        let s = Summary::default();
        let style = Style { color: false, width: 100 };
        vec![
            human(found, &s, style),
            compact(found, &s),
            github(found, &s),
            json(found, &s),
            crate::report::sarif::render(found, &s),
            crate::report::ci::gitlab(found),
            crate::report::ci::junit(found, &s),
            crate::report::ci::checkstyle(found),
        ]
    }

    #[test]
    fn a_trimmed_finding_reports_as_the_whole_files_did() {
        use std::sync::Arc;
        let numbered = |eol: &str, n: usize| -> String {
            (1..=n).map(|i| format!("  a{i} = {i} # é{eol}")).collect()
        };
        let main: Arc<str> =
            format!("\u{feff}resource \"x\" \"y\" {{\r\n{}}}\r\n", numbered("\r\n", 40)).into();
        let over: Arc<str> = format!("resource \"x\" \"y\" {{\n{}}}\n", numbered("\n", 30)).into();
        let lone_cr: Arc<str> = format!("# a\rb\n{}", numbered("\n", 20)).into();
        let at = |text: &Arc<str>, needle: &str, label: &str| {
            let start = text.find(needle).expect("needle");
            Site::new("m/x.tf", text.clone(), start, start + needle.len(), label)
        };
        let site = |path: &str, text: &Arc<str>, needle: &str| Site {
            path: path.into(),
            ..at(text, needle, "here")
        };
        let found = vec![
            // Sites in the middle of two files, two of them in the same file.
            Finding::new(RuleId::MissingOverrideComment, "m", site("m/main.tf", &main, "a20 = 20"))
                .related(site("m/main.tf", &main, "a31"))
                .related(site("m/override.tf", &over, "a12 = 12")),
            // At the start of a file with a byte-order mark, and at the end of a file.
            Finding::new(RuleId::OverrideFile, "o", site("m/main.tf", &main, "resource"))
                .related(site("m/override.tf", &over, "}\n")),
            // After a lone carriage return, which terminals count as a line break.
            Finding::new(RuleId::BackendSwap, "b", site("m/cr.tf", &lone_cr, "a15")),
        ];
        let mut trimmed = found.clone();
        trimmed.iter_mut().for_each(Finding::trim);
        // Only the lines around the sites are kept (not where a lone `\r` came before).
        assert!(trimmed[0].primary.source.len() < main.len() / 2);
        assert!(trimmed[0].related[1].source.len() < over.len() / 3);
        assert!(Arc::ptr_eq(&trimmed[0].primary.source, &trimmed[0].related[0].source));
        assert!(Arc::ptr_eq(&trimmed[2].primary.source, &lone_cr));
        for (whole, part) in every_report(&found).iter().zip(every_report(&trimmed)) {
            assert_eq!(*whole, part);
        }
        // Trimming twice changes nothing.
        let again = {
            let mut t = trimmed.clone();
            t.iter_mut().for_each(Finding::trim);
            t
        };
        assert_eq!(every_report(&again), every_report(&trimmed));
    }
}
