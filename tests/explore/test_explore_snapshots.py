"""attn explore's screens at 80 × 24 and 120 × 40, in English and Spanish, pinned as the
SVG the app itself exports. A deliberate change of the screen is refreshed with

    python tests/explore/test_explore_snapshots.py --update

and reviewed in the diff of tests/golden/explore/ and docs/explore.svg, the README's
screenshot (open the SVGs in a browser).
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest

# Hypothesis or a process per case: `pytest -m 'not slow'` leaves it out of a quick run.
pytestmark = pytest.mark.slow

pytest.importorskip("textual")

ROOT = Path(__file__).resolve().parent.parent.parent
GOLDEN = ROOT / "tests" / "golden" / "explore"
SENTENCE = "las llaves del coche están ahí"

# name -> (size, what is attended over, keys pressed)
CASES = {
    "grid-80x24-en": ((80, 24), "sentence", ["down", "down", "right"]),
    "grid-80x24-es": ((80, 24), "sentence", ["l", "p"]),
    "grid-120x40-en": ((120, 40), "llaves", ["down"] * 4 + ["right"]),
    "grid-120x40-es": ((120, 40), "sentence", ["l", "c", "h", "right_curly_bracket", "down"]),
    "scores-120x40-en": ((120, 40), "sentence", ["v", "right"]),
    "help-80x24-es": ((80, 24), "sentence", ["l", "question_mark"]),
    "chain-80x24-en": ((80, 24), "tren", []),
    "chain-120x40-es": ((120, 40), "tren", ["l"]),
    # The README's screenshot: «están» asks, «llaves» answers.
    "readme": ((120, 34), "llaves", ["down"] * 4 + ["right"]),
}
SCREENSHOT = ROOT / "docs" / "explore.svg"


def _golden(name: str) -> Path:
    return SCREENSHOT if name == "readme" else GOLDEN / f"{name}.svg"


def _app(kind: str):
    from attncli.explore.app import Explorer
    from attncli.explore.chain import ChainExplorer
    from attncli.explore.session import Source

    if kind == "tren":
        return ChainExplorer(json.loads((ROOT / "samples" / "tren.json").read_text()))
    if kind == "llaves":
        document = json.loads((ROOT / "samples" / "llaves.json").read_text())
        return Explorer(Source(document=document, path="samples/llaves.json"))
    return Explorer(Source(sentence=SENTENCE))


def _screenshot(name: str) -> str:
    from tests.explore_screen import run_app

    size, kind, keys = CASES[name]
    # The ramp follows the terminal's colours: pinned to a truecolor terminal.
    saved = {key: os.environ.get(key) for key in ("COLORTERM", "NO_COLOR", "TERM")}
    os.environ.update(COLORTERM="truecolor", TERM="xterm-256color")
    os.environ.pop("NO_COLOR", None)
    try:
        app = _app(kind)
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value

    async def script(pilot):
        await pilot.press(*keys)
        await pilot.pause()
        # a scroll that keeps the cursor in sight is animated: the picture is its end
        await pilot.wait_for_scheduled_animations()
        await pilot.pause()
        return app.export_screenshot(title="attn explore")

    return run_app(app, size, script)


def _drawn(svg: str) -> str:
    """The screenshot without its CSS class prefix (terminal-<number>): rich names the
    classes by a hash that also covers the clickable cells' link ids, which differ from
    one process to the next; every glyph, colour and position is still compared."""
    return re.sub(r"terminal-\d+", "terminal", svg)


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_screen_is_unchanged(name):
    expected = _golden(name).read_text(encoding="utf-8")
    assert _drawn(_screenshot(name)) == _drawn(expected), (
        f"{name}: rerun python {__file__} --update"
    )


if __name__ == "__main__" and sys.argv[1:] == ["--update"]:
    sys.path.insert(0, str(ROOT))
    GOLDEN.mkdir(parents=True, exist_ok=True)
    for case in CASES:
        _golden(case).write_text(_screenshot(case), encoding="utf-8")
    print(f"wrote {len(CASES)} files to {GOLDEN}")
