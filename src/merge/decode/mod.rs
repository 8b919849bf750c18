//! The checks Terraform's loader makes while it decodes each file, before any merge
//! (`parser_config.go: parseConfigFile` and the `decode*Block` functions it calls): HCL's
//! body decoding against each block's fixed schema (`hclsyntax.Body.Content` /
//! `PartialContent`, JSON bodies likewise, with HCL's did-you-mean suggestions), names,
//! reserved names, meta-argument combinations, version constraints and the rules of
//! nested blocks. Pure: one parsed file in, its diagnostics out, in Terraform's order.
//! Bodies whose schema only a provider knows (resource and provider configuration) are
//! decoded partially, as Terraform does at this stage: their own arguments are not judged.
//!
//! One file per decoder family; each imports only `decoder` (the state and HCL's body
//! decoding), `common` and the plain readers below them (`schema`, `names`, `traversal`,
//! `endpoint`). This file holds the entry points and `parseConfigFile`'s dispatch.

mod action;
mod check;
mod common;
mod decoder;
mod endpoint;
mod import;
mod lifecycle;
mod module;
mod moved;
mod named_values;
mod names;
mod provider;
mod provisioner;
mod resource;
mod schema;
mod terraform;
mod traversal;

use names::provider_block_kept;
pub(crate) use names::{provider_part, provider_source};
pub(crate) use traversal::{depends_on, static_resource_instance};

use crate::diag::Diagnostic;
use crate::terraform::discover::Engine;
use crate::terraform::release::{Feature, Release};
use crate::terraform::schema::Kind;
use crate::terraform::{Block, Body, Files, ParsedFile, Span};
use decoder::Decoder;
use schema::{TF_TERRAFORM, TOFU_TERRAFORM};

/// The diagnostics Terraform (or OpenTofu) reports while decoding one file.
pub(crate) fn decode_file(
    files: &Files,
    f: &ParsedFile,
    release: Release,
    is_override: bool,
) -> Vec<Diagnostic> {
    let mut d = Decoder::new(files, f.file, release, is_override);
    d.clean = crate::merge::variables::parsed_cleanly(f);
    d.file(&f.body);
    d.out
}

/// Does the engine's `parseConfigFile` keep this top-level block of a file for the merge?
/// HCL's `Content` drops a block of a type the engine's file schema lacks (`action` under
/// OpenTofu, `language` under Terraform) or with the wrong number of labels, and
/// `decodeProviderBlock` returns nothing for a provider whose name the engine refuses. The
/// merge and the rules ask this one question, so that nothing the engine never decodes is
/// merged, or reported as a change.
/// A release whose schema has a type but decodes it only with experiments (`action` in
/// Terraform 1.13) keeps none.
pub(crate) fn kept(release: Release, b: &Block) -> bool {
    let Some(k) = Kind::named(&b.kind) else { return false };
    k.in_schema(release)
        && k.decoded.is_none_or(|(f, _)| release.has(f))
        && b.labels.len() == k.labels.len()
        && (b.kind != "provider" || provider_block_kept(b))
}

/// [`kept`] for a block inside a kept `terraform` block: a type of the engine's
/// `terraformBlockSchema` with its labels, never `state_store` (a release build has no
/// experiments, and Terraform reports it and keeps nothing), and a `required_providers`
/// block only without a nested block: that fails `JustAttributes`, which
/// `decodeRequiredProvidersBlock` reports, and then the whole block is dropped (even an
/// entry before the nested block overrides nothing). A syntax error can nest the blocks
/// that follow it in the file inside `required_providers`, as HCL's recovery reads it.
pub(crate) fn kept_in_terraform(release: Release, b: &Block) -> bool {
    let schema = if release.engine == Engine::OpenTofu { &TOFU_TERRAFORM } else { &TF_TERRAFORM };
    let Some((_, labels)) = schema.blocks.iter().find(|(t, _)| *t == b.kind) else {
        return false;
    };
    b.labels.len() == labels.len()
        && b.kind != "state_store"
        && (b.kind != "required_providers" || b.body.blocks().next().is_none())
}

/// Does a data block nested in a check decode without errors? Terraform keeps only such a
/// block (`decodeCheckBlock`), so only it can be a duplicate.
pub(crate) fn nested_data_decodes(files: &Files, release: Release, d: &Block) -> bool {
    !Decoder::new(files, d.span.file, release, false).data(d, true)
}

impl Decoder<'_> {
    fn file(&mut self, body: &Body) {
        // sniffCoreVersionRequirements
        for t in self.sniff_terraform(body) {
            if let Some(a) = t.attr("required_version") {
                self.version_constraint(a);
            }
        }
        // sniffActiveExperiments
        for t in self.sniff_terraform(body) {
            if let Some(a) = t.attr("language") {
                self.language(a);
            }
            if let Some(a) = t.attr("experiments")
                && !self.tofu
            {
                self.err(
                    "Module uses experimental features",
                    "Experimental features are intended only for gathering early feedback on new language designs, and so are available only in alpha releases of Terraform.",
                    a.name_span,
                );
            }
        }
        let top = schema::top(self.release.engine);
        // JSON's unknown top-level properties are reported as the file is read.
        let zero = Span::default();
        let blocks = self.content(body, zero, top, true, !self.json);
        if self.json {
            self.json_unknown_blocks(body, top);
        }
        for b in blocks {
            match b.kind.as_str() {
                "terraform" => self.terraform(b),
                "required_providers" => self.err(
                    "Invalid required_providers block",
                    "A \"required_providers\" block must be nested inside a \"terraform\" block.",
                    b.type_span,
                ),
                "provider" => self.provider(b),
                "variable" => self.variable(b),
                "locals" => self.locals(b),
                "output" => self.output(b),
                "module" => self.module(b),
                "resource" => self.resource(b),
                "data" => {
                    self.data(b, false);
                }
                "ephemeral" => self.ephemeral(b),
                "moved" => self.moved(b),
                "removed" => self.removed(b),
                "import" => self.import(b),
                "check" => self.check(b),
                "action" if self.has(Feature::Actions) => self.action(b),
                _ => {}
            }
        }
    }
}

impl Decoder<'_> {
    /// A top-level property of a JSON file naming a block type the release does not have
    /// yet: the reader took it for blocks, but this release's schema has no such name.
    fn json_unknown_blocks(&mut self, body: &Body, top: &schema::Schema) {
        let known: Vec<&str> = top.at(self.release).blocks.iter().map(|(t, _)| *t).collect();
        let mut seen: Vec<Span> = Vec::new();
        for b in body.blocks() {
            if known.contains(&b.kind.as_str()) || seen.contains(&b.type_span) {
                continue;
            }
            seen.push(b.type_span);
            let hint = names::name_suggestion(&b.kind, &known)
                .map(|c| format!(" Did you mean \"{c}\"?"))
                .unwrap_or_default();
            self.err(
                "Extraneous JSON object property",
                format!("No argument or block type is named \"{}\".{hint}", b.kind),
                b.type_span,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diags(text: &str, over: bool) -> Vec<(String, String)> {
        let (files, f) = decoder::one_file(text);
        decode_file(&files, &f, Release::newest(Engine::Terraform), over)
            .into_iter()
            .map(|d| (d.summary, d.detail))
            .collect()
    }

    #[test]
    fn unsupported_names_get_hcl_suggestions() {
        let d = diags("variable \"a\" {\n  tpye = string\n  validation = 1\n}\n", false);
        assert_eq!(
            d[0].1,
            "An argument named \"tpye\" is not expected here. Did you mean \"type\"?"
        );
        assert_eq!(
            d[1].1,
            "An argument named \"validation\" is not expected here. Did you mean to define a block of type \"validation\"?"
        );
        let d = diags("resourse \"a\" \"b\" {}\n", false);
        assert_eq!(
            d[0].1,
            "Blocks of type \"resourse\" are not expected here. Did you mean \"resource\"?"
        );
    }

    /// Only Terraform knows action blocks: OpenTofu takes `action.x.y` in depends_on as
    /// any other reference, and its provider sources are not Terraform's.
    #[test]
    fn terraform_only_checks_stay_with_terraform() {
        let text = "resource \"a\" \"b\" {\n  depends_on = [action.x.y]\n}\nterraform {\n  required_providers {\n    c = {\n      source = \"x/terraform-provider-c\"\n    }\n  }\n}\n";
        let summaries = |engine| {
            let m = crate::merge::load_texts("", &[("main.tf", text)], Some(engine));
            m.diagnostics.iter().map(|d| d.summary.clone()).collect::<Vec<_>>()
        };
        assert_eq!(
            summaries(Engine::Terraform),
            ["Invalid depends_on Action Reference", "Invalid provider type"]
        );
        assert!(summaries(Engine::OpenTofu).is_empty());
    }
}
