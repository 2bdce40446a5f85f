//! Foundations every layer may use: the event queue and dense id tables.
pub mod event;
pub mod slab;
