//! The fio-like synthetic generator: read/write mix, block size or size split, sequential or
//! random addresses (or random with a fraction of sequential commands, as a trace characterised
//! by its sequential share), uniform, Zipf or JESD219 popularity, over a span of the logical space.

use super::params::{Distribution, Pattern, WorkloadConfig};
use super::zipf::Zipf;
use crate::base::rng::Rng;

use crate::host::command::CommandSpec;

/// Commands a plain stream draws at a time (`draw_ahead`): the controller loads ahead what
/// the reads of 16 need in one batch (`controller/lookahead.rs`).
const AHEAD: usize = 16;

#[derive(Clone, Debug)]
pub struct Synthetic {
    /// A plain random stream (one whole-unit size, random addresses with no sequential share,
    /// uniform popularity, no Flush or FUA: the benchmark's streams): its command's units and
    /// offset slots, decided once here so each command skips the tests of the features that are
    /// off ([`Synthetic::plain_command`]); `None` for every other stream.
    plain: Option<(u32, u64)>,
    /// A plain stream drawn [`AHEAD`] commands at a time (`draw_ahead`: the same commands as one
    /// at a time), so that the host can load ahead what the reads among them will look up
    /// (`controller/lookahead.rs`): the batch (empty: one at a time), and how many of it were
    /// handed out.
    ahead: Vec<CommandSpec>,
    taken: usize,
    read_fraction: f64,
    /// Commands drawn at or above `read_fraction` and below this are trims.
    trim_below: f64,
    /// Command sizes [bytes] with cumulative weights (last is 1): whole units, or a part of one
    /// unit (a size dividing the mapping unit).
    sizes: Vec<(u64, f64)>,
    /// The sizes in mapping units, in the same order (1 for a part of a unit).
    size_units: Vec<u32>,
    /// Random offsets of each size: `span_units / units`, computed once (a division per
    /// command otherwise).
    size_slots: Vec<u64>,
    unit_bytes: u64,
    pattern: Pattern,
    /// Random pattern: probability that a command continues where the previous one ended.
    sequential_fraction: f64,
    popularity: Popularity,
    span_units: u32,
    /// Next unit of a sequential stream: where the previous command ended.
    cursor: u32,
    /// Bytes of the unit at `cursor` a sequential stream of part-unit commands has written.
    cursor_bytes: u64,
    /// A Flush after every `flush_every` writes (0: never); writes since the last one.
    flush_every: u32,
    unflushed: u32,
    fua_fraction: f64,
    rng: Rng,
}

#[derive(Clone, Debug)]
enum Popularity {
    Uniform,
    Zipf(Zipf),
    /// JESD219: (cumulative probability, first unit, units) per region.
    Regions(Vec<(f64, u32, u32)>),
}

impl Synthetic {
    pub fn new(config: &WorkloadConfig, unit_bytes: u64, span_units: u32, rng: Rng) -> Synthetic {
        let mut sizes: Vec<(u64, f64)> = if config.bssplit.is_empty() {
            vec![(config.block_size.bytes(), 1.0)]
        } else {
            config
                .bssplit
                .iter()
                .map(|(size, weight)| (size.bytes(), *weight))
                .collect()
        };
        let total: f64 = sizes.iter().map(|(_, weight)| weight).sum();
        let mut cumulative = 0.0;
        for (_, weight) in &mut sizes {
            cumulative += *weight / total;
            *weight = cumulative;
        }
        if let Some(last) = sizes.last_mut() {
            last.1 = 1.0;
        }
        let popularity = match config.distribution {
            Distribution::Uniform => Popularity::Uniform,
            Distribution::Zipf => Popularity::Zipf(Zipf::new(u64::from(span_units), config.zipf_theta)),
            Distribution::Jesd219 => {
                let cut1 = ((f64::from(span_units) * 0.05).round() as u32).clamp(1, span_units);
                let cut2 = ((f64::from(span_units) * 0.20).round() as u32).clamp(cut1, span_units);
                Popularity::Regions(vec![
                    (0.5, 0, cut1),
                    (0.8, cut1, cut2 - cut1),
                    (1.0, cut2, span_units - cut2),
                ])
            }
        };
        let size_units: Vec<u32> = sizes
            .iter()
            .map(|&(bytes, _)| ((bytes / unit_bytes) as u32).max(1))
            .collect();
        let size_slots: Vec<u64> = size_units
            .iter()
            .map(|&units| u64::from(span_units / units.min(span_units).max(1)))
            .collect();
        // As `next_command` tests them: a fraction counts when above 0.
        let on = |fraction: f64| fraction.partial_cmp(&0.0) == Some(std::cmp::Ordering::Greater);
        let plain = (sizes.len() == 1
            && sizes[0].0 >= unit_bytes
            && config.pattern == Pattern::Random
            && !on(config.sequential_fraction)
            && matches!(popularity, Popularity::Uniform)
            && config.flush_every == 0
            && !on(config.fua_fraction))
        .then(|| (size_units[0].min(span_units), size_slots[0]));
        Synthetic {
            plain,
            ahead: Vec::new(),
            taken: AHEAD,
            size_units,
            size_slots,
            read_fraction: config.read_fraction,
            trim_below: config.read_fraction + config.trim_fraction,
            sizes,
            pattern: config.pattern,
            sequential_fraction: config.sequential_fraction,
            popularity,
            span_units,
            unit_bytes,
            cursor: 0,
            cursor_bytes: 0,
            flush_every: config.flush_every,
            unflushed: 0,
            fua_fraction: config.fua_fraction,
            rng,
        }
    }

    /// The stream's next command.
    #[inline]
    pub fn next_command(&mut self) -> CommandSpec {
        match self.plain {
            Some((units, slots)) if !self.ahead.is_empty() => {
                if self.taken == AHEAD {
                    for index in 0..AHEAD {
                        self.ahead[index] = self.plain_command(units, slots);
                    }
                    self.taken = 0;
                }
                self.taken += 1;
                self.ahead[self.taken - 1]
            }
            Some((units, slots)) => self.plain_command(units, slots),
            None => self.any_command(),
        }
    }

    /// From now on a plain stream draws its commands [`AHEAD`] at a time (the same commands),
    /// and [`Self::drawn_ahead`] shows each batch; other streams are unchanged. Returns whether
    /// the stream is plain.
    pub fn draw_ahead(&mut self) -> bool {
        if self.plain.is_some() {
            self.ahead = vec![CommandSpec::default(); AHEAD];
        }
        self.plain.is_some()
    }

    /// The commands drawn with the one [`Self::next_command`] just handed out, that one first,
    /// when it drew a batch; empty otherwise.
    #[inline]
    pub fn drawn_ahead(&self) -> &[CommandSpec] {
        if self.taken == 1 {
            &self.ahead
        } else {
            &[]
        }
    }

    /// [`Self::any_command`] of a plain random stream (`plain`): the same draws in the same
    /// order, without the tests of the features that are off. Debug builds draw the general
    /// command from a copy of the stream and check that both agree.
    #[inline(always)]
    fn plain_command(&mut self, units: u32, slots: u64) -> CommandSpec {
        #[cfg(debug_assertions)]
        let mut general = self.clone();
        let draw = self.rng.unit();
        let is_read = draw < self.read_fraction;
        let trim = !is_read && draw < self.trim_below;
        // `below` stays below `slots`: the slot needs no bound.
        let first_unit = self.rng.below(slots) as u32 * units;
        self.cursor = first_unit + units;
        self.cursor_bytes = 0;
        let command = CommandSpec::io(is_read, trim, first_unit, units);
        #[cfg(debug_assertions)]
        {
            assert_eq!(
                general.any_command(),
                command,
                "a plain command differs from the general one"
            );
            assert_eq!(
                (general.cursor, general.rng.next_u64()),
                (self.cursor, self.rng.clone().next_u64()),
                "a plain command leaves the stream elsewhere"
            );
        }
        command
    }

    /// The next command of any stream.
    #[inline(never)]
    fn any_command(&mut self) -> CommandSpec {
        if self.flush_every > 0 && self.unflushed >= self.flush_every {
            self.unflushed = 0;
            return CommandSpec::flush();
        }
        // One draw decides read, trim or write, so a trim fraction of 0 leaves the stream as it was.
        let draw = self.rng.unit();
        let is_read = draw < self.read_fraction;
        let trim = !is_read && draw < self.trim_below;
        let size = if self.sizes.len() == 1 {
            0
        } else {
            let draw = self.rng.unit();
            self.sizes
                .iter()
                .position(|(_, cumulative)| draw < *cumulative)
                .unwrap_or(0)
        };
        let bytes = self.sizes[size].0;
        // A size below the mapping unit writes (reads) part of one unit.
        let part = bytes < self.unit_bytes;
        let units = self.size_units[size].min(self.span_units);
        // No draw at a sequential fraction of 0, so pure random streams stay as they were.
        let continues = match self.pattern {
            Pattern::Sequential => true,
            Pattern::Random => self.sequential_fraction > 0.0 && self.rng.unit() < self.sequential_fraction,
        };
        let first_unit = if continues {
            if part && self.cursor_bytes > 0 {
                // The next part of the unit the stream is in.
                self.cursor - 1
            } else if self.cursor + units > self.span_units {
                0
            } else {
                self.cursor
            }
        } else {
            // Offsets aligned to the command size (fio's default blockalign = bs).
            let slots = self.size_slots[size];
            let slot = match &mut self.popularity {
                Popularity::Uniform => self.rng.below(slots),
                Popularity::Zipf(zipf) => (zipf.sample(&mut self.rng) - 1) * slots / zipf.items(),
                Popularity::Regions(regions) => {
                    let draw = self.rng.unit();
                    // An empty region (a tiny span) hands its share to the next one.
                    let &(_, start, length) = regions
                        .iter()
                        .find(|(cumulative, _, length)| draw < *cumulative && *length > 0)
                        .unwrap_or(&regions[0]);
                    let unit = u64::from(start) + self.rng.below(u64::from(length.max(1)));
                    unit / u64::from(units)
                }
            };
            (slot.min(slots - 1) as u32) * units
        };
        self.cursor = first_unit + units;
        let mut head_gap = 0;
        if part {
            // Where in its unit: after the stream's last part, or a slot aligned to the size.
            let offset = if continues {
                self.cursor_bytes
            } else {
                self.rng.below(self.unit_bytes / bytes) * bytes
            };
            head_gap = offset as u32;
            self.cursor_bytes = (offset + bytes) % self.unit_bytes;
        } else {
            self.cursor_bytes = 0;
        }
        let tail_gap = if part {
            (self.unit_bytes - u64::from(head_gap) - bytes) as u32
        } else {
            0
        };
        // Nothing drawn or counted unless Flush or FUA is asked for: streams stay as they were.
        let mut fua = false;
        if self.flush_every > 0 || self.fua_fraction > 0.0 {
            let write = !is_read && !trim;
            self.unflushed += u32::from(write);
            fua = write && self.fua_fraction > 0.0 && self.rng.unit() < self.fua_fraction;
        }
        CommandSpec {
            is_read,
            trim,
            flush: false,
            fua,
            first_unit,
            units,
            head_gap,
            tail_gap,
            ..CommandSpec::default()
        }
    }
}

#[cfg(test)]
#[path = "synthetic_tests.rs"]
mod tests;
