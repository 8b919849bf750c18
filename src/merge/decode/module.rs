//! Terraform's `decodeModuleBlock` (`module_call.go`) with its `providers` map.

use crate::terraform::{Attr, Block, Expr, ExprKind, Span, TplPart};
use override_guard_hcl::ast::{self, Node};

use super::common::COUNT_FOR_EACH;
use super::decoder::Decoder;
use super::names::{BAD_IDENTIFIER, valid_constraint, valid_identifier};
use super::schema::module_schema;
use super::traversal::{start_range, syntax_of};
use crate::terraform::release::Feature;

/// A source that is neither local, nor a registry address, nor any remote address a
/// go-getter detector recognises (`getmodules.MaybeRelativePathErr`): `modules/vpc`,
/// `foo`. Only the plain case is modelled: one or two parts, none a host name, nothing
/// that names a getter, a scheme or a user.
fn maybe_relative_path(src: &str) -> bool {
    let addr = src.split("//").next().unwrap_or(src);
    let parts: Vec<&str> = addr.split('/').collect();
    let host_like = |p: &str| {
        p.contains('.') && p.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'.' || c == b'-')
    };
    !src.is_empty()
        && !src.starts_with(['.', '/', '\\'])
        && !src.contains([':', '@', '?'])
        && parts.len() <= 2
        && parts.iter().all(|p| !p.is_empty())
        && !host_like(parts[0])
}

impl Decoder<'_> {
    pub(super) fn module(&mut self, b: &Block) {
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
        if !self.has(Feature::ModuleSourceExpressions) {
            self.static_source(b);
        }
        if let Some(a) = b.attr("ignore_nested_deprecations")
            && !self.tofu
            && self.has(Feature::Deprecation)
        {
            let v = crate::merge::variables::value_of(&a.expr);
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

    /// Before source expressions: `version` is a constant constraint and `source` a
    /// constant string, parsed as a registry address when the block has a `version` (even
    /// `version = null`), so a local path then fails. Judged per block, before any merge.
    /// (The other ways a registry address fails to parse are not modelled.)
    fn static_source(&mut self, b: &Block) {
        let version = b.attr("version");
        match version {
            // Without an evaluation context a JSON string is its text: `${…}` is no
            // constraint.
            Some(v) if self.json && v.expr.source.is_none() => {
                let text = serde_json::from_str::<String>(self.files.text(v.expr.span));
                if text.is_ok_and(|t| !valid_constraint(&t)) {
                    self.err(
                        "Invalid version constraint",
                        "This string does not use correct version constraint syntax.",
                        v.expr.span,
                    );
                }
            }
            Some(v) => self.version_constraint(v),
            None => {}
        }
        let Some(src) = b.attr("source") else { return };
        // Without an evaluation context a JSON string is its text, `${` included.
        let json = self.json && src.expr.source.is_none();
        let text = match json {
            true => serde_json::from_str::<String>(self.files.text(src.expr.span)).ok(),
            false => {
                let mark = self.out.len();
                self.static_string(&b.body, "source");
                src.expr.as_str().filter(|_| !self.has_errors_since(mark))
            }
        };
        let Some(text) = text else { return };
        if version.is_none() {
            if maybe_relative_path(&text) {
                self.err(
                    "Invalid module source address",
                    format!("{} failed to determine your intended installation method for remote module package \"{q}\".\n\nIf you intended this as a path relative to the current module, use \"./{q}\" instead. The \"./\" prefix indicates that the address is a relative filesystem path.", self.engine_name(), q = override_guard_hcl::parse::go_quote_inner(&text)),
                    src.expr.span,
                );
            }
            return;
        }
        if text.starts_with("./") || text.starts_with("../") {
            self.err(
                "Invalid registry module source address",
                format!("Failed to parse module registry address: can't use local directory \"{}\" as a module registry address.\n\n{} assumed that you intended a module registry source address because you also set the argument \"version\", which applies only to registry modules.", override_guard_hcl::parse::go_quote_inner(&text), self.engine_name()),
                src.expr.span,
            );
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
}

#[cfg(test)]
mod tests {
    use super::maybe_relative_path;

    #[test]
    fn only_a_plain_name_is_taken_for_a_relative_path() {
        for s in ["foo", "modules/vpc", "${var.v}"] {
            assert!(maybe_relative_path(s), "{s}");
        }
        for s in [
            "./a",
            "../a",
            "/abs",
            "hashicorp/consul/aws",
            "example.com/x",
            "github.com/a/b",
            "git::https://example.com/x.git",
            "git@github.com:a/b.git",
            "s3::https://x",
            "",
        ] {
            assert!(!maybe_relative_path(s), "{s}");
        }
    }
}
