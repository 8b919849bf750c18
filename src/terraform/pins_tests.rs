//! The tests of [`super`] (the pin files' readers and the search up the directories), kept
//! apart so that the module stays within the house's size.
use std::collections::BTreeMap;

use super::*;

fn one(path: &str, bytes: &[u8]) -> Pin {
    match parse(path, bytes).as_slice() {
        [p] => p.clone(),
        other => panic!("{path}: {other:?}"),
    }
}

fn spec(path: &str, text: &str) -> Spec {
    one(path, text.as_bytes()).spec
}

fn exact(a: u32, b: u32, c: u32) -> Spec {
    Spec::Exact { version: Version::new(a, b, c), pre: None }
}

fn unreadable_why(p: &Pin) -> &str {
    match &p.spec {
        Spec::Unreadable(why) => why,
        other => panic!("{other:?} is readable"),
    }
}

/// A repository of files by path, read as `find` reads a source.
fn repo(files: &[(&str, &str)]) -> impl Fn(&str) -> Option<Vec<u8>> {
    let map: BTreeMap<String, Vec<u8>> =
        files.iter().map(|(p, t)| (p.to_string(), t.as_bytes().to_vec())).collect();
    move |p: &str| map.get(p).cloned()
}

#[test]
fn a_version_file_holds_an_exact_version_a_prefix_or_a_keyword() {
    let f = ".terraform-version";
    assert_eq!(spec(f, "1.9.8\n"), exact(1, 9, 8));
    assert_eq!(spec(f, "v1.9.8"), exact(1, 9, 8));
    assert_eq!(spec(f, "1.9"), Spec::Prefix { major: 1, minor: Some(9) });
    assert_eq!(spec(f, "1"), Spec::Prefix { major: 1, minor: None });
    assert_eq!(spec(f, "latest"), Spec::Latest);
    assert_eq!(spec(f, "latest-stable"), Spec::Latest);
    assert_eq!(spec(f, "latest:^1.9"), Spec::LatestMatching("^1.9".into()));
    assert!(matches!(spec(f, "latest:~> 1.9.0"), Spec::Constraint(c) if c.text() == "~> 1.9.0"));
    assert_eq!(spec(f, "latest:1\\.9"), Spec::LatestMatching("1\\.9".into()));
    assert_eq!(spec(f, "min:^1.9"), Spec::MinMatching("^1.9".into()));
    assert_eq!(spec(f, "min-required"), Spec::MinRequired);
    assert_eq!(spec(f, "latest-allowed"), Spec::LatestAllowed);
    assert!(matches!(spec(f, "~> 1.9.0"), Spec::Constraint(c) if c.text() == "~> 1.9.0"));
    assert_eq!(
        spec(f, "1.15.0-beta1"),
        Spec::Exact { version: Version::new(1, 15, 0), pre: Some("beta1".into()) }
    );
    assert_eq!(
        spec(f, "1.10-rc1"),
        Spec::Exact { version: Version::new(1, 10, 0), pre: Some("rc1".into()) }
    );
}

#[test]
fn the_first_line_with_a_version_counts_comments_and_blanks_skipped() {
    let p = one(
        "infra/.terraform-version",
        b"# pinned for the upgrade\n\n  1.9.8  # until March\n1.10.0\n",
    );
    assert_eq!((p.engine, p.spec, p.line), (Engine::Terraform, exact(1, 9, 8), 3));
    assert_eq!((p.file.as_str(), p.text.as_str()), ("infra/.terraform-version", "1.9.8"));
    assert!(parse(".terraform-version", b"# nothing yet\n\n").is_empty());
    assert!(parse(".terraform-version", b"").is_empty());
    assert_eq!(one(".opentofu-version", b"1.10.0").engine, Engine::OpenTofu);
    assert_eq!(one(".tfswitchrc", b"1.9.8").engine, Engine::Terraform);
}

#[test]
fn crlf_a_byte_order_mark_and_utf16_are_read() {
    assert_eq!(spec(".terraform-version", "1.9.8\r\n"), exact(1, 9, 8));
    assert_eq!(one(".terraform-version", b"\r\n\r\n1.9.8\r\n").line, 3);
    assert_eq!(one(".terraform-version", b"\xEF\xBB\xBF1.9.8\r\n").spec, exact(1, 9, 8));
    // Windows PowerShell's `echo 1.9.8 > .terraform-version`.
    let mut le = vec![0xFF, 0xFE];
    le.extend("1.9.8\r\n".encode_utf16().flat_map(u16::to_le_bytes));
    assert_eq!(one(".terraform-version", &le).spec, exact(1, 9, 8));
    let mut be = vec![0xFE, 0xFF];
    be.extend("1.10.0".encode_utf16().flat_map(u16::to_be_bytes));
    assert_eq!(one(".opentofu-version", &be).spec, exact(1, 10, 0));
    let tv = "\u{FEFF}terraform 1.9.8\r\nopentofu 1.10.0\r\n";
    assert_eq!(parse(".tool-versions", tv.as_bytes()).len(), 2);
}

#[test]
fn binary_and_broken_text_are_unreadable_pins_not_panics() {
    let bin = one(".terraform-version", b"\x7fELF\x02\x01\x00\x00");
    assert_eq!((bin.line, unreadable_why(&bin)), (1, "binary, not text"));
    let latin1 = one(".terraform-version", b"1.9.8 \xE9t\xE9");
    assert_eq!(unreadable_why(&latin1), "not UTF-8 text");
    let odd = one(".terraform-version", &[0xFF, 0xFE, 0x00, 0xD8]);
    assert_eq!(unreadable_why(&odd), "not UTF-16 text");
    let words = one(".terraform-version", b"one point nine");
    assert!(unreadable_why(&words).contains("`one point nine` is no version"));
    // A tool file that cannot be read pins nothing known.
    assert!(parse(".tool-versions", b"\x00\x01").is_empty());
    assert!(parse("mise.toml", &[0xC3]).is_empty());
}

#[test]
fn huge_inputs_are_refused_and_shown_short() {
    let line = "9".repeat(100_000);
    let p = one(".terraform-version", line.as_bytes());
    assert_eq!(unreadable_why(&p), "a pin of 100000 bytes is no version");
    assert!(p.text.chars().count() <= 81, "{}", p.text.len());
    let big = vec![b'1'; MAX_FILE + 1];
    let q = one(".terraform-version", &big);
    assert!(unreadable_why(&q).starts_with("a file of 1048577 bytes"));
    let lines = "\n".repeat(500_000) + "1.9.8";
    assert_eq!(one(".terraform-version", lines.as_bytes()).line, 500_001);
    let tools = "nodejs 20.1.0\n".repeat(50_000) + "terraform 1.9.8\n";
    assert_eq!(one(".tool-versions", tools.as_bytes()).line, 50_001);
}

#[test]
fn bad_pins_are_unreadable_with_the_reason() {
    for text in [
        "1.x",
        "latest:(",
        "prefix:latest",
        "system",
        "ref:v1.9.0",
        "path:/opt/terraform",
        "1.9 1.8",
    ] {
        let p = one(".terraform-version", text.as_bytes());
        assert!(matches!(p.spec, Spec::Unreadable(_)), "{text}: {:?}", p.spec);
    }
    assert!(
        unreadable_why(&one(".terraform-version", b"latest:(")).contains("no regular expression")
    );
}

#[test]
fn what_is_no_version_of_tenvs_shape_but_a_constraint_is_read_as_one() {
    for text in ["1.9.8.1", "1.9.99999999999", ">= 1.9, < 1.11", "=1.9.8", "~>1.9"] {
        assert!(matches!(spec(".terraform-version", text), Spec::Constraint(_)), "{text}");
    }
}

#[test]
fn tool_versions_lines_name_the_tool() {
    let text =
        "# tools\nnodejs 20.1.0\nterraform 1.9.8 1.8.5 # and an older one\nopentofu 1.10.0\n";
    let pins = parse(".tool-versions", text.as_bytes());
    let got: Vec<(Engine, Spec, usize)> =
        pins.iter().map(|p| (p.engine, p.spec.clone(), p.line)).collect();
    assert_eq!(
        got,
        vec![(Engine::Terraform, exact(1, 9, 8), 3), (Engine::OpenTofu, exact(1, 10, 0), 4)]
    );
    assert_eq!(one(".tool-versions", b"tofu 1.9.0").engine, Engine::OpenTofu);
    assert_eq!(one(".tool-versions", b"terraform 1.9.8#pinned").spec, exact(1, 9, 8));
    assert!(parse(".tool-versions", b"terraform\n#terraform 1.9.8\nterraformer 1.0\n").is_empty());
}

#[test]
fn tool_versions_takes_the_last_line_of_a_tool_as_tenv_does() {
    let p = one(".tool-versions", b"terraform 1.8.5\nterraform 1.9.8\n");
    assert_eq!((p.spec, p.line), (exact(1, 9, 8), 2));
}

#[test]
fn mise_tools_in_all_three_forms() {
    let text = "[env]\nX = 1\n\n[tools]\nnode = \"20\"\nterraform = \"1.9\"\nopentofu = { version = \"1.10.0\", os = [\"linux\"] }\n";
    let pins = parse("mise.toml", text.as_bytes());
    let got: Vec<(Engine, Spec, usize)> =
        pins.iter().map(|p| (p.engine, p.spec.clone(), p.line)).collect();
    assert_eq!(
        got,
        vec![
            (Engine::Terraform, Spec::Prefix { major: 1, minor: Some(9) }, 6),
            (Engine::OpenTofu, exact(1, 10, 0), 7),
        ]
    );
    let list = one(".mise.toml", b"[tools]\ntofu = [\"1.9.0\", \"1.8.0\"]\n");
    assert_eq!((list.engine, list.spec), (Engine::OpenTofu, exact(1, 9, 0)));
    let prefix = one("mise.toml", b"[tools]\n\"aqua:hashicorp/terraform\" = \"prefix:1.11\"\n");
    assert_eq!(prefix.spec, Spec::Prefix { major: 1, minor: Some(11) });
    let inline = one("mise.toml", b"tools = { terraform = \"latest\" }\r\n");
    assert_eq!(inline.spec, Spec::Latest);
    let twice = one("mise.toml", b"[tools]\ntofu = \"1.9.0\"\nopentofu = \"1.10.0\"\n");
    assert_eq!((twice.spec, twice.line), (exact(1, 9, 0), 2));
}

#[test]
fn mise_values_that_are_no_version_are_unreadable() {
    assert_eq!(unreadable_why(&one("mise.toml", b"[tools]\nterraform = 1.9\n")), "not a string");
    assert_eq!(unreadable_why(&one("mise.toml", b"[tools]\nterraform = []\n")), "an empty list");
    let t = one("mise.toml", b"[tools]\nterraform = { os = [\"linux\"] }\n");
    assert_eq!(unreadable_why(&t), "a table without a `version` string");
    assert!(parse("mise.toml", b"[tools]\nnode = \"20\"\n").is_empty());
    assert!(parse("mise.toml", b"[tools\nnode = 20").is_empty());
    let broken = one("mise.toml", b"[tools]\nterraform = \"1.9\n");
    assert_eq!((broken.engine, broken.line), (Engine::Terraform, 2));
    assert!(unreadable_why(&broken).starts_with("not TOML: "));
}

#[test]
fn a_hostile_mise_file_is_refused_without_trouble() {
    let deep =
        format!("[tools]\nterraform = {}\"1.9\"{}\n", "[".repeat(100_000), "]".repeat(100_000));
    let pins = parse("mise.toml", deep.as_bytes());
    assert!(pins.iter().all(|p| matches!(p.spec, Spec::Unreadable(_))), "{pins:?}");
    let tables = format!("[tools]\nterraform = {}\n", "{ a = ".repeat(50_000));
    assert!(
        parse("mise.toml", tables.as_bytes()).iter().all(|p| matches!(p.spec, Spec::Unreadable(_)))
    );
    let wide = "[tools]\n".to_string()
        + &(0..20_000).map(|i| format!("t{i} = \"1\"\n")).collect::<String>();
    assert!(parse("mise.toml", wide.as_bytes()).is_empty());
    // Many keys of one engine behind backends: lines are counted once, the first wins.
    let many: String =
        (0..20_000).map(|i| format!("\"aqua:x{i}/terraform\" = \"1.{i}\"\n")).collect();
    let pins = parse("mise.toml", format!("[tools]\n{many}").as_bytes());
    assert_eq!(pins.iter().map(|p| p.line).collect::<Vec<_>>(), vec![2]);
}

proptest::proptest! {
    #[test]
    fn any_bytes_are_pins_or_nothing_never_a_panic(
        name in proptest::sample::select(FILES),
        bytes in proptest::collection::vec(proptest::sample::select(&b"19.v-#~<>=, \n\r\t[]{}\"'=:tofuerram\xEF\xBB\xBF\xFF\xFE\x00"[..]), 0..200),
    ) {
        for p in parse(name, &bytes) {
            proptest::prop_assert!(p.line >= 1 && p.text.chars().count() <= 81, "{:?}", p);
        }
    }
}

#[test]
fn other_files_are_no_pins() {
    assert!(parse("main.tf", b"1.9.8").is_empty());
    assert!(parse("a/.terraform-version.bak", b"1.9.8").is_empty());
    assert!(parse(".terraform.lock.hcl", b"1.9.8").is_empty());
}

#[test]
fn the_memo_finds_what_find_finds_and_asks_each_file_once() {
    let files =
        repo(&[(".terraform-version", "1.9.8"), ("envs/.tool-versions", "terraform 1.11.4")]);
    let asked = std::sync::Mutex::new(Vec::new());
    let read = |p: &str| {
        if let Ok(mut a) = asked.lock() {
            a.push(p.to_string());
        }
        files(p)
    };
    let memo = Memo::default();
    for dir in ["envs/a", "envs/b", "envs", "modules/x", "modules/y", "", "envs/a"] {
        assert_eq!(memo.find(&read, dir), find(&files, dir), "{dir}");
    }
    let mut asked = asked.into_inner().unwrap_or_default();
    let all = asked.len();
    asked.sort();
    asked.dedup();
    assert_eq!(all, asked.len(), "a path asked twice");
}

#[test]
fn find_looks_in_the_module_then_its_parents_to_the_root() {
    let read = repo(&[(".terraform-version", "1.9.8"), ("envs/.terraform-version", "1.11.4")]);
    let p = find(&read, "envs/prod/network").expect("a pin");
    assert_eq!((p.file.as_str(), p.spec), ("envs/.terraform-version", exact(1, 11, 4)));
    let root = find(&read, "modules/vpc").expect("the root's");
    assert_eq!(root.file, ".terraform-version");
    assert_eq!(find(&read, "").map(|p| p.file), Some(".terraform-version".to_string()));
    assert_eq!(find(&read, "./envs/").map(|p| p.file), Some("envs/.terraform-version".to_string()));
    assert_eq!(find(&repo(&[]), "envs/prod"), None);
}

#[test]
fn find_prefers_opentofu_in_a_directory_then_tenvs_order() {
    let both = repo(&[("m/.terraform-version", "1.9.8"), ("m/.opentofu-version", "1.10.0")]);
    assert_eq!(find(&both, "m").map(|p| p.engine), Some(Engine::OpenTofu));
    let tools = repo(&[("m/.terraform-version", "1.9.8"), ("m/.tool-versions", "opentofu 1.10.0")]);
    assert_eq!(find(&tools, "m").map(|p| p.file), Some("m/.tool-versions".to_string()));
    let tf = repo(&[
        ("m/.tool-versions", "terraform 1.8.5"),
        ("m/.tfswitchrc", "1.7.5"),
        ("m/.terraform-version", "1.9.8"),
    ]);
    assert_eq!(find(&tf, "m").map(|p| p.spec), Some(exact(1, 9, 8)));
    let rc = repo(&[("m/.tool-versions", "terraform 1.8.5"), ("m/.tfswitchrc", "1.7.5")]);
    assert_eq!(find(&rc, "m").map(|p| p.spec), Some(exact(1, 7, 5)));
    let mise_first = repo(&[
        ("m/.tool-versions", "terraform 1.8.5"),
        ("m/mise.toml", "[tools]\nterraform = \"1.9.8\""),
    ]);
    assert_eq!(find(&mise_first, "m").map(|p| p.file), Some("m/mise.toml".to_string()));
}

#[test]
fn the_nearest_directory_wins_over_an_opentofu_pin_further_up() {
    let read = repo(&[(".opentofu-version", "1.10.0"), ("m/.terraform-version", "1.9.8")]);
    assert_eq!(find(&read, "m").map(|p| p.engine), Some(Engine::Terraform));
}

#[test]
fn find_stops_at_an_unreadable_pin_and_skips_files_that_pin_nothing() {
    let read = repo(&[
        ("m/.terraform-version", "# soon\n"),
        ("m/.tool-versions", "nodejs 20"),
        (".terraform-version", "1.9.8"),
    ]);
    assert_eq!(find(&read, "m").map(|p| p.file), Some(".terraform-version".to_string()));
    let bad = repo(&[("m/.terraform-version", "one.nine"), (".terraform-version", "1.9.8")]);
    let p = find(&bad, "m").expect("the bad pin");
    assert_eq!(p.file, "m/.terraform-version");
    assert!(matches!(p.spec, Spec::Unreadable(_)));
}

#[test]
fn find_never_leaves_the_repository() {
    let asked = std::cell::RefCell::new(Vec::<String>::new());
    let read = |p: &str| {
        asked.borrow_mut().push(p.to_string());
        None
    };
    assert_eq!(find(&read, "../../a/./b/../c/"), None);
    let asked = asked.borrow();
    assert!(
        asked.iter().all(|p| !p.contains("..") && !p.starts_with('/') && !p.contains("./")),
        "{asked:?}"
    );
    assert!(asked.contains(&"a/c/.terraform-version".to_string()), "{asked:?}");
    assert_eq!(dirs("a/c"), vec!["a/c", "a", ""]);
}

#[test]
fn find_reads_each_file_once() {
    let count = std::cell::RefCell::new(BTreeMap::<String, usize>::new());
    let read = |p: &str| {
        *count.borrow_mut().entry(p.to_string()).or_default() += 1;
        None
    };
    assert_eq!(find(&read, "a/b"), None);
    let counts = count.borrow();
    assert!(counts.values().all(|&n| n == 1), "{counts:?}");
    assert_eq!(counts.len(), 3 * FILES.len());
    assert!(counts.contains_key("a/b/.tool-versions") && counts.contains_key("mise.toml"));
}
