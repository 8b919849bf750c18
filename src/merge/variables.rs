//! The variable checks of the merge (spec §5.6), on Terraform's type system (`cty`):
//! each variable block's `type` and `default` as Terraform decodes them, and the default
//! re-converted after an override changed the type or the default.

use super::Module;
use crate::cty::{self, DefaultError, TypeSpec, Value};
use crate::diag::Diagnostic;
use crate::terraform::{Attr, Block, Expr};

/// The parsed `type` argument of a variable. In JSON syntax the type is the content of a
/// string, where quotes are no legacy form.
pub(crate) fn type_spec(a: &Attr) -> Result<TypeSpec, cty::TypeError> {
    match &a.expr.source {
        Some(src) => cty::parse_type_source(src),
        None => {
            let text = a.expr.as_str().unwrap_or_else(|| a.expr.to_hcl());
            cty::parse_type_text(text.trim(), false)
        }
    }
}

/// The value of a constant expression (a default, a tfvars value).
pub(crate) fn value_of(e: &Expr) -> Result<Value, cty::EvalError> {
    cty::eval_source(&source_of(e))
}

/// The value of a constant expression, when it has no syntax error (one that has was
/// reported when its file was read): one parse where [`parses`] then [`value_of`] take two.
pub(crate) fn parsed_value(e: &Expr) -> Option<Result<Value, cty::EvalError>> {
    cty::eval_valid_source(&source_of(e))
}

/// Whether an expression is free of syntax errors (one that is not was reported when its
/// file was read).
pub(crate) fn parses(e: &Expr) -> bool {
    override_guard_hcl::parse_expression(&source_of(e)).1.is_empty()
}

/// An expression's source, to be read again on its own. The source cut from its file ends
/// at a heredoc's closing marker, whose newline the file had and a heredoc needs.
pub(crate) fn source_of(e: &Expr) -> String {
    let text = match &e.source {
        Some(src) => src.to_string(),
        None => e.to_hcl(),
    };
    if text.ends_with('\n') { text } else { text + "\n" }
}

fn nullable(b: &Block) -> bool {
    b.attr("nullable").and_then(|a| static_flag(&a.expr)).unwrap_or(true)
}

/// The value of an argument Terraform decodes as a constant bool, when it has one: `true`,
/// or a string that converts (`"false"`; in JSON a string is text, never a template).
pub(crate) fn static_flag(e: &Expr) -> Option<bool> {
    if let Some(b) = e.as_bool() {
        return Some(b);
    }
    let template = matches!(&e.kind, crate::terraform::ExprKind::Template(p)
        if p.iter().any(|x| matches!(x, crate::terraform::TplPart::Code(_))));
    if e.source.is_none() && template {
        return None;
    }
    match cty::convert(&value_of(e).ok()?, &cty::Type::Bool) {
        Ok(Value::Bool(b)) => Some(b),
        _ => None,
    }
}

fn incompatible(detail_prefix: &str, err: &str) -> String {
    format!("{detail_prefix}: {err}.")
}

/// What Terraform reports while decoding one variable block, before any merge: an invalid
/// type, a default that is no constant, a default that does not fit the type, a null
/// default of a non-nullable variable (primary blocks; an override's null is judged after
/// the merge).
pub(super) fn variable_errors(b: &Block, is_override: bool) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let spec = match b.attr("type").map(|a| (a, type_spec(a))) {
        Some((a, Err(e))) => {
            out.push(Diagnostic::error(e.summary, e.detail, a.expr.span));
            None
        }
        Some((_, Ok(s))) => Some(s),
        None if is_override => None,
        None => Some(TypeSpec::unset()),
    };
    // A default with a syntax error was reported as such; Terraform's value of it is
    // unknown, which no check rejects.
    if let Some(d) = b.attr("default")
        && let Some(value) = parsed_value(&d.expr)
    {
        match value {
            Err(e) => out.push(Diagnostic::error(e.summary, e.detail, d.expr.span)),
            Ok(v) => {
                let null_ok = is_override || nullable(b);
                if let Some(spec) = &spec {
                    match cty::check_default(spec, &v, null_ok) {
                        Err(DefaultError::Convert(e)) => out.push(Diagnostic::error(
                            "Invalid default value for variable",
                            incompatible(
                                "This default value is not compatible with the variable's type constraint",
                                &e,
                            ),
                            d.expr.span,
                        )),
                        Err(DefaultError::Null) => out.push(Diagnostic::error(
                            "Invalid default value for variable",
                            "A null default value is not valid when nullable=false.",
                            d.expr.span,
                        )),
                        Ok(_) => {}
                    }
                }
            }
        }
    }
    out
}

/// The value a variable block's default takes once decoded: converted to its own type
/// (with the type's optional-attribute defaults) when it has one.
fn decoded_default(b: &Block) -> Option<Value> {
    let v = value_of(&b.attr("default")?.expr).ok()?;
    match b.attr("type") {
        Some(t) => {
            let spec = type_spec(t).ok()?;
            cty::check_default(&spec, &v, true).ok().or(Some(v))
        }
        None => Some(v),
    }
}

/// The post-merge check of a variable (spec §5.6): the merged default converted to the
/// merged type (without optional-attribute defaults, which the merge does not copy), and a
/// null default refused when the merged variable is not nullable.
pub(super) fn check_variable(m: &mut Module, merged: &Block, o: &Block, base: &Block) {
    let type_over = o.attr("type").is_some();
    let default_over = o.attr("default").is_some();
    if merged.attr("default").is_none() {
        return;
    }
    let got = if default_over { decoded_default(o) } else { decoded_default(base) };
    let Some(got) = got else {
        return;
    };
    let want = match merged.attr("type") {
        Some(t) => match type_spec(t) {
            Ok(s) => s.ty,
            Err(_) => return,
        },
        None => cty::Type::Dynamic,
    };
    let converted = match cty::convert(&got, &want) {
        Ok(v) => v,
        Err(err) => {
            let detail = match (type_over, default_over) {
                (true, false) => incompatible(
                    "Overriding this variable's type constraint has made its default value invalid",
                    &err,
                ),
                (false, true) => incompatible(
                    "The overridden default value for this variable is not compatible with the variable's type constraint",
                    &err,
                ),
                _ => incompatible(
                    "This variable's default value is not compatible with its type constraint",
                    &err,
                ),
            };
            m.diagnostics.push(Diagnostic::error(
                "Invalid default value for variable",
                detail,
                o.decl_span(&m.files),
            ));
            return;
        }
    };
    if !nullable(merged) && converted.is_null() {
        m.diagnostics.push(Diagnostic::error(
            "Invalid default value for variable",
            "A null default value is not valid when nullable=false.",
            o.decl_span(&m.files),
        ));
    }
}
