//! `missing-override-comment`: an overridden original without a warning comment. See
//! [`RULE`].

use std::collections::{HashMap, HashSet};

use regex::Regex;

use super::options::Options;
use super::rule::Rule;
use crate::finding::{Finding, Level};
use crate::policy::context::{Change, Comment, Context, Node, comments_around, comments_in};
use crate::policy::validate::{Field, Kind, Validator, Value};
use crate::terraform::{Block, Item, Span, Syntax};

pub(crate) static RULE: Rule = Rule {
    id: super::RuleId::MissingOverrideComment,
    level: Level::Warn,
    summary: "an original that an override file changes has no comment saying so",
    doc: "\
What it checks
  Every block, attribute or local value of an ordinary file that an override file changes
  must have a comment directly above it (or above a block that encloses it) that names the
  override file; in JSON files, a `\"//\"` property in the block's object. `pattern` is a
  regex the comment must match instead; `{override}` in it stands for the override file's
  name. The finding shows both places. An override's `required_version` replaces the
  constraint of every primary file: each wants its comment. A comment inside the block,
  or one that does not name the file (\"the _override.tf\", a misspelt name), does not
  count: the finding points at it. An override file whose every value a later override
  file replaces is not to be named; the later one is.

  An override block that changes nothing is no change: one that is empty (its arguments
  commented out), or holds only what Terraform ignores in an override file (which
  `ignored-override` reports), wants no comment, and `show` does not mark its original
  overridden. A value an override sets equal to the original's is a change: the
  override's value is the one that runs, and an edit of the original would be silently
  overridden, so its original wants the comment.

Why
  Terraform's own advice for override files: \"in the original file, put a comment on
  every block that an override file changes\", so a reader of the original is warned that
  what they read is not what runs.

Example
  # main.tf
  # NOTE: instance_type is overridden by override.tf
  resource \"aws_instance\" \"web\" {
    instance_type = \"t3.micro\"
  }
",
    options: &[Field {
        name: "pattern",
        kind: Kind::Regex,
        required: false,
        default: Some("\"{override}\""),
        help: "regex the warning comment must match; {override} is the file name",
    }],
    configure: Some(configure),
    check: Some(check),
    inline: true,
};

/// Reads `pattern`, compiled here once with a sample file name in place of `{override}`
/// so that a broken regex is a mistake in the policy file, not a surprise during a run.
pub(super) fn configure(v: &mut Validator<'_>, name: &str, val: &Value<'_>, o: &mut Options) -> bool {
    match name {
        "pattern" => {
            if let Some(s) = v.string(val, name) {
                match Regex::new(&s.replace("{override}", "override\\.tf")) {
                    Ok(_) => o.comment.pattern = Some(s),
                    Err(e) => v.err(val.span(), format!("invalid regex: {e}"), None),
                }
            }
        }
        _ => return false,
    }
    true
}

fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    let mut seen = HashSet::new();
    let mut matchers = Vec::new();
    let index = Index::of(cx);
    for c in &cx.changes {
        let Some(base) = c.base else { continue };
        let over_span = c.over.head();
        if cx.m.ignored.iter().any(|i| i.span == over_span || i.span == c.over.span()) {
            continue;
        }
        // A local-only override file (git does not track it) is `local-override`'s: a
        // committed comment must not name a file the repository does not have.
        if cx.m.files.get(c.file()).local.is_some() {
            continue;
        }
        // An override file whose every value a later one replaces runs nothing: the
        // later file is the one to name.
        if !survives(&index, c) {
            continue;
        }
        if !seen.insert((base.span(), c.file())) {
            continue;
        }
        let name = cx.name(c.file());
        let re = match matchers.iter().find(|(f, _)| *f == c.file()) {
            Some((_, m)) => m,
            None => {
                let Some(m) = cx.options.comment.matcher_for(name) else { continue };
                matchers.push((c.file(), m));
                &matchers[matchers.len() - 1].1
            }
        };
        let around = comments_around(cx.m, base.span());
        if around.iter().any(|k| re.is_match(&k.text)) {
            continue;
        }
        let json = cx.m.files.get(base.span().file).syntax == Syntax::Json;
        let pattern = cx.options.comment.pattern.as_deref();
        let mut help = if let Some(p) = pattern {
            format!("add a comment directly above it that matches the policy's pattern `{p}`")
        } else if json {
            format!(
                "add a \"//\" property naming {name} to this block's object (`override-guard fix` writes one)"
            )
        } else {
            format!(
                "add a comment naming {name} directly above it (`override-guard fix` writes one)"
            )
        };
        let wanted = match (pattern, json) {
            (Some(_), _) => "no comment above it matches the policy's pattern".to_string(),
            (None, true) => format!("no \"//\" property of it names {name}"),
            (None, false) => format!("no comment above it names {name}"),
        };
        // A comment that speaks of an override without counting (misspelt, naming no
        // file or another, inside the block) is the likely cause: point at it.
        let miss = near_miss(cx, &around, base.span());
        if let Some(k) = &miss {
            let line = cx.m.files.get(k.span.file).line_col(k.span.start).0;
            help.push_str(&match pattern {
                Some(_) => format!("; the comment on line {line} does not match it"),
                None => format!(
                    "; the comment on line {line} does not count: it must name {name}, directly above the changed item"
                ),
            });
        }
        let mut f = Finding::new(
            RULE.id,
            format!("{} is changed by {name}, but {wanted}", c.address),
            cx.site(
                base.head(),
                if json {
                    "no \"//\" comment naming the override"
                } else {
                    "no comment above this names it"
                },
            ),
        )
        .address(c.address.clone())
        .related(cx.site(over_span, "changed here"))
        .help(help);
        if let Some(k) = miss {
            f = f.related(cx.site(k.span, "speaks of an override, but does not count"));
        }
        out.push(f);
    }
}

/// The effective blocks by address and the local values by name, looked up once per
/// change: a scan of the module per change made 20,000 findings take minutes.
struct Index<'a> {
    blocks: HashMap<String, &'a Block>,
    locals: HashMap<&'a str, Vec<Span>>,
}

impl<'a> Index<'a> {
    fn of(cx: &Context<'a>) -> Index<'a> {
        let mut blocks = HashMap::new();
        for b in &cx.m.blocks {
            if let Some(a) = b.address() {
                blocks.entry(a).or_insert(b);
            }
        }
        let mut locals: HashMap<&str, Vec<Span>> = HashMap::new();
        for l in &cx.m.locals {
            locals.entry(l.name.as_str()).or_default().push(l.span);
        }
        Index { blocks, locals }
    }
}

/// Does any value of the change's override item reach the effective configuration? A
/// later override file can replace all of it (`sensitive = false` in `a_override.tf`,
/// set back by `b_override.tf`). Only objects and local values are traced; anything
/// else counts as surviving.
fn survives(index: &Index<'_>, c: &Change<'_>) -> bool {
    let within = |inner: Span, outer: Span| {
        inner.file == outer.file && outer.start <= inner.start && inner.end <= outer.end
    };
    match c.over {
        Node::Block(b) if b.kind != "terraform" => {
            let Some(e) = index.blocks.get(&c.address) else {
                return true;
            };
            fn any_in(
                body: &crate::terraform::Body,
                outer: Span,
                within: &dyn Fn(Span, Span) -> bool,
            ) -> bool {
                body.items.iter().any(|i| match i {
                    Item::Attr(a) => within(a.span, outer),
                    Item::Json(p) => within(p.span, outer),
                    Item::Block(b) => within(b.span, outer) || any_in(&b.body, outer, within),
                })
            }
            any_in(&e.body, b.span, &within)
        }
        Node::Attr(a) if c.address.starts_with("local.") => index
            .locals
            .get(a.name.as_str())
            .is_none_or(|spans| spans.iter().all(|&s| within(s, a.span))),
        _ => true,
    }
}

/// A comment on or in the original item that mentions an override (or `overide`, as it
/// is often misspelt) but did not count.
fn near_miss(
    cx: &Context<'_>,
    around: &[Comment],
    base: Span,
) -> Option<Comment> {
    let speaks = |t: &str| {
        // The tool's own markers (`override-guard:ignore[local-override] …`) speak of no
        // override file.
        let t = t.to_ascii_lowercase();
        if t.contains("override-guard") || t.contains("override_guard") {
            return false;
        }
        t.contains("overrid") || t.contains("overid") || t.contains("over-rid")
    };
    if let Some(k) = around.iter().find(|k| speaks(&k.text)) {
        return Some(k.clone());
    }
    comments_in(cx.m, base).into_iter().find(|k| speaks(&k.text))
}
