//! `fix`: writes the warning comment `missing-override-comment` asks for directly above
//! each overridden block, attribute or local of an ordinary file (a `"//"` property in a
//! JSON object), and keeps the comments it wrote true.
//!
//! The comments it writes have one shape, `NOTE: <what> is|are overridden in <file>`, and
//! that shape is how it knows them again: such a comment is updated when the override
//! changes something else, and removed when no override touches its item any more. Every
//! other comment is the user's and is never touched; one that already satisfies the rule
//! is enough.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::sync::{Arc, LazyLock};

use regex::Regex;

use super::{
    FileEdit, Splice, apply, eol_of, indent_before, json_member_range, json_members, line_end,
    line_start,
};
use crate::merge::Module;
use crate::policy::context::{Change, Node, changes, lines_above};
use crate::policy::rules::missing_override_comment::RULE;
use crate::policy::{Date, GlobBase, Policy, Subject};
use crate::terraform::{Body, FileClass, FileId, Item, Span, Syntax};

/// The shape of a comment `fix` wrote (markers stripped): what, and the override file.
static GENERATED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^NOTE: (.+) (?:is|are) overridden in (\S+)$").unwrap_or_else(|_| unreachable!())
});

/// Is this comment text one `fix` manages? Returns the override file it names.
pub fn generated(text: &str) -> Option<&str> {
    GENERATED.captures(text.trim()).and_then(|c| c.get(2)).map(|m| m.as_str())
}

/// The comment text for `names` changed by the override file `file`.
pub(crate) fn comment_text(names: &[String], file: &str) -> String {
    let (what, verb) = match names.len() {
        0 => ("this block".to_string(), "is"),
        1 => (names[0].clone(), "is"),
        _ => (super::list(names), "are"),
    };
    format!("NOTE: {what} {verb} overridden in {file}")
}

/// Something `fix` could not do for one item; the rest of the module is still fixed.
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    pub path: String,
    pub line: usize,
    pub message: String,
}

/// What `fix` would do to one module.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    pub edits: Vec<FileEdit>,
    pub problems: Vec<Problem>,
}

/// Where a comment goes: above a native-syntax item, or into a JSON object.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct Anchor {
    file: FileId,
    start: usize,
    end: usize,
}

impl From<Span> for Anchor {
    fn from(s: Span) -> Anchor {
        Anchor { file: s.file, start: s.start, end: s.end }
    }
}

#[derive(Default)]
struct Want {
    /// Per override file: the names it changes under this anchor.
    names: BTreeMap<FileId, Vec<String>>,
    /// Override files for which the rule reports this anchor (no comment satisfies it).
    firing: BTreeSet<FileId>,
    /// Where the anchor's item starts (its header), for messages.
    head: usize,
}

/// One comment `fix` wrote earlier, found in a file.
struct Existing {
    /// The bytes deleting it removes.
    start: usize,
    end: usize,
    text: String,
}

/// Plans the comments of one module under a policy (the rule's level, paths, pattern,
/// inline suppressions and exceptions decide where a comment is wanted, exactly as `audit`
/// reports it: the policy evaluation itself is asked).
pub fn plan(m: &Module, policy: &Policy, base: &GlobBase, today: Date) -> Plan {
    let mut plan = Plan::default();
    // A merge error leaves the files readable and the pairs known; a file that does not
    // parse does not.
    if m.parse_diagnostics().any(|d| d.is_error()) {
        if m.override_files().next().is_some() {
            plan.problems.push(Problem {
                path: m.dir.clone(),
                line: 0,
                message: format!(
                    "{} cannot read every file of this module; nothing is changed in it (`override-guard audit` shows why)",
                    m.engine.name()
                ),
            });
        }
        return plan;
    }
    let wants = wants(m, &firing(m, policy, base, today));
    let primaries: Vec<FileId> =
        (0..m.files.files.len()).filter(|&f| m.files.get(f).class == FileClass::Primary).collect();
    let mut texts: Vec<(FileId, String)> = Vec::new();
    let mut proven = true;
    for file in primaries {
        let src = m.files.get(file);
        let existing = existing_in(m, file);
        let anchors: BTreeSet<Anchor> = wants
            .keys()
            .filter(|a| a.file == file)
            .copied()
            .chain(existing.keys().copied())
            .collect();
        let mut splices = Vec::new();
        for a in anchors {
            let had: &[Existing] = existing.get(&a).map_or(&[], |v| v.as_slice());
            let lines = match wants.get(&a) {
                Some(w) => match wanted_lines(m, policy, w, had) {
                    Ok(l) => l,
                    Err(message) => {
                        let line = src.line_col(w.head).0;
                        plan.problems.push(Problem { path: src.path.clone(), line, message });
                        continue;
                    }
                },
                None => Vec::new(),
            };
            if had.iter().map(|e| e.text.as_str()).eq(lines.iter().map(String::as_str)) {
                continue;
            }
            splices.extend(had.iter().map(|e| Splice::delete(e.start, e.end)));
            if lines.is_empty() {
                continue;
            }
            let insert = match src.syntax {
                Syntax::Hcl => insert_native(&src.text, a, &lines),
                Syntax::Json => insert_json(&src.text, a, &lines, had),
            };
            match insert {
                Ok(s) => splices.push(s),
                Err(message) => {
                    let line = src.line_col(a.start).0;
                    plan.problems.push(Problem { path: src.path.clone(), line, message });
                }
            }
        }
        if splices.is_empty() {
            continue;
        }
        match apply(&src.text, &splices) {
            Ok(t) => {
                let (t, same) = super::keep_canonical_proven(m, file, t);
                proven &= same;
                texts.push((file, t));
            }
            Err(e) => plan.problems.push(Problem {
                path: src.path.clone(),
                line: 0,
                message: format!("internal error, nothing changed in this file: {e}"),
            }),
        }
    }
    if texts.is_empty() {
        return plan;
    }
    // A comment never changes what runs: prove it before anything is written (by the
    // tokens, as they were read, or by loading the module again).
    if !proven && let Err(message) = same_configuration(m, &texts) {
        plan.problems.push(Problem { path: m.dir.clone(), line: 0, message });
        return plan;
    }
    for (file, after) in texts {
        let src = m.files.get(file);
        plan.edits.push(FileEdit {
            path: src.path.clone(),
            before: src.text.clone(),
            after: Some(after),
        });
    }
    plan
}

/// Where a comment is wanted: per anchor in a primary file, the override files that
/// change its block and the names they change; `firing` says which of them the policy
/// reports.
fn wants(m: &Module, firing: &HashSet<(usize, FileId, FileId)>) -> BTreeMap<Anchor, Want> {
    let mut wants: BTreeMap<Anchor, Want> = BTreeMap::new();
    let mut seen = HashSet::new();
    for c in changes(m) {
        let Some(base) = c.base else { continue };
        let over_span = c.over.head();
        if m.ignored.iter().any(|i| i.span == over_span || i.span == c.over.span()) {
            continue;
        }
        // A committed comment must not name a file the repository does not have: a
        // local-only override gets none, and the one `fix` wrote earlier goes.
        if m.files.get(c.file()).local.is_some() {
            continue;
        }
        let anchor = match anchor_of(m, base) {
            Some(a) => a,
            None => continue,
        };
        let w = wants.entry(anchor).or_default();
        w.head = base.head().start;
        let names = w.names.entry(c.file()).or_default();
        for n in names_of(m, &c) {
            if !names.contains(&n) {
                names.push(n);
            }
        }
        if seen.insert((base.span(), c.file()))
            && firing.contains(&(base.head().start, base.span().file, c.file()))
        {
            w.firing.insert(c.file());
        }
    }
    wants
}

/// `(primary header offset, primary file, override file)` of every finding of the rule
/// that the policy reports.
fn firing(
    m: &Module,
    policy: &Policy,
    base: &GlobBase,
    today: Date,
) -> HashSet<(usize, FileId, FileId)> {
    let mut out = HashSet::new();
    let subject = Subject { module: m, other: None, tfvars: &[], var_uses: &[] };
    let file_of = |path: &str| m.files.files.iter().position(|f| f.path == path);
    for f in crate::policy::findings_of(policy, &subject, base, today, RULE.id) {
        let (Some(p), Some(o)) =
            (file_of(&f.primary.path), f.related.first().and_then(|r| file_of(&r.path)))
        else {
            continue;
        };
        out.insert((f.primary.start, p, o));
    }
    out
}

/// The lines an anchor should carry: one per override file that the rule asks about, or
/// whose comment `fix` wrote before (kept up to date), in the order the files merge.
fn wanted_lines(
    m: &Module,
    policy: &Policy,
    w: &Want,
    had: &[Existing],
) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for (file, names) in &w.names {
        let name = m.files.get(*file).name();
        let managed = had.iter().any(|e| generated(&e.text) == Some(name));
        if !w.firing.contains(file) && !managed {
            continue;
        }
        let text = comment_text(names, name);
        if let Some(matcher) = policy.options.comment.matcher_for(name)
            && !matcher.is_match(&text)
        {
            return Err(format!(
                "the policy's comment pattern does not match `{text}`; write this comment by hand"
            ));
        }
        out.push(text);
    }
    Ok(out)
}

/// What an override item changes, as the comment names it.
fn names_of(m: &Module, c: &Change<'_>) -> Vec<String> {
    let ignored = |s: Span| m.ignored.iter().any(|i| i.span == s);
    match c.over {
        Node::Attr(a) => vec![a.name.clone()],
        Node::Block(b) if c.address.starts_with("terraform.") => vec![b.kind.clone()],
        Node::Block(b) => {
            let mut out: Vec<String> = Vec::new();
            for i in b.body.items.iter() {
                let span = match i {
                    Item::Attr(a) => a.span,
                    Item::Block(b) => b.def_span,
                    Item::Json(j) => j.span,
                };
                if ignored(span) {
                    continue;
                }
                let n = i.merge_name().to_string();
                if !out.contains(&n) {
                    out.push(n);
                }
            }
            out
        }
    }
}

/// The native item itself; in JSON, the object that holds the item (a block's own body,
/// or the innermost block around an attribute).
fn anchor_of(m: &Module, base: Node<'_>) -> Option<Anchor> {
    let span = base.span();
    if m.files.get(span.file).syntax == Syntax::Hcl {
        return Some(span.into());
    }
    if let Node::Block(b) = base {
        return Some(b.span.into());
    }
    let parsed = m.parsed.iter().find(|p| p.file == span.file)?;
    innermost_block(&parsed.body, span).map(Anchor::from)
}

fn innermost_block(body: &Body, span: Span) -> Option<Span> {
    for i in body.items.iter() {
        if let Item::Block(b) = i
            && b.span.start <= span.start
            && span.end <= b.span.end
        {
            return innermost_block(&b.body, span).or(Some(b.span));
        }
    }
    None
}

/// The comments `fix` wrote in one file, by the anchor they sit on.
fn existing_in(m: &Module, file: FileId) -> BTreeMap<Anchor, Vec<Existing>> {
    let mut out: BTreeMap<Anchor, Vec<Existing>> = BTreeMap::new();
    let src = m.files.get(file);
    let Some(parsed) = m.parsed.iter().find(|p| p.file == file) else { return out };
    match src.syntax {
        // A native comment is the file's own text: without the words, none is ours.
        Syntax::Hcl if !src.text.contains("overridden in") => {}
        Syntax::Hcl => {
            for span in super::item_spans(&parsed.body) {
                for (start, _, text) in lines_above(&src.text, span.start) {
                    if generated(&text).is_some() {
                        let (s, e) = (line_start(&src.text, start), line_end(&src.text, start));
                        out.entry(span.into()).or_default().push(Existing {
                            start: s,
                            end: e,
                            text,
                        });
                    }
                }
            }
        }
        Syntax::Json => {
            for n in &parsed.notes {
                if generated(&n.text).is_none() {
                    continue;
                }
                let Some((members, _)) = json_members(&src.text, n.covers.start) else { continue };
                if let Some(x) =
                    members.iter().find(|x| x.key == "//" && x.value_start == n.span.start)
                {
                    let (start, end) = json_member_range(&src.text, x);
                    let text = n.text.trim().to_string();
                    out.entry(n.covers.into()).or_default().push(Existing { start, end, text });
                }
            }
        }
    }
    out
}

/// The lines above a native item: `# text`, indented as the item is.
fn insert_native(text: &str, a: Anchor, lines: &[String]) -> Result<Splice, String> {
    let Some(indent) = indent_before(text, a.start) else {
        return Err(
            "the item shares its line with other code, so no comment can go directly above it; \
             move it to a line of its own"
                .into(),
        );
    };
    let eol = eol_of(text);
    let mut out = String::new();
    for l in lines {
        out.push_str(&format!("{indent}# {l}{eol}"));
    }
    Ok(Splice::insert(line_start(text, a.start), out))
}

/// `"//": "text",` as the object's first property, laid out as its current first property.
fn insert_json(
    text: &str,
    a: Anchor,
    lines: &[String],
    removed: &[Existing],
) -> Result<Splice, String> {
    let bytes = text.as_bytes();
    if bytes.get(a.start) != Some(&b'{') {
        return Err("this JSON value is not an object, so it cannot hold a \"//\" comment".into());
    }
    let inner = a.start + 1;
    let first = text[inner..a.end].find(|c: char| !c.is_whitespace()).map_or(a.end, |i| inner + i);
    let gap = &text[inner..first];
    // Does anything stay in the object besides the comments being replaced?
    let members = json_members(text, a.start).map(|(m, _)| m).unwrap_or_default();
    let others = members
        .iter()
        .any(|x| !removed.iter().any(|e| e.start <= x.key_start && x.key_start < e.end));
    let quoted: Vec<String> =
        lines.iter().map(|l| format!("\"//\": {}", serde_json::Value::String(l.clone()))).collect();
    let sep = if gap.is_empty() { " ".to_string() } else { gap.to_string() };
    let mut out = quoted.join(&format!(",{sep}"));
    if others {
        out.push(',');
        out.push_str(&sep);
    } else if bytes.get(first) == Some(&b'}') && !gap.is_empty() {
        // `{ }`: the comment goes inside the blanks.
        return Ok(Splice::insert(first, format!("{out}{}", closing_gap(gap))));
    }
    Ok(Splice::insert(first, out))
}

/// The blanks to leave before an object's `}` after inserting into an empty object.
fn closing_gap(gap: &str) -> &str {
    match gap.rfind('\n') {
        Some(i) => &gap[i..],
        None => "",
    }
}

/// Reloads the module with the new texts and compares effective configurations.
pub(super) fn same_configuration(m: &Module, texts: &[(FileId, String)]) -> Result<(), String> {
    // The cheap proof first: native-syntax files whose code is unchanged (only comments
    // and blank lines differ) parse to the same configuration. Anything else, a JSON
    // file's `"//"` property or `terraform fmt`'s rewrites, is loaded again and compared.
    let code_unchanged = texts.iter().all(|(id, t)| {
        let src = m.files.get(*id);
        src.syntax == Syntax::Hcl && override_guard_hcl::code::same_code(&src.text, t)
    });
    if code_unchanged {
        return Ok(());
    }
    let files: Vec<(String, Arc<str>)> = m
        .files
        .files
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let t = texts
                .iter()
                .find(|(id, _)| *id == i)
                .map_or(f.text.clone(), |(_, t)| Arc::from(t.as_str()));
            (f.name().to_string(), t)
        })
        .collect();
    let after = super::reload(m, &files);
    let errors = |m: &Module| -> Vec<(String, String)> {
        m.diagnostics
            .iter()
            .filter(|d| d.is_error())
            .map(|d| (d.summary.clone(), d.detail.clone()))
            .collect()
    };
    if errors(&after) != errors(m) {
        return Err(
            "internal error, nothing changed: the edited files would not load the same way".into(),
        );
    }
    if !crate::merge::compare::same(m, &after) {
        return Err(
            "internal error, nothing changed: the edit would change the effective configuration"
                .into(),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fix(files: &[(&str, &str)]) -> (Vec<(String, String)>, Vec<Problem>) {
        let m = crate::merge::load_texts("", files, None);
        let p = plan(
            &m,
            &Policy::builtin(),
            &Default::default(),
            Date { year: 2026, month: 11, day: 22 },
        );
        (p.edits.into_iter().map(|e| (e.path, e.after.unwrap_or_default())).collect(), p.problems)
    }

    #[test]
    fn the_proof_accepts_comments_and_refuses_a_changed_value() {
        let main = "resource \"a\" \"b\" {\n  x = 1\n}\n";
        let json = "{\"resource\": {\"a\": {\"c\": {\"x\": 1}}}}\n";
        let m = crate::merge::load_texts(
            "",
            &[("main.tf", main), ("j.tf.json", json), ("override.tf", "resource \"a\" \"b\" {}\n")],
            None,
        );
        let id = |name: &str| m.files.files.iter().position(|f| f.name() == name).unwrap_or(9);
        let with = |t: &str, j: &str| {
            vec![(id("main.tf"), t.to_string()), (id("j.tf.json"), j.to_string())]
        };
        // Only comments: proven by the tokens alone.
        let commented = format!("# NOTE: this block is overridden\n{main}");
        assert_eq!(same_configuration(&m, &[(id("main.tf"), commented.clone())]), Ok(()));
        assert_eq!(same_configuration(&m, &with(&commented, json)), Ok(()));
        // A JSON comment property is loaded again, and is the same configuration too.
        let noted = json.replace("{\"x\"", "{\"//\": \"note\", \"x\"");
        assert_eq!(same_configuration(&m, &with(main, &noted)), Ok(()));
        // A changed value is caught, in either syntax.
        assert!(same_configuration(&m, &with(&main.replace('1', "2"), json)).is_err());
        assert!(same_configuration(&m, &with(main, &json.replace('1', "2"))).is_err());
    }

    #[test]
    fn generated_comments_are_recognised_by_shape() {
        assert_eq!(generated("NOTE: ami is overridden in override.tf"), Some("override.tf"));
        assert_eq!(
            generated("NOTE: a and b are overridden in x_override.tf.json"),
            Some("x_override.tf.json")
        );
        assert_eq!(generated("overridden by override.tf"), None);
        assert_eq!(comment_text(&[], "o.tf"), "NOTE: this block is overridden in o.tf");
    }

    #[test]
    fn a_comment_goes_above_the_block_and_a_second_run_changes_nothing() {
        let main = "resource \"a\" \"b\" {\n  x = 1\n  y = 2\n}\n";
        let (edits, problems) =
            fix(&[("main.tf", main), ("override.tf", "resource \"a\" \"b\" {\n  y = 3\n}\n")]);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(edits[0].1, format!("# NOTE: y is overridden in override.tf\n{main}"));
        let (again, _) = fix(&[
            ("main.tf", &edits[0].1),
            ("override.tf", "resource \"a\" \"b\" {\n  y = 3\n}\n"),
        ]);
        assert!(again.is_empty());
    }

    #[test]
    fn stale_comments_are_updated_and_removed() {
        let main = "# keep me\n# NOTE: y is overridden in override.tf\nresource \"a\" \"b\" {\n  x = 1\n}\n\n# NOTE: z is overridden in override.tf\nresource \"a\" \"c\" {}\n";
        let over = "resource \"a\" \"b\" {\n  x = 3\n}\n";
        let (edits, _) = fix(&[("main.tf", main), ("override.tf", over)]);
        assert_eq!(
            edits[0].1,
            "# keep me\n# NOTE: x is overridden in override.tf\nresource \"a\" \"b\" {\n  x = 1\n}\n\nresource \"a\" \"c\" {}\n"
        );
    }

    #[test]
    fn json_objects_get_a_comment_property() {
        let main = "{\n  \"locals\": {\n    \"a\": 1,\n    \"b\": 2\n  }\n}\n";
        let (edits, problems) =
            fix(&[("main.tf.json", main), ("override.tf", "locals {\n  b = 3\n}\n")]);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(
            edits[0].1,
            "{\n  \"locals\": {\n    \"//\": \"NOTE: b is overridden in override.tf\",\n    \"a\": 1,\n    \"b\": 2\n  }\n}\n"
        );
    }
}
