//! `file:` URIs and paths, both ways (the `url` crate's reading of RFC 8089), normalized the
//! way the compiler keys its files.

use agent_surface_compiler::paths::normalize;
use lsp_types as lsp;
use std::path::{Path, PathBuf};

/// The path of a `file:` URI (percent-decoded, normalized); `None` for other schemes, for a
/// host other than `localhost`, and for what is not a URI.
pub fn uri_to_path(uri: &lsp::Uri) -> Option<PathBuf> {
    let url = url::Url::parse(uri.as_str()).ok()?;
    if url.scheme() != "file" {
        return None;
    }
    url.to_file_path().ok().map(|p| normalize(&p))
}

/// Characters the `url` crate leaves in a file URL's path that RFC 3986 (and so `lsp::Uri`)
/// does not allow there.
const NOT_IN_RFC3986_PATHS: &[(char, &str)] = &[('[', "%5B"), (']', "%5D"), ('\\', "%5C"), ('^', "%5E"), ('|', "%7C")];

/// The `file:` URI of an absolute path (spaces, `#`, `%`, non-ASCII and the like
/// percent-encoded).
pub fn path_to_uri(path: &Path) -> lsp::Uri {
    let fallback = || "file:///".parse().expect("a valid URI");
    let Ok(url) = url::Url::from_file_path(path) else { return fallback() };
    let mut s = url.to_string();
    for (c, escaped) in NOT_IN_RFC3986_PATHS {
        if s.contains(*c) {
            s = s.replace(*c, escaped);
        }
    }
    s.parse().unwrap_or_else(|_| fallback())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_round_trip_with_escapes() {
        let p = Path::new("/tmp/my proj/Gerät #1/a.ts");
        let uri = path_to_uri(p);
        assert_eq!(uri.as_str(), "file:///tmp/my%20proj/Ger%C3%A4t%20%231/a.ts");
        assert_eq!(uri_to_path(&uri).unwrap(), p);
        let vscode: lsp::Uri = "file:///tmp/my%20proj/Ger%c3%a4t%20%231/a.ts".parse().unwrap();
        assert_eq!(uri_to_path(&vscode).unwrap(), p);
        assert_eq!(uri_to_path(&"untitled:Untitled-1".parse().unwrap()), None);
        assert_eq!(uri_to_path(&"file://server/share/a.ts".parse().unwrap()), None);
    }

    #[test]
    fn spaces_unicode_and_escapes_decode() {
        let uri: lsp::Uri = "file:///home/u/My%20Project/caf%C3%A9/%E2%9C%93%2525.ts".parse().unwrap();
        assert_eq!(uri_to_path(&uri).unwrap(), Path::new("/home/u/My Project/café/✓%25.ts"));
        let uri: lsp::Uri = "file://localhost/tmp/a%20b/c.ts".parse().unwrap();
        assert_eq!(uri_to_path(&uri).unwrap(), Path::new("/tmp/a b/c.ts"));
        let uri: lsp::Uri = "file:///tmp/x/./y/../z.ts".parse().unwrap();
        assert_eq!(uri_to_path(&uri).unwrap(), Path::new("/tmp/x/z.ts"), "normalized");
        for p in ["/tmp/日本語/ファイル.ts", "/tmp/100% sure/a.ts", "/tmp/app/[id]/page.tsx", "/tmp/a+b@c/d=e.ts"]
        {
            let uri = path_to_uri(Path::new(p));
            assert_eq!(uri_to_path(&uri).unwrap(), Path::new(p), "{}", uri.as_str());
        }
        assert_eq!(path_to_uri(Path::new("/tmp/100% sure/a.ts")).as_str(), "file:///tmp/100%25%20sure/a.ts");
    }

    #[test]
    fn other_schemes_are_not_paths() {
        for u in
            ["https://example.com/a.ts", "untitled:Untitled-2", "vscode-notebook-cell:/tmp/a.ts#x", "git:/tmp/a.ts?ref"]
        {
            assert_eq!(uri_to_path(&u.parse().unwrap()), None, "{u}");
        }
    }
}
