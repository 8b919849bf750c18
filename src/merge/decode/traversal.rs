//! Static references as HCL reads them (`hcl.AbsTraversalForExpr`, `Expression.Variables`,
//! `addrs.ParseRef`) and `DecodeDependsOn`, which the block decoders share.

use crate::diag::Diagnostic;
use crate::terraform::{Attr, Expr, ExprKind, Files, Span, Syntax, TplPart};
use override_guard_hcl::ast::{self, ForPart, IfPart, Node, Part, Step};

/// A static traversal (`hcl.AbsTraversalForExpr`): the root, then attribute names (`None`
/// for an index), each with its span.
#[derive(Debug)]
pub(crate) struct Trav {
    pub root: String,
    pub root_span: Span,
    pub steps: Vec<(Option<String>, Span)>,
    /// Index steps (by position in `steps`) whose key no instance key can be
    /// (`addrs.ParseInstanceKey`), with why; filled where references are judged.
    pub bad_keys: Vec<(usize, &'static str)>,
}

#[cfg(test)]
impl Trav {
    fn text(&self) -> String {
        let mut s = self.root.clone();
        for (name, _) in &self.steps {
            match name {
                Some(n) => {
                    s.push('.');
                    s.push_str(n);
                }
                None => s.push_str("[…]"),
            }
        }
        s
    }
}

/// An expression's syntax tree and the offset its ranges are relative to; for JSON, the
/// string is parsed as Terraform parses it (a bare expression or a template), with every
/// range at the string.
pub(super) fn syntax_of(e: &Expr) -> Option<(ast::Expr, Option<usize>)> {
    match (&e.source, &e.kind) {
        (Some(src), _) => Some((override_guard_hcl::parse_expression(src).0, Some(e.span.start))),
        (None, ExprKind::Raw(s)) => Some((override_guard_hcl::parse_expression(s).0, None)),
        (None, ExprKind::Template(parts))
            if parts.iter().any(|p| matches!(p, TplPart::Code(_))) =>
        {
            let text = crate::terraform::expr::template_text(parts);
            Some((override_guard_hcl::parse_template(&text).0, None))
        }
        _ => None,
    }
}

fn span_at(e: &Expr, off: Option<usize>, r: &std::ops::Range<usize>) -> Span {
    match off {
        Some(o) => Span::new(e.span.file, o + r.start, o + r.end),
        None => e.span,
    }
}

/// The static traversal an expression is, if it is one.
pub(crate) fn abs_traversal(e: &Expr) -> Option<Trav> {
    let (tree, off) = syntax_of(e)?;
    // Parentheses make an expression of the reference: `(aws.west)` is not a traversal.
    trav_of(e, off, &tree)
}

fn trav_of(e: &Expr, off: Option<usize>, node: &ast::Expr) -> Option<Trav> {
    let bare = |root: String| Trav {
        root,
        root_span: span_at(e, off, &node.range),
        steps: Vec::new(),
        bad_keys: Vec::new(),
    };
    match &node.node {
        Node::Variable(name) => Some(bare(name.clone())),
        // HCL reads the keywords as the names they are spelt with
        // (`LiteralValueExpr.AsTraversal`): `provider = null` is the `null` provider.
        Node::Null => Some(bare("null".to_string())),
        Node::Bool(b) => Some(bare(b.to_string())),
        Node::Traversal { source, steps } => {
            // `null.foo` is the `null` provider's `foo` configuration: HCL's traversal
            // reading takes any name for the root, keywords included.
            let name = match &source.node {
                Node::Variable(name) => name.clone(),
                Node::Null => "null".to_string(),
                Node::Bool(b) => b.to_string(),
                _ => return None,
            };
            let name = &name;
            let mut out = Vec::new();
            for s in steps {
                match s {
                    Step::Attr(n, r) => out.push((Some(n.clone()), span_at(e, off, r))),
                    Step::Index(x, r) => {
                        // HCL takes any literal key (`true` and `null` too) as a step.
                        let literal =
                            matches!(x.node, Node::Number(_) | Node::Bool(_) | Node::Null)
                                || x.as_literal_str().is_some();
                        if !literal {
                            return None;
                        }
                        out.push((None, span_at(e, off, r)));
                    }
                }
            }
            Some(Trav {
                root: name.clone(),
                root_span: span_at(e, off, &source.range),
                steps: out,
                bad_keys: Vec::new(),
            })
        }
        _ => None,
    }
}

/// Why a number is no instance key (`gocty.FromCtyValue` into an `int`).
fn bad_number_key(n: &str) -> Option<&'static str> {
    let whole = n.parse::<i64>().is_ok()
        || n.parse::<f64>()
            .is_ok_and(|f| f.fract() == 0.0 && f >= -(2f64.powi(63)) && f < 2f64.powi(63));
    (!whole).then_some(
        "value must be a whole number, between -9223372036854775808 and 9223372036854775807",
    )
}

/// `addrs.ParseRef`: why a traversal is no reference address, as Terraform 1.15 words it.
pub(super) fn ref_problem(t: &Trav) -> Option<(&'static str, String)> {
    if let Some(p) = ref_problem_of_names(t) {
        return Some(p);
    }
    // The instance key right after a resource's or a module call's name.
    let key_at = match t.root.as_str() {
        "data" | "resource" | "ephemeral" | "list" => Some((2, "resource")),
        "module" => Some((1, "module")),
        "count" | "each" | "local" | "path" | "terraform" | "var" | "self" | "action"
        | "template" | "lazy" | "arg" => None,
        _ => Some((1, "resource")),
    };
    let (i, what) = key_at?;
    let (_, why) = t.bad_keys.iter().find(|(k, _)| *k == i)?;
    Some(("Invalid index key", format!("Invalid index for {what} instance: {why}.")))
}

fn ref_problem_of_names(t: &Trav) -> Option<(&'static str, String)> {
    let root = t.root.as_str();
    let attr = |i: usize| t.steps.get(i).map(|(n, _)| n.is_some());
    let invalid = |detail: String| Some(("Invalid reference", detail));
    match root {
        "count" | "each" | "local" | "path" | "terraform" | "var" | "module" => match attr(0) {
            None => invalid(format!(
                "The \"{root}\" object cannot be accessed directly. Instead, access one of its attributes."
            )),
            Some(false) => invalid(format!("The \"{root}\" object does not support this operation.")),
            // `module.NAME[KEY]` may go on only with an output's name.
            Some(true) if root == "module" && attr(1) == Some(false) && attr(2) == Some(false) => {
                invalid("Module instance objects do not support this operation.".to_string())
            }
            Some(true) => None,
        },
        "data" | "resource" | "ephemeral" | "action" | "list" => {
            let (types, name, a) = match root {
                "data" => ("the data source type and the resource name", "resource", "a data source"),
                "resource" => ("the resource type and the resource name", "resource", "a resource type"),
                "ephemeral" => (
                    "the ephemeral resource type and the resource name",
                    "resource",
                    "an ephemeral resource type",
                ),
                "action" => ("the action type and the action name", "action", "an action"),
                _ => ("the list resource type and the list resource name", "resource", "a resource type"),
            };
            if t.steps.len() < 2 {
                invalid(format!("The \"{root}\" object must be followed by two attribute names: {types}."))
            } else if attr(0) == Some(false) {
                invalid(if matches!(root, "action" | "list") {
                    "The left operand does not support this operation.".to_string()
                } else {
                    format!("The \"{root}\" object does not support this operation.")
                })
            } else if attr(1) == Some(false) {
                invalid(format!(
                    "A reference to {a} must be followed by at least one attribute access, specifying the {name} name."
                ))
            } else {
                None
            }
        }
        "template" | "lazy" | "arg" => Some((
            "Reserved symbol name",
            format!(
                "The symbol name \"{root}\" is reserved for use in a future Terraform version. If you are using a provider that already uses this as a resource type name, add the prefix \"resource.\" to force interpretation as a resource type name."
            ),
        )),
        "self" => None,
        _ if attr(0) != Some(true) => invalid(
            "A reference to a resource type must be followed by at least one attribute access, specifying the resource name."
                .to_string(),
        ),
        _ => None,
    }
}

/// `parseImportToStatic`: the resource instance address an import block's `to` is, as
/// written without spaces, with the resource address it names (instance keys dropped),
/// when it is static.
pub(crate) fn static_resource_instance(e: &Expr) -> Option<(String, String)> {
    let (tree, _) = syntax_of(e)?;
    let Node::Traversal { source, steps } = &tree.node else { return None };
    let Node::Variable(root) = &source.node else { return None };
    let (mut full, mut names) = (root.clone(), vec![(root.clone(), None::<String>)]);
    for s in steps {
        match s {
            Step::Attr(n, _) => {
                full.push('.');
                full.push_str(n);
                names.push((n.clone(), None));
            }
            Step::Index(x, _) => {
                let key = match &x.node {
                    Node::Number(n) => n.clone(),
                    _ => format!("{:?}", x.as_literal_str()?),
                };
                full.push_str(&format!("[{key}]"));
                names.last_mut()?.1 = Some(key);
            }
        }
    }
    // module.NAME[KEY] pairs, then [data.]TYPE.NAME[KEY].
    let mut i = 0;
    let mut config = Vec::new();
    while names.get(i).is_some_and(|(n, _)| n == "module") && names.len() >= i + 2 {
        config.push(format!("module.{}", names[i + 1].0));
        i += 2;
    }
    let rest = &names[i..];
    let ok = match rest {
        [(d, None), (_, None), (_, _)] if d == "data" => true,
        [(t, None), (_, _)] => t != "data",
        _ => false,
    };
    if !ok {
        return None;
    }
    config.extend(rest.iter().map(|(n, _)| n.clone()));
    Some((full, config.join(".")))
}

/// `Expression.Variables()`: every traversal from a variable the expression refers to
/// (names bound by `for` expressions excluded), in source order.
pub(crate) fn variables(e: &Expr) -> Vec<Trav> {
    let Some((tree, off)) = syntax_of(e) else { return Vec::new() };
    let mut out = Vec::new();
    let mut bound: Vec<String> = Vec::new();
    walk(e, off, &tree, &mut bound, &mut out);
    out
}

fn walk(e: &Expr, off: Option<usize>, n: &ast::Expr, bound: &mut Vec<String>, out: &mut Vec<Trav>) {
    match &n.node {
        Node::Variable(name) => {
            if !bound.contains(name) {
                out.extend(trav_of(e, off, n));
            }
        }
        Node::Traversal { source, steps } => {
            match &source.node {
                Node::Variable(name) if !bound.contains(name) => {
                    // Terraform keeps the traversal up to its first non-constant index.
                    let mut t = Trav {
                        root: name.clone(),
                        root_span: span_at(e, off, &source.range),
                        steps: Vec::new(),
                        bad_keys: Vec::new(),
                    };
                    let mut whole = true;
                    for s in steps {
                        match s {
                            Step::Attr(a, r) if whole => {
                                t.steps.push((Some(a.clone()), span_at(e, off, r)))
                            }
                            Step::Index(x, r) if whole => {
                                // A literal key (`true` and `null` too) is a step of the
                                // traversal; any other ends it.
                                let bad = match &x.node {
                                    Node::Number(n) => bad_number_key(n),
                                    Node::Bool(_) | Node::Null => {
                                        Some("either a string or an integer is required")
                                    }
                                    _ if x.as_literal_str().is_some() => None,
                                    _ => {
                                        whole = false;
                                        continue;
                                    }
                                };
                                if let Some(why) = bad {
                                    t.bad_keys.push((t.steps.len(), why));
                                }
                                t.steps.push((None, span_at(e, off, r)));
                            }
                            _ => {}
                        }
                    }
                    out.push(t);
                }
                Node::Variable(_) => {}
                _ => walk(e, off, source, bound, out),
            }
            for s in steps {
                if let Step::Index(x, _) = s {
                    walk(e, off, x, bound, out);
                }
            }
        }
        Node::Tuple(items) => items.iter().for_each(|x| walk(e, off, x, bound, out)),
        Node::Object(items) => {
            for (k, v) in items {
                if let ast::Key::Expr(x) = k {
                    walk(e, off, x, bound, out);
                }
                walk(e, off, v, bound, out);
            }
        }
        Node::Parens(x) => walk(e, off, x, bound, out),
        Node::Call(c) => c.args.iter().for_each(|x| walk(e, off, x, bound, out)),
        Node::Splat { source, each } => {
            walk(e, off, source, bound, out);
            walk(e, off, each, bound, out);
        }
        Node::Unary { operand, .. } => walk(e, off, operand, bound, out),
        Node::Binary { first, rest } => {
            walk(e, off, first, bound, out);
            rest.iter().for_each(|(_, x)| walk(e, off, x, bound, out));
        }
        Node::Conditional { cond, yes, no } => {
            walk(e, off, cond, bound, out);
            walk(e, off, yes, bound, out);
            walk(e, off, no, bound, out);
        }
        Node::For(f) => {
            walk(e, off, &f.collection, bound, out);
            let n = bound.len();
            bound.extend(f.key_var.iter().cloned());
            bound.push(f.value_var.clone());
            if let Some(k) = &f.key {
                walk(e, off, k, bound, out);
            }
            walk(e, off, &f.value, bound, out);
            if let Some(c) = &f.cond {
                walk(e, off, c, bound, out);
            }
            bound.truncate(n);
        }
        Node::Template { parts, .. } => walk_parts(e, off, parts, bound, out),
        Node::Null | Node::Bool(_) | Node::Number(_) | Node::SplatItem | Node::Invalid => {}
    }
}

fn walk_parts(
    e: &Expr,
    off: Option<usize>,
    parts: &[Part],
    bound: &mut Vec<String>,
    out: &mut Vec<Trav>,
) {
    for p in parts {
        match p {
            Part::Lit(..) => {}
            Part::Interp(x, _) => walk(e, off, x, bound, out),
            Part::If(d) => {
                let IfPart { cond, yes, no, .. } = &**d;
                walk(e, off, cond, bound, out);
                walk_parts(e, off, yes, bound, out);
                walk_parts(e, off, no, bound, out);
            }
            Part::For(d) => {
                let ForPart { key_var, value_var, collection, body, .. } = &**d;
                walk(e, off, collection, bound, out);
                let n = bound.len();
                bound.extend(key_var.iter().cloned());
                bound.push(value_var.clone());
                walk_parts(e, off, body, bound, out);
                bound.truncate(n);
            }
        }
    }
}

pub(super) const QUOTED_REFERENCE: &str = "In this context, references are expected literally rather than in quotes. Terraform 0.11 and earlier required quotes, but quoted references are now deprecated and will be removed in a future version of Terraform. Remove the quotes surrounding this reference to silence this warning.";

/// `hcl.AbsTraversalForExpr`'s error.
pub(super) const NOT_A_REFERENCE: &str = "A single static variable reference is required: only attribute access and indexing with constant keys. No calculations, function calls, template expressions, etc are allowed here.";

/// A string read as a reference (`hclsyntax.ParseTraversalAbs`), its text starting at
/// byte `origin` of `file`: what it read (nothing when it read no name), and its errors.
pub(super) fn string_traversal(
    s: &str,
    file: usize,
    origin: usize,
) -> (Option<Trav>, Vec<Diagnostic>) {
    let (steps, errors) = override_guard_hcl::parse_traversal_abs(s);
    let at = |r: &std::ops::Range<usize>| Span::new(file, origin + r.start, origin + r.end);
    let diags =
        errors.iter().map(|e| Diagnostic::error(&e.summary, &e.detail, at(&e.range))).collect();
    let mut steps = steps.into_iter();
    let t = steps.next().map(|(root, r)| Trav {
        root: root.unwrap_or_default(),
        root_span: at(&r),
        steps: steps.map(|(n, r)| (n, at(&r))).collect(),
        bad_keys: Vec::new(),
    });
    (t, diags)
}

/// A JSON string read as a reference (`json.expression.AsTraversal`): nothing when it is
/// not a string or not all of it is a reference. Read from the file, as written: a
/// template such as `"${aws_instance.a}"` is no reference.
pub(super) fn json_traversal(files: &Files, e: &Expr) -> Option<Trav> {
    let s: String = serde_json::from_str(files.text(e.span)).ok()?;
    match string_traversal(&s, e.span.file, e.span.start) {
        (Some(t), errors) if errors.is_empty() => Some(t),
        _ => None,
    }
}

/// `DecodeDependsOn`: where each reference Terraform keeps is (its traversal's range: in a
/// quoted string, the text inside the quotes), and what it says about the list, in its
/// order. An action cannot be depended on, and what is no reference is dropped.
///
/// `actions` is whether the release decodes action blocks (Terraform 1.14+; OpenTofu does not).
pub(crate) fn depends_on(files: &Files, a: &Attr, actions: bool) -> (Vec<Span>, Vec<Diagnostic>) {
    let mut out = Vec::new();
    let Some(items) = a.expr.as_tuple() else {
        let d = Diagnostic::error(
            "Invalid expression",
            "A static list expression is required.",
            start_range(&a.expr),
        );
        return (Vec::new(), vec![d]);
    };
    let json = files.get(a.span.file).syntax == Syntax::Json;
    let mut kept = Vec::new();
    for e in items {
        let t = match e.as_str() {
            Some(s) if native_quoted(e) => {
                let (t, errors) = string_traversal(&s, e.span.file, e.span.start + 1);
                out.extend(errors);
                out.push(Diagnostic::warning(
                    "Quoted references are deprecated",
                    QUOTED_REFERENCE,
                    e.span,
                ));
                t
            }
            _ if json => json_traversal(files, e),
            _ => abs_traversal(e),
        };
        match t {
            None => out.push(Diagnostic::error("Invalid expression", NOT_A_REFERENCE, e.span)),
            Some(t) if actions && t.root == "action" => out.push(Diagnostic::error(
                "Invalid depends_on Action Reference",
                "The depends_on attribute cannot reference action blocks directly. You must reference a resource or data source instead.",
                e.span,
            )),
            Some(t) => {
                let end = t.steps.last().map_or(t.root_span.end, |(_, s)| s.end);
                kept.push(Span { end, ..t.root_span });
            }
        }
    }
    (kept, out)
}

/// The outermost function calls in an expression (where HCL reports that none may be
/// made), in source order.
pub(super) fn calls(e: &Expr) -> Vec<Span> {
    fn find(n: &ast::Expr, out: &mut Vec<std::ops::Range<usize>>) {
        match &n.node {
            Node::Call(_) => out.push(n.range.clone()),
            Node::Template { parts, .. } => {
                for p in parts {
                    if let Part::Interp(x, _) = p {
                        find(x, out);
                    }
                }
            }
            Node::Tuple(xs) => xs.iter().for_each(|x| find(x, out)),
            Node::Object(kvs) => kvs.iter().for_each(|(_, v)| find(v, out)),
            Node::Parens(x) | Node::Unary { operand: x, .. } => find(x, out),
            Node::Binary { first, rest } => {
                find(first, out);
                rest.iter().for_each(|(_, x)| find(x, out));
            }
            Node::Conditional { cond, yes, no } => {
                find(cond, out);
                find(yes, out);
                find(no, out);
            }
            _ => {}
        }
    }
    let Some((tree, off)) = syntax_of(e) else { return Vec::new() };
    let mut out = Vec::new();
    find(&tree, &mut out);
    out.iter().map(|r| span_at(e, off, r)).collect()
}

/// HCL's `StartRange` of an expression: where an error about the whole of it points
/// (a collection's opening bracket, a call's name and parenthesis, a string's first part).
pub(super) fn start_range(e: &Expr) -> Span {
    let Some((tree, Some(off))) = syntax_of(e) else {
        // JSON: an array or object starts at its bracket, anything else is itself.
        return match e.kind {
            ExprKind::Tuple(_) | ExprKind::Object(_) => {
                Span::new(e.span.file, e.span.start, e.span.start + 1)
            }
            _ => e.span,
        };
    };
    fn first(n: &ast::Expr) -> std::ops::Range<usize> {
        match &n.node {
            Node::Tuple(_) | Node::Object(_) | Node::For(_) | Node::Unary { .. } => {
                n.range.start..n.range.start + 1
            }
            Node::Call(c) => c.name_range.start..c.name_range.end + 1,
            Node::Binary { first: x, .. } => first(x),
            Node::Conditional { cond, .. } => first(cond),
            Node::Template { parts, wrap: false, .. } => match parts.first() {
                Some(Part::Interp(x, _)) => first(x),
                Some(p) => p.range(),
                None => n.range.clone(),
            },
            _ => n.range.clone(),
        }
    }
    let r = first(&tree);
    Span::new(e.span.file, off + r.start, off + r.end)
}

/// Is this a quoted string in native syntax (`exprIsNativeQuotedString`)?
pub(super) fn native_quoted(e: &Expr) -> bool {
    matches!(e.kind, ExprKind::Template(_)) && e.source.is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_skip_for_expression_symbols() {
        let (f, _) = crate::terraform::hcl::parse(0, "x = [for v in var.l : v.id if local.ok]\n");
        let a = f.body.attr("x").cloned().expect("x");
        let roots: Vec<String> = variables(&a.expr).into_iter().map(|t| t.text()).collect();
        assert_eq!(roots, ["var.l", "local.ok"]);
    }
}
