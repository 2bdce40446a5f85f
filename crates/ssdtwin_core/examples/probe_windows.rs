use ssdtwin_core::{load, Override, ScenarioSource};
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let overrides: Vec<Override> = args.iter().map(|a| Override::parse(a).unwrap()).collect();
    let scenario = load(&ScenarioSource::Default, &overrides).unwrap();
    let report = ssdtwin_core::run(&scenario, &mut |_| true).unwrap();
    println!(
        "host_ios {} time {:.3} iops {:.0} erases {} waf {:.3} wall {:.1}",
        report.host_ios,
        report.simulated_time_s,
        report.iops,
        report.flash.erases,
        report.waf,
        report.simulator.run_wall_s
    );
    println!("{}", serde_json::to_string(&report.variability).unwrap());
    println!("{}", serde_json::to_string(&report.steady_state).unwrap());
    println!("{}", serde_json::to_string(&report.warmup).unwrap());
}
