//! A power cut in a session (`--power-loss-at`), and the session's closing summary.

use super::drive::Drive;
use super::options::log;

impl Drive {
    /// Cuts the power once the simulation has reached `power_loss_at`: the model says which
    /// acknowledged writes its power-loss protection could not save; those units read back their
    /// last durable version from now on (`versions`), every connection is dropped, and the server
    /// goes on serving.
    pub(super) fn check_power_loss(&mut self) {
        let Some(at) = self.power_loss_at else {
            return;
        };
        if self.live.now() < at {
            return;
        }
        self.power_loss_at = None;
        let event = self.live.power_loss();
        let unit = self.live.unit_bytes();
        let restored = match &mut self.versions {
            Some(versions) => versions.power_lost(&mut self.store, &event.lost_lbas),
            None => 0,
        };
        let lost: Vec<String> = event.lost_lbas.iter().map(u32::to_string).collect();
        log(&format!(
            "power lost at {:.6} s: {} acknowledged writes not on flash, {} lost; drive back at {:.6} s; \
             lost LBAs ({} B units): [{}]; {} lost units read their last durable version",
            event.at_s,
            event.unflushed_writes,
            event.lost_writes,
            event.resumed_at_s,
            unit,
            lost.join(","),
            restored
        ));
        // Acknowledgements the drive gave before the cut still reach their clients.
        self.flush_replies();
        for (client, state) in self.clients.drain() {
            state.writer.get_ref().shutdown();
            if let Some(queue) = state.queue {
                self.live.close_queue(queue);
            }
            self.gone.push((client, state.counts));
            log(&format!("client {client}: dropped by the power loss"));
        }
        self.waiting.clear();
    }

    /// The session's closing log lines: totals, the virtual pace's waits, and each connection's
    /// requests (a connection is a submission queue of its own).
    pub(super) fn log_summary(&mut self) {
        log(&format!(
            "{} requests answered; {} bytes stored; {} partial-unit writes (read-modify-writes); waits for a client's next \
             request: {} ran out of time, {} ended by another connection's request; {} units with a durable \
             version kept",
            self.answered,
            self.store.stored_bytes(),
            self.partial_units,
            self.waits_timed_out,
            self.waits_ended_by_others,
            self.versions.as_ref().map_or(0, |versions| versions.len())
        ));
        let mut connections: Vec<_> = self.gone.drain(..).collect();
        connections.extend(
            self.clients
                .iter()
                .map(|(&client, state)| (client, state.counts.clone())),
        );
        connections.sort_by_key(|&(client, _)| client);
        for (client, counts) in connections {
            log(&format!(
                "client {client}: {} reads, {} writes, {} trims, {} flushes, {} refused; at most {} in flight; \
                 {}; {}",
                counts.reads,
                counts.writes,
                counts.trims,
                counts.flushes,
                counts.refused,
                counts.most_in_flight,
                counts.queue_text(),
                counts.latency_text()
            ));
        }
        if self.pace == super::options::Pace::Real {
            log(&self.transport.text());
        }
    }
}
