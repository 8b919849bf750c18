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
use super::release::{self, Release, Version};

/// A version as go-version reads it: numeric segments (at least three, padded), how many
/// were written (the pessimistic operator counts them), a pre-release and build metadata.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GoVersion {
    segments: Vec<i64>,
    written: usize,
    pre: String,
    meta: String,
}

/// go-version's characters of a pre-release or metadata identifier.
fn ident_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-' || b == b'~'
}

/// Dot-separated identifiers, none empty: go-version's `x(\.y)*` over [`ident_char`].
fn dotted(s: &str) -> bool {
    !s.is_empty() && s.split('.').all(|p| !p.is_empty() && p.bytes().all(ident_char))
}

/// Go's `strconv.ParseInt(s, 10, 64)`: an optional sign, then decimal digits that fit.
fn go_parse_int(s: &str) -> Option<i64> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

impl GoVersion {
    /// go-version's `NewVersion`: the whole text must be one version (`VersionRegexpRaw`).
    pub fn parse(text: &str) -> Option<GoVersion> {
        let s = text.strip_prefix('v').unwrap_or(text);
        let end = s.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(s.len());
        let (nums, rest) = s.split_at(end);
        // The segments end before a dot that no digit follows (`1.2.x` is no version).
        if nums.ends_with('.') {
            return None;
        }
        if nums.contains("..") || nums.starts_with('.') || nums.is_empty() {
            return None;
        }
        let mut segments = Vec::new();
        for part in nums.split('.') {
            // Digits only here; go-version's `ParseInt` fails where they do not fit 64 bits.
            segments.push(part.parse::<i64>().ok()?);
        }
        let written = segments.len();
        while segments.len() < 3 {
            segments.push(0);
        }
        let (pre_text, meta) = match rest.split_once('+') {
            Some((p, m)) if dotted(m) => (p, m),
            Some(_) => return None,
            None => (rest, ""),
        };
        let alt2 = |t: &str| {
            dotted(t) && t.starts_with(|c: char| c.is_ascii_alphabetic() || c == '-' || c == '~')
        };
        let pre = if pre_text.is_empty() {
            ""
        } else if let Some(r) =
            pre_text.strip_prefix('-').filter(|r| r.starts_with(|c: char| c.is_ascii_digit()))
        {
            // `-` then an identifier that starts with a digit.
            if !dotted(r) {
                return None;
            }
            r
        } else if let Some(r) = pre_text.strip_prefix('-').filter(|r| alt2(r)) {
            // An optional `-` (taken where it can be) then one that starts with a letter.
            r
        } else if alt2(pre_text) {
            pre_text
        } else {
            return None;
        };
        Some(GoVersion { segments, written, pre: pre.to_string(), meta: meta.to_string() })
    }

    /// A release's version, three segments and no pre-release.
    pub fn of(v: Version) -> GoVersion {
        GoVersion {
            segments: vec![v.major.into(), v.minor.into(), v.patch.into()],
            written: 3,
            pre: String::new(),
            meta: String::new(),
        }
    }

    /// The pre-release, empty where there is none.
    pub fn prerelease(&self) -> &str {
        &self.pre
    }

    /// The first three segments as a release number, where they fit one.
    pub fn core(&self) -> Option<Version> {
        let n = |i: usize| self.segments.get(i).and_then(|&s| u32::try_from(s).ok());
        Some(Version::new(n(0)?, n(1)?, n(2)?))
    }

    /// go-version's `String`: the canonical text its `Compare` first tests for equality.
    fn canonical(&self) -> String {
        let mut s = self.segments.iter().map(i64::to_string).collect::<Vec<_>>().join(".");
        if !self.pre.is_empty() {
            s.push('-');
            s.push_str(&self.pre);
        }
        if !self.meta.is_empty() {
            s.push('+');
            s.push_str(&self.meta);
        }
        s
    }

    /// go-version's `Compare`: segments of different lengths are equal where the longer
    /// one's extra segments are zeros, and a pre-release counts only between equal segments.
    pub fn compare(&self, other: &GoVersion) -> Ordering {
        if self.canonical() == other.canonical() {
            return Ordering::Equal;
        }
        if self.segments == other.segments {
            return match (self.pre.is_empty(), other.pre.is_empty()) {
                (true, true) => Ordering::Equal,
                (true, false) => Ordering::Greater,
                (false, true) => Ordering::Less,
                (false, false) => compare_prereleases(&self.pre, &other.pre),
            };
        }
        let (a, b) = (&self.segments, &other.segments);
        for i in 0..a.len().max(b.len()) {
            match (a.get(i), b.get(i)) {
                (Some(x), Some(y)) if x == y => continue,
                (Some(x), Some(y)) => return x.cmp(y),
                (None, _) => {
                    return if b[i..].iter().all(|&s| s == 0) {
                        Ordering::Equal
                    } else {
                        Ordering::Less
                    };
                }
                (_, None) => {
                    return if a[i..].iter().all(|&s| s == 0) {
                        Ordering::Equal
                    } else {
                        Ordering::Greater
                    };
                }
            }
        }
        Ordering::Equal
    }
}

/// go-version's `comparePart`, kept as it is (numeric parts sort before words; two words
/// compare as bytes).
fn compare_part(a: &str, b: &str) -> Ordering {
    if a == b {
        return Ordering::Equal;
    }
    let (an, bn) = (go_parse_int(a), go_parse_int(b));
    if a.is_empty() {
        return if bn.is_some() { Ordering::Less } else { Ordering::Greater };
    }
    if b.is_empty() {
        return if an.is_some() { Ordering::Greater } else { Ordering::Less };
    }
    match (an, bn) {
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) if a > b => Ordering::Greater,
        (Some(x), Some(y)) if x > y => Ordering::Greater,
        _ => Ordering::Less,
    }
}

/// go-version's `comparePrereleases`: part by part, a missing part as empty.
fn compare_prereleases(a: &str, b: &str) -> Ordering {
    if a == b {
        return Ordering::Equal;
    }
    let (pa, pb): (Vec<&str>, Vec<&str>) = (a.split('.').collect(), b.split('.').collect());
    for i in 0..pa.len().max(pb.len()) {
        let c = compare_part(pa.get(i).copied().unwrap_or(""), pb.get(i).copied().unwrap_or(""));
        if c != Ordering::Equal {
            return c;
        }
    }
    Ordering::Equal
}

/// A constraint's operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
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
/// says [`ConstraintError::SUMMARY`] and [`ConstraintError::DETAIL`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConstraintError {
    /// The text refused.
    pub text: String,
    /// go-version's own reason (`malformed constraint: >= 1.x`).
    pub reason: String,
}

impl ConstraintError {
    pub const SUMMARY: &'static str = "Invalid version constraint";
    pub const DETAIL: &'static str = "This string does not use correct version constraint syntax.";
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

    /// Terraform's error for [`Constraint::prerelease_element`]: summary and detail.
    pub fn prerelease_error(&self, engine: Engine) -> Option<(&'static str, String)> {
        let element = self.prerelease_element()?;
        let name = match engine {
            Engine::Terraform => "terraform",
            Engine::OpenTofu => "OpenTofu",
        };
        Some((
            "Invalid required_version constraint",
            format!(
                "Prerelease version constraints are not supported: {element}. Remove the \
                 prerelease information from the constraint. Prerelease versions of {name} \
                 will match constraints using their version core only."
            ),
        ))
    }

    /// The versions of each element, for the patches worth testing in [`admitted`].
    fn versions(&self) -> impl Iterator<Item = &GoVersion> {
        self.all.iter().map(|s| &s.check)
    }
}

impl fmt::Display for Constraint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// Do all the constraints (several `required_version` attributes) admit the version?
pub fn admits_all(constraints: &[Constraint], v: Version) -> bool {
    constraints.iter().all(|c| c.admits(v))
}

/// The patches of a modelled minor that the constraints admit, lowest first. Terraform's
/// are 0 to the newest listed; OpenTofu's minor stands for every patch, so the patches worth
/// testing are 0 and those beside a patch a constraint names (where an admitted run of
/// patches can begin or end).
fn admitted_patches(r: Release, constraints: &[Constraint]) -> Vec<u32> {
    let v = r.version;
    let mut patches: Vec<u32> = if release::models_patches(r.engine) {
        (0..=v.patch).collect()
    } else {
        let mut p = vec![0];
        for c in constraints.iter().flat_map(Constraint::versions) {
            if c.segments[0] == i64::from(v.major) && c.segments[1] == i64::from(v.minor) {
                let named = u32::try_from(c.segments[2]).unwrap_or(u32::MAX);
                p.extend([named.saturating_sub(1), named, named.saturating_add(1)]);
            }
        }
        p.sort_unstable();
        p.dedup();
        p
    };
    patches.retain(|&p| admits_all(constraints, Version::new(v.major, v.minor, p)));
    patches
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
pub fn newest_admitted(constraints: &[Constraint], engine: Engine) -> Option<Release> {
    admitted(constraints, engine).pop()
}

/// The oldest modelled release the constraints admit, its lowest admitted patch (tenv's
/// `min-required`).
pub fn oldest_admitted(constraints: &[Constraint], engine: Engine) -> Option<Release> {
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
    fn versions_parse_with_go_versions_shapes_of_suffix() {
        assert_eq!(v("1.2-beta").prerelease(), "beta");
        assert_eq!(v("1.2beta").prerelease(), "beta");
        assert_eq!(v("1.2.3-4.x").prerelease(), "4.x");
        assert_eq!(v("1.2--x").prerelease(), "-x");
        assert_eq!(v("1.2-").prerelease(), "-");
        assert_eq!(v("1.2.3~rc").prerelease(), "~rc");
        assert_eq!(v("1.2.3+build.5").prerelease(), "");
        assert_eq!(v("v1.15.5").core(), Some(Version::new(1, 15, 5)));
        assert_eq!(v("1.2.3.4").core(), Some(Version::new(1, 2, 3)));
        assert_eq!(v("9999999999.0").core(), None);
        assert!(GoVersion::parse("1.2.3_4").is_none());
        assert!(GoVersion::parse("-1.2").is_none());
    }

    #[test]
    fn terraform_refuses_a_pre_release_in_required_version() {
        let k = c(">= 1.9, < 1.15.0-beta1");
        assert_eq!(k.prerelease_element(), Some(" < 1.15.0-beta1"));
        let (summary, detail) = k.prerelease_error(Engine::Terraform).expect("refused");
        assert_eq!(summary, "Invalid required_version constraint");
        assert!(
            detail
                .starts_with("Prerelease version constraints are not supported:  < 1.15.0-beta1. ")
        );
        assert!(detail.ends_with(
            "Prerelease versions of terraform will match constraints using their version core only."
        ));
        let (_, tofu_detail) = k.prerelease_error(Engine::OpenTofu).expect("refused");
        assert!(tofu_detail.contains("Prerelease versions of OpenTofu will"));
        assert_eq!(c(">= 1.9").prerelease_error(Engine::Terraform), None);
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
        fn any_text_is_a_constraint_or_an_error_never_a_panic(text in "[ ~<>=!v0-9.,+a-z\\-]{0,40}") {
            if let Ok(k) = Constraint::parse(&text) {
                let _ = k.admits(Version::new(1, 9, 8));
                let _ = admitted(std::slice::from_ref(&k), Engine::OpenTofu);
            }
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
