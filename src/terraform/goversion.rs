//! A version as hashicorp/go-version reads and orders it (its `NewVersion` and `Compare`),
//! for the constraints of `constraint.rs`: any number of numeric segments (padded to three),
//! a leading `v`, a pre-release and build metadata, and go-version's order of pre-releases.

use std::cmp::Ordering;

use super::release::Version;

/// A version as go-version reads it: numeric segments (at least three, padded), how many
/// were written (the pessimistic operator counts them), a pre-release and build metadata.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GoVersion {
    pub(crate) segments: Vec<i64>,
    pub(crate) written: usize,
    pub(crate) pre: String,
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

    /// The first three segments as a release number, where they fit one.
    pub fn core(&self) -> Option<Version> {
        let n = |i: usize| self.segments.get(i).and_then(|&s| u32::try_from(s).ok());
        Some(Version::new(n(0)?, n(1)?, n(2)?))
    }

    /// go-version's `Compare`: segments of different lengths are equal where the longer
    /// one's extra segments are zeros, and a pre-release counts only between equal segments.
    pub fn compare(&self, other: &GoVersion) -> Ordering {
        // go-version first tests its canonical texts for equality; equal texts have equal
        // segments and pre-releases, which the next test finds equal without building them.
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

#[cfg(test)]
mod tests {
    use super::*;

    fn v(text: &str) -> GoVersion {
        GoVersion::parse(text).unwrap_or_else(|| panic!("{text} is a version"))
    }

    #[test]
    fn versions_parse_with_go_versions_shapes_of_suffix() {
        assert_eq!(v("1.2-beta").pre, "beta");
        assert_eq!(v("1.2beta").pre, "beta");
        assert_eq!(v("1.2.3-4.x").pre, "4.x");
        assert_eq!(v("1.2--x").pre, "-x");
        assert_eq!(v("1.2-").pre, "-");
        assert_eq!(v("1.2.3~rc").pre, "~rc");
        assert_eq!(v("1.2.3+build.5").pre, "");
        assert_eq!(v("v1.15.5").core(), Some(Version::new(1, 15, 5)));
        assert_eq!(v("1.2.3.4").core(), Some(Version::new(1, 2, 3)));
        assert_eq!(v("9999999999.0").core(), None);
        assert!(GoVersion::parse("1.2.3_4").is_none());
        assert!(GoVersion::parse("-1.2").is_none());
    }

    #[test]
    fn versions_order_as_go_version_orders_them() {
        let cmp = |a: &str, b: &str| v(a).compare(&v(b));
        assert_eq!(cmp("1.0", "1.0.0.0"), Ordering::Equal);
        assert_eq!(cmp("1.0.0+a", "1.0.0+b"), Ordering::Equal);
        assert_eq!(cmp("1.0.0.1", "1.0.0"), Ordering::Greater);
        assert_eq!(cmp("1.0.0-2", "1.0.0-10"), Ordering::Less);
        assert_eq!(cmp("1.0.0-10", "1.0.0-alpha"), Ordering::Less);
        assert_eq!(cmp("1.0.0-alpha.1", "1.0.0-alpha"), Ordering::Greater);
        assert_eq!(cmp("1.0.0-rc1", "1.0.0"), Ordering::Less);
        // go's ParseInt takes a sign: `-5` is a number in a pre-release.
        assert_eq!(cmp("1.0.0-x.-5", "1.0.0-x.a"), Ordering::Less);
    }
}
