//! `fold`: applies override files to the ordinary files of their module for good, then
//! deletes them, so a repository can stop using overrides without changing what runs.
//!
//! Each override item becomes splices on the primary item it merges into, following the
//! merge rules of `crate::merge` (an attribute's expression replaced or the attribute
//! added; nested blocks of a type replaced as a set; a resource's `lifecycle` merged per
//! argument; `required_version`, provider requirements and the backend as Terraform
//! handles them). Nothing is trusted: the folded module is merged again and its effective
//! configuration must equal the original's, value for value, or `fold` refuses and says
//! where they differ.

mod json_syntax;
mod settings;

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::Value;

use super::comments::generated;
use super::reload;
use super::{
    FileEdit, Splice, apply, eol_of, indent_before, line_end, line_start, reindent, whole_lines,
};
use crate::merge::{Module, compare};
use crate::policy::context::lines_above;
use crate::render;
use crate::terraform::expr::{hcl_quote, is_ident};
use crate::terraform::schema::Schema;
use crate::terraform::schema::{Kind, Overridden};
use crate::terraform::{Attr, Block, FileClass, FileId, Item, ParsedFile, Span, Syntax};

/// Why `fold` will not fold: where, and what to do about it.
#[derive(Clone, Debug, PartialEq)]
pub struct Refusal {
    pub path: String,
    /// 1-based; 0 when the reason is about the whole module.
    pub line: usize,
    pub reason: String,
}

/// What folding does: the files to rewrite and delete, and comments in them that still
/// speak of a folded file (written by hand, so left for the user to reword).
#[derive(Clone, Debug)]
pub struct Folded {
    pub edits: Vec<FileEdit>,
    pub notes: Vec<Refusal>,
}

/// Folds the override files named in `names` (file names in `m`'s directory) into the
/// primary files, or says why not.
pub fn plan(m: &Module, names: &[String]) -> Result<Folded, Vec<Refusal>> {
    let whole = |reason: String| vec![Refusal { path: m.dir.clone(), line: 0, reason }];
    if m.has_errors() {
        return Err(whole(format!(
            "{} rejects this module, so it has no effective configuration to keep; \
             `override-guard audit` shows why",
            m.engine.name()
        )));
    }
    foldable(m, names)?;
    // The current files, as (name, text); folded overrides drop out.
    let mut files: Vec<(String, Arc<str>)> =
        m.files.files.iter().map(|f| (f.name().to_string(), f.text.clone())).collect();
    // Overrides merge in file order: fold them in that order.
    let order: Vec<String> =
        files.iter().filter(|f| names.contains(&f.0)).map(|f| f.0.clone()).collect();
    for name in &order {
        let cur = reload(m, &files);
        let Some(over) = cur.files.files.iter().position(|f| f.name() == name) else { continue };
        let mut f = Folder::new(&cur);
        f.fold_file(over);
        if !f.refusals.is_empty() {
            return Err(f.refusals);
        }
        for (file, splices) in f.splices {
            let Some(slot) = files.iter_mut().find(|x| x.0 == cur.files.get(file).name()) else {
                continue;
            };
            match apply(&slot.1, &splices) {
                Ok(t) => slot.1 = Arc::from(t),
                Err(e) => return Err(whole(format!("internal error, nothing changed: {e}"))),
            }
        }
        files.retain(|f| &f.0 != name);
    }
    // The warning comments about the folded files are no longer true.
    let cur = reload(m, &files);
    for (id, f) in cur.files.files.iter().enumerate() {
        let splices = stale_comments(&cur, id, names);
        if splices.is_empty() {
            continue;
        }
        if let (Ok(t), Some(slot)) =
            (apply(&f.text, &splices), files.iter_mut().find(|x| x.0 == f.name()))
        {
            slot.1 = Arc::from(t);
        }
    }
    for slot in files.iter_mut() {
        if let Some((id, orig)) = m.files.files.iter().enumerate().find(|(_, f)| f.name() == slot.0)
            && *orig.text != *slot.1
        {
            slot.1 = Arc::from(super::keep_canonical(m, id, slot.1.to_string()));
        }
    }
    let after = reload(m, &files);
    same_module(m, &after)?;
    let mut edits = Vec::new();
    for f in &m.files.files {
        match files.iter().find(|x| x.0 == f.name()) {
            Some(x) if *x.1 != *f.text => edits.push(FileEdit {
                path: f.path.clone(),
                before: f.text.clone(),
                after: Some(x.1.to_string()),
            }),
            Some(_) => {}
            None => {
                edits.push(FileEdit { path: f.path.clone(), before: f.text.clone(), after: None })
            }
        }
    }
    Ok(Folded { edits, notes: comments_naming(&after, names) })
}

/// Whether `names` can be folded: each an override file of `m` with nothing in it that
/// the engine ignores (folding would make it take effect).
fn foldable(m: &Module, names: &[String]) -> Result<(), Vec<Refusal>> {
    let mut refusals = Vec::new();
    for n in names {
        match m.files.files.iter().find(|f| f.name() == n) {
            Some(f) if f.class == FileClass::Override => {}
            Some(f) => refusals.push(Refusal {
                path: f.path.clone(),
                line: 0,
                reason: "not an override file: only override files are folded".into(),
            }),
            None => refusals.push(Refusal {
                path: crate::path::join(&m.dir, n),
                line: 0,
                reason: format!("not one of the files {} reads in this directory", m.engine.name()),
            }),
        }
    }
    for i in &m.ignored {
        let f = m.files.get(i.span.file);
        if names.iter().any(|n| n == f.name()) {
            refusals.push(Refusal {
                path: f.path.clone(),
                line: f.line_col(i.span.start).0,
                reason: format!(
                    "{}: folding it would make it take effect; delete it from the override file first",
                    i.what
                ),
            });
        }
    }
    if refusals.is_empty() { Ok(()) } else { Err(refusals) }
}

/// The proof of a fold: the module `after` it loads, and has `m`'s effective
/// configuration.
fn same_module(m: &Module, after: &Module) -> Result<(), Vec<Refusal>> {
    let whole = |reason: String| vec![Refusal { path: m.dir.clone(), line: 0, reason }];
    if let Some(d) = after.diagnostics.iter().find(|d| d.is_error()) {
        let span = d.subject.unwrap_or_default();
        let f = after.files.get(span.file);
        return Err(vec![Refusal {
            path: f.path.clone(),
            line: f.line_col(span.start).0,
            reason: if d.summary.starts_with("Invalid combination of \"count\"") {
                "count and for_each would end up in one block: Terraform keeps both after the merge \
                 of an original and an override, but refuses both in one block, so the original \
                 file cannot say this; nothing is changed"
                    .to_string()
            } else {
                format!(
                    "the folded files would not load ({}: {}); nothing is changed",
                    d.summary, d.detail
                )
            },
        }]);
    }
    if !compare::same(m, after) {
        let diff = compare::differences(m, after);
        let at: Vec<String> = diff.iter().take(3).map(|d| d.path.to_string()).collect();
        let at = if at.is_empty() { "the order of its blocks".to_string() } else { at.join(", ") };
        return Err(whole(format!(
            "the folded module would not have the same effective configuration (differs at {at}); \
             nothing is changed"
        )));
    }
    Ok(())
}

/// Comments above items of the primary files that name one of `folded`.
fn comments_naming(m: &Module, folded: &[String]) -> Vec<Refusal> {
    let mut out = Vec::new();
    for p in &m.parsed {
        let src = m.files.get(p.file);
        if src.class != FileClass::Primary || src.syntax != Syntax::Hcl {
            continue;
        }
        let mut seen = std::collections::BTreeSet::new();
        for s in super::item_spans(&p.body).into_iter().map(|s| s.start) {
            for (start, _, text) in lines_above(&src.text, s) {
                let named = folded.iter().find(|f| {
                    crate::policy::rules::CommentMatcher::Names((*f).clone()).is_match(&text)
                });
                if let Some(f) = named
                    && seen.insert(start)
                {
                    out.push(Refusal {
                        path: src.path.clone(),
                        line: src.line_col(start).0,
                        reason: format!("this comment still speaks of {f}, which fold deletes: reword or remove it"),
                    });
                }
            }
        }
    }
    out
}

/// Generated warning comments (see [`super::comments`]) that name a folded file.
fn stale_comments(m: &Module, file: FileId, folded: &[String]) -> Vec<Splice> {
    let src = m.files.get(file);
    let Some(p) = m.parsed.iter().find(|p| p.file == file) else { return Vec::new() };
    if src.syntax != Syntax::Hcl {
        return Vec::new();
    }
    let mut out: Vec<Splice> = Vec::new();
    for s in super::item_spans(&p.body).into_iter().map(|s| s.start) {
        for (start, _, text) in lines_above(&src.text, s) {
            if generated(&text).is_some_and(|n| folded.iter().any(|f| f == n)) {
                let sp = Splice::delete(line_start(&src.text, start), line_end(&src.text, start));
                if !out.contains(&sp) {
                    out.push(sp);
                }
            }
        }
    }
    out
}

/// The JSON schema of a primary block, so values are written as Terraform reads them.
fn schema_of(b: &Block) -> Schema {
    match b.kind.as_str() {
        "lifecycle" => Schema::Resource.child("lifecycle"),
        "required_providers" => Schema::top_block("terraform")
            .map_or(Schema::Unknown, |(_, s)| s.child("required_providers")),
        k => Schema::top_block(k).map_or(Schema::Unknown, |(_, s)| s),
    }
}

/// Plans the splices of one override file onto the primaries of a module.
struct Folder<'a> {
    m: &'a Module,
    splices: BTreeMap<FileId, Vec<Splice>>,
    refusals: Vec<Refusal>,
    /// Single-line blocks opened up, by their closing brace: the indentation that goes
    /// before the brace once every new item is in.
    opened: BTreeMap<(FileId, usize), String>,
    /// New items by (file, primary block, name), so a second override block for the same
    /// primary replaces what the first added instead of adding it twice.
    added: BTreeMap<(FileId, usize, String), (usize, String)>,
}

/// Where a new item goes in a primary body.
struct Place {
    file: FileId,
    at: usize,
    /// Text before and after the item's lines (a single-line block is opened up).
    prefix: String,
    suffix: String,
    indent: String,
}

impl<'a> Folder<'a> {
    fn new(m: &'a Module) -> Self {
        Folder {
            m,
            splices: BTreeMap::new(),
            refusals: Vec::new(),
            opened: BTreeMap::new(),
            added: BTreeMap::new(),
        }
    }

    fn text(&self, file: FileId) -> &'a str {
        &self.m.files.get(file).text
    }

    fn refuse(&mut self, span: Span, reason: impl Into<String>) {
        let f = self.m.files.get(span.file);
        self.refusals.push(Refusal {
            path: f.path.clone(),
            line: f.line_col(span.start).0,
            reason: reason.into(),
        });
    }

    fn splice(&mut self, file: FileId, s: Splice) {
        let v = self.splices.entry(file).or_default();
        // A later override of the same range wins, as a later override item does.
        if s.start != s.end {
            v.retain(|x| !(x.start == s.start && x.end == s.end));
        }
        v.push(s);
    }

    fn parsed(&self, file: FileId) -> Option<&'a ParsedFile> {
        self.m.parsed.iter().map(|p| &**p).find(|p| p.file == file)
    }

    fn primaries(&self) -> impl Iterator<Item = &'a ParsedFile> + 'a {
        let m = self.m;
        m.parsed
            .iter()
            .map(|p| &**p)
            .filter(move |p| m.files.get(p.file).class == FileClass::Primary)
    }

    /// The primary block with this address (data blocks nested in `check` count).
    fn base_of(&self, addr: &str) -> Option<&'a Block> {
        for p in self.primaries() {
            for b in p.body.blocks() {
                if b.address().as_deref() == Some(addr) {
                    return Some(b);
                }
                if b.kind == "check" {
                    for d in b.body.blocks_of("data") {
                        if d.address().as_deref() == Some(addr) {
                            return Some(d);
                        }
                    }
                }
            }
        }
        None
    }

    fn fold_file(&mut self, over: FileId) {
        let Some(of) = self.parsed(over) else { return };
        for b in of.body.blocks() {
            match b.kind.as_str() {
                "locals" => self.fold_locals(b),
                "terraform" => self.fold_terraform(b, of),
                // The kinds the merge takes into a block of the same address.
                k if Kind::named(k).is_some_and(|k| {
                    matches!(k.overridden, Overridden::Object { .. } | Overridden::Provider)
                }) =>
                {
                    self.fold_object(b)
                }
                other => self.refuse(b.def_span, format!("fold does not handle `{other}` blocks")),
            }
        }
        for i in of.body.items.iter() {
            if let Item::Attr(a) = i {
                self.refuse(a.span, "an argument outside any block");
            }
        }
        for ((file, close), outer) in std::mem::take(&mut self.opened) {
            self.splice(file, Splice::insert(close, outer));
        }
    }

    fn fold_object(&mut self, ob: &'a Block) {
        let Some(addr) = ob.address() else {
            self.refuse(ob.def_span, "a block without the labels Terraform needs");
            return;
        };
        match self.base_of(&addr) {
            // Nothing to write where the override changes nothing (see `Module::unchanging`).
            Some(_) if self.m.unchanging.contains(&ob.def_span) => {}
            Some(base) => self.fold_body(base, ob),
            // A default provider configuration may be new in an override (spec §4).
            None if ob.kind == "provider" => {
                let key = (0, 0, format!("new {addr}"));
                if self.added.contains_key(&key) {
                    self.refuse(ob.def_span, format!("a second override of {addr}, which no primary file configures; merge the two blocks first"));
                    return;
                }
                self.added.insert(key, (0, String::new()));
                let body = self.snippet(ob.span, Item::Block(ob.clone()), "", "\n");
                self.append_blocks(ob.def_span, &[body]);
            }
            None => self.refuse(ob.def_span, format!("there is no {addr} in the primary files")),
        }
    }

    /// Merges an override block's body into a primary block's, as Terraform does.
    fn fold_body(&mut self, base: &'a Block, ob: &'a Block) {
        let resource = base.kind == "resource";
        let mut done_types: Vec<String> = Vec::new();
        let escaped = |n: &str| {
            base.body.blocks_of("_").any(|e| e.body.items.iter().any(|i| i.merge_name() == n))
        };
        for item in ob.body.items.iter() {
            let name = item.merge_name().to_string();
            if matches!(item, Item::Block(b) if b.kind == "_") || escaped(&name) {
                let at = match item {
                    Item::Attr(a) => a.name_span,
                    Item::Block(b) => b.def_span,
                    Item::Json(j) => j.name_span,
                };
                self.refuse(
                    at,
                    "Terraform merges what an escaping block `_` holds argument by argument with the original's, wherever each is written; fold cannot write that yet: fold it by hand",
                );
                continue;
            }
            match item {
                Item::Attr(a) => self.set_attr(base, a),
                Item::Json(j) if self.m.files.get(base.span.file).syntax == Syntax::Json => {
                    // JSON into JSON: the property replaces every member of its name, as
                    // the merge does, whatever the provider's schema makes of it.
                    let src = self.m.files.get(j.span.file);
                    let raw = src.text[j.value.span.start..j.value.span.end].to_string();
                    self.set_member(base, &j.name, Some(raw));
                }
                Item::Json(j) => self.fold_json_prop(base, j, &mut done_types),
                Item::Block(b) if resource && b.kind == "lifecycle" => {
                    match base.body.blocks_of("lifecycle").next() {
                        Some(bl) => {
                            for x in b.body.items.iter() {
                                match x {
                                    Item::Attr(a) => self.set_attr(bl, a),
                                    _ => {
                                        let n = x.merge_name().to_string();
                                        let all: Vec<Item> = b
                                            .body
                                            .items
                                            .iter()
                                            .filter(|i| {
                                                i.merge_name() == n && matches!(i, Item::Block(_))
                                            })
                                            .cloned()
                                            .collect();
                                        if !done_types.contains(&format!("lifecycle.{n}")) {
                                            done_types.push(format!("lifecycle.{n}"));
                                            self.replace_blocks(bl, &n, &all);
                                        }
                                    }
                                }
                            }
                        }
                        // An empty one sets nothing: the merge adds no lifecycle block.
                        None if b.body.items.is_empty() => {}
                        None => self.replace_blocks(base, "lifecycle", std::slice::from_ref(item)),
                    }
                }
                Item::Block(_) => {
                    if !done_types.contains(&name) {
                        done_types.push(name.clone());
                        let all: Vec<Item> = ob
                            .body
                            .items
                            .iter()
                            .filter(|i| matches!(i, Item::Block(_)) && i.merge_name() == name)
                            .cloned()
                            .collect();
                        self.replace_blocks(base, &name, &all);
                    }
                }
            }
        }
    }

    /// The text an override item has once written at `indent` in a native file.
    fn snippet(&self, span: Span, item: Item, indent: &str, eol: &str) -> String {
        let src = self.m.files.get(span.file);
        if src.syntax == Syntax::Hcl {
            let from = indent_before(&src.text, span.start).unwrap_or("");
            let raw = &src.text[span.start..span.end];
            return reindent(raw.trim_end(), from, indent, eol);
        }
        let text = match item {
            Item::Attr(a) => {
                let name = if is_ident(&a.name) { a.name.clone() } else { hcl_quote(&a.name) };
                format!("{name} = {}", a.expr.to_hcl())
            }
            Item::Block(b) => render::hcl::block_text(&b, 0).trim_end().to_string(),
            Item::Json(_) => String::new(),
        };
        reindent(&text, "", indent, eol)
    }

    /// An override attribute on a primary block: the expression replaced, or added.
    fn set_attr(&mut self, base: &'a Block, a: &Attr) {
        let file = base.span.file;
        if self.m.files.get(file).syntax == Syntax::Json {
            if render::tfjson::read_as_blocks(schema_of(base), &a.name) {
                self.refuse_block_named(a);
                return;
            }
            let value = self.json_attr(a, schema_of(base));
            self.set_member(base, &a.name, Some(value));
            return;
        }
        let text = self.text(file);
        let eol = eol_of(text);
        match base.body.attrs().find(|x| x.name == a.name) {
            Some(x) => {
                let to = indent_before(text, x.span.start).unwrap_or("").to_string();
                let src = self.m.files.get(a.span.file);
                let expr = if src.syntax == Syntax::Hcl {
                    let from = indent_before(&src.text, a.span.start).unwrap_or("");
                    reindent(&src.text[a.expr.span.start..a.expr.span.end], from, &to, eol)
                } else {
                    a.expr.to_hcl()
                };
                self.splice(
                    file,
                    Splice { start: x.expr.span.start, end: x.expr.span.end, text: expr },
                );
            }
            None => {
                let Some(place) = self.end_of(base) else { return };
                let s = self.snippet(a.span, Item::Attr(a.clone()), &place.indent, eol);
                self.put_once((file, base.span.start, format!("attr {}", a.name)), place, &[s]);
            }
        }
    }

    /// Replaces every block of type `name` (and `dynamic "name"`) in `base` by `blocks`.
    fn replace_blocks(&mut self, base: &'a Block, name: &str, blocks: &[Item]) {
        let file = base.span.file;
        if self.m.files.get(file).syntax == Syntax::Json {
            let child = schema_of(base).child(name);
            let named = blocks.iter().find_map(|i| match i {
                Item::Block(b) => render::tfjson::first_read_as_blocks(&b.body, child),
                _ => None,
            });
            if let Some(a) = named {
                self.refuse_block_named(a);
                return;
            }
            let list: Vec<Value> = blocks
                .iter()
                .filter_map(|i| match i {
                    Item::Block(b) => Some(render::tfjson::labelled(b, child)),
                    _ => None,
                })
                .collect();
            let value = (!list.is_empty()).then(|| Value::Array(list).to_string());
            self.set_member(base, name, value);
            return;
        }
        let text = self.text(file);
        let eol = eol_of(text);
        let old: Vec<&Block> = base
            .body
            .items
            .iter()
            .filter_map(|i| match i {
                Item::Block(b) if i.merge_name() == name => Some(b),
                _ => None,
            })
            .collect();
        let mut place = None;
        for (k, b) in old.iter().enumerate() {
            let Some((s, e)) = whole_lines(text, b.span.start, b.span.end) else {
                self.refuse(
                    b.def_span,
                    "this block shares its lines with other code; put it on lines of its own first",
                );
                return;
            };
            if k == 0 {
                let indent = indent_before(text, b.span.start).unwrap_or("").to_string();
                place = Some(Place {
                    file,
                    at: s,
                    prefix: String::new(),
                    suffix: String::new(),
                    indent,
                });
            }
            self.splice(file, Splice::delete(s, e));
        }
        let place = match place {
            Some(p) => p,
            None => match self.end_of(base) {
                Some(p) => p,
                None => return,
            },
        };
        let mut snippets = Vec::new();
        for item in blocks {
            let Item::Block(b) = item else { continue };
            snippets.push(self.snippet(b.span, item.clone(), &place.indent, eol));
        }
        self.put_once((file, base.span.start, format!("blocks {name}")), place, &snippets);
    }

    /// Inserts `text` at `at`, or when an insertion with the same key was made before
    /// (a second override block for the same primary), replaces that one's text.
    fn insert_once(&mut self, key: (FileId, usize, String), file: FileId, at: usize, text: String) {
        if let Some((at0, old)) = self.added.get(&key).cloned() {
            if let Some(s) = self.splices.get_mut(&file).and_then(|v| {
                v.iter_mut().find(|s| s.start == at0 && s.end == at0 && s.text == old)
            }) {
                s.text = text.clone();
            }
            self.added.insert(key, (at0, text));
            return;
        }
        self.added.insert(key, (at, text.clone()));
        self.splice(file, Splice::insert(at, text));
    }

    /// [`Self::put`], or when the same item was added before, its text replaced.
    fn put_once(&mut self, key: (FileId, usize, String), place: Place, snippets: &[String]) {
        let text = self.lines(&place, snippets);
        self.insert_once(key, place.file, place.at, text);
    }

    /// The text [`Self::put`] inserts.
    fn lines(&self, place: &Place, snippets: &[String]) -> String {
        let eol = eol_of(self.text(place.file));
        let mut out = place.prefix.clone();
        for s in snippets {
            out.push_str(&place.indent);
            out.push_str(s);
            out.push_str(eol);
        }
        out.push_str(&place.suffix);
        out
    }

    /// Writes items at a place, one per line.
    fn put(&mut self, place: Place, snippets: &[String]) {
        let text = self.lines(&place, snippets);
        self.splice(place.file, Splice::insert(place.at, text));
    }

    /// Where a new item goes: last in the block's body, indented as its other items. A
    /// block written on one line is opened up.
    fn end_of(&mut self, base: &'a Block) -> Option<Place> {
        let file = base.span.file;
        let text = self.text(file);
        let eol = eol_of(text);
        let close =
            base.span.end.checked_sub(1).filter(|&c| text.as_bytes().get(c) == Some(&b'}'))?;
        let outer = indent_before(text, base.span.start).map(str::to_string).unwrap_or_else(|| {
            text[line_start(text, base.span.start)..]
                .chars()
                .take_while(|c| *c == ' ' || *c == '\t')
                .collect()
        });
        let unit = if outer.contains('\t') { "\t" } else { "  " };
        let indent = base
            .body
            .items
            .iter()
            .map(|i| match i {
                Item::Attr(a) => a.span.start,
                Item::Block(b) => b.span.start,
                Item::Json(j) => j.span.start,
            })
            .find_map(|s| indent_before(text, s))
            .map_or_else(|| format!("{outer}{unit}"), str::to_string);
        if indent_before(text, close).is_some() {
            return Some(Place {
                file,
                at: line_start(text, close),
                prefix: String::new(),
                suffix: String::new(),
                indent,
            });
        }
        // `{}` or `{ x = 1 }`: the body goes on lines of its own (once per block).
        let place = Place { file, at: close, prefix: String::new(), suffix: String::new(), indent };
        if self.opened.contains_key(&(file, close)) {
            return Some(place);
        }
        let open = text[..close].rfind('{')?;
        let inner = text[open + 1..close].trim();
        if inner.contains('\n') || inner.contains('}') {
            self.refuse(base.def_span, "the block's closing brace shares its line with other code");
            return None;
        }
        let mut head = eol.to_string();
        if !inner.is_empty() {
            head.push_str(&format!("{}{inner}{eol}", place.indent));
        }
        self.splice(file, Splice::delete(open + 1, close));
        self.splice(file, Splice::insert(close, head));
        self.opened.insert((file, close), outer);
        Some(place)
    }

    fn fold_locals(&mut self, ob: &'a Block) {
        for a in ob.body.attrs() {
            let base = self
                .primaries()
                .flat_map(|p| p.body.blocks_of("locals"))
                .find(|b| b.attr(&a.name).is_some());
            match base {
                Some(b) => self.set_attr(b, a),
                None => self.refuse(
                    a.span,
                    format!("there is no local value `{}` in the primary files", a.name),
                ),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fold(files: &[(&str, &str)]) -> Result<Vec<(String, Option<String>)>, Vec<Refusal>> {
        let m = crate::merge::load_texts("", files, None);
        let names: Vec<String> = m.override_files().map(|f| f.name().to_string()).collect();
        plan(&m, &names).map(|f| f.edits.into_iter().map(|e| (e.path, e.after)).collect())
    }

    #[test]
    fn attributes_are_replaced_and_added_in_place() {
        let main = "resource \"a\" \"b\" {\n  x    = 1 # keep\n\n  # y\n  y = 2\n}\n";
        let over = "resource \"a\" \"b\" {\n  x = \"one\"\n  z = [\n    1,\n  ]\n}\n";
        let got = fold(&[("main.tf", main), ("override.tf", over)]).unwrap();
        assert_eq!(
            got,
            vec![
                (
                    "main.tf".into(),
                    Some("resource \"a\" \"b\" {\n  x    = \"one\" # keep\n\n  # y\n  y = 2\n  z = [\n    1,\n  ]\n}\n".into())
                ),
                ("override.tf".into(), None),
            ]
        );
    }

    #[test]
    fn nested_blocks_are_replaced_as_a_set() {
        let main = "resource \"a\" \"b\" {\r\n\tn {\r\n\t\tv = 1\r\n\t}\r\n\tn {\r\n\t\tv = 2\r\n\t}\r\n\tw = 1\r\n}\r\n";
        let over = "resource \"a\" \"b\" {\n  n {\n    v = 3\n  }\n}\n";
        let got = fold(&[("main.tf", main), ("override.tf", over)]).unwrap();
        assert_eq!(
            got[0].1.as_deref(),
            Some("resource \"a\" \"b\" {\r\n\tn {\r\n\t\tv = 3\r\n\t}\r\n\tw = 1\r\n}\r\n")
        );
    }

    /// `lifecycle = {…}` is an argument for the provider; written into a JSON primary under
    /// its name, Terraform would read the lifecycle block: fold refuses, and says so.
    #[test]
    fn an_argument_named_like_a_block_is_not_folded_into_json() {
        let main = r#"{"resource": {"a": {"b": {"x": 1, "provisioner": [{"local-exec": {}}]}}}}"#;
        for over in [
            "resource \"a\" \"b\" {\n  lifecycle = { prevent_destroy = true }\n}\n",
            "resource \"a\" \"b\" {\n  provisioner \"local-exec\" {\n    connection = {}\n  }\n}\n",
        ] {
            let err = fold(&[("main.tf.json", main), ("override.tf", over)]).unwrap_err();
            assert!(
                err[0].reason.contains("a JSON file cannot hold it under that name"),
                "{err:?}"
            );
            assert_eq!(
                (err[0].path.as_str(), err[0].line),
                ("override.tf", 2 + over.matches("provisioner").count())
            );
        }
    }

    #[test]
    fn an_ignored_override_is_refused_with_the_reason() {
        let main = "resource \"a\" \"b\" {\n  depends_on = [a.c]\n}\nresource \"a\" \"c\" {}\n";
        let over = "resource \"a\" \"b\" {\n  depends_on = []\n}\n";
        let err = fold(&[("main.tf", main), ("override.tf", over)]).unwrap_err();
        assert!(err[0].reason.contains("depends_on = []"), "{err:?}");
        assert_eq!(err[0].line, 2);
    }

    #[test]
    fn single_line_blocks_are_opened_up() {
        let main = "resource \"a\" \"b\" { x = 1 }\n";
        let over = "resource \"a\" \"b\" {\n  y = 2\n}\n";
        let got = fold(&[("main.tf", main), ("override.tf", over)]).unwrap();
        assert_eq!(got[0].1.as_deref(), Some("resource \"a\" \"b\" {\n  x = 1\n  y = 2\n}\n"));
    }
}
