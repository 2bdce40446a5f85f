//! The zone state machine against [ZNS] 1.1: section 2.1.1 (zone states and transitions),
//! 3.4.1 (Zone Append), 3.4.3 (Zone Management Send: Open, Close, Finish, Reset, Offline) and
//! 3.1.2 (status values). The expected outcomes are written from the specification, not from the
//! code.

use super::state::{ZoneAction, ZoneError, ZoneState};
use super::zones::{ZoneLimits, Zones};
use ZoneState::*;

/// Zones of 10 LBAs holding 8 writable; 2 open, 3 active.
const LIMITS: ZoneLimits = ZoneLimits {
    zone_size: 10,
    zone_capacity: 8,
    max_open: 2,
    max_active: 3,
};

fn zones() -> Zones {
    Zones::new(5, LIMITS)
}

/// Puts zone 0 of a fresh namespace in `state` by host commands (and, for ZSRO, the controller).
fn zone0_in(state: ZoneState) -> Zones {
    let mut z = zones();
    match state {
        Empty => {}
        ImplicitlyOpened => {
            z.write(0, 1).unwrap();
        }
        ExplicitlyOpened => {
            z.send(0, ZoneAction::Open).unwrap();
        }
        Closed => {
            z.write(0, 1).unwrap();
            z.send(0, ZoneAction::Close).unwrap();
        }
        Full => {
            z.write(0, 8).unwrap();
        }
        ReadOnly => {
            z.write(0, 1).unwrap();
            z.make_read_only(0);
        }
        Offline => {
            z.make_read_only(0);
            z.send(0, ZoneAction::Offline).unwrap();
        }
    }
    assert_eq!(z.zone(0).state, state, "set-up of {}", state.name());
    z
}

/// The open and active counts match the zones' states (ZSIO + ZSEO; ZSIO + ZSEO + ZSC).
fn assert_resources_consistent(z: &Zones, what: &str) {
    let states: Vec<ZoneState> = (0..z.len()).map(|i| z.zone(i).state).collect();
    let open = states.iter().filter(|s| s.is_open()).count() as u32;
    let active = states.iter().filter(|s| s.is_active()).count() as u32;
    assert_eq!(z.open_zones(), open, "{what}: open count");
    assert_eq!(z.active_zones(), active, "{what}: active count");
}

#[derive(Clone, Copy, Debug)]
enum Command {
    Write,
    Append,
    Action(ZoneAction),
}

const COMMANDS: [Command; 7] = [
    Command::Write,
    Command::Append,
    Command::Action(ZoneAction::Open),
    Command::Action(ZoneAction::Close),
    Command::Action(ZoneAction::Finish),
    Command::Action(ZoneAction::Reset),
    Command::Action(ZoneAction::Offline),
];

type Outcome = Result<ZoneState, ZoneError>;
const IZST: Outcome = Err(ZoneError::InvalidZoneStateTransition);

/// Rows: the state zone 0 is in ([ZNS] 2.1.1 order). Columns: a one-LBA write at the write
/// pointer, a one-LBA append, then Open, Close, Finish, Reset, Offline ([ZNS] 3.4.3). An entry is
/// the state after the command or the status it fails with:
/// - writes and appends open ZSE and ZSC implicitly, leave ZSIO/ZSEO as they are, and fail with
///   Zone Is Full / Zone Is Read Only / Zone Is Offline in ZSF / ZSRO / ZSO;
/// - Open Zone: ZSE, ZSIO, ZSC to ZSEO; ZSEO unchanged; otherwise Invalid Zone State Transition;
/// - Close Zone: ZSIO, ZSEO to ZSC; ZSC unchanged; otherwise invalid;
/// - Finish Zone: ZSE, ZSIO, ZSEO, ZSC to ZSF; ZSF unchanged; otherwise invalid;
/// - Reset Zone: ZSIO, ZSEO, ZSC, ZSF to ZSE; ZSE unchanged; ZSRO, ZSO invalid;
/// - Offline Zone: ZSRO to ZSO; ZSO unchanged; otherwise invalid.
const EXPECTED: [[Outcome; 7]; 7] = [
    // Empty
    [
        Ok(ImplicitlyOpened),
        Ok(ImplicitlyOpened),
        Ok(ExplicitlyOpened),
        IZST,
        Ok(Full),
        Ok(Empty),
        IZST,
    ],
    // ImplicitlyOpened
    [
        Ok(ImplicitlyOpened),
        Ok(ImplicitlyOpened),
        Ok(ExplicitlyOpened),
        Ok(Closed),
        Ok(Full),
        Ok(Empty),
        IZST,
    ],
    // ExplicitlyOpened
    [
        Ok(ExplicitlyOpened),
        Ok(ExplicitlyOpened),
        Ok(ExplicitlyOpened),
        Ok(Closed),
        Ok(Full),
        Ok(Empty),
        IZST,
    ],
    // Closed
    [
        Ok(ImplicitlyOpened),
        Ok(ImplicitlyOpened),
        Ok(ExplicitlyOpened),
        Ok(Closed),
        Ok(Full),
        Ok(Empty),
        IZST,
    ],
    // Full
    [
        Err(ZoneError::ZoneIsFull),
        Err(ZoneError::ZoneIsFull),
        IZST,
        IZST,
        Ok(Full),
        Ok(Empty),
        IZST,
    ],
    // ReadOnly
    [
        Err(ZoneError::ZoneIsReadOnly),
        Err(ZoneError::ZoneIsReadOnly),
        IZST,
        IZST,
        IZST,
        IZST,
        Ok(Offline),
    ],
    // Offline
    [
        Err(ZoneError::ZoneIsOffline),
        Err(ZoneError::ZoneIsOffline),
        IZST,
        IZST,
        IZST,
        IZST,
        Ok(Offline),
    ],
];

#[test]
fn every_command_in_every_state_follows_the_zns_transition_table() {
    for (row, &state) in ZoneState::ALL.iter().enumerate() {
        for (column, &command) in COMMANDS.iter().enumerate() {
            let mut z = zone0_in(state);
            let before = z.zone(0).clone();
            let result = match command {
                Command::Write => z.write(before.write_pointer, 1).map(|_| ()),
                Command::Append => z.append(0, 1).map(|_| ()),
                Command::Action(action) => z.send(0, action).map(|_| ()),
            };
            let got = result.map(|()| z.zone(0).state);
            let what = format!("{command:?} in {}", state.name());
            assert_eq!(got, EXPECTED[row][column], "{what}");
            assert_resources_consistent(&z, &what);
            match (command, got) {
                (Command::Write | Command::Append, Ok(_)) => {
                    assert_eq!(z.zone(0).write_pointer, before.write_pointer + 1, "{what}: pointer")
                }
                (Command::Action(ZoneAction::Reset), Ok(_)) => assert_eq!(z.zone(0).write_pointer, 0, "{what}"),
                (_, Err(_)) => assert_eq!(*z.zone(0), before, "{what}: a refused command changes nothing"),
                _ => {}
            }
        }
    }
}

#[test]
fn writes_off_the_write_pointer_are_refused_with_zone_invalid_write() {
    let mut z = zones();
    z.write(0, 3).unwrap();
    assert_eq!(z.write(4, 1), Err(ZoneError::ZoneInvalidWrite), "ahead of the pointer");
    assert_eq!(z.write(2, 1), Err(ZoneError::ZoneInvalidWrite), "behind the pointer");
    assert_eq!(
        z.write(12, 1),
        Err(ZoneError::ZoneInvalidWrite),
        "inside an empty zone, not at its start"
    );
    assert_eq!(z.zone(0).write_pointer, 3);
    assert_eq!(z.zone(1).state, Empty);
    assert_eq!(z.counts.invalid_writes, 3);
    assert_eq!(z.counts.rejected_writes, 3);
    assert_eq!(z.counts.writes, 1);
    assert_eq!(z.write(3, 2).map(|w| w.lba), Ok(3), "at the pointer");
}

#[test]
fn writes_past_the_zone_capacity_are_boundary_errors_and_a_full_zone_refuses_more() {
    let mut z = zones();
    assert_eq!(
        z.write(0, 9),
        Err(ZoneError::ZoneBoundaryError),
        "9 LBAs into a capacity of 8"
    );
    assert_eq!(z.zone(0).state, Empty);
    let written = z.write(0, 8).unwrap();
    assert!(written.filled);
    assert_eq!(z.zone(0).state, Full);
    assert_eq!(
        z.write(8, 1),
        Err(ZoneError::ZoneIsFull),
        "LBA 8 is in zone 0, past its capacity"
    );
    assert_eq!(z.append(0, 1), Err(ZoneError::ZoneIsFull));
    assert_eq!(
        (z.open_zones(), z.active_zones()),
        (0, 0),
        "a full zone holds no resource"
    );
    assert_eq!(
        z.write(50, 1),
        Err(ZoneError::LbaOutOfRange),
        "5 zones of 10 LBAs end at 49"
    );
    assert_eq!(z.write(10, 0), Err(ZoneError::InvalidField));
}

#[test]
fn zone_append_returns_the_lba_it_wrote_at() {
    let mut z = zones();
    assert_eq!(z.append(0, 3).map(|w| w.lba), Ok(0));
    assert_eq!(z.append(0, 2).map(|w| w.lba), Ok(3));
    assert_eq!(z.append(10, 1).map(|w| w.lba), Ok(10));
    assert_eq!(
        z.append(5, 1),
        Err(ZoneError::InvalidField),
        "an append names a zone start"
    );
    assert_eq!(
        z.append(0, 4),
        Err(ZoneError::ZoneBoundaryError),
        "5 + 4 LBAs exceed capacity 8"
    );
    assert_eq!(z.append(0, 3).map(|w| (w.lba, w.filled)), Ok((5, true)));
}

#[test]
fn the_active_limit_refuses_a_new_zone_with_too_many_active_zones() {
    let mut z = zones();
    for zone in 0..3 {
        z.write(zone * 10, 1).unwrap();
    }
    // Three zones written: two open, the oldest closed implicitly; three active, the limit.
    assert_eq!((z.open_zones(), z.active_zones()), (2, 3));
    assert_eq!(z.write(30, 1), Err(ZoneError::TooManyActiveZones));
    assert_eq!(z.send(3, ZoneAction::Open), Err(ZoneError::TooManyActiveZones));
    assert_eq!(z.zone(3).state, Empty);
    // Closed zones still count: writing the closed one reopens it (closing another).
    assert_eq!(z.zone(0).state, Closed);
    assert_eq!(z.write(1, 1).map(|w| w.closed), Ok(Some(1)));
    // Finishing one frees an active resource.
    z.send(2, ZoneAction::Finish).unwrap();
    assert!(z.write(30, 1).is_ok());
}

#[test]
fn the_open_limit_refuses_when_every_open_zone_is_explicitly_opened() {
    let mut z = zones();
    z.send(0, ZoneAction::Open).unwrap();
    z.send(1, ZoneAction::Open).unwrap();
    assert_eq!(z.write(20, 1), Err(ZoneError::TooManyOpenZones));
    assert_eq!(z.send(2, ZoneAction::Open), Err(ZoneError::TooManyOpenZones));
    assert_eq!(z.active_zones(), 2, "the refused zone took no active resource");
    z.send(1, ZoneAction::Close).unwrap();
    assert_eq!(
        z.write(20, 1).map(|w| w.closed),
        Ok(None),
        "a closed zone freed an open resource"
    );
    assert_eq!(z.counts.implicit_closes, 0);
}

#[test]
fn the_controller_closes_the_least_recently_used_implicitly_opened_zone() {
    let mut z = zones();
    z.write(0, 1).unwrap();
    z.write(10, 1).unwrap();
    z.write(1, 1).unwrap(); // zone 0 used again: zone 1 is now the older
    let written = z.write(20, 1).unwrap();
    assert_eq!(written.closed, Some(1));
    assert_eq!(z.zone(1).state, Closed);
    assert_eq!(z.zone(0).state, ImplicitlyOpened);
    assert_eq!(z.counts.implicit_closes, 1);
    // An explicitly opened zone is never the one closed.
    let mut z = zones();
    z.send(0, ZoneAction::Open).unwrap();
    z.write(10, 1).unwrap();
    z.send(2, ZoneAction::Open).unwrap(); // closes zone 1, the only implicit one
    assert_eq!((z.zone(0).state, z.zone(1).state), (ExplicitlyOpened, Closed));
}

#[test]
fn a_reset_zone_is_written_again_from_its_start_and_counts_one_reset() {
    let mut z = zones();
    z.write(0, 8).unwrap();
    z.send(0, ZoneAction::Reset).unwrap();
    z.send(0, ZoneAction::Reset).unwrap(); // an empty zone: no erase, not counted
    assert_eq!(z.counts.resets, 1);
    assert_eq!(z.write(8, 1), Err(ZoneError::ZoneInvalidWrite));
    assert_eq!(z.write(0, 8).map(|w| w.filled), Ok(true));
    assert_eq!(z.counts.zones_filled, 2);
    assert_eq!(z.counts.lbas_written, 16);
}

#[test]
fn status_codes_are_the_zns_command_specific_values() {
    // [ZNS] 3.1.2: B8h to BFh in this order.
    let zoned = [
        ZoneError::ZoneBoundaryError,
        ZoneError::ZoneIsFull,
        ZoneError::ZoneIsReadOnly,
        ZoneError::ZoneIsOffline,
        ZoneError::ZoneInvalidWrite,
        ZoneError::TooManyActiveZones,
        ZoneError::TooManyOpenZones,
        ZoneError::InvalidZoneStateTransition,
    ];
    for (i, error) in zoned.iter().enumerate() {
        assert_eq!(error.status_code(), 0xB8 + i as u8, "{}", error.name());
    }
}
