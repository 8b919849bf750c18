//! The reports CI services read besides SARIF: GitLab's Code Quality report (a JSON
//! array), JUnit XML (Jenkins' `junit` step, GitLab's test reports) and Checkstyle XML
//! (Jenkins' warnings-ng, and most linter dashboards). Pure: returns strings.
//!
//! Every report says what the others say: each finding once, merge errors included, with
//! the paths the caller rewrote (from the repository's root in a repository) and, where the
//! format has a place for one, the fingerprint SARIF and baselines use.

use serde::Serialize;

use super::clean;
use super::findings::{Summary, one_line};
use crate::finding::{Finding, Level, RuleId};

/// One issue of a GitLab Code Quality report (Code Climate's issue, the subset GitLab
/// reads: <https://docs.gitlab.com/ci/testing/code_quality/#code-quality-report-format>).
#[derive(Serialize)]
struct Issue<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    check_name: &'static str,
    description: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    content: Option<Content>,
    engine_name: &'static str,
    fingerprint: &'a str,
    severity: &'static str,
    location: IssueLocation<'a>,
}

#[derive(Serialize)]
struct Content {
    body: String,
}

#[derive(Serialize)]
struct IssueLocation<'a> {
    path: &'a str,
    lines: Lines,
}

#[derive(Serialize)]
struct Lines {
    begin: usize,
    end: usize,
}

/// GitLab's severity of a finding. GitLab sorts the widget by it (blocker, critical, major,
/// minor, info) and shows it as an icon; whether the pipeline fails is our exit status's
/// business. A merge error is `critical`: Terraform itself refuses the configuration, so
/// nothing of it can be planned. Another deny-level finding is `major`: the policy refuses
/// the change, but Terraform would run it. A warning is `minor`. `blocker` is left for
/// tools whose findings are security holes in the code itself.
fn gitlab_severity(f: &Finding) -> &'static str {
    match f.level {
        Level::Deny if f.rule == RuleId::MergeError => "critical",
        Level::Deny => "major",
        Level::Warn => "minor",
        Level::Allow => "info",
    }
}

/// What a finding says on one line, its detail after it (as in the compact report).
fn headline(f: &Finding) -> String {
    let mut message = one_line(&f.message);
    if let Some(detail) = f.detail().map(one_line).filter(|d| !d.is_empty()) {
        message.push_str(": ");
        message.push_str(&detail);
    }
    message
}

/// The GitLab Code Quality report: a JSON array of issues (`[]` when clean). Each issue's
/// `fingerprint` is the one SARIF's `partialFingerprints` and baselines carry, so GitLab
/// matches a finding across pipelines as code scanning does.
pub fn gitlab(findings: &[Finding]) -> String {
    let fingerprints = crate::finding::fingerprint::all(findings);
    let issues: Vec<Issue<'_>> = findings
        .iter()
        .zip(&fingerprints)
        .map(|(f, fingerprint)| {
            let (begin, _) = f.primary.start_line_col();
            let (end, _) = f.primary.end_line_col();
            Issue {
                kind: "issue",
                check_name: f.rule.as_str(),
                description: headline(f),
                content: f.help.clone().map(|body| Content { body }),
                engine_name: "override-guard",
                fingerprint,
                severity: gitlab_severity(f),
                location: IssueLocation {
                    path: &f.primary.path,
                    lines: Lines { begin, end: end.max(begin) },
                },
            }
        })
        .collect();
    let mut out = serde_json::to_string_pretty(&issues).unwrap_or_else(|_| "[]".into());
    out.push('\n');
    out
}

/// Text for an XML attribute value or element content. The five markup characters become
/// entities; in an attribute, line breaks and tabs become character references, which a
/// parser keeps (a raw one would be read as a space). Characters XML 1.0 cannot carry at
/// all, even as references (control characters, U+FFFE, U+FFFF), and those that could
/// drive a terminal (bidirectional overrides) are written visibly as `\u{..}`, as in the
/// other reports.
pub(crate) fn xml_escape(s: &str, attribute: bool) -> String {
    let mut out = String::with_capacity(s.len() + 16);
    for c in clean(s).chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' if attribute => out.push_str("&#10;"),
            '\t' if attribute => out.push_str("&#9;"),
            '\u{fffe}' | '\u{ffff}' => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

const XML_DECLARATION: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";

fn level_word(l: Level) -> &'static str {
    match l {
        Level::Deny => "error",
        Level::Warn => "warning",
        Level::Allow => "info",
    }
}

/// The directory of a path as shown (`""` for a file at the top).
fn dir_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

/// JUnit XML: one `<testsuite>` named override-guard; each finding is a failing
/// `<testcase>` (class `override-guard.<rule>`, named by its place), whose `<failure>` has
/// the message, the level as its type, and `path:line:col: level[rule]: message` and the
/// help as its text. Each judged module without a finding of its own is a passing
/// testcase (class `override-guard.module`, named by its directory): Jenkins' `junit` step
/// fails a build whose reports hold no test at all, so a clean run must still count its
/// modules, and a run that judged none is one passing testcase (class
/// `override-guard.run`). Jenkins marks a build with failed tests unstable, warnings included; the exit
/// status decides whether the step fails. Run times are not measured: every `time` is 0.
pub fn junit(findings: &[Finding], s: &Summary) -> String {
    let mut cases = String::new();
    for f in findings {
        let (l, c) = f.primary.start_line_col();
        let place = format!("{}:{l}:{c}", f.primary.path);
        let level = level_word(f.level);
        let mut text = format!("{place}: {level}[{}]: {}", f.rule, f.message);
        if let Some(h) = &f.help {
            text.push('\n');
            text.push_str(h);
        }
        cases.push_str(&format!(
            "    <testcase name=\"{}\" classname=\"override-guard.{}\" time=\"0\">\n      <failure message=\"{}\" type=\"{level}\">{}</failure>\n    </testcase>\n",
            xml_escape(&place, true),
            f.rule,
            xml_escape(&headline(f), true),
            xml_escape(&text, false),
        ));
    }
    let normal = |d: &str| if d == "." { String::new() } else { d.to_string() };
    let mut passed = 0;
    for dir in &s.judged {
        let dir = normal(dir);
        if findings.iter().any(|f| normal(dir_of(&f.primary.path)) == dir) {
            continue;
        }
        passed += 1;
        let name = if dir.is_empty() { "." } else { dir.as_str() };
        cases.push_str(&format!(
            "    <testcase name=\"{}\" classname=\"override-guard.module\" time=\"0\"/>\n",
            xml_escape(name, true)
        ));
    }
    // Nothing judged (a commit without a Terraform change): still one passing test, as
    // Jenkins fails a report without any ("None of the test reports contained any result").
    if findings.is_empty() && passed == 0 {
        passed = 1;
        cases.push_str(
            "    <testcase name=\"no Terraform or OpenTofu module to check\" classname=\"override-guard.run\" time=\"0\"/>\n",
        );
    }
    let tests = findings.len() + passed;
    let failures = findings.len();
    format!(
        "{XML_DECLARATION}<testsuites name=\"override-guard\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\" time=\"0\">\n  <testsuite name=\"override-guard\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\" skipped=\"0\" time=\"0\">\n{cases}  </testsuite>\n</testsuites>\n"
    )
}

/// Checkstyle XML: a `<file>` per file with findings (in the order of their first
/// finding), an `<error>` per finding with its line, column, severity (`error` for deny,
/// `warning` for warn), message and `source` `override-guard.<rule>`. A clean run is an
/// empty `<checkstyle>`. Version 4.3 is the format's, as other linters write it.
pub fn checkstyle(findings: &[Finding]) -> String {
    let mut files: Vec<(&str, Vec<&Finding>)> = Vec::new();
    for f in findings {
        match files.iter_mut().find(|(p, _)| *p == f.primary.path) {
            Some((_, list)) => list.push(f),
            None => files.push((&f.primary.path, vec![f])),
        }
    }
    let mut out = format!("{XML_DECLARATION}<checkstyle version=\"4.3\">\n");
    for (path, list) in files {
        out.push_str(&format!("  <file name=\"{}\">\n", xml_escape(path, true)));
        for f in list {
            let (l, c) = f.primary.start_line_col();
            out.push_str(&format!(
                "    <error line=\"{l}\" column=\"{c}\" severity=\"{}\" message=\"{}\" source=\"override-guard.{}\"/>\n",
                level_word(f.level),
                xml_escape(&headline(f), true),
                f.rule,
            ));
        }
        out.push_str("  </file>\n");
    }
    out.push_str("</checkstyle>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xml_escapes_markup_and_what_xml_cannot_carry() {
        assert_eq!(
            xml_escape("a<b>&\"c\" 'd'\n\te\u{1b}[2J\u{202e}\u{ffff}\r", true),
            "a&lt;b&gt;&amp;&quot;c&quot; &apos;d&apos;&#10;&#9;e\\u{1b}[2J\\u{202e}\\u{ffff}\\u{d}"
        );
        // In element content, line breaks and tabs stay as they are.
        assert_eq!(xml_escape("x\n\ty", false), "x\n\ty");
    }

    #[test]
    fn gitlab_severities_follow_levels() {
        let site = crate::finding::Site {
            path: "main.tf".into(),
            source: "x\n".into(),
            base: Default::default(),
            start: 0,
            end: 1,
            label: String::new(),
        };
        let mut f = Finding::new(RuleId::OverrideFile, "m", site);
        assert_eq!(gitlab_severity(&f), "major");
        f.level = Level::Warn;
        assert_eq!(gitlab_severity(&f), "minor");
        f.rule = RuleId::MergeError;
        f.level = Level::Deny;
        assert_eq!(gitlab_severity(&f), "critical");
    }
}
