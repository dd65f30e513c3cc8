"""torch's attn_mask in torch's sense, weights_mean, --item's line and torch tensors in the
Python API, against nn.MultiheadAttention's own numbers (tests/references/mha.json)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import attncli as attn
from attncli.errors import InputError, ShapeError
from attncli.reading.models.checkpoint import attention_weights
from attncli.reading.parse.tensor_files import open_tensors
from tests import naive
from tests.meaning import HOLDS, WRONG, told

REFERENCES = Path(__file__).parent.parent / "references"
MHA = {case["name"]: case for case in json.loads((REFERENCES / "mha.json").read_text())["cases"]}


def _layer(name: str) -> tuple[dict, dict, dict]:
    """The case, its inputs batch first (torch's are sequence first unless batch_first),
    and its weights in attn's names as keyword arguments."""
    case = MHA[name]
    params = attention_weights(open_tensors(str(REFERENCES / case["file"]))).params
    inputs = dict(case["inputs"])
    query = np.asarray(inputs.pop("query"), dtype=np.float64)
    if query.ndim == 3 and not case["module"].get("batch_first"):
        query = query.transpose(1, 0, 2)
    for name_ in ("key", "value"):
        inputs.pop(name_)
    weights = {k: np.asarray(v, dtype=np.float64) for k, v in params.items()}
    return case, {"x": query, **inputs}, weights


@pytest.mark.parametrize(
    "name",
    [
        "bool_attn_mask",
        "float_attn_mask",
        "float_attn_mask_per_head",
        "key_padding_mask",
        "batch_first",
        "causal_float32",
    ],
)
def test_attn_mask_in_torchs_sense_gives_torchs_numbers(name):
    case, inputs, weights = _layer(name)
    if "attn_mask" in inputs:
        mask = inputs["attn_mask"]
        inputs["attn_mask"] = np.asarray(mask, dtype=bool if isinstance(
            np.asarray(mask).ravel()[0].item(), bool) else np.float64)  # fmt: skip
    result = attn.selfattn(**inputs, **weights, heads=case["module"]["num_heads"])
    output = np.asarray(case["output"])
    if output.ndim == 3 and not case["module"].get("batch_first"):
        output = output.transpose(1, 0, 2)
    tolerance = 1e-6 if case["dtype"] == "float32" else 1e-13
    assert np.abs(result.output - output).max() < tolerance
    assert np.abs(result.weights - np.asarray(case["weights"])).max() < tolerance
    mean = result.to_document()["weights_mean"]
    assert np.abs(mean - np.asarray(case["weights_mean"])).max() < tolerance


def test_a_bool_attn_mask_is_the_opposite_of_mask(run_json):
    x = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
    causal = np.tril(np.ones((3, 3), dtype=bool))
    by_torch = run_json(
        "selfattn", "--json", input=json.dumps({"x": x, "attn_mask": (~causal).tolist()})
    )
    by_mask = run_json("selfattn", "--json", input=json.dumps({"x": x, "mask": causal.tolist()}))
    by_option = run_json("selfattn", "--json", "--causal", input=json.dumps({"x": x}))
    assert by_torch["weights"] == by_mask["weights"] == by_option["weights"]
    assert by_torch["weights"][0][1] == 0.0


def test_a_float_attn_mask_is_added_to_the_scores(run_json):
    x = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
    alibi = [[-abs(i - j) * 0.5 for j in range(3)] for i in range(3)]  # ALiBi, m = 0.5
    text = json.dumps({"x": x, "attn_mask": alibi})
    out = run_json("selfattn", "--json", "--no-proj", input=text)
    plain = np.asarray(x) @ np.asarray(x).T / np.sqrt(2)
    expected = plain + np.asarray(alibi)
    assert np.allclose(out["scores"], expected, atol=1e-15)
    weights = np.exp(expected - expected.max(axis=1, keepdims=True))
    weights /= weights.sum(axis=1, keepdims=True)
    assert np.allclose(out["weights"], weights, atol=1e-15)
    # -Infinity (or null) where a query may not look: weight exactly 0
    masked = json.dumps({"x": x, "attn_mask": [[0.0, None, -1], [0, 0, 0], ["-Infinity", 0, 0]]})
    masked = masked.replace('"-Infinity"', "-Infinity")
    out = run_json("selfattn", "--json", "--no-proj", input=masked)
    assert out["weights"][0][1] == 0.0 and out["weights"][2][0] == 0.0
    assert out["scores"][0][1] is None


def test_the_row_blocked_path_adds_the_mask_too(run_json):
    x = np.random.default_rng(1).normal(size=(5, 4)).tolist()
    bias = np.random.default_rng(2).normal(size=(2, 5, 5))
    bias[0, 1, 2] = -np.inf
    document = {"x": x, "attn_mask": bias.tolist()}
    text = json.dumps(document).replace("-Infinity", "-Infinity")
    whole = run_json("selfattn", "--json", "--heads", "2", input=text)
    blocks = run_json("selfattn", "--json", "--heads", "2", "--fields", "output", input=text)
    assert np.allclose(whole["output"], blocks["output"], atol=1e-14)


def test_masks_against_the_loop_reference():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(4, 6))
    params = {name: rng.normal(size=(6, 6)) for name in ("w_q", "w_k", "w_v", "w_o")}
    params["b_q"] = rng.normal(size=6)
    bias = rng.normal(size=(2, 4, 4))
    bias[1, 2, 0] = -np.inf  # may not look
    result = attn.selfattn(x=x, **params, heads=2, attn_mask=bias)
    lists = {name: value.tolist() for name, value in params.items()}
    allowed = [[True] * 4 for _ in range(4)]  # per head: the -inf cell through the bias
    finite = np.where(np.isinf(bias), -1e300, bias).tolist()
    reference = naive.multihead(x.tolist(), x.tolist(), lists, 2, None, allowed, finite)
    assert np.abs(result.output - np.asarray(reference)).max() < 1e-12
    assert result.weights[1, 2, 0] == 0.0


NOT_BROADCAST = (
    "{field} is {shape} but must broadcast to the scores, {scores} ({names}), as torch "
    "broadcasts: counted from the right, each axis of that size or 1 (e.g. {listed})"
)
# What a cell of attn_mask that is neither true/false nor a number is told to be.
MIXED = (
    "all true/false (torch's bool mask, true = may not look) or all numbers (added to the "
    "scores, -Infinity or null where a query may not look)",
    {},
)


def _cell(cell: str) -> tuple[str, dict[str, str]]:
    return ("{field}: the cell at {cell}", {"field": "attn_mask", "cell": cell})


@pytest.mark.parametrize(
    ("mask", "kind", "msgid", "fields"),
    [
        ([[0, 1, 0], [0, 0, 1], [1, 0, 0]], InputError,
         "attn_mask of integer 0s and 1s is ambiguous: 1 is may NOT look in torch's bool mask, "
         "may look in mask and transformers' attention_mask, and 1 added to the score as a "
         "float; write true/false for torch's bool sense, 0.0 and -Infinity for an additive "
         "mask, or give it as mask (1 = may look)", {}),
        ([[True, 0.5, 0], [0, 0, 0], [0, 0, 0]], InputError, WRONG,
         {"where": _cell("(1, 1)"), "kind": ("{value} (a boolean)", {"value": "true"}),
          "expected": MIXED}),
        ([[0.0, 1.0], [0.0, 1.0]], ShapeError, NOT_BROADCAST,
         {"field": "attn_mask", "shape": "2 × 2", "scores": "3 × 3"}),
        ([0.0, 1.0], ShapeError, NOT_BROADCAST,
         {"field": "attn_mask", "shape": "2", "scores": "3 × 3", "names": "T_q × T_k"}),
        ([[0.0, "x", 0], [0, 0, 0], [0, 0, 0]], InputError, WRONG,
         {"where": _cell("(1, 2)"), "kind": ("{value} (a string)", {"value": '"x"'}),
          "expected": MIXED}),
    ],
)  # fmt: skip
def test_a_bad_attn_mask_is_one_line(run, mask, kind, msgid, fields):
    x = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
    result = run("selfattn", input=json.dumps({"x": x, "attn_mask": mask}))
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1, result.stderr
    told(result.error, kind, msgid, **fields)
    assert result.stderr == f"attn: error: {result.error.message('en')}\n"


def test_attn_mask_refusals_from_python():
    x = np.eye(3)
    with pytest.raises(InputError) as caught:
        attn.selfattn(x=x, attn_mask=np.zeros((3, 3), dtype=np.int64))
    told(caught.value, InputError, HOLDS, field="attn_mask", dtype="int64",
         expected=("a bool attn_mask (True = may not look) or a float one (added to the scores), "
                   "as torch takes it", {}))  # fmt: skip
    with pytest.raises(InputError) as caught:
        attn.selfattn(x=x, attn_mask=np.array([[0, np.nan, 0]] * 3))
    told(caught.value, InputError, WRONG,
         where=("{field}: the number at {cell}", {"field": "attn_mask", "cell": "(1, 2)"}),
         expected=("a finite number or -inf", {}))  # fmt: skip
    assert np.isnan(caught.value.fields["kind"])
    with pytest.raises(ShapeError) as caught:
        attn.selfattn(x=x, attn_mask=np.zeros((4, 3, 3)), heads=3, d_k=1, d_v=1)
    told(caught.value, ShapeError, NOT_BROADCAST, field="attn_mask", shape="4 × 3 × 3",
         scores="3 × 3 × 3", names="h × T_q × T_k")  # fmt: skip


def test_a_3d_mask_per_head_and_a_4d_mask_broadcast_as_torch():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(2, 3, 4))  # a batch of 2, 3 tokens
    per_head = rng.normal(size=(2 * 2, 3, 3))  # B·h grids, as nn.MultiheadAttention takes
    one = attn.selfattn(x=x, heads=2, attn_mask=per_head)
    four = attn.selfattn(x=x, heads=2, attn_mask=per_head.reshape(2, 2, 3, 3))
    assert np.array_equal(one.output, four.output)
    shared = rng.normal(size=(1, 2, 3, 3))  # one per head, for every sequence
    both = attn.selfattn(x=x, heads=2, attn_mask=shared)
    tiled = attn.selfattn(x=x, heads=2, attn_mask=np.repeat(shared, 2, axis=0))
    assert np.array_equal(both.output, tiled.output)


def test_weights_mean_is_in_the_json_with_heads_only(run_json):
    heads = run_json("selfattn", "a b c", "--heads", "2", "--json")
    assert np.allclose(heads["weights_mean"], np.mean(heads["weights"], axis=0), atol=1e-16)
    assert "weights_mean" not in run_json("selfattn", "a b c", "--json")


def test_the_screen_says_which_sequence_of_a_batch(run, tmp_path):
    path = tmp_path / "batch.npy"
    np.save(path, np.random.default_rng(5).normal(size=(3, 2, 4)))
    screen = run("selfattn", "-i", str(path), "--item", "2", "--format", "table").stdout
    assert screen.splitlines()[0].startswith("sequence 2 of 3")
    spanish = run("selfattn", "-i", str(path), "--item", "2", "--format", "table", "--lang", "es")
    assert spanish.stdout.splitlines()[0].startswith("secuencia 2 de 3")


class FakeTensor:
    """What the API sees of a torch tensor, without torch: its own dtype type, detach(),
    cpu(), numpy(); numpy() refuses while the tensor requires grad, as torch's does."""

    def __init__(self, array, requires_grad=False):
        self._array, self.requires_grad = np.asarray(array), requires_grad
        self.dtype = object()  # torch.dtype has no .kind, which numpy's would have
        self.shape, self.ndim = self._array.shape, self._array.ndim

    def detach(self):
        return FakeTensor(self._array)

    def cpu(self):
        return self

    def numpy(self):
        if self.requires_grad:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad.")
        return self._array


def test_the_api_reads_tensors_without_importing_torch():
    x = np.random.default_rng(6).normal(size=(3, 4))
    given = attn.selfattn(x=FakeTensor(x, requires_grad=True), heads=2)
    assert np.array_equal(given.output, attn.selfattn(x=x, heads=2).output)
    mask = FakeTensor(np.triu(np.ones((3, 3), dtype=bool), 1))
    assert np.array_equal(
        attn.selfattn(x=x, attn_mask=mask).weights, attn.selfattn(x=x, causal=True).weights
    )


def test_the_row_blocked_computation_reports_its_progress():
    from attncli.core.selfattn import blocked_output

    rng = np.random.default_rng(9)
    queries, keys = rng.normal(size=(1100, 4)), rng.normal(size=(30, 4))
    heard: list[tuple[int, int]] = []
    output = blocked_output(queries, keys, keys, rows=512, progress=lambda *a: heard.append(a))
    assert heard == [(512, 1100), (1024, 1100), (1100, 1100)]
    assert np.array_equal(output, blocked_output(queries, keys, keys, rows=512))
    result_heard: list[tuple[int, int]] = []
    from attncli.api.selfattn import selfattn_inputs
    from attncli.layer import SelfAttnSettings
    from attncli.reading.parse.layer_inputs import LayerInputs

    settings = SelfAttnSettings(grids=False, heads=2)
    selfattn_inputs(
        LayerInputs.from_document({"x": queries}),
        None,
        settings,
        progress=lambda *a: result_heard.append(a),
    )
    assert result_heard[-1] == (1100, 1100)


def test_no_progress_bar_off_a_terminal(run, tmp_path):
    from attncli.present.layer.progress import layer_progress

    with layer_progress("en") as step:
        assert step is None  # the tests' stderr is no terminal
    path = tmp_path / "x.npy"
    np.save(path, np.random.default_rng(10).normal(size=(5000, 2)))
    result = run("selfattn", "-i", str(path), "--fields", "output", "--no-proj")
    assert result.exit_code == 0 and result.stderr == ""


def test_steps_show_the_additive_mask_as_its_own_column(run):
    x = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
    alibi = [[-abs(i - j) * 0.5 for j in range(3)] for i in range(3)]
    result = attn.selfattn(x=x, attn_mask=alibi, heads=2, d_k=1, d_v=1)
    score_step = result.steps(row=3, head=2)[0]
    assert [row.bias for row in score_step.rows] == alibi[2]
    assert np.allclose([row.score for row in score_step.rows], result.scores[1, 2], atol=1e-15)
    assert np.allclose([row.total / score_step.divisor + row.bias for row in score_step.rows],
                       result.scores[1, 2], atol=1e-15)  # fmt: skip
    screen = run(
        "selfattn", "--steps", "--row", "3", input=json.dumps({"x": x, "attn_mask": alibi})
    )
    assert "+ attn_mask" in screen.stdout and "− 1" in screen.stdout
    plain = run("selfattn", "--steps", "--row", "3", input=json.dumps({"x": x}))
    assert "attn_mask" not in plain.stdout
