//! Source files and positions.
//!
//! Every span in the compiler is a byte range into one file's text. Line and column are derived
//! on demand: lines are 1-based, columns are 1-based UTF-16 code units, because that is what
//! editors (LSP) and the JSON diagnostic format speak.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

/// Index of a file in the [`SourceDb`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FileId(pub u32);

/// A byte range in one file.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Span {
    pub file: FileId,
    pub lo: u32,
    pub hi: u32,
}

impl Span {
    pub fn new(file: FileId, lo: u32, hi: u32) -> Self {
        Span { file, lo, hi: hi.max(lo) }
    }
    pub fn len(&self) -> u32 {
        self.hi - self.lo
    }
    pub fn is_empty(&self) -> bool {
        self.hi == self.lo
    }
}

/// One source file's text and line table.
#[derive(Debug)]
pub struct SourceFile {
    pub id: FileId,
    /// Absolute path on disk (or the path given for a stdin buffer).
    pub path: PathBuf,
    /// Path relative to the project root, `/`-separated: what users and manifests see.
    pub rel: String,
    pub text: Arc<str>,
    /// Why the file could not be read as UTF-8 text (its `text` is then a lossy rendering).
    pub unreadable: Option<String>,
    /// Content hash of `text`: the key of the parse cache.
    pub hash: u64,
    line_starts: Vec<u32>,
}

/// A fast 64-bit content hash (the low half of blake3).
pub fn content_hash(text: &str) -> u64 {
    let h = blake3::hash(text.as_bytes());
    u64::from_le_bytes(h.as_bytes()[..8].try_into().expect("8 bytes"))
}

/// A 1-based line and a 1-based UTF-16 column.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct LineCol {
    pub line: u32,
    pub column: u32,
}

impl SourceFile {
    pub fn new(id: FileId, path: PathBuf, rel: String, text: Arc<str>) -> Self {
        let mut line_starts = vec![0u32];
        line_starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i as u32 + 1));
        let hash = content_hash(&text);
        SourceFile { id, path, rel, text, unreadable: None, hash, line_starts }
    }

    /// Line (1-based) and UTF-16 column (1-based) of a byte offset. Offsets inside a multi-byte
    /// character are clamped to its start; offsets past the end point just past the last char.
    pub fn line_col(&self, offset: u32) -> LineCol {
        let offset = offset.min(self.text.len() as u32);
        let line_idx = match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.line_starts[line_idx] as usize;
        let mut end = offset as usize;
        while end > start && !self.text.is_char_boundary(end) {
            end -= 1;
        }
        let column = self.text[start..end].encode_utf16().count() as u32 + 1;
        LineCol { line: line_idx as u32 + 1, column }
    }
}

/// All files the compilation has read, shareable across threads. Files are added lazily (a
/// module imported by a contract is read when evaluation needs it), so ids are assigned in
/// arrival order; nothing user-visible depends on them.
#[derive(Default, Debug)]
pub struct SourceDb {
    inner: RwLock<SourceDbInner>,
}

#[derive(Default, Debug)]
struct SourceDbInner {
    files: Vec<Arc<SourceFile>>,
    /// By the bytes of normalized paths (every file is added through `Project`, which
    /// normalizes; `lookup` and `forget` normalize what they are given).
    by_path: PathMap<FileId>,
}

impl SourceDb {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a file (or returns the id it already has).
    pub fn add(&self, path: &Path, rel: String, text: Arc<str>) -> Arc<SourceFile> {
        self.add_with(path, rel, text, None)
    }

    /// Adds a file that could not be read as text, with the reason.
    pub fn add_unreadable(&self, path: &Path, rel: String, text: Arc<str>, reason: String) -> Arc<SourceFile> {
        self.add_with(path, rel, text, Some(reason))
    }

    /// Adds a file's current text. The same text keeps its id (and every span into it); new
    /// text for a known path gets a new id, older ids stay valid for older results.
    fn add_with(&self, path: &Path, rel: String, text: Arc<str>, unreadable: Option<String>) -> Arc<SourceFile> {
        debug_assert_eq!(path, crate::paths::normalize(path), "SourceDb paths are normalized");
        let mut inner = self.inner.write().unwrap_or_else(|e| e.into_inner());
        if let Some(id) = inner.by_path.get(path_key_bytes(path)) {
            let existing = &inner.files[id.0 as usize];
            if existing.text == text && existing.unreadable == unreadable {
                return existing.clone();
            }
        }
        let id = FileId(inner.files.len() as u32);
        let mut file = SourceFile::new(id, path.to_path_buf(), rel, text);
        file.unreadable = unreadable;
        let file = Arc::new(file);
        inner.files.push(file.clone());
        inner.by_path.insert(PathKey::new(path), id);
        file
    }

    pub fn get(&self, id: FileId) -> Arc<SourceFile> {
        self.inner.read().unwrap_or_else(|e| e.into_inner()).files[id.0 as usize].clone()
    }

    /// Forgets the path's current file (its id stays valid).
    pub fn forget(&self, path: &Path) {
        let path = crate::paths::normalize(path);
        self.inner.write().unwrap_or_else(|e| e.into_inner()).by_path.remove(path_key_bytes(&path));
    }

    pub fn lookup(&self, path: &Path) -> Option<Arc<SourceFile>> {
        let path = crate::paths::normalize(path);
        let inner = self.inner.read().unwrap_or_else(|e| e.into_inner());
        inner.by_path.get(path_key_bytes(&path)).map(|id| inner.files[id.0 as usize].clone())
    }
}

/// A path as a hash-map key, hashed and compared by its bytes: `Path`'s own `Hash` walks
/// components, and hashing paths that way was a tenth of a cold compile. The compiler's paths
/// are normalized ([`crate::paths::normalize`]), so equal bytes means the same path.
#[derive(Clone, Debug)]
pub struct PathKey(pub PathBuf);

impl PathKey {
    pub fn new(path: &Path) -> Self {
        PathKey(path.to_path_buf())
    }
}

/// The bytes a [`PathKey`] is compared by: look a key up with `map.get(path_key_bytes(p))`.
pub fn path_key_bytes(path: &Path) -> &[u8] {
    path.as_os_str().as_encoded_bytes()
}

impl PartialEq for PathKey {
    fn eq(&self, other: &Self) -> bool {
        path_key_bytes(&self.0) == path_key_bytes(&other.0)
    }
}

impl Eq for PathKey {}

impl std::hash::Hash for PathKey {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        // As `[u8]` hashes, so `Borrow<[u8]>` lookups find it.
        path_key_bytes(&self.0).hash(state)
    }
}

impl std::borrow::Borrow<[u8]> for PathKey {
    fn borrow(&self) -> &[u8] {
        path_key_bytes(&self.0)
    }
}

/// A map keyed by paths, with a fast hasher (keys are not attacker-chosen: they are the
/// project's own files).
pub type PathMap<V> = HashMap<PathKey, V, rustc_hash::FxBuildHasher>;

/// `/`-separated path of `path` relative to `root` (falls back to the path itself).
pub fn relative_path(root: &Path, path: &Path) -> String {
    // The walker's paths are `root` joined with normal components: cut the prefix as bytes
    // (`strip_prefix` and `components` parse every component, a fiftieth of a cold compile).
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let (root, path) = (root.as_os_str().as_bytes(), path.as_os_str().as_bytes());
        let root = root.strip_suffix(b"/").unwrap_or(root);
        if let Some(rest) = path.strip_prefix(root).and_then(|r| r.strip_prefix(b"/")) {
            let normal = !rest.is_empty() && rest.split(|&b| b == b'/').all(|seg| !seg.is_empty() && seg != b".");
            if let (true, Ok(rest)) = (normal, std::str::from_utf8(rest)) {
                return rest.to_string();
            }
        }
    }
    let rel = path.strip_prefix(root).unwrap_or(path);
    let parts: Vec<String> = rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
    parts.join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_are_utf16_code_units() {
        let f = SourceFile::new(FileId(0), "a.ts".into(), "a.ts".into(), "ab\n😀x é\n".into());
        assert_eq!(f.line_col(0), LineCol { line: 1, column: 1 });
        assert_eq!(f.line_col(3), LineCol { line: 2, column: 1 });
        // 😀 is 4 bytes, 2 UTF-16 units.
        assert_eq!(f.line_col(7), LineCol { line: 2, column: 3 });
        // inside the emoji clamps to its start
        assert_eq!(f.line_col(5), LineCol { line: 2, column: 1 });
        assert_eq!(f.line_col(9), LineCol { line: 2, column: 5 });
    }

    #[test]
    fn relative_paths_use_forward_slashes() {
        assert_eq!(relative_path(Path::new("/r"), Path::new("/r/src/a.ts")), "src/a.ts");
    }

    #[test]
    fn the_byte_fast_path_agrees_with_components() {
        let by_components = |root: &str, path: &str| {
            let rel = Path::new(path).strip_prefix(root).unwrap_or(Path::new(path));
            rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect::<Vec<_>>().join("/")
        };
        let cases = [
            ("/r", "/r/src/a.ts"),
            ("/r/", "/r/src/a.ts"),
            ("/", "/src/a.ts"),
            ("/r", "/rx/a.ts"),
            ("/r", "/r//src/a.ts"),
            ("/r", "/r/./src/a.ts"),
            ("/r", "/r/src/../a.ts"),
            ("/r", "/r/src/"),
            ("/r", "/r"),
            ("/r", "/other/a.ts"),
            ("/r", "/r/é/ü.ts"),
        ];
        for (root, path) in cases {
            assert_eq!(relative_path(Path::new(root), Path::new(path)), by_components(root, path), "{root} {path}");
        }
    }
}
