"""What a plot plots: the golden replay's probe into matplotlib, and the PNG facts it needs.

Run as a script, it is `python -m harness.cli ARGS...` with one addition: every `Figure.savefig`
(the only way the harness writes a plot: `harness/reports/plots.py`) also writes a description of
the figure it saved, `describe(fig)`, to `$GOLDEN_PLOT_PROBE/<sha256 of the PNG bytes>.json`.
`tests/support/golden.py` replays the suites through this script and stores that description in
place of the PNG, so the golden copy of a plot says what it plots and is compared by value.

Why a description and not the pixels: the same figure drawn by another matplotlib (or another
FreeType) has other glyph shapes, hence other tick label widths, hence (`tight_layout`) axes a few
pixels elsewhere: measured on the shipped suites' plots, changing only the font hinting moves
hundreds to thousands of pixels by more than a radius-2, 35%-colour tolerance, RMS 20-35 of 255,
more than a changed bar does. No pixel tolerance separates "drawn by another version" from "draws
something else"; the artists' data can. The description holds what the harness hands to matplotlib,
in data coordinates: the figure's size in inches and the dpi it was saved at, each axes' title, axis labels, limits, explicitly set tick labels, legend
entries, bars (x, y, width, height, colour, per container with its label), lines (points, and the
colour and style of the line or of the markers, whichever is drawn), scatters (points, sizes, colours), line segments (error bars), polygons
(`fill_between`), and texts with their positions; numbers to 6 significant digits. Not in it: fonts,
pixel positions, spines, grid styling, antialiasing - how it is drawn rather than what.

Only the observation is added: the harness runs unchanged in the same process (the PNG bytes are
the same with and without the probe: when the golden files moved to descriptions, the probed
replay's PNG digests equalled the ones the unprobed replay had captured).

Checked across versions: the shipped suites replayed under matplotlib 3.9.4 mean the same as the
capture made with 3.11.2, plots included. What differed before the description allowed for it: the
colour of the undrawn line under error-bar caps, `fill_between`'s repeated vertices and a figure's
pixel height (459 against 460); hence lines are described by what is drawn, polygons by their
corners, and the size by inches and dpi.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import runpy
import struct
import sys
from pathlib import Path
from typing import Any

PROBE_ENV = "GOLDEN_PLOT_PROBE"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from a PNG's IHDR chunk, or None when `data` is no PNG."""
    if len(data) < 24 or not data.startswith(PNG_SIGNATURE) or data[12:16] != b"IHDR":
        return None
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def _num(value: Any) -> Any:
    """A number (or nested sequence of them) as JSON: 6 significant digits, None for NaN, masked or inf."""
    if hasattr(value, "tolist") and not isinstance(value, (int, float)):  # a numpy array or scalar
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        return [_num(item) for item in value]
    if value is None or isinstance(value, bool):
        return value
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    if not math.isfinite(number):
        return None
    rounded = float(f"{number:.6g}")
    return int(rounded) if rounded.is_integer() and abs(rounded) < 1e15 else rounded


def _colour(value: Any) -> str:
    from matplotlib.colors import to_hex

    return to_hex(value, keep_alpha=True)


def _colours(values: Any) -> list[str]:
    """Distinct colours in first-seen order (a scatter's per-point colours are mostly one)."""
    seen: list[str] = []
    for value in values:
        hexed = _colour(value)
        if hexed not in seen:
            seen.append(hexed)
    return seen


def _label(artist: Any) -> str:
    label = str(artist.get_label() or "")
    return "" if label.startswith("_") else label  # matplotlib's "_child3", "_nolegend_": no label


def _legend(legend: Any) -> list[str]:
    return [text.get_text() for text in legend.get_texts()] if legend is not None else []


def _ticks(axis: Any) -> list[list[Any]] | None:
    """Tick positions and labels where the harness set them (a FixedLocator); automatic ticks
    follow from the limits, and their choice is matplotlib's, not the harness's."""
    from matplotlib.ticker import FixedLocator

    if not isinstance(axis.get_major_locator(), FixedLocator):
        return None
    labels = [text.get_text() for text in axis.get_majorticklabels()]
    return [[_num(loc), label] for loc, label in zip(axis.get_majorticklocs(), labels)]


def _bars(ax: Any) -> list[dict[str, Any]]:
    """Bars per container (one `ax.bar`/`ax.barh` call: its label and colour), then any other rectangle."""
    from matplotlib.container import BarContainer
    from matplotlib.patches import Rectangle

    grouped: list[dict[str, Any]] = []
    seen: set[int] = set()

    def rect(patch: Any) -> dict[str, Any]:
        return {"x": _num(patch.get_x()), "y": _num(patch.get_y()),
                "width": _num(patch.get_width()), "height": _num(patch.get_height())}

    for container in ax.containers:
        if isinstance(container, BarContainer):
            patches = list(container.patches)
            seen.update(id(patch) for patch in patches)
            grouped.append({"label": _label(container), "colours": _colours(p.get_facecolor() for p in patches),
                            "rects": [rect(patch) for patch in patches]})
    others = [patch for patch in ax.patches if id(patch) not in seen]
    if others:
        grouped.append({"label": "", "colours": _colours(p.get_facecolor() for p in others),
                        "rects": [rect(p) if isinstance(p, Rectangle) else {"kind": type(p).__name__,
                                                                             "vertices": _num(p.get_path().vertices)}
                                  for p in others]})
    return grouped


def _polygon(path: Any) -> list[Any]:
    """A polygon's corners: without the closing vertex, repeated points or the repeated start,
    which matplotlib versions spell differently (`fill_between` builds its paths anew in 3.10)."""
    from matplotlib.path import Path as MplPath

    codes = path.codes if path.codes is not None else [MplPath.LINETO] * len(path.vertices)
    corners: list[Any] = []
    for vertex, code in zip(_num(path.vertices), codes):
        if code != MplPath.CLOSEPOLY and (not corners or vertex != corners[-1]):
            corners.append(vertex)
    while len(corners) > 1 and corners[-1] == corners[0]:
        corners.pop()
    return corners


def _collection(collection: Any) -> dict[str, Any]:
    from matplotlib.collections import LineCollection, PathCollection, PolyCollection

    entry: dict[str, Any] = {"label": _label(collection)}
    if isinstance(collection, PathCollection):  # a scatter: the marker shape is constant, the points are the data
        entry.update(kind="scatter", points=_num(collection.get_offsets()), sizes=_num(collection.get_sizes()),
                     colours=_colours(collection.get_facecolor()))
    elif isinstance(collection, LineCollection):  # error bars' whiskers, among others
        entry.update(kind="segments", segments=_num([segment for segment in collection.get_segments()]),
                     colours=_colours(collection.get_edgecolor()))
    elif isinstance(collection, PolyCollection):  # fill_between (a subclass of it since matplotlib 3.10)
        entry.update(kind="polygons", polygons=[_polygon(path) for path in collection.get_paths()],
                     colours=_colours(collection.get_facecolor()))
    else:
        entry.update(kind=type(collection).__name__, points=_num(collection.get_offsets()))
    return entry


_NOTHING = ("None", "none", "", " ")


def _line(line: Any) -> dict[str, Any] | None:
    """A line's points and what draws them: the line's colour and style if it has a line, the
    marker and its colours if it has markers (an error bar's caps are markers on no line; the
    colour of that line is drawn nowhere, and matplotlib versions set it differently); None for
    a line that draws nothing."""
    import numpy as np
    from matplotlib.markers import MarkerStyle

    linestyle, marker = str(line.get_linestyle()), str(line.get_marker())
    if not line.get_visible() or (linestyle in _NOTHING and marker in _NOTHING):
        return None
    xs = np.asarray(line.get_xdata(), dtype=float)
    ys = np.asarray(line.get_ydata(), dtype=float)
    entry: dict[str, Any] = {"label": _label(line), "points": _num(np.column_stack([xs, ys])) if len(xs) else []}
    if linestyle not in _NOTHING:
        entry.update(colour=_colour(line.get_color()), linestyle=linestyle)
    if marker not in _NOTHING:
        entry.update(marker=marker, marker_edge=_colour(line.get_markeredgecolor()))
        if MarkerStyle(line.get_marker()).is_filled():
            entry["marker_face"] = _colour(line.get_markerfacecolor())
    return entry


def _text(text: Any) -> dict[str, Any]:
    at = getattr(text, "xy", None)  # an annotation: the point it annotates
    return {"text": text.get_text(), "at": _num(at if at is not None else text.get_position())}


def _axes(ax: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {"title": ax.get_title(), "xlabel": ax.get_xlabel(), "ylabel": ax.get_ylabel()}
    if not ax.axison:
        entry["axis"] = "off"
    else:
        entry.update(xlim=_num(ax.get_xlim()), ylim=_num(ax.get_ylim()))
        for name, axis in (("xticks", ax.xaxis), ("yticks", ax.yaxis)):
            ticks = _ticks(axis)
            if ticks is not None:
                entry[name] = ticks
    entry["legend"] = _legend(ax.get_legend())
    entry["bars"] = _bars(ax)
    entry["lines"] = [drawn for line in ax.lines if (drawn := _line(line)) is not None]
    entry["collections"] = [_collection(collection) for collection in ax.collections]
    entry["texts"] = [_text(text) for text in ax.texts if text.get_text()]
    return {key: value for key, value in entry.items() if value not in ([], "")}


def describe(fig: Any) -> dict[str, Any]:
    """What `fig` plots, as JSON: its suptitle and figure texts, figure legends, and each axes."""
    described: dict[str, Any] = {
        "inches": _num(fig.get_size_inches()),  # with the dpi, the intended pixel size (versions round it differently)
        "texts": [text.get_text() for text in fig.texts if text.get_text()],
        "legends": [_legend(legend) for legend in fig.legends],
        "axes": [_axes(ax) for ax in fig.axes],
    }
    return {key: value for key, value in described.items() if value != []}


def install(folder: Path) -> None:
    """Make every `Figure.savefig` also write `describe(fig)` to `folder/<sha256 of the PNG>.json`."""
    from matplotlib.figure import Figure

    original = Figure.savefig

    def savefig(self: Any, fname: Any, *args: Any, **kwargs: Any) -> Any:
        result = original(self, fname, *args, **kwargs)
        if hasattr(fname, "getvalue"):
            data = fname.getvalue()
        elif isinstance(fname, (str, os.PathLike)) and Path(fname).is_file():
            data = Path(fname).read_bytes()
        else:
            return result
        if isinstance(data, bytes) and png_size(data) is not None:
            folder.mkdir(parents=True, exist_ok=True)
            dpi = kwargs.get("dpi", self.dpi)
            described = {"dpi": _num(dpi if isinstance(dpi, (int, float)) else self.dpi), **describe(self)}
            path = folder / f"{hashlib.sha256(data).hexdigest()}.json"
            path.write_text(json.dumps(described, ensure_ascii=False), encoding="utf-8")
        return result

    Figure.savefig = savefig  # type: ignore[method-assign]


def main() -> None:
    """`python tests/support/plot_probe.py ARGS...`: the harness CLI, observed (see the module docstring)."""
    folder = os.environ.get(PROBE_ENV)
    if folder:
        install(Path(folder))
    sys.path[0] = os.getcwd()  # as `python -m` has it: the working folder, not tests/support/
    sys.argv = ["harness", *sys.argv[1:]]
    runpy.run_module("harness.cli", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
