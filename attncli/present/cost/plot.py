"""attn cost --plot FILE: the KV cache against the length, a line per design.

matplotlib is an optional extra (pip install 'attncli[plot]'); it is imported only here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from attncli.present.format import Format
    from attncli.results.cost import CostResult

POINTS = 64  # lengths drawn between 1 and the longest asked for, evenly on a log scale


def plot_cost(path: str, result: CostResult, fmt: Format) -> None:
    """The cache's bytes against T on log-log axes, each design a line through every length
    from 1 to the longest asked for, the lengths asked for marked."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    from attncli.core import attention_cost as arithmetic
    from attncli.present.plot import save_figure

    longest = max(at.tokens for at in result.designs[0].lengths)
    lengths = sorted({int(t) for t in np.geomspace(1, longest, POINTS).round()} | {longest})
    figure, axis = plt.subplots(figsize=(8, 5))
    for design in result.designs:
        shape = design.shape
        drawn = [arithmetic.cache_bytes(arithmetic.cache_numbers(shape, t, result.batch),
                                        result.dtype) for t in lengths]  # fmt: skip
        (line,) = axis.plot(lengths, drawn, label=design.label)
        asked = [at.tokens for at in design.lengths]
        axis.plot(asked, [at.cache_bytes for at in design.lengths], "o", color=line.get_color())
    from matplotlib.ticker import FuncFormatter, LogLocator

    from attncli.present.cost.view import size

    axis.set_xscale("log", base=2)
    axis.set_yscale("log", base=2)
    axis.yaxis.set_major_locator(LogLocator(base=2, numticks=12))  # a power of 2 each
    axis.yaxis.set_major_formatter(FuncFormatter(lambda value, _at: size(int(value), fmt)))
    axis.xaxis.set_major_formatter(FuncFormatter(lambda value, _at: fmt.count(int(value))))
    axis.set_xlabel(fmt.say("cost.plot_tokens"))
    axis.set_ylabel(fmt.say("cost.plot_bytes"))
    axis.set_title(fmt.say("cost.plot_title", model=result.model, dtype=result.dtype,
                           batch=result.batch))  # fmt: skip
    axis.grid(alpha=0.3, which="both")
    axis.legend(loc="upper left")
    figure.tight_layout()
    save_figure(figure, path)
