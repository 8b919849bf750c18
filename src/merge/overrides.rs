//! Merging one override file (spec §4, §5): the missing-base errors, the per-kind rules,
//! and the override-only decode errors. Kinds are processed in Terraform's `mergeFile`
//! order so diagnostics come out in the same order.

use super::body::{merge_body, replaced_attr};
use super::module::tofu_file;
use super::primaries::State;
use super::{Ignored, Module, decode, variables};
use crate::diag::Diagnostic;
use crate::terraform::discover::Engine;
use crate::terraform::release::{Feature, Release};
use crate::terraform::schema::{Kind, MERGE_ORDER, Merger, Overridden, fill};
use crate::terraform::{Attr, Block, Item, JsonValue, ParsedFile};

pub(super) fn merge_file(m: &mut Module, st: &mut State, f: &ParsedFile) {
    let tofu = m.engine == Engine::OpenTofu;
    rejected_variables(st, f);
    merge_terraform(m, f);
    for kind in MERGE_ORDER.iter().filter_map(|n| Kind::named(n)) {
        for item in f.body.items.iter() {
            let Item::Block(o) = item else { continue };
            if o.kind != kind.name {
                continue;
            }
            if !decode::kept(m.release, o) {
                // In the schema, decoded only with experiments: a release build drops it.
                if let Some((_, what)) = kind.decoded
                    && kind.in_schema(m.release)
                    && o.labels.len() == kind.labels.len()
                {
                    ignore(m, o.def_span, what);
                }
                continue;
            }
            if let Some(what) = kind.terraform_ignores.filter(|_| !tofu) {
                ignore(m, o.def_span, what);
                continue;
            }
            match kind.overridden {
                Overridden::Locals => merge_locals(m, st, o),
                Overridden::Provider => merge_provider(m, st, o),
                Overridden::Refused(summary, detail) => {
                    m.diagnostics.push(Diagnostic::error(summary, detail, o.decl_span(&m.files)))
                }
                Overridden::Object { merger, missing } => merge_object(m, st, o, merger, missing),
                Overridden::Settings | Overridden::Nothing => {}
            }
        }
    }
}

/// A JSON `null` or `[]` where the original writes nested blocks of that name is zero
/// blocks, which do not mark the type as overridden: the original's blocks stay (spec §6).
fn ignore_zero_blocks(m: &mut Module, base: &Block, o: &Block) {
    for i in o.body.items.iter() {
        let Item::Json(j) = i else { continue };
        let empty = match &j.value.value {
            JsonValue::Null => Some("null"),
            JsonValue::Array(v) if v.is_empty() => Some("[]"),
            _ => None,
        };
        let blocks =
            base.body.items.iter().any(|b| matches!(b, Item::Block(_)) && b.merge_name() == j.name);
        if let Some(v) = empty
            && blocks
            && base.body.attr(&j.name).is_none()
        {
            let what = format!(
                "\"{}\": {v} in JSON is zero blocks, which Terraform ignores: the original's blocks stay",
                j.name
            );
            ignore(m, j.span, &what);
        }
    }
}

fn ignore(m: &mut Module, span: crate::terraform::Span, what: &str) {
    m.ignored.push(Ignored { span, what: what.to_string(), label: "has no effect" });
}

/// Override variables whose decoding already failed (reported by `decode`): the merge
/// does not judge them again.
fn rejected_variables(st: &mut State, f: &ParsedFile) {
    for o in f.body.blocks_of("variable") {
        if !variables::variable_errors(o, true, variables::parsed_cleanly(f)).is_empty() {
            st.rejected_variables.insert(o.def_span);
        }
    }
}

/// `terraform` blocks of an override file (spec §5.11).
fn merge_terraform(m: &mut Module, f: &ParsedFile) {
    let tofu = m.engine == Engine::OpenTofu;
    let tblocks: Vec<&Block> =
        f.body.blocks_of("terraform").filter(|t| decode::kept(m.release, t)).collect();
    if tblocks.is_empty() {
        return;
    }
    let versions: Vec<Attr> =
        tblocks.iter().filter_map(|t| t.attr("required_version").cloned()).collect();
    if !versions.is_empty() {
        if m.release.has(Feature::TofuFileVersions) {
            if tofu_file(m, f.file) {
                m.settings.required_version.extend(versions);
            } else {
                for v in versions {
                    ignore(m, v.span, "OpenTofu ignores required_version outside .tofu files");
                }
            }
        } else {
            let old: Vec<_> = m.settings.required_version.iter().map(|a| a.span).collect();
            m.settings.required_version = versions
                .into_iter()
                .map(|mut a| {
                    a.displaced = old.clone();
                    a
                })
                .collect();
        }
    }
    for kind in STATE_KINDS {
        match state_blocks(&tblocks, kind, m.release).as_slice() {
            [] => {}
            [one] => {
                let s = &mut m.settings;
                let mut new = (*one).clone();
                new.displaced = [s.backend.take(), s.cloud.take(), s.state_store.take()]
                    .into_iter()
                    .flatten()
                    .map(|b| b.span)
                    .collect();
                match kind {
                    "backend" => s.backend = Some(new),
                    "cloud" => s.cloud = Some(new),
                    _ => s.state_store = Some(new),
                }
            }
            [first, second, ..] => {
                let at = m.files.range_string(first.decl_span(&m.files));
                let (summary, detail) = match (kind, tofu) {
                    ("backend", _) => (
                        "Duplicate backend configuration".to_string(),
                        format!(
                            "Each override file may have only one backend configuration. A backend was previously configured at {at}."
                        ),
                    ),
                    _ => super::primaries::duplicate_cloud(&at, m.release),
                };
                m.diagnostics.push(
                    Diagnostic::error(summary, detail, second.decl_span(&m.files))
                        .with_related(first.decl_span(&m.files), "first configured here"),
                );
            }
        }
    }
    if tofu {
        let found: Vec<&Block> =
            tblocks.iter().flat_map(|t| t.body.blocks_of("encryption")).collect();
        match found.as_slice() {
            [] => {}
            [one] => {
                let base = m.settings.encryption.take();
                let merged = super::encryption::merge(m, base, one);
                m.settings.encryption = Some(merged);
            }
            // Several in one override file: none is merged.
            [first, second, ..] => {
                let at = m.files.range_string(first.decl_span(&m.files));
                m.diagnostics.push(
                    Diagnostic::error(
                        "Duplicate encryption configuration",
                        format!("Each override file may have only one encryption configuration. Encryption was previously configured at {at}."),
                        second.decl_span(&m.files),
                    )
                    .with_related(first.decl_span(&m.files), "first configured here"),
                );
            }
        }
    }
    for t in &tblocks {
        for item in t.body.items.iter() {
            match item {
                Item::Block(b) if b.kind == "provider_meta" => {
                    ignore(m, b.def_span, "provider_meta blocks in override files are ignored")
                }
                Item::Attr(a) if a.name == "experiments" && tofu => {
                    ignore(m, a.span, "experiments in override files are never activated")
                }
                _ => {}
            }
        }
    }
}

/// The kinds of state storage an override file may set, in the order Terraform's
/// `mergeFile` applies them. Without experiments (never on in a release build) Terraform
/// has no `state_store` block.
/// The kinds of state storage an override file may set. Without experiments (never on in a
/// release build) Terraform has no `state_store` block.
const STATE_KINDS: [&str; 2] = ["backend", "cloud"];

/// The blocks of one kind in an override file's `terraform` blocks: exactly one replaces
/// the module's state storage; two or more are an error, and none of them applies
/// (spec §5.11).
/// Only blocks the engine keeps once decoded count (a label-less `backend` is dropped).
fn state_blocks<'a>(tblocks: &[&'a Block], kind: &'static str, release: Release) -> Vec<&'a Block> {
    tblocks
        .iter()
        .flat_map(|t| t.body.blocks_of(kind))
        .filter(|b| decode::kept_in_terraform(release, b))
        .collect()
}

/// The state storage block of an override file that Terraform applies, if any: of the
/// kinds written exactly once, the last applied (a `cloud` after a `backend` of the same
/// file replaces it). A block this does not return changes nothing.
pub(crate) fn applied_state(f: &ParsedFile, release: Release) -> Option<&Block> {
    let tblocks: Vec<&Block> = f.body.blocks_of("terraform").collect();
    STATE_KINDS.iter().rev().find_map(|kind| {
        match state_blocks(&tblocks, kind, release).as_slice() {
            [one] => Some(*one),
            _ => None,
        }
    })
}

fn merge_locals(m: &mut Module, st: &mut State, o: &Block) {
    for a in o.body.attrs() {
        match st.locals.get(&a.name) {
            Some(&i) => {
                let merged = replaced_attr(&m.locals[i], a);
                m.locals[i] = merged;
            }
            None => m.diagnostics.push(Diagnostic::error(
                "Missing base local value definition to override",
                format!("There is no local value named \"{}\". An override file can only override a local value that was already defined in a primary configuration file.", a.name),
                a.span,
            )),
        }
    }
}

fn merge_provider(m: &mut Module, st: &mut State, o: &Block) {
    let Some(addr) = o.address() else { return };
    match st.index.get(&addr) {
        Some(&i) => {
            let mut base = m.blocks[i].clone();
            ignore_zero_blocks(m, &base, o);
            // OpenTofu decodes a provider's `for_each` apart from its configuration, and
            // merges only the configuration: the original's instances stay.
            let for_each = m.release.has(Feature::ProviderForEach);
            if let Some(a) = o.attr("for_each").filter(|_| for_each) {
                ignore(m, a.span, "OpenTofu does not merge a provider's for_each from override files: the original's instances stay");
            }
            let skip: &[&str] = if for_each { &["alias", "for_each"] } else { &["alias"] };
            merge_body(&mut base.body, &o.body, skip, &[]);
            if base == m.blocks[i] {
                m.unchanging.push(o.def_span);
            } else {
                base.displaced.push(o.def_span);
                m.blocks[i] = base;
            }
        }
        None => match o.provider_alias() {
            None => {
                st.index.insert(addr, m.blocks.len());
                m.blocks.push(o.clone());
            }
            Some(alias) => m.diagnostics.push(Diagnostic::error(
                "Missing base provider configuration for override",
                format!("There is no {} provider configuration with the alias \"{alias}\". An override file can only override an aliased provider configuration that was already defined in a primary configuration file.", o.labels[0]),
                o.decl_span(&m.files),
            )),
        },
    }
}

/// A block merged into the primary block of its address (resource, data, ephemeral in
/// OpenTofu, action, variable, output, module).
fn merge_object(
    m: &mut Module,
    st: &mut State,
    o: &Block,
    merger: Merger,
    (summary, detail): (&str, &str),
) {
    let Some(addr) = o.address() else { return };
    // Data blocks nested in checks are registered by address too.
    let target = match st.index.get(&addr) {
        Some(&i) => Some((i, None)),
        None => st.nested_data.get(&addr).map(|&(c, j)| (c, Some(j))),
    };
    let Some((i, nested)) = target else {
        m.diagnostics.push(Diagnostic::error(
            summary,
            fill(detail, &o.labels, ""),
            o.decl_span(&m.files),
        ));
        return;
    };
    // The indexes come from the append step; a stale one is a bug, never a panic.
    let Some(block) = m.blocks.get(i) else { return };
    let mut base = match nested {
        None => block.clone(),
        Some(j) => match block.body.items.get(j) {
            Some(Item::Block(d)) if d.kind == o.kind => d.clone(),
            _ => return,
        },
    };
    // Cheap: the bodies are shared until the merge writes to them.
    let before = base.clone();
    match merger {
        Merger::Variable => {
            let rejected = st.rejected_variables.contains(&o.def_span);
            merge_variable(m, &mut base, o, rejected)
        }
        Merger::Output => merge_output(m, &mut base, o),
        Merger::Module => merge_module(m, &mut base, o),
        Merger::Resource => merge_resource(m, &mut base, o),
    }
    if base == before {
        m.unchanging.push(o.def_span);
        return;
    }
    base.displaced.push(o.def_span);
    match nested {
        None => m.blocks[i] = base,
        Some(j) => m.blocks[i].body.items_mut()[j] = Item::Block(base),
    }
}

/// `depends_on` may not be overridden, unless it holds no reference Terraform keeps
/// (spec §5.2): the error points at the first it keeps.
fn check_depends_on(m: &mut Module, o: &Block) {
    if let Some(d) = o.attr("depends_on") {
        let actions = m.release.has(Feature::Actions);
        match super::decode::depends_on(&m.files, d, actions).0.first() {
            Some(&span) => m.diagnostics.push(Diagnostic::error(
                "Unsupported override",
                "The depends_on argument may not be overridden.",
                span,
            )),
            None if d.expr.as_tuple().is_some_and(<[_]>::is_empty) => {
                ignore(m, d.span, "depends_on = [] in an override changes nothing")
            }
            None => {}
        }
    }
}

fn merge_resource(m: &mut Module, base: &mut Block, o: &Block) {
    check_depends_on(m, o);
    ignore_zero_blocks(m, base, o);
    merge_body(&mut base.body, &o.body, &["depends_on"], &["lifecycle"]);
    for lc in o.body.blocks_of("lifecycle") {
        merge_lifecycle(m, base, lc);
    }
}

/// Lifecycle arguments merge one by one (spec §5.2).
fn merge_lifecycle(m: &mut Module, base: &mut Block, o: &Block) {
    let tofu = m.engine == Engine::OpenTofu;
    let pos =
        base.body.items.iter().position(|i| matches!(i, Item::Block(b) if b.kind == "lifecycle"));
    let mut lc = match pos {
        Some(p) => match &base.body.items[p] {
            Item::Block(b) => b.clone(),
            _ => return,
        },
        None => Block { body: Default::default(), displaced: Vec::new(), ..o.clone() },
    };
    let mut triggers = Vec::new();
    for item in o.body.items.iter() {
        match item {
            Item::Attr(a) => match a.name.as_str() {
                "create_before_destroy" | "prevent_destroy" => set_attr(&mut lc, a),
                "destroy" if tofu => set_attr(&mut lc, a),
                "ignore_changes" => {
                    let all = lc
                        .attr("ignore_changes")
                        .filter(|b| b.expr.as_keyword() == Some("all"))
                        .map(|b| b.span);
                    let is_all = a.expr.as_keyword() == Some("all");
                    let empty = a.expr.as_tuple().is_some_and(<[_]>::is_empty);
                    if empty {
                        ignore(m, a.span, "an empty ignore_changes in an override changes nothing");
                    } else if let Some(at) = all.filter(|_| !is_all) {
                        // Set by the original, or by an earlier override file.
                        let what = if m.from_override(at) {
                            let by = m.files.get(at.file).name();
                            format!("ignore_changes = all set by {by} stays in force")
                        } else {
                            "ignore_changes = all in the original stays in force".to_string()
                        };
                        ignore(m, a.span, &what);
                    } else {
                        set_attr(&mut lc, a);
                    }
                }
                other => ignore(
                    m,
                    a.span,
                    &format!("lifecycle argument {other} is not merged from override files"),
                ),
            },
            Item::Block(b) if b.kind == "action_trigger" && !tofu => triggers.push(b.clone()),
            _ => {}
        }
    }
    if !triggers.is_empty() {
        lc.body.items_mut().retain(|i| !matches!(i, Item::Block(b) if b.kind == "action_trigger"));
        lc.body.items_mut().extend(triggers.into_iter().map(Item::Block));
    }
    match pos {
        Some(p) => base.body.items_mut()[p] = Item::Block(lc),
        None if !lc.body.items.is_empty() => base.body.items_mut().push(Item::Block(lc)),
        None => {}
    }
}

fn set_attr(b: &mut Block, a: &Attr) {
    match b.body.items_mut().iter_mut().find(|i| matches!(i, Item::Attr(x) if x.name == a.name)) {
        Some(Item::Attr(x)) => *x = replaced_attr(x, a),
        _ => b.body.items_mut().push(Item::Attr(a.clone())),
    }
}

fn merge_variable(m: &mut Module, base: &mut Block, o: &Block, rejected: bool) {
    let tofu = m.engine == Engine::OpenTofu;
    let original = base.clone();
    for a in o.body.attrs() {
        match a.name.as_str() {
            "description" | "sensitive" | "ephemeral" | "const" | "nullable" | "default"
            | "type" => set_attr(base, a),
            "deprecated" if tofu && a.expr.as_str().is_some_and(|s| !s.is_empty()) => {
                set_attr(base, a)
            }
            _ => ignore(
                m,
                a.span,
                &format!("variable argument {} is not merged from override files", a.name),
            ),
        }
    }
    // An override Terraform already rejected while decoding is not judged again.
    if !rejected {
        variables::check_variable(m, base, o, &original);
    }
    // Terraform copies an override's type but not its optional-attribute defaults (spec
    // §5.6): values of this variable get none, which no single variable block can say.
    if let Some(t) = o.attr("type")
        && let Ok(spec) = variables::type_spec(t)
        && let Some(defaults) = &spec.defaults
    {
        let paths = defaults.paths();
        if !paths.is_empty() {
            let (them, stay) = if paths.len() == 1 { ("it", "stays") } else { ("them", "stay") };
            m.ignored.push(Ignored {
                span: t.span,
                what: format!(
                    "the optional() defaults of a type set in an override file are not applied: {} {stay} null unless a value sets {them}",
                    crate::diag::list(&paths),
                ),
                label: "its optional() defaults have no effect",
            });
        }
    }
}

fn merge_output(m: &mut Module, base: &mut Block, o: &Block) {
    let tofu = m.engine == Engine::OpenTofu;
    check_depends_on(m, o);
    for a in o.body.attrs() {
        match a.name.as_str() {
            "value" | "sensitive" | "ephemeral" => set_attr(base, a),
            "type" if !tofu => set_attr(base, a),
            "description" if a.expr.as_str().is_none_or(|s| !s.is_empty()) => set_attr(base, a),
            "description" => {
                ignore(m, a.span, "description = \"\" cannot clear an output's description")
            }
            "deprecated" if tofu && a.expr.as_str().is_some_and(|s| !s.is_empty()) => {
                set_attr(base, a)
            }
            "depends_on" => {}
            _ => ignore(
                m,
                a.span,
                &format!("output argument {} is not merged from override files", a.name),
            ),
        }
    }
}

fn merge_module(m: &mut Module, base: &mut Block, o: &Block) {
    check_depends_on(m, o);
    let providers = o.attr("providers");
    ignore_zero_blocks(m, base, o);
    // Before Terraform 1.15 `ignore_nested_deprecations` is one more input of the called
    // module, merged as any (OpenTofu is left as it was modelled).
    let meta = m.engine == Engine::OpenTofu || m.release.has(Feature::Deprecation);
    let kept: &[&str] = if meta {
        &["depends_on", "providers", "ignore_nested_deprecations"]
    } else {
        &["depends_on", "providers"]
    };
    merge_body(&mut base.body, &o.body, kept, &["lifecycle"]);
    if let Some(p) = providers {
        if p.expr.as_object().is_none_or(|e| !e.is_empty()) {
            set_attr(base, p);
        } else {
            ignore(m, p.span, "an empty providers map in an override changes nothing");
        }
    }
    if let Some(a) = o.attr("ignore_nested_deprecations").filter(|_| meta) {
        ignore(m, a.span, "ignore_nested_deprecations is not merged from override files");
    }
}
