//! Arbitrary-precision numbers. Terraform's numbers are 512-bit floats that print in plain
//! decimal notation, so every literal a user writes comes back digit for digit
//! (`12345678901234567890123`, `1e40` written out). A decimal mantissa with an exponent
//! reproduces that exactly, with no crate and no rounding on the common paths.

use std::cmp::Ordering;

use override_guard_hcl::number::Literal;

/// A number: finite (`digits × 10^exp`, sign kept even for zero) or an infinity.
#[derive(Clone, Debug)]
pub enum Number {
    Finite {
        neg: bool,
        /// Decimal digits, most significant first; no leading or trailing zeros (zero is empty).
        /// Boxed, not a `Vec`: a number is then 32 bytes, and every value as small as it.
        digits: Box<[u8]>,
        exp: i64,
    },
    Inf {
        neg: bool,
    },
}

/// Significant digits kept by a division that does not terminate (Terraform keeps 512 bits,
/// about 154 digits).
const DIV_DIGITS: usize = 160;

impl Number {
    pub fn from_i64(n: i64) -> Number {
        Number::parse(&n.to_string()).unwrap_or(Number::zero())
    }

    pub fn zero() -> Number {
        Number::Finite { neg: false, digits: Box::default(), exp: 0 }
    }

    fn finite(neg: bool, mut digits: Vec<u8>, mut exp: i64) -> Number {
        let lead = digits.iter().take_while(|d| **d == 0).count();
        digits.drain(..lead);
        while digits.last() == Some(&0) {
            digits.pop();
            exp += 1;
        }
        if digits.is_empty() {
            exp = 0;
        }
        Number::Finite { neg, digits: digits.into_boxed_slice(), exp }
    }

    /// Parses a number as go's `big.ParseFloat(s, 10, …)` does (the HCL crate's reading
    /// of a literal, which the parser shares).
    pub fn parse(s: &str) -> Option<Number> {
        Some(match override_guard_hcl::number::parse(s)? {
            Literal::Finite { neg, digits, exp } => Number::finite(neg, digits, exp),
            Literal::Inf { neg } => Number::Inf { neg },
        })
    }

    pub(crate) fn is_neg(&self) -> bool {
        match self {
            Number::Finite { neg, .. } | Number::Inf { neg } => *neg,
        }
    }

    pub(crate) fn is_zero(&self) -> bool {
        matches!(self, Number::Finite { digits, .. } if digits.is_empty())
    }

    /// The value as an integer, if it is one and fits.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Number::Finite { exp, .. } if *exp >= 0 => self.to_text().parse().ok(),
            _ => None,
        }
    }

    /// Plain decimal notation, as Terraform prints numbers (`big.Float.Text('f', -1)`).
    pub fn to_text(&self) -> String {
        match self {
            Number::Inf { neg } => if *neg { "-Inf" } else { "+Inf" }.to_string(),
            Number::Finite { neg, digits, exp } => {
                let mut s = String::new();
                if *neg {
                    s.push('-');
                }
                if digits.is_empty() {
                    s.push('0');
                    return s;
                }
                let body: String = digits.iter().map(|d| char::from(b'0' + d)).collect();
                if *exp >= 0 {
                    s.push_str(&body);
                    s.extend(std::iter::repeat_n('0', *exp as usize));
                } else {
                    let point = digits.len() as i64 + exp;
                    if point > 0 {
                        s.push_str(&body[..point as usize]);
                        s.push('.');
                        s.push_str(&body[point as usize..]);
                    } else {
                        s.push_str("0.");
                        s.extend(std::iter::repeat_n('0', (-point) as usize));
                        s.push_str(&body);
                    }
                }
                s
            }
        }
    }

    /// `big.Float.Text('g', 10)`: the form go-cty hashes set elements by, which decides the
    /// order of sets of collections.
    pub fn to_g10(&self) -> String {
        let Number::Finite { neg, digits, exp } = self else {
            return self.to_text();
        };
        if digits.is_empty() {
            return if *neg { "-0" } else { "0" }.to_string();
        }
        let rounded = round_digits(digits, *exp, 10);
        let (d, e) = match &rounded {
            Number::Finite { digits, exp, .. } => (digits.clone(), *exp),
            Number::Inf { .. } => return self.to_text(),
        };
        // Decimal exponent of the leading digit.
        let x = d.len() as i64 + e - 1;
        let sign = if *neg { "-" } else { "" };
        let body: String = d.iter().map(|v| char::from(b'0' + v)).collect();
        if !(-4..10).contains(&x) {
            let mut m = body[..1].to_string();
            if body.len() > 1 {
                m.push('.');
                m.push_str(&body[1..]);
            }
            let es = if x < 0 { '-' } else { '+' };
            format!("{sign}{m}e{es}{:02}", x.abs())
        } else {
            let n = Number::Finite { neg: *neg, digits: d, exp: e };
            n.to_text()
        }
    }

    fn parts(&self) -> Option<(bool, &[u8], i64)> {
        match self {
            Number::Finite { neg, digits, exp } => Some((*neg, digits, *exp)),
            Number::Inf { .. } => None,
        }
    }

    /// Numeric comparison; `-0` equals `0`.
    pub fn cmp_num(&self, other: &Number) -> Ordering {
        let rank = |n: &Number| -> i32 {
            match n {
                Number::Inf { neg: true } => -2,
                Number::Inf { neg: false } => 2,
                n if n.is_zero() => 0,
                n if n.is_neg() => -1,
                _ => 1,
            }
        };
        let (ra, rb) = (rank(self), rank(other));
        if ra != rb || ra.abs() != 1 {
            return ra.cmp(&rb);
        }
        let (Some((_, da, ea)), Some((_, db, eb))) = (self.parts(), other.parts()) else {
            return Ordering::Equal;
        };
        let mag = cmp_mag_scaled(da, ea, db, eb);
        if ra < 0 { mag.reverse() } else { mag }
    }

    pub fn neg(&self) -> Number {
        match self.clone() {
            Number::Finite { neg, digits, exp } => Number::Finite { neg: !neg, digits, exp },
            Number::Inf { neg } => Number::Inf { neg: !neg },
        }
    }

    pub fn add(&self, other: &Number) -> Number {
        match (self.parts(), other.parts()) {
            (Some((na, da, ea)), Some((nb, db, eb))) => {
                let e = ea.min(eb);
                let a = shift(da, ea - e);
                let b = shift(db, eb - e);
                if na == nb {
                    let neg = na && (!a.is_empty() || !b.is_empty() || nb);
                    Number::finite(neg, add_mag(&a, &b), e)
                } else {
                    match cmp_mag(&a, &b) {
                        Ordering::Less => Number::finite(nb, sub_mag(&b, &a), e),
                        _ if a == b => Number::zero(),
                        _ => Number::finite(na, sub_mag(&a, &b), e),
                    }
                }
            }
            (None, _) => self.clone(),
            (_, None) => other.clone(),
        }
    }

    pub fn sub(&self, other: &Number) -> Number {
        self.add(&other.neg())
    }

    pub fn mul(&self, other: &Number) -> Number {
        let neg = self.is_neg() != other.is_neg();
        match (self.parts(), other.parts()) {
            (Some((_, da, ea)), Some((_, db, eb))) => Number::finite(neg, mul_mag(da, db), ea + eb),
            _ => Number::Inf { neg },
        }
    }

    /// Division; by zero gives an infinity, as in Terraform.
    pub fn div(&self, other: &Number) -> Number {
        let neg = self.is_neg() != other.is_neg();
        match (self.parts(), other.parts()) {
            (Some(_), Some(_)) if other.is_zero() => Number::Inf { neg },
            (Some((_, da, ea)), Some((_, db, eb))) => {
                if da.is_empty() {
                    return Number::finite(neg, Vec::new(), 0);
                }
                // Scale the dividend so the quotient has enough digits.
                let extra = (DIV_DIGITS + db.len()).saturating_sub(da.len()) as i64;
                let num = shift(da, extra);
                let (q, _) = divmod_mag(&num, db);
                Number::finite(neg, q, ea - eb - extra)
            }
            (None, _) => Number::Inf { neg },
            (_, None) => Number::zero(),
        }
    }

    /// Remainder with the sign of the dividend (go-cty's `Modulo` on integers and decimals).
    pub fn rem(&self, other: &Number) -> Number {
        match (self.parts(), other.parts()) {
            (Some((na, da, ea)), Some((_, db, eb))) if !other.is_zero() => {
                let e = ea.min(eb);
                let (_, r) = divmod_mag(&shift(da, ea - e), &shift(db, eb - e));
                Number::finite(na, r, e)
            }
            _ => Number::zero(),
        }
    }
}

impl PartialEq for Number {
    fn eq(&self, other: &Number) -> bool {
        self.cmp_num(other) == Ordering::Equal
    }
}

fn round_digits(digits: &[u8], exp: i64, keep: usize) -> Number {
    if digits.len() <= keep {
        return Number::finite(false, digits.to_vec(), exp);
    }
    let cut = digits.len() - keep;
    let mut head = digits[..keep].to_vec();
    let rest = &digits[keep..];
    let half_up = rest[0] > 5
        || (rest[0] == 5 && (rest[1..].iter().any(|d| *d != 0) || head[keep - 1] % 2 == 1));
    if half_up {
        head = add_mag(&head, &[1]);
    }
    Number::finite(false, head, exp + cut as i64)
}

fn shift(d: &[u8], zeros: i64) -> Vec<u8> {
    let mut v = d.to_vec();
    v.extend(std::iter::repeat_n(0, zeros.max(0) as usize));
    v
}

fn trim(mut v: Vec<u8>) -> Vec<u8> {
    let lead = v.iter().take_while(|d| **d == 0).count();
    v.drain(..lead);
    v
}

fn cmp_mag(a: &[u8], b: &[u8]) -> Ordering {
    let (a, b) = (trim(a.to_vec()), trim(b.to_vec()));
    a.len().cmp(&b.len()).then_with(|| a.cmp(&b))
}

fn cmp_mag_scaled(da: &[u8], ea: i64, db: &[u8], eb: i64) -> Ordering {
    let e = ea.min(eb);
    cmp_mag(&shift(da, ea - e), &shift(db, eb - e))
}

fn add_mag(a: &[u8], b: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(a.len().max(b.len()) + 1);
    let (mut i, mut j, mut carry) = (a.len(), b.len(), 0u8);
    while i > 0 || j > 0 || carry > 0 {
        let mut s = carry;
        if i > 0 {
            i -= 1;
            s += a[i];
        }
        if j > 0 {
            j -= 1;
            s += b[j];
        }
        out.push(s % 10);
        carry = s / 10;
    }
    out.reverse();
    trim(out)
}

/// `a - b` for `a >= b`.
fn sub_mag(a: &[u8], b: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(a.len());
    let (mut i, mut j, mut borrow) = (a.len(), b.len(), 0i8);
    while i > 0 {
        i -= 1;
        let mut s = a[i] as i8 - borrow;
        if j > 0 {
            j -= 1;
            s -= b[j] as i8;
        }
        borrow = if s < 0 { 1 } else { 0 };
        out.push((s + 10 * borrow) as u8);
    }
    out.reverse();
    trim(out)
}

fn mul_mag(a: &[u8], b: &[u8]) -> Vec<u8> {
    if a.is_empty() || b.is_empty() {
        return Vec::new();
    }
    let mut acc = vec![0u32; a.len() + b.len()];
    for (i, x) in a.iter().enumerate().rev() {
        for (j, y) in b.iter().enumerate().rev() {
            acc[i + j + 1] += (*x as u32) * (*y as u32);
        }
    }
    for k in (1..acc.len()).rev() {
        let carry = acc[k] / 10;
        acc[k] %= 10;
        acc[k - 1] += carry;
    }
    trim(acc.into_iter().map(|d| d as u8).collect())
}

/// Long division of magnitudes: quotient and remainder.
fn divmod_mag(a: &[u8], b: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let mut q = Vec::with_capacity(a.len());
    let mut r: Vec<u8> = Vec::new();
    for d in a {
        r.push(*d);
        r = trim(r);
        let mut n = 0;
        while cmp_mag(&r, b) != Ordering::Less {
            r = sub_mag(&r, b);
            n += 1;
        }
        q.push(n);
    }
    (trim(q), r)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(s: &str) -> Number {
        Number::parse(s).unwrap_or_else(|| panic!("{s}"))
    }

    #[test]
    fn parses_like_go() {
        for (src, text) in [
            ("42", "42"),
            ("+5", "5"),
            (".5", "0.5"),
            ("1.", "1"),
            ("007", "7"),
            ("1.5e-3", "0.0015"),
            ("1e20", "100000000000000000000"),
            ("1e-7", "0.0000001"),
            ("1.50", "1.5"),
            ("-0", "-0"),
            ("Inf", "+Inf"),
            ("-inf", "-Inf"),
            ("0.12345678901234567890123", "0.12345678901234567890123"),
        ] {
            assert_eq!(n(src).to_text(), text, "{src}");
        }
        for bad in
            [" 42", "42 ", "0x10", "1_000", "NaN", "Infinity", "", ".", "1e", "e5", "1e999999999"]
        {
            assert!(Number::parse(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn arithmetic_is_exact() {
        assert_eq!(n("0.1").add(&n("0.2")).to_text(), "0.3");
        assert_eq!(n("2").mul(&n("3")).to_text(), "6");
        assert_eq!(n("1").sub(&n("3")).to_text(), "-2");
        assert_eq!(n("1").div(&n("4")).to_text(), "0.25");
        assert_eq!(n("1").div(&n("0")).to_text(), "+Inf");
        assert_eq!(n("7").rem(&n("3")).to_text(), "1");
        assert!(n("10").cmp_num(&n("9")) == Ordering::Greater);
        assert!(n("-10").cmp_num(&n("9")) == Ordering::Less);
        assert_eq!(n("-0"), n("0"));
    }

    #[test]
    fn g10_matches_go() {
        assert_eq!(n("1").to_g10(), "1");
        assert_eq!(n("2.5").to_g10(), "2.5");
        assert_eq!(n("1e20").to_g10(), "1e+20");
        assert_eq!(n("0.00001").to_g10(), "1e-05");
        assert_eq!(n("123456789012").to_g10(), "1.23456789e+11");
    }
}
