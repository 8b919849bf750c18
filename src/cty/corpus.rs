//! The type-conversion corpus: every case of `tests/fixtures/types/cases.toml` was run on
//! Terraform 1.15.5. The type is parsed, the default evaluated, converted and its errors
//! reported exactly as Terraform did (a unit test: the type system is not the library's
//! surface).

use super::{DefaultError, Number, Value, check_default, eval_source, parse_type_source};
use serde::Deserialize;

#[derive(Deserialize)]
struct Corpus {
    case: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    name: String,
    #[serde(rename = "type")]
    ty: String,
    default: String,
    #[serde(default = "yes")]
    nullable: bool,
    constraint: Option<String>,
    value: Option<String>,
    value_special: Option<String>,
    value_type: Option<String>,
    error_summary: Option<String>,
    error_detail: Option<String>,
}

fn yes() -> bool {
    true
}

/// A value and its type as JSON texts, or an error's summary and detail.
type Outcome = Result<(String, String), (String, String)>;

/// What override-guard makes of a case, in the corpus's terms: the parsed constraint and
/// the outcome.
fn outcome(c: &Case) -> (Option<String>, Outcome) {
    let spec = match parse_type_source(&c.ty) {
        Ok(s) => s,
        Err(e) => return (None, Err((e.summary, e.detail))),
    };
    let constraint = Some(spec.ty.to_json().to_string());
    let value = match eval_source(&c.default) {
        Ok(v) => v,
        Err(e) => return (constraint, Err((e.summary, e.detail))),
    };
    let result = match check_default(&spec, &value, c.nullable) {
        Ok(v) => {
            let text = match &v {
                Value::Number(n @ Number::Inf { .. }) => n.to_text(),
                v => v.to_json().to_string(),
            };
            Ok((text, v.ty().to_json().to_string()))
        }
        Err(DefaultError::Convert(e)) => Err((
            "Invalid default value for variable".to_string(),
            format!(
                "This default value is not compatible with the variable's type constraint: {e}."
            ),
        )),
        Err(DefaultError::Null) => Err((
            "Invalid default value for variable".to_string(),
            "A null default value is not valid when nullable=false.".to_string(),
        )),
    };
    (constraint, result)
}

/// Cases override-guard knowingly answers differently, each for a stated reason.
const KNOWN_DIVERGENCES: &[&str] = &[
    // Terraform evaluates numbers as 512-bit binary floats; a division that does not
    // terminate ends in binary rounding digits that decimal arithmetic does not reproduce.
    "default-division-third",
    "default-division-third-as-string",
    // Syntax errors: the HCL parser rejects these expressions while reading the file, with
    // its own message, before any type is looked at.
    "object-duplicate-attr-type-error",
    "type-object-attrs-on-one-line-no-comma-error",
];

#[test]
fn conversion_corpus_matches_terraform() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/types/cases.toml"
    ))
    .expect("corpus");
    let corpus: Corpus = toml::from_str(&text).expect("corpus parses");
    let mut failures = Vec::new();
    let mut checked = 0;
    for c in &corpus.case {
        if KNOWN_DIVERGENCES.contains(&c.name.as_str()) {
            continue;
        }
        checked += 1;
        let (constraint, got) = outcome(c);
        if let (Some(want), Some(have)) = (&c.constraint, &constraint) {
            let want: serde_json::Value = serde_json::from_str(want).expect("constraint json");
            let have: serde_json::Value = serde_json::from_str(have).expect("our json");
            if want != have {
                failures.push(format!("{}: constraint {want} != ours {have}", c.name));
                continue;
            }
        }
        let want = match (&c.value, &c.value_special, &c.error_summary) {
            (Some(v), _, _) => Ok((v.clone(), c.value_type.clone().unwrap_or_default())),
            (_, Some(v), _) => Ok((v.clone(), c.value_type.clone().unwrap_or_default())),
            (_, _, Some(s)) => Err((s.clone(), c.error_detail.clone().unwrap_or_default())),
            _ => panic!("case {} has no outcome", c.name),
        };
        let got = got.map(|(v, t)| {
            let t: serde_json::Value = serde_json::from_str(&t).expect("type json");
            (v, t.to_string())
        });
        let want = want.map(|(v, t)| {
            let t: serde_json::Value = serde_json::from_str(&t).expect("type json");
            (v, t.to_string())
        });
        if got != want {
            failures.push(format!("{}:\n    want {want:?}\n    got  {got:?}", c.name));
        }
    }
    assert!(checked >= 250, "only {checked} cases checked");
    assert!(
        failures.is_empty(),
        "{} of {checked} cases differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
