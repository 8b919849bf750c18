//! Variable type constraints and the conversion of defaults to them, as far as the merge
//! needs it (spec §5.6): primitive types and collections and structures of them. Error
//! texts follow go-cty's conversion messages as Terraform prints them.

use super::Module;
use crate::diag::Diagnostic;
use crate::terraform::{Attr, Block, Expr, ExprKind, ObjKey};

/// A type constraint.
#[derive(Clone, Debug, PartialEq)]
pub enum Type {
    String,
    Number,
    Bool,
    Any,
    List(Box<Type>),
    Set(Box<Type>),
    Map(Box<Type>),
    Object(Vec<(String, Type, bool)>),
    Tuple(Vec<Type>),
}

impl Type {
    /// go-cty's `FriendlyName`.
    pub fn friendly(&self) -> String {
        match self {
            Type::String => "string".into(),
            Type::Number => "number".into(),
            Type::Bool => "bool".into(),
            Type::Any => "dynamic".into(),
            Type::List(t) => format!("list of {}", t.friendly()),
            Type::Set(t) => format!("set of {}", t.friendly()),
            Type::Map(t) => format!("map of {}", t.friendly()),
            Type::Object(_) => "object".into(),
            Type::Tuple(_) => "tuple".into(),
        }
    }

    /// go-cty's `FriendlyNameForConstraint`.
    fn constraint_name(&self) -> String {
        match self {
            Type::Any => "any type".into(),
            Type::List(t) => format!("list of {}", t.constraint_name()),
            Type::Set(t) => format!("set of {}", t.constraint_name()),
            Type::Map(t) => format!("map of {}", t.constraint_name()),
            t => t.friendly(),
        }
    }
}

/// Parses a type expression (`list(object({a = string}))`, legacy `"string"`).
pub fn parse_type(src: &str) -> Option<Type> {
    let src = src.trim();
    if let Some(q) = src.strip_prefix('"').and_then(|s| s.strip_suffix('"')) {
        return match q {
            "string" => Some(Type::String),
            "list" => Some(Type::List(Box::new(Type::Any))),
            "map" => Some(Type::Map(Box::new(Type::Any))),
            _ => None,
        };
    }
    let mut p = TypeParser { s: src.as_bytes(), i: 0 };
    let t = p.ty()?;
    p.ws();
    (p.i == p.s.len()).then_some(t)
}

struct TypeParser<'a> {
    s: &'a [u8],
    i: usize,
}

impl TypeParser<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() {
            match self.s[self.i] {
                b' ' | b'\t' | b'\r' | b'\n' | b',' => self.i += 1,
                b'#' => {
                    while self.i < self.s.len() && self.s[self.i] != b'\n' {
                        self.i += 1;
                    }
                }
                _ => break,
            }
        }
    }
    fn eat(&mut self, c: u8) -> Option<()> {
        self.ws();
        (self.s.get(self.i) == Some(&c)).then(|| self.i += 1)
    }
    fn ident(&mut self) -> Option<String> {
        self.ws();
        let start = self.i;
        while self.i < self.s.len()
            && (self.s[self.i].is_ascii_alphanumeric()
                || self.s[self.i] == b'_'
                || self.s[self.i] == b'-')
        {
            self.i += 1;
        }
        (self.i > start).then(|| String::from_utf8_lossy(&self.s[start..self.i]).into_owned())
    }
    fn ty(&mut self) -> Option<Type> {
        let name = self.ident()?;
        Some(match name.as_str() {
            "string" => Type::String,
            "number" => Type::Number,
            "bool" => Type::Bool,
            "any" => Type::Any,
            "list" | "set" | "map" => {
                self.eat(b'(')?;
                let t = Box::new(self.ty()?);
                self.eat(b')')?;
                match name.as_str() {
                    "list" => Type::List(t),
                    "set" => Type::Set(t),
                    _ => Type::Map(t),
                }
            }
            "tuple" => {
                self.eat(b'(')?;
                self.eat(b'[')?;
                let mut v = Vec::new();
                while self.eat(b']').is_none() {
                    v.push(self.ty()?);
                }
                self.eat(b')')?;
                Type::Tuple(v)
            }
            "object" => {
                self.eat(b'(')?;
                self.eat(b'{')?;
                let mut v = Vec::new();
                while self.eat(b'}').is_none() {
                    let key = self.ident()?;
                    self.eat(b'=').or_else(|| self.eat(b':'))?;
                    self.ws();
                    if self.s[self.i..].starts_with(b"optional") {
                        self.ident()?;
                        self.eat(b'(')?;
                        let t = self.ty()?;
                        // An optional default: skip to the matching parenthesis.
                        let mut depth = 0;
                        while self.i < self.s.len() {
                            match self.s[self.i] {
                                b'(' | b'[' | b'{' => depth += 1,
                                b')' if depth == 0 => break,
                                b')' | b']' | b'}' => depth -= 1,
                                _ => {}
                            }
                            self.i += 1;
                        }
                        self.eat(b')')?;
                        v.push((key, t, true));
                    } else {
                        v.push((key, self.ty()?, false));
                    }
                }
                self.eat(b')')?;
                Type::Object(v)
            }
            _ => return None,
        })
    }
}

/// A constant value with its (cty) type.
#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    Null,
    Bool(bool),
    Number(f64),
    String(String),
    /// A sequence with its type: tuple (per-element types), list or set.
    Seq(Type, Vec<Val>),
    /// Attributes with their type: object or map.
    Attrs(Type, Vec<(String, Val)>),
}

impl Val {
    pub fn ty(&self) -> Type {
        match self {
            Val::Null => Type::Any,
            Val::Bool(_) => Type::Bool,
            Val::Number(_) => Type::Number,
            Val::String(_) => Type::String,
            Val::Seq(t, _) | Val::Attrs(t, _) => t.clone(),
        }
    }
}

/// The constant value of an expression, if it is one.
pub fn constant(e: &Expr) -> Option<Val> {
    Some(match &e.kind {
        ExprKind::Null => Val::Null,
        ExprKind::Bool(b) => Val::Bool(*b),
        ExprKind::Number(n) => Val::Number(n.parse().ok()?),
        ExprKind::Template(_) => Val::String(e.as_str()?),
        ExprKind::Tuple(items) => {
            let vals = items.iter().map(constant).collect::<Option<Vec<_>>>()?;
            Val::Seq(Type::Tuple(vals.iter().map(Val::ty).collect()), vals)
        }
        ExprKind::Object(entries) => {
            let mut vals = Vec::new();
            for (k, v) in entries {
                let key = match k {
                    ObjKey::Name(n) => n.clone(),
                    ObjKey::Expr(e) => e.as_str()?,
                };
                vals.push((key, constant(v)?));
            }
            Val::Attrs(
                Type::Object(vals.iter().map(|(k, v)| (k.clone(), v.ty(), false)).collect()),
                vals,
            )
        }
        ExprKind::Raw(_) => return None,
    })
}

fn mismatch(got: &Type, want: &Type) -> String {
    format!("{} required, but have {}", want.constraint_name(), got.friendly())
}

/// Converts a value to a type constraint, as go-cty's `convert.Convert` does.
pub fn convert(v: &Val, want: &Type) -> Result<Val, String> {
    match (v, want) {
        (Val::Null, _) | (_, Type::Any) => Ok(v.clone()),
        (Val::String(_), Type::String)
        | (Val::Number(_), Type::Number)
        | (Val::Bool(_), Type::Bool) => Ok(v.clone()),
        (Val::Number(n), Type::String) => Ok(Val::String(format_number(*n))),
        (Val::Bool(b), Type::String) => Ok(Val::String(b.to_string())),
        (Val::String(s), Type::Number) => {
            s.trim().parse::<f64>().map(Val::Number).map_err(|_| "a number is required".to_string())
        }
        (Val::String(s), Type::Bool) => match s.as_str() {
            "true" => Ok(Val::Bool(true)),
            "false" => Ok(Val::Bool(false)),
            _ => Err("a bool is required".to_string()),
        },
        (Val::Seq(_, items), Type::List(t) | Type::Set(t)) => {
            let items = items.iter().map(|i| convert(i, t)).collect::<Result<Vec<_>, _>>()?;
            Ok(Val::Seq(want.clone(), items))
        }
        (Val::Seq(Type::Tuple(_), items), Type::Tuple(ts)) if items.len() == ts.len() => {
            let items =
                items.iter().zip(ts).map(|(i, t)| convert(i, t)).collect::<Result<Vec<_>, _>>()?;
            Ok(Val::Seq(want.clone(), items))
        }
        (Val::Seq(Type::Tuple(_), items), Type::Tuple(ts)) => {
            Err(format!("tuple required with {} elements, but have {}", ts.len(), items.len()))
        }
        (Val::Attrs(_, attrs), Type::Map(t)) => {
            let attrs = attrs
                .iter()
                .map(|(k, a)| Ok((k.clone(), convert(a, t)?)))
                .collect::<Result<Vec<_>, String>>()?;
            Ok(Val::Attrs(want.clone(), attrs))
        }
        (Val::Attrs(_, attrs), Type::Object(fields)) => {
            let mut out = Vec::new();
            for (name, t, optional) in fields {
                match attrs.iter().find(|(k, _)| k == name) {
                    Some((_, a)) => out.push((name.clone(), convert(a, t)?)),
                    None if *optional => out.push((name.clone(), Val::Null)),
                    None => return Err(format!("attribute \"{name}\" is required")),
                }
            }
            Ok(Val::Attrs(want.clone(), out))
        }
        _ => Err(mismatch(&v.ty(), want)),
    }
}

fn format_number(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 { format!("{}", n as i64) } else { n.to_string() }
}

fn type_of(a: Option<&Attr>) -> Type {
    a.and_then(|a| match &a.expr.kind {
        ExprKind::Raw(s) => parse_type(s),
        ExprKind::Template(_) => a.expr.as_str().and_then(|s| parse_type(&format!("\"{s}\""))),
        _ => None,
    })
    .unwrap_or(Type::Any)
}

/// A block that declares both `type` and `default`: the conversion error Terraform reports
/// while decoding it, if any.
pub(super) fn declared_default_error(b: &Block) -> Option<(String, crate::terraform::Span)> {
    let (ty, default) = (b.attr("type")?, b.attr("default")?);
    let value = constant(&default.expr)?;
    convert(&value, &type_of(Some(ty))).err().map(|e| (e, default.expr.span))
}

/// Decode-time check of a variable block (primary or override). Terraform rejects an
/// override with an incompatible `type` and `default` here, before any merge.
pub(super) fn check_declared_default(m: &mut Module, b: &Block) {
    if let Some((err, span)) = declared_default_error(b) {
        m.diagnostics.push(Diagnostic::error(
            "Invalid default value for variable",
            format!(
                "This default value is not compatible with the variable's type constraint: {err}."
            ),
            span,
        ));
    }
}

/// The post-merge checks of a variable (spec §5.6).
pub(super) fn check_variable(
    m: &mut Module,
    merged: &Block,
    o: &Block,
    base_type: Option<&Attr>,
    base_default: Option<&Attr>,
) {
    let type_over = o.attr("type").is_some();
    let default_over = o.attr("default").is_some();
    let Some(default) = merged.attr("default") else {
        return;
    };
    let Some(literal) = constant(&default.expr) else {
        return;
    };
    // A default from the primary file was already converted to the primary's type.
    let got = if default_over {
        if type_over {
            convert(&literal, &type_of(o.attr("type"))).unwrap_or(literal)
        } else {
            literal
        }
    } else {
        match base_default.and_then(|d| constant(&d.expr)) {
            Some(v) => convert(&v, &type_of(base_type)).unwrap_or(v),
            None => literal,
        }
    };
    let want = type_of(merged.attr("type"));
    if let Err(err) = convert(&got, &want) {
        let detail = match (type_over, default_over) {
            (true, false) => format!(
                "Overriding this variable's type constraint has made its default value invalid: {err}."
            ),
            (false, true) => format!(
                "The overridden default value for this variable is not compatible with the variable's type constraint: {err}."
            ),
            _ => format!(
                "This variable's default value is not compatible with its type constraint: {err}."
            ),
        };
        m.diagnostics.push(Diagnostic::error(
            "Invalid default value for variable",
            detail,
            o.def_span,
        ));
        return;
    }
    let nullable = merged.attr("nullable").and_then(|a| a.expr.as_bool()).unwrap_or(true);
    if !nullable && default.expr.is_null() {
        m.diagnostics.push(Diagnostic::error(
            "Invalid default value for variable",
            "A null default value is not valid when nullable=false.",
            o.def_span,
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: &str) -> Val {
        Val::String(x.into())
    }

    #[test]
    fn parses_type_constraints() {
        assert_eq!(parse_type("list(string)"), Some(Type::List(Box::new(Type::String))));
        assert_eq!(parse_type("\"map\""), Some(Type::Map(Box::new(Type::Any))));
        assert_eq!(
            parse_type("object({ a = string, b = optional(number, 3) })"),
            Some(Type::Object(vec![
                ("a".into(), Type::String, false),
                ("b".into(), Type::Number, true)
            ]))
        );
        assert_eq!(
            parse_type("tuple([string, bool])"),
            Some(Type::Tuple(vec![Type::String, Type::Bool]))
        );
        assert_eq!(parse_type("lisst(string)"), None);
    }

    #[test]
    fn converts_like_cty() {
        assert_eq!(convert(&s("8"), &Type::Number), Ok(Val::Number(8.0)));
        assert_eq!(convert(&s("eight"), &Type::Number), Err("a number is required".into()));
        assert_eq!(convert(&Val::Number(8.0), &Type::String), Ok(s("8")));
        let list = Val::Seq(Type::List(Box::new(Type::String)), vec![s("a")]);
        assert_eq!(
            convert(&list, &Type::String),
            Err("string required, but have list of string".into())
        );
        assert_eq!(
            convert(&s("a,b"), &Type::List(Box::new(Type::String))),
            Err("list of string required, but have string".into())
        );
        let obj = Val::Attrs(Type::Object(vec![]), vec![]);
        let want = Type::Object(vec![("x".into(), Type::String, false)]);
        assert_eq!(convert(&obj, &want), Err("attribute \"x\" is required".into()));
    }
}
