//! SARIF 2.1.0, the format GitHub code scanning (and most CI dashboards) ingest. Written
//! with plain serde structs: the subset we emit is small and the schema is stable.

use serde::Serialize;

use crate::finding::{Finding, Level, Site};
use crate::policy::rules::RULES;
use crate::report::findings::Summary;

#[derive(Serialize)]
struct Log {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: Vec<Run>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Run {
    tool: Tool,
    /// What `%SRCROOT%` stands for. No absolute path is written (a report must not carry
    /// the machine's layout): GitHub code scanning resolves it to the checkout's root.
    original_uri_base_ids: std::collections::BTreeMap<&'static str, BaseId>,
    column_kind: &'static str,
    results: Vec<SarifResult>,
    /// A property bag (SARIF §3.8): the releases that judged the modules, so that a result
    /// can be read against the release it holds for.
    properties: RunProperties,
}

#[derive(Serialize)]
struct RunProperties {
    /// `{engine, version, modules}` each, as in the JSON report's summary.
    releases: serde_json::Value,
}

#[derive(Serialize)]
struct BaseId {
    description: Text,
}

#[derive(Serialize)]
struct Tool {
    driver: Driver,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Driver {
    name: &'static str,
    version: &'static str,
    /// The tool's home page (`homepage` in Cargo.toml): where code scanning links the tool.
    information_uri: &'static str,
    rules: Vec<RuleDescriptor>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RuleDescriptor {
    id: &'static str,
    name: String,
    short_description: Text,
    full_description: Text,
    help: Text,
    /// The rule's section of docs/rules.md, a stable anchor per rule id.
    help_uri: String,
    default_configuration: Configuration,
}

#[derive(Serialize)]
struct Configuration {
    level: &'static str,
}

#[derive(Serialize)]
struct Text {
    text: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifResult {
    rule_id: &'static str,
    rule_index: usize,
    level: &'static str,
    message: Text,
    locations: Vec<Location>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    related_locations: Vec<Location>,
    /// What code scanning matches a result by across commits, as lines move.
    partial_fingerprints: std::collections::BTreeMap<&'static str, String>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Location {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<usize>,
    physical_location: PhysicalLocation,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<Text>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PhysicalLocation {
    artifact_location: ArtifactLocation,
    region: Region,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ArtifactLocation {
    uri: String,
    uri_base_id: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Region {
    start_line: usize,
    start_column: usize,
    end_line: usize,
    end_column: usize,
}

fn level(l: Level) -> &'static str {
    match l {
        Level::Deny => "error",
        Level::Warn => "warning",
        Level::Allow => "none",
    }
}

/// `merge-error` → `MergeError`, SARIF's `name` convention.
fn pascal(id: &str) -> String {
    id.split('-')
        .map(|w| {
            let mut c = w.chars();
            c.next().map(|f| f.to_ascii_uppercase().to_string() + c.as_str()).unwrap_or_default()
        })
        .collect()
}

/// A relative URI reference: `/`-separated, with reserved characters percent-encoded.
pub(super) fn uri(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn location(site: &Site, id: Option<usize>, message: Option<String>) -> Location {
    let (start_line, start_column) = site.start_line_col();
    let (end_line, end_column) = site.end_line_col();
    Location {
        id,
        physical_location: PhysicalLocation {
            artifact_location: ArtifactLocation { uri: uri(&site.path), uri_base_id: "%SRCROOT%" },
            region: Region { start_line, start_column, end_line, end_column },
        },
        message: message.map(|text| Text { text }),
    }
}

/// The name of our fingerprint in `partialFingerprints`, versioned: a new way of
/// computing it gets a new name, so code scanning does not match old results wrongly.
pub const FINGERPRINT: &str = "overrideGuardFinding/v1";

/// The SARIF log of a run.
pub fn render(findings: &[Finding], summary: &Summary) -> String {
    let rules = RULES
        .iter()
        .map(|r| RuleDescriptor {
            id: r.id.as_str(),
            name: pascal(r.id.as_str()),
            short_description: Text { text: r.summary.to_string() },
            full_description: Text { text: r.summary.to_string() },
            help: Text { text: r.doc.to_string() },
            help_uri: crate::policy::rules::doc_url(r.id.as_str()),
            default_configuration: Configuration { level: level(r.level) },
        })
        .collect();
    let fingerprints = crate::finding::fingerprint::all(findings);
    let results = findings
        .iter()
        .zip(fingerprints)
        .map(|(f, fingerprint)| {
            let mut text = f.message.clone();
            if let Some(h) = &f.help {
                text.push('\n');
                text.push_str(h);
            }
            SarifResult {
                rule_id: f.rule.as_str(),
                rule_index: RULES.iter().position(|r| r.id == f.rule).unwrap_or(0),
                level: level(f.level),
                message: Text { text },
                locations: vec![location(&f.primary, None, None)],
                related_locations: f
                    .related
                    .iter()
                    .enumerate()
                    .map(|(i, s)| location(s, Some(i + 1), Some(s.label.clone())))
                    .collect(),
                partial_fingerprints: [(FINGERPRINT, fingerprint)].into(),
            }
        })
        .collect();
    let log = Log {
        schema: "https://json.schemastore.org/sarif-2.1.0.json",
        version: "2.1.0",
        runs: vec![Run {
            tool: Tool {
                driver: Driver {
                    name: "override-guard",
                    version: env!("CARGO_PKG_VERSION"),
                    information_uri: env!("CARGO_PKG_HOMEPAGE"),
                    rules,
                },
            },
            original_uri_base_ids: [(
                "%SRCROOT%",
                BaseId {
                    description: Text {
                        text: "The root of the repository (outside git, the working directory): every uri is relative to it".into(),
                    },
                },
            )]
            .into(),
            column_kind: "unicodeCodePoints",
            results,
            properties: RunProperties { releases: summary.releases_json() },
        }],
    };
    let mut out = serde_json::to_string_pretty(&log).unwrap_or_default();
    out.push('\n');
    out
}
