//! Paths as every layer names files: relative to the source's root, with `/`, whatever
//! the platform (the worktree source converts at its edge). Ground floor: imports nothing.

/// `dir/name`, or `name` at the root.
pub fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() { name.to_string() } else { format!("{dir}/{name}") }
}

/// Splits `a/b/c.tf` into (`a/b`, `c.tf`).
pub fn split(path: &str) -> (&str, &str) {
    match path.rfind('/') {
        Some(i) => (&path[..i], &path[i + 1..]),
        None => ("", path),
    }
}

/// The name of the temporary copy `fix` and `fold` write beside `name` before renaming it
/// over it: hidden, and no configuration file's name.
pub(crate) fn temp_name(name: &str, pid: u32, n: u32) -> String {
    format!(".{name}.override-guard-{pid}-{n}.tmp")
}

/// The file a [`temp_name`] is the copy of, and the process that wrote it.
pub(crate) fn temp_of(temp: &str) -> Option<(&str, u32)> {
    let inner = temp.strip_prefix('.')?.strip_suffix(".tmp")?;
    let (name, tail) = inner.rsplit_once(".override-guard-")?;
    let (pid, n) = tail.split_once('-')?;
    n.parse::<u32>().ok()?;
    Some((name, pid.parse().ok()?)).filter(|(name, _)| !name.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temporary_copies_name_their_file_and_writer() {
        let t = temp_name("main.tf", 4242, 3);
        assert_eq!(t, ".main.tf.override-guard-4242-3.tmp");
        assert_eq!(temp_of(&t), Some(("main.tf", 4242)));
        assert_eq!(
            temp_of(&temp_name("a.override-guard-1-1.tf", 7, 0)),
            Some(("a.override-guard-1-1.tf", 7))
        );
        for other in
            [".main.tf.tmp", "main.tf", ".override-guard-1-2.tmp", ".x.override-guard-a-2.tmp"]
        {
            assert_eq!(temp_of(other), None, "{other}");
        }
    }
}
