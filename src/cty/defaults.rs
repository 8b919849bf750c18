//! go-cty's `typeexpr.Defaults`: the defaults of a type constraint's optional attributes,
//! applied to a value before it is converted. Read from type expressions (`typeexpr`),
//! applied by the conversion (`convert`), so it stands below both.

use super::{Attrs, Type, Value};
use std::collections::BTreeMap;

/// The defaults of the optional attributes of a type constraint (`typeexpr.Defaults`):
/// values by attribute name, and the defaults of nested types (by attribute name, by
/// tuple index, or `""` for a collection's elements).
#[derive(Clone, Debug)]
pub struct Defaults {
    /// The type the defaults are for: it says how a child is found (by name, by index, or
    /// the one of every element).
    pub(super) ty: Type,
    pub(super) values: BTreeMap<String, Value>,
    pub(super) children: BTreeMap<String, Defaults>,
}

impl Defaults {
    fn child(&self, key: &str) -> Option<&Defaults> {
        match &self.ty {
            Type::List(_) | Type::Set(_) | Type::Map(_) => self.children.get(""),
            Type::Tuple(_) | Type::Object(..) => self.children.get(key),
            _ => None,
        }
    }

    /// Where the type has defaults, as attribute paths (`size`, `disks[*].type`).
    pub fn paths(&self) -> Vec<String> {
        let mut out = Vec::new();
        self.collect("", &mut out);
        out
    }

    fn collect(&self, prefix: &str, out: &mut Vec<String>) {
        let path_of = |k: &str| match &self.ty {
            Type::List(_) | Type::Set(_) | Type::Map(_) => format!("{prefix}[*]"),
            Type::Tuple(_) => format!("{prefix}[{k}]"),
            _ if prefix.is_empty() => k.to_string(),
            _ => format!("{prefix}.{k}"),
        };
        for k in self.values.keys() {
            out.push(path_of(k));
        }
        for (k, c) in &self.children {
            c.collect(&path_of(k), out);
        }
    }

    /// Fills missing or null optional attributes with their defaults, all the way down.
    pub fn apply(&self, v: &Value) -> Value {
        match v {
            Value::Null(_) => v.clone(),
            Value::Tuple(items) => Value::Tuple(self.apply_items(items)),
            Value::List(ety, items) => Value::List(ety.clone(), self.apply_items(items)),
            Value::Set(ety, items) => Value::set((**ety).clone(), self.apply_items(items)),
            Value::Object(attrs) => Value::Object(self.apply_attrs(attrs)),
            Value::Map(ety, attrs) => Value::Map(ety.clone(), self.apply_attrs(attrs)),
            _ => v.clone(),
        }
    }

    fn apply_items(&self, items: &[Value]) -> Vec<Value> {
        items
            .iter()
            .enumerate()
            .map(|(i, e)| match self.child(&i.to_string()) {
                Some(d) => d.apply(e),
                None => e.clone(),
            })
            .collect()
    }

    fn apply_attrs(&self, attrs: &Attrs<Value>) -> Attrs<Value> {
        let mut out: Attrs<Value> = attrs
            .iter()
            .map(|(k, e)| {
                let v = match self.child(k) {
                    Some(d) => d.apply(e),
                    None => e.clone(),
                };
                (k.clone(), v)
            })
            .collect();
        let mut filled = Vec::new();
        for (k, dv) in &self.values {
            if out.get(k).is_none_or(Value::is_null) {
                let v = match self.children.get(k) {
                    Some(d) => d.apply(dv),
                    None => dv.clone(),
                };
                filled.push((k.clone(), v));
            }
        }
        // Added at once, a default replacing a null (the last of a name wins): one by one,
        // each moved the entries after it.
        if !filled.is_empty() {
            out = out.into_iter().chain(filled).collect();
        }
        out
    }
}
