//! Number literals, read as HCL reads them (Go's `big.ParseFloat(s, 10, …)`): the parser
//! needs to know whether a literal has a value; the arithmetic on values is the
//! evaluator's business and lives with it.

/// The largest decimal exponent a literal may have (`1e100000`): far beyond any real
/// number, and written out in full it would exhaust memory.
pub const MAX_EXP: i64 = 100_000;

/// A literal's value as written: `digits × 10^exp` (digits as written, most significant
/// first, leading and trailing zeros included), or an infinity.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Literal {
    Finite { neg: bool, digits: Vec<u8>, exp: i64 },
    Inf { neg: bool },
}

/// Parses a number as Go's `big.ParseFloat(s, 10, …)` does: an optional sign, digits with
/// an optional point, an optional `e` exponent, or `Inf` / `inf`. No spaces, no `0x`, no
/// underscores; `None` when it has no value.
pub fn parse(s: &str) -> Option<Literal> {
    let (neg, rest) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    if rest == "Inf" || rest == "inf" {
        return Some(Literal::Inf { neg });
    }
    let (mant, exp_part) = match rest.find(['e', 'E']) {
        Some(i) => (&rest[..i], Some(&rest[i + 1..])),
        None => (rest, None),
    };
    let (int, frac) = match mant.find('.') {
        Some(i) => (&mant[..i], &mant[i + 1..]),
        None => (mant, ""),
    };
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    if !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut exp: i64 = 0;
    if let Some(e) = exp_part {
        let digits = e.strip_prefix(['+', '-']).unwrap_or(e);
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        exp = e.parse().ok()?;
        if exp.abs() > MAX_EXP {
            return None;
        }
    }
    let digits = int.bytes().chain(frac.bytes()).map(|b| b - b'0').collect();
    Some(Literal::Finite { neg, digits, exp: exp - frac.len() as i64 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_what_go_reads() {
        assert_eq!(
            parse("-1.50e2"),
            Some(Literal::Finite { neg: true, digits: vec![1, 5, 0], exp: 0 })
        );
        assert_eq!(parse("+inf"), Some(Literal::Inf { neg: false }));
        for bad in
            [" 42", "42 ", "0x10", "1_000", "NaN", "Infinity", "", ".", "1e", "e5", "1e999999999"]
        {
            assert!(parse(bad).is_none(), "{bad}");
        }
    }
}
