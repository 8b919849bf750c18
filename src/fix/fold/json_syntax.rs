//! Folding into and out of JSON syntax: a JSON override's property on a native primary,
//! and any override's item on a JSON primary, edited member by member.

use super::Folder;
use crate::fix::Splice;
use crate::terraform::schema::Schema;
use crate::terraform::{Attr, Block, Item, JsonProp, JsonValue, Syntax, json};

impl<'a> Folder<'a> {
    /// A JSON property of an override on a native primary block: an argument or nested
    /// blocks, as the primary writes that name (the provider's schema decides otherwise).
    pub(super) fn fold_json_prop(
        &mut self,
        base: &'a Block,
        j: &JsonProp,
        done_types: &mut Vec<String>,
    ) {
        let name = j.name.clone();
        let native_attr = base.body.attrs().any(|x| x.name == j.name);
        let native_blocks =
            base.body.items.iter().any(|i| matches!(i, Item::Block(_)) && i.merge_name() == j.name);
        let object = |v: &JsonValue| matches!(v, JsonValue::Object(_));
        let scalar = match &j.value.value {
            JsonValue::Object(_) => false,
            JsonValue::Array(v) => !v.iter().any(|e| object(&e.value)),
            _ => true,
        };
        if native_attr || (scalar && !native_blocks) {
            let a = Attr {
                name: name.clone(),
                name_span: j.name_span,
                expr: json::expr_from_value(&j.value),
                span: j.span,
                displaced: Vec::new(),
            };
            self.set_attr(base, &a);
        } else if native_blocks {
            if !done_types.contains(&name) {
                done_types.push(name.clone());
                let blocks: Vec<Item> =
                    json::blocks_from_value(&name, &j.value).into_iter().map(Item::Block).collect();
                self.replace_blocks(base, &name, &blocks);
            }
        } else {
            self.refuse(
                j.name_span,
                format!(
                    "whether `{name}` is an argument or a block depends on the provider's schema, \
                     and the primary block has neither; fold it by hand"
                ),
            );
        }
    }

    /// An argument named like a block type of its body (`lifecycle = {…}`, which Terraform
    /// leaves to the provider) cannot go into a JSON file under its name, where Terraform
    /// reads it as that block: the fold would change what the module means.
    pub(super) fn refuse_block_named(&mut self, a: &Attr) {
        self.refuse(
            a.span,
            format!(
                "`{0} = …` is an argument here, left to the provider, the called module or the provisioner, but a JSON file cannot hold it under that name: Terraform's JSON syntax reads \"{0}\" as the {0} block; fold it by hand, into the block's escaping block `\"_\"`",
                a.name
            ),
        );
    }

    /// An override attribute's value as JSON text: as written when the override is JSON.
    pub(super) fn json_attr(&self, a: &Attr, schema: Schema) -> String {
        let src = self.m.files.get(a.span.file);
        match src.syntax {
            Syntax::Json => src.text[a.expr.span.start..a.expr.span.end].to_string(),
            Syntax::Hcl => a.to_json(schema).to_string(),
        }
    }

    /// In a JSON primary object: the members named `key` replaced by one with `value`
    /// (in the first one's place, else added last), or removed when `value` is `None`.
    pub(super) fn set_member(&mut self, base: &'a Block, key: &str, value: Option<String>) {
        let file = base.span.file;
        let text = self.text(file);
        let Some((members, close)) = crate::fix::json_members(text, base.span.start) else {
            self.refuse(base.def_span, "this JSON block is not an object fold can edit");
            return;
        };
        if members.iter().any(|x| x.key == "dynamic")
            && base.body.blocks_of("dynamic").any(|d| d.labels.first().is_some_and(|l| l == key))
        {
            self.refuse(
                base.def_span,
                format!(
                    "fold cannot replace a JSON `dynamic \"{key}\"` block yet; fold it by hand"
                ),
            );
            return;
        }
        let named: Vec<&crate::fix::JsonMember> = members.iter().filter(|x| x.key == key).collect();
        let quoted = serde_json::Value::String(key.to_string()).to_string();
        match (named.split_first(), value) {
            (Some((first, rest)), Some(v)) => {
                self.splice(
                    file,
                    Splice { start: first.value_start, end: first.value_end, text: v },
                );
                for x in rest {
                    let (s, e) = crate::fix::json_member_range(text, x);
                    self.splice(file, Splice::delete(s, e));
                }
            }
            (Some(_), None) => {
                for x in &named {
                    let (s, e) = crate::fix::json_member_range(text, x);
                    self.splice(file, Splice::delete(s, e));
                }
            }
            (None, Some(v)) => {
                let (at, member) = match (members.first(), members.last()) {
                    (Some(first), Some(last)) => {
                        let gap = &text[base.span.start + 1..first.key_start];
                        let gap = if gap.is_empty() { " " } else { gap };
                        (last.value_end, format!(",{gap}{quoted}: {v}"))
                    }
                    _ => (close, format!("{quoted}: {v}")),
                };
                let key = (file, base.span.start, format!("member {key}"));
                self.insert_once(key, file, at, member);
            }
            (None, None) => {}
        }
    }
}
