//! The dies' next booked power changes: a tournament (winner) tree over the dies.
//!
//! Each die has at most one booked change (the earliest thing it will do that nobody reports), so
//! the model keeps one key per die rather than a heap of entries: leaf `die` holds the die's next
//! change time (`Time::MAX`: none) and each inner node the earliest leaf below it, ties to the
//! lower die. The earliest change is the root, read in O(1) (`advance` with nothing due costs one
//! comparison); setting a die's key replays its path to the root, stopping as soon as a node is
//! unchanged. No allocation after construction, no stale entries. (Knuth, TAOCP vol. 3, section
//! 5.4.1, "tree of winners".)

use crate::sim::time::Time;

/// One node: the earliest time below it and the die it belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Node {
    time: Time,
    die: u32,
}

#[derive(Debug)]
pub struct NextChange {
    /// Number of leaves (a power of two, at least 2).
    leaves: usize,
    /// `nodes[1]` is the root, `nodes[leaves + die]` the leaf of `die`; `nodes[0]` is unused.
    nodes: Vec<Node>,
}

impl NextChange {
    /// A tree of `dies` dies with nothing booked.
    pub fn new(dies: u32) -> NextChange {
        let leaves = (dies as usize).next_power_of_two().max(2);
        let mut nodes = vec![
            Node {
                time: Time::MAX,
                die: 0,
            };
            2 * leaves
        ];
        for (die, leaf) in nodes[leaves..].iter_mut().enumerate() {
            leaf.die = die as u32;
        }
        for node in (1..leaves).rev() {
            nodes[node] = nodes[2 * node];
        }
        NextChange { leaves, nodes }
    }

    /// The earliest booked change: its time (`Time::MAX` if none) and die.
    #[inline]
    pub fn earliest(&self) -> (Time, u32) {
        let root = self.nodes[1];
        (root.time, root.die)
    }

    /// The booked change of `die` (`Time::MAX`: none).
    #[inline]
    pub fn get(&self, die: u32) -> Time {
        self.nodes[self.leaves + die as usize].time
    }

    /// Books the next change of `die` at `time` (`Time::MAX`: none), replacing its previous one.
    #[inline]
    pub fn set(&mut self, die: u32, time: Time) {
        let mut node = self.leaves + die as usize;
        if self.nodes[node].time == time {
            return;
        }
        self.nodes[node].time = time;
        while node > 1 {
            let left = self.nodes[node & !1];
            let right = self.nodes[node | 1];
            let winner = if right.time < left.time { right } else { left };
            node >>= 1;
            if self.nodes[node] == winner {
                break;
            }
            self.nodes[node] = winner;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn earliest_follows_every_change_with_ties_to_the_lower_die() {
        let mut tree = NextChange::new(5);
        assert_eq!(tree.earliest().0, Time::MAX);
        let t = Time::from_nanos;
        tree.set(3, t(50));
        tree.set(1, t(70));
        assert_eq!(tree.earliest(), (t(50), 3));
        tree.set(4, t(50));
        assert_eq!(tree.earliest(), (t(50), 3), "a tie goes to the lower die");
        tree.set(0, t(50));
        assert_eq!(tree.earliest(), (t(50), 0));
        tree.set(0, Time::MAX);
        tree.set(3, t(90));
        assert_eq!(tree.earliest(), (t(50), 4));
        tree.set(4, Time::MAX);
        assert_eq!(tree.earliest(), (t(70), 1));
        assert_eq!(tree.get(3), t(90));
        tree.set(1, Time::MAX);
        tree.set(3, Time::MAX);
        assert_eq!(tree.earliest().0, Time::MAX);
    }

    #[test]
    fn matches_a_linear_scan_under_random_updates() {
        let dies = 13;
        let mut tree = NextChange::new(dies);
        let mut keys = vec![Time::MAX; dies as usize];
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..10_000 {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            let die = ((state >> 33) % u64::from(dies)) as u32;
            let time = if (state >> 20) % 7 == 0 {
                Time::MAX
            } else {
                Time::from_nanos((state >> 40) % 64)
            };
            tree.set(die, time);
            keys[die as usize] = time;
            let expected = (0..dies).min_by_key(|&d| (keys[d as usize], d)).unwrap();
            let (time, die) = tree.earliest();
            assert_eq!(time, keys[expected as usize]);
            if time != Time::MAX {
                assert_eq!(die, expected);
            }
        }
    }
}
