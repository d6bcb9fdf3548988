//! The on-disk result cache (`--cache-dir DIR`): what compiling each contract file produced,
//! kept between one-shot compiles (CI runs, `check` on a pre-commit hook) with the content hash
//! of every file it read and every import it resolved. A file whose recorded inputs all read
//! the same again is neither parsed nor evaluated: its contracts and diagnostics come from the
//! cache, and the manifest is byte-identical to a cold compile's.
//!
//! One file per project, `DIR/agent-surface-<key>.json`, written atomically after a compile
//! that changed something; `<key>` covers the compiler build and the loaded configuration
//! (tsconfig aliases and scopes included), so a different compiler or configuration starts
//! cold instead of trusting results it did not compute. A cache that cannot be read is a
//! warning and a cold compile, never an error: it only ever saves work.

use crate::cache::FileResult;
use crate::contracts::CompiledContract;
use crate::diagnostics::{Code, Diagnostic, Label, Severity, CODES};
use crate::extract::{MacroCall, RootMacro};
use crate::inputs::Input;
use crate::project::{LoadError, Project};
use crate::source::{FileId, Span};
use agent_surface_model::manifest::HashedContract;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// Bumped whenever what an entry holds changes meaning.
const FORMAT: u32 = 1;

/// The compiler's sources and lock file (crates/compiler/build.rs): a build of other sources
/// must not reuse this one's results even at the same version.
const FINGERPRINT: &str = env!("AGENT_SURFACE_COMPILER_FINGERPRINT");

pub struct DiskCache {
    path: PathBuf,
    key: String,
    /// What the entries refer to by number, the previous compile's entries not yet taken, and
    /// this compile's.
    state: Mutex<State>,
    hits: AtomicUsize,
    misses: AtomicUsize,
}

/// How a compile used the cache.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Files declaring contracts whose result came from the cache (not parsed, not evaluated).
    pub hits: usize,
    /// Files declaring contracts that were compiled (no entry, or an input changed).
    pub misses: usize,
}

/// The file on disk. Paths, content hashes and resolutions are shared by every entry (most
/// contract files read the same shared modules), entries name them by number.
#[derive(Serialize, Deserialize)]
struct CacheFile {
    format: u32,
    key: String,
    paths: Vec<String>,
    /// The content hash of each path that an entry read (`None`: missing, or not a read).
    hashes: Vec<Option<u64>>,
    resolves: Vec<Resolve>,
    entries: BTreeMap<String, Entry>,
}

/// An import resolved: from folder, alias scope, specifier, the file found (paths by number).
#[derive(Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
struct Resolve(u32, usize, String, Option<u32>);

#[derive(Default)]
struct State {
    /// The previous compile's entries, by absolute file path, until a compile takes them.
    stored: HashMap<String, Entry>,
    paths: Vec<Arc<str>>,
    path_numbers: HashMap<Arc<str>, u32>,
    /// The previous compile's content hash of each path.
    old_hashes: Vec<Option<u64>>,
    /// This compile's, for the paths its kept entries read.
    hashes: HashMap<u32, Option<u64>>,
    resolves: Vec<Resolve>,
    resolve_numbers: HashMap<Resolve, u32>,
    kept: BTreeMap<String, Entry>,
    /// Whether `kept` differs from what was loaded (an entry replaced or not kept again).
    changed: bool,
}

/// One contract file's result and what it was computed from.
#[derive(Clone, Serialize, Deserialize)]
struct Entry {
    /// Every file read or loaded (by number: its hash is the table's).
    reads: Vec<u32>,
    /// Every import resolved (by number).
    resolves: Vec<u32>,
    candidate: bool,
    failed: u32,
    contracts: Vec<StoredContract>,
    diagnostics: Vec<StoredDiagnostic>,
    load_diagnostics: Vec<StoredDiagnostic>,
}

/// File number, start and end offsets.
#[derive(Clone, Copy, Serialize, Deserialize)]
struct StoredSpan(u32, u32, u32);

#[derive(Clone, Serialize, Deserialize)]
struct StoredContract {
    /// Its canonical text (as the manifest holds it), kept as JSON.
    contract: Box<serde_json::value::RawValue>,
    file: u32,
    kind: String,
    span: StoredSpan,
    callee_span: StoredSpan,
    insert_at: u32,
    has_args: bool,
    definition: StoredSpan,
    /// Top-level fields: key, key span, value span (`None`: the definition was not an object).
    fields: Option<Vec<(String, StoredSpan, StoredSpan)>>,
}

#[derive(Clone, Serialize, Deserialize)]
struct StoredDiagnostic {
    code: String,
    error: bool,
    message: String,
    primary: (StoredSpan, String),
    related: Vec<(StoredSpan, String)>,
    help: Option<String>,
}

impl DiskCache {
    /// Opens the cache of `project` in `dir` (created when missing). The second value says why
    /// the previous entries could not be used, when they exist and cannot be.
    pub fn open(dir: &Path, project: &Project) -> Result<(DiskCache, Option<String>), String> {
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create the cache folder {}: {e}", dir.display()))?;
        let key = cache_key(project);
        let path = dir.join(format!("agent-surface-{}.json", &key[..16]));
        let (file, note) = match std::fs::read(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => (None, None),
            Err(e) => (None, Some(format!("cannot read the cache {}: {e}", path.display()))),
            Ok(bytes) => match serde_json::from_slice::<CacheFile>(&bytes) {
                Ok(f) if f.format == FORMAT && f.key == key && f.hashes.len() == f.paths.len() => (Some(f), None),
                // Another build or configuration under the same short name: start cold.
                Ok(_) => (None, None),
                Err(e) => (None, Some(format!("ignoring the unreadable cache {}: {e}", path.display()))),
            },
        };
        let mut state = State::default();
        if let Some(f) = file {
            state.paths = f.paths.into_iter().map(Arc::from).collect();
            state.path_numbers = state.paths.iter().enumerate().map(|(i, p)| (p.clone(), i as u32)).collect();
            state.old_hashes = f.hashes;
            state.resolve_numbers = f.resolves.iter().enumerate().map(|(i, r)| (r.clone(), i as u32)).collect();
            state.resolves = f.resolves;
            state.stored = f.entries.into_iter().collect();
        }
        let cache =
            DiskCache { path, key, state: Mutex::new(state), hits: AtomicUsize::new(0), misses: AtomicUsize::new(0) };
        Ok((cache, note))
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The stored result of the contract file `path`, if every input it recorded reads the
    /// same now (files by content hash, imports by what they resolve to).
    pub(crate) fn restore(&self, project: &Project, path: &Path) -> Option<FileResult> {
        let key = path.to_str()?;
        // Taken out: kept again below if it still holds, else this compile replaces it.
        let entry = self.state().stored.remove(key)?;
        let restored = (|| {
            // The tables are copied out of the lock: reading files and probing imports is the
            // slow part, and other threads restore meanwhile.
            let (reads, resolves) = {
                let s = self.state();
                let reads: Option<Vec<ReadNow>> = entry
                    .reads
                    .iter()
                    .map(|&i| Some((i, s.paths.get(i as usize)?.clone(), *s.old_hashes.get(i as usize)?)))
                    .collect();
                let resolves: Option<Vec<ResolveNow>> = entry
                    .resolves
                    .iter()
                    .map(|&i| {
                        let Resolve(dir, scope, specifier, found) = s.resolves.get(i as usize)?;
                        let found = match found {
                            Some(f) => Some(s.paths.get(*f as usize)?.clone()),
                            None => None,
                        };
                        Some((s.paths.get(*dir as usize)?.clone(), *scope, specifier.clone(), found))
                    })
                    .collect();
                (reads?, resolves?)
            };
            let ids = check(project, &reads, &resolves)?;
            let result = entry.restore(&ids)?;
            Some((result, reads))
        })();
        let mut s = self.state();
        match restored {
            Some((result, reads)) => {
                for (i, _, hash) in reads {
                    s.hashes.insert(i, hash);
                }
                s.kept.insert(key.to_string(), entry);
                Some(result)
            }
            None => {
                s.changed = true;
                None
            }
        }
    }

    /// Counts a file that declares contracts (what the summary calls contract files): served
    /// from the cache (`hit`) or compiled.
    pub(crate) fn count(&self, hit: bool) {
        let counter = if hit { &self.hits } else { &self.misses };
        counter.fetch_add(1, Ordering::Relaxed);
    }

    /// Keeps what compiling `path` produced, with its inputs. A result that consulted something
    /// no input describes, read a file that is not UTF-8 text, or read a file whose content
    /// another result of this compile saw differently (it changed during the compile) is not
    /// kept.
    pub(crate) fn store(&self, project: &Project, path: &Path, result: &FileResult) {
        let Some(key) = path.to_str() else { return };
        let Some(recorded) = Recorded::of(project, result) else { return };
        let mut s = self.state();
        let Some(entry) = s.entry(project, result, &recorded) else { return };
        s.changed = true;
        s.kept.insert(key.to_string(), entry);
    }

    pub fn stats(&self) -> CacheStats {
        CacheStats { hits: self.hits.load(Ordering::Relaxed), misses: self.misses.load(Ordering::Relaxed) }
    }

    /// Writes this compile's entries (atomically: a temporary file renamed over the old one),
    /// with only the paths and resolutions they use, unless every entry was reused and none
    /// dropped.
    pub fn save(&self) -> Result<(), String> {
        let mut s = self.state();
        // Entries still stored belong to files this compile did not look at (gone, or no longer
        // candidates): dropped.
        if !s.changed && s.stored.is_empty() {
            return Ok(());
        }
        let file = s.compact(&self.key);
        drop(s);
        let text = serde_json::to_string(&file).map_err(|e| format!("cannot serialize the cache: {e}"))?;
        crate::emit::replace(&self.path, &text, false)
            .map_err(|e| format!("cannot write the cache {}: {e}", self.path.display()))
    }
}

/// The compiler build, the cache format and the configuration the project was loaded with.
fn cache_key(project: &Project) -> String {
    let mut h = blake3::Hasher::new();
    h.update(format!("{FORMAT}\0{}\0{FINGERPRINT}\0{:?}", env!("CARGO_PKG_VERSION"), project.config).as_bytes());
    h.finalize().to_hex().to_string()
}

/// A read to check: the path's number, the path, its content hash then.
type ReadNow = (u32, Arc<str>, Option<u64>);
/// A resolution to check: folder, alias scope, specifier, the file it found then.
type ResolveNow = (Arc<str>, usize, String, Option<Arc<str>>);

/// Whether every read and resolution is the same now; if so, the id of each file read, by its
/// number.
fn check(project: &Project, reads: &[ReadNow], resolves: &[ResolveNow]) -> Option<HashMap<u32, FileId>> {
    let mut ids = HashMap::with_capacity(reads.len());
    for (number, path, hash) in reads {
        let now = match project.read(Path::new(&**path)) {
            Ok(f) => Some(f),
            Err(LoadError::NotFound) => None,
            Err(e) => e.file().cloned(),
        };
        if now.as_ref().map(|f| f.hash) != *hash || now.as_ref().is_some_and(|f| f.unreadable.is_some()) {
            return None;
        }
        if let Some(f) = now {
            ids.insert(*number, f.id);
        }
    }
    for (dir, scope, specifier, found) in resolves {
        let now = project.resolve_in(Path::new(&**dir), *scope, specifier);
        if now.as_deref().and_then(Path::to_str) != found.as_deref() {
            return None;
        }
    }
    Some(ids)
}

/// What a result read and resolved, collected from its inputs (outside the cache's lock).
struct Recorded {
    reads: BTreeMap<PathBuf, Option<u64>>,
    resolves: std::collections::BTreeSet<(PathBuf, usize, String, Option<PathBuf>)>,
}

impl Recorded {
    fn of(project: &Project, result: &FileResult) -> Option<Recorded> {
        if result.inputs.untracked {
            return None;
        }
        let mut reads = BTreeMap::new();
        let mut resolves = std::collections::BTreeSet::new();
        let mut faithful = true;
        result.inputs.all_with_watched(&mut |input| match input {
            Input::Read { path, file } | Input::Load { path, file } => {
                let hash = file.map(|id| project.db.get(id)).map(|f| {
                    faithful &= f.unreadable.is_none();
                    f.hash
                });
                faithful &= path.to_str().is_some();
                reads.insert(path.clone(), hash);
            }
            Input::Resolve { dir, scope, specifier, found } => {
                faithful &= dir.to_str().is_some() && found.as_deref().is_none_or(|f| f.to_str().is_some());
                resolves.insert((dir.clone(), *scope, specifier.clone(), found.clone()));
            }
            // Its answer follows from what the search read, which is visited too.
            Input::StarExport { .. } => {}
        });
        faithful.then_some(Recorded { reads, resolves })
    }
}

impl State {
    fn number(&mut self, path: &Path) -> Option<u32> {
        let path = path.to_str()?;
        if let Some(i) = self.path_numbers.get(path) {
            return Some(*i);
        }
        let i = self.paths.len() as u32;
        let path: Arc<str> = Arc::from(path);
        self.paths.push(path.clone());
        self.path_numbers.insert(path, i);
        Some(i)
    }

    fn resolve_number(&mut self, r: Resolve) -> u32 {
        if let Some(i) = self.resolve_numbers.get(&r) {
            return *i;
        }
        let i = self.resolves.len() as u32;
        self.resolves.push(r.clone());
        self.resolve_numbers.insert(r, i);
        i
    }

    fn span(&mut self, project: &Project, span: Span) -> Option<StoredSpan> {
        let file = self.number(&project.db.get(span.file).path)?;
        Some(StoredSpan(file, span.lo, span.hi))
    }

    fn diagnostic(&mut self, project: &Project, d: &Diagnostic) -> Option<StoredDiagnostic> {
        let mut related = Vec::with_capacity(d.related.len());
        for l in &d.related {
            related.push((self.span(project, l.span)?, l.message.clone()));
        }
        Some(StoredDiagnostic {
            code: d.code.id().to_string(),
            error: d.severity == Severity::Error,
            message: d.message.clone(),
            primary: (self.span(project, d.primary.span)?, d.primary.message.clone()),
            related,
            help: d.help.clone(),
        })
    }

    /// The entry of a result (`None`: see [`DiskCache::store`]).
    fn entry(&mut self, project: &Project, result: &FileResult, recorded: &Recorded) -> Option<Entry> {
        let mut reads = Vec::with_capacity(recorded.reads.len());
        for (path, hash) in &recorded.reads {
            let i = self.number(path)?;
            match self.hashes.get(&i) {
                Some(seen) if seen != hash => return None,
                _ => {}
            }
            reads.push((i, *hash));
        }
        for (i, hash) in &reads {
            self.hashes.insert(*i, *hash);
        }
        let mut resolves = Vec::with_capacity(recorded.resolves.len());
        for (dir, scope, specifier, found) in &recorded.resolves {
            let dir = self.number(dir)?;
            let found = match found {
                Some(f) => Some(self.number(f)?),
                None => None,
            };
            resolves.push(self.resolve_number(Resolve(dir, *scope, specifier.clone(), found)));
        }
        let mut contracts = Vec::with_capacity(result.contracts.len());
        for c in &result.contracts {
            let (definition, fields) = c.top_level_spans();
            let fields = match fields {
                Some(fields) => {
                    let mut out = Vec::with_capacity(fields.len());
                    for (key, key_span, value_span) in fields {
                        out.push((key, self.span(project, key_span)?, self.span(project, value_span)?));
                    }
                    Some(out)
                }
                None => None,
            };
            contracts.push(StoredContract {
                contract: serde_json::value::RawValue::from_string(c.hashed.canonical().to_string()).ok()?,
                file: self.number(&project.db.get(c.file).path)?,
                kind: c.call.kind.export_name().to_string(),
                span: self.span(project, c.call.span)?,
                callee_span: self.span(project, c.call.callee_span)?,
                insert_at: c.call.insert_at,
                has_args: c.call.has_args,
                definition: self.span(project, definition)?,
                fields,
            });
        }
        let mut diagnostics = Vec::with_capacity(result.diagnostics.len());
        for d in &result.diagnostics {
            diagnostics.push(self.diagnostic(project, d)?);
        }
        let mut load_diagnostics = Vec::with_capacity(result.load_diagnostics.len());
        for d in &result.load_diagnostics {
            load_diagnostics.push(self.diagnostic(project, d)?);
        }
        Some(Entry {
            reads: reads.into_iter().map(|(i, _)| i).collect(),
            resolves,
            candidate: result.candidate,
            failed: result.failed,
            contracts,
            diagnostics,
            load_diagnostics,
        })
    }

    /// The file to write: the kept entries, renumbered over only the paths and resolutions
    /// they use.
    fn compact(&mut self, key: &str) -> CacheFile {
        let mut kept = std::mem::take(&mut self.kept);
        let mut paths = Vec::new();
        let mut hashes = Vec::new();
        let mut new_path: HashMap<u32, u32> = HashMap::new();
        let mut renumber = |i: u32, paths: &mut Vec<String>, hashes: &mut Vec<Option<u64>>| -> u32 {
            *new_path.entry(i).or_insert_with(|| {
                paths.push(self.paths[i as usize].to_string());
                hashes.push(self.hashes.get(&i).copied().flatten());
                (paths.len() - 1) as u32
            })
        };
        let mut resolves = Vec::new();
        let mut new_resolve: HashMap<u32, u32> = HashMap::new();
        for entry in kept.values_mut() {
            for r in &mut entry.reads {
                *r = renumber(*r, &mut paths, &mut hashes);
            }
            for r in &mut entry.resolves {
                *r = match new_resolve.get(r) {
                    Some(n) => *n,
                    None => {
                        let Resolve(dir, scope, specifier, found) = self.resolves[*r as usize].clone();
                        let dir = renumber(dir, &mut paths, &mut hashes);
                        let found = found.map(|f| renumber(f, &mut paths, &mut hashes));
                        resolves.push(Resolve(dir, scope, specifier, found));
                        let n = (resolves.len() - 1) as u32;
                        new_resolve.insert(*r, n);
                        n
                    }
                };
            }
            entry.for_each_file(&mut |f| *f = renumber(*f, &mut paths, &mut hashes));
        }
        CacheFile { format: FORMAT, key: key.to_string(), paths, hashes, resolves, entries: kept }
    }
}

impl Entry {
    /// Every file number its spans hold.
    fn for_each_file(&mut self, f: &mut impl FnMut(&mut u32)) {
        for c in &mut self.contracts {
            f(&mut c.file);
            for s in [&mut c.span, &mut c.callee_span, &mut c.definition] {
                f(&mut s.0);
            }
            for (_, k, v) in c.fields.iter_mut().flatten() {
                f(&mut k.0);
                f(&mut v.0);
            }
        }
        for d in self.diagnostics.iter_mut().chain(&mut self.load_diagnostics) {
            f(&mut d.primary.0 .0);
            for (s, _) in &mut d.related {
                f(&mut s.0);
            }
        }
    }

    /// The result, its spans in the files `ids` gives (`None` if one is not read now).
    fn restore(&self, ids: &HashMap<u32, FileId>) -> Option<FileResult> {
        let span = |s: StoredSpan| Some(Span::new(*ids.get(&s.0)?, s.1, s.2));
        let diagnostic = |d: &StoredDiagnostic| -> Option<Diagnostic> {
            let code: Code = CODES.iter().find(|c| c.id == d.code)?.code;
            let mut related = Vec::with_capacity(d.related.len());
            for (s, message) in &d.related {
                related.push(Label { span: span(*s)?, message: message.clone() });
            }
            Some(Diagnostic {
                code,
                severity: if d.error { Severity::Error } else { Severity::Warning },
                message: d.message.clone(),
                primary: Label { span: span(d.primary.0)?, message: d.primary.1.clone() },
                related,
                help: d.help.clone(),
            })
        };
        let mut contracts = Vec::with_capacity(self.contracts.len());
        for c in &self.contracts {
            let hashed = HashedContract::from_canonical(Arc::from(c.contract.get())).ok()?;
            let fields = match &c.fields {
                Some(fields) => {
                    let mut out = Vec::with_capacity(fields.len());
                    for (key, k, v) in fields {
                        out.push((key.clone(), span(*k)?, span(*v)?));
                    }
                    Some(out)
                }
                None => None,
            };
            let call = MacroCall {
                kind: RootMacro::from_export(&c.kind)?,
                span: span(c.span)?,
                callee_span: span(c.callee_span)?,
                insert_at: c.insert_at,
                has_args: c.has_args,
            };
            let file = *ids.get(&c.file)?;
            contracts.push(Arc::new(CompiledContract::from_parts(hashed, span(c.definition)?, fields, file, call)));
        }
        Some(FileResult {
            contracts,
            failed: self.failed,
            diagnostics: self.diagnostics.iter().map(diagnostic).collect::<Option<_>>()?,
            candidate: self.candidate,
            inputs: Default::default(),
            load_diagnostics: self.load_diagnostics.iter().map(diagnostic).collect::<Option<_>>()?,
        })
    }
}
