//! Appending primary files (spec §2, §3): duplicate detection with Terraform's messages,
//! and the required-providers pre-pass that lets override entries apply first.

use std::collections::HashMap;

use super::{Module, decode};
use crate::diag::Diagnostic;
use crate::terraform::discover::Engine;
use crate::terraform::release::{Feature, Release};
use crate::terraform::schema::{Kind, Primary, Unique, fill};
use crate::terraform::{Block, Item, ParsedFile, Span};

/// Lookup tables from object address to its place in the module.
#[derive(Default)]
pub(super) struct State {
    /// `resource.T.N`, `data.T.N`, `variable.N`, `provider.P` or `provider.P.A`, … → index in `blocks`.
    pub index: HashMap<String, usize>,
    /// Data blocks nested in `check` blocks: address → (check block index, item index).
    pub nested_data: HashMap<String, (usize, usize)>,
    /// Local name → index in `locals`.
    pub locals: HashMap<String, usize>,
    /// Override variable blocks Terraform already rejected while decoding (by header span):
    /// the merge does not judge them again.
    pub rejected_variables: std::collections::HashSet<crate::terraform::Span>,
    /// Provider address → the local name and place of its provider_meta block.
    pub provider_metas: HashMap<String, (String, Span)>,
}

/// Spec §2 steps 1–3: the primary `required_providers` block, then every override entry.
pub(super) fn required_providers(
    m: &mut Module,
    primaries: &[&ParsedFile],
    overrides: &[&ParsedFile],
) {
    for f in primaries {
        for rp in required_providers_blocks(f, m.release) {
            match m.settings.required_providers_span {
                None => {
                    m.settings.required_providers_span = Some(rp.def_span);
                    m.settings.required_providers = rp.body.attrs().cloned().collect();
                }
                Some(first) => {
                    let first = m.files.decl_span(first);
                    m.diagnostics.push(
                    Diagnostic::error(
                        "Duplicate required providers configuration",
                        format!(
                            "A module may have only one required providers configuration. The required providers were previously configured at {}.",
                            m.files.range_string(first)
                        ),
                        rp.decl_span(&m.files),
                    )
                    .with_related(first, "first configured here"),
                    )
                }
            }
        }
    }
    for f in overrides {
        for rp in required_providers_blocks(f, m.release) {
            for entry in rp.body.attrs() {
                let list = &mut m.settings.required_providers;
                match list.iter_mut().find(|a| a.name == entry.name) {
                    Some(base) => *base = super::body::replaced_attr(base, entry),
                    None => list.push(entry.clone()),
                }
            }
        }
    }
}

/// The `required_providers` blocks of a file that the engine keeps (see
/// [`decode::kept_in_terraform`]): one it drops neither counts as a duplicate nor overrides.
fn required_providers_blocks(f: &ParsedFile, release: Release) -> impl Iterator<Item = &Block> {
    f.body
        .blocks()
        .filter(move |t| t.kind == "terraform" && decode::kept(release, t))
        .flat_map(|t| t.body.blocks_of("required_providers"))
        .filter(move |rp| decode::kept_in_terraform(release, rp))
}

/// Appends one primary file (spec §3).
pub(super) fn append_file(m: &mut Module, st: &mut State, f: &ParsedFile) {
    // Room for the file's blocks at once: a list grown by doubling holds up to twice its
    // blocks, and both the old and the new list while it grows.
    m.blocks.reserve(f.body.items.len());
    // What the file's decoding rejected (`decode`) is left out here.
    for b in f.body.blocks() {
        append_block(m, st, b);
    }
    storage_conflicts(m);
}

fn append_block(m: &mut Module, st: &mut State, b: &Block) {
    let tofu = m.engine == Engine::OpenTofu;
    if !decode::kept(m.release, b) {
        return;
    }
    let Some(kind) = Kind::named(&b.kind) else { return };
    match kind.primary {
        Primary::Settings => append_terraform(m, st, b),
        Primary::Locals => {
            m.locals.reserve(b.body.items.len());
            st.locals.reserve(b.body.items.len());
            for a in b.body.attrs() {
                if let Some(&i) = st.locals.get(&a.name) {
                    let prev = m.locals[i].span;
                    m.diagnostics.push(duplicate("Duplicate local value definition",
                        format!("A local value named \"{}\" was already defined at {}. Local value names must be unique within a module.", a.name, m.files.range_string(prev)),
                        a.span,
                        prev,
                    ));
                    m.locals[i] = a.clone();
                } else {
                    st.locals.insert(a.name.clone(), m.locals.len());
                    m.locals.push(a.clone());
                }
            }
        }
        Primary::Unique(_) | Primary::Provider => {
            let Some(addr) = b.address() else { return };
            // Data blocks nested in this check, registered once the check's place in the
            // module is known (a duplicate check may be dropped, or replace another).
            let mut nested = Vec::new();
            if let Primary::Unique(Unique { nests_data: true, .. }) = kind.primary {
                for (j, inner) in b.body.items.iter().enumerate() {
                    if let Item::Block(d) = inner
                        && d.kind == "data"
                        && d.labels.len() == 2
                        && decode::nested_data_decodes(&m.files, m.release, d)
                    {
                        let key = format!("data.{}.{}", d.labels[0], d.labels[1]);
                        if let Some(prev) = declared_span(m, st, &key) {
                            m.diagnostics.push(duplicate(&format!("Duplicate data \"{}\" configuration", d.labels[0]),
                                    format!("A {} data resource named \"{}\" was already declared at {}. Resource names must be unique per type in each module, including within check blocks.", d.labels[0], d.labels[1], m.files.range_string(prev)),
                                    d.decl_span(&m.files),
                                    prev,
                                ));
                        } else {
                            nested.push((key, j));
                        }
                    }
                }
            }
            let stored = match declared_span(m, st, &addr) {
                None => {
                    st.index.insert(addr, m.blocks.len());
                    m.blocks.push(b.clone());
                    Some(m.blocks.len() - 1)
                }
                Some(prev) => {
                    let (summary, detail, last_wins) = duplicate_text(m, kind, b, prev, tofu);
                    m.diagnostics.push(duplicate(&summary, detail, b.decl_span(&m.files), prev));
                    match st.index.get(&addr) {
                        Some(&i) if last_wins => {
                            m.blocks[i] = b.clone();
                            Some(i)
                        }
                        _ => None,
                    }
                }
            };
            if let Some(i) = stored {
                // A replaced check takes its nested data blocks with it.
                st.nested_data.retain(|_, (c, _)| *c != i);
                for (key, j) in nested {
                    st.nested_data.insert(key, (i, j));
                }
            }
        }
        Primary::Import => {
            duplicate_import(m, b);
            m.blocks.push(b.clone());
        }
        Primary::Listed => m.blocks.push(b.clone()),
        Primary::Dropped => {}
    }
}

/// Where the block of this address was declared: at top level, or (a data block) inside
/// a check, whose nested blocks are the only ones registered by address.
fn declared_span(m: &Module, st: &State, key: &str) -> Option<Span> {
    if let Some(&i) = st.index.get(key) {
        return Some(m.blocks[i].decl_span(&m.files));
    }
    st.nested_data.get(key).and_then(|&(c, j)| {
        match m.blocks.get(c).and_then(|b| b.body.items.get(j)) {
            Some(Item::Block(d)) => Some(d.decl_span(&m.files)),
            _ => None,
        }
    })
}

fn duplicate(summary: &str, detail: String, subject: Span, prev: Span) -> Diagnostic {
    Diagnostic::error(summary, detail, subject).with_related(prev, "previously declared here")
}

/// Summary, detail and whether the later declaration replaces the earlier (spec §3 table).
fn duplicate_text(
    m: &Module,
    kind: &Kind,
    b: &Block,
    prev: Span,
    tofu: bool,
) -> (String, String, bool) {
    let at = m.files.range_string(prev);
    let l = &b.labels;
    if let Primary::Unique(u) = kind.primary {
        let summary = u.tofu_summary.filter(|_| tofu).unwrap_or(u.summary);
        return (fill(summary, l, &at), fill(u.detail, l, &at), u.last_wins);
    }
    let detail = match b.provider_alias() {
        Some(alias) => format!(
            "A provider configuration for \"{}\" with alias \"{alias}\" was already given at {at}. Each configuration for the same provider must have a distinct alias.",
            l[0]
        ),
        None => format!(
            "A default (non-aliased) provider configuration for \"{}\" was already given at {at}. If multiple configurations are required, set the \"alias\" argument for alternative configurations.",
            l[0]
        ),
    };
    ("Duplicate provider configuration".into(), detail, false)
}

fn append_terraform(m: &mut Module, st: &mut State, t: &Block) {
    let tofu = m.engine == Engine::OpenTofu;
    let tofu_files_only = m.release.has(Feature::TofuFileVersions);
    for item in t.body.items.iter() {
        match item {
            Item::Attr(a) if a.name == "required_version" => {
                if !tofu_files_only || super::module::tofu_file(m, a.span.file) {
                    m.settings.required_version.push(a.clone());
                } else {
                    m.settings.unread_versions.push(a.clone());
                }
            }
            Item::Block(b) if b.kind == "required_providers" => {}
            Item::Block(b) if b.kind == "state_store" => {}
            // Label-less `backend`, labelled `cloud`: Terraform reports and drops them.
            Item::Block(b)
                if matches!(b.kind.as_str(), "backend" | "cloud")
                    && !decode::kept_in_terraform(m.release, b) => {}
            Item::Block(b) if b.kind == "encryption" && tofu => match &m.settings.encryption {
                None => m.settings.encryption = Some(b.clone()),
                Some(prev) => {
                    let at = m.files.range_string(prev.decl_span(&m.files));
                    m.diagnostics.push(
                        Diagnostic::error(
                            "Duplicate encryption configuration",
                            format!("A module may have only one encryption configuration. Encryption was previously configured at {at}."),
                            b.decl_span(&m.files),
                        )
                        .with_related(prev.decl_span(&m.files), "previously configured here"),
                    );
                }
            },
            Item::Block(b) if matches!(b.kind.as_str(), "backend" | "cloud") => {
                let slot = match b.kind.as_str() {
                    "backend" => &m.settings.backend,
                    "cloud" => &m.settings.cloud,
                    _ => &m.settings.state_store,
                };
                match slot {
                    None => {
                        let b = b.clone();
                        match b.kind.as_str() {
                            "backend" => m.settings.backend = Some(b),
                            "cloud" => m.settings.cloud = Some(b),
                            _ => m.settings.state_store = Some(b),
                        }
                    }
                    Some(prev) => {
                        let at = m.files.range_string(prev.decl_span(&m.files));
                        let old = tofu || !m.release.has(Feature::StateStorageWording);
                        let (summary, detail) = match (b.kind.as_str(), old) {
                            ("backend", false) => (
                                "Duplicate 'backend' configuration block".to_string(),
                                format!(
                                    "A module may have only one 'backend' configuration block. The backend was previously configured at {at}."
                                ),
                            ),
                            ("backend", true) => (
                                "Duplicate backend configuration".to_string(),
                                format!(
                                    "A module may have only one backend configuration. The backend was previously configured at {at}."
                                ),
                            ),
                            ("cloud", _) => duplicate_cloud(&at, m.release),
                            _ => (
                                "Duplicate 'state_store' configuration block".to_string(),
                                format!(
                                    "A module may have only one 'state_store' configuration block. The state store was previously configured at {at}."
                                ),
                            ),
                        };
                        let d = Diagnostic::error(summary, detail, b.decl_span(&m.files))
                            .with_related(prev.decl_span(&m.files), "previously configured here");
                        m.diagnostics.push(d);
                    }
                }
            }
            Item::Block(b) if b.kind == "provider_meta" => {
                provider_meta(m, st, b);
                m.settings.other.push(item.clone());
            }
            other => m.settings.other.push(other.clone()),
        }
    }
}

/// `appendFile`'s provider_meta rule: one block per provider (by its address, so two local
/// names of one provider clash), counting only blocks that decoded (`decodeProviderMetaBlock`:
/// a body of arguments, a normalized name).
fn provider_meta(m: &mut Module, st: &mut State, b: &Block) {
    let Some(name) = b.labels.first().filter(|_| b.labels.len() == 1) else { return };
    let json = m.files.get(b.span.file).syntax == crate::terraform::Syntax::Json;
    if !json && b.body.blocks().next().is_some() {
        return;
    }
    if super::decode::provider_part(name).ok().as_deref() != Some(name.as_str()) {
        return;
    }
    let source = m.settings.required_providers.iter().find(|a| a.name == *name).and_then(|a| {
        a.expr.as_object()?.iter().find_map(|(k, v)| match k {
            crate::terraform::ObjKey::Name(n) if n == "source" => v.as_str(),
            _ => None,
        })
    });
    let address = match source.as_deref().map(super::decode::provider_source) {
        Some(Ok((host, ns, ty))) => {
            let ns = if ns.is_empty() { "hashicorp".to_string() } else { ns };
            format!("{host}/{ns}/{ty}")
        }
        _ => format!("registry.terraform.io/hashicorp/{name}"),
    };
    let here = b.decl_span(&m.files);
    if let Some((first, at)) = st.provider_metas.get(&address) {
        m.diagnostics.push(
            Diagnostic::error(
                "Duplicate provider_meta block",
                format!(
                    "A provider_meta block for provider \"{first}\" was already declared at {}. Providers may only have one provider_meta block per module.",
                    m.files.range_string(*at)
                ),
                here,
            )
            .with_related(*at, "first declared here"),
        );
    }
    st.provider_metas.insert(address, (name.clone(), here));
}

/// A second `cloud` block, in primary files or in one override file (same texts).
pub(super) fn duplicate_cloud(at: &str, release: Release) -> (String, String) {
    if release.engine == Engine::OpenTofu {
        (
            "Duplicate cloud configurations".into(),
            format!(
                "A module may have only one 'cloud' block configuring a cloud backend. A cloud backend was previously configured at {at}."
            ),
        )
    } else if !release.has(Feature::HcpTerraformWording) {
        (
            "Duplicate Terraform Cloud configurations".into(),
            format!(
                "A module may have only one 'cloud' block configuring Terraform Cloud. Terraform Cloud was previously configured at {at}."
            ),
        )
    } else {
        (
            "Duplicate HCP Terraform configurations".into(),
            format!(
                "A module may have only one 'cloud' block configuring HCP Terraform or Terraform Enterprise. The 'cloud' block was previously configured at {at}."
            ),
        )
    }
}

/// After every primary file: backend, cloud and state_store exclude each other. Each
/// conflict's wording names two of the blocks' places (`{}` in its detail, in that order)
/// and points at one of them.
fn storage_conflicts(m: &mut Module) {
    let s = &m.settings;
    let (b, c, ss) = (s.backend.as_ref(), s.cloud.as_ref(), s.state_store.as_ref());
    let tofu = m.engine == Engine::OpenTofu;
    let (summary, detail, named, at) = match (b, c, ss) {
        (Some(b), Some(c), None) if tofu => (
            "Both a backend and a cloud configuration are present",
            "A module may declare either one 'cloud' block configuring a cloud backend OR one 'backend' block configuring a state backend. A cloud backend is configured at {}; a backend is configured at {}. Remove the backend block to configure a cloud backend.",
            [c, b],
            b,
        ),
        (Some(b), Some(c), None) if !m.release.has(Feature::HcpTerraformWording) => (
            "Both a backend and Terraform Cloud configuration are present",
            "A module may declare either one 'cloud' block configuring Terraform Cloud OR one 'backend' block configuring a state backend. Terraform Cloud is configured at {}; a backend is configured at {}. Remove the backend block to configure Terraform Cloud.",
            [c, b],
            b,
        ),
        // (`Enteprise` is Terraform's spelling until 1.13.)
        (Some(b), Some(c), None) if !m.release.has(Feature::StateStorageWording) => (
            "Both a backend and cloud configuration are present",
            "A module may declare either one 'cloud' block OR one 'backend' block configuring a state backend. The 'cloud' block is configured at {}; a backend is configured at {}. Remove the backend block to configure HCP Terraform or Terraform Enteprise.",
            [c, b],
            b,
        ),
        (Some(b), Some(c), None) => (
            "Conflicting 'cloud' and 'backend' configuration blocks are present",
            "A module may declare either one 'cloud' block OR one 'backend' block for configuring state storage. The 'cloud' block is configured at {}; a 'backend' is configured at {}. Remove the 'backend' block to configure HCP Terraform or Terraform Enterprise.",
            [c, b],
            b,
        ),
        (None, Some(c), Some(ss)) => (
            "Conflicting 'cloud' and 'state_store' configuration blocks are present",
            "When using HCP Terraform, only one 'cloud' block is allowed. The 'cloud' block is configured at {}, and a 'state_store' block is also configured at {}. Remove the state_store block to configure HCP Terraform.",
            [c, ss],
            ss,
        ),
        (Some(b), None, Some(ss)) => (
            "Conflicting 'state_store' and 'backend' configuration blocks are present",
            "A module may declare either one 'state_store' block or one 'backend' block. The 'state_store' block is configured at {}, and a 'backend' block is also configured at {}.",
            [ss, b],
            b,
        ),
        (Some(b), Some(_), Some(_)) => (
            "Only one of 'cloud', 'state_store', or 'backend' configuration blocks are allowed",
            "A module may declare only one of a 'cloud' block, a 'state_store' block, or a 'backend' block.",
            [b, b],
            b,
        ),
        _ => return,
    };
    // Split, not replaced in turn: a path may hold `{}` itself.
    let mut parts = detail.split("{}");
    let mut text = parts.next().unwrap_or_default().to_string();
    for (part, place) in parts.zip(named) {
        text.push_str(&m.files.range_string(place.decl_span(&m.files)));
        text.push_str(part);
    }
    let d = Diagnostic::error(summary, text, at.decl_span(&m.files));
    m.diagnostics.push(d);
}

/// Two import blocks of the primary files for the same resource instance, when both
/// addresses are static (`appendFile`). Before `for_each` the error is the block's.
fn duplicate_import(m: &mut Module, b: &Block) {
    // Before for_each a `to` that is no resource instance is the zero address, which
    // every other such `to` equals.
    let zero = !m.release.has(Feature::ImportForEach);
    let address = |e| {
        super::decode::static_resource_instance(e)
            .or_else(|| zero.then(|| ("<invalid>..".to_string(), "<invalid>..".to_string())))
    };
    let Some(to) = b.attr("to") else { return };
    let Some((mine, resource)) = address(&to.expr) else { return };
    // Terraform 1.6 names the instance, key and all.
    let resource = if zero { mine.clone() } else { resource };
    let earlier: Vec<Span> = m
        .blocks
        .iter()
        .filter(|o| o.kind == "import")
        .filter(|o| {
            o.attr("to").and_then(|t| address(&t.expr)).is_some_and(|(other, _)| other == mine)
        })
        .map(|o| o.decl_span(&m.files))
        .collect();
    for prev in earlier {
        m.diagnostics.push(Diagnostic::error(
            format!("Duplicate import configuration for \"{resource}\""),
            format!(
                "An import block for the resource \"{resource}\" was already declared at {}. A resource can have only one import block.",
                m.files.range_string(prev)
            ),
            if m.release.has(Feature::ImportForEach) { to.expr.span } else { b.decl_span(&m.files) },
        ));
    }
}
