//! The layout a streamed fill left and did not write (`fill.rs`, `mapping.rs`): the rounds of whole
//! block rows it streamed onto a fresh table, as parameters, so that the mapping of any unit in
//! them follows by arithmetic.
//!
//! A lazy round (a "row") is `pages_per_block` programs on every target, every plane's open block
//! a fresh one filled from page 0: the `r`-th program of row `s` on target `t` holds logical units
//! `first + ((s · B + r) · T + t) · P + i` (B pages per block, T targets, P units per program) in
//! page `r` of the row's blocks of `t`. The forward lookup splits a logical offset by P, T and B
//! (shifts where they are powers of two, else a multiply-high: `base::arith::Divisor`) and takes the block
//! from the row's table; the reverse lookup takes a block's first logical unit from a per-block
//! table and adds `page · T · P + unit`. Outside the rows both answer [`NONE`], after one compare.

/// What a lookup outside the rows answers: the mapping's `NONE` (`mapping.rs`, which builds on this
/// file, so the value is repeated here rather than imported).
pub const NONE: u32 = u32::MAX;

use crate::base::arith::Divisor;

/// The shape of a fill's rows: what a row takes (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RowShape {
    pub targets: u32,
    pub planes_per_target: u32,
    pub units_per_page: u32,
    pub pages_per_block: u32,
}

/// The rows a fill streamed without writing them (module documentation). Empty by default:
/// every lookup answers [`NONE`].
#[derive(Debug, Default)]
pub struct FillLayout {
    /// First logical unit of the first row.
    first: u32,
    /// Logical units in the rows (they follow each other from `first`).
    len: u32,
    shape: Option<RowShape>,
    /// Divides by the units of one page on every plane (`T · P`).
    per_page_row: Divisor,
    per_block_pages: Divisor,
    per_page: Divisor,
    per_block_units: Divisor,
    /// Planes of all targets: the blocks of a row.
    slots: u32,
    /// Units of one page on every plane of every target (`T · P`).
    page_row_units: u32,
    /// Per row, per target in row order, per plane: the row's block.
    blocks: Vec<u32>,
    /// Every row's blocks are the first row's plus the row's index times this (on a fresh drive
    /// each plane opens its blocks in order, so 1): a lookup then reads the first row's blocks, a
    /// few hundred entries that stay cached, instead of a table of one entry per block of the
    /// drive (a cache miss per host read on full-size drives). `None`: not so (or no second row yet).
    row_step: Option<u32>,
    /// Per block of the drive: the logical unit in its first unit if a row holds it, else NONE.
    first_logical: Vec<u32>,
    /// Physical units `first_logical` covers (0 when empty: one compare answers NONE).
    physical_end: u32,
}

impl FillLayout {
    /// Whether the layout holds no row.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The logical units the rows hold: `first..end`.
    pub fn logical_range(&self) -> std::ops::Range<u32> {
        self.first..self.first + self.len
    }

    /// Blocks a row holds (in no particular order).
    pub fn blocks(&self) -> &[u32] {
        &self.blocks
    }

    /// Units per block (0 when empty).
    pub fn units_per_block(&self) -> u32 {
        self.shape
            .map_or(0, |shape| shape.pages_per_block * shape.units_per_page)
    }

    /// Takes a row: `blocks` (per target in row order, per plane) filled from page 0 to their last
    /// page with logical units `first..`. Returns false (nothing changed) where the row does not
    /// continue the layout (another shape, or not right after the last row); `blocks_total` is the
    /// drive's block count.
    pub fn push_row(&mut self, first: u32, shape: RowShape, blocks: &[u32], blocks_total: u32) -> bool {
        let program_units = shape.planes_per_target * shape.units_per_page;
        let row_units = u64::from(shape.targets) * u64::from(program_units) * u64::from(shape.pages_per_block);
        if blocks.len() as u64 != u64::from(shape.targets) * u64::from(shape.planes_per_target)
            || u64::from(first) + row_units > u64::from(NONE)
        {
            return false;
        }
        match self.shape {
            None => {
                *self = FillLayout {
                    first,
                    len: 0,
                    shape: Some(shape),
                    per_page_row: Divisor::new(shape.targets * program_units),
                    per_block_pages: Divisor::new(shape.pages_per_block),
                    per_page: Divisor::new(shape.units_per_page),
                    per_block_units: Divisor::new(shape.pages_per_block * shape.units_per_page),
                    slots: shape.targets * shape.planes_per_target,
                    page_row_units: shape.targets * program_units,
                    blocks: Vec::new(),
                    row_step: None,
                    first_logical: vec![NONE; blocks_total as usize],
                    physical_end: (u64::from(blocks_total) * u64::from(shape.pages_per_block * shape.units_per_page))
                        .min(u64::from(NONE)) as u32,
                };
            }
            Some(known) if known == shape && first == self.first + self.len => {}
            Some(_) => return false,
        }
        for (slot, &block) in blocks.iter().enumerate() {
            let (step, plane) = (
                slot as u32 / shape.planes_per_target,
                slot as u32 % shape.planes_per_target,
            );
            let entry = &mut self.first_logical[block as usize];
            assert_eq!(*entry, NONE, "block {block} in two rows of a fill");
            *entry = first + step * program_units + plane * shape.units_per_page;
        }
        let slots = self.slots as usize;
        let rows = (self.blocks.len() / slots) as u32;
        self.row_step = match rows {
            0 => None,
            1 => blocks[0].checked_sub(self.blocks[0]),
            _ => self.row_step,
        }
        .filter(|&step| {
            let first_row = &self.blocks[..slots];
            first_row
                .iter()
                .zip(blocks)
                .all(|(&first, &block)| u64::from(first) + u64::from(step) * u64::from(rows) == u64::from(block))
        });
        self.blocks.extend_from_slice(blocks);
        self.len += row_units as u32;
        true
    }

    /// The physical unit the rows put `logical` in, or [`NONE`] outside them.
    /// (In every lookup of the forward map: the compare inlined, the rest, two divisions by
    /// constants and a load, in [`Self::physical_in_rows`], out of line so the callers stay small.)
    #[inline(always)]
    pub fn physical(&self, logical: u32) -> u32 {
        let offset = logical.wrapping_sub(self.first);
        if offset >= self.len {
            return NONE;
        }
        self.physical_in_rows(offset)
    }

    /// [`Self::physical`] of the unit `offset` units into the rows.
    #[inline(never)]
    fn physical_in_rows(&self, offset: u32) -> u32 {
        // Within a page row, units go per target, per plane, per unit: `slot · U + unit`.
        let (page_row, in_page_row) = self.per_page_row.div_rem(offset);
        let (row, page) = self.per_block_pages.div_rem(page_row);
        let (slot, unit) = self.per_page.div_rem(in_page_row);
        let block = match self.row_step {
            Some(step) => self.blocks[slot as usize] + row * step,
            None => self.blocks[(row * self.slots + slot) as usize],
        };
        (block * self.per_block_pages.divisor() + page) * self.per_page.divisor() + unit
    }

    /// The logical unit the rows put in `physical`, or [`NONE`] outside them.
    #[inline]
    pub fn logical(&self, physical: u32) -> u32 {
        if physical >= self.physical_end {
            return NONE;
        }
        let (block, within) = self.per_block_units.div_rem(physical);
        match self.first_logical.get(block as usize) {
            Some(&first) if first != NONE => {
                let (page, unit) = self.per_page.div_rem(within);
                first + page * self.page_row_units + unit
            }
            _ => NONE,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 3 targets of 2 planes, 2 units per page, 3 pages per block (non-powers of two).
    const SHAPE: RowShape = RowShape {
        targets: 3,
        planes_per_target: 2,
        units_per_page: 2,
        pages_per_block: 3,
    };

    /// Checks both lookups of every unit of `rows` (from logical unit `first`) against the places
    /// the striping order itself gives them.
    fn assert_striped(layout: &FillLayout, first: u32, rows: &[[u32; 6]]) {
        let mut logical = first;
        for row in rows {
            for page in 0..3 {
                for &block in row {
                    for unit in 0..2 {
                        let physical = (block * 3 + page) * 2 + unit;
                        assert_eq!(layout.physical(logical), physical, "logical {logical}");
                        assert_eq!(layout.logical(physical), logical, "physical {physical}");
                        logical += 1;
                    }
                }
            }
        }
    }

    #[test]
    fn the_rows_map_units_as_the_striping_order_places_them() {
        let mut layout = FillLayout::default();
        let rows = [[4u32, 9, 1, 7, 12, 0], [5, 3, 8, 2, 10, 11]];
        let first = 6;
        for (index, row) in rows.iter().enumerate() {
            assert!(layout.push_row(first + index as u32 * 36, SHAPE, row, 13));
        }
        assert!(!layout.push_row(first, SHAPE, &rows[0], 13), "a row out of order");
        assert_eq!(layout.row_step, None);
        assert_striped(&layout, first, &rows);
        assert_eq!(layout.logical_range(), 6..78);
        for outside in [0, 5, 78, u32::MAX] {
            assert_eq!(layout.physical(outside), NONE);
        }
        // Block 6 is in no row.
        assert!((36..42).all(|physical| layout.logical(physical) == NONE));
        assert_eq!(FillLayout::default().physical(0), NONE);
        assert_eq!(FillLayout::default().logical(0), NONE);
    }

    #[test]
    fn rows_in_steps_are_looked_up_from_the_first_row_until_a_row_breaks_the_step() {
        // A fresh drive's shape: each row takes every plane's next block (here 2 apart).
        let mut rows = vec![
            [0u32, 10, 20, 30, 40, 50],
            [2, 12, 22, 32, 42, 52],
            [4, 14, 24, 34, 44, 54],
        ];
        let mut layout = FillLayout::default();
        for (index, row) in rows.iter().enumerate() {
            assert!(layout.push_row(index as u32 * 36, SHAPE, row, 60));
        }
        assert_eq!(layout.row_step, Some(2));
        assert_striped(&layout, 0, &rows);
        // One plane out of step: the table from then on, every row still mapped as striped.
        rows.push([6, 16, 26, 37, 46, 56]);
        assert!(layout.push_row(3 * 36, SHAPE, &rows[3], 60));
        assert_eq!(layout.row_step, None);
        assert_striped(&layout, 0, &rows);
        // A second row below the first has no step.
        let mut down = FillLayout::default();
        assert!(down.push_row(0, SHAPE, &rows[1], 60));
        assert!(down.push_row(36, SHAPE, &rows[0], 60));
        assert_eq!(down.row_step, None);
        assert_striped(&down, 0, &rows[1..2]);
    }
}
