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
