//! Terraform's `decodeImportBlock` (`import.go`).

use crate::terraform::{Block, Expr, Span};
use override_guard_hcl::ast::{Node, Step};

use super::decoder::Decoder;
use super::endpoint::move_endpoint;
use super::schema::{TF_IMPORT, TOFU_IMPORT};
use super::traversal::{NOT_A_REFERENCE, Trav, syntax_of};
use crate::terraform::release::Feature;

impl Decoder<'_> {
    /// `exprToResourceTraversal` of an import block's `to` (after `unwrapJSONRefExpr`): the
    /// reference with its non-constant indexes dropped, `Some(None)` (reported) when it is
    /// none; `None` when a JSON string did not parse, which ends the block's decoding.
    fn import_to(&mut self, e: &Expr) -> Option<Option<Trav>> {
        let (tree, off, at) = if self.json && e.source.is_none() {
            let (_, tree) = self.json_string_expr(e)?;
            let (file, o) = (e.span.file, e.span.start);
            let at = Span::new(file, o + tree.range.start, o + tree.range.end);
            (tree, o, at)
        } else {
            let Some((tree, Some(off))) = syntax_of(e) else { return Some(None) };
            (tree, off, e.span)
        };
        let span = |r: &std::ops::Range<usize>| Span::new(e.span.file, off + r.start, off + r.end);
        let (root, steps) = match &tree.node {
            Node::Variable(name) => (name.clone(), &[][..]),
            Node::Traversal { source, steps } => match &source.node {
                Node::Variable(name) => (name.clone(), steps.as_slice()),
                _ => (String::new(), &[][..]),
            },
            _ => (String::new(), &[][..]),
        };
        if root.is_empty() {
            self.err("Invalid expression", NOT_A_REFERENCE, at);
            return Some(None);
        }
        let root_span = match &tree.node {
            Node::Traversal { source, .. } => span(&source.range),
            _ => span(&tree.range),
        };
        let mut out = Vec::new();
        for st in steps {
            match st {
                Step::Attr(n, r) => out.push((Some(n.clone()), span(r))),
                Step::Index(x, r)
                    if matches!(x.node, Node::Number(_)) || x.as_literal_str().is_some() =>
                {
                    out.push((None, span(r)))
                }
                // An index computed from for_each is no part of the configuration address.
                Step::Index(..) if self.has(Feature::ImportForEach) => {}
                // Before for_each, `to` is a static reference (`hcl.AbsTraversalForExpr`).
                Step::Index(..) => {
                    self.err("Invalid expression", NOT_A_REFERENCE, at);
                    return Some(None);
                }
            }
        }
        Some(Some(Trav { root, root_span, steps: out, bad_keys: Vec::new() }))
    }

    pub(super) fn import(&mut self, b: &Block) {
        let s = if self.tofu { &TOFU_IMPORT } else { &TF_IMPORT };
        let mark = self.out.len();
        self.content(&b.body, self.missing(b), s, false, true);
        // From for_each (1.7) until identity (1.12), a body that does not fit the schema is
        // judged no further.
        let stops = self.has(Feature::ImportForEach) && !self.has(Feature::ImportIdentity);
        if self.tofu || stops && self.has_errors_since(mark) {
            return;
        }
        let mut in_module = false;
        if let Some(a) = b.attr("to") {
            let mark = self.out.len();
            let Some(t) = self.import_to(&a.expr) else { return };
            in_module = t.as_ref().is_some_and(|t| t.root == "module");
            let mode = match t.map(|t| (move_endpoint(self.files, &t), t)) {
                Some((Ok(None), t)) => {
                    let end = t.steps.last().map_or(t.root_span.end, |(_, s)| s.end);
                    self.err(
                        "Invalid address",
                        "A resource instance address is required here. The module path must be followed by a resource instance specification.",
                        Span { end, ..t.root_span },
                    );
                    None
                }
                Some((Ok(Some(mode)), _)) => Some(mode),
                Some((Err((summary, detail, at)), _)) => {
                    self.err(summary, detail, at);
                    None
                }
                None => None,
            };
            // Before for_each (1.6), `to` is any resource instance: neither a data source's
            // address nor one that is no reference is judged further.
            if mode != Some("managed")
                && self.has(Feature::ImportForEach)
                && (mode.is_some() || self.has_errors_since(mark))
            {
                self.err(
                    "Invalid import address",
                    "Only managed resources can be imported.",
                    a.span,
                );
            }
        }
        if let Some(a) = b.attr("provider") {
            if in_module {
                self.err(
                    "Invalid import provider argument",
                    "The provider argument can only be specified in import blocks that will generate configuration.\n\nUse the providers argument within the module block to configure providers for all resources within a module, including imported resources.",
                    a.span,
                );
            }
            let _ = self.provider_ref(&a.expr, "provider");
        }
        // Before identity, `id` is required by the schema.
        if !self.has(Feature::ImportIdentity) {
            return;
        }
        match (b.attr("id"), b.attr("identity")) {
            (None, None) => self.err(
                "Invalid import block",
                "At least one of 'id' or 'identity' must be specified.",
                self.decl(b),
            ),
            (Some(_), Some(_)) => self.err(
                "Invalid import block",
                "Only one of 'id' or 'identity' can be specified.",
                self.decl(b),
            ),
            _ => {}
        }
    }
}
