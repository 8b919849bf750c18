//! What the rules look at: every override item paired with the original it changes, and
//! the comments that sit on an item (native `#`/`//` lines directly above it, or a JSON
//! `"//"` property in its object).

use std::collections::HashMap;

use super::rules::Options;
use super::scope::GlobBase;
use crate::finding::Site;
use crate::merge::{Module, decode};
use crate::terraform::{Attr, Block, Body, FileClass, FileId, Item, ParsedFile, Span, Syntax};

/// A block or an attribute of a parsed file.
#[derive(Clone, Copy, Debug)]
pub enum Node<'a> {
    Block(&'a Block),
    Attr(&'a Attr),
}

impl<'a> Node<'a> {
    /// The whole item.
    pub fn span(self) -> Span {
        match self {
            Node::Block(b) => b.span,
            Node::Attr(a) => a.span,
        }
    }

    /// What a label points at: a block's header, an attribute's name.
    pub fn head(self) -> Span {
        match self {
            Node::Block(b) => b.def_span,
            Node::Attr(a) => a.name_span,
        }
    }

    pub fn block(self) -> Option<&'a Block> {
        match self {
            Node::Block(b) => Some(b),
            Node::Attr(_) => None,
        }
    }

    pub fn attr(self) -> Option<&'a Attr> {
        match self {
            Node::Attr(a) => Some(a),
            Node::Block(_) => None,
        }
    }
}

/// One thing an override file says, and the original it changes (if any). An override's
/// `required_version` replaces every primary file's (Terraform requires them all): it is
/// one change per original, so that each original is named.
#[derive(Clone, Debug)]
pub struct Change<'a> {
    /// `resource.aws_s3_bucket.logs`, `local.name`, `terraform.backend`,
    /// `terraform.required_providers.aws`, `terraform.required_version`.
    pub address: String,
    pub over: Node<'a>,
    pub base: Option<Node<'a>>,
}

impl Change<'_> {
    pub fn file(&self) -> FileId {
        self.over.span().file
    }
}

/// Everything a rule may look at for one module.
pub struct Context<'a> {
    pub m: &'a Module,
    /// The same module under the other engine, when it could differ.
    pub other: Option<&'a Module>,
    /// The rules' options, as the policy sets them.
    pub options: &'a Options,
    /// Turns a module path into a path relative to the policy file (for globs).
    pub base: GlobBase,
    pub changes: Vec<Change<'a>>,
    /// What the primary files say, to judge the effective configuration against.
    pub originals: Originals<'a>,
    /// What the variables files in the module's directory set (none: no such file).
    pub vars: Option<crate::vars::Report>,
    /// The variables the module's query and test files declare or refer to.
    pub var_uses: &'a [crate::vars::uses::Use],
}

impl<'a> Context<'a> {
    pub fn new(
        m: &'a Module,
        other: Option<&'a Module>,
        options: &'a Options,
        base: &GlobBase,
        tfvars: &[crate::vars::VarFile],
    ) -> Context<'a> {
        // Only the files in the repository: flags and the environment are the runner's.
        let vars = (!tfvars.is_empty()).then(|| {
            let inputs = crate::vars::Inputs { auto: tfvars.to_vec(), ..Default::default() };
            crate::vars::collect(m, &inputs)
        });
        let originals = Originals::of(m);
        let changes = pairs(m, &originals);
        Context { m, other, options, base: base.clone(), changes, originals, vars, var_uses: &[] }
    }

    /// The same context, knowing what the module's query and test files declare or refer to.
    pub fn with_var_uses(self, var_uses: &'a [crate::vars::uses::Use]) -> Context<'a> {
        Context { var_uses, ..self }
    }

    pub fn site(&self, span: Span, label: impl Into<String>) -> Site {
        Site::in_module(self.m, span, label)
    }

    /// The file name (no directory) of a file of the module.
    pub fn name(&self, file: FileId) -> &str {
        self.m.files.get(file).name()
    }
}

/// What the primary files say, by address: the originals that override files change, and
/// that the rules judge an effective value against.
#[derive(Default)]
pub struct Originals<'a> {
    objects: HashMap<String, &'a Block>,
    locals: HashMap<&'a str, &'a Attr>,
    providers: HashMap<&'a str, &'a Attr>,
    /// Every primary file's `required_version`, in merge order: all of them must hold.
    pub versions: Vec<&'a Attr>,
    /// The first `backend` or `cloud` block (a second is Terraform's error).
    pub state: Option<&'a Block>,
    /// OpenTofu's `encryption` block.
    pub encryption: Option<&'a Block>,
}

impl<'a> Originals<'a> {
    /// The primaries of `m`; nothing for a module without override files, where nothing
    /// is changed.
    pub fn of(m: &'a Module) -> Originals<'a> {
        let mut o = Originals::default();
        if m.override_files().next().is_none() {
            return o;
        }
        let primaries = m.parsed.iter().filter(|f| m.files.get(f.file).class == FileClass::Primary);
        for f in primaries {
            for b in f.body.blocks().filter(|b| decode::kept(m.release, b)) {
                match b.kind.as_str() {
                    "locals" => {
                        for a in b.body.attrs() {
                            o.locals.entry(&a.name).or_insert(a);
                        }
                    }
                    "terraform" => {
                        o.versions.extend(b.attr("required_version"));
                        for t in b.body.blocks().filter(|t| decode::kept_in_terraform(m.release, t))
                        {
                            match t.kind.as_str() {
                                "backend" | "cloud" => o.state = o.state.or(Some(t)),
                                "encryption" => o.encryption = o.encryption.or(Some(t)),
                                "required_providers" => {
                                    for a in t.body.attrs() {
                                        o.providers.entry(&a.name).or_insert(a);
                                    }
                                }
                                _ => {}
                            }
                        }
                    }
                    _ => {
                        if let Some(addr) = b.address() {
                            o.objects.entry(addr).or_insert(b);
                        }
                    }
                }
            }
        }
        o
    }

    /// The primary block of a top-level object (`resource.aws_instance.web`).
    pub fn object(&self, address: &str) -> Option<&'a Block> {
        self.objects.get(address).copied()
    }
}

/// The top-level blocks of the module's override files, as written.
pub(crate) fn override_blocks(m: &Module) -> impl Iterator<Item = &Block> {
    let overrides = m.parsed.iter().filter(|p| m.files.get(p.file).class == FileClass::Override);
    overrides.flat_map(|p| p.body.blocks())
}

/// Does a resource's or data source's lifecycle say what engines and releases read
/// differently (`destroy`, an action trigger)?
pub(crate) fn lifecycle_varies(b: &Block) -> bool {
    b.body
        .blocks_of("lifecycle")
        .any(|l| l.attr("destroy").is_some() || l.body.blocks_of("action_trigger").next().is_some())
}

/// Pairs every item of every override file with the primary item of the same address.
/// Only what the engine decodes counts, on either side (see `decode::kept`): a block it
/// drops (an `action` under OpenTofu, a `required_providers` that a syntax error left
/// holding a block) changes nothing, whatever it says.
pub fn changes(m: &Module) -> Vec<Change<'_>> {
    pairs(m, &Originals::of(m))
}

fn pairs<'a>(m: &'a Module, o: &Originals<'a>) -> Vec<Change<'a>> {
    let mut out = Vec::new();
    let overrides = m.parsed.iter().filter(|f| m.files.get(f.file).class == FileClass::Override);
    for f in overrides {
        // Of a file's backend and cloud blocks, only the one Terraform applies changes
        // anything (two of a kind are an error, and a cloud replaces a backend).
        let state = crate::merge::applied_state(f, m.release);
        let kept_in_terraform = |t: &&Block| decode::kept_in_terraform(m.release, t);
        for b in f.body.blocks().filter(|b| decode::kept(m.release, b)) {
            match b.kind.as_str() {
                "locals" => out.extend(b.body.attrs().map(|a| Change {
                    address: format!("local.{}", a.name),
                    over: Node::Attr(a),
                    base: o.locals.get(a.name.as_str()).map(|a| Node::Attr(a)),
                })),
                "terraform" => {
                    if let Some(a) = b.attr("required_version") {
                        let change = |base| Change {
                            address: "terraform.required_version".into(),
                            over: Node::Attr(a),
                            base,
                        };
                        match o.versions.as_slice() {
                            [] => out.push(change(None)),
                            all => out.extend(all.iter().map(|v| change(Some(Node::Attr(v))))),
                        }
                    }
                    for t in b.body.blocks().filter(kept_in_terraform) {
                        match t.kind.as_str() {
                            // Named by what the original loses: a cloud block over a
                            // backend changes `terraform.backend`.
                            "backend" | "cloud" if state.is_some_and(|s| std::ptr::eq(s, t)) => out
                                .push(Change {
                                    address: format!("terraform.{}", o.state.unwrap_or(t).kind),
                                    over: Node::Block(t),
                                    base: o.state.map(Node::Block),
                                }),
                            "encryption"
                                if m.engine == crate::terraform::discover::Engine::OpenTofu =>
                            {
                                out.push(Change {
                                    address: "terraform.encryption".into(),
                                    over: Node::Block(t),
                                    base: o.encryption.map(Node::Block),
                                })
                            }
                            "required_providers" => out.extend(t.body.attrs().map(|a| Change {
                                address: format!("terraform.required_providers.{}", a.name),
                                over: Node::Attr(a),
                                base: o.providers.get(a.name.as_str()).map(|a| Node::Attr(a)),
                            })),
                            _ => {}
                        }
                    }
                }
                // An override block that changes nothing is no change (see
                // `Module::unchanging`).
                _ if m.unchanging.contains(&b.def_span) => {}
                _ => {
                    if let Some(addr) = b.address() {
                        let base = o.object(&addr).map(Node::Block);
                        out.push(Change { address: addr, over: Node::Block(b), base });
                    }
                }
            }
        }
    }
    out
}

/// A comment: where it is and its text (markers stripped).
#[derive(Clone, Debug, PartialEq)]
pub struct Comment {
    pub span: Span,
    pub text: String,
}

/// Comments that sit on the item at `span` itself: the run of comment lines directly above
/// it (no blank line between), or a JSON `"//"` in its object.
pub(crate) fn comments_on(m: &Module, span: Span) -> Vec<Comment> {
    let Some(f) = m.files.files.get(span.file) else { return Vec::new() };
    match f.syntax {
        Syntax::Hcl => lines_above(&f.text, span.start)
            .into_iter()
            .map(|(s, e, text)| Comment { span: Span::new(span.file, s, e), text })
            .collect(),
        Syntax::Json => parsed(m, span.file)
            .map(|p| {
                p.notes
                    .iter()
                    .filter(|n| n.covers == span)
                    .map(|n| Comment { span: n.span, text: n.text.clone() })
                    .collect()
            })
            .unwrap_or_default(),
    }
}

/// Comments on the item at `span` or on any item that encloses it (a comment above a
/// block also speaks for the attributes inside it).
pub(crate) fn comments_around(m: &Module, span: Span) -> Vec<Comment> {
    let Some(p) = parsed(m, span.file) else { return Vec::new() };
    if m.files.get(span.file).syntax == Syntax::Json {
        return p
            .notes
            .iter()
            .filter(|n| n.covers.start <= span.start && span.end <= n.covers.end)
            .map(|n| Comment { span: n.span, text: n.text.clone() })
            .collect();
    }
    let mut spans = Vec::new();
    enclosing(&p.body, span, &mut spans);
    if !spans.contains(&span) {
        spans.push(span);
    }
    let mut out: Vec<Comment> = Vec::new();
    for s in spans {
        for c in comments_on(m, s) {
            if !out.contains(&c) {
                out.push(c);
            }
        }
    }
    out
}

/// Every comment inside the item at `span` (a trailing `# …` on one of its lines, a JSON
/// `"//"` of a nested object), in the order written.
pub(crate) fn comments_in(m: &Module, span: Span) -> Vec<Comment> {
    let Some(f) = m.files.files.get(span.file) else { return Vec::new() };
    match f.syntax {
        Syntax::Hcl => {
            let all = parsed(m, span.file).map_or(&[][..], |p| &p.comments);
            // In source order: the ones inside start at or after the item's start.
            let from = all.partition_point(|&(s, _)| s < span.start);
            all[from..]
                .iter()
                .take_while(|&&(s, _)| s < span.end)
                .filter(|&&(_, e)| e <= span.end)
                .map(|&(s, e)| {
                    let raw = f.text.get(s..e).unwrap_or("").trim_end();
                    let text = raw.trim_start_matches('#').trim_start_matches("//");
                    let text = text.trim_start_matches("/*").trim_end_matches("*/");
                    Comment { span: Span::new(span.file, s, e), text: text.trim().to_string() }
                })
                .collect()
        }
        Syntax::Json => parsed(m, span.file)
            .map(|p| {
                p.notes
                    .iter()
                    .filter(|n| span.start <= n.span.start && n.span.end <= span.end)
                    .map(|n| Comment { span: n.span, text: n.text.clone() })
                    .collect()
            })
            .unwrap_or_default(),
    }
}

fn parsed(m: &Module, file: FileId) -> Option<&ParsedFile> {
    m.parsed.iter().map(|p| &**p).find(|p| p.file == file)
}

/// Spans of the items of `body` (recursively) that contain `span`, outermost first.
fn enclosing(body: &Body, span: Span, out: &mut Vec<Span>) {
    let item_span = |i: &Item| match i {
        Item::Attr(a) => a.span,
        Item::Block(b) => b.span,
        Item::Json(j) => j.span,
    };
    // Items are in source order and do not overlap: only the last one starting at or
    // before `span` can contain it (a binary search, not a scan per finding).
    let at = body.items.partition_point(|i| item_span(i).start <= span.start);
    let Some(i) = at.checked_sub(1).and_then(|k| body.items.get(k)) else { return };
    let s = item_span(i);
    if s.start <= span.start && span.end <= s.end {
        out.push(s);
        if let Item::Block(b) = i {
            enclosing(&b.body, span, out);
        }
    }
}

/// The start of the line holding `offset`. The first line starts after a UTF-8 byte order
/// mark, which Terraform reads past: an item or a comment right after it starts its line.
pub fn line_start(text: &str, offset: usize) -> usize {
    let offset = offset.min(text.len());
    match text[..offset].rfind('\n') {
        Some(i) => i + 1,
        None if text.starts_with('\u{feff}') => offset.min('\u{feff}'.len_utf8()),
        None => 0,
    }
}

/// The comment lines directly above the line of `offset`, top to bottom, as
/// `(start, end, text)`; empty if the item does not start its line.
pub(crate) fn lines_above(text: &str, offset: usize) -> Vec<(usize, usize, String)> {
    let offset = offset.min(text.len());
    let first = line_start(text, offset);
    if !text.get(first..offset).is_some_and(|s| s.trim().is_empty()) {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut end = first;
    let mut in_block = false;
    while end > 0 {
        let prev_end = end - 1; // the '\n' ending the previous line
        if text.get(prev_end..end) != Some("\n") {
            break; // only a byte order mark before the first line
        }
        let start = line_start(text, prev_end);
        let line = text[start..prev_end].trim_end_matches('\r');
        let t = line.trim();
        let is_comment = if in_block {
            if t.starts_with("/*") {
                in_block = false;
            }
            true
        } else if t.ends_with("*/") {
            in_block = !t.starts_with("/*") || t.len() < 4;
            true
        } else {
            t.starts_with('#') || t.starts_with("//")
        };
        if !is_comment || t.is_empty() {
            break;
        }
        let body = t
            .trim_start_matches('#')
            .trim_start_matches("//")
            .trim_start_matches("/*")
            .trim_end_matches("*/")
            .trim_start_matches('*')
            .trim();
        let lead = line.len() - line.trim_start().len();
        out.push((start + lead, start + line.trim_end().len(), body.to_string()));
        end = start;
    }
    out.reverse();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::merge::load_texts;
    use crate::policy::Policy;
    use crate::terraform::discover::Engine;

    #[test]
    fn comment_runs_stop_at_blank_lines_and_code() {
        let text = "# licence\n\n# one\n// two\nresource \"a\" \"b\" {}\nx = 1 # no\ny = 2\n";
        let at = text.find("resource").unwrap();
        let got: Vec<String> = lines_above(text, at).into_iter().map(|c| c.2).collect();
        assert_eq!(got, ["one", "two"]);
        assert!(lines_above(text, text.find("y =").unwrap()).is_empty());
        let block = "/* a\n * b\n */\nz = 1\n";
        assert_eq!(lines_above(block, block.find("z =").unwrap()).len(), 3);
    }

    /// Terraform requires every primary file's `required_version`, and an override file's
    /// replaces them all: it pairs with each.
    #[test]
    fn a_required_version_pairs_with_every_primary_files() {
        let version = |v: &str| format!("terraform {{\n  required_version = \"{v}\"\n}}\n");
        let (a, b, o) = (version(">= 0.9.3"), version(">= 1.0"), version(">= 0.12"));
        let m = load_texts("", &[("a.tf", &a), ("versions.tf", &b), ("override.tf", &o)], None);
        let got: Vec<(String, Option<String>)> = changes(&m)
            .iter()
            .map(|c| (c.address.clone(), c.base.map(|b| m.files.get(b.span().file).name().into())))
            .collect();
        let want = |f: &str| ("terraform.required_version".to_string(), Some(f.to_string()));
        assert_eq!(got, [want("a.tf"), want("versions.tf")]);
    }

    #[test]
    fn override_items_pair_with_their_originals() {
        let m = load_texts(
            "",
            &[
                (
                    "main.tf",
                    "locals {\n  a = 1\n}\nresource \"x\" \"y\" {}\nterraform {\n  backend \"s3\" {}\n}\n",
                ),
                (
                    "override.tf",
                    "locals {\n  a = 2\n}\nresource \"x\" \"y\" { z = 1 }\nterraform {\n  backend \"gcs\" {}\n}\n",
                ),
            ],
            None,
        );
        let policy = Policy::builtin();
        let cx = Context::new(&m, None, &policy.options, &GlobBase::default(), &[]);
        let got: Vec<(String, bool)> =
            cx.changes.iter().map(|c| (c.address.clone(), c.base.is_some())).collect();
        assert_eq!(
            got,
            [
                ("local.a".to_string(), true),
                ("resource.x.y".to_string(), true),
                ("terraform.backend".to_string(), true)
            ]
        );
    }

    /// What the engine never decodes changes nothing: an action under OpenTofu, a
    /// `required_providers` block holding a block, a `locals` block with a label, a
    /// label-less `backend`.
    #[test]
    fn what_the_engine_drops_is_no_change() {
        let main = "action \"a\" \"b\" {}\nlocals {\n  l = 1\n}\nterraform {\n  required_providers {\n    aws = { source = \"hashicorp/aws\" }\n  }\n  backend \"s3\" {}\n}\n";
        let over = "action \"a\" \"b\" {\n  count = 1\n}\nlocals \"x\" {\n  l = 2\n}\nterraform {\n  required_providers {\n    aws = { source = \"acme/aws\" }\n    nested {}\n  }\n  backend {}\n}\n";
        let changed = |engine| {
            let m = load_texts("", &[("main.tf", main), ("override.tf", over)], Some(engine));
            changes(&m).iter().map(|c| c.address.clone()).collect::<Vec<_>>()
        };
        assert_eq!(changed(Engine::Terraform), ["action.a.b"]);
        assert_eq!(changed(Engine::OpenTofu), Vec::<String>::new());
    }
}
