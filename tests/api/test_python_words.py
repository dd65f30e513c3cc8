"""The Python API speaks Python: an error from attn.selfattn(...) names keyword arguments
(heads=h, draw_missing=True, d_model=5), the command line the same error with its options
(--heads h, --draw-missing, --d-model 5); a notebook cell shows no command-line advice."""

from __future__ import annotations

import html
import os
import re
from pathlib import Path

import numpy as np
import pytest

import attncli as attn
from attncli.errors import AttnError, OptionError
from tests.conftest import SAMPLES
from tests.meaning import told

X = np.arange(12.0).reshape(3, 4) / 10
OPTION = re.compile(r"(?<![\w-])--[a-z]")
SHORT = re.compile(r"(?<![\w-])-[a-z] ")  # -i FILE


def _python_error(**kwargs: object) -> str:
    with pytest.raises(AttnError) as raised:
        attn.selfattn(**kwargs)
    return str(raised.value)


@pytest.mark.parametrize(
    ("kwargs", "python", "cli_args", "cli"),
    [
        (
            {"x": X, "weights": str(SAMPLES / "mha.safetensors")},
            "give heads=h",
            ("-i", str(SAMPLES / "mha_x.npy"), "--weights", str(SAMPLES / "mha.safetensors")),
            "give --heads h",
        ),
        (
            {"x": X, "w_q": np.eye(4)},
            "or draw_missing=True to draw w_k, w_v from seed=0",
            ("-i", "-"),
            "or --draw-missing to draw w_k, w_v from --seed 0",
        ),
        (
            {"x": X, "d_model": 5},
            "where d_model=5 has 5 numbers",
            ("-i", "-", "--d-model", "5"),
            "where --d-model 5 has 5 numbers",
        ),  # fmt: skip
        (
            {"x": X, "heads": 2, "projections": False},
            "heads goes with the projections; drop projections=False or heads",
            ("-i", "-", "--heads", "2", "--no-proj"),
            "--heads goes with the projections; drop --no-proj or --heads",
        ),  # fmt: skip
        (
            {"x": X, "w_o": np.eye(4)},
            "w_o joins the heads of heads=h through W^O; give heads",
            ("-i", "-"),
            "w_o joins the heads of --heads h through W^O; give --heads",
        ),  # fmt: skip
    ],
)
def test_an_error_names_keywords_in_python_and_options_on_the_command_line(
    run, kwargs, python, cli_args, cli
):
    said = _python_error(**kwargs)
    assert python in said and not OPTION.search(said), said
    document = {
        "x": X.tolist(),
        **{k: np.asarray(v).tolist() for k, v in kwargs.items() if k in ("w_q", "w_o")},
    }
    import json

    result = run("selfattn", *cli_args, input=json.dumps(document))
    assert result.exit_code != 0 and cli in result.stderr, result.stderr


def test_a_notebook_shows_no_command_line_advice(run):
    shown = attn.selfattn(x=X)._repr_html_()
    assert "Weights" in shown and not OPTION.search(shown.replace("&#x27;", "'"))
    terminal = run("selfattn", "-i", "-", "--format", "table", input='{"x": [[1, 0], [0, 1]]}')
    assert "--steps --token T" in terminal.stdout  # where it can be typed, it is said


# A result read back must be asked for as it was computed: the fix names the setting as
# the surface that reads the error writes it.
READ_BACK = [
    ({"causal": True}, {}, "read it back with --causal", "read it back with causal=True"),
    ({}, {"causal": True}, "read it back without --causal", "read it back with causal=False"),
    ({"scale": False}, {}, "read it back with --no-scale", "read it back with scale=False"),
    ({}, {"scale": False}, "read it back without --no-scale", "read it back with scale=True"),
    ({"projections": False}, {}, "read it back with --no-proj",
     "read it back with projections=False"),
    ({"heads": 2}, {}, "read it back with --heads 2", "read it back with heads=2"),
    ({}, {"heads": 2}, "read it back without --heads", "read it back without heads"),
    ({"dtype": "float32"}, {}, "read it back with --dtype float32",
     "read it back with dtype='float32'"),
    ({"positions": "rope"}, {}, "read it back with --positions rope and --rope-base 10000.0",
     "read it back with positions='rope' and rope_base=10000.0"),
    ({}, {"positions": "rope"}, "read it back without --positions rope",
     "read it back without positions='rope'"),
    ({"window": 2}, {}, "read it back with --window 2", "read it back with window=2"),
    ({"alibi": True, "heads": 2}, {"heads": 2}, "read it back with --alibi",
     "read it back with alibi=True"),
    ({"add_zero_attn": True}, {}, "read it back with --add-zero-attn",
     "read it back with add_zero_attn=True"),
]  # fmt: skip


@pytest.mark.parametrize(("computed", "asked", "cli", "python"), READ_BACK)
def test_a_read_back_names_its_fix_as_keywords_in_python(computed, asked, cli, python):
    from attncli.layer import settings_from_keywords
    from attncli.reading.check.fields import check_read_back
    from attncli.reading.parse.layer_inputs import LayerInputs

    document = attn.selfattn("las llaves del coche", **computed).to_document()
    with pytest.raises(AttnError) as raised:
        inputs = LayerInputs.from_document(document)
        check_read_back(inputs, settings_from_keywords(attn.selfattn, **{"causal": False, **asked}))
    error = raised.value
    assert error.message("en", "python").endswith(python), error.message("en", "python")
    assert not OPTION.search(str(error))
    assert error.message("en", "cli").endswith(cli), error.message("en", "cli")


def test_a_read_back_says_the_same_on_the_command_line(run):
    import json

    piped = run("selfattn", "las llaves", "--causal", "--json").stdout
    result = run("selfattn", "-i", "-", input=piped)
    assert result.exit_code != 0 and result.stdout == ""
    assert result.stderr.rstrip().endswith("read it back with --causal"), result.stderr
    hand_written = json.dumps({"x": [[1, 0], [0, 1]], "heads": 2})
    said = run("selfattn", "-i", "-", input=hand_written).stderr
    assert "it is an option here, give --heads h" in said and said.count("\n") == 1


@pytest.mark.parametrize(
    ("kwargs", "python"),
    [
        ({"x": X, "d_k": 2, "projections": False},
         "d_k goes with the projections; drop projections=False or d_k"),
        ({"x": X, "d_v": 2, "projections": False}, "drop projections=False or d_v"),
        ({"x": X, "norm": 2.0}, "gives X itself; drop norm"),
    ],
)  # fmt: skip
def test_sizes_that_would_not_be_used_name_keywords(kwargs, python):
    said = _python_error(**kwargs)
    assert python in said and not OPTION.search(said), said


@pytest.mark.parametrize(
    ("cli_args", "cli"),
    [
        (("las llaves", "--no-proj", "--d-k", "2"), "drop --no-proj or --d-k"),
        (("-i", "-", "--norm", "2"), "gives X itself; drop --norm"),
    ],
)
def test_sizes_that_would_not_be_used_name_options_on_the_command_line(run, cli_args, cli):
    result = run("selfattn", *cli_args, input='{"x": [[1, 0], [0, 1]]}')
    assert result.exit_code != 0 and cli in result.stderr and result.stderr.count("\n") == 1


def test_a_document_s_setting_is_named_as_python_names_it():
    from attncli.reading.check.fields import unknown_field

    named = (
        ("heads", "give heads=h", "give --heads h"),
        ("divisor", "give scale_by=S", "give --scale S"),
        ("scale", "give scale=False", "give --no-scale"),
        ("projections", "give projections=False", "give --no-proj"),
    )
    for name, python, cli in named:
        error = unknown_field(name)
        assert python in str(error) and not OPTION.search(str(error)), str(error)
        assert cli in error.message("en", "cli")


def test_the_gradient_s_missing_target_is_asked_for_as_python_writes_it(run):
    with pytest.raises(AttnError) as raised:
        attn.grad(query=[1, 0], keys=[[2, 1], [0, 2]], values=[[1, 0], [0, 1]])
    assert str(raised.value).endswith("e.g. target=[8, 2]") and not OPTION.search(str(raised.value))
    result = run("grad", "-i", "-", input='{"query": [1, 0], "keys": [[2, 1], [0, 2]], '
                                            '"values": [[1, 0], [0, 1]]}')  # fmt: skip
    assert result.stderr.rstrip().endswith("e.g. --target 8,2"), result.stderr


def _terminal_text(result) -> str:
    """The result as the command line's screen shows it (its own surface), as text."""
    from rich.console import Console

    from attncli.present.format import Format
    from attncli.present.views import view_of

    console = Console(width=100, record=True, file=open(os.devnull, "w"))  # noqa: SIM115
    console.print(*view_of(result, Format()))
    return console.export_text()


def _cell_text(result) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", result._repr_html_()))


LLAMA = Path(__file__).parents[1] / "models" / "tiny-llama"
NOTEBOOK = {
    # name: (the result, what the notebook says instead, what the command line says)
    "drawn": (lambda: attn.selfattn(x=X, w_q=np.eye(4), draw_missing=True),
              "(draw_missing=True)", "(--draw-missing)"),
    "untrained": (lambda: attn.selfattn("el tren va lleno", heads=2),
                  "samples/llaves.json (attncli.samples() lists it) has weights set by hand",
                  "-i samples/llaves.json has weights set by hand"),
    "long": (lambda: attn.selfattn(x=np.random.default_rng(0).normal(size=(40, 4))),
             "the result's arrays hold them all", "--json has them all"),
    "batch": (lambda: attn.selfattn(x=np.random.default_rng(0).normal(size=(2, 3, 4))),
              "(result.item(n) is sequence n)", "(--json has all)"),
    "heads taken": (lambda: attn.selfattn(x=np.load(SAMPLES / "mha_x.npy"), heads=2,
                                          weights=str(SAMPLES / "mha.safetensors")),
                    "heads=2 is taken as given", "--heads 2 is taken as given"),
    "online": (lambda: attn.online_softmax([2, 0, 1, 3]),
               "result.view(show=frozenset([\"steps\"]))", "--steps shows the blocks"),
    "trained": (lambda: attn.train("las llaves del coche están ahí", want="están=llaves"),
                "(corpus=)", "attn train --corpus"),
    "ranking": (lambda: attn.heads("the keys to the cabinet are on the table",
                                   model="all-MiniLM-L6-v2", source="are", target="keys"),
                "result.ranking holds them all", "--all shows them all"),
    "predict": (lambda: attn.predict("the keys of the car", str(LLAMA), top_k=3, top_p=0.9),
                "drawn from 3 of the 396 tokens: the 3 likeliest (top-k);",
                "--steps lays the softmax out."),
}  # fmt: skip


@pytest.mark.parametrize("name", NOTEBOOK)
def test_a_notebook_names_no_option_where_the_terminal_does(name):
    make, python, cli = NOTEBOOK[name]
    result = make()
    cell = _cell_text(result)
    assert python in cell and not OPTION.search(cell) and not SHORT.search(cell), cell
    assert cli in _terminal_text(result)  # the same result, where an option can be typed


@pytest.mark.parametrize("name", NOTEBOOK)
def test_rich_print_in_a_python_session_names_no_option_either(name):
    make, python, _cli = NOTEBOOK[name]
    from rich.console import Console

    result = make()
    console = Console(width=100, record=True, file=open(os.devnull, "w"))  # noqa: SIM115
    console.print(result)
    printed = console.export_text()
    assert python in printed and not OPTION.search(printed) and not SHORT.search(printed), printed


def test_a_notebook_lists_the_samples_by_their_files_not_commands_to_type():
    samples = attn.samples()
    cell = _cell_text(samples)
    assert "File" in cell and "Try" not in cell
    assert "attn selfattn -i" not in cell and "tren.json" in cell
    terminal = _terminal_text(samples)
    assert "Try" in terminal and "attn selfattn -i" in terminal


PYTHON_ERRORS = {
    # name: (the call, what the error names)
    "worksheet positions": (lambda: attn.exercise(positions="sinusoidal"),
                            "positions='sinusoidal': give one of rope"),
    "worksheet rope": (lambda: attn.exercise(positions="rope", method="scaled"),
                       "method='scaled' with positions='rope': the worksheet turns one pair "
                       "(dim=2) by quarter turns and scores it by the dot product; leave out "
                       "method='scaled'"),
    "check selfattn": (lambda: attn.check(answers=[], method="scaled", selfattn=True),
                       "method='scaled' with selfattn=True"),
    "window across": (lambda: attn.selfattn("el tren", context="va lleno", window=1),
                      "window counts the positions of one sequence"),
    "rope base": (lambda: attn.selfattn("el tren", positions="rope", rope_base=1),
                  "rope_base=1: it must be a number above 1"),
    "rope across": (lambda: attn.selfattn("el tren", context="va lleno", positions="rope"),
                    "positions='rope' counts the positions of one sequence"),
    "rope zero": (lambda: attn.selfattn("el tren", positions="rope", add_zero_attn=True),
                  "positions='rope' with add_bias_kv's or add_zero_attn's extra keys"),
    "rope backward": (lambda: attn.selfattn(x=X, positions="rope", target=X),
                      "leave out the gradient (grad_output, target)"),
    "rope odd": (lambda: attn.selfattn("el tren", positions="rope", d_k=3),
                 "give an even d_k"),
    "train nothing": (lambda: attn.train(), "or corpus=…, one of the two"),
    "train lr": (lambda: attn.train("el tren", want="tren=el", lr=-1),
                 "lr=-1: it must be a number above 0 (try lr=0.1)"),
    "train causal": (lambda: attn.train("el tren", want="el=tren", causal=True),
                     "want='el=tren': with causal=True a token sees only itself"),
    "want twice": (lambda: attn.train("la casa de la llave", want="la=casa"),
                   "want='la=casa': «la» appears 2 times (positions 1, 4); name it by its "
                   "position, e.g. want='4=casa'"),
    "want nothing": (lambda: attn.train("el tren"), "e.g. want='están=llaves'"),
    "scaling d_k": (lambda: attn.scaling(d_k=[0]),
                    "d_k: give one d_k or more, each 1 or more, e.g. d_k=[8, 64, 512]"),
    "compare d_ks": (lambda: attn.compare_scores(d_ks=[8, 0]),
                     "d_ks: give one d_k or more, each 1 or more, e.g. d_ks=[8, 64, 512]"),
    "compare no d_ks": (lambda: attn.compare_scores(d_ks=[]),
                        "d_ks: give one d_k or more, each 1 or more, e.g. d_ks=[8, 64, 512]"),
    "compare tx": (lambda: attn.compare_scores(tx=0), "tx=0: it must be 1 or more"),
    "d_model": (lambda: attn.selfattn("las llaves", d_model=0),
                "d_model=0: it must be 1 or more"),
    "heads 0": (lambda: attn.selfattn("las llaves", heads=0), "heads=0: it must be 1 or more"),
    "exercise size": (lambda: attn.exercise(size=0), "size=0: give 1 to 8 tokens"),
    "exercise dim": (lambda: attn.exercise(dim=0), "dim=0: give 1 to 8 numbers per vector"),
    "compare threads": (lambda: attn.compare_scores(threads=10_000),
                        "threads=10000: this machine has"),
    "rollout to": (lambda: attn.rollout("the keys", model="all-MiniLM-L6-v2", to="keys"),
                   "to='keys' picks the cell cell=True writes out; add cell=True"),
}  # fmt: skip


@pytest.mark.parametrize("name", PYTHON_ERRORS)
def test_an_api_refusal_names_keywords(name):
    call, python = PYTHON_ERRORS[name]
    with pytest.raises(AttnError) as raised:
        call()
    said = str(raised.value)
    assert python in said and not OPTION.search(said), said
    assert OPTION.search(raised.value.message("en", "cli"))  # the same, on the command line


def test_the_inference_views_refuse_in_python_words(run):
    lesson = "las llaves del coche"
    cases = (
        (lambda: attn.kv_cache(attn.selfattn(lesson)), "kv_cache() replays a causal layer",
         "add causal=True"),
        (lambda: attn.tiles(attn.selfattn(lesson, dtype="float32"), 2, 2),
         "tiles() works in float64", "leave out dtype"),
        (lambda: attn.tiles(attn.selfattn(lesson, positions="rope"), 2, 2),
         "tiles() does not replay rotary positions", "leave out positions='rope'"),
        (lambda: attn.tiles(attn.selfattn(lesson), 0, 2), "tile_q=0: it must be 1 or more",
         "tile_q=0"),
        (lambda: attn.online_softmax([2, 0, 1], block=0), "block=0: it must be 1 or more",
         "block=0"),
    )  # fmt: skip
    for call, first, second in cases:
        with pytest.raises(AttnError) as raised:
            call()
        said = str(raised.value)
        assert first in said and second in said and not OPTION.search(said), said
    refused = run("selfattn", lesson, "--kv-cache")  # the same refusal, in options' words
    told(refused.error, OptionError, "{option} replays a causal layer, where each token sees only "
         "the ones before it; add {causal}", option="--kv-cache", causal="--causal")  # fmt: skip


@pytest.mark.parametrize(
    ("kwargs", "python"),
    [
        ({"sentence": "a b", "valid_len": 3}, "valid_len=3 is out of range"),
        ({"sentence": "a b", "norm": -1}, "norm=-1: it must be a number above 0"),
        ({"x_q": X, "x_kv": X, "d_model": 5},
         "x_q has 4 numbers a row where d_model=5 has 5 numbers"),
        ({"queries": X[:, :3], "keys": X[:, :3], "values": X, "heads": 2},
         "queries has 3 columns, which heads=2 cannot split evenly"),
        ({"x": X, "w_q": np.eye(4), "w_k": np.eye(4), "w_v": np.eye(4), "b_o": np.zeros(4)},
         "b_o is added after W^O, which only heads (without out_proj=False) has"),
    ],
)  # fmt: skip
def test_the_layer_s_checks_name_keywords(kwargs, python):
    said = _python_error(**kwargs)
    assert python in said and not OPTION.search(said), said


LLAVES = str(SAMPLES / "llaves.json")
SCORE_ONLY_SIZES = {"query": [1, 0], "keys": [[2, 1], [0, 2]], "w_a": [[1, 0], [0, 1]]}
# name: (the Python call, what Python says; the command line, its stdin, what it says)
BOTH_WAYS = {
    "temperature": (lambda: attn.softmax([2, 0, 1], temperature=0),
                    "temperature=0: it must be a number above 0",
                    ("softmax", "2", "0", "1", "--temperature", "0"), "",
                    "--temperature 0.0: it must be a number above 0"),
    "no query": (lambda: attn.score(keys=[[2, 1], [0, 2]]),
                 "'queries' (a row per query), e.g. query=[1, 0]",
                 ("score", "--keys", "[[2,1],[0,2]]"), "", "e.g. --query 1,0"),
    "no keys": (lambda: attn.score(query=[1, 0]), "e.g. keys=[[2, 1], [0, 2]]",
                ("score", "--query", "1,0"), "", "e.g. --keys '[[2,1],[0,2]]'"),
    "no values": (lambda: attn.mix([0.5, 0.5]), "e.g. values=[[10, 0], [0, 10]]",
                  ("mix", "--weights", "0.5,0.5"), "", "e.g. --values '[[10,0],[0,10]]'"),
    "no weights": (lambda: attn.mix(None, values=[[1, 0], [0, 1]]),
                   "e.g. weights=[0.665, 0.09, 0.245], or softmax()'s result",
                   ("mix", "--values", "[[1,0],[0,1]]"), "",
                   "e.g. --weights 0.665,0.090,0.245, or pipe attn softmax"),
    "no scores": (lambda: attn.softmax(None), "e.g. scores=[2, 0, 1], or score()'s result",
                  ("softmax",), "", "e.g. attn softmax 2 0 1, or pipe attn score"),
    "unused w_a": (lambda: attn.score(query=[1, 0], keys=[[2, 1], [0, 2]], w_a=np.eye(2)),
                   "which method='dot' does not use; give method='general', or remove",
                   ("score", "-i", "-", "--method", "dot"), SCORE_ONLY_SIZES,
                   "which --method dot does not use; give --method general, or remove"),
    "sizes": (lambda: attn.score(query=[1, 0, 3], keys=[[2, 1], [0, 2]]),
              "method='general' or method='additive' allow different sizes",
              ("score", "--query", "1,0,3", "--keys", "[[2,1],[0,2]]"), "",
              "--method general or --method additive allow different sizes"),
    "v_a": (lambda: attn.score(query=[1, 0], keys=[[2, 1]], method="additive", v_a=[1, 2],
                               d_a=3),
            "v_a has 2 numbers where d_a=3 has 3 numbers: both are d_a",
            ("score", "-i", "-", "--query", "1,0", "--keys", "[[2,1]]", "--method", "additive",
             "--d-a", "3"), {"v_a": [1, 2]},
             "v_a has 2 numbers where --d-a 3 has 3 numbers: both are d_a"),
    "d_a memory": (lambda: attn.score(query=[1, 0], keys=[[1, 0]], method="additive",
                                      d_a=10**12),
                   "additive scoring with d_a=1000000000000 would need",
                   ("score", "--query", "1,0", "--keys", "[[1,0]]", "--method", "additive",
                    "--d-a", "1000000000000"), "",
                   "additive scoring with --d-a 1000000000000 would need"),
    "dtype": (lambda: attn.selfattn("a b", dtype="int8"),
              "dtype='int8': give one of float32, float64",
              ("selfattn", "a b", "--dtype", "int8"), "",
              "--dtype int8: give one of float32, float64"),
    "scale": (lambda: attn.selfattn("a b", scale=-1), "scale=-1: it must be a number above 0",
              ("selfattn", "a b", "--scale", "-1"), "",
              "--scale -1.0: it must be a number above 0"),
    "both": (lambda: attn.selfattn("a b", x=X), "give a sentence or arrays (x, x_q, queries, …)",
             ("selfattn", "a b", "-i", LLAVES), "", "give a sentence or -i FILE, not both"),
    "nothing": (lambda: attn.selfattn(),
                'give a sentence (attncli.selfattn("las llaves del coche están ahí")) or x=…, '
                'x_q=… and x_kv=…',
                ("selfattn",), "",
                'give a sentence (attn selfattn "las llaves del coche están ahí") or -i FILE '
                'with x'),
    "layer memory": (lambda: attn.selfattn(x=X, d_k=10**9),
                     "lower d_k, or write only the output (grids=False)",
                     ("selfattn", "-i", "-", "--d-k", "1000000000"), {"x": X.tolist()},
                     "lower --d-k, or write only the output (--fields output)"),
    "compare memory": (lambda: attn.compare_scores(tx=10**6, ty=10**6),
                       "tx=1000000, ty=1000000, d_h=256, d_a=256, d_ks=[8, 64, 512] would "
                       "need",
                       ("compare-scores", "--tx", "1000000", "--ty", "1000000"), "",
                       "--tx 1000000 --ty 1000000 --d-h 256 --d-a 256 --d-k 512 would need"),
    "scaling memory": (lambda: attn.scaling(d_k=[512], rows=10**7, keys=10**7),
                       "rows=10000000, d_k=[512], keys=10000000 would need",
                       ("scaling", "--d-k", "512", "--rows", "10000000", "--keys", "10000000"),
                       "", "--rows 10000000 --d-k 512 --keys 10000000 would need"),
}  # fmt: skip


@pytest.mark.parametrize("name", BOTH_WAYS)
def test_the_calculator_and_the_layer_refuse_in_keywords_and_in_options(run, name):
    import json

    call, python, cli_args, stdin, cli = BOTH_WAYS[name]
    with pytest.raises(AttnError) as raised:
        call()
    said = str(raised.value)
    assert python in said and not OPTION.search(said) and not SHORT.search(said), said
    result = run(*cli_args, input=stdin if isinstance(stdin, str) else json.dumps(stdin))
    assert result.exit_code != 0 and result.stdout == "", result.stdout
    assert cli in result.stderr and result.stderr.count("\n") == 1, result.stderr


def test_the_command_line_s_example_is_written_as_its_language_reads_an_option(run):
    said = run("score", "--keys", "[[2,1],[0,2]]", "--lang", "es").stderr
    assert "p. ej. --query '1; 0'" in said, said
    typed = run("score", "--query", "1; 0", "--keys", "[[2,1],[0,2]]", "--lang", "es", "--json")
    assert typed.exit_code == 0 and '"scores":[2.0,0.0]' in typed.stdout  # the example works
    said = run("mix", "--values", "[[1,0],[0,1],[1,1]]", "--lang", "es").stderr
    assert "--weights '0,665; 0,090; 0,245'" in said, said
