"""The two languages attn speaks, and every phrase a table, a note or a step shows.

Spanish follows the course's vocabulary: consulta, clave, valor, puntuación, peso,
salida; «token» and «softmax» stay as they are. JSON is the same in both languages.
"""

from __future__ import annotations

from collections.abc import Mapping

from attncli import messages
from attncli.messages import _
from attncli.present.checking_words import CHECK_PHRASES
from attncli.present.cost.words import COST_PHRASES
from attncli.present.grad.words import GRAD_PHRASES
from attncli.present.inference.words import INFERENCE_PHRASES
from attncli.present.language_extra import EXTRA_PHRASES
from attncli.present.layer.grouped_words import GROUPED_PHRASES
from attncli.present.layer.rotary_words import ROTARY_PHRASES
from attncli.present.layer.scoring_words import SCORING_PHRASES
from attncli.present.layer.words import LAYER_PHRASES
from attncli.present.method_looks import METHOD_PHRASES
from attncli.present.model.words import MODEL_PHRASES
from attncli.present.pairs.words import PAIR_PHRASES
from attncli.present.questions_words import QUESTION_PHRASES
from attncli.present.training.words import TRAIN_PHRASES

LANGUAGES = messages.languages()  # English and every language with a catalog

# key -> the English msgid (its translations: locale/); {name} fields are filled by say().
PHRASES: dict[str, str] = {
    # Step tables: scores
    "query": _("query"),
    "token": _("Token"),
    "key": _("Key"),
    "w_a_key": _("W_a · key"),
    "query_key": _("Query · key"),
    "query_w_a_key": _("Query · (W_a · key)"),
    "score": _("Score"),
    # Step tables: softmax
    "softmax": _("Softmax"),
    "softmax_of": _("Softmax of {row}"),
    "score_over_t": _("Score ÷ T ({t})"),
    "power": _("e^score"),
    "power_over_t": _("e^(score ÷ T)"),
    "power_shifted": _("e^({exponent} − {shift})"),
    "exponent": _("score"),
    "exponent_over_t": _("score ÷ T"),
    "weight_is": _("Weight = e^… ÷ {total}"),
    "total": _("Total"),
    # Step tables: mix
    "mix": _("Mix"),
    "mix_for": _("Mix for {row}"),
    "weight": _("Weight"),
    "value": _("Value"),
    "weight_value": _("Weight × value"),
    "output": _("Output"),
    "about": _("≈ {vector}"),
    # Result tables
    "scores": _("Scores"),
    "scores_grid": _("Scores (row = query, column = key)"),
    "weights": _("Weights"),
    "weights_grid": _("Weights (row = query, column = key)"),
    "outputs": _("Outputs (a row per query)"),
    "sum_weight_value": _("Σ weight × value"),
    "drawn": _("{name} (drawn from seed {seed})"),
    "row_max": _("{mark} the row's largest weight"),
    "row_saturated": _(
        "{mark} a saturated row: its largest weight is {rule} or more, so the other keys "
        "share less than 5%."
    ),
    "legend": _("lighter = more weight ({low} darkest, {high} lightest)"),
    "legend_printed": _("darker = more weight ({low} lightest, {high} darkest)"),
    "largest_column": _("largest"),
    "masked": _("{mark} masked"),
    "elided_rows": _("{mark} showing {rows} of {all_rows} rows; --json has them all"),
    "elided": _(
        "{mark} showing {rows} of {all_rows} rows and {columns} of {all_columns} columns; "
        "--json has them all"
    ),
    # selfattn
    "tokens_count": _("T = {count} tokens"),
    "heads_of": _("{heads} heads"),
    "head_of": _("1 head"),
    "no_out_proj": _("joined without W^O"),
    "unscaled": _("no scaling"),
    "divided_by": _("scores ÷ {divisor}"),
    "causal": _("causal mask"),
    "causal_from": _("causal mask, as {kind}'s layers are (--no-causal without it)"),
    "norm": _("every embedding has length {norm}"),
    "no_proj": _("no projections: Q = K = V = X, 0 parameters"),
    "no_proj_symmetric": _(
        "the scores are symmetric (x_i · x_j = x_j · x_i); the weights are not: each row is "
        "divided by its own sum"
    ),
    "no_proj_both_symmetric": _(
        "the scores are symmetric (x_i · x_j = x_j · x_i), and here the weights happen to be too"
    ),
    "no_proj_diagonal": _(
        "every vector has length {length}, so each row's largest score is its own diagonal "
        "(x_i · x_j ≤ ‖x_i‖ ‖x_j‖, Cauchy–Schwarz): each token looks at itself most"
    ),
    "no_proj_longest": _(
        "the vectors have lengths of their own, and every row's largest score goes to the "
        "longest, «{token}»: a property of the vectors, not of what the sentence needs"
    ),
    "direct": _("Q, K and V given directly"),
    "params": _("parameters: {formula} = {params}, the same for any T"),
    "params_heads": _(
        "parameters: {formula} = {params}, the same for any number of heads and any T"
    ),
    "shapes": _("Shapes"),
    "matrix": _("Matrix"),
    "shape": _("Shape"),
    "holds": _("What it holds"),
    "row_per_token": _("a row per token"),
    "row_per_query": _("a row per query token"),
    "row_per_key": _("a row per key token"),
    "batch_first": _(
        "a batch of {batch} sequences, computed together; shown: the first (--json has all)"
    ),
    "cross": _("cross-attention: {queries} queries over {keys} keys"),
    "drawn_from": _("drawn from seed {seed}"),
    "given": _("given"),
    "per_head": _("per head"),
    "who_asks": _("row = who asks, column = who answers"),
    "a_v": _("A V"),
    "a_v_heads": _("A V per head, joined, × W^O"),
    "weights_who": _("Weights (row = who asks, column = who answers)"),
    "head": _("Head {head}: {title}"),
    "scores_who": _("Scores Q K^T / {divisor} (row = who asks, column = who answers)"),
    "scores_who_unscaled": _("Scores Q K^T (row = who asks, column = who answers)"),
    "untrained": _(
        "{names} are random (seed {seed}), not trained: which token looks at which means "
        "nothing yet"
    ),
    "untrained_hint": _(
        "-i samples/llaves.json has weights set by hand so that «están» looks for «llaves»"
    ),
    "show_hint": _("--show x,w,q,k,v (or all) adds the matrices; --steps --token T explains a row"),
    "joined": _("Heads joined ({heads} × {size} = {width} columns), before W^O"),
    "output_shape": _("Output ({rows} × {columns})"),
    # compare-scores
    "grid_heading": _(
        "Scoring a {ty} × {tx} grid: d_h = {d_h}, d_a = {d_a}, float64, {threads}; {runs} "
        "after a warm-up"
    ),
    "runs_one": _("one run"),
    "runs_many": _("median of {repeat} interleaved runs"),
    "threads_one": _("1 BLAS thread"),
    "threads_many": _("{threads} BLAS threads"),
    "busy": _(
        "warning: the runs of one method spread more than 3× (the machine was busy); the "
        "ratios are unreliable: rerun on a quieter machine or with a larger --repeat"
    ),
    "parameters": _("Parameters"),
    "mult_adds": _("Multiply-adds"),
    "elementwise": _("Sums or divisions"),
    "tanh": _("tanh evaluations"),
    "intermediate": _("Intermediate"),
    "at_float64": _("  at float64"),
    "time_median": _("Time, median (ms)"),
    "time_fastest": _("  fastest"),
    "time_slowest": _("  slowest"),
    "times_fastest": _("× the fastest"),
    "millions": _("{amount} M"),
    "loop_check": _(
        "{method}: pair by pair (a loop) against the matrix form, {scope}: {verdict} "
        "(largest difference {difference})"
    ),
    "every_pair": _("every pair"),
    "some_pairs": _("{checked} of {total} pairs"),
    "same_grid": _("the same grid"),
    "different_grid": _("DIFFERENT grids"),
    "sweep_heading": _("Why ÷√d_k: average largest weight in a row of 6 random keys"),
    "unscaled_column": _("unscaled"),
    "fewer_but_slower": _(
        "Additive does fewer multiply-adds than general here ({additive} against {general}) "
        "and still measures {ratio}× slower: what is measured is not the count of operations "
        "but their shape (a tanh over a T_y × T_x × d_a block against two matrix products)."
    ),
    "slower": _(
        "Additive measures {ratio}× slower than general, with {tanh} tanh evaluations and a "
        "{numbers}-number intermediate that general does without."
    ),
    "million": _("{amount} million"),
    # worksheets
    "worksheet": _("Worksheet"),
    "answers": _("Answers"),
    "name_line": _("Name:"),
    "exercise_intro": _(
        "Query {query} · keys and values of {count} tokens. Fill in the empty cells."
    ),
    # errors
    "error": _("attn: error: {message}"),
}


def _joined(common: dict[str, str], *tables: Mapping[str, str]) -> None:
    """Every phrase in one table, each screen's kept beside it (model/words.py, …); a key
    said twice is a mistake, not an override."""
    for table in tables:
        twice = sorted(common.keys() & table.keys())
        if twice:
            raise KeyError(f"phrases defined twice: {', '.join(twice)}")
        common.update(table)


_joined(
    PHRASES,
    EXTRA_PHRASES,  # attn samples, tiny numbers, worksheets' extras
    GRAD_PHRASES,  # attn grad and the backward pass's steps
    MODEL_PHRASES,  # attn selfattn --model and attn heads
    TRAIN_PHRASES,  # attn train
    LAYER_PHRASES,  # the layer's weights, masks, batches and extra keys
    INFERENCE_PHRASES,  # attn softmax --online, attn selfattn --tiles and --kv-cache
    ROTARY_PHRASES,  # rotary positions (--positions rope)
    GROUPED_PHRASES,  # grouped-query heads (--kv-heads)
    SCORING_PHRASES,  # QK-norm, scaled rotary positions, softcaps and sinks
    CHECK_PHRASES,  # attn check: questions, verdicts, mistakes, the class's table
    PAIR_PHRASES,  # two sentences compared (--compare)
    METHOD_PHRASES,  # each score method's name and its tables' headings (core.methods)
    QUESTION_PHRASES,  # the lessons' questions (attn exercise and check --questions)
    COST_PHRASES,  # attn cost
)


def usage_error(lang: str, said: list[tuple[str, dict[str, str]]], command: str) -> str:
    """One of Click's usage errors, as (msgid, fields) pairs (cli/usage.py), said in `lang`
    with where to look for help."""
    message = " ".join(messages.say(lang, msgid, **fields).rstrip() for msgid, fields in said)
    return messages.say(lang, _("{message} (see {command} --help)"), message=message,
                        command=command)  # fmt: skip


def say(lang: str, key: str, **fields: object) -> str:
    """The phrase `key` in `lang`, with its fields filled in (see shown_in)."""
    return shown_in(lang, PHRASES[key], **fields)


def shown_in(lang: str, msgid: str, **fields: object) -> str:
    """`msgid` in `lang` with its fields filled in; text fields (tokens, paths) made
    printable, so a heading that names a token cannot drive the terminal."""
    shown = {name: printable(v) if isinstance(v, str) else v for name, v in fields.items()}
    return messages.say(lang, msgid, **shown)


# Control, format, surrogate, private and unassigned characters, and line breaks.
_UNSHOWN = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def printable(text: str) -> str:
    """The text with control and format characters shown as escapes (\\n, \\x1b, \\x9b):
    it stays on one line and nothing from the user's input can drive the terminal. Text that
    came in as undecodable bytes (lone surrogates) is shown the same way."""
    if text.isprintable():
        return text
    import unicodedata

    return "".join(
        repr(char)[1:-1] if unicodedata.category(char) in _UNSHOWN else char for char in text
    )


def resolve(option: str | None, environ: Mapping[str, str]) -> str:
    """--lang, else ATTN_LANG, else the locale's language (LC_ALL, then LANG: es_ES.UTF-8
    is es) when attn has a catalog for it, else English."""
    if option is not None:
        return option
    chosen = environ.get("ATTN_LANG", "").strip().lower()
    if chosen in LANGUAGES:
        return chosen
    for variable in ("LC_ALL", "LANG"):
        locale = environ.get(variable, "")
        if locale:
            code = locale.lower().split("_")[0].split(".")[0]
            return code if code in LANGUAGES else "en"
    return "en"
