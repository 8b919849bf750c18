//! Terraform's `decodeResourceBlock`, `decodeDataBlock` and `decodeEphemeralBlock`
//! (`resource.go`).

use crate::terraform::{Block, Span};

use super::common::COUNT_FOR_EACH;
use super::decoder::Decoder;
use super::schema::{DATA, RESOURCE};

impl Decoder<'_> {
    pub(super) fn resource(&mut self, b: &Block) {
        let inner = self.content(&b.body, self.missing(b), &RESOURCE, false, false);
        self.resource_names(b, "Invalid resource type name", "Invalid resource name");
        if !self.tofu {
            self.count_and_for_each(b, COUNT_FOR_EACH);
        }
        if let Some(p) = b.attr("provider") {
            let _ = self.provider_ref(&p.expr, "provider");
        }
        self.depends_on(b);
        let (mut lifecycle, mut connection, mut escape): (
            Option<Span>,
            Option<&Block>,
            Option<Span>,
        ) = (None, None, None);
        let mut destroy_provisioner = false;
        for c in inner {
            match c.kind.as_str() {
                "lifecycle" => {
                    if self.again(lifecycle, c, "Duplicate lifecycle block", |at| {
                        format!("This resource already has a lifecycle block at {at}.")
                    }) {
                        continue;
                    }
                    lifecycle = Some(self.decl(c));
                    self.lifecycle(b, c, "resource");
                }
                "connection" => {
                    if self.again(
                        connection.map(|f| self.decl(f)),
                        c,
                        "Duplicate connection block",
                        |at| format!("This resource already has a connection block at {at}."),
                    ) {
                        continue;
                    }
                    connection = Some(c);
                }
                "provisioner" => {
                    if self.provisioner(c) == Some(true) {
                        destroy_provisioner = true;
                    }
                }
                "_" => {
                    if self.again(escape, c, "Duplicate escaping block", |at| format!("The special block type \"_\" can be used to force particular arguments to be interpreted as resource-type-specific rather than as meta-arguments, but each resource block can have only one such block. The first escaping block was at {at}.")) {
                        continue;
                    }
                    escape = Some(self.decl(c));
                }
                _ => self.err(
                    "Reserved block type name in resource block",
                    format!(
                        "The block type name \"{}\" is reserved for use by {} in a future version.",
                        c.kind,
                        self.engine_name()
                    ),
                    c.type_span,
                ),
            }
        }
        if self.tofu {
            self.count_and_for_each(b, COUNT_FOR_EACH);
        }
        if let Some(conn) = connection
            && destroy_provisioner
        {
            self.only_self_refs(&conn.body, &[]);
        }
    }

    /// A data block, at the top level or (`nested`) inside a check block. Returns whether
    /// decoding it reported errors.
    pub(super) fn data(&mut self, b: &Block, nested: bool) -> bool {
        let mark = self.out.len();
        let inner = self.content(&b.body, self.missing(b), &DATA, false, false);
        self.resource_names(b, "Invalid data source name", "Invalid data resource name");
        if nested {
            for name in ["count", "for_each"] {
                if let Some(a) = b.attr(name) {
                    self.err(
                        format!("Invalid \"{name}\" attribute"),
                        "The \"count\" and \"for_each\" meta-arguments are not supported within nested data blocks.",
                        a.name_span,
                    );
                }
            }
        } else {
            if !self.tofu {
                self.count_and_for_each(b, COUNT_FOR_EACH);
            }
        }
        if let Some(p) = b.attr("provider") {
            let _ = self.provider_ref(&p.expr, "provider");
        }
        self.depends_on(b);
        self.data_like_blocks(b, &inner, "data", nested);
        if self.tofu && !nested {
            self.count_and_for_each(b, COUNT_FOR_EACH);
        }
        self.has_errors_since(mark)
    }

    pub(super) fn ephemeral(&mut self, b: &Block) {
        let inner = self.content(&b.body, self.missing(b), &DATA, false, false);
        self.depends_on(b);
        self.resource_names(
            b,
            "Invalid ephemeral resource type",
            "Invalid ephemeral resource name",
        );
        if !self.tofu {
            self.count_and_for_each(b, COUNT_FOR_EACH);
        }
        if let Some(p) = b.attr("provider") {
            let _ = self.provider_ref(&p.expr, "provider");
        }
        self.data_like_blocks(b, &inner, "ephemeral", false);
        if self.tofu {
            self.count_and_for_each(b, COUNT_FOR_EACH);
        }
    }

    /// The nested blocks of data and ephemeral blocks.
    fn data_like_blocks(&mut self, b: &Block, inner: &[&Block], kind: &str, nested: bool) {
        let (mut escape, mut lifecycle): (Option<Span>, Option<Span>) = (None, None);
        for c in inner {
            match c.kind.as_str() {
                "_" => {
                    if self.again(escape, c, "Duplicate escaping block", |at| format!("The special block type \"_\" can be used to force particular arguments to be interpreted as resource-type-specific rather than as meta-arguments, but each data block can have only one such block. The first escaping block was at {at}.")) {
                        continue;
                    }
                    escape = Some(self.decl(c));
                }
                "lifecycle" => {
                    if nested {
                        self.err(
                            "Invalid lifecycle block",
                            "Nested data blocks do not support \"lifecycle\" blocks as the lifecycle is managed by the containing block.",
                            self.decl(c),
                        );
                    }
                    if self.again(lifecycle, c, "Duplicate lifecycle block", |at| {
                        format!("This resource already has a lifecycle block at {at}.")
                    }) {
                        continue;
                    }
                    lifecycle = Some(self.decl(c));
                    self.lifecycle(b, c, kind);
                }
                _ => self.err(
                    format!("Reserved block type name in {kind} block"),
                    format!(
                        "The block type name \"{}\" is reserved for use by {} in a future version.",
                        c.kind,
                        self.engine_name()
                    ),
                    c.type_span,
                ),
            }
        }
    }
}
