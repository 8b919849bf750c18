//! Which release of Terraform or OpenTofu a module is judged for. The loader changes with
//! almost every release (which blocks an override file may hold, which it merges, ignores
//! or rejects, and in which words), so the release is an input of the whole tool, named as
//! teams name it: `terraform@1.9` (a minor means its newest modelled patch),
//! `terraform@1.15.5`, `opentofu@1.10`, or the engine alone (its newest modelled release).

use std::fmt;

use super::discover::Engine;

/// A release number. Pre-release suffixes are not modelled: `1.15.0-beta1` is refused by
/// [`Release::parse`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub struct Version {
    pub major: u32,
    pub minor: u32,
    pub patch: u32,
}

impl Version {
    pub const fn new(major: u32, minor: u32, patch: u32) -> Version {
        Version { major, minor, patch }
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// An engine and its release.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Release {
    pub engine: Engine,
    pub version: Version,
}

/// The newest patch modelled of each minor: for Terraform the releases whose loader was
/// run (1.7.5 is read: its loader is 1.7.0's), for OpenTofu the minors whose sources and
/// tests were read at their tags, each standing for every patch of its minor (OpenTofu
/// changes the loader only in minors), so its patch is written as 0 and any is admitted.
const MODELLED: &[(Engine, Version)] = &[
    (Engine::Terraform, Version::new(1, 6, 6)),
    (Engine::Terraform, Version::new(1, 7, 5)),
    (Engine::Terraform, Version::new(1, 8, 5)),
    (Engine::Terraform, Version::new(1, 9, 8)),
    (Engine::Terraform, Version::new(1, 10, 5)),
    (Engine::Terraform, Version::new(1, 11, 4)),
    (Engine::Terraform, Version::new(1, 12, 2)),
    (Engine::Terraform, Version::new(1, 13, 5)),
    (Engine::Terraform, Version::new(1, 14, 9)),
    (Engine::Terraform, Version::new(1, 15, 5)),
    (Engine::OpenTofu, Version::new(1, 6, 0)),
    (Engine::OpenTofu, Version::new(1, 7, 0)),
    (Engine::OpenTofu, Version::new(1, 8, 0)),
    (Engine::OpenTofu, Version::new(1, 9, 0)),
    (Engine::OpenTofu, Version::new(1, 10, 0)),
    (Engine::OpenTofu, Version::new(1, 11, 0)),
    (Engine::OpenTofu, Version::new(1, 12, 0)),
    (Engine::OpenTofu, Version::new(1, 13, 0)),
];

/// Does the engine model patches (Terraform's loader changed in 1.15.5), or only minors?
fn by_patch(engine: Engine) -> bool {
    engine == Engine::Terraform
}

/// The modelled releases of an engine, oldest first, each minor as its newest listed patch:
/// what a `required_version` constraint or a pin file is resolved against.
pub fn modelled(engine: Engine) -> impl Iterator<Item = Release> {
    MODELLED
        .iter()
        .filter(move |(e, _)| *e == engine)
        .map(|&(engine, version)| Release { engine, version })
}

/// Whether each patch of an engine is its own modelled release (Terraform, whose loader
/// changed in a patch) or a minor stands for all its patches (OpenTofu).
pub(crate) fn models_patches(engine: Engine) -> bool {
    by_patch(engine)
}

/// What a caller knows of the release a module is judged for: nothing (the files choose
/// the engine, `.tofu` files OpenTofu, and its newest modelled release judges), the engine
/// alone (its newest modelled release), or the release itself. Every load takes one, so
/// that a release chosen anywhere (flag, policy, pin file) reaches the merge.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EngineChoice {
    #[default]
    Files,
    Engine(Engine),
    Release(Release),
}

impl EngineChoice {
    /// `terraform` or `opentofu` alone (the engine, its newest release), or with a release:
    /// `terraform@1.9`, `opentofu@1.10.2` (see [`Release::parse`]).
    pub fn parse(s: &str) -> Result<EngineChoice, Unmodelled> {
        let r = Release::parse(s)?;
        Ok(if s.contains('@') { EngineChoice::Release(r) } else { EngineChoice::Engine(r.engine) })
    }

    /// The release judged, for a directory of these file names.
    pub fn resolve<'a>(self, names: impl IntoIterator<Item = &'a str>) -> Release {
        match self {
            EngineChoice::Release(r) => r,
            EngineChoice::Engine(e) => Release::newest(e),
            EngineChoice::Files => Release::newest(super::discover::default_engine(names)),
        }
    }
}

impl From<Option<Engine>> for EngineChoice {
    fn from(e: Option<Engine>) -> EngineChoice {
        e.map_or(EngineChoice::Files, EngineChoice::Engine)
    }
}

impl From<Engine> for EngineChoice {
    fn from(e: Engine) -> EngineChoice {
        EngineChoice::Engine(e)
    }
}

impl From<Release> for EngineChoice {
    fn from(r: Release) -> EngineChoice {
        EngineChoice::Release(r)
    }
}

/// Why a release cannot be judged for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unmodelled {
    pub asked: String,
}

impl fmt::Display for Unmodelled {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` is not a release override-guard models; {}", self.asked, modelled_list())
    }
}

/// The modelled releases as one sentence, for errors and `--help`.
pub(crate) fn modelled_list() -> String {
    let list = |e: Engine| {
        let vs: Vec<String> = MODELLED
            .iter()
            .filter(|(en, _)| *en == e)
            .map(
                |(_, v)| {
                    if by_patch(e) { format!("{v}") } else { format!("{}.{}", v.major, v.minor) }
                },
            )
            .collect();
        vs.join(", ")
    };
    format!(
        "modelled are terraform@{} (a minor means its newest patch listed, an earlier patch \
         of it is admitted) and opentofu@{} (any patch of these minors)",
        list(Engine::Terraform).replace(", ", ", @"),
        list(Engine::OpenTofu).replace(", ", ", @"),
    )
}

impl Release {
    /// The newest modelled release of an engine: what the engine's name alone means.
    pub fn newest(engine: Engine) -> Release {
        let version = MODELLED
            .iter()
            .filter(|(e, _)| *e == engine)
            .map(|(_, v)| *v)
            .max()
            .unwrap_or(Version::new(1, 0, 0));
        Release { engine, version }
    }

    /// The modelled release a version of an engine stands for: a minor's newest listed
    /// patch for `1.9`; `1.9.3` itself where 1.9's newest listed is 1.9.3 or later (for
    /// OpenTofu any patch of a listed minor). `None` where it is not modelled.
    pub fn of(engine: Engine, major: u32, minor: u32, patch: Option<u32>) -> Option<Release> {
        let newest = MODELLED
            .iter()
            .find(|(e, v)| *e == engine && v.major == major && v.minor == minor)
            .map(|(_, v)| *v)?;
        let version = match patch {
            None => newest,
            Some(p) if !by_patch(engine) => Version::new(major, minor, p),
            Some(p) if p <= newest.patch => Version::new(major, minor, p),
            Some(_) => return None,
        };
        Some(Release { engine, version })
    }

    /// `terraform`, `opentofu` (or `tofu`), `terraform@1.9`, `opentofu@1.10.2`.
    pub fn parse(s: &str) -> Result<Release, Unmodelled> {
        let bad = || Unmodelled { asked: s.to_string() };
        let (name, version) = match s.split_once('@') {
            Some((n, v)) => (n, Some(v)),
            None => (s, None),
        };
        let engine = match name.trim().to_ascii_lowercase().as_str() {
            "terraform" => Engine::Terraform,
            "opentofu" | "tofu" => Engine::OpenTofu,
            _ => return Err(bad()),
        };
        let Some(v) = version else { return Ok(Release::newest(engine)) };
        let v = v.trim().trim_start_matches('v');
        let parts: Vec<&str> = v.split('.').collect();
        let num = |p: &str| -> Option<u32> {
            if p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            p.parse().ok()
        };
        let (major, minor, patch) = match parts.as_slice() {
            [a, b] => (num(a), num(b), None),
            [a, b, c] => (num(a), num(b), Some(num(c).ok_or_else(bad)?)),
            _ => return Err(bad()),
        };
        let (Some(major), Some(minor)) = (major, minor) else { return Err(bad()) };
        Release::of(engine, major, minor, patch).ok_or_else(bad)
    }

    /// Is this release at least `v` of its engine?
    pub fn at_least(self, v: Version) -> bool {
        self.version >= v
    }
}

/// Declares each change of the loader once, with the release of each engine it arrives in
/// (`None` where the engine never has it): the [`Feature`] enum, its rows for
/// [`Release::has`] and [`Feature::ALL`]. OpenTofu's releases are the ones its sources and
/// tests were read for at each tag (forked at 1.6); a change it shares with Terraform but
/// whose OpenTofu release was not read is dated 1.6, as its newest release is modelled.
macro_rules! features {
    ($($(#[$doc:meta])* $name:ident: $tf:expr, $tofu:expr;)*) => {
        /// One change of the loader, release by release: what a module may say, or what its
        /// diagnostics say, from the release it arrives in. Modelling the next release is a
        /// row of the table in `terraform/release.rs` and the fixtures that confirm it.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum Feature {
            $($(#[$doc])* $name,)*
        }

        impl Feature {
            /// Every feature, in the table's order.
            pub const ALL: &'static [Feature] = &[$(Feature::$name,)*];
        }

        /// From which release of each engine a feature is there.
        const ROWS: &[(Feature, Option<Version>, Option<Version>)] = &[$((Feature::$name, $tf, $tofu),)*];
    };
}

/// A release of the 1.x line, for the table.
const fn v(minor: u32, patch: u32) -> Option<Version> {
    Some(Version::new(1, minor, patch))
}

features! {
    /// Top-level `removed` blocks (an override's is ignored by Terraform, an error for
    /// OpenTofu); before, `Unsupported block type`.
    RemovedBlocks: v(7, 0), v(7, 0);
    /// `for_each` in `import` blocks, whose `to` may then index with an expression, must
    /// name a managed resource, and is where a duplicate import is reported.
    ImportForEach: v(7, 0), v(7, 0);
    /// `HCP Terraform` in the duplicate-cloud texts and `cloud` in the cloud/backend
    /// conflict (Terraform 1.8); before, `Terraform Cloud`.
    HcpTerraformWording: v(8, 0), None;
    /// `provisioner` and `connection` blocks inside `removed`.
    RemovedProvisioners: v(9, 0), v(6, 0);
    /// Variable validations may refer to other objects; before, only to the variable.
    ValidationReferences: v(9, 0), v(6, 0);
    /// Top-level `ephemeral` resources (ignored in Terraform's overrides).
    EphemeralResources: v(10, 0), v(11, 0);
    /// Variable and output `ephemeral`.
    EphemeralValues: v(10, 0), v(11, 0);
    /// `identity` in `import` blocks; before, `id` is required.
    ImportIdentity: v(12, 0), v(6, 0);
    /// `action` blocks and `lifecycle { action_trigger }` are in the schema, but decoded
    /// only with experiments: a release build drops every action (Terraform 1.13).
    ActionBlocks: v(13, 0), None;
    /// Actions decoded, merged and checked (`depends_on` may not name one).
    Actions: v(14, 0), None;
    /// The 1.13 texts of a duplicate backend and of a cloud/backend conflict.
    StateStorageWording: v(13, 0), None;
    /// A constant of the wrong type is `bool required, but have number` (go-cty 1.16, in
    /// Terraform 1.13); before, `bool required`.
    ConversionSaysGiven: v(13, 0), v(6, 0);
    /// Variable `const`.
    ConstVariables: v(15, 0), v(12, 0);
    /// Output `type`.
    OutputType: v(15, 0), None;
    /// Variable and output `deprecated`, module `ignore_nested_deprecations`.
    Deprecation: v(15, 0), v(10, 0);
    /// Module `source` and `version` are expressions, evaluated at init: the load no
    /// longer asks for a static source nor judges it (`version = null` beside a local
    /// source loads).
    ModuleSourceExpressions: v(15, 0), v(8, 0);
    /// A provider's `for_each` (OpenTofu 1.9); an override file's is accepted and not
    /// merged. Before, and in Terraform, a reserved argument name.
    ProviderForEach: None, v(9, 0);
    /// `required_version` counts only in `.tofu` files (and `language`), each file's on
    /// its own (OpenTofu 1.12): a `.tf` file's is ignored, and an override's replaces
    /// nothing. Before, as Terraform: every file's, an override's replacing the primaries'.
    TofuFileVersions: None, v(12, 0);
}

impl Release {
    /// Does this release's loader have `feature`?
    pub fn has(self, feature: Feature) -> bool {
        ROWS.iter().find(|(f, _, _)| *f == feature).is_some_and(|&(_, tf, tofu)| {
            let since = match self.engine {
                Engine::Terraform => tf,
                Engine::OpenTofu => tofu,
            };
            since.is_some_and(|v| self.version >= v)
        })
    }
}

/// Releases of one engine in words, consecutive modelled minors as one span:
/// `Terraform 1.6–1.8, 1.11`. Empty for none.
pub fn spans(rs: &[Release]) -> String {
    let Some(first) = rs.first() else { return String::new() };
    let order: Vec<(u32, u32)> =
        modelled(first.engine).map(|r| (r.version.major, r.version.minor)).collect();
    let at = |r: &Release| order.iter().position(|&m| m == (r.version.major, r.version.minor));
    let minor = |r: &Release| format!("{}.{}", r.version.major, r.version.minor);
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < rs.len() {
        let mut j = i;
        while j + 1 < rs.len() && at(&rs[j]).zip(at(&rs[j + 1])).is_some_and(|(a, b)| b == a + 1) {
            j += 1;
        }
        parts.push(if i == j {
            minor(&rs[i])
        } else {
            format!("{}–{}", minor(&rs[i]), minor(&rs[j]))
        });
        i = j + 1;
    }
    format!("{} {}", first.engine.name(), parts.join(", "))
}

/// `Terraform 1.9.8`, `OpenTofu 1.10` (OpenTofu's patch is not modelled: its minors stand for every patch).
impl fmt::Display for Release {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = self.version;
        if by_patch(self.engine) || v.patch != 0 {
            write!(f, "{} {v}", self.engine.name())
        } else {
            write!(f, "{} {}.{}", self.engine.name(), v.major, v.minor)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tf(a: u32, b: u32, c: u32) -> Release {
        Release { engine: Engine::Terraform, version: Version::new(a, b, c) }
    }

    #[test]
    fn an_engine_alone_is_its_newest_release_and_a_minor_its_newest_patch() {
        assert_eq!(Release::parse("terraform"), Ok(tf(1, 15, 5)));
        assert_eq!(Release::parse("terraform@1.9"), Ok(tf(1, 9, 8)));
        assert_eq!(Release::parse("terraform@1.15.3"), Ok(tf(1, 15, 3)));
        assert_eq!(Release::parse("Terraform@v1.6.0"), Ok(tf(1, 6, 0)));
        let tofu = Release::parse("tofu@1.10.2").map(|r| (r.engine, r.version));
        assert_eq!(tofu, Ok((Engine::OpenTofu, Version::new(1, 10, 2))));
        assert_eq!(Release::parse("opentofu").map(|r| r.to_string()), Ok("OpenTofu 1.13".into()));
        assert_eq!(tf(1, 9, 8).to_string(), "Terraform 1.9.8");
    }

    #[test]
    fn what_is_not_modelled_is_an_error_that_lists_what_is() {
        for s in [
            "terraform@1.5",
            "terraform@1.15.6",
            "terraform@1.16",
            "terraform@1",
            "terraform@1.9.x",
            "terraform@1.9.8-rc1",
            "terraform@",
            "opentofu@1.14",
            "pulumi",
        ] {
            let e = Release::parse(s).expect_err(s);
            let text = e.to_string();
            assert!(text.starts_with(&format!("`{s}` is not a release")), "{text}");
            assert!(text.contains("terraform@1.6.6, @1.7.5"), "{text}");
            assert!(text.contains("opentofu@1.6, @1.7"), "{text}");
        }
    }

    #[test]
    fn the_modelled_releases_are_listed_oldest_first_per_engine() {
        let tf: Vec<String> = modelled(Engine::Terraform).map(|r| r.version.to_string()).collect();
        assert_eq!(tf.first().map(String::as_str), Some("1.6.6"));
        assert_eq!(tf.last().map(String::as_str), Some("1.15.5"));
        assert!(modelled(Engine::OpenTofu).all(|r| r.engine == Engine::OpenTofu));
        assert_eq!(modelled(Engine::OpenTofu).last(), Some(Release::newest(Engine::OpenTofu)));
        assert!(models_patches(Engine::Terraform) && !models_patches(Engine::OpenTofu));
    }

    #[test]
    fn features_arrive_in_their_release() {
        assert!(!tf(1, 6, 6).has(Feature::RemovedBlocks));
        assert!(tf(1, 7, 0).has(Feature::RemovedBlocks));
        assert!(!tf(1, 14, 9).has(Feature::ConstVariables));
        assert!(tf(1, 15, 5).has(Feature::ConstVariables));
        assert!(tf(1, 13, 5).has(Feature::ActionBlocks) && !tf(1, 13, 5).has(Feature::Actions));
        let tofu = |m| Release { engine: Engine::OpenTofu, version: Version::new(1, m, 0) };
        assert!(!tofu(13).has(Feature::Actions));
        assert!(
            !tofu(10).has(Feature::EphemeralResources) && tofu(11).has(Feature::EphemeralResources)
        );
        // Every feature Terraform has, its newest release has; the others are OpenTofu's.
        use Feature::*;
        for &f in Feature::ALL {
            let terraform = !matches!(f, ProviderForEach | TofuFileVersions);
            assert_eq!(Release::newest(Engine::Terraform).has(f), terraform, "{f:?}");
        }
        for f in [ProviderForEach, TofuFileVersions] {
            assert!(!Release::newest(Engine::Terraform).has(f), "{f:?}");
            assert!(Release::newest(Engine::OpenTofu).has(f), "{f:?}");
        }
        assert!(!tofu(11).has(TofuFileVersions) && tofu(12).has(TofuFileVersions));
        assert!(!tofu(8).has(ProviderForEach) && tofu(9).has(ProviderForEach));
    }

    #[test]
    fn consecutive_minors_are_one_span() {
        let rs = [tf(1, 6, 6), tf(1, 7, 5), tf(1, 8, 5), tf(1, 11, 4)];
        assert_eq!(spans(&rs), "Terraform 1.6–1.8, 1.11");
        assert_eq!(spans(&rs[3..]), "Terraform 1.11");
        assert_eq!(spans(&[]), "");
    }

    #[test]
    fn releases_order_by_version() {
        assert!(tf(1, 15, 5).at_least(Version::new(1, 15, 0)));
        assert!(!tf(1, 14, 9).at_least(Version::new(1, 15, 0)));
    }
}
