"""What the tests of reading/ share: the folders where a machine keeps its models, empty."""

from __future__ import annotations

import pytest


@pytest.fixture
def places(tmp_path, monkeypatch):
    """Empty Ollama, LM Studio and Hugging Face folders; nothing of the machine's own."""
    roots = {name: tmp_path / name for name in ("ollama", "lmstudio", "hub")}
    for root in roots.values():
        root.mkdir()
    monkeypatch.setenv("OLLAMA_MODELS", str(roots["ollama"]))
    monkeypatch.setenv("LMSTUDIO_MODELS", str(roots["lmstudio"]))
    monkeypatch.setenv("HF_HUB_CACHE", str(roots["hub"]))
    return roots
