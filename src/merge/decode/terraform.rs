//! Terraform's decoding of `terraform` blocks (`parser_config.go`): the sniffing passes
//! for `required_version`, `language` and `experiments`, then the block itself with
//! `decodeRequiredProvidersBlock` and its `backend`, `cloud` and `provider_meta` blocks.

use crate::terraform::{Attr, Block, Body, Expr, ObjKey, Span};

use super::decoder::Decoder;
use super::names::{provider_part, provider_source, valid_constraint, valid_identifier};
use super::schema::{NONE, TF_TERRAFORM, TOFU_TERRAFORM};
use super::traversal::NOT_A_REFERENCE;

impl Decoder<'_> {
    /// The top-level blocks of a type, after the label check (the sniffing passes decode
    /// `terraform` blocks on their own before the whole file is decoded).
    pub(super) fn sniff_terraform<'b>(&mut self, body: &'b Body) -> Vec<&'b Block> {
        body.blocks_of("terraform").filter(|t| self.labels_ok(t, NONE)).collect()
    }

    /// `terraform { language = … }` (Terraform only knows the edition TF2021).
    pub(super) fn language(&mut self, a: &Attr) {
        if self.tofu {
            return;
        }
        match a.expr.as_keyword() {
            Some("TF2021") => {}
            Some(kw) if valid_identifier(kw) => {
                let rel = if kw > "TF2021" { "newer" } else { "different" };
                self.err(
                    "Unsupported language edition",
                    format!("Terraform v{} only supports language edition TF2021. This module requires a {rel} version of Terraform CLI.", self.release.version),
                    a.expr.span,
                );
            }
            _ => self.err(
                "Invalid language edition",
                format!("The language argument expects a bare language edition keyword. Terraform {} supports only language edition TF2021, which is the default.", self.release.version),
                a.expr.span,
            ),
        }
    }

    pub(super) fn terraform(&mut self, t: &Block) {
        let s = if self.tofu { &TOFU_TERRAFORM } else { &TF_TERRAFORM };
        for b in self.content(&t.body, self.missing(t), s, false, true) {
            match b.kind.as_str() {
                "state_store" => self.err(
                    "Unsupported block type",
                    "Blocks of type \"state_store\" are not expected here.",
                    b.type_span,
                ),
                "required_providers" => self.required_providers(b),
                "provider_meta" if !self.just_attributes(&b.body) => {
                    // `decodeProviderMetaBlock`: the values must be constants (JSON's
                    // strings are text without variables, so all of JSON's are).
                    let json = self.json;
                    for a in b.body.attrs().filter(|_| !json) {
                        if let Some(Err(e)) = crate::merge::variables::parsed_value(&a.expr) {
                            self.eval_error(e, &a.expr);
                        }
                    }
                    let name = b.labels.first().map_or("", String::as_str);
                    self.provider_name(name, self.decl(b));
                }
                _ => {}
            }
        }
    }

    pub(super) fn required_providers(&mut self, b: &Block) {
        if self.just_attributes(&b.body) {
            return;
        }
        let mark = self.out.len();
        for a in b.body.attrs() {
            let value = crate::merge::variables::value_of(&a.expr).ok();
            if value.as_ref().is_some_and(|v| v.ty().is_primitive()) {
                self.version_constraint(a);
                if let Err(e) = provider_part(&a.name) {
                    self.err("Invalid provider name", e, a.expr.span);
                }
                continue;
            }
            if !self.provider_name(&a.name, a.expr.span) {
                continue;
            }
            let Some(entries) = a.expr.as_object() else {
                self.err(
                    "Invalid required_providers object",
                    "required_providers entries must be strings or objects.",
                    a.expr.span,
                );
                continue;
            };
            for (k, v) in entries {
                let ObjKey::Name(key) = k else { continue };
                match key.as_str() {
                    "version" => match v.as_str() {
                        None => self.err(
                            "Invalid version constraint",
                            "Version must be specified as a string.",
                            v.span,
                        ),
                        Some(s) if !valid_constraint(&s) => self.err(
                            "Invalid version constraint",
                            "This string does not use correct version constraint syntax.",
                            v.span,
                        ),
                        Some(_) => {}
                    },
                    "source" => match v.as_str() {
                        None => self.err(
                            "Invalid source",
                            "Source must be specified as a string.",
                            v.span,
                        ),
                        Some(src) => {
                            // (OpenTofu's registry and wording differ.)
                            if let Err((summary, detail)) = provider_source(&src)
                                && !self.tofu
                            {
                                self.err(summary, detail, v.span);
                            }
                        }
                    },
                    "configuration_aliases" => {
                        for e in self.expr_list(v) {
                            let Some(t) = self.traversal(e) else {
                                self.err("Invalid expression", NOT_A_REFERENCE, e.span);
                                continue;
                            };
                            // `ParseProviderConfigCompact`: a name, then an alias (what
                            // follows the alias is not looked at).
                            if let Some((None, _)) = t.steps.first() {
                                self.err(
                                    "Invalid configuration_aliases value",
                                    "Configuration aliases can only contain references to local provider configuration names in the format of provider.alias",
                                    v.span,
                                );
                                continue;
                            }
                            if t.root != a.name {
                                self.err(
                                    "Invalid configuration_aliases value",
                                    format!(
                                        "Configuration aliases must be prefixed with the provider name. Expected \"{}\", but found \"{}\".",
                                        a.name, t.root
                                    ),
                                    v.span,
                                );
                            }
                        }
                    }
                    _ => {
                        let at = self.key_span(&a.expr, key, v.span);
                        self.err(
                            "Invalid required_providers object",
                            "required_providers objects can only contain \"version\", \"source\" and \"configuration_aliases\" attributes. To configure a provider, use a \"provider\" block.",
                            at,
                        );
                        break;
                    }
                }
            }
            if self.has_errors_since(mark) {
                continue;
            }
        }
    }

    /// Where an object key is written: the last occurrence of its name before its value.
    fn key_span(&self, obj: &Expr, key: &str, value: Span) -> Span {
        let text = self.files.text(Span::new(obj.span.file, obj.span.start, value.start));
        match text.rfind(key) {
            Some(i) => {
                // A quoted key starts at its quote.
                let start = obj.span.start + i;
                let quoted = i > 0 && text.as_bytes()[i - 1] == b'"';
                let (s, e) = if quoted {
                    (start - 1, start + key.len() + 1)
                } else {
                    (start, start + key.len())
                };
                Span::new(obj.span.file, s, e)
            }
            None => value,
        }
    }
}
