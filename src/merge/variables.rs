//! The variable checks of the merge (spec §5.6), on Terraform's type system (`cty`):
//! each variable block's `type` and `default` as Terraform decodes them, and the default
//! re-converted after an override changed the type or the default.

use super::Module;
use crate::cty::{self, DefaultError, TypeSpec, Value};
use crate::diag::Diagnostic;
use crate::terraform::{Attr, Block, Expr, FileId, ParsedFile};

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
    if e.source.is_none()
        && let Some(v) = literal_value(e)
    {
        return Ok(v);
    }
    cty::eval_source(&source_of(e))
}

/// [`value_of`] of an expression of a file that has no syntax error (a variables file is
/// read only then; see [`parsed_cleanly`]): an expression of literals has the value read
/// off the model.
pub(crate) fn clean_value_of(e: &Expr) -> Result<Value, cty::EvalError> {
    match literal_value(e) {
        Some(v) => Ok(v),
        None => value_of(e),
    }
}

/// Whether a file was read and parsed without an error: its expressions then parse again
/// as they parsed in it.
pub(crate) fn parsed_cleanly(f: &ParsedFile) -> bool {
    !f.diagnostics.iter().any(Diagnostic::is_error)
}

/// Whether the module's file `file` was read without an error ([`parsed_cleanly`]).
pub(crate) fn clean_in(m: &Module, file: FileId) -> bool {
    m.parsed.iter().any(|f| f.file == file && parsed_cleanly(f))
}

/// The value of a constant expression, when it has no syntax error (one that has was
/// reported when its file was read): one parse where [`parses`] then [`value_of`] take two.
pub(crate) fn parsed_value(e: &Expr) -> Option<Result<Value, cty::EvalError>> {
    if e.source.is_none()
        && let Some(v) = literal_value(e)
    {
        return Some(Ok(v));
    }
    cty::eval_valid_source(&source_of(e))
}

/// The value of an expression made of literals alone (null, bools, numbers, strings with
/// no template sequence, and tuples and objects of them with names for keys), read off the
/// model: what evaluating its source gives, without parsing that source again (its syntax
/// tree, and a copy of its text, held a variables file three times over). `None` for any
/// other expression. Only for an expression whose source has no syntax error: one read
/// from JSON, or from a file without any (a syntax error leaves what the parser recovered
/// in the model, where parsing the source again reports the error).
pub(crate) fn literal_value(e: &Expr) -> Option<Value> {
    use crate::terraform::{ExprKind, ObjKey};
    Some(match &e.kind {
        ExprKind::Null => Value::Null(cty::Type::Dynamic),
        ExprKind::Bool(b) => Value::Bool(*b),
        // A negative number is an operator on a number in the source.
        ExprKind::Number(n) => Value::Number(match n.strip_prefix('-') {
            Some(p) => cty::Number::parse(p)?.neg(),
            None => cty::Number::parse(n)?,
        }),
        ExprKind::Template(_) => Value::String(e.as_str()?),
        ExprKind::Tuple(items) => {
            Value::Tuple(items.iter().map(literal_value).collect::<Option<_>>()?)
        }
        ExprKind::Object(entries) => {
            let mut out = Vec::with_capacity(entries.len());
            for (k, v) in entries.iter() {
                let ObjKey::Name(name) = k else { return None };
                out.push((name.clone(), literal_value(v)?));
            }
            // Sorted once, the last of a name given twice winning.
            Value::Object(out.into_iter().collect())
        }
        ExprKind::Raw(_) => return None,
    })
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
pub(super) fn variable_errors(b: &Block, is_override: bool, clean: bool) -> Vec<Diagnostic> {
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
        && let Some(value) = match clean {
            true => literal_value(&d.expr).map(Ok).or_else(|| parsed_value(&d.expr)),
            false => parsed_value(&d.expr),
        }
    {
        match value {
            Err(e) => out.push(Diagnostic::error(e.summary, e.detail, d.expr.span)),
            Ok(v) => {
                let null_ok = is_override || nullable(b);
                if let Some(spec) = &spec {
                    match cty::default_fits(spec, &v, null_ok) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::terraform::{FileClass, SourceText, Syntax};

    /// Values of literals, native and JSON, and expressions that are none.
    const NATIVE: &str = r#"
a = [0, -0, 1.5, -1.50e2, 12345678901234567890123, 0.000001, 1E5, 1e100000, - 2, (3), ((-4))]
b = ["", "x", "a\"b\\n\u00e9\t", "$${x} %%{y}", "$", "%", <<EOT
  heredoc $${no} %%{x}
EOT
, <<-EOT
    indented
      more
    EOT
]
c = { a = 1, "a b" = 2, ("k") = 3, a = 4, "" = {}, for = [], x = { y = [true, false, null] } }
d = "x${1}"
e = { (var.k) = 1 }
g = var.x
h = { "${"k"}" = 1 }
"#;

    const JSON: &str = r#"{"variable": {
  "a": {"default": [0, -0, 1.5, -1.50e2, 12345678901234567890123, 1E5, 1.0e-5, 1e100000, 1e100001]},
  "b": {"default": ["", "x", "a\"b\\n\u00e9\t", "${x}", "$${x}", "%{y}", "%%{y}", "\u0001\u001f\u007f", "\ud834\udd1e", "}"]},
  "c": {"default": {"a": 1, "a b": 2, "a": 4, "": {}, "${k}": 3, "x": {"y": [true, false, null]}}},
  "d": {"default": null},
  "e": {"default": {}}
}}"#;

    fn same(e: &Expr) {
        let old = cty::eval_source(&source_of(e));
        if let Some(v) = literal_value(e) {
            assert_eq!(format!("{:?}", Ok::<_, cty::EvalError>(v)), format!("{old:?}"), "{e:?}");
        }
    }

    #[test]
    fn literals_read_off_the_model_are_what_parsing_them_again_gives() {
        let (f, d) = crate::terraform::hcl::parse(0, NATIVE);
        assert!(d.is_empty(), "{d:?}");
        let mut literal = 0;
        for a in f.body.attrs() {
            same(&a.expr);
            literal += usize::from(literal_value(&a.expr).is_some());
        }
        // `a`, `b`, `c`; the rest is no literal.
        assert_eq!(literal, 3);
        let src =
            SourceText::new("m.tf.json".into(), FileClass::Primary, Syntax::Json, JSON.into());
        let (f, d) = crate::terraform::json::parse(0, &src).expect("parses");
        assert!(d.is_empty(), "{d:?}");
        let mut count = 0;
        for b in f.body.blocks() {
            let d = b.attr("default").expect("default");
            same(&d.expr);
            count += usize::from(literal_value(&d.expr).is_some());
        }
        assert_eq!(count, 4, "all but `a`, whose last number is too large");
    }
}
