//! The module input format the merge and pipeline targets share (so seeds can be written
//! by hand and made from fixture directories): chunks separated by NUL bytes. The first
//! chunk picks the engine: `terraform`, `opentofu`, anything else lets the loader choose.
//! Every later chunk is one file: `NAME\nCONTENT`. A name that is empty, holds `/`, or
//! repeats an earlier name is replaced by one from the target's list of names (skipped
//! when that one is taken too), so any byte string is a valid input.

use override_guard::terraform::discover::Engine;

/// The engine and the files (name, bytes) of an input, at most `max` files.
pub fn parse(data: &[u8], names: &[&str], max: usize) -> (Option<Engine>, Vec<(String, Vec<u8>)>) {
    let mut chunks = data.split(|&b| b == 0);
    let engine = match chunks.next() {
        Some(b"terraform") => Some(Engine::Terraform),
        Some(b"opentofu") => Some(Engine::OpenTofu),
        _ => None,
    };
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    let taken = |files: &[(String, Vec<u8>)], n: &str| files.iter().any(|(f, _)| f == n);
    for (i, chunk) in chunks.enumerate().take(max) {
        let (name, content) = match chunk.iter().position(|&b| b == b'\n') {
            Some(nl) => (String::from_utf8_lossy(&chunk[..nl]).into_owned(), &chunk[nl + 1..]),
            None => (String::new(), chunk),
        };
        let name = if name.is_empty() || name.contains('/') || taken(&files, &name) {
            let fallback = names[i % names.len()];
            if taken(&files, fallback) {
                continue;
            }
            fallback.to_string()
        } else {
            name
        };
        files.push((name, content.to_vec()));
    }
    (engine, files)
}
