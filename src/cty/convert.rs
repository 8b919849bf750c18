//! go-cty's `convert` package: a conversion is first planned from the two types (a failure
//! there is reported in words: `element 1: string required, but have tuple`), then run on
//! the value (a failure there carries a cty path: `[1]: a number is required`). Terraform
//! always converts in "unsafe" mode, so string→number/bool and list→set are allowed.

use super::defaults::Defaults;
use super::{Attrs, Number, ObjectType, Type, Value};

/// A step of a cty path, for run-time errors.
enum PathStep {
    Index(i64),
    Key(String),
    Attr(String),
}

struct RunError {
    path: Vec<PathStep>,
    msg: String,
}

impl RunError {
    fn path_text(&self) -> String {
        let mut p = String::new();
        for s in &self.path {
            match s {
                PathStep::Index(i) => p.push_str(&format!("[{i}]")),
                PathStep::Key(k) => p.push_str(&format!("[{}]", super::go_quote(k))),
                PathStep::Attr(a) => p.push_str(&format!(".{a}")),
            }
        }
        p
    }
}

/// Converts `v` to the constraint `want`, as Terraform converts a variable's value:
/// the constraint's optional-attribute defaults are applied first (not to a null value).
pub(crate) fn convert_with_defaults(
    v: &Value,
    want: &Type,
    defaults: Option<&Defaults>,
) -> Result<Value, String> {
    match defaults {
        Some(d) if !v.is_null() => convert(&d.apply(v), want),
        _ => convert(v, want),
    }
}

/// [`convert_with_defaults`] with the error's path and message apart.
pub(crate) fn convert_error_with_defaults(
    v: &Value,
    want: &Type,
    defaults: Option<&Defaults>,
) -> Result<Value, (String, String)> {
    match defaults {
        Some(d) if !v.is_null() => convert_error(&d.apply(v), want),
        _ => convert_error(v, want),
    }
}

/// go-cty's `convert.Convert`: the converted value, or the error text Terraform prints after
/// "…type constraint: " (with the cty path where the value failed).
pub(crate) fn convert(v: &Value, want: &Type) -> Result<Value, String> {
    convert_error(v, want)
        .map_err(|(path, msg)| if path.is_empty() { msg } else { format!("{path}: {msg}") })
}

/// [`convert`] with the error's cty path and message apart: Terraform prints input-variable
/// errors without the path.
///
/// The value's type is not built to plan the conversion (go-cty does, and a type is as
/// large as its value): the checks walk the value itself, and build the types of elements
/// only where a constraint's `any` needs them unified. The type is built for the message
/// of a conversion that cannot be.
pub(super) fn convert_error(v: &Value, want: &Type) -> Result<Value, (String, String)> {
    if v.has_type(want) {
        return Ok(v.clone());
    }
    if !convertible_value(v, want) {
        return Err((String::new(), mismatch_message(&v.ty(), want)));
    }
    let mut path = Vec::new();
    run(v, want, &mut path).map_err(|e| (e.path_text(), e.msg))
}

/// Whether converting `v` to `want` is the value itself: what [`convert_with_defaults`]
/// gives is then equal to `v`, and need not be a copy of it.
pub(crate) fn converts_to_itself(v: &Value, want: &Type, defaults: Option<&Defaults>) -> bool {
    (defaults.is_none() || v.is_null()) && (*want == Type::Dynamic || v.has_type(want))
}

/// [`convertible`] of the value's type, without building it.
fn convertible_value(v: &Value, want: &Type) -> bool {
    if *want == Type::Dynamic {
        return true;
    }
    match (v, want) {
        (Value::Object(attrs), Type::Object(w)) => {
            w.attrs.iter().all(|(name, wt)| match attrs.get(name) {
                Some(a) => convertible_value(a, wt),
                None => w.optional.contains(name),
            })
        }
        (Value::Tuple(items), Type::Tuple(w)) => {
            items.len() == w.len() && items.iter().zip(w).all(|(e, t)| convertible_value(e, t))
        }
        (Value::Tuple(items), Type::List(w) | Type::Set(w)) => {
            sequence_target_values(items.iter(), w, true).is_some()
        }
        (Value::Object(attrs), Type::Map(w)) => {
            sequence_target_values(attrs.values(), w, false).is_some()
        }
        (Value::Tuple(_) | Value::Object(_), _) => false,
        // The type of anything else is small: its element type, or a primitive.
        _ => convertible(&v.ty(), want),
    }
}

/// [`sequence_target`] of the values' types, built only when `want` is `any`.
fn sequence_target_values<'a>(
    mut elems: impl ExactSizeIterator<Item = &'a Value>,
    want: &Type,
    strict_dynamic: bool,
) -> Option<Type> {
    if *want == Type::Dynamic {
        let types: Vec<Type> = elems.map(Value::ty).collect();
        return sequence_target(&types, want, strict_dynamic);
    }
    elems.all(|e| convertible_value(e, want)).then(|| want.clone())
}

/// Whether go-cty finds a conversion (`getConversion(in, out, unsafe=true) != nil`).
fn convertible(got: &Type, want: &Type) -> bool {
    if got == want || *want == Type::Dynamic || *got == Type::Dynamic {
        return true;
    }
    match (got, want) {
        (a, b) if a.is_primitive() && b.is_primitive() => {
            // number↔bool has no conversion; everything else goes through strings.
            !matches!((a, b), (Type::Number, Type::Bool) | (Type::Bool, Type::Number))
        }
        (Type::Object(g), Type::Object(w)) => {
            w.attrs.iter().all(|(name, wt)| match g.attrs.get(name) {
                Some(gt) => convertible(gt, wt),
                None => w.optional.contains(name),
            })
        }
        (Type::Tuple(g), Type::Tuple(w)) => {
            g.len() == w.len() && g.iter().zip(w).all(|(a, b)| convertible(a, b))
        }
        (Type::List(g) | Type::Set(g), Type::List(w) | Type::Set(w)) => convertible(g, w),
        (Type::Map(g), Type::Map(w)) => convertible(g, w),
        (Type::Tuple(g), Type::List(w) | Type::Set(w)) => sequence_target(g, w, true).is_some(),
        (Type::Object(g), Type::Map(w)) => {
            let g: Vec<Type> = g.attrs.values().cloned().collect();
            sequence_target(&g, w, false).is_some()
        }
        (Type::Map(_), Type::Object(..)) => true,
        _ => false,
    }
}

/// The element type that a tuple's (or an object's) element types convert to for a
/// collection of `want`: `want` itself, or for `any` the unified type. `None` when there
/// is none. `strict_dynamic` is the list/set rule that a dynamic result needs all-dynamic
/// elements.
fn sequence_target(elems: &[Type], want: &Type, strict_dynamic: bool) -> Option<Type> {
    if elems.is_empty() {
        return Some(want.clone());
    }
    let mut ety = want.clone();
    if *want == Type::Dynamic {
        ety = unify(elems)?;
        if strict_dynamic && ety == Type::Dynamic && elems.iter().any(|t| *t != Type::Dynamic) {
            return None;
        }
    }
    elems.iter().all(|t| convertible(t, &ety)).then_some(ety)
}

fn run(v: &Value, want: &Type, path: &mut Vec<PathStep>) -> Result<Value, RunError> {
    if *want == Type::Dynamic {
        return Ok(v.clone());
    }
    if let Value::Null(_) = v {
        return Ok(Value::Null(want.without_optional()));
    }
    if v.has_type(want) {
        return Ok(v.clone());
    }
    Ok(match (v, want) {
        (Value::Number(n), Type::String) => Value::String(n.to_text()),
        (Value::Bool(b), Type::String) => Value::String(b.to_string()),
        (Value::String(s), Type::Number) => match Number::parse(s) {
            Some(n) => Value::Number(n),
            None => return Err(fail(path, "a number is required".into())),
        },
        (Value::String(s), Type::Bool) => match s.as_str() {
            "true" | "1" => Value::Bool(true),
            "false" | "0" => Value::Bool(false),
            _ => {
                let hint = match s.to_lowercase().as_str() {
                    "true" => "a bool is required; to convert from string, use lowercase \"true\"",
                    "false" => {
                        "a bool is required; to convert from string, use lowercase \"false\""
                    }
                    _ => "a bool is required",
                };
                return Err(fail(path, hint.into()));
            }
        },
        (Value::Object(attrs), Type::Object(w)) => object_from_object(attrs, w, path)?,
        (Value::Map(_, m), Type::Object(w)) => object_from_map(m, w, path)?,
        (Value::Tuple(items), Type::Tuple(wt)) => {
            let mut out = Vec::with_capacity(items.len());
            for (i, (e, t)) in items.iter().zip(wt).enumerate() {
                path.push(PathStep::Index(i as i64));
                out.push(run(e, t, path)?);
                path.pop();
            }
            Value::Tuple(out)
        }
        (
            Value::Tuple(items) | Value::List(_, items) | Value::Set(_, items),
            Type::List(w) | Type::Set(w),
        ) => {
            // Against an element type, the target is that type (whether or not all the
            // elements convert: the one that does not fails below, with its path).
            let ety = match v {
                Value::Tuple(_) if **w == Type::Dynamic => {
                    let types: Vec<Type> = items.iter().map(Value::ty).collect();
                    sequence_target(&types, w, true).unwrap_or((**w).clone())
                }
                _ => (**w).clone(),
            };
            let mut out = Vec::with_capacity(items.len());
            for (i, e) in items.iter().enumerate() {
                path.push(PathStep::Index(i as i64));
                out.push(run(e, &ety, path)?);
                path.pop();
            }
            let (ety, out) = settle(ety, out, path)?;
            match want {
                Type::Set(_) => Value::set(ety, out),
                _ => Value::List(Box::new(ety), out),
            }
        }
        (Value::Object(items) | Value::Map(_, items), Type::Map(w)) => {
            let ety = match v {
                Value::Object(_) if **w == Type::Dynamic => {
                    let types: Vec<Type> = items.values().map(Value::ty).collect();
                    sequence_target(&types, w, false).unwrap_or((**w).clone())
                }
                _ => (**w).clone(),
            };
            let mut out = Vec::with_capacity(items.len());
            for (k, e) in items {
                path.push(PathStep::Key(k.clone()));
                out.push(run(e, &ety, path)?);
                path.pop();
            }
            let (ety, out) = settle(ety, out, path)?;
            Value::Map(Box::new(ety), items.keys().cloned().zip(out).collect())
        }
        _ => return Err(fail(path, mismatch_message(&v.ty(), want))),
    })
}

/// An object converted to an object type: the attributes it names, each converted, and
/// its optional attributes the value lacks, null.
fn object_from_object(
    attrs: &Attrs<Value>,
    w: &ObjectType,
    path: &mut Vec<PathStep>,
) -> Result<Value, RunError> {
    let (wa, wopt) = (&w.attrs, &w.optional);
    let mut out = Attrs::with_capacity(wa.len());
    for (name, a) in attrs {
        let Some(wt) = wa.get(name) else { continue };
        path.push(PathStep::Attr(name.clone()));
        let mut c = run(a, wt, path)?;
        path.pop();
        if let Value::Null(t) = &c {
            c = Value::Null(t.without_optional());
        }
        out.insert(name.clone(), c);
    }
    let missing: Vec<(String, Value)> = wopt
        .iter()
        .filter(|name| !out.contains_key(name))
        .map(|name| {
            let t = wa.get(name).map(Type::without_optional).unwrap_or(Type::Dynamic);
            (name.clone(), Value::Null(t))
        })
        .collect();
    // Added at once (sorted in): one by one, each moved the entries after it.
    if !missing.is_empty() {
        out = out.into_iter().chain(missing).collect();
    }
    Ok(Value::Object(out))
}

/// A map converted to an object type: each attribute from its element; a missing
/// optional one null, a missing required one an error.
fn object_from_map(
    m: &Attrs<Value>,
    w: &ObjectType,
    path: &mut Vec<PathStep>,
) -> Result<Value, RunError> {
    let (wa, wopt) = (&w.attrs, &w.optional);
    let mut out = Attrs::with_capacity(wa.len());
    for (name, wt) in wa {
        match m.get(name) {
            Some(e) => {
                path.push(PathStep::Attr(name.clone()));
                out.insert(name.clone(), run(e, wt, path)?);
                path.pop();
            }
            None if wopt.contains(name) => {
                out.insert(name.clone(), Value::Null(wt.without_optional()));
            }
            None => {
                return Err(fail(
                    path,
                    format!("map has no element for required attribute {}", super::go_quote(name)),
                ));
            }
        }
    }
    Ok(Value::Object(out))
}

/// A conversion's failure at `path` (taken: the conversion stops here).
fn fail(path: &mut Vec<PathStep>, msg: String) -> RunError {
    RunError { path: std::mem::take(path), msg }
}

/// Elements converted to a constraint that still holds `any` may come out with different
/// types (`[[1], ["a"]]` as `list(list(any))`); like go-cty, unify them once more.
fn settle(
    ety: Type,
    out: Vec<Value>,
    path: &mut Vec<PathStep>,
) -> Result<(Type, Vec<Value>), RunError> {
    let ety = ety.without_optional();
    if !ety.has_dynamic() {
        return Ok((ety, out));
    }
    let types: Vec<Type> = out.iter().map(Value::ty).collect();
    let Some(first) = types.first() else {
        return Ok((ety, out));
    };
    if types.iter().all(|t| t == first) {
        return Ok((first.clone(), out));
    }
    let Some(u) = unify(&types) else {
        return Err(RunError {
            path: std::mem::take(path),
            msg: "all elements must have the same type".into(),
        });
    };
    let mut settled = Vec::with_capacity(out.len());
    for e in &out {
        settled.push(run(e, &u, path)?);
    }
    Ok((u, settled))
}

/// go-cty's `unify` (unsafe): the type all of `types` convert to, never one that none of
/// them has, except for the structural cases that build one.
pub(super) fn unify(types: &[Type]) -> Option<Type> {
    if types.is_empty() {
        return None;
    }
    let count = |f: fn(&Type) -> bool| types.iter().filter(|t| f(t)).count();
    let maps = count(|t| matches!(t, Type::Map(_)));
    let lists = count(|t| matches!(t, Type::List(_)));
    let sets = count(|t| matches!(t, Type::Set(_)));
    let objects = count(|t| matches!(t, Type::Object(..)));
    let tuples = count(|t| matches!(t, Type::Tuple(_)));
    let dynamics = count(|t| *t == Type::Dynamic);
    let n = types.len();
    let elements = || types.iter().filter_map(Type::element).cloned().collect::<Vec<_>>();
    if maps > 0 && maps + dynamics == n {
        if dynamics > 0 {
            return Some(Type::Dynamic);
        }
        return unify(&elements()).map(|t| Type::Map(Box::new(t)));
    }
    if maps > 0 && maps + objects + dynamics == n {
        let mut all = Vec::new();
        for t in types {
            match t {
                Type::Map(e) => all.push((**e).clone()),
                Type::Object(o) => all.extend(o.attrs.values().cloned()),
                _ => {}
            }
        }
        if let Some(e) = unify(&all) {
            return Some(Type::Map(Box::new(e)));
        }
    } else if lists > 0 && lists + dynamics == n {
        if dynamics > 0 {
            return Some(Type::Dynamic);
        }
        return unify(&elements()).map(|t| Type::List(Box::new(t)));
    } else if sets > 0 && sets + dynamics == n {
        if dynamics > 0 {
            return Some(Type::Dynamic);
        }
        return unify(&elements()).map(|t| Type::Set(Box::new(t)));
    } else if objects > 0 && objects + dynamics == n {
        return if dynamics > 0 { Some(Type::Dynamic) } else { unify_objects(types) };
    } else if tuples > 0 && tuples + dynamics == n {
        return if dynamics > 0 { Some(Type::Dynamic) } else { unify_tuples(types) };
    } else if objects > 0 && tuples > 0 {
        return None;
    }
    // The most general of the given types that all the others convert to.
    'pref: for want in sort_types(types) {
        for t in types {
            if t != want && !convertible(t, want) {
                continue 'pref;
            }
        }
        return Some(want.clone());
    }
    None
}

fn unify_objects(types: &[Type]) -> Option<Type> {
    let attrs: Vec<&Attrs<Type>> = types
        .iter()
        .filter_map(|t| match t {
            Type::Object(o) => Some(&o.attrs),
            _ => None,
        })
        .collect();
    let first = attrs[0];
    let same =
        attrs.iter().all(|a| a.len() == first.len() && a.keys().all(|k| first.contains_key(k)));
    if !same {
        let all: Vec<Type> = attrs.iter().flat_map(|a| a.values().cloned()).collect();
        return unify(&all).map(|t| Type::Map(Box::new(t)));
    }
    let mut out = Attrs::new();
    for name in first.keys() {
        let across: Vec<Type> = attrs.iter().filter_map(|a| a.get(name).cloned()).collect();
        out.insert(name.clone(), unify(&across)?);
    }
    Some(Type::object(out))
}

fn unify_tuples(types: &[Type]) -> Option<Type> {
    let elems: Vec<&Vec<Type>> = types
        .iter()
        .filter_map(|t| match t {
            Type::Tuple(e) => Some(e),
            _ => None,
        })
        .collect();
    let len = elems[0].len();
    if elems.iter().any(|e| e.len() != len) {
        let all: Vec<Type> = elems.iter().flat_map(|e| e.iter().cloned()).collect();
        return unify(&all).map(|t| Type::List(Box::new(t)));
    }
    let mut out = Vec::with_capacity(len);
    for i in 0..len {
        let across: Vec<Type> = elems.iter().map(|e| e[i].clone()).collect();
        out.push(unify(&across)?);
    }
    Some(Type::Tuple(out))
}

/// go-cty's `sortTypes`: a topological order of "more general than", most general first.
fn sort_types(types: &[Type]) -> Vec<&Type> {
    let n = types.len();
    let mut edges: Vec<Vec<usize>> = vec![Vec::new(); n];
    for i in 0..n {
        for j in i + 1..n {
            match compare_types(&types[i], &types[j]) {
                c if c < 0 => edges[i].push(j),
                c if c > 0 => edges[j].push(i),
                _ => {}
            }
        }
    }
    let mut indeg = vec![0; n];
    for outs in &edges {
        for j in outs {
            indeg[*j] += 1;
        }
    }
    let mut order: Vec<usize> = (0..n).filter(|i| indeg[*i] == 0).collect();
    let mut k = 0;
    while k < order.len() {
        let i = order[k];
        k += 1;
        for j in &edges[i] {
            indeg[*j] -= 1;
            if indeg[*j] == 0 {
                order.push(*j);
            }
        }
    }
    order.into_iter().map(|i| &types[i]).collect()
}

/// go-cty's `compareTypes`: negative when `a` is preferred (more general).
fn compare_types(a: &Type, b: &Type) -> i32 {
    if *a == Type::Dynamic || *b == Type::Dynamic {
        return match (*a == Type::Dynamic, *b == Type::Dynamic) {
            (false, _) => -1,
            (_, false) => 1,
            _ => 0,
        };
    }
    if a.is_primitive() && b.is_primitive() && (*a == Type::String || *b == Type::String) {
        return match (*a == Type::String, *b == Type::String) {
            (false, _) => 1,
            (_, false) => -1,
            _ => 0,
        };
    }
    match (a, b) {
        (Type::List(x), Type::List(y))
        | (Type::Set(x), Type::Set(y))
        | (Type::Map(x), Type::Map(y)) => {
            return compare_types(x, y);
        }
        _ => {}
    }
    let (a, b, swap) = match (a, b) {
        (Type::Tuple(_), Type::List(_))
        | (Type::Object(..), Type::Map(_))
        | (Type::Set(_), Type::Tuple(_))
        | (Type::Set(_), Type::List(_)) => (b, a, -1),
        _ => (a, b, 1),
    };
    match (a, b) {
        (Type::Tuple(_) | Type::List(_), Type::Set(_)) => -swap,
        (Type::List(_), Type::Tuple(_)) => -swap,
        (Type::Map(_), Type::Object(..)) => -swap,
        (Type::Object(x), Type::Object(y)) => {
            let (x, y) = (&x.attrs, &y.attrs);
            if x.len() != y.len() || x.keys().any(|k| !y.contains_key(k)) {
                return 0;
            }
            // The same names, so the same order.
            super_side(x.values().zip(y.values()).map(|(p, q)| compare_types(p, q)))
        }
        (Type::Tuple(x), Type::Tuple(y)) => {
            if x.len() != y.len() {
                return 0;
            }
            super_side(x.iter().zip(y).map(|(p, q)| compare_types(p, q)))
        }
        _ => 0,
    }
}

fn super_side(cmps: impl Iterator<Item = i32>) -> i32 {
    let (mut a_super, mut b_super) = (false, false);
    for c in cmps {
        if c < 0 {
            a_super = true;
        } else if c > 0 {
            b_super = true;
        }
    }
    match (a_super, b_super) {
        (true, false) => -1,
        (false, true) => 1,
        _ => 0,
    }
}

/// go-cty's `MismatchMessage`: why no conversion from `got` to `want` exists.
fn mismatch_message(got: &Type, want: &Type) -> String {
    match (got, want) {
        (Type::Object(..), Type::Object(..)) => mismatch_objects(got, want),
        (Type::Tuple(_), Type::List(e)) if **e == Type::Dynamic => {
            "all list elements must have the same type".into()
        }
        (Type::Tuple(_), Type::Set(e)) if **e == Type::Dynamic => {
            "all set elements must have the same type".into()
        }
        (Type::Object(..), Type::Map(e)) if **e == Type::Dynamic => {
            "all map elements must have the same type".into()
        }
        (Type::Tuple(_) | Type::Object(..), w) if w.is_collection() => {
            mismatch_from_structural(got, want)
        }
        (g, w) if g.is_collection() && w.is_collection() => mismatch_collections(got, want),
        (_, Type::Tuple(_)) => format!("{} required", want.constraint_name()),
        _ => format!("{} required, but have {}", want.constraint_name(), got.friendly()),
    }
}

fn mismatch_objects(got: &Type, want: &Type) -> String {
    let (Type::Object(g), Type::Object(w)) = (got, want) else {
        return "incorrect object attributes".into();
    };
    let (ga, wa, wopt) = (&g.attrs, &w.attrs, &w.optional);
    let mut missing = Vec::new();
    let mut mismatched = None;
    for (name, wt) in wa {
        match ga.get(name) {
            None if !wopt.contains(name) => missing.push(name),
            None => {}
            Some(gt) if gt == wt => {}
            Some(gt) if mismatched.is_none() && !convertible(gt, wt) => {
                mismatched = Some((name, gt, wt));
            }
            Some(_) => {}
        }
    }
    let q = |s: &str| super::go_quote(s);
    match missing.as_slice() {
        [] => {}
        [a] => return format!("attribute {} is required", q(a)),
        [a, b] => return format!("attributes {} and {} are required", q(a), q(b)),
        [init @ .., last] => {
            let list: Vec<String> = init.iter().map(|n| format!("{}, ", q(n))).collect();
            return format!("attributes {}and {} are required", list.concat(), q(last));
        }
    }
    match mismatched {
        Some((name, gt, wt)) => format!("attribute {}: {}", q(name), mismatch_message(gt, wt)),
        None => "incorrect object attributes".into(),
    }
}

fn mismatch_from_structural(got: &Type, want: &Type) -> String {
    let wrong_kind = match want {
        Type::List(_) | Type::Set(_) => !matches!(got, Type::Tuple(_)),
        Type::Map(_) => !matches!(got, Type::Object(..)),
        _ => false,
    };
    if wrong_kind {
        return format!("{} required", want.constraint_name());
    }
    let Some(wety) = want.element() else {
        return "incorrect type".into();
    };
    match got {
        Type::Tuple(elems) => {
            for (i, e) in elems.iter().enumerate() {
                if e != wety && !convertible(e, wety) {
                    return format!("element {i}: {}", mismatch_message(e, wety));
                }
            }
        }
        Type::Object(o) => {
            for (name, a) in &o.attrs {
                if a != wety && !convertible(a, wety) {
                    return format!(
                        "element {}: {}",
                        super::go_quote(name),
                        mismatch_message(a, wety)
                    );
                }
            }
        }
        _ => return "incorrect type".into(),
    }
    format!("all elements must be {}", wety.constraint_name())
}

fn mismatch_collections(got: &Type, want: &Type) -> String {
    let wrong_kind = match want {
        Type::List(_) | Type::Set(_) => !matches!(got, Type::List(_) | Type::Set(_)),
        Type::Map(_) => !matches!(got, Type::Map(_)),
        _ => false,
    };
    if wrong_kind {
        return format!("{} required", want.constraint_name());
    }
    let noun = match want {
        Type::List(_) => "list element type",
        Type::Set(_) => "set element type",
        _ => "map element type",
    };
    match (got.element(), want.element()) {
        (Some(g), Some(w)) => format!("incorrect {noun}: {}", mismatch_message(g, w)),
        _ => "incorrect type".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values() -> Vec<Value> {
        let n = |i: i64| Value::Number(Number::from_i64(i));
        let s = |t: &str| Value::String(t.into());
        let obj = |pairs: &[(&str, Value)]| {
            Value::Object(pairs.iter().map(|(k, v)| (k.to_string(), v.clone())).collect())
        };
        vec![
            Value::Null(Type::Dynamic),
            Value::Null(Type::String),
            Value::Null(Type::List(Box::new(Type::Number))),
            Value::Bool(true),
            n(1),
            s("1"),
            s("x"),
            Value::Tuple(Vec::new()),
            Value::Tuple(vec![n(1), s("a")]),
            Value::Tuple(vec![n(1), n(2)]),
            Value::Tuple(vec![Value::Tuple(vec![n(1)]), Value::Tuple(vec![s("a")])]),
            obj(&[]),
            obj(&[("a", n(1))]),
            obj(&[("a", n(1)), ("b", s("x"))]),
            obj(&[("a", obj(&[("c", Value::Bool(false))]))]),
            Value::List(Box::new(Type::String), vec![s("a")]),
            Value::Set(Box::new(Type::Number), vec![n(1)]),
            Value::Map(Box::new(Type::String), [("k".to_string(), s("v"))].into()),
        ]
    }

    fn types() -> Vec<Type> {
        let list = |t: Type| Type::List(Box::new(t));
        let object = |pairs: &[(&str, Type)], optional: &[&str]| {
            Type::object_with(
                pairs.iter().map(|(k, t)| (k.to_string(), t.clone())).collect(),
                optional.iter().map(|k| k.to_string()).collect(),
            )
        };
        vec![
            Type::Dynamic,
            Type::String,
            Type::Number,
            Type::Bool,
            list(Type::Dynamic),
            list(Type::String),
            list(Type::Number),
            list(list(Type::Dynamic)),
            Type::Set(Box::new(Type::Number)),
            Type::Map(Box::new(Type::String)),
            Type::Map(Box::new(Type::Dynamic)),
            Type::Tuple(vec![Type::Number, Type::String]),
            Type::Tuple(Vec::new()),
            object(&[], &[]),
            object(&[("a", Type::Number)], &[]),
            object(&[("a", Type::Number), ("b", Type::String)], &["b"]),
            object(&[("a", Type::Number), ("b", Type::String)], &[]),
            object(&[("a", object(&[("c", Type::Bool)], &[]))], &[]),
            object(&[("z", Type::Dynamic)], &["z"]),
        ]
    }

    /// The checks made on values decide as those made on their types, which go-cty makes.
    #[test]
    fn planning_on_the_value_decides_as_planning_on_its_type() {
        for v in values() {
            for t in types() {
                assert_eq!(v.has_type(&t), v.ty() == t, "{v:?} has type {t:?}");
                assert_eq!(
                    convertible_value(&v, &t),
                    convertible(&v.ty(), &t),
                    "{v:?} converts to {t:?}"
                );
                // Where the value is taken as it is, converting it gives it back.
                if converts_to_itself(&v, &t, None) {
                    let got = convert_error(&v, &t);
                    assert_eq!(format!("{got:?}"), format!("{:?}", Ok::<_, ()>(&v)), "{t:?}");
                }
            }
        }
    }
}
