"""The calculator's inputs, declared once: each field's name (the JSON field is the Python
keyword), its shape in named dimensions, its command-line spelling and help, an example, and
what it may hold; and each operation's fields, with those it cannot do without.

The one reader (reading/check/reader.py) reads every operation's document by these
declarations: the rank of each field, the dimensions bound and checked across fields, a
missing field with its example, two fields of which one must be given. The command line's
options are built from them (cli/options.py: `--keys`, `-k`, its help), and the Python API's
keywords are their names. A rule the declarations cannot say stays with the code that
needs it, by name (a score whose query and key must be of one size, the gradient of an
output's own shape).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from attncli.errors import LARGEST_SEED, InputError
from attncli.messages import Message, OnSurface, Setting, _
from attncli.settings import Whole

# What each named dimension counts, said in a message about two fields that disagree on it.
DIMENSIONS = {
    "T": _("the number of tokens"),
    "T_q": _("the number of queries"),
    "T_k": _("the number of keys, one per token"),
    "d_q": _("a query's size"),
    "d_k": _("a key's size"),
    "d_v": _("a value's size"),
    "d_a": _("the additive score's hidden size"),
    "T_c": _("the output's rows, one per query"),
    "d_c": _("the output's size, a value's"),
    "d_model": _("a token's embedding size"),
    "kdim": _(
        "the width of the sequence the keys are made from (x, x_kv, or x_k of its own width)"
    ),
    "vdim": _(
        "the width of the sequence the values are made from (x, x_kv, or x_v of its own width)"
    ),
    "d_out": _("the layer's output width, W^O's columns"),
    "kv_d_k": _("W^K's columns, G key/value heads of d_k each"),
    "kv_d_v": _("W^V's columns, G key/value heads of d_v each"),
}

# How a field is read where its rank and `names` do not say it (reading/check/reader.
# read_field): a sequence T × d or a batch of them B × T × d; an array of any rank (held to
# the output's shape later); torch's add_bias_kv row (1 × 1 × n as torch stores it, or n
# numbers); a mask in one of three senses (reading/parse/masks.py keeps it in the dtype); a
# text; or a value kept as given, for a check by name (the positions' encoding).
SEQUENCE, TENSOR, ROW, TEXT, KEPT = "sequence", "tensor", "row", "text", "kept"
MASK, ATTN_MASK, KEY_PADDING_MASK = "mask", "attn_mask", "key_padding_mask"
FORMS = ("", SEQUENCE, TENSOR, ROW, TEXT, KEPT, MASK, ATTN_MASK, KEY_PADDING_MASK)


SEED_RANGE = Whole(0, LARGEST_SEED)  # a seed: numpy's SeedSequence takes 64 bits
HIDDEN_SIZE = Whole(1)  # the additive score's d_a


@dataclass(frozen=True)
class Field:
    """One input of an operation.

    `dims` name its axes (keys: T_k × d_k); a field that is `one_row` may also be given as a
    single row, its first axis left out (one query's scores: T_k numbers). `what` says in a
    few words what it holds, for the hint that asks for it; `example` is a value it takes,
    written on the command line as `cli_example` says (default: the option and the JSON)."""

    name: str
    dims: tuple[str, ...]
    what: str | None = None  # a msgid: "a row per token"
    example: Any = None
    help: str | None = None  # a msgid: the option's --help
    short: str | None = None  # -k
    one_row: bool = False
    masked: bool = False  # null or -Infinity marks a masked cell
    names: bool = False  # token names, not numbers
    cli_example: Any = None  # a Message or text where the option's JSON is not the way
    chained: OnSurface | None = None  # what gives it from the command before in a chain
    form: str = ""  # how it is read, where its dims do not say (one of FORMS)

    @property
    def option(self) -> str:
        """Its command-line spelling: --grad-output."""
        return "--" + self.name.replace("_", "-")

    def example_on_surfaces(self) -> OnSurface:
        """The example as each surface writes it: `--keys '[[2,1],[0,2]]'`, `keys=[[2, 1],
        [0, 2]]`."""
        cli = self.cli_example
        if cli is None:
            text = ",".join(self.example) if self.names else json.dumps(self.example)
            cli = Setting(self.name, metavar=f"'{text.replace(' ', '')}'")
        return OnSurface(cli, Setting(self.name, self.example))

    def hint(self) -> Message:
        """How to give it, for the message that says it is missing."""
        if self.chained is not None:
            return Message(
                _("give '{field}' ({what}), e.g. {example}, or {chained}"),
                field=self.name,
                what=Message(self.what or ""),
                example=self.example_on_surfaces(),
                chained=self.chained,
            )
        return Message(
            _("give '{field}' ({what}), e.g. {example}"),
            field=self.name,
            what=Message(self.what or ""),
            example=self.example_on_surfaces(),
        )


@dataclass(frozen=True)
class Operation:
    """What an operation reads: its fields, in the order their dimensions are bound, and
    what it needs: a field's name, or a group of names of which exactly one is given."""

    name: str
    fields: tuple[Field, ...]
    needs: tuple[str | tuple[str, ...], ...]

    def field(self, name: str) -> Field:
        return next(f for f in self.fields if f.name == name)

    def either_hint(self, names: tuple[str, ...]) -> Message:
        """How to give one of a pair: query (one vector) or queries (a row per query)."""
        first, second = (self.field(name) for name in names[:2])
        return Message(
            _("give '{first}' ({first_what}) or '{second}' ({second_what}), e.g. {example}"),
            first=first.name,
            first_what=Message(first.what or ""),
            second=second.name,
            second_what=Message(second.what or ""),
            example=first.example_on_surfaces(),
        )

    def with_fields(self, *more: Field) -> Operation:
        """The operation with more fields (a score method's parameters)."""
        return Operation(self.name, (*self.fields, *more), self.needs)


QUERY = Field(
    "query",
    ("d_q",),
    _("one vector"),
    [1, 0],
    _("One query vector, e.g. 1,0."),
    "-q",
    cli_example=Message(_("--query 1,0")),
)
QUERIES = Field(
    "queries",
    ("T_q", "d_q"),
    _("a row per query"),
    [[0, 1], [1, 1]],
    _("Several queries, a row each: '[[0,1],[1,1]]' or '0,1;1,1'."),
)
KEYS = Field(
    "keys",
    ("T_k", "d_k"),
    _("a row per token"),
    [[2, 1], [0, 2]],
    _("Keys, a row per token: '[[2,1],[0,2],[1,1]]'."),
    "-k",
)
VALUES = Field(
    "values",
    ("T_k", "d_v"),
    _("a row per token"),
    [[10, 0], [0, 10]],
    _("Values, a row per token: '[[10,0],[0,10],[5,5]]'."),
    "-v",
)
TOKENS = Field(
    "tokens",
    ("T_k",),
    _("a name per key"),
    ["tren", "va", "lleno"],
    _("Token names for the keys, e.g. tren,va,lleno."),
    names=True,
)
SCORES = Field(
    "scores",
    ("T_q", "T_k"),
    _("a score per key, or a row per query"),
    [2, 0, 1],
    _("Scores as one option: '2,0,1' or a grid '2,0;1,1'."),
    one_row=True,
    masked=True,
    cli_example="attn softmax 2 0 1",
    chained=OnSurface(Message(_("pipe attn score")), Message(_("score()'s result"))),
)
WEIGHTS = Field(
    "weights",
    ("T_q", "T_k"),
    _("a weight per value row, or a row per query"),
    [0.665, 0.09, 0.245],
    _("Weights, one per value row (or a grid): 0.665,0.090,0.245."),
    "-w",
    one_row=True,
    cli_example=Message(_("--weights 0.665,0.090,0.245")),
    chained=OnSurface(Message(_("pipe attn softmax")), Message(_("softmax()'s result"))),
)

# The gradient arriving at attn grad's output c, or a target it is made from (∂ℓ/∂c = c −
# target for ℓ = ½‖c − target‖²): each the output's shape, T_c × d_c (one query: a vector
# of d_c), held to the output itself (reading/check/grad.py) so that a wrong size is said
# against the output the user computed, not against the values' width or the queries'
TARGET = Field(
    "target",
    ("T_c", "d_c"),
    _("for ℓ = ½‖c − target‖², the shape of the output"),
    [8, 2],
    _("A target for ℓ = ½‖c − target‖², e.g. 8,2."),
    one_row=True,
    cli_example=Message(_("--target 8,2")),
)
GRAD_OUTPUT = Field(
    "grad_output",
    ("T_c", "d_c"),
    _("∇_c ℓ, the shape of the output"),
    [1, 0],
    _("∇_c ℓ, the gradient at the output, e.g. 1,0."),
    "-g",
    one_row=True,
    cli_example=Message(_("--grad-output 1,0")),
)

SCORE = Operation("score", (QUERY, QUERIES, KEYS, TOKENS), (("query", "queries"), "keys"))
SOFTMAX = Operation("softmax", (SCORES, TOKENS), ("scores",))
MIX = Operation("mix", (WEIGHTS, VALUES, TOKENS), ("weights", "values"))
GRAD = Operation(
    "grad",
    (QUERY, QUERIES, KEYS, VALUES, TOKENS, TARGET, GRAD_OUTPUT),
    (("query", "queries"), "keys", "values", ("target", "grad_output")),
)


def both_given(first: Field, second: Field, named: tuple[Any, Any] | None = None) -> InputError:
    """Both fields of a pair of which one is read (query or queries, target or
    grad_output): one would be dropped without a word. `named`: each as the input gave it
    (a document's field, or the option that typed it)."""
    shown = named or (first.name, second.name)
    return InputError(
        _("give {first} ({first_what}) or {second} ({second_what}), not both; one would be "
          "dropped"),
        first=shown[0],
        first_what=Message(first.what or ""),
        second=shown[1],
        second_what=Message(second.what or ""),
    )  # fmt: skip


# Self-attention's fields (reading/parse/layer_inputs.LayerInputs), in the order the one
# reader reads them (reading/check/reader.read_layer). The sequences are each T × d or a
# batch B × T × d, bound once they are read: queries and keys of one width, one value and
# one key per token, x_q and x_kv of one d_model. The projections are d_in × d_out, as
# applied x @ W (d_k and d_v over every head); the biases and torch's add_bias_kv rows h·d
# numbers; the masks of the scores' shape, or one torch broadcasts to it; the gradient at
# the output (or its target) of the output's shape, held to it by reading/check/grad.py.
LAYER_QUERIES = Field("queries", ("T_q", "d_k"), form=SEQUENCE)
LAYER_KEYS = Field("keys", ("T_k", "d_k"), form=SEQUENCE)
LAYER_VALUES = Field("values", ("T_k", "d_v"), form=SEQUENCE)
X = Field("x", ("T", "d_model"), form=SEQUENCE)
X_Q = Field("x_q", ("T_q", "d_model"), form=SEQUENCE)
X_KV = Field("x_kv", ("T_k", "d_model"), form=SEQUENCE)
X_K = Field("x_k", ("T_k", "kdim"), form=SEQUENCE)
X_V = Field("x_v", ("T_k", "vdim"), form=SEQUENCE)
LAYER = Operation(
    "selfattn",
    (
        X, X_Q, X_KV, X_K, X_V, LAYER_QUERIES, LAYER_KEYS, LAYER_VALUES,
        Field("w_q", ("d_model", "d_k")),
        Field("w_k", ("kdim", "d_k")),
        Field("w_v", ("vdim", "d_v")),
        Field("w_o", ("d_v", "d_out")),
        Field("b_q", ("d_k",)),
        Field("b_k", ("d_k",)),
        Field("b_v", ("d_v",)),
        Field("b_o", ("d_out",)),
        Field("bias_k", ("d_k",), form=ROW),
        Field("bias_v", ("d_v",), form=ROW),
        Field("tokens", ("T_k",), names=True),
        Field("query_tokens", ("T_q",), names=True),
        Field("mask", ("T_q", "T_k"), form=MASK),
        Field("attn_mask", ("T_q", "T_k"), form=ATTN_MASK),
        Field("key_padding_mask", ("T_k",), form=KEY_PADDING_MASK),
        Field("trained_by", (), form=TEXT),
        Field("grad_output", ("T_q", "d_out"), form=TENSOR),
        Field("target", ("T_q", "d_out"), form=TENSOR),
        Field("positions", (), form=KEPT),
    ),
    (),
)  # fmt: skip


@dataclass(frozen=True)
class Layout:
    """One way of giving the layer its sequences: the fields it reads (each required, all
    of one sequence or all batches of one B, their dimensions bound), the fields whose
    presence chooses it, the hint for one left out, and the fields it cannot go with (one
    of the two would be left unread)."""

    fields: tuple[Field, ...]
    chosen_by: tuple[str, ...]
    hint: str  # a msgid
    excludes: tuple[str, ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(declared.name for declared in self.fields)


# In the order they are chosen: keys and values of their own widths (torch's kdim, vdim),
# cross-attention, then self-attention's x, which is asked for when nothing else is given.
LAYOUTS = (
    Layout((X_Q, X_K, X_V), ("x_k", "x_v"),
           _("keys and values of their own widths need x_q, x_k and x_v"), ("x", "x_kv")),
    Layout((X_Q, X_KV), ("x_q", "x_kv"), _("cross-attention needs x_q and x_kv"), ("x",)),
    Layout((X,), (), _("give x (a row per token), x_q and x_kv, or queries/keys/values")),
)  # fmt: skip
# Queries, keys and values given directly, without projections.
DIRECT_LAYOUT = Layout(
    (LAYER_QUERIES, LAYER_KEYS, LAYER_VALUES), (), _("give queries with keys and values")
)


# The fields only the projections use: left as they are without them (--no-proj).
PROJECTED = ("w_q", "w_k", "w_v", "w_o", "b_q", "b_k", "b_v", "b_o", "bias_k", "bias_v")
