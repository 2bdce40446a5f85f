//! What a scheduler answers: where the operation an idle die serves next waits.

/// Where the chosen operation waits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    /// Index in the die's host queue (target command queue).
    Host(usize),
    /// Front of the die's internal (GC) queue.
    Internal,
}
