//! The generic body merge (spec §5.1, Terraform's `mergeBody`): attributes replaced by
//! name, nested blocks replaced wholesale by type (`dynamic "x"` counts as `x`), never
//! merged inside.
//!
//! JSON properties in provider-defined bodies are ambiguous (attribute or blocks?). They
//! are resolved by how any native-syntax layer of the same object writes that name; when
//! no layer does, name-level replacement gives the same result either way (spec §6).

use std::collections::{HashMap, HashSet};

use crate::terraform::json;
use crate::terraform::{Attr, Block, Body, Item, Span};

/// `over` replacing `base`, remembering what it displaced.
pub(super) fn replaced_attr(base: &Attr, over: &Attr) -> Attr {
    let mut a = over.clone();
    a.displaced = base.displaced.clone();
    a.displaced.push(base.span);
    a
}

/// Merges `over` into `base`; the attributes named in `skip_attrs` and the blocks of the
/// types in `skip_blocks` are the caller's to handle. Each is skipped in its own form only:
/// Terraform takes a meta-argument out of the body by the form its schema gives it, so an
/// attribute written where the schema has a block (`lifecycle = {…}`) stays in the body,
/// for the provider or the called module to judge.
pub(super) fn merge_body(base: &mut Body, over: &Body, skip_attrs: &[&str], skip_blocks: &[&str]) {
    let mut over = over.clone();
    over.items_mut().retain(|i| match i {
        Item::Attr(a) => !skip_attrs.contains(&a.name.as_str()),
        Item::Block(b) => b.kind == "dynamic" || !skip_blocks.contains(&b.kind.as_str()),
        Item::Json(j) => {
            !skip_attrs.contains(&j.name.as_str()) && !skip_blocks.contains(&j.name.as_str())
        }
    });
    resolve_json(base, &mut over);
    merge_escaped(base, &mut over);

    let mut over_blocks = Vec::new();
    // Where each name's attribute is (else its JSON property): one lookup per overriding
    // attribute, not a scan of the body (an override of thousands of attributes stays
    // linear). Rebuilt after a JSON property moves items around.
    let mut index: Option<HashMap<String, usize>> = None;
    for item in over.into_items() {
        match item {
            Item::Attr(a) => {
                let idx = index.get_or_insert_with(|| attr_index(&base.items));
                match idx.get(&a.name).copied() {
                    Some(p) => {
                        let old = item_span_and_history(&base.items[p]);
                        let mut a = a;
                        a.displaced = old;
                        base.items_mut()[p] = Item::Attr(a);
                    }
                    None => {
                        idx.insert(a.name.clone(), base.items.len());
                        base.items_mut().push(Item::Attr(a));
                    }
                }
            }
            Item::Json(mut j) => {
                index = None;
                let mut first = None;
                let mut displaced = Vec::new();
                let mut k = 0;
                base.items_mut().retain(|i| {
                    let hit = i.merge_name() == j.name;
                    if hit {
                        first.get_or_insert(k);
                        displaced.extend(item_span_and_history(i));
                    }
                    if !hit {
                        k += 1;
                    }
                    !hit
                });
                j.displaced = displaced;
                match first {
                    Some(p) => base.items_mut().insert(p, Item::Json(j)),
                    None => base.items_mut().push(Item::Json(j)),
                }
            }
            Item::Block(b) => over_blocks.push(b),
        }
    }
    if over_blocks.is_empty() {
        return;
    }
    let types: HashSet<String> =
        over_blocks.iter().map(|b| Item::Block(b.clone()).merge_name().to_string()).collect();
    let mut dropped: Vec<(String, Span)> = Vec::new();
    base.items_mut().retain(|i| match i {
        Item::Block(b) if types.contains(i.merge_name()) => {
            dropped.push((i.merge_name().to_string(), b.span));
            false
        }
        _ => true,
    });
    let mut seen = HashSet::new();
    for mut b in over_blocks {
        let name = Item::Block(b.clone()).merge_name().to_string();
        if seen.insert(name.clone()) {
            b.displaced = dropped.iter().filter(|(n, _)| *n == name).map(|(_, s)| *s).collect();
        }
        base.items_mut().push(Item::Block(b));
    }
}

/// Takes the items `hit` picks out of `items`, their places (and the places they had
/// displaced) kept under their names in `moved`.
fn take_out(
    items: &mut Vec<Item>,
    moved: &mut HashMap<String, Vec<Span>>,
    hit: impl Fn(&Item) -> bool,
) {
    items.retain(|i| {
        let hit = hit(i);
        if hit {
            moved.entry(i.merge_name().to_string()).or_default().extend(item_span_and_history(i));
        }
        !hit
    });
}

/// The escaping block `_` (spec §5.2): Terraform folds its content into the body it is in
/// before the override merge, so an override's `_ { x = … }` replaces the original's `x`
/// written plainly or in its `_`, an override's plain `x` replaces the original's
/// `_ { x }`, and the rest of both escaping blocks stays. Here the content stays in a `_`
/// block, so that it keeps being the provider's and no meta-argument: this moves what an
/// override says in or out of `_` to where it replaces the original's, and takes the
/// override's `_` blocks out of `over`.
fn merge_escaped(base: &mut Body, over: &mut Body) {
    let is_escape = |i: &Item| matches!(i, Item::Block(b) if b.kind == "_");
    let has_escape = base.items.iter().any(is_escape) || over.items.iter().any(is_escape);
    if !has_escape {
        return;
    }
    let mut escaped: Vec<Block> = Vec::new();
    over.items_mut().retain(|i| match i {
        Item::Block(b) if b.kind == "_" => {
            escaped.push(b.clone());
            false
        }
        _ => true,
    });
    // What the override says plainly replaces the original's escaped items of that name.
    let plain: HashSet<String> = over.items.iter().map(|i| i.merge_name().to_string()).collect();
    let mut moved: HashMap<String, Vec<Span>> = HashMap::new();
    for item in base.items_mut().iter_mut() {
        if let Item::Block(b) = item
            && b.kind == "_"
        {
            take_out(b.body.items_mut(), &mut moved, |i| plain.contains(i.merge_name()));
        }
    }
    for item in over.items_mut().iter_mut() {
        if let Some(spans) = moved.remove(item.merge_name()) {
            add_displaced(item, spans);
        }
    }
    // What it says escaped replaces the original's plain items of that name, and merges
    // into the original's escaping block.
    for e in escaped {
        let names: HashSet<String> =
            e.body.items.iter().map(|i| i.merge_name().to_string()).collect();
        let mut moved: HashMap<String, Vec<Span>> = HashMap::new();
        take_out(base.items_mut(), &mut moved, |i| !is_escape(i) && names.contains(i.merge_name()));
        let target = base.items_mut().iter_mut().find_map(|i| match i {
            Item::Block(b) if b.kind == "_" => Some(b),
            _ => None,
        });
        match target {
            Some(b) => {
                merge_body(&mut b.body, &e.body, &[], &[]);
                for item in b.body.items_mut().iter_mut() {
                    if let Some(spans) = moved.remove(item.merge_name()) {
                        add_displaced(item, spans);
                    }
                }
            }
            None => {
                let mut e = e;
                for item in e.body.items_mut().iter_mut() {
                    if let Some(spans) = moved.remove(item.merge_name()) {
                        add_displaced(item, spans);
                    }
                }
                base.items_mut().push(Item::Block(e));
            }
        }
    }
}

/// Records that `item` replaced what was at `spans` (written elsewhere in the body).
fn add_displaced(item: &mut Item, spans: Vec<Span>) {
    match item {
        Item::Attr(a) => a.displaced.extend(spans),
        Item::Json(j) => j.displaced.extend(spans),
        Item::Block(b) => b.displaced.extend(spans),
    }
}

/// The first attribute of each name, else the first JSON property of that name.
fn attr_index(items: &[Item]) -> HashMap<String, usize> {
    let mut idx = HashMap::new();
    for (k, i) in items.iter().enumerate() {
        if let Item::Json(j) = i {
            idx.entry(j.name.clone()).or_insert(k);
        }
    }
    for (k, i) in items.iter().enumerate().rev() {
        if let Item::Attr(a) = i {
            idx.insert(a.name.clone(), k);
        }
    }
    idx
}

fn item_span_and_history(i: &Item) -> Vec<Span> {
    match i {
        Item::Attr(a) => {
            let mut v = a.displaced.clone();
            v.push(a.span);
            v
        }
        Item::Json(j) => {
            let mut v = j.displaced.clone();
            v.push(j.span);
            v
        }
        Item::Block(b) => vec![b.span],
    }
}

/// Turns JSON properties into attributes or blocks where a native-syntax layer shows which.
fn resolve_json(base: &mut Body, over: &mut Body) {
    let mut attrs = HashSet::new();
    let mut blocks = HashSet::new();
    for i in base.items.iter().chain(over.items.iter()) {
        match i {
            Item::Attr(a) if a.expr.source.is_some() => {
                attrs.insert(a.name.clone());
            }
            Item::Block(_) => {
                blocks.insert(i.merge_name().to_string());
            }
            _ => {}
        }
    }
    if attrs.is_empty() && blocks.is_empty() {
        return;
    }
    for body in [base, over] {
        if !body.items.iter().any(|i| matches!(i, Item::Json(_))) {
            continue;
        }
        let items = std::sync::Arc::unwrap_or_clone(std::mem::take(&mut body.items));
        for item in items {
            match item {
                Item::Json(j) if blocks.contains(&j.name) && !attrs.contains(&j.name) => {
                    body.items_mut().extend(
                        json::blocks_from_value(&j.name, &j.value).into_iter().map(Item::Block),
                    );
                }
                Item::Json(j) if attrs.contains(&j.name) => {
                    body.items_mut().push(Item::Attr(Attr {
                        name: j.name.clone(),
                        name_span: j.name_span,
                        expr: json::expr_from_value(&j.value),
                        span: j.span,
                        displaced: j.displaced,
                    }))
                }
                other => body.items_mut().push(other),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::terraform::Block;

    fn block(text: &str) -> Block {
        let (f, _) = crate::terraform::hcl::parse(0, text);
        f.body.blocks().next().cloned().expect("a block")
    }

    fn names(b: &Body) -> Vec<String> {
        b.items
            .iter()
            .map(|i| match i {
                Item::Attr(a) => format!("{}={}", a.name, a.expr.to_hcl()),
                Item::Block(b) => format!("{}{:?}", b.kind, b.labels),
                Item::Json(j) => format!("json:{}", j.name),
            })
            .collect()
    }

    #[test]
    fn attributes_replace_and_blocks_replace_by_type() {
        let mut base =
            block("r {\n a = 1\n b = 2\n n { x = 1 }\n n { x = 2 }\n m { y = 1 }\n}\n").body;
        let over = block("r {\n b = 3\n c = 4\n n { x = 9 }\n}\n").body;
        merge_body(&mut base, &over, &[], &[]);
        assert_eq!(names(&base), ["a=1", "b=3", "m[]", "c=4", "n[]"]);
        let Some(Item::Block(n)) = base.items.last() else { panic!() };
        assert_eq!(n.displaced.len(), 2, "both base `n` blocks displaced");
    }

    #[test]
    fn dynamic_counts_as_its_label() {
        let mut base =
            block("r {\n dynamic \"n\" {\n for_each = []\n content {}\n }\n e {}\n}\n").body;
        let over = block("r {\n n { x = 1 }\n}\n").body;
        merge_body(&mut base, &over, &[], &[]);
        assert_eq!(names(&base), ["e[]", "n[]"]);
    }

    #[test]
    fn skipped_names_are_left_to_the_caller() {
        let mut base = block("r {\n a = 1\n}\n").body;
        let over = block("r {\n a = 2\n lifecycle {}\n}\n").body;
        merge_body(&mut base, &over, &["a"], &["lifecycle"]);
        assert_eq!(names(&base), ["a=1"]);
    }

    /// The escaping block's content merges argument by argument with the original's,
    /// plain or escaped: Terraform folds `_` into the body before the override merge.
    #[test]
    fn the_escaping_block_merges_by_argument() {
        let mut base = block("r {\n x = 1\n _ {\n count = 2\n keep = 1\n n {}\n }\n}\n").body;
        let over = block("r {\n keep = 2\n _ {\n x = 3\n y = 4\n }\n}\n").body;
        merge_body(&mut base, &over, &[], &[]);
        assert_eq!(names(&base), ["_[]", "keep=2"]);
        let Some(Item::Block(e)) = base.items.first() else { panic!() };
        assert_eq!(names(&e.body), ["count=2", "n[]", "x=3", "y=4"]);
        let Some(Item::Attr(x)) = e.body.items.iter().find(|i| i.merge_name() == "x") else {
            panic!()
        };
        assert_eq!(x.displaced.len(), 1, "x = 3 displaced the plain x = 1");
    }

    /// A name skipped as a block is merged when it is written as an attribute, and the
    /// other way round: each form is what the schema does not take out of the body.
    #[test]
    fn a_skipped_name_in_the_other_form_is_merged() {
        let mut base = block("r {\n a = 1\n}\n").body;
        let over = block("r {\n lifecycle = { x = 1 }\n a {}\n}\n").body;
        merge_body(&mut base, &over, &["a"], &["lifecycle"]);
        assert_eq!(names(&base), ["a=1", "lifecycle={ x = 1 }", "a[]"]);
    }
}
