"""The samples installed with attncli, as `attn samples` lists them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from attncli.messages import Message
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
    # what it holds as a sentence of the catalog, where attn writes it (a layer's weights)
    said: Message | None = field(default=None, compare=False)

    def holding(self, lang: str) -> str:
        """What it holds in `lang`: the catalog's sentence, else the sample's own line in
        that language (a text's `# es:` comment), else its first line."""
        if self.said is not None:
            return self.said.said(lang)
        own = {"es": self.holds_es}.get(lang, "")
        return own or self.holds

    def to_document(self) -> dict[str, Any]:
        return {name: value for name, value in vars(self).items() if name != "said"}


@dataclass(frozen=True, repr=False, kw_only=True, eq=False)
class SamplesResult(Result):
    """Every installed sample, by name."""

    samples: tuple[SampleEntry, ...]

    def to_document(self) -> dict[str, Any]:
        return {"samples": [sample.to_document() for sample in self.samples]}

    def __repr__(self) -> str:
        return f"SamplesResult({[sample.name for sample in self.samples]})"
