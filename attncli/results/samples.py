"""The samples installed with attncli, as `attn samples` lists them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from attncli.results.base import Result


@dataclass(frozen=True)
class SampleEntry:
    """One sample: the name -i takes, its file, where it is installed, what it holds (a
    document's fields, or a text's first comment line and its `# es:` line) and a command
    that reads it."""

    name: str
    file: str
    path: str
    holds: str
    example: str
    holds_es: str = ""  # what it holds, in Spanish; empty where the English is only names

    def holding(self, lang: str) -> str:
        return self.holds_es if lang == "es" and self.holds_es else self.holds


@dataclass(frozen=True, repr=False, kw_only=True, eq=False)
class SamplesResult(Result):
    """Every installed sample, by name."""

    samples: tuple[SampleEntry, ...]

    def to_document(self) -> dict[str, Any]:
        return {"samples": [vars(sample) for sample in self.samples]}

    def __repr__(self) -> str:
        return f"SamplesResult({[sample.name for sample in self.samples]})"
