//! Decoders several block kinds share: meta-arguments (`count`, `for_each`,
//! `depends_on`, `provider`), provider names and version constraints, quoted-reference
//! shims and `decodeCheckRuleBlock`.

use crate::diag::Diagnostic;
use crate::terraform::{Attr, Block, Expr, Span};
use override_guard_hcl::ast;

use super::decoder::Decoder;
use super::names::{BAD_IDENTIFIER, provider_part, valid_constraint, valid_identifier};
use super::schema::CHECK_RULE;
use super::traversal::{
    QUOTED_REFERENCE, Trav, depends_on, native_quoted, string_traversal, variables,
};
use crate::terraform::release::Feature;

impl Decoder<'_> {
    /// `decodeVersionConstraint` of an argument (`required_version`, a provider's `version`).
    pub(super) fn version_constraint(&mut self, a: &Attr) {
        // An expression that did not parse was reported as such; its value is unknown to
        // Terraform, which then checks nothing more.
        let Some(value) = crate::merge::variables::parsed_value(&a.expr) else {
            return;
        };
        let v = match value {
            Ok(v) => v,
            Err(e) => return self.err(e.summary, e.detail, a.expr.span),
        };
        let text = match v {
            crate::cty::Value::Null(_) => return,
            crate::cty::Value::String(s) => s,
            crate::cty::Value::Bool(b) => b.to_string(),
            crate::cty::Value::Number(n) => n.to_text(),
            _ => {
                return self.err(
                    "Invalid version constraint",
                    format!("A string value is required for {}.", a.name),
                    a.expr.span,
                );
            }
        };
        if !valid_constraint(&text) {
            self.err(
                "Invalid version constraint",
                "This string does not use correct version constraint syntax.",
                a.expr.span,
            );
        }
    }

    /// `checkProviderNameNormalized`: `true` when the name is valid and normalized.
    pub(super) fn provider_name(&mut self, name: &str, at: Span) -> bool {
        match provider_part(name) {
            Err(e) => {
                self.err(
                    "Invalid provider local name",
                    format!("{name} is an invalid provider local name: {e}"),
                    at,
                );
                false
            }
            Ok(n) if n != name => {
                self.err(
                    "Invalid provider local name",
                    format!("Provider names must be normalized. Replace \"{name}\" with \"{n}\" to fix this error."),
                    at,
                );
                false
            }
            Ok(_) => true,
        }
    }

    /// The nested blocks of provider and module blocks: one escaping block `_`, the other
    /// block types reserved.
    pub(super) fn meta_blocks(
        &mut self,
        blocks: &[&Block],
        what: &str,
        escape: &str,
        reserved_in: &str,
    ) {
        let mut seen: Option<Span> = None;
        for b in blocks {
            if b.kind == "_" {
                match seen {
                    Some(first) => self.err(
                        "Duplicate escaping block",
                        format!(
                            "The special block type \"_\" can be used to force particular arguments to be interpreted as {escape} rather than as meta-arguments, but each {what} block can have only one such block. The first escaping block was at {}.",
                            self.range(first)
                        ),
                        self.decl(b),
                    ),
                    None => seen = Some(self.decl(b)),
                }
            } else {
                self.err(
                    format!("Reserved block type name in {reserved_in} block"),
                    format!(
                        "The block type name \"{}\" is reserved for use by {} in a future version.",
                        b.kind,
                        self.engine_name()
                    ),
                    b.type_span,
                );
            }
        }
    }

    /// `decodeCheckRuleBlock`: a precondition, postcondition, validation or assert block.
    /// Returns its condition and error message.
    pub(super) fn check_rule<'b>(&mut self, b: &'b Block) -> (Option<&'b Attr>, Option<&'b Attr>) {
        if self.over {
            self.err(
                format!("Can't override {} blocks", b.kind),
                format!("Override files cannot override \"{}\" blocks.", b.kind),
                self.decl(b),
            );
            return (None, None);
        }
        self.content(&b.body, self.missing(b), &CHECK_RULE, false, true);
        let cond = b.attr("condition");
        if let Some(c) = cond
            && variables(&c.expr).is_empty()
        {
            self.err(
                format!("Invalid {} expression", b.kind),
                "The condition expression must refer to at least one object from elsewhere in the configuration, or else its result would not be checking anything.",
                c.expr.span,
            );
        }
        (cond, b.attr("error_message"))
    }

    pub(super) fn count_and_for_each(&mut self, b: &Block, detail: &str) {
        let (Some(c), Some(f)) = (b.attr("count"), b.attr("for_each")) else { return };
        if !self.tofu {
            return self.err(
                "Invalid combination of \"count\" and \"for_each\"",
                detail,
                f.name_span,
            );
        }
        // OpenTofu (`validation.go: complainRngAndMsg`) reports the range from the first of
        // the two to the last, and names what is counted.
        let (verb, what) = match b.kind.as_str() {
            "module" => ("should", "module instances"),
            "data" => ("may", "data sources"),
            "ephemeral" => ("may", "ephemeral resources"),
            _ => ("may", "resources"),
        };
        let (first, last) = if c.name_span.start <= f.name_span.start {
            (c.name_span, f.name_span)
        } else {
            (f.name_span, c.name_span)
        };
        self.err(
            "Invalid combination of \"count\" and \"for_each\"",
            format!("The \"count\" and \"for_each\" meta-arguments are mutually-exclusive. Only one {verb} be used to be explicit about the number of {what} to be created."),
            Span::new(first.file, first.start, last.end),
        );
    }

    /// Returns the reference (`aws` or `aws.west`) when it is a valid one.
    pub(super) fn provider_ref(&mut self, e: &Expr, arg: &str) -> Option<String> {
        let quoted = native_quoted(e);
        // A quoted reference still works, with a warning.
        let t = match self.shim(e, false) {
            Some(t) => t,
            None if quoted => None,
            None => self.traversal(e),
        };
        let Some(t) = t.filter(|t| t.steps.len() < 2) else {
            let detail = if quoted && e.as_str().is_none() {
                "A provider configuration reference must not be given in quotes.".to_string()
            } else {
                format!(
                    "The {arg} argument requires a provider type name, optionally followed by a period and then a configuration alias."
                )
            };
            self.err("Invalid provider configuration reference", detail, e.span);
            return None;
        };
        if !self.provider_name(&t.root, t.root_span) {
            return None;
        }
        match t.steps.first() {
            Some((None, at)) => {
                let at = *at;
                self.err(
                    "Invalid provider configuration reference",
                    "Provider name must either stand alone or be followed by a period and then a configuration alias.",
                    at,
                );
                None
            }
            Some((Some(alias), _)) => Some(format!("{}.{alias}", t.root)),
            None => Some(t.root.clone()),
        }
    }

    pub(super) fn resource_names(&mut self, b: &Block, type_summary: &str, name_summary: &str) {
        for (i, summary) in [type_summary, name_summary].into_iter().enumerate() {
            if let Some(l) = b.labels.get(i)
                && !valid_identifier(l)
            {
                let at = b.label_spans.get(i).copied().unwrap_or(self.decl(b));
                self.err(summary, BAD_IDENTIFIER, at);
            }
        }
    }

    /// A JSON string read as an expression, as `unwrapJSONRefExpr` reads it: its text and
    /// tree (ranges from the string's quote, where Terraform places them). What is no
    /// string, or does not parse, is reported (`None`).
    pub(super) fn json_string_expr(&mut self, e: &Expr) -> Option<(String, ast::Expr)> {
        let Ok(text) = serde_json::from_str::<String>(self.files.text(e.span)) else {
            self.err(
                "Invalid reference expression",
                "A single reference string is required.",
                e.span,
            );
            return None;
        };
        let (tree, errors) = override_guard_hcl::parse_expression(&text);
        let (file, o) = (e.span.file, e.span.start);
        if !errors.is_empty() {
            for x in errors {
                self.err(x.summary, x.detail, Span::new(file, o + x.range.start, o + x.range.end));
            }
            return None;
        }
        Some((text, tree))
    }

    /// `shimTraversalInString`: a reference (or keyword) written in quotes, Terraform 0.11's
    /// form, still works in native syntax: the text is read as a reference (its errors
    /// first, what was read before one kept), with a deprecation warning. `None` when the
    /// expression is no quoted string (in JSON quotes are the only way).
    pub(super) fn shim(&mut self, e: &Expr, keyword: bool) -> Option<Option<Trav>> {
        let text = e.as_str().filter(|_| native_quoted(e))?;
        let (t, errors) = string_traversal(&text, e.span.file, e.span.start + 1);
        self.out.extend(errors);
        let (summary, detail) = if keyword {
            (
                "Quoted keywords are deprecated",
                "In this context, keywords are expected literally rather than in quotes. Terraform 0.11 and earlier required quotes, but quoted keywords are now deprecated and will be removed in a future version of Terraform. Remove the quotes surrounding this keyword to silence this warning.",
            )
        } else {
            ("Quoted references are deprecated", QUOTED_REFERENCE)
        };
        self.out.push(Diagnostic::warning(summary, detail, e.span));
        Some(t)
    }

    /// `DecodeDependsOn` of a block's `depends_on`.
    pub(super) fn depends_on(&mut self, b: &Block) {
        if let Some(a) = b.attr("depends_on") {
            self.out.extend(depends_on(self.files, a, self.has(Feature::Actions)).1);
        }
    }
}

pub(super) const COUNT_FOR_EACH: &str = "The \"count\" and \"for_each\" meta-arguments are mutually-exclusive, only one should be used to be explicit about the number of resources to be created.";
