//! The checks Terraform's loader makes while it decodes each file, before any merge
//! (`parser_config.go: parseConfigFile` and the `decode*Block` functions it calls): HCL's
//! body decoding against each block's fixed schema (`hclsyntax.Body.Content` /
//! `PartialContent`, JSON bodies likewise, with HCL's did-you-mean suggestions), names,
//! reserved names, meta-argument combinations, version constraints and the rules of
//! nested blocks. Pure: one parsed file in, its diagnostics out, in Terraform's order.
//! Bodies whose schema only a provider knows (resource and provider configuration) are
//! decoded partially, as Terraform does at this stage: their own arguments are not judged.

use std::sync::LazyLock;

use crate::cty;
use crate::diag::{Diagnostic, Severity};
use crate::terraform::discover::Engine;
use crate::terraform::{
    Attr, Block, Body, Expr, ExprKind, Files, Item, ObjKey, ParsedFile, Span, Syntax, TplPart,
};
use override_guard_hcl::ast::{self, Node, Part, Step};

/// A block type a body accepts, with the names of its labels.
type BlockS = (&'static str, &'static [&'static str]);

/// HCL's `BodySchema`: arguments (name, required) and block types, in declaration order
/// (the order suggestions and missing arguments are looked for in).
struct Schema {
    attrs: &'static [(&'static str, bool)],
    blocks: &'static [BlockS],
}

const NAME: &[&str] = &["name"];
const TYPE_NAME: &[&str] = &["type", "name"];
const TYPE: &[&str] = &["type"];
const NONE: &[&str] = &[];

const TF_TOP: Schema = Schema {
    attrs: &[],
    blocks: &[
        ("terraform", NONE),
        ("required_providers", NONE),
        ("provider", NAME),
        ("variable", NAME),
        ("locals", NONE),
        ("output", NAME),
        ("module", NAME),
        ("resource", TYPE_NAME),
        ("data", TYPE_NAME),
        ("ephemeral", TYPE_NAME),
        ("action", TYPE_NAME),
        ("moved", NONE),
        ("removed", NONE),
        ("import", NONE),
        ("check", NAME),
    ],
};

/// OpenTofu's top level (`parser_config.go: configFileSchema`): `language`, no `action`.
const TOFU_TOP: Schema = Schema {
    attrs: &[],
    blocks: &[
        ("language", NONE),
        ("required_providers", NONE),
        ("provider", NAME),
        ("variable", NAME),
        ("locals", NONE),
        ("output", NAME),
        ("module", NAME),
        ("resource", TYPE_NAME),
        ("data", TYPE_NAME),
        ("ephemeral", TYPE_NAME),
        ("moved", NONE),
        ("import", NONE),
        ("check", NAME),
        ("removed", NONE),
        ("terraform", NONE),
    ],
};

const TF_TERRAFORM: Schema = Schema {
    attrs: &[("required_version", false), ("experiments", false), ("language", false)],
    blocks: &[
        ("backend", TYPE),
        ("cloud", NONE),
        ("required_providers", NONE),
        ("state_store", TYPE),
        ("provider_meta", &["provider"]),
    ],
};

const TOFU_TERRAFORM: Schema = Schema {
    attrs: &[("required_version", false), ("experiments", false), ("language", false)],
    blocks: &[
        ("backend", TYPE),
        ("cloud", NONE),
        ("required_providers", NONE),
        ("provider_meta", &["provider"]),
        ("encryption", NONE),
    ],
};

const TF_VARIABLE: Schema = Schema {
    attrs: &[
        ("description", false),
        ("default", false),
        ("type", false),
        ("sensitive", false),
        ("ephemeral", false),
        ("nullable", false),
        ("deprecated", false),
        ("const", false),
    ],
    blocks: &[("validation", NONE)],
};

/// Terraform's arguments in OpenTofu's order: a misspelling two edits from two names is
/// offered the first, so each engine keeps its own order.
const TOFU_VARIABLE: Schema = Schema {
    attrs: &[
        ("description", false),
        ("default", false),
        ("type", false),
        ("sensitive", false),
        ("ephemeral", false),
        ("const", false),
        ("deprecated", false),
        ("nullable", false),
    ],
    blocks: &[("validation", NONE)],
};

const TF_OUTPUT: Schema = Schema {
    attrs: &[
        ("description", false),
        ("value", true),
        ("depends_on", false),
        ("sensitive", false),
        ("ephemeral", false),
        ("deprecated", false),
        ("type", false),
    ],
    blocks: &[("precondition", NONE), ("postcondition", NONE)],
};

/// OpenTofu's outputs have no `type` argument.
const TOFU_OUTPUT: Schema = Schema {
    attrs: &[
        ("description", false),
        ("value", true),
        ("depends_on", false),
        ("sensitive", false),
        ("ephemeral", false),
        ("deprecated", false),
    ],
    blocks: &[("precondition", NONE), ("postcondition", NONE)],
};

const TF_MODULE: Schema = Schema {
    attrs: &[
        ("source", true),
        ("version", false),
        ("count", false),
        ("for_each", false),
        ("depends_on", false),
        ("providers", false),
        ("ignore_nested_deprecations", false),
    ],
    blocks: &[("_", NONE), ("lifecycle", NONE), ("locals", NONE), ("provider", TYPE)],
};

const TOFU_MODULE: Schema = Schema {
    attrs: &[
        ("source", true),
        ("version", false),
        ("count", false),
        ("for_each", false),
        ("depends_on", false),
        ("providers", false),
    ],
    blocks: &[("_", NONE), ("lifecycle", NONE), ("locals", NONE), ("provider", TYPE)],
};

const TF_PROVIDER: Schema = Schema {
    attrs: &[
        ("alias", false),
        ("version", false),
        ("count", false),
        ("depends_on", false),
        ("for_each", false),
        ("source", false),
    ],
    blocks: &[("_", NONE), ("lifecycle", NONE), ("locals", NONE)],
};

const RESOURCE_ATTRS: &[(&str, bool)] =
    &[("count", false), ("for_each", false), ("provider", false), ("depends_on", false)];

const RESOURCE: Schema = Schema {
    attrs: RESOURCE_ATTRS,
    blocks: &[
        ("locals", NONE),
        ("lifecycle", NONE),
        ("connection", NONE),
        ("provisioner", TYPE),
        ("_", NONE),
    ],
};

/// `data` and `ephemeral` blocks.
const DATA: Schema =
    Schema { attrs: RESOURCE_ATTRS, blocks: &[("lifecycle", NONE), ("locals", NONE), ("_", NONE)] };

const TF_LIFECYCLE: Schema = Schema {
    attrs: &[
        ("create_before_destroy", false),
        ("prevent_destroy", false),
        ("ignore_changes", false),
        ("replace_triggered_by", false),
    ],
    blocks: &[("precondition", NONE), ("postcondition", NONE), ("action_trigger", NONE)],
};

const TOFU_LIFECYCLE: Schema = Schema {
    attrs: &[
        ("create_before_destroy", false),
        ("prevent_destroy", false),
        ("destroy", false),
        ("ignore_changes", false),
        ("replace_triggered_by", false),
        ("enabled", false),
    ],
    blocks: &[("precondition", NONE), ("postcondition", NONE)],
};

const ACTION_TRIGGER: Schema =
    Schema { attrs: &[("events", true), ("condition", false), ("actions", true)], blocks: &[] };

const ACTION: Schema = Schema {
    attrs: &[("count", false), ("for_each", false), ("provider", false)],
    blocks: &[("config", NONE)],
};

const PROVISIONER: Schema = Schema {
    attrs: &[("when", false), ("on_failure", false)],
    blocks: &[("_", NONE), ("connection", NONE), ("lifecycle", NONE)],
};

const CHECK_RULE: Schema =
    Schema { attrs: &[("condition", true), ("error_message", true)], blocks: &[] };

const CHECK: Schema = Schema { attrs: &[], blocks: &[("data", TYPE_NAME), ("assert", NONE)] };

const MOVED: Schema = Schema { attrs: &[("from", true), ("to", true)], blocks: &[] };

const TF_IMPORT: Schema = Schema {
    attrs: &[
        ("provider", false),
        ("for_each", false),
        ("id", false),
        ("to", true),
        ("identity", false),
    ],
    blocks: &[],
};

const TOFU_IMPORT: Schema = Schema {
    attrs: &[
        ("provider", false),
        ("id", false),
        ("identity", false),
        ("to", true),
        ("for_each", false),
    ],
    blocks: &[],
};

const TF_REMOVED: Schema = Schema {
    attrs: &[("from", true)],
    blocks: &[("lifecycle", NONE), ("connection", NONE), ("provisioner", TYPE)],
};

/// OpenTofu's `removed` blocks take no `connection` block of their own.
const TOFU_REMOVED: Schema =
    Schema { attrs: &[("from", true)], blocks: &[("lifecycle", NONE), ("provisioner", TYPE)] };

const REMOVED_LIFECYCLE: Schema = Schema { attrs: &[("destroy", false)], blocks: &[] };

/// The names a variable may not have: the arguments and block types of a `module` block
/// (Terraform's own list, whichever engine: OpenTofu's module schema lacks only
/// `ignore_nested_deprecations`).
fn module_schema(tofu: bool) -> &'static Schema {
    if tofu { &TOFU_MODULE } else { &TF_MODULE }
}

/// A consistent detail for every "not a valid identifier" diagnostic.
const BAD_IDENTIFIER: &str = "A name must start with a letter or underscore and may contain only letters, digits, underscores, and dashes.";

/// The diagnostics Terraform (or OpenTofu) reports while decoding one file.
pub(crate) fn decode_file(
    files: &Files,
    f: &ParsedFile,
    engine: Engine,
    is_override: bool,
) -> Vec<Diagnostic> {
    let json = files.files.get(f.file).is_some_and(|s| s.syntax == Syntax::Json);
    let mut cx =
        Cx { files, json, over: is_override, tofu: engine == Engine::OpenTofu, out: Vec::new() };
    cx.file(&f.body);
    cx.out
}

/// Does a data block nested in a check decode without errors? Terraform keeps only such a
/// block (`decodeCheckBlock`), so only it can be a duplicate.
pub(crate) fn nested_data_decodes(files: &Files, engine: Engine, d: &Block) -> bool {
    let json = files.files.get(d.span.file).is_some_and(|s| s.syntax == Syntax::Json);
    let mut cx = Cx { files, json, over: false, tofu: engine == Engine::OpenTofu, out: Vec::new() };
    !cx.data(d, true)
}

struct Cx<'a> {
    files: &'a Files,
    json: bool,
    over: bool,
    tofu: bool,
    out: Vec<Diagnostic>,
}

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
pub(crate) fn provider_block_kept(b: &Block) -> bool {
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
    s.split(',').all(|one| match re.captures(one) {
        // Each numeric segment must fit in 64 bits.
        Some(c) => {
            c.get(3).is_some_and(|n| n.as_str().split('.').all(|d| d.parse::<i64>().is_ok()))
        }
        None => false,
    })
}

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
fn syntax_of(e: &Expr) -> Option<(ast::Expr, Option<usize>)> {
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
fn ref_problem(t: &Trav) -> Option<(&'static str, String)> {
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
        Node::Call { args, .. } => args.iter().for_each(|x| walk(e, off, x, bound, out)),
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
            Part::If { cond, yes, no, .. } => {
                walk(e, off, cond, bound, out);
                walk_parts(e, off, yes, bound, out);
                walk_parts(e, off, no, bound, out);
            }
            Part::For { key_var, value_var, collection, body, .. } => {
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

const QUOTED_REFERENCE: &str = "In this context, references are expected literally rather than in quotes. Terraform 0.11 and earlier required quotes, but quoted references are now deprecated and will be removed in a future version of Terraform. Remove the quotes surrounding this reference to silence this warning.";

/// `hcl.AbsTraversalForExpr`'s error.
const NOT_A_REFERENCE: &str = "A single static variable reference is required: only attribute access and indexing with constant keys. No calculations, function calls, template expressions, etc are allowed here.";

/// A string read as a reference (`hclsyntax.ParseTraversalAbs`), its text starting at
/// byte `origin` of `file`: what it read (nothing when it read no name), and its errors.
fn string_traversal(s: &str, file: usize, origin: usize) -> (Option<Trav>, Vec<Diagnostic>) {
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
fn json_traversal(files: &Files, e: &Expr) -> Option<Trav> {
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
/// `actions` is whether the engine knows action blocks (Terraform 1.14+; OpenTofu does not).
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
fn calls(e: &Expr) -> Vec<Span> {
    fn find(n: &ast::Expr, out: &mut Vec<std::ops::Range<usize>>) {
        match &n.node {
            Node::Call { .. } => out.push(n.range.clone()),
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

/// `addrs.ParseMoveEndpoint` (and `ParseTarget`): a module instance (`None`), or a
/// resource instance in one, with its mode (`managed`, `data`, `ephemeral`, `list`); or
/// Terraform's summary, detail and range of what is wrong.
fn move_endpoint(
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
enum RemoveTarget {
    Module,
    Resource { data: bool },
}

/// `addrs.ParseRemoveTarget`: a module (`module.a.module.b`) or a resource in one, never an
/// instance of either; or Terraform's summary, detail and range of what is wrong.
fn remove_target(t: &Trav) -> Result<RemoveTarget, (&'static str, &'static str, Span)> {
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

/// HCL's `StartRange` of an expression: where an error about the whole of it points
/// (a collection's opening bracket, a call's name and parenthesis, a string's first part).
fn start_range(e: &Expr) -> Span {
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
            Node::Call { name_range, .. } => name_range.start..name_range.end + 1,
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
fn native_quoted(e: &Expr) -> bool {
    matches!(e.kind, ExprKind::Template(_)) && e.source.is_some()
}

impl Cx<'_> {
    fn err(&mut self, summary: impl Into<String>, detail: impl Into<String>, at: Span) {
        self.out.push(Diagnostic::error(summary, detail, at));
    }

    /// The arguments Terraform decodes as a constant bool (`gohcl.DecodeExpression` with no
    /// variables), in the order it decodes them.
    fn static_bools(&mut self, body: &Body, names: &[&str]) {
        for a in names.iter().filter_map(|n| body.attr(n)) {
            self.static_value(a, &cty::Type::Bool);
        }
    }

    /// An argument Terraform decodes as a constant string (a variable's or an output's
    /// `description`).
    fn static_string(&mut self, body: &Body, name: &str) {
        if let Some(a) = body.attr(name) {
            self.static_value(a, &cty::Type::String);
        }
    }

    /// `gohcl.DecodeExpression` of a constant into a value of type `want`: what does not
    /// evaluate is reported, then that the value is unsuitable, at HCL's `StartRange` of
    /// the value (a tuple's `[`, a quoted string's text). One with a syntax error was
    /// reported when read.
    fn static_value(&mut self, a: &Attr, want: &cty::Type) {
        let at = start_range(&a.expr);
        if !super::variables::parses(&a.expr) {
            return;
        }
        // Without variables a JSON string is not a template: `"${true}"` is text.
        let json_template = a.expr.source.is_none()
            && matches!(&a.expr.kind, ExprKind::Template(p) if p.iter().any(|x| matches!(x, TplPart::Code(_))));
        let why = match super::variables::value_of(&a.expr) {
            _ if json_template && *want == cty::Type::String => return,
            _ if json_template => "a bool is required".to_string(),
            Err(e) => {
                self.eval_error(e, &a.expr);
                // A collection built of unknown values still has a type.
                match &a.expr.kind {
                    ExprKind::Tuple(_) => format!("{} required, but have tuple", want.friendly()),
                    ExprKind::Object(_) => format!("{} required, but have object", want.friendly()),
                    _ => "value must be known".to_string(),
                }
            }
            Ok(cty::Value::Null(_)) => "null value is not allowed".to_string(),
            Ok(v) => match cty::convert(&v, want) {
                Ok(cty::Value::Null(_)) => "null value is not allowed".to_string(),
                Ok(_) => return,
                Err(e) => e,
            },
        };
        self.err("Unsuitable value type", format!("Unsuitable value: {why}"), at);
    }

    /// Why an expression has no value without variables. References and calls are each
    /// reported, in source order, as HCL evaluates every part: a reference at its root
    /// name (`var` of `var.x`), a call as a whole (its arguments are not evaluated).
    fn eval_error(&mut self, e: cty::EvalError, expr: &Expr) {
        if !matches!(e.summary.as_str(), "Variables not allowed" | "Function calls not allowed") {
            return self.err(e.summary, e.detail, expr.span);
        }
        let calls = calls(expr);
        let mut found: Vec<(Span, bool)> = calls.iter().map(|c| (*c, true)).collect();
        for t in variables(expr) {
            if !calls.iter().any(|c| c.start <= t.root_span.start && t.root_span.end <= c.end) {
                found.push((t.root_span, false));
            }
        }
        found.sort_by_key(|(s, _)| s.start);
        for (at, call) in found {
            if call {
                self.err("Function calls not allowed", "Functions may not be called here.", at);
            } else {
                self.err("Variables not allowed", "Variables may not be used here.", at);
            }
        }
    }

    /// `hcl.AbsTraversalForExpr`: in JSON, the string as written is read as a reference.
    fn traversal(&self, e: &Expr) -> Option<Trav> {
        if self.json && e.source.is_none() {
            json_traversal(self.files, e)
        } else {
            abs_traversal(e)
        }
    }

    /// Where HCL stopped reading an expression with a syntax error, as the file's parser
    /// met it: inside the expression, or at the first token after it (`}` after `list(`).
    fn broken_at(&self, e: &Expr) -> Option<Span> {
        let src = e.source.as_ref()?;
        let (_, errors) = override_guard_hcl::parse_expression(src);
        let first = errors.first()?;
        let (file, o) = (e.span.file, e.span.start);
        let end = src.trim_end().len();
        if first.range.start < end {
            return Some(Span::new(file, o + first.range.start, o + first.range.end));
        }
        let text = &self.files.get(file).text;
        let rest = text.get(o + end..)?;
        // Inside an open bracket HCL reads past newlines; outside, a newline ends it.
        let open = src.chars().filter(|c| matches!(c, '(' | '[' | '{')).count()
            > src.chars().filter(|c| matches!(c, ')' | ']' | '}')).count();
        let skip = if open {
            rest.len() - rest.trim_start().len()
        } else {
            rest.len() - rest.trim_start_matches([' ', '\t']).len()
        };
        let at = o + end + skip;
        let width = text.get(at..).and_then(|t| t.chars().next()).map_or(0, char::len_utf8);
        Some(Span::new(file, at, at + width))
    }

    /// `hcl.ExprList`: the elements of a static list, or an error at the start of what
    /// is none.
    fn expr_list<'e>(&mut self, e: &'e Expr) -> &'e [Expr] {
        match e.as_tuple() {
            Some(items) => items,
            None => {
                if self.unbroken(e) {
                    self.err(
                        "Invalid expression",
                        "A static list expression is required.",
                        start_range(e),
                    );
                }
                &[]
            }
        }
    }

    /// Was no syntax error reported for this expression? One written in JSON was never
    /// parsed as native syntax when its file was read.
    fn unbroken(&self, e: &Expr) -> bool {
        e.source.is_none() || super::variables::parses(e)
    }

    /// Where Terraform's diagnostics about a block point (see [`Block::decl_span`]).
    fn decl(&self, b: &Block) -> Span {
        b.decl_span(self.files)
    }

    fn engine_name(&self) -> &'static str {
        if self.tofu { "OpenTofu" } else { "Terraform" }
    }

    fn range(&self, s: Span) -> String {
        self.files.range_string(s)
    }

    fn has_errors_since(&self, mark: usize) -> bool {
        self.out[mark..].iter().any(|d| d.severity == Severity::Error)
    }

    /// HCL's `MissingItemRange`: the opening brace in native syntax (empty range), the
    /// closing brace of the object in JSON.
    fn missing(&self, b: &Block) -> Span {
        if self.json {
            Span::new(b.span.file, b.span.end.saturating_sub(1), b.span.end)
        } else {
            Span::new(b.open_span.file, b.open_span.start, b.open_span.start)
        }
    }

    /// The label check of `PartialContent` for one block: `true` when it has as many
    /// labels as its type takes.
    fn labels_ok(&mut self, b: &Block, names: &[&str]) -> bool {
        let (kind, n, want) = (&b.kind, b.labels.len(), names.len());
        if n > want {
            let at = b.label_spans.get(want).copied().unwrap_or(self.decl(b));
            let detail = if want == 0 {
                format!("No labels are expected for {kind} blocks.")
            } else {
                format!("Only {want} labels ({}) are expected for {kind} blocks.", names.join(", "))
            };
            self.err(format!("Extraneous label for {kind}"), detail, at);
            false
        } else if n < want {
            self.err(
                format!("Missing {} for {kind}", names[n]),
                format!("All {kind} blocks must have {want} labels ({}).", names.join(", ")),
                b.open_span,
            );
            false
        } else {
            true
        }
    }

    /// HCL's `PartialContent` (`all == false`) or `Content` (`all == true`) of a body:
    /// missing required arguments, wrong label counts, then (for `Content`) what the schema
    /// does not know. Returns the blocks the schema accepts, in order.
    fn content<'b>(
        &mut self,
        body: &'b Body,
        missing: Span,
        s: &Schema,
        relax: bool,
        all: bool,
    ) -> Vec<&'b Block> {
        let json_missing_after = self.json;
        if !json_missing_after {
            self.missing_args(body, missing, s, relax);
        }
        let mut blocks = Vec::new();
        for b in body.blocks() {
            if let Some((_, names)) = s.blocks.iter().find(|(t, _)| *t == b.kind)
                && self.labels_ok(b, names)
            {
                blocks.push(b);
            }
        }
        if json_missing_after {
            self.missing_args(body, missing, s, relax);
        }
        if !all {
            return blocks;
        }
        let present = |n: &str| body.attr(n).is_some();
        for a in body.attrs() {
            if s.attrs.iter().any(|(n, _)| *n == a.name)
                || self.json && s.blocks.iter().any(|(t, _)| *t == a.name)
            {
                continue;
            }
            if self.json {
                let mut cands: Vec<&str> =
                    s.attrs.iter().map(|(n, _)| *n).filter(|n| !present(n)).collect();
                cands.extend(s.blocks.iter().map(|(t, _)| *t));
                let hint = name_suggestion(&a.name, &cands)
                    .map(|c| format!(" Did you mean \"{c}\"?"))
                    .unwrap_or_default();
                self.err(
                    "Extraneous JSON object property",
                    format!("No argument or block type is named \"{}\".{hint}", a.name),
                    a.name_span,
                );
                continue;
            }
            let cands: Vec<&str> =
                s.attrs.iter().map(|(n, _)| *n).filter(|n| !present(n)).collect();
            let hint = match name_suggestion(&a.name, &cands) {
                Some(c) => format!(" Did you mean \"{c}\"?"),
                None if s.blocks.iter().any(|(t, _)| *t == a.name) => {
                    format!(" Did you mean to define a block of type \"{}\"?", a.name)
                }
                None => String::new(),
            };
            self.err(
                "Unsupported argument",
                format!("An argument named \"{}\" is not expected here.{hint}", a.name),
                a.name_span,
            );
        }
        for item in &body.items {
            match item {
                Item::Block(b) if !s.blocks.iter().any(|(t, _)| *t == b.kind) => {
                    let cands: Vec<&str> = s.blocks.iter().map(|(t, _)| *t).collect();
                    let hint = match name_suggestion(&b.kind, &cands) {
                        Some(c) => format!(" Did you mean \"{c}\"?"),
                        None if s.attrs.iter().any(|(n, _)| *n == b.kind) => format!(
                            " Did you mean to define argument \"{}\"? If so, use the equals sign to assign it a value.",
                            b.kind
                        ),
                        None => String::new(),
                    };
                    self.err(
                        "Unsupported block type",
                        format!("Blocks of type \"{}\" are not expected here.{hint}", b.kind),
                        b.type_span,
                    );
                }
                // JSON cannot tell a block from an argument: a block type's name is one.
                Item::Json(j) if self.json && !s.blocks.iter().any(|(t, _)| *t == j.name) => {
                    let mut cands: Vec<&str> =
                        s.attrs.iter().map(|(n, _)| *n).filter(|n| !present(n)).collect();
                    cands.extend(s.blocks.iter().map(|(t, _)| *t));
                    let hint = name_suggestion(&j.name, &cands)
                        .map(|c| format!(" Did you mean \"{c}\"?"))
                        .unwrap_or_default();
                    self.err(
                        "Extraneous JSON object property",
                        format!("No argument or block type is named \"{}\".{hint}", j.name),
                        j.name_span,
                    );
                }
                _ => {}
            }
        }
        blocks
    }

    fn missing_args(&mut self, body: &Body, missing: Span, s: &Schema, relax: bool) {
        if relax {
            return;
        }
        for (name, required) in s.attrs {
            if *required && body.attr(name).is_none() {
                self.err(
                    "Missing required argument",
                    format!("The argument \"{name}\" is required, but no definition was found."),
                    missing,
                );
            }
        }
    }

    /// `JustAttributes`: a native-syntax body with blocks is an error (the attributes are
    /// still decoded). Returns whether it reported one.
    fn just_attributes(&mut self, body: &Body) -> bool {
        if self.json {
            return false;
        }
        match body.blocks().next() {
            Some(b) => {
                self.err(
                    format!("Unexpected \"{}\" block", b.kind),
                    "Blocks are not allowed here.",
                    b.type_span,
                );
                true
            }
            None => false,
        }
    }

    /// The top-level blocks of a type, after the label check (the sniffing passes decode
    /// `terraform` blocks on their own before the whole file is decoded).
    fn sniff_terraform<'b>(&mut self, body: &'b Body) -> Vec<&'b Block> {
        body.blocks_of("terraform").filter(|t| self.labels_ok(t, NONE)).collect()
    }

    fn file(&mut self, body: &Body) {
        // sniffCoreVersionRequirements
        for t in self.sniff_terraform(body) {
            if let Some(a) = t.attr("required_version") {
                self.version_constraint(a);
            }
        }
        // sniffActiveExperiments
        for t in self.sniff_terraform(body) {
            if let Some(a) = t.attr("language") {
                self.language(a);
            }
            if let Some(a) = t.attr("experiments")
                && !self.tofu
            {
                self.err(
                    "Module uses experimental features",
                    "Experimental features are intended only for gathering early feedback on new language designs, and so are available only in alpha releases of Terraform.",
                    a.name_span,
                );
            }
        }
        let top = if self.tofu { &TOFU_TOP } else { &TF_TOP };
        // JSON's unknown top-level properties are reported as the file is read.
        let zero = Span::default();
        let blocks = self.content(body, zero, top, true, !self.json);
        for b in blocks {
            match b.kind.as_str() {
                "terraform" => self.terraform(b),
                "required_providers" => self.err(
                    "Invalid required_providers block",
                    "A \"required_providers\" block must be nested inside a \"terraform\" block.",
                    b.type_span,
                ),
                "provider" => self.provider(b),
                "variable" => self.variable(b),
                "locals" => self.locals(b),
                "output" => self.output(b),
                "module" => self.module(b),
                "resource" => self.resource(b),
                "data" => {
                    self.data(b, false);
                }
                "ephemeral" => self.ephemeral(b),
                "moved" => self.moved(b),
                "removed" => self.removed(b),
                "import" => self.import(b),
                "check" => self.check(b),
                "action" => self.action(b),
                _ => {}
            }
        }
    }

    /// `decodeVersionConstraint` of an argument (`required_version`, a provider's `version`).
    fn version_constraint(&mut self, a: &Attr) {
        // An expression that did not parse was reported as such; its value is unknown to
        // Terraform, which then checks nothing more.
        if !super::variables::parses(&a.expr) {
            return;
        }
        let v = match super::variables::value_of(&a.expr) {
            Ok(v) => v,
            Err(e) => return self.err(e.summary, e.detail, a.expr.span),
        };
        let text = match v {
            crate::cty::Value::Null(_) => return,
            crate::cty::Value::String(s) => s,
            crate::cty::Value::Bool(b) => b.to_string(),
            crate::cty::Value::Number(n) => n.to_text(),
            _ => {
                return self.err(
                    "Invalid version constraint",
                    format!("A string value is required for {}.", a.name),
                    a.expr.span,
                );
            }
        };
        if !valid_constraint(&text) {
            self.err(
                "Invalid version constraint",
                "This string does not use correct version constraint syntax.",
                a.expr.span,
            );
        }
    }

    /// `terraform { language = … }` (Terraform only knows the edition TF2021).
    fn language(&mut self, a: &Attr) {
        if self.tofu {
            return;
        }
        match a.expr.as_keyword() {
            Some("TF2021") => {}
            Some(kw) if valid_identifier(kw) => {
                let rel = if kw > "TF2021" { "newer" } else { "different" };
                self.err(
                    "Unsupported language edition",
                    format!("Terraform v1.15.5 only supports language edition TF2021. This module requires a {rel} version of Terraform CLI."),
                    a.expr.span,
                );
            }
            _ => self.err(
                "Invalid language edition",
                "The language argument expects a bare language edition keyword. Terraform 1.15.5 supports only language edition TF2021, which is the default.",
                a.expr.span,
            ),
        }
    }

    fn terraform(&mut self, t: &Block) {
        let s = if self.tofu { &TOFU_TERRAFORM } else { &TF_TERRAFORM };
        for b in self.content(&t.body, self.missing(t), s, false, true) {
            match b.kind.as_str() {
                "state_store" => self.err(
                    "Unsupported block type",
                    "Blocks of type \"state_store\" are not expected here.",
                    b.type_span,
                ),
                "required_providers" => self.required_providers(b),
                "provider_meta" if !self.just_attributes(&b.body) => {
                    // `decodeProviderMetaBlock`: the values must be constants (JSON's
                    // strings are text without variables, so all of JSON's are).
                    let json = self.json;
                    for a in b.body.attrs().filter(|_| !json) {
                        if super::variables::parses(&a.expr)
                            && let Err(e) = super::variables::value_of(&a.expr)
                        {
                            self.eval_error(e, &a.expr);
                        }
                    }
                    let name = b.labels.first().map_or("", String::as_str);
                    self.provider_name(name, self.decl(b));
                }
                _ => {}
            }
        }
    }

    /// `checkProviderNameNormalized`: `true` when the name is valid and normalized.
    fn provider_name(&mut self, name: &str, at: Span) -> bool {
        match provider_part(name) {
            Err(e) => {
                self.err(
                    "Invalid provider local name",
                    format!("{name} is an invalid provider local name: {e}"),
                    at,
                );
                false
            }
            Ok(n) if n != name => {
                self.err(
                    "Invalid provider local name",
                    format!("Provider names must be normalized. Replace \"{name}\" with \"{n}\" to fix this error."),
                    at,
                );
                false
            }
            Ok(_) => true,
        }
    }

    fn required_providers(&mut self, b: &Block) {
        if self.just_attributes(&b.body) {
            return;
        }
        let mark = self.out.len();
        for a in b.body.attrs() {
            let value = super::variables::value_of(&a.expr).ok();
            if value.as_ref().is_some_and(|v| v.ty().is_primitive()) {
                self.version_constraint(a);
                if let Err(e) = provider_part(&a.name) {
                    self.err("Invalid provider name", e, a.expr.span);
                }
                continue;
            }
            if !self.provider_name(&a.name, a.expr.span) {
                continue;
            }
            let Some(entries) = a.expr.as_object() else {
                self.err(
                    "Invalid required_providers object",
                    "required_providers entries must be strings or objects.",
                    a.expr.span,
                );
                continue;
            };
            for (k, v) in entries {
                let ObjKey::Name(key) = k else { continue };
                match key.as_str() {
                    "version" => match v.as_str() {
                        None => self.err(
                            "Invalid version constraint",
                            "Version must be specified as a string.",
                            v.span,
                        ),
                        Some(s) if !valid_constraint(&s) => self.err(
                            "Invalid version constraint",
                            "This string does not use correct version constraint syntax.",
                            v.span,
                        ),
                        Some(_) => {}
                    },
                    "source" => match v.as_str() {
                        None => self.err(
                            "Invalid source",
                            "Source must be specified as a string.",
                            v.span,
                        ),
                        Some(src) => {
                            // (OpenTofu's registry and wording differ.)
                            if let Err((summary, detail)) = provider_source(&src)
                                && !self.tofu
                            {
                                self.err(summary, detail, v.span);
                            }
                        }
                    },
                    "configuration_aliases" => {
                        for e in self.expr_list(v) {
                            let Some(t) = self.traversal(e) else {
                                self.err("Invalid expression", NOT_A_REFERENCE, e.span);
                                continue;
                            };
                            // `ParseProviderConfigCompact`: a name, then an alias (what
                            // follows the alias is not looked at).
                            if let Some((None, _)) = t.steps.first() {
                                self.err(
                                    "Invalid configuration_aliases value",
                                    "Configuration aliases can only contain references to local provider configuration names in the format of provider.alias",
                                    v.span,
                                );
                                continue;
                            }
                            if t.root != a.name {
                                self.err(
                                    "Invalid configuration_aliases value",
                                    format!(
                                        "Configuration aliases must be prefixed with the provider name. Expected \"{}\", but found \"{}\".",
                                        a.name, t.root
                                    ),
                                    v.span,
                                );
                            }
                        }
                    }
                    _ => {
                        let at = self.key_span(&a.expr, key, v.span);
                        self.err(
                            "Invalid required_providers object",
                            "required_providers objects can only contain \"version\", \"source\" and \"configuration_aliases\" attributes. To configure a provider, use a \"provider\" block.",
                            at,
                        );
                        break;
                    }
                }
            }
            if self.has_errors_since(mark) {
                continue;
            }
        }
    }

    /// Where an object key is written: the last occurrence of its name before its value.
    fn key_span(&self, obj: &Expr, key: &str, value: Span) -> Span {
        let text = self.files.text(Span::new(obj.span.file, obj.span.start, value.start));
        match text.rfind(key) {
            Some(i) => {
                // A quoted key starts at its quote.
                let start = obj.span.start + i;
                let quoted = i > 0 && text.as_bytes()[i - 1] == b'"';
                let (s, e) = if quoted {
                    (start - 1, start + key.len() + 1)
                } else {
                    (start, start + key.len())
                };
                Span::new(obj.span.file, s, e)
            }
            None => value,
        }
    }

    fn provider(&mut self, b: &Block) {
        let inner = self.content(&b.body, self.missing(b), &TF_PROVIDER, false, false);
        if !self.provider_name(b.labels.first().map_or("", String::as_str), self.decl(b)) {
            return;
        }
        if let Some(a) = b.attr("alias")
            && let Some(alias) = a.expr.as_str()
            && !valid_identifier(&alias)
        {
            // Terraform gives this one no location.
            self.out.push(Diagnostic {
                subject: None,
                ..Diagnostic::error(
                    "Invalid provider configuration alias",
                    format!("An alias must be a valid name. {BAD_IDENTIFIER}"),
                    a.expr.span,
                )
            });
        }
        if let Some(a) = b.attr("version") {
            self.out.push(Diagnostic::warning(
                "Version constraints inside provider configuration blocks are deprecated",
                "Terraform 0.13 and earlier allowed provider version constraints inside the provider configuration block, but that is now deprecated and will be removed in a future version of Terraform. To silence this warning, move the provider version constraint into the required_providers block.",
                a.expr.span,
            ));
            self.version_constraint(a);
        }
        let reserved: &[&str] = if self.tofu {
            &["count", "depends_on", "source"]
        } else {
            &["count", "depends_on", "for_each", "source"]
        };
        for name in reserved {
            if let Some(a) = b.attr(name) {
                self.err(
                    "Reserved argument name in provider block",
                    format!("The provider argument name \"{name}\" is reserved for use by {} in a future version.", self.engine_name()),
                    a.name_span,
                );
            }
        }
        self.meta_blocks(&inner, "provider", "provider-specific", "provider");
    }

    /// The nested blocks of provider and module blocks: one escaping block `_`, the other
    /// block types reserved.
    fn meta_blocks(&mut self, blocks: &[&Block], what: &str, escape: &str, reserved_in: &str) {
        let mut seen: Option<Span> = None;
        for b in blocks {
            if b.kind == "_" {
                match seen {
                    Some(first) => self.err(
                        "Duplicate escaping block",
                        format!(
                            "The special block type \"_\" can be used to force particular arguments to be interpreted as {escape} rather than as meta-arguments, but each {what} block can have only one such block. The first escaping block was at {}.",
                            self.range(first)
                        ),
                        self.decl(b),
                    ),
                    None => seen = Some(self.decl(b)),
                }
            } else {
                self.err(
                    format!("Reserved block type name in {reserved_in} block"),
                    format!(
                        "The block type name \"{}\" is reserved for use by {} in a future version.",
                        b.kind,
                        self.engine_name()
                    ),
                    b.type_span,
                );
            }
        }
    }

    fn variable(&mut self, b: &Block) {
        let s = if self.tofu { &TOFU_VARIABLE } else { &TF_VARIABLE };
        let inner = self.content(&b.body, self.missing(b), s, false, true);
        let name = b.labels.first().cloned().unwrap_or_default();
        let name = &name;
        let at = b.label_spans.first().copied().unwrap_or(self.decl(b));
        if !valid_identifier(name) {
            self.err("Invalid variable name", BAD_IDENTIFIER, at);
        }
        let module = module_schema(self.tofu);
        let reserved =
            module.attrs.iter().map(|(n, _)| *n).chain(module.blocks.iter().map(|(t, _)| *t));
        for r in reserved.filter(|r| r == name) {
            self.err(
                "Invalid variable name",
                format!("The variable name \"{r}\" is reserved due to its special meaning inside module blocks."),
                at,
            );
        }
        self.static_string(&b.body, "description");
        let flag =
            |n: &str| b.attr(n).and_then(|a| super::variables::static_flag(&a.expr)) == Some(true);
        // OpenTofu has no such rule (its const variables feed early evaluation only).
        if flag("const") && !self.tofu {
            if flag("sensitive") {
                self.err(
                    "Const variable cannot be sensitive",
                    "A variable that is marked as \"const\" cannot also be marked as \"sensitive\".",
                    self.decl(b),
                );
            }
            if flag("ephemeral") {
                self.err(
                    "Const variable cannot be ephemeral",
                    "A variable that is marked as \"const\" cannot also be marked as \"ephemeral\".",
                    self.decl(b),
                );
            }
        }
        self.static_bools(&b.body, &["sensitive", "ephemeral", "const", "nullable"]);
        let mut found = super::variables::variable_errors(b, self.over);
        // A type with a syntax error is no type where HCL stopped reading it.
        if let Some(t) = b.attr("type")
            && let Some(at) = self.broken_at(&t.expr)
        {
            for d in found.iter_mut().filter(|d| d.subject == Some(t.expr.span)) {
                d.subject = Some(at);
            }
        }
        self.out.extend(found);
        if !self.tofu {
            self.static_string(&b.body, "deprecated");
        }
        for v in inner {
            if let (Some(cond), _) = self.check_rule(v) {
                let refers = variables(&cond.expr).iter().any(|t| {
                    t.root == "var"
                        && t.steps.first().is_some_and(|(n, _)| n.as_deref() == Some(name.as_str()))
                });
                if !refers {
                    self.err(
                        "Invalid variable validation condition",
                        format!("The condition for variable \"{name}\" must refer to var.{name} in order to test incoming values."),
                        cond.expr.span,
                    );
                }
            }
        }
    }

    /// `decodeCheckRuleBlock`: a precondition, postcondition, validation or assert block.
    /// Returns its condition and error message.
    fn check_rule<'b>(&mut self, b: &'b Block) -> (Option<&'b Attr>, Option<&'b Attr>) {
        if self.over {
            self.err(
                format!("Can't override {} blocks", b.kind),
                format!("Override files cannot override \"{}\" blocks.", b.kind),
                self.decl(b),
            );
            return (None, None);
        }
        self.content(&b.body, self.missing(b), &CHECK_RULE, false, true);
        let cond = b.attr("condition");
        if let Some(c) = cond
            && variables(&c.expr).is_empty()
        {
            self.err(
                format!("Invalid {} expression", b.kind),
                "The condition expression must refer to at least one object from elsewhere in the configuration, or else its result would not be checking anything.",
                c.expr.span,
            );
        }
        (cond, b.attr("error_message"))
    }

    fn locals(&mut self, b: &Block) {
        self.just_attributes(&b.body);
        for a in b.body.attrs() {
            if !valid_identifier(&a.name) {
                self.err("Invalid local value name", BAD_IDENTIFIER, a.name_span);
            }
        }
    }

    fn output(&mut self, b: &Block) {
        let s = if self.tofu { &TOFU_OUTPUT } else { &TF_OUTPUT };
        let inner = self.content(&b.body, self.missing(b), s, self.over, true);
        if !valid_identifier(b.labels.first().map_or("", String::as_str)) {
            let at = b.label_spans.first().copied().unwrap_or(self.decl(b));
            self.err("Invalid output name", BAD_IDENTIFIER, at);
        }
        self.static_string(&b.body, "description");
        // Terraform's outputs may declare a type (`TypeConstraintWithDefaults`); its errors
        // carry no range of their own here, so they point at the whole type (or where a
        // syntax error stopped its parsing).
        if let Some(a) = b.attr("type").filter(|_| !self.tofu && !self.json)
            && let Some(src) = &a.expr.source
            && let Err((e, broken)) = cty::type_constraint_source(src)
        {
            let at = broken.and_then(|_| self.broken_at(&a.expr)).unwrap_or(a.expr.span);
            self.err(e.summary, e.detail, at);
        }
        self.static_bools(&b.body, &["sensitive", "ephemeral"]);
        if !self.tofu {
            self.static_string(&b.body, "deprecated");
        }
        self.depends_on(b);
        for c in inner {
            match c.kind.as_str() {
                "precondition" => {
                    self.check_rule(c);
                }
                _ => self.err(
                    "Postconditions are not allowed",
                    "Output values can only have preconditions, not postconditions.",
                    c.type_span,
                ),
            }
        }
    }

    fn count_and_for_each(&mut self, b: &Block, detail: &str) {
        let (Some(c), Some(f)) = (b.attr("count"), b.attr("for_each")) else { return };
        if !self.tofu {
            return self.err(
                "Invalid combination of \"count\" and \"for_each\"",
                detail,
                f.name_span,
            );
        }
        // OpenTofu (`validation.go: complainRngAndMsg`) reports the range from the first of
        // the two to the last, and names what is counted.
        let (verb, what) = match b.kind.as_str() {
            "module" => ("should", "module instances"),
            "data" => ("may", "data sources"),
            "ephemeral" => ("may", "ephemeral resources"),
            _ => ("may", "resources"),
        };
        let (first, last) = if c.name_span.start <= f.name_span.start {
            (c.name_span, f.name_span)
        } else {
            (f.name_span, c.name_span)
        };
        self.err(
            "Invalid combination of \"count\" and \"for_each\"",
            format!("The \"count\" and \"for_each\" meta-arguments are mutually-exclusive. Only one {verb} be used to be explicit about the number of {what} to be created."),
            Span::new(first.file, first.start, last.end),
        );
    }

    fn module(&mut self, b: &Block) {
        let s = module_schema(self.tofu);
        let inner = self.content(&b.body, self.missing(b), s, self.over, false);
        self.depends_on(b);
        if !valid_identifier(b.labels.first().map_or("", String::as_str)) {
            let at = b.label_spans.first().copied().unwrap_or(self.decl(b));
            self.err("Invalid module instance name", BAD_IDENTIFIER, at);
        }
        if !self.tofu {
            self.count_and_for_each(b, COUNT_FOR_EACH);
        }
        if let Some(p) = b.attr("providers") {
            self.passed_providers(p);
        }
        if let Some(a) = b.attr("ignore_nested_deprecations")
            && !self.tofu
        {
            let v = super::variables::value_of(&a.expr);
            if v.is_err() {
                self.err(
                    "Invalid value for ignore_nested_deprecations",
                    "The value for ignore_nested_deprecations must be a static boolean (true or false).",
                    a.expr.span,
                );
            }
            let ty = v.as_ref().map_or_else(|_| "dynamic".to_string(), |v| v.ty().friendly());
            if !matches!(
                v,
                Ok(crate::cty::Value::Bool(_))
                    | Ok(crate::cty::Value::Null(crate::cty::Type::Bool))
            ) {
                self.err(
                    "Invalid type for ignore_nested_deprecations",
                    format!("The value for ignore_nested_deprecations must be a boolean (true or false), but the given value has type {ty}."),
                    a.expr.span,
                );
            }
        }
        let inner: Vec<&Block> = if self.tofu {
            inner.into_iter().filter(|c| c.kind != "lifecycle").collect()
        } else {
            inner
        };
        self.meta_blocks(&inner, "module", "module input variables", "module");
        // OpenTofu checks the repetition arguments after the nested blocks.
        if self.tofu {
            self.count_and_for_each(b, COUNT_FOR_EACH);
        }
    }

    /// `decodeProviderConfigRef`: `provider = aws.west` and the values of `providers`.
    /// `decodePassedProviderConfigs`: a static map whose keys and values are both provider
    /// references (a quoted key is deprecated like a quoted value), each key given once.
    fn passed_providers(&mut self, p: &Attr) {
        let Some(pairs) = p.expr.as_object() else {
            if self.unbroken(&p.expr) {
                self.err(
                    "Invalid expression",
                    "A static map expression is required.",
                    start_range(&p.expr),
                );
            }
            return;
        };
        // The keys as written (native syntax): their text and range.
        let tree = syntax_of(&p.expr);
        let keys: Vec<Option<Expr>> = match &tree {
            Some((ast::Expr { node: Node::Object(items), .. }, Some(off))) => items
                .iter()
                .map(|(k, _)| {
                    let r = match k {
                        ast::Key::Name(_, r) => r.clone(),
                        ast::Key::Expr(x) => x.range.clone(),
                    };
                    let span = Span::new(p.expr.span.file, off + r.start, off + r.end);
                    let text = self.files.text(span).to_string();
                    let kind = match k {
                        ast::Key::Expr(x) if matches!(x.node, Node::Template { .. }) => {
                            match x.as_literal_str() {
                                Some(s) => ExprKind::Template(vec![TplPart::Lit(s)]),
                                None => ExprKind::Template(vec![TplPart::Code(text.clone())]),
                            }
                        }
                        _ => ExprKind::Raw(text.as_str().into()),
                    };
                    Some(Expr { source: Some(text.as_str().into()), ..Expr::new(kind, span) })
                })
                .collect(),
            _ => Vec::new(),
        };
        let mut seen: Vec<(String, Span)> = Vec::new();
        for (i, (_, v)) in pairs.iter().enumerate() {
            let key = keys.get(i).cloned().flatten();
            let k = key.as_ref().map(|k| self.provider_ref(k, "providers"));
            let value = self.provider_ref(v, "providers");
            let (Some(Some(k)), Some(_), Some(key)) = (k, value, key) else { continue };
            if let Some((_, prev)) = seen.iter().find(|(n, _)| *n == k) {
                self.err(
                    "Duplicate provider address",
                    format!("A provider configuration was already passed to {k} at {}. Each child provider configuration can be assigned only once.", self.range(*prev)),
                    v.span,
                );
                continue;
            }
            seen.push((k, Span { end: v.span.end, ..key.span }));
        }
    }

    /// Returns the reference (`aws` or `aws.west`) when it is a valid one.
    fn provider_ref(&mut self, e: &Expr, arg: &str) -> Option<String> {
        let quoted = native_quoted(e);
        // A quoted reference still works, with a warning.
        let t = match self.shim(e, false) {
            Some(t) => t,
            None if quoted => None,
            None => self.traversal(e),
        };
        let Some(t) = t.filter(|t| t.steps.len() < 2) else {
            let detail = if quoted && e.as_str().is_none() {
                "A provider configuration reference must not be given in quotes.".to_string()
            } else {
                format!(
                    "The {arg} argument requires a provider type name, optionally followed by a period and then a configuration alias."
                )
            };
            self.err("Invalid provider configuration reference", detail, e.span);
            return None;
        };
        if !self.provider_name(&t.root, t.root_span) {
            return None;
        }
        match t.steps.first() {
            Some((None, at)) => {
                let at = *at;
                self.err(
                    "Invalid provider configuration reference",
                    "Provider name must either stand alone or be followed by a period and then a configuration alias.",
                    at,
                );
                None
            }
            Some((Some(alias), _)) => Some(format!("{}.{alias}", t.root)),
            None => Some(t.root.clone()),
        }
    }

    fn resource_names(&mut self, b: &Block, type_summary: &str, name_summary: &str) {
        for (i, summary) in [type_summary, name_summary].into_iter().enumerate() {
            if let Some(l) = b.labels.get(i)
                && !valid_identifier(l)
            {
                let at = b.label_spans.get(i).copied().unwrap_or(self.decl(b));
                self.err(summary, BAD_IDENTIFIER, at);
            }
        }
    }

    fn resource(&mut self, b: &Block) {
        let inner = self.content(&b.body, self.missing(b), &RESOURCE, false, false);
        self.resource_names(b, "Invalid resource type name", "Invalid resource name");
        if !self.tofu {
            self.count_and_for_each(b, COUNT_FOR_EACH);
        }
        if let Some(p) = b.attr("provider") {
            let _ = self.provider_ref(&p.expr, "provider");
        }
        self.depends_on(b);
        let (mut lifecycle, mut connection, mut escape): (
            Option<Span>,
            Option<&Block>,
            Option<Span>,
        ) = (None, None, None);
        let mut destroy_provisioner = false;
        for c in inner {
            match c.kind.as_str() {
                "lifecycle" => {
                    if let Some(first) = lifecycle {
                        self.err(
                            "Duplicate lifecycle block",
                            format!(
                                "This resource already has a lifecycle block at {}.",
                                self.range(first)
                            ),
                            self.decl(c),
                        );
                        continue;
                    }
                    lifecycle = Some(self.decl(c));
                    self.lifecycle(b, c, "resource");
                }
                "connection" => {
                    if let Some(first) = connection {
                        self.err(
                            "Duplicate connection block",
                            format!(
                                "This resource already has a connection block at {}.",
                                self.range(self.decl(first))
                            ),
                            self.decl(c),
                        );
                        continue;
                    }
                    connection = Some(c);
                }
                "provisioner" => {
                    if self.provisioner(c) == Some(true) {
                        destroy_provisioner = true;
                    }
                }
                "_" => {
                    if let Some(first) = escape {
                        self.err(
                            "Duplicate escaping block",
                            format!(
                                "The special block type \"_\" can be used to force particular arguments to be interpreted as resource-type-specific rather than as meta-arguments, but each resource block can have only one such block. The first escaping block was at {}.",
                                self.range(first)
                            ),
                            self.decl(c),
                        );
                        continue;
                    }
                    escape = Some(self.decl(c));
                }
                _ => self.err(
                    "Reserved block type name in resource block",
                    format!(
                        "The block type name \"{}\" is reserved for use by {} in a future version.",
                        c.kind,
                        self.engine_name()
                    ),
                    c.type_span,
                ),
            }
        }
        if self.tofu {
            self.count_and_for_each(b, COUNT_FOR_EACH);
        }
        if let Some(conn) = connection
            && destroy_provisioner
        {
            self.only_self_refs(&conn.body, &[]);
        }
    }

    /// The address a resource block's conditions would refer to it by.
    fn self_address(b: &Block) -> Option<(String, String, String)> {
        let prefix = match b.kind.as_str() {
            "resource" => "",
            "data" => "data",
            "ephemeral" => "ephemeral",
            _ => return None,
        };
        Some((prefix.to_string(), b.labels.first()?.clone(), b.labels.get(1)?.clone()))
    }

    fn refers_to(t: &Trav, (prefix, ty, name): &(String, String, String)) -> bool {
        let steps: Vec<Option<&str>> = t.steps.iter().map(|(n, _)| n.as_deref()).collect();
        if prefix.is_empty() {
            t.root == *ty && steps.first() == Some(&Some(name.as_str()))
        } else {
            t.root == *prefix
                && steps.first() == Some(&Some(ty.as_str()))
                && steps.get(1) == Some(&Some(name.as_str()))
        }
    }

    /// A JSON string read as an expression, as `unwrapJSONRefExpr` reads it: its text and
    /// tree (ranges from the string's quote, where Terraform places them). What is no
    /// string, or does not parse, is reported (`None`).
    fn json_string_expr(&mut self, e: &Expr) -> Option<(String, ast::Expr)> {
        let Ok(text) = serde_json::from_str::<String>(self.files.text(e.span)) else {
            self.err(
                "Invalid reference expression",
                "A single reference string is required.",
                e.span,
            );
            return None;
        };
        let (tree, errors) = override_guard_hcl::parse_expression(&text);
        let (file, o) = (e.span.file, e.span.start);
        if !errors.is_empty() {
            for x in errors {
                self.err(x.summary, x.detail, Span::new(file, o + x.range.start, o + x.range.end));
            }
            return None;
        }
        Some((text, tree))
    }

    /// `unwrapJSONRefExpr`: the references of a list entry and its range. In JSON the
    /// entry is a string parsed as an expression (at the string's quote, as Terraform
    /// places it); what is no string, or does not parse, is reported and has none.
    fn json_ref_expr(&mut self, e: &Expr) -> Option<(Vec<Trav>, Span)> {
        if !self.json || e.source.is_some() {
            return Some((variables(e), e.span));
        }
        let (text, tree) = self.json_string_expr(e)?;
        let at =
            Span::new(e.span.file, e.span.start + tree.range.start, e.span.start + tree.range.end);
        let parsed = Expr {
            source: Some(text.as_str().into()),
            ..Expr::new(ExprKind::Raw(text.as_str().into()), at)
        };
        Some((variables(&parsed), at))
    }

    /// `decodeActionTriggerRef`: a static list whose every entry refers to exactly one
    /// action of this module (no resource, no module's). As for replace_triggered_by,
    /// once an entry has an error no further entry's references are judged. Returns how
    /// many entries the list has.
    fn action_refs(&mut self, a: &Attr) -> usize {
        let mark = self.out.len();
        let items = self.expr_list(&a.expr);
        for e in items {
            let entry = self.json_ref_expr(e);
            if self.has_errors_since(mark) {
                continue;
            }
            let Some((refs, at)) = entry else { continue };
            let mut actions = 0;
            for t in refs {
                match t.root.as_str() {
                    "action" => actions += 1,
                    "module" => self.err(
                        "Invalid reference to action outside this module",
                        "Actions can only be referenced in the module they are declared in.",
                        at,
                    ),
                    "var" | "local" | "count" | "each" | "path" | "terraform" | "self" => {}
                    _ if t.steps.first().is_some_and(|(n, _)| n.is_some()) => self.err(
                        "Invalid action argument inside action_triggers",
                        "action_triggers.actions must only refer to actions in the current module.",
                        at,
                    ),
                    _ => {}
                }
            }
            match actions {
                0 => self.err(
                    "No actions specified",
                    "At least one action must be specified for an action_trigger.",
                    at,
                ),
                1 => {}
                _ => self.err(
                    "Invalid action expression",
                    "Multiple action references in actions expression.",
                    at,
                ),
            }
        }
        items.len()
    }

    /// `decodeReplaceTriggeredBy`: a static list whose every entry refers to exactly one
    /// resource, and otherwise only to `count.index` and `each.key`. Once an entry has an
    /// error Terraform judges the references of no further entry.
    fn replace_triggered_by(&mut self, a: &Attr) {
        let mark = self.out.len();
        for e in self.expr_list(&a.expr) {
            // A JSON entry that does not parse is reported even after an error.
            let entry = self.json_ref_expr(e);
            if self.has_errors_since(mark) {
                continue;
            }
            let Some((refs, at)) = entry else { continue };
            // `lang.ReferencesInExpr`: a traversal that is no address is an error of its
            // own, and then the entry's references are not judged.
            let mut bad = false;
            for t in &refs {
                if let Some((summary, detail)) = ref_problem(t) {
                    self.err(summary, detail, at);
                    bad = true;
                }
            }
            if bad {
                continue;
            }
            let mut resources = 0;
            for t in refs {
                let first = t.steps.first().map(|(n, _)| n.as_deref());
                let problem = match t.root.as_str() {
                    "count" if first != Some(Some("index")) => Some((
                        "Invalid count reference in replace_triggered_by expression",
                        "Only count.index may be used in replace_triggered_by.",
                    )),
                    "each" if first != Some(Some("key")) => Some((
                        "Invalid each reference in replace_triggered_by expression",
                        "Only each.key may be used in replace_triggered_by.",
                    )),
                    "count" | "each" => None,
                    "var" | "local" | "path" | "terraform" | "self" | "module" | "action" => {
                        Some((
                            "Invalid reference in replace_triggered_by expression",
                            "Only resources, count.index, and each.key may be used in replace_triggered_by.",
                        ))
                    }
                    _ => {
                        resources += 1;
                        None
                    }
                };
                if let Some((summary, detail)) = problem {
                    self.err(summary, detail, at);
                }
            }
            match resources {
                0 => self.err(
                    "Invalid replace_triggered_by expression",
                    "Missing resource reference in replace_triggered_by expression.",
                    at,
                ),
                1 => {}
                _ => self.err(
                    "Invalid replace_triggered_by expression",
                    "Multiple resource references in replace_triggered_by expression.",
                    at,
                ),
            }
        }
    }

    /// A lifecycle block of a resource, data or ephemeral block (`kind` says which).
    fn lifecycle(&mut self, r: &Block, lc: &Block, kind: &str) {
        let s = if self.tofu { &TOFU_LIFECYCLE } else { &TF_LIFECYCLE };
        let inner = self.content(&lc.body, self.missing(lc), s, false, true);
        if kind == "resource" {
            self.static_bools(&lc.body, &["create_before_destroy", "prevent_destroy"]);
            if let Some(a) = lc.attr("replace_triggered_by")
                && !self.tofu
            {
                self.replace_triggered_by(a);
            }
        }
        if kind != "resource" {
            let (summary, noun) = if kind == "data" {
                ("Invalid data resource lifecycle argument", "data resources")
            } else {
                ("Invalid ephemeral resource lifecycle argument", "ephemeral resources")
            };
            for a in lc.body.attrs().filter(|a| s.attrs.iter().any(|(n, _)| *n == a.name)) {
                self.err(
                    summary,
                    format!("The lifecycle argument \"{}\" is defined only for managed resources (\"resource\" blocks), and is not valid for {noun}.", a.name),
                    a.name_span,
                );
            }
        } else if let Some(a) = lc.attr("ignore_changes")
            && a.expr.as_keyword() != Some("all")
        {
            let items = self.expr_list(&a.expr);
            let mut star = None;
            let mut others = false;
            for e in items {
                if e.as_str().as_deref() == Some("*") {
                    star = Some(e.span);
                    self.err(
                        "Invalid ignore_changes wildcard",
                        "The [\"*\"] form of ignore_changes wildcard is was deprecated and is now invalid. Use \"ignore_changes = all\" to ignore changes to all attributes.",
                        a.expr.span,
                    );
                } else {
                    others = true;
                    // `hcl.RelTraversalForExpr`: each entry is a reference.
                    let t = match self.shim(e, false) {
                        Some(t) => t,
                        None => self.traversal(e),
                    };
                    if t.is_none() && self.unbroken(e) {
                        self.err("Invalid expression", NOT_A_REFERENCE, e.span);
                    }
                }
            }
            if let Some(at) = star
                && others
            {
                self.err(
                    "Invalid ignore_changes ruleset",
                    "Cannot mix wildcard string \"*\" with non-wildcard references.",
                    at,
                );
            }
        }
        let me = Self::self_address(r);
        for c in inner {
            match c.kind.as_str() {
                "precondition" | "postcondition" => {
                    let (cond, msg) = self.check_rule(c);
                    let Some(me) = &me else { continue };
                    for a in [cond, msg].into_iter().flatten() {
                        if variables(&a.expr).iter().any(|t| Self::refers_to(t, me)) {
                            let addr = if me.0.is_empty() {
                                format!("{}.{}", me.1, me.2)
                            } else {
                                format!("{}.{}.{}", me.0, me.1, me.2)
                            };
                            self.err(
                                format!("Invalid reference in {}", c.kind),
                                format!("Configuration for {addr} may not refer to itself."),
                                a.expr.span,
                            );
                        }
                    }
                }
                "action_trigger" if kind == "resource" => self.action_trigger(c),
                "action_trigger" => {
                    let (summary, noun) = if kind == "data" {
                        ("Invalid data resource lifecycle nested block", "data resources")
                    } else {
                        ("Invalid ephemeral resource lifecycle nested block", "ephemeral resources")
                    };
                    self.err(
                        summary,
                        format!("The lifecycle nested block \"action_trigger\" is defined only for managed resources (\"resource\" blocks), and is not valid for {noun}."),
                        c.type_span,
                    );
                }
                _ => {}
            }
        }
    }

    fn action_trigger(&mut self, b: &Block) {
        self.content(&b.body, self.missing(b), &ACTION_TRIGGER, false, true);
        let mut events = 0;
        if let Some(a) = b.attr("events") {
            let mut seen: Vec<String> = Vec::new();
            for e in self.expr_list(&a.expr) {
                let kw = e.as_keyword().unwrap_or_default().to_string();
                if !["before_create", "after_create", "before_update", "after_update"]
                    .contains(&kw.as_str())
                {
                    self.err(
                        format!("Invalid \"event\" value {kw}"),
                        "The \"event\" argument supports the following values: before_create, after_create, before_update, after_update.",
                        e.span,
                    );
                    continue;
                }
                if seen.contains(&kw) {
                    self.err(
                        format!("Duplicate \"{kw}\" event"),
                        "The event is already defined in this action_trigger block.",
                        e.span,
                    );
                    continue;
                }
                seen.push(kw);
                events += 1;
            }
        }
        let actions = b.attr("actions").map_or(0, |a| self.action_refs(a));
        if actions == 0 {
            self.err(
                "No actions specified",
                "At least one action must be specified for an action_trigger.",
                self.decl(b),
            );
        }
        if events == 0 {
            self.err(
                "No events specified",
                "At least one event must be specified for an action_trigger.",
                self.decl(b),
            );
        }
    }

    /// `decodeProvisionerBlock`: `Some(true)` for a destroy-time provisioner, `None` for
    /// one Terraform drops.
    fn provisioner(&mut self, b: &Block) -> Option<bool> {
        let inner = self.content(&b.body, self.missing(b), &PROVISIONER, false, false);
        let ty = b.labels.first().map_or("", String::as_str);
        if matches!(ty, "chef" | "habitat" | "puppet" | "salt-masterless") {
            let at = b.label_spans.first().copied().unwrap_or(self.decl(b));
            self.err(
                format!("The \"{ty}\" provisioner has been removed"),
                format!("The \"{ty}\" provisioner was deprecated in Terraform 0.13.4 has been removed from Terraform. Visit https://learn.hashicorp.com/collections/terraform/provision for alternatives to using provisioners that are a better fit for the Terraform workflow."),
                at,
            );
            return None;
        }
        let mut destroy = false;
        if let Some(a) = b.attr("when") {
            match self.keyword(&a.expr).as_deref() {
                Some("create") => {}
                Some("destroy") => destroy = true,
                _ => self.err(
                    "Invalid \"when\" keyword",
                    "The \"when\" argument requires one of the following keywords: create or destroy.",
                    a.expr.span,
                ),
            }
        }
        if destroy {
            self.only_self_refs(&b.body, &["when", "on_failure"]);
        }
        if let Some(a) = b.attr("on_failure") {
            match self.keyword(&a.expr).as_deref() {
                Some("continue" | "fail") => {}
                _ => self.err(
                    "Invalid \"on_failure\" keyword",
                    "The \"on_failure\" argument requires one of the following keywords: continue or fail.",
                    a.expr.span,
                ),
            }
        }
        let (mut connection, mut escape): (Option<Span>, Option<Span>) = (None, None);
        for c in inner {
            match c.kind.as_str() {
                "_" => {
                    if let Some(first) = escape {
                        self.err(
                            "Duplicate escaping block",
                            format!(
                                "The special block type \"_\" can be used to force particular arguments to be interpreted as provisioner-typpe-specific rather than as meta-arguments, but each provisioner block can have only one such block. The first escaping block was at {}.",
                                self.range(first)
                            ),
                            self.decl(c),
                        );
                        continue;
                    }
                    escape = Some(self.decl(c));
                }
                "connection" => {
                    if let Some(first) = connection {
                        self.err(
                            "Duplicate connection block",
                            format!(
                                "This provisioner already has a connection block at {}.",
                                self.range(first)
                            ),
                            self.decl(c),
                        );
                        continue;
                    }
                    connection = Some(self.decl(c));
                    if destroy {
                        self.only_self_refs(&c.body, &[]);
                    }
                }
                _ => self.err(
                    "Reserved block type name in provisioner block",
                    format!(
                        "The block type name \"{}\" is reserved for use by {} in a future version.",
                        c.kind,
                        self.engine_name()
                    ),
                    c.type_span,
                ),
            }
        }
        Some(destroy)
    }

    /// `shimTraversalInString`: a reference (or keyword) written in quotes, Terraform 0.11's
    /// form, still works in native syntax: the text is read as a reference (its errors
    /// first, what was read before one kept), with a deprecation warning. `None` when the
    /// expression is no quoted string (in JSON quotes are the only way).
    fn shim(&mut self, e: &Expr, keyword: bool) -> Option<Option<Trav>> {
        let text = e.as_str().filter(|_| native_quoted(e))?;
        let (t, errors) = string_traversal(&text, e.span.file, e.span.start + 1);
        self.out.extend(errors);
        let (summary, detail) = if keyword {
            (
                "Quoted keywords are deprecated",
                "In this context, keywords are expected literally rather than in quotes. Terraform 0.11 and earlier required quotes, but quoted keywords are now deprecated and will be removed in a future version of Terraform. Remove the quotes surrounding this keyword to silence this warning.",
            )
        } else {
            ("Quoted references are deprecated", QUOTED_REFERENCE)
        };
        self.out.push(Diagnostic::warning(summary, detail, e.span));
        Some(t)
    }

    /// `DecodeDependsOn` of a block's `depends_on`.
    fn depends_on(&mut self, b: &Block) {
        if let Some(a) = b.attr("depends_on") {
            self.out.extend(depends_on(self.files, a, !self.tofu).1);
        }
    }

    /// A keyword argument (`when`, `on_failure`): a bare name, or (with a warning) a quoted one.
    fn keyword(&mut self, e: &Expr) -> Option<String> {
        let t = match self.shim(e, true) {
            Some(t) => t?,
            None => self.traversal(e)?,
        };
        t.steps.is_empty().then_some(t.root)
    }

    /// `onlySelfRefs`: what a destroy-time provisioner (or its connection) may refer to.
    fn only_self_refs(&mut self, body: &Body, hidden: &[&str]) {
        for a in body.attrs().filter(|a| !hidden.contains(&a.name.as_str())) {
            for t in variables(&a.expr) {
                let first = t.steps.first().and_then(|(n, _)| n.as_deref());
                let valid = match t.root.as_str() {
                    "self" | "path" | "terraform" => true,
                    "count" => t.steps.len() == 1 && first == Some("index"),
                    "each" => t.steps.len() == 1 && first == Some("key"),
                    _ => false,
                };
                if !valid {
                    self.err(
                        "Invalid reference from destroy provisioner",
                        "Destroy-time provisioners and their connection configurations may only reference attributes of the related resource, via 'self', 'count.index', or 'each.key'.\n\nReferences to other resources during the destroy phase can cause dependency cycles and interact poorly with create_before_destroy.",
                        a.expr.span,
                    );
                }
            }
        }
    }

    /// A data block, at the top level or (`nested`) inside a check block. Returns whether
    /// decoding it reported errors.
    fn data(&mut self, b: &Block, nested: bool) -> bool {
        let mark = self.out.len();
        let inner = self.content(&b.body, self.missing(b), &DATA, false, false);
        self.resource_names(b, "Invalid data source name", "Invalid data resource name");
        if nested {
            for name in ["count", "for_each"] {
                if let Some(a) = b.attr(name) {
                    self.err(
                        format!("Invalid \"{name}\" attribute"),
                        "The \"count\" and \"for_each\" meta-arguments are not supported within nested data blocks.",
                        a.name_span,
                    );
                }
            }
        } else {
            if !self.tofu {
                self.count_and_for_each(b, COUNT_FOR_EACH);
            }
        }
        if let Some(p) = b.attr("provider") {
            let _ = self.provider_ref(&p.expr, "provider");
        }
        self.depends_on(b);
        self.data_like_blocks(b, &inner, "data", nested);
        if self.tofu && !nested {
            self.count_and_for_each(b, COUNT_FOR_EACH);
        }
        self.has_errors_since(mark)
    }

    fn ephemeral(&mut self, b: &Block) {
        let inner = self.content(&b.body, self.missing(b), &DATA, false, false);
        self.depends_on(b);
        self.resource_names(
            b,
            "Invalid ephemeral resource type",
            "Invalid ephemeral resource name",
        );
        if !self.tofu {
            self.count_and_for_each(b, COUNT_FOR_EACH);
        }
        if let Some(p) = b.attr("provider") {
            let _ = self.provider_ref(&p.expr, "provider");
        }
        self.data_like_blocks(b, &inner, "ephemeral", false);
        if self.tofu {
            self.count_and_for_each(b, COUNT_FOR_EACH);
        }
    }

    /// The nested blocks of data and ephemeral blocks.
    fn data_like_blocks(&mut self, b: &Block, inner: &[&Block], kind: &str, nested: bool) {
        let (mut escape, mut lifecycle): (Option<Span>, Option<Span>) = (None, None);
        for c in inner {
            match c.kind.as_str() {
                "_" => {
                    if let Some(first) = escape {
                        self.err(
                            "Duplicate escaping block",
                            format!(
                                "The special block type \"_\" can be used to force particular arguments to be interpreted as resource-type-specific rather than as meta-arguments, but each data block can have only one such block. The first escaping block was at {}.",
                                self.range(first)
                            ),
                            self.decl(c),
                        );
                        continue;
                    }
                    escape = Some(self.decl(c));
                }
                "lifecycle" => {
                    if nested {
                        self.err(
                            "Invalid lifecycle block",
                            "Nested data blocks do not support \"lifecycle\" blocks as the lifecycle is managed by the containing block.",
                            self.decl(c),
                        );
                    }
                    if let Some(first) = lifecycle {
                        self.err(
                            "Duplicate lifecycle block",
                            format!(
                                "This resource already has a lifecycle block at {}.",
                                self.range(first)
                            ),
                            self.decl(c),
                        );
                        continue;
                    }
                    lifecycle = Some(self.decl(c));
                    self.lifecycle(b, c, kind);
                }
                _ => self.err(
                    format!("Reserved block type name in {kind} block"),
                    format!(
                        "The block type name \"{}\" is reserved for use by {} in a future version.",
                        c.kind,
                        self.engine_name()
                    ),
                    c.type_span,
                ),
            }
        }
    }

    /// `exprToResourceTraversal` of an import block's `to` (after `unwrapJSONRefExpr`): the
    /// reference with its non-constant indexes dropped, `Some(None)` (reported) when it is
    /// none; `None` when a JSON string did not parse, which ends the block's decoding.
    fn import_to(&mut self, e: &Expr) -> Option<Option<Trav>> {
        let (tree, off, at) = if self.json && e.source.is_none() {
            let (_, tree) = self.json_string_expr(e)?;
            let (file, o) = (e.span.file, e.span.start);
            let at = Span::new(file, o + tree.range.start, o + tree.range.end);
            (tree, o, at)
        } else {
            let Some((tree, Some(off))) = syntax_of(e) else { return Some(None) };
            (tree, off, e.span)
        };
        let span = |r: &std::ops::Range<usize>| Span::new(e.span.file, off + r.start, off + r.end);
        let (root, steps) = match &tree.node {
            Node::Variable(name) => (name.clone(), &[][..]),
            Node::Traversal { source, steps } => match &source.node {
                Node::Variable(name) => (name.clone(), steps.as_slice()),
                _ => (String::new(), &[][..]),
            },
            _ => (String::new(), &[][..]),
        };
        if root.is_empty() {
            self.err("Invalid expression", NOT_A_REFERENCE, at);
            return Some(None);
        }
        let root_span = match &tree.node {
            Node::Traversal { source, .. } => span(&source.range),
            _ => span(&tree.range),
        };
        let mut out = Vec::new();
        for st in steps {
            match st {
                Step::Attr(n, r) => out.push((Some(n.clone()), span(r))),
                Step::Index(x, r)
                    if matches!(x.node, Node::Number(_)) || x.as_literal_str().is_some() =>
                {
                    out.push((None, span(r)))
                }
                // An index computed from for_each is no part of the configuration address.
                Step::Index(..) => {}
            }
        }
        Some(Some(Trav { root, root_span, steps: out, bad_keys: Vec::new() }))
    }

    /// `decodeMovedBlock`: both addresses are references (`addrs.ParseMoveEndpoint`), and
    /// both name modules or both resources.
    fn moved(&mut self, b: &Block) {
        let mark = self.out.len();
        self.content(&b.body, self.missing(b), &MOVED, false, true);
        let mut kinds = Vec::new();
        for a in ["from", "to"].iter().filter_map(|n| b.attr(n)) {
            match self.traversal(&a.expr) {
                None => {
                    if self.unbroken(&a.expr) {
                        self.err("Invalid expression", NOT_A_REFERENCE, a.expr.span);
                    }
                }
                Some(t) if self.tofu => kinds.push(t.root == "module"),
                Some(t) => match move_endpoint(self.files, &t) {
                    Ok(kind) => kinds.push(kind.is_none()),
                    Err((summary, detail, at)) => self.err(summary, detail, at),
                },
            }
        }
        if !self.tofu && !self.has_errors_since(mark) && kinds.len() == 2 && kinds[0] != kinds[1] {
            self.err(
                "Invalid \"moved\" addresses",
                "The \"from\" and \"to\" addresses must either both refer to resources or both refer to modules.",
                self.decl(b),
            );
        }
    }

    fn removed(&mut self, b: &Block) {
        let s = if self.tofu { &TOFU_REMOVED } else { &TF_REMOVED };
        let inner = self.content(&b.body, self.missing(b), s, false, true);
        let target = b.attr("from").map(|a| (a, self.traversal(&a.expr)));
        let managed = match target {
            // OpenTofu reads the address its own way.
            Some((_, Some(t))) if self.tofu => {
                let mut names: Vec<&str> = vec![t.root.as_str()];
                names.extend(t.steps.iter().filter_map(|(n, _)| n.as_deref()));
                while names.first() == Some(&"module") && names.len() >= 2 {
                    names.drain(..2);
                }
                names.len() == 2 && !matches!(names[0], "data" | "ephemeral" | "module")
            }
            Some((a, None)) => {
                if self.unbroken(&a.expr) {
                    self.err("Invalid expression", NOT_A_REFERENCE, a.expr.span);
                }
                false
            }
            Some((_, Some(t))) => match remove_target(&t) {
                Ok(RemoveTarget::Module) => false,
                Ok(RemoveTarget::Resource { data: false }) => true,
                Ok(RemoveTarget::Resource { data: true }) => {
                    let end = t.steps.last().map_or(t.root_span.end, |(_, s)| s.end);
                    self.err(
                        "Data source address not allowed",
                        "Data sources are never destroyed, so they are not valid targets of removed blocks. To remove the data source from state, remove the data source block from configuration.",
                        Span { end, ..t.root_span },
                    );
                    false
                }
                Err((summary, detail, at)) => {
                    self.err(summary, detail, at);
                    false
                }
            },
            None => false,
        };
        // Connections and provisioners need a managed resource to act on.
        let mut connection: Option<Span> = None;
        for c in inner {
            match c.kind.as_str() {
                "lifecycle" => {
                    self.content(&c.body, self.missing(c), &REMOVED_LIFECYCLE, false, true);
                    if !self.tofu {
                        self.static_bools(&c.body, &["destroy"]);
                    }
                }
                "connection" => {
                    if !managed {
                        self.err(
                            "Invalid connection block",
                            "Provisioner connection configuration is valid only when a removed block targets a managed resource.",
                            self.decl(c),
                        );
                        continue;
                    }
                    if let Some(first) = connection {
                        self.err(
                            "Duplicate connection block",
                            format!(
                                "This \"removed\" block already has a connection block at {}.",
                                self.range(first)
                            ),
                            self.decl(c),
                        );
                        continue;
                    }
                    connection = Some(self.decl(c));
                }
                _ => {
                    if !managed {
                        self.err(
                            "Invalid provisioner block",
                            "Provisioners are valid only when a removed block targets a managed resource.",
                            self.decl(c),
                        );
                        continue;
                    }
                    if self.provisioner(c) == Some(false) {
                        self.err(
                            "Invalid provisioner block",
                            "Only destroy-time provisioners are valid in \"removed\" blocks. To declare a destroy-time provisioner, use:\n    when = destroy",
                            self.decl(c),
                        );
                    }
                }
            }
        }
    }

    fn import(&mut self, b: &Block) {
        let s = if self.tofu { &TOFU_IMPORT } else { &TF_IMPORT };
        self.content(&b.body, self.missing(b), s, false, true);
        if self.tofu {
            return;
        }
        let mut in_module = false;
        if let Some(a) = b.attr("to") {
            let mark = self.out.len();
            let Some(t) = self.import_to(&a.expr) else { return };
            in_module = t.as_ref().is_some_and(|t| t.root == "module");
            let mode = match t.map(|t| (move_endpoint(self.files, &t), t)) {
                Some((Ok(None), t)) => {
                    let end = t.steps.last().map_or(t.root_span.end, |(_, s)| s.end);
                    self.err(
                        "Invalid address",
                        "A resource instance address is required here. The module path must be followed by a resource instance specification.",
                        Span { end, ..t.root_span },
                    );
                    None
                }
                Some((Ok(Some(mode)), _)) => Some(mode),
                Some((Err((summary, detail, at)), _)) => {
                    self.err(summary, detail, at);
                    None
                }
                None => None,
            };
            if mode != Some("managed") && (mode.is_some() || self.has_errors_since(mark)) {
                self.err(
                    "Invalid import address",
                    "Only managed resources can be imported.",
                    a.span,
                );
            }
        }
        if let Some(a) = b.attr("provider") {
            if in_module {
                self.err(
                    "Invalid import provider argument",
                    "The provider argument can only be specified in import blocks that will generate configuration.\n\nUse the providers argument within the module block to configure providers for all resources within a module, including imported resources.",
                    a.span,
                );
            }
            let _ = self.provider_ref(&a.expr, "provider");
        }
        match (b.attr("id"), b.attr("identity")) {
            (None, None) => self.err(
                "Invalid import block",
                "At least one of 'id' or 'identity' must be specified.",
                self.decl(b),
            ),
            (Some(_), Some(_)) => self.err(
                "Invalid import block",
                "Only one of 'id' or 'identity' can be specified.",
                self.decl(b),
            ),
            _ => {}
        }
    }

    fn check(&mut self, b: &Block) {
        if self.over {
            self.err(
                "Can't override check blocks",
                "Override files cannot override check blocks.",
                self.decl(b),
            );
            return;
        }
        let inner = self.content(&b.body, self.missing(b), &CHECK, false, true);
        if !valid_identifier(b.labels.first().map_or("", String::as_str)) {
            let at = b.label_spans.first().copied().unwrap_or(self.decl(b));
            self.err("Invalid check block name", BAD_IDENTIFIER, at);
        }
        let mut data: Option<Span> = None;
        let mut asserts = 0;
        for c in inner {
            if c.kind == "data" {
                if let Some(first) = data {
                    self.err(
                        "Multiple data resource blocks",
                        format!(
                            "This check block already has a data resource defined at {}.",
                            self.range(first)
                        ),
                        self.decl(c),
                    );
                    continue;
                }
                if !self.data(c, true) {
                    data = Some(self.decl(c));
                }
            } else {
                let mark = self.out.len();
                self.check_rule(c);
                if !self.has_errors_since(mark) {
                    asserts += 1;
                }
            }
        }
        if asserts == 0 {
            self.err(
                "Zero assert blocks",
                "Check blocks must have at least one assert block.",
                self.decl(b),
            );
        }
    }

    fn action(&mut self, b: &Block) {
        self.resource_names(b, "Invalid action type name", "Invalid action name");
        let inner = self.content(&b.body, self.missing(b), &ACTION, false, true);
        self.count_and_for_each(
            b,
            "The \"count\" and \"for_each\" meta-arguments are mutually-exclusive, only one should be used.",
        );
        let mut config = false;
        for c in inner {
            if config {
                self.err(
                    "Duplicate config block",
                    "An action must contain only one nested \"config\" block.",
                    self.decl(c),
                );
                return;
            }
            config = true;
        }
        // In JSON the config blocks are a property's value: an array of several is more
        // than one (reported at the array's bracket, their DefRange).
        for item in &b.body.items {
            if let Item::Json(j) = item
                && j.name == "config"
                && matches!(&j.value.value, crate::terraform::JsonValue::Array(v) if v.len() > 1)
            {
                let at = Span::new(j.value.span.file, j.value.span.start, j.value.span.start + 1);
                self.err(
                    "Duplicate config block",
                    "An action must contain only one nested \"config\" block.",
                    at,
                );
                return;
            }
        }
        if let Some(p) = b.attr("provider") {
            let _ = self.provider_ref(&p.expr, "provider");
        }
    }
}

const COUNT_FOR_EACH: &str = "The \"count\" and \"for_each\" meta-arguments are mutually-exclusive, only one should be used to be explicit about the number of resources to be created.";

#[cfg(test)]
mod tests {
    use super::*;

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

    fn diags(text: &str, over: bool) -> Vec<(String, String)> {
        let m = crate::merge::load_texts("", &[("main.tf", "")], None);
        let mut files = m.files.clone();
        files.files[0] = crate::terraform::SourceText::new(
            "main.tf".into(),
            crate::terraform::FileClass::Primary,
            Syntax::Hcl,
            text.into(),
        );
        let (f, _) = crate::terraform::hcl::parse(0, text);
        decode_file(&files, &f, Engine::Terraform, over)
            .into_iter()
            .map(|d| (d.summary, d.detail))
            .collect()
    }

    #[test]
    fn unsupported_names_get_hcl_suggestions() {
        let d = diags("variable \"a\" {\n  tpye = string\n  validation = 1\n}\n", false);
        assert_eq!(
            d[0].1,
            "An argument named \"tpye\" is not expected here. Did you mean \"type\"?"
        );
        assert_eq!(
            d[1].1,
            "An argument named \"validation\" is not expected here. Did you mean to define a block of type \"validation\"?"
        );
        let d = diags("resourse \"a\" \"b\" {}\n", false);
        assert_eq!(
            d[0].1,
            "Blocks of type \"resourse\" are not expected here. Did you mean \"resource\"?"
        );
    }

    #[test]
    fn a_second_data_block_in_a_check_is_refused_once_the_first_decoded() {
        // Terraform's loader cannot be recorded on this one (its dump of a check with a
        // data block is cyclic); `terraform validate` reports it at the second header.
        let text = "check \"c\" {\n  data \"http\" \"a\" {\n  }\n  data \"http\" \"b\" {\n  }\n  assert {\n    condition     = data.http.a.ok\n    error_message = \"x\"\n  }\n}\n";
        let d = diags(text, false);
        assert_eq!(
            d,
            [(
                "Multiple data resource blocks".to_string(),
                "This check block already has a data resource defined at main.tf:2,3-18."
                    .to_string()
            )]
        );
        // An override file may not hold a check block at all.
        assert_eq!(diags(text, true)[0].0, "Can't override check blocks");
    }

    #[test]
    fn references_skip_for_expression_symbols() {
        let (f, _) = crate::terraform::hcl::parse(0, "x = [for v in var.l : v.id if local.ok]\n");
        let a = f.body.attr("x").cloned().expect("x");
        let roots: Vec<String> = variables(&a.expr).into_iter().map(|t| t.text()).collect();
        assert_eq!(roots, ["var.l", "local.ok"]);
    }

    /// Only Terraform knows action blocks: OpenTofu takes `action.x.y` in depends_on as
    /// any other reference, and its provider sources are not Terraform's.
    #[test]
    fn terraform_only_checks_stay_with_terraform() {
        let text = "resource \"a\" \"b\" {\n  depends_on = [action.x.y]\n}\nterraform {\n  required_providers {\n    c = {\n      source = \"x/terraform-provider-c\"\n    }\n  }\n}\n";
        let summaries = |engine| {
            let m = crate::merge::load_texts("", &[("main.tf", text)], Some(engine));
            m.diagnostics.iter().map(|d| d.summary.clone()).collect::<Vec<_>>()
        };
        assert_eq!(
            summaries(Engine::Terraform),
            ["Invalid depends_on Action Reference", "Invalid provider type"]
        );
        assert!(summaries(Engine::OpenTofu).is_empty());
    }
}
