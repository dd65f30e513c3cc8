"""The explorer's overlays (help, a row's steps, the export prompt) hold under any keys,
however fast they come: keys that arrive together (a quick q q, a paste) close an overlay
once, and the app keeps running with its own screen."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from textual import events

from attncli.explore.app import Explorer
from attncli.explore.session import Source

pytestmark = pytest.mark.slow

OPENERS = ["question_mark", "enter", "e"]  # help, the row's steps, the export prompt
KEYS = ["x", "q", "escape", "enter", "question_mark", "e", "down", "p", "s", "h", "v"]


def _key(name: str) -> events.Key:
    return events.Key(name, name if len(name) == 1 else None)


def _burst(opener: str, burst: list[str]) -> Explorer:
    """Open an overlay, then post every key of `burst` at once, as a paste delivers them; in
    a folder of its own, where an export (e, then Enter) may write its file."""
    import os
    import tempfile

    here = os.getcwd()
    with tempfile.TemporaryDirectory() as folder:
        os.chdir(folder)  # contextlib.chdir is Python 3.11's; attn runs on 3.10 too
        try:
            return asyncio.run(_keys(opener, burst))
        finally:
            os.chdir(here)


async def _keys(opener: str, burst: list[str]) -> Explorer:
    app = Explorer(Source(sentence="el tren va lleno"))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press(opener)
        await pilot.pause()
        for name in burst:
            app.post_message(_key(name))
        await pilot.pause()
        await pilot.pause()
    return app


@pytest.mark.parametrize("opener", OPENERS)
@pytest.mark.parametrize("closer", ["x", "escape", "q"])
def test_two_keys_at_once_close_an_overlay_once(opener, closer):
    app = _burst(opener, [closer, closer])
    assert app.return_code in (None, 0)  # never the error exit of a crash


@settings(max_examples=20, deadline=None)
@given(opener=st.sampled_from(OPENERS), burst=st.lists(st.sampled_from(KEYS), max_size=8))
def test_any_burst_of_keys_over_an_overlay_keeps_the_app_whole(opener, burst):
    app = _burst(opener, burst)
    assert app.return_code in (None, 0)
