"""What the plots share: the output formats, a figure on matplotlib's Agg canvas, saving it."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

from ssdtwin._util import atomic

if TYPE_CHECKING:
    import pandas
    from matplotlib.figure import Figure

PathLike: TypeAlias = str | os.PathLike[str]
FORMATS = (".png", ".svg", ".pdf")


def new_figure(columns: int, rows: int = 1) -> Figure:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(4.8 * columns + 1.2, 3.2 * rows + 0.8), layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def finish(figure: Figure, output: PathLike | None) -> Figure:
    if output is not None:
        path = Path(output)
        if path.suffix.lower() not in FORMATS:
            raise ValueError(f"output {str(path)!r}: the suffix must be one of {', '.join(FORMATS)}")
        with atomic.replacing(path) as temporary:
            figure.savefig(temporary, dpi=120, format=path.suffix.lower().lstrip("."))
    return figure


def distinct_values(column: pandas.Series) -> list[Any]:
    """The distinct values of a column: sorted if numeric, else in order of appearance."""
    values = list(dict.fromkeys(column.dropna()))
    if is_numeric(column):
        values.sort()
    return values


def is_numeric(column: pandas.Series) -> bool:
    import pandas

    return bool(pandas.api.types.is_numeric_dtype(column) and not pandas.api.types.is_bool_dtype(column))
