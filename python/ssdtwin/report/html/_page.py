"""The frame of every page: one self-contained HTML document with its styles, its scripts and its
images inlined, and a Content-Security-Policy that forbids every network request, so the page
opens from disk, offline, in any browser and can never reach out."""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from html import escape
from typing import Any

from ssdtwin.report.figure import Figure
from ssdtwin.report.html._plotly import to_plotly
from ssdtwin.report.plots import png as _static

CSP = (
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
    "img-src data: blob:; font-src data:; connect-src 'none'"
)
"""Inline scripts, styles and `data:` images only: the page can load nothing from anywhere."""

STYLE = """
:root { --fg: #1b1f24; --muted: #5b6470; --line: #d8dde3; --band: #f5f7f9; --accent: #1f5fa8;
  --warn-bg: #fff6e0; --warn-line: #e0a800; --bad: #b42318; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--fg); background: #fff; line-height: 1.45;
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
header.page { padding: 18px 28px 10px; border-bottom: 1px solid var(--line); background: var(--band); }
header.page h1 { margin: 0 0 4px; font-size: 22px; }
header.page .subtitle { color: var(--muted); }
nav.sections { position: sticky; top: 0; z-index: 10; background: rgba(255,255,255,0.96);
  border-bottom: 1px solid var(--line); padding: 6px 28px; font-size: 13px; }
nav.sections a { margin-right: 14px; color: var(--accent); text-decoration: none; white-space: nowrap; }
nav.sections a:hover { text-decoration: underline; }
main { padding: 6px 28px 40px; max-width: 1500px; }
section { margin-top: 22px; }
section > h2 { font-size: 18px; margin: 0 0 8px; padding-bottom: 3px; border-bottom: 1px solid var(--line); }
h3 { font-size: 15px; margin: 14px 0 6px; }
p.note, .note { color: var(--muted); font-size: 13px; }
table { border-collapse: collapse; margin: 6px 0 10px; font-variant-numeric: tabular-nums; }
th, td { padding: 3px 10px; border-bottom: 1px solid var(--line); text-align: right; vertical-align: top; }
th { background: var(--band); font-weight: 600; }
th:first-child, td:first-child, td.text, th.text { text-align: left; }
tbody tr:nth-child(even) td { background: #fafbfc; }
table.kv td:first-child { color: var(--muted); padding-right: 22px; }
.tables { display: flex; flex-wrap: wrap; gap: 10px 36px; align-items: flex-start; }
.scroll { overflow-x: auto; max-width: 100%; }
table.sortable th { cursor: pointer; user-select: none; }
table.sortable th[aria-sort="ascending"]::after { content: " \\25B2"; font-size: 10px; }
table.sortable th[aria-sort="descending"]::after { content: " \\25BC"; font-size: 10px; }
td.status-ok { color: #1a7f37; } td.status-failed { color: var(--bad); font-weight: 600; }
td.status-pending { color: var(--muted); }
figure.plot { margin: 8px 0 16px; border: 1px solid var(--line); border-radius: 4px; padding: 4px; }
figure.plot img { max-width: 100%; height: auto; display: block; }
.plotly-target { width: 100%; }
details { margin: 6px 0; }
details > summary { cursor: pointer; color: var(--accent); }
pre { background: var(--band); border: 1px solid var(--line); padding: 8px 10px; overflow: auto;
  max-height: 560px; font-size: 12px; line-height: 1.35; }
dl.brief { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 6px 0; }
dl.brief dt { color: var(--muted); } dl.brief dd { margin: 0; }
.warnings { background: var(--warn-bg); border: 1px solid var(--warn-line); border-radius: 4px;
  padding: 8px 12px; margin: 12px 0; }
.warnings ul { margin: 4px 0 0 18px; padding: 0; }
.meter { display: inline-block; width: 160px; height: 10px; background: var(--band);
  border: 1px solid var(--line); vertical-align: middle; margin-left: 8px; }
.meter > span { display: block; height: 100%; background: var(--accent); }
footer { color: var(--muted); font-size: 12px; padding: 12px 28px 24px; border-top: 1px solid var(--line); }
a { color: var(--accent); }
table.results td:first-child { white-space: nowrap; }
"""

SCRIPT = """
(function () {
  "use strict";
  var ready = 0;
  var timings = window.ssdtwinTimings = window.ssdtwinTimings || {};
  timings.libraryEnd = performance.now();
  timings.figures = {};
  timings.starts = {};
  function done() {
    window.ssdtwinReadyMs = timings.ready = performance.now();
    document.body.setAttribute("data-plots-ready", String(ready));
  }
  function sortTable(table, column, th) {
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var ascending = th.getAttribute("aria-sort") !== "ascending";
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (cell) {
      cell.removeAttribute("aria-sort");
    });
    th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
    function key(row) {
      var cell = row.cells[column];
      var value = cell.getAttribute("data-value");
      if (value === null) { value = cell.textContent.trim(); }
      var number = parseFloat(value);
      return { n: (value !== "" && !isNaN(number) && isFinite(value)) ? number : null, s: value };
    }
    rows.sort(function (a, b) {
      var x = key(a), y = key(b), order;
      if (x.n !== null && y.n !== null) { order = x.n - y.n; }
      else if (x.n !== null) { order = -1; } else if (y.n !== null) { order = 1; }
      else { order = x.s.localeCompare(y.s); }
      return ascending ? order : -order;
    });
    rows.forEach(function (row) { body.appendChild(row); });
  }
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, column) {
      th.title = "sort";
      th.addEventListener("click", function () { sortTable(table, column, th); });
    });
  });
  var source = document.getElementById("ssdtwin-figures");
  if (!source || typeof Plotly === "undefined") { shown([]); done(); return; }
  var figures = JSON.parse(source.textContent);
  var config = { responsive: true, displaylogo: false, modeBarButtonsToRemove: ["select2d", "lasso2d"],
                 toImageButtonOptions: { format: "png", scale: 2 } };
  function draw(target) {
    var name = target.getAttribute("data-figure");
    var figure = figures[name];
    if (!figure) { return Promise.resolve(); }
    var options = Object.assign({}, config, { toImageButtonOptions: { format: "png", scale: 2,
                                  filename: name } });
    var started = timings.starts[name] = performance.now();
    return Plotly.newPlot(target, figure.data, figure.layout, options).then(function (gd) {
      timings.figures[name] = performance.now() - started;
      ready += 1;
      gd.on("plotly_click", function (event) {
        var point = event.points && event.points[0];
        if (point && typeof point.customdata === "string" && point.customdata) {
          window.location.href = point.customdata;
        }
      });
    });
  }
  function shown(names) {
    timings.visible = performance.now();
    timings.visibleFigures = names;
    document.body.setAttribute("data-plots-visible", String(names.length));
  }
  function failed(error) { done(); throw error; }
  // The figures in the first screenful are drawn now, before the load event; the others one
  // per task after it, top to bottom, so the page shows (and scrolls) without waiting for them.
  var height = window.innerHeight || document.documentElement.clientHeight;
  var now = [], later = [];
  Array.prototype.forEach.call(document.querySelectorAll(".plotly-target"), function (target) {
    var box = target.getBoundingClientRect();
    (box.bottom > 0 && box.top < height ? now : later).push(target);
  });
  var pending = now.map(draw);
  Promise.all(pending).then(function () {
    shown(now.map(function (target) { return target.getAttribute("data-figure"); }));
  }, failed);
  function rest() {
    var target = later.shift();
    if (!target) { Promise.all(pending).then(done, failed); return; }
    pending.push(draw(target));
    setTimeout(rest, 0);
  }
  if (document.readyState === "complete") { setTimeout(rest, 0); }
  else { window.addEventListener("load", function () { setTimeout(rest, 0); }); }
})();
"""


TIMING_START = "window.ssdtwinTimings = {libraryStart: performance.now()};"
"""Before plotly.js: with `SCRIPT`'s marks, `window.ssdtwinTimings` tells where a load's time went
(library start and end, when each figure's drawing started and how long it took, the first
screenful's figures drawn, every figure drawn; milliseconds since the navigation)."""

UMD_HEAD = '(\n function(root, factory) {\n  if (typeof module === "object" && module.exports) {\n'
UMD_BODY = '() => {\n"use strict";var Plotly=('
UMD_TAIL = "\nwindow.Plotly = Plotly;\nreturn Plotly;\n}));"
IIFE_HEAD = '"use strict";var Plotly=(()=>{'
IIFE_END = "})();"


@functools.cache
def plotly_js() -> tuple[str, str]:
    """plotly.js (minified, from the `plotly` package) and its version, as a script that V8 parses
    once (`unwrap`)."""
    from plotly.offline import get_plotlyjs

    text = get_plotlyjs()
    version = text[:200].split("plotly.js v", 1)[-1].split()[0] if "plotly.js v" in text[:200] else "?"
    return unwrap(text), version


def unwrap(text: str) -> str:
    """plotly.js as a script whose 4.8 MB are parsed once instead of three times.

    The `plotly` package's bundle is `(function (root, factory) {...}(this, () => {"use strict";
    var Plotly=(()=>{LIBRARY})(); window.Plotly = Plotly; return Plotly;}))`. V8 compiles a function
    lazily unless it looks immediately called (wrapped in parentheses): it pre-parses the arrow
    function `factory` with the script, parses it again in full when the wrapper calls it, and the
    same again for the arrow function around LIBRARY. Here the wrapper is dropped, and LIBRARY's
    arrow function becomes `(function(){LIBRARY}).call(this)`, which V8 compiles at once: the same
    global `Plotly`, `this` the same global object as the arrow function's. Measured in headless
    Chromium, the page's main thread spends about 40% less time on the library (1.0 s instead of
    1.7 s, docs/html_report.md). A bundle of any other shape is returned as it is."""
    start = text.find(UMD_HEAD)
    body = text.find(UMD_BODY)
    if start < 0 or body < start or not text.endswith(UMD_TAIL) or text.count(UMD_BODY) != 1:
        return text
    comment = text[:start]  # the licence header
    inner = text[body + len("() => {\n") : len(text) - len(UMD_TAIL)]
    end = inner.rfind(IIFE_END)
    tail = re.sub(r"/\*.*?\*/", "", inner[end + len(IIFE_END) :], flags=re.S)
    if inner.startswith(IIFE_HEAD) and inner.count(IIFE_HEAD) == 1 and end > 0 and not tail.strip():
        library = inner[len(IIFE_HEAD) : end]
        inner = f'"use strict";var Plotly=(function(){{{library}}}).call(this);{inner[end + len(IIFE_END) :]}'
    return f"{comment}{inner}\nwindow.Plotly = Plotly;\n"


@dataclass
class Page:
    """A page being built: its sections (in order) and its figures."""

    title: str
    interactive: bool = True
    """Plotly figures (a 4.8 MB script, once per page); False: PNG images and no script."""
    static_fallback: bool = True
    """With `interactive`, also a PNG of each figure inside `<noscript>`."""
    sections: list[tuple[str, str, str]] = field(default_factory=list)
    figures: dict[str, dict[str, Any]] = field(default_factory=dict)

    def add(self, section_id: str, heading: str, body: str) -> None:
        """A section with `id="section-<section_id>"`, listed in the page's navigation."""
        self.sections.append((section_id, heading, body))

    def figure(self, figure: Figure) -> str:
        """The HTML of a figure (empty for a figure with nothing to draw)."""
        if figure.is_empty():
            return ""
        alt = escape(figure.title, quote=True)
        if not self.interactive:
            return (
                f'<figure class="plot" id="figure-{figure.id}"><img alt="{alt}" '
                f'src="{_static.data_uri(figure)}"></figure>'
            )
        self.figures[figure.id] = to_plotly(figure)
        fallback = ""
        if self.static_fallback:
            fallback = f'<noscript><img alt="{alt}" src="{_static.data_uri(figure)}"></noscript>'
        return (
            f'<figure class="plot" id="figure-{figure.id}"><div class="plotly-target" '
            f'data-figure="{figure.id}" style="height:{figure.height}px"></div>{fallback}</figure>'
        )

    def render(self, subtitle: str = "", banner: str = "", version: str = "") -> str:
        """The whole document."""
        nav = "".join(
            f'<a href="#section-{escape(section_id)}">{escape(heading)}</a>'
            for section_id, heading, _ in self.sections
        )
        body = "\n".join(
            f'<section id="section-{escape(section_id)}"><h2>{escape(heading)}</h2>\n{content}\n</section>'
            for section_id, heading, content in self.sections
        )
        scripts = ""
        credit = "plots: matplotlib (static images)"
        if self.interactive and self.figures:
            library, library_version = plotly_js()
            figures_json = _json(self.figures)
            scripts = (
                f'<script type="application/json" id="ssdtwin-figures">{figures_json}</script>\n'
                f"<script>{TIMING_START}</script>\n<script>{_script_text(library)}</script>\n"
                f"<script>{SCRIPT}</script>"
            )
            credit = f"interactive plots: plotly.js {escape(library_version)}, embedded"
        elif self.interactive:
            scripts = f"<script>{SCRIPT}</script>"
        generator = f"ssdtwin {version}".strip()
        return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="{CSP}">
<meta name="generator" content="{escape(generator, quote=True)}">
<title>{escape(self.title)}</title>
<style>{STYLE}</style>
</head>
<body>
<header class="page"><h1>{escape(self.title)}</h1><div class="subtitle">{subtitle}</div></header>
<nav class="sections">{nav}</nav>
<main>
{banner}
{body}
</main>
<footer>Written by {escape(generator)} &middot; {credit} &middot;
a self-contained page: no network access.</footer>
{scripts}
</body>
</html>
"""


def _json(value: Any) -> str:
    """JSON for a `<script type="application/json">`: no `</` (which would end the element)."""
    text = json.dumps(value, separators=(",", ":"), allow_nan=False)
    return text.replace("</", "<\\/").replace("<!--", "<\\!--")


def _script_text(text: str) -> str:
    """A script's text, safe inside `<script>...</script>`."""
    return text.replace("</script", "<\\/script")


# --------------------------------------------------------------------------------- formatting


def fmt(value: Any, spec: str = "") -> str:
    """`value` as table text: "-" when missing, numbers by `spec` (default: integers with
    thousands separators, floats to 4 significant digits)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if spec:
        try:
            return spec.format(value)
        except (TypeError, ValueError):
            return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if value == 0:
            return "0"
        magnitude = abs(value)
        if magnitude >= 1e6 or magnitude < 1e-3:
            return f"{value:.4g}"
        if magnitude >= 1000:
            return f"{value:,.0f}"
        return f"{value:.4g}"
    return str(value)


def cell(value: Any, spec: str = "", *, css: str = "") -> str:
    """A `<td>`: text formatted by `fmt`, the raw number in `data-value` for sorting."""
    attributes = f' class="{css}"' if css else ""
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if number and not (isinstance(value, float) and math.isnan(value)):
        attributes += f' data-value="{value!r}"'
    return f"<td{attributes}>{escape(fmt(value, spec))}</td>"


def table(
    header: Sequence[str] | None,
    rows: Iterable[Sequence[str]],
    *,
    css: str = "",
    caption: str = "",
) -> str:
    """A table of ready-made cells (`cell(...)` or raw `<td>` text)."""
    classes = f' class="{css}"' if css else ""
    head = ""
    if header is not None:
        head = "<thead><tr>" + "".join(f"<th>{escape(name)}</th>" for name in header) + "</tr></thead>"
    body = "".join("<tr>" + "".join(row) + "</tr>" for row in rows)
    title = f"<caption>{escape(caption)}</caption>" if caption else ""
    return f"<table{classes}>{title}{head}<tbody>{body}</tbody></table>"


def key_values(pairs: Iterable[tuple[str, Any]], spec: Mapping[str, str] | None = None) -> str:
    """A two-column table of label and value."""
    spec = spec or {}
    rows = [[f"<td>{escape(label)}</td>", cell(value, spec.get(label, ""))] for label, value in pairs]
    return table(None, rows, css="kv")


def flatten(data: Mapping[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    """Every leaf of a nested block as (dotted key, value); lists shown as short text."""
    pairs: list[tuple[str, Any]] = []
    for name, value in data.items():
        key = f"{prefix}{name}"
        if isinstance(value, Mapping):
            pairs.extend(flatten(value, f"{key}."))
        elif isinstance(value, list):
            text = json.dumps(value)
            pairs.append((key, text if len(text) <= 120 else f"{text[:117]}..."))
        else:
            pairs.append((key, value))
    return pairs


def generic_block(data: Mapping[str, Any]) -> str:
    """A block of the report whose fields this page does not know: every leaf by its key."""
    return key_values(flatten(data))


def subtable(data: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    """The table `name` of `data` (a report or scenario dict), or {} when it has none."""
    value = data.get(name) if isinstance(data, Mapping) else None
    return value if isinstance(value, Mapping) else {}
