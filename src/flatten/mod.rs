//! `flatten` and `scan`: a module as the other tools of a team should read it. Scanners and
//! policy engines read files one by one and never apply override files, so they report a
//! phantom second resource, noise on the partial override block and false passes on the
//! real one. Flattening folds every override file into its module's primaries (what
//! [`crate::fix::fold`] plans and proves), leaves out the `.tf` files a `.tofu` twin
//! shadows and writes OpenTofu's files under the names scanners read, and keeps a map
//! from every line of every rewritten file back to the line of the user's files it came
//! from: [`remap`] uses it to put a scanner's findings back on those files. Pure: the
//! caller reads and writes.

pub(crate) mod remap;

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::fix::fold::{self, Refusal};
use crate::merge::Module;
use crate::terraform::discover::{Engine, Skip};
use crate::terraform::{Block, Item, Span};

/// A run of consecutive lines of a rewritten file that come from consecutive lines of one
/// of the user's files: lines `first..first + count` come from `line..line + count` of
/// `path`. Most of a rewritten file is a handful of these.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Segment {
    pub first: usize,
    pub count: usize,
    pub path: String,
    pub line: usize,
}

/// Lines `start..=end` (1-based) of one of the user's files.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Region {
    pub path: String,
    pub start: usize,
    pub end: usize,
}

/// A top-level block of a rewritten file that override files changed: where it is in the
/// rewritten file, its primary declaration, and the override blocks merged into it.
/// Scanners report a resource's whole line range; such a finding belongs on the primary,
/// with the overrides beside it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ChangedBlock {
    pub start: usize,
    pub end: usize,
    /// `resource "aws_db_instance" "main"`, as a reader finds it.
    pub address: String,
    pub primary: Region,
    pub overrides: Vec<Region>,
}

/// A file of the flattened tree whose text is not the user's file as it is.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Written {
    /// Its path in the flattened tree (relative to the tree's root).
    pub path: String,
    /// The user's file it stands for (relative to the repository's root).
    pub source: String,
    #[serde(skip)]
    pub text: String,
    pub segments: Vec<Segment>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub blocks: Vec<ChangedBlock>,
}

/// A file of the user's that the flattened tree leaves out, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Dropped {
    pub source: String,
    pub kind: DropKind,
    pub why: String,
}

/// Why a file is left out of the flattened tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum DropKind {
    /// An override file, folded into the files it overrides.
    Folded,
    /// A `.tf` file whose `.tofu` twin OpenTofu reads instead.
    Shadowed,
}

/// What flattening does to one module.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct ModulePlan {
    /// Files written with other content or under another name, with their line maps.
    /// Paths are the module's (relative to the repository's root); the caller moves them
    /// under the flattened tree's root.
    pub written: Vec<Written>,
    pub dropped: Vec<Dropped>,
    /// Why the module is copied as it is instead (Terraform rejects it, or `fold` cannot
    /// fold it without changing what it means).
    pub refused: Vec<Refusal>,
}

/// Plans one module: its override files folded into its primaries, the `.tf` files that a
/// `.tofu` twin shadows left out, and (for OpenTofu) `.tofu` files written as `.tf`, since
/// no scanner reads `.tofu`.
pub(crate) fn plan(m: &Module) -> ModulePlan {
    let mut out = ModulePlan::default();
    let overrides: Vec<String> = m.override_files().map(|f| f.name().to_string()).collect();
    // The module's files after the fold: (name, text), in the module's order.
    let mut files: Vec<(String, Arc<str>)> =
        m.files.files.iter().map(|f| (f.name().to_string(), f.text.clone())).collect();
    // A module Terraform rejects has no effective configuration, override files or not:
    // `fold` says so, and it is copied as it is.
    if !overrides.is_empty() || m.has_errors() {
        match fold::plan(m, &overrides) {
            Ok(folded) => {
                for e in folded.edits {
                    let name = crate::path::split(&e.path).1.to_string();
                    match e.after {
                        Some(t) => {
                            if let Some(slot) = files.iter_mut().find(|f| f.0 == name) {
                                slot.1 = Arc::from(t);
                            }
                        }
                        None => {
                            files.retain(|f| f.0 != name);
                            out.dropped.push(Dropped {
                                source: e.path,
                                kind: DropKind::Folded,
                                why: "an override file: folded into the files it overrides".into(),
                            });
                        }
                    }
                }
            }
            Err(refusals) => {
                out.refused = refusals;
                return out;
            }
        }
    }
    for (name, why) in &m.skipped {
        if let Skip::Shadowed { by } = why {
            out.dropped.push(Dropped {
                source: crate::path::join(&m.dir, name),
                kind: DropKind::Shadowed,
                why: format!("OpenTofu reads its twin {by} instead"),
            });
        }
    }
    let changed = files.iter().any(|(n, t)| {
        m.files.files.iter().any(|f| f.name() == n && *f.text != **t) || tofu_name(n).is_some()
    });
    if !changed {
        return out;
    }
    let after = crate::fix::reload(m, &files);
    for (id, f) in after.files.files.iter().enumerate() {
        let Some(orig) = m.files.files.iter().position(|o| o.name() == f.name()) else {
            continue;
        };
        let renamed = if m.engine == Engine::OpenTofu { tofu_name(f.name()) } else { None };
        if *m.files.files[orig].text == *f.text && renamed.is_none() {
            continue;
        }
        let lines = line_map(m, orig, &after, id);
        let path = crate::path::join(&m.dir, renamed.as_deref().unwrap_or(f.name()));
        out.written.push(Written {
            path,
            source: m.files.files[orig].path.clone(),
            text: f.text.to_string(),
            segments: segments(m, &lines),
            blocks: changed_blocks(m, &after, id),
        });
    }
    out
}

/// The name scanners read for an OpenTofu file: `x.tofu` as `x.tf`, `x.tofu.json` as
/// `x.tf.json`.
fn tofu_name(name: &str) -> Option<String> {
    if let Some(stem) = name.strip_suffix(".tofu.json") {
        Some(format!("{stem}.tf.json"))
    } else {
        name.strip_suffix(".tofu").map(|stem| format!("{stem}.tf"))
    }
}

/// One line's origin: (file of `m`, 1-based line).
type Origin = Option<(usize, usize)>;

/// Where each line of `after`'s file `file` comes from in `m`, whose file `orig` it
/// rewrites. Lines the fold left alone come from the same text of `orig` (a line diff);
/// then every item of the effective configuration written in the file takes its lines
/// from the item it stands for in `m` (an override's value from the override file), the
/// innermost item last; lines between items (blank lines, comments) follow the line
/// above them.
fn line_map(m: &Module, orig: usize, after: &Module, file: usize) -> Vec<Origin> {
    let new = &after.files.get(file).text;
    let old = &m.files.get(orig).text;
    let mut lines: Vec<Origin> = vec![None; line_count(new)];
    let (a, b): (Vec<&str>, Vec<&str>) =
        (old.split_inclusive('\n').collect(), new.split_inclusive('\n').collect());
    for op in similar::capture_diff_slices(similar::Algorithm::Myers, &a, &b) {
        if let similar::DiffOp::Equal { old_index, new_index, len } = op {
            for k in 0..len {
                if let Some(slot) = lines.get_mut(new_index + k) {
                    *slot = Some((orig, old_index + k + 1));
                }
            }
        }
    }
    let mut pairs = Vec::new();
    top_pairs(m, after, &mut pairs);
    let mut mapper = Mapper { m, after, file, lines };
    for p in pairs {
        mapper.item(p);
    }
    let mut lines = mapper.lines;
    // Lines between items follow the line above (or, at the top, the first mapped line).
    let first = lines.iter().flatten().next().copied().unwrap_or((orig, 1));
    let mut last = first;
    for l in lines.iter_mut() {
        match l {
            Some(o) => last = *o,
            None => *l = Some(last),
        }
    }
    lines
}

fn line_count(text: &str) -> usize {
    let n = text.matches('\n').count();
    if text.is_empty() || text.ends_with('\n') { n.max(1) } else { n + 1 }
}

/// An item of the effective configuration, as a pair of (rewritten, original) views.
#[derive(Clone, Copy)]
enum Pair<'a> {
    Block(&'a Block, &'a Block),
    Attr(&'a crate::terraform::Attr, &'a crate::terraform::Attr),
    Span(Span, Span),
}

/// The top-level items of both views that stand for each other.
fn top_pairs<'a>(m: &'a Module, after: &'a Module, out: &mut Vec<Pair<'a>>) {
    for b in &after.blocks {
        if let Some(o) = m.blocks.iter().find(|o| o.kind == b.kind && o.labels == b.labels) {
            out.push(Pair::Block(b, o));
        }
    }
    for a in &after.locals {
        if let Some(o) = m.locals.iter().find(|o| o.name == a.name) {
            out.push(Pair::Attr(a, o));
        }
    }
    let (s, o) = (&after.settings, &m.settings);
    for (a, b) in s.required_version.iter().zip(&o.required_version) {
        out.push(Pair::Attr(a, b));
    }
    for a in &s.required_providers {
        if let Some(b) = o.required_providers.iter().find(|b| b.name == a.name) {
            out.push(Pair::Attr(a, b));
        }
    }
    for (a, b) in [
        (&s.backend, &o.backend),
        (&s.cloud, &o.cloud),
        (&s.state_store, &o.state_store),
        (&s.encryption, &o.encryption),
    ] {
        if let (Some(a), Some(b)) = (a, b) {
            out.push(Pair::Block(a, b));
        }
    }
    for (a, b) in s.other.iter().zip(&o.other) {
        if let Some(p) = item_pair(a, b) {
            out.push(p);
        }
    }
}

fn item_pair<'a>(a: &'a Item, b: &'a Item) -> Option<Pair<'a>> {
    match (a, b) {
        (Item::Block(a), Item::Block(b)) if a.kind == b.kind => Some(Pair::Block(a, b)),
        (Item::Attr(a), Item::Attr(b)) if a.name == b.name => Some(Pair::Attr(a, b)),
        (Item::Json(a), Item::Json(b)) if a.name == b.name => Some(Pair::Span(a.span, b.span)),
        _ => None,
    }
}

struct Mapper<'a> {
    m: &'a Module,
    after: &'a Module,
    file: usize,
    lines: Vec<Origin>,
}

impl Mapper<'_> {
    fn item(&mut self, p: Pair<'_>) {
        match p {
            Pair::Attr(a, o) => self.span(a.span, o.span),
            Pair::Span(a, o) => self.span(a, o),
            Pair::Block(a, o) => {
                if a.span.file != self.file {
                    return;
                }
                // The header and the closing brace come from the original's.
                let (a1, a2) = lines_of(self.after, a.span);
                let (o1, o2) = lines_of(self.m, o.span);
                self.set(a1, (o.span.file, o1));
                self.set(a2, (o.span.file, o2));
                // Items matched by name; nested blocks by type and position.
                let mut seen: Vec<(&str, usize)> = Vec::new();
                for item in a.body.items.iter() {
                    let pair = match item {
                        Item::Attr(x) => o.body.items.iter().find_map(|y| match y {
                            Item::Attr(y) if y.name == x.name => Some(Pair::Attr(x, y)),
                            _ => None,
                        }),
                        Item::Json(x) => o.body.items.iter().find_map(|y| match y {
                            Item::Json(y) if y.name == x.name => Some(Pair::Span(x.span, y.span)),
                            _ => None,
                        }),
                        Item::Block(x) => {
                            let n = seen.iter().filter(|(k, _)| *k == x.kind).count();
                            seen.push((&x.kind, n));
                            o.body
                                .items
                                .iter()
                                .filter_map(|y| match y {
                                    Item::Block(y) if y.kind == x.kind => Some(y),
                                    _ => None,
                                })
                                .nth(n)
                                .map(|y| Pair::Block(x, y))
                        }
                    };
                    if let Some(p) = pair {
                        self.item(p);
                    }
                }
            }
        }
    }

    /// Lines of `a` (in the rewritten file) come from lines of `o`, one for one, the
    /// rest from `o`'s last line.
    fn span(&mut self, a: Span, o: Span) {
        if a.file != self.file {
            return;
        }
        let (a1, a2) = lines_of(self.after, a);
        let (o1, o2) = lines_of(self.m, o);
        for (k, l) in (a1..=a2).enumerate() {
            self.set(l, (o.file, (o1 + k).min(o2)));
        }
    }

    fn set(&mut self, line: usize, origin: (usize, usize)) {
        if let Some(slot) = line.checked_sub(1).and_then(|i| self.lines.get_mut(i)) {
            *slot = Some(origin);
        }
    }
}

/// The first and last line of a span (a span ending just after a line break ends on
/// the line before it).
fn lines_of(m: &Module, s: Span) -> (usize, usize) {
    let f = m.files.get(s.file);
    let first = f.line_col(s.start).0;
    let end = if s.end > s.start && f.text.as_bytes().get(s.end - 1) == Some(&b'\n') {
        s.end - 1
    } else {
        s.end
    };
    (first, f.line_col(end).0.max(first))
}

/// Runs of lines that map to consecutive lines of one file.
fn segments(m: &Module, lines: &[Origin]) -> Vec<Segment> {
    let mut out: Vec<(usize, usize, usize, usize)> = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let Some((file, line)) = *l else { continue };
        match out.last_mut() {
            Some((first, count, f, start))
                if *f == file && *start + *count == line && *first + *count == i + 1 =>
            {
                *count += 1
            }
            _ => out.push((i + 1, 1, file, line)),
        }
    }
    out.into_iter()
        .map(|(first, count, file, line)| Segment {
            first,
            count,
            path: m.files.get(file).path.clone(),
            line,
        })
        .collect()
}

/// The top-level blocks of the rewritten file that overrides changed.
fn changed_blocks(m: &Module, after: &Module, file: usize) -> Vec<ChangedBlock> {
    let mut out = Vec::new();
    let region = |s: Span| {
        let (start, end) = lines_of(m, s);
        Region { path: m.files.get(s.file).path.clone(), start, end }
    };
    for b in after.blocks.iter().chain(settings_blocks(after)) {
        if b.span.file != file {
            continue;
        }
        let Some(o) = m
            .blocks
            .iter()
            .chain(settings_blocks(m))
            .find(|o| o.kind == b.kind && o.labels == b.labels)
        else {
            continue;
        };
        let overrides: Vec<Region> = o
            .displaced
            .iter()
            .filter(|s| m.from_override(**s))
            .map(|s| region(enclosing_block(m, *s)))
            .collect();
        if overrides.is_empty() && !touched_by_override(m, o) {
            continue;
        }
        let (start, end) = lines_of(after, b.span);
        out.push(ChangedBlock {
            start,
            end,
            address: address(b),
            primary: region(o.span),
            overrides,
        });
    }
    out
}

/// The whole top-level block (as parsed) that holds a span, or the span itself.
fn enclosing_block(m: &Module, s: Span) -> Span {
    m.parsed
        .iter()
        .filter(|p| p.file == s.file)
        .flat_map(|p| p.body.items.iter())
        .find_map(|i| match i {
            Item::Block(b)
                if b.span.start <= s.start && (s.start < b.span.end || b.span.start == s.start) =>
            {
                Some(b.span)
            }
            _ => None,
        })
        .unwrap_or(s)
}

fn settings_blocks(m: &Module) -> impl Iterator<Item = &Block> {
    let s = &m.settings;
    [&s.backend, &s.cloud, &s.state_store, &s.encryption].into_iter().flatten()
}

/// Does any value of the block come from an override file?
fn touched_by_override(m: &Module, b: &Block) -> bool {
    b.body.items.iter().any(|i| match i {
        Item::Attr(a) => m.from_override(a.span),
        Item::Json(j) => m.from_override(j.span),
        Item::Block(x) => m.from_override(x.span) || touched_by_override(m, x),
    })
}

/// `resource "aws_db_instance" "main"`.
pub(crate) fn address(b: &Block) -> String {
    let mut s = b.kind.clone();
    for l in &b.labels {
        s.push_str(&format!(" {}", crate::terraform::expr::hcl_quote(l)));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAIN: &str = "# The orders database.\nresource \"aws_db_instance\" \"main\" {\n  identifier          = \"orders\"\n  publicly_accessible = false\n  deletion_protection = true\n}\n";
    const OVERRIDE: &str = "# Debugging access.\nresource \"aws_db_instance\" \"main\" {\n  publicly_accessible = true\n  deletion_protection = false\n}\n";

    fn module(files: &[(&str, &str)], engine: Option<Engine>) -> Module {
        crate::merge::load_texts("db", files, engine)
    }

    #[test]
    fn overrides_are_folded_and_every_line_knows_where_it_came_from() {
        let m = module(&[("main.tf", MAIN), ("override.tf", OVERRIDE)], None);
        let p = plan(&m);
        assert!(p.refused.is_empty(), "{:?}", p.refused);
        assert_eq!(
            p.dropped,
            vec![Dropped {
                source: "db/override.tf".into(),
                kind: DropKind::Folded,
                why: "an override file: folded into the files it overrides".into()
            }]
        );
        let [w] = p.written.as_slice() else { panic!("{:?}", p.written) };
        assert_eq!((w.path.as_str(), w.source.as_str()), ("db/main.tf", "db/main.tf"));
        assert!(w.text.contains("publicly_accessible = true"), "{}", w.text);
        let o: Vec<(&str, usize)> = (1..=6).map(|n| w.origin(n).unwrap()).collect();
        assert_eq!(
            o,
            vec![
                ("db/main.tf", 1),
                ("db/main.tf", 2),
                ("db/main.tf", 3),
                ("db/override.tf", 3),
                ("db/override.tf", 4),
                ("db/main.tf", 6),
            ]
        );
        let [b] = w.blocks.as_slice() else { panic!("{:?}", w.blocks) };
        assert_eq!((b.start, b.end), (2, 6));
        assert_eq!(b.address, "resource \"aws_db_instance\" \"main\"");
        assert_eq!(b.primary, Region { path: "db/main.tf".into(), start: 2, end: 6 });
        assert_eq!(b.overrides, vec![Region { path: "db/override.tf".into(), start: 2, end: 5 }]);
    }

    #[test]
    fn a_module_without_overrides_is_left_alone() {
        let p = plan(&module(&[("main.tf", MAIN)], None));
        assert_eq!(p, ModulePlan::default());
    }

    #[test]
    fn a_module_terraform_rejects_is_copied_as_it_is() {
        let orphan = "resource \"aws_db_instance\" \"other\" {\n  multi_az = true\n}\n";
        let p = plan(&module(&[("main.tf", MAIN), ("override.tf", orphan)], None));
        assert!(p.written.is_empty() && p.dropped.is_empty());
        assert_eq!(p.refused.len(), 1);
        assert!(p.refused[0].reason.contains("rejects this module"), "{:?}", p.refused);
    }

    #[test]
    fn opentofu_twins_replace_their_tf_files_under_names_scanners_read() {
        let tofu = MAIN.replace("publicly_accessible = false", "publicly_accessible = true");
        let m = module(&[("main.tf", MAIN), ("main.tofu", &tofu)], None);
        assert_eq!(m.engine, Engine::OpenTofu);
        let p = plan(&m);
        assert_eq!(p.dropped.len(), 1);
        assert_eq!(p.dropped[0].source, "db/main.tf");
        assert!(p.dropped[0].why.contains("main.tofu"), "{:?}", p.dropped);
        let [w] = p.written.as_slice() else { panic!("{:?}", p.written) };
        assert_eq!((w.path.as_str(), w.source.as_str()), ("db/main.tf", "db/main.tofu"));
        assert_eq!(w.text, tofu);
        assert_eq!(w.origin(4), Some(("db/main.tofu", 4)));
        // Under Terraform the twin is not read at all, and nothing changes.
        let p = plan(&module(&[("main.tf", MAIN), ("main.tofu", &tofu)], Some(Engine::Terraform)));
        assert!(p.written.is_empty() && p.dropped.is_empty(), "{p:?}");
    }

    #[test]
    fn an_added_nested_block_maps_to_the_override() {
        let main = "resource \"aws_instance\" \"web\" {\n  ami = \"ami-1\"\n}\n";
        let over = "resource \"aws_instance\" \"web\" {\n  lifecycle {\n    prevent_destroy = true\n  }\n}\n";
        let p = plan(&module(&[("main.tf", main), ("override.tf", over)], None));
        let [w] = p.written.as_slice() else { panic!("{p:?}") };
        let lines: Vec<&str> = w.text.lines().collect();
        let at = lines.iter().position(|l| l.contains("prevent_destroy")).unwrap() + 1;
        assert_eq!(w.origin(at), Some(("db/override.tf", 3)));
        assert_eq!(w.origin(at - 1), Some(("db/override.tf", 2)));
        assert_eq!(w.origin(1), Some(("db/main.tf", 1)));
        assert_eq!(w.origin(lines.len()), Some(("db/main.tf", 3)));
    }
}
