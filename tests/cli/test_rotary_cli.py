"""attn selfattn --positions rope on the command line: the header, the steps of each pair
turned, the relative-position line, in English and Spanish, its JSON piped back, and
the refusals as one line with nothing on stdout."""

from __future__ import annotations

import json
import re

from attncli.errors import InputError
from tests.meaning import told

LESSON = "las llaves del coche están ahí"
COMPUTED_WITH = (
    "{field}: the input is a result computed with {field} {value}, and computing it again "
    "otherwise would change its numbers; read it back {fix}"
)


def _flat(text: str) -> str:
    return re.sub(r"[ \n]+", " ", text)  # a thousands mark (U+202F) kept


def test_the_screen_says_rotary_and_shows_the_distance_alone_counts(run):
    result = run("selfattn", LESSON, "--positions", "rope", "--format", "table")
    assert result.exit_code == 0, result.output + result.stderr
    screen = _flat(result.stdout)
    assert "rotary positions (base 10,000)" in screen
    assert "Only the distance 5 − " in screen and "both moved 6 on, to 11 and" in screen


def test_steps_turn_each_pair_with_its_numbers(run, run_json):
    line = ("selfattn", LESSON, "--positions", "rope", "--steps", "--token", "están")
    screen = _flat(run(*line, "--format", "table").stdout)
    assert "q of «están» at position 4 (from 0), turned pair by pair" in screen
    assert "x cos θ − y sin θ" in screen and "k of «están» at position 4" in screen
    document = run_json(*line, "--json")
    kinds = [step["step"] for step in document["steps"]]
    assert kinds[:3] == ["rotary", "rotary", "score"]
    first = document["steps"][0]["rows"][0]
    assert first["angle"] == 4.0 and (first["first"], first["second"]) == (1, 5)


def test_the_angle_column_has_one_format(run, monkeypatch):
    """θ of the first pair is the position itself (4), the others its fractions (0.4…):
    the column writes them all with four decimals, 4.0000 above 0.4000."""
    monkeypatch.setenv("COLUMNS", "200")  # a row a line
    line = ("selfattn", LESSON, "--positions", "rope", "--steps", "--token", "están")
    for lang, first in (("en", "4.0000"), ("es", "4,0000")):
        screen = run(*line, "--format", "table", "--lang", lang).stdout
        angles = re.findall(r"^\s*\d+, \d+\s+\(.*?\)\s+(\S+)\s", screen, re.MULTILINE)
        assert len(angles) == 8, screen  # four pairs of q, four of k
        assert angles[0] == angles[4] == first
        assert all(re.fullmatch(r"\d+[.,]\d{4}", angle) for angle in angles), angles


def test_in_spanish(run):
    line = ("selfattn", LESSON, "--positions", "rope", "--steps", "--token", "están")
    screen = _flat(run(*line, "--format", "table", "--lang", "es").stdout)
    header = _flat(run(*line[:4], "--format", "table", "--lang", "es").stdout)
    assert "posiciones rotatorias (base 10\u202f000)" in header
    assert "q de «están» en la posición 4 (desde 0), girado par a par" in screen
    assert "Solo cuenta la distancia" in screen


def test_the_json_reads_back_only_with_the_same_base(run):
    piped = run("selfattn", LESSON, "--positions", "rope", "--rope-base", "500", "--json")
    assert json.loads(piped.stdout)["rope_base"] == 500.0
    again = run("selfattn", "--positions", "rope", "--rope-base", "500", input=piped.stdout)
    assert again.exit_code == 0, again.stderr
    for line in (("selfattn",), ("selfattn", "--positions", "rope")):
        refused = run(*line, input=piped.stdout)
        assert refused.exit_code == 2 and refused.stdout == ""
        told(refused.error, InputError, COMPUTED_WITH, field="rope_base", value="500.0")
    plain = run("selfattn", LESSON, "--json").stdout
    refused = run("selfattn", "--positions", "rope", input=plain)
    assert refused.exit_code == 2 and refused.stdout == ""
    told(refused.error, InputError, COMPUTED_WITH, field="rope_base",
         fix=("without {option}", {"option": "--positions rope"}))  # fmt: skip


def test_refusals_are_one_line_and_stdout_stays_empty(run):
    cases = [
        (("--d-k", "3"), "d_k is 3, an odd number"),
        (("--rope-base", "0.5"), "must be a number above 1"),
        (("--context", "el coche"), "no common positions"),
        (("--target", "0;0;0;0;0;0;0;0"), "no backward pass"),
    ]
    for extra, said in cases:
        result = run("selfattn", LESSON, "--positions", "rope", *extra)
        assert result.exit_code != 0 and result.stdout == "", extra
        assert said in result.stderr and result.stderr.count("\n") == 1, result.stderr
