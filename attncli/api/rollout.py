"""Attention rollout as an operation: a sentence and a model → every layer's weights (the
model's own forward pass) → their heads averaged with the residual and multiplied layer by
layer (core/rollout) → a RolloutResult. No I/O beyond reading the model."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from attncli.api.keywords import MODEL, OWN_READER, keywords
from attncli.api.refusals import refuse_without
from attncli.errors import OptionError
from attncli.messages import Message, Setting, _

if TYPE_CHECKING:
    from attncli.results.rollout import RolloutCell, RolloutResult

STEPS = Setting("cell", True, "--steps")  # the cell written out: --steps, cell=True


@keywords(sentence=OWN_READER, model=MODEL)
def rollout(
    sentence: str | None,
    model: str,
    *,
    layer: int | None = None,
    cell: bool = False,
    row: int | None = None,
    token: str | None = None,
    to: str | None = None,
) -> RolloutResult:
    """Attention rollout (Abnar & Zuidema 2020) of a pretrained model on a sentence: each
    layer's weights averaged over its heads, 0.5 A + 0.5 I with rows renormalised (the
    residual), multiplied from the first layer up to `layer` (1-based; default the last).
    With `cell`, one cell of the last product written out term by term: the row `row`
    (1-based) or `token`'s (default the last), the column `to`'s (default the row's
    largest).

    >>> r = rollout("the keys to the cabinet are on the table", "all-MiniLM-L6-v2")
    >>> r.rollout.shape, bool(abs(r.rollout.sum(axis=-1) - 1).max() < 1e-12)
    ((11, 11), True)
    """
    from attncli.api.model import _forward, _in_range, _load
    from attncli.core.rollout import mixed_layers
    from attncli.core.rollout import rollout as rolled
    from attncli.results.rollout import RolloutResult

    loaded, encoded = _load(sentence, model, "rollout")
    total = loaded.architecture.layers
    _in_range(layer, total, "layer", Message(_("layers")))
    chosen = total if layer is None else layer
    # each layer's head mean, its mix with the residual and the running product beside the
    # forward pass's grids: a peak of about 3 grids a head and 4 a layer (5.6 GB for 2 layers
    # of 4 heads at T = 4,797, 10.0 GB with 8 heads)
    run = _forward(loaded, encoded, chosen, per_head=3, per_layer=4)
    weights = np.stack([one.attention.weights for one in run.layers])  # [L, h, T, T]
    mixed = mixed_layers(weights)
    products = rolled(mixed)
    tokens = encoded.tokens
    # a cell's row or column without the cell: never ignored
    picks = {Setting(name, value): value for name, value in (("to", to), ("row", row),
                                                             ("token", token))}  # fmt: skip
    refuse_without(picks, STEPS, cell, _("picks the cell {steps} writes out"), steps=STEPS)
    written = _cell(mixed, products, chosen, tokens, row, token, to) if cell else None
    return RolloutResult(
        model=model,
        model_type=loaded.model_type,
        sentence=str(sentence),
        tokens=tokens,
        mixed=mixed,
        products=products,
        layer=chosen,
        cell=written,
    )


def _cell(mixed: np.ndarray, products: np.ndarray, layer: int, tokens: tuple[str, ...],
          row: int | None, token: str | None, to: str | None) -> RolloutCell:  # fmt: skip
    """R_l[i, j] = Σ_k M_l[i, k] R_(l−1)[k, j] for the cell asked, every term kept."""
    from attncli.api.model import _position
    from attncli.results.rollout import RolloutCell
    from attncli.results.rows import pick_row

    if layer < 2:
        raise OptionError(
            _(
                "{steps} writes a cell of two layers' product; {layer} has one layer (give 2 "
                "or more)"
            ),
            steps=STEPS,
            layer=Setting("layer", 1),
        )
    i = pick_row(tokens, row, token)
    final = products[layer - 1]
    j = int(np.argmax(final[i])) if to is None else _position(tokens, to, Setting("to"))
    upper = mixed[layer - 1][i]
    lower = products[layer - 2][:, j]
    return RolloutCell(layer, i, j, tuple(float(v) for v in upper),
                       tuple(float(v) for v in lower), float(final[i, j]))  # fmt: skip
