//! Folding an override's `terraform` block (`required_version`, provider requirements,
//! the backend, other settings) into the first primary `terraform` block or a new one, and
//! appending new top-level blocks to the first native-syntax primary file.

use super::Folder;
use crate::fix::{Splice, eol_of, indent_before, reindent, whole_lines};
use crate::render;
use crate::terraform::schema::Schema;
use crate::terraform::{Attr, Block, Item, ParsedFile, Span, Syntax};

impl<'a> Folder<'a> {
    /// The first primary `terraform` block (native), where new settings go.
    pub(super) fn terraform_block(&self) -> Option<&'a Block> {
        self.primaries()
            .flat_map(|p| p.body.blocks_of("terraform"))
            .find(|b| self.m.files.get(b.span.file).syntax == Syntax::Hcl)
    }

    /// Appends top-level blocks (native text written with `\n`) to the end of the first
    /// native-syntax primary file, each after a blank line, in that file's line endings.
    pub(super) fn append_blocks(&mut self, span: Span, blocks: &[String]) {
        let native =
            self.primaries().map(|p| p.file).find(|&f| self.m.files.get(f).syntax == Syntax::Hcl);
        let Some(file) = native else {
            self.refuse(span, "no native-syntax primary file to write this into");
            return;
        };
        let text = self.text(file);
        let eol = eol_of(text);
        let mut out = String::from(if text.is_empty() || text.ends_with('\n') { "" } else { eol });
        for b in blocks {
            out.push_str(eol);
            out.push_str(&b.replace('\n', eol));
            out.push_str(eol);
        }
        self.splice(file, Splice::insert(text.len(), out));
    }

    /// Adds `item` to the first primary `terraform` block, or a new one.
    pub(super) fn add_to_terraform(&mut self, span: Span, item: Item) {
        let s = self.snippet(span, item, "", "\n");
        self.add_raw_to_terraform(span, &s);
    }

    pub(super) fn fold_terraform(&mut self, ob: &'a Block, of: &'a ParsedFile) {
        for item in ob.body.items.iter() {
            match item {
                Item::Attr(a) if a.name == "required_version" => {}
                Item::Block(b) if b.kind == "required_providers" => self.fold_providers(b),
                Item::Block(b)
                    if matches!(b.kind.as_str(), "backend" | "cloud" | "state_store") => {}
                other => {
                    let (span, what) = match other {
                        Item::Attr(a) => (a.span, a.name.clone()),
                        Item::Block(b) => (b.def_span, b.kind.clone()),
                        Item::Json(j) => (j.span, j.name.clone()),
                    };
                    self.refuse(
                        span,
                        format!("fold does not handle `{what}` in a terraform block"),
                    );
                }
            }
        }
        // Settings Terraform takes from the file as a whole: do them once per file.
        let first = of.body.blocks_of("terraform").next().is_some_and(|t| std::ptr::eq(t, ob));
        if first {
            self.fold_version(of);
            self.fold_state(of);
        }
    }

    /// `required_version` in an override replaces every primary constraint (spec §5.11).
    pub(super) fn fold_version(&mut self, of: &'a ParsedFile) {
        let over: Vec<&Attr> =
            of.body.blocks_of("terraform").filter_map(|t| t.attr("required_version")).collect();
        let Some((&o, extra)) = over.split_first() else { return };
        let base: Vec<(&Block, &Attr)> = self
            .primaries()
            .flat_map(|p| p.body.blocks_of("terraform"))
            .filter_map(|t| t.attr("required_version").map(|a| (t, a)))
            .collect();
        match base.split_first() {
            Some(((t, _), rest)) => {
                self.set_attr(t, o);
                for (t, a) in rest {
                    if self.m.files.get(t.span.file).syntax == Syntax::Json {
                        self.set_member(t, "required_version", None);
                        continue;
                    }
                    match whole_lines(self.text(a.span.file), a.span.start, a.span.end) {
                        Some((s, e)) => self.splice(a.span.file, Splice::delete(s, e)),
                        None => self.refuse(a.span, "this setting shares its line with other code"),
                    }
                }
            }
            None => self.add_to_terraform(o.span, Item::Attr(o.clone())),
        }
        // All the file's constraints apply, and one block may set the argument only once:
        // the others go into terraform blocks of their own.
        if extra.is_empty() {
            return;
        }
        let blocks: Vec<String> = extra
            .iter()
            .map(|a| {
                let s = self.snippet(a.span, Item::Attr((*a).clone()), "  ", "\n");
                format!("terraform {{\n  {s}\n}}")
            })
            .collect();
        self.append_blocks(extra[0].span, &blocks);
    }

    /// The storage block of an override file replaces the module's (spec §5.11).
    pub(super) fn fold_state(&mut self, of: &'a ParsedFile) {
        let kinds = ["backend", "cloud", "state_store"];
        let over: Vec<&Block> = of
            .body
            .blocks_of("terraform")
            .flat_map(|t| t.body.blocks())
            .filter(|b| kinds.contains(&b.kind.as_str()))
            .collect();
        // Several kinds in one file: the one processed last wins (spec §5.11).
        let order: &[&str] = match self.m.engine {
            crate::terraform::discover::Engine::Terraform => &["cloud", "state_store", "backend"],
            crate::terraform::discover::Engine::OpenTofu => &["cloud", "backend", "state_store"],
        };
        let Some(&o) = order.iter().find_map(|k| over.iter().find(|b| b.kind == *k)) else {
            return;
        };
        // (terraform block, storage block) of the primaries.
        let base: Vec<(&Block, &Block)> = self
            .primaries()
            .flat_map(|p| p.body.blocks_of("terraform"))
            .flat_map(|t| t.body.blocks().map(move |b| (t, b)))
            .filter(|(_, b)| kinds.contains(&b.kind.as_str()))
            .collect();
        let Some(&(t0, first)) = base.first() else {
            self.add_to_terraform(o.span, Item::Block(o.clone()));
            return;
        };
        // JSON terraform objects: their storage members go, the new one takes the first's place.
        let mut json_done: Vec<Span> = Vec::new();
        for &(t, _) in &base {
            if self.m.files.get(t.span.file).syntax != Syntax::Json || json_done.contains(&t.span) {
                continue;
            }
            json_done.push(t.span);
            let is_first = t.span == t0.span;
            let value = render::tfjson::labelled(o, Schema::Unknown).to_string();
            for kind in kinds {
                if t.body.blocks_of(kind).next().is_some() {
                    let keep = (is_first && kind == o.kind).then(|| value.clone());
                    self.set_member(t, kind, keep);
                }
            }
            if is_first && t.body.blocks_of(&o.kind).next().is_none() {
                self.set_member(t, &o.kind, Some(value));
            }
        }
        let native: Vec<&Block> = base
            .iter()
            .filter(|(t, _)| self.m.files.get(t.span.file).syntax == Syntax::Hcl)
            .map(|&(_, b)| b)
            .collect();
        let text = self.text(first.span.file);
        let eol = eol_of(text);
        let indent = indent_before(text, first.span.start).unwrap_or("").to_string();
        let s = self.snippet(o.span, Item::Block(o.clone()), &indent, eol);
        for b in native {
            match whole_lines(self.text(b.span.file), b.span.start, b.span.end) {
                Some((s0, e0)) => {
                    self.splice(b.span.file, Splice::delete(s0, e0));
                    if b.span == first.span {
                        self.splice(b.span.file, Splice::insert(s0, format!("{indent}{s}{eol}")));
                    }
                }
                None => self.refuse(b.def_span, "this block shares its lines with other code"),
            }
        }
    }

    /// Provider requirements: each entry replaces the primary entry of its name, or is added.
    pub(super) fn fold_providers(&mut self, ob: &'a Block) {
        let blocks: Vec<&Block> = self
            .primaries()
            .flat_map(|p| p.body.blocks_of("terraform"))
            .flat_map(|t| t.body.blocks_of("required_providers"))
            .collect();
        let mut missing: Vec<&Attr> = Vec::new();
        for a in ob.body.attrs() {
            match blocks.iter().find(|b| b.attr(&a.name).is_some()).or(blocks.first()) {
                Some(b) => self.set_attr(b, a),
                None => missing.push(a),
            }
        }
        if missing.is_empty() {
            return;
        }
        // No primary lists providers: one new block with the entries.
        let entries: Vec<String> = missing
            .iter()
            .map(|a| self.snippet(a.span, Item::Attr((*a).clone()), "  ", "\n"))
            .collect();
        let text = format!("required_providers {{\n  {}\n}}", entries.join("\n  "));
        self.add_raw_to_terraform(ob.span, &text);
    }

    /// Adds a native snippet (written at depth 0 with `\n`) to the first primary
    /// `terraform` block, or to a new one at the end of the first native primary file.
    pub(super) fn add_raw_to_terraform(&mut self, span: Span, snippet: &str) {
        if let Some(t) = self.terraform_block() {
            let Some(place) = self.end_of(t) else { return };
            let eol = eol_of(self.text(t.span.file));
            let s = reindent(snippet, "", &place.indent, eol);
            self.put(place, &[s]);
            return;
        }
        let s = reindent(snippet, "", "  ", "\n");
        self.append_blocks(span, &[format!("terraform {{\n  {s}\n}}")]);
    }
}
