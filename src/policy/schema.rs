//! The JSON Schema of the policy file (`schema/override-guard.schema.json`), with which
//! editors (taplo, tombi) complete and check `.override-guard.toml`. Written from the
//! tables the reader looks every key up in (`config.rs`'s, the registry's rules and their
//! options), so it accepts the keys the reader accepts and no others; a test keeps the
//! committed file in step. Above the reader, which does not need it.

use serde_json::{Map, Value, json};

use super::Level;
use super::config::{RULE, TOP};
use super::rules::{RULES, Rule, doc_url};
use super::validate::{Field, Kind};

/// Where the schema sits in the repository.
pub const PATH: &str = "schema/override-guard.schema.json";

/// The schema's published address: the raw file at `rev` (a branch or tag) of the
/// repository named in `Cargo.toml`.
pub fn url(rev: &str) -> String {
    let repo = env!("CARGO_PKG_REPOSITORY").trim_end_matches('/');
    match repo.strip_prefix("https://github.com/") {
        Some(name) => format!("https://raw.githubusercontent.com/{name}/{rev}/{PATH}"),
        None => format!("{repo}/raw/{rev}/{PATH}"),
    }
}

/// The schema, as the committed file holds it (draft-07, which taplo and tombi read).
pub fn json() -> String {
    let schema = json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$id": url("main"),
        "title": "override-guard policy",
        "description": "An override-guard policy file (.override-guard.toml): each rule's \
            level and where it applies, the rules' options, and accepted findings. \
            `override-guard explain RULE` documents each rule.",
        "type": "object",
        "additionalProperties": false,
        "properties": properties(TOP),
        "definitions": definitions(),
    });
    let mut out = serde_json::to_string_pretty(&schema).unwrap_or_default();
    out.push('\n');
    out
}

/// What every rule's table shares (but its default level), written once and referred to.
fn definitions() -> Map<String, Value> {
    RULE.iter().filter(|f| f.name != "level").map(|f| (f.name.to_string(), field(f))).collect()
}

/// A table's keys, each with its schema.
fn properties(fields: &[Field]) -> Map<String, Value> {
    fields.iter().map(|f| (f.name.to_string(), field(f))).collect()
}

/// A table that takes only these keys.
fn table(fields: &[Field]) -> Value {
    let mut t = json!({
        "type": "object",
        "additionalProperties": false,
        "properties": properties(fields),
    });
    let required: Vec<&str> = fields.iter().filter(|f| f.required).map(|f| f.name).collect();
    if !required.is_empty() {
        t["required"] = json!(required);
    }
    t
}

fn field(f: &Field) -> Value {
    let mut s = kind(&f.kind);
    s["description"] = json!(f.help);
    if let Some(d) = f.default.and_then(toml_value) {
        s["default"] = d;
    }
    s
}

// Where the reader takes one of two types, the schema says so with `type: [a, b]` and
// the keywords of each type (`items` applies to arrays only, `properties` to tables,
// `pattern` to strings) rather than with `anyOf`: an editor then names the key or value
// that is wrong instead of saying that no alternative fits.
fn kind(k: &Kind) -> Value {
    match k {
        Kind::Level => json!({ "type": "string", "enum": Level::ALL.map(Level::as_str) }),
        Kind::Bool => json!({ "type": "boolean" }),
        Kind::Regex => json!({ "type": "string" }),
        Kind::NonBlank => json!({ "type": "string", "pattern": "\\S" }),
        // A single string is a list of one.
        Kind::Globs => json!({ "type": ["string", "array"], "items": { "type": "string" } }),
        Kind::Count => json!({ "type": "integer", "minimum": 1 }),
        // taplo hands a TOML date to the schema as a string, so one written as a string
        // passes there (the reader refuses it); tombi reads `format: date` as TOML's local
        // date and refuses the string too.
        Kind::Date => json!({ "type": "string", "format": "date" }),
        Kind::Rule => {
            json!({ "type": "string", "enum": RULES.iter().map(|r| r.id.as_str()).collect::<Vec<_>>() })
        }
        Kind::Release => json!({
            "type": "string",
            "pattern": "^(terraform|opentofu|tofu)(@v?[0-9]+\\.[0-9]+(\\.[0-9]+)?)?$"
        }),
        Kind::Rules => json!({
            "type": "object",
            "additionalProperties": false,
            "properties": RULES.iter().map(|r| (r.id.to_string(), rule(r))).collect::<Map<_, _>>(),
        }),
        // A single table is an array of one.
        Kind::Tables(fields) => {
            let mut t = table(fields);
            t["type"] = json!(["array", "object"]);
            t["items"] = table(fields);
            t
        }
    }
}

/// `[rules.<id>]`: a level, or a table with the keys of every rule and the rule's options.
fn rule(r: &Rule) -> Value {
    let level = r.level.as_str();
    let props: Map<String, Value> = RULE
        .iter()
        .map(|f| match f.name {
            "level" => {
                let mut l = field(f);
                l["default"] = json!(level);
                (f.name.to_string(), l)
            }
            name => (name.to_string(), json!({ "$ref": format!("#/definitions/{name}") })),
        })
        .chain(r.options.iter().map(|f| (f.name.to_string(), field(f))))
        .collect();
    let mut doc = r.doc.trim_end().to_string();
    if !r.options.is_empty() {
        doc.push_str("\nOptions");
        for o in r.options {
            doc.push_str(&format!("\n  {}: {}", o.name, o.help));
        }
    }
    json!({
        "title": r.summary,
        "description": format!("Default level: {level}. Finds: {}.\n\n{doc}", r.summary),
        "default": level,
        "type": ["string", "object"],
        "pattern": format!("^({})$", Level::ALL.map(Level::as_str).join("|")),
        "additionalProperties": false,
        "properties": props,
        "x-taplo": { "links": { "key": doc_url(r.id.as_str()) } },
    })
}

/// A declared default (a TOML value) as JSON.
fn toml_value(text: &str) -> Option<Value> {
    let t: toml::Table = toml::from_str(&format!("v = {text}")).ok()?;
    t.get("v").map(to_json)
}

/// A TOML value as an editor hands it to the schema: TOML's dates become strings (which
/// is why the schema cannot check a date, and the tool does).
pub fn to_json(v: &toml::Value) -> Value {
    match v {
        toml::Value::String(s) => json!(s),
        toml::Value::Integer(i) => json!(i),
        toml::Value::Float(f) => json!(f),
        toml::Value::Boolean(b) => json!(b),
        toml::Value::Datetime(d) => json!(d.to_string()),
        toml::Value::Array(a) => Value::Array(a.iter().map(to_json).collect()),
        toml::Value::Table(t) => {
            Value::Object(t.iter().map(|(k, v)| (k.clone(), to_json(v))).collect())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::Policy;
    use crate::policy::config::{EXCEPTION, SCOPE};

    /// schema/override-guard.schema.json is what [`json`] writes (re-generate it, with
    /// docs/rules.md, by `OVERRIDE_GUARD_WRITE_DOCS=1 cargo test --lib _is_up_to_date`).
    #[test]
    fn schema_file_is_up_to_date() {
        let path = format!("{}/{PATH}", env!("CARGO_MANIFEST_DIR"));
        let want = json();
        if std::env::var_os("OVERRIDE_GUARD_WRITE_DOCS").is_some() {
            std::fs::write(&path, &want).expect("write the schema");
        }
        let got = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            got == want,
            "{PATH} is stale: OVERRIDE_GUARD_WRITE_DOCS=1 cargo test --lib _is_up_to_date"
        );
    }

    fn validator() -> jsonschema::Validator {
        let schema: Value = serde_json::from_str(&json()).unwrap();
        jsonschema::draft7::options().should_validate_formats(true).build(&schema).unwrap()
    }

    /// A value of the kind, and one of another type.
    fn samples(k: &Kind) -> (&'static str, &'static str) {
        match k {
            Kind::Level => ("\"warn\"", "true"),
            Kind::Bool => ("true", "\"yes\""),
            Kind::Regex | Kind::NonBlank => ("\"x\"", "1"),
            Kind::Globs => ("[\"a/**\"]", "1"),
            Kind::Count => ("2", "\"2\""),
            Kind::Date => ("2027-01-31", "2027-01-31T10:00:00"),
            Kind::Rule => ("\"override-file\"", "1"),
            Kind::Release => ("\"terraform@1.9\"", "1"),
            Kind::Rules => ("{ merge-error = \"deny\" }", "1"),
            Kind::Tables(_) => ("[]", "1"),
        }
    }

    /// A table's required keys, each with a good value.
    fn required(fields: &[Field]) -> String {
        fields
            .iter()
            .filter(|f| f.required)
            .map(|f| format!("{} = {}\n", f.name, samples(&f.kind).0))
            .collect()
    }

    /// Every declared key is read by the reader: a good value is accepted and one of
    /// another type refused (not passed over as unknown), and the schema judges both the
    /// same way. So the tables the schema is written from are the reader's own.
    #[test]
    fn the_reader_and_the_schema_judge_every_declared_key_alike() {
        let v = validator();
        let mut tables: Vec<(String, &Field)> = Vec::new();
        for f in TOP {
            tables.push((String::new(), f));
        }
        for r in RULES {
            for f in RULE.iter().chain(r.options) {
                tables.push((format!("[rules.{}]\n", r.id), f));
            }
        }
        for f in SCOPE {
            let head = format!("[[rules.silent-drop.scope]]\n{}", required(SCOPE));
            tables.push((head, f));
        }
        for f in EXCEPTION {
            tables.push((format!("[[exceptions]]\n{}", required(EXCEPTION)), f));
        }
        assert!(tables.len() > 80, "{}", tables.len());
        for (head, f) in tables {
            let (good, bad) = samples(&f.kind);
            // The key replaces a required key's good value of the same name.
            let head: String = head
                .lines()
                .filter(|l| !l.starts_with(&format!("{} = ", f.name)))
                .map(|l| format!("{l}\n"))
                .collect();
            for (value, ok) in [(good, true), (bad, false)] {
                let text = format!("{head}{} = {value}\n", f.name);
                let read = Policy::parse("p.toml", &text);
                assert_eq!(read.is_ok(), ok, "the reader on:\n{text}{:?}", read.err());
                if let Err(errors) = read {
                    assert!(
                        errors.iter().all(|e| !e.message.contains("unknown")),
                        "{text}: {errors:?}"
                    );
                }
                let json = to_json(&toml::Value::Table(toml::from_str(&text).unwrap()));
                assert_eq!(v.is_valid(&json), ok, "the schema on:\n{text}");
            }
        }
    }

    /// A table without one of its keys: the reader refuses it exactly when the key is
    /// declared required, and so does the schema.
    #[test]
    fn the_reader_and_the_schema_require_the_same_keys() {
        let v = validator();
        for (head, fields) in
            [("[[rules.silent-drop.scope]]", SCOPE), ("[[exceptions]]", EXCEPTION)]
        {
            for left_out in fields {
                let text: String = std::iter::once(format!("{head}\n"))
                    .chain(
                        fields
                            .iter()
                            .filter(|f| f.name != left_out.name)
                            .map(|f| format!("{} = {}\n", f.name, samples(&f.kind).0)),
                    )
                    .collect();
                let ok = !left_out.required;
                assert_eq!(Policy::parse("p.toml", &text).is_ok(), ok, "the reader on:\n{text}");
                let json = to_json(&toml::Value::Table(toml::from_str(&text).unwrap()));
                assert_eq!(v.is_valid(&json), ok, "the schema on:\n{text}");
            }
        }
    }

    /// Every declared default is a value the reader accepts, and the template writes it.
    #[test]
    fn defaults_are_valid_and_in_the_template() {
        let template = crate::policy::config::TEMPLATE;
        for r in RULES {
            for o in r.options {
                let Some(d) = o.default else { continue };
                assert!(toml_value(d).is_some(), "{}.{}: {d}", r.id, o.name);
                let text = format!("[rules.{}]\n{} = {d}\n", r.id, o.name);
                assert!(Policy::parse("p.toml", &text).is_ok(), "{text}");
                let line = format!("\n{} = {d} ", o.name);
                assert!(template.contains(&line), "policies/template.toml lacks `{}`", line.trim());
            }
        }
    }
}
