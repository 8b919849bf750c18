//! Terraform's `decodeMovedBlock` (`moved.go`) and `decodeRemovedBlock` (`removed.go`).

use crate::terraform::{Block, Span};

use super::decoder::Decoder;
use super::endpoint::{RemoveTarget, move_endpoint, remove_target};
use super::schema::{MOVED, REMOVED_LIFECYCLE, TF_REMOVED, TOFU_REMOVED};
use super::traversal::NOT_A_REFERENCE;

impl Decoder<'_> {
    /// `decodeMovedBlock`: both addresses are references (`addrs.ParseMoveEndpoint`), and
    /// both name modules or both resources.
    pub(super) fn moved(&mut self, b: &Block) {
        let mark = self.out.len();
        self.content(&b.body, self.missing(b), &MOVED, false, true);
        let mut kinds = Vec::new();
        for a in ["from", "to"].iter().filter_map(|n| b.attr(n)) {
            match self.traversal(&a.expr) {
                None => {
                    if self.unbroken(&a.expr) {
                        self.err("Invalid expression", NOT_A_REFERENCE, a.expr.span);
                    }
                }
                Some(t) if self.tofu => kinds.push(t.root == "module"),
                Some(t) => match move_endpoint(self.files, &t) {
                    Ok(kind) => kinds.push(kind.is_none()),
                    Err((summary, detail, at)) => self.err(summary, detail, at),
                },
            }
        }
        if !self.tofu && !self.has_errors_since(mark) && kinds.len() == 2 && kinds[0] != kinds[1] {
            self.err(
                "Invalid \"moved\" addresses",
                "The \"from\" and \"to\" addresses must either both refer to resources or both refer to modules.",
                self.decl(b),
            );
        }
    }

    pub(super) fn removed(&mut self, b: &Block) {
        let s = if self.tofu { &TOFU_REMOVED } else { &TF_REMOVED };
        let inner = self.content(&b.body, self.missing(b), s, false, true);
        let target = b.attr("from").map(|a| (a, self.traversal(&a.expr)));
        let managed = match target {
            // OpenTofu reads the address its own way.
            Some((_, Some(t))) if self.tofu => {
                let mut names: Vec<&str> = vec![t.root.as_str()];
                names.extend(t.steps.iter().filter_map(|(n, _)| n.as_deref()));
                while names.first() == Some(&"module") && names.len() >= 2 {
                    names.drain(..2);
                }
                names.len() == 2 && !matches!(names[0], "data" | "ephemeral" | "module")
            }
            Some((a, None)) => {
                if self.unbroken(&a.expr) {
                    self.err("Invalid expression", NOT_A_REFERENCE, a.expr.span);
                }
                false
            }
            Some((_, Some(t))) => match remove_target(&t) {
                Ok(RemoveTarget::Module) => false,
                Ok(RemoveTarget::Resource { data: false }) => true,
                Ok(RemoveTarget::Resource { data: true }) => {
                    let end = t.steps.last().map_or(t.root_span.end, |(_, s)| s.end);
                    self.err(
                        "Data source address not allowed",
                        "Data sources are never destroyed, so they are not valid targets of removed blocks. To remove the data source from state, remove the data source block from configuration.",
                        Span { end, ..t.root_span },
                    );
                    false
                }
                Err((summary, detail, at)) => {
                    self.err(summary, detail, at);
                    false
                }
            },
            None => false,
        };
        // Connections and provisioners need a managed resource to act on.
        let mut connection: Option<Span> = None;
        for c in inner {
            match c.kind.as_str() {
                "lifecycle" => {
                    self.content(&c.body, self.missing(c), &REMOVED_LIFECYCLE, false, true);
                    if !self.tofu {
                        self.static_bools(&c.body, &["destroy"]);
                    }
                }
                "connection" => {
                    if !managed {
                        self.err(
                            "Invalid connection block",
                            "Provisioner connection configuration is valid only when a removed block targets a managed resource.",
                            self.decl(c),
                        );
                        continue;
                    }
                    if self.again(connection, c, "Duplicate connection block", |at| {
                        format!("This \"removed\" block already has a connection block at {at}.")
                    }) {
                        continue;
                    }
                    connection = Some(self.decl(c));
                }
                _ => {
                    if !managed {
                        self.err(
                            "Invalid provisioner block",
                            "Provisioners are valid only when a removed block targets a managed resource.",
                            self.decl(c),
                        );
                        continue;
                    }
                    if self.provisioner(c) == Some(false) {
                        self.err(
                            "Invalid provisioner block",
                            "Only destroy-time provisioners are valid in \"removed\" blocks. To declare a destroy-time provisioner, use:\n    when = destroy",
                            self.decl(c),
                        );
                    }
                }
            }
        }
    }
}
