//! `required_version` constraints, parsed and matched as hashicorp/go-version does it
//! (Terraform and OpenTofu both decode `required_version` with its `NewConstraint` and check
//! their own version with `Constraints.Check`): a comma-separated list that must all hold, the
//! operators `=` (also no operator), `!=`, `>`, `>=`, `<`, `<=` and `~>`, versions of any
//! number of segments (fewer than three are padded with zeros), a leading `v`, pre-release
//! and build suffixes. The module judges which modelled release a module's constraints let
//! run, so it mirrors go-version's quirks too (`~> 1` admits 2.0; `1.0.0.0` equals `1.0`).

use std::cmp::Ordering;
use std::fmt;

use super::discover::Engine;
use super::goversion::GoVersion;
use super::release::{self, Release, Version};

/// A constraint's operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Op {
    Eq,
    Ne,
    Gt,
    Ge,
    Lt,
    Le,
    /// `~>`: at least the version, and below the next of its second-to-last written segment.
    Pessimistic,
}

/// One element of the comma-separated list.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Single {
    op: Op,
    check: GoVersion,
    /// As written, spaces included: what Terraform quotes of it.
    original: String,
}

/// go-version's `prereleaseCheck`: a constraint without a pre-release admits no
/// pre-release, and one with a pre-release only pre-releases of its own segments.
fn prerelease_check(v: &GoVersion, c: &GoVersion) -> bool {
    match (c.pre.is_empty(), v.pre.is_empty()) {
        (false, false) => v.segments == c.segments,
        (true, false) => false,
        _ => true,
    }
}

impl Single {
    fn check(&self, v: &GoVersion) -> bool {
        let c = &self.check;
        let ord = || v.compare(c);
        match self.op {
            Op::Eq => ord() == Ordering::Equal,
            Op::Ne => ord() != Ordering::Equal,
            Op::Gt => prerelease_check(v, c) && ord() == Ordering::Greater,
            Op::Lt => prerelease_check(v, c) && ord() == Ordering::Less,
            Op::Ge => prerelease_check(v, c) && ord() != Ordering::Less,
            Op::Le => prerelease_check(v, c) && ord() != Ordering::Greater,
            Op::Pessimistic => pessimistic(v, c),
        }
    }
}

/// go-version's `constraintPessimistic`, step by step.
fn pessimistic(v: &GoVersion, c: &GoVersion) -> bool {
    if !prerelease_check(v, c) || (!c.pre.is_empty() && v.pre.is_empty()) {
        return false;
    }
    if v.compare(c) == Ordering::Less {
        return false;
    }
    let cs = c.segments.len();
    if cs > v.segments.len() {
        return false;
    }
    if (0..c.written.saturating_sub(1)).any(|i| v.segments[i] != c.segments[i]) {
        return false;
    }
    c.segments[cs - 1] <= v.segments[cs - 1]
}

/// The whitespace Go's regular expressions mean by `\s`.
fn go_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0c')
}

/// Why a constraint's text is refused. Terraform does not show go-version's reason: it
/// says its own fixed summary and detail (see the `Display` form).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConstraintError {
    /// The text refused.
    pub text: String,
    /// go-version's own reason (`malformed constraint: >= 1.x`).
    pub reason: String,
}

impl ConstraintError {
    pub(crate) const SUMMARY: &'static str = "Invalid version constraint";
    pub(crate) const DETAIL: &'static str =
        "This string does not use correct version constraint syntax.";
}

impl fmt::Display for ConstraintError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", Self::SUMMARY, Self::DETAIL)
    }
}

impl std::error::Error for ConstraintError {}

/// A `required_version` value: every element must hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Constraint {
    text: String,
    all: Vec<Single>,
}

impl Constraint {
    /// go-version's `NewConstraint`: split at every comma (an empty element is an error),
    /// each element an operator and a version between optional whitespace.
    pub fn parse(text: &str) -> Result<Constraint, ConstraintError> {
        let mut all = Vec::new();
        for single in text.split(',') {
            let bad = |reason: String| ConstraintError { text: text.to_string(), reason };
            let s = single.trim_matches(go_space);
            // The operators in go-version's order: `<=` before `<`.
            let ops = [
                ("<=", Op::Le),
                (">=", Op::Ge),
                ("!=", Op::Ne),
                ("~>", Op::Pessimistic),
                ("<", Op::Lt),
                (">", Op::Gt),
                ("=", Op::Eq),
            ];
            let (op, rest) = ops
                .iter()
                .find_map(|(t, op)| s.strip_prefix(t).map(|r| (*op, r)))
                .unwrap_or((Op::Eq, s));
            let version = rest.trim_start_matches(go_space);
            let Some(check) = GoVersion::parse(version) else {
                return Err(bad(format!("malformed constraint: {single}")));
            };
            all.push(Single { op, check, original: single.to_string() });
        }
        Ok(Constraint { text: text.to_string(), all })
    }

    /// The text as written.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// go-version's `Constraints.Check` of a version (pre-release and all).
    pub fn check(&self, v: &GoVersion) -> bool {
        self.all.iter().all(|s| s.check(v))
    }

    /// Does the constraint let this release run? Terraform checks its version core only.
    pub fn admits(&self, v: Version) -> bool {
        self.check(&GoVersion::of(v))
    }

    /// The newest of these releases the constraint admits.
    pub fn newest_admitted(&self, releases: &[Release]) -> Option<Release> {
        releases.iter().filter(|r| self.admits(r.version)).max_by_key(|r| r.version).copied()
    }

    /// Terraform and OpenTofu refuse a constraint that names a pre-release, whatever their
    /// version (`CheckCoreVersionRequirements`): the element, as written, if one does.
    pub fn prerelease_element(&self) -> Option<&str> {
        self.all.iter().find(|s| !s.check.pre.is_empty()).map(|s| s.original.as_str())
    }
}

impl fmt::Display for Constraint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// Do all the constraints (several `required_version` attributes) admit the version?
pub(crate) fn admits_all(constraints: &[Constraint], v: Version) -> bool {
    constraints.iter().all(|c| c.admits(v))
}

/// The lowest patch of a minor that all the constraints admit, of every patch there is (an
/// OpenTofu minor stands for all of them). An element naming another minor holds for all its
/// patches or none; one naming patch `q` of this minor holds alike on the patches below `q`,
/// at `q`, and on those above (go-version compares segment by segment). So the lowest admitted
/// patch is 0, some `q` or some `q + 1`, found in one sweep over those points instead of
/// testing each against every element (a `required_version` of many elements stays linear).
fn lowest_patch(major: u32, minor: u32, constraints: &[Constraint]) -> Option<u32> {
    let holds = |s: &Single, p: u32| s.check(&GoVersion::of(Version::new(major, minor, p)));
    let mut points = vec![0u32];
    let mut naming = Vec::new();
    for s in constraints.iter().flat_map(|c| c.all.iter()) {
        let seg = &s.check.segments;
        let q = (seg[0] == i64::from(major) && seg[1] == i64::from(minor))
            .then(|| u32::try_from(seg[2]).ok())
            .flatten();
        match q {
            Some(q) => {
                points.extend([q, q.saturating_add(1)]);
                naming.push((s, q));
            }
            None if !holds(s, 0) => return None,
            None => {}
        }
    }
    points.sort_unstable();
    points.dedup();
    // How many elements refuse each point, as differences from the point before.
    let mut refused = vec![0i64; points.len() + 1];
    let at = |p: u32| points.partition_point(|&x| x < p);
    for (s, q) in naming {
        if q > 0 && !holds(s, q - 1) {
            refused[0] += 1;
            refused[at(q)] -= 1;
        }
        if !holds(s, q) {
            refused[at(q)] += 1;
            refused[at(q) + 1] -= 1;
        }
        if q < u32::MAX && !holds(s, q + 1) {
            refused[at(q + 1)] += 1;
            refused[points.len()] -= 1;
        }
    }
    let mut run = 0;
    points.iter().zip(&refused).find_map(|(&p, d)| {
        run += d;
        (run == 0).then_some(p)
    })
}

/// The patches of a modelled minor that the constraints admit, lowest first: Terraform's
/// each patch from 0 to the newest listed (a handful), OpenTofu's the lowest of all.
fn admitted_patches(r: Release, constraints: &[Constraint]) -> Vec<u32> {
    let v = r.version;
    if !release::models_patches(r.engine) {
        return lowest_patch(v.major, v.minor, constraints).into_iter().collect();
    }
    (0..=v.patch).filter(|&p| admits_all(constraints, Version::new(v.major, v.minor, p))).collect()
}

/// The modelled releases of an engine that all the constraints admit, oldest first: each
/// minor with an admitted patch once, as its newest admitted patch (Terraform) or its patch
/// 0, else the lowest admitted (OpenTofu, whose patches share one loader).
pub fn admitted(constraints: &[Constraint], engine: Engine) -> Vec<Release> {
    release::modelled(engine)
        .filter_map(|r| {
            let patches = admitted_patches(r, constraints);
            let p = if release::models_patches(engine) { patches.last() } else { patches.first() };
            let v = r.version;
            p.map(|&p| Release { engine, version: Version::new(v.major, v.minor, p) })
        })
        .collect()
}

/// The newest modelled release the constraints admit (tenv's `latest-allowed`).
pub(crate) fn newest_admitted(constraints: &[Constraint], engine: Engine) -> Option<Release> {
    admitted(constraints, engine).pop()
}

/// The oldest modelled release the constraints admit, its lowest admitted patch (tenv's
/// `min-required`).
pub(crate) fn oldest_admitted(constraints: &[Constraint], engine: Engine) -> Option<Release> {
    release::modelled(engine).find_map(|r| {
        let v = r.version;
        let p = *admitted_patches(r, constraints).first()?;
        Some(Release { engine, version: Version::new(v.major, v.minor, p) })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(text: &str) -> Constraint {
        Constraint::parse(text).unwrap_or_else(|e| panic!("{text}: {e:?}"))
    }

    fn v(text: &str) -> GoVersion {
        GoVersion::parse(text).unwrap_or_else(|| panic!("{text} is a version"))
    }

    fn checks(constraint: &str, version: &str) -> bool {
        c(constraint).check(&v(version))
    }

    fn tf(a: u32, b: u32, p: u32) -> Release {
        Release { engine: Engine::Terraform, version: Version::new(a, b, p) }
    }

    fn tofu(a: u32, b: u32, p: u32) -> Release {
        Release { engine: Engine::OpenTofu, version: Version::new(a, b, p) }
    }

    /// go-version's own table of checks (constraint_test.go, TestConstraintCheck).
    #[test]
    fn go_versions_table_of_checks_holds() {
        let table = [
            (">= 1.0, < 1.2", "1.1.5", true),
            ("< 1.0, < 1.2", "1.1.5", false),
            ("= 1.0", "1.1.5", false),
            ("= 1.0", "1.0.0", true),
            ("1.0", "1.0.0", true),
            ("~> 1.0", "2.0", false),
            ("~> 1.0", "1.1", true),
            ("~> 1.0", "1.2.3", true),
            ("~> 1.0.0", "1.2.3", false),
            ("~> 1.0.0", "1.0.7", true),
            ("~> 1.0.0", "1.1.0", false),
            ("~> 1.0.7", "1.0.4", false),
            ("~> 1.0.7", "1.0.7", true),
            ("~> 1.0.7", "1.0.8", true),
            ("~> 1.0.7", "1.0.7.5", true),
            ("~> 1.0.7", "1.0.6.99", false),
            ("~> 1.0.7", "1.0.8.0", true),
            ("~> 1.0.9.5", "1.0.9.5", true),
            ("~> 1.0.9.5", "1.0.9.4", false),
            ("~> 1.0.9.5", "1.0.9.6", true),
            ("~> 1.0.9.5", "1.0.9.5.0", true),
            ("~> 1.0.9.5", "1.0.9.5.1", true),
            ("~> 2.0", "2.1.0-beta", false),
            ("~> 2.1.0-a", "2.2.0", false),
            ("~> 2.1.0-a", "2.1.0", false),
            ("~> 2.1.0-a", "2.1.0-beta", true),
            ("~> 2.1.0-a", "2.2.0-alpha", false),
            ("> 2.0", "2.1.0-beta", false),
            (">= 2.1.0-a", "2.1.0-beta", true),
            (">= 2.1.0-a", "2.1.1-beta", false),
            (">= 2.0.0", "2.1.0-beta", false),
            (">= 2.1.0-a", "2.1.1", true),
            (">= 2.1.0-a", "2.1.0", true),
            ("<= 2.1.0-a", "2.0.0", true),
        ];
        for (constraint, version, want) in table {
            assert_eq!(checks(constraint, version), want, "{constraint} against {version}");
        }
    }

    #[test]
    fn each_operator_admits_what_it_says() {
        let at = |s: &str, p: u32| c(s).admits(Version::new(1, 9, p));
        assert!(at("= 1.9.3", 3) && !at("= 1.9.3", 4));
        assert!(at("1.9.3", 3) && !at("1.9.3", 2));
        assert!(at("!= 1.9.3", 4) && !at("!= 1.9.3", 3));
        assert!(at("> 1.9.3", 4) && !at("> 1.9.3", 3));
        assert!(at(">= 1.9.3", 3) && !at(">= 1.9.3", 2));
        assert!(at("< 1.9.3", 2) && !at("< 1.9.3", 3));
        assert!(at("<= 1.9.3", 3) && !at("<= 1.9.3", 4));
        assert!(at("~> 1.9.3", 8) && !at("~> 1.9.3", 2));
    }

    #[test]
    fn the_pessimistic_operator_counts_the_segments_written() {
        let tf15 = |p| Version::new(1, 15, p);
        assert!(c("~> 1.15.0").admits(tf15(4)));
        assert!(!c("~> 1.15.0").admits(Version::new(1, 16, 0)));
        assert!(c("~> 1.15").admits(Version::new(1, 99, 0)));
        assert!(!c("~> 1.15").admits(Version::new(2, 0, 0)));
        assert!(!c("~> 1.15").admits(Version::new(1, 14, 9)));
        // One segment checks none equal: go-version's `~> 1` admits 2.0.
        assert!(c("~> 1").admits(Version::new(2, 0, 0)));
        assert!(!c("~> 1").admits(Version::new(0, 9, 0)));
        // Four segments: no release of three is specific enough.
        assert!(!c("~> 1.15.0.1").admits(tf15(5)));
    }

    #[test]
    fn a_list_must_all_hold_and_spaces_and_v_do_not_matter() {
        let k = c(" >=1.9 ,\t< 1.11.0 ,!= v1.10.2");
        assert!(k.admits(Version::new(1, 9, 0)));
        assert!(k.admits(Version::new(1, 10, 5)));
        assert!(!k.admits(Version::new(1, 10, 2)));
        assert!(!k.admits(Version::new(1, 11, 0)));
        assert!(!k.admits(Version::new(1, 8, 9)));
        assert_eq!(k.text(), " >=1.9 ,\t< 1.11.0 ,!= v1.10.2");
        assert!(c("=v1.9.8").admits(Version::new(1, 9, 8)));
        assert!(c("\n~>\r1.9\x0c").admits(Version::new(1, 9, 8)));
    }

    #[test]
    fn missing_segments_are_zeros_and_extra_zero_segments_equal() {
        assert!(c("1").admits(Version::new(1, 0, 0)));
        assert!(c("= 1.9").admits(Version::new(1, 9, 0)));
        assert!(!c("= 1.9").admits(Version::new(1, 9, 8)));
        assert!(c("= 1.9.0.0").admits(Version::new(1, 9, 0)));
        assert!(!c("= 1.9.0.1").admits(Version::new(1, 9, 0)));
        assert!(c("> 1.9.0.1").admits(Version::new(1, 9, 1)));
        assert!(c("= 01.09.00").admits(Version::new(1, 9, 0)));
    }

    #[test]
    fn what_go_version_refuses_is_an_error_in_terraforms_words() {
        for bad in [
            "",
            " ",
            ",",
            ">= 1.9,",
            ", >= 1.9",
            ">= 1.x",
            "1.9.*",
            "=> 1.9",
            "== 1.9",
            "~ 1.9",
            "^1.9",
            ">= 1.9 < 2.0",
            "1..9",
            ".1.9",
            "1.9.",
            "v",
            "vv1.9",
            "1.9 || 2.0",
            "1.9+",
            "1.9-beta..1",
            "1.9+meta..x",
            "≥ 1.9",
            "1.9\u{a0}",
            "1.9\x0b",
            "11387778780781445675529500000000000000000",
        ] {
            let e = Constraint::parse(bad).expect_err(bad);
            assert_eq!(e.text, bad);
            assert!(e.reason.starts_with("malformed constraint: "), "{e:?}");
            assert_eq!(
                e.to_string(),
                "Invalid version constraint: This string does not use correct version constraint syntax."
            );
        }
    }

    #[test]
    fn pre_releases_follow_go_versions_rules() {
        assert!(!checks(">= 1.15", "1.15.0-beta1"));
        assert!(!checks("1.15.0", "1.15.0-beta1"));
        assert!(checks("1.15.0-beta1", "1.15.0-beta1"));
        assert!(checks(">= 1.15.0-beta1", "1.15.0-beta2"));
        assert!(!checks(">= 1.15.0-beta1", "1.15.1-beta1"));
        assert!(checks(">= 1.15.0-beta1", "1.15.0"));
        assert!(checks("!= 1.15.0", "1.15.0-rc1"));
        // Numbers sort before words, numbers by value, words as bytes.
        assert!(checks("> 1.0.0-2", "1.0.0-10"));
        assert!(checks("> 1.0.0-10", "1.0.0-alpha"));
        assert!(checks("> 1.0.0-alpha", "1.0.0-beta"));
        assert!(checks("> 1.0.0-alpha", "1.0.0-alpha.1"));
        assert!(!checks("< 1.0.0-rc.1", "1.0.0-rc.2"));
        // A release is newer than its pre-releases; build metadata is no part of the order.
        assert!(checks("< 1.15.0", "1.14.9"));
        assert!(c("< 1.15.0-rc1").admits(Version::new(1, 14, 9)));
        assert!(!c("< 1.15.0-rc1").admits(Version::new(1, 15, 0)));
        assert!(c("= 1.15.0+abc").admits(Version::new(1, 15, 0)));
    }

    #[test]
    fn a_pre_release_element_is_found_as_written() {
        let k = c(">= 1.9, < 1.15.0-beta1");
        assert_eq!(k.prerelease_element(), Some(" < 1.15.0-beta1"));
        assert_eq!(c(">= 1.9").prerelease_element(), None);
    }

    #[test]
    fn newest_admitted_of_a_list_of_releases() {
        let list = [tf(1, 9, 8), tf(1, 10, 5), tf(1, 11, 4)];
        assert_eq!(c("< 1.11").newest_admitted(&list), Some(tf(1, 10, 5)));
        assert_eq!(c(">= 1.9").newest_admitted(&list), Some(tf(1, 11, 4)));
        assert_eq!(c("> 2.0").newest_admitted(&list), None);
        assert_eq!(c("< 1.11").newest_admitted(&[]), None);
    }

    #[test]
    fn the_modelled_releases_admitted_take_each_minors_newest_admitted_patch() {
        let k = [c("~> 1.15.0"), c("< 1.15.5")];
        assert_eq!(admitted(&k, Engine::Terraform), vec![tf(1, 15, 4)]);
        assert_eq!(newest_admitted(&k, Engine::Terraform), Some(tf(1, 15, 4)));
        assert_eq!(oldest_admitted(&k, Engine::Terraform), Some(tf(1, 15, 0)));
        let wide = [c(">= 1.13")];
        assert_eq!(
            admitted(&wide, Engine::Terraform),
            vec![tf(1, 13, 5), tf(1, 14, 9), tf(1, 15, 5)]
        );
        assert_eq!(oldest_admitted(&wide, Engine::Terraform), Some(tf(1, 13, 0)));
        assert_eq!(newest_admitted(&[], Engine::Terraform), Some(tf(1, 15, 5)));
        assert_eq!(oldest_admitted(&[], Engine::Terraform), Some(tf(1, 6, 0)));
        assert_eq!(newest_admitted(&[c(">= 2.0")], Engine::Terraform), None);
        assert_eq!(oldest_admitted(&[c("< 1.0")], Engine::Terraform), None);
    }

    #[test]
    fn an_opentofu_minor_is_admitted_where_any_of_its_patches_is() {
        assert_eq!(newest_admitted(&[c("~> 1.10.3")], Engine::OpenTofu), Some(tofu(1, 10, 3)));
        assert_eq!(newest_admitted(&[c(">= 1.9, < 1.11")], Engine::OpenTofu), Some(tofu(1, 10, 0)));
        assert_eq!(newest_admitted(&[c("> 1.12.7")], Engine::OpenTofu), Some(tofu(1, 13, 0)));
        assert_eq!(oldest_admitted(&[c("> 1.12.7")], Engine::OpenTofu), Some(tofu(1, 12, 8)));
        assert_eq!(admitted(&[c("= 1.11.99999999999")], Engine::OpenTofu), vec![]);
        assert_eq!(admitted(&[c("= 1.11.4")], Engine::OpenTofu), vec![tofu(1, 11, 4)]);
        // Terraform's numbers: OpenTofu has no 1.15.
        assert_eq!(newest_admitted(&[c("~> 1.15.0")], Engine::OpenTofu), None);
    }

    #[test]
    fn admits_all_of_several_required_version_attributes() {
        let k = [c(">= 1.10"), c("< 1.12")];
        assert!(admits_all(&k, Version::new(1, 11, 4)));
        assert!(!admits_all(&k, Version::new(1, 12, 0)));
        assert!(admits_all(&[], Version::new(0, 1, 0)));
    }

    const OPS: &[&str] = &["", "=", "!=", ">", ">=", "<", "<=", "~>"];

    proptest::proptest! {
        /// Each operator against Rust's order of release numbers, `~>` by its definition.
        #[test]
        fn the_operators_agree_with_the_order_of_releases(
            op in proptest::sample::select(OPS),
            c3 in (0u32..3, 0u32..3, 0u32..3),
            written in 1usize..4,
            v3 in (0u32..3, 0u32..3, 0u32..3),
        ) {
            let parts = [c3.0, c3.1, c3.2];
            let text = format!("{op} {}", parts[..written].iter().map(u32::to_string).collect::<Vec<_>>().join("."));
            let mut cv = [0; 3];
            cv[..written].copy_from_slice(&parts[..written]);
            let (cv, v) = (Version::new(cv[0], cv[1], cv[2]), Version::new(v3.0, v3.1, v3.2));
            let want = match op {
                "" | "=" => v == cv,
                "!=" => v != cv,
                ">" => v > cv,
                ">=" => v >= cv,
                "<" => v < cv,
                "<=" => v <= cv,
                // Below the next of the second-to-last segment written; one segment: no bound.
                _ => v >= cv && match written {
                    1 => true,
                    2 => v.major == cv.major,
                    _ => (v.major, v.minor) == (cv.major, cv.minor),
                },
            };
            proptest::prop_assert_eq!(c(&text).admits(v), want, "{} against {}", text, v);
        }

        #[test]
        fn the_lowest_patch_sweep_agrees_with_testing_each_patch_at_random(
            elements in proptest::collection::vec(
                (proptest::sample::select(OPS), 9u32..12, 0u32..6, proptest::sample::select(&["", ".0", ".1", "-rc1"][..])),
                1..5,
            ),
        ) {
            let text: Vec<String> = elements.iter().map(|(op, m, p, tail)| format!("{op} 1.{m}.{p}{tail}")).collect();
            let k = [c(&text.join(","))];
            let brute = (0..12).find(|&p| admits_all(&k, Version::new(1, 10, p)));
            proptest::prop_assert_eq!(lowest_patch(1, 10, &k), brute, "{:?}", text);
        }

        #[test]
        fn any_text_is_a_constraint_or_an_error_never_a_panic(text in "[ ~<>=!v0-9.,+a-z\\-]{0,40}") {
            if let Ok(k) = Constraint::parse(&text) {
                let _ = k.admits(Version::new(1, 9, 8));
                let _ = admitted(std::slice::from_ref(&k), Engine::OpenTofu);
            }
        }
    }

    #[test]
    fn a_constraint_of_many_elements_is_resolved_in_linear_time() {
        let many: Vec<String> = (0..100_000).map(|i| format!("!= 1.10.{i}")).collect();
        let k = [c(&many.join(","))];
        assert_eq!(oldest_admitted(&k, Engine::OpenTofu), Some(tofu(1, 6, 0)));
        let tofu_1_10 = admitted(&k, Engine::OpenTofu).into_iter().find(|r| r.version.minor == 10);
        assert_eq!(tofu_1_10, Some(tofu(1, 10, 100_000)));
        assert!(admitted(&k, Engine::Terraform).iter().all(|r| r.version.minor != 10));
    }

    #[test]
    fn the_lowest_patch_sweep_agrees_with_testing_each_patch() {
        let sets = [
            vec![">= 1.10.3", "!= 1.10.4", "< 1.10.9"],
            vec!["> 1.10.3", "!= 1.10.4", "!= 1.10.5"],
            vec!["~> 1.10.2", "< 1.10.2"],
            vec!["= 1.10.2.0"],
            vec!["> 1.10.2.1"],
            vec!["<= 1.10.2-rc1", ">= 1.10.0"],
            vec![">= 1.10.2-rc1", "!= 1.10.2"],
            vec!["~> 1.10", "!= 1.10.0"],
            vec!["~> 1.10.2.1"],
            vec![">= 1.11"],
        ];
        for set in sets {
            let k: Vec<Constraint> = set.iter().map(|t| c(t)).collect();
            let brute = (0..40).find(|&p| admits_all(&k, Version::new(1, 10, p)));
            assert_eq!(lowest_patch(1, 10, &k), brute, "{set:?}");
        }
    }

    #[test]
    fn a_huge_constraint_is_parsed_or_refused_without_trouble() {
        let long = vec![">= 1.0"; 10_000].join(",");
        assert!(c(&long).admits(Version::new(1, 9, 0)));
        let junk = "9".repeat(100_000);
        assert!(Constraint::parse(&junk).is_err());
        let pre = format!("1.0.0-{}", "a".repeat(100_000));
        assert!(!c(&pre).admits(Version::new(1, 0, 0)));
    }
}
