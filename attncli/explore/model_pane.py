"""The explorer's model-view pane (m): every layer × head of the sentence as a thumbnail,
drawn by present/model/thumbnails.py as attn heads --grid draws it, the head the main grid
shows marked ▶. While the pane is open the arrows move the shown head (← → the layer,
↑ ↓ the head) through the knobs' own [ ] { } keys, so the main grid follows.

A model's thumbnails are attncli.heads(..., grid=True)'s weights for the sentence (one
forward pass, kept until the sentence changes); the seeded layer's are its own heads.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from attncli.messages import _, say

if TYPE_CHECKING:
    from attncli.explore.session import Source
    from attncli.explore.state import State
    from attncli.results.selfattn import SelfAttnResult

# An arrow, while the pane is open, is the key that moves the shown head that way.
PANE_KEYS = {"left": "[", "right": "]", "up": "{", "down": "}"}
SHOWN = "▶"

PANE_TITLE = _("Model view: ← → the layer, ↑ ↓ the head, m closes")
PANE_SEEDED = _("Model view, the layer's {heads} heads: ↑ ↓ the head, m closes")
PANE_ONE_HEAD = _("one head: h gives the layer more, each a thumbnail here")


class ModelPane:
    """What the pane shows for a source: the weights of every head [L, h, T, T] and each
    head's own marks (its habit, as attn heads --grid marks it), computed once per
    sentence."""

    def __init__(self) -> None:
        self._kept: dict[tuple[str, str], tuple[np.ndarray, list[list[str]]]] = {}

    def weights(self, source: Source, result: SelfAttnResult) -> tuple[np.ndarray, list[list[str]]]:
        """[L, h, T, T] and the marks [L][h]; an AttnError when the model refuses."""
        if source.model is None:
            weights = result.weights
            if weights.ndim == 2:
                weights = weights[None]
            return weights[None], [[""] * len(weights)]
        sentence = source.sentence or ""
        key = (source.model, sentence)
        if key not in self._kept:
            from attncli.api.heads import heads
            from attncli.present.model.view import grid_marks

            ranked = heads(sentence, source.model, grid=True)
            assert ranked.grid is not None
            self._kept = {key: (ranked.grid, grid_marks(ranked))}
        return self._kept[key]


def marked(marks: list[list[str]], layer: int, head: int) -> list[list[str]]:
    """The marks with the shown head's (0-based layer and head) led by ▶."""
    shown = [list(row) for row in marks]
    shown[layer][head] = f"{SHOWN}{shown[layer][head]}"
    return shown


def shown_head(state: State, layers: int) -> tuple[int, int]:
    """The (layer, head) the main grid shows, 0-based; a model's None layer is the last."""
    layer = (state.layer or layers) - 1 if layers > 1 else 0
    return layer, state.head - 1


def drawing(source: Source, result: SelfAttnResult, state: State, pane: ModelPane) -> Any:
    """The pane's renderable: its title and the thumbnails with the shown head marked."""
    from rich.console import Group
    from rich.text import Text

    from attncli.present.language import say as phrase
    from attncli.present.model.thumbnails import Thumbnails

    weights, marks = pane.weights(source, result)
    layers, heads = weights.shape[:2]
    layer, head = shown_head(state, layers)
    if source.model is None:
        title = say(state.lang, PANE_SEEDED if heads > 1 else PANE_ONE_HEAD, heads=heads)
    else:
        title = say(state.lang, PANE_TITLE)
    drawn = Thumbnails(weights, marked(marks, layer, min(head, heads - 1)),
                       phrase(state.lang, "grid_layer"))  # fmt: skip
    return Group(Text(title, style="bold"), drawn)


def head_line(state: State, weights_shape: tuple[int, ...], width: int, title: str) -> int:
    """The line of the pane (0-based) on which the shown head's band starts, so that the
    pane can be scrolled to it: the title's lines, then for each band of layers a header
    line and, per head, a mark line and its rows (two a line in colour)."""
    from rich.cells import cell_len

    from attncli.present.model.thumbnails import GAP, LABEL

    layers, heads, size = weights_shape[:3]
    fitting = max(1, min(layers, (width - LABEL + GAP) // (size + GAP)))
    layer, head = shown_head(state, layers)
    per_head = 1 + (size + 1) // 2
    band = layer // fitting
    band_height = 1 + heads * per_head + 1
    titled = -(-cell_len(title) // max(width, 1))  # its lines, wrapped at the width
    if head == 0:  # a band's first head: its layers' labels in sight (the title for the first)
        return 0 if band == 0 else titled + band * band_height
    return titled + band * band_height + 1 + min(head, heads - 1) * per_head
