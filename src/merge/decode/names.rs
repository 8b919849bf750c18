//! Terraform's checks of names: HCL's identifiers and did-you-mean suggestions
//! (`hclsyntax.ValidIdentifier`, `nameSuggestion`), provider names and sources
//! (`addrs.ParseProviderPart`, `ParseProviderSourceString`) and version constraints.

use std::sync::LazyLock;

use crate::terraform::Block;

/// A consistent detail for every "not a valid identifier" diagnostic.
pub(super) const BAD_IDENTIFIER: &str = "A name must start with a letter or underscore and may contain only letters, digits, underscores, and dashes.";

/// HCL's `nameSuggestion`: the first candidate within a Levenshtein distance of 2.
pub(crate) fn name_suggestion<'s>(given: &str, candidates: &[&'s str]) -> Option<&'s str> {
    candidates.iter().copied().find(|c| strsim::levenshtein(given, c) < 3)
}

/// `hclsyntax.ValidIdentifier`: a letter or underscore, then letters, digits, underscores
/// and dashes.
pub(crate) fn valid_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if unicode_ident::is_xid_start(c) || c == '_' => {}
        _ => return false,
    }
    chars.all(|c| unicode_ident::is_xid_continue(c) || c == '-')
}

/// `addrs.ParseProviderPart`: the normalized form of a provider name, or why it is none.
/// A provider block with a name `checkProviderNameNormalized` refuses is no provider
/// configuration: Terraform reports the name and keeps nothing of the block (no duplicate,
/// nothing to override or to be overridden).
pub(super) fn provider_block_kept(b: &Block) -> bool {
    b.labels.first().is_some_and(|name| provider_part(name).is_ok_and(|n| n == *name))
}

pub(crate) fn provider_part(name: &str) -> Result<String, &'static str> {
    if name.is_empty() {
        return Err("must have at least one character");
    }
    if name.contains('.') {
        return Err("dots are not allowed");
    }
    if name.contains("--") {
        return Err("cannot use multiple consecutive dashes");
    }
    let ok = !name.starts_with('-')
        && !name.ends_with('-')
        && name.chars().all(|c| c == '-' || c.is_alphanumeric());
    if !ok {
        return Err(
            "must contain only letters, digits, and dashes, and may not use leading or trailing dashes",
        );
    }
    Ok(name.to_lowercase())
}

/// Go's `%q` of a string.
fn go_quote(s: &str) -> String {
    format!("\"{}\"", override_guard_hcl::parse::go_quote_inner(s))
}

/// `addrs.ParseProviderSourceString` (`tfaddr.ParseProviderSource`): the provider a
/// `source` names, as `hostname/namespace/type` (the namespace empty when not given), or
/// Terraform's summary and detail of why it names none. Hostnames are only lowercased.
pub(crate) fn provider_source(
    src: &str,
) -> Result<(String, String, String), (&'static str, String)> {
    const FORMAT: &str =
        "The \"source\" attribute must be in the format \"[hostname/][namespace/]name\"";
    const REGISTRY: &str = "registry.terraform.io";
    let parts: Vec<&str> = src.split('/').collect();
    if parts.len() > 3 || parts.iter().any(|p| p.is_empty()) {
        return Err(("Invalid provider source string", FORMAT.to_string()));
    }
    let given = parts[parts.len() - 1];
    // The details end in a stray quote, as Terraform's do.
    let ty = provider_part(given).map_err(|e| {
        (
            "Invalid provider type",
            format!("Invalid provider type {} in source {}: {e}\"", go_quote(given), go_quote(src)),
        )
    })?;
    // A bare type takes the default namespace later, unchecked for prefixes.
    if parts.len() == 1 {
        return Ok((REGISTRY.to_string(), String::new(), ty));
    }
    let namespace = match parts.len() {
        n if parts[n - 2] == "-" => "-".to_string(),
        n => provider_part(parts[n - 2]).map_err(|e| {
            (
                "Invalid provider namespace",
                format!("Invalid provider namespace \"\" in source {}: {e}\"", go_quote(src)),
            )
        })?,
    };
    let host = if parts.len() == 3 { parts[0].to_lowercase() } else { REGISTRY.to_string() };
    if namespace == "-" && host != REGISTRY {
        return Err((
            "Invalid provider namespace",
            format!(
                "The legacy provider namespace \"-\" can be used only with hostname {REGISTRY}."
            ),
        ));
    }
    if let Some(rest) = ty.strip_prefix("terraform-") {
        let display = |t: &str| {
            if host == REGISTRY {
                format!("{namespace}/{t}")
            } else {
                format!("{host}/{namespace}/{t}")
            }
        };
        if let Some(suggested) = rest.strip_prefix("provider-")
            && provider_part(suggested).is_ok()
        {
            return Err((
                "Invalid provider type",
                format!(
                    "Provider source {} has a type with the prefix \"terraform-provider-\", which isn't valid. Although that prefix is often used in the names of version control repositories for Terraform providers, provider source strings should not include it.\n\nDid you mean {}?",
                    go_quote(&display(&ty)),
                    go_quote(&display(suggested))
                ),
            ));
        }
        return Err((
            "Invalid provider type",
            format!(
                "Provider source \"{host}/{namespace}/{ty}\" has a type with the prefix \"terraform-\", which isn't allowed because it would be redundant to name a Terraform provider with that prefix. If you are the author of this provider, rename it to not include the prefix."
            ),
        ));
    }
    Ok((host, namespace, ty))
}

/// go-version's constraint syntax (`NewConstraint`): comma-separated operator and version.
pub(crate) fn valid_constraint(s: &str) -> bool {
    static SINGLE: LazyLock<Option<regex::Regex>> = LazyLock::new(|| {
        regex::Regex::new(concat!(
            r"^[\t\n\f\r ]*(<=|>=|!=|~>|<|>|=|)[\t\n\f\r ]*",
            r"(v?([0-9]+(\.[0-9]+)*?)",
            r"(-([0-9]+[0-9A-Za-z\-~]*(\.[0-9A-Za-z\-~]+)*)|(-?([A-Za-z\-~]+[0-9A-Za-z\-~]*(\.[0-9A-Za-z\-~]+)*)))?",
            r"(\+([0-9A-Za-z\-~]+(\.[0-9A-Za-z\-~]+)*))?",
            r"?)[\t\n\f\r ]*$"
        ))
        .ok()
    });
    let Some(re) = SINGLE.as_ref() else { return false };
    // Each numeric segment must fit in 64 bits.
    let fits = |v: &str| v.split('.').all(|d| d.parse::<i64>().is_ok());
    s.split(',').all(|one| match plain_constraint(one) {
        Some(version) => fits(version),
        None => re.captures(one).is_some_and(|c| c.get(3).is_some_and(|n| fits(n.as_str()))),
    })
}

/// The version of a constraint of the plain form nearly every module writes (`>= 1.5.0`,
/// `~> 5.0`): an operator and dotted numbers, no pre-release or build part. Read without
/// the regular expression, which takes its slowest engine for the captures; anything else
/// is `None`, left to it.
fn plain_constraint(one: &str) -> Option<&str> {
    let space = |c: char| matches!(c, '\t' | '\n' | '\x0c' | '\r' | ' ');
    let rest = one.trim_matches(space);
    let rest = ["<=", ">=", "!=", "~>", "<", ">", "="]
        .iter()
        .find_map(|op| rest.strip_prefix(op))
        .unwrap_or(rest)
        .trim_start_matches(space);
    let version = rest.strip_prefix('v').unwrap_or(rest);
    let plain = !version.is_empty()
        && version.split('.').all(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()));
    plain.then_some(version)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plain form read by hand answers as the regular expression does.
    #[test]
    fn plain_constraints_read_as_the_expression_reads_them() {
        let re = regex::Regex::new(concat!(
            r"^[\t\n\f\r ]*(<=|>=|!=|~>|<|>|=|)[\t\n\f\r ]*",
            r"(v?([0-9]+(\.[0-9]+)*?)",
            r"(-([0-9]+[0-9A-Za-z\-~]*(\.[0-9A-Za-z\-~]+)*)|(-?([A-Za-z\-~]+[0-9A-Za-z\-~]*(\.[0-9A-Za-z\-~]+)*)))?",
            r"(\+([0-9A-Za-z\-~]+(\.[0-9A-Za-z\-~]+)*))?",
            r"?)[\t\n\f\r ]*$"
        ))
        .expect("the expression");
        let ops = ["", "<=", ">=", "!=", "~>", "<", ">", "=", "==", "=>", "~"];
        let versions = [
            "1",
            "1.2",
            "1.2.3",
            "v1.2",
            "01.002",
            "1.",
            ".1",
            "1..2",
            "",
            "v",
            "1.2a",
            "1.2-beta",
            "1.2+meta",
            "99999999999999999999",
            "1.99999999999999999999",
            "1 .2",
            "١",
            "v 1",
        ];
        let spaces = ["", " ", "\t", "\n ", "\u{a0}", "\u{2003}"];
        let mut plain = 0;
        for op in ops {
            for v in versions {
                for (a, b) in spaces.iter().zip(spaces.iter().rev()) {
                    let one = format!("{a}{op}{b}{v}{a}");
                    let by_re =
                        re.captures(&one).and_then(|c| c.get(3)).map(|n| n.as_str().to_string());
                    if let Some(version) = plain_constraint(&one) {
                        plain += 1;
                        assert_eq!(Some(version.to_string()), by_re, "{one:?}");
                    }
                }
            }
        }
        assert!(plain > 100, "{plain}");
    }

    #[test]
    fn suggestions_are_within_two_edits_and_the_first_wins() {
        assert_eq!(name_suggestion("resourse", &["resource", "data"]), Some("resource"));
        assert_eq!(name_suggestion("dat", &["data", "date"]), Some("data"));
        assert_eq!(name_suggestion("varible", &["variable"]), Some("variable"));
        // Three edits are too many.
        assert_eq!(name_suggestion("abc", &["xyz"]), None);
        assert_eq!(name_suggestion("provisoner_x", &["provisioner"]), None);
        // Characters, not bytes, are counted.
        assert_eq!(name_suggestion("vâriäble", &["variable"]), Some("variable"));
    }

    #[test]
    fn identifiers_follow_hcl() {
        assert!(valid_identifier("a-b_c9"));
        assert!(valid_identifier("_x"));
        assert!(!valid_identifier("9a"));
        assert!(!valid_identifier("a.b"));
        assert!(!valid_identifier("-a"));
        assert!(!valid_identifier(""));
    }

    #[test]
    fn provider_names_are_normalized_idna_labels() {
        assert_eq!(provider_part("aws"), Ok("aws".into()));
        assert_eq!(provider_part("AWS"), Ok("aws".into()));
        assert!(provider_part("my_cloud").is_err());
        assert!(provider_part("-a").is_err());
        assert_eq!(provider_part("a--b"), Err("cannot use multiple consecutive dashes"));
        assert_eq!(provider_part("a.b"), Err("dots are not allowed"));
    }

    #[test]
    fn version_constraints_follow_go_version() {
        for ok in
            ["1.2.3", ">= 1.0", "~> 1.2, < 2", "v1", "= 1.0.0-beta1", " >1.0+meta ", "1.0-rc.1"]
        {
            assert!(valid_constraint(ok), "{ok}");
        }
        for bad in ["", "latest", ">= 1.0,", "1.0.", "=> 1.0", "1.0 beta", "99999999999999999999"] {
            assert!(!valid_constraint(bad), "{bad}");
        }
    }
}
