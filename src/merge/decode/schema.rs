//! The fixed schemas Terraform decodes each block kind's body against (the `*Schema`
//! variables beside each `decode*Block` in `configs/`), one per engine where they differ.

use std::borrow::Cow;
use std::sync::OnceLock;

use crate::terraform::discover::Engine;
use crate::terraform::schema::Kind;

use crate::terraform::release::{Feature, Feature as F, Release};

/// A block type a body accepts, with the names of its labels.
type BlockS = (&'static str, &'static [&'static str]);

/// HCL's `BodySchema`: arguments (name, required) and block types, in declaration order
/// (the order suggestions and missing arguments are looked for in).
pub(super) struct Schema {
    pub(super) attrs: &'static [(&'static str, bool)],
    pub(super) blocks: &'static [BlockS],
    /// The names of this schema a release has only with a feature (see
    /// [`Release::has`]): an older release's schema lacks them.
    pub(super) since: &'static [(&'static str, Feature)],
}

/// A schema as one release has it: the names its features allow, in the same order
/// (borrowed where the release has them all, as the newest does).
pub(super) struct Known {
    pub(super) attrs: Cow<'static, [(&'static str, bool)]>,
    pub(super) blocks: Cow<'static, [BlockS]>,
}

impl Schema {
    /// Is `name` (an argument or block type) in the schema, for this release?
    pub(super) fn admits(&self, name: &str, r: Release) -> bool {
        self.since.iter().all(|(n, f)| *n != name || r.has(*f))
    }

    /// The schema as `r` has it. Before `identity`, an import's `id` is required.
    pub(super) fn at(&self, r: Release) -> Known {
        let import = std::ptr::eq(self, &TF_IMPORT) || std::ptr::eq(self, &TOFU_IMPORT);
        let id_required = import && !r.has(Feature::ImportIdentity);
        if !id_required && self.since.iter().all(|(_, f)| r.has(*f)) {
            return Known { attrs: Cow::Borrowed(self.attrs), blocks: Cow::Borrowed(self.blocks) };
        }
        Known {
            attrs: self
                .attrs
                .iter()
                .filter(|(n, _)| self.admits(n, r))
                .map(|&(n, req)| (n, req || (id_required && n == "id")))
                .collect(),
            blocks: self.blocks.iter().filter(|(n, _)| self.admits(n, r)).copied().collect(),
        }
    }
}

const TYPE_NAME: &[&str] = &["type", "name"];
const TYPE: &[&str] = &["type"];
pub(super) const NONE: &[&str] = &[];

/// The engine's top level (`configFileSchema`), from the table of kinds: built once, and
/// kept for the whole run as the other schemas are.
pub(super) fn top(engine: Engine) -> &'static Schema {
    static TF: OnceLock<Schema> = OnceLock::new();
    static TOFU: OnceLock<Schema> = OnceLock::new();
    let cell = if engine == Engine::OpenTofu { &TOFU } else { &TF };
    cell.get_or_init(|| {
        let kinds = Kind::of_engine(engine);
        let blocks: Vec<BlockS> = kinds.iter().map(|k| (k.name, k.labels)).collect();
        let since: Vec<(&str, Feature)> =
            kinds.iter().filter_map(|k| Some((k.name, k.since?))).collect();
        Schema { attrs: &[], blocks: blocks.leak(), since: since.leak() }
    })
}

pub(super) const TF_TERRAFORM: Schema = Schema {
    attrs: &[("required_version", false), ("experiments", false), ("language", false)],
    blocks: &[
        ("backend", TYPE),
        ("cloud", NONE),
        ("required_providers", NONE),
        ("state_store", TYPE),
        ("provider_meta", &["provider"]),
    ],
    since: &[],
};

pub(super) const TOFU_TERRAFORM: Schema = Schema {
    attrs: &[("required_version", false), ("experiments", false), ("language", false)],
    blocks: &[
        ("backend", TYPE),
        ("cloud", NONE),
        ("required_providers", NONE),
        ("provider_meta", &["provider"]),
        ("encryption", NONE),
    ],
    since: &[],
};

pub(super) const TF_VARIABLE: Schema = Schema {
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
    since: &[
        ("ephemeral", F::EphemeralValues),
        ("deprecated", F::Deprecation),
        ("const", F::ConstVariables),
    ],
};

/// Terraform's arguments in OpenTofu's order: a misspelling two edits from two names is
/// offered the first, so each engine keeps its own order.
pub(super) const TOFU_VARIABLE: Schema = Schema {
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
    since: &[
        ("ephemeral", F::EphemeralValues),
        ("deprecated", F::Deprecation),
        ("const", F::ConstVariables),
    ],
};

pub(super) const TF_OUTPUT: Schema = Schema {
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
    since: &[
        ("ephemeral", F::EphemeralValues),
        ("deprecated", F::Deprecation),
        ("type", F::OutputType),
    ],
};

/// OpenTofu's outputs have no `type` argument.
pub(super) const TOFU_OUTPUT: Schema = Schema {
    attrs: &[
        ("description", false),
        ("value", true),
        ("depends_on", false),
        ("sensitive", false),
        ("ephemeral", false),
        ("deprecated", false),
    ],
    blocks: &[("precondition", NONE), ("postcondition", NONE)],
    since: &[("ephemeral", F::EphemeralValues), ("deprecated", F::Deprecation)],
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
    since: &[("ignore_nested_deprecations", F::Deprecation)],
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
    since: &[],
};

pub(super) const TF_PROVIDER: Schema = Schema {
    attrs: &[
        ("alias", false),
        ("version", false),
        ("count", false),
        ("depends_on", false),
        ("for_each", false),
        ("source", false),
    ],
    blocks: &[("_", NONE), ("lifecycle", NONE), ("locals", NONE)],
    since: &[],
};

const RESOURCE_ATTRS: &[(&str, bool)] =
    &[("count", false), ("for_each", false), ("provider", false), ("depends_on", false)];

pub(super) const RESOURCE: Schema = Schema {
    attrs: RESOURCE_ATTRS,
    blocks: &[
        ("locals", NONE),
        ("lifecycle", NONE),
        ("connection", NONE),
        ("provisioner", TYPE),
        ("_", NONE),
    ],
    since: &[],
};

/// `data` and `ephemeral` blocks.
pub(super) const DATA: Schema = Schema {
    attrs: RESOURCE_ATTRS,
    blocks: &[("lifecycle", NONE), ("locals", NONE), ("_", NONE)],
    since: &[],
};

pub(super) const TF_LIFECYCLE: Schema = Schema {
    attrs: &[
        ("create_before_destroy", false),
        ("prevent_destroy", false),
        ("ignore_changes", false),
        ("replace_triggered_by", false),
    ],
    blocks: &[("precondition", NONE), ("postcondition", NONE), ("action_trigger", NONE)],
    since: &[("action_trigger", F::ActionBlocks)],
};

pub(super) const TOFU_LIFECYCLE: Schema = Schema {
    attrs: &[
        ("create_before_destroy", false),
        ("prevent_destroy", false),
        ("destroy", false),
        ("ignore_changes", false),
        ("replace_triggered_by", false),
        ("enabled", false),
    ],
    blocks: &[("precondition", NONE), ("postcondition", NONE)],
    since: &[],
};

pub(super) const ACTION_TRIGGER: Schema = Schema {
    attrs: &[("events", true), ("condition", false), ("actions", true)],
    blocks: &[],
    since: &[],
};

pub(super) const ACTION: Schema = Schema {
    attrs: &[("count", false), ("for_each", false), ("provider", false)],
    blocks: &[("config", NONE)],
    since: &[],
};

pub(super) const PROVISIONER: Schema = Schema {
    attrs: &[("when", false), ("on_failure", false)],
    blocks: &[("_", NONE), ("connection", NONE), ("lifecycle", NONE)],
    since: &[],
};

pub(super) const CHECK_RULE: Schema =
    Schema { attrs: &[("condition", true), ("error_message", true)], blocks: &[], since: &[] };

pub(super) const CHECK: Schema =
    Schema { attrs: &[], blocks: &[("data", TYPE_NAME), ("assert", NONE)], since: &[] };

pub(super) const MOVED: Schema =
    Schema { attrs: &[("from", true), ("to", true)], blocks: &[], since: &[] };

/// A static, not a constant: [`Schema::at`] knows it by its address.
pub(super) static TF_IMPORT: Schema = Schema {
    attrs: &[
        ("provider", false),
        ("for_each", false),
        ("id", false),
        ("to", true),
        ("identity", false),
    ],
    blocks: &[],
    since: &[("for_each", F::ImportForEach), ("identity", F::ImportIdentity)],
};

/// A static, as [`TF_IMPORT`] is.
pub(super) static TOFU_IMPORT: Schema = Schema {
    attrs: &[
        ("provider", false),
        ("id", false),
        ("identity", false),
        ("to", true),
        ("for_each", false),
    ],
    blocks: &[],
    since: &[("for_each", F::ImportForEach), ("identity", F::ImportIdentity)],
};

pub(super) const TF_REMOVED: Schema = Schema {
    attrs: &[("from", true)],
    blocks: &[("lifecycle", NONE), ("connection", NONE), ("provisioner", TYPE)],
    since: &[("connection", F::RemovedProvisioners), ("provisioner", F::RemovedProvisioners)],
};

/// OpenTofu's `removed` blocks take no `connection` block of their own.
pub(super) const TOFU_REMOVED: Schema = Schema {
    attrs: &[("from", true)],
    blocks: &[("lifecycle", NONE), ("provisioner", TYPE)],
    since: &[("provisioner", F::RemovedProvisioners)],
};

pub(super) const REMOVED_LIFECYCLE: Schema =
    Schema { attrs: &[("destroy", false)], blocks: &[], since: &[] };

/// The names a variable may not have: the arguments and block types of a `module` block
/// (Terraform's own list, whichever engine: OpenTofu's module schema lacks only
/// `ignore_nested_deprecations`).
pub(super) fn module_schema(tofu: bool) -> &'static Schema {
    if tofu { &TOFU_MODULE } else { &TF_MODULE }
}
