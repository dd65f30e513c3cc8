"""The Python API's promise about its keywords, tried on every public function: a value of
another type than its annotation says is an AttnError naming the keyword, the value given
and what it takes, and a TypeError too (a value out of range: a ValueError too), so that a
caller who catches Python's own exceptions keeps working; 'no' is never read as true."""

from __future__ import annotations

import inspect

import pytest

import attncli as attn
from attncli.errors import AttnError, InputError, OptionError, OptionTypeError
from tests.meaning import told

LLAMA = "tests/models/tiny-llama"
SENTENCE = "the keys to the cabinet"
SENTENCES = ("sentence", "first", "second")  # read as a sentence, whatever their type


@pytest.fixture(scope="module")
def causal_layer():
    return attn.selfattn("el tren va lleno", heads=2, causal=True)


def required(name: str, layer) -> dict:
    """What each public function needs besides the keyword tried (valid values)."""
    return {
        "check": {"answers": ["1"]},
        "heads_sum": {"result": attn.selfattn("el tren va lleno", heads=2)},
        "check_files": {"paths": ["answers.csv"]},
        "compare_sentences": {"first": "el tren va", "second": "el coche va"},
        "compare_heads": {"first": SENTENCE, "second": "the keys to the table", "model": LLAMA},
        "heads": {"sentence": SENTENCE, "model": LLAMA, "pattern": "previous"},
        "kv_cache": {"result": layer},
        "mix": {"weights": [0.5, 0.5], "values": [[1, 0], [0, 1]]},
        "online_softmax": {"scores": [2, 0, 1]},
        "predict": {"sentence": SENTENCE, "model": LLAMA},
        "repeated_random": {"model": LLAMA, "count": 4},
        "rollout": {"sentence": SENTENCE, "model": LLAMA},
        "softmax": {"scores": [2, 0, 1]},
        "tiles": {"result": layer, "tile_q": 2, "tile_k": 2},
        "train": {"sentence": "el tren va", "want": "va=tren", "iterations": 1},
    }.get(name, {})


def _parts(annotation: str) -> set[str]:
    return {part.strip() for part in annotation.split("|")}


def wrong_values(annotation: str) -> list:
    """Values of another type than `annotation` (as written in the signature) takes."""
    parts = _parts(annotation)
    wrong = []
    if parts <= {"int", "None"}:
        wrong += ["2", 2.5, True]
    if parts <= {"float", "None"}:
        wrong += ["0.5", True]
    if parts <= {"bool", "None"}:
        wrong += ["no", 1]
    if parts <= {"str", "None"}:
        wrong += [3, ["a"]]
    if parts and parts <= {"int", "float", "bool", "str"}:
        wrong.append(None)
    return wrong


PUBLIC = [
    name
    for name in attn.__all__
    if inspect.isfunction(getattr(attn, name)) and name not in ("options", "samples")
]
CASES = [
    (name, keyword, value)
    for name in PUBLIC
    for keyword, parameter in inspect.signature(getattr(attn, name)).parameters.items()
    if isinstance(parameter.annotation, str)
    for value in wrong_values(parameter.annotation)
]


def test_every_public_function_has_keywords_tried():
    # mix's, check_files' and check_questions' keywords take arrays, documents or lists: read
    # by their readers
    assert {name for name, _keyword, _value in CASES} >= set(PUBLIC) - {
        "check_files",
        "check_questions",
        "mix",
    }
    assert len(CASES) > 150


@pytest.mark.parametrize(("name", "keyword", "value"), CASES, ids=repr)
def test_a_keyword_of_another_type_is_refused_naming_it(causal_layer, name, keyword, value):
    call = getattr(attn, name)
    arguments = {**required(name, causal_layer), keyword: value}
    with pytest.raises(AttnError) as caught:
        call(**arguments)
    error = caught.value
    if keyword in SENTENCES and not isinstance(error, OptionTypeError):
        # the sentence's own reader: 'give a text, e.g. …', 'give a sentence, e.g. …'
        assert isinstance(error, (InputError, OptionError)) and "e.g." in str(error)
        return
    assert isinstance(error, TypeError)
    told(error, OptionTypeError, "{given}: {name} takes {takes}", "python", name=keyword)
    assert str(error).startswith(f"{keyword}={value!r}: {keyword} takes ")


@pytest.mark.parametrize(
    ("call", "keyword"),
    [
        (lambda: attn.selfattn("el tren va", alibi="no"), "alibi"),
        (lambda: attn.selfattn("el tren va", causal="yes"), "causal"),
        (lambda: attn.predict(SENTENCE, LLAMA, by_layer="no"), "by_layer"),
        (lambda: attn.heads(SENTENCE, LLAMA, pattern="previous", grid="no"), "grid"),
        (lambda: attn.train("el tren va", want="va=tren", causal="no"), "causal"),
    ],
)
def test_no_is_never_read_as_true(call, keyword):
    with pytest.raises(OptionTypeError) as caught:
        call()
    assert isinstance(caught.value, TypeError)
    assert keyword in str(caught.value)


@pytest.mark.parametrize("seed", [-1, 2**64])
def test_a_seed_is_a_whole_number_from_0_to_2_64_minus_1(seed):
    for call in (
        lambda: attn.check(seed=seed, answers=["1"]),
        lambda: attn.exercise(seed=seed),
        lambda: attn.score([1, 0], [[2, 1], [0, 2]], seed=seed),
        lambda: attn.train("el tren va", want="va=tren", seed=seed),
    ):
        with pytest.raises(OptionError) as caught:
            call()
        assert isinstance(caught.value, ValueError)
        assert "seed" in str(caught.value)
    with pytest.raises(OptionTypeError):
        attn.check(seed=3.5, answers=["1"])


def test_an_unknown_language_is_refused_not_read_as_some_other():
    with pytest.raises(OptionTypeError) as caught:
        attn.check(answers=["1"], lang="fr")
    told(caught.value, OptionTypeError, "{given}: {name} takes {takes}", "python", name="lang")
    assert "en, es" in str(caught.value)
    assert attn.check(answers=["1,0"], lang="es").verdicts


def test_a_model_a_layer_and_a_result_of_the_wrong_kind(causal_layer):
    for call, keyword in (
        (lambda: attn.predict(SENTENCE, None), "model"),
        (lambda: attn.rollout(SENTENCE, LLAMA, layer="2"), "layer"),
        (lambda: attn.kv_cache({}), "result"),
        (lambda: attn.tiles([[1.0]], 2, 2), "result"),
    ):
        with pytest.raises(OptionTypeError) as caught:
            call()
        assert caught.value.fields["name"] == keyword
    assert attn.kv_cache(causal_layer).tokens  # the right kind still runs


def test_a_model_may_be_a_path(tmp_path):
    from pathlib import Path

    assert attn.predict(SENTENCE, Path(LLAMA)).model == LLAMA


def test_values_out_of_range_are_value_errors_too():
    cases = [
        (lambda: attn.heads(SENTENCE, LLAMA, pattern="previous", shown_count=0), OptionError),
        (lambda: attn.rollout(SENTENCE, LLAMA, row=2), OptionError),  # row without cell=True
        (lambda: attn.compare_scores(tx=4, ty=4, d_h=8, d_a=8, d_ks=[]), OptionError),
        (lambda: attn.train("el tren va", want="va=tren", positions="no"), OptionError),
        (lambda: attn.train("el tren va", want="va=tren", heads=0), OptionError),
        (lambda: attn.train("el tren va", want="va=tren", d_model=-8), OptionError),
        (lambda: attn.train("el tren va", want="va=tren", d_model=0), OptionError),
        (lambda: attn.train("el tren va", want="va=tren", lr=2**70), OptionError),
        (lambda: attn.tiles(attn.selfattn("el tren va"), 2, 2, row=2**70), OptionError),
    ]
    for call, kind in cases:
        with pytest.raises(kind) as caught:
            call()
        assert isinstance(caught.value, ValueError), caught.value


@pytest.mark.parametrize(("keyword", "value", "takes"), [
    ("grid", "no", ("True or False", {})),
    ("shown_count", "a", ("{choices} or {last}", {"choices": ("a whole number", {}),
                                                  "last": "None"})),
])  # fmt: skip
def test_what_a_keyword_takes_is_said_in_the_language_asked(keyword, value, takes):
    from attncli.messages import Message
    from tests.meaning import plain

    with pytest.raises(OptionTypeError) as caught:
        attn.heads("el tren", **{keyword: value})
    said = caught.value.fields["takes"]
    assert isinstance(said, Message) and plain(said) == takes
    assert said.said("es") != said.said("en")  # from the catalog, not left in English
