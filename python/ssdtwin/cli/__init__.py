"""The `ssdtwin` command line (docs/guide/scenarios.md).

    ssdtwin run [SCENARIO.toml] [--set KEY=VALUE ...] [--json FILE|-] [--timeseries FILE.parquet] [--quiet]
                [--output-format summary|json|fio-json] [--from DRIVE.snap] [--html FILE.html]
    ssdtwin precondition [SCENARIO.toml] [--set KEY=VALUE ...] [-o DRIVE.snap]
    ssdtwin sweep SWEEP.toml [--backend local|dask] [--scheduler ADDRESS] [--out DIR] [--resume] [--workers N]
                  [--no-reuse] [--html FILE.html]
    ssdtwin report RUN.json [--timeseries FILE.parquet] -o FILE.html        # one run's page
    ssdtwin report A.json B.json ... -o FILE.html                           # runs compared
    ssdtwin report DIR -o FILE.html [--point-pages static|interactive|none] # a sweep, a page per point
    ssdtwin plot DIR --x KEY --y KEY [--hue KEY] [--facet KEY] -o FIG.png|svg|pdf
    ssdtwin plot --cdf read|write|all REPORT.json... (or DIR) -o FIG.png
    ssdtwin plot TIMESERIES.parquet [--columns A,B | --thermal] -o FIG.png
    ssdtwin serve [SCENARIO.toml] --nbd (--socket PATH | --listen HOST:PORT) [--pace virtual|real]
                  [--json FILE] [--record-trace FILE.csv] [--store-cap SIZE] [--once] [--power-loss-at TIME]
                  [--set KEY=VALUE ...]
    ssdtwin calibrate --protocol -o measure.fio [--device DEV] [--size 100%] [--runtime 60]
    ssdtwin calibrate measure.json [more.json ...] --base PRESET -o mydrive.toml [--workers N]
                      [--holdout NAME ...] [--html FILE.html]
    ssdtwin schema
    ssdtwin presets
    ssdtwin --version

A problem with the user's input (scenario, file, `--set`) prints one `error: ...` line on stderr
and exits with status 2; Ctrl-C exits with status 130; a sweep with failed points exits with status 1.
"""

from __future__ import annotations

import click

from ssdtwin._core import __version__
from ssdtwin.cli.calibrate import calibrate_command
from ssdtwin.cli.info import presets_command, schema_command
from ssdtwin.cli.pages import plot_command, report_command
from ssdtwin.cli.simulate import precondition_command, run_command, serve_command
from ssdtwin.cli.sweep import sweep_command

__all__ = ["main"]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="ssdtwin", message="%(prog)s %(version)s")
def main() -> None:
    """ssdtwin: a fast, deterministic NAND-flash SSD simulator."""


for _command in (
    run_command,
    precondition_command,
    serve_command,
    schema_command,
    presets_command,
    sweep_command,
    report_command,
    plot_command,
    calibrate_command,
):
    main.add_command(_command)
