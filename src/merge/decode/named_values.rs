//! Terraform's `decodeVariableBlock`, `decodeLocalsBlock` and `decodeOutputBlock`
//! (`named_values.go`).

use crate::cty;
use crate::terraform::release::Feature;
use crate::terraform::{Attr, Block, Span};

use super::decoder::Decoder;
use super::names::{BAD_IDENTIFIER, valid_identifier};
use super::schema::{TF_OUTPUT, TF_VARIABLE, TOFU_OUTPUT, TOFU_VARIABLE, module_schema};
use super::traversal::variables;

impl Decoder<'_> {
    pub(super) fn variable(&mut self, b: &Block) {
        let s = if self.tofu { &TOFU_VARIABLE } else { &TF_VARIABLE };
        let inner = self.content(&b.body, self.missing(b), s, false, true);
        let name = b.labels.first().cloned().unwrap_or_default();
        let name = &name;
        let at = b.label_spans.first().copied().unwrap_or(self.decl(b));
        if !valid_identifier(name) {
            self.err("Invalid variable name", BAD_IDENTIFIER, at);
        }
        let module = module_schema(self.tofu);
        let reserved =
            module.attrs.iter().map(|(n, _)| *n).chain(module.blocks.iter().map(|(t, _)| *t));
        let release = self.release;
        for r in reserved.filter(|r| r == name && module.admits(r, release)) {
            self.err(
                "Invalid variable name",
                format!("The variable name \"{r}\" is reserved due to its special meaning inside module blocks."),
                at,
            );
        }
        self.static_string(&b.body, "description");
        let flag = |n: &str| {
            b.attr(n).and_then(|a| crate::merge::variables::static_flag(&a.expr)) == Some(true)
        };
        // OpenTofu has no such rule (its const variables feed early evaluation only).
        if flag("const") && !self.tofu && self.has(Feature::ConstVariables) {
            if flag("sensitive") {
                self.err(
                    "Const variable cannot be sensitive",
                    "A variable that is marked as \"const\" cannot also be marked as \"sensitive\".",
                    self.decl(b),
                );
            }
            if flag("ephemeral") {
                self.err(
                    "Const variable cannot be ephemeral",
                    "A variable that is marked as \"const\" cannot also be marked as \"ephemeral\".",
                    self.decl(b),
                );
            }
        }
        let bools = ["sensitive", "ephemeral", "const", "nullable"];
        self.static_bools(&b.body, &bools.map(|n| if s.admits(n, self.release) { n } else { "" }));
        let mut found = crate::merge::variables::variable_errors(b, self.over, self.clean);
        // A type with a syntax error is no type where HCL stopped reading it (asked only
        // of a type something was found wrong with: it parses the type again).
        if let Some(t) = b.attr("type")
            && found.iter().any(|d| d.subject == Some(t.expr.span))
            && let Some(at) = self.broken_at(&t.expr)
        {
            for d in found.iter_mut().filter(|d| d.subject == Some(t.expr.span)) {
                d.subject = Some(at);
            }
        }
        self.out.extend(found);
        if !self.tofu && self.has(Feature::Deprecation) {
            self.static_string(&b.body, "deprecated");
        }
        for v in inner {
            let (cond, msg) = self.check_rule(v);
            if !self.has(Feature::ValidationReferences) {
                self.own_references_only(name, cond, "condition");
            }
            if let Some(cond) = cond {
                let refers = variables(&cond.expr).iter().any(|t| {
                    t.root == "var"
                        && t.steps.first().is_some_and(|(n, _)| n.as_deref() == Some(name.as_str()))
                });
                if !refers {
                    self.err(
                        "Invalid variable validation condition",
                        format!("The condition for variable \"{name}\" must refer to var.{name} in order to test incoming values."),
                        cond.expr.span,
                    );
                }
            }
            if !self.has(Feature::ValidationReferences) {
                self.own_references_only(name, msg, "error message");
            }
        }
    }

    /// Before Terraform 1.9 a validation's condition and error message may refer to their
    /// variable only: each other reference is an error.
    fn own_references_only(&mut self, name: &str, a: Option<&Attr>, what: &str) {
        let Some(a) = a else { return };
        for t in variables(&a.expr) {
            let own =
                t.root == "var" && t.steps.first().is_some_and(|(n, _)| n.as_deref() == Some(name));
            if !own {
                let end = t.steps.last().map_or(t.root_span.end, |(_, s)| s.end);
                self.err(
                    "Invalid reference in variable validation",
                    format!("The {what} for variable \"{name}\" can only refer to the variable itself, using var.{name}."),
                    Span { end, ..t.root_span },
                );
            }
        }
    }

    pub(super) fn locals(&mut self, b: &Block) {
        self.just_attributes(&b.body);
        for a in b.body.attrs() {
            if !valid_identifier(&a.name) {
                self.err("Invalid local value name", BAD_IDENTIFIER, a.name_span);
            }
        }
    }

    pub(super) fn output(&mut self, b: &Block) {
        let s = if self.tofu { &TOFU_OUTPUT } else { &TF_OUTPUT };
        let inner = self.content(&b.body, self.missing(b), s, self.over, true);
        if !valid_identifier(b.labels.first().map_or("", String::as_str)) {
            let at = b.label_spans.first().copied().unwrap_or(self.decl(b));
            self.err("Invalid output name", BAD_IDENTIFIER, at);
        }
        self.static_string(&b.body, "description");
        // Terraform's outputs may declare a type (`TypeConstraintWithDefaults`); its errors
        // carry no range of their own here, so they point at the whole type (or where a
        // syntax error stopped its parsing).
        if let Some(a) =
            b.attr("type").filter(|_| !self.tofu && !self.json && self.has(Feature::OutputType))
            && let Some(src) = &a.expr.source
            && let Err((e, broken)) = cty::type_constraint_source(src)
        {
            let at = broken.and_then(|_| self.broken_at(&a.expr)).unwrap_or(a.expr.span);
            self.err(e.summary, e.detail, at);
        }
        let ephemeral = if s.admits("ephemeral", self.release) { "ephemeral" } else { "" };
        self.static_bools(&b.body, &["sensitive", ephemeral]);
        if !self.tofu && self.has(Feature::Deprecation) {
            self.static_string(&b.body, "deprecated");
        }
        self.depends_on(b);
        for c in inner {
            match c.kind.as_str() {
                "precondition" => {
                    self.check_rule(c);
                }
                _ => self.err(
                    "Postconditions are not allowed",
                    "Output values can only have preconditions, not postconditions.",
                    c.type_span,
                ),
            }
        }
    }
}
