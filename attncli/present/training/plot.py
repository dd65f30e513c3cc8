"""attn train --plot FILE: the loss and the wanted weights, iteration by iteration.

matplotlib is an optional extra (pip install 'attncli[plot]'); it is imported only here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from attncli.present.format import Format
    from attncli.results.training import TrainResult

WANTS_SHOWN = 8  # wanted weights drawn at most (of the first sentence); the JSON has all


def plot_training(path: str, result: TrainResult, fmt: Format) -> None:
    """Two panels over the iterations: the loss (on a log scale when it spans more than a
    factor of 100) and each wanted weight of the first sentence, from 0 to 1."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    from attncli.present.plot import save_figure
    from attncli.present.training.view import log_scale

    steps = np.arange(len(result.loss))
    figure, (loss_axis, weight_axis) = plt.subplots(1, 2, figsize=(11, 4))
    loss_axis.plot(steps, result.loss, color="#1f77b4")
    if log_scale(result.loss):
        loss_axis.set_yscale("log")
    loss_axis.set_xlabel(fmt.say("plot_iteration"))
    loss_axis.set_ylabel(fmt.say("plot_loss"))
    loss_axis.set_title(fmt.say("plot_loss_title"))
    loss_axis.grid(alpha=0.3)
    wanted = result.wanted[:, : len(result.wants)].mean(axis=-1)  # [steps, wants]
    for index, want in enumerate(result.wants[:WANTS_SHOWN]):
        query, key = want.split("=", 1)
        weight_axis.plot(steps, wanted[:, index], label=f"{query} → {key}")
    weight_axis.set_ylim(0.0, 1.0)
    weight_axis.set_xlabel(fmt.say("plot_iteration"))
    weight_axis.set_ylabel("α")
    first = result.sentences > 1
    weight_axis.set_title(fmt.say("plot_wanted_first" if first else "plot_wanted_title"))
    weight_axis.grid(alpha=0.3)
    weight_axis.legend(loc="lower right")
    figure.tight_layout()
    save_figure(figure, path)
