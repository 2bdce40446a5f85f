//! The random draws of statistical `steady` preconditioning (`steady.rs`): blocks in proportion to
//! their valid units, uniform subsets of a block's slots, and the deal of the span's logical units.

use crate::base::rng::Rng;

/// Uniformly random subsets of `0..n` (n at most a block's units), by Floyd's algorithm on a
/// bitset: the smaller of the subset and its complement is drawn, one `below` per member, so a
/// block costs at most half its slots in draws, and the members come out in increasing order
/// from the bitset's words.
#[derive(Debug)]
pub(super) struct Subset {
    words: Vec<u64>,
}

impl Subset {
    pub(super) fn new(capacity: u32) -> Subset {
        Subset {
            words: vec![0; capacity.div_ceil(64) as usize],
        }
    }

    /// `k` of `0..n` drawn uniformly, in increasing order.
    pub(super) fn draw(&mut self, n: u32, k: u32, rng: &mut Rng) -> impl Iterator<Item = u32> + '_ {
        debug_assert!(k <= n && n as usize <= self.words.len() * 64);
        let used = n.div_ceil(64) as usize;
        self.words[..used].fill(0);
        let complement = k > n - k;
        let count = if complement { n - k } else { k };
        for j in n - count..n {
            let pick = rng.below(u64::from(j) + 1) as u32;
            let chosen = if self.words[(pick / 64) as usize] >> (pick % 64) & 1 == 1 {
                j
            } else {
                pick
            };
            self.words[(chosen / 64) as usize] |= 1 << (chosen % 64);
        }
        self.words[..used].iter().enumerate().flat_map(move |(index, &word)| {
            let base = index as u32 * 64;
            let valid = if base + 64 <= n {
                u64::MAX
            } else {
                (1u64 << (n - base)) - 1
            };
            let mut members = if complement { !word & valid } else { word };
            std::iter::from_fn(move || {
                (members != 0).then(|| {
                    let bit = members.trailing_zeros();
                    members &= members - 1;
                    base + bit
                })
            })
        })
    }
}

/// An index drawn in proportion to `weights`, each at most `capacity`, by rejection: a uniform
/// index, kept with probability weight / capacity (one 64-bit draw per try). Planes by their valid
/// units (capacity: the fullest plane's), blocks of a plane by theirs (capacity: a block's units).
#[inline]
pub(super) fn draw<T: Copy + Into<u64>>(weights: &[T], capacity: u64, rng: &mut Rng) -> usize {
    let len = weights.len() as u64;
    loop {
        let bits = rng.next_u64();
        let index = (((bits >> 32) * len) >> 32) as usize;
        if ((bits & 0xFFFF_FFFF) * capacity) >> 32 < weights[index].into() {
            return index;
        }
    }
}

/// `out.len()` indices drawn as [`draw`] draws them one after another (the same random numbers,
/// the same results), each plus `offset`, without a branch per try: a try writes its index and
/// moves on only if kept (a rejection's branch is mispredicted about as often as it rejects).
#[inline]
pub(super) fn draw_into<T: Copy + Into<u64>>(
    weights: &[T],
    capacity: u64,
    offset: u32,
    out: &mut [u32],
    rng: &mut Rng,
) {
    let len = weights.len() as u64;
    let mut kept = 0;
    while kept < out.len() {
        let bits = rng.next_u64();
        let index = (((bits >> 32) * len) >> 32) as usize;
        out[kept] = offset + index as u32;
        kept += usize::from(((bits & 0xFFFF_FFFF) * capacity) >> 32 < weights[index].into());
    }
}

/// `count` indices drawn as [`draw`] draws them one after another, counted into `counts`
/// (added), without a branch per try ([`draw_into`]).
#[inline]
pub(super) fn draw_counts(weights: &[u64], capacity: u64, count: u64, counts: &mut [u32], rng: &mut Rng) {
    let len = weights.len() as u64;
    let mut kept = 0;
    while kept < count {
        let bits = rng.next_u64();
        let index = (((bits >> 32) * len) >> 32) as usize;
        let keep = ((bits & 0xFFFF_FFFF) * capacity) >> 32 < weights[index];
        counts[index] += u32::from(keep);
        kept += u64::from(keep);
    }
}

/// The order in which the span's logical units are dealt to the valid slots, block by block: a
/// random permutation of `0..n` built as a grid of `COLUMNS` columns of `rows` consecutive units.
/// The k-th dealt unit is row `k / COLUMNS` of column `σ(k mod COLUMNS)` (σ a random permutation
/// of the columns, each column's rows rotated by a random offset); grid cells past `n` are
/// skipped. Consecutive slots (one block's) get units a column (n / 1,024) apart, so logical
/// neighbours land in different blocks, as after random overwrites; and the mapping table is
/// written as 1,024 interleaved sequential streams, which stay in cache, where a scattered
/// permutation would cost a memory latency per unit (most of the layout's time).
#[derive(Debug)]
pub(super) struct Deal {
    n: u64,
    rows: u64,
    columns: Vec<(u64, u64)>,
}

const COLUMNS: u64 = 1024;

impl Deal {
    pub(super) fn new(n: u32, rng: &mut Rng) -> Deal {
        let n = u64::from(n);
        let rows = n.div_ceil(COLUMNS).max(1);
        let mut order: Vec<u64> = (0..COLUMNS).collect();
        for index in (1..order.len()).rev() {
            let pick = rng.below(index as u64 + 1) as usize;
            order.swap(index, pick);
        }
        let columns = order.into_iter().map(|column| (column, rng.below(rows))).collect();
        Deal { n, rows, columns }
    }

    /// The dealt units in order: each of `0..n` once.
    pub(super) fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        (0..COLUMNS * self.rows).filter_map(move |cell| {
            let (column, offset) = self.columns[(cell % COLUMNS) as usize];
            let mut row = cell / COLUMNS + offset;
            if row >= self.rows {
                row -= self.rows;
            }
            let unit = column * self.rows + row;
            (unit < self.n).then_some(unit as u32)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subsets_have_the_right_size_and_are_uniform() {
        let mut subset = Subset::new(1024);
        let mut rng = Rng::stream(5, "test");
        for (n, k) in [
            (0u32, 0u32),
            (1, 0),
            (1, 1),
            (64, 1),
            (64, 63),
            (100, 30),
            (100, 70),
            (1024, 1024),
            (1000, 999),
        ] {
            let members: Vec<u32> = subset.draw(n, k, &mut rng).collect();
            assert_eq!(members.len(), k as usize, "n = {n}, k = {k}");
            assert!(
                members.windows(2).all(|pair| pair[0] < pair[1]),
                "n = {n}, k = {k}: not increasing"
            );
            assert!(members.iter().all(|&member| member < n), "n = {n}, k = {k}");
        }
        // Each slot is kept with probability k / n, whichever side is drawn: 20,000 draws, within
        // 5 standard deviations.
        for (n, k) in [(100u32, 30u32), (100, 70)] {
            let mut hits = vec![0u32; n as usize];
            let trials = 20_000;
            for _ in 0..trials {
                for member in subset.draw(n, k, &mut rng) {
                    hits[member as usize] += 1;
                }
            }
            let p = f64::from(k) / f64::from(n);
            let sd = (f64::from(trials) * p * (1.0 - p)).sqrt();
            for (slot, &count) in hits.iter().enumerate() {
                let deviation = (f64::from(count) - f64::from(trials) * p).abs();
                assert!(deviation < 5.0 * sd, "n = {n}, k = {k}: slot {slot} kept {count} times");
            }
        }
    }

    #[test]
    fn batched_draws_give_the_one_at_a_time_draws_and_leave_the_stream_where_they_do() {
        // Weights with zeros and a full one: about half the tries rejected.
        let weights: Vec<u32> = (0..1024u32).map(|index| (index * 7919) % 1025).collect();
        let (mut one, mut batched) = (Rng::stream(9, "test"), Rng::stream(9, "test"));
        for batch in [1usize, 5, 64] {
            let expected: Vec<u32> = (0..batch)
                .map(|_| 3000 + draw(&weights, 1024, &mut one) as u32)
                .collect();
            let mut drawn = vec![0u32; batch];
            draw_into(&weights, 1024, 3000, &mut drawn, &mut batched);
            assert_eq!(drawn, expected, "batch {batch}");
        }
        let planes: Vec<u64> = vec![900, 0, 1000, 450];
        let mut expected = vec![0u32; 4];
        for _ in 0..500 {
            expected[draw(&planes, 1000, &mut one)] += 1;
        }
        let mut counts = vec![0u32; 4];
        draw_counts(&planes, 1000, 500, &mut counts, &mut batched);
        assert_eq!(counts, expected);
        assert_eq!(counts[1], 0, "a weight of 0 is never drawn");
        assert_eq!(one.next_u64(), batched.next_u64(), "the streams moved apart");
    }

    #[test]
    fn the_deal_is_a_permutation_that_separates_neighbours() {
        for n in [0u32, 1, 2, 7, 1000, 1024, 1025, 65_536, 100_003] {
            let deal = Deal::new(n, &mut Rng::stream(3, "test"));
            let dealt: Vec<u32> = deal.iter().collect();
            assert_eq!(dealt.len(), n as usize, "n = {n}");
            let mut seen = vec![false; n as usize];
            for &unit in &dealt {
                assert!(!seen[unit as usize], "n = {n}: {unit} twice");
                seen[unit as usize] = true;
            }
            if n >= 65_536 {
                // Consecutive dealt units are logically far apart (a block's units scatter).
                let close = dealt
                    .windows(2)
                    .filter(|pair| pair[0].abs_diff(pair[1]) < n / 2048)
                    .count();
                assert!(close < dealt.len() / 100, "n = {n}: {close} close neighbours");
            }
        }
    }
}
