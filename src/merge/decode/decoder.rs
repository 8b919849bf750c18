//! The decoder's state and HCL's body decoding it shares across block kinds
//! (`hcl.Body.Content` / `PartialContent` / `JustAttributes` with did-you-mean hints,
//! `gohcl.DecodeExpression` of static values).

use crate::cty;
use crate::diag::{Diagnostic, Severity};
use crate::terraform::discover::Engine;
use crate::terraform::release::{Feature, Release};
use crate::terraform::{Attr, Block, Body, Expr, ExprKind, Files, Item, Span, Syntax, TplPart};

use super::names::name_suggestion;
use super::schema::{Known, Schema};
use super::traversal::{Trav, abs_traversal, calls, json_traversal, start_range, variables};

/// One file's decoding: where its text is, what it is, and the diagnostics so far.
pub(super) struct Decoder<'a> {
    pub(super) files: &'a Files,
    /// Whether the file is JSON (its bodies and expressions are read as JSON's).
    pub(super) json: bool,
    /// Whether the file is an override file.
    pub(super) over: bool,
    /// Whether OpenTofu, not Terraform, is the engine.
    pub(super) tofu: bool,
    /// The release whose loader decodes (its schemas and texts).
    pub(super) release: Release,
    /// Whether the file was read without a syntax error (what its literals evaluate to is
    /// then read off the model, not parsed again).
    pub(super) clean: bool,
    pub(super) out: Vec<Diagnostic>,
}

impl<'a> Decoder<'a> {
    /// A decoder for a file of `files` (JSON or not as that file is).
    pub(super) fn new(files: &'a Files, file: usize, release: Release, over: bool) -> Self {
        let json = files.files.get(file).is_some_and(|s| s.syntax == Syntax::Json);
        Decoder {
            files,
            json,
            over,
            tofu: release.engine == Engine::OpenTofu,
            release,
            clean: false,
            out: Vec::new(),
        }
    }
}

impl Decoder<'_> {
    pub(super) fn err(&mut self, summary: impl Into<String>, detail: impl Into<String>, at: Span) {
        self.out.push(Diagnostic::error(summary, detail, at));
    }

    /// The arguments Terraform decodes as a constant bool (`gohcl.DecodeExpression` with no
    /// variables), in the order it decodes them.
    pub(super) fn static_bools(&mut self, body: &Body, names: &[&str]) {
        for a in names.iter().filter_map(|n| body.attr(n)) {
            self.static_value(a, &cty::Type::Bool);
        }
    }

    /// An argument Terraform decodes as a constant string (a variable's or an output's
    /// `description`).
    pub(super) fn static_string(&mut self, body: &Body, name: &str) {
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
        let Some(value) = crate::merge::variables::parsed_value(&a.expr) else {
            return;
        };
        // Without variables a JSON string is not a template: `"${true}"` is text.
        let json_template = a.expr.source.is_none()
            && matches!(&a.expr.kind, ExprKind::Template(p) if p.iter().any(|x| matches!(x, TplPart::Code(_))));
        let why = match value {
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
        // Before Terraform 1.13 (its go-cty) the message does not say what was given.
        let why = match why.split_once(", but have ") {
            Some((want, _)) if !self.has(Feature::ConversionSaysGiven) => want.to_string(),
            _ => why,
        };
        self.err("Unsuitable value type", format!("Unsuitable value: {why}"), at);
    }

    /// Why an expression has no value without variables. References and calls are each
    /// reported, in source order, as HCL evaluates every part: a reference at its root
    /// name (`var` of `var.x`), a call as a whole (its arguments are not evaluated).
    pub(super) fn eval_error(&mut self, e: cty::EvalError, expr: &Expr) {
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
    pub(super) fn traversal(&self, e: &Expr) -> Option<Trav> {
        if self.json && e.source.is_none() {
            json_traversal(self.files, e)
        } else {
            abs_traversal(e)
        }
    }

    /// Where HCL stopped reading an expression with a syntax error, as the file's parser
    /// met it: inside the expression, or at the first token after it (`}` after `list(`).
    pub(super) fn broken_at(&self, e: &Expr) -> Option<Span> {
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
    pub(super) fn expr_list<'e>(&mut self, e: &'e Expr) -> &'e [Expr] {
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
    pub(super) fn unbroken(&self, e: &Expr) -> bool {
        e.source.is_none() || crate::merge::variables::parses(e)
    }

    /// A nested block of a kind a body may hold once: when one came `first`, `c` is the
    /// error `summary`, its detail naming where the first one is (`at`), and `true`.
    pub(super) fn again(
        &mut self,
        first: Option<Span>,
        c: &Block,
        summary: &str,
        detail: impl FnOnce(String) -> String,
    ) -> bool {
        let Some(first) = first else { return false };
        let at = self.range(first);
        self.err(summary, detail(at), self.decl(c));
        true
    }

    /// Where Terraform's diagnostics about a block point (see [`Block::decl_span`]).
    pub(super) fn decl(&self, b: &Block) -> Span {
        b.decl_span(self.files)
    }

    /// Does the release decoding have `f`?
    pub(super) fn has(&self, f: Feature) -> bool {
        self.release.has(f)
    }

    pub(super) fn engine_name(&self) -> &'static str {
        if self.tofu { "OpenTofu" } else { "Terraform" }
    }

    pub(super) fn range(&self, s: Span) -> String {
        self.files.range_string(s)
    }

    pub(super) fn has_errors_since(&self, mark: usize) -> bool {
        self.out[mark..].iter().any(|d| d.severity == Severity::Error)
    }

    /// HCL's `MissingItemRange`: the opening brace in native syntax (empty range), the
    /// closing brace of the object in JSON.
    pub(super) fn missing(&self, b: &Block) -> Span {
        if self.json {
            Span::new(b.span.file, b.span.end.saturating_sub(1), b.span.end)
        } else {
            Span::new(b.open_span.file, b.open_span.start, b.open_span.start)
        }
    }

    /// The label check of `PartialContent` for one block: `true` when it has as many
    /// labels as its type takes.
    pub(super) fn labels_ok(&mut self, b: &Block, names: &[&str]) -> bool {
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
    pub(super) fn content<'b>(
        &mut self,
        body: &'b Body,
        missing: Span,
        s: &Schema,
        relax: bool,
        all: bool,
    ) -> Vec<&'b Block> {
        let s = &s.at(self.release);
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
        for item in body.items.iter() {
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

    fn missing_args(&mut self, body: &Body, missing: Span, s: &Known, relax: bool) {
        if relax {
            return;
        }
        for &(name, required) in s.attrs.iter() {
            if required && body.attr(name).is_none() {
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
    pub(super) fn just_attributes(&mut self, body: &Body) -> bool {
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
}

/// One native-syntax file `main.tf` holding `text`, parsed, for the decoders' tests.
#[cfg(test)]
pub(super) fn one_file(text: &str) -> (Files, crate::terraform::ParsedFile) {
    let m = crate::merge::load_texts("", &[("main.tf", "")], None);
    let mut files = m.files.clone();
    files.files[0] = crate::terraform::SourceText::new(
        "main.tf".into(),
        crate::terraform::FileClass::Primary,
        Syntax::Hcl,
        text.into(),
    );
    (files, crate::terraform::hcl::parse(0, text).0)
}
