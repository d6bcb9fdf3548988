//! The evaluation memo: what evaluating each module-level `const` (and each zod getter or
//! `z.lazy`) produced, computed once and shared by every contract file that uses it, from any
//! thread, across the compiles of a long-lived project while the files it read are unchanged.
//!
//! A contract file is still evaluated exactly as if it evaluated everything itself, with its own
//! cache (a constant is evaluated, and reported, once per file): an entry is computed by a fresh
//! evaluator with an empty cache (a *frame*), which records what that evaluation did as
//! [`Event`]s: the diagnostics it reported, the cache entries it made, the entries it used, the
//! state it set and the state it read. Using an entry replays those events against the file's
//! own cache: what the file already cached is skipped (it would have been a silent cache hit),
//! the rest is reported and cached as a fresh evaluation would have. Where a fresh evaluation in
//! the file could have come out differently (a cycle through a constant, state that does not
//! match what the frame saw, a cached value that differs from the frame's), the replay refuses
//! and the file is evaluated again on its own, without the memo (`crate::evaluate`).
//!
//! The replay lives with the evaluator (`crate::evaluate::memo`); this module holds the data.
//! Entries are keyed by what they evaluate, computed by whichever thread asks first (the others
//! compute it too if they ask meanwhile, and the first one stored wins: the outputs are the same
//! whichever wins), and never wait for each other, so no cycle across threads can deadlock.

use crate::diagnostics::Diagnostic;
use crate::inputs::Inputs;
use crate::source::{PathKey, Span};
use crate::value::Node;
use crate::zod::emit::{Io, Refusal};
use crate::zod::model::{ThunkId, ZodId};
use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// A module-level name of one module: `(path, name)` for a `const` or an enum, `(path,
/// "export:name")` for an export. The evaluator's per-file cache uses the same keys.
pub type CacheKey = (PathKey, String);

/// A cached value, shared: replaying an entry into a file copies no values.
pub type Cached = Arc<Option<Node>>;

/// What an entry evaluates.
#[derive(Clone, Debug)]
pub enum EntryKind {
    /// The initializer of a `const` (or an enum's members), under its cache key.
    Const(CacheKey),
    /// The body of a getter or `z.lazy` function.
    Thunk(ThunkId),
}

/// One evaluation, done once.
#[derive(Debug)]
pub struct Entry {
    pub kind: EntryKind,
    pub value: Cached,
    pub events: Vec<Event>,
    /// What computing it read (files, resolutions, barrel searches, the entries it used).
    pub inputs: Arc<Inputs>,
    /// The compile ([`Memo::generation`]) in which it was last found valid.
    verified: AtomicU64,
}

impl Entry {
    pub fn new(kind: EntryKind, value: Option<Node>, events: Vec<Event>, inputs: Inputs, generation: u64) -> Entry {
        Entry { kind, value: Arc::new(value), events, inputs: Arc::new(inputs), verified: AtomicU64::new(generation) }
    }
}

/// What an evaluation did, in order.
#[derive(Debug)]
pub enum Event {
    /// It reported a diagnostic.
    Diag(Diagnostic),
    /// It began evaluating a name it had not cached (an export, in the frame's own cache).
    Begin(CacheKey),
    /// ... and cached this value for it.
    End(CacheKey, Cached),
    /// It used an entry it had not cached; `silent`: its diagnostics were discarded.
    Memo(Arc<Entry>, bool),
    /// It resolved a thunk it had not resolved (by evaluating the entry); the thunk now stands
    /// for the entry's value if that is a zod schema.
    Thunk(ThunkId, Arc<Entry>, bool),
    /// It set the last conversion (`z.toJSONSchema`: root and mode; `None`: cleared).
    SetLastConverted(Option<(ZodId, Io)>),
    /// It read the last conversion and found this.
    ObserveLastConverted(Option<(ZodId, Io)>),
    /// A conversion in output mode at this span, and whether input mode would differ.
    OutputMode(Span, bool),
    /// It read the output-mode note of this span and found this.
    ObserveOutputMode(Span, Option<bool>),
    /// A `fromStandardSchema` at this span holds an output-mode conversion of an input.
    OutputModeSchema(Span),
    /// It compared two zod schemas by their JSON Schema and found them the same (or not);
    /// converting depends on which thunks are resolved.
    ObserveSame(ZodId, ZodId, Io, bool),
}

/// A conversion's result: the JSON Schema, or why it cannot be converted.
pub type Converted = Arc<Result<Arc<serde_json::Value>, Refusal>>;

type Map<K, V> = std::collections::HashMap<K, V, rustc_hash::FxBuildHasher>;

/// The memo of one project.
#[derive(Default)]
pub struct Memo {
    consts: Mutex<Map<CacheKey, Arc<Entry>>>,
    thunks: Mutex<Map<ThunkId, Arc<Entry>>>,
    /// Conversions of this compile (a conversion depends on the thunks it reaches).
    converts: Mutex<Map<(ZodId, Io), Converted>>,
    /// The compile number: an entry verified in this compile is used without looking again.
    generation: AtomicU64,
    /// Thunk entries after the last collection (a collection runs when they have doubled).
    thunks_kept: AtomicU64,
    /// Entries computed (tests, benchmarks).
    computed: AtomicU64,
    /// Files evaluated alone because the memo diverged (tests, benchmarks).
    fallbacks: AtomicU64,
}

thread_local! {
    /// The entries being computed on this thread, innermost last: asking for one of them again
    /// is a cycle.
    static IN_PROGRESS: RefCell<Vec<EntryKey>> = const { RefCell::new(Vec::new()) };
}

/// An entry's key, for cycle detection.
#[derive(Clone, PartialEq, Eq)]
enum EntryKey {
    Const(CacheKey),
    Thunk(ThunkId),
}

impl EntryKey {
    fn of(kind: &EntryKind) -> EntryKey {
        match kind {
            EntryKind::Const(k) => EntryKey::Const(k.clone()),
            EntryKind::Thunk(t) => EntryKey::Thunk(t.clone()),
        }
    }
}

/// Marks an entry as being computed on this thread until dropped.
pub struct InProgress(());

impl Drop for InProgress {
    fn drop(&mut self) {
        IN_PROGRESS.with(|s| s.borrow_mut().pop());
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Memo {
    /// A new compile starts: entries must be found valid again before they are used.
    pub fn begin(&self) {
        self.generation.fetch_add(1, Ordering::Relaxed);
        lock(&self.converts).clear();
        self.collect_thunks();
    }

    /// Forgets every entry (a one-shot compile, done evaluating); what it held is returned, to
    /// be dropped wherever that costs least.
    pub fn clear(&self) -> impl Send {
        (
            std::mem::take(&mut *lock(&self.consts)),
            std::mem::take(&mut *lock(&self.thunks)),
            std::mem::take(&mut *lock(&self.converts)),
        )
    }

    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Relaxed)
    }

    /// How many entries were computed since the project was created.
    pub fn computed(&self) -> u64 {
        self.computed.load(Ordering::Relaxed)
    }

    /// How many files were evaluated alone since the project was created, because replaying
    /// the memo could not reproduce evaluating them alone.
    pub fn fallbacks(&self) -> u64 {
        self.fallbacks.load(Ordering::Relaxed)
    }

    pub fn note_fallback(&self) {
        self.fallbacks.fetch_add(1, Ordering::Relaxed);
    }

    /// The stored entry for `kind`, if any (valid or not: see [`Memo::valid`]).
    pub fn get(&self, kind: &EntryKind) -> Option<Arc<Entry>> {
        match kind {
            EntryKind::Const(k) => lock(&self.consts).get(k).cloned(),
            EntryKind::Thunk(t) => lock(&self.thunks).get(t).cloned(),
        }
    }

    /// Whether `entry` can be used in this compile: verified in it already, or `unchanged`
    /// holds for its inputs (it is then marked verified).
    pub fn valid(&self, entry: &Entry, unchanged: impl FnOnce(&Inputs) -> bool) -> bool {
        let generation = self.generation();
        if entry.verified.load(Ordering::Relaxed) == generation {
            return true;
        }
        if unchanged(&entry.inputs) {
            entry.verified.store(generation, Ordering::Relaxed);
            return true;
        }
        false
    }

    /// Stores a computed entry unless a valid one was stored meanwhile (by another thread);
    /// returns the one stored.
    pub fn insert(&self, entry: Entry) -> Arc<Entry> {
        self.computed.fetch_add(1, Ordering::Relaxed);
        let generation = self.generation();
        let entry = Arc::new(entry);
        let keep = |old: &Arc<Entry>| old.verified.load(Ordering::Relaxed) == generation;
        match &entry.kind {
            EntryKind::Const(k) => {
                let mut map = lock(&self.consts);
                match map.get(k) {
                    Some(old) if keep(old) => old.clone(),
                    _ => {
                        map.insert(k.clone(), entry.clone());
                        entry
                    }
                }
            }
            EntryKind::Thunk(t) => {
                let mut map = lock(&self.thunks);
                match map.get(t) {
                    Some(old) if keep(old) => old.clone(),
                    _ => {
                        map.insert(t.clone(), entry.clone());
                        entry
                    }
                }
            }
        }
    }

    /// Marks `kind` as being computed on this thread; `None` if it already is (a cycle).
    pub fn enter(&self, kind: &EntryKind) -> Option<InProgress> {
        let key = EntryKey::of(kind);
        IN_PROGRESS.with(|s| {
            let mut s = s.borrow_mut();
            if s.contains(&key) {
                return None;
            }
            s.push(key);
            Some(InProgress(()))
        })
    }

    /// The conversion of `root` in mode `io`, computed by `convert` once per compile.
    pub fn convert(
        &self,
        root: &ZodId,
        io: Io,
        convert: impl FnOnce() -> Result<serde_json::Value, Refusal>,
    ) -> Converted {
        let key = (root.clone(), io);
        if let Some(c) = lock(&self.converts).get(&key) {
            return c.clone();
        }
        let c = Arc::new(convert().map(Arc::new));
        lock(&self.converts).entry(key).or_insert(c).clone()
    }

    /// Drops thunk entries that no `const` entry can reach any more (their schemas were
    /// evaluated again), once their number has doubled since the last collection: in a
    /// long-lived project every edit of a module with getters makes new thunks.
    fn collect_thunks(&self) {
        let n = lock(&self.thunks).len() as u64;
        if n < 64 || n < 2 * self.thunks_kept.load(Ordering::Relaxed) {
            return;
        }
        let map: Vec<(ThunkId, Arc<Entry>)> = lock(&self.thunks).iter().map(|(t, e)| (t.clone(), e.clone())).collect();
        let map: Map<ThunkId, Arc<Entry>> = map.into_iter().collect();
        let (mut nodes, mut pending) = (Vec::new(), Vec::new());
        for e in lock(&self.consts).values() {
            if let Some(v) = e.value.as_ref() {
                v.zod_refs(&mut nodes, &mut pending);
            }
        }
        let mut live: std::collections::HashSet<ThunkId, rustc_hash::FxBuildHasher> = Default::default();
        let mut seen: std::collections::HashSet<ZodId, rustc_hash::FxBuildHasher> = Default::default();
        loop {
            if let Some(t) = pending.pop() {
                if live.insert(t.clone()) {
                    if let Some(Some(v)) = map.get(&t).map(|e| e.value.as_ref().as_ref()) {
                        v.zod_refs(&mut nodes, &mut pending);
                    }
                }
            } else if let Some(z) = nodes.pop() {
                if seen.insert(z.clone()) {
                    z.refs(&mut nodes, &mut pending);
                }
            } else {
                break;
            }
        }
        let mut thunks = lock(&self.thunks);
        thunks.retain(|t, _| live.contains(t));
        self.thunks_kept.store(thunks.len() as u64, Ordering::Relaxed);
    }
}
