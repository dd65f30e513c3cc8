"""--export FILE.png: a sheet as a picture to paste into slides, drawn by matplotlib (the
plot extra) from the same page as the .svg; refused in one line where matplotlib is
missing."""

from __future__ import annotations

import importlib.util

import pytest

pytest.importorskip("matplotlib")
from PIL import Image  # noqa: E402 (with matplotlib)

from attncli.errors import OptionError  # noqa: E402
from tests.meaning import told  # noqa: E402

# an optional package an output needs (present/written.check_installed)
NOT_INSTALLED = "{option} {path} needs {package}, which is not installed where attn runs: {command}"


def _ink(image: Image.Image) -> float:
    import numpy as np

    return float((np.asarray(image.convert("L")) < 200).mean())


def test_a_sheet_exports_as_a_png_that_shows_it(run, tmp_path):
    path = tmp_path / "hoja.png"
    result = run("exercise", "--seed", "3", "--answers", "--export", str(path))
    assert result.exit_code == 0, result.stderr
    image = Image.open(path)
    assert image.format == "PNG" and image.width > 800 and image.height > image.width
    corner = image.convert("RGB").getpixel((2, 2))
    assert corner == (255, 255, 255)  # on paper
    assert 0.01 < _ink(image) < 0.2  # text, not an empty or a dark page


def test_a_png_shows_the_grid_s_light_ramp_and_the_dark_theme_when_asked(run, tmp_path):
    light, dark = tmp_path / "light.png", tmp_path / "dark.png"
    args = ("selfattn", "las llaves del coche están ahí")
    assert run(*args, "--export", str(light)).exit_code == 0
    assert run(*args, "--export", str(dark), "--theme", "dark").exit_code == 0
    colours = {colour for _count, colour in Image.open(light).convert("RGB").getcolors(1 << 20)}
    blues = [c for c in colours if c[2] > c[0] + 40 and min(c) > 120]  # the ramp's cells
    assert blues
    assert _ink(Image.open(dark)) > 0.5


def test_without_matplotlib_a_png_is_refused_in_one_line(run, tmp_path, monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "matplotlib" else real(name)
    )
    path = tmp_path / "hoja.png"
    result = run("exercise", "--seed", "3", "--export", str(path))
    assert result.exit_code == 2 and result.stdout == "" and not path.exists()
    assert result.stderr.count("\n") == 1
    told(result.error, OptionError,
         NOT_INSTALLED, option="--export",
         path=str(path), package="matplotlib")  # fmt: skip


def test_a_sign_the_monospaced_font_lacks_is_drawn_from_the_next_one(tmp_path):
    """DejaVu Sans Mono has no ℓ (the online softmax's running sum): it was drawn as an
    empty box, with matplotlib's warning on stderr."""
    import warnings

    from attncli.present.export_png import png_bytes

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "Glyph 8467 … missing from font(s)" fails here
        data = png_bytes(["ℓ = ℓ_old × e^(m_old − m)"])
    assert data.startswith(b"\x89PNG")
