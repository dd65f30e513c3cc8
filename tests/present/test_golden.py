"""Every result kind as a terminal shows it, 80 columns, no colour, pinned as golden text.

A deliberate change of the screen is refreshed with

    python tests/present/test_golden.py --update

and reviewed in the diff of tests/golden/.
"""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path

import pytest
from rich.console import Console

GOLDEN = Path(__file__).resolve().parent.parent / "golden"


def _cases() -> dict[str, object]:
    import attncli as attn
    from attncli.core.timing import Timing

    tren = dict(query=[1, 0], keys=[[2, 1], [0, 2], [1, 1]], tokens=["tren", "va", "lleno"])
    values = [[10, 0], [0, 10], [5, 5]]
    grid = dict(queries=[[1, 0], [0, 1], [1, 1]], keys=tren["keys"], tokens=tren["tokens"])
    comparison = attn.compare_scores(tx=4, ty=3, d_h=8, d_a=4, repeat=1, d_ks=[4, 16])
    for method, seconds in {"additive": 4e-4, "general": 5e-5, "dot": 2e-5, "scaled": 3e-5}.items():
        comparison.timings[method] = Timing(seconds, seconds * 0.9, seconds * 1.2, 1)
    return {
        "score": attn.score(**tren),
        "score-general": attn.score(**tren, method="general", seed=1),
        "softmax": attn.softmax(attn.score(**tren)),
        "softmax-grid": attn.softmax(attn.score(**grid)),
        "mix": attn.mix(attn.softmax(attn.score(**tren)), values=values),
        "grad": attn.grad(**tren, values=values, target=[8, 2]),
        "selfattn": attn.selfattn("en las llaves del coche", seed=0),
        "selfattn-heads": attn.selfattn("en las llaves", heads=2, causal=True),
        "selfattn-cross": attn.selfattn("the keys", context="las llaves están"),
        "compare-scores": comparison,
        "exercise": attn.exercise(seed=7),
        "online-softmax": attn.online_softmax([2, 0, 1, 5, 3], block=2, temperature=2),
        "heads": attn.heads(
            "las llaves del coche están ahí", source="están", target="llaves", heads=4
        ),  # fmt: skip
    }


def _render(result: object, show: frozenset[str] = frozenset(), lang: str = "en") -> str:
    from attncli.present.format import Format
    from attncli.present.views import view_of

    console = Console(width=80, color_system=None, file=io.StringIO(), record=True)
    for renderable in view_of(result, Format(lang=lang), show):  # type: ignore[arg-type]
        console.print(renderable)
    text = "\n".join(line.rstrip() for line in console.export_text().splitlines()) + "\n"
    # The loop check's rounding differences depend on the CPU's BLAS: pinned as a shape.
    return re.sub(r"largest\s+difference\s+\d\.\de-\d\d", "largest difference ≈0", text)


def _rendered() -> dict[str, str]:
    shown = {name: _render(result) for name, result in _cases().items()}
    everything = frozenset({"x", "w", "q", "k", "v", "shapes"})
    shown["selfattn-show-all"] = _render(_cases()["selfattn"], everything)
    # In Spanish, whose words are longer: the figures' table still fits in 80 columns.
    shown["compare-scores-es"] = _render(_cases()["compare-scores"], lang="es")
    shown["heads-es"] = _render(_cases()["heads"], lang="es")
    online = _cases()["online-softmax"]
    shown["online-softmax"] = _render(online, frozenset({"steps"}))
    shown["online-softmax-es"] = _render(online, frozenset({"steps"}), lang="es")
    return shown


@pytest.fixture(scope="module")
def rendered() -> dict[str, str]:
    return _rendered()


NAMES = ["score", "score-general", "softmax", "softmax-grid",
         "mix", "grad", "selfattn", "selfattn-heads", "selfattn-cross", "compare-scores",
         "exercise", "selfattn-show-all", "compare-scores-es", "heads", "heads-es",
         "online-softmax", "online-softmax-es"]  # fmt: skip


def test_no_line_is_wider_than_the_terminal_nor_splits_a_row_label(rendered):
    """80 columns: nothing is cut, and every row label of the figures' table is whole on
    its line, in English and in Spanish (whose words are longer)."""
    from attncli.present.format import Format

    for name in NAMES:
        assert all(len(line) <= 80 for line in rendered[name].splitlines()), name
    keys = ["parameters", "mult_adds", "elementwise", "tanh", "intermediate", "at_float64",
            "projected_states", "time_median", "time_fastest", "time_slowest",
            "times_general", "times_fastest", "at_init", "spread_at_init", "peak_mean"]  # fmt: skip
    header_words = {"online-softmax": ["Scores", "Block", "max", "ℓ"],
                    "online-softmax-es": ["Puntuaciones", "Máx.", "bloque", "ℓ"]}  # fmt: skip
    for name, words in header_words.items():
        header = " ".join(rendered[name].split("━━")[0].splitlines()[-3:]).split()
        assert all(word in header for word in words), (name, header)  # whole, none cut
        assert "…" not in rendered[name], name
    for name, header in (("heads", "Row's next"), ("heads-es", "Rival")):
        table = rendered[name].split("━━")[0].splitlines()
        assert header in table[-2] and "…" not in rendered[name], name  # on one line
        rows = [
            line
            for line in rendered[name].splitlines()
            if line.split()[:1] in (["1"], ["2"], ["3"], ["4"])
        ]
        assert len(rows) == 4  # every head's row on one line: its rival with its weight
        assert all(re.search(r"\S+ \d[.,]\d{3} +\d[.,]\d{3}", row) for row in rows), rows
    for name, lang in (("compare-scores", "en"), ("compare-scores-es", "es")):
        fmt = Format(lang=lang)
        labels = [fmt.say(key) for key in keys]
        labels.append(fmt.say("peak_range", uniform=fmt.number(0.25, 3, whole_bare=False)))
        lines = rendered[name].splitlines()
        assert "…" not in rendered[name], name
        for label in labels:
            assert any(line.startswith(f"  {label}  ") or line == f"  {label}" for line in lines), (
                name,
                label,
            )


@pytest.mark.parametrize("name", NAMES)
def test_the_screen_is_unchanged(rendered, name):
    expected = (GOLDEN / f"{name}.txt").read_text(encoding="utf-8")
    assert rendered[name] == expected, f"{name}: rerun python tests/present/test_golden.py --update"


if __name__ == "__main__" and sys.argv[1:] == ["--update"]:
    for name, text in _rendered().items():
        (GOLDEN / f"{name}.txt").write_text(text, encoding="utf-8")
    print(f"wrote {len(NAMES)} files to {GOLDEN}")
