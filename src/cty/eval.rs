//! Evaluation of the constant expressions Terraform accepts where no variables or functions
//! exist (variable defaults, optional-attribute defaults, tfvars files): literals,
//! templates, operators, conditionals, `for` expressions, indexing and splats. A reference
//! or a function call is Terraform's "Variables not allowed" / "Function calls not
//! allowed" error.

use super::memo::{Memo, memo};
use super::{Attrs, Number, Type, Value, convert};
use override_guard_hcl::ast::{
    BinaryOp, Expr, ForExpr, ForPart, IfPart, Key, Node, Part, Step, UnaryOp,
};
use std::collections::BTreeMap;

/// An evaluation error, with Terraform's summary and detail.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct EvalError {
    pub summary: String,
    pub detail: String,
}

fn error(summary: &str, detail: impl Into<String>) -> EvalError {
    EvalError { summary: summary.into(), detail: detail.into() }
}

/// The names bound by enclosing `for` expressions, and the element a splat is at.
#[derive(Default)]
struct Bindings {
    vars: Vec<(String, Value)>,
    item: Vec<Value>,
}

impl Bindings {
    fn get(&self, name: &str) -> Option<&Value> {
        self.vars.iter().rev().find(|(n, _)| n == name).map(|(_, v)| v)
    }
}

/// Evaluates an expression given as HCL source text. A syntax error is the first of
/// Terraform's diagnostics for it.
pub(crate) fn eval_source(src: &str) -> Result<Value, EvalError> {
    thread_local! {
        static VALUES: Memo<Result<Value, EvalError>> = Memo::default();
    }
    memo(&VALUES, src, || {
        let (expr, errors) = override_guard_hcl::parse_expression(src);
        if let Some(e) = errors.into_iter().next() {
            return Err(EvalError { summary: e.summary, detail: e.detail });
        }
        eval(&expr, &mut Bindings::default())
    })
}

/// Evaluates an expression given as HCL source text, when it has no syntax error (`None`
/// when it has: one that was reported as its file was read).
pub(crate) fn eval_valid_source(src: &str) -> Option<Result<Value, EvalError>> {
    thread_local! {
        static VALUES: Memo<Option<Result<Value, EvalError>>> = Memo::default();
    }
    memo(&VALUES, src, || {
        let (tree, errors) = override_guard_hcl::parse_expression(src);
        errors.is_empty().then(|| eval(&tree, &mut Bindings::default()))
    })
}

/// Evaluates a parsed expression.
pub(crate) fn eval_expr(expr: &Expr) -> Result<Value, EvalError> {
    eval(expr, &mut Bindings::default())
}

const NO_VARS: (&str, &str) = ("Variables not allowed", "Variables may not be used here.");
const NO_CALLS: (&str, &str) = ("Function calls not allowed", "Functions may not be called here.");

fn eval(expr: &Expr, bound: &mut Bindings) -> Result<Value, EvalError> {
    Ok(match &expr.node {
        Node::Null => Value::Null(Type::Dynamic),
        Node::Bool(b) => Value::Bool(*b),
        Node::Number(text) => Value::Number(
            Number::parse(text)
                .ok_or_else(|| error("Invalid number literal", format!("\"{text}\"")))?,
        ),
        Node::Template { parts, wrap, .. } => {
            if let (true, [Part::Interp(e, _)]) = (*wrap, parts.as_slice()) {
                return eval(e, bound);
            }
            let mut out = Out::default();
            render(parts, bound, &mut out)?;
            Value::String(out.text)
        }
        Node::Tuple(items) => {
            Value::Tuple(items.iter().map(|e| eval(e, bound)).collect::<Result<Vec<_>, _>>()?)
        }
        Node::Object(items) => {
            // Collected, then sorted by name once: inserting in the order written into the
            // sorted list moved the entries after each one (keys written in reverse order
            // took seconds).
            let mut out = Vec::with_capacity(items.len());
            for (k, v) in items {
                let key = match k {
                    // A bare name is a literal key, unless a `for` expression binds it.
                    Key::Name(n, _) => match bound.get(n) {
                        Some(v) => key_string(v)?,
                        None => n.clone(),
                    },
                    Key::Expr(e) => key_string(&eval(e, bound)?)?,
                };
                out.push((key, eval(v, bound)?));
            }
            // The last of two equal keys wins, as in Terraform.
            Value::Object(out.into_iter().collect::<Attrs<Value>>())
        }
        Node::Parens(e) => eval(e, bound)?,
        Node::Variable(name) => match bound.get(name) {
            Some(v) => v.clone(),
            None => return Err(error(NO_VARS.0, NO_VARS.1)),
        },
        Node::SplatItem => bound.item.last().cloned().unwrap_or(Value::Null(Type::Dynamic)),
        Node::Conditional { cond, yes, no } => {
            let c = eval(cond, bound)?;
            if as_bool(&c, "condition")? { eval(yes, bound)? } else { eval(no, bound)? }
        }
        Node::Call(_) => return Err(error(NO_CALLS.0, NO_CALLS.1)),
        Node::Traversal { source, steps } => {
            let mut v = eval(source, bound)?;
            for s in steps {
                v = step(v, s, bound)?;
            }
            v
        }
        Node::Splat { source, each } => {
            // A splat applies `each` to every element; a non-collection becomes a
            // one-element tuple, null an empty one.
            let items = match eval(source, bound)? {
                Value::Null(_) => Vec::new(),
                Value::Tuple(items) | Value::List(_, items) | Value::Set(_, items) => items,
                other => vec![other],
            };
            let mut out = Vec::with_capacity(items.len());
            for e in items {
                bound.item.push(e);
                let r = eval(each, bound);
                bound.item.pop();
                out.push(r?);
            }
            Value::Tuple(out)
        }
        Node::Unary { op, operand } => {
            let v = eval(operand, bound)?;
            match op {
                UnaryOp::Neg => Value::Number(as_number(&v, "operand")?.neg()),
                UnaryOp::Not => Value::Bool(!as_bool(&v, "operand")?),
            }
        }
        Node::Binary { first, rest } => {
            let mut l = eval(first, bound)?;
            for (op, e) in rest {
                let r = eval(e, bound)?;
                l = binary(*op, &l, &r)?;
            }
            l
        }
        Node::For(f) => for_expr(f, bound)?,
        Node::Invalid => return Err(error("Invalid expression", "This expression is not valid.")),
    })
}

fn step(v: Value, s: &Step, bound: &mut Bindings) -> Result<Value, EvalError> {
    match s {
        Step::Attr(name, _) => match &v {
            Value::Object(a) | Value::Map(_, a) => a.get(name).cloned().ok_or_else(|| {
                error(
                    "Unsupported attribute",
                    format!("This object does not have an attribute named \"{name}\"."),
                )
            }),
            _ => Err(error("Unsupported attribute", "This value does not have any attributes.")),
        },
        Step::Index(k, _) => {
            let k = eval(k, bound)?;
            index(&v, &k)
        }
    }
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

fn binary(op: BinaryOp, l: &Value, r: &Value) -> Result<Value, EvalError> {
    use BinaryOp as B;
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
                B::Add => Value::Number(a.add(&b)),
                B::Sub => Value::Number(a.sub(&b)),
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

fn for_expr(f: &ForExpr, bound: &mut Bindings) -> Result<Value, EvalError> {
    let coll = eval(&f.collection, bound)?;
    let Some(items) = elements(&coll) else {
        return Err(error(
            "Iteration over non-iterable value",
            "A value of this type cannot be iterated; a collection or structural type is required.",
        ));
    };
    let mut tuple = Vec::new();
    let mut object: BTreeMap<String, Value> = BTreeMap::new();
    let mut groups: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for (k, v) in items {
        let depth = bound.vars.len();
        if let Some(kv) = &f.key_var {
            bound.vars.push((kv.clone(), k));
        }
        bound.vars.push((f.value_var.clone(), v));
        let result = (|| -> Result<(), EvalError> {
            if let Some(c) = &f.cond {
                let keep = eval(c, bound)?;
                if !as_bool(&keep, "condition")? {
                    return Ok(());
                }
            }
            let value = eval(&f.value, bound)?;
            match &f.key {
                Some(ke) => {
                    let key = key_string(&eval(ke, bound)?)?;
                    if f.group {
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
        bound.vars.truncate(depth);
        result?;
    }
    Ok(match &f.key {
        None => Value::Tuple(tuple),
        Some(_) if f.group => {
            Value::Object(groups.into_iter().map(|(k, v)| (k, Value::Tuple(v))).collect())
        }
        Some(_) => Value::Object(object.into_iter().collect()),
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

/// Rendered template text (strip markers were applied by the parser).
#[derive(Default)]
struct Out {
    text: String,
}

fn render(parts: &[Part], bound: &mut Bindings, out: &mut Out) -> Result<(), EvalError> {
    for p in parts {
        match p {
            Part::Lit(s, _) => out.text.push_str(s),
            Part::Interp(e, _) => {
                let v = eval(e, bound)?;
                out.text.push_str(&interpolate(&v)?);
            }
            Part::If(d) => {
                let IfPart { cond, yes, no, .. } = &**d;
                let c = eval(cond, bound)?;
                if as_bool(&c, "condition")? {
                    render(yes, bound, out)?;
                } else {
                    render(no, bound, out)?;
                }
            }
            Part::For(d) => {
                let ForPart { key_var, value_var, collection, body, .. } = &**d;
                let coll = eval(collection, bound)?;
                let items = elements(&coll).ok_or_else(|| {
                    error(
                        "Iteration over non-iterable value",
                        "A value of this type cannot be iterated; a collection or structural type is required.",
                    )
                })?;
                for (k, v) in items {
                    let depth = bound.vars.len();
                    if let Some(kv) = key_var {
                        bound.vars.push((kv.clone(), k));
                    }
                    bound.vars.push((value_var.clone(), v));
                    let r = render(body, bound, out);
                    bound.vars.truncate(depth);
                    r?;
                }
            }
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
    fn a_remembered_value_is_the_one_evaluated_anew() {
        let texts = [
            "\"dev\"\n",
            "[443, 80]\n",
            "{}\n",
            "1 + 1\n",
            "var.x\n",
            "upper(\"a\")\n",
            "{ a = 1, a = 2 }\n",
            "[1,\n",
            "<<EOT\nhi\nEOT\n",
            "null\n",
            "1e400\n",
        ];
        for t in texts {
            let (tree, errors) = override_guard_hcl::parse_expression(t);
            let valid = errors.is_empty().then(|| eval_expr(&tree));
            let first = errors.first().map(|e| (e.summary.clone(), e.detail.clone()));
            let whole = match first {
                Some((summary, detail)) => Err(EvalError { summary, detail }),
                None => eval_expr(&tree),
            };
            for _ in 0..2 {
                assert_eq!(format!("{:?}", eval_valid_source(t)), format!("{valid:?}"), "{t}");
                assert_eq!(format!("{:?}", eval_source(t)), format!("{whole:?}"), "{t}");
            }
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
