//! Same effective configuration: whether two merged modules configure the same thing, and
//! where they differ. `fix` and `fold` prove their edits with it (the module merged again
//! must be the same), and the `engine-divergence` rule lists what Terraform and OpenTofu
//! merge differently.
//!
//! The comparison walks the merged model (the `terraform` settings, the local values, the
//! top-level blocks, then each body's arguments and nested blocks) down to leaves, and
//! leaves out what cannot change what runs: spans, files and provenance, layout, comments
//! and the syntax a value was written in. A value means what Terraform's JSON syntax
//! writes for it ([`Attr::to_json`]), so `var.x` and `"${var.x}"`, or a legacy quoted
//! reference and a bare one, are the same, and so are an argument written in either
//! syntax. The order of arguments and of object keys does not matter; the order of nested
//! blocks of one type, and of a tuple's elements, does.
//!
//! [`Attr::to_json`]: crate::terraform::Attr::to_json

use std::collections::HashMap;
use std::fmt;

use serde_json::{Map, Value};

use super::{Module, Settings};
use crate::terraform::schema::Schema;
use crate::terraform::{Block, Body, Expr, Item, Span};

/// One step from the top of an effective configuration towards a leaf.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Step {
    /// A block type, an argument, an object's key, or a nested block's label.
    Key(String),
    /// A top-level block's label: kept apart from keys so that blocks with a wrong
    /// number of labels cannot share a path with another block's arguments.
    Label(String),
    /// A position in a list: among the nested blocks of one type, in a tuple.
    Index(usize),
    /// The n-th (from 2) top-level block of the same type and labels, such as a second
    /// `provider "aws"` block with an alias, or a second `moved` block.
    Repeat(usize),
}

/// Where a leaf is, written as `resource.aws_instance.web.tags.Name`,
/// `terraform.backend[0].s3.bucket` or `provider.aws#2.region`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct Path(pub Vec<Step>);

impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, step) in self.0.iter().enumerate() {
            match step {
                Step::Key(k) | Step::Label(k) if i == 0 => f.write_str(k)?,
                Step::Key(k) | Step::Label(k) => write!(f, ".{k}")?,
                Step::Index(n) => write!(f, "[{n}]")?,
                Step::Repeat(n) => write!(f, "#{n}")?,
            }
        }
        Ok(())
    }
}

/// A leaf that differs, with its value in each configuration (`None`: absent there).
/// Values are scalars, or empty objects and lists. `*_at` is the argument each value was
/// written in, where it has one (an empty block's leaf has none).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Difference {
    pub path: Path,
    pub left: Option<Value>,
    pub right: Option<Value>,
    pub left_at: Option<Span>,
    pub right_at: Option<Span>,
}

/// Do both modules have the same effective configuration? Top-level blocks of one type
/// must also come in the same order: `fix` and `fold` never move blocks, so an edit that
/// did would be a mistake in them, even though Terraform would not mind.
pub(crate) fn same(a: &Module, b: &Module) -> bool {
    if block_order(a) != block_order(b) {
        return false;
    }
    let (x, y) = (leaves(a), leaves(b));
    // No path occurs twice in one module: the same number of leaves, each found in the
    // other with the same value, is the same set.
    if x.len() != y.len() {
        return false;
    }
    let other: HashMap<&Path, &Value> = y.iter().map(|l| (&l.path, &l.value)).collect();
    x.iter().all(|l| other.get(&l.path) == Some(&&l.value))
}

/// The leaves whose values differ between the two modules, or that only one has: first
/// in `a`'s order, then those only `b` has, in `b`'s. Top-level blocks are matched by
/// type and labels, not by position, so that a block one module lacks, or the order of
/// the blocks, does not make every block after it differ.
pub(crate) fn differences(a: &Module, b: &Module) -> Vec<Difference> {
    // A block both modules hold with the same body has the same leaves in both: neither
    // is walked (an engine comparison mostly meets the same blocks twice).
    let (ka, kb) = (block_keys(a), block_keys(b));
    let in_b: HashMap<&BlockKey<'_>, usize> = kb.iter().enumerate().map(|(j, k)| (k, j)).collect();
    let (mut skip_a, mut skip_b) = (vec![false; ka.len()], vec![false; kb.len()]);
    for (i, k) in ka.iter().enumerate() {
        if let Some(&j) = in_b.get(k)
            && same_content(&a.blocks[i].body, &b.blocks[j].body)
        {
            (skip_a[i], skip_b[j]) = (true, true);
        }
    }
    leaf_differences(&leaves_but(a, &skip_a), &leaves_but(b, &skip_b))
}

/// The leaves of `x` and `y` whose values differ, or that only one has, in that order.
fn leaf_differences(x: &[Leaf], y: &[Leaf]) -> Vec<Difference> {
    let in_x: HashMap<&Path, &Leaf> = x.iter().map(|l| (&l.path, l)).collect();
    let in_y: HashMap<&Path, &Leaf> = y.iter().map(|l| (&l.path, l)).collect();
    let mut out = Vec::new();
    for l in x {
        let there = in_y.get(&l.path).copied();
        if there.map(|t| &t.value) != Some(&l.value) {
            out.push(Difference {
                path: l.path.clone(),
                left: Some(l.value.clone()),
                right: there.map(|t| t.value.clone()),
                left_at: l.at,
                right_at: there.and_then(|t| t.at),
            });
        }
    }
    for l in y.iter().filter(|l| !in_x.contains_key(&l.path)) {
        out.push(Difference {
            path: l.path.clone(),
            left: None,
            right: Some(l.value.clone()),
            left_at: None,
            right_at: l.at,
        });
    }
    out
}

/// The labels of the top-level blocks of each type, in order.
fn block_order(m: &Module) -> HashMap<&str, Vec<&[String]>> {
    let mut out: HashMap<&str, Vec<&[String]>> = HashMap::new();
    for b in &m.blocks {
        out.entry(b.kind.as_str()).or_default().push(&b.labels);
    }
    out
}

/// A value at the end of a path.
struct Leaf {
    path: Path,
    value: Value,
    /// The argument the value was written in.
    at: Option<Span>,
}

/// Whether two bodies have the same leaves: the same items in the same order, compared by
/// what the walk reads of them (names, labels, values and the source text values print
/// from), not by where they were written, which differs when one engine loads a file the
/// other does not.
fn same_content(a: &Body, b: &Body) -> bool {
    if std::sync::Arc::ptr_eq(&a.items, &b.items) {
        return true;
    }
    a.items.len() == b.items.len()
        && a.items.iter().zip(b.items.iter()).all(|pair| match pair {
            (Item::Attr(x), Item::Attr(y)) => x.name == y.name && same_expr(&x.expr, &y.expr),
            (Item::Block(x), Item::Block(y)) => {
                x.kind == y.kind && x.labels == y.labels && same_content(&x.body, &y.body)
            }
            (Item::Json(x), Item::Json(y)) => {
                x.name == y.name && x.value.to_json() == y.value.to_json()
            }
            _ => false,
        })
}

/// Expressions equal in meaning and in source text at every level (what a value's JSON
/// form is made from: a reference or an object key prints its source).
fn same_expr(a: &Expr, b: &Expr) -> bool {
    use crate::terraform::{ExprKind, ObjKey};
    if a.source != b.source {
        return false;
    }
    match (&a.kind, &b.kind) {
        (ExprKind::Tuple(x), ExprKind::Tuple(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(x, y)| same_expr(x, y))
        }
        (ExprKind::Object(x), ExprKind::Object(y)) => {
            x.len() == y.len()
                && x.iter().zip(y.iter()).all(|((kx, vx), (ky, vy))| {
                    let keys = match (kx, ky) {
                        (ObjKey::Name(p), ObjKey::Name(q)) => p == q,
                        (ObjKey::Expr(p), ObjKey::Expr(q)) => same_expr(p, q),
                        _ => false,
                    };
                    keys && same_expr(vx, vy)
                })
        }
        (x, y) => x == y,
    }
}

/// A top-level block's name in a comparison: its type, its labels, and how many blocks
/// of that type and labels came before it (its leaves' paths start with this).
type BlockKey<'a> = (&'a str, &'a [String], usize);

fn block_keys(m: &Module) -> Vec<BlockKey<'_>> {
    let mut seen: HashMap<(&str, &[String]), usize> = HashMap::new();
    m.blocks
        .iter()
        .map(|b| {
            let n = seen.entry((b.kind.as_str(), b.labels.as_slice())).or_insert(0);
            *n += 1;
            (b.kind.as_str(), b.labels.as_slice(), *n)
        })
        .collect()
}

/// Every leaf of a module's effective configuration, in the order of its declarations.
fn leaves(m: &Module) -> Vec<Leaf> {
    leaves_but(m, &[])
}

/// [`leaves`], leaving out the top-level blocks marked in `skip` (by position).
fn leaves_but(m: &Module, skip: &[bool]) -> Vec<Leaf> {
    let mut w = Walk::default();
    if !m.settings.is_empty() {
        w.path.push(Step::Key("terraform".into()));
        w.entries(settings(&m.settings));
        w.path.pop();
    }
    if !m.locals.is_empty() {
        let mut locals = Entries::default();
        for a in &m.locals {
            locals.set(&a.name, Entry::Value(a.expr.to_json(), Some(a.span)));
        }
        w.path.push(Step::Key("locals".into()));
        w.entries(locals);
        w.path.pop();
    }
    let mut seen: HashMap<(&str, &[String]), usize> = HashMap::new();
    for (i, b) in m.blocks.iter().enumerate() {
        let schema = Schema::top_block(&b.kind).map_or(Schema::Unknown, |(_, s)| s);
        let n = seen.entry((b.kind.as_str(), b.labels.as_slice())).or_insert(0);
        *n += 1;
        if skip.get(i).copied().unwrap_or(false) {
            continue;
        }
        w.path.push(Step::Key(b.kind.clone()));
        w.path.extend(b.labels.iter().cloned().map(Step::Label));
        if *n > 1 {
            w.path.push(Step::Repeat(*n));
        }
        w.entries(Entries::body(&b.body, schema));
        w.path.clear();
    }
    w.out
}

/// The `terraform` block's content, named as Terraform's JSON syntax names it.
fn settings(st: &Settings) -> Entries<'_> {
    let mut t = Entries::default();
    if let Some(last) = st.required_version.last() {
        // Several constraints must all hold, which one comma-separated constraint says too.
        let all: Vec<String> = st.required_version.iter().filter_map(|a| a.expr.as_str()).collect();
        let value = if all.len() == st.required_version.len() {
            Value::String(all.join(", "))
        } else {
            last.expr.to_json()
        };
        t.set("required_version", Entry::Value(value, Some(last.span)));
    }
    if !st.required_providers.is_empty() {
        let mut rp = Map::new();
        for a in &st.required_providers {
            rp.insert(a.name.clone(), a.to_json(Schema::RequiredProviders));
        }
        let at = st.required_providers.last().map(|a| a.span);
        t.set("required_providers", Entry::Value(Value::Object(rp), at));
    }
    let mut body = Entries::default();
    for b in [&st.backend, &st.cloud, &st.state_store, &st.encryption].into_iter().flatten() {
        body.block(b, Schema::Terraform.child(&b.kind));
    }
    for i in &st.other {
        body.item(i, Schema::Terraform);
    }
    for (name, e) in body.list {
        t.set(name, e);
    }
    t
}

/// A body's content by name, in the order each name first appears.
#[derive(Default)]
struct Entries<'a> {
    list: Vec<(&'a str, Entry<'a>)>,
    index: HashMap<&'a str, usize>,
}

/// What one name of a body holds.
enum Entry<'a> {
    /// An argument's value, and where it was written.
    Value(Value, Option<Span>),
    /// Nested blocks of one type, in order (see [`Entries::block`] for the values).
    Blocks(Vec<Element<'a>>),
}

enum Element<'a> {
    Value(Value, Option<Span>),
    Block(&'a Block, Schema),
}

impl<'a> Entries<'a> {
    fn body(body: &'a Body, schema: Schema) -> Self {
        let mut e = Entries::default();
        for i in body.items.iter() {
            e.item(i, schema);
        }
        e
    }

    fn item(&mut self, i: &'a Item, schema: Schema) {
        match i {
            Item::Attr(a) => self.set(&a.name, Entry::Value(a.to_json(schema), Some(a.span))),
            Item::Json(j) => self.set(&j.name, Entry::Value(j.value.to_json(), Some(j.span))),
            Item::Block(b) => self.block(b, schema.child(&b.kind)),
        }
    }

    /// Sets a name, in its first place when it had one: a later argument of the same name
    /// replaces the earlier (a duplicate is an error Terraform reports anyway).
    fn set(&mut self, name: &'a str, e: Entry<'a>) {
        match self.index.get(name) {
            Some(&i) => self.list[i].1 = e,
            None => {
                self.index.insert(name, self.list.len());
                self.list.push((name, e));
            }
        }
    }

    /// A nested block joins the others of its type. One name holds one thing, as in
    /// Terraform's JSON syntax, whose ambiguity it shares: where only the provider's
    /// schema can tell an argument from blocks of the same name (a merged body can hold
    /// both), blocks after a list argument join its elements and blocks after any other
    /// argument are not seen, while an argument after blocks replaces them.
    fn block(&mut self, b: &'a Block, schema: Schema) {
        let Some(&i) = self.index.get(b.kind.as_str()) else {
            self.set(&b.kind, Entry::Blocks(vec![Element::Block(b, schema)]));
            return;
        };
        let slot = &mut self.list[i].1;
        match slot {
            Entry::Blocks(list) => list.push(Element::Block(b, schema)),
            Entry::Value(Value::Array(items), at) => {
                let at = *at;
                let mut list: Vec<Element<'a>> =
                    std::mem::take(items).into_iter().map(|v| Element::Value(v, at)).collect();
                list.push(Element::Block(b, schema));
                *slot = Entry::Blocks(list);
            }
            Entry::Value(..) => {}
        }
    }
}

/// The walk down to the leaves.
#[derive(Default)]
struct Walk {
    path: Vec<Step>,
    out: Vec<Leaf>,
    /// The argument whose value is being walked.
    at: Option<Span>,
}

impl Walk {
    fn leaf(&mut self, value: Value) {
        self.out.push(Leaf { path: Path(self.path.clone()), value, at: self.at });
    }

    /// A body (or the settings, or the locals); an empty one is a leaf of its own, so
    /// that an empty block still differs from no block.
    fn entries(&mut self, e: Entries<'_>) {
        if e.list.is_empty() {
            self.at = None;
            self.leaf(Value::Object(Map::new()));
            return;
        }
        for (name, entry) in e.list {
            self.path.push(Step::Key(name.to_string()));
            match entry {
                Entry::Value(v, at) => {
                    self.at = at;
                    self.value(v)
                }
                Entry::Blocks(list) => {
                    for (i, el) in list.into_iter().enumerate() {
                        self.path.push(Step::Index(i));
                        match el {
                            Element::Value(v, at) => {
                                self.at = at;
                                self.value(v)
                            }
                            Element::Block(b, schema) => self.nested(b, schema),
                        }
                        self.path.pop();
                    }
                }
            }
            self.path.pop();
        }
    }

    /// A nested block: its labels are keys, as in JSON syntax, where `provisioner
    /// "local-exec" { … }` is `{"local-exec": {…}}`.
    fn nested(&mut self, b: &Block, schema: Schema) {
        let depth = self.path.len();
        self.path.extend(b.labels.iter().cloned().map(Step::Key));
        self.entries(Entries::body(&b.body, schema));
        self.path.truncate(depth);
    }

    /// A value, down to its scalars; an empty object or list is a leaf.
    fn value(&mut self, v: Value) {
        match v {
            Value::Object(o) if !o.is_empty() => {
                for (k, x) in o {
                    self.path.push(Step::Key(k));
                    self.value(x);
                    self.path.pop();
                }
            }
            Value::Array(a) if !a.is_empty() => {
                for (i, x) in a.into_iter().enumerate() {
                    self.path.push(Step::Index(i));
                    self.value(x);
                    self.path.pop();
                }
            }
            v => self.leaf(v),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::merge::load_texts;

    const WEB: &str = "resource \"aws_instance\" \"web\" {\n  ami           = \"ami-1\"\n  instance_type = \"t3.micro\"\n  tags = {\n    Name = \"web\"\n  }\n  ebs_block_device {\n    device_name = \"/dev/sdb\"\n  }\n  ebs_block_device {\n    device_name = \"/dev/sdc\"\n  }\n}\n";

    fn module(files: &[(&str, &str)]) -> Module {
        load_texts("", files, None)
    }

    fn paths(a: &Module, b: &Module) -> Vec<String> {
        differences(a, b).iter().map(|d| d.path.to_string()).collect()
    }

    /// `a` and `b` are different, and differ at `want`.
    fn differ(a: &str, b: &str, want: &[&str]) {
        let (a, b) = (module(&[("main.tf", a)]), module(&[("main.tf", b)]));
        assert!(!a.has_errors() && !b.has_errors());
        assert!(!same(&a, &b));
        assert_eq!(paths(&a, &b), want);
    }

    fn both_same(a: &Module, b: &Module) {
        assert!(!a.has_errors() && !b.has_errors());
        assert!(same(a, b));
        assert_eq!(paths(a, b), Vec::<String>::new());
    }

    /// The comparison as first written: every leaf of both modules walked.
    fn walked_in_full(a: &Module, b: &Module) -> Vec<Difference> {
        leaf_differences(&leaves(a), &leaves(b))
    }

    #[test]
    fn blocks_left_unwalked_change_no_difference() {
        let q = "resource \"aws_sqs_queue\" \"q\" {\n  name = \"q\"\n}\n";
        let q2 = q.replace("\"q\"\n", "\"r\"\n");
        let v = "variable \"v\" {\n  default = 1\n}\n";
        // Equal in meaning, written otherwise: what a reference or a key prints differs.
        let p = "resource \"aws_sqs_queue\" \"q\" {\n  name = \"q\"\n  provider = null\n  tags = { (local.k) = 1 }\n}\n";
        let p2 = p.replace("(local.k)", "( local.k )");
        let pj = r#"{"resource": {"aws_sqs_queue": {"q": {"name": "q", "provider": null}}}}"#;
        let pn = "resource \"aws_sqs_queue\" \"q\" {\n  name = \"q\"\n  provider = null\n}\n";
        let one = |t: &str| vec![("main.tf".to_string(), t.to_string())];
        let files = [
            one(&format!("{WEB}{q}{v}")),
            one(&format!("{q}{WEB}{v}")),
            one(&format!("{WEB}{q2}{v}")),
            one(&format!("{WEB}{q}{q}{v}")),
            one(&format!("{WEB}{q}{q2}")),
            one(&format!("{q2}{q}{WEB}")),
            one(&(WEB.replace("t3.micro", "t3.large") + q)),
            one(&format!("{v}{v}")),
            one(""),
            // The same blocks from other files, at other places.
            vec![("a.tf".into(), v.into()), ("b.tf".into(), format!("{q}{WEB}"))],
            vec![("a.tf".into(), format!("{WEB}\n\n{q}")), ("c.tf".into(), v.into())],
            one(&format!("{WEB}{p}")),
            one(&format!("{WEB}{p2}")),
            vec![("main.tf".into(), WEB.into()), ("q.tf.json".into(), pj.into())],
            one(&format!("{WEB}{pn}")),
        ];
        let mut unwalked = 0;
        for a in &files {
            for b in &files {
                let load = |f: &Vec<(String, String)>| {
                    let f: Vec<(&str, &str)> =
                        f.iter().map(|(n, t)| (n.as_str(), t.as_str())).collect();
                    module(&f)
                };
                let (a, b) = (load(a), load(b));
                assert_eq!(differences(&a, &b), walked_in_full(&a, &b));
                let keys = block_keys(&b);
                unwalked += block_keys(&a)
                    .iter()
                    .enumerate()
                    .filter(|(i, k)| {
                        keys.iter()
                            .position(|x| x == *k)
                            .is_some_and(|j| same_content(&a.blocks[*i].body, &b.blocks[j].body))
                    })
                    .count();
            }
        }
        // The shortcut was taken: the test compares something.
        assert!(unwalked >= 100, "{unwalked}");
    }

    #[test]
    fn layout_comments_order_of_arguments_and_files_do_not_matter() {
        let vars = "variable \"region\" {\n  default = \"eu-west-1\"\n}\n";
        let other = "# The web server.\nresource \"aws_instance\" \"web\" {\n  tags          = { Name = \"web\" } # inline\n  instance_type = \"t3.micro\"\n  ami = \"ami-1\"\n\n  ebs_block_device {\n    # first\n    device_name = \"/dev/sdb\"\n  }\n  ebs_block_device { device_name = \"/dev/sdc\" }\n}\n";
        let a = module(&[("main.tf", &format!("{WEB}{vars}"))]);
        let b = module(&[("a.tf", other), ("b.tf", vars)]);
        both_same(&a, &b);
    }

    #[test]
    fn an_override_that_restates_a_value_changes_nothing() {
        let over = "resource \"aws_instance\" \"web\" {\n  ami = \"ami-1\"\n}\n";
        let a = module(&[("main.tf", WEB)]);
        let b = module(&[("main.tf", WEB), ("override.tf", over)]);
        both_same(&a, &b);
    }

    #[test]
    fn changed_added_and_removed_values_differ() {
        let changed = WEB.replace("t3.micro", "t3.large");
        differ(WEB, &changed, &["resource.aws_instance.web.instance_type"]);
        let added = WEB.replace("  ami ", "  monitoring = true\n  ami ");
        differ(WEB, &added, &["resource.aws_instance.web.monitoring"]);
        let removed = WEB.replace("  ami           = \"ami-1\"\n", "");
        differ(WEB, &removed, &["resource.aws_instance.web.ami"]);
        let tag = WEB.replace("Name = \"web\"", "Name = \"web\"\n    Team = \"a\"");
        differ(WEB, &tag, &["resource.aws_instance.web.tags.Team"]);
        let d = differences(&module(&[("main.tf", WEB)]), &module(&[("main.tf", &changed)]));
        assert_eq!(d[0].left, Some(Value::String("t3.micro".into())));
        assert_eq!(d[0].right, Some(Value::String("t3.large".into())));
        let d = differences(&module(&[("main.tf", WEB)]), &module(&[("main.tf", &added)]));
        assert_eq!((d[0].left.clone(), d[0].right.clone()), (None, Some(Value::Bool(true))));
    }

    #[test]
    fn blocks_added_removed_or_changed_differ() {
        let more = format!("{WEB}resource \"aws_sqs_queue\" \"q\" {{}}\n");
        differ(WEB, &more, &["resource.aws_sqs_queue.q"]);
        differ(&more, WEB, &["resource.aws_sqs_queue.q"]);
        let nested = WEB.replace("/dev/sdc", "/dev/sdd");
        differ(WEB, &nested, &["resource.aws_instance.web.ebs_block_device[1].device_name"]);
        let fewer = WEB.replace("  ebs_block_device {\n    device_name = \"/dev/sdc\"\n  }\n", "");
        differ(WEB, &fewer, &["resource.aws_instance.web.ebs_block_device[1].device_name"]);
        // An empty block is still a block.
        let empty = WEB.replace("  ami ", "  metadata_options {}\n  ami ");
        differ(WEB, &empty, &["resource.aws_instance.web.metadata_options[0]"]);
    }

    #[test]
    fn the_order_of_nested_blocks_matters_and_of_top_level_blocks_too() {
        let swapped = WEB.replace("/dev/sdb", "/dev/sdX").replace("/dev/sdc", "/dev/sdb");
        let swapped = swapped.replace("/dev/sdX", "/dev/sdc");
        differ(
            WEB,
            &swapped,
            &[
                "resource.aws_instance.web.ebs_block_device[0].device_name",
                "resource.aws_instance.web.ebs_block_device[1].device_name",
            ],
        );
        // Top-level blocks are matched by address: reordered, no leaf differs, but the
        // configurations are not the same (an edit that moved blocks is not proven).
        let q = "resource \"aws_sqs_queue\" \"q\" {}\n";
        let (a, b) = (
            module(&[("main.tf", &format!("{WEB}{q}"))]),
            module(&[("main.tf", &format!("{q}{WEB}"))]),
        );
        assert!(!same(&a, &b));
        assert_eq!(paths(&a, &b), Vec::<String>::new());
        // Blocks of different types are not in one list.
        let v = "variable \"v\" {}\n";
        let (a, b) = (
            module(&[("main.tf", &format!("{WEB}{v}"))]),
            module(&[("main.tf", &format!("{v}{WEB}"))]),
        );
        both_same(&a, &b);
    }

    #[test]
    fn repeated_addresses_are_numbered() {
        let one = "provider \"aws\" {\n  region = \"a\"\n}\nprovider \"aws\" {\n  alias  = \"b\"\n  region = \"b\"\n}\n";
        let two = one.replace("region = \"b\"", "region = \"c\"");
        differ(one, &two, &["provider.aws#2.region"]);
    }

    #[test]
    fn settings_and_locals() {
        let a = "terraform {\n  required_version = \">= 1.5\"\n  backend \"s3\" {\n    bucket = \"a\"\n  }\n}\nlocals {\n  x = { a = 1 }\n}\n";
        let b = a.replace("bucket = \"a\"", "bucket = \"b\"").replace("a = 1", "a = 2");
        differ(a, &b, &["terraform.backend[0].s3.bucket", "locals.x.a"]);
        // Two constraints say what one comma-separated constraint says.
        let two = module(&[
            ("a.tf", "terraform {\n  required_version = \">= 1.0\"\n}\n"),
            ("b.tf", "terraform {\n  required_version = \"< 2.0\"\n}\n"),
        ]);
        let one = module(&[("a.tf", "terraform {\n  required_version = \">= 1.0, < 2.0\"\n}\n")]);
        both_same(&two, &one);
    }

    #[test]
    fn values_mean_the_same_in_either_syntax() {
        let hcl = "variable \"x\" {}\nresource \"aws_instance\" \"web\" {\n  ami        = var.x\n  depends_on = [aws_sqs_queue.q]\n  tags       = { Name = \"web\" }\n  ebs_block_device {\n    device_name = \"/dev/sdb\"\n  }\n}\nresource \"aws_sqs_queue\" \"q\" {}\n";
        let json = r#"{
  "variable": { "x": {} },
  "resource": {
    "aws_instance": { "web": {
      "ami": "${var.x}",
      "depends_on": ["aws_sqs_queue.q"],
      "tags": { "Name": "web" },
      "ebs_block_device": [{ "device_name": "/dev/sdb" }]
    } },
    "aws_sqs_queue": { "q": {} }
  }
}
"#;
        let (a, b) = (module(&[("main.tf", hcl)]), module(&[("main.tf.json", json)]));
        both_same(&a, &b);
        // Interpolating a lone reference is the reference; a quoted reference in
        // `depends_on` is the reference too.
        let quoted = hcl
            .replace("ami        = var.x", "ami        = \"${var.x}\"")
            .replace("[aws_sqs_queue.q]", "[\"aws_sqs_queue.q\"]");
        both_same(&a, &module(&[("main.tf", &quoted)]));
        // A single object for one nested block is a block to Terraform, but a value that
        // is no list: that verdict is kept from the comparison this one replaced.
        let single =
            json.replace(r#"[{ "device_name": "/dev/sdb" }]"#, r#"{ "device_name": "/dev/sdb" }"#);
        let c = module(&[("main.tf.json", &single)]);
        assert!(!c.has_errors());
        assert!(!same(&a, &c));
        assert_eq!(
            paths(&a, &c),
            [
                "resource.aws_instance.web.ebs_block_device[0].device_name",
                "resource.aws_instance.web.ebs_block_device.device_name",
            ]
        );
    }

    #[test]
    fn one_name_holds_an_argument_or_blocks() {
        let sg = |body: &str| format!("resource \"aws_security_group\" \"s\" {{\n{body}\n}}\n");
        let merged =
            |main: &str, over: &str| module(&[("main.tf", &sg(main)), ("override.tf", &sg(over))]);
        // An argument after blocks of its name replaces them.
        let a = merged("  ingress {\n    from_port = 1\n  }", "  ingress = []");
        both_same(&a, &module(&[("main.tf", &sg("  ingress = []"))]));
        // Blocks after a list argument join its elements.
        let a = merged("  ingress = [{ from_port = 1 }]", "  ingress {\n    from_port = 2\n  }");
        let b = sg("  ingress = [{ from_port = 1 }, { from_port = 2 }]");
        both_same(&a, &module(&[("main.tf", &b)]));
        // Blocks after any other argument are not seen.
        let a = merged("  ingress = 1", "  ingress {\n    from_port = 2\n  }");
        both_same(&a, &module(&[("main.tf", &sg("  ingress = 1"))]));
    }

    #[test]
    fn numbers_compare_as_written() {
        // `1` and `1.0` are the same number to Terraform, but numbers are compared as
        // written: edits copy values, they never rewrite them.
        differ("locals {\n  n = 1\n}\n", "locals {\n  n = 1.0\n}\n", &["locals.n"]);
    }

    #[test]
    fn paths_read_as_addresses() {
        let p = Path(vec![
            Step::Key("resource".into()),
            Step::Label("a".into()),
            Step::Label("b".into()),
            Step::Repeat(2),
            Step::Key("tags".into()),
            Step::Index(0),
            Step::Key("k".into()),
        ]);
        assert_eq!(p.to_string(), "resource.a.b#2.tags[0].k");
    }
}
