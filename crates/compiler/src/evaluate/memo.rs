//! Using the memo ([`crate::memo`]): computing an entry in a fresh frame, and replaying an
//! entry into a session exactly as evaluating it there would have gone, or noticing that it
//! would not have ([`Evaluator::diverged`]).

use super::Evaluator;
use crate::extract::ModuleInfo;
use crate::memo::{CacheKey, Entry, EntryKind, Event};
use crate::source::Span;
use crate::value::{Node, Val};
use crate::zod::emit::Io;
use crate::zod::model::{ThunkId, ZodId};
use std::sync::Arc;

impl<'p> Evaluator<'p> {
    /// Evaluates the constant (or enum) under `key` once per compile for every file: from the
    /// memo if it has a valid entry, else computed by `f` in a frame and stored.
    pub(super) fn with_memo(
        &mut self,
        key: CacheKey,
        module: &ModuleInfo,
        use_span: Span,
        f: impl FnOnce(&mut Evaluator<'p>) -> Option<Node>,
    ) -> Option<Node> {
        let Some(memo) = self.memo else { return self.with_cache(key, use_span, f) };
        if let Some(cached) = self.cache.get(&key) {
            return (**cached).clone();
        }
        let kind = EntryKind::Const(key);
        let project = self.project;
        let entry = match memo.get(&kind).filter(|e| memo.valid(e, |i| project.unchanged(i))) {
            Some(e) => e,
            None => self.compute(kind, module, f)?,
        };
        self.use_entry(&entry, false)
    }

    /// The value of a getter's or `z.lazy`'s body, from the memo (or evaluated here, alone).
    pub(crate) fn eval_thunk(&mut self, t: &ThunkId) -> Option<Node> {
        let Some(memo) = self.memo else { return self.eval(&t.module, &t.expr) };
        let kind = EntryKind::Thunk(t.clone());
        let project = self.project;
        let entry = match memo.get(&kind).filter(|e| memo.valid(e, |i| project.unchanged(i))) {
            Some(e) => e,
            None => {
                let (module, expr) = (t.module.clone(), t.expr.clone());
                self.compute(kind, &t.module, move |ev| ev.eval(&module, &expr))?
            }
        };
        crate::inputs::replay(&entry.inputs);
        self.record(|| Event::Thunk(t.clone(), entry.clone(), false));
        let emit = self.frame.is_none();
        self.replay(&entry.events, emit);
        (*entry.value).clone()
    }

    /// Computes an entry in a fresh frame and stores it. `None` (and the session diverged): a
    /// cycle through an entry being computed, or a frame that could not be reproduced.
    /// `module` holds what is evaluated: the entry depends on its text too.
    fn compute(
        &mut self,
        kind: EntryKind,
        module: &ModuleInfo,
        f: impl FnOnce(&mut Evaluator<'p>) -> Option<Node>,
    ) -> Option<Arc<Entry>> {
        let memo = self.memo.expect("a session with a memo");
        let Some(_computing) = memo.enter(&kind) else {
            self.diverged = true;
            return None;
        };
        let project = self.project;
        let ((value, events, diverged), inputs) = crate::inputs::record(|| {
            crate::inputs::note(crate::inputs::Input::Load {
                path: module.file.path.clone(),
                file: Some(module.file.id),
            });
            let mut frame = Evaluator::frame(project);
            let value = f(&mut frame);
            (value, frame.frame.take().unwrap_or_default(), frame.diverged)
        });
        if diverged {
            self.diverged = true;
            return None;
        }
        Some(memo.insert(Entry::new(kind, value, events, inputs, memo.generation())))
    }

    /// Uses a constant's entry that this session has not cached yet.
    fn use_entry(&mut self, entry: &Arc<Entry>, silent: bool) -> Option<Node> {
        crate::inputs::replay(&entry.inputs);
        if let EntryKind::Const(key) = &entry.kind {
            self.cache.insert(key.clone(), entry.value.clone());
        }
        self.record(|| Event::Memo(entry.clone(), silent));
        let emit = self.frame.is_none() && !silent;
        self.replay(&entry.events, emit);
        (*entry.value).clone()
    }

    /// Applies what an evaluation did to this session, as if it evaluated it here: names this
    /// session cached already are skipped (they would have been silent cache hits), everything
    /// else is cached, set and (when `emit`) reported. A replay that could come out differently
    /// here diverges.
    fn replay(&mut self, events: &[Event], emit: bool) {
        // Inside a name this session has cached: (the name, nested names begun).
        let mut skipping: Option<(&CacheKey, usize)> = None;
        for event in events {
            if self.diverged {
                return;
            }
            if let Some((key, depth)) = &mut skipping {
                match event {
                    Event::Begin(_) => *depth += 1,
                    Event::End(_, _) if *depth > 0 => *depth -= 1,
                    Event::End(_, value) => {
                        let cached = self.cache.get(*key).expect("skipped because cached");
                        if !same_cached(cached, value) {
                            self.diverged = true;
                        }
                        skipping = None;
                    }
                    _ => {}
                }
                continue;
            }
            match event {
                Event::Diag(d) => {
                    if emit {
                        self.diagnostics.push(d.clone());
                    }
                }
                Event::Begin(key) => {
                    if self.cache.contains_key(key) {
                        skipping = Some((key, 0));
                    }
                }
                Event::End(key, value) => {
                    self.cache.insert(key.clone(), value.clone());
                }
                Event::Memo(entry, silent) => {
                    let EntryKind::Const(key) = &entry.kind else {
                        self.diverged = true;
                        return;
                    };
                    match self.cache.get(key) {
                        Some(cached) => {
                            if !Arc::ptr_eq(cached, &entry.value) {
                                self.diverged = true;
                            }
                        }
                        None => {
                            self.cache.insert(key.clone(), entry.value.clone());
                            self.replay(&entry.events, emit && !silent);
                        }
                    }
                }
                Event::Thunk(t, entry, silent) => match self.targets.get(t) {
                    Some(target) => {
                        if !matches!(&*entry.value, Some(Node { val: Val::Zod(z), .. }) if z == target) {
                            self.diverged = true;
                        }
                    }
                    None => {
                        self.replay(&entry.events, emit && !silent);
                        if let Some(Node { val: Val::Zod(z), .. }) = &*entry.value {
                            self.targets.insert(t.clone(), z.clone());
                        }
                    }
                },
                Event::SetLastConverted(v) => self.last_converted = v.clone(),
                Event::ObserveLastConverted(v) => {
                    if self.last_converted != *v {
                        self.diverged = true;
                    }
                }
                Event::OutputMode(span, differs) => {
                    self.zod_output_mode.insert(*span, *differs);
                }
                Event::ObserveOutputMode(span, v) => {
                    if self.zod_output_mode.get(span).copied() != *v {
                        self.diverged = true;
                    }
                }
                Event::OutputModeSchema(span) => {
                    self.output_mode_schemas.insert(*span);
                }
                Event::ObserveSame(a, b, io, same) => {
                    if self.json_schemas_equal(a, b, *io) != *same {
                        self.diverged = true;
                    }
                }
            }
        }
    }

    /// Whether two zod schemas convert to the same JSON Schema (with the thunks this session
    /// resolved: an unresolved one does not convert).
    pub(super) fn same_json_schema(&mut self, a: &ZodId, b: &ZodId, io: Io) -> bool {
        let same = self.json_schemas_equal(a, b, io);
        self.record(|| Event::ObserveSame(a.clone(), b.clone(), io, same));
        same
    }

    fn json_schemas_equal(&self, a: &ZodId, b: &ZodId, io: Io) -> bool {
        if a.v3 || b.v3 {
            // zod 3 (`crate::zod::v3`): both must be zod 3 and convert alike.
            let convert = |z: &ZodId| crate::zod::v3::to_json_schema(&self.targets, z, Default::default()).ok();
            return a.v3 && b.v3 && convert(a) == convert(b);
        }
        crate::zod::emit::to_json_schema(&self.targets, a, io).ok()
            == crate::zod::emit::to_json_schema(&self.targets, b, io).ok()
    }

    /// The conversion of `root` (its thunks resolved): once per compile for every file, unless
    /// the schema is the compiled file's own (no other file converts it).
    pub(crate) fn convert(&mut self, root: &ZodId, io: Io) -> crate::memo::Converted {
        let convert = || crate::zod::emit::to_json_schema(&self.targets, root, io);
        match self.memo {
            Some(memo) if Some(root.span.file) != self.home => memo.convert(root, io, convert),
            _ => Arc::new(convert().map(Arc::new)),
        }
    }
}

/// Whether a name cached here holds what a frame cached for it (what a later evaluation sees).
fn same_cached(a: &Option<Node>, b: &Option<Node>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => a.same_as(b),
        (None, None) => true,
        _ => false,
    }
}
