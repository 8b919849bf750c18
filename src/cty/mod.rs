//! Terraform's type system (go-cty), as far as variables need it: type constraints, constant
//! values, conversion of a value to a constraint with go-cty's error texts, and the
//! evaluation of the constant expressions Terraform allows in defaults and tfvars files.
//!
//! Pure: the merge uses it for the variable checks of spec §5.6, and `vars` for values from
//! tfvars files, flags and the environment. The behaviour is pinned by a corpus of cases
//! confirmed on real Terraform (`tests/fixtures/types/cases.toml`).
//!
//! Each file imports only those after it: `typeexpr` (type expressions, whose optional
//! defaults it evaluates), `eval` (constant expressions, which convert operands),
//! `convert` (go-cty's conversion, which applies defaults first), `defaults`, `attrs` (the
//! attributes of objects, which all of them read).

mod attrs;
mod convert;
mod defaults;
mod eval;
mod typeexpr;

/// Per-thread memos of pure functions of short texts. A repository repeats its type
/// constraints and defaults (`string`, `list(string)`, `"dev"`, `{}`) in module after
/// module, and each was parsed again from its text at every variable block: a twentieth
/// of an audit.
mod memo {
    use std::cell::RefCell;
    use std::collections::HashMap;
    use std::thread::LocalKey;

    /// Longer texts are computed each time: what repeats is short.
    const LONGEST: usize = 256;
    /// A memo holding this many texts starts again, so that its size has a bound.
    const MOST: usize = 4096;

    pub(super) type Memo<V> = RefCell<HashMap<String, V>>;

    /// `f()`, the result of an earlier call for the same text when there was one (`f`
    /// must be a function of `text` alone).
    pub(super) fn memo<V: Clone>(
        memo: &'static LocalKey<Memo<V>>,
        text: &str,
        f: impl FnOnce() -> V,
    ) -> V {
        if text.len() > LONGEST {
            return f();
        }
        if let Some(v) = memo.with(|m| m.borrow().get(text).cloned()) {
            return v;
        }
        let v = f();
        memo.with(|m| {
            let mut m = m.borrow_mut();
            if m.len() >= MOST {
                m.clear();
            }
            m.insert(text.to_string(), v.clone());
        });
        v
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use std::cell::Cell;

        thread_local! {
            static LENGTHS: Memo<usize> = Memo::default();
            static CALLS: Cell<usize> = const { Cell::new(0) };
        }

        fn length(text: &str) -> usize {
            memo(&LENGTHS, text, || {
                CALLS.with(|c| c.set(c.get() + 1));
                text.len()
            })
        }

        #[test]
        fn a_short_text_is_computed_once_a_long_one_each_time() {
            let long = "x".repeat(LONGEST + 1);
            for _ in 0..3 {
                assert_eq!(length("string"), 6);
                assert_eq!(length(&long), LONGEST + 1);
            }
            assert_eq!(CALLS.with(Cell::get), 1 + 3);
        }

        #[test]
        fn a_full_memo_starts_again() {
            for i in 0..MOST + 10 {
                length(&i.to_string());
            }
            assert!(LENGTHS.with(|m| m.borrow().len()) <= MOST);
            assert_eq!(length("0"), 1);
        }
    }
}

use std::collections::BTreeSet;

pub(crate) use attrs::Attrs;

/// Numbers live with the syntax that reads them (a number literal must parse as one).
pub(crate) use crate::terraform::number::Number;
pub(crate) use convert::{
    convert, convert_error_with_defaults, convert_with_defaults, converts_to_itself,
};
pub(crate) use eval::{EvalError, eval_expr, eval_source, eval_valid_source};
pub(crate) use typeexpr::{
    DefaultError, TypeError, TypeSpec, check_default, default_fits, parse_type_source,
    parse_type_text, type_constraint_source,
};

/// A type, or a type constraint (which may contain `Dynamic`, written `any`, and optional
/// object attributes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Type {
    String,
    Number,
    Bool,
    Dynamic,
    List(Box<Type>),
    Set(Box<Type>),
    Map(Box<Type>),
    /// Attribute types by name, and the names of the optional ones. Boxed, so that a
    /// type (and a value, which holds its type when it is a null) stays small.
    Object(Box<ObjectType>),
    Tuple(Vec<Type>),
}

/// An object type's attributes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObjectType {
    pub attrs: Attrs<Type>,
    pub optional: BTreeSet<String>,
}

impl Type {
    pub fn object(attrs: Attrs<Type>) -> Type {
        Type::object_with(attrs, BTreeSet::new())
    }

    pub fn object_with(attrs: Attrs<Type>, optional: BTreeSet<String>) -> Type {
        Type::Object(Box::new(ObjectType { attrs, optional }))
    }

    pub fn is_primitive(&self) -> bool {
        matches!(self, Type::String | Type::Number | Type::Bool)
    }

    fn is_collection(&self) -> bool {
        matches!(self, Type::List(_) | Type::Set(_) | Type::Map(_))
    }

    fn element(&self) -> Option<&Type> {
        match self {
            Type::List(t) | Type::Set(t) | Type::Map(t) => Some(t),
            _ => None,
        }
    }

    /// Whether the type still holds `Dynamic` anywhere (a constraint, not a concrete type).
    pub fn has_dynamic(&self) -> bool {
        match self {
            Type::Dynamic => true,
            Type::List(t) | Type::Set(t) | Type::Map(t) => t.has_dynamic(),
            Type::Object(o) => o.attrs.values().any(Type::has_dynamic),
            Type::Tuple(t) => t.iter().any(Type::has_dynamic),
            _ => false,
        }
    }

    /// The same type with every optional-attribute marker dropped.
    pub fn without_optional(&self) -> Type {
        match self {
            Type::List(t) => Type::List(Box::new(t.without_optional())),
            Type::Set(t) => Type::Set(Box::new(t.without_optional())),
            Type::Map(t) => Type::Map(Box::new(t.without_optional())),
            Type::Object(o) => Type::object(
                o.attrs.iter().map(|(k, t)| (k.clone(), t.without_optional())).collect(),
            ),
            Type::Tuple(t) => Type::Tuple(t.iter().map(Type::without_optional).collect()),
            t => t.clone(),
        }
    }

    /// go-cty's `FriendlyName`.
    pub fn friendly(&self) -> String {
        match self {
            Type::String => "string".into(),
            Type::Number => "number".into(),
            Type::Bool => "bool".into(),
            Type::Dynamic => "dynamic".into(),
            Type::List(t) => format!("list of {}", t.friendly()),
            Type::Set(t) => format!("set of {}", t.friendly()),
            Type::Map(t) => format!("map of {}", t.friendly()),
            Type::Object(..) => "object".into(),
            Type::Tuple(_) => "tuple".into(),
        }
    }

    /// go-cty's `FriendlyNameForConstraint`.
    pub fn constraint_name(&self) -> String {
        match self {
            Type::Dynamic => "any type".into(),
            Type::List(t) => format!("list of {}", t.constraint_name()),
            Type::Set(t) => format!("set of {}", t.constraint_name()),
            Type::Map(t) => format!("map of {}", t.constraint_name()),
            t => t.friendly(),
        }
    }

    /// The type as Terraform writes it in configuration (`list(object({ a = string }))`).
    pub fn to_hcl(&self) -> String {
        match self {
            Type::Dynamic => "any".into(),
            Type::List(t) => format!("list({})", t.to_hcl()),
            Type::Set(t) => format!("set({})", t.to_hcl()),
            Type::Map(t) => format!("map({})", t.to_hcl()),
            Type::Object(o) => {
                let attrs: Vec<String> = o
                    .attrs
                    .iter()
                    .map(|(k, t)| {
                        if o.optional.contains(k) {
                            format!("{k} = optional({})", t.to_hcl())
                        } else {
                            format!("{k} = {}", t.to_hcl())
                        }
                    })
                    .collect();
                format!("object({{ {} }})", attrs.join(", "))
            }
            Type::Tuple(t) => {
                format!("tuple([{}])", t.iter().map(Type::to_hcl).collect::<Vec<_>>().join(", "))
            }
            t => t.friendly(),
        }
    }

    /// go-cty's JSON form of a type (`"string"`, `["list","number"]`, …); an object with
    /// optional attributes lists their names as a third element.
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::json;
        match self {
            Type::String => json!("string"),
            Type::Number => json!("number"),
            Type::Bool => json!("bool"),
            Type::Dynamic => json!("dynamic"),
            Type::List(t) => json!(["list", t.to_json()]),
            Type::Set(t) => json!(["set", t.to_json()]),
            Type::Map(t) => json!(["map", t.to_json()]),
            Type::Object(o) => {
                let attrs: serde_json::Map<String, serde_json::Value> =
                    o.attrs.iter().map(|(k, t)| (k.clone(), t.to_json())).collect();
                if o.optional.is_empty() {
                    json!(["object", attrs])
                } else {
                    json!(["object", attrs, o.optional.iter().collect::<Vec<_>>()])
                }
            }
            Type::Tuple(t) => json!(["tuple", t.iter().map(Type::to_json).collect::<Vec<_>>()]),
        }
    }
}

/// A known value with its type. Forty bytes: a variables file holds one for every value
/// in it (the element types of collections are boxed, objects are sorted lists).
#[derive(Clone, Debug)]
pub enum Value {
    /// A null of a type (`Dynamic` for a bare `null`).
    Null(Type),
    Bool(bool),
    Number(Number),
    String(String),
    /// Element type and elements.
    List(Box<Type>, Vec<Value>),
    /// Element type and elements, without duplicates, in go-cty's set order.
    Set(Box<Type>, Vec<Value>),
    Map(Box<Type>, Attrs<Value>),
    Tuple(Vec<Value>),
    Object(Attrs<Value>),
}

impl Value {
    pub fn ty(&self) -> Type {
        match self {
            Value::Null(t) => t.clone(),
            Value::Bool(_) => Type::Bool,
            Value::Number(_) => Type::Number,
            Value::String(_) => Type::String,
            Value::List(t, _) => Type::List(t.clone()),
            Value::Set(t, _) => Type::Set(t.clone()),
            Value::Map(t, _) => Type::Map(t.clone()),
            Value::Tuple(v) => Type::Tuple(v.iter().map(Value::ty).collect()),
            Value::Object(a) => Type::object(a.iter().map(|(k, v)| (k.clone(), v.ty())).collect()),
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null(_))
    }

    /// `self.ty() == *t`, without building the type (which is as large as the value).
    pub fn has_type(&self, t: &Type) -> bool {
        match (self, t) {
            (Value::Null(nt), t) => nt == t,
            (Value::Bool(_), Type::Bool)
            | (Value::Number(_), Type::Number)
            | (Value::String(_), Type::String) => true,
            (Value::List(e, _), Type::List(w))
            | (Value::Set(e, _), Type::Set(w))
            | (Value::Map(e, _), Type::Map(w)) => e == w,
            (Value::Tuple(items), Type::Tuple(w)) => {
                items.len() == w.len() && items.iter().zip(w).all(|(v, t)| v.has_type(t))
            }
            (Value::Object(attrs), Type::Object(o)) => {
                o.optional.is_empty()
                    && attrs.len() == o.attrs.len()
                    && attrs.iter().zip(&o.attrs).all(|((k, v), (n, t))| k == n && v.has_type(t))
            }
            _ => false,
        }
    }

    /// go-cty's `Equals` on known values: same type and same content (numbers by value).
    pub fn equals(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Null(a), Value::Null(b)) => {
                a == b || *a == Type::Dynamic || *b == Type::Dynamic
            }
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Number(a), Value::Number(b)) => a == b,
            (Value::String(a), Value::String(b)) => a == b,
            (Value::List(ta, a), Value::List(tb, b)) | (Value::Set(ta, a), Value::Set(tb, b)) => {
                ta == tb && a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.equals(y))
            }
            (Value::Tuple(a), Value::Tuple(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.equals(y))
            }
            (Value::Map(ta, a), Value::Map(tb, b)) => ta == tb && attrs_equal(a, b),
            (Value::Object(a), Value::Object(b)) => attrs_equal(a, b),
            _ => false,
        }
    }

    /// Builds a set: duplicates dropped, elements in go-cty's order (strings by bytes,
    /// numbers by value, `false` before `true`, nulls last; other types by their hash text).
    pub fn set(ety: Type, elems: Vec<Value>) -> Value {
        let mut out: Vec<Value> = Vec::with_capacity(elems.len());
        for e in elems {
            if !out.iter().any(|o| o.equals(&e)) {
                out.push(e);
            }
        }
        out.sort_by(set_order);
        Value::Set(Box::new(ety), out)
    }

    /// The value as Terraform writes it in JSON (`terraform show -json`): numbers in plain
    /// decimal notation, objects with sorted keys.
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            Value::Null(_) => serde_json::Value::Null,
            Value::Bool(b) => serde_json::Value::Bool(*b),
            Value::Number(n) => match n {
                Number::Inf { .. } => serde_json::Value::String(n.to_text()),
                _ => n
                    .to_text()
                    .parse::<serde_json::Number>()
                    .map(serde_json::Value::Number)
                    .unwrap_or_else(|_| serde_json::Value::String(n.to_text())),
            },
            Value::String(s) => serde_json::Value::String(s.clone()),
            Value::List(_, v) | Value::Set(_, v) | Value::Tuple(v) => {
                serde_json::Value::Array(v.iter().map(Value::to_json).collect())
            }
            Value::Map(_, a) | Value::Object(a) => {
                serde_json::Value::Object(a.iter().map(|(k, v)| (k.clone(), v.to_json())).collect())
            }
        }
    }

    /// The value as HCL source text, for human-readable reports.
    pub fn to_hcl(&self) -> String {
        match self {
            Value::Null(_) => "null".into(),
            Value::Bool(b) => b.to_string(),
            Value::Number(n) => n.to_text(),
            Value::String(s) => crate::terraform::expr::hcl_quote(s),
            Value::List(_, v) | Value::Set(_, v) | Value::Tuple(v) => {
                format!("[{}]", v.iter().map(Value::to_hcl).collect::<Vec<_>>().join(", "))
            }
            Value::Map(_, a) | Value::Object(a) => {
                if a.is_empty() {
                    return "{}".into();
                }
                let items: Vec<String> = a
                    .iter()
                    .map(|(k, v)| {
                        let key = if crate::terraform::expr::is_ident(k) {
                            k.clone()
                        } else {
                            crate::terraform::expr::hcl_quote(k)
                        };
                        format!("{key} = {}", v.to_hcl())
                    })
                    .collect();
                format!("{{ {} }}", items.join(", "))
            }
        }
    }

    /// go-cty's set hash text (`appendSetHashBytes`), which orders sets of non-primitives.
    fn hash_text(&self, out: &mut String) {
        match self {
            Value::Null(_) => out.push('~'),
            Value::Number(n) => out.push_str(&n.to_g10()),
            Value::Bool(b) => out.push(if *b { 'T' } else { 'F' }),
            Value::String(s) => out.push_str(&go_quote(s)),
            Value::Map(_, a) => {
                out.push('{');
                for (k, v) in a {
                    out.push_str(&go_quote(k));
                    out.push(':');
                    v.hash_text(out);
                    out.push(';');
                }
                out.push('}');
            }
            Value::List(_, v) | Value::Set(_, v) => {
                out.push('[');
                for e in v {
                    e.hash_text(out);
                    out.push(';');
                }
                out.push(']');
            }
            Value::Object(a) => {
                out.push('<');
                for v in a.values() {
                    v.hash_text(out);
                    out.push(';');
                }
                out.push('>');
            }
            Value::Tuple(v) => {
                out.push('<');
                for e in v {
                    e.hash_text(out);
                    out.push(';');
                }
                out.push('>');
            }
        }
    }
}

fn attrs_equal(a: &Attrs<Value>, b: &Attrs<Value>) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|((ka, va), (kb, vb))| ka == kb && va.equals(vb))
}

fn set_order(a: &Value, b: &Value) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    match (a, b) {
        (Value::Null(_), Value::Null(_)) => Ordering::Equal,
        (Value::Null(_), _) => Ordering::Greater,
        (_, Value::Null(_)) => Ordering::Less,
        (Value::String(x), Value::String(y)) => x.as_bytes().cmp(y.as_bytes()),
        (Value::Number(x), Value::Number(y)) => x.cmp_num(y),
        (Value::Bool(x), Value::Bool(y)) => x.cmp(y),
        _ => {
            let (mut x, mut y) = (String::new(), String::new());
            a.hash_text(&mut x);
            b.hash_text(&mut y);
            x.as_bytes().cmp(y.as_bytes())
        }
    }
}

/// Go's `%q` for the strings go-cty hashes: quotes, backslashes and control characters
/// escaped.
fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod corpus;

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: &str) -> Value {
        Value::String(x.into())
    }

    #[test]
    fn sets_sort_and_dedupe_like_cty() {
        let v =
            Value::set(Type::String, vec![s("b"), s("B"), s("é"), s("a"), s("10"), s("9"), s("a")]);
        assert_eq!(v.to_json().to_string(), r#"["10","9","B","a","b","é"]"#);
        let l = |x: &[&str]| Value::List(Box::new(Type::String), x.iter().map(|e| s(e)).collect());
        let v = Value::set(
            Type::List(Box::new(Type::String)),
            vec![l(&["b"]), l(&["a", "z"]), l(&["a"])],
        );
        assert_eq!(v.to_json().to_string(), r#"[["a","z"],["a"],["b"]]"#);
    }

    #[test]
    fn types_print_in_cty_json() {
        let t = Type::object_with(
            [("a".to_string(), Type::String), ("b".to_string(), Type::Number)].into(),
            ["b".to_string()].into(),
        );
        assert_eq!(t.to_json().to_string(), r#"["object",{"a":"string","b":"number"},["b"]]"#);
        assert_eq!(t.to_hcl(), "object({ a = string, b = optional(number) })");
    }
}
