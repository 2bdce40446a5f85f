//! Assembly: one function that builds the drive and its workload from a scenario, top to bottom.

use super::observers::Observers;
use super::observers::Thermal;
use super::report::Report;
use super::scenario::Scenario;
use super::{Progress, RunError, Simulation};
use crate::base::error::ConfigError;
use crate::base::event::EventQueue;
use crate::base::rng::Rng;
use crate::base::time::{Duration, Time};
use crate::controller::read_cache::ReadCache;
use crate::controller::slc::params::CliffPolicy;
use crate::controller::slc::SlcCache;
use crate::controller::Controller;
use crate::flash::{Geometry, Timing};
use crate::ftl::params::{FtlConfig, ReverseMapKind};
use crate::ftl::Ftl;
use crate::host::params::{Arbitration, Priority};
use crate::host::Host;
use crate::metrics::jobs::JobMetrics;
use crate::metrics::run::RunMetrics;
use crate::power::PowerModel;
use crate::reliability::Reliability;
use crate::thermal::throttle::{Baseline, Throttle};
use crate::thermal::ThermalModel;
use crate::workload::{Pacing, Source};

/// Refuses a drive whose mapping tables would not fit in the memory available now (with
/// `ftl.reverse_map = "file"` the forward map), instead of letting the allocation abort.
fn check_memory(geometry: &Geometry, ftl: &FtlConfig) -> Result<(), ConfigError> {
    let physical = geometry.physical_units() as f64;
    let reverse = match ftl.reverse_map {
        ReverseMapKind::Memory => physical,
        ReverseMapKind::File => 0.0,
    };
    let needed = 4.0 * (reverse + physical * (1.0 - ftl.over_provisioning));
    let available = std::fs::read_to_string("/proc/meminfo").ok().and_then(|text| {
        let line = text.lines().find(|line| line.starts_with("MemAvailable:"))?;
        line.split_whitespace()
            .nth(1)?
            .parse::<f64>()
            .ok()
            .map(|kib| kib * 1024.0)
    });
    match available {
        Some(available) if needed > available => Err(ConfigError::new(
            "flash",
            format!(
                "the mapping tables of this drive need {:.1} GiB but {:.1} GiB of memory is available; \
                 use fewer flash.blocks_per_plane or a larger ftl.mapping_unit{}",
                needed / f64::from(1u32 << 30),
                available / f64::from(1u32 << 30),
                match ftl.reverse_map {
                    ReverseMapKind::Memory => ", or ftl.reverse_map = \"file\" to keep the reverse map on disk",
                    ReverseMapKind::File => "",
                }
            ),
        )),
        _ => Ok(()),
    }
}

/// NAND package of each die: the dies, ordered channel by channel, chip by chip, are split into
/// `packages` consecutive groups, so a package carries whole chips of neighbouring channels when
/// there are at least as many chips as packages (and a chip's dies are split otherwise).
pub fn die_packages(geometry: &Geometry, packages: u32) -> Vec<u32> {
    let chips = geometry.channels * geometry.chips_per_channel;
    let dies_per_chip = geometry.dies / chips;
    (0..geometry.dies)
        .map(|die| {
            let chip = geometry.channel_of_die(die) * geometry.chips_per_channel + geometry.chip_of_die(die);
            let within = die / chips;
            let order = chip * dies_per_chip + within;
            (u64::from(order) * u64::from(packages) / u64::from(geometry.dies)) as u32
        })
        .collect()
}

/// The thermal model and its throttling policy, when `thermal.enabled`; the power model then
/// keeps its NAND power per package.
fn thermal_model(
    scenario: &Scenario,
    geometry: &Geometry,
    controller: &Controller,
    host: &Host,
    power: &mut PowerModel,
) -> Result<Option<Thermal>, ConfigError> {
    let config = &scenario.thermal;
    if !config.enabled {
        return Ok(None);
    }
    if config.nand_packages > geometry.dies {
        return Err(ConfigError::new(
            "thermal.nand_packages",
            format!(
                "{} packages for {} dies; allowed: 1 to the number of dies",
                config.nand_packages, geometry.dies
            ),
        ));
    }
    power.track_packages(die_packages(geometry, config.nand_packages));
    let model = ThermalModel::new(config, Time::ZERO, &power.idle_power())?;
    let baseline = Baseline {
        queue_depth: host.queue_depth,
        frame_buffer: controller.frame_buffer(),
        min_frame_buffer: controller.min_frame_buffer(),
    };
    Ok(Some(Thermal {
        model,
        throttle: Throttle::new(&scenario.throttle, baseline, Time::ZERO),
        step: config.step,
        sample_interval: scenario.power.sample_interval,
    }))
}

/// The SLC write cache of `scenario` (`slc_cache.enabled`) over the empty drive's free blocks,
/// its static region taken out of them in SLC mode (`ftl/slc/`) before any preconditioning.
fn slc_cache(
    scenario: &Scenario,
    geometry: &Geometry,
    controller: &mut Controller,
) -> Result<Box<SlcCache>, ConfigError> {
    let config = &scenario.slc_cache;
    let block_bytes = u64::from(geometry.units_per_block()) * geometry.unit_bytes;
    let slc_pages = (geometry.pages_per_block / geometry.page_types).max(1);
    let slc_block_bytes = u64::from(slc_pages * geometry.units_per_page) * geometry.unit_bytes;
    let static_blocks = config
        .static_size
        .bytes()
        .div_ceil(slc_block_bytes)
        .div_ceil(u64::from(geometry.planes()));
    controller
        .ftl
        .slc_init(
            static_blocks,
            slc_pages,
            config.dynamic_share > 0.0 || config.cliff == CliffPolicy::Wait,
        )
        .map_err(|message| ConfigError::new("slc_cache.static_size", message))?;
    let free: u64 = (0..geometry.planes())
        .map(|plane| controller.ftl.free_blocks(plane) as u64)
        .sum::<u64>()
        + controller.ftl.slc.as_ref().map_or(0, |pool| pool.blocks());
    let interval = if scenario.power.enabled {
        scenario.power.sample_interval
    } else {
        Duration::ZERO
    };
    Ok(Box::new(SlcCache::new(
        config,
        geometry.dies,
        (u64::from(geometry.page_types), block_bytes, geometry.pages_per_block),
        free * block_bytes,
        interval,
    )))
}

/// The reliability model, when `reliability.enabled`: each die ages at its NAND package's
/// temperature (the thermal model's, when on), the data written before the run has sat
/// `reliability.retention_age` at `reliability.retention_temp_c`.
fn reliability_model(scenario: &Scenario, geometry: &Geometry) -> Option<Box<Reliability>> {
    let config = &scenario.reliability;
    if !config.enabled {
        return None;
    }
    let die_package = if scenario.thermal.enabled {
        die_packages(geometry, scenario.thermal.nand_packages)
    } else {
        vec![0; geometry.dies as usize]
    };
    let blocks = (geometry.planes() * geometry.blocks_per_plane) as usize;
    let mut model = Reliability::new(config, blocks, die_package, scenario.power.sample_interval);
    model.age_data(config.retention_age, config.retention_temp_c);
    Some(Box::new(model))
}

impl Simulation {
    /// Builds the drive and workload of `scenario`.
    pub fn new(scenario: &Scenario) -> Result<Simulation, ConfigError> {
        Simulation::assemble(scenario, false)
    }

    /// Builds the drive of `scenario`; its workload is `scenario.workload`, or with `live` the
    /// commands a caller hands in (`sim/live.rs`).
    pub(super) fn assemble(scenario: &Scenario, live: bool) -> Result<Simulation, ConfigError> {
        let geometry = Geometry::new(&scenario.flash, scenario.ftl.mapping_unit);
        check_memory(&geometry, &scenario.ftl)?;
        let mut timing = Timing::new(&scenario.flash, &geometry);
        let slc = &scenario.slc_cache;
        if slc.enabled {
            timing.add_slc(slc.t_read, slc.t_program, slc.t_erase);
        }
        // A zoned namespace exposes the whole flash in its zones: no spare space of the FTL's own.
        let zoned_ftl;
        let ftl_config = if scenario.zns.enabled {
            zoned_ftl = crate::ftl::params::FtlConfig {
                over_provisioning: 0.0,
                ..scenario.ftl.clone()
            };
            &zoned_ftl
        } else {
            &scenario.ftl
        };
        let mut ftl = Ftl::new(
            ftl_config,
            scenario.flash.multi_plane,
            geometry,
            Rng::stream(scenario.seed, "ftl"),
        );
        if ftl_config.reverse_map == ReverseMapKind::File {
            let units_per_block = geometry.units_per_block();
            ftl.mapping.reverse_to_file(&std::env::temp_dir(), units_per_block)?;
        }
        if scenario.fdp.enabled {
            ftl.enable_fdp(&scenario.fdp, scenario.fdp.resolve(&scenario.flash)?);
        }
        let logical_units = ftl.logical_units();
        let span_units = scenario
            .workload
            .span_units(logical_units, geometry.unit_bytes, "workload.span")?;
        let (plp, dram) = super::plp_model::dram_models(scenario, &geometry, &timing, ftl.logical_units());
        let mut controller = Controller::new(
            &scenario.controller,
            &scenario.flash,
            geometry,
            timing,
            ftl,
            Rng::stream(scenario.seed, "flash"),
        )?;
        controller.set_dram(dram);
        if scenario.zns.enabled {
            let group_pages = controller.ftl.targets()[0].plane_count;
            let mut zoned =
                crate::controller::zoned::ZonedDrive::build(&scenario.zns, &scenario.flash, geometry, group_pages)?;
            if scenario.power.enabled {
                zoned.stats.series_interval = scenario.power.sample_interval;
            }
            controller.zoned = Some(Box::new(zoned));
        }
        let unit_bytes = geometry.unit_bytes;
        let read_cache = ReadCache::new(
            (scenario.buffer.read_cache.bytes() / unit_bytes) as u32,
            (scenario.buffer.read_ahead.bytes() / unit_bytes) as u32,
        );
        controller.set_read_cache(read_cache.map(Box::new));
        // Flush and FUA complete at once when the capacitors can flush every volatile write the
        // drive may hold: the write buffer, or without one the frame buffer's write units.
        let volatile_units = plp
            .buffer_pages
            .checked_mul(u64::from(geometry.units_per_page))
            .filter(|&units| units > 0)
            .unwrap_or(u64::from(scenario.controller.frame_buffer));
        controller.durability.protected = plp.protected_pages * u64::from(geometry.units_per_page) >= volatile_units;
        controller.set_gc_pacing(crate::controller::pacing::GcPacing::new(
            &scenario.ftl,
            geometry.planes(),
            geometry.blocks_per_plane,
            geometry.units_per_block(),
        ));

        let mut workload = if live {
            Source::External
        } else {
            Source::new(
                &scenario.workload,
                scenario.seed,
                geometry.unit_bytes,
                span_units,
                logical_units,
                controller
                    .zoned
                    .as_ref()
                    .map(|zoned| (zoned.flash.zones.limits(), zoned.flash.zones.len())),
            )?
        };
        if let Source::Trace(trace) = &mut workload {
            trace.placement_handles(scenario.fdp.handles);
        }
        if let Source::Synthetic(synthetic) = &mut workload {
            // The reliability model's block records are loaded ahead for batches of reads
            // (`controller/lookahead.rs`); other runs draw one command at a time.
            if scenario.reliability.enabled {
                synthetic.draw_ahead();
            }
        }
        let jobs = workload.jobs(&scenario.workload, scenario.host.queue_depth);
        if let Source::Fio(fio) = &mut workload {
            let classed = jobs.iter().filter(|job| job.priority != Priority::Medium).count();
            if classed > 0 && scenario.host.arbitration == Arbitration::RoundRobin && jobs.len() > 1 {
                fio.warnings.push(format!(
                    "{}: the prio/prioclass of {classed} job(s) has no effect under host.arbitration = \"round_robin\" (every queue is equal); set host.arbitration = \"weighted_round_robin\"",
                    scenario.workload.fio.job
                ));
            }
        }
        let mut host = match workload {
            // Traces and job files end where their files say; a live session when its caller ends it.
            Source::Trace(_) | Source::Fio(_) | Source::External => Host::new(&scenario.host, u64::MAX, Duration::ZERO),
            // Flows that each have a count of their own end when every one is done.
            Source::Flows(_) if crate::workload::flows::counted(&scenario.workload) => {
                Host::new(&scenario.host, 0, scenario.workload.duration)
            }
            _ => Host::new(&scenario.host, scenario.workload.io_count, scenario.workload.duration),
        };
        if let Source::Fio(_) | Source::Flows(_) = workload {
            host.queue_depth = jobs.iter().map(|job| job.queue_depth).sum();
        }
        host.set_jobs(&jobs);
        if jobs.len() > 1 && matches!(workload, Source::Fio(_) | Source::Flows(_)) {
            // Several flows: a submission queue each, the arbiter chooses (host/arbitration.rs).
            let classes: Vec<_> = jobs.iter().map(|job| job.priority).collect();
            let host = &scenario.host;
            controller.arbiter = Some(Box::new(crate::controller::arbitration::Arbiter::new(
                host.arbitration,
                host.arbitration_burst,
                [host.weight_high, host.weight_medium, host.weight_low],
                &classes,
            )));
        }
        host.timed = workload.pacing(&scenario.workload) == Pacing::Timed;
        if live {
            host.live = Some(Vec::new());
        }

        let mut power = PowerModel::new(
            &scenario.power,
            geometry.channels,
            geometry.dies,
            geometry.page_types as usize,
        );
        if slc.enabled {
            controller.slc = Some(slc_cache(scenario, &geometry, &mut controller)?);
            let power_config = &scenario.power;
            let (read_ma, program_ma) = if slc.icc_ma > 0.0 {
                (slc.icc_ma, slc.icc_ma)
            } else {
                (
                    power_config.icc_read_ma.for_type(0),
                    power_config.icc_program_ma.for_type(0),
                )
            };
            power.add_slc_mode(power_config, geometry.page_types as usize, (read_ma, program_ma));
            if let Some(cache) = controller.slc.as_mut() {
                let watts = |milliamperes: f64| power_config.vcc_v * milliamperes * 1e-3;
                let native = (0..geometry.page_types as usize)
                    .map(|page_type| watts(power_config.icc_program_ma.for_type(page_type)))
                    .collect();
                cache.op_power_w = (watts(read_ma), native, watts(power_config.icc_erase_ma));
            }
        }
        let thermal = thermal_model(scenario, &geometry, &controller, &host, &mut power)?;
        controller.reliability = reliability_model(scenario, &geometry);
        let arbitrated = controller.arbiter.is_some();
        let metrics = RunMetrics::new(
            jobs.iter()
                .map(|job| {
                    let mut metrics = JobMetrics::new(&job.name, job.queue_depth);
                    metrics.priority = arbitrated.then(|| job.priority.name());
                    metrics
                })
                .collect(),
            scenario.report.steady_window,
            !live && !scenario.workload.warmup.is_off(),
        );
        Ok(Simulation {
            scenario: scenario.clone(),
            now: Time::ZERO,
            events: EventQueue::new(),
            workload,
            span_units,
            host,
            controller,
            observers: Observers {
                die_level: scenario.power.enabled,
                power,
                metrics,
                thermal,
            },
            precondition_rng: Rng::stream(scenario.seed, "precondition"),
            preconditioned: false,
            aged: false,
            prepared_wall: std::time::Duration::ZERO,
            events_handled: 0,
            probes: Vec::new(),
            plp,
            power_losses: Vec::new(),
            baseline: None,
        })
    }

    /// The FTL, for invariant checks in tests.
    pub fn ftl(&self) -> &Ftl {
        &self.controller.ftl
    }

    /// The FTL, to break on purpose: test builds only (`verify`), for the tests that prove the
    /// loss checks catch a lost unit (`ftl/versions.rs`).
    #[cfg(feature = "verify")]
    pub fn ftl_mut(&mut self) -> &mut Ftl {
        &mut self.controller.ftl
    }

    /// Bytes of simulator state that scale with the drive (mapping table and block table).
    pub fn state_bytes(&self) -> usize {
        let ftl = &self.controller.ftl;
        ftl.mapping.state_bytes()
            + ftl.blocks.state_bytes()
            + ftl.scheme_state_bytes()
            + self.controller.dram().map_or(0, |dram| dram.state_bytes())
    }

    /// Preconditions the drive, runs the workload to completion and drains what the host's
    /// commands left (`report.drain`, `drain.rs`).
    pub fn run(&mut self, progress: &mut dyn FnMut(&Progress) -> bool) -> Result<Report, RunError> {
        let started = std::time::Instant::now();
        self.precondition(progress)?;
        // The alone runs of `report.flow_slowdown` start from this drive, not a fresh precondition.
        let drive_state = super::slowdown::wanted(&self.scenario, self.host.jobs.len())
            .then(|| self.drive_state())
            .transpose()?;
        self.age_blocks();
        let precondition_wall = started.elapsed() + self.prepared_wall;
        self.run_workload(progress)?;
        let drained = self.drain();
        let end = drained
            .as_ref()
            .map_or(self.observers.metrics.last_completion, |drained| drained.end);
        let thermal = self.finish_thermal(end);
        let power = self.observers.power.finish(end);
        let mut report = self.report(
            started.elapsed() + self.prepared_wall,
            precondition_wall,
            power,
            thermal,
            drained,
        );
        if self.scenario.report.flow_slowdown {
            super::slowdown::add_slowdowns(&self.scenario, drive_state.as_deref(), &mut report, progress)?;
        }
        Ok(report)
    }

    /// Brings the drive to the used state `workload.precondition` asks for, unless it is there
    /// already (preconditioned before, or loaded from a snapshot).
    pub fn precondition(&mut self, progress: &mut dyn FnMut(&Progress) -> bool) -> Result<(), RunError> {
        if self.preconditioned {
            return Ok(());
        }
        let workload = self.scenario.workload.clone();
        let finished = self
            .controller
            .ftl
            .precondition(
                workload.precondition,
                workload.steady_method,
                self.span_units,
                workload.steady_overwrites,
                &mut self.precondition_rng,
                &mut |fraction| {
                    progress(&Progress {
                        phase: "precondition",
                        fraction,
                        host_ios: 0,
                        simulated_time_s: 0.0,
                    })
                },
            )
            .map_err(|message| RunError::Config(ConfigError::new("workload.precondition", message)))?;
        if !finished {
            return Err(RunError::Interrupted);
        }
        self.preconditioned = true;
        Ok(())
    }

    /// Aged start (`reliability.pe_cycles`): every block gets that many P/E cycles more, drawn
    /// uniformly within ± `reliability.pe_spread` of it (its own random stream). Applied when the
    /// run starts, after preconditioning or loading a snapshot, so a snapshot never holds it.
    fn age_blocks(&mut self) {
        let config = &self.scenario.reliability;
        if self.aged || !config.enabled || config.pe_cycles == 0 {
            return;
        }
        self.aged = true;
        let mut rng = Rng::stream(self.scenario.seed, "reliability");
        let cycles = f64::from(config.pe_cycles);
        for count in &mut self.controller.ftl.blocks.erase_count {
            let drawn = cycles * (1.0 + config.pe_spread * (2.0 * rng.unit() - 1.0));
            *count = count.saturating_add(drawn.round().max(0.0) as u32);
        }
    }
}
