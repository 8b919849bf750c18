//! The fixed schemas Terraform decodes bodies with. JSON syntax cannot tell an attribute
//! from a block, so the JSON decoder asks here what each property is; the JSON printer
//! asks which attributes hold bare references (`depends_on`, `provider`, a variable's
//! `type`), which JSON spells as plain strings rather than `"${…}"` templates.

/// A body's schema context.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Schema {
    Top,
    /// resource, data, ephemeral and action blocks (meta-arguments known, config unknown).
    Resource,
    Lifecycle,
    Provisioner,
    Dynamic,
    /// A body whose schema the provider or child module defines.
    Unknown,
    Variable,
    Output,
    Module,
    Provider,
    Terraform,
    RequiredProviders,
    Cloud,
    Moved,
    Import,
    Removed,
    Check,
    ActionTrigger,
    /// Every property is an attribute (locals, connection, conditions, …).
    JustAttrs,
    /// OpenTofu's `encryption` block and its targets (`state`, `plan`, a fallback) and
    /// remote state data sources.
    Encryption,
    EncryptionTarget,
    EncryptionRemote,
    /// Every property is a static value Terraform reads without evaluating it (a backend's
    /// or the cloud block's settings).
    Static,
}

/// How a property of a body is decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prop {
    /// An expression; JSON strings are templates.
    Attr,
    /// A value Terraform reads without an evaluation context (a description, a default, a
    /// module's source): JSON strings are literal text, `${` included.
    Literal,
    /// A static reference or keyword: a JSON string holds a bare expression.
    Ref,
    /// A list of static references.
    RefList,
    /// An object whose values are static references (module `providers`).
    RefMap,
    /// Nested blocks with this many labels.
    Block(usize, Schema),
    /// Unknown to Terraform's fixed schemas: decided later by the provider's schema.
    Unknown,
    /// A JSON comment property (`"//"`).
    Comment,
}

impl Schema {
    /// The schema and label count of a top-level block type.
    pub fn top_block(kind: &str) -> Option<(usize, Schema)> {
        Some(match kind {
            "resource" | "data" | "ephemeral" | "action" => (2, Schema::Resource),
            "module" => (1, Schema::Module),
            "provider" => (1, Schema::Provider),
            "variable" => (1, Schema::Variable),
            "output" => (1, Schema::Output),
            "locals" => (0, Schema::JustAttrs),
            "terraform" => (0, Schema::Terraform),
            "moved" => (0, Schema::Moved),
            "import" => (0, Schema::Import),
            "removed" => (0, Schema::Removed),
            "check" => (1, Schema::Check),
            "language" => (0, Schema::JustAttrs),
            _ => return None,
        })
    }

    /// How property `name` of a body with this schema is decoded.
    pub fn prop(self, name: &str) -> Prop {
        use Prop::*;
        use Schema as S;
        if name == "//" {
            return Comment;
        }
        match (self, name) {
            (S::Top, n) => Schema::top_block(n).map_or(Unknown, |(l, s)| Block(l, s)),
            (S::Resource, "count" | "for_each") => Attr,
            (S::Resource, "provider") => Ref,
            (S::Resource, "depends_on") => RefList,
            (S::Resource, "lifecycle") => Block(0, S::Lifecycle),
            (S::Resource, "connection") => Block(0, S::JustAttrs),
            (S::Resource, "provisioner") => Block(1, S::Provisioner),
            (S::Resource | S::Unknown | S::Provider, "dynamic") => Block(1, S::Dynamic),
            // The escaping block, whose content is the provider's (resource, provider), the
            // called module's or the provisioner's; and the block types reserved for later.
            (S::Resource | S::Provider, "_") => Block(0, S::Unknown),
            (S::Module | S::Provisioner, "_") => Block(0, S::JustAttrs),
            (S::Resource | S::Provider | S::Module, "locals") => Block(0, S::JustAttrs),
            (S::Provider | S::Module | S::Provisioner, "lifecycle") => Block(0, S::JustAttrs),
            (S::Module, "provider") => Block(1, S::JustAttrs),
            (S::Resource | S::Unknown, _) => Unknown,
            (S::Lifecycle, "ignore_changes" | "replace_triggered_by") => RefList,
            (S::Lifecycle, "precondition" | "postcondition") => Block(0, S::JustAttrs),
            (S::Lifecycle, "action_trigger") => Block(0, S::ActionTrigger),
            (S::ActionTrigger, "events" | "actions") => RefList,
            (S::Provisioner, "connection") => Block(0, S::JustAttrs),
            (S::Provisioner, "when" | "on_failure") => Ref,
            (S::Dynamic, "iterator") => Ref,
            (S::Dynamic, "content") => Block(0, S::Unknown),
            (S::Variable, "type") => Ref,
            (
                S::Variable,
                "description" | "default" | "sensitive" | "nullable" | "ephemeral" | "const",
            ) => Literal,
            (S::Output, "description" | "sensitive" | "ephemeral") => Literal,
            // Terraform 1.15 evaluates both (the source may be an expression of constant
            // variables): JSON strings are templates, `"${var.x}"` is `var.x`.
            (S::Module, "source" | "version") => Attr,
            (S::Terraform, "required_version") => Literal,
            // A keyword (`TF2021`), which Terraform reads from a JSON string as it is.
            (S::Terraform, "language") => Ref,
            (S::Variable, "validation") => Block(0, S::JustAttrs),
            (S::Output, "depends_on") => RefList,
            (S::Output, "type") => Ref,
            (S::Output, "precondition") => Block(0, S::JustAttrs),
            (S::Module, "providers") => RefMap,
            (S::Module, "depends_on") => RefList,
            (S::Provider, "alias" | "version") => Literal,
            (S::Provider, _) => Unknown,
            (S::Terraform, "experiments") => RefList,
            (S::Terraform, "required_providers") => Block(0, S::RequiredProviders),
            (S::Terraform, "backend") => Block(1, S::Static),
            (S::Terraform, "provider_meta") => Block(1, S::JustAttrs),
            (S::Terraform, "cloud") => Block(0, S::Cloud),
            (S::Terraform, "state_store") => Block(1, S::Unknown),
            (S::Terraform, "encryption") => Block(0, S::Encryption),
            (S::Encryption, "key_provider" | "method") => Block(2, S::Unknown),
            (S::Encryption, "state" | "plan") => Block(0, S::EncryptionTarget),
            (S::Encryption, "remote_state_data_sources") => Block(0, S::EncryptionRemote),
            (S::EncryptionRemote, "default") => Block(0, S::EncryptionTarget),
            (S::EncryptionRemote, "remote_state_data_source") => Block(1, S::EncryptionTarget),
            (S::EncryptionTarget, "fallback") => Block(0, S::EncryptionTarget),
            (S::Cloud, "workspaces") => Block(0, S::Static),
            (S::Static | S::Cloud, _) => Literal,
            (S::Moved, "from" | "to") => Ref,
            (S::Import, "to" | "provider") => Ref,
            (S::Removed, "from") => Ref,
            (S::Removed, "lifecycle") => Block(0, S::Lifecycle),
            (S::Removed, "provisioner") => Block(1, S::Provisioner),
            (S::Removed, "connection") => Block(0, S::JustAttrs),
            (S::Check, "data") => Block(2, S::Resource),
            (S::Check, "assert") => Block(0, S::JustAttrs),
            _ => Attr,
        }
    }

    /// The schema of a nested block of type `kind` inside a body with this schema.
    pub fn child(self, kind: &str) -> Schema {
        match self.prop(kind) {
            Prop::Block(_, s) => s,
            _ => Schema::Unknown,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resource_meta_arguments_are_known() {
        assert_eq!(Schema::Resource.prop("depends_on"), Prop::RefList);
        assert_eq!(Schema::Resource.prop("lifecycle"), Prop::Block(0, Schema::Lifecycle));
        assert_eq!(Schema::Resource.prop("ami"), Prop::Unknown);
        assert_eq!(Schema::Resource.prop("//"), Prop::Comment);
        assert_eq!(Schema::Top.prop("resource"), Prop::Block(2, Schema::Resource));
        assert_eq!(Schema::Variable.prop("type"), Prop::Ref);
        assert_eq!(Schema::Module.prop("anything"), Prop::Attr);
    }
}
