"""The shape of the code base: the Python package's import graph has no cycle and its parts are
layered (cli on calibrate on report on sweep on _util), matplotlib is imported only by `ssdtwin.report.plots`,
and no source file is over 500 lines.

The import graph is grimp's (the graph library of import-linter), built from the source in
python/, counting imports inside functions and under `TYPE_CHECKING` (`exclude_type_checking_imports
=False`): an import that runs only later still makes a circle of modules that cannot be read, or
split, one at a time."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections.abc import Mapping
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "ssdtwin"
LAYERS = ("cli", "calibrate", "report", "sweep", "_util")
"""The parts of the package, top to bottom: each imports only those below it."""
MAX_LINES = 500
SOURCES = [
    ("python", "*.py"),
    ("tests", "*.py"),
    ("studies", "*.py"),
    ("crates/ssdtwin_fuzz/python", "*.py"),
    ("scripts", "*.py"),
    ("crates", "*.rs"),
]
"""Where the line limit applies: (folder, file pattern), searched recursively."""

GRAPH_SCRIPT = textwrap.dedent(
    r"""
    import json, re, sys
    import grimp

    root, package, layers = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
    sys.path.insert(0, root)
    graph = grimp.build_graph(
        package, include_external_packages=True, exclude_type_checking_imports=False, cache_dir=None
    )
    # grimp sees .py files only: the native extension `_core` resolves to the package itself.
    # Such imports are redirected to a module `_core` of their own, a leaf.
    native = re.compile(
        rf"from {package} import _core\b.*|from {package}\._core import .*|import {package}\._core.*"
    )
    graph.add_module(f"{package}._core")
    for module in graph.find_modules_that_directly_import(package):
        details = graph.get_import_details(importer=module, imported=package)
        if all(native.fullmatch(detail["line_contents"].strip()) for detail in details):
            graph.remove_import(importer=module, imported=package)
            graph.add_import(importer=module, imported=f"{package}._core")
    edges = {
        module: sorted(graph.find_modules_directly_imported_by(module))
        for module in graph.find_descendants(package) | {package}
    }
    illegal = []
    if layers != [""]:
        for dependency in graph.find_illegal_dependencies_for_layers(layers=layers, containers={package}):
            for route in dependency.routes:
                for head in route.heads:
                    for tail in route.tails:
                        illegal.append(" -> ".join([head, *route.middle, tail]))
    print(json.dumps({"edges": edges, "illegal": sorted(set(illegal))}))
    """
)


def import_graph(root: Path, package: str, layers: tuple[str, ...] = ()) -> dict[str, object]:
    """`{"edges": module -> [modules it imports], "illegal": ["a -> b" for each import against
    `layers`]}` of `package` under `root`, built by grimp in a fresh interpreter (so that the source
    under `root` is read, not an installed copy)."""
    process = subprocess.run(
        [sys.executable, "-c", GRAPH_SCRIPT, str(root), package, ",".join(layers)],
        capture_output=True,
        text=True,
        check=False,
        cwd=root,
    )
    assert process.returncode == 0, process.stderr
    return json.loads(process.stdout)


def cycles(edges: Mapping[str, list[str]]) -> list[list[str]]:
    """One shortest cycle through each strongly connected group of modules (Tarjan), as the list
    of modules from the group's first (by name) back to itself."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in edges.get(node, []):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1 or node in edges.get(node, []):
                groups.append(sorted(group))

    sys.setrecursionlimit(max(10_000, sys.getrecursionlimit()))
    for node in sorted(edges):
        if node not in index:
            visit(node)
    found = []
    for group in groups:
        members = set(group)
        start = group[0]
        # Breadth first from `start` inside the group, back to `start`: a shortest cycle.
        parents: dict[str, str] = {}
        queue = [start]
        while queue and start not in parents:
            node = queue.pop(0)
            for target in edges.get(node, []):
                if target in members and target not in parents:
                    parents[target] = node
                    queue.append(target)
        path = [start]
        node = parents[start]
        while node != start:
            path.append(node)
            node = parents[node]
        found.append([start, *reversed(path[1:]), start])
    return sorted(found)


def describe(found: list[list[str]]) -> str:
    return "; ".join(" -> ".join(cycle) for cycle in found)


def test_the_package_has_no_import_cycle() -> None:
    graph = import_graph(ROOT / "python", PACKAGE)
    found = cycles(graph["edges"])
    assert not found, f"import cycles: {describe(found)}"


def test_the_package_is_layered_cli_calibrate_report_sweep_util() -> None:
    graph = import_graph(ROOT / "python", PACKAGE, LAYERS)
    assert graph["illegal"] == [], f"imports against the layers {' > '.join(LAYERS)}: {graph['illegal']}"
    edges = graph["edges"]
    for layer in LAYERS:  # each layer is there, so the contract is not checking empty names
        assert any(module.startswith(f"{PACKAGE}.{layer}") for module in edges), layer


def test_only_the_plots_import_matplotlib() -> None:
    edges = import_graph(ROOT / "python", PACKAGE)["edges"]
    importers = sorted(module for module, targets in edges.items() if "matplotlib" in targets)
    assert importers, "no module imports matplotlib: the check would see nothing"
    assert all(module.startswith(f"{PACKAGE}.report.plots.") for module in importers), importers


def _write_package(root: Path, files: Mapping[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")


def test_a_planted_cycle_is_found_and_named(tmp_path: Path) -> None:
    """The check itself fails on a cycle: one made of an import inside a function and one under
    TYPE_CHECKING, as the old `report` <-> `html` and `sweep` <-> `_sweep_drives` were."""
    _write_package(
        tmp_path,
        {
            "planted/__init__.py": "",
            "planted/report.py": "def to_html():\n    from planted import html\n    return html\n",
            "planted/html.py": "from planted.report import to_html\n",
            "planted/sweep.py": "from planted import drives\n",
            "planted/drives.py": """\
                from typing import TYPE_CHECKING
                if TYPE_CHECKING:
                    from planted.sweep import drives
            """,
            "planted/leaf.py": "import json\n",
        },
    )
    found = cycles(import_graph(tmp_path, "planted")["edges"])
    assert describe(found) == (
        "planted.drives -> planted.sweep -> planted.drives; planted.html -> planted.report -> planted.html"
    )


def test_a_planted_upward_import_breaks_the_layers(tmp_path: Path) -> None:
    _write_package(
        tmp_path,
        {
            "layered/__init__.py": "",
            "layered/cli/__init__.py": "from layered.report import page\n",
            "layered/report/__init__.py": "",
            "layered/report/page.py": "from layered.sweep import store\n",
            "layered/sweep/__init__.py": "",
            "layered/sweep/store.py": "def read():\n    from layered.cli import main\n",
            "layered/_util/__init__.py": "",
        },
    )
    graph = import_graph(tmp_path, "layered", LAYERS)
    assert graph["illegal"] == ["layered.sweep.store -> layered.cli"]
    assert not import_graph(tmp_path, "layered")["illegal"]


def oversized(limit: int = MAX_LINES) -> list[str]:
    """Source files (python/, tests/, studies/, the fuzz harness's Python, scripts/, and every .rs
    under crates/) longer than `limit` lines, with their length."""
    found = []
    for folder, pattern in SOURCES:
        for path in sorted((ROOT / folder).rglob(pattern)):
            if any(part in {"target", ".venv", "__pycache__"} for part in path.parts):
                continue
            lines = len(path.read_text(encoding="utf-8", errors="replace").splitlines())
            if lines > limit:
                found.append(f"{path.relative_to(ROOT)} ({lines} lines)")
    return found


def test_no_source_file_is_over_500_lines() -> None:
    found = oversized()
    assert not found, f"over {MAX_LINES} lines: {', '.join(found)}"


def test_the_line_limit_sees_every_kind_of_source() -> None:
    """The limit is checked where the files are: a limit of 20 lines finds files of each kind."""
    small = oversized(20)
    for folder, pattern in SOURCES:
        if any((ROOT / folder).rglob(pattern)):
            assert any(entry.startswith(f"{folder}/") for entry in small), folder


@pytest.mark.parametrize("package", ["grimp"])
def test_the_graph_tool_is_installed(package: str) -> None:
    __import__(package)  # in pyproject's `test` extra: a missing tool is a failure, never a skip
