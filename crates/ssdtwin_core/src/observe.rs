//! What components report to observers: the vocabulary of die and channel activity.
//!
//! Components (flash, FTL, controller, host) never call an observer; the engine (`sim`) turns
//! their state changes into these values and hands them to the observers beside the stack (power
//! now; thermal, reliability statistics and metrics next). Observers import this module, never a
//! component. The typed state-change event of the event engine will join these enums here.

/// What a die does with its array (MODELS.md section 1.1: ICC1 read, ICC2 program, ICC3 erase).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpClass {
    Read,
    Program,
    Erase,
}

/// Direction of a channel transfer as seen from the die.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Program data (and command cycles) into the die: ICC4W.
    In,
    /// Read data out of the die: ICC4R.
    Out,
}
