//! Terraform's `decodeProvisionerBlock` and `connection` blocks (`provisioner.go`).

use crate::terraform::{Block, Body, Expr, Span};

use super::decoder::Decoder;
use super::schema::PROVISIONER;
use super::traversal::variables;

impl Decoder<'_> {
    /// `decodeProvisionerBlock`: `Some(true)` for a destroy-time provisioner, `None` for
    /// one Terraform drops.
    pub(super) fn provisioner(&mut self, b: &Block) -> Option<bool> {
        let inner = self.content(&b.body, self.missing(b), &PROVISIONER, false, false);
        let ty = b.labels.first().map_or("", String::as_str);
        if matches!(ty, "chef" | "habitat" | "puppet" | "salt-masterless") {
            let at = b.label_spans.first().copied().unwrap_or(self.decl(b));
            self.err(
                format!("The \"{ty}\" provisioner has been removed"),
                format!("The \"{ty}\" provisioner was deprecated in Terraform 0.13.4 has been removed from Terraform. Visit https://learn.hashicorp.com/collections/terraform/provision for alternatives to using provisioners that are a better fit for the Terraform workflow."),
                at,
            );
            return None;
        }
        let mut destroy = false;
        if let Some(a) = b.attr("when") {
            match self.keyword(&a.expr).as_deref() {
                Some("create") => {}
                Some("destroy") => destroy = true,
                _ => self.err(
                    "Invalid \"when\" keyword",
                    "The \"when\" argument requires one of the following keywords: create or destroy.",
                    a.expr.span,
                ),
            }
        }
        if destroy {
            self.only_self_refs(&b.body, &["when", "on_failure"]);
        }
        if let Some(a) = b.attr("on_failure") {
            match self.keyword(&a.expr).as_deref() {
                Some("continue" | "fail") => {}
                _ => self.err(
                    "Invalid \"on_failure\" keyword",
                    "The \"on_failure\" argument requires one of the following keywords: continue or fail.",
                    a.expr.span,
                ),
            }
        }
        let (mut connection, mut escape): (Option<Span>, Option<Span>) = (None, None);
        for c in inner {
            match c.kind.as_str() {
                "_" => {
                    if self.again(escape, c, "Duplicate escaping block", |at| format!("The special block type \"_\" can be used to force particular arguments to be interpreted as provisioner-typpe-specific rather than as meta-arguments, but each provisioner block can have only one such block. The first escaping block was at {at}.")) {
                        continue;
                    }
                    escape = Some(self.decl(c));
                }
                "connection" => {
                    if self.again(connection, c, "Duplicate connection block", |at| {
                        format!("This provisioner already has a connection block at {at}.")
                    }) {
                        continue;
                    }
                    connection = Some(self.decl(c));
                    if destroy {
                        self.only_self_refs(&c.body, &[]);
                    }
                }
                _ => self.err(
                    "Reserved block type name in provisioner block",
                    format!(
                        "The block type name \"{}\" is reserved for use by {} in a future version.",
                        c.kind,
                        self.engine_name()
                    ),
                    c.type_span,
                ),
            }
        }
        Some(destroy)
    }

    /// A keyword argument (`when`, `on_failure`): a bare name, or (with a warning) a quoted one.
    pub(super) fn keyword(&mut self, e: &Expr) -> Option<String> {
        let t = match self.shim(e, true) {
            Some(t) => t?,
            None => self.traversal(e)?,
        };
        t.steps.is_empty().then_some(t.root)
    }

    /// `onlySelfRefs`: what a destroy-time provisioner (or its connection) may refer to.
    pub(super) fn only_self_refs(&mut self, body: &Body, hidden: &[&str]) {
        for a in body.attrs().filter(|a| !hidden.contains(&a.name.as_str())) {
            for t in variables(&a.expr) {
                let first = t.steps.first().and_then(|(n, _)| n.as_deref());
                let valid = match t.root.as_str() {
                    "self" | "path" | "terraform" => true,
                    "count" => t.steps.len() == 1 && first == Some("index"),
                    "each" => t.steps.len() == 1 && first == Some("key"),
                    _ => false,
                };
                if !valid {
                    self.err(
                        "Invalid reference from destroy provisioner",
                        "Destroy-time provisioners and their connection configurations may only reference attributes of the related resource, via 'self', 'count.index', or 'each.key'.\n\nReferences to other resources during the destroy phase can cause dependency cycles and interact poorly with create_before_destroy.",
                        a.expr.span,
                    );
                }
            }
        }
    }
}
