//! The result cache: what compiling each candidate file produced, kept across the compiles of a
//! long-lived project with the inputs it read, so a file whose inputs did not change is not
//! compiled again.

use crate::contracts::CompiledContract;
use crate::diagnostics::Diagnostic;
use crate::discover::Discovered;
use crate::inputs::Inputs;
use crate::source::{path_key_bytes, PathKey, PathMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Paths as a set, compared by their bytes ([`PathKey`]): shared modules have a reader in
/// nearly every contract file, and comparing `PathBuf`s parses their components.
type PathSet = std::collections::HashSet<PathKey, rustc_hash::FxBuildHasher>;

/// What compiling one candidate file produced, and what it read to produce it.
#[derive(Default)]
pub(crate) struct FileResult {
    pub(crate) contracts: Vec<Arc<CompiledContract>>,
    pub(crate) failed: u32,
    pub(crate) diagnostics: Vec<Diagnostic>,
    pub(crate) candidate: bool,
    pub(crate) inputs: Inputs,
    /// The reading and parsing diagnostics of the modules it loaded (its own file's included).
    pub(crate) load_diagnostics: Vec<Diagnostic>,
}

/// One file's result in a compile (`None`: the prefilter skipped it), and whether it was reused.
pub(crate) type FileOutcome = Option<(Arc<FileResult>, bool)>;

/// Results of candidate files across the compiles of a long-lived project. A result is
/// *trusted* (reused as is) until a file it read is reported changed; an untrusted one is reused
/// once [`crate::project::Project::unchanged`] holds for its inputs. Under [`ChangeTracking::Rescan`] nothing
/// is reported, so every result starts each compile untrusted.
///
/// [`ChangeTracking::Rescan`]: crate::project::ChangeTracking::Rescan
#[derive(Default)]
pub(crate) struct ResultCache(Mutex<ResultCacheInner>);

#[derive(Default)]
struct ResultCacheInner {
    /// A one-shot compile keeps nothing (building the reader index is not free).
    disabled: bool,
    entries: PathMap<CachedResult>,
    /// The last whole-project compile: its walk and every file's result, in walk order.
    last: Option<(Arc<Discovered>, Vec<FileOutcome>)>,
    /// Files whose result may differ from `last`'s (reported changed, or readers of one);
    /// `None`: unknown, every file is looked at.
    dirty: Option<PathSet>,
    /// File → the cached results that read it: a change of the file distrusts them (without
    /// looking at the inputs of every other result).
    readers: PathMap<PathSet>,
}

struct CachedResult {
    result: Arc<FileResult>,
    trusted: bool,
}

impl ResultCache {
    fn lock(&self) -> std::sync::MutexGuard<'_, ResultCacheInner> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn forget(&self, path: &Path) {
        self.lock().entries.remove(path_key_bytes(path));
    }

    /// Whether this is a one-shot compile (nothing is kept for a next one).
    pub(crate) fn disabled(&self) -> bool {
        self.lock().disabled
    }

    pub(crate) fn disable(&self) {
        *self.lock() = ResultCacheInner { disabled: true, ..Default::default() };
    }

    /// These files changed: the results that read them are no longer trusted, and the next
    /// whole-project compile looks at them and at the files themselves.
    pub(crate) fn files_changed<'p>(&self, paths: impl IntoIterator<Item = &'p PathBuf>) {
        let mut inner = self.lock();
        let inner = &mut *inner;
        for p in paths {
            if let Some(dirty) = &mut inner.dirty {
                dirty.insert(PathKey::new(p));
            }
            // Kept: a result found unchanged is trusted again and must hear of the next change.
            for reader in inner.readers.get(path_key_bytes(p)).into_iter().flatten() {
                if let Some(e) = inner.entries.get_mut(path_key_bytes(&reader.0)) {
                    e.trusted = false;
                }
                if let Some(dirty) = &mut inner.dirty {
                    dirty.insert(reader.clone());
                }
            }
        }
    }

    /// Anything may have changed (a rescan, a walk after files were added or removed).
    pub(crate) fn distrust_all(&self) {
        let mut inner = self.lock();
        inner.dirty = None;
        for e in inner.entries.values_mut() {
            e.trusted = false;
        }
    }

    /// The last whole-project compile's results with the dirty files' taken out, when it was
    /// of this same walk and every change since is known.
    pub(crate) fn take_incremental(&self, discovered: &Arc<Discovered>) -> Option<(Vec<FileOutcome>, Vec<PathBuf>)> {
        let mut inner = self.lock();
        let (walk, _) = inner.last.as_ref()?;
        if !Arc::ptr_eq(walk, discovered) || inner.dirty.is_none() {
            return None;
        }
        let (_, results) = inner.last.take()?;
        let dirty = inner.dirty.replace(Default::default())?.into_iter().map(|k| k.0).collect();
        Some((results, dirty))
    }

    /// Remembers a whole-project compile; `tracked`: changes are reported from now on.
    pub(crate) fn set_last(&self, discovered: Arc<Discovered>, results: Vec<FileOutcome>, tracked: bool) {
        let mut inner = self.lock();
        if inner.disabled {
            return;
        }
        inner.last = Some((discovered, results));
        if tracked && inner.dirty.is_none() {
            inner.dirty = Some(Default::default());
        }
    }

    /// The cached result of `path`, if it can be reused.
    /// `unchanged`: whether an input list still reads what it read (the project's
    /// [`crate::project::Project::unchanged`]).
    pub(crate) fn reusable(&self, path: &Path, unchanged: impl FnOnce(&Inputs) -> bool) -> Option<Arc<FileResult>> {
        let (result, trusted) = {
            let inner = self.lock();
            let e = inner.entries.get(path_key_bytes(path))?;
            (e.result.clone(), e.trusted)
        };
        if trusted {
            return Some(result);
        }
        if !unchanged(&result.inputs) {
            return None;
        }
        if let Some(e) = self.lock().entries.get_mut(path_key_bytes(path)) {
            e.trusted = Arc::ptr_eq(&e.result, &result);
        }
        Some(result)
    }

    pub(crate) fn insert(&self, path: &Path, result: Arc<FileResult>) {
        let mut inner = self.lock();
        let inner = &mut *inner;
        if inner.disabled {
            return;
        }
        // A result replaced: it is no longer a reader of what only the old one read.
        let key = PathKey::new(path);
        if let Some(old) = inner.entries.remove(path_key_bytes(path)) {
            for read in read_paths(&old.result.inputs) {
                if let Some(readers) = inner.readers.get_mut(path_key_bytes(read)) {
                    readers.remove(&key);
                }
            }
        }
        for read in read_paths(&result.inputs) {
            match inner.readers.get_mut(path_key_bytes(read)) {
                Some(readers) => {
                    readers.insert(key.clone());
                }
                None => {
                    inner.readers.insert(PathKey::new(read), std::iter::once(key.clone()).collect());
                }
            }
        }
        inner.entries.insert(key, CachedResult { result, trusted: true });
    }

    /// Drops the results of files that are no longer part of the project.
    pub(crate) fn retain(&self, files: &[PathBuf]) {
        let keep: std::collections::HashSet<&[u8], rustc_hash::FxBuildHasher> =
            files.iter().map(|p| path_key_bytes(p)).collect();
        let mut inner = self.lock();
        inner.entries.retain(|p, _| keep.contains(path_key_bytes(&p.0)));
        inner.readers.retain(|_, readers| {
            readers.retain(|r| keep.contains(path_key_bytes(&r.0)));
            !readers.is_empty()
        });
    }
}

/// The files an input list read or loaded, watched ones included (with repeats: a read and a
/// load of one file, or one file in several shared lookups).
fn read_paths(inputs: &Inputs) -> Vec<&Path> {
    let mut out = Vec::new();
    inputs.all_read_paths(&mut |p| out.push(p));
    out
}
