"""The model view (attn heads --grid) of a model whose layers differ: each sliding layer's
window after its label, and the legend that says what it means."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from rich.console import Console

import attncli as attn
from attncli.present.format import Format
from attncli.present.model.view import model_view

MODELS = Path(__file__).resolve().parent.parent / "models"


def test_each_sliding_layer_is_marked_with_its_window():
    result = attn.heads("the keys to the cabinet", model=str(MODELS / "tiny-gemma2"),
                        pattern="first", grid=True)  # fmt: skip
    marked = replace(result, layer_windows=(4, None))
    console = Console(width=80, record=True, color_system=None)
    for part in model_view(marked, Format()):
        console.print(part)
    text = console.export_text()
    assert "L1 w4" in text and "L2" in text and "L2 w" not in text
    assert "w4: a sliding_attention layer" in " ".join(text.split())
    document = marked.to_document()
    assert document["layer_types"] == ["sliding_attention", "full_attention"]
    assert document["sliding_window"] == 4
    # a model whose layers are all alike says nothing of them
    alike = replace(result, layer_windows=())
    console = Console(width=80, record=True, color_system=None)
    for part in model_view(alike, Format()):
        console.print(part)
    assert "sliding_attention" not in console.export_text()
