//! The `lifecycle` block of `resource.go`'s decoders: `ignore_changes`,
//! `replace_triggered_by`, conditions and `action_trigger`.

use crate::terraform::{Attr, Block, Expr, ExprKind, Span};

use super::decoder::Decoder;
use super::schema::{ACTION_TRIGGER, TF_LIFECYCLE, TOFU_LIFECYCLE};
use super::traversal::{NOT_A_REFERENCE, Trav, ref_problem, variables};
use crate::terraform::release::Feature;

impl Decoder<'_> {
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
    pub(super) fn replace_triggered_by(&mut self, a: &Attr) {
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
    pub(super) fn lifecycle(&mut self, r: &Block, lc: &Block, kind: &str) {
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
                // Terraform 1.13 knows the block type but decodes it only with experiments.
                "action_trigger" if !self.has(Feature::Actions) => {}
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

    pub(super) fn action_trigger(&mut self, b: &Block) {
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
}
