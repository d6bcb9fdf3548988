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

use crate::source::FileId;
use std::cell::RefCell;
use std::path::PathBuf;

/// One input of a compile result.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Input {
    /// The text of `path` was read; `file` is the entry it got (`None`: there was no file).
    /// The same text always gets the same entry, so the same id means the same text.
    Read { path: PathBuf, file: Option<FileId> },
    /// The module at `path` was loaded (parsed): its syntax errors belong to this compile.
    Load { path: PathBuf, file: Option<FileId> },
    /// `specifier` imported from a module in folder `dir` resolved to `found`.
    Resolve { dir: PathBuf, specifier: String, found: Option<PathBuf> },
}

/// The inputs one computation used.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Inputs {
    /// Sorted, without duplicates.
    pub list: Vec<Input>,
    /// It also consulted something no input describes (a folder listing for a "did you mean"):
    /// its result must not be reused.
    pub untracked: bool,
}

impl Input {
    /// A total order on the bytes of the paths: `Path`'s own comparison parses components,
    /// which dominated recording (a contract file notes thousands of inputs through barrels).
    fn cmp_bytes(&self, other: &Input) -> std::cmp::Ordering {
        fn b(p: &std::path::Path) -> &[u8] {
            p.as_os_str().as_encoded_bytes()
        }
        fn id(f: &Option<FileId>) -> Option<u32> {
            f.map(|f| f.0)
        }
        use Input::*;
        match (self, other) {
            (Read { path: a, file: fa }, Read { path: c, file: fc }) | (Load { path: a, file: fa }, Load { path: c, file: fc }) => b(a).cmp(b(c)).then(id(fa).cmp(&id(fc))),
            (Resolve { dir: a, specifier: sa, found: fa }, Resolve { dir: c, specifier: sc, found: fc }) => {
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
        }
    }
}

impl Inputs {
    fn absorb(&mut self, other: &Inputs) {
        self.list.extend(other.list.iter().cloned());
        self.untracked |= other.untracked;
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
    with_recording(|i| i.list.push(input));
}

/// Notes that the recorded computation consulted something untracked.
pub fn note_untracked() {
    with_recording(|i| i.untracked = true);
}

/// Notes every input of an earlier recording (a memoized lookup reused by this computation
/// depends on what computing it read).
pub fn replay(inputs: &Inputs) {
    with_recording(|i| i.absorb(inputs));
}

/// Runs `f`, returning what it read. Recordings nest: the inputs of an inner recording are
/// also the outer one's.
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
    let mut restore = Restore(Some(outer));
    let result = f();
    let mut inputs = RECORDING.with(|r| r.borrow_mut().take()).unwrap_or_default();
    let outer = restore.0.take().flatten();
    inputs.list.sort_unstable_by(Input::cmp_bytes);
    inputs.list.dedup_by(|a, b| a.cmp_bytes(b).is_eq());
    RECORDING.with(|r| {
        *r.borrow_mut() = outer.map(|mut o| {
            o.absorb(&inputs);
            o
        })
    });
    (result, inputs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(p: &str) -> Input {
        Input::Read { path: p.into(), file: None }
    }

    #[test]
    fn nested_recordings_reach_the_outer_one() {
        let ((), outer) = record(|| {
            note(read("/a"));
            let ((), inner) = record(|| note(read("/b")));
            assert_eq!(inner.list, vec![read("/b")]);
            note(read("/a"));
        });
        assert_eq!(outer.list, vec![read("/a"), read("/b")], "sorted, deduplicated, inner included");
        note(read("/c")); // nothing is recording: dropped
    }

    #[test]
    fn a_panic_inside_a_recording_restores_the_outer_one() {
        let ((), outer) = record(|| {
            let caught = std::panic::catch_unwind(|| {
                record(|| {
                    note(read("/inner"));
                    panic!("handler failed")
                })
            });
            assert!(caught.is_err());
            note(read("/after"));
        });
        assert_eq!(outer.list, vec![read("/after")]);
    }

    #[test]
    fn untracked_inputs_propagate() {
        let ((), outer) = record(|| {
            record(note_untracked);
        });
        assert!(outer.untracked);
    }
}
