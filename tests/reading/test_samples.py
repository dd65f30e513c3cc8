"""Every file in samples/ runs, and gives the numbers it was made to show."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.conftest import SAMPLES


def _chain(run_json, sample):
    weighted = run_json("softmax", input=json.dumps(run_json("score", "-i", str(sample))))
    return run_json("mix", input=json.dumps(weighted))


def check_tren(run_json, sample):
    mixed = _chain(run_json, sample)
    assert [round(w, 3) for w in mixed["weights"]] == [0.665, 0.090, 0.245]
    assert [round(x, 2) for x in mixed["output"]] == [7.88, 2.12]


def check_tren_grid(run_json, sample):
    mixed = _chain(run_json, sample)
    assert [[round(x, 2) for x in row] for row in mixed["output"]] == [
        [3.18, 6.82],
        [6.82, 3.18],
        [7.88, 2.12],
    ]


def _row_peak(document, token):
    tokens = document["tokens"]
    row = document["weights"][tokens.index(token)]
    return tokens[row.index(max(row))]


def check_llaves(run_json, sample):
    # The lesson's demonstration: with projections «están» looks for «llaves» ...
    projected = run_json("selfattn", "-i", str(sample))
    assert _row_peak(projected, "están") == "llaves"
    # ... clearly (at least half of its attention), and much more than «llaves» needs «están»
    # («están necesita a llaves mucho más de lo que llaves necesita a están»).
    tokens, weights = projected["tokens"], projected["weights"]
    estan, llaves = tokens.index("están"), tokens.index("llaves")
    assert weights[estan][llaves] >= 0.5
    assert weights[llaves][estan] < weights[estan][llaves] / 4
    # ... and without them every position looks at itself.
    plain = run_json("selfattn", "-i", str(sample), "--no-proj")
    assert all(_row_peak(plain, token) == token for token in plain["tokens"])


def _agreement(sample):
    """Each sentence's two articles (del is de + el), plural or not, and its wanted link."""
    found = []
    for line in sample.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        sentence, want = line.split("|")
        words = sentence.split()
        articles = [w for w in words if w in ("el", "la", "los", "las", "del")]
        found.append(([a in ("los", "las") for a in articles], words, want.strip()))
    return found


def _subject(words):
    """The noun after the first article: the lead-in before it has none."""
    first = next(n for n, w in enumerate(words) if w in ("el", "la", "los", "las"))
    return first + 1


def check_agreement_train(run_json, sample):
    trained = run_json("train", "--corpus", str(sample), "--d-model", "32", "--iterations", "20")
    assert trained["training"]["sentences"] == 160
    assert trained["training"]["loss"][-1] < trained["training"]["loss"][0]
    places = set()
    for plural, words, want in _agreement(sample):
        verb, noun = want.split("=")
        assert noun == words[_subject(words)] and verb == ("están" if plural[0] else "está")
        places.add(_subject(words))
    assert places == {1, 2, 3, 4}  # the subject at positions 2 to 5, not always at 2


def check_agreement_number(run_json, sample):
    # Every test sentence's two nouns differ in number: number alone finds the right one.
    assert all(plural[0] != plural[1] for plural, _, _ in _agreement(sample))
    assert len(_agreement(sample)) == 30


def check_agreement_order(run_json, sample):
    # Both nouns have the verb's number: only their order tells them apart.
    assert all(plural[0] == plural[1] for plural, _, _ in _agreement(sample))
    assert len(_agreement(sample)) == 30


def check_agreement_further(run_json, sample):
    # As concordancia-orden, with the subject further along than any training sentence's.
    check_agreement_order(run_json, sample)
    assert {_subject(words) for _, words, _ in _agreement(sample)} == {5, 6}


def check_mha_layer(run_json, sample):
    # An nn.MultiheadAttention's state_dict() saved with safetensors, and its x
    # (tests/references/make_weights.py): torch 2.13 computed these, to 4 digits.
    folder = sample.parent
    out = run_json("selfattn", "-i", str(folder / "mha_x.npy"), "--weights",
                   str(folder / "mha.safetensors"), "--heads", "2", "--json")  # fmt: skip
    torch_output = [[0.1258, 0.3813, 0.1881, -0.0251], [0.1302, 0.4689, 0.2826, -0.0502],
                    [0.1308, 0.4232, 0.2403, -0.0415]]  # fmt: skip
    torch_weights_mean = [[0.1755, 0.4313, 0.3932], [0.3116, 0.3585, 0.3299],
                          [0.2822, 0.3577, 0.3601]]  # fmt: skip
    for got, want in ((out["output"], torch_output), (out["weights_mean"], torch_weights_mean)):
        pairs = zip(np.ravel(got), np.ravel(want), strict=True)
        assert all(abs(g - w) < 6e-5 for g, w in pairs)


def check_lengths(run_json, sample):
    # Without projections the longest vector takes every row (lesson 000's last remark).
    out = run_json("selfattn", "-i", str(sample), "--no-proj", "--json")
    lengths = np.linalg.norm(np.array(out["x"]), axis=1)
    assert (np.argmax(np.array(out["scores"]), axis=1) == np.argmax(lengths)).all()
    assert len(set(np.round(lengths, 9))) > 1


def check_learned_layer(run_json, sample):
    # W^Q, W^K, W^V attn train learned on the concordance corpus, and the line that did it
    # (tests/cli/test_learning.py trains again by it and gets these very numbers).
    document = json.loads(sample.read_text(encoding="utf-8"))
    assert set(document) == {"trained_by", "positions", "w_q", "w_k", "w_v"}
    assert document["positions"] == "sinusoidal"  # as its line trained it, said for a reader
    assert "--positions sinusoidal" in document["trained_by"]
    assert document["trained_by"].startswith("attn train --corpus samples/concordancia-entreno")
    assert np.array(document["w_q"]).shape == (32, 32)


CHECKS = {"tren.json": check_tren, "tren-grid.json": check_tren_grid, "llaves.json": check_llaves,
          "concordancia.json": check_learned_layer, "longitudes.json": check_lengths,
          "concordancia-entreno.txt": check_agreement_train,
          "concordancia-numero.txt": check_agreement_number,
          "concordancia-orden.txt": check_agreement_order,
          "concordancia-lejos.txt": check_agreement_further,
          "mha.safetensors": check_mha_layer, "mha_x.npy": check_mha_layer}  # fmt: skip


@pytest.mark.parametrize("sample", sorted(SAMPLES.iterdir()), ids=lambda path: path.name)
def test_sample(run_json, sample):
    assert sample.name in CHECKS, f"add a check for samples/{sample.name}"
    CHECKS[sample.name](run_json, sample)
