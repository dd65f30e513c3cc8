"""attn train as a user meets it: the headline, the pipe into selfattn -i, --steps, the
corpus, every error in one line, Ctrl-C, the plot; and attn.train from Python."""

from __future__ import annotations

import json
import math
import re
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import attncli as attn
from attncli import messages
from attncli.cli import usage
from attncli.core import training
from attncli.errors import InputError, Interrupted, OptionError
from tests.conftest import SAMPLES
from tests.meaning import ABOVE, TRY, said_in_spanish, told
from tests.terminal import drawn_on_a_terminal

# an output file of a kind the option does not write (present/written.check_kind)
UNKNOWN_KIND = "{option} {path}: unknown kind {kind}; name a file ending in {kinds}"

HEADLINE = "las llaves del coche están ahí"
WANT = ("--want", "están=llaves")


@pytest.fixture(scope="module")
def headline():
    return attn.train(HEADLINE, want="están=llaves")


def test_estan_finds_llaves_and_the_loss_falls_at_every_step(run_json):
    document = run_json("train", HEADLINE, *WANT)
    loss = np.array(document["training"]["loss"])
    assert len(loss) == 301 and document["training"]["done"] == 300
    assert np.all(np.diff(loss) <= 1e-12)
    wanted = np.array(document["training"]["wanted_weights"])  # [301, 1]
    assert wanted[0, 0] < 0.05 and wanted[-1, 0] >= 0.9
    tokens = document["tokens"]
    weights = np.array(document["weights"])
    assert weights[tokens.index("están"), tokens.index("llaves")] == wanted[-1, 0]
    assert document["training"]["optimizer"] == "sgd" and document["training"]["lr"] == 0.1


def test_before_is_todays_selfattn_screen(run_json):
    trained = run_json("train", HEADLINE, *WANT)
    seeded = run_json("selfattn", HEADLINE)
    assert trained["training"]["weights_before"] == seeded["weights"]
    assert trained["training"]["w_q_before"] == seeded["w_q"]
    assert trained["w_v"] == seeded["w_v"] and trained["x"] == seeded["x"]
    assert trained["w_q"] != seeded["w_q"] and trained["w_k"] != seeded["w_k"]


def test_selfattn_reads_the_trained_layer_back_exactly(run, run_json, tmp_path):
    trained = run("train", HEADLINE, *WANT)
    assert trained.exit_code == 0, trained.stderr
    path = tmp_path / "trained.json"
    path.write_text(trained.stdout)
    again = run_json("selfattn", "-i", str(path))
    assert again["weights"] == json.loads(trained.stdout)["weights"]  # bit for bit
    piped = run_json("selfattn", input=trained.stdout)
    assert piped["weights"] == again["weights"]


def test_two_heads_causal_unscaled_read_back_with_the_same_options(run_json, tmp_path):
    options = ("--heads", "2", "--causal", "--no-scale", "--iterations", "50")
    trained = run_json("train", HEADLINE, *WANT, "--want", "coche=las", *options)
    path = tmp_path / "t.json"
    path.write_text(json.dumps(trained))
    again = run_json("selfattn", "-i", str(path), "--heads", "2", "--causal", "--no-scale")
    assert again["weights"] == trained["weights"]
    assert np.array(trained["training"]["wanted_weights"]).shape == (51, 2, 2)
    assert trained["w_o"] == run_json("selfattn", HEADLINE, "--heads", "2")["w_o"]


def test_the_same_seed_gives_the_same_numbers(run_json):
    first = run_json("train", HEADLINE, *WANT, "--optimizer", "adam", "--lr", "0.05")
    second = run_json("train", HEADLINE, *WANT, "--optimizer", "adam", "--lr", "0.05")
    assert first == second
    other = run_json("train", HEADLINE, *WANT, "--seed", "3", "--iterations", "5")
    assert other["training"]["loss"][0] != first["training"]["loss"][0]


def test_the_terminal_shows_before_after_the_curve_and_both_grids(run):
    result = run("train", HEADLINE, *WANT, "--format", "table")
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert "Training W^Q and W^K on «las llaves del coche están ahí»" in out
    assert "ℓ = −log α(están, llaves)" in out
    assert "W^V gets no gradient from a loss on the weights: it stays as drawn." in out
    assert re.search(r"están → llaves +0.029 +0.999", out)
    curve = next(line.strip() for line in out.splitlines() if line.startswith("  ▁") or
                 line.startswith("  █"))  # fmt: skip
    assert set(curve) <= set("▁▂▃▄▅▆▇█") and curve[0] == "█" and curve[-1] == "▁"
    assert "Weights before (seeded)" in out and "Weights after training" in out
    assert result.stderr == ""  # no progress bar off a terminal


def test_in_spanish(run):
    result = run("train", HEADLINE, *WANT, "--format", "table", "--lang", "es")
    assert result.exit_code == 0, result.stderr
    assert "Entrenando W^Q y W^K con «las llaves del coche están ahí»" in result.stdout
    assert re.search(r"están → llaves +0,029 +0,999", result.stdout)
    assert "W^V no recibe ningún gradiente" in result.stdout


def test_the_curve_is_the_loss_in_block_characters():
    from attncli.present.training.view import curve

    assert curve(np.array([4.0, 3.0, 2.0, 1.0]), 10, log=False) == "█▆▃▁"
    assert curve(np.array([100.0, 10.0, 1.0]), 3, log=True) == "█▅▁"
    assert len(curve(np.linspace(5, 1, 301), 64, log=False)) == 64
    assert curve(np.array([2.0, 2.0]), 5, log=False) == "▁▁"


def on_line(number: int, source: str):
    """The `at` field of a corpus line's refusal: ' (line 2 of c.txt)'."""
    return (" ({where})", {"where": ("line {number} of {source}",
                                     {"number": number, "source": source})})  # fmt: skip


NOTHING_TO_TRAIN = (
    "Q = K = V = X, so the layer has no parameter to train: W^Q, W^K and W^V are all it can learn"
)  # fmt: skip
DIVERGED = (
    "training diverged at iteration {iteration}: the loss went from {start} to {end}; the step "
    "is too large, lower {option} (it is {lr:g}), e.g. {lower}"
)


def test_no_proj_is_the_lessons_point_and_exit_2(run):
    for lang in ("en", "es"):
        result = run("train", HEADLINE, *WANT, "--no-proj", "--lang", lang)
        assert result.exit_code == 2 and result.stdout == ""
        assert result.stderr.count("\n") == 1, result.stderr
        told(
            result.error,
            OptionError,
            "{option} with {beside}: {why}",
            option="--no-proj",
            beside="attn train",
            why=(NOTHING_TO_TRAIN, {"option": "--no-proj"}),
        )
    said_in_spanish(result.error)
    assert result.stderr == f"attn: error: {result.error.message('es')}\n"


def test_a_diverging_run_stops_with_one_line_and_no_numbers(run):
    result = run("train", HEADLINE, *WANT, "--lr", "1000")
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1
    told(result.error, OptionError, DIVERGED, iteration=1, option="--lr", lr=1000.0,
         lower="--lr 100", end=("infinity", {}))  # fmt: skip
    assert result.stderr == f"attn: error: {result.error.message('en')}\n"
    # no number of the diverged run is said: none is NaN
    assert not any(isinstance(value, float) and value != value
                   for value in result.error.fields.values())  # fmt: skip


@pytest.mark.parametrize("extra", [(), ("--heads", "2"), ("--optimizer", "adam", "--heads", "2")])
def test_a_step_that_overflows_is_one_line_without_numpys_warning(run, extra):
    # --lr 1e308 overflows W − lr·∇W: the line says diverged, and no RuntimeWarning before it
    done = subprocess.run(
        [sys.executable, "-m", "attncli", "train", HEADLINE, *WANT, "--lr", "1e308", *extra],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "Warning" not in done.stderr, done.stderr
    told_in_process = run("train", HEADLINE, *WANT, "--lr", "1e308", *extra).error
    told(told_in_process, OptionError, DIVERGED, iteration=1, option="--lr")
    assert done.stderr == f"attn: error: {told_in_process.message('en')}\n"


NOTHING_TO_LEARN = "nothing to learn{at}: say which token should look at which, e.g. {example}"
NOT_A_TOKEN = (
    "{want}{at}: «{side}» is not a token of the sentence ({sentence}); name one of its "
    "tokens or a position from 1 to {last}"
)
APPEARS_TWICE = (
    "{want}{at}: «{side}» appears {times} times (positions {listed}); name it by its "
    "position, e.g. {suggestion}"
)

# (the command line, the error's kind, its msgid, the fields that say what and where)
ERRORS = [
    (("train", HEADLINE), InputError, NOTHING_TO_LEARN,
     {"at": "", "example": "--want están=llaves"}),
    (("train", HEADLINE, "--want", "están"), InputError,
     "{want}{at}: write it as query=key, the token that should look and the token it "
     "should find, e.g. {example}", {"want": "--want están", "example": "--want están=llaves"}),
    (("train", HEADLINE, "--want", "están=casa"), InputError, NOT_A_TOKEN,
     {"side": "casa", "sentence": HEADLINE, "last": 6}),
    (("train", "la casa de la llave", "--want", "la=casa"), InputError, APPEARS_TWICE,
     {"side": "la", "times": 2, "listed": "1, 4", "suggestion": "--want 4=casa"}),
    (("train", HEADLINE, "--want", "las=llaves", "--causal"), InputError,
     "{want}{where}: with {causal} a token sees only itself and the ones before it, and «{key}» "
     "comes after «{query}»; drop {causal} or want an earlier key",
     {"want": "--want las=llaves", "causal": "--causal", "query": "las", "key": "llaves"}),
    (("train", *WANT), InputError,
     "give a sentence and what it wants ({example}) or {corpus}, one of the two", {}),
    (("train", HEADLINE, *WANT, "--lr", "0"), OptionError, TRY,
     {"refusal": (ABOVE, {"setting": "--lr 0.0", "above": "0"}), "example": "--lr 0.1"}),
    (("train", HEADLINE, *WANT, "--at", "3"), OptionError,
     "{option} {why}; add {needed}", {"option": "--at 3", "needed": "--steps", "why": (
         "picks the iteration --steps works by hand", {"option": "--at 3"})}),
    (("train", HEADLINE, *WANT, "--steps", "--at", "400"), OptionError,
     "{option} is out of range: {there} (1 to {total})",
     {"option": "--at 400", "there": ("the run made {done} iterations", {"done": 300}),
      "total": 300}),
    (("train", HEADLINE, *WANT, "--steps", "--heads", "2"), OptionError,
     "--steps works one iteration of one sentence with one head; drop {option} (or train the "
     "sentence alone)", {"option": "--heads"}),
    (("train", HEADLINE, *WANT, "--save", "/no/such/folder/t.json"), OptionError,
     "{option} {path}: the folder does not exist; name a file in an existing folder",
     {"option": "--save", "path": "/no/such/folder/t.json"}),
    (("train", HEADLINE, *WANT, "--plot", "loss.bmp"), OptionError,
     UNKNOWN_KIND, {"option": "--plot", "path": "loss.bmp", "kind": ".bmp"}),
    (("train", *WANT, "--corpus", str(SAMPLES / "concordancia-entreno.txt")), OptionError,
     "{option} with {beside}: {why}", {"option": "--want", "beside": ("--corpus FILE", {}), "why": (
         "each of its sentences says its own wants{how}; leave out {option}",
         {"option": "--want", "how": (", after a | on its line", {})})}),
    (("train", "--corpus", "/no/such/corpus.txt"), InputError,
     "cannot read '{path}': no such file (check the path given to {option}; attn samples lists the "
     "samples installed with attn)", {"path": "/no/such/corpus.txt", "option": "--corpus"}),
]  # fmt: skip


@pytest.mark.parametrize(("args", "kind", "msgid", "fields"), ERRORS,
                         ids=[e[2][:30] for e in ERRORS])  # fmt: skip
def test_errors_are_one_line(run, args, kind, msgid, fields):
    result = run(*args)
    assert result.exit_code == 2, result.stdout
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1, result.stderr
    told(result.error, kind, msgid, **fields)
    assert result.stderr == f"attn: error: {result.error.message('en')}\n"


# Click's own refusals of a value outside an option's choices or range: no AttnError
# tells them, so the line is matched by the value it quotes
@pytest.mark.parametrize(("args", "value"), [(("--optimizer", "rmsprop"), "rmsprop"),
                                              (("--iterations", "-1"), "-1")])  # fmt: skip
def test_a_value_click_refuses_is_one_line(run, args, value):
    result = run("train", HEADLINE, *WANT, *args)
    assert result.exit_code == 2 and result.stdout == "" and result.error is None
    assert result.stderr.count("\n") == 1 and value in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


def test_a_want_by_position_and_several_wants(run_json):
    document = run_json("train", "la casa de la llave", "--want", "4=5", "--want", "casa=1",
                        "--iterations", "20")  # fmt: skip
    assert document["training"]["want"] == ["la=llave", "casa=la"]
    with pytest.raises(attn.InputError) as caught:
        attn.train("la casa de la llave", want="casa=la")
    told(caught.value, InputError, APPEARS_TWICE, surface="python", side="la", times=2,
         suggestion="want='casa=4'")  # fmt: skip
    document = run_json("train", "la casa de la llave", "--want", "casa=4", "--iterations", "1")
    assert document["training"]["want"] == ["casa=la"]


NO_SENTENCES = "{source} has no sentences; write one per line, e.g. {example}"
CORPUS_LINE = "las llaves de la puerta están ahí | están=llaves"  # samples/concordancia-entreno.txt
# (the corpus, the msgid, the fields that say which line of the file at `source`)
CORPUS_ERRORS = [
    ("# a corpus\nlos coches están ahí\n",
     "{source}, line {number}: write the sentence, then | and what it wants, e.g. {example}",
     lambda source: {"source": source, "number": 2, "example": CORPUS_LINE}),
    ("los coches están ahí | están=casas\n", NOT_A_TOKEN,
     lambda source: {"side": "casas", "at": on_line(1, source)}),
    ("# only a comment\n\n", NO_SENTENCES,
     lambda source: {"source": source, "example": CORPUS_LINE}),
    ("\nlos coches están ahí | \n", NOTHING_TO_LEARN, lambda source: {"at": on_line(2, source)}),
]  # fmt: skip


@pytest.mark.parametrize(("text", "msgid", "fields"), CORPUS_ERRORS)
def test_corpus_errors_name_the_line(run, tmp_path, text, msgid, fields):
    path = tmp_path / "c.txt"
    path.write_text(text)
    result = run("train", "--corpus", str(path))
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1, result.stderr
    told(result.error, InputError, msgid, **fields(str(path)))


def test_a_corpus_from_standard_input(run_json):
    text = (
        "los coches de la casa están ahí | están=coches\nla llave del coche está ahí | está=llave\n"
    )
    document = run_json("train", "--corpus", "-", "--iterations", "3", input=text)
    assert document["training"]["sentences"] == 2
    assert document["tokens"] == ["los", "coches", "de", "la", "casa", "están", "ahí"]


def test_the_corpus_through_the_command_line(run_json):
    corpus = str(SAMPLES / "concordancia-entreno.txt")
    order = str(SAMPLES / "concordancia-orden.txt")
    document = run_json("train", "--corpus", corpus, "--test", order, "--d-model", "32",
                        "--iterations", "5", "--positions", "sinusoidal")  # fmt: skip
    assert document["positions"] == "sinusoidal" and document["training"]["sentences"] == 160
    links = document["test"]["links"]
    assert document["test"]["accuracy"] == sum(link["hit"] for link in links) / len(links)
    assert links[0]["sentence"] == "hoy creo que las puertas de los libros están ahí"
    assert links[0]["want"] == "están=puertas"


def test_the_corpus_screen_says_what_order_does(run):
    corpus = str(SAMPLES / "concordancia-entreno.txt")
    order = str(SAMPLES / "concordancia-orden.txt")
    result = run("train", "--corpus", corpus, "--test", order, "--d-model", "32",
                 "--iterations", "30", "--format", "table")  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert "Training W^Q and W^K on 160 sentences" in result.stdout
    assert "Test, sentences not trained on:" in result.stdout
    assert "--positions sinusoidal gives it the order" in result.stdout
    assert "… 18 more links (the misses come first); --json has them all" in result.stdout
    listed = [line for line in result.stdout.splitlines() if line.endswith(("✓", "✗"))]
    marks = [line[-1] for line in listed]
    assert marks == sorted(marks, key=lambda mark: mark == "✓")  # misses first


def test_steps_work_one_iteration_from_the_backward_pass(headline):
    (steps,) = headline.steps(4)
    assert steps.iteration == 4
    assert steps.loss == pytest.approx(headline.loss[3], rel=1e-12)
    assert steps.loss_after == pytest.approx(headline.loss[4], rel=1e-12)
    (row,) = steps.rows
    assert row.token == "están"
    # ∂ℓ/∂e is α − the one-hot
    for key in row.keys:
        assert key.grad_score == pytest.approx(key.weight - key.wanted, abs=1e-12)
    for entry in steps.entries:
        assert sum(t.x * t.grad for t in entry.terms) == pytest.approx(entry.gradient, rel=1e-9)
        assert entry.after == pytest.approx(entry.before - 0.1 * entry.gradient, abs=1e-15)
    # the W^K entry's ∂ℓ/∂K[t, b] = ∂ℓ/∂e[están, t] × Q[están, b] ÷ √8
    k_entry = steps.entries[1]
    for term in k_entry.terms:
        assert term.grad == pytest.approx(term.grad_score * k_entry.query / math.sqrt(8))


def test_steps_on_the_terminal_in_english_and_spanish(run):
    english = run("train", HEADLINE, *WANT, "--steps")
    assert english.exit_code == 0, english.stderr
    for text in ("Iteration 1 by hand (SGD, lr 0.1)", "Loss: −log 0.029 = 3.5390",
                 "∂ℓ/∂e = α − wanted", "∂ℓ/∂W^Q   8 × 8   Xᵀ · ∂ℓ/∂Q",
                 "Update: W^Q[", "∂ℓ/∂W^V = 0"):  # fmt: skip
        assert text in english.stdout, text
    spanish = run("train", HEADLINE, *WANT, "--steps", "--lang", "es", "--at", "2")
    assert spanish.exit_code == 0, spanish.stderr
    for text in ("La iteración 2 a mano (SGD, lr 0,1)", "Por el softmax, fila «están»",
                 "Actualización: W^Q[", "Solo pregunta «están»"):  # fmt: skip
        assert text in spanish.stdout, text


def test_steps_with_adam_show_adams_step(run):
    result = run("train", HEADLINE, *WANT, "--steps", "--optimizer", "adam", "--lr", "0.01")
    assert result.exit_code == 0, result.stderr
    assert "Update (Adam):" in result.stdout and "m̂ ÷ (√v̂ + ε)" in result.stdout


def test_steps_travel_in_the_json_when_asked(run_json):
    document = run_json("train", HEADLINE, *WANT, "--steps", "--json", "--iterations", "3")
    (step,) = document["steps"]
    assert step["step"] == "train" and step["iteration"] == 1


def test_python_api(headline):
    assert headline.wanted_after[0] >= 0.9 and headline.done == 300
    assert repr(headline).startswith("TrainResult(tokens=['las', 'llaves'")
    html = headline._repr_html_()
    assert "<pre" in html and "están → llaves" in html and "0.999" in html
    np.testing.assert_array_equal(headline.after["w_v"], headline.before["w_v"])


def test_interrupted_run_writes_the_state_so_far(run, run_json, tmp_path, monkeypatch):
    calls = {"count": 0}
    evaluate = training.evaluate

    def stopping(*args, **kwargs):
        calls["count"] += 1
        if calls["count"] == 8:  # the first evaluation, then 6 whole updates
            raise KeyboardInterrupt
        return evaluate(*args, **kwargs)

    monkeypatch.setattr(training, "evaluate", stopping)
    path = tmp_path / "state.json"
    result = run("train", HEADLINE, *WANT, "--save", str(path))
    assert result.exit_code == 130
    told(result.error, Interrupted,
         "stopped by Ctrl-C after {done} of {total} iterations; the state so far is in {path}",
         done=6, total=300, path=str(path))  # fmt: skip
    assert result.stderr == f"attn: error: {result.error.message('en')}\n"
    state = json.loads(path.read_text())
    assert state["training"]["done"] == 6 and state["training"]["stopped"] == "interrupted"
    assert len(state["training"]["loss"]) == 7
    monkeypatch.setattr(training, "evaluate", evaluate)
    again = run_json("selfattn", "-i", str(path))
    assert again["weights"] == state["weights"]
    six = run_json("train", HEADLINE, *WANT, "--iterations", "6")
    assert six["w_q"] == state["w_q"]


@pytest.mark.slow  # a process of its own, interrupted
def test_ctrl_c_in_a_real_process(tmp_path):
    """SIGINT to a running attn train: exit 130, the line, and the state in --save."""
    path = tmp_path / "state.json"
    command = [sys.executable, "-m", "attncli", "train", HEADLINE, *WANT,
               "--iterations", "1000000", "--save", str(path)]  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(3.0)  # well past the start-up: the loop is running
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert "stopped by Ctrl-C after" in stderr and str(path) in stderr
    state = json.loads(path.read_text())
    assert json.loads(stdout) == state  # piped, the state goes to stdout too
    assert 0 < state["training"]["done"] < 1_000_000


def test_plot_draws_a_png(run, tmp_path):
    path = tmp_path / "loss.png"
    result = run("train", HEADLINE, *WANT, "--plot", str(path), "--json")
    assert result.exit_code == 0, result.stderr
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_save_writes_what_the_pipe_writes(run, tmp_path):
    path = tmp_path / "t.json"
    result = run("train", HEADLINE, *WANT, "--save", str(path), "--iterations", "10")
    assert result.exit_code == 0
    assert json.loads(path.read_text()) == json.loads(result.stdout)


def test_selfattn_takes_sinusoidal_positions(run, run_json):
    from attncli.core.positions import sinusoidal

    plain = run_json("selfattn", HEADLINE)
    placed = run_json("selfattn", HEADLINE, "--positions", "sinusoidal")
    np.testing.assert_allclose(
        np.array(placed["x"]), np.array(plain["x"]) + sinusoidal(6, 8), atol=1e-15
    )
    assert placed["weights"] != plain["weights"]
    trained = run("train", HEADLINE, *WANT, "--positions", "sinusoidal", "--iterations", "1")
    assert json.loads(trained.stdout)["x"] == placed["x"]
    twice = run("selfattn", "--positions", "sinusoidal", input=trained.stdout)
    assert twice.exit_code == 2
    told(twice.error, OptionError,
         "this x already has {kind} positions added (the document says so); drop --positions, "
         "or they would be added twice", kind="sinusoidal")  # fmt: skip
    assert (
        run_json("selfattn", input=trained.stdout)["weights"]
        == json.loads(trained.stdout)["weights"]
    )


def test_the_progress_bar_is_drawn_on_a_terminals_stderr_only():
    """stderr a terminal, stdout a pipe: the bar (with the loss) on stderr, JSON on stdout."""
    corpus = str(SAMPLES / "concordancia-entreno.txt")
    text, stdout = drawn_on_a_terminal(
        ["train", "--corpus", corpus, "--iterations", "40"], timeout=120
    )
    assert json.loads(stdout)["training"]["done"] == 40
    assert "training" in text and "/40" in text and "loss" in text, text[:300]


def test_the_grids_stand_side_by_side_when_the_terminal_is_wide(run, monkeypatch):
    for columns, beside in (("160", True), ("100", False)):
        monkeypatch.setenv("COLUMNS", columns)
        result = run("train", HEADLINE, *WANT, "--iterations", "5", "--format", "table")
        assert result.exit_code == 0, result.stderr
        lines = result.stdout.splitlines()
        both = [line for line in lines if "Weights before (seeded)" in line]
        assert ("Weights after training" in both[0]) is beside, columns
        assert all(len(line) <= int(columns) for line in lines)
        rows = [line for line in lines if line.lstrip().startswith("están  ")]
        assert len(rows) == (1 if beside else 2) and rows[0].count("*") == (2 if beside else 1)


def test_a_missing_file_names_the_option_that_gave_it(run, tmp_path):
    """--corpus and --test, not -i, which train does not take."""
    missing = str(tmp_path / "no.txt")
    for option in ("--corpus", "--test"):
        args = ("--corpus", missing) if option == "--corpus" else (
            "--corpus", "samples/concordancia-entreno.txt", "--test", missing)  # fmt: skip
        result = run("train", *args)
        assert result.exit_code == 2 and result.stdout == ""
        assert result.error.msgid.startswith("cannot read '{path}': no such file (check the path")
        assert result.error.fields["option"] == option, result.stderr


@pytest.mark.parametrize(
    ("option", "value"), [("--heads", "0"), ("--d-model", "-8"), ("--d-model", "0"), ("--d-k", "0")]
)
def test_a_size_below_1_is_refused_as_selfattn_refuses_it(run, option, value):
    """The layer's sizes are held where its settings are declared (SelfAttnSettings), so
    that attn train refuses --heads 0 as attn selfattn does (it divided by zero; --d-model
    0 trained a layer of no numbers)."""
    for command in ("train", "selfattn"):
        extra = ["--want", "va=tren"] if command == "train" else []
        result = run(command, "el tren va", *extra, option, value)
        assert result.exit_code == 2 and result.stdout == "", result.stderr
        said = messages.say("en", usage.OUT_OF_RANGE, value=value, range="x>=1")
        assert said in result.stderr and option in result.stderr, result.stderr


def test_ctrl_c_before_the_loop_ends_silently_with_130_as_every_command(run, monkeypatch):
    """Nothing is kept before the first update: no line, as Ctrl-C ends any other command
    (it said 'stopped after training' before training had begun)."""
    from attncli.api import training as api_training

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(api_training, "_examples", interrupted)
    result = run("train", HEADLINE, *WANT, "--json")
    assert result.exit_code == 130
    assert result.stdout == "" and result.stderr == "" and result.error is None
