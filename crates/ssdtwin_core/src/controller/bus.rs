//! A die's use of its channel, the ONFI bus: an operation asks for the channel and waits its turn,
//! and once granted sends what it needs, timed as ONFI does it: a program's command, address and
//! data in, then t_PROG; an erase's command cycles, then t_BERS; a read's command and address
//! cycles, then t_R with the channel free; a read's data out (only the codewords it needs), after
//! which the die hands the channel on.

use super::ops::{OpKind, ProbeAction};
use super::slc::fold::FoldStep;
use super::suspend::ArrayKind;
use super::Controller;
use crate::base::event::Event;
use crate::base::time::{Duration, Time};
use crate::flash::channel::{Grant, Need};
use crate::ftl::Stream;
use crate::observe::{Context, Direction, Observer, OpClass, StateChange};

impl Controller {
    /// The die's operation in `slot` needs its channel: it goes on at once if the channel is
    /// free, else it waits.
    #[inline(always)]
    pub(super) fn request_channel<O: Observer>(&mut self, die: u32, need: Need, slot: Slot, cx: &mut Context<O>) {
        self.request_channel_on(self.geometry.channel_of_die(die), die, need, slot, cx);
    }

    /// [`Self::request_channel`] on `die`'s `channel`, known to the caller.
    #[inline(always)]
    pub(super) fn request_channel_on<O: Observer>(
        &mut self,
        channel: u32,
        die: u32,
        need: Need,
        slot: Slot,
        cx: &mut Context<O>,
    ) {
        match self.channels[channel as usize].request(cx.now, die, need) {
            Grant::Now => match slot {
                Slot::Running => self.granted(die, need, cx),
                Slot::Output => self.grant_output(die, cx),
            },
            Grant::Wait { wake } => {
                let state = &mut self.dies[die as usize];
                match slot {
                    Slot::Running => state.waiting = Some(need),
                    Slot::Output => state.output_waiting = true,
                }
                if let Some(at) = wake {
                    cx.events.schedule(at, Event::ChannelFree { channel });
                }
            }
        }
    }

    /// The channel's grant ended with dies waiting: the next one goes on.
    pub fn on_channel_free<O: Observer>(&mut self, channel: u32, cx: &mut Context<O>) {
        let Some((die, need)) = self.channels[channel as usize].next_waiter() else {
            return;
        };
        let state = &mut self.dies[die as usize];
        if need == Need::Data && state.output_waiting {
            state.output_waiting = false;
            self.grant_output(die, cx);
        } else {
            let waited = state.waiting.take().expect("a waiting die");
            debug_assert_eq!(waited, need);
            self.granted(die, need, cx);
        }
        if let Some(at) = self.channels[channel as usize].rearm() {
            cx.events.schedule(at, Event::ChannelFree { channel });
        }
    }

    /// `die` has its channel now for what its running operation needs.
    fn granted<O: Observer>(&mut self, die: u32, need: Need, cx: &mut Context<O>) {
        let now = cx.now;
        let op = self.dies[die as usize]
            .running
            .expect("a die with the channel runs an operation");
        // A host read (most grants) goes straight on, its operation's kind not copied out whole.
        if let OpKind::HostRead { .. } = self.ops[op].kind {
            match need {
                Need::Command => self.sense(die, op, false, cx),
                Need::Data => {
                    let batch = self.dies[die as usize].batch.len() as u32;
                    self.data_out(die, op, batch, cx);
                }
            }
            return;
        }
        let kind = self.ops[op].kind;
        match (kind, need) {
            (
                OpKind::Program {
                    pages,
                    units,
                    stream,
                    page_count,
                },
                _,
            ) => {
                let transfer = self.program_transfer(units);
                let loaded = self.occupy(die, now, transfer);
                let mut page_type = self.page_types.div_rem(pages[0].1).1 as usize;
                if self.slc.is_some() && stream == Stream::User {
                    // The SLC cache: a host program with room runs in SLC mode (`slc/fold.rs`).
                    let first = die * self.geometry.planes_per_die;
                    let planes = pages[..usize::from(page_count)].iter().fold(0u16, |mask, &(block, _)| {
                        mask | 1 << (self.geometry.plane_of_block(block) - first)
                    });
                    page_type = self.slc_program(die, (page_type, page_count, planes, units), cx);
                }
                let length = self.timing.program_time(page_type, &mut self.flash_rng);
                cx.die(StateChange::ProgramStart {
                    die,
                    start: loaded,
                    page_type: page_type as u8,
                    duration: length,
                    load: transfer,
                });
                cx.die(StateChange::DramAccess {
                    bytes: u64::from(units) * self.geometry.unit_bytes,
                });
                self.begin_array(die, op, ArrayKind::Program, loaded, length, cx);
            }
            (OpKind::FoldProgram(fold), _) => {
                let transfer = self.program_transfer(fold.units);
                let loaded = self.occupy(die, now, transfer);
                let length = self
                    .timing
                    .program_time(usize::from(fold.page_type), &mut self.flash_rng);
                self.slc_die_time(FoldStep::Program(fold.page_type), length);
                cx.die(StateChange::ProgramStart {
                    die,
                    start: loaded,
                    page_type: fold.page_type,
                    duration: length,
                    load: transfer,
                });
                cx.die(StateChange::DramAccess {
                    bytes: u64::from(fold.units) * self.geometry.unit_bytes,
                });
                self.begin_array(die, op, ArrayKind::Program, loaded, length, cx);
            }
            (OpKind::SlcErase { .. }, _) => {
                let erase = self.timing.slc_erase;
                self.slc_die_time(FoldStep::Erase, erase);
                self.start_erase(die, op, now, erase, cx);
            }
            (OpKind::MappingProgram, _) => {
                // A translation page: a full page of data in, then a lower-page program.
                let transfer = self.program_transfer(self.geometry.units_per_page);
                let loaded = self.occupy(die, now, transfer);
                let length = self.timing.program_time(0, &mut self.flash_rng);
                cx.die(StateChange::ProgramStart {
                    die,
                    start: loaded,
                    page_type: 0,
                    duration: length,
                    load: transfer,
                });
                cx.die(StateChange::DramAccess {
                    bytes: u64::from(self.geometry.units_per_page) * self.geometry.unit_bytes,
                });
                self.begin_array(die, op, ArrayKind::Program, loaded, length, cx);
            }
            (
                OpKind::Probe {
                    action: ProbeAction::Program { page_type },
                    ..
                },
                _,
            ) => {
                let transfer = self.program_transfer(self.geometry.units_per_page);
                let loaded = self.occupy(die, now, transfer);
                let length = self.timing.program_time(page_type as usize, &mut self.flash_rng);
                self.begin_array(die, op, ArrayKind::Program, loaded, length, cx);
            }
            (OpKind::Erase { .. }, _) => self.start_erase(die, op, now, self.timing.erase, cx),
            (
                OpKind::Probe {
                    action: ProbeAction::Erase,
                    ..
                },
                _,
            ) => {
                let start = self.occupy(die, now, self.timing.command);
                self.begin_array(die, op, ArrayKind::Erase, start, self.timing.erase, cx);
            }
            (_, Need::Command) => self.sense(die, op, matches!(kind, OpKind::FoldRead(_)), cx),
            (_, Need::Data) => {
                let batch = self.dies[die as usize].batch.len() as u32;
                self.data_out(die, op, self.read_units(op, batch), cx);
            }
        }
    }

    /// A read's command and address cycles, granted now, then t_R with the channel free (`fold`:
    /// an SLC fold's read, whose die time the fold counts).
    #[inline(always)]
    fn sense<O: Observer>(&mut self, die: u32, op: u32, fold: bool, cx: &mut Context<O>) {
        let now = cx.now;
        let sensing = self.occupy(die, now, self.timing.command);
        let page_type = self.dies[die as usize].page_type;
        let mut t_read = self.timing.read[page_type as usize];
        if let Some(reliability) = &self.reliability {
            // Read retries and soft senses: more senses back to back (reliability.rs).
            t_read = t_read * (1 + u64::from(reliability.extra_senses(self.ops[op].cost)));
        }
        if fold {
            self.slc_die_time(FoldStep::Read, t_read);
        }
        cx.die(StateChange::DieOpStart {
            die,
            start: sensing,
            class: OpClass::Read,
            page_type,
            duration: t_read,
        });
        cx.events.schedule(sensing + t_read, Event::ReadSensed { die });
    }

    /// An erase of `erase` array time (native or SLC mode): its command cycles, then the array.
    fn start_erase<O: Observer>(&mut self, die: u32, op: u32, now: Time, erase: Duration, cx: &mut Context<O>) {
        let start = self.occupy(die, now, self.timing.command);
        cx.die(StateChange::DieOpStart {
            die,
            start,
            class: OpClass::Erase,
            page_type: 0,
            duration: erase,
        });
        self.begin_array(die, op, ArrayKind::Erase, start, erase, cx);
    }

    /// `die`'s channel carries `length` from `now`, after the controller's channel delay when its
    /// previous grant was on another channel and the channel's way delay when its previous grant
    /// was for another chip; returns when it ends.
    #[inline(always)]
    fn occupy(&mut self, die: u32, now: Time, length: Duration) -> Time {
        self.occupy_on(self.geometry.channel_of_die(die), die, now, length)
    }

    /// [`Self::occupy`] of `die` on its `channel`, known to the caller.
    #[inline(always)]
    fn occupy_on(&mut self, channel: u32, die: u32, now: Time, length: Duration) -> Time {
        let before = self.channel_change.before(channel);
        let chip = self.geometry.chip_of_die(die);
        self.channels[channel as usize].occupy(now, chip, before, length)
    }

    /// Bus time to move `units` mapping units with their parity (`Timing::read_transfer`), from
    /// the table computed at construction.
    #[inline]
    fn read_transfer(&self, units: u32) -> Duration {
        match self.read_transfers.get(units as usize) {
            Some(&transfer) => transfer,
            None => self.timing.read_transfer(units),
        }
    }

    /// Bus time to load `units` mapping units for a program (`Timing::program_transfer`).
    #[inline]
    fn program_transfer(&self, units: u32) -> Duration {
        self.timing.command + self.read_transfer(units)
    }

    /// The mapping units read operation `op` moves out, `batch` for a host read (its merged
    /// reads of one page).
    fn read_units(&self, op: u32, batch: u32) -> u32 {
        match self.ops[op].kind {
            OpKind::HostRead { .. } => batch,
            OpKind::GcRead { units, .. } => units,
            OpKind::MappingRead { .. } => self.geometry.units_per_page,
            OpKind::FoldRead(fold) => fold.units,
            _ => 1,
        }
    }

    /// A read's data out of `units` mapping units, granted now: only the codewords it needs
    /// (column addressing).
    #[inline(always)]
    fn data_out<O: Observer>(&mut self, die: u32, op: u32, units: u32, cx: &mut Context<O>) {
        let mut transfer = self.read_transfer(units);
        if let Some(reliability) = &self.reliability {
            // Each retry's data and the soft bits go out too.
            transfer = transfer * (1 + u64::from(reliability.extra_transfers(self.ops[op].cost)));
        }
        let channel = self.geometry.channel_of_die(die);
        let done = self.occupy_on(channel, die, cx.now, transfer);
        // `DieDone` at `done` hands the channel on (`on_die_done`).
        self.channels[channel as usize].owner_hands_on();
        let bytes = u64::from(units) * self.geometry.unit_bytes;
        report_transfer(cx, die, (done, transfer), Direction::Out, bytes);
        cx.events.schedule(done, Event::DieDone { die });
    }

    /// Cache read: the data of the die's `output` read goes out now.
    fn grant_output<O: Observer>(&mut self, die: u32, cx: &mut Context<O>) {
        let state = &self.dies[die as usize];
        let op = state.output.expect("a read in the cache register");
        let batch = state.output_batch.len() as u32;
        self.data_out(die, op, self.read_units(op, batch), cx);
    }
}

/// A data transfer of `die` ending at `end` after `length`, and the `bytes` it moves through
/// controller DRAM.
#[inline(always)]
fn report_transfer<O: Observer>(
    cx: &mut Context<O>,
    die: u32,
    (end, length): (Time, Duration),
    direction: Direction,
    bytes: u64,
) {
    cx.die(StateChange::Transfer {
        die,
        end,
        length,
        direction,
    });
    cx.die(StateChange::DramAccess { bytes });
}

/// Which of a die's operations asks for the channel: the running one, or (cache read) the read
/// whose data is in the cache register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Slot {
    Running,
    Output,
}
