//! Which files of a directory Terraform or OpenTofu load, in which order, and which of them
//! are override files (spec §1). Pure: works on names only.

/// Which concrete syntax a file is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Syntax {
    Hcl,
    Json,
}

/// Primary files are appended; override files are merged into what the primaries declared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FileClass {
    Primary,
    Override,
}

/// The engine whose rules apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Engine {
    Terraform,
    #[serde(rename = "opentofu")]
    OpenTofu,
}

impl Engine {
    pub fn name(self) -> &'static str {
        match self {
            Engine::Terraform => "Terraform",
            Engine::OpenTofu => "OpenTofu",
        }
    }

    /// The other one (for comparing the two).
    pub fn other(self) -> Engine {
        match self {
            Engine::Terraform => Engine::OpenTofu,
            Engine::OpenTofu => Engine::Terraform,
        }
    }
}

/// Why a file in the directory is not loaded.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case", tag = "reason")]
pub enum Skip {
    /// Editor and hidden files: `.x`, `x~`, `#x#`.
    Ignored,
    /// A `.tofu` twin of the same list replaces it (OpenTofu).
    Shadowed { by: String },
    /// `.tofu` files are not read by Terraform.
    TofuFile,
    /// Not a configuration file, though its name says "override" ([`misnamed`]):
    /// `x.tf.override`, `x_override.tfvars`, `override.tftest.hcl`. Listed only so that
    /// `misnamed-override` can name it.
    NotConfig,
}

/// A file to load.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    pub name: String,
    pub class: FileClass,
    pub syntax: Syntax,
}

/// The outcome of discovery for one directory.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Discovery {
    /// Primary files then override files, each in byte-wise name order: the merge order.
    pub files: Vec<Candidate>,
    pub skipped: Vec<(String, Skip)>,
}

/// Terraform's `IsIgnoredFile`.
pub(crate) fn is_ignored(name: &str) -> bool {
    name.starts_with('.') || name.ends_with('~') || (name.starts_with('#') && name.ends_with('#'))
}

const TEST_EXTS: [&str; 4] = [".tftest.hcl", ".tftest.json", ".tofutest.hcl", ".tofutest.json"];

/// The configuration extension of a file name for an engine, if it has one.
pub(crate) fn config_ext(name: &str, engine: Engine) -> Option<&'static str> {
    if TEST_EXTS.iter().any(|e| name.ends_with(e)) {
        return None;
    }
    let exts: &[&'static str] = match engine {
        Engine::Terraform => &[".tf.json", ".tf"],
        Engine::OpenTofu => &[".tofu.json", ".tf.json", ".tofu", ".tf"],
    };
    exts.iter().copied().find(|e| name.ends_with(e))
}

/// A variables file Terraform loads by itself from a root module's directory:
/// `terraform.tfvars(.json)` and `*.auto.tfvars(.json)`.
pub fn is_auto_tfvars(name: &str) -> bool {
    name == "terraform.tfvars"
        || name == "terraform.tfvars.json"
        || name.ends_with(".auto.tfvars")
        || name.ends_with(".auto.tfvars.json")
}

/// The files a module listing holds: configuration (any engine's) and the variables files
/// Terraform loads by itself.
pub(crate) fn is_module_file(name: &str) -> bool {
    config_ext(name, Engine::OpenTofu).is_some() || is_auto_tfvars(name)
}

/// The names a source lists in a module directory: its module files, the query and test
/// files other commands load with the module and its variables files ([`is_query_file`],
/// [`is_test_file`]), and the names that look like override files but are not
/// ([`misnamed`]), which no engine reads but a rule must see. A failure about any other
/// name (not UTF-8, say) is none of the module's.
pub(crate) fn is_listed(name: &str) -> bool {
    is_module_file(name) || is_query_file(name) || is_test_file(name) || misnamed(name).is_some()
}

/// A query file, which `terraform query` loads with the module (its `variable` blocks
/// declare variables for that command only). OpenTofu has no such command.
pub(crate) fn is_query_file(name: &str) -> bool {
    !is_ignored(name) && (name.ends_with(".tfquery.hcl") || name.ends_with(".tfquery.json"))
}

/// A test file, which `terraform test` (`tofu test`) loads with the module, from the
/// module's directory and from its test directory ([`TEST_DIR`]).
pub(crate) fn is_test_file(name: &str) -> bool {
    !is_ignored(name) && TEST_EXTS.iter().any(|e| name.ends_with(e))
}

/// The test directory both engines read by default (`-test-directory` names another).
pub(crate) const TEST_DIR: &str = "tests";

/// A name that says "override" to a person but not to the engines' rule (spec §1.1 4:
/// the stem is exactly `override` or ends in `_override`, before a configuration
/// extension), with the name that would work.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Misnamed {
    /// The name that makes it an override file (for a variables file: one that is loaded
    /// without `-var-file`).
    pub fix: String,
    pub miss: Miss,
}

/// How a [`Misnamed`] name misses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Miss {
    /// `override` in another case: `Override.tf`, `main_OVERRIDE.tf`. Read as a primary.
    Case,
    /// Another separator before `override`: `main.override.tf`, `main-override.tf`.
    Separator,
    /// `override` first: `override_main.tf`. The word may mean something else there
    /// (`override_policy.tf`), so only evidence that the file repeats others' blocks
    /// makes it a finding.
    Prefix,
    /// `.txt` after a configuration extension (a save dialog's): `main_override.tf.txt`.
    Txt,
    /// `.override` after a configuration extension: `x.tf.override`.
    Suffix,
    /// The extension in another case (extensions are case-sensitive): `override.TF`.
    ExtCase,
    /// A test file: `override.tftest.hcl`. Never merged into the module.
    Test,
    /// A variables file: `x_override.tfvars`. Variables files have no override files, and
    /// one that is not `terraform.tfvars` or `*.auto.tfvars` is read only with `-var-file`.
    Tfvars,
}

/// Every engine's configuration extensions, longest first.
const CONFIG_EXTS: [&str; 4] = [".tofu.json", ".tf.json", ".tofu", ".tf"];

/// Is `name` one of those, with the name that would work? Names that are override files
/// for some engine, ignored names (`x_override.tf~`), deliberate copies
/// (`override.tf.bak`, `override.tf.example`), plurals (`overrides.tf`), run-together
/// words (`mainoverride.tf`) and other extensions (`override.json`, `override.hcl`) are
/// not: a warning on a name chosen on purpose is noise.
pub fn misnamed(name: &str) -> Option<Misnamed> {
    // Asked of every entry of a git index: most names are out before anything is allocated.
    let says_it = name.as_bytes().windows(8).any(|w| w.eq_ignore_ascii_case(b"override"));
    if !says_it || is_ignored(name) {
        return None;
    }
    let found = |fix: String, miss: Miss| Some(Misnamed { fix, miss });
    let ext_of =
        |n: &str| CONFIG_EXTS.iter().copied().find(|e| n.len() > e.len() && n.ends_with(e));
    // ASCII lowercase keeps every byte offset, so `name` can be cut where `lower` is.
    let lower = name.to_ascii_lowercase();
    if let Some(inner) = lower.strip_suffix(".txt").map(|l| &name[..l.len()]) {
        let ext = ext_of(inner)?;
        let (stem, _) = strong(&inner[..inner.len() - ext.len()])?;
        return found(format!("{stem}{ext}"), Miss::Txt);
    }
    if let Some(inner) = lower.strip_suffix(".override").map(|l| &name[..l.len()]) {
        let ext = ext_of(inner)?;
        let stem = &inner[..inner.len() - ext.len()];
        let stem = strong(stem).map_or_else(|| format!("{stem}_override"), |(s, _)| s);
        return found(format!("{stem}{ext}"), Miss::Suffix);
    }
    const TESTS: [(&str, &str); 4] = [
        (".tftest.hcl", ".tf"),
        (".tftest.json", ".tf.json"),
        (".tofutest.hcl", ".tofu"),
        (".tofutest.json", ".tofu.json"),
    ];
    for (test, config) in TESTS {
        if let Some(stem) = name.strip_suffix(test) {
            let (stem, _) = strong(stem)?;
            return found(format!("{stem}{config}"), Miss::Test);
        }
    }
    for (vars, auto) in [(".tfvars", ".auto.tfvars"), (".tfvars.json", ".auto.tfvars.json")] {
        if let Some(stem) = name.strip_suffix(vars) {
            if is_auto_tfvars(name) {
                return None;
            }
            strong(stem)?;
            return found(format!("{stem}{auto}"), Miss::Tfvars);
        }
    }
    if let Some(ext) = ext_of(name) {
        let (stem, miss) = override_stem(&name[..name.len() - ext.len()])?;
        return found(format!("{stem}{ext}"), miss?);
    }
    let ext = ext_of(&lower)?;
    let (stem, _) = strong(&name[..name.len() - ext.len()])?;
    found(format!("{stem}{ext}"), Miss::ExtCase)
}

/// [`override_stem`] for the names whose other part already says "not configuration":
/// `override` first is too weak a sign there (no content to back it up).
fn strong(stem: &str) -> Option<(String, Option<Miss>)> {
    override_stem(stem).filter(|(_, miss)| *miss != Some(Miss::Prefix))
}

/// A stem that says "override", as an override stem, with how it missed (`None`: it is
/// one already). `None` for a stem that does not say it.
fn override_stem(stem: &str) -> Option<(String, Option<Miss>)> {
    const WORD: &str = "override";
    if stem == WORD || stem.ends_with("_override") {
        return Some((stem.to_string(), None));
    }
    let lower = stem.to_ascii_lowercase();
    if lower == WORD || lower.ends_with("_override") {
        let head = &stem[..stem.len() - WORD.len()];
        return Some((format!("{head}{WORD}"), Some(Miss::Case)));
    }
    let before = lower.strip_suffix(WORD).and_then(|h| h.strip_suffix(['.', '-', ' ']));
    if let Some(head) = before.filter(|h| !h.is_empty()) {
        return Some((format!("{}_{WORD}", &stem[..head.len()]), Some(Miss::Separator)));
    }
    let after = lower.strip_prefix(WORD).and_then(|r| r.strip_prefix(['_', '-', '.', ' ']));
    if let Some(rest) = after.filter(|r| !r.is_empty()) {
        let rest = &stem[stem.len() - rest.len()..];
        return Some((format!("{rest}_{WORD}"), Some(Miss::Prefix)));
    }
    None
}

/// Is this the name of an override file (stem `override` or ending in `_override`)?
pub fn is_override(name: &str, ext: &str) -> bool {
    let stem = &name[..name.len() - ext.len()];
    stem == "override" || stem.ends_with("_override")
}

/// The engine to use when the user did not choose: OpenTofu when the module has `.tofu` files.
pub(crate) fn default_engine<'a>(names: impl IntoIterator<Item = &'a str>) -> Engine {
    let tofu = names
        .into_iter()
        .any(|n| !is_ignored(n) && (n.ends_with(".tofu") || n.ends_with(".tofu.json")));
    if tofu { Engine::OpenTofu } else { Engine::Terraform }
}

/// Classifies and orders the files of one directory (names only, no sub-directories).
pub fn discover<'a>(names: impl IntoIterator<Item = &'a str>, engine: Engine) -> Discovery {
    let mut names: Vec<&str> = names.into_iter().collect();
    names.sort_unstable(); // byte-wise, as Go sorts strings
    names.dedup();
    let mut out = Discovery::default();
    let (mut primary, mut overrides) = (Vec::new(), Vec::new());
    for name in names {
        if is_ignored(name) {
            if config_ext(
                name.trim_start_matches(['.', '#']).trim_end_matches(['~', '#']),
                Engine::OpenTofu,
            )
            .is_some()
            {
                out.skipped.push((name.to_string(), Skip::Ignored));
            }
            continue;
        }
        let Some(ext) = config_ext(name, engine) else {
            if config_ext(name, Engine::OpenTofu).is_some() {
                out.skipped.push((name.to_string(), Skip::TofuFile));
            } else if misnamed(name).is_some() {
                out.skipped.push((name.to_string(), Skip::NotConfig));
            }
            continue;
        };
        let syntax = if ext.ends_with(".json") { Syntax::Json } else { Syntax::Hcl };
        let class = if is_override(name, ext) { FileClass::Override } else { FileClass::Primary };
        let c = Candidate { name: name.to_string(), class, syntax };
        match class {
            FileClass::Primary => primary.push(c),
            FileClass::Override => overrides.push(c),
        }
    }
    if engine == Engine::OpenTofu {
        shadow(&mut primary, &mut out.skipped);
        shadow(&mut overrides, &mut out.skipped);
    }
    out.files = primary;
    out.files.extend(overrides);
    out
}

/// OpenTofu: drop `x.tf` when the same list has `x.tofu` (and `x.tf.json` for `x.tofu.json`).
fn shadow(list: &mut Vec<Candidate>, skipped: &mut Vec<(String, Skip)>) {
    let twin = |n: &str| -> Option<String> {
        if let Some(stem) = n.strip_suffix(".tf.json") {
            Some(format!("{stem}.tofu.json"))
        } else {
            n.strip_suffix(".tf").map(|stem| format!("{stem}.tofu"))
        }
    };
    let names: Vec<String> = list.iter().map(|c| c.name.clone()).collect();
    list.retain(|c| match twin(&c.name) {
        Some(t) if names.contains(&t) => {
            skipped.push((c.name.clone(), Skip::Shadowed { by: t }));
            false
        }
        _ => true,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn order(names: &[&str], engine: Engine) -> Vec<String> {
        discover(names.iter().copied(), engine).files.into_iter().map(|c| c.name).collect()
    }

    #[test]
    fn ignored_names() {
        assert!(is_ignored(".x.tf") && is_ignored("main.tf~") && is_ignored("#main.tf#"));
        assert!(!is_ignored("#main.tf"));
        let d = discover(
            ["#main.tf", "#a.tf#", ".b.tf", "c.tf~", "main.TF", "x.tfvars"],
            Engine::Terraform,
        );
        assert_eq!(d.files.len(), 1);
        assert_eq!(d.skipped.len(), 3);
    }

    #[test]
    fn override_stems() {
        for n in ["override.tf", "main_override.tf", "_override.tf", "a_override.tf.json"] {
            assert!(is_override(n, config_ext(n, Engine::Terraform).expect("ext")), "{n}");
        }
        for n in [
            "override_main.tf",
            "main-override.tf",
            "mainoverride.tf",
            "main.override.tf",
            "main_OVERRIDE.tf",
            "Override.tf",
        ] {
            assert!(!is_override(n, config_ext(n, Engine::Terraform).expect("ext")), "{n}");
        }
        assert_eq!(config_ext("x_override.tftest.hcl", Engine::OpenTofu), None);
    }

    #[test]
    fn misnamed_names_and_the_names_that_work() {
        let cases: &[(&str, &str, Miss)] = &[
            ("Override.tf", "override.tf", Miss::Case),
            ("OVERRIDE.tf", "override.tf", Miss::Case),
            ("Main_Override.tf", "Main_override.tf", Miss::Case),
            ("main_OVERRIDE.tf.json", "main_override.tf.json", Miss::Case),
            ("main.override.tf", "main_override.tf", Miss::Separator),
            ("provider-dev-override.tf", "provider-dev_override.tf", Miss::Separator),
            ("main.Override.tofu", "main_override.tofu", Miss::Separator),
            ("override_main.tf", "main_override.tf", Miss::Prefix),
            ("Override-Main.tf.json", "Main_override.tf.json", Miss::Prefix),
            ("main_override.tf.txt", "main_override.tf", Miss::Txt),
            ("override.tf.json.TXT", "override.tf.json", Miss::Txt),
            ("main.override.tf.txt", "main_override.tf", Miss::Txt),
            ("x.tf.override", "x_override.tf", Miss::Suffix),
            ("x.tf.json.override", "x_override.tf.json", Miss::Suffix),
            ("x_override.tofu.override", "x_override.tofu", Miss::Suffix),
            ("OVERRIDE.TF", "override.tf", Miss::ExtCase),
            ("main_override.Tf.Json", "main_override.tf.json", Miss::ExtCase),
            ("override.tftest.hcl", "override.tf", Miss::Test),
            ("x_override.tftest.json", "x_override.tf.json", Miss::Test),
            ("x_override.tofutest.hcl", "x_override.tofu", Miss::Test),
            ("x_override.tfvars", "x_override.auto.tfvars", Miss::Tfvars),
            ("override.tfvars.json", "override.auto.tfvars.json", Miss::Tfvars),
        ];
        for (name, fix, miss) in cases {
            let want = Misnamed { fix: fix.to_string(), miss: *miss };
            assert_eq!(misnamed(name), Some(want), "{name}");
            assert!(is_listed(name), "{name}");
        }
        // Override files for some engine, ignored names, deliberate copies, other words,
        // other extensions, and names no person reads as "override".
        for name in [
            "override.tf",
            "a_override.tf.json",
            "_override.tofu",
            "x_override.auto.tfvars",
            "terraform.tfvars",
            "x_override.tf~",
            ".override.tf",
            "#x_override.tf#",
            "override.tf.bak",
            "override.tf.example",
            "overrides.tf",
            "mainoverride.tf",
            "override.json",
            "override_policy.json",
            "override.hcl",
            "override_main.tftest.hcl",
            "override_main.tf.txt",
            "override_x.tfvars",
            "main.tf.txt",
            "main.tfvars",
            "notes.txt",
            "x.override",
            "-override.tf",
            "override-.tf",
        ] {
            assert_eq!(misnamed(name), None, "{name}");
        }
        assert!(!is_listed("README.md") && is_listed("main.tf") && is_listed("a.auto.tfvars"));
    }

    #[test]
    fn misnamed_files_are_skipped_as_no_configuration() {
        let d = discover(
            ["main.tf", "main.override.tf", "x.tf.override", "override.tofu", "README.md"],
            Engine::Terraform,
        );
        assert_eq!(d.files.len(), 2);
        assert_eq!(
            d.skipped,
            [
                ("override.tofu".to_string(), Skip::TofuFile),
                ("x.tf.override".to_string(), Skip::NotConfig)
            ]
        );
    }

    #[test]
    fn byte_wise_order_primaries_first_json_twin_after() {
        let got = order(
            &[
                "z_override.tf",
                "override.tf",
                "a_override.tf.json",
                "main.tf",
                "Z_override.tf",
                "_override.tf",
                "a_override.tf",
                "B.tf",
            ],
            Engine::Terraform,
        );
        assert_eq!(
            got,
            [
                "B.tf",
                "main.tf",
                "Z_override.tf",
                "_override.tf",
                "a_override.tf",
                "a_override.tf.json",
                "override.tf",
                "z_override.tf"
            ]
        );
    }

    #[test]
    fn tofu_twins_shadow_per_list() {
        let names = [
            "main.tf",
            "main.tofu",
            "main.tf.json",
            "foo.tofu",
            "foo_override.tf",
            "v_override.tf",
            "v_override.tofu",
        ];
        assert_eq!(
            order(&names, Engine::OpenTofu),
            ["foo.tofu", "main.tf.json", "main.tofu", "foo_override.tf", "v_override.tofu"]
        );
        assert_eq!(
            order(&names, Engine::Terraform),
            ["main.tf", "main.tf.json", "foo_override.tf", "v_override.tf"]
        );
        assert_eq!(default_engine(names), Engine::OpenTofu);
        assert_eq!(default_engine(["main.tf"]), Engine::Terraform);
    }
}
