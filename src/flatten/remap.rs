//! A scanner's SARIF on a flattened tree, put back on the user's files. A finding on a
//! line an override set moves to that override line; a finding on a whole block that
//! overrides changed stays on the primary block and names each override block as a
//! related location; a finding elsewhere keeps its lines. Every uri becomes relative to
//! the repository's root (GitHub code scanning places it in the checkout), and no string
//! of the log names the temporary tree any more. Pure: a JSON value in, a JSON value out.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::{ChangedBlock, Dropped, Region, Written};
use crate::fix::fold::Refusal;

/// The map a flattened tree carries: which files were rewritten or left out, and where
/// each line of a rewritten file comes from. `flatten` writes it beside the tree;
/// `remap` reads it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct TreeMap {
    /// The format's version: 1.
    pub version: u32,
    /// The directory (relative to the repository's root, `""` for the root) that the
    /// tree's root stands for.
    pub root: String,
    pub files: Vec<Written>,
    #[serde(default)]
    pub dropped: Vec<Dropped>,
    /// Modules copied as they are, and why.
    #[serde(default)]
    pub unflattened: Vec<Unflattened>,
}

/// A module that is copied as it is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Unflattened {
    pub path: String,
    /// 1-based; 0 when the reason is about the whole module.
    pub line: usize,
    pub why: String,
}

impl From<Refusal> for Unflattened {
    fn from(r: Refusal) -> Self {
        Unflattened { path: r.path, line: r.line, why: r.reason }
    }
}

/// The name GitHub code scanning resolves to the checkout's root; our own SARIF uses it.
const SRCROOT: &str = "%SRCROOT%";

/// How a scanner may have spelled the tree's files: absolute under one of `dirs` (the
/// tree's root as given and canonical), relative to its root, relative to the working
/// directory `cwd`, or (checkov) relative to some directory above the root, so that the
/// path starts with the root's last components. `exists` says whether a path relative
/// to the root is a file of the tree, to choose between readings.
pub(crate) struct Roots<'a> {
    pub dirs: Vec<String>,
    pub cwd: Option<String>,
    pub exists: &'a dyn Fn(&str) -> bool,
}

/// What remapping did, for the closing summary.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Stats {
    pub results: usize,
    /// Results moved onto a line an override file set.
    pub onto_overrides: usize,
    /// Results on a block overrides changed, with the override blocks as related
    /// locations.
    pub with_overrides: usize,
}

impl TreeMap {
    /// A path of the tree (relative to its root) as the user's repository knows it.
    fn source_of(&self, rel: &str) -> String {
        match self.files.iter().find(|f| f.path == rel) {
            Some(f) => f.source.clone(),
            None => crate::path::join(&self.root, rel),
        }
    }

    fn written(&self, rel: &str) -> Option<&Written> {
        self.files.iter().find(|f| f.path == rel)
    }
}

impl Written {
    /// Where line `n` of this file comes from.
    pub(crate) fn origin(&self, n: usize) -> Option<(&str, usize)> {
        self.segments
            .iter()
            .find(|s| s.first <= n && n < s.first + s.count)
            .map(|s| (s.path.as_str(), s.line + (n - s.first)))
    }

    fn block_at(&self, n: usize) -> Option<&ChangedBlock> {
        self.blocks.iter().find(|b| b.start <= n && n <= b.end)
    }
}

/// Puts the results of a SARIF log made on the flattened tree back on the user's files.
/// `roots` are the spellings of the tree's root directory a scanner may have written
/// (as given, canonical); `shown` is what stands for it in the remaining text.
pub(crate) fn sarif(
    log: &mut Value,
    map: &TreeMap,
    roots: &Roots<'_>,
    shown: &str,
) -> Result<Stats, String> {
    let Some(runs) = log.get_mut("runs").and_then(Value::as_array_mut) else {
        return Err("not a SARIF log: it has no \"runs\" list".into());
    };
    let mut stats = Stats::default();
    for run in runs {
        let bases = base_dirs(run, roots);
        if let Some(results) = run.get_mut("results").and_then(Value::as_array_mut) {
            for r in results {
                stats.results += 1;
                remap_result(r, map, roots, &bases, &mut stats);
            }
        }
        if let Some(artifacts) = run.get_mut("artifacts").and_then(Value::as_array_mut) {
            for a in artifacts {
                if let Some(loc) = a.get_mut("location") {
                    remap_artifact(loc, map, roots, &bases);
                }
            }
        }
        if let Some(o) = run.as_object_mut() {
            o.insert(
                "originalUriBaseIds".into(),
                json!({ SRCROOT: { "description": { "text":
                    "The root of the repository (outside git, the working directory): every uri is relative to it" } } }),
            );
        }
    }
    scrub(log, &roots.dirs, shown);
    Ok(stats)
}

/// The run's own base directories (`originalUriBaseIds` that point into the tree), as
/// paths relative to the tree's root.
fn base_dirs(run: &Value, roots: &Roots) -> Vec<(String, String)> {
    let mut out = Vec::new();
    if let Some(ids) = run.get("originalUriBaseIds").and_then(Value::as_object) {
        for (name, v) in ids {
            if let Some(uri) = v.get("uri").and_then(Value::as_str)
                && let Some(rel) = relative(uri, roots)
            {
                out.push((name.clone(), rel));
            }
        }
    }
    out
}

/// A uri of the tree as a path relative to its root, or `None` for a uri elsewhere.
fn relative(uri: &str, roots: &Roots<'_>) -> Option<String> {
    let path = match uri.strip_prefix("file://") {
        Some(rest) => percent_decoded(rest.strip_prefix("localhost").unwrap_or(rest)),
        None => percent_decoded(uri),
    };
    if is_absolute(&path) {
        return under_dirs(&path, &roots.dirs);
    }
    let path = path.trim_start_matches("./").to_string();
    if (roots.exists)(&path) {
        return Some(path);
    }
    if let Some(cwd) = &roots.cwd
        && let Some(abs) = normalized(&format!("{}/{path}", cwd.trim_end_matches('/')))
        && let Some(rel) = under_dirs(&abs, &roots.dirs)
        && (roots.exists)(&rel)
    {
        return Some(rel);
    }
    // Relative to a directory above the root: the path starts with the root's last
    // components (the longest reading that names a file of the tree wins).
    for d in &roots.dirs {
        let parts: Vec<&str> = d.split('/').filter(|p| !p.is_empty()).collect();
        for k in (1..=parts.len()).rev() {
            let prefix = parts[parts.len() - k..].join("/");
            if let Some(rest) = path.strip_prefix(&prefix).and_then(|r| r.strip_prefix('/'))
                && (roots.exists)(rest)
            {
                return Some(rest.to_string());
            }
        }
    }
    Some(path)
}

fn is_absolute(path: &str) -> bool {
    path.starts_with('/') || path.get(1..2) == Some(":")
}

fn under_dirs(path: &str, dirs: &[String]) -> Option<String> {
    for r in dirs {
        let r = r.trim_end_matches('/');
        if path == r {
            return Some(String::new());
        }
        if let Some(rest) = path.strip_prefix(r).and_then(|p| p.strip_prefix('/')) {
            return Some(rest.to_string());
        }
    }
    None
}

/// `a/b/../c` as `a/c`; `None` when `..` climbs above the start.
fn normalized(path: &str) -> Option<String> {
    let mut out: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                out.pop()?;
            }
            p => out.push(p),
        }
    }
    Some(format!("/{}", out.join("/")))
}

fn percent_decoded(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && let Some(v) = s.get(i + 1..i + 3).and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            out.push(v);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The tree-relative path of an `artifactLocation`.
fn tree_path(loc: &Value, roots: &Roots, bases: &[(String, String)]) -> Option<String> {
    let uri = loc.get("uri").and_then(Value::as_str)?;
    let rel = relative(uri, roots)?;
    match loc.get("uriBaseId").and_then(Value::as_str) {
        Some(b) if !uri.starts_with("file:") && !uri.starts_with('/') => {
            match bases.iter().find(|(n, _)| n == b) {
                Some((_, dir)) => Some(crate::path::join(dir, &rel)),
                None => Some(rel),
            }
        }
        _ => Some(rel),
    }
}

fn set_uri(loc: &mut Value, path: &str) {
    if let Some(o) = loc.as_object_mut() {
        o.insert("uri".into(), Value::String(path.to_string()));
        o.insert("uriBaseId".into(), Value::String(SRCROOT.into()));
    }
}

fn remap_artifact(loc: &mut Value, map: &TreeMap, roots: &Roots, bases: &[(String, String)]) {
    if let Some(rel) = tree_path(loc, roots, bases) {
        set_uri(loc, &map.source_of(&rel));
    }
}

fn remap_result(
    r: &mut Value,
    map: &TreeMap,
    roots: &Roots,
    bases: &[(String, String)],
    stats: &mut Stats,
) {
    let mut related: Vec<Value> = Vec::new();
    let mut moved = false;
    if let Some(locs) = r.get_mut("locations").and_then(Value::as_array_mut) {
        for (i, loc) in locs.iter_mut().enumerate() {
            let changed = remap_location(loc, map, roots, bases);
            if i == 0
                && let Some((block, onto_override)) = changed
            {
                moved = onto_override;
                if let Some(b) = block {
                    related.extend(b.overrides.iter().map(region_location));
                }
            }
        }
    }
    let existing = r.get_mut("relatedLocations").and_then(Value::as_array_mut);
    let mut next_id = 1;
    if let Some(locs) = existing {
        for loc in locs.iter_mut() {
            remap_location(loc, map, roots, bases);
            if let Some(id) = loc.get("id").and_then(Value::as_u64) {
                next_id = next_id.max(id as usize + 1);
            }
        }
    }
    if moved {
        stats.onto_overrides += 1;
    }
    if related.is_empty() {
        return;
    }
    stats.with_overrides += 1;
    let mut links = Vec::new();
    let mut added = Vec::new();
    for (k, mut loc) in related.into_iter().enumerate() {
        let id = next_id + k;
        if let Some(o) = loc.as_object_mut() {
            o.insert("id".into(), json!(id));
        }
        let text = location_text(&loc);
        links.push(format!("[{text}]({id})"));
        added.push(loc);
    }
    let Some(o) = r.as_object_mut() else { return };
    let list = o.entry("relatedLocations").or_insert_with(|| Value::Array(Vec::new()));
    if let Some(list) = list.as_array_mut() {
        list.extend(added);
    }
    let sentence = format!(
        " Override files change this block: {} (override-guard scanned the effective configuration).",
        links.join(", ")
    );
    if let Some(msg) = o.get_mut("message").and_then(Value::as_object_mut) {
        match msg.get_mut("text") {
            Some(Value::String(t)) => t.push_str(&sentence),
            _ => {
                msg.insert("text".into(), Value::String(sentence.trim_start().to_string()));
            }
        }
    }
}

fn location_text(loc: &Value) -> String {
    let p = &loc["physicalLocation"];
    format!(
        "{}:{}",
        p["artifactLocation"]["uri"].as_str().unwrap_or_default(),
        p["region"]["startLine"].as_u64().unwrap_or(1)
    )
}

fn region_location(r: &Region) -> Value {
    json!({
        "physicalLocation": {
            "artifactLocation": { "uri": r.path, "uriBaseId": SRCROOT },
            "region": { "startLine": r.start, "endLine": r.end },
        },
        "message": { "text": "an override block merged into this one" },
    })
}

/// Remaps one location. For a location in a rewritten file: the changed block its first
/// line is the header of (a finding on the whole block), and whether it now points into
/// an override file.
fn remap_location<'m>(
    loc: &mut Value,
    map: &'m TreeMap,
    roots: &Roots,
    bases: &[(String, String)],
) -> Option<(Option<&'m ChangedBlock>, bool)> {
    let phys = loc.get_mut("physicalLocation")?;
    let art = phys.get_mut("artifactLocation")?;
    let rel = tree_path(art, roots, bases)?;
    let Some(w) = map.written(&rel) else {
        set_uri(art, &map.source_of(&rel));
        return None;
    };
    let region = phys.get("region").cloned().unwrap_or(Value::Null);
    let start = region.get("startLine").and_then(Value::as_u64).unwrap_or(1) as usize;
    let end = region.get("endLine").and_then(Value::as_u64).map_or(start, |e| e as usize);
    let (from, first) = w.origin(start).unwrap_or((w.source.as_str(), start));
    let from = from.to_string();
    let last = match w.origin(end.max(start)) {
        Some((p, l)) if p == from && l >= first => l,
        _ => first,
    };
    let block = w.block_at(start).filter(|b| b.start == start && end > start);
    if let Some(art) = phys.get_mut("artifactLocation") {
        set_uri(art, &from);
    }
    if let Some(o) = phys.as_object_mut() {
        let mut reg = Map::new();
        reg.insert("startLine".into(), json!(first));
        reg.insert("endLine".into(), json!(last));
        if let Some(Value::Object(old)) = o.get("region") {
            // Columns and snippets describe the rewritten text: only a message stays.
            if let Some(m) = old.get("message") {
                reg.insert("message".into(), m.clone());
            }
        }
        o.insert("region".into(), Value::Object(reg));
        o.remove("contextRegion");
    }
    let onto_override = from != w.source;
    Some((block, onto_override))
}

/// Replaces every spelling of the tree's root in the log's strings.
fn scrub(v: &mut Value, roots: &[String], shown: &str) {
    match v {
        Value::String(s) => {
            for r in roots {
                let r = r.trim_end_matches('/');
                if !r.is_empty() && s.contains(r) {
                    *s = s.replace(&format!("file://{r}"), shown).replace(r, shown);
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| scrub(x, roots, shown)),
        Value::Object(o) => o.values_mut().for_each(|x| scrub(x, roots, shown)),
        _ => {}
    }
}

/// One result of a (remapped) SARIF log, as the compact and GitHub formats print it.
pub(crate) struct Flat {
    pub path: String,
    pub line: usize,
    pub end_line: usize,
    pub level: &'static str,
    pub rule: String,
    pub message: String,
}

/// The results of a SARIF log, run by run.
pub(crate) fn results(log: &Value) -> Vec<Flat> {
    let mut out = Vec::new();
    for run in log["runs"].as_array().into_iter().flatten() {
        for r in run["results"].as_array().into_iter().flatten() {
            let p = &r["locations"][0]["physicalLocation"];
            let line = p["region"]["startLine"].as_u64().unwrap_or(1) as usize;
            out.push(Flat {
                path: p["artifactLocation"]["uri"].as_str().unwrap_or_default().to_string(),
                line,
                end_line: p["region"]["endLine"].as_u64().map_or(line, |l| l as usize),
                // SARIF's default level is "warning".
                level: match r["level"].as_str() {
                    Some("error") => "error",
                    Some("warning") | None => "warning",
                    _ => "note",
                },
                rule: r["ruleId"].as_str().unwrap_or_default().to_string(),
                message: r["message"]["text"].as_str().unwrap_or_default().to_string(),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flatten::Segment;

    /// The map of a tree holding `db/main.tf` rewritten: lines 1-3 and 6 from main.tf,
    /// 4-5 from override.tf; the resource on lines 2-6, changed by override.tf 2-5.
    fn map() -> TreeMap {
        let seg =
            |first, count, path: &str, line| Segment { first, count, path: path.into(), line };
        TreeMap {
            version: 1,
            root: "infra".into(),
            files: vec![Written {
                path: "db/main.tf".into(),
                source: "infra/db/main.tf".into(),
                text: String::new(),
                segments: vec![
                    seg(1, 3, "infra/db/main.tf", 1),
                    seg(4, 2, "infra/db/override.tf", 3),
                    seg(6, 1, "infra/db/main.tf", 6),
                ],
                blocks: vec![ChangedBlock {
                    start: 2,
                    end: 6,
                    address: "resource \"aws_db_instance\" \"main\"".into(),
                    primary: Region { path: "infra/db/main.tf".into(), start: 2, end: 6 },
                    overrides: vec![Region {
                        path: "infra/db/override.tf".into(),
                        start: 2,
                        end: 5,
                    }],
                }],
            }],
            ..TreeMap::default()
        }
    }

    fn result(uri: &str, start: usize, end: usize) -> Value {
        json!({
            "ruleId": "CKV_AWS_17",
            "level": "error",
            "message": { "text": "Ensure all data stored in RDS is not publicly accessible" },
            "locations": [{ "physicalLocation": {
                "artifactLocation": { "uri": uri },
                "region": { "startLine": start, "endLine": end, "snippet": { "text": "flattened text" } }
            }}]
        })
    }

    fn run(results: Vec<Value>) -> (Value, Stats) {
        let mut log = json!({ "version": "2.1.0", "runs": [{ "tool": { "driver": { "name": "checkov" } }, "results": results }] });
        let files = ["db/main.tf", "README.md"];
        let exists = |p: &str| files.contains(&p);
        let roots = Roots {
            dirs: vec!["/tmp/og-1/override-guard-flattened".into()],
            cwd: Some("/home/me/repo/infra".into()),
            exists: &exists,
        };
        let stats = sarif(&mut log, &map(), &roots, "infra").unwrap();
        (log, stats)
    }

    fn loc(log: &Value, i: usize) -> (String, u64, u64) {
        let p = &log["runs"][0]["results"][i]["locations"][0]["physicalLocation"];
        (
            p["artifactLocation"]["uri"].as_str().unwrap().to_string(),
            p["region"]["startLine"].as_u64().unwrap(),
            p["region"]["endLine"].as_u64().unwrap(),
        )
    }

    #[test]
    fn a_finding_on_a_whole_changed_block_stays_on_the_primary_with_the_overrides_beside_it() {
        let (log, stats) = run(vec![result("db/main.tf", 2, 6)]);
        assert_eq!(loc(&log, 0), ("infra/db/main.tf".into(), 2, 6));
        let r = &log["runs"][0]["results"][0];
        let rel = &r["relatedLocations"][0];
        assert_eq!(rel["id"], 1);
        assert_eq!(rel["physicalLocation"]["artifactLocation"]["uri"], "infra/db/override.tf");
        assert_eq!(rel["physicalLocation"]["region"]["startLine"], 2);
        assert_eq!(rel["physicalLocation"]["region"]["endLine"], 5);
        let text = r["message"]["text"].as_str().unwrap();
        assert!(
            text.ends_with(
                "[infra/db/override.tf:2](1) (override-guard scanned the effective configuration)."
            ),
            "{text}"
        );
        // The snippet was the rewritten text: it goes.
        assert!(r["locations"][0]["physicalLocation"]["region"].get("snippet").is_none());
        assert_eq!(stats, Stats { results: 1, onto_overrides: 0, with_overrides: 1 });
    }

    #[test]
    fn a_finding_on_a_line_an_override_set_moves_to_that_line() {
        let (log, stats) = run(vec![result("db/main.tf", 4, 4), result("db/main.tf", 3, 5)]);
        assert_eq!(loc(&log, 0), ("infra/db/override.tf".into(), 3, 3));
        // A range across files keeps its first line's file.
        assert_eq!(loc(&log, 1), ("infra/db/main.tf".into(), 3, 3));
        assert!(log["runs"][0]["results"][0].get("relatedLocations").is_none());
        assert_eq!(stats.onto_overrides, 1);
    }

    #[test]
    fn files_copied_as_they_are_keep_their_lines_under_the_repository_root() {
        let (log, _) = run(vec![result("README.md", 7, 9)]);
        assert_eq!(loc(&log, 0), ("infra/README.md".into(), 7, 9));
    }

    #[test]
    fn every_spelling_of_the_tree_is_understood_and_none_is_left() {
        let (log, _) = run(vec![
            result("file:///tmp/og-1/override-guard-flattened/db/main.tf", 4, 4),
            result("/tmp/og-1/override-guard-flattened/db/main.tf", 4, 4),
            result("./db/main.tf", 4, 4),
            // checkov names files from a directory above the one it scans.
            result("og-1/override-guard-flattened/db/main.tf", 4, 4),
            result("../../../../tmp/og-1/override-guard-flattened/db/main.tf", 4, 4),
        ]);
        for i in 0..5 {
            assert_eq!(loc(&log, i), ("infra/db/override.tf".into(), 3, 3), "result {i}");
        }
        let mut log = json!({ "runs": [{ "results": [], "invocations": [{ "workingDirectory": { "uri": "file:///tmp/og-1/override-guard-flattened" } }] }] });
        let exists = |_: &str| true;
        let roots = Roots {
            dirs: vec!["/tmp/og-1/override-guard-flattened".into()],
            cwd: None,
            exists: &exists,
        };
        sarif(&mut log, &map(), &roots, "infra").unwrap();
        assert!(!log.to_string().contains("og-1"), "{log}");
        assert_eq!(
            log["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["description"]["text"]
                .as_str()
                .map(|t| t.starts_with("The root")),
            Some(true)
        );
    }

    #[test]
    fn a_log_without_runs_is_refused() {
        let exists = |_: &str| true;
        let roots = Roots { dirs: Vec::new(), cwd: None, exists: &exists };
        assert!(sarif(&mut json!({ "results": [] }), &map(), &roots, ".").is_err());
    }
}
