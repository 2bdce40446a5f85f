//! The table form: RBER measured on a grid of P/E cycles × retention times, for data that fits
//! neither closed form. Interpolated linearly in P/E cycles and in ln t, on ln RBER (both forms
//! above are near-linear there), and held at the grid's edges. The grid must not fall along
//! either axis (more wear or more retention never lowers the RBER), checked at load.

use crate::reliability::params::RberTableConfig;

#[derive(Clone, Debug)]
pub struct Table {
    pe: Vec<f64>,
    log_t: Vec<f64>,
    /// ln RBER, row-major (P/E rows, retention columns).
    log_rber: Vec<f64>,
}

/// Position of `x` on the increasing `axis`: (lower index, weight of the upper one), held at the
/// edges.
fn locate(axis: &[f64], x: f64) -> (usize, f64) {
    if axis.len() == 1 || x <= axis[0] {
        return (0, 0.0);
    }
    let last = axis.len() - 1;
    if x >= axis[last] {
        return (last - 1, 1.0);
    }
    let upper = axis.partition_point(|&value| value <= x);
    let lower = upper - 1;
    (lower, (x - axis[lower]) / (axis[upper] - axis[lower]))
}

impl Table {
    pub fn new(config: &RberTableConfig) -> Table {
        Table {
            pe: config.pe_cycles.clone(),
            log_t: config.retention.iter().map(|t| t.as_secs_f64().max(1.0).ln()).collect(),
            log_rber: config.rber.iter().flatten().map(|r| r.ln()).collect(),
        }
    }

    pub fn rber(&self, pe: f64, retention_s: f64) -> f64 {
        let columns = self.log_t.len();
        let (row, row_weight) = locate(&self.pe, pe);
        let (column, column_weight) = locate(&self.log_t, retention_s.max(1.0).ln());
        let at = |r: usize, c: usize| self.log_rber[r.min(self.pe.len() - 1) * columns + c.min(columns - 1)];
        let along = |r: usize| at(r, column) * (1.0 - column_weight) + at(r, column + 1) * column_weight;
        (along(row) * (1.0 - row_weight) + along(row + 1) * row_weight).exp()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::time::Duration;
    use crate::reliability::params::check_table as check;

    fn grid() -> RberTableConfig {
        RberTableConfig {
            pe_cycles: vec![0.0, 1000.0],
            retention: vec![Duration::from_secs(10), Duration::from_secs(1000)],
            rber: vec![vec![1e-5, 1e-4], vec![1e-4, 1e-3]],
        }
    }

    #[test]
    fn interpolates_on_log_rber_and_holds_the_edges() {
        let table = Table::new(&grid());
        assert!((table.rber(0.0, 10.0) - 1e-5).abs() < 1e-12);
        assert!((table.rber(1000.0, 1000.0) - 1e-3).abs() < 1e-12);
        // Half way in P/E and in ln t: ln RBER half way between 1e-5 and 1e-3 → 1e-4.
        assert!((table.rber(500.0, 100.0) - 1e-4).abs() < 1e-12);
        // Half way in P/E at t = 10 s: geometric mean of 1e-5 and 1e-4.
        assert!((table.rber(500.0, 10.0) - 10f64.powf(-4.5)).abs() < 1e-12);
        // Beyond the grid: held.
        assert!((table.rber(5000.0, 1e9) - 1e-3).abs() < 1e-12);
        assert!((table.rber(0.0, 0.0) - 1e-5).abs() < 1e-12);
    }

    #[test]
    fn a_table_that_falls_is_refused_naming_the_key() {
        assert!(check(&grid()).is_ok());
        let mut falling = grid();
        falling.rber[1][1] = 5e-5;
        let error = check(&falling).unwrap_err();
        assert_eq!(error.key, "reliability.table.rber");
        assert!(error.message.contains("must not fall"), "{}", error.message);
        let mut unordered = grid();
        unordered.pe_cycles = vec![1000.0, 0.0];
        assert_eq!(check(&unordered).unwrap_err().key, "reliability.table.pe_cycles");
        let mut short = grid();
        short.rber.pop();
        assert_eq!(check(&short).unwrap_err().key, "reliability.table.rber");
    }
}
