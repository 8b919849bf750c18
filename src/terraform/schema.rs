//! The fixed schemas Terraform decodes bodies with. JSON syntax cannot tell an attribute
//! from a block, so the JSON decoder asks here what each property is; the JSON printer
//! asks which attributes hold bare references (`depends_on`, `provider`, a variable's
//! `type`), which JSON spells as plain strings rather than `"${…}"` templates.

use super::discover::Engine;
use super::release::{Feature, Release};

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
    /// The schema and label count of a top-level block type (see [`Kind`]).
    pub fn top_block(kind: &str) -> Option<(usize, Schema)> {
        let k = Kind::named(kind)?;
        Some((k.labels.len(), k.schema?))
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

// The top-level block kinds, each declared once with what the reader, the loader's
// schemas, the merge and the printers need to know of it: its labels, its body's schema,
// the engines and releases that have it, how a primary file's duplicates are judged and
// what an override file's block of the kind does. The code that reads a kind's body (its
// decoder, with its HCL schema) is chosen from here, so a new kind is a row here (with its
// body's `Schema` where it has one of its own), its decoder and the decoder's dispatch.

/// One top-level block kind.
pub struct Kind {
    pub name: &'static str,
    /// HCL's label names: their count is the kind's.
    pub labels: &'static [&'static str],
    /// The schema a JSON file's property of this name is read with; `None` where the
    /// reader does not take the name for blocks (`required_providers` at the top).
    pub schema: Option<Schema>,
    /// The engines whose file schema has it.
    pub engines: Engines,
    /// The feature from which a release's file schema has it.
    pub since: Option<Feature>,
    /// The feature from which a release decodes it: before, a release build drops every
    /// block of the kind, and an override's is said to do nothing (`action` in 1.13).
    pub decoded: Option<(Feature, &'static str)>,
    /// How blocks of the kind in primary files are added to the module.
    pub primary: Primary,
    /// What a block of the kind in an override file does.
    pub overridden: Overridden,
    /// What Terraform (not OpenTofu) does with such a block of an override file, when it
    /// ignores it: the note said of it.
    pub terraform_ignores: Option<&'static str>,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Engines {
    Both,
    Terraform,
    OpenTofu,
}

/// How a primary file's blocks of a kind are added to the module (spec §3).
#[derive(Clone, Copy, Debug)]
pub enum Primary {
    /// Into the module's settings (`terraform`).
    Settings,
    /// Argument by argument into the module's locals.
    Locals,
    /// One block an address: a second is reported with these words (`{0}` and `{1}` the
    /// labels, `{at}` where the first was declared), and replaces the first when
    /// `last_wins`. A `check` registers its nested data blocks when `nests_data`.
    Unique(Unique),
    /// One provider configuration an address (name and alias).
    Provider,
    /// Every block is kept; duplicates are judged by their target (`import`).
    Import,
    /// Every block is kept.
    Listed,
    /// Never kept (the loader reports it).
    Dropped,
}

#[derive(Clone, Copy, Debug)]
pub struct Unique {
    pub summary: &'static str,
    /// OpenTofu's summary, where its words differ.
    pub tofu_summary: Option<&'static str>,
    pub detail: &'static str,
    pub last_wins: bool,
    pub nests_data: bool,
}

/// What an override file's block of a kind does (spec §4, §5).
#[derive(Clone, Copy, Debug)]
pub enum Overridden {
    /// Merged into the module's settings before every other kind (`terraform`).
    Settings,
    Locals,
    Provider,
    /// Merged into the primary block of its address, by `merger`; without one, reported
    /// with `missing` (summary, detail with `{0}` and `{1}` the labels).
    Object {
        merger: Merger,
        missing: (&'static str, &'static str),
    },
    /// An error: the kind may appear only in normal files.
    Refused(&'static str, &'static str),
    /// Nothing the merge does (the decoder refuses a `check` in an override file).
    Nothing,
}

/// How an override block's body merges into its base block (spec §5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Merger {
    Resource,
    Variable,
    Output,
    Module,
}

const NAME: &[&str] = &["name"];
const TYPE_NAME: &[&str] = &["type", "name"];
const NONE: &[&str] = &[];

const fn unique(summary: &'static str, detail: &'static str, last_wins: bool) -> Primary {
    Primary::Unique(Unique { summary, tofu_summary: None, detail, last_wins, nests_data: false })
}

const fn object(merger: Merger, summary: &'static str, detail: &'static str) -> Overridden {
    Overridden::Object { merger, missing: (summary, detail) }
}

const fn kind(name: &'static str, labels: &'static [&'static str], schema: Schema) -> Kind {
    Kind {
        name,
        labels,
        schema: Some(schema),
        engines: Engines::Both,
        since: None,
        decoded: None,
        primary: Primary::Listed,
        overridden: Overridden::Nothing,
        terraform_ignores: None,
    }
}

/// Every kind, in Terraform's file schema order (`configFileSchema`, the order its
/// suggestions look in); OpenTofu's order is its own, below.
pub const KINDS: &[Kind] = &[
    Kind {
        primary: Primary::Settings,
        overridden: Overridden::Settings,
        ..kind("terraform", NONE, Schema::Terraform)
    },
    Kind {
        schema: None,
        primary: Primary::Dropped,
        ..kind("required_providers", NONE, Schema::Unknown)
    },
    Kind {
        primary: Primary::Provider,
        overridden: Overridden::Provider,
        ..kind("provider", NAME, Schema::Provider)
    },
    Kind {
        primary: unique(
            "Duplicate variable declaration",
            "A variable named \"{0}\" was already declared at {at}. Variable names must be unique within a module.",
            true,
        ),
        overridden: object(
            Merger::Variable,
            "Missing base variable declaration to override",
            "There is no variable named \"{0}\". An override file can only override a variable that was already declared in a primary configuration file.",
        ),
        ..kind("variable", NAME, Schema::Variable)
    },
    Kind {
        primary: Primary::Locals,
        overridden: Overridden::Locals,
        ..kind("locals", NONE, Schema::JustAttrs)
    },
    Kind {
        primary: unique(
            "Duplicate output definition",
            "An output named \"{0}\" was already defined at {at}. Output names must be unique within a module.",
            true,
        ),
        overridden: object(
            Merger::Output,
            "Missing base output definition to override",
            "There is no output named \"{0}\". An override file can only override an output that was already defined in a primary configuration file.",
        ),
        ..kind("output", NAME, Schema::Output)
    },
    Kind {
        primary: unique(
            "Duplicate module call",
            "A module call named \"{0}\" was already defined at {at}. Module calls must have unique names within a module.",
            true,
        ),
        overridden: object(
            Merger::Module,
            "Missing module call to override",
            "There is no module call named \"{0}\". An override file can only override a module call that was defined in a primary configuration file.",
        ),
        ..kind("module", NAME, Schema::Module)
    },
    Kind {
        primary: unique(
            "Duplicate resource \"{0}\" configuration",
            "A {0} resource named \"{1}\" was already declared at {at}. Resource names must be unique per type in each module.",
            false,
        ),
        overridden: object(
            Merger::Resource,
            "Missing resource to override",
            "There is no {0} resource named \"{1}\". An override file can only override a resource block defined in a primary configuration file.",
        ),
        ..kind("resource", TYPE_NAME, Schema::Resource)
    },
    Kind {
        primary: unique(
            "Duplicate data \"{0}\" configuration",
            "A {0} data resource named \"{1}\" was already declared at {at}. Resource names must be unique per type in each module.",
            false,
        ),
        overridden: object(
            Merger::Resource,
            "Missing data resource to override",
            "There is no {0} data resource named \"{1}\". An override file can only override a data block defined in a primary configuration file.",
        ),
        ..kind("data", TYPE_NAME, Schema::Resource)
    },
    Kind {
        since: Some(Feature::EphemeralResources),
        primary: Primary::Unique(Unique {
            summary: "Duplicate ephemeral \"{0}\" configuration",
            tofu_summary: Some("Duplicate ephemeral resource \"{0}\" configuration"),
            detail: "A {0} ephemeral resource named \"{1}\" was already declared at {at}. Resource names must be unique per type in each module.",
            last_wins: false,
            nests_data: false,
        }),
        overridden: object(
            Merger::Resource,
            "Missing ephemeral resource to override",
            "There is no {0} ephemeral resource named \"{1}\". An override file can only override an ephemeral block defined in a primary configuration file.",
        ),
        terraform_ignores: Some("Terraform ignores ephemeral blocks in override files"),
        ..kind("ephemeral", TYPE_NAME, Schema::Resource)
    },
    Kind {
        engines: Engines::Terraform,
        since: Some(Feature::ActionBlocks),
        decoded: Some((
            Feature::Actions,
            "Terraform drops action blocks unless experiments are on (merged from 1.14)",
        )),
        primary: unique(
            "Duplicate action \"{0}\" configuration",
            "An action named \"{1}\" was already declared at {at}. Resource names must be unique per type in each module.",
            false,
        ),
        overridden: object(
            Merger::Resource,
            "Missing resource to override",
            "There is no action named \"{1}\". An override file can only override a resource block defined in a primary configuration file.",
        ),
        ..kind("action", TYPE_NAME, Schema::Resource)
    },
    Kind {
        overridden: Overridden::Refused(
            "Cannot override 'moved' blocks",
            "Records of moved objects can appear only in normal files, not in override files.",
        ),
        ..kind("moved", NONE, Schema::Moved)
    },
    Kind {
        since: Some(Feature::RemovedBlocks),
        overridden: Overridden::Refused(
            "Cannot override 'Removed' blocks",
            "Removed blocks can appear only in normal files, not in override files.",
        ),
        terraform_ignores: Some("Terraform ignores removed blocks in override files"),
        ..kind("removed", NONE, Schema::Removed)
    },
    Kind {
        primary: Primary::Import,
        overridden: Overridden::Refused(
            "Cannot override 'import' blocks",
            "Import blocks can appear only in normal files, not in override files.",
        ),
        ..kind("import", NONE, Schema::Import)
    },
    Kind {
        primary: Primary::Unique(Unique {
            summary: "Duplicate check \"{0}\" configuration",
            tofu_summary: None,
            detail: "A check block named \"{0}\" was already declared at {at}. Check blocks must be unique within each module.",
            last_wins: false,
            nests_data: true,
        }),
        ..kind("check", NAME, Schema::Check)
    },
    Kind {
        engines: Engines::OpenTofu,
        overridden: Overridden::Refused(
            "Language selections in override file",
            "Language-related settings in \"language\" blocks are not allowed in override files. Place these settings in a normal configuration file.",
        ),
        ..kind("language", NONE, Schema::JustAttrs)
    },
];

/// OpenTofu's file schema order (`parser_config.go: configFileSchema`).
pub(crate) const TOFU_ORDER: &[&str] = &[
    "language",
    "required_providers",
    "provider",
    "variable",
    "locals",
    "output",
    "module",
    "resource",
    "data",
    "ephemeral",
    "moved",
    "import",
    "check",
    "removed",
    "terraform",
];

/// The order an override file's kinds are merged in (Terraform's `mergeFile`), so that
/// diagnostics come out in its order. `terraform` is merged before all of them.
pub const MERGE_ORDER: &[&str] = &[
    "provider",
    "variable",
    "locals",
    "output",
    "module",
    "resource",
    "data",
    "ephemeral",
    "moved",
    "import",
    "removed",
    "action",
    "check",
    "language",
];

impl Kind {
    /// The kind named `name`, if it is a top-level kind of either engine.
    pub fn named(name: &str) -> Option<&'static Kind> {
        KINDS.iter().find(|k| k.name == name)
    }

    /// Does the engine's file schema have the kind, in this release?
    pub fn in_schema(&self, release: Release) -> bool {
        let engine = match self.engines {
            Engines::Both => true,
            Engines::Terraform => release.engine == Engine::Terraform,
            Engines::OpenTofu => release.engine == Engine::OpenTofu,
        };
        engine && self.since.is_none_or(|f| release.has(f))
    }

    /// The engine's kinds in its file schema's order.
    pub fn of_engine(engine: Engine) -> Vec<&'static Kind> {
        match engine {
            Engine::Terraform => KINDS.iter().filter(|k| k.engines != Engines::OpenTofu).collect(),
            Engine::OpenTofu => TOFU_ORDER.iter().filter_map(|n| Kind::named(n)).collect(),
        }
    }

    /// Is a block of the kind known by an address (one block an address)?
    pub fn addressed(&self) -> bool {
        matches!(self.primary, Primary::Unique(_) | Primary::Provider)
    }
}

/// A message template with the labels (`{0}`, `{1}`) and a place (`{at}`) put in, in one
/// pass: a label that itself reads `{1}` stays as written.
pub fn fill(template: &str, labels: &[String], at: &str) -> String {
    let mut out = String::with_capacity(template.len() + at.len());
    let mut rest = template;
    while let Some(i) = rest.find('{') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        let hole = ["{at}", "{0}", "{1}"].into_iter().find(|h| rest.starts_with(h));
        match hole {
            Some(h) => {
                out.push_str(match h {
                    "{at}" => at,
                    "{0}" => labels.first().map_or("", String::as_str),
                    _ => labels.get(1).map_or("", String::as_str),
                });
                rest = &rest[h.len()..];
            }
            None => {
                out.push('{');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
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

    /// The two orders name each kind of their engines once, and only those.
    #[test]
    fn the_orders_cover_the_kinds() {
        let mut tofu: Vec<&str> =
            KINDS.iter().filter(|k| k.engines != Engines::Terraform).map(|k| k.name).collect();
        let mut order = TOFU_ORDER.to_vec();
        tofu.sort_unstable();
        order.sort_unstable();
        assert_eq!(tofu, order);
        let mut merged: Vec<&str> = KINDS
            .iter()
            .filter(|k| !matches!(k.primary, Primary::Settings | Primary::Dropped))
            .map(|k| k.name)
            .collect();
        let mut order = MERGE_ORDER.to_vec();
        merged.sort_unstable();
        order.sort_unstable();
        assert_eq!(merged, order);
        for k in KINDS {
            assert_eq!(KINDS.iter().filter(|o| o.name == k.name).count(), 1, "{}", k.name);
        }
    }

    #[test]
    fn a_label_is_put_in_as_written() {
        let labels = ["{1}".to_string(), "n".to_string()];
        assert_eq!(fill("a {0} b {1} at {at} {x}", &labels, "m.tf:1"), "a {1} b n at m.tf:1 {x}");
    }
}
