//! Choosing the program target host writes fill next: the next target in striping order whose
//! planes can all take a page and whose GC does not hold host writes (`pacing.rs`).
//!
//! While GC holds host writes, the head write is tried again at almost every event, and a search
//! of every target each time was a third of a write's instructions. A search that finds none is
//! remembered with each target's outcome; until a later search, GC notes each plane it changes
//! (a victim claimed, a victim page read issued or done, an erase: `gc.rs`), and the next search
//! looks again only at the targets of those planes: the others' outcomes cannot have changed
//! (host pages placed and GC pages allocated only take room, and both come with a noted change
//! or a found target). Counts of the changes check that every erase and pacing change was
//! noted; when one was not (an erase outside GC, the SLC cache's blocks returning to the free
//! lists, another FDP handle) the search looks at every target again.

use super::ops::{OpenProgram, MAX_PLANES};
use super::Controller;
use crate::ftl::mapping::NONE;
use crate::ftl::Stream;
use crate::observe::{Context, Observer};

/// What a target can do for host writes now.
#[derive(Clone, Copy, PartialEq, Eq)]
enum TargetState {
    Ready,
    /// A plane has no page for host writes.
    Full,
    /// Its GC holds host writes.
    Held,
}

impl Controller {
    /// GC changed `plane`: an erase (`erase`) or a pacing change (a victim claimed, a victim page
    /// read issued or done).
    #[inline]
    pub(super) fn note_gc_change(&mut self, plane: u32, erase: bool) {
        if !self.failed_scan.valid {
            return;
        }
        let counted = self.pacing.counts_changes();
        let scan = &mut self.failed_scan;
        if erase {
            scan.erases_noted += 1;
        } else if counted {
            scan.pacing_noted += 1;
        }
        let target = scan.plane_target[plane as usize];
        if !scan.listed[target as usize] {
            scan.listed[target as usize] = true;
            scan.dirty.push(target);
        }
    }

    fn target_state(&self, index: usize) -> TargetState {
        let target = self.ftl.targets()[index];
        let planes = target.first_plane..target.first_plane + target.plane_count;
        if !planes.clone().all(|plane| self.ftl.can_allocate(plane, Stream::User)) {
            return TargetState::Full;
        }
        // Only a plane whose GC is collecting (has a victim) can hold host writes.
        if planes
            .clone()
            .any(|plane| self.gc[plane as usize].victim != NONE && self.pacing.holds_host_writes(plane, true))
        {
            return TargetState::Held;
        }
        TargetState::Ready
    }

    /// Opens the next program target in striping order that has room; sets `write_held_by_gc`
    /// when a target passed over was held by its GC.
    pub(super) fn open_user_program<O: Observer>(&mut self, cx: &mut Context<O>) -> bool {
        let (erases, pacing, handle) = (self.ftl.blocks.erased, self.pacing.epoch(), self.ftl.handle);
        let scan = &self.failed_scan;
        if scan.valid
            && scan.handle == handle
            && erases.wrapping_sub(scan.erases) == scan.erases_noted
            && pacing.wrapping_sub(scan.pacing) == scan.pacing_noted
        {
            return self.search_changed(cx);
        }
        let targets = self.ftl.targets().len();
        self.write_held_by_gc = false;
        let mut held = std::mem::take(&mut self.failed_scan.held);
        held.clear();
        held.resize(targets, false);
        let mut held_count = 0;
        for _ in 0..targets {
            let index = self.next_target;
            // The next target in turn (a compare instead of a division by the target count).
            self.next_target += 1;
            if self.next_target == targets {
                self.next_target = 0;
            }
            match self.target_state(index) {
                TargetState::Ready => {
                    self.failed_scan.held = held;
                    return self.open_target(index, cx);
                }
                TargetState::Full => {}
                TargetState::Held => {
                    held[index] = true;
                    held_count += 1;
                    self.write_held_by_gc = true;
                }
            }
        }
        let scan = &mut self.failed_scan;
        scan.held = held;
        scan.held_count = held_count;
        scan.valid = self.slc.is_none();
        (scan.erases, scan.pacing, scan.handle) = (erases, pacing, handle);
        (scan.erases_noted, scan.pacing_noted) = (0, 0);
        for &target in &scan.dirty {
            scan.listed[target as usize] = false;
        }
        scan.dirty.clear();
        if scan.plane_target.is_empty() {
            scan.listed = vec![false; targets];
            scan.plane_target = vec![0; self.geometry.planes() as usize];
            for (index, target) in self.ftl.targets().iter().enumerate() {
                for plane in target.first_plane..target.first_plane + target.plane_count {
                    scan.plane_target[plane as usize] = index as u32;
                }
            }
        }
        false
    }

    /// [`Self::open_user_program`] after a search that found none: only the targets GC changed
    /// since are looked at again; the first ready one in striping order is opened.
    fn search_changed<O: Observer>(&mut self, cx: &mut Context<O>) -> bool {
        let targets = self.ftl.targets().len();
        let start = self.next_target;
        let mut best: Option<(usize, usize)> = None;
        let mut dirty = std::mem::take(&mut self.failed_scan.dirty);
        for &target in &dirty {
            let index = target as usize;
            self.failed_scan.listed[index] = false;
            let state = self.target_state(index);
            let was_held = self.failed_scan.held[index];
            let held = state == TargetState::Held;
            if held != was_held {
                self.failed_scan.held[index] = held;
                if held {
                    self.failed_scan.held_count += 1;
                } else {
                    self.failed_scan.held_count -= 1;
                }
            }
            if state == TargetState::Ready {
                let distance = if index >= start {
                    index - start
                } else {
                    index + targets - start
                };
                if best.is_none_or(|(_, nearest)| distance < nearest) {
                    best = Some((index, distance));
                }
            }
        }
        dirty.clear();
        self.failed_scan.dirty = dirty;
        let scan = &mut self.failed_scan;
        (scan.erases, scan.pacing) = (self.ftl.blocks.erased, self.pacing.epoch());
        (scan.erases_noted, scan.pacing_noted) = (0, 0);
        match best {
            None => {
                self.write_held_by_gc = scan.held_count > 0;
                false
            }
            Some((index, distance)) => {
                // As a search of every target would: the held targets passed over on the way.
                self.write_held_by_gc = (0..distance).any(|step| scan.held[(start + step) % targets]);
                self.next_target = if index + 1 == targets { 0 } else { index + 1 };
                self.open_target(index, cx)
            }
        }
    }

    /// Opens a program on target `index` (ready): a page in each of its planes.
    fn open_target<O: Observer>(&mut self, index: usize, cx: &mut Context<O>) -> bool {
        self.failed_scan.valid = false;
        let target = self.ftl.targets()[index];
        let planes = target.first_plane..target.first_plane + target.plane_count;
        let mut pages = [(0, 0); MAX_PLANES];
        for (slot, plane) in planes.clone().enumerate() {
            pages[slot] = self.ftl.allocate_page(plane, Stream::User);
        }
        let units = self.geometry.units_per_page;
        for plane in planes {
            self.pacing.host_units(plane, units, self.ftl.free_blocks(plane));
            self.advance_gc(plane, cx);
        }
        self.open_program = Some(OpenProgram {
            target,
            pages,
            filled: 0,
            capacity: target.plane_count * self.geometry.units_per_page,
            first: self.first_page(target),
        });
        true
    }
}
