"""HTML reports without a browser: the commands (`ssdtwin run --html`, `ssdtwin report`,
`ssdtwin sweep --html`), `Report.to_html`, what a page holds and what it must not (any reference
to the network), and the thinning of long series. tests/test_html_browser.py opens the pages in
headless Chromium."""

from __future__ import annotations

import json
import re

import numpy
import pytest
from click.testing import CliRunner

import ssdtwin
import ssdtwin.html
from conftest import MODELS_ON, OPTIONAL_SECTIONS, SMALL, SMALL_SET
from ssdtwin.cli import main
from ssdtwin.report import figure as _figures
from ssdtwin.report.html import _plotly, _timeseries
from ssdtwin.report.plots import png

PRESET_SET = [
    "--set",
    "flash.blocks_per_plane=16",
    "--set",
    "workload.io_count=2000",
    "--set",
    "workload.precondition=none",
    # A client preset's static SLC region (GB of SLC-mode blocks) has no room in a 16-block
    # plane beside the logical capacity; its dynamic share still shows the cache's section.
    "--set",
    "slc_cache.static_size=0B",
]


def invoke(*args: str):
    """The CLI in this process (no interpreter start-up per call)."""
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def figures_of(page: str) -> dict:
    """The Plotly figures a page embeds, by id."""
    match = re.search(r'<script type="application/json" id="ssdtwin-figures">(.*?)</script>', page, re.S)
    assert match is not None, "the page has no figures"
    return json.loads(match.group(1))


def section_ids(page: str) -> set[str]:
    return set(re.findall(r'<section id="section-([\w-]+)"', page))


def assert_self_contained(page: str) -> None:
    """Nothing outside the file: no src/href/url() to another host, no stylesheet link, a CSP that
    forbids loads, and plotly.js inlined at most once."""
    markup = re.sub(r"<script\b[^>]*>.*?</script>", "<script></script>", page, flags=re.S)
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", markup, re.I)
    assert not re.search(r"<link\b", markup, re.I)
    assert not re.search(r"url\(\s*['\"]?(https?:)?//", markup, re.I)
    assert "Content-Security-Policy" in markup
    assert "default-src 'none'" in markup
    assert page.count("* plotly.js v") <= 1


@pytest.mark.parametrize("drive", sorted(ssdtwin.presets()))
def test_run_html_for_every_preset(drive, tmp_path):
    output = tmp_path / f"{drive}.html"
    result = invoke("run", "--set", f"drive={drive}", *PRESET_SET, "--quiet", "--html", str(output))
    assert result.exit_code == 0, result.output
    page = output.read_text(encoding="utf-8")
    assert_self_contained(page)
    assert {
        "scenario",
        "summary",
        "latency",
        "timeseries",
        "utilisation",
        "flash",
        "workload",
    } <= section_ids(page)
    assert f"drive</dt><dd>{drive}" in page
    figures = figures_of(page)
    assert set(figures) == {"latency", "timeseries"}
    assert [trace["name"] for trace in figures["latency"]["data"]] == ["read", "write", "all"]
    assert page.count("<noscript><img") == 2  # the static fallback of each plot
    assert output.stat().st_size < 10 * 2**20


def test_report_of_a_saved_run_with_its_time_series(tmp_path):
    report, series = tmp_path / "run.json", tmp_path / "run.parquet"
    assert (
        invoke("run", *SMALL_SET, "--quiet", "--json", str(report), "--timeseries", str(series)).exit_code
        == 0
    )
    without = tmp_path / "without.html"
    assert invoke("report", str(report), "-o", str(without)).exit_code == 0
    assert set(figures_of(without.read_text())) == {"latency"}
    assert "No time series here" in without.read_text()
    with_series = tmp_path / "with.html"
    result = invoke(
        "report", str(report), "--timeseries", str(series), "-o", str(with_series), "--title", "T<1>"
    )
    assert result.exit_code == 0, result.output
    page = with_series.read_text()
    assert set(figures_of(page)) == {"latency", "timeseries"}
    assert "<title>T&lt;1&gt;</title>" in page
    static = tmp_path / "static.html"
    assert invoke("report", str(report), "--static", "-o", str(static)).exit_code == 0
    text = static.read_text()
    assert "<script" not in text
    assert text.count('<img alt="') == 1
    assert static.stat().st_size < 2**20


def test_report_compares_runs(tmp_path):
    paths = []
    for depth in (1, 8):
        path = tmp_path / f"qd{depth}.json"
        result = invoke(
            "run", *SMALL_SET, "--set", f"host.queue_depth={depth}", "--quiet", "--json", str(path)
        )
        assert result.exit_code == 0
        paths.append(str(path))
    output = tmp_path / "compare.html"
    assert invoke("report", *paths, "-o", str(output)).exit_code == 0
    page = output.read_text()
    assert_self_contained(page)
    figures = figures_of(page)
    assert set(figures) == {"latency-read", "latency-write", "latency-all"}
    assert [trace["name"] for trace in figures["latency-read"]["data"]] == ["qd1", "qd8"]
    assert "<code>host.queue_depth</code>" in page  # the differing scenario key
    labelled = tmp_path / "labelled.html"
    assert (
        invoke("report", *paths, "--label", "shallow", "--label", "deep", "-o", str(labelled)).exit_code == 0
    )
    assert [trace["name"] for trace in figures_of(labelled.read_text())["latency-all"]["data"]] == [
        "shallow",
        "deep",
    ]


def test_report_input_errors(tmp_path):
    report = tmp_path / "run.json"
    report.write_text(json.dumps({"iops": 1.0}))
    cases = [
        (["report", str(tmp_path / "missing.json"), "-o", "x.html"], "no such file"),
        (["report", str(tmp_path), str(report), "-o", "x.html"], "one results directory"),
        (["report", str(report), str(report), "--timeseries", "s.parquet", "-o", "x.html"], "--timeseries"),
        (["report", str(report), "--label", "a", "--label", "b", "-o", "x.html"], "2 --label for 1"),
        (["report", str(tmp_path), "-o", str(tmp_path / "x.html")], "no results table yet"),
    ]
    (tmp_path / "not-json.json").write_text("{")
    cases.append((["report", str(tmp_path / "not-json.json"), "-o", str(tmp_path / "x.html")], "not a JSON"))
    for args, message in cases:
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 2, (args, result.output)
        assert message in result.output, (args, result.output)


def test_sweep_html_and_report_of_a_sweep_directory(tmp_path):
    sweep = tmp_path / "sweep.toml"
    sweep.write_text(
        'out = "results"\nseeds = [1, 2]\n[base]\ndrive = "enterprise_tlc"\n'
        "[base.flash]\nblocks_per_plane = 16\n"
        '[base.workload]\nio_count = 3000\nprecondition = "none"\n'
        '[grid]\n"host.queue_depth" = [1, 8]\n',
        encoding="utf-8",
    )
    output = tmp_path / "qd.html"
    result = invoke("sweep", str(sweep), "--workers", "1", "--quiet", "--html", str(output))
    assert result.exit_code == 0, result.output
    assert "wrote" in result.output
    assert "4 point pages" in result.output
    page = output.read_text()
    assert_self_contained(page)
    points = sorted((tmp_path / "qd_points").glob("*.html"))
    assert len(points) == 4
    for point in points:
        assert f'href="qd_points/{point.name}"' in page
        text = point.read_text()
        assert "<script" not in text  # static point pages
        assert 'href="../qd.html"' in text
    figures = figures_of(page)
    assert {"sweep", "latency-read", "latency-write", "latency-all"} == set(figures)
    sweep_lines = figures["sweep"]["data"]
    assert all(line.get("customdata") for line in sweep_lines if line["type"] == "scatter" and line["x"])
    assert {"results", "plots", "latency", "definition"} <= section_ids(page)
    # The same page from the directory, its points interactive.
    again = tmp_path / "again.html"
    result = invoke("report", str(tmp_path / "results"), "-o", str(again), "--point-pages", "interactive")
    assert result.exit_code == 0, result.output
    interactive = sorted((tmp_path / "again_points").glob("*.html"))
    assert len(interactive) == 4
    assert "ssdtwin-figures" in interactive[0].read_text()
    none = tmp_path / "none.html"
    assert (
        invoke("report", str(tmp_path / "results"), "-o", str(none), "--point-pages", "none").exit_code == 0
    )
    assert not (tmp_path / "none_points").exists()
    assert "_points/" not in none.read_text()


def test_report_to_html_and_the_notebook_view(tmp_path):
    report = ssdtwin.run(None, **SMALL)
    path = tmp_path / "report.html"
    text = report.to_html(path)
    assert path.read_text(encoding="utf-8") == text
    assert set(figures_of(text)) == {"latency", "timeseries"}
    view = report._repr_html_()
    assert view.startswith('<iframe srcdoc="&lt;!DOCTYPE html&gt;')
    assert "<script" not in view  # all of the page is inside the attribute, escaped
    static = report.to_html(interactive=False)
    assert "<script" not in static
    assert static.count("<img ") == 2


def test_warnings_and_models_sections_follow_the_report_blocks():
    base = ssdtwin.run(None, **SMALL).to_dict()
    page = ssdtwin.html.run_page(base, interactive=False)
    ids = section_ids(page)
    for name in OPTIONAL_SECTIONS:
        assert name not in ids, name
    assert 'class="warnings"' not in page
    blocks = {
        "reliability": {"read_retries": 3},
        "buffer": {"hits": 10},
        "power_loss": {"lost_bytes": 0},
        "future_model": {"x": 1},
    }
    flagged = {**base, **blocks}
    flagged["workload"] = {**base["workload"], "warnings": ["line 3: <odd> size"], "skipped_lines": 2}
    flagged["flash"] = {**base["flash"], "mapping_reads": 5}
    flagged["config"] = json.loads(json.dumps(base["config"]))
    flagged["config"]["flash"]["suspend"]["program"] = True
    page = ssdtwin.html.run_page(flagged, interactive=False)
    ids = section_ids(page)
    for name in ("reliability", "buffer", "power-loss", "mapping-cache", "suspend", "other"):
        assert name in ids, name
    assert "line 3: &lt;odd&gt; size" in page
    assert "skipped 2 malformed trace lines" in page
    assert "future_model" in page


def test_plotly_js_is_inlined_as_one_eagerly_compiled_function():
    """The packaged bundle loses its UMD wrapper and its library function becomes a parenthesized
    function expression (compiled once, not pre-parsed and parsed again); the same global is set.
    A bundle of another shape is left alone. (The browser tests check that plotly.js then works.)"""
    from plotly.offline import get_plotlyjs

    from ssdtwin.report.html import _page

    original = get_plotlyjs()
    text, version = _page.plotly_js()
    assert version != "?"
    assert text.startswith(original[: original.index("*/") + 2])  # the licence header kept
    assert "function(root, factory)" not in text
    assert text.count('"use strict";var Plotly=(function(){') == 1
    assert "}).call(this);" in text[-20_000:]
    assert text.endswith("\nwindow.Plotly = Plotly;\n")
    assert len(original) - len(text) < 1000  # only the wrappers went
    other = "/* another build */\n(function () { window.Plotly = {}; })();"
    assert _page.unwrap(other) == other
    broken_tail = original.replace("\nreturn Plotly;\n}));", "\nreturn Plotly;\n}))")
    assert _page.unwrap(broken_tail) == broken_tail


def test_model_sections_show_the_models_counters():
    """Without a browser: with reliability, a write buffer, the cached mapping table, PLP and a
    power cut on, each section holds its model's counters as the report has them; the scenario
    brief says which models are on, and says "off" for a 0 B buffer."""
    on = {**SMALL, "workload.io_count": 3000, **MODELS_ON}
    report = ssdtwin.run(None, **on)
    data = report.to_dict()
    page = ssdtwin.html.run_page(report, interactive=False)
    assert {"reliability", "buffer", "mapping-cache", "plp", "power-loss"} <= section_ids(page)

    def section(name: str) -> str:
        return page.split(f'<section id="section-{name}">', 1)[1].split("</section>", 1)[0]

    reliability = section("reliability")
    assert data["reliability"]["uncorrectable"] > 0
    assert f'data-value="{data["reliability"]["uncorrectable"]}"' in reliability
    assert f'data-value="{data["reliability"]["retries"]}"' in reliability
    assert f"{data['ftl']['pe_cycles']['max']:,}" in reliability
    assert reliability.count("<tr>") >= 10 + len(data["reliability"]["retries_histogram"])
    assert f"{data['reliability']['uncorrectable_lbas'][0]:,}" in reliability
    assert f'data-value="{data["buffer"]["capacity_units"]}"' in section("buffer")
    assert f'data-value="{data["mapping_cache"]["misses"]}"' in section("mapping-cache")
    assert f'data-value="{data["flash"]["mapping_programs"]}"' in section("mapping-cache")
    assert f'data-value="{data["plp"]["protected_pages"]}"' in section("plp")
    assert 'data-value="0.002"' in section("power-loss")
    assert "<dt>write buffer</dt><dd>4MiB</dd>" in page
    assert "<dt>mapping table</dt><dd>cached</dd>" in page
    plain = ssdtwin.html.run_page(ssdtwin.run(None, **SMALL), interactive=False)
    assert "<dt>write buffer</dt><dd>off</dd>" in plain
    assert "<dt>reliability model</dt><dd>off</dd>" in plain
    assert "<dt>power cuts at</dt><dd>none</dd>" in plain


def test_decimation_keeps_every_peak_and_bounds_the_points():
    rng = numpy.random.default_rng(3)
    x = numpy.arange(100_000, dtype=float)
    y = rng.standard_normal(100_000)
    y[12_345], y[67_890] = 50.0, -50.0  # one-sample spikes
    thin_x, thin_y = _figures.decimate(x, y)
    assert len(thin_x) <= _figures.MAX_POINTS
    assert thin_y.max() == 50.0
    assert thin_y.min() == -50.0
    assert numpy.all(numpy.diff(thin_x) > 0)  # still in time order
    assert numpy.array_equal(numpy.isin(thin_x, x), numpy.ones(len(thin_x), bool))
    short = numpy.arange(10.0)
    assert _figures.decimate(short, short)[0] is short


def test_many_throttle_spans_are_merged():
    spans = [_figures.Span(i, i + 0.4, "#d62728" if i % 2 else "#ff7f0e", "s") for i in range(5000)]
    merged = _figures.merge_spans(spans)
    assert len(merged) <= _figures.MAX_SPANS
    assert merged[0].x0 == 0
    assert merged[-1].x1 == pytest.approx(4999.4)


def test_per_die_columns_make_a_heatmap_panel():
    import pandas

    time_s = numpy.arange(0, 50, 0.01)
    frame = pandas.DataFrame({"time_s": time_s, "iops": numpy.ones_like(time_s)})
    for die in range(4):
        frame[f"die_util.{die}"] = (numpy.sin(time_s + die) + 1) / 2
    frame["channel_util.0"] = 0.5
    frame["gc.active_blocks"] = 3.0  # a column the page knows nothing of: a panel of its own
    figure = _timeseries.timeseries_figure(frame)
    labels = [panel.ylabel for panel in figure.panels]
    assert labels == ["IOPS", "die utilisation", "channel utilisation", "gc"]
    heatmap = figure.panels[1].traces[0]
    assert list(heatmap.rows) == ["die 0", "die 1", "die 2", "die 3"]
    assert len(heatmap.x) <= 1000
    assert numpy.asarray(heatmap.z).shape == (4, len(heatmap.x))
    plotly = _plotly.to_plotly(figure)
    assert [trace["type"] for trace in plotly["data"]] == ["scatter", "heatmap", "heatmap", "scatter"]
    assert png.png(figure)[:4] == b"\x89PNG"


def test_scenario_brief_gives_raw_and_user_capacity():
    from ssdtwin.report.html._scenario import scenario_brief

    # 16 x 8 x 2 planes x 1024 blocks x 256 pages of 16 KiB = 1 TiB; 70% of its 4 KiB units: 717 GiB.
    brief = dict(scenario_brief(ssdtwin.resolve({"drive": "enterprise_tlc"})))
    assert brief["flash"].endswith("TLC (1 TiB raw, 717 GiB user)")
