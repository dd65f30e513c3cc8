"""HTML and SVG that print: a printed grid in a light ramp (the darkest cell light enough
for black digits), no terminal window around an SVG, and, measured, no page of a class set
more than 15% ink: Chromium prints the .html to PDF, pdftoppm renders each page, and the
non-white pixels are counted. Where chromium or poppler-utils is missing the measure is
skipped saying so; CI installs both (.ci/run)."""

from __future__ import annotations

import html
import re
import subprocess
from pathlib import Path

import pytest

from attncli.present.grid import PRINTED, heat_style
from tests.conftest import SAMPLES
from tests.present.printing import missing, reason

MISSING = missing("chromium", "pdftoppm")
INK = 0.15  # the most of a printed page that may be ink


def _luminance(hex_colour: str) -> float:
    channels = [int(hex_colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def test_the_printed_ramp_is_light_enough_for_black_digits():
    darkest = heat_style(1.0, PRINTED)
    ink, paper = re.fullmatch(r"(#\w{6}) on (#\w{6})", darkest).groups()
    assert ink == "#000000"
    assert (_luminance(paper) + 0.05) / 0.05 >= 7  # WCAG's AAA contrast for black on it
    assert heat_style(0.0, PRINTED).endswith("#ffffff")  # the least weight is paper
    # lightness falls as the weight grows: the darker, the more weight
    levels = [_luminance(heat_style(k / 10, PRINTED)[-7:]) for k in range(11)]
    assert levels == sorted(levels, reverse=True)


def test_an_exported_grid_prints_light_and_says_darker_is_more(run, tmp_path):
    path = tmp_path / "sa.html"
    assert run("selfattn", "-i", str(SAMPLES / "llaves.json"), "--export", str(path)).exit_code == 0
    page = path.read_text(encoding="utf-8")
    assert "darker = more weight" in page and "lighter = more weight" not in page
    backgrounds = set(re.findall(r"background-color: (#[0-9a-f]{6})", page))
    assert min(_luminance(colour) for colour in backgrounds) > 0.4


def test_an_exported_svg_has_no_window_frame(run, tmp_path):
    path = tmp_path / "sa.svg"
    assert run("softmax", "2", "0", "1", "--export", str(path)).exit_code == 0
    picture = path.read_text(encoding="utf-8")
    assert "<circle" not in picture and "#ff5f57" not in picture  # the three dots
    assert 'rx="8"' not in picture and ">attn</text>" not in picture  # frame and title bar
    assert "0.665" in picture.replace("&#160;", " ")


def test_a_worksheet_page_has_room_to_write_in(run, tmp_path):
    path = tmp_path / "hoja.html"
    assert run("exercise", "--seed", "3", "--answers", "--export", str(path)).exit_code == 0
    page = path.read_text(encoding="utf-8")
    sheet, key = (html.unescape(re.sub(r"<[^>]+>", "", text))
                  for text in re.findall(r"<pre [^>]*>(.*?)</pre>", page, re.S))  # fmt: skip
    # a line left between the rows of a table to write in; the key, filled in, reads as ever
    written_in = r"\n  perro [^\n]*\n *\n  come "
    assert re.search(written_in, sheet) and "_______" in sheet
    assert not re.search(written_in, key) and "\n  come " in key
    # A blank is as long as its answer: "1×1 + 0×2 = 1" needs more than ____.
    assert re.search(r"_{12,}", page)


def _ink(html: Path) -> list[float]:
    """The share of non-white pixels on each page Chromium prints of `html`."""
    pdf = html.with_suffix(".pdf")
    subprocess.run(
        ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-pdf-header-footer",
         f"--print-to-pdf={pdf}", html.as_uri()],
        capture_output=True, timeout=120, check=True,
    )  # fmt: skip
    subprocess.run(["pdftoppm", "-r", "40", "-png", str(pdf), str(html.with_suffix(""))],
                   check=True, timeout=120)  # fmt: skip
    from PIL import Image

    shares = []
    for png in sorted(html.parent.glob(html.stem + "-*.png")):
        import numpy as np

        shares.append(float((np.asarray(Image.open(png).convert("L")) < 245).mean()))
    assert shares, "chromium printed no page"
    return shares


@pytest.mark.slow
@pytest.mark.skipif(bool(MISSING), reason=reason(MISSING))
@pytest.mark.parametrize(
    "args",
    [
        ("exercise", "--count", "3", "--seed", "1", "--answers"),
        ("exercise", "--count", "3", "--seed", "1", "--selfattn", "--answers"),
        ("selfattn", "-i", str(SAMPLES / "llaves.json"), "--show", "all"),
    ],
)
def test_no_printed_page_is_more_than_15_percent_ink(run, tmp_path, args):
    pytest.importorskip("PIL")  # with matplotlib, in the test extra
    path = tmp_path / "set.html"
    assert run(*args, "--export", str(path)).exit_code == 0
    shares = _ink(path)
    assert max(shares) <= INK, [f"{share:.1%}" for share in shares]


@pytest.mark.slow
@pytest.mark.skipif(bool(MISSING), reason=reason(MISSING))
@pytest.mark.slow
@pytest.mark.skipif(bool(MISSING), reason=reason(MISSING))
@pytest.mark.parametrize(
    "kind",
    [(), ("--method", "general", "--lang", "es"), ("--method", "additive"), ("--selfattn",),
     ("--selfattn", "--lang", "es"), ("--positions", "rope", "--lang", "es")],
)  # fmt: skip
def test_each_sheet_of_a_class_set_prints_on_one_page(run, tmp_path, kind):
    """A page each, as attn exercise --help says: 2 sheets and their 2 keys, 4 pages, on
    Chromium's paper (Letter, shorter than A4)."""
    path = tmp_path / "set.html"
    args = ("exercise", "--count", "2", "--seed", "7", "--answers", *kind)
    assert run(*args, "--export", str(path)).exit_code == 0
    assert len(_ink(path)) == 4


@pytest.mark.slow
@pytest.mark.skipif(bool(MISSING), reason=reason(MISSING))
def test_the_ink_measure_sees_a_dark_page(run, tmp_path):
    pytest.importorskip("PIL")
    path = tmp_path / "dark.html"
    result = run("selfattn", "-i", str(SAMPLES / "llaves.json"), "--export", str(path),
                 "--theme", "dark")  # fmt: skip
    assert result.exit_code == 0
    assert max(_ink(path)) > INK
