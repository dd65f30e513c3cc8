"""What a self-attention layer is given, as one typed object: the sequences, their token
names, the projections and their biases, the masks and the gradient at the output. A JSON
document (or an .npz archive) is parsed into it once, by from_document(); the Python API
builds it directly from attncli.selfattn's keywords. Its fields are declared in
reading/inputs.LAYER, by which the one reader (reading/check/reader.read_layer) then reads
every sequence, projection and bias as a float64 array of its rank, naming the field and
the row of anything that is not, and the token names, the masks and the gradient at the
output likewise; the checks (reading/check/selfattn.py and its neighbours) hold them
against each other and the settings."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from attncli.reading.inputs import DIRECT_LAYOUT, LAYER, SEQUENCE

# Each array field holds its value as given (nested lists from JSON, a numpy array from
# Python or an .npz archive), or None when it is not given.


@dataclass(frozen=True)
class LayerInputs:
    """The inputs of attn selfattn and attncli.selfattn, by field: every array field and
    tokens are keywords of attncli.selfattn; query_tokens, trained_by, positions, written
    and others only a document carries."""

    # The sequences: x [T, d_model] (or a batch B × T × d_model); or x_q with x_kv, or with
    # x_k and x_v of their own widths (cross-attention); or queries [T_q, d_k],
    # keys [T_k, d_k] and values [T_k, d_v] given directly, without projections.
    x: Any = None
    x_q: Any = None
    x_kv: Any = None
    x_k: Any = None
    x_v: Any = None
    queries: Any = None
    keys: Any = None
    values: Any = None
    tokens: Any = None  # the keys' (and, for self-attention, the queries') token names
    query_tokens: Any = None  # cross-attention's queries' token names
    # The projections, d_in × d_out, applied as x @ W; their biases (h·d_k, h·d_v, d_out
    # numbers); torch's add_bias_kv rows, one more key and value.
    w_q: Any = None
    w_k: Any = None
    w_v: Any = None
    w_o: Any = None
    b_q: Any = None
    b_k: Any = None
    b_v: Any = None
    b_o: Any = None
    bias_k: Any = None
    bias_v: Any = None
    # Which query may look at which key: attn's mask (1 where it may), torch's attn_mask
    # and key_padding_mask (true where it may not, or floats added to the scores).
    mask: Any = None
    attn_mask: Any = None
    key_padding_mask: Any = None
    # The backward pass: ∂ℓ/∂output, or a target for ℓ = ½‖output − target‖².
    grad_output: Any = None
    target: Any = None
    trained_by: Any = None  # the attn train line that learned the W (a text, shown)
    # The encoding the layer's X carries ("sinusoidal"): an x given holds it already; a
    # sentence's X gets it added, since the W were learned on X with it.
    positions: Any = None
    # A result read back (`attn selfattn … | attn selfattn`): what it wrote down of itself
    # (its output, its settings, its grids), held against the recomputation.
    written: Mapping[str, Any] = field(default_factory=dict)
    # The document's other names, in its order: a checkpoint's (taken by
    # reading/models/state_dicts.in_document) or none attn reads (refused by check_fields).
    others: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_document(cls, document: Mapping[str, Any]) -> LayerInputs:
        """A parsed document's fields as the layer's inputs: a field of null is not given;
        for a result read back (it has an `output`), what it wrote down of itself is
        `written`; any other name goes to `others`, as it is."""
        read_back = "output" in document
        given: dict[str, Any] = {}
        written: dict[str, Any] = {}
        others: dict[str, Any] = {}
        for name, value in document.items():
            if name in INPUTS and not (read_back and name in TRAINING):
                given[name] = value
            elif read_back and (is_output(name) or name in TRAINING):
                written[name] = value
            else:
                others[name] = value
        return cls(**given, written=written, others=others)

    def value(self, name: str) -> Any:
        """The field `name` (one of INPUTS), or None when it is not given."""
        if name not in INPUTS:
            raise AttributeError(name)
        return getattr(self, name)

    def given(self) -> list[str]:
        """The names of the fields given, in declaration order, then what a result read
        back wrote and the document's other names."""
        named = [name for name in INPUTS if getattr(self, name) is not None]
        return [*named, *self.written, *self.others]

    @property
    def read_back(self) -> bool:
        """The input is a result of attn selfattn, read again."""
        return "output" in self.written

    @property
    def from_x(self) -> bool:
        """X is given (x, or x_q with x_kv, …), not queries, keys and values."""
        return any(getattr(self, name) is not None for name in X_FIELDS)

    @property
    def backward(self) -> bool:
        """The gradient at the output is given, or a target for it."""
        return self.grad_output is not None or self.target is not None

    def but(self, **changes: Any) -> LayerInputs:
        """A copy with `changes` made (a field of None: no longer given)."""
        return replace(self, **changes)


# Its fields, as declared (reading/inputs.LAYER: each one's dimensions and how it is read)
INPUTS = tuple(declared.name for declared in LAYER.fields)
# The sequences a layer computed from X reads (a result of one holds them; one of queries,
# keys and values given directly does not).
DIRECT = DIRECT_LAYOUT.names  # given instead of X, or a result's outputs
X_FIELDS = tuple(declared.name for declared in LAYER.fields
                 if declared.form == SEQUENCE and declared.name not in DIRECT)  # fmt: skip
# A latent layer's projections (--latent-rank; W^QR and W^KR with its rotary key): always
# drawn from the seed, written by its result and held against the ones drawn again.
LATENT_PROJECTIONS = ("w_dkv", "w_uk", "w_uv", "w_qr", "w_kr")
# The layer's own outputs (results/selfattn.py): when a result is read back (it has an
# `output`), they pass through; the layer computes them again from its inputs.
OUTPUTS = frozenset(
    {
        "d_model",
        "d_k",
        "d_v",
        "heads",
        "scale",
        "divisor",
        "causal",
        "causal_from",
        "projections",
        "norm",
        "seed",
        "raw_scores",
        "scores",
        "weights",
        "weights_mean",
        "extra_keys",
        "drawn",
        "dtype",
        "concat",
        "output",
        "params",
        "loss",
        "rope_base",
        "kv_heads",
        "window",
        "alibi",
        "qk_norm",
        "rope_scaling",
        "rope_frequencies",
        "rope_attention_factor",
        "softcap",
        "sinks",
        "sink_weights",
        "latent_rank",
        "latent",
        *LATENT_PROJECTIONS,
        "rope_dim",
        "rotary_key",
    }
)
# What attn train's document (results/training.py) adds to the layer's: the encoding already
# in its x, the training's history and its test. It is a result of the layer too (it has an
# `output`), so these pass through as the outputs do.
TRAINING = frozenset({"positions", "training", "test"})


def is_output(name: str) -> bool:
    """A field the layer writes: its outputs and its gradients (grad_x, grad_w_q, …)."""
    return name in OUTPUTS or (name.startswith("grad_") and name != "grad_output")
