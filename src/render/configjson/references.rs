//! References as Terraform's `addrs.ParseRef` reads them and `marshalExpression` lists
//! them: the static traversals of an expression (HCL's `Variables`), each parsed into the
//! object it refers to, written with every shorter prefix down to that object.

use crate::terraform::expr::hcl_quote;
use override_guard_hcl::ast::{self, Key, Node, Part, Step};
use override_guard_hcl::parse::go_quote_inner;

/// A reference as Terraform parses it (`addrs.Reference`): the referenced object, the
/// steps after it, and the shorter address Terraform adds after the object (a resource or
/// module call without its instance key).
pub(super) struct Ref {
    pub(super) subject: String,
    remaining: Vec<TStep>,
    extra: Option<String>,
}

/// A step of a static traversal.
#[derive(Clone)]
pub(super) enum TStep {
    Attr(String),
    Index(IndexKey),
}

#[derive(Clone)]
pub(super) enum IndexKey {
    Int(String),
    Str(String),
    Other,
}

/// The references of an expression, as `marshalExpression` lists them: for each
/// traversal in the order HCL's `Variables` finds them, the whole reference, then each
/// shorter prefix down to the referenced object.
pub(crate) fn references(e: &ast::Expr) -> Vec<String> {
    let mut traversals = Vec::new();
    variables_of(e, &mut Vec::new(), &mut traversals);
    let mut out = Vec::new();
    for t in traversals {
        let Some(r) = parse_ref(&t) else { continue };
        let mut remains = r.remaining.clone();
        while !remains.is_empty() {
            out.push(format!("{}{}", r.subject, traversal_str(&remains)));
            remains.pop();
        }
        out.push(r.subject.clone());
        if let Some(x) = r.extra {
            out.push(x);
        }
    }
    out
}

/// `traversalStr`: `.name`, `["key"]` (Go quoting), `[0]`.
pub(super) fn traversal_str(steps: &[TStep]) -> String {
    let mut s = String::new();
    for st in steps {
        match st {
            TStep::Attr(n) => {
                s.push('.');
                s.push_str(n);
            }
            TStep::Index(k) => {
                s.push('[');
                match k {
                    IndexKey::Int(n) => s.push_str(n),
                    IndexKey::Str(v) => s.push_str(&format!("\"{}\"", go_quote_inner(v))),
                    IndexKey::Other => {}
                }
                s.push(']');
            }
        }
    }
    s
}

/// A static traversal: a root name and the steps HCL folds into it (attributes, and
/// indexes by a literal).
pub(super) type Traversal = (String, Vec<TStep>);

/// The static traversal an expression starts with, when it is one.
pub(super) fn traversal(e: &ast::Expr) -> Option<Traversal> {
    match &e.node {
        Node::Variable(n) => Some((n.clone(), Vec::new())),
        Node::Traversal { source, steps } => {
            let Node::Variable(root) = &source.node else { return None };
            let mut out = Vec::new();
            for s in steps {
                match static_step(s) {
                    Some(st) => out.push(st),
                    None => break,
                }
            }
            Some((root.clone(), out))
        }
        _ => None,
    }
}

/// A step HCL's parser folds into a traversal: an attribute, or an index by a literal.
pub(super) fn static_step(s: &Step) -> Option<TStep> {
    match s {
        Step::Attr(n, _) => Some(TStep::Attr(n.clone())),
        Step::Index(k, _) => Some(TStep::Index(match &k.node {
            Node::Number(n) => match crate::cty::Number::parse(n) {
                Some(num) => IndexKey::Int(num.to_text()),
                None => IndexKey::Other,
            },
            Node::Template { parts, wrap: false, .. } => match parts.as_slice() {
                [] => IndexKey::Str(String::new()),
                [Part::Lit(l, _)] => IndexKey::Str(l.clone()),
                _ => return None,
            },
            Node::Bool(_) | Node::Null => IndexKey::Other,
            _ => return None,
        })),
    }
}

/// HCL's `Variables`: the traversals that start at a root name, in walk order, without
/// the names `for` expressions bind.
pub(super) fn variables_of(e: &ast::Expr, scope: &mut Vec<String>, out: &mut Vec<Traversal>) {
    let mut walk = |e: &ast::Expr, scope: &mut Vec<String>| variables_of(e, scope, out);
    match &e.node {
        Node::Null | Node::Bool(_) | Node::Number(_) | Node::SplatItem | Node::Invalid => {}
        Node::Variable(_) | Node::Traversal { .. } if traversal(e).is_some() => {
            let Some(t) = traversal(e) else { return };
            let folded = t.1.len();
            if !scope.contains(&t.0) {
                out.push(t);
            }
            // Steps after the first dynamic index: their keys are expressions too.
            if let Node::Traversal { steps, .. } = &e.node {
                for s in &steps[folded..] {
                    if let Step::Index(k, _) = s {
                        variables_of(k, scope, out);
                    }
                }
            }
        }
        Node::Variable(_) => {}
        Node::Traversal { source, steps } => {
            walk(source, scope);
            for s in steps {
                if let Step::Index(k, _) = s {
                    variables_of(k, scope, out);
                }
            }
        }
        Node::Template { parts, .. } => parts_vars(parts, scope, out),
        Node::Tuple(items) => items.iter().for_each(|i| variables_of(i, scope, out)),
        Node::Object(items) => {
            for (k, v) in items {
                if let Key::Expr(k) = k {
                    variables_of(k, scope, out);
                }
                variables_of(v, scope, out);
            }
        }
        Node::Parens(e) => walk(e, scope),
        Node::Call(c) => c.args.iter().for_each(|a| variables_of(a, scope, out)),
        Node::Splat { source, each } => {
            walk(source, scope);
            walk(each, scope);
        }
        Node::Unary { operand, .. } => walk(operand, scope),
        Node::Binary { first, rest } => {
            walk(first, scope);
            for (_, e) in rest {
                variables_of(e, scope, out);
            }
        }
        Node::Conditional { cond, yes, no } => {
            walk(cond, scope);
            walk(yes, scope);
            walk(no, scope);
        }
        Node::For(f) => {
            variables_of(&f.collection, scope, out);
            let n = scope.len();
            scope.extend(f.key_var.iter().cloned());
            scope.push(f.value_var.clone());
            for x in [f.key.as_ref(), Some(&f.value), f.cond.as_ref()].into_iter().flatten() {
                variables_of(x, scope, out);
            }
            scope.truncate(n);
        }
    }
}

pub(super) fn parts_vars(parts: &[Part], scope: &mut Vec<String>, out: &mut Vec<Traversal>) {
    for p in parts {
        match p {
            Part::Lit(..) => {}
            Part::Interp(e, _) => variables_of(e, scope, out),
            Part::If(d) => {
                variables_of(&d.cond, scope, out);
                parts_vars(&d.yes, scope, out);
                parts_vars(&d.no, scope, out);
            }
            Part::For(d) => {
                variables_of(&d.collection, scope, out);
                let n = scope.len();
                scope.extend(d.key_var.iter().cloned());
                scope.push(d.value_var.clone());
                parts_vars(&d.body, scope, out);
                scope.truncate(n);
            }
        }
    }
}

/// An instance key as an address writes it: `[0]`, `["a"]` (HCL quoting).
pub(super) fn instance_key(k: &IndexKey) -> Option<String> {
    match k {
        IndexKey::Int(n) if n.parse::<i64>().is_ok() => Some(format!("[{n}]")),
        IndexKey::Str(s) => Some(format!("[{}]", hcl_quote(s))),
        _ => None,
    }
}

/// `addrs.ParseRef`: what a traversal refers to, or nothing when it is no reference.
pub(super) fn parse_ref(t: &Traversal) -> Option<Ref> {
    let (root, steps) = t;
    let attr = |i: usize| match steps.get(i) {
        Some(TStep::Attr(n)) => Some(n.clone()),
        _ => None,
    };
    let single = |prefix: &str| -> Ref {
        // `parseSingleAttrRef`: without a name, the reference names nothing after it.
        match attr(0) {
            Some(n) => Ref {
                subject: format!("{prefix}.{n}"),
                remaining: steps[1..].to_vec(),
                extra: None,
            },
            None => Ref { subject: format!("{prefix}."), remaining: Vec::new(), extra: None },
        }
    };
    match root.as_str() {
        "count" | "each" | "local" | "path" | "terraform" | "var" => Some(single(root)),
        "self" => Some(Ref { subject: "self".into(), remaining: steps.clone(), extra: None }),
        "module" => {
            let call = format!("module.{}", attr(0)?);
            let mut rest = &steps[1..];
            let mut inst = call.clone();
            let mut keyed = false;
            if let Some(TStep::Index(k)) = rest.first() {
                inst = format!("{call}{}", instance_key(k)?);
                keyed = true;
                rest = &rest[1..];
                if rest.is_empty() {
                    return Some(Ref { subject: inst, remaining: Vec::new(), extra: Some(call) });
                }
            }
            match rest.first() {
                None => Some(Ref { subject: call, remaining: Vec::new(), extra: None }),
                Some(TStep::Attr(out)) => Some(Ref {
                    subject: format!("{inst}.{out}"),
                    remaining: rest[1..].to_vec(),
                    extra: Some(if keyed { inst } else { call }),
                }),
                Some(TStep::Index(_)) => None,
            }
        }
        "data" | "resource" | "ephemeral" | "list" | "action" => {
            let ty = attr(0)?;
            let prefix = match root.as_str() {
                "resource" => String::new(),
                r => format!("{r}."),
            };
            resource_ref(&format!("{prefix}{ty}"), &steps[1..])
        }
        "template" | "lazy" | "arg" => None,
        "string" | "number" | "bool" | "any" if steps.is_empty() => None,
        _ => resource_ref(root, steps),
    }
}

/// `parseResourceRef`, after the type: the name, then an optional instance key.
pub(super) fn resource_ref(ty: &str, steps: &[TStep]) -> Option<Ref> {
    let Some(TStep::Attr(name)) = steps.first() else { return None };
    let resource = format!("{ty}.{name}");
    let rest = &steps[1..];
    if let Some(TStep::Index(k)) = rest.first() {
        let subject = format!("{resource}{}", instance_key(k)?);
        return Some(Ref { subject, remaining: rest[1..].to_vec(), extra: Some(resource) });
    }
    Some(Ref { subject: resource, remaining: rest.to_vec(), extra: None })
}
