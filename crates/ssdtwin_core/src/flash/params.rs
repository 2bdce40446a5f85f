//! Parameters of the NAND flash array (`[flash]`, `[flash.suspend]`): geometry, cell type, bus and
//! operation timing (ONFI; the papers of the drive presets), program and erase suspend (the
//! program-suspend paper, docs/models/suspend.md).
//!
//! Declared once, with unit, default and documentation; unknown keys are rejected. Range checks
//! live in `config/validate`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::base::time::Duration;
use crate::base::units::{self, ByteSize, TransferRate};

/// Bits stored per NAND cell; sets the number of page types.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum CellType {
    Slc,
    Mlc,
    Tlc,
    Qlc,
}

impl CellType {
    /// Page types per word line: SLC 1, MLC 2 (lower, upper), TLC 3 (lower, center, upper), QLC 4.
    pub fn page_types(self) -> usize {
        match self {
            CellType::Slc => 1,
            CellType::Mlc => 2,
            CellType::Tlc => 3,
            CellType::Qlc => 4,
        }
    }
}

/// A latency given once for all page types or once per page type (lower first).
#[derive(Clone, Debug, Serialize, JsonSchema, PartialEq)]
#[serde(untagged)]
pub enum PerPageType {
    /// The same latency for every page type.
    One(Duration),
    /// One latency per page type: SLC 1, MLC 2, TLC 3, QLC 4 values.
    PerType(Vec<Duration>),
}

impl<'de> Deserialize<'de> for PerPageType {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = PerPageType;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(
                    f,
                    "a duration such as \"80us\" or a list of durations, one per page type"
                )
            }
            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<PerPageType, E> {
                units::parse_duration(text).map(PerPageType::One).map_err(E::custom)
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut items: A) -> Result<PerPageType, A::Error> {
                let mut latencies = Vec::new();
                while let Some(text) = items.next_element::<String>()? {
                    let latency = units::parse_duration(&text)
                        .map_err(|message| serde::de::Error::custom(format!("item {}: {message}", latencies.len())))?;
                    latencies.push(latency);
                }
                Ok(PerPageType::PerType(latencies))
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

impl PerPageType {
    /// The latency of page type `page_type` (0 = lower).
    pub fn for_type(&self, page_type: usize) -> Duration {
        match self {
            PerPageType::One(latency) => *latency,
            PerPageType::PerType(latencies) => latencies[page_type],
        }
    }
}

/// The NAND flash array: geometry, cell type, bus and operation timing.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct FlashConfig {
    /// Independent channels (buses) from the controller to the flash.
    pub channels: u32,
    /// Packages (targets, "ways") sharing one channel.
    pub chips_per_channel: u32,
    /// Dies (LUNs) per package; each die runs one operation at a time.
    pub dies_per_chip: u32,
    /// Planes per die; with `multi_plane` a program writes one page in every plane at once.
    pub planes_per_die: u32,
    /// Erase blocks per plane.
    pub blocks_per_plane: u32,
    /// Pages per erase block.
    pub pages_per_block: u32,
    /// User data per page (parity not included) [size].
    pub page_size: ByteSize,
    /// Bytes of ECC parity moved with each mapping unit read over the channel [size].
    pub parity_per_codeword: ByteSize,
    /// Cell type: slc, mlc, tlc or qlc.
    pub cell: CellType,
    /// ONFI data rate of the 8-bit channel bus [transfers/s].
    pub bus_rate: TransferRate,
    /// Command and address cycles on the channel before each operation [duration].
    pub command_time: Duration,
    /// Array read time, one value or one per page type (lower first) [duration].
    pub t_read: PerPageType,
    /// Program time, one value or one per page type (lower first) [duration].
    pub t_program: PerPageType,
    /// Block erase time [duration].
    pub t_erase: Duration,
    /// Program multi-plane: one program writes a page in each plane of the die.
    pub multi_plane: bool,
    /// Relative spread of program time, the standard deviation of a normal factor around 1
    /// (clamped to ±3 sigma) [fraction].
    pub program_time_spread: f64,
    /// Channel delay: extra channel time before a grant on another channel than the controller's
    /// previous grant (Cho et al., section III-B: "several us of channel delay occur when changing
    /// channel"; section IV-B: 30 us). 0 turns it off [duration].
    pub channel_switch_time: Duration,
    /// Way delay: extra channel time before a grant to another chip (way) than the channel's
    /// previous grant (Cho et al., section III-B, the delay of delivering orders in turn to the
    /// chips sharing a channel; the paper gives it no value apart from the transfers). 0 turns it
    /// off [duration].
    pub way_switch_time: Duration,
    /// Time a die spends moving a page between its array and its page register, added to every
    /// read (before data out) and every program (after data in); the die is busy, the channel
    /// free (Cho et al., section IV-B: 82 us). 0 turns it off [duration].
    pub page_register_time: Duration,
    /// ONFI cache read (READ CACHE, 31h): a die moves sensed data into its cache register and
    /// senses its next read while the data goes out, so its data out overlaps the next t_R (ONFI
    /// 4.0, section 5.13 [A]: not all parts or controllers use it). Applies to dies with no
    /// program or erase suspended; a program or erase waits until the cache register is empty.
    pub cache_read: bool,
    /// Program and erase suspend (`[flash.suspend]`).
    pub suspend: SuspendConfig,
}

impl Default for FlashConfig {
    fn default() -> Self {
        FlashConfig {
            channels: 16,
            chips_per_channel: 1,
            dies_per_chip: 8,
            planes_per_die: 2,
            blocks_per_plane: 1024,
            pages_per_block: 256,
            page_size: ByteSize(16 * 1024),
            parity_per_codeword: ByteSize(224),
            cell: CellType::Tlc,
            bus_rate: TransferRate(400e6),
            command_time: Duration::from_nanos(300),
            t_read: PerPageType::One(Duration::from_micros(80)),
            t_program: PerPageType::One(Duration::from_millis(2)),
            t_erase: Duration::from_millis(5),
            multi_plane: true,
            program_time_spread: 0.0,
            channel_switch_time: Duration::ZERO,
            way_switch_time: Duration::ZERO,
            page_register_time: Duration::ZERO,
            cache_read: false,
            suspend: SuspendConfig::default(),
        }
    }
}

/// A duration, or a fraction of the operation being suspended (`0.035` = 3.5% of its tPROG).
#[derive(Clone, Copy, Debug, Serialize, JsonSchema, PartialEq)]
#[serde(untagged)]
pub enum TimeOrFraction {
    /// A fixed duration such as `"60us"`.
    Time(Duration),
    /// A fraction of the suspended operation's own array time [fraction].
    Fraction(f64),
}

impl<'de> Deserialize<'de> for TimeOrFraction {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = TimeOrFraction;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(
                    f,
                    "a duration such as \"60us\" or a fraction of the operation time such as 0.035"
                )
            }
            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<TimeOrFraction, E> {
                units::parse_duration(text).map(TimeOrFraction::Time).map_err(E::custom)
            }
            fn visit_f64<E: serde::de::Error>(self, value: f64) -> Result<TimeOrFraction, E> {
                Ok(TimeOrFraction::Fraction(value))
            }
            fn visit_i64<E: serde::de::Error>(self, value: i64) -> Result<TimeOrFraction, E> {
                Ok(TimeOrFraction::Fraction(value as f64))
            }
            fn visit_u64<E: serde::de::Error>(self, value: u64) -> Result<TimeOrFraction, E> {
                Ok(TimeOrFraction::Fraction(value as f64))
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

impl TimeOrFraction {
    /// The duration for an operation whose array time is `operation`.
    pub fn resolve(&self, operation: Duration) -> Duration {
        match *self {
            TimeOrFraction::Time(time) => time,
            TimeOrFraction::Fraction(fraction) => operation.scaled(fraction),
        }
    }
}

impl std::fmt::Display for TimeOrFraction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TimeOrFraction::Time(time) => write!(f, "{time}"),
            TimeOrFraction::Fraction(fraction) => write!(f, "{fraction}"),
        }
    }
}

/// Program and erase suspend (the program-suspend paper, section 3.1 and 4; docs/models/suspend.md).
///
/// A program is `program_pulses` ISPP pulse-and-verify steps of equal length, an erase
/// `erase_pulses` erase pulses. A host read queued at a die that is programming (erasing) makes the
/// die finish the current step, spend the enter time (tEPS), serve up to `reads_per_suspend` waiting
/// host reads, spend the resume time and continue where it stopped. An operation is suspended at
/// most `max_per_operation` (`erase_max_per_operation`) times, and runs at least one step between
/// two suspensions.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct SuspendConfig {
    /// Reads may suspend programs.
    pub program: bool,
    /// Reads may suspend erases.
    pub erase: bool,
    /// Suspensions allowed per program; 0 disables program suspend [count].
    pub max_per_operation: u32,
    /// Time to enter suspend after the current pulse ends (tEPS): a duration, or a fraction of the
    /// program's time (the paper measures 3–4% of tPROG) [duration or fraction].
    pub enter_time: TimeOrFraction,
    /// Time to resume a suspended program before its next pulse [duration or fraction].
    pub resume_time: TimeOrFraction,
    /// ISPP time a program adds at each resume: the extra iterations the program-suspend paper's
    /// Section 4.3 measures after a suspension; 0 = off [duration or fraction of tPROG].
    pub resume_extra_time: TimeOrFraction,
    /// ISPP pulse-and-verify steps per program; suspension waits for the current one [count].
    pub program_pulses: u32,
    /// Host reads served per suspension at most [count].
    pub reads_per_suspend: u32,
    /// Suspensions allowed per erase; 0 disables erase suspend [count].
    pub erase_max_per_operation: u32,
    /// Time to enter erase suspend after the current erase pulse [duration or fraction of tBERS].
    pub erase_enter_time: TimeOrFraction,
    /// Time to resume a suspended erase [duration or fraction of tBERS].
    pub erase_resume_time: TimeOrFraction,
    /// Erase pulses (ISPE loops) per block erase [count].
    pub erase_pulses: u32,
}

impl Default for SuspendConfig {
    fn default() -> Self {
        SuspendConfig {
            program: false,
            erase: false,
            max_per_operation: 5,
            enter_time: TimeOrFraction::Time(Duration::from_micros(60)),
            resume_time: TimeOrFraction::Time(Duration::from_micros(10)),
            resume_extra_time: TimeOrFraction::Time(Duration::ZERO),
            program_pulses: 16,
            reads_per_suspend: 8,
            erase_max_per_operation: 5,
            erase_enter_time: TimeOrFraction::Time(Duration::from_micros(100)),
            erase_resume_time: TimeOrFraction::Time(Duration::from_micros(20)),
            erase_pulses: 5,
        }
    }
}
