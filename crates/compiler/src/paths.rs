//! Paths: the one lexical normalization every path key goes through, and the byte order files
//! are sorted by. The lowest module of the compiler: it knows no other.

use std::path::{Component, Path, PathBuf};

/// Lexically normalizes a path (`a/./b/../c` → `a/c`) without touching the file system, so
/// one file always has one key whatever route imports it.
pub fn normalize(path: &Path) -> PathBuf {
    if is_normal(path) {
        return path.to_path_buf();
    }
    normalize_components(path)
}

/// [`normalize`] component by component (what the byte check in [`is_normal`] short-cuts).
fn normalize_components(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Whether [`normalize`] would return the path unchanged (the common case, checked on bytes:
/// rebuilding every path component by component was a thirtieth of a cold compile).
fn is_normal(path: &Path) -> bool {
    let b = path.as_os_str().as_encoded_bytes();
    !b.is_empty()
        && !b.ends_with(b"/")
        && !b.ends_with(b"/.")
        && !b.ends_with(b"/..")
        && b != b"."
        && b != b".."
        && !b.starts_with(b"./")
        && !b.starts_with(b"../")
        // No `//`, `/./` or `/../`: one pass over the slashes (three `memmem` searches built a
        // searcher each, per path).
        && memchr::memchr_iter(b'/', b).all(|i| {
            let rest = &b[i + 1..];
            !(rest.starts_with(b"/") || rest.starts_with(b"./") || rest.starts_with(b"../"))
        })
        && (cfg!(unix) || !b.contains(&b'\\'))
}

/// A path's bytes: the order [`crate::discover::discover`] sorts by.
pub fn path_bytes(p: &Path) -> &[u8] {
    p.as_os_str().as_encoded_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes_lexically() {
        assert_eq!(normalize(Path::new("/a/./b/../c.ts")), PathBuf::from("/a/c.ts"));
        for p in [
            "/a/b.ts",
            "/a//b.ts",
            "/a/./b",
            "./a",
            "../a",
            "a/..",
            "/a/b/",
            "/",
            "a",
            ".",
            "/a/b/.",
            "x/../../y",
            "/a/.b/c",
            "/a/..b/c",
            "/a/b./c",
            "/a/b../c",
            "/.a",
            "//a",
        ] {
            assert_eq!(normalize(Path::new(p)).as_os_str(), normalize_components(Path::new(p)).as_os_str(), "{p}");
        }
    }
}
