//! The loader: every read of a file's text (overlay first), the byte prefilter, and parsing,
//! each once per compile and noted as an input of the file being compiled.

use super::{LoadError, Loaded, Project, Slot};
use crate::diagnostics::{Code, Diagnostic};
use crate::extract::{index_module, ModuleInfo};
use crate::inputs::{self, Input};
use crate::paths::normalize;
use crate::prefilter::Prefiltered;
use crate::source::{path_key_bytes, FileId, PathKey, SourceFile, Span};
use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::Arc;

impl Project {
    /// The raw text of a file: the overlay, else the disk.
    fn read_raw(&self, path: &Path) -> std::io::Result<Arc<[u8]>> {
        match self.overlay(path) {
            Some(text) => Ok(Arc::from(text.as_bytes())),
            None => std::fs::read(path).map(Arc::from),
        }
    }

    /// The byte prefilter, once per file and compile (and across compiles while the file is
    /// not reported changed): only candidates get a file entry (a line table and a hash) and
    /// are parsed.
    pub fn prefilter(&self, path: &Path) -> Prefiltered {
        let path = normalize(path);
        if let Some(p) = self.session().prefiltered.get(path_key_bytes(&path)) {
            return *p;
        }
        let found = match self.read_raw(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Prefiltered::Missing,
            Err(_) => Prefiltered::Candidate { declares: false },
            Ok(bytes) => {
                let declares = crate::prefilter::mentions_core(&bytes);
                if declares
                    || crate::prefilter::mentions_instance_id(&bytes)
                    || crate::prefilter::mentions_core_near_miss(&bytes)
                {
                    // Read once: the candidate's entry is made from these bytes.
                    let read = self.file_from_bytes(&path, bytes);
                    self.session().files.entry(PathKey::new(&path)).or_insert(read);
                    Prefiltered::Candidate { declares }
                } else if std::str::from_utf8(&bytes).is_ok() {
                    Prefiltered::Skipped
                } else {
                    // Reported (AS0002) by load: whatever it declares is unknown.
                    Prefiltered::Candidate { declares: false }
                }
            }
        };
        self.session().prefiltered.insert(PathKey(path), found);
        found
    }

    /// Reads a file's text (overlay first), once per compile. Invalid UTF-8 and unreadable
    /// files are an error carrying a file entry for the diagnostic.
    pub fn read(&self, path: &Path) -> Result<Arc<SourceFile>, LoadError> {
        let path = normalize(path);
        let cached = self.session().files.get(path_key_bytes(&path)).cloned();
        let r = match cached {
            Some(r) => r,
            None => {
                let r = self.read_uncached(&path);
                self.session().files.entry(PathKey::new(&path)).or_insert(r).clone()
            }
        };
        inputs::note(Input::Read { path, file: file_id_of(&r) });
        r
    }

    fn read_uncached(&self, path: &Path) -> Result<Arc<SourceFile>, LoadError> {
        match self.read_raw(path) {
            Ok(bytes) => self.file_from_bytes(path, bytes),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(LoadError::NotFound),
            Err(e) => {
                let reason = e.to_string();
                let file = self.db.add_unreadable(path, self.rel(path), Arc::from(""), reason.clone());
                Err(LoadError::Unreadable { file, reason })
            }
        }
    }

    fn file_from_bytes(&self, path: &Path, bytes: Arc<[u8]>) -> Result<Arc<SourceFile>, LoadError> {
        let rel = self.rel(path);
        match std::str::from_utf8(&bytes) {
            Ok(text) => Ok(self.db.add(path, rel, Arc::from(text))),
            Err(e) => {
                // Keep a lossy rendering so the diagnostic can show the line; up to the first
                // bad byte the offsets are the same.
                let valid = e.valid_up_to();
                let text: Arc<str> = String::from_utf8_lossy(&bytes).into_owned().into();
                let prefix = &text[..valid];
                let line = prefix.matches('\n').count() + 1;
                let column = prefix.rsplit('\n').next().map_or(0, |l| l.encode_utf16().count()) + 1;
                let reason = format!("it is not valid UTF-8 (line {line}, column {column}, byte {valid})");
                let file = self.db.add_unreadable(path, rel, text, reason.clone());
                Err(LoadError::Unreadable { file, reason })
            }
        }
    }

    /// Loads (reads, parses, indexes) a module, once per compile, reusing the parse of an
    /// unchanged text from earlier compiles.
    pub fn load(&self, path: &Path) -> Result<Arc<ModuleInfo>, LoadError> {
        let path = normalize(path);
        let slot: Slot = {
            let mut s = self.session();
            match s.slots.get(path_key_bytes(&path)) {
                Some(slot) => slot.clone(),
                None => s.slots.entry(PathKey::new(&path)).or_default().clone(),
            }
        };
        let loaded = slot.get_or_init(|| self.load_cached(&path));
        // Noted here too: another thread may have loaded it for its own file. A load is also a
        // read: one input says both.
        let file = match &loaded.result {
            Ok(m) => Some(m.file.id),
            Err(e) => e.file().map(|f| f.id),
        };
        inputs::note(Input::Load { path, file });
        inputs::note_diagnostics(&loaded.diagnostics);
        loaded.result.clone()
    }

    /// [`Project::load`] for the file being compiled. In a one-shot compile its syntax tree is
    /// not kept for others (nothing else usually imports a contract file; one that does parses
    /// it again): it is dropped as soon as the file is compiled, so a compile holds at most a
    /// thread's worth of contract files' trees at once.
    pub fn load_own(&self, path: &Path) -> Result<Arc<ModuleInfo>, LoadError> {
        if !self.results.disabled() {
            return self.load(path);
        }
        let path = normalize(path);
        let existing = self.session().slots.get(path_key_bytes(&path)).cloned();
        let loaded = match existing.as_ref().and_then(|slot| slot.get()) {
            Some(loaded) => loaded.clone(),
            None => self.parse_file(&path),
        };
        let file = match &loaded.result {
            Ok(m) => Some(m.file.id),
            Err(e) => e.file().map(|f| f.id),
        };
        inputs::note(Input::Load { path, file });
        inputs::note_diagnostics(&loaded.diagnostics);
        loaded.result
    }

    /// Reads and parses a file, not kept anywhere.
    fn parse_file(&self, path: &Path) -> Loaded {
        match self.read(path) {
            Ok(file) => {
                self.parses.fetch_add(1, Ordering::Relaxed);
                match crate::parse::parse_module(&file) {
                    Ok(module) => {
                        let index = index_module(&file, &module);
                        Loaded { result: Ok(Arc::new(ModuleInfo { file, module, index })), diagnostics: Vec::new() }
                    }
                    Err(diagnostics) => Loaded { result: Err(LoadError::Syntax { file }), diagnostics },
                }
            }
            // Unreadable files are reported by `load`, once.
            Err(_) => self.load_cached(path),
        }
    }

    fn load_cached(&self, path: &Path) -> Loaded {
        let file = match self.read(path) {
            Ok(f) => f,
            Err(LoadError::Unreadable { file, reason }) => {
                let at = utf8_error_offset(&reason).unwrap_or(0);
                let diagnostic = Diagnostic::new(
                    Code::UnreadableFile,
                    Span::new(file.id, at, at),
                    format!("cannot read {}: {reason}", file.rel),
                )
                .label("not UTF-8");
                let loaded = Loaded {
                    result: Err(LoadError::Unreadable { file: file.clone(), reason }),
                    diagnostics: vec![diagnostic],
                };
                // Kept like a parse, so later compiles that reuse a result report it too.
                self.cache
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(PathKey::new(path), (file.hash, loaded.clone()));
                return loaded;
            }
            Err(e) => return Loaded { result: Err(e), diagnostics: Vec::new() },
        };
        if let Some((hash, loaded)) = self.cache.lock().unwrap_or_else(|e| e.into_inner()).get(path_key_bytes(path)) {
            if *hash == file.hash && loaded_file_id(loaded) == Some(file.id) {
                return loaded.clone();
            }
        }
        self.parses.fetch_add(1, Ordering::Relaxed);
        let loaded = match crate::parse::parse_module(&file) {
            Ok(module) => {
                let index = index_module(&file, &module);
                Loaded {
                    result: Ok(Arc::new(ModuleInfo { file: file.clone(), module, index })),
                    diagnostics: Vec::new(),
                }
            }
            Err(diagnostics) => Loaded { result: Err(LoadError::Syntax { file: file.clone() }), diagnostics },
        };
        self.cache.lock().unwrap_or_else(|e| e.into_inner()).insert(PathKey::new(path), (file.hash, loaded.clone()));
        loaded
    }
}

/// The byte offset recorded in an invalid-UTF-8 reason.
fn utf8_error_offset(reason: &str) -> Option<u32> {
    let i = reason.rfind("byte ")?;
    reason[i + 5..].trim_end_matches(')').parse().ok()
}

fn loaded_file_id(l: &Loaded) -> Option<FileId> {
    match &l.result {
        Ok(m) => Some(m.file.id),
        Err(e) => e.file().map(|f| f.id),
    }
}

/// The entry a read produced (`None`: no such file).
pub(super) fn file_id_of(read: &Result<Arc<SourceFile>, LoadError>) -> Option<FileId> {
    match read {
        Ok(f) => Some(f.id),
        Err(e) => e.file().map(|f| f.id),
    }
}
