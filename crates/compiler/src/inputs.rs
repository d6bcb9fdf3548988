//! What a file's compile result was computed from, so a long-lived project can reuse the result
//! while all of it is unchanged.
//!
//! Every access the compiler makes to the file system goes through [`crate::project::Project`]
//! (`read`, `load`, `resolve`), and the project notes each one here. A compile of one file runs
//! under [`record`] on one thread, so what it noted is exactly what it depended on; a result is
//! reused only after every noted input is found the same again ([`Project::unchanged`]).
//! Recording on the thread (rather than passing a recorder down) means no new call site can
//! forget to note what it read.
//!
//! [`Project::unchanged`]: crate::project::Project::unchanged

use crate::diagnostics::Diagnostic;
use crate::source::FileId;
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// One input of a compile result.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Input {
    /// The text of `path` was read; `file` is the entry it got (`None`: there was no file).
    /// The same text always gets the same entry, so the same id means the same text.
    Read { path: PathBuf, file: Option<FileId> },
    /// The module at `path` was loaded (parsed): its syntax errors belong to this compile.
    Load { path: PathBuf, file: Option<FileId> },
    /// `specifier` imported from a module in folder `dir` resolved to `found`, with the aliases
    /// of `scope` ([`crate::config::Config::scope_of`]).
    Resolve { dir: PathBuf, scope: usize, specifier: String, found: Option<PathBuf> },
    /// Searching the `export *` of `barrel` for `name` found the module `found`. What the
    /// search read is *watched* ([`Inputs::watched`]), not an input itself: a barrel member
    /// edited without changing which module declares `name` leaves this unchanged.
    StarExport { barrel: PathBuf, name: String, found: Option<PathBuf> },
}

/// The inputs one computation used.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Inputs {
    /// Its own inputs: sorted, without duplicates.
    pub list: Vec<Input>,
    /// The inputs of memoized evaluations it reused (the memo's entries), shared rather than
    /// copied: a contract file reuses the same constants many times.
    pub shared: Vec<Arc<Inputs>>,
    /// What the `export *` searches it relied on read: a change there makes the result be looked
    /// at again (its [`Input::StarExport`] searched again), but does not by itself change it.
    pub watched: Vec<Arc<Inputs>>,
    /// It also consulted something no input describes (a folder listing for a "did you mean"):
    /// its result must not be reused.
    pub untracked: bool,
    /// The reading and parsing diagnostics of the modules it loaded.
    pub diagnostics: Vec<Diagnostic>,
}

impl Input {
    /// A total order on the bytes of the paths: `Path`'s own comparison parses components,
    /// which dominated recording.
    fn cmp_bytes(&self, other: &Input) -> std::cmp::Ordering {
        fn b(p: &Path) -> &[u8] {
            p.as_os_str().as_encoded_bytes()
        }
        fn id(f: &Option<FileId>) -> Option<u32> {
            f.map(|f| f.0)
        }
        use Input::*;
        match (self, other) {
            (Read { path: a, file: fa }, Read { path: c, file: fc })
            | (Load { path: a, file: fa }, Load { path: c, file: fc }) => b(a).cmp(b(c)).then(id(fa).cmp(&id(fc))),
            (
                Resolve { dir: a, scope: ka, specifier: sa, found: fa },
                Resolve { dir: c, scope: kc, specifier: sc, found: fc },
            ) => b(a)
                .cmp(b(c))
                .then(ka.cmp(kc))
                .then_with(|| sa.cmp(sc))
                .then_with(|| fa.as_deref().map(b).cmp(&fc.as_deref().map(b))),
            (StarExport { barrel: a, name: sa, found: fa }, StarExport { barrel: c, name: sc, found: fc }) => {
                b(a).cmp(b(c)).then_with(|| sa.cmp(sc)).then_with(|| fa.as_deref().map(b).cmp(&fc.as_deref().map(b)))
            }
            _ => self.rank().cmp(&other.rank()),
        }
    }

    fn rank(&self) -> u8 {
        match self {
            Input::Read { .. } => 0,
            Input::Load { .. } => 1,
            Input::Resolve { .. } => 2,
            Input::StarExport { .. } => 3,
        }
    }

    /// The file it read or loaded, if any.
    pub fn read_path(&self) -> Option<&Path> {
        match self {
            Input::Read { path, .. } | Input::Load { path, .. } => Some(path),
            Input::Resolve { .. } | Input::StarExport { .. } => None,
        }
    }
}

impl Inputs {
    /// Calls `f` with every input, its own and the shared ones' (each shared set once), until
    /// `f` returns false; returns whether it never did.
    pub fn all<'a>(&'a self, mut f: impl FnMut(&'a Input) -> bool) -> bool {
        let mut seen: Vec<*const Inputs> = Vec::new();
        self.all_inner(&mut f, &mut seen)
    }

    fn all_inner<'a>(&'a self, f: &mut impl FnMut(&'a Input) -> bool, seen: &mut Vec<*const Inputs>) -> bool {
        if !self.list.iter().all(&mut *f) {
            return false;
        }
        for s in &self.shared {
            let p = Arc::as_ptr(s);
            if seen.contains(&p) {
                continue;
            }
            seen.push(p);
            if !s.all_inner(f, seen) {
                return false;
            }
        }
        true
    }

    /// Every file it read or loaded, watched ones included (with repeats): the files whose
    /// change means the result must be looked at again.
    pub fn all_read_paths<'a>(&'a self, f: &mut impl FnMut(&'a Path)) {
        self.all_with_watched(&mut |input| {
            if let Some(p) = input.read_path() {
                f(p)
            }
        });
    }

    /// Every input, its own and the shared and watched ones' (each set once): what a result
    /// kept on disk is checked against ([`crate::disk_cache`]; a watched search's answer
    /// follows from what the search read).
    pub fn all_with_watched<'a>(&'a self, f: &mut impl FnMut(&'a Input)) {
        // A set: a contract file reuses hundreds of memoized constants, each its own set.
        let mut seen = rustc_hash::FxHashSet::default();
        self.with_watched_inner(f, &mut seen);
    }

    fn with_watched_inner<'a>(
        &'a self,
        f: &mut impl FnMut(&'a Input),
        seen: &mut rustc_hash::FxHashSet<*const Inputs>,
    ) {
        self.list.iter().for_each(&mut *f);
        for s in self.shared.iter().chain(&self.watched) {
            if seen.insert(Arc::as_ptr(s)) {
                s.with_watched_inner(f, seen);
            }
        }
    }

    /// Every load diagnostic, its own and the shared and watched ones' (repeats are possible:
    /// sorting the compile's diagnostics drops them).
    pub fn all_diagnostics(&self) -> Vec<Diagnostic> {
        let mut out = self.diagnostics.clone();
        for s in self.shared.iter().chain(&self.watched) {
            out.extend(s.all_diagnostics());
        }
        out
    }

    /// Whether anything it reused consulted untracked state.
    fn is_untracked(&self) -> bool {
        self.untracked || self.shared.iter().chain(&self.watched).any(|s| s.is_untracked())
    }
}

thread_local! {
    static RECORDING: RefCell<Option<Inputs>> = const { RefCell::new(None) };
}

fn with_recording(f: impl FnOnce(&mut Inputs)) {
    RECORDING.with(|r| {
        if let Some(inputs) = r.borrow_mut().as_mut() {
            f(inputs)
        }
    })
}

/// Notes an input of whatever is being recorded on this thread (nothing when nothing is).
pub fn note(input: Input) {
    with_recording(|i| {
        // Consecutive repeats are common (the same module asked for twice in a row).
        if i.list.last() != Some(&input) {
            i.list.push(input)
        }
    });
}

/// Notes the diagnostics of a module the recorded computation loaded.
pub fn note_diagnostics(diagnostics: &[Diagnostic]) {
    if !diagnostics.is_empty() {
        with_recording(|i| i.diagnostics.extend(diagnostics.iter().cloned()));
    }
}

/// Notes that the recorded computation consulted something untracked.
pub fn note_untracked() {
    with_recording(|i| i.untracked = true);
}

/// Notes every input of an earlier recording (a memoized lookup reused by this computation
/// depends on what computing it read).
pub fn replay(inputs: &Arc<Inputs>) {
    with_recording(|i| {
        if !i.shared.iter().any(|s| Arc::ptr_eq(s, inputs)) {
            i.shared.push(inputs.clone());
        }
    });
}

/// Notes what an `export *` search read, watched by whatever is being recorded (its answer is
/// an [`Input::StarExport`]).
pub fn watch(inputs: &Arc<Inputs>) {
    with_recording(|i| {
        if !i.watched.iter().any(|s| Arc::ptr_eq(s, inputs)) {
            i.watched.push(inputs.clone());
        }
    });
}

/// Runs `f`, returning what it read. A recording inside another one is its own: the outer one
/// gets its inputs only by [`replay`].
pub fn record<R>(f: impl FnOnce() -> R) -> (R, Inputs) {
    /// Restores the outer recording even if `f` panics (the servers catch panics per request).
    struct Restore(Option<Option<Inputs>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            if let Some(outer) = self.0.take() {
                RECORDING.with(|r| *r.borrow_mut() = outer);
            }
        }
    }
    let outer = RECORDING.with(|r| r.borrow_mut().replace(Inputs::default()));
    let restore = Restore(Some(outer));
    let result = f();
    let mut inputs = RECORDING.with(|r| r.borrow_mut().take()).unwrap_or_default();
    drop(restore);
    inputs.list.sort_unstable_by(Input::cmp_bytes);
    inputs.list.dedup_by(|a, b| a.cmp_bytes(b).is_eq());
    inputs.untracked = inputs.is_untracked();
    (result, inputs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(p: &str) -> Input {
        Input::Read { path: p.into(), file: None }
    }

    fn flat(i: &Inputs) -> Vec<Input> {
        let mut out = Vec::new();
        i.all(|x| {
            out.push(x.clone());
            true
        });
        out
    }

    #[test]
    fn reused_recordings_are_shared_not_copied() {
        let ((), outer) = record(|| {
            note(read("/b"));
            let ((), inner) = record(|| note(read("/c")));
            assert_eq!(inner.list, vec![read("/c")]);
            let inner = Arc::new(inner);
            replay(&inner);
            replay(&inner);
            note(read("/a"));
            note(read("/b"));
        });
        assert_eq!(outer.list, vec![read("/a"), read("/b")], "its own: sorted, deduplicated");
        assert_eq!(outer.shared.len(), 1, "the same lookup reused twice is one shared set");
        assert_eq!(flat(&outer), vec![read("/a"), read("/b"), read("/c")]);
        note(read("/d")); // nothing is recording: dropped
    }

    #[test]
    fn a_panic_inside_a_recording_restores_the_outer_one() {
        let ((), outer) = record(|| {
            let caught = std::panic::catch_unwind(|| {
                record(|| {
                    note(read("/inner"));
                    // Unwinds without the panic hook, so the passing run prints nothing.
                    std::panic::resume_unwind(Box::new("handler failed"))
                })
            });
            assert!(caught.is_err());
            note(read("/after"));
        });
        assert_eq!(outer.list, vec![read("/after")]);
    }

    #[test]
    fn untracked_inputs_propagate_through_replays() {
        let ((), inner) = record(note_untracked);
        let inner = Arc::new(inner);
        let ((), outer) = record(|| replay(&inner));
        assert!(outer.untracked);
    }
}
