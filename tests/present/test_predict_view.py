"""attn predict's table: the title counts the tokens read, and every token has a cell that
shows it."""

from __future__ import annotations

import numpy as np
from rich.console import Console

from attncli.results.predict import PredictResult


def _shown(result: PredictResult, lang: str = "en") -> str:
    from attncli.present.format import Format
    from attncli.present.inference.view import predict_view

    console = Console(width=80, record=True, color_system=None)
    for part in predict_view(result, Format(lang=lang)):
        console.print(part)
    return console.export_text()


def _result(tokens: tuple[str, ...]) -> PredictResult:
    words = (" ", " and", "\n", "   ")
    logits = np.array([4.0, 3.0, 2.0, 1.0])
    probabilities = np.exp(logits) / np.exp(logits).sum()
    return PredictResult(model="tiny", tokens=tokens, logits=logits,
                         probabilities=probabilities, sampled=probabilities,
                         top_ids=(0, 1, 2, 3), top_words=words, temperature=1.0, top_k=None,
                         top_p=None)  # fmt: skip


def test_a_token_of_spaces_alone_is_shown_between_quotes_and_the_others_as_they_are():
    rows = [line.strip() for line in _shown(_result(("Hello",))).splitlines()]
    cells = [row.split()[0] if row.split() else "" for row in rows]
    assert any(row.startswith("« »") for row in rows)
    assert any(row.startswith("«   »") for row in rows)
    assert "and" in cells and "\\n" in cells


def test_the_title_counts_the_tokens_read_in_each_language():
    assert "after 1 token, by tiny" in _shown(_result(("Hello",)))
    assert "after 3 tokens, by tiny" in _shown(_result(("a", "b", "c")))
    assert "tras 1 token, según tiny" in _shown(_result(("Hola",)), "es")
