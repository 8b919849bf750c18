//! `addrs.ParseMoveEndpoint` and `addrs.ParseRemoveTarget`: what the addresses of
//! `moved`, `removed` and `import` blocks name.

use crate::terraform::{Files, Span};

use super::traversal::Trav;

/// `addrs.ParseMoveEndpoint` (and `ParseTarget`): a module instance (`None`), or a
/// resource instance in one, with its mode (`managed`, `data`, `ephemeral`, `list`); or
/// Terraform's summary, detail and range of what is wrong.
pub(super) fn move_endpoint(
    files: &Files,
    t: &Trav,
) -> Result<Option<&'static str>, (&'static str, String, Span)> {
    // An instance key must be a string or a whole number that fits in 64 bits.
    const WHOLE: &str =
        "value must be a whole number, between -9223372036854775808 and 9223372036854775807";
    // (Read from the file: inside a JSON string with escapes the range may not cover the
    // key's brackets, and then it is not judged.)
    let whole_key = |at: Span| {
        let text = files.text(at);
        let Some(inner) = text.strip_prefix('[').and_then(|t| t.strip_suffix(']')) else {
            return true;
        };
        let inner = inner.trim();
        inner.starts_with('"')
            || inner.parse::<f64>().is_ok_and(|n| n.fract() == 0.0 && n.abs() < 9.2e18)
    };
    let mut all: Vec<(Option<&str>, Span)> = vec![(Some(t.root.as_str()), t.root_span)];
    all.extend(t.steps.iter().map(|(n, s)| (n.as_deref(), *s)));
    let mut rest = all.as_slice();
    let module_name = || "Prefix \"module.\" must be followed by a module name.".to_string();
    let invalid = |detail: &str, at: Span| Err(("Invalid address", detail.to_string(), at));
    // parseModuleInstancePrefix: module.NAME, each with an optional instance key.
    loop {
        match rest.first() {
            None => break,
            Some((None, at)) => {
                let detail = "Module address prefix must be followed by dot and then a name.";
                return Err(("Invalid address operator", detail.to_string(), *at));
            }
            Some((Some(name), _)) if *name != "module" => break,
            Some((Some(_), kw)) => {
                rest = &rest[1..];
                match rest.first() {
                    None => return Err(("Invalid address operator", module_name(), *kw)),
                    Some((None, at)) => {
                        return Err(("Invalid address operator", module_name(), *at));
                    }
                    Some((Some(_), _)) => rest = &rest[1..],
                }
                if let Some((None, at)) = rest.first() {
                    if !whole_key(*at) {
                        return Err((
                            "Invalid address operator",
                            format!("Invalid module index: {WHOLE}."),
                            *at,
                        ));
                    }
                    rest = &rest[1..];
                }
            }
        }
    }
    if rest.is_empty() {
        return Ok(None);
    }
    let whole = |r: &[(Option<&str>, Span)]| match (r.first(), r.last()) {
        (Some((_, a)), Some((_, b))) => Span { end: b.end, ..*a },
        _ => t.root_span,
    };
    // parseResourceInstanceUnderModule
    let mode = match rest[0].0 {
        Some(
            kw @ ("count" | "each" | "local" | "module" | "path" | "self" | "terraform" | "var"
            | "template" | "lazy" | "arg"),
        ) => {
            return Err((
                "Invalid address",
                format!(
                    "The keyword \"{kw}\" is reserved and cannot be used to target a resource address. If you are targeting a resource type that uses a reserved keyword, please prefix your address with \"resource.\"."
                ),
                whole(rest),
            ));
        }
        Some(m @ ("data" | "ephemeral" | "list" | "resource")) => {
            rest = &rest[1..];
            match m {
                "data" => "data",
                "ephemeral" => "ephemeral",
                "list" => "list",
                _ => "managed",
            }
        }
        _ => "managed",
    };
    if rest.len() < 2 {
        return invalid(
            "Resource specification must include a resource type and name.",
            whole(rest),
        );
    }
    if rest[0].0.is_none() {
        let detail = match mode {
            "data" => "A data source name is required.",
            "ephemeral" => "An ephemeral resource type name is required.",
            "list" => "A list resource type name is required.",
            _ => "A resource type name is required.",
        };
        return invalid(detail, rest[0].1);
    }
    if rest[1].0.is_none() {
        return invalid("A resource name is required.", rest[1].1);
    }
    match &rest[2..] {
        [] => Ok(Some(mode)),
        [(None, at)] if !whole_key(*at) => {
            Err(("Invalid address", format!("Invalid resource instance key: {WHOLE}."), *at))
        }
        [(None, _)] => Ok(Some(mode)),
        [(Some(_), at)] => invalid("Resource instance key must be given in square brackets.", *at),
        [_, (_, at), ..] => invalid("Unexpected extra operators after address.", *at),
    }
}

/// What a `removed` block's `from` names (`addrs.ParseRemoveTarget`).
pub(super) enum RemoveTarget {
    Module,
    Resource { data: bool },
}

/// `addrs.ParseRemoveTarget`: a module (`module.a.module.b`) or a resource in one, never an
/// instance of either; or Terraform's summary, detail and range of what is wrong.
pub(super) fn remove_target(t: &Trav) -> Result<RemoveTarget, (&'static str, &'static str, Span)> {
    let mut all: Vec<(Option<&str>, Span)> = vec![(Some(t.root.as_str()), t.root_span)];
    all.extend(t.steps.iter().map(|(n, s)| (n.as_deref(), *s)));
    let mut rest = all.as_slice();
    const MODULE_NAME: &str = "Prefix \"module.\" must be followed by a module name.";
    // parseModulePrefix
    loop {
        match rest.first() {
            None => break,
            Some((None, at)) => {
                return Err((
                    "Invalid address operator",
                    "Module address prefix must be followed by dot and then a name.",
                    *at,
                ));
            }
            Some((Some(name), _)) if *name != "module" => break,
            Some((Some(_), kw)) => {
                rest = &rest[1..];
                match rest.first() {
                    None => return Err(("Invalid address operator", MODULE_NAME, *kw)),
                    Some((None, at)) => return Err(("Invalid address operator", MODULE_NAME, *at)),
                    Some((Some(_), _)) => rest = &rest[1..],
                }
                if let Some((None, at)) = rest.first() {
                    return Err((
                        "Module instance keys not allowed",
                        "Module address must be a module (e.g. \"module.foo\"), not a module instance (e.g. \"module.foo[1]\").",
                        *at,
                    ));
                }
            }
        }
    }
    if rest.is_empty() {
        return Ok(RemoveTarget::Module);
    }
    // parseConfigResourceUnderModule
    let data = rest.first().is_some_and(|(n, _)| *n == Some("data"));
    if data {
        rest = &rest[1..];
    }
    if rest.len() < 2 {
        let at = match (rest.first(), rest.last()) {
            (Some((_, a)), Some((_, b))) => Span { end: b.end, ..*a },
            _ => t.root_span,
        };
        return Err((
            "Invalid address",
            "Resource specification must include a resource type and name.",
            at,
        ));
    }
    if rest[0].0.is_none() {
        let detail = if data {
            "A data source name is required."
        } else {
            "A resource type name is required."
        };
        return Err(("Invalid address", detail, rest[0].1));
    }
    if rest[1].0.is_none() {
        return Err(("Invalid address", "A resource name is required.", rest[1].1));
    }
    if let Some((_, at)) = rest.get(2) {
        return Err((
            "Resource instance keys not allowed",
            "Resource address must be a resource (e.g. \"test_instance.foo\"), not a resource instance (e.g. \"test_instance.foo[1]\").",
            *at,
        ));
    }
    Ok(RemoveTarget::Resource { data })
}
