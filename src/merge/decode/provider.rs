//! Terraform's `decodeProviderBlock` (`provider.go`).

use crate::diag::Diagnostic;
use crate::terraform::Block;
use crate::terraform::release::Feature;

use super::decoder::Decoder;
use super::names::{BAD_IDENTIFIER, valid_identifier};
use super::schema::TF_PROVIDER;

impl Decoder<'_> {
    pub(super) fn provider(&mut self, b: &Block) {
        let inner = self.content(&b.body, self.missing(b), &TF_PROVIDER, false, false);
        if !self.provider_name(b.labels.first().map_or("", String::as_str), self.decl(b)) {
            return;
        }
        if let Some(a) = b.attr("alias")
            && let Some(alias) = a.expr.as_str()
            && !valid_identifier(&alias)
        {
            // Terraform gives this one no location.
            self.out.push(Diagnostic {
                subject: None,
                ..Diagnostic::error(
                    "Invalid provider configuration alias",
                    format!("An alias must be a valid name. {BAD_IDENTIFIER}"),
                    a.expr.span,
                )
            });
        }
        if let Some(a) = b.attr("version") {
            self.out.push(Diagnostic::warning(
                "Version constraints inside provider configuration blocks are deprecated",
                "Terraform 0.13 and earlier allowed provider version constraints inside the provider configuration block, but that is now deprecated and will be removed in a future version of Terraform. To silence this warning, move the provider version constraint into the required_providers block.",
                a.expr.span,
            ));
            self.version_constraint(a);
        }
        let reserved: &[&str] = if self.has(Feature::ProviderForEach) {
            &["count", "depends_on", "source"]
        } else {
            &["count", "depends_on", "for_each", "source"]
        };
        for name in reserved {
            if let Some(a) = b.attr(name) {
                self.err(
                    "Reserved argument name in provider block",
                    format!("The provider argument name \"{name}\" is reserved for use by {} in a future version.", self.engine_name()),
                    a.name_span,
                );
            }
        }
        self.meta_blocks(&inner, "provider", "provider-specific", "provider");
    }
}
