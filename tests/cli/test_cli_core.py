"""attn score, softmax and mix through the CLI: numbers, pipes, steps and errors."""

from __future__ import annotations

import json

import pytest

from attncli.errors import InputError, OptionError, ShapeError
from tests.conftest import SAMPLES
from tests.meaning import (
    ABOVE,
    DISAGREE,
    EMPTY,
    MASKED_FINITE,
    MASKED_NUMBER,
    TOO_LARGE,
    TRY,
    WRONG,
    plain,
    told,
)

NAMED_FIELDS = (
    "a JSON object of named fields, such as {example}",
    {"example": '{"query": [1, 0], "keys": [[2, 1], [0, 2]]}'},
)
TREN = str(SAMPLES / "tren.json")
TREN_GRID = str(SAMPLES / "tren-grid.json")


def test_pipe_reproduces_worked_example(run_json):
    scored = run_json("score", "-i", TREN)
    assert scored["scores"] == [2.0, 0.0, 1.0]
    weighted = run_json("softmax", input=json.dumps(scored))
    assert [round(w, 3) for w in weighted["weights"]] == [0.665, 0.090, 0.245]
    mixed = run_json("mix", input=json.dumps(weighted))
    assert [round(x, 2) for x in mixed["output"]] == [7.88, 2.12]
    # The document carries the inputs along, at full precision.
    assert mixed["tokens"] == ["tren", "va", "lleno"]
    assert mixed["values"] == [[10, 0], [0, 10], [5, 5]]
    assert mixed["weights"][0] == pytest.approx(0.6652409557748219, rel=1e-15)


def test_pipe_on_grid(run_json):
    weighted = run_json("softmax", input=json.dumps(run_json("score", "-i", TREN_GRID)))
    assert [[round(w, 3) for w in row] for row in weighted["weights"]] == [
        [0.212, 0.576, 0.212],
        [0.576, 0.212, 0.212],
        [0.665, 0.090, 0.245],
    ]
    mixed = run_json("mix", input=json.dumps(weighted))
    assert [[round(x, 2) for x in row] for row in mixed["output"]] == [
        [3.18, 6.82],
        [6.82, 3.18],
        [7.88, 2.12],
    ]


def test_score_steps_lay_out_products(run):
    result = run("score", "-i", TREN, "--steps")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    row = next(line for line in lines if "tren" in line)
    assert "2, 1" in row and "1×2 + 0×1 = 2" in row
    assert any("1×0 + 0×2 = 0" in line for line in lines)
    assert any("1×1 + 0×1 = 1" in line for line in lines)


def test_softmax_steps_lay_out_powers_total_and_weights(run):
    result = run("softmax", "2", "0", "1", "--tokens", "tren,va,lleno", "--steps")
    assert result.exit_code == 0, result.output
    rows = {line.split()[0]: line.split() for line in result.stdout.splitlines() if line.strip()}
    assert rows["tren"][1:] == ["2", "7.39", "0.665"]
    assert rows["va"][1:] == ["0", "1.00", "0.090"]
    assert rows["lleno"][1:] == ["1", "2.72", "0.245"]
    assert rows["Total"][1:] == ["11.11", "1.000"]
    assert "÷ 11.11" in result.stdout


def test_mix_steps_lay_out_products_and_output(run):
    result = run(
        "mix",
        "--weights",
        "0.665,0.090,0.245",
        "--values",
        "[[10,0],[0,10],[5,5]]",
        "--tokens",
        "tren,va,lleno",
        "--steps",
    )
    assert result.exit_code == 0, result.output
    out = result.stdout
    # 0.245 × 5 is 1.225: the rounded weight typed in gives 1.23, as on a calculator.
    assert "6.65, 0" in out and "0, 0.90" in out and "1.23, 1.23" in out
    assert "≈ 7.88, 2.12" in out


def test_whole_chain_steps_from_sample(run_json, run):
    weighted = run_json("softmax", input=json.dumps(run_json("score", "-i", TREN)))
    result = run("mix", "--steps", input=json.dumps(weighted))
    assert result.exit_code == 0, result.output
    # With the weights at full precision, 0.2447 × 5 = 1.22, as the course's table has it.
    assert "6.65, 0" in result.stdout and "1.22, 1.22" in result.stdout
    assert "≈ 7.88, 2.12" in result.stdout


def test_steps_on_grid_explains_last_row_by_default_or_the_one_picked(run):
    last = run("score", "-i", TREN_GRID, "--steps")
    assert "lleno (1, 0)" in last.stdout
    by_token = run("score", "-i", TREN_GRID, "--steps", "--token", "va")
    assert "va (1, 1)" in by_token.stdout and "1×2 + 1×1 = 3" in by_token.stdout
    by_row = run("score", "-i", TREN_GRID, "--steps", "--row", "1")
    assert "tren (0, 1)" in by_row.stdout


@pytest.mark.parametrize(
    "line",
    [
        ("score", "-i", TREN_GRID, "--token", "va"),
        ("score", "-i", TREN_GRID, "--row", "1"),
        ("selfattn", "el tren va lleno", "--token", "tren"),
        ("selfattn", "the keys", "--model", "all-MiniLM-L6-v2", "--head", "1", "--row", "2"),
        ("rollout", "the keys", "--model", "all-MiniLM-L6-v2", "--token", "keys"),
    ],
)
def test_a_row_picked_without_steps_is_refused_not_ignored(run, line):
    option = "--row" if "--row" in line else "--token"
    for lang in ("en", "es"):
        result = run(*line, "--lang", lang)
        assert result.exit_code == 2 and result.stdout == "", result.stdout
        assert result.error.msgid == "{option} {why}; add {needed}"
        assert plain(result.error.fields["why"])[0] == "picks the row that --steps explains"
        assert result.error.fields["option"] == option and result.stderr.count("\n") == 1
    explained = run(*line, "--steps", "--format", "table")
    assert explained.exit_code == 0, explained.stderr


def test_the_tiled_row_is_picked_by_token_without_steps(run):
    tiled = run("selfattn", "el tren va lleno", "--tiles", "2,2", "--token", "tren")
    assert tiled.exit_code == 0 and json.loads(tiled.stdout)["token"] == 2  # 1 = the first


def test_digits_changes_decimals(run):
    result = run("softmax", "2", "0", "1", "--steps", "--digits", "4")
    assert "0.6652" in result.stdout and "7.3891" in result.stdout


def test_steps_with_json_carry_the_steps_as_data(run_json):
    document = run_json("softmax", "2", "0", "1", "--steps", "--json")
    (step,) = document["steps"]
    assert step["step"] == "softmax"
    assert step["total"] == pytest.approx(11.107337927389695)
    assert [row["token"] for row in step["rows"]] == ["k1", "k2", "k3"]


def test_format_table_and_json_flag(run):
    table = run("softmax", "2", "0", "1", "--format", "table")
    assert table.exit_code == 0 and "0.665" in table.stdout and "{" not in table.stdout
    as_json = run("softmax", "2", "0", "1", "--json")
    assert json.loads(as_json.stdout)["weights"][0] == pytest.approx(0.66524, abs=1e-5)


def test_grid_weights_table_marks_row_maximum(run):
    scored = run("score", "-i", TREN_GRID, "--json").stdout
    result = run("softmax", "--format", "table", input=scored)
    assert "0.665*" in result.stdout and "0.576*" in result.stdout


def test_bare_array_is_scores_for_softmax(run_json):
    assert run_json("softmax", input="[2, 0, 1]")["weights"][0] == pytest.approx(0.66524, abs=1e-5)


def test_stable_and_masked_softmax(run_json):
    assert run_json("softmax", "1000", "0", "-1000")["weights"] == [1.0, 0.0, 0.0]
    masked = run_json("softmax", "2", "-inf", "1")
    assert masked["weights"][1] == 0.0 and masked["scores"][1] is None
    # null reads back as masked, so the output pipes on.
    assert run_json("softmax", input=json.dumps(masked))["weights"] == masked["weights"]
    assert run_json("softmax", "-inf", "-inf")["weights"] == [0.0, 0.0]


def test_temperature(run_json):
    hot = run_json("softmax", "2", "0", "1", "--temperature", "100")["weights"]
    cold = run_json("softmax", "2", "0", "1", "-t", "0.01")["weights"]
    assert max(hot) - min(hot) < 0.02 and cold[0] == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("method", "fields"),
    [("general", {"w_a"}), ("additive", {"w_1", "w_2", "v_a"}), ("scaled", set())],
)
def test_methods_show_their_drawn_parameters(run_json, method, fields):
    document = run_json("score", "-i", TREN, "--method", method)
    assert fields <= set(document)
    assert ("seed" in document) == bool(fields)
    again = run_json("score", "-i", TREN, "--method", method)
    assert again["scores"] == document["scores"]


def test_scaled_divides_by_root_dk(run_json):
    scores = run_json("score", "-i", TREN, "--method", "scaled")["scores"]
    assert scores == pytest.approx([2 / 2**0.5, 0.0, 1 / 2**0.5])


def test_given_parameters_are_used(run_json):
    document = run_json(
        "score",
        "-i",
        "-",
        "--query",
        "1,0",
        "--keys",
        "[[2,1],[0,2]]",
        "--method",
        "general",
        input=json.dumps({"w_a": [[1, 0], [0, 1]]}),
    )
    assert document["scores"] == [2.0, 0.0] and "seed" not in document


def test_additive_parameters_follow_d_a(run_json):
    document = run_json("score", "-i", TREN, "--method", "additive", "--d-a", "5")
    assert len(document["v_a"]) == 5 and len(document["w_1"]) == 5


def test_inline_options_override_document(run_json):
    document = run_json("score", "-i", TREN, "--query", "0,1")
    assert document["scores"] == [1.0, 2.0, 1.0]


def test_seed_changes_drawn_parameters(run_json):
    a = run_json("score", "-i", TREN, "--method", "general", "--seed", "1")["scores"]
    b = run_json("score", "-i", TREN, "--method", "general", "--seed", "2")["scores"]
    assert a != b


def test_tokens_are_data_not_markup(run):
    result = run("softmax", "2", "0", "--tokens", "[bold]x,\x1b[31mred", "--steps")
    assert result.exit_code == 0, result.output
    assert "[bold]x" in result.stdout
    assert "\x1b" not in result.stdout and "\\x1b[31mred" in result.stdout


def test_help_shows_examples(run):
    assert "Example" in run("--help").stdout
    for command in ("score", "softmax", "mix", "selfattn", "compare-scores", "exercise"):
        result = run(command, "-h")
        assert result.exit_code == 0 and "Example: attn " + command in result.stdout


def test_version(run):
    from attncli import __version__

    result = run("--version")
    assert result.exit_code == 0 and result.stdout == f"attn {__version__}\n"


def test_only_the_named_command_is_built_and_behaves_the_same():
    from typer.testing import CliRunner

    from attncli.cli.app import app
    from attncli.cli.group import app_for

    single = app_for(app, ["softmax", "2", "0", "1", "--json"])
    assert single is not app and len(single.registered_commands) == 1
    assert app_for(app, []) is app and app_for(app, ["--help"]) is app
    runner = CliRunner()
    for arguments in (["softmax", "2", "0", "1", "--json"], ["softmax", "-h"], ["softmax", "x"]):
        full, alone = (
            runner.invoke(app, arguments),
            runner.invoke(app_for(app, arguments), arguments),
        )
        assert (full.exit_code, full.stdout, full.stderr) == (
            alone.exit_code,
            alone.stdout,
            alone.stderr,
        )


def _fails(result, *fragments):
    assert result.exit_code != 0
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    message = result.stderr.strip()
    assert message.count("\n") == 0, message
    for fragment in fragments:
        assert fragment in message, message


@pytest.mark.parametrize(
    ("args", "stdin", "kind", "msgid", "fields"),
    [
        (
            ["softmax"],
            '{"scores": [1, 2',
            InputError,
            ("{source}: not valid JSON at line {lineno}, column {colno}: {msg} ({expected})"),
            {
                "source": "stdin",
                "lineno": 1,
                "colno": 17,
                "msg": ("Expecting ',' delimiter", {}),
                "expected": (
                    "expected an object such as {EXAMPLE_DOCUMENT}, or a bare array",
                    {"EXAMPLE_DOCUMENT": '{"scores": [2, 0, 1]}'},
                ),
            },
        ),
        (
            ["softmax"],
            '{"scores": [[1, 2], [3]]}',
            ShapeError,
            (
                "{field}: row {index} has {row}, row 1 has {rows} (every row "
                "must have the same length)"
            ),
            {"field": "scores", "index": 2, "row": ("{count} number", {"count": 1}), "rows": 2},
        ),
        (
            ["softmax"],
            '{"scores": [1, "a"]}',
            InputError,
            WRONG,
            {
                "where": ("{field}, item {item}", {"field": "scores", "item": 2}),
                "kind": ("{value} (a string)", {"value": '"a"'}),
                "expected": MASKED_NUMBER,
            },
        ),
        (
            ["softmax"],
            '{"scores": [1, true]}',
            InputError,
            WRONG,
            {
                "where": ("{field}, item {item}", {"field": "scores", "item": 2}),
                "kind": ("{value} (a boolean)", {"value": "true"}),
                "expected": MASKED_NUMBER,
            },
        ),
        (
            ["softmax"],
            '{"scores": [[[1]]]}',
            InputError,
            WRONG,
            {
                "where": (
                    "{field}: row {row}, item {item}",
                    {"field": "scores", "row": 1, "item": 1},
                ),
                "kind": ("a list, nested too deep", {}),
                "expected": MASKED_NUMBER,
            },
        ),
        (
            ["softmax"],
            "[" * 50000,
            InputError,
            ("{source}: JSON nested too deep (a vector is [1, 0], a matrix [[2, 1], [0, 2]])"),
            {"source": "stdin"},
        ),
        (
            ["softmax"],
            '{"scores": []}',
            InputError,
            EMPTY,
            {"where": "scores", "expected": ("at least one number", {})},
        ),
        (
            ["softmax"],
            '{"scores": [[]]}',
            InputError,
            EMPTY,
            {
                "where": ("{field}: row {row}", {"field": "scores", "row": 1}),
                "expected": ("at least one number", {}),
            },
        ),
        (
            ["softmax"],
            '{"scores": [1, NaN]}',
            InputError,
            WRONG,
            {
                "where": ("{field}, item {item}", {"field": "scores", "item": 2}),
                "kind": "NaN",
                "expected": MASKED_FINITE,
            },
        ),
        (
            ["softmax"],
            '{"scores": [1, 1e999]}',
            InputError,
            WRONG,
            {
                "where": ("{field}, item {item}", {"field": "scores", "item": 2}),
                "kind": TOO_LARGE,
                "expected": MASKED_FINITE,
            },
        ),
        (
            ["softmax"],
            '{"scores": [1, Infinity]}',
            InputError,
            WRONG,
            {
                "where": ("{field}, item {item}", {"field": "scores", "item": 2}),
                "kind": "Infinity",
                "expected": MASKED_FINITE,
            },
        ),
        (
            ["softmax"],
            '{"tokens": ["a"]}',
            InputError,
            "missing field '{field}': {hint}",
            {
                "field": "scores",
                "hint": (
                    "give '{field}' ({what}), e.g. {example}, or {chained}",
                    {
                        "field": "scores",
                        "what": ("a score per key, or a row per query", {}),
                        "example": "attn softmax 2 0 1",
                        "chained": ("pipe attn score", {}),
                    },
                ),
            },
        ),
        (
            ["softmax"],
            '"hello"',
            InputError,
            WRONG,
            {
                "where": "stdin",
                "kind": ("{value} (a string)", {"value": '"hello"'}),
                "expected": ("a JSON object or array", {}),
            },
        ),
        (
            ["softmax", "2", "x"],
            None,
            InputError,
            WRONG,
            {
                "where": ("{field}: argument {position}", {"field": "scores", "position": 2}),
                "kind": "'x'",
                "expected": ("a finite number (or -inf for masked)", {}),
            },
        ),
        (
            ["softmax", "2", "--jsn"],
            None,
            InputError,
            "no such option: {text} (see --help)",
            {"text": "--jsn"},
        ),
        (
            ["softmax", "2", "1", "--temperature", "0"],
            None,
            OptionError,
            TRY,
            {
                "refusal": (ABOVE, {"setting": "--temperature 0.0", "above": "0"}),
                "example": "--temperature 1",
            },
        ),
        (
            ["softmax", "2", "1", "--tokens", "a,b,c"],
            None,
            ShapeError,
            DISAGREE,
            {
                "field": "--tokens",  # named as typed; the scores were arguments
                "found": ("{count} name", {"count": 3}),
                "other": "scores",
                "bound": ("{count} number", {"count": 2}),
                "dimension": "T_k",
            },
        ),
        (
            ["score", "--query", "1,0,3", "--keys", "[[2,1],[0,2]]"],
            None,
            ShapeError,
            (
                "{query} has {numbers} but each key has {key_size} ({method} "
                "takes the dot product of the two, so they must be equal; {general} or "
                "{additive} allow different sizes)"
            ),
            {
                "general": "--method general",
                "additive": "--method additive",
                "query": ("the query", {}),
                "numbers": ("{count} number", {"count": 3}),
                "key_size": 2,
                "method": "--method dot",
            },
        ),
        (
            ["score", "--queries", "[[1,0,0]]", "--keys", "[[2,1]]"],
            None,
            ShapeError,
            (
                "{query} has {numbers} but each key has {key_size} ({method} "
                "takes the dot product of the two, so they must be equal; {general} or "
                "{additive} allow different sizes)"
            ),
            {
                "general": "--method general",
                "additive": "--method additive",
                "query": ("each query", {}),
                "numbers": ("{count} number", {"count": 3}),
                "key_size": 2,
                "method": "--method dot",
            },
        ),
        (
            ["score", "--query", "1,0", "--keys", "2,1"],
            None,
            InputError,
            (
                "{error} (if {option} {given} holds decimal commas: inside "
                "an option a comma separates numbers and ';' rows, so write "
                "decimals with a point, {option} {meant}, or give JSON)"
            ),
            {
                "error": (
                    WRONG,
                    {
                        "where": "--keys",
                        "kind": ("a single row (wrap it in [ ] for a matrix of one row)", {}),
                        "expected": ("a matrix, a row per token, such as [[2, 1], [0, 2]]", {}),
                    },
                ),
                "option": "--keys",
                "given": "'2,1'",
                "meant": "'2.1'",
            },
        ),
        (
            ["score", "--keys", "[[2,1]]"],
            None,
            InputError,
            "missing field '{field}': {hint}",
            {
                "field": "query",
                "hint": (
                    "give '{first}' ({first_what}) or '{second}' ({second_what}), e.g. {example}",
                    {
                        "first": "query",
                        "first_what": ("one vector", {}),
                        "second": "queries",
                        "second_what": ("a row per query", {}),
                        "example": ("--query 1,0", {}),
                    },
                ),
            },
        ),
        (
            ["score", "--query", "1,0"],
            None,
            InputError,
            "missing field '{field}': {hint}",
            {
                "field": "keys",
                "hint": (
                    "give '{field}' ({what}), e.g. {example}",
                    {
                        "field": "keys",
                        "what": ("a row per token", {}),
                        "example": "--keys '[[2,1],[0,2]]'",
                    },
                ),
            },
        ),
        (
            ["score", "--query", "1,a", "--keys", "[[2,1]]"],
            None,
            InputError,
            WRONG,
            {
                "where": ("{field}, item {item}", {"field": "--query", "item": 2}),
                "kind": "'a'",
            },
        ),
        (
            ["score", "-i", "/nonexistent/x.json"],
            None,
            InputError,
            (
                "cannot read '{path}': no such file (check the path given to "
                "{option}; attn samples lists the samples installed with "
                "attn)"
            ),
            {"path": "/nonexistent/x.json", "option": "-i"},
        ),
        (
            ["score", "-i", "."],
            None,
            InputError,
            "cannot read '{path}': it is a folder, not a file",
            {"path": "."},
        ),
        (
            ["score", "-i", "-"],
            "",
            InputError,
            EMPTY,
            {"where": "stdin", "expected": NAMED_FIELDS},
        ),
        (
            ["score", "-i", "-"],
            "[[1,2]]",
            InputError,
            WRONG,
            {"where": "stdin", "kind": ("a list", {}), "expected": NAMED_FIELDS},
        ),
        (
            ["score", "-i", "-", "--query", "1,0", "--keys", "[[2,1]]", "--method", "general"],
            '{"w_a": [[1,0,0],[0,1,0]]}',
            ShapeError,
            DISAGREE,
            {
                "field": "w_a",
                "found": ("{numbers} a row", {"numbers": ("{count} number", {"count": 3})}),
                "other": "--keys",  # the document's field by its name, the option's by it
                "dimension": "d_k",
            },
        ),
        (
            [
                "score",
                "-i",
                "-",
                "--query",
                "1,0",
                "--keys",
                "[[2,1]]",
                "--method",
                "additive",
                "--d-a",
                "3",
            ],
            '{"v_a": [1, 2]}',
            ShapeError,
            DISAGREE,
            {
                "field": "v_a",
                "found": ("{count} number", {"count": 2}),
                "other": "--d-a 3",
                "dimension": "d_a",
            },
        ),
        (
            ["score", "-i", str(SAMPLES / "tren-grid.json"), "--steps", "--row", "9"],
            None,
            OptionError,
            "{option} is out of range: {there} (1 to {total})",
            {"option": "--row 9", "there": ("there are {total} rows", {"total": 3})},
        ),
        (
            ["score", "-i", str(SAMPLES / "tren-grid.json"), "--steps", "--token", "coche"],
            None,
            InputError,
            "{token} is not a row here; the rows are: {rows}",
            {"token": "--token 'coche'", "rows": "tren, va, lleno"},
        ),
        (
            ["mix", "--weights", "0.5,0.5", "--values", "[[1,2]]"],
            None,
            ShapeError,
            DISAGREE,
            {
                "field": "--values",
                "found": ("{count} row", {"count": 1}),
                "other": "--weights",
                "bound": ("{count} number", {"count": 2}),
                "dimension": "T_k",
            },
        ),
        (
            ["mix", "--weights", "[[0.5,0.5],[1,0]]", "--values", "[[1,2]]"],
            None,
            ShapeError,
            DISAGREE,
            {
                "field": "--values",
                "found": ("{count} row", {"count": 1}),
                "other": "--weights",
                "bound": ("{numbers} a row", {"numbers": ("{count} number", {"count": 2})}),
                "dimension": "T_k",
            },
        ),
        (
            ["mix", "--weights", "1"],
            None,
            InputError,
            "missing field '{field}': {hint}",
            {
                "field": "values",
                "hint": (
                    "give '{field}' ({what}), e.g. {example}",
                    {
                        "field": "values",
                        "what": ("a row per token", {}),
                        "example": "--values '[[10,0],[0,10]]'",
                    },
                ),
            },
        ),
        (
            ["mix"],
            '{"weights": [1, 0], "values": [[1], [2]], "keys": [[1], [2], [3]]}',
            ShapeError,
            DISAGREE,
            {
                "field": "values",
                "found": ("{count} row", {"count": 2}),
                "other": "keys",
                "bound": ("{count} row", {"count": 3}),
                "dimension": "T_k",
            },
        ),
    ],
)
def test_bad_input_is_one_clear_line(run, args, stdin, kind, msgid, fields):
    result = run(*args, input=stdin)
    _fails(result)
    told(result.error, kind, msgid, **fields)


def test_typer_usage_errors_have_no_traceback(run):
    result = run("score", "--method", "euclidean")
    assert result.exit_code == 2 and result.stdout == ""
    assert "euclidean" in result.stderr and "Traceback" not in result.stderr
