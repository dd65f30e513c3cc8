"""attn predict's result: the next token's logits and probabilities, as data."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from attncli.results.base import Result

__all__ = ["PredictResult"]


@dataclass(frozen=True, repr=False, kw_only=True, eq=False)
class PredictResult(Result):
    """The last position's logits over the vocabulary, their softmax, and the distribution
    left after temperature, top-k and top-p; with the logit lens, a row per layer."""

    model: str
    tokens: tuple[str, ...]
    logits: np.ndarray  # [V]
    probabilities: np.ndarray  # [V]: softmax(logits)
    sampled: np.ndarray  # [V]: softmax of the filtered logits ÷ T
    top_ids: tuple[int, ...]  # the largest logits, largest first
    top_words: tuple[str, ...]
    temperature: float
    top_k: int | None
    top_p: float | None
    lens: np.ndarray | None = None  # [layers + 1, V]: the embeddings', then each layer's
    lens_words: list[list[str]] | None = None
    vocabulary: tuple[str, ...] = ()  # every token as shown, by id

    def __repr__(self) -> str:
        return f"PredictResult(model={self.model!r}, next={list(self.top_words[:3])})"

    def steps(self, row: int | None = None, token: str | None = None) -> list[Any]:
        """The softmax the next token is drawn from, as the lesson lays it out: every token
        of the vocabulary, likeliest first (a long list shows its first and last rows)."""
        from attncli.explain.calculator import explain_softmax

        order = np.argsort(-self.logits, kind="stable")
        kept = np.where(self.sampled > 0, self.logits, -np.inf)[order]
        labels = [self.word_of(int(i)) for i in order]
        return [explain_softmax(None, kept, self.sampled[order], labels, self.temperature)]

    def word_of(self, index: int) -> str:
        """A token of the vocabulary as shown (a top one's word, else its id)."""
        if index in self.top_ids:
            return self.top_words[self.top_ids.index(index)]
        return self.vocabulary[index] if self.vocabulary else f"#{index}"

    def to_document(self) -> dict[str, Any]:
        ids = list(self.top_ids)
        document: dict[str, Any] = {
            "model": self.model,
            "tokens": list(self.tokens),
            "temperature": self.temperature,
            "top_k": self.top_k,
            "top_p": self.top_p,
            "top": [
                {
                    "id": i,
                    "token": w,
                    "logit": float(self.logits[i]),
                    "probability": float(self.probabilities[i]),
                    "sampled": float(self.sampled[i]),
                }  # fmt: skip
                for i, w in zip(ids, self.top_words, strict=True)
            ],
            "kept": int((self.sampled > 0).sum()),
        }
        if self.lens_words is not None:
            document["by_layer"] = [
                {"layer": n, "top": words} for n, words in enumerate(self.lens_words)
            ]
        return document
