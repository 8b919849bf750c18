//! Which modelled release a module is judged with when no flag names one: the team's pin
//! (the version manager runs what it says); else the newest modelled release the module's
//! effective `required_version` constraints admit (what tenv's default, `latest-allowed`,
//! installs); else the newest modelled release. What the choice had to bend is returned as
//! data beside it, for the caller to report: a pin of a release not modelled (judged with the
//! modelled release nearest below it), a pin the constraints exclude (`version-mismatch`).

use std::fmt;

use super::constraint::{self, Constraint, ConstraintError};
use super::discover::Engine;
use super::pins::{self, Pin, Spec};
use super::release::{self, Release, Version};

/// Where the release came from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Origin {
    /// `--engine terraform@1.9`.
    CommandLine,
    /// A policy file's `engine` key.
    Policy { file: String },
    /// A pin file's line.
    Pin { file: String, line: usize },
    /// The module's effective `required_version` (each attribute's text).
    RequiredVersion { constraints: Vec<String> },
    /// Nothing said: the engine's newest modelled release.
    #[default]
    Newest,
}

/// What the choice noticed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Finding {
    /// The pin cannot be read: it is left out of the choice.
    Unreadable { pin: Pin, why: String },
    /// The pin names a release not modelled: judged with `judged`, the nearest modelled one.
    NotModelled { pin: Pin, judged: Release },
    /// The pin names a pre-release: judged as its release (Terraform checks constraints on
    /// its version core too).
    PreRelease { pin: Pin, judged: Release },
    /// The pin's regular expression or constraint matches no modelled release: left out.
    NothingMatches { pin: Pin },
    /// The pin runs an engine other than the module's own (its `.tofu` files, a flag).
    OtherEngine { pin: Pin, module: Engine },
    /// `version-mismatch`: the pinned release is one `required_version` excludes, so
    /// Terraform refuses to run the module with it.
    Mismatch { pin: Pin, release: Release, constraint: String },
    /// A `required_version` naming a pre-release: refused with every release, so it is left
    /// out of the choice.
    PreReleaseConstraint { constraint: String, element: String },
    /// `required_version` admits no modelled release of the engine: judged with its newest.
    NoneAdmitted { engine: Engine, constraints: Vec<String> },
    /// A `required_version` that is no constraint (Terraform refuses the module): left out.
    InvalidConstraint { error: ConstraintError },
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::CommandLine => f.write_str("from --engine"),
            Origin::Policy { file } => write!(f, "from the policy {file}"),
            Origin::Pin { file, line } => write!(f, "pinned in {file}:{line}"),
            Origin::RequiredVersion { constraints } => {
                let list: Vec<String> = constraints.iter().map(|c| format!("`{c}`")).collect();
                write!(
                    f,
                    "the newest modelled release required_version {} admits",
                    list.join(" and ")
                )
            }
            Origin::Newest => f.write_str("the newest modelled release (nothing pins one)"),
        }
    }
}

impl Finding {
    /// The pin the finding is about, if any.
    pub fn pin(&self) -> Option<&Pin> {
        match self {
            Finding::Unreadable { pin, .. }
            | Finding::NotModelled { pin, .. }
            | Finding::PreRelease { pin, .. }
            | Finding::NothingMatches { pin }
            | Finding::OtherEngine { pin, .. }
            | Finding::Mismatch { pin, .. } => Some(pin),
            Finding::PreReleaseConstraint { .. }
            | Finding::NoneAdmitted { .. }
            | Finding::InvalidConstraint { .. } => None,
        }
    }
}

/// One sentence each, naming the pin's file and line where a pin is concerned.
impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Finding::Unreadable { pin, why } => {
                write!(f, "{}:{}: the pin cannot be read: {why}", pin.file, pin.line)
            }
            Finding::NotModelled { pin, judged } => {
                write!(
                    f,
                    "{pin} is not a release override-guard models; judged with {judged}, the nearest"
                )
            }
            Finding::PreRelease { pin, judged } => {
                write!(f, "{pin} is a pre-release; judged as {judged}")
            }
            Finding::NothingMatches { pin } => {
                write!(f, "{pin} matches no modelled release; left out")
            }
            Finding::OtherEngine { pin, module } => {
                write!(
                    f,
                    "{pin} runs {}, where the module is written for {}",
                    pin.engine.name(),
                    module.name()
                )
            }
            Finding::Mismatch { pin, release, constraint } => {
                write!(f, "{pin} runs {release}, which required_version `{constraint}` excludes")
            }
            Finding::PreReleaseConstraint { constraint, element } => write!(
                f,
                "required_version `{constraint}` names a pre-release (`{}`), which Terraform refuses; left out",
                element.trim()
            ),
            Finding::NoneAdmitted { engine, constraints } => write!(
                f,
                "required_version `{}` admits no modelled {} release; judged with the newest",
                constraints.join("` and `"),
                engine.name()
            ),
            Finding::InvalidConstraint { error } => {
                write!(f, "required_version `{}`: {error}", error.text)
            }
        }
    }
}

/// The release chosen, where it came from, and what the choice noticed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chosen {
    pub release: Release,
    pub from: Origin,
    pub findings: Vec<Finding>,
}

/// The modelled release nearest a version that is not modelled: the newest modelled one not
/// newer than it (what is known of it), else the engine's oldest (its first patch).
pub fn nearest(engine: Engine, v: Version) -> Release {
    let below = release::modelled(engine).filter(|r| r.version <= v).last();
    match below {
        Some(r) => r,
        None => {
            let oldest =
                release::modelled(engine).next().unwrap_or_else(|| Release::newest(engine));
            let o = oldest.version;
            Release { engine, version: Version::new(o.major, o.minor, 0) }
        }
    }
}

/// The modelled releases a version manager's regular expression can pick from, oldest
/// first: each Terraform patch up to the newest listed, each OpenTofu minor as `x.y.0`.
fn every_release(engine: Engine) -> Vec<Release> {
    release::modelled(engine)
        .flat_map(|r| {
            let v = r.version;
            let top = if release::models_patches(engine) { v.patch } else { 0 };
            (0..=top).map(move |p| Release { engine, version: Version::new(v.major, v.minor, p) })
        })
        .collect()
}

/// A pin's release, where it resolves to one; the notes the resolving made go to `notes`.
fn resolve(pin: &Pin, usable: &[Constraint], notes: &mut Vec<Finding>) -> Option<Release> {
    let engine = pin.engine;
    let unmodelled = |notes: &mut Vec<Finding>, v: Version| {
        let judged = nearest(engine, v);
        notes.push(Finding::NotModelled { pin: pin.clone(), judged });
        judged
    };
    match &pin.spec {
        Spec::Unreadable(_) => None,
        Spec::Exact { version: v, pre } => {
            let r = match Release::of(engine, v.major, v.minor, Some(v.patch)) {
                Some(r) => r,
                None => unmodelled(notes, *v),
            };
            if pre.is_some() {
                notes.push(Finding::PreRelease { pin: pin.clone(), judged: r });
            }
            Some(r)
        }
        Spec::Prefix { major, minor: Some(minor) } => {
            Some(match Release::of(engine, *major, *minor, None) {
                Some(r) => r,
                None => unmodelled(notes, Version::new(*major, *minor, u32::MAX)),
            })
        }
        Spec::Prefix { major, minor: None } => {
            let newest = release::modelled(engine).filter(|r| r.version.major == *major).last();
            Some(
                newest
                    .unwrap_or_else(|| unmodelled(notes, Version::new(*major, u32::MAX, u32::MAX))),
            )
        }
        Spec::Latest => Some(Release::newest(engine)),
        Spec::LatestMatching(p) | Spec::MinMatching(p) => {
            let re = pins::regex(p).ok()?;
            let mut matching =
                every_release(engine).into_iter().filter(|r| re.is_match(&r.version.to_string()));
            let found = if matches!(pin.spec, Spec::LatestMatching(_)) {
                matching.next_back()
            } else {
                matching.next()
            };
            if found.is_none() {
                notes.push(Finding::NothingMatches { pin: pin.clone() });
            }
            found
        }
        Spec::Constraint(c) => {
            let found = constraint::newest_admitted(std::slice::from_ref(c), engine);
            if found.is_none() {
                notes.push(Finding::NothingMatches { pin: pin.clone() });
            }
            found
        }
        Spec::MinRequired | Spec::LatestAllowed => {
            // tenv's fallback where nothing constrains: `latest`.
            if usable.is_empty() {
                return Some(Release::newest(engine));
            }
            let found = if pin.spec == Spec::MinRequired {
                constraint::oldest_admitted(usable, engine)
            } else {
                constraint::newest_admitted(usable, engine)
            };
            if found.is_none() {
                notes.push(none_admitted(engine, usable));
            }
            Some(found.unwrap_or_else(|| Release::newest(engine)))
        }
    }
}

fn texts(constraints: &[Constraint]) -> Vec<String> {
    constraints.iter().map(|c| c.text().to_string()).collect()
}

fn none_admitted(engine: Engine, usable: &[Constraint]) -> Finding {
    Finding::NoneAdmitted { engine, constraints: texts(usable) }
}

/// The release a module is judged with: `pin` is what [`pins::find`] found, `constraints`
/// the module's effective `required_version` values (all must hold), `engine_hint` the
/// module's engine where something says it (its `.tofu` files, a flag; else Terraform).
pub fn choose(
    pin: Option<&Pin>,
    constraints: &[Constraint],
    engine_hint: Option<Engine>,
) -> Chosen {
    let mut findings = Vec::new();
    let mut usable = Vec::new();
    for c in constraints {
        match c.prerelease_element() {
            Some(e) => findings.push(Finding::PreReleaseConstraint {
                constraint: c.text().to_string(),
                element: e.to_string(),
            }),
            None => usable.push(c.clone()),
        }
    }
    if let Some(pin) = pin {
        if let Spec::Unreadable(why) = &pin.spec {
            findings.push(Finding::Unreadable { pin: pin.clone(), why: why.clone() });
        } else if let Some(release) = resolve(pin, &usable, &mut findings) {
            if let Some(module) = engine_hint.filter(|e| *e != pin.engine) {
                findings.push(Finding::OtherEngine { pin: pin.clone(), module });
            }
            // The version the pin runs: as written where it is exact (1.5.7, not modelled,
            // is still excluded by `>= 1.6`), else the release it resolved to.
            let runs = match &pin.spec {
                Spec::Exact { version, .. } => *version,
                _ => release.version,
            };
            // `min-required` and `latest-allowed` take the constraints' own release: where
            // none is admitted, that was noted once.
            let derived = matches!(pin.spec, Spec::MinRequired | Spec::LatestAllowed);
            if let Some(c) = usable.iter().find(|c| !derived && !c.admits(runs)) {
                findings.push(Finding::Mismatch {
                    pin: pin.clone(),
                    release,
                    constraint: c.text().to_string(),
                });
            }
            return Chosen {
                release,
                from: Origin::Pin { file: pin.file.clone(), line: pin.line },
                findings,
            };
        }
    }
    let engine = engine_hint.unwrap_or(Engine::Terraform);
    if !usable.is_empty() {
        if let Some(release) = constraint::newest_admitted(&usable, engine) {
            return Chosen {
                release,
                from: Origin::RequiredVersion { constraints: texts(&usable) },
                findings,
            };
        }
        findings.push(none_admitted(engine, &usable));
    }
    Chosen { release: Release::newest(engine), from: Origin::Newest, findings }
}

/// The wiring of the three steps for one module: the pin found from `module_dir` up through
/// `read`, the module's effective `required_version` values as written (one per attribute),
/// and the engine where something says it. A value that is no constraint is reported and
/// left out (Terraform refuses such a module with every release).
#[cfg(test)]
fn detect(
    read: &dyn Fn(&str) -> Option<Vec<u8>>,
    module_dir: &str,
    required_version: &[&str],
    engine_hint: Option<Engine>,
) -> Chosen {
    detect_with(&pins::Memo::default(), read, module_dir, required_version, engine_hint)
}

/// [`detect`] for one of many modules of a state, their directories' pins kept in `memo`.
pub(crate) fn detect_with(
    memo: &pins::Memo,
    read: &dyn Fn(&str) -> Option<Vec<u8>>,
    module_dir: &str,
    required_version: &[&str],
    engine_hint: Option<Engine>,
) -> Chosen {
    let mut findings = Vec::new();
    let mut constraints = Vec::new();
    for text in required_version {
        match Constraint::parse(text) {
            Ok(c) => constraints.push(c),
            Err(error) => findings.push(Finding::InvalidConstraint { error }),
        }
    }
    let pin = memo.find(read, module_dir);
    let mut chosen = choose(pin.as_ref(), &constraints, engine_hint);
    findings.append(&mut chosen.findings);
    chosen.findings = findings;
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(text: &str) -> Constraint {
        Constraint::parse(text).unwrap_or_else(|e| panic!("{text}: {e:?}"))
    }

    fn tf(a: u32, b: u32, p: u32) -> Release {
        Release { engine: Engine::Terraform, version: Version::new(a, b, p) }
    }

    fn tofu(a: u32, b: u32, p: u32) -> Release {
        Release { engine: Engine::OpenTofu, version: Version::new(a, b, p) }
    }

    fn pin(engine: Engine, text: &str) -> Pin {
        Pin {
            engine,
            spec: Spec::parse(text),
            file: "envs/.terraform-version".into(),
            line: 2,
            text: text.into(),
        }
    }

    fn tf_pin(text: &str) -> Pin {
        pin(Engine::Terraform, text)
    }

    #[test]
    fn a_pin_wins_over_required_version() {
        let p = tf_pin("1.9.3");
        let got = choose(Some(&p), &[c(">= 1.6")], None);
        assert_eq!(got.release, tf(1, 9, 3));
        assert_eq!(got.from, Origin::Pin { file: "envs/.terraform-version".into(), line: 2 });
        assert_eq!(got.findings, vec![]);
    }

    #[test]
    fn without_a_pin_the_newest_release_required_version_admits() {
        let got = choose(None, &[c("~> 1.15.0"), c("!= 1.15.5")], None);
        assert_eq!(got.release, tf(1, 15, 4));
        assert_eq!(
            got.from,
            Origin::RequiredVersion { constraints: vec!["~> 1.15.0".into(), "!= 1.15.5".into()] }
        );
        let tofu_got = choose(None, &[c("< 1.10")], Some(Engine::OpenTofu));
        assert_eq!(tofu_got.release, tofu(1, 9, 0));
    }

    #[test]
    fn without_anything_the_newest_modelled_release() {
        let got = choose(None, &[], None);
        assert_eq!((got.release, got.from), (Release::newest(Engine::Terraform), Origin::Newest));
        assert_eq!(
            choose(None, &[], Some(Engine::OpenTofu)).release,
            Release::newest(Engine::OpenTofu)
        );
    }

    #[test]
    fn required_version_admitting_no_modelled_release_is_noted_and_the_newest_judged() {
        let got = choose(None, &[c(">= 2.0")], None);
        assert_eq!((got.release, got.from), (tf(1, 15, 5), Origin::Newest));
        assert_eq!(
            got.findings,
            vec![Finding::NoneAdmitted {
                engine: Engine::Terraform,
                constraints: vec![">= 2.0".into()]
            }]
        );
    }

    #[test]
    fn a_pin_the_constraints_exclude_is_a_version_mismatch() {
        let p = tf_pin("1.9.8");
        let got = choose(Some(&p), &[c(">= 1.6"), c(">= 1.10")], None);
        assert_eq!(got.release, tf(1, 9, 8));
        assert_eq!(
            got.findings,
            vec![Finding::Mismatch {
                pin: p.clone(),
                release: tf(1, 9, 8),
                constraint: ">= 1.10".into()
            }]
        );
    }

    #[test]
    fn a_pin_not_modelled_is_judged_with_the_nearest_release_below_it() {
        let p = tf_pin("1.15.9");
        let got = choose(Some(&p), &[], None);
        assert_eq!(got.release, tf(1, 15, 5));
        assert_eq!(got.findings, vec![Finding::NotModelled { pin: p, judged: tf(1, 15, 5) }]);
        assert_eq!(choose(Some(&tf_pin("1.16.0")), &[], None).release, tf(1, 15, 5));
        assert_eq!(choose(Some(&tf_pin("1.11.7")), &[], None).release, tf(1, 11, 4));
        // Older than every modelled release: the oldest, at its first patch.
        assert_eq!(choose(Some(&tf_pin("1.5.7")), &[], None).release, tf(1, 6, 0));
        assert_eq!(choose(Some(&tf_pin("0.12")), &[], None).release, tf(1, 6, 0));
        let t = pin(Engine::OpenTofu, "1.14.2");
        assert_eq!(choose(Some(&t), &[], None).release, tofu(1, 13, 0));
    }

    #[test]
    fn an_unmodelled_exact_pin_is_checked_against_required_version_as_written() {
        let p = tf_pin("1.5.7");
        let got = choose(Some(&p), &[c(">= 1.6")], None);
        assert!(
            got.findings.iter().any(|f| matches!(f, Finding::Mismatch { .. })),
            "{:?}",
            got.findings
        );
    }

    #[test]
    fn a_prefix_is_its_minors_newest_modelled_patch() {
        assert_eq!(choose(Some(&tf_pin("1.9")), &[], None).release, tf(1, 9, 8));
        assert_eq!(choose(Some(&tf_pin("v1.15")), &[], None).release, tf(1, 15, 5));
        assert_eq!(choose(Some(&tf_pin("1")), &[], None).release, tf(1, 15, 5));
        assert_eq!(choose(Some(&pin(Engine::OpenTofu, "1.10")), &[], None).release, tofu(1, 10, 0));
        assert_eq!(choose(Some(&tf_pin("1.9")), &[c(">= 1.10")], None).findings.len(), 1);
    }

    #[test]
    fn opentofu_patches_are_modelled_as_their_minor() {
        let p = pin(Engine::OpenTofu, "1.10.7");
        let got = choose(Some(&p), &[], None);
        assert_eq!((got.release, got.findings), (tofu(1, 10, 7), vec![]));
    }

    #[test]
    fn the_keywords_resolve_as_tenv_resolves_them() {
        let k = [c(">= 1.9, < 1.12")];
        assert_eq!(choose(Some(&tf_pin("latest")), &k, None).release, tf(1, 15, 5));
        assert_eq!(choose(Some(&tf_pin("latest-allowed")), &k, None).release, tf(1, 11, 4));
        assert_eq!(choose(Some(&tf_pin("min-required")), &k, None).release, tf(1, 9, 0));
        assert_eq!(choose(Some(&tf_pin("latest:^1.1[0-3]")), &[], None).release, tf(1, 13, 5));
        assert_eq!(choose(Some(&tf_pin("min:^1\\.10")), &[], None).release, tf(1, 10, 0));
        assert_eq!(choose(Some(&tf_pin("~> 1.12.0")), &[], None).release, tf(1, 12, 2));
        assert_eq!(choose(Some(&tf_pin("latest:~> 1.13.0")), &[], None).release, tf(1, 13, 5));
        // Nothing constrains: tenv falls back to `latest`.
        assert_eq!(choose(Some(&tf_pin("min-required")), &[], None).release, tf(1, 15, 5));
        // The keyword's release is the pin's, not the constraints'.
        let got = choose(Some(&tf_pin("latest")), &k, None);
        assert!(
            matches!(got.findings.as_slice(), [Finding::Mismatch { .. }]),
            "{:?}",
            got.findings
        );
        assert!(matches!(got.from, Origin::Pin { .. }));
    }

    #[test]
    fn a_keyword_the_constraints_leave_nothing_to_is_noted() {
        let got = choose(Some(&tf_pin("latest-allowed")), &[c("< 1.0")], None);
        assert_eq!(got.release, tf(1, 15, 5));
        assert!(
            matches!(got.findings.as_slice(), [Finding::NoneAdmitted { .. }]),
            "{:?}",
            got.findings
        );
    }

    #[test]
    fn a_pin_that_matches_nothing_is_left_out_with_a_note() {
        let p = tf_pin("latest:^2\\.");
        let got = choose(Some(&p), &[c("~> 1.14.0")], None);
        assert_eq!(got.release, tf(1, 14, 9));
        assert!(matches!(got.from, Origin::RequiredVersion { .. }));
        assert_eq!(got.findings, vec![Finding::NothingMatches { pin: p }]);
        let q = tf_pin(">= 3.0");
        assert!(matches!(
            choose(Some(&q), &[], None).findings.as_slice(),
            [Finding::NothingMatches { .. }]
        ));
    }

    #[test]
    fn an_unreadable_pin_is_reported_and_left_out() {
        let p = tf_pin("one point nine");
        let got = choose(Some(&p), &[c("~> 1.13.0")], None);
        assert_eq!(got.release, tf(1, 13, 5));
        assert!(
            matches!(got.findings.as_slice(), [Finding::Unreadable { why, .. }] if why.contains("one point nine"))
        );
    }

    #[test]
    fn a_pre_release_pin_is_judged_as_its_release() {
        let p = tf_pin("1.15.0-beta1");
        let got = choose(Some(&p), &[], None);
        assert_eq!(got.release, tf(1, 15, 0));
        assert_eq!(got.findings, vec![Finding::PreRelease { pin: p, judged: tf(1, 15, 0) }]);
    }

    #[test]
    fn a_pre_release_constraint_is_noted_and_left_out() {
        let got = choose(None, &[c(">= 1.15.0-rc1"), c("< 1.15")], None);
        assert_eq!(got.release, tf(1, 14, 9));
        assert_eq!(
            got.findings,
            vec![Finding::PreReleaseConstraint {
                constraint: ">= 1.15.0-rc1".into(),
                element: ">= 1.15.0-rc1".into()
            }]
        );
    }

    #[test]
    fn the_pin_chooses_the_engine_and_another_engine_of_the_module_is_noted() {
        let p = pin(Engine::OpenTofu, "1.10.0");
        let got = choose(Some(&p), &[], Some(Engine::Terraform));
        assert_eq!(got.release, tofu(1, 10, 0));
        assert_eq!(got.findings, vec![Finding::OtherEngine { pin: p, module: Engine::Terraform }]);
    }

    #[test]
    fn detect_finds_the_pin_parses_required_version_and_chooses() {
        let files = [("envs/.terraform-version", "1.9.8\r\n")];
        let read =
            |p: &str| files.iter().find(|(f, _)| *f == p).map(|(_, t)| t.as_bytes().to_vec());
        let got = detect(&read, "envs/prod", &[">= 1.10", ">= 1.x"], None);
        assert_eq!(got.release, tf(1, 9, 8));
        assert_eq!(got.from.to_string(), "pinned in envs/.terraform-version:1");
        let said: Vec<String> = got.findings.iter().map(ToString::to_string).collect();
        assert_eq!(
            said,
            vec![
                "required_version `>= 1.x`: Invalid version constraint: This string does not use correct \
                 version constraint syntax."
                    .to_string(),
                "envs/.terraform-version:1: `1.9.8` runs Terraform 1.9.8, which required_version `>= 1.10` \
                 excludes"
                    .to_string(),
            ]
        );
        let none = detect(&read, "modules/vpc", &["~> 1.12.0"], None);
        assert_eq!(none.release, tf(1, 12, 2));
        assert_eq!(
            none.from.to_string(),
            "the newest modelled release required_version `~> 1.12.0` admits"
        );
        assert_eq!(
            detect(&read, "", &[], None).from.to_string(),
            "the newest modelled release (nothing pins one)"
        );
    }

    #[test]
    fn every_finding_says_what_was_bent_in_one_sentence() {
        let p = tf_pin("1.5.7");
        let all = [
            Finding::Unreadable { pin: tf_pin("x"), why: "binary, not text".into() },
            Finding::NotModelled { pin: p.clone(), judged: tf(1, 6, 0) },
            Finding::PreRelease { pin: p.clone(), judged: tf(1, 6, 0) },
            Finding::NothingMatches { pin: p.clone() },
            Finding::OtherEngine { pin: p.clone(), module: Engine::OpenTofu },
            Finding::PreReleaseConstraint {
                constraint: ">= 1.9, < 2.0-rc1".into(),
                element: " < 2.0-rc1".into(),
            },
            Finding::NoneAdmitted { engine: Engine::OpenTofu, constraints: vec!["~> 1.15".into()] },
        ];
        let said: Vec<String> = all.iter().map(ToString::to_string).collect();
        assert_eq!(said[0], "envs/.terraform-version:2: the pin cannot be read: binary, not text");
        assert_eq!(
            said[1],
            "envs/.terraform-version:2: `1.5.7` is not a release override-guard models; judged with Terraform 1.6.0, the nearest"
        );
        assert!(
            said[4].ends_with("runs Terraform, where the module is written for OpenTofu"),
            "{}",
            said[4]
        );
        assert!(said[5].contains("names a pre-release (`< 2.0-rc1`)"), "{}", said[5]);
        assert_eq!(
            said[6],
            "required_version `~> 1.15` admits no modelled OpenTofu release; judged with the newest"
        );
    }

    #[test]
    fn nearest_keeps_a_release_above_the_oldest_below_it() {
        assert_eq!(nearest(Engine::Terraform, Version::new(9, 0, 0)), tf(1, 15, 5));
        assert_eq!(nearest(Engine::Terraform, Version::new(0, 0, 0)), tf(1, 6, 0));
        assert_eq!(nearest(Engine::OpenTofu, Version::new(1, 5, 9)), tofu(1, 6, 0));
    }
}
