//! Test builds only (the `verify` feature, which this crate's own tests turn on through their
//! dev-dependency on it): a payload-free version number per logical unit and per physical slot,
//! so a test can show that no write the FTL took was lost or rolled back.
//!
//! Each host placement of a unit (`Stream::User`: host writes, buffer flushes, and the fill and
//! steady preconditioning) raises the unit's latest version and stamps it on the slot written; a
//! GC copy or a block-mapping/BAST merge copy carries the version of the slot it copies from (the
//! unit's home until then). [`Ftl::check_versions`] then asserts that every unit ever written maps
//! to a slot holding its latest version and that no unit never written is mapped. The forward and
//! reverse maps agreeing ([`Ftl::check_invariants`]) is not enough: an FTL that drops a unit from
//! both maps, or points it back at an older copy, consistently, passes that check and fails this
//! one ([`Ftl::lose_unit`] and [`Ftl::roll_back_unit`] do exactly that, for the tests that prove it).
//!
//! None of this is compiled without the feature: the simulator's hot path pays nothing.

use super::blocks::BlockState;
use super::mapping::NONE;
use super::Ftl;

impl Ftl {
    /// Every logical unit ever written and not trimmed since maps to a slot that holds its latest
    /// version, no unit never written is mapped and no unit trimmed since its latest write is
    /// mapped; otherwise the first unit that breaks it.
    pub fn check_versions(&self) -> Result<(), String> {
        let versions = &self.mapping.versions;
        for logical in 0..self.logical_units() {
            let latest = versions.latest(logical);
            let physical = self.mapping.physical(logical);
            if versions.is_trimmed(logical) {
                if physical != NONE {
                    return Err(format!(
                        "logical unit {logical} was trimmed after its latest write but maps to physical unit {physical}"
                    ));
                }
                continue;
            }
            match (latest, physical) {
                (0, NONE) => {}
                (0, _) => {
                    return Err(format!(
                        "logical unit {logical} was never written but maps to physical unit {physical}"
                    ))
                }
                (_, NONE) => {
                    return Err(format!(
                        "logical unit {logical} was written {latest} times but maps nowhere: its data is lost"
                    ))
                }
                _ if versions.slot(physical) != latest => {
                    return Err(format!(
                        "logical unit {logical} maps to physical unit {physical}, which holds its version {}, \
                         not its latest, {latest}",
                        versions.slot(physical)
                    ))
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// A deliberate bug, for the tests that prove [`Self::check_versions`] catches loss: drops
    /// `logical` from both maps and from its block's valid count, consistently, so that
    /// [`Self::check_invariants`] still holds. Returns the physical unit it held.
    pub fn lose_unit(&mut self, logical: u32) -> u32 {
        let physical = self.mapping.forget(logical);
        if physical != NONE {
            self.blocks.invalidate(self.geometry.block_of_unit(physical));
        }
        physical
    }

    /// A deliberate bug, for the tests: points `logical` back at `older`, a stale slot in a page
    /// still written of a block not yet closed, with both maps and the valid counts consistent.
    pub fn roll_back_unit(&mut self, logical: u32, older: u32) {
        let block = self.geometry.block_of_unit(older);
        assert_ne!(
            self.blocks.state[block as usize],
            BlockState::Closed,
            "roll back into an open block"
        );
        let current = self.mapping.remap(logical, older);
        if current != NONE {
            self.blocks.invalidate(self.geometry.block_of_unit(current));
        }
        self.blocks.add_valid(block);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ftl::types::Stream;

    /// A one-plane FTL with `logical` written twice, on two pages: (ftl, first home, second home).
    fn written_twice(logical: u32) -> (Ftl, u32, u32) {
        let (mut ftl, geometry) = crate::ftl::tests::one_plane(4);
        let mut homes = Vec::new();
        for _ in 0..2 {
            let (block, page) = ftl.allocate_page(0, Stream::User);
            let physical = geometry.unit_address(block, page, 0);
            ftl.place(logical, physical, Stream::User);
            ftl.page_programmed(block);
            homes.push(physical);
        }
        (ftl, homes[0], homes[1])
    }

    #[test]
    fn a_unit_written_twice_maps_to_its_second_version() {
        let (ftl, first, second) = written_twice(3);
        assert_eq!(ftl.mapping.versions.latest(3), 2);
        assert_eq!(ftl.mapping.versions.slot(first), 1);
        assert_eq!(ftl.mapping.versions.slot(second), 2);
        assert_eq!(ftl.check_versions(), Ok(()));
        assert_eq!(ftl.check_invariants(), Ok(()));
    }

    #[test]
    fn a_gc_copy_carries_the_version_of_the_slot_it_copies() {
        let (mut ftl, _, second) = written_twice(3);
        let (copy, _) = ftl.place_gc_copy(0, 3);
        assert_eq!(ftl.mapping.versions.slot(copy), ftl.mapping.versions.slot(second));
        assert_eq!(ftl.check_versions(), Ok(()));
    }

    #[test]
    fn a_unit_lost_from_both_maps_passes_the_map_invariants_but_fails_the_version_check() {
        let (mut ftl, _, second) = written_twice(3);
        assert_eq!(ftl.lose_unit(3), second);
        assert_eq!(ftl.check_invariants(), Ok(()), "the maps alone cannot see the loss");
        let error = ftl.check_versions().expect_err("a lost unit must fail the check");
        assert!(error.contains("logical unit 3") && error.contains("lost"), "{error}");
    }

    #[test]
    fn a_unit_rolled_back_to_its_older_copy_fails_the_version_check() {
        let (mut ftl, first, _) = written_twice(3);
        ftl.roll_back_unit(3, first);
        assert_eq!(
            ftl.check_invariants(),
            Ok(()),
            "the maps alone cannot see the roll-back"
        );
        let error = ftl
            .check_versions()
            .expect_err("a rolled-back unit must fail the check");
        assert!(error.contains("version 1, not its latest, 2"), "{error}");
    }
}
