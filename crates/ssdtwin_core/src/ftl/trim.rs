//! Host trims (deallocate; docs/models/ftl.md): a trimmed mapping unit is unmapped in every
//! mapping scheme. Its physical unit goes stale as an overwritten one does, so its block's valid
//! count falls and GC no longer copies it; a read finds no data (the controller answers it
//! without a flash access) and the next write maps the unit again.

use super::mapping::NONE;
use super::Ftl;

impl Ftl {
    /// A host trim of `logical`: unmaps it and drops its data from its block's valid count.
    /// Returns whether it was mapped. Counted in `counts.trimmed_units` either way.
    pub fn trim(&mut self, logical: u32) -> bool {
        self.counts.trimmed_units += 1;
        let old = self.mapping.unmap(logical);
        if old != NONE {
            self.blocks.invalidate(self.geometry.block_of_unit(old));
        }
        old != NONE
    }
}

#[cfg(test)]
mod tests {
    use crate::ftl::mapping::NONE;
    use crate::ftl::types::Stream;
    use crate::ftl::Ftl;

    /// A one-plane FTL with units 0..4 written on the first page of a block (4 KiB units,
    /// 16 KiB pages): (ftl, block).
    fn one_page_written() -> (Ftl, u32) {
        let (mut ftl, geometry) = crate::ftl::tests::one_plane(4);
        let (block, page) = ftl.allocate_page(0, Stream::User);
        for slot in 0..geometry.units_per_page {
            ftl.place(slot, geometry.unit_address(block, page, slot), Stream::User);
        }
        ftl.page_programmed(block);
        (ftl, block)
    }

    #[test]
    fn a_trim_unmaps_the_unit_and_lowers_its_blocks_valid_count() {
        let (mut ftl, block) = one_page_written();
        let units = ftl.geometry.units_per_page;
        assert_eq!(ftl.blocks.valid[block as usize], units);
        assert!(ftl.trim(1), "unit 1 was mapped");
        assert_eq!(ftl.mapping.physical(1), NONE);
        assert_eq!(ftl.blocks.valid[block as usize], units - 1);
        assert!(!ftl.trim(1), "a second trim finds it unmapped");
        assert_eq!(ftl.blocks.valid[block as usize], units - 1, "and changes no count");
        assert_eq!(ftl.counts.trimmed_units, 2, "both trims are counted");
        assert_eq!(ftl.check_invariants(), Ok(()));
        assert_eq!(ftl.check_versions(), Ok(()));
    }

    #[test]
    fn a_write_after_a_trim_maps_the_unit_again() {
        let (mut ftl, _) = one_page_written();
        ftl.trim(2);
        let (block, page) = ftl.allocate_page(0, Stream::User);
        let before = ftl.blocks.valid[block as usize];
        let physical = ftl.geometry.unit_address(block, page, 0);
        ftl.place(2, physical, Stream::User);
        assert_eq!(ftl.mapping.physical(2), physical);
        assert_eq!(ftl.blocks.valid[block as usize], before + 1);
        assert_eq!(ftl.check_invariants(), Ok(()));
        assert_eq!(ftl.check_versions(), Ok(()));
    }

    #[test]
    fn a_gc_copy_of_a_trimmed_block_moves_only_the_units_left() {
        let (mut ftl, block) = one_page_written();
        ftl.trim(0);
        ftl.trim(3);
        let geometry = ftl.geometry;
        let survivors: Vec<u32> = (0..geometry.units_per_page)
            .map(|slot| geometry.unit_address(block, 0, slot))
            .filter(|&physical| ftl.mapping.logical(physical) != NONE)
            .map(|physical| ftl.mapping.logical(physical))
            .collect();
        assert_eq!(survivors, vec![1, 2], "GC finds only the units not trimmed");
    }

    #[test]
    fn a_trimmed_unit_that_is_still_mapped_fails_the_version_check() {
        let (mut ftl, _) = one_page_written();
        let physical = ftl.mapping.physical(1);
        ftl.mapping.versions.trimmed(1);
        let error = ftl.check_versions().expect_err("mapped after a trim");
        assert!(
            error.contains("trimmed") && error.contains(&physical.to_string()),
            "{error}"
        );
    }
}
