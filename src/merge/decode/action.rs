//! Terraform's `decodeActionBlock` (`action.go`).

use crate::terraform::{Block, Item, Span};

use super::decoder::Decoder;
use super::schema::ACTION;

impl Decoder<'_> {
    pub(super) fn action(&mut self, b: &Block) {
        self.resource_names(b, "Invalid action type name", "Invalid action name");
        let inner = self.content(&b.body, self.missing(b), &ACTION, false, true);
        self.count_and_for_each(
            b,
            "The \"count\" and \"for_each\" meta-arguments are mutually-exclusive, only one should be used.",
        );
        let mut config = false;
        for c in inner {
            if config {
                self.err(
                    "Duplicate config block",
                    "An action must contain only one nested \"config\" block.",
                    self.decl(c),
                );
                return;
            }
            config = true;
        }
        // In JSON the config blocks are a property's value: an array of several is more
        // than one (reported at the array's bracket, their DefRange).
        for item in b.body.items.iter() {
            if let Item::Json(j) = item
                && j.name == "config"
                && matches!(&j.value.value, crate::terraform::JsonValue::Array(v) if v.len() > 1)
            {
                let at = Span::new(j.value.span.file, j.value.span.start, j.value.span.start + 1);
                self.err(
                    "Duplicate config block",
                    "An action must contain only one nested \"config\" block.",
                    at,
                );
                return;
            }
        }
        if let Some(p) = b.attr("provider") {
            let _ = self.provider_ref(&p.expr, "provider");
        }
    }
}
