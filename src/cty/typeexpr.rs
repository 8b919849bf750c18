//! Type constraint expressions (`typeexpr.TypeConstraintWithDefaults` and Terraform's
//! `decodeVariableType`): keywords, constructor calls, `optional(T, default)` with its
//! defaults tree, the legacy quoted forms (errors since Terraform 1.x) and the bare
//! `list` / `map` shorthands. Error summaries and details are Terraform's.

use super::convert::convert_with_defaults;
use super::defaults::Defaults;
use super::eval::eval_expr;
use super::memo::{Memo, memo};
use super::{Type, Value, convert};
use override_guard_hcl::ast::{Expr, Key, Node};
use std::collections::{BTreeMap, BTreeSet};

/// A type expression Terraform rejects, with its diagnostic texts.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct TypeError {
    pub summary: String,
    pub detail: String,
}

/// A parsed `type` argument.
#[derive(Clone, Debug)]
pub struct TypeSpec {
    pub ty: Type,
    /// Defaults of `optional(T, default)` attributes, applied before conversion.
    pub defaults: Option<Defaults>,
    /// Whether `-var` / `TF_VAR_` values are taken as literal strings (primitive types and
    /// no type) rather than parsed as HCL expressions.
    pub literal: bool,
}

impl TypeSpec {
    /// A variable without `type`: any value, set from the command line as a literal string.
    pub fn unset() -> TypeSpec {
        TypeSpec { ty: Type::Dynamic, defaults: None, literal: true }
    }
}

fn err(summary: &str, detail: impl Into<String>) -> TypeError {
    TypeError { summary: summary.into(), detail: detail.into() }
}

const INVALID: &str = "Invalid type specification";
const EITHER: &str = "A type specification is either a primitive type keyword (bool, number, string) or a complex type constructor call, like list(string).";

/// Parses a `type` argument written in native syntax (its source text).
pub(crate) fn parse_type_source(src: &str) -> Result<TypeSpec, TypeError> {
    parse_type_text(src, true)
}

/// Parses a `type` argument from its text: native syntax (`native`), or the content of a
/// JSON string, where quotes are no legacy form.
pub(crate) fn parse_type_text(src: &str, native: bool) -> Result<TypeSpec, TypeError> {
    thread_local! {
        static NATIVE: Memo<Result<TypeSpec, TypeError>> = Memo::default();
        static JSON: Memo<Result<TypeSpec, TypeError>> = Memo::default();
    }
    memo(if native { &NATIVE } else { &JSON }, src, || parse_type_text_anew(src, native))
}

/// [`parse_type_text`], without the memo.
fn parse_type_text_anew(src: &str, native: bool) -> Result<TypeSpec, TypeError> {
    let (expr, errors) = override_guard_hcl::parse_expression(src);
    if errors.is_empty() {
        return parse_type(&expr, native);
    }
    if !native {
        return Err(err(INVALID, EITHER));
    }
    // A syntax error was reported as the file was read. Terraform reads the type from what
    // could be parsed, where the broken part is no type.
    parse_type(&expr, native).map_err(|_| err(INVALID, EITHER))
}

/// `typeexpr.TypeConstraintWithDefaults` of an expression's source: an output's `type`,
/// which knows no legacy forms (quoted types, bare `list` and `map`).
/// With a syntax error (reported as the file was read) the type is read from what could be
/// parsed, and what could not is no type: the error is then where parsing stopped, the
/// range given with it (relative to `src`).
pub(crate) fn type_constraint_source(
    src: &str,
) -> Result<(), (TypeError, Option<std::ops::Range<usize>>)> {
    let (expr, errors) = override_guard_hcl::parse_expression(src);
    match (get_type(&expr), errors.first()) {
        (Ok(_), _) => Ok(()),
        (Err(_), Some(e)) => Err((err(INVALID, EITHER), Some(e.range.clone()))),
        (Err(e), None) => Err((e, None)),
    }
}

/// Parses a `type` argument. `native` is false for JSON syntax, where the expression is the
/// content of a JSON string and quotes are not a legacy form.
pub(super) fn parse_type(expr: &Expr, native: bool) -> Result<TypeSpec, TypeError> {
    let expr = unparen(expr);
    if native && let Some(text) = quoted_literal(expr) {
        let remove = "Terraform 0.11 and earlier required type constraints to be given in quotes, but that form is now deprecated and will be removed in a future version of Terraform. Remove the quotes around";
        return Err(match text.as_str() {
            "string" => err("Invalid quoted type constraints", format!("{remove} \"string\".")),
            "list" | "map" => err(
                "Invalid quoted type constraints",
                format!(
                    "{remove} \"{text}\" and write {text}(string) instead to explicitly indicate that the {text} elements are strings."
                ),
            ),
            _ => err(
                "Invalid legacy variable type hint",
                "To provide a full type expression, remove the surrounding quotes and give the type expression directly.",
            ),
        });
    }
    match keyword(expr) {
        Some("list") => {
            return Ok(TypeSpec {
                ty: Type::List(Box::new(Type::Dynamic)),
                defaults: None,
                literal: false,
            });
        }
        Some("map") => {
            return Ok(TypeSpec {
                ty: Type::Map(Box::new(Type::Dynamic)),
                defaults: None,
                literal: false,
            });
        }
        _ => {}
    }
    let (ty, defaults) = get_type(expr)?;
    let literal = ty.is_primitive();
    Ok(TypeSpec { ty, defaults, literal })
}

/// Parentheses are not transparent here: Terraform rejects `type = (string)`.
fn unparen(e: &Expr) -> &Expr {
    e
}

/// A quoted string or heredoc without interpolations: the pre-0.12 type form.
fn quoted_literal(expr: &Expr) -> Option<String> {
    expr.as_literal_str()
}

fn keyword(expr: &Expr) -> Option<&str> {
    match &unparen(expr).node {
        Node::Variable(v) => Some(v.as_str()),
        _ => None,
    }
}

fn get_type(expr: &Expr) -> Result<(Type, Option<Defaults>), TypeError> {
    let expr = unparen(expr);
    if let Some(kw) = keyword(expr) {
        return match kw {
            "bool" => Ok((Type::Bool, None)),
            "string" => Ok((Type::String, None)),
            "number" => Ok((Type::Number, None)),
            "any" => Ok((Type::Dynamic, None)),
            "list" | "map" | "set" => Err(err(
                INVALID,
                format!(
                    "The {kw} type constructor requires one argument specifying the element type."
                ),
            )),
            "object" => Err(err(
                INVALID,
                "The object type constructor requires one argument specifying the attribute types and values as a map.",
            )),
            "tuple" => Err(err(
                INVALID,
                "The tuple type constructor requires one argument specifying the element types as a list.",
            )),
            _ => Err(err(
                INVALID,
                format!("The keyword \"{kw}\" is not a valid type specification."),
            )),
        };
    }
    let Node::Call(call) = &expr.node else {
        return Err(err(INVALID, EITHER));
    };
    let (name, args) = (&call.name, &call.args);
    if name.contains("::") {
        return Err(err(INVALID, EITHER));
    }
    let name = name.as_str();
    let args: Vec<&Expr> = args.iter().collect();
    match name {
        "bool" | "string" | "number" => Err(err(
            INVALID,
            format!("Primitive type keyword \"{name}\" does not expect arguments."),
        )),
        "any" => Err(err(
            INVALID,
            format!("Type constraint keyword \"{name}\" does not expect arguments."),
        )),
        "list" | "set" | "map" => {
            let [arg] = args.as_slice() else {
                return Err(err(
                    INVALID,
                    format!(
                        "The {name} type constructor requires one argument specifying the element type."
                    ),
                ));
            };
            let (ety, d) = get_type(arg)?;
            let ty = match name {
                "list" => Type::List(Box::new(ety)),
                "set" => Type::Set(Box::new(ety)),
                _ => Type::Map(Box::new(ety)),
            };
            let defaults = d.map(|d| Defaults {
                ty: ty.clone(),
                values: BTreeMap::new(),
                children: [(String::new(), d)].into(),
            });
            Ok((ty, defaults))
        }
        "tuple" => {
            let [arg] = args.as_slice() else {
                return Err(err(
                    INVALID,
                    "The tuple type constructor requires one argument specifying the element types as a list.",
                ));
            };
            let Node::Tuple(items) = &unparen(arg).node else {
                return Err(err(
                    INVALID,
                    "Tuple type constructor requires a list of element types.",
                ));
            };
            let mut etys = Vec::new();
            let mut children = BTreeMap::new();
            for (i, e) in items.iter().enumerate() {
                let (t, d) = get_type(e)?;
                etys.push(t);
                if let Some(d) = d {
                    children.insert(i.to_string(), d);
                }
            }
            let ty = Type::Tuple(etys);
            let defaults = (!children.is_empty()).then(|| Defaults {
                ty: ty.clone(),
                values: BTreeMap::new(),
                children,
            });
            Ok((ty, defaults))
        }
        "object" => object_type(&args),
        "optional" => Err(err(
            INVALID,
            "Keyword \"optional\" is valid only as a modifier for object type attributes.",
        )),
        _ => Err(err(INVALID, format!("Keyword \"{name}\" is not a valid type constructor."))),
    }
}

fn object_type(args: &[&Expr]) -> Result<(Type, Option<Defaults>), TypeError> {
    let [arg] = args else {
        return Err(err(
            INVALID,
            "The object type constructor requires one argument specifying the attribute types and values as a map.",
        ));
    };
    let Node::Object(obj) = &unparen(arg).node else {
        return Err(err(
            INVALID,
            "Object type constructor requires a map whose keys are attribute names and whose values are the corresponding attribute types.",
        ));
    };
    let mut attrs = BTreeMap::new();
    let mut optional = BTreeSet::new();
    let mut values = BTreeMap::new();
    let mut children = BTreeMap::new();
    for (key, value) in obj.iter() {
        let name = match key {
            Key::Name(n, _) => n.clone(),
            Key::Expr(e) => match keyword(e) {
                Some(k) => k.to_string(),
                None => {
                    return Err(err(
                        INVALID,
                        "Object constructor map keys must be attribute names.",
                    ));
                }
            },
        };
        if attrs.contains_key(&name) {
            return Err(err(INVALID, "Object constructor map keys must be unique."));
        }
        let mut aexpr = unparen(value);
        let mut default = None;
        if let Node::Call(call) = &aexpr.node
            && call.name == "optional"
        {
            let cargs = &call.args;
            let oargs: Vec<&Expr> = cargs.iter().collect();
            match oargs.as_slice() {
                [] => {
                    return Err(err(
                        INVALID,
                        "Optional attribute modifier requires the attribute type as its argument.",
                    ));
                }
                [t] => aexpr = t,
                [t, d] => {
                    aexpr = t;
                    let v = eval_expr(d).map_err(|e| err(&e.summary, e.detail))?;
                    default = Some(v);
                }
                _ => {
                    return Err(err(
                        INVALID,
                        "Optional attribute modifier expects at most two arguments: the attribute type, and a default value.",
                    ));
                }
            }
            optional.insert(name.clone());
        }
        let (aty, adefaults) = get_type(aexpr)?;
        if let Some(d) = default {
            let converted = convert(&d, &aty).map_err(|e| {
                err(
                    "Invalid default value for optional attribute",
                    format!("This default value is not compatible with the attribute's type constraint: {e}."),
                )
            })?;
            values.insert(name.clone(), converted);
        }
        if let Some(d) = adefaults {
            children.insert(name.clone(), d);
        }
        attrs.insert(name, aty);
    }
    let ty = Type::object_with(attrs.into_iter().collect(), optional);
    let defaults = (!values.is_empty() || !children.is_empty()).then(|| Defaults {
        ty: ty.clone(),
        values,
        children,
    });
    Ok((ty, defaults))
}

/// Why a variable's default is invalid (spec §5.6).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum DefaultError {
    /// go-cty's conversion error text.
    Convert(String),
    /// The default is null and the variable has `nullable = false`.
    Null,
}

/// Terraform's check of a variable's default (`decodeVariableBlock`): optional-attribute
/// defaults applied (unless the value is null), the value converted to the constraint, and
/// a null refused when the variable is not nullable. Returns the value Terraform stores.
pub(crate) fn check_default(
    spec: &TypeSpec,
    v: &Value,
    nullable: bool,
) -> Result<Value, DefaultError> {
    let v = convert_with_defaults(v, &spec.ty, spec.defaults.as_ref())
        .map_err(DefaultError::Convert)?;
    if !nullable && v.is_null() {
        return Err(DefaultError::Null);
    }
    Ok(v)
}

/// [`check_default`] without the converted value: none is made where the conversion would
/// copy the value as it is (a default of `any` type as large as a file).
pub(crate) fn default_fits(spec: &TypeSpec, v: &Value, nullable: bool) -> Result<(), DefaultError> {
    if super::converts_to_itself(v, &spec.ty, spec.defaults.as_ref()) {
        return match !nullable && v.is_null() {
            true => Err(DefaultError::Null),
            false => Ok(()),
        };
    }
    check_default(spec, v, nullable).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Types as `variable` blocks write them, well formed and not, in both syntaxes.
    const TYPE_TEXTS: &[&str] = &[
        "string",
        "number",
        "bool",
        "any",
        "list",
        "map",
        "\"string\"",
        "list(number)",
        "map(string)",
        "set(any)",
        "tuple([string, bool])",
        "object({ a = string })",
        "object({ a = optional(number, 3), b = optional(list(string), [\"x\"]) })",
        "optional(string)",
        "list(",
        "strin",
        "list(string, number)",
        "${string}",
        "",
        "object({ a = optional(number, \"three\") })",
    ];

    #[test]
    fn a_remembered_type_is_the_one_parsed_anew() {
        for native in [true, false] {
            for t in TYPE_TEXTS {
                let anew = format!("{:?}", parse_type_text_anew(t, native));
                for _ in 0..2 {
                    assert_eq!(format!("{:?}", parse_type_text(t, native)), anew, "{t}");
                }
            }
        }
    }

    #[test]
    fn parses_constraints() {
        let t = |s: &str| parse_type_source(s).map(|t| t.ty.to_json().to_string());
        assert_eq!(t("list(string)"), Ok(r#"["list","string"]"#.into()));
        assert_eq!(t("map"), Ok(r#"["map","dynamic"]"#.into()));
        assert_eq!(
            t("object({ a = string, b = optional(number, 3) })"),
            Ok(r#"["object",{"a":"string","b":"number"},["b"]]"#.into())
        );
        assert_eq!(t("tuple([string, bool])"), Ok(r#"["tuple",["string","bool"]]"#.into()));
        assert_eq!(
            t("lisst(string)").unwrap_err().detail,
            "Keyword \"lisst\" is not a valid type constructor."
        );
        assert_eq!(t("\"string\"").unwrap_err().summary, "Invalid quoted type constraints");
        assert!(parse_type_source("string").is_ok_and(|t| t.literal));
        assert!(parse_type_source("any").is_ok_and(|t| !t.literal));
    }
}
