"""--plot FILE: the weight grid as a heatmap image, tokens on both axes, values in the cells.

matplotlib is optional (the extra attncli[plot]); it is imported only here.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

    from attncli.present.format import Format
    from attncli.results.selfattn import SelfAttnResult

KINDS = (".png", ".svg", ".pdf")
CELL_VALUES_UP_TO = 20  # tokens; beyond that the numbers would not fit in the cells


def check_plot_path(path: str) -> None:
    """Refuse an unknown image kind, a missing folder or a missing matplotlib, before work."""
    from attncli.present.written import check_installed, check_kind

    check_kind(path, "--plot", KINDS)
    check_installed("matplotlib", "--plot", path)


def plot_weights(
    path: str,
    weights: np.ndarray,
    masked: np.ndarray,
    row_labels: list[str],
    column_labels: list[str],
    fmt: Format,
    note: str | None = None,
) -> None:
    """Save one heatmap per head: row = who asks, column = who answers, shade = weight;
    `note` after the title (which sequence of a batch)."""
    # [T_q, T_k] or [h, T_q, T_k]
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    grids = weights[None] if weights.ndim == 2 else weights
    masks = masked[None] if masked.ndim == 2 else masked
    heads, t_q, t_k = grids.shape
    side = min(max(t_k * 0.6 + 2, 4), 14)
    figure, axes = plt.subplots(
        1, heads, figsize=(side * heads, min(max(t_q * 0.6 + 2, 4), 14)), squeeze=False
    )
    for h, axis in enumerate(axes[0]):
        shown = np.ma.masked_array(grids[h], mask=masks[h])
        colours = matplotlib.colormaps["viridis"].with_extremes(bad="#d0d0d0")
        image = axis.imshow(shown, cmap=colours, vmin=0.0, vmax=1.0)
        axis.set_xticks(range(t_k), labels=column_labels, rotation=45, ha="right")
        axis.set_yticks(range(t_q), labels=row_labels)
        axis.set_xlabel(fmt.say("plot_columns"))
        axis.set_ylabel(fmt.say("plot_rows"))
        title = fmt.say("weights") + (f" · {note}" if note else "")
        axis.set_title(fmt.say("head", head=h + 1, title=title) if heads > 1 else title)
        if max(t_q, t_k) <= CELL_VALUES_UP_TO:
            for i in range(t_q):
                for j in range(t_k):
                    text = "—" if masks[h][i, j] else fmt.weight_number(float(grids[h][i, j]))
                    colour = "black" if masks[h][i, j] or grids[h][i, j] > 0.6 else "white"
                    axis.text(j, i, text, ha="center", va="center", color=colour, fontsize=8)
        figure.colorbar(image, ax=axis, fraction=0.046, pad=0.04)
    import warnings

    with warnings.catch_warnings():
        # With long token names there is no tight layout to find; the figure is still drawn,
        # and stderr stays empty on success.
        warnings.simplefilter("ignore")
        figure.tight_layout()
    save_figure(figure, path)


def plot_result(path: str, result: SelfAttnResult, fmt: Format) -> None:
    """The weight grid of a self-attention result, one panel per head (of a batch, the
    first sequence's, or the one --item picked), titled with which sequence it is."""
    import numpy as np

    result = result.item(1)
    note = None
    if result.of_batch is not None:
        number, batch = result.of_batch
        note = fmt.say("sequence_of", number=number, batch=batch)
    plot_weights(
        path,
        result.weights,
        np.isneginf(result.scores),
        list(result.query_labels),
        list(result.key_labels),
        fmt,
        note,
    )


def save_figure(figure: Any, path: str) -> None:
    """Write a matplotlib figure to --plot's `path` and close it; a path that cannot be
    written is one line."""
    import matplotlib.pyplot as plt

    from attncli.present.written import written_atomically

    try:
        with written_atomically(path, "--plot") as temporary:
            figure.savefig(temporary, dpi=100, format=Path(path).suffix[1:].lower())
    finally:
        plt.close(figure)
