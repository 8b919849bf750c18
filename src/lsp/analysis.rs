//! What an editor shows for one module, worked out once per change: for every file, the
//! hints at the end of the lines an override changes, and the spots a hover, a "go to
//! definition" or a "find references" lands on, all in byte offsets. Built from the
//! effective configuration's provenance (the same as `show --format json`) and the
//! findings of the policy; pure, so it is tested on modules held in memory.

// Public to the fuzz target (`--cfg fuzzing`), private to the crate otherwise.
#![cfg_attr(not(fuzzing), allow(unreachable_pub))]

use std::sync::Arc;

use crate::finding::{Finding, Level};
use crate::merge::Module;
use crate::terraform::{Attr, Block, Item, Span, Syntax};

/// A place in a file of the module: its source path and a byte range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place {
    pub path: String,
    pub start: usize,
    pub end: usize,
}

/// A hint shown after the end of a line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hint {
    /// The end of the line (before its line break).
    pub offset: usize,
    pub label: String,
    pub tooltip: String,
}

/// Where the other side of an override relation is reached from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Jump {
    /// An override's item: "go to definition" goes to the original it changes.
    Definition,
    /// An original's item: "find references" lists the overrides that change it.
    References,
}

/// A range of a file that answers a hover and a jump.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spot {
    pub start: usize,
    pub end: usize,
    /// Markdown.
    pub hover: String,
    pub jump: Jump,
    pub targets: Vec<Place>,
}

/// One file of the module as the editor sees it.
#[derive(Clone, Debug)]
pub struct FileView {
    pub path: String,
    pub text: Arc<str>,
    pub hints: Vec<Hint>,
    pub spots: Vec<Spot>,
}

/// A module's files, its findings and what the editor shows of them.
#[derive(Clone, Debug)]
pub struct Analysis {
    pub files: Vec<FileView>,
    pub findings: Vec<Finding>,
    /// The release judged for and why (`Terraform 1.9.2, pinned in .terraform-version:1`),
    /// said under each hover: what an override does depends on it.
    pub judged: String,
}

impl Analysis {
    pub fn new(m: &Module, findings: Vec<Finding>) -> Analysis {
        let files = m
            .files
            .files
            .iter()
            .map(|f| FileView {
                path: f.path.clone(),
                text: f.text.clone(),
                hints: Vec::new(),
                spots: Vec::new(),
            })
            .collect();
        let mut w = Walk { m, files };
        let st = &m.settings;
        for a in st.required_version.iter().chain(&st.required_providers) {
            w.attr(a, "terraform", None);
        }
        for b in [&st.backend, &st.cloud, &st.state_store, &st.encryption].into_iter().flatten() {
            w.block(b, "terraform", false);
        }
        for i in &st.other {
            w.item(i, "terraform", None);
        }
        for a in &m.locals {
            w.attr(a, "locals", None);
        }
        for b in &m.blocks {
            w.block(b, "", true);
        }
        let mut files = w.files;
        for f in &mut files {
            merge_hints(&mut f.hints);
        }
        let judged = format!("{}, {}", m.release, m.choice.from);
        Analysis { files, findings, judged }
    }

    pub fn file(&self, path: &str) -> Option<&FileView> {
        self.files.iter().find(|f| f.path == path)
    }

    /// The innermost spot at an offset of a file.
    pub fn spot(&self, path: &str, offset: usize) -> Option<&Spot> {
        self.file(path)?
            .spots
            .iter()
            .filter(|s| s.start <= offset && offset <= s.end)
            .min_by_key(|s| s.end - s.start)
    }

    /// The findings whose main place in `path` overlaps `start..end`.
    pub fn findings_at(&self, path: &str, start: usize, end: usize) -> Vec<&Finding> {
        self.findings
            .iter()
            .filter(|f| f.primary.path == path && f.primary.start <= end && start <= f.primary.end)
            .collect()
    }

    /// The hover of an offset: the spot's text and the findings there.
    pub fn hover(&self, path: &str, offset: usize) -> Option<String> {
        let spot = self.spot(path, offset);
        let (start, end) = spot.map_or((offset, offset), |s| (s.start, s.end));
        let findings = self.findings_at(path, start, end);
        if spot.is_none() && findings.is_empty() {
            return None;
        }
        let mut out = spot.map(|s| s.hover.clone()).unwrap_or_default();
        for f in findings {
            if !out.is_empty() {
                out.push_str("\n\n");
            }
            let level = match f.level {
                Level::Deny => "deny",
                Level::Warn => "warn",
                Level::Allow => "allow",
            };
            out.push_str(&format!("**{level}** `{}`: {}", f.rule.as_str(), escape(&f.message)));
            if let Some(h) = &f.help {
                out.push_str(&format!("  \n{}", escape(h)));
            }
        }
        out.push_str(&format!("\n\n_Judged for {}_", escape(&self.judged)));
        Some(out)
    }
}

/// Hints on the same line become one, in the order they were found.
fn merge_hints(hints: &mut Vec<Hint>) {
    let mut out: Vec<Hint> = Vec::new();
    for h in hints.drain(..) {
        match out.iter_mut().find(|o| o.offset == h.offset) {
            Some(o) if o.label.contains(&h.label) => {}
            Some(o) => {
                o.label = format!("{}; {}", o.label, h.label);
                o.tooltip = format!("{}\n\n{}", o.tooltip, h.tooltip);
            }
            None => out.push(h),
        }
    }
    out.sort_by_key(|h| h.offset);
    *hints = out;
}

/// Markdown special characters of a message, escaped.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(c, '*' | '_' | '`' | '[' | ']' | '<' | '>' | '#' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// At most this many characters of a value in a hint.
const HINT_WIDTH: usize = 60;

/// A value on one line: whitespace runs become one space, long ones end in `…`.
fn one_line(text: &str) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= HINT_WIDTH {
        flat
    } else {
        let mut cut: String = flat.chars().take(HINT_WIDTH - 1).collect();
        cut.push('…');
        cut
    }
}

struct Walk<'m> {
    m: &'m Module,
    files: Vec<FileView>,
}

impl Walk<'_> {
    fn is_override(&self, s: Span) -> bool {
        self.m.from_override(s)
    }

    fn place(&self, s: Span) -> Place {
        Place { path: self.m.files.get(s.file).path.clone(), start: s.start, end: s.end }
    }

    /// `override.tf:5`.
    fn short(&self, s: Span) -> String {
        self.m.files.short(s)
    }

    /// The end of the line a span starts on.
    fn end_of_line(&self, s: Span) -> usize {
        let text = &self.m.files.get(s.file).text;
        let from = s.start.min(text.len());
        text[from..].find(['\n', '\r']).map_or(text.len(), |i| from + i)
    }

    /// The value part of an attribute's text (after `=` or, in JSON, `:`).
    fn value_text(&self, s: Span) -> String {
        let text = self.m.files.text(s);
        let sep = match self.m.files.get(s.file).syntax {
            Syntax::Hcl => '=',
            _ => ':',
        };
        one_line(text.split_once(sep).map_or(text, |(_, v)| v).trim())
    }

    fn hint(&mut self, at: Span, label: String, tooltip: String) {
        let offset = self.end_of_line(at);
        if let Some(f) = self.files.get_mut(at.file) {
            f.hints.push(Hint { offset, label, tooltip });
        }
    }

    fn spot(&mut self, at: Span, hover: String, jump: Jump, targets: Vec<Place>) {
        if let Some(f) = self.files.get_mut(at.file) {
            f.spots.push(Spot { start: at.start, end: at.end, hover, jump, targets });
        }
    }

    /// An item of a block, or of the module (`parent`: the header of the primary block
    /// it is in, where what an override adds is shown).
    fn item(&mut self, i: &Item, owner: &str, parent: Option<Span>) {
        match i {
            Item::Attr(a) => self.attr(a, owner, parent),
            Item::Block(b) => self.block(b, owner, false),
            // Most attributes are no override's: their values are not printed.
            Item::Json(j) if self.is_override(j.span) => {
                let value = one_line(self.m.files.text(j.span));
                self.value(&j.name, j.span, &j.displaced, value, owner, parent);
            }
            Item::Json(_) => {}
        }
    }

    fn attr(&mut self, a: &Attr, owner: &str, parent: Option<Span>) {
        if !self.is_override(a.span) {
            return;
        }
        self.value(&a.name, a.span, &a.displaced, one_line(&a.expr.to_hcl()), owner, parent);
    }

    /// An attribute (or JSON property) an override sets: a hint and a spot on the
    /// override and on every value it displaced.
    fn value(
        &mut self,
        name: &str,
        span: Span,
        displaced: &[Span],
        value: String,
        owner: &str,
        parent: Option<Span>,
    ) {
        if !self.is_override(span) {
            return;
        }
        let title =
            if owner.is_empty() { format!("`{name}`") } else { format!("`{name}` of `{owner}`") };
        let mut hover = format!(
            "{title}: the effective value comes from the override at `{}`\n\n```hcl\n{value}\n```",
            self.short(span)
        );
        for d in displaced {
            hover.push_str(&format!(
                "\n\ndisplaced `{}` at `{}`",
                self.value_text(*d),
                self.short(*d)
            ));
        }
        let here = self.short(span);
        for d in displaced {
            self.hint(*d, format!("← {value} ({here})"), hover.clone());
            self.spot(*d, hover.clone(), Jump::References, vec![self.place(span)]);
        }
        if displaced.is_empty()
            && let Some(p) = parent
        {
            self.hint(p, format!("← adds {name} = {value} ({here})"), hover.clone());
        }
        let label = match displaced.last() {
            Some(d) => format!("replaces {} ({})", self.value_text(*d), self.short(*d)),
            None => format!("adds `{name}`: the original does not set it"),
        };
        self.hint(span, label, hover.clone());
        let targets = displaced.iter().map(|d| self.place(*d)).collect();
        self.spot(span, hover, Jump::Definition, targets);
    }

    /// Whether a block shows anything: an override replaced it or merged into it, or set
    /// something in it. Most blocks of a large module are untouched; they are skipped
    /// before their address is even built.
    fn touched(&self, b: &Block) -> bool {
        if !b.displaced.is_empty() {
            return true;
        }
        if self.is_override(b.span) {
            return false;
        }
        b.body.items.iter().any(|i| match i {
            Item::Attr(a) => self.is_override(a.span),
            Item::Json(j) => self.is_override(j.span),
            Item::Block(c) => self.touched(c),
        })
    }

    fn block(&mut self, b: &Block, owner: &str, top: bool) {
        if !self.touched(b) {
            return;
        }
        let address = b.address().unwrap_or_else(|| {
            let mut a =
                if owner.is_empty() { b.kind.clone() } else { format!("{owner}.{}", b.kind) };
            for l in &b.labels {
                a.push('.');
                a.push_str(l);
            }
            a
        });
        let over = self.is_override(b.span);
        if top && !over && !b.displaced.is_empty() {
            // A primary block with override blocks merged into it.
            let by: Vec<String> = b.displaced.iter().map(|s| self.short(*s)).collect();
            let hover = format!(
                "`{address}` is changed by {}: what runs is this block with their content merged in",
                by.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(", ")
            );
            self.hint(b.def_span, format!("← overridden by {}", by.join(", ")), hover.clone());
            let overrides = b.displaced.iter().map(|s| self.place(*s)).collect();
            self.spot(b.def_span, hover, Jump::References, overrides);
            let original = self.short(b.def_span);
            for o in b.displaced.clone() {
                let hover = format!("this override block merges into `{address}` at `{original}`");
                let head = self.header(o);
                self.hint(o, format!("→ merges into {original}"), hover.clone());
                self.spot(head, hover, Jump::Definition, vec![self.place(b.def_span)]);
            }
        } else if over && !b.displaced.is_empty() {
            // A block that replaces the original's blocks of its type, whole.
            let text = one_line(self.m.files.text(b.span));
            let here = self.short(b.span);
            let hover = format!(
                "`{address}` is replaced, as a whole, by the block at `{here}`:\n\n```hcl\n{}\n```",
                self.m.files.text(b.span)
            );
            for d in b.displaced.clone() {
                let head = self.header(d);
                self.hint(d, format!("← replaced by {text} ({here})"), hover.clone());
                self.spot(head, hover.clone(), Jump::References, vec![self.place(b.span)]);
            }
            let at: Vec<String> = b.displaced.iter().map(|d| self.short(*d)).collect();
            let n = at.len();
            self.hint(
                b.span,
                format!(
                    "replaces {n} `{}` block{} ({})",
                    b.kind,
                    if n == 1 { "" } else { "s" },
                    at.join(", ")
                ),
                hover.clone(),
            );
            let targets = b.displaced.iter().map(|d| self.place(*d)).collect();
            let head = self.header(b.span);
            self.spot(head, hover, Jump::Definition, targets);
        }
        // A block from an override is a whole: its content is said once, above. A primary
        // block may hold what overrides merged into it.
        if !over {
            let head = self.header(b.def_span);
            for i in b.body.items.iter() {
                self.item(i, &address, Some(head));
            }
        }
    }

    /// The first line of a block's text: where its header is.
    fn header(&self, s: Span) -> Span {
        Span { end: self.end_of_line(s).max(s.start), ..s }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::merge::load_texts;

    const MAIN: &str = "resource \"aws_instance\" \"web\" {\n  ami           = \"ami-1\"\n  instance_type = \"t3.micro\"\n\n  ebs_block_device {\n    device_name = \"/dev/sda1\"\n  }\n}\n";
    const OVER: &str = "resource \"aws_instance\" \"web\" {\n  instance_type = \"m6i.large\"\n  monitoring    = true\n\n  ebs_block_device {\n    device_name = \"/dev/sdb\"\n    volume_size = 50\n  }\n}\n";

    fn analysed() -> Analysis {
        let m = load_texts("", &[("main.tf", MAIN), ("override.tf", OVER)], None);
        assert!(!m.has_errors(), "{:?}", m.diagnostics);
        Analysis::new(&m, Vec::new())
    }

    fn line_of(text: &str, offset: usize) -> usize {
        override_guard_hcl::LineIndex::new(text).line(offset) + 1
    }

    fn hints(a: &Analysis, path: &str) -> Vec<(usize, String)> {
        let f = a.file(path).unwrap();
        f.hints.iter().map(|h| (line_of(&f.text, h.offset), h.label.clone())).collect()
    }

    #[test]
    fn originals_show_what_replaces_them_and_overrides_what_they_replace() {
        let a = analysed();
        assert_eq!(
            hints(&a, "main.tf"),
            [
                (1, "← overridden by override.tf:1; ← adds monitoring = true (override.tf:3)".to_string()),
                (3, "← \"m6i.large\" (override.tf:2)".to_string()),
                (
                    5,
                    // Cut at the hint's width.
                    "← replaced by ebs_block_device { device_name = \"/dev/sdb\" volume_size = 5… (override.tf:5)"
                        .to_string()
                ),
            ]
        );
        assert_eq!(
            hints(&a, "override.tf"),
            [
                (1, "→ merges into main.tf:1".to_string()),
                (2, "replaces \"t3.micro\" (main.tf:3)".to_string()),
                (3, "adds `monitoring`: the original does not set it".to_string()),
                (5, "replaces 1 `ebs_block_device` block (main.tf:5)".to_string()),
            ]
        );
    }

    #[test]
    fn spots_lead_from_overrides_to_originals_and_back() {
        let a = analysed();
        let at = OVER.find("instance_type").unwrap();
        let s = a.spot("override.tf", at).unwrap();
        assert_eq!(s.jump, Jump::Definition);
        assert_eq!(s.targets[0].path, "main.tf");
        assert_eq!(s.targets[0].start, MAIN.find("instance_type").unwrap());
        assert!(s.hover.contains("\"m6i.large\""), "{}", s.hover);
        assert!(s.hover.contains("displaced `\"t3.micro\"` at `main.tf:3`"), "{}", s.hover);

        let header = a.spot("main.tf", 3).unwrap();
        assert_eq!(header.jump, Jump::References);
        assert_eq!(header.targets.len(), 1);
        assert_eq!(header.targets[0].path, "override.tf");
        let back = a.spot("override.tf", 3).unwrap();
        assert_eq!(back.jump, Jump::Definition);
        assert_eq!(back.targets[0].start, 0);
        // Nothing to say about an attribute no override touches.
        assert_eq!(a.spot("main.tf", MAIN.find("ami ").unwrap()), None);
    }

    #[test]
    fn a_module_without_overrides_has_nothing_to_show() {
        let m = load_texts("", &[("main.tf", MAIN)], None);
        let a = Analysis::new(&m, Vec::new());
        assert!(a.files.iter().all(|f| f.hints.is_empty() && f.spots.is_empty()));
        assert_eq!(a.hover("main.tf", 3), None);
    }

    #[test]
    fn long_values_are_cut_and_flattened() {
        assert_eq!(one_line("{\n  a = 1\n  b = 2\n}"), "{ a = 1 b = 2 }");
        let long = one_line(&"x".repeat(100));
        assert_eq!(long.chars().count(), HINT_WIDTH);
        assert!(long.ends_with('…'));
    }
}
