//! The one decision behind both the plan and the rollback.
//!
//! First the refusals that concern the whole snapshot (MAC, root, digests,
//! links that would leave the root through the tree's own links); then,
//! deepest path first, one [`Decision`] per captured path, created
//! directory and empty directory in the way, from what is in the tree now.

use std::collections::{BTreeMap, BTreeSet};

use super::removable::{removable, Removable};
use super::{Plan, PlanAction, PlanItem};
use crate::error::{Error, Result};
use crate::guard::{is_conflict, OnConflict};
use crate::observe::{file_now, observe, read_limit, Now, Want};
use crate::options::PlanOptions;
use crate::parallel;
use crate::progress::{Counter, ProgressStage};
use crate::relpath::RelPath;
use crate::root::{EntryKind, Expect, Looked, Metadata, Root, DEFAULT_FILE_MODE};
use crate::seal;
use crate::snapshot::links::resolve_target;
use crate::snapshot::{Index, Snapshot};

/// With at least this many captured entries, current files are looked at
/// (and read and hashed) on more than one thread, where the root allows it.
const MIN_PARALLEL_LOOKS: usize = 32;

/// What the decision reads of current files besides what it needs itself.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Observe {
    /// Keep the bytes of current files up to this size (for the redo).
    pub(crate) bytes_up_to: Option<u64>,
}

impl Observe {
    /// A plan keeps nothing.
    pub(crate) fn plan() -> Observe {
        Observe { bytes_up_to: None }
    }
}

/// What to do to one path.
#[derive(Debug)]
pub(crate) enum Step<'s> {
    /// Nothing.
    Keep,
    /// Write the captured file; `replace_dir`: an empty directory is there.
    WriteFile {
        bytes: &'s [u8],
        mode: u32,
        replace_dir: bool,
    },
    /// Write the captured link.
    WriteLink { target: &'s str, replace_dir: bool },
    /// Remove the file, link or special file there.
    RemoveFile,
    /// Remove the (by then empty) directory there.
    RemoveDir,
    /// Leave it: changed after the batch.
    Conflict,
    /// Leave it and report it unrestored.
    Refuse(Error),
    /// A directory to prune that could not be looked at: left, and the
    /// new paths below it are reported if it is still there at the end.
    Unlooked(Error),
}

/// The decision for one path.
#[derive(Debug)]
pub(crate) struct Decision<'s> {
    /// The path.
    pub(crate) path: RelPath,
    /// Whether it is a captured path (an entry or a link) rather than a
    /// directory rollback prunes.
    pub(crate) captured: bool,
    /// What to do.
    pub(crate) step: Step<'s>,
    /// Whether it changed after the batch.
    pub(crate) conflict: bool,
    /// Why, when the step needs a word.
    pub(crate) reason: Option<String>,
    /// What must still be there right before the step (guarded rollbacks).
    pub(crate) expect: Expect,
    /// What was there when decided (captured paths; for the redo).
    pub(crate) now: Option<Now>,
}

impl Decision<'_> {
    /// The plan's word for the step.
    pub(crate) fn action(&self) -> PlanAction {
        match &self.step {
            Step::Keep | Step::Unlooked(_) => PlanAction::Keep,
            Step::WriteFile { .. } | Step::WriteLink { .. } => PlanAction::Write,
            Step::RemoveFile => PlanAction::Remove,
            Step::RemoveDir if self.captured => PlanAction::Remove,
            Step::RemoveDir => PlanAction::Rmdir,
            Step::Conflict => PlanAction::Conflict,
            Step::Refuse(_) => PlanAction::Refuse,
        }
    }

    /// The plan item of this decision.
    pub(crate) fn item(&self) -> PlanItem {
        let (code, reason) = match &self.step {
            Step::Refuse(e) => (Some(e.code()), Some(e.to_string())),
            Step::Unlooked(e) => (None, Some(format!("it could not be looked at: {e}"))),
            _ => (None, self.reason.clone()),
        };
        PlanItem {
            path: self.path.to_string(),
            action: self.action(),
            conflict: self.conflict,
            code,
            reason,
            diff: None,
        }
    }
}

/// Every decision, sorted by path, and what the run learned on the way.
#[derive(Debug)]
pub(crate) struct Decided<'s> {
    /// One per path, sorted.
    pub(crate) decisions: Vec<Decision<'s>>,
    /// The root the snapshot was taken under, when it differs.
    pub(crate) other_root: Option<String>,
}

impl Decided<'_> {
    /// The plan these decisions make.
    pub(crate) fn plan(&self) -> Plan {
        Plan {
            items: self.decisions.iter().map(Decision::item).collect(),
            other_root: self.other_root.clone(),
        }
    }
}

/// Decides what rolling `snapshot` back under `root` does, path by path.
pub(crate) fn decide<'s, R: Root + ?Sized>(
    root: &R,
    snapshot: &'s Snapshot,
    options: &PlanOptions,
    observe_extra: Observe,
) -> Result<Decided<'s>> {
    if let Some(key) = &options.key {
        seal::verify(snapshot, key)?;
    }
    let other_root = check_root(root, snapshot, options.strict_root)?;
    snapshot.verify_digests()?;
    check_links_in_tree(root, snapshot)?;
    let mut engine = Engine {
        root,
        snapshot,
        index: Index::new(snapshot),
        options,
        observe_extra,
        guard: options.on_conflict == OnConflict::Skip && snapshot.has_applied(),
        lstats: BTreeMap::new(),
        decisions: BTreeMap::new(),
        looked: BTreeMap::new(),
    };
    engine.look_ahead();
    let mut candidates: BTreeSet<&RelPath> = snapshot.entries.keys().collect();
    candidates.extend(snapshot.links.keys());
    candidates.extend(&snapshot.created_dirs);
    let mut ordered: Vec<&RelPath> = candidates.into_iter().collect();
    ordered.sort_by(|a, b| b.depth().cmp(&a.depth()).then_with(|| a.cmp(b)));
    let mut progress = Counter::start(
        options.progress.as_ref(),
        ProgressStage::Check,
        ordered.len(),
    );
    for path in ordered {
        // Looking at one path may fail (a parent swapped for a symlink a
        // moment ago, a directory that cannot be listed): that path alone
        // is refused, never the whole rollback.
        // A path that vanished or changed type while it was looked at (a
        // concurrent rollback of the same snapshot pruning its directory,
        // or putting a file back where the batch left one) is looked at
        // again: it is what it is now that counts.
        let looked = match engine.decide_path(path) {
            Err(e) if e.is_missing_or_not_a_dir() => {
                engine.forget_ancestors(path);
                engine.decide_path(path)
            }
            looked => looked,
        };
        if let Err(e) = looked {
            engine.could_not_look(path, e);
        }
        progress.step();
    }
    Ok(Decided {
        decisions: engine.decisions.into_values().collect(),
        other_root,
    })
}

/// The root the snapshot records, when it is not the one given.
fn check_root<R: Root + ?Sized>(
    root: &R,
    snapshot: &Snapshot,
    strict: bool,
) -> Result<Option<String>> {
    let (Some(captured), Some(given)) = (snapshot.root(), root.canonical_path()) else {
        return Ok(None);
    };
    if captured == given {
        return Ok(None);
    }
    if strict {
        return Err(Error::RootMismatch {
            captured: captured.to_owned(),
            given,
        });
    }
    Ok(Some(captured.to_owned()))
}

/// Every link the snapshot creates, resolved through its own links and the
/// links already in the tree (those rollback leaves), must stay inside.
fn check_links_in_tree<R: Root + ?Sized>(root: &R, snapshot: &Snapshot) -> Result<()> {
    if snapshot.links.is_empty() {
        return Ok(());
    }
    let prefixes = root.absolute_prefixes();
    for (link, target) in &snapshot.links {
        resolve_target(link, target, &prefixes, &mut |p| {
            let Ok(path) = RelPath::try_from(p) else {
                return Ok(None);
            };
            if let Some(t) = snapshot.links.get(&path) {
                return Ok(Some(t.clone()));
            }
            if snapshot.entries.contains_key(&path) || snapshot.created_dirs.contains(&path) {
                return Ok(None);
            }
            Ok(match root.metadata(&path) {
                Ok(Some(m)) if m.kind == EntryKind::Symlink => root.read_link(&path).ok(),
                _ => None,
            })
        })?;
    }
    Ok(())
}

/// What stands between the root and a path.
enum Ancestors {
    /// Every ancestor is a directory now.
    Dirs,
    /// The path does not exist now and will not until rollback writes it
    /// (an ancestor is missing, or is a captured path rollback replaces).
    Unreachable,
    /// An ancestor that rollback leaves is a file or special file.
    NotDir(Error),
    /// An ancestor that rollback leaves is a symlink (never followed), or
    /// cannot be looked at.
    Blocked(Error),
}

pub(super) struct Engine<'r, 's, R: Root + ?Sized> {
    pub(super) root: &'r R,
    snapshot: &'s Snapshot,
    index: Index<'s>,
    options: &'r PlanOptions,
    observe_extra: Observe,
    guard: bool,
    lstats: BTreeMap<RelPath, Option<Metadata>>,
    pub(super) decisions: BTreeMap<RelPath, Decision<'s>>,
    /// Captured entries looked at ahead, on several threads; each is used
    /// once (a second look at a path looks again).
    looked: BTreeMap<&'s RelPath, Result<Now>>,
}

impl<'s, R: Root + ?Sized> Engine<'_, 's, R> {
    /// Looks at every captured entry ahead, on several threads, when there
    /// are many and the root may be shared; the decisions then take these
    /// looks instead of looking one path at a time. Read-only: a look the
    /// decision does not need (a parent that is a symlink now) is dropped.
    fn look_ahead(&mut self) {
        let Some(shared) = self.root.as_sync() else {
            return;
        };
        let entries = &self.snapshot.entries;
        if entries.len() < MIN_PARALLEL_LOOKS {
            return;
        }
        let wants: Vec<(&'s RelPath, Want)> = entries
            .iter()
            .map(|(path, content)| {
                let wanted = content.as_deref().map(Wanted::File);
                (path, self.want(wanted.as_ref()))
            })
            .collect();
        let looked = &mut self.looked;
        let done: std::result::Result<(), std::convert::Infallible> = parallel::for_each_in_order(
            &wants,
            MIN_PARALLEL_LOOKS,
            |(path, want)| (*path, look(shared, path, *want)),
            |(path, now)| {
                looked.insert(path, now);
                Ok(())
            },
        );
        let Ok(()) = done;
    }

    /// `lstat`, remembered.
    pub(super) fn lstat(&mut self, path: &RelPath) -> Result<Option<Metadata>> {
        if let Some(found) = self.lstats.get(path) {
            return Ok(*found);
        }
        let found = self.root.metadata(path)?;
        self.lstats.insert(path.clone(), found);
        Ok(found)
    }

    fn is_captured(&self, path: &RelPath) -> bool {
        self.snapshot.entries.contains_key(path) || self.snapshot.links.contains_key(path)
    }

    fn ancestors(&mut self, path: &RelPath) -> Ancestors {
        for dir in path.ancestors() {
            let found = match self.lstat(&dir) {
                Ok(found) => found,
                Err(e) => return Ancestors::Blocked(e),
            };
            match found.map(|m| m.kind) {
                Some(EntryKind::Dir) => {}
                None => return Ancestors::Unreachable,
                Some(_) if self.is_captured(&dir) => return Ancestors::Unreachable,
                Some(EntryKind::Symlink) => {
                    return Ancestors::Blocked(Error::NotADirectory {
                        path: path.to_string(),
                        parent: dir.to_string(),
                        kind: "symlink (never followed)".into(),
                    })
                }
                Some(kind) => {
                    return Ancestors::NotDir(Error::NotADirectory {
                        path: path.to_string(),
                        parent: dir.to_string(),
                        kind: kind.describe().to_owned(),
                    })
                }
            }
        }
        Ancestors::Dirs
    }

    /// Drops what was seen of `path`'s directories, to look again.
    fn forget_ancestors(&mut self, path: &RelPath) {
        for dir in path.ancestors() {
            self.lstats.remove(&dir);
        }
    }

    fn decide_path(&mut self, path: &'s RelPath) -> Result<()> {
        if let Some(content) = self.snapshot.entries.get(path) {
            return self.decide_captured(path, content.as_deref().map(Wanted::File));
        }
        if let Some(target) = self.snapshot.links.get(path) {
            return self.decide_captured(path, Some(Wanted::Link(target)));
        }
        self.decide_created_dir(path)
    }

    fn decide_captured(&mut self, path: &RelPath, wanted: Option<Wanted<'s>>) -> Result<()> {
        let now = match (self.ancestors(path), &wanted) {
            (Ancestors::Dirs, _) => self.observe(path, wanted.as_ref())?,
            (Ancestors::Unreachable, _) | (Ancestors::NotDir(_), None) => Now::Absent,
            (Ancestors::Blocked(refused), _) | (Ancestors::NotDir(refused), Some(_)) => {
                self.insert(Decision {
                    path: path.clone(),
                    captured: true,
                    step: Step::Refuse(refused),
                    conflict: false,
                    reason: None,
                    expect: Expect::Any,
                    now: None,
                });
                return Ok(());
            }
        };
        let conflict = match (now.state(), &now) {
            (Some(state), _) => is_conflict(self.snapshot, path, &state),
            // A link whose target cannot be read, or a file that may not be
            // read, cannot be shown to be the batch's own: with `applied`
            // recorded, it counts as changed.
            (
                None,
                Now::Symlink { target: None, .. }
                | Now::File {
                    readable: false, ..
                },
            ) => self.snapshot.applied.contains_key(path),
            (None, _) => false,
        };
        let expect = match (self.guard, now.meta()) {
            (false, _) => Expect::Any,
            (true, None) => Expect::Absent,
            (true, Some(meta)) => Expect::Same(*meta),
        };
        let (step, reason) = if conflict && self.options.on_conflict == OnConflict::Skip {
            (Step::Conflict, None)
        } else {
            self.step_for(path, wanted, &now)?
        };
        self.insert(Decision {
            path: path.clone(),
            captured: true,
            step,
            conflict,
            reason,
            expect,
            now: Some(now),
        });
        Ok(())
    }

    fn observe(&mut self, path: &RelPath, wanted: Option<&Wanted<'s>>) -> Result<Now> {
        if let Some(now) = self.looked.remove(path) {
            return now;
        }
        look(self.root, path, self.want(wanted))
    }

    /// What to learn about the current file at a captured path.
    fn want(&self, wanted: Option<&Wanted<'s>>) -> Want {
        Want {
            bytes_up_to: self.observe_extra.bytes_up_to,
            bytes_if_len: match wanted {
                Some(Wanted::File(bytes)) => Some(bytes.len() as u64),
                _ => None,
            },
            // A recorded post-batch state makes every plan say whether
            // the path changed since (a conflict), even when overwriting.
            digest: self.snapshot.has_applied(),
        }
    }

    fn step_for(
        &mut self,
        path: &RelPath,
        wanted: Option<Wanted<'s>>,
        now: &Now,
    ) -> Result<(Step<'s>, Option<String>)> {
        let Some(wanted) = wanted else {
            return self.step_for_new_path(path, now);
        };
        if let Now::Dir(_) = now {
            return self.replace_dir(path, wanted);
        }
        Ok(match wanted {
            Wanted::File(bytes) => {
                let recorded = self.snapshot.modes.get(path).copied();
                let current = match now {
                    Now::File { meta, .. } => Some(meta.mode),
                    _ => None,
                };
                let (mode, reason) = self.final_mode(recorded, current);
                let same_bytes = matches!(now, Now::File { bytes: Some(b), .. }
                    if b.as_slice() == bytes);
                // Already as captured (set-id bits included: rollback
                // creates no set-id file, and strips none it leaves alone).
                let captured_mode = recorded.map_or(current, |m| Some(m & 0o7777));
                if same_bytes && current == Some(mode) {
                    (Step::Keep, reason)
                } else if same_bytes && current == captured_mode {
                    (Step::Keep, None)
                } else {
                    let step = Step::WriteFile {
                        bytes,
                        mode,
                        replace_dir: false,
                    };
                    (step, reason)
                }
            }
            Wanted::Link(target) => match now {
                Now::Symlink {
                    target: Some(t), ..
                } if t == target => (Step::Keep, None),
                _ => (
                    Step::WriteLink {
                        target,
                        replace_dir: false,
                    },
                    None,
                ),
            },
        })
    }

    /// The mode a restored file gets: the recorded one (else the current
    /// file's, else the default), without set-id bits unless asked.
    fn final_mode(&self, recorded: Option<u32>, current: Option<u32>) -> (u32, Option<String>) {
        let mode = recorded.or(current).unwrap_or(DEFAULT_FILE_MODE) & 0o7777;
        if self.options.restore_setid || mode & 0o6000 == 0 {
            return (mode, None);
        }
        let reason = recorded.filter(|m| m & 0o6000 != 0).map(|m| {
            format!("its set-user/group-id bits ({m:o}) are not restored (restore_setid)")
        });
        (mode & !0o6000, reason)
    }

    fn step_for_new_path(
        &mut self,
        path: &RelPath,
        now: &Now,
    ) -> Result<(Step<'s>, Option<String>)> {
        Ok(match now {
            Now::Absent => (Step::Keep, None),
            Now::Dir(_) if self.index.holds_content(path) => (
                Step::Keep,
                Some("stays a directory: it holds captured files".into()),
            ),
            Now::Dir(_) => match self.removable(path)? {
                Removable::Yes(nested) => {
                    self.add_nested(nested);
                    (Step::RemoveDir, None)
                }
                Removable::No(held) => (Step::Refuse(in_the_way(path, &held)), None),
            },
            _ => (Step::RemoveFile, None),
        })
    }

    /// A directory sits where the snapshot has a file or link: it goes if
    /// it holds nothing to lose, and the path is refused otherwise.
    fn replace_dir(
        &mut self,
        path: &RelPath,
        wanted: Wanted<'s>,
    ) -> Result<(Step<'s>, Option<String>)> {
        match self.removable(path)? {
            Removable::No(held) => Ok((Step::Refuse(in_the_way(path, &held)), None)),
            Removable::Yes(nested) => {
                self.add_nested(nested);
                Ok(match wanted {
                    Wanted::File(bytes) => {
                        let recorded = self.snapshot.modes.get(path).copied();
                        let (mode, reason) = self.final_mode(recorded, None);
                        let step = Step::WriteFile {
                            bytes,
                            mode,
                            replace_dir: true,
                        };
                        (step, reason)
                    }
                    Wanted::Link(target) => (
                        Step::WriteLink {
                            target,
                            replace_dir: true,
                        },
                        None,
                    ),
                })
            }
        }
    }

    fn decide_created_dir(&mut self, dir: &RelPath) -> Result<()> {
        if !matches!(self.ancestors(dir), Ancestors::Dirs) {
            return Ok(());
        }
        if !self.lstat(dir)?.is_some_and(|m| m.kind == EntryKind::Dir) {
            return Ok(());
        }
        let (step, reason) = match self.removable(dir)? {
            Removable::Yes(nested) => {
                self.add_nested(nested);
                (Step::RemoveDir, None)
            }
            Removable::No(held) => (
                Step::Keep,
                Some(format!(
                    "the batch created it, but it holds what the snapshot does not cover ({})",
                    held.join(", ")
                )),
            ),
        };
        self.insert(Decision {
            path: dir.clone(),
            captured: false,
            step,
            conflict: false,
            reason,
            expect: Expect::Any,
            now: None,
        });
        Ok(())
    }

    fn removable(&mut self, dir: &RelPath) -> Result<Removable> {
        removable(self, dir)
    }

    /// Empty directories inside one that goes: removed first, deepest first.
    fn add_nested(&mut self, nested: Vec<RelPath>) {
        for dir in nested {
            self.decisions.entry(dir.clone()).or_insert(Decision {
                path: dir,
                captured: false,
                step: Step::RemoveDir,
                conflict: false,
                reason: Some("an empty directory inside one that goes".into()),
                expect: Expect::Any,
                now: None,
            });
        }
    }

    /// The decision for a path that could not be looked at: a captured
    /// path is refused with the error; a directory to prune is kept.
    fn could_not_look(&mut self, path: &RelPath, error: Error) {
        let captured = self.is_captured(path);
        let (step, reason) = if captured {
            (Step::Refuse(error), None)
        } else {
            (Step::Unlooked(error), None)
        };
        self.insert(Decision {
            path: path.clone(),
            captured,
            step,
            conflict: false,
            reason,
            expect: Expect::Any,
            now: None,
        });
    }

    fn insert(&mut self, decision: Decision<'s>) {
        self.decisions.insert(decision.path.clone(), decision);
    }
}

/// [`observe`], with a file's bytes read by the look that finds it (one
/// path resolution, where the root can) and its metadata that of the
/// bytes read. What is not a file is looked at by [`observe`] itself.
fn look<R: Root + ?Sized>(root: &R, path: &RelPath, want: Want) -> Result<Now> {
    let looked: Looked = root.look_and_read(path, &|meta| read_limit(&want, meta))?;
    let Some(meta) = looked.metadata else {
        return Ok(Now::Absent);
    };
    if meta.kind != EntryKind::File {
        return observe(root, path, want);
    }
    file_now(root, path, meta, looked.bytes, want)
}

/// What the snapshot wants at a captured path that exists.
enum Wanted<'s> {
    File(&'s [u8]),
    Link(&'s str),
}

/// The refusal for a path where a directory holding uncaptured things is.
fn in_the_way(path: &RelPath, held: &[String]) -> Error {
    Error::Conflict {
        what: format!("{path:?}"),
        reason: format!(
            "a directory holding what the snapshot does not cover is there ({}); it is left as it is",
            held.join(", ")
        ),
    }
}
