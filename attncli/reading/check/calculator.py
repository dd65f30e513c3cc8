"""Assemble each command's validated inputs from a parsed document.

This is the second half of the parsing layer: values.py reads single fields,
this module checks that the fields fit together (lengths, counts, parameter
shapes) and fills in seeded score parameters that the document left out.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from attncli.core.methods import METHODS, NAMES, ScoreMethod, parameter_names
from attncli.errors import InputError, OptionError, ShapeError, check_whole, count, shape_text
from attncli.limits import check_fits
from attncli.messages import Message, OnSurface, Setting, _
from attncli.reading.parse.values import (
    Document,
    FiniteDocument,
    one_query_or_queries,
    parse_tokens,
    require,
    to_matrix,
    to_vector,
    to_vector_or_matrix,
)

if TYPE_CHECKING:
    import numpy as np

# How to give a missing field: an example as the surface that asks writes it (--query 1,0
# on the command line, query=[1, 0] in Python); the option's numbers as the language writes
# them in an option (Spanish: --query '1; 0').
QUERY_HINT = Message(
    _("give 'query' (one vector) or 'queries' (a row per query), e.g. {example}"),
    example=OnSurface(Message(_("--query 1,0")), Setting("query", [1, 0])),
)
KEYS_HINT = Message(
    _("give 'keys' (a row per token), e.g. {example}"),
    example=OnSurface(
        Setting("keys", metavar="'[[2,1],[0,2]]'"), Setting("keys", [[2, 1], [0, 2]])
    ),
)
VALUES_HINT = Message(
    _("give 'values' (a row per token), e.g. {example}"),
    example=OnSurface(
        Setting("values", metavar="'[[10,0],[0,10]]'"), Setting("values", [[10, 0], [0, 10]])
    ),
)
SCORES_HINT = Message(
    _("give 'scores', e.g. {example}, or {chained}"),
    example=OnSurface("attn softmax 2 0 1", Setting("scores", [2, 0, 1])),
    chained=OnSurface(Message(_("pipe attn score")), Message(_("score()'s result"))),
)
WEIGHTS_HINT = Message(
    _("give 'weights', e.g. {example}, or {chained}"),
    example=OnSurface(
        Message(_("--weights 0.665,0.090,0.245")), Setting("weights", [0.665, 0.09, 0.245])
    ),
    chained=OnSurface(Message(_("pipe attn softmax")), Message(_("softmax()'s result"))),
)


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


def queries_of(document: Document) -> tuple[np.ndarray, bool]:
    """The document's query or queries as a matrix, and whether it was one vector."""
    if document.get("queries") is not None and document.get("query") is not None:
        raise one_query_or_queries("query", "queries")
    if document.get("queries") is not None:
        return to_matrix(document["queries"], "queries"), False
    query = to_vector(require(document, "query", QUERY_HINT), "query")
    return query[None, :], True


# The learned scores' parameters, by the method that reads them (b_1, b_2 are refused by
# refuse_biases with the rest of the biases).
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


# What attn selfattn reads to mask its scores; the calculator's commands do not mask, so a
# document that says to would get unmasked numbers if the field were carried along.
MASK_FIELDS = ("mask", "attn_mask", "key_padding_mask", "causal", "valid_len")


def refuse_masks(document: Document) -> None:
    """A mask in a document of score, softmax, mix or grad: refused, saying how the
    calculator masks (a null score). A result of attn selfattn (it writes its raw_scores
    beside them) passes: its scores hold its masks already, null where masked."""
    if "raw_scores" in document:
        return
    for name in MASK_FIELDS:
        if document.get(name) not in (None, False):  # causal: false masks nothing
            raise InputError(
                _(
                    "field '{name}': score, softmax, mix and grad do not mask; write null (or "
                    "-Infinity) in scores where a query may not look, or give x and {name} to "
                    "attn selfattn"
                ),
                name=name,
            )


def refuse_unused_parameters(document: Document, method: str) -> None:
    """A parameter of another score would not be used: refuse it rather than give numbers
    that look as if it had been."""
    for name, owner in SCORE_PARAMETERS.items():
        if owner != method and document.get(name) is not None:
            raise InputError(
                _(
                    "field '{name}': a parameter of the {owner} score, which {method} does not "
                    "use; give {fix}, or remove the field"
                ),
                name=name,
                owner=owner,
                method=Setting("method", method),
                fix=Setting("method", owner),
            )


def score_input(document: Document, method: str, seed: int, d_a: int | None) -> ScoreInput:
    """Validated queries, keys and score parameters for `method`."""
    scoring = METHODS[method]
    refuse_biases({n for n, v in document.items() if v is not None}, allowed=scoring.optional)
    refuse_unused_parameters(document, method)
    refuse_masks(document)
    check_whole("seed", seed)  # as the command line's --seed: 0 to 2^64 − 1
    if not 0 <= seed < 2**64:
        raise OptionError(
            _("{setting}: the seed is a whole number from 0 to 2^64 − 1"),
            setting=Setting("seed", seed),
        )
    if d_a is not None:  # the command line's --d-a is a whole number of 1 or more; so is d_a=
        check_whole("d_a", d_a)
        if d_a < 1:
            raise OptionError(
                _("{setting}: it must be {least} or more"), setting=Setting("d_a", d_a), least=1
            )
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
    queries, single = queries_of(document)
    keys = to_matrix(require(document, "keys", KEYS_HINT), "keys")
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
    key_labels = labels(document.get("tokens"), keys.shape[0], "keys", "k")
    rows = Rows(
        queries,
        single,
        row_labels(document.get("tokens"), queries.shape[0], single, "q"),
        key_labels,
    )
    result = ScoreInput(rows, keys)
    sizes = {"d_q": queries.shape[1], "d_k": keys.shape[1]}
    if scoring.hidden:
        sizes["d_a"] = _hidden_size(document, scoring, sizes, d_a, queries.shape[0] * keys.shape[0])
    for parameter in scoring.parameters:
        shape = tuple(sizes[dim] for dim in parameter.shape)
        _parameter(document, result, parameter.name, shape, seed, sizes[parameter.fan_in])
    for name in scoring.optional:  # optional: left out, a bias is zero
        if document.get(name) is not None:
            bias = to_vector(document[name], name)
            if bias.shape != (sizes["d_a"],):
                raise ShapeError(
                    _("{name} has {shape} but must have {size} (one per row of W_1 and W_2, d_a)"),
                    name=name,
                    shape=count(bias.shape[0], "number"),
                    size=sizes["d_a"],
                )
            result.parameters[name] = bias
    return result


def _hidden_method() -> str:
    """The method with a hidden layer, which --d-a sizes."""
    return next(m.name for m in METHODS.values() if m.hidden)


def _hidden_size(
    document: Document, scoring: ScoreMethod, sizes: dict[str, int], d_a: int | None, pairs: int
) -> int:
    """d_a: the length of the hidden layer's readout vector when the document gives it (and
    --d-a, if given too, agrees), else --d-a, else d_k; refused when the block it makes
    (d_a numbers per pair) would not fit in memory."""
    readout = next(p.name for p in scoring.parameters if p.shape == ("d_a",))
    if document.get(readout) is not None:
        size = to_vector(document[readout], readout).shape[0]
        if d_a is not None and d_a != size:
            raise ShapeError(
                _("v_a has {size} numbers but {option} is {d_a} (drop one of them)"),
                size=size,
                option=Setting("d_a"),
                d_a=d_a,
            )
    else:
        size = d_a if d_a is not None else sizes["d_k"]
    d_q, d_k = sizes["d_q"], sizes["d_k"]
    check_fits(
        lambda sizes: sizes["--d-a"] * (d_q + d_k + 1 + 2 * pairs),
        {"--d-a": size},
        ("--d-a",),
        Message(_("additive scoring with {d_a}"), d_a=Setting("d_a", size)),
        names={"--d-a": Setting("d_a")},
    )
    return size


def _parameter(
    document: Document,
    result: ScoreInput,
    name: str,
    shape: tuple[int, ...],
    seed: int,
    fan_in: int,
) -> None:
    """A score parameter from the document, checked against `shape`, or drawn from the seed:
    the additive score's as torch's nn.Linear starts them (core.seeding.linear_parameter)."""
    from attncli.core.seeding import linear_parameter, uniform_parameter

    if document.get(name) is None:
        kind = next(p.draw for m in METHODS.values() for p in m.parameters if p.name == name)
        draw = uniform_parameter if kind == "uniform" else linear_parameter
        result.parameters[name] = draw(seed, name, shape, fan_in)
        result.drawn.append(name)
        return
    value = to_vector(document[name], name) if len(shape) == 1 else to_matrix(document[name], name)
    if value.shape != shape:
        expected, actual = shape_text(shape), shape_text(value.shape)
        raise ShapeError(
            _(
                "{name} is {actual} but must be {expected} for these queries and keys (or "
                "leave it out to draw it from {seed})"
            ),
            name=name,
            seed=Setting("seed"),
            actual=actual,
            expected=expected,
        )
    result.parameters[name] = value


def softmax_input(document: Document) -> Rows:
    """Validated scores (a row or a grid, -inf/null for masked cells)."""
    refuse_masks(document)
    scores = to_vector_or_matrix(
        require(document, "scores", SCORES_HINT), "scores", allow_masked=True
    )
    single = scores.ndim == 1
    grid = _as_rows(scores)
    column_labels = labels(document.get("tokens"), grid.shape[1], "scores", "k", "column")
    return Rows(
        grid, single, row_labels(document.get("tokens"), grid.shape[0], single, "q"), column_labels
    )


def mix_input(document: Document) -> tuple[Rows, np.ndarray]:
    """Validated weights (a row or a grid) and the value rows they mix."""
    refuse_masks(document)
    weights = to_vector_or_matrix(require(document, "weights", WEIGHTS_HINT), "weights")
    values = to_matrix(require(document, "values", VALUES_HINT), "values")
    single = weights.ndim == 1
    grid = _as_rows(weights)
    if grid.shape[1] != values.shape[0]:
        raise ShapeError(
            _("{weights_have} {numbers} but values has {rows} (one weight per value row)"),
            weights_have=(
                Message(_("weights has")) if single else Message(_("each row of weights has"))
            ),
            numbers=count(grid.shape[1], "number"),
            rows=count(values.shape[0], "row"),
            about=("weights", "values"),
        )
    column_labels = labels(document.get("tokens"), values.shape[0], "values", "k")
    return Rows(
        grid, single, row_labels(document.get("tokens"), grid.shape[0], single, "q"), column_labels
    ), values


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
        check_one_value_per_key(rows["values"], key_count)
        if "keys" in rows:
            check_one_value_per_key(rows["values"], rows["keys"])
    return carried


# Fields that look like model weights attn does not use yet: refused, since dropping one
# silently would give a number that differs from the model's.
UNSUPPORTED_BIASES = ("b_1", "b_2", "b_a", "in_proj_bias", "bias")
SELFATTN_BIASES = ("b_q", "b_k", "b_v", "b_o")


def refuse_biases(given: Collection[str], allowed: tuple[str, ...] = ()) -> None:
    """One line naming the first bias field among the fields `given` that is not
    `allowed`."""
    if "in_proj_bias" in given:
        raise InputError(
            _(
                "field 'in_proj_bias': give torch's in_proj_bias as b_q, b_k and b_v, its "
                "three thirds in that order"
            ),
        )
    for name in (*UNSUPPORTED_BIASES, *SELFATTN_BIASES):
        if name in allowed:
            continue
        if name in given:
            raise InputError(
                _(
                    "field '{name}': this command does not add that bias, and leaving it out "
                    "would give a different result; fold it into the inputs or remove the "
                    "field"
                ),
                name=name,
            )


def check_one_value_per_key(value_rows: int, key_rows: int) -> None:
    """Each token has one key and one value, so the two counts must agree."""
    if value_rows != key_rows:
        raise ShapeError(
            _(
                "values has {value_rows} but keys has {key_rows} (each token needs one key "
                "and one value)"
            ),
            value_rows=count(value_rows, "row"),
            key_rows=key_rows,
        )


def labels(
    tokens: object, rows: int, field: str, prefix: str, unit: str = "row", source: str = "tokens"
) -> list[str]:
    """Token names for `rows` rows (or columns: `unit`) of `field`: the `tokens` given (the
    field `source`), or prefix1, prefix2, ... when they are not (None)."""
    if tokens is None:
        return [f"{prefix}{index}" for index in range(1, rows + 1)]
    names = parse_tokens(tokens, source)
    if len(names) != rows:
        raise ShapeError(
            _("{source}: {tokens} for {rows} of {field} (give one name for each)"),
            source=source,
            tokens=count(len(names), "name"),
            rows=count(rows, unit),
            field=field,
        )
    return names
