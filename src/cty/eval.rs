//! Evaluation of the constant expressions Terraform accepts where no variables or functions
//! exist (variable defaults, optional-attribute defaults, tfvars files): literals,
//! templates, operators, conditionals, `for` expressions, indexing and splats. A reference
//! or a function call is Terraform's "Variables not allowed" / "Function calls not
//! allowed" error.

use super::{Number, Type, Value, convert};
use hcl_edit::Span;
use hcl_edit::expr::{
    BinaryOperator, Expression, ForExpr, ObjectKey, TraversalOperator, UnaryOperator,
};
use hcl_edit::template::{Element, Strip, Template};
use std::collections::BTreeMap;

/// An evaluation error, with Terraform's summary and detail.
#[derive(Clone, Debug, PartialEq)]
pub struct EvalError {
    pub summary: String,
    pub detail: String,
}

fn error(summary: &str, detail: impl Into<String>) -> EvalError {
    EvalError { summary: summary.into(), detail: detail.into() }
}

/// The names bound by enclosing `for` expressions.
#[derive(Default)]
pub(super) struct Scope {
    vars: Vec<(String, Value)>,
}

impl Scope {
    fn get(&self, name: &str) -> Option<&Value> {
        self.vars.iter().rev().find(|(n, _)| n == name).map(|(_, v)| v)
    }
}

/// Evaluates an expression given as HCL source text.
pub fn eval_source(src: &str) -> Result<Value, EvalError> {
    // hcl-edit wants nothing after an expression, not even a heredoc's final newline.
    let src = src.trim();
    if crate::terraform::hcl::nesting_too_deep(src).is_some() {
        return Err(error(
            "Nesting too deep",
            "Expressions may be nested at most 256 levels deep.",
        ));
    }
    let expr: Expression = src.parse().map_err(|e: hcl_edit::parser::Error| {
        // hcl-edit's line and column are reliable where its offset is not.
        let (line, col) = (e.location().line(), e.location().column());
        let line_start: usize =
            src.split_inclusive('\n').take(line.saturating_sub(1)).map(str::len).sum();
        if line_start + col.saturating_sub(1) >= src.len() {
            error(
                "Missing expression",
                "Expected the start of an expression, but found the end of the file.",
            )
        } else {
            error("Invalid expression", e.message().to_string())
        }
    })?;
    eval(&expr, src, &mut Scope::default())
}

/// Evaluates a parsed expression; `src` is the text it was parsed from (number literals are
/// read from it, so they keep every digit).
pub fn eval_expr(expr: &Expression, src: &str) -> Result<Value, EvalError> {
    eval(expr, src, &mut Scope::default())
}

const NO_VARS: (&str, &str) = ("Variables not allowed", "Variables may not be used here.");
const NO_CALLS: (&str, &str) = ("Function calls not allowed", "Functions may not be called here.");

pub(super) fn eval(expr: &Expression, src: &str, scope: &mut Scope) -> Result<Value, EvalError> {
    Ok(match expr {
        Expression::Null(_) => Value::Null(Type::Dynamic),
        Expression::Bool(b) => Value::Bool(*b.value()),
        Expression::Number(n) => {
            let text = n
                .span()
                .and_then(|r| src.get(r))
                .map(str::trim)
                .map(str::to_string)
                .unwrap_or_else(|| n.value().to_string());
            Value::Number(
                Number::parse(&text)
                    .ok_or_else(|| error("Invalid number literal", format!("\"{text}\"")))?,
            )
        }
        Expression::String(s) => Value::String(s.value().clone()),
        Expression::StringTemplate(t) => template(t, src, scope)?,
        Expression::HeredocTemplate(h) => template(&h.template, src, scope)?,
        Expression::Array(items) => {
            Value::Tuple(items.iter().map(|e| eval(e, src, scope)).collect::<Result<Vec<_>, _>>()?)
        }
        Expression::Object(obj) => {
            let mut out = BTreeMap::new();
            for (k, v) in obj.iter() {
                let key = match k {
                    ObjectKey::Ident(i) => match scope.get(i.value().as_str()) {
                        Some(v) => key_string(v)?,
                        None => i.value().to_string(),
                    },
                    ObjectKey::Expression(e) => key_string(&eval(e, src, scope)?)?,
                };
                out.insert(key, eval(v.expr(), src, scope)?);
            }
            Value::Object(out)
        }
        Expression::Parenthesis(p) => eval(p.inner(), src, scope)?,
        Expression::Variable(v) => match scope.get(v.value().as_str()) {
            Some(v) => v.clone(),
            None => return Err(error(NO_VARS.0, NO_VARS.1)),
        },
        Expression::Conditional(c) => {
            let cond = eval(&c.cond_expr, src, scope)?;
            if as_bool(&cond, "condition")? {
                eval(&c.true_expr, src, scope)?
            } else {
                eval(&c.false_expr, src, scope)?
            }
        }
        Expression::FuncCall(_) => return Err(error(NO_CALLS.0, NO_CALLS.1)),
        Expression::Traversal(t) => {
            let root = eval(&t.expr, src, scope)?;
            let ops: Vec<&TraversalOperator> = t.operators.iter().map(|o| o.value()).collect();
            traverse(root, &ops, src, scope)?
        }
        Expression::UnaryOp(u) => {
            let v = eval(&u.expr, src, scope)?;
            match u.operator.value() {
                UnaryOperator::Neg => Value::Number(as_number(&v, "operand")?.neg()),
                UnaryOperator::Not => Value::Bool(!as_bool(&v, "operand")?),
            }
        }
        Expression::BinaryOp(b) => {
            let l = eval(&b.lhs_expr, src, scope)?;
            let r = eval(&b.rhs_expr, src, scope)?;
            binary(*b.operator.value(), &l, &r)?
        }
        Expression::ForExpr(f) => for_expr(f, src, scope)?,
    })
}

fn key_string(v: &Value) -> Result<String, EvalError> {
    match convert(v, &Type::String) {
        Ok(Value::String(s)) => Ok(s),
        _ => Err(error("Incorrect key type", "Can't use this value as a key: string required.")),
    }
}

fn as_bool(v: &Value, what: &str) -> Result<bool, EvalError> {
    match convert(v, &Type::Bool) {
        Ok(Value::Bool(b)) => Ok(b),
        Ok(_) => Err(error(
            "Invalid operand",
            format!("Unsuitable value for {what}: a bool is required, not null."),
        )),
        Err(e) => Err(error("Invalid operand", format!("Unsuitable value for {what}: {e}."))),
    }
}

fn as_number(v: &Value, what: &str) -> Result<Number, EvalError> {
    match convert(v, &Type::Number) {
        Ok(Value::Number(n)) => Ok(n),
        Ok(_) => Err(error(
            "Invalid operand",
            format!("Unsuitable value for {what}: a number is required, not null."),
        )),
        Err(e) => Err(error("Invalid operand", format!("Unsuitable value for {what}: {e}."))),
    }
}

fn binary(op: BinaryOperator, l: &Value, r: &Value) -> Result<Value, EvalError> {
    use BinaryOperator as B;
    Ok(match op {
        B::Eq => Value::Bool(l.equals(r)),
        B::NotEq => Value::Bool(!l.equals(r)),
        B::And => Value::Bool(as_bool(l, "left operand")? && as_bool(r, "right operand")?),
        B::Or => Value::Bool(as_bool(l, "left operand")? || as_bool(r, "right operand")?),
        _ => {
            let a = as_number(l, "left operand")?;
            let b = as_number(r, "right operand")?;
            use std::cmp::Ordering::*;
            match op {
                B::Plus => Value::Number(a.add(&b)),
                B::Minus => Value::Number(a.sub(&b)),
                B::Mul => Value::Number(a.mul(&b)),
                B::Div => Value::Number(a.div(&b)),
                B::Mod => Value::Number(a.rem(&b)),
                B::Less => Value::Bool(a.cmp_num(&b) == Less),
                B::LessEq => Value::Bool(a.cmp_num(&b) != Greater),
                B::Greater => Value::Bool(a.cmp_num(&b) == Greater),
                _ => Value::Bool(a.cmp_num(&b) != Less),
            }
        }
    })
}

fn elements(v: &Value) -> Option<Vec<(Value, Value)>> {
    match v {
        Value::Tuple(items) | Value::List(_, items) | Value::Set(_, items) => Some(
            items
                .iter()
                .enumerate()
                .map(|(i, e)| (Value::Number(Number::from_i64(i as i64)), e.clone()))
                .collect(),
        ),
        Value::Object(a) | Value::Map(_, a) => {
            Some(a.iter().map(|(k, e)| (Value::String(k.clone()), e.clone())).collect())
        }
        _ => None,
    }
}

fn index(v: &Value, key: &Value) -> Result<Value, EvalError> {
    let invalid = |d: &str| error("Invalid index", d.to_string());
    match v {
        Value::Tuple(items) | Value::List(_, items) => {
            let i = match convert(key, &Type::Number) {
                Ok(Value::Number(n)) => n.as_i64(),
                _ => None,
            }
            .ok_or_else(|| invalid("The given key does not identify an element in this collection value: a number is required."))?;
            usize::try_from(i).ok().and_then(|i| items.get(i)).cloned().ok_or_else(|| {
                invalid("The given key does not identify an element in this collection value.")
            })
        }
        Value::Object(a) | Value::Map(_, a) => {
            let k = key_string(key)?;
            a.get(&k).cloned().ok_or_else(|| {
                invalid("The given key does not identify an element in this collection value.")
            })
        }
        _ => Err(invalid("This value does not have any indices.")),
    }
}

fn traverse(
    v: Value,
    ops: &[&TraversalOperator],
    src: &str,
    scope: &mut Scope,
) -> Result<Value, EvalError> {
    let Some((op, rest)) = ops.split_first() else {
        return Ok(v);
    };
    let next = match op {
        TraversalOperator::GetAttr(name) => match &v {
            Value::Object(a) | Value::Map(_, a) => {
                a.get(name.value().as_str()).cloned().ok_or_else(|| {
                    error(
                        "Unsupported attribute",
                        format!(
                            "This object does not have an attribute named \"{}\".",
                            name.value()
                        ),
                    )
                })?
            }
            _ => {
                return Err(error(
                    "Unsupported attribute",
                    "This value does not have any attributes.",
                ));
            }
        },
        TraversalOperator::Index(e) => {
            let k = eval(e, src, scope)?;
            index(&v, &k)?
        }
        TraversalOperator::LegacyIndex(i) => {
            index(&v, &Value::Number(Number::from_i64(*i.value() as i64)))?
        }
        TraversalOperator::AttrSplat(_) | TraversalOperator::FullSplat(_) => {
            // A splat applies the rest of an attribute splat (or of a full splat) to each
            // element; a non-collection becomes a one-element tuple, null an empty one.
            let items = match &v {
                Value::Null(_) => Vec::new(),
                Value::Tuple(items) | Value::List(_, items) | Value::Set(_, items) => items.clone(),
                other => vec![other.clone()],
            };
            let full = matches!(op, TraversalOperator::FullSplat(_));
            let take = if full {
                rest.len()
            } else {
                rest.iter()
                    .take_while(|o| {
                        matches!(
                            o,
                            TraversalOperator::GetAttr(_) | TraversalOperator::LegacyIndex(_)
                        )
                    })
                    .count()
            };
            let mut out = Vec::with_capacity(items.len());
            for e in items {
                out.push(traverse(e, &rest[..take], src, scope)?);
            }
            return traverse(Value::Tuple(out), &rest[take..], src, scope);
        }
    };
    traverse(next, rest, src, scope)
}

fn for_expr(f: &ForExpr, src: &str, scope: &mut Scope) -> Result<Value, EvalError> {
    let coll = eval(&f.intro.collection_expr, src, scope)?;
    let Some(items) = elements(&coll) else {
        return Err(error(
            "Iteration over non-iterable value",
            "A value of this type cannot be iterated; a collection or structural type is required.",
        ));
    };
    let key_var = f.intro.key_var.as_ref().map(|k| k.value().to_string());
    let value_var = f.intro.value_var.value().to_string();
    let mut tuple = Vec::new();
    let mut object: BTreeMap<String, Value> = BTreeMap::new();
    let mut groups: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for (k, v) in items {
        let depth = scope.vars.len();
        if let Some(kv) = &key_var {
            scope.vars.push((kv.clone(), k));
        }
        scope.vars.push((value_var.clone(), v));
        let result = (|| -> Result<(), EvalError> {
            if let Some(c) = &f.cond {
                let keep = eval(&c.expr, src, scope)?;
                if !as_bool(&keep, "condition")? {
                    return Ok(());
                }
            }
            let value = eval(&f.value_expr, src, scope)?;
            match &f.key_expr {
                Some(ke) => {
                    let key = key_string(&eval(ke, src, scope)?)?;
                    if f.grouping {
                        groups.entry(key).or_default().push(value);
                    } else {
                        match object.entry(key) {
                            std::collections::btree_map::Entry::Occupied(e) => {
                                return Err(error(
                                    "Duplicate object key",
                                    format!(
                                        "Two different items produced the key \"{}\" in this 'for' expression. If duplicates are expected, use the ellipsis (...) after the value expression to enable grouping by key.",
                                        e.key()
                                    ),
                                ));
                            }
                            std::collections::btree_map::Entry::Vacant(e) => {
                                e.insert(value);
                            }
                        }
                    }
                }
                None => tuple.push(value),
            }
            Ok(())
        })();
        scope.vars.truncate(depth);
        result?;
    }
    Ok(match &f.key_expr {
        None => Value::Tuple(tuple),
        Some(_) if f.grouping => {
            Value::Object(groups.into_iter().map(|(k, v)| (k, Value::Tuple(v))).collect())
        }
        Some(_) => Value::Object(object),
    })
}

fn interpolate(v: &Value) -> Result<String, EvalError> {
    match v {
        Value::Null(_) => Err(error(
            "Invalid template interpolation value",
            "The expression result is null. Cannot include a null value in a string template.",
        )),
        Value::String(s) => Ok(s.clone()),
        Value::Number(n) => Ok(n.to_text()),
        Value::Bool(b) => Ok(b.to_string()),
        _ => Err(error(
            "Invalid template interpolation value",
            format!(
                "Cannot include the given value in a string template: string required, but have {}.",
                v.ty().friendly()
            ),
        )),
    }
}

/// Evaluates a template. A template made of a single interpolation yields that value itself,
/// not its string form.
fn template(t: &Template, src: &str, scope: &mut Scope) -> Result<Value, EvalError> {
    if let Some(Element::Interpolation(i)) = t.as_single_element() {
        return eval(&i.expr, src, scope);
    }
    let mut out = Out::default();
    render(t, src, scope, &mut out)?;
    Ok(Value::String(out.text))
}

/// Rendered template text, and where its last literal starts (strip markers only trim
/// literal text).
#[derive(Default)]
struct Out {
    text: String,
    literal_from: Option<usize>,
    strip_next: bool,
}

impl Out {
    fn literal(&mut self, s: &str) {
        let s = if self.strip_next { s.trim_start() } else { s };
        self.strip_next = false;
        self.literal_from = Some(self.text.len());
        self.text.push_str(s);
    }
    fn mark(&mut self, strip: Strip) {
        if matches!(strip, Strip::Start | Strip::Both)
            && let Some(from) = self.literal_from
        {
            let keep = self.text[from..].trim_end().len();
            self.text.truncate(from + keep);
        }
        self.literal_from = None;
        self.strip_next = matches!(strip, Strip::End | Strip::Both);
    }
    fn value(&mut self, s: &str) {
        self.text.push_str(s);
        self.literal_from = None;
    }
}

fn render(t: &Template, src: &str, scope: &mut Scope, out: &mut Out) -> Result<(), EvalError> {
    use hcl_edit::template::Directive;
    for e in t.iter() {
        match e {
            Element::Literal(s) => out.literal(s.value()),
            Element::Interpolation(i) => {
                out.mark(i.strip);
                let v = eval(&i.expr, src, scope)?;
                out.value(&interpolate(&v)?);
                out.strip_next = matches!(i.strip, Strip::End | Strip::Both);
            }
            Element::Directive(d) => match d.as_ref() {
                Directive::If(d) => {
                    out.mark(d.if_expr.strip);
                    let cond = eval(&d.if_expr.cond_expr, src, scope)?;
                    if as_bool(&cond, "condition")? {
                        out.mark(d.if_expr.strip);
                        render(&d.if_expr.template, src, scope, out)?;
                    } else if let Some(e) = &d.else_expr {
                        out.mark(e.strip);
                        render(&e.template, src, scope, out)?;
                    }
                    out.mark(d.endif_expr.strip);
                }
                Directive::For(d) => {
                    out.mark(d.for_expr.strip);
                    let coll = eval(&d.for_expr.collection_expr, src, scope)?;
                    let items = elements(&coll).ok_or_else(|| {
                        error(
                            "Iteration over non-iterable value",
                            "A value of this type cannot be iterated; a collection or structural type is required.",
                        )
                    })?;
                    for (k, v) in items {
                        let depth = scope.vars.len();
                        if let Some(kv) = &d.for_expr.key_var {
                            scope.vars.push((kv.value().to_string(), k));
                        }
                        scope.vars.push((d.for_expr.value_var.value().to_string(), v));
                        out.mark(d.for_expr.strip);
                        let r = render(&d.for_expr.template, src, scope, out);
                        scope.vars.truncate(depth);
                        r?;
                        out.mark(d.endfor_expr.strip);
                    }
                }
            },
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(s: &str) -> String {
        match eval_source(s) {
            Ok(v) => v.to_json().to_string(),
            Err(e) => format!("{}: {}", e.summary, e.detail),
        }
    }

    #[test]
    fn evaluates_constant_expressions() {
        assert_eq!(ev("1 + 1"), "2");
        assert_eq!(ev("0.1 + 0.2"), "0.3");
        assert_eq!(ev("\"2\" * 3"), "6");
        assert_eq!(ev("true ? \"a\" : \"b\""), "\"a\"");
        assert_eq!(ev("[for s in [\"a\", \"b\"] : \"${s}-x\"]"), "[\"a-x\",\"b-x\"]");
        assert_eq!(ev("\"a%{if true}b%{endif}\""), "\"ab\"");
        assert_eq!(ev("[{ a = 1 }, { a = 2 }][*].a"), "[1,2]");
        assert_eq!(ev("{ a = 1 }.a"), "1");
        assert_eq!(ev("12345678901234567890123"), "12345678901234567890123");
        assert_eq!(ev("var.x"), "Variables not allowed: Variables may not be used here.");
        assert_eq!(
            ev("max(1, 2)"),
            "Function calls not allowed: Functions may not be called here."
        );
        assert_eq!(ev("{for k, v in { a = 1 } : v => k}"), "{\"1\":\"a\"}");
    }
}
