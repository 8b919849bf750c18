//! Files that are not text: what they most likely are, and their errors as one. A binary
//! file saved under a configuration file's name is one error, not the hundreds or
//! thousands Terraform gives (one per byte it cannot read: 2,379 for the first 4 KiB of an
//! executable); the one error is Terraform's first (the engine rejects the file), with
//! what the file most likely is. Pure: bytes and diagnostics in, diagnostics out.

use crate::diag::Diagnostic;

/// git-crypt's header: every file it encrypts starts with it (then a 12-byte nonce and
/// the ciphertext), in the repository's blobs and in a checkout not unlocked.
const GIT_CRYPT: &[u8] = b"\0GITCRYPT\0";

/// What a file that is not text most likely is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Binary {
    /// A file git-crypt encrypted, read as git stores it.
    GitCrypt,
    /// Another binary file, which holds these (`NUL bytes`, `control characters`).
    Holds(&'static str),
}

impl Binary {
    /// What the file is, as its one error's explanation begins.
    fn said(self) -> String {
        match self {
            Binary::GitCrypt => "This looks like a file encrypted by git-crypt (it starts with git-crypt's header: git stores it encrypted, and a checkout holds it so until `git-crypt unlock`)".to_string(),
            Binary::Holds(holds) => {
                format!("This looks like a binary file (it is not UTF-8 and holds {holds})")
            }
        }
    }
}

/// What `bytes` (a file's) most likely are when they are not text: a file git-crypt
/// encrypted (its header first), or another binary file: not UTF-8, with a NUL byte or
/// another control character that text does not hold (all below 0x20 but tab, line feed,
/// form feed, carriage return and escape) in its first 8,000 bytes (as git's test). `None`
/// for text (UTF-8, or another encoding: Latin-1 letters in a string keep Terraform's
/// every error, as does text with a stray NUL: it has a few, and each is worth reading).
pub(crate) fn binary_content(bytes: &[u8]) -> Option<Binary> {
    if bytes.starts_with(GIT_CRYPT) {
        return Some(Binary::GitCrypt);
    }
    if std::str::from_utf8(bytes).is_ok() {
        return None;
    }
    let head = &bytes[..bytes.len().min(8000)];
    let control =
        head.iter().any(|&b| b < 0x20 && !matches!(b, b'\t' | b'\n' | 0x0c | b'\r' | 0x1b));
    match (control, head.contains(&0)) {
        (false, _) => None,
        (true, true) => Some(Binary::Holds("NUL bytes")),
        (true, false) => Some(Binary::Holds("control characters")),
    }
}

/// The errors of a file that is not text ([`binary_content`]): its first error alone
/// (the engine's own), with what the file most likely is and how many errors are left
/// out. A file without errors keeps its diagnostics.
pub(crate) fn one_error_of_binary(mut diags: Vec<Diagnostic>, what: Binary) -> Vec<Diagnostic> {
    let errors = diags.iter().filter(|d| d.is_error()).count();
    let Some(first) = diags
        .iter()
        .enumerate()
        .filter(|(_, d)| d.is_error())
        .min_by_key(|(i, d)| (d.subject.map_or(0, |s| s.start), *i))
        .map(|(i, _)| i)
    else {
        return diags;
    };
    let d = diags.swap_remove(first);
    let others = match errors - 1 {
        0 => ".".to_string(),
        1 => ": its 1 other error is not shown.".to_string(),
        n => format!(": its {n} other errors are not shown."),
    };
    vec![d.with_cause(format!("{}{others}", what.said()))]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::terraform::Span;

    fn errors(n: usize) -> Vec<Diagnostic> {
        (0..n)
            .map(|i| Diagnostic::error(format!("e{i}"), "d", Span::new(0, 10 - i, 11 - i)))
            .collect()
    }

    #[test]
    fn a_git_crypt_file_is_said_to_be_one_even_when_it_is_utf8() {
        let mut encrypted = GIT_CRYPT.to_vec();
        encrypted.extend(b"0123456789ab");
        assert_eq!(binary_content(&encrypted), Some(Binary::GitCrypt));
        encrypted.extend([0xff, 0x00, 0x13]);
        assert_eq!(binary_content(&encrypted), Some(Binary::GitCrypt));
        assert_eq!(binary_content(b"\0GITCRYP"), None, "UTF-8, a stray NUL: text");
        assert_eq!(binary_content(&[0x89, b'P', b'N', b'G', 0]), Some(Binary::Holds("NUL bytes")));
    }

    #[test]
    fn the_first_error_stays_with_what_the_file_is() {
        let one = one_error_of_binary(errors(3), Binary::GitCrypt);
        let [d] = &one[..] else { panic!("{one:?}") };
        assert_eq!(d.summary, "e2", "the first in the file");
        assert!(d.explained().contains("encrypted by git-crypt"), "{d:?}");
        assert!(
            d.explained().ends_with("`git-crypt unlock`): its 2 other errors are not shown."),
            "{d:?}"
        );
        let one = one_error_of_binary(errors(2), Binary::Holds("NUL bytes"));
        assert!(
            one[0].explained().ends_with(
                "(it is not UTF-8 and holds NUL bytes): its 1 other error is not shown."
            ),
            "{one:?}"
        );
        let one = one_error_of_binary(errors(1), Binary::GitCrypt);
        assert!(one[0].explained().ends_with("until `git-crypt unlock`)."), "{one:?}");
        assert!(one_error_of_binary(Vec::new(), Binary::GitCrypt).is_empty());
    }
}
