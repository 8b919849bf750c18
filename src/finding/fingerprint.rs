//! A finding's identity across commits: what a baseline records, what SARIF carries as
//! `partialFingerprints` (so code scanning tracks a finding as lines move), and what
//! `--new-only` compares. Line and column numbers do not count, nor digits in the message
//! (they name lines: `overridden in override.tf:12`).

use std::collections::HashMap;

use super::Finding;

/// The text a finding is known by: rule, path, address and message without digits.
pub(crate) fn key(f: &Finding) -> String {
    let message: String = f.message.chars().filter(|c| !c.is_ascii_digit()).collect();
    format!(
        "{}\u{0}{}\u{0}{}\u{0}{}",
        f.rule,
        f.primary.path,
        f.address.as_deref().unwrap_or(""),
        message
    )
}

/// FNV-1a, 64 bits: stable across platforms and releases (the standard library's hasher
/// promises neither), and a baseline of a few thousand findings needs no more.
fn fnv1a(s: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The fingerprint of each finding, in order: the hash of its [`key`], then `:n` for the
/// n-th finding with that key (two identical findings are two entries of a baseline, as
/// GitHub numbers its own line hashes).
pub(crate) fn all(findings: &[Finding]) -> Vec<String> {
    let mut seen: HashMap<u64, usize> = HashMap::new();
    findings
        .iter()
        .map(|f| {
            let h = fnv1a(&key(f));
            let n = seen.entry(h).or_default();
            *n += 1;
            format!("{h:016x}:{n}")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finding::Site;

    fn finding(path: &str, start: usize, message: &str) -> Finding {
        let source: std::sync::Arc<str> = "a\nb\nc\n".into();
        let site = Site {
            path: path.into(),
            source,
            base: Default::default(),
            start,
            end: start + 1,
            label: String::new(),
        };
        Finding::new(crate::finding::RuleId::OverrideFile, message, site)
    }

    #[test]
    fn lines_do_not_count_but_paths_and_messages_do() {
        let a = all(&[finding("m/override.tf", 0, "overrides main.tf:3")]);
        let moved = all(&[finding("m/override.tf", 4, "overrides main.tf:5")]);
        assert_eq!(a, moved);
        assert_ne!(a, all(&[finding("n/override.tf", 0, "overrides main.tf:3")]));
        assert_ne!(a, all(&[finding("m/override.tf", 0, "overrides other.tf:3")]));
        // A pinned value: a change of the hash or the key orphans every baseline written.
        assert_eq!(
            a[0],
            format!("{:016x}:1", fnv1a("override-file\0m/override.tf\0\0overrides main.tf:"))
        );
        assert_eq!(fnv1a("a"), 0xaf63_dc4c_8601_ec8c);
    }

    #[test]
    fn equal_findings_are_numbered() {
        let f = finding("m/override.tf", 0, "x");
        let fps = all(&[f.clone(), f.clone(), finding("m/override.tf", 2, "y"), f]);
        assert!(fps[0].ends_with(":1") && fps[1].ends_with(":2") && fps[3].ends_with(":3"));
        assert_eq!(fps[0][..16], fps[1][..16]);
        assert!(fps[2].ends_with(":1"));
    }
}
