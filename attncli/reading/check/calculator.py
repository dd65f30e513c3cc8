"""Assemble each command's validated inputs from a parsed document.

This is the second half of the parsing layer: values.py reads single fields,
this module checks that the fields fit together (lengths, counts, parameter
shapes) and fills in seeded score parameters that the document left out.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from attncli.core.methods import METHODS, NAMES, ScoreMethod, parameter_names
from attncli.errors import InputError, OptionError, ShapeError, count
from attncli.limits import check_fits
from attncli.messages import Message, Setting, _
from attncli.reading.check.reader import ReadInputs, as_given, check_same_size, read_inputs
from attncli.reading.inputs import HIDDEN_SIZE, MIX, SCORE, SEED_RANGE, SOFTMAX, Field, Operation
from attncli.reading.parse.values import (
    Document,
    FiniteDocument,
    parse_tokens,
    to_matrix,
    to_vector_or_matrix,
    typed_fields,
)
from attncli.settings import check_range

if TYPE_CHECKING:
    from collections.abc import Mapping

    import numpy as np


@dataclass
class Rows:
    """A vector or a grid, stored as a matrix, remembering which it was and what labels its axes."""

    matrix: np.ndarray  # [T_q, n]
    single: bool  # the input held one vector, so output is one vector too
    row_labels: list[str]
    column_labels: list[str]

    def shaped(self, array: np.ndarray) -> np.ndarray:
        """A per-row result back in the input's form: a vector for a single row."""
        return array[0] if self.single else array


@dataclass
class ScoreInput:
    """Queries and keys for attn score, with the parameters of the learned scores."""

    queries: Rows  # matrix [T_q, d_q]; column_labels name the keys
    keys: np.ndarray  # [T_k, d_k]
    parameters: dict[str, np.ndarray] = field(default_factory=dict)
    drawn: list[str] = field(default_factory=list)  # parameters drawn from --seed
    values: np.ndarray | None = None  # [T_k, d_v], when the operation reads them (attn grad)
    # attn grad's target or grad_output, (its name, [d_v] or [T_q, d_v]), as read
    upstream: tuple[str, np.ndarray] | None = None
    scores: np.ndarray | None = None  # attn grad's given scores, -inf where masked


def _as_rows(array: np.ndarray) -> np.ndarray:
    return array[None, :] if array.ndim == 1 else array


def row_labels(tokens: object, count: int, single: bool, prefix: str) -> list[str]:
    """Labels for query rows: the `tokens` given when there is one query per token, else q1,
    q2, ..."""
    if single:
        return ["query"]
    if (
        isinstance(tokens, list)
        and len(tokens) == count
        and all(isinstance(t, str) for t in tokens)
    ):
        return list(tokens)
    return [f"{prefix}{index}" for index in range(1, count + 1)]


# The learned scores' parameters, by the method that reads them (b_1, b_2 are refused by
# refuse_unused with the rest of the biases).
SCORE_PARAMETERS = {p.name: m.name for m in METHODS.values() for p in m.parameters}


def chosen_method(document: Document, method: str | None) -> str:
    """The score asked for (--method), else the document's own `method` (an exercise's, or
    one piped from the forward chain), else dot."""
    if method is not None:
        return method
    written = document.get("method", "dot")
    if written not in NAMES:
        shown = json.dumps(written)[:40]
        raise InputError(
            _("field 'method': {shown} is not one of {join}; fix it, or give --method"),
            shown=shown,
            join=", ".join(NAMES),
        )
    return str(written)


def score_input(
    document: Document, method: str, seed: int, d_a: int | None, operation: Operation = SCORE
) -> ScoreInput:
    """Validated queries, keys and score parameters for `method`, read as `operation` reads
    them (attn grad's reads the values too)."""
    scoring = METHODS[method]
    refuse_unused(document, scoring.optional, method, masks=True)
    check_range(Setting("seed", seed), SEED_RANGE)  # as the command line's --seed
    if d_a is not None:  # as --d-a
        check_range(Setting("d_a", d_a), HIDDEN_SIZE)
    if d_a is not None and not scoring.hidden:
        raise OptionError(
            _(
                "{d_a} sizes the additive score's hidden layer, which {method} does not have; "
                "drop it, or give {additive}"
            ),
            d_a=Setting("d_a", d_a),
            method=Setting("method", method),
            additive=Setting("method", _hidden_method()),
        )
    bound = ReadInputs()  # --d-a, the size the parameters' d_a must have
    if d_a is not None:
        bound.bind("d_a", d_a, Setting("d_a", d_a), count(d_a, "number"))
    read = read_inputs(operation.with_fields(*parameter_fields(scoring)), document, bound)
    single = "query" in read.arrays  # one query vector (attn grad's target may be a row)
    queries, keys = read.rows("query" if single else "queries"), read.arrays["keys"]
    if scoring.same_size and queries.shape[1] != keys.shape[1]:
        raise ShapeError(
            _(
                "{query} has {numbers} but each key has {key_size} ({method} takes the dot "
                "product of the two, so they must be equal; {general} or {additive} allow "
                "different sizes)"
            ),
            general=Setting("method", "general"),
            additive=Setting("method", "additive"),
            query=Message(_("the query")) if single else Message(_("each query")),
            numbers=count(queries.shape[1], "number"),
            key_size=keys.shape[1],
            method=Setting("method", method),
            about=("query", "queries", "keys"),
        )
    scoring.check(queries, keys, single)
    tokens = read.arrays.get("tokens")
    rows = Rows(
        queries,
        single,
        row_labels(tokens, queries.shape[0], single, "q"),
        labels(tokens, keys.shape[0], "keys", "k"),
    )
    upstream = next(((name, read.arrays[name]) for name in ("target", "grad_output")
                     if name in read.arrays), None)  # fmt: skip
    result = ScoreInput(rows, keys, values=read.arrays.get("values"), upstream=upstream,
                        scores=read.arrays.get("scores"))  # fmt: skip
    sizes = dict(read.sizes)
    if scoring.hidden:
        sizes["d_a"] = _hidden_size(sizes, queries.shape[0] * keys.shape[0])
    for parameter in scoring.parameters:
        if parameter.name in read.arrays:
            result.parameters[parameter.name] = read.arrays[parameter.name]
            continue
        from attncli.core.seeding import linear_parameter, uniform_parameter

        draw = uniform_parameter if parameter.draw == "uniform" else linear_parameter
        shape = tuple(sizes[dim] for dim in parameter.shape)
        fan_in = sizes[parameter.fan_in]
        result.parameters[parameter.name] = draw(seed, parameter.name, shape, fan_in)
        result.drawn.append(parameter.name)
    for name in scoring.optional:  # optional: left out, a bias is zero
        if name in read.arrays:
            result.parameters[name] = read.arrays[name]
    return result


def parameter_fields(scoring: ScoreMethod) -> tuple[Field, ...]:
    """A score method's parameters as fields of attn score's input: each its declared shape
    (w_a: d_q × d_k), the optional biases one number per row of the hidden layer (d_a)."""
    return (
        *(Field(p.name, p.shape) for p in scoring.parameters),
        *(Field(name, ("d_a",)) for name in scoring.optional),
    )


def _hidden_method() -> str:
    """The method with a hidden layer, which --d-a sizes."""
    return next(m.name for m in METHODS.values() if m.hidden)


def _hidden_size(sizes: dict[str, int], pairs: int) -> int:
    """d_a: as --d-a or the parameters given bind it (the reader has held them to agree),
    else d_k; refused when the block it makes (d_a numbers per pair) would not fit in
    memory."""
    size = sizes.get("d_a", sizes["d_k"])
    d_q, d_k = sizes["d_q"], sizes["d_k"]
    check_fits(
        lambda sizes: sizes["--d-a"] * (d_q + d_k + 1 + 2 * pairs),
        {"--d-a": size},
        ("--d-a",),
        Message(_("additive scoring with {d_a}"), d_a=Setting("d_a", size)),
        names={"--d-a": Setting("d_a")},
    )
    return size


def softmax_input(document: Document) -> Rows:
    """Validated scores (a row or a grid, -inf/null for masked cells)."""
    refuse_unused(document, masks=True)
    read = read_inputs(SOFTMAX, document)
    grid, tokens = read.rows("scores"), read.arrays.get("tokens")
    column_labels = labels(tokens, grid.shape[1], "scores", "k", "column")
    return Rows(grid, read.single, row_labels(tokens, grid.shape[0], read.single, "q"),
                column_labels)  # fmt: skip


def mix_input(document: Document) -> tuple[Rows, np.ndarray]:
    """Validated weights (a row or a grid) and the value rows they mix."""
    refuse_unused(document, masks=True)
    read = read_inputs(MIX, document)
    grid, values, tokens = read.rows("weights"), read.arrays["values"], read.arrays.get("tokens")
    column_labels = labels(tokens, values.shape[0], "values", "k")
    rows = Rows(grid, read.single, row_labels(tokens, grid.shape[0], read.single, "q"),
                column_labels)  # fmt: skip
    return rows, values


def carried_values(
    document: Document, key_count: int, read: dict[str, np.ndarray] | None = None
) -> Document:
    """The document to carry forward, its query or queries, score parameters, keys and
    values (if any) checked: finite numbers, one value row per key (a -Infinity carried
    unchecked would come out as null, which the next command refuses or reads as a masked
    cell). `read` gives the fields the command has already read as arrays, so that a long
    document's numbers are converted once (attn mix: values; attn score: keys). Keys and
    values the command does not read, in a FiniteDocument, go on as they came, their rows
    counted: their numbers cannot come out as null, and the command that reads them checks
    them (attn softmax's 10,000 × 512 keys and values are not converted twice for nothing)."""
    carried = dict(document)
    carried.update(read or {})
    # The query and the score's parameters go on too (score's result read by softmax, then
    # mix): finite numbers, as the command that reads them next requires.
    for name in ("query", "queries", *parameter_names()):
        value = carried.get(name)
        deeper = getattr(value, "ndim", 0) > 2 or (
            isinstance(value, list) and bool(value) and isinstance(value[0], list)
            and bool(value[0]) and isinstance(value[0][0], list)
        )  # fmt: skip
        if value is not None and not deeper:  # a layer's h × T × d is not this command's
            carried[name] = to_vector_or_matrix(value, name)
    as_they_came = isinstance(document, FiniteDocument)
    rows = {}
    for name in ("keys", "values"):
        value = carried.get(name)
        if value is None:
            continue
        if name in (read or {}):  # checked when the command read it
            rows[name] = value.shape[0]
        elif as_they_came and isinstance(value, list):
            rows[name] = len(value)
        else:
            carried[name] = to_matrix(value, name)
            rows[name] = carried[name].shape[0]
    if "values" in rows:
        typed = typed_fields(document)
        check_one_value_per_key(rows["values"], key_count, typed)
        if "keys" in rows:
            check_one_value_per_key(rows["values"], rows["keys"], typed)
    return carried


# Fields a command would not use, refused rather than dropped, since the numbers would
# then differ from the ones meant: the biases the calculator does not add (torch's
# in_proj_bias with how to give it), a parameter of another score than the one asked for,
# and what attn selfattn reads to mask its scores (causal: false masks nothing).
UNSUPPORTED_BIASES = ("in_proj_bias", "b_1", "b_2", "b_a", "bias")
SELFATTN_BIASES = ("b_q", "b_k", "b_v", "b_o")
MASK_FIELDS = ("mask", "attn_mask", "key_padding_mask", "causal", "valid_len")
_BIAS = _("field '{name}': this command does not add that bias, and leaving it out would give "
          "a different result; fold it into the inputs or remove the field")  # fmt: skip
_IN_PROJ_BIAS = _("field 'in_proj_bias': give torch's in_proj_bias as b_q, b_k and b_v, its "
                  "three thirds in that order")  # fmt: skip
_PARAMETER = _("field '{name}': a parameter of the {owner} score, which {method} does not use; "
               "give {fix}, or remove the field")  # fmt: skip
_MASK = _("field '{name}': score, softmax, mix and grad do not mask; write null (or "
          "-Infinity) in scores where a query may not look, or give x and {name} to attn "
          "selfattn")  # fmt: skip


def refuse_unused(
    document: Mapping[str, Any],
    biases: tuple[str, ...] | None = None,
    method: str | None = None,
    masks: bool = False,
) -> None:
    """The first field given that the command would not use, refused in one line saying
    why: a bias not among `biases` (those it adds; None: biases are not checked), a
    parameter of another score than `method`, a mask (with `masks`; a result of attn
    selfattn, which writes its raw_scores beside them, passes: its scores hold its masks,
    null where masked)."""
    rules: list[tuple[str, str, dict[str, Any]]] = []
    if biases is not None:
        rules += [
            (name, _IN_PROJ_BIAS if name == "in_proj_bias" else _BIAS, {})
            for name in (*UNSUPPORTED_BIASES, *SELFATTN_BIASES)
            if name not in biases
        ]
    if method is not None:
        rules += [
            (
                name,
                _PARAMETER,
                {
                    "owner": owner,
                    "method": Setting("method", method),
                    "fix": Setting("method", owner),
                },
            )
            for name, owner in SCORE_PARAMETERS.items()
            if owner != method
        ]
    if masks and "raw_scores" not in document:
        rules += [(name, _MASK, {}) for name in MASK_FIELDS]  # fmt: skip
    for name, msgid, said in rules:
        value = document.get(name)
        if value is not None and not (value is False and name == "causal"):
            raise InputError(msgid, name=name, **said)


def check_one_value_per_key(
    value_rows: int, key_rows: int, typed: frozenset[str] = frozenset()
) -> None:
    """Each token has one key and one value, so the two counts must agree (`typed`: the
    fields an option typed, named by it): both are T_k."""
    check_same_size("T_k", (as_given("values", typed), value_rows, count(value_rows, "row")),
                    (as_given("keys", typed), key_rows, count(key_rows, "row")))  # fmt: skip


# The dimension a token name labels, by the prefix of the labels made without them.
LABELLED = {"k": "T_k", "q": "T_q", "t": "T"}


def labels(
    tokens: object, rows: int, field: str, prefix: str, unit: str = "row", source: str = "tokens"
) -> list[str]:
    """Token names for `rows` rows (or columns: `unit`) of `field`: the `tokens` given (the
    field `source`), or prefix1, prefix2, ... when they are not (None)."""
    if tokens is None:
        return [f"{prefix}{index}" for index in range(1, rows + 1)]
    names = parse_tokens(tokens, source)
    # the names label the rows' dimension: one name a row
    check_same_size(LABELLED[prefix], (source, len(names), count(len(names), "name")),
                    (field, rows, count(rows, unit)))  # fmt: skip
    return names
