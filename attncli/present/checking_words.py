"""attn check's words: the question for each blank, the verdicts, the known mistakes in a
sentence each, and the class table's headings (joined in present/language.py)."""

from __future__ import annotations

from attncli.messages import _

CHECK_PHRASES = {
    "check.intro": _(
        "Type each blank as you worked it out, in the sheet's order (Enter after each, "
        "Ctrl-D to stop): a number, a fraction (2/3) or, for a vector, its numbers ({example})."
    ),
    # under a sheet whose blanks are the ones attn check asks
    "sheet_carried": _("↑ is your own answer from a table above."),
    # the softmax table's divisor on attn check's sheet: the total it asks for below
    "check.total_divisor": _("total"),
    "check.ask.product": _("q · k of «{token}»"),
    "check.ask.score": _("score of «{token}»"),
    "check.ask.power": _("e^score of «{token}»"),
    "check.ask.total": _("total of e^score"),
    "check.ask.weight": _("weight of «{token}»"),
    "check.ask.weighted": _("weight × value of «{token}»"),
    "check.ask.output": _("output"),
    "check.step.product": _("the product of the query and the key"),
    "check.step.score": _("the score"),
    "check.step.power": _("e raised to the score"),
    "check.step.total": _("the sum of the e^score column"),
    "check.step.weight": _("the softmax: e^score ÷ total"),
    "check.step.weighted": _("the weight times the token's value"),
    "check.step.output": _("the sum of the weight × value rows"),
    "check.right": _("right"),
    "check.carried": _(
        "right from your own earlier number (the sheet's is {expected}): the method is right"
    ),
    "check.rounded": _(
        "right, rounded more than the sheet's {digits} decimals; the steps after carry your number"
    ),
    "check.close": _(
        "off only by the rounding of an earlier step ({expected}): not a mistake of method"
    ),
    "check.wrong": _("not right: {expected} ({step}, from your own earlier numbers)"),
    "check.wrong_sheet": _("not right: {expected} ({step})"),
    "check.mistake.wrong_key": _(
        "that is the query times «{other}»'s key: each row pairs the query with its own key"
    ),
    "check.mistake.root_forgotten": _("that is the score without ÷ √d_k: √d_k forgotten"),
    "check.mistake.root_twice": _("that is the score ÷ d_k: √d_k applied twice"),
    "check.mistake.exp_skipped": _(
        "that is what skipping e^x gives: the scores normalised directly"
    ),
    "check.mistake.term_left_out": _("that is the total without «{other}»'s e^score"),
    "check.mistake.not_divided": _("that is e^score before dividing by the total"),
    "check.mistake.wrong_value_row": _("that is the weight times «{other}»'s value"),
    "check.either": _("two mistakes give this number; either is the one to look for"),
    "check.summary": _("{right} of {answered} answers right ({blanks} blanks on the sheet)."),
    "check.ask.q": _("q of «{token}» (x W^Q)"),
    "check.ask.k": _("k of «{token}» (x W^K)"),
    "check.ask.v": _("v of «{token}» (x W^V)"),
    "check.ask.mapped": _("W_a · key of «{token}»"),
    "check.ask.hidden": _("tanh(W_1 q + W_2 k) of «{token}»"),
    "check.ask.lengths": _("‖q‖ ‖k‖ of «{token}»"),
    "check.step.q": _("the token's query: its x times W^Q"),
    "check.step.k": _("the token's key: its x times W^K"),
    "check.step.v": _("the token's value: its x times W^V"),
    "check.step.mapped": _("W_a times the key"),
    "check.step.hidden": _("tanh of W_1 q + W_2 k"),
    "check.step.lengths": _("the query's length times the key's"),
    "check.blank": _("left blank: {expected} ({step})"),
    "check.mistake.not_transposed": _(
        "that is the query times a column of K: K is to be transposed, each key a row"
    ),
    "check.mistake.wrong_row": _("that is the total of «{other}»'s row, not this query's"),
    "check.mistake.column_softmax": _(
        "that is e^score ÷ the sum of its column: the softmax runs along the query's row"
    ),
    "check.mistake.matrix_transposed": _(
        "that is with {matrix} transposed: its rows and columns swapped"
    ),
    "check.mistake.wrong_matrix": _("that is x times {matrix}, another of the three matrices"),
    "check.mistake.tanh_skipped": _("that is W_1 q + W_2 k before tanh: tanh skipped"),
    "check.mistake.lengths_squared": _(
        "that is ‖q‖² ‖k‖²: the square roots of the sums of squares left out"
    ),
    "check.mistake.lengths_forgotten": _(
        "that is q · k before dividing by ‖q‖ ‖k‖: the lengths forgotten"
    ),
    # the class's table: a row per student, a column per step
    "check.class.student": _("Student"),
    "check.class.sheet": _("Sheet"),
    "check.class.right": _("Right"),
    "check.class.column.q": _("q"),
    "check.class.column.k": _("k"),
    "check.class.column.v": _("v"),
    "check.class.column.mapped": _("W_a k"),
    "check.class.column.hidden": _("tanh"),
    "check.class.column.product": _("q·k"),
    "check.class.column.lengths": _("‖q‖‖k‖"),
    "check.class.column.score": _("Score"),
    "check.class.column.power": _("e^x"),
    "check.class.column.total": _("Total"),
    "check.class.column.weight": _("Weight"),
    "check.class.column.weighted": _("α·v"),
    "check.class.column.output": _("Output"),
    "check.class.title": _("The class's answers, step by step"),
    "check.class.key": _(
        "✓ every blank of the step right; ✗ how many of the step's blanks are right; — left "
        "blank. α·v: weight × value"
    ),
    "check.class.common": _(
        "The class's most common mistake: {mistake} ({count} of {students} students)"
    ),
    "check.class.common_step": _("at {step}"),
    "check.class.none": _("No known mistake in the class's answers."),
    "check.mistake_name.wrong_key": _("the query with another token's key"),
    "check.mistake_name.not_transposed": _("K not transposed"),
    "check.mistake_name.root_forgotten": _("√d_k forgotten"),
    "check.mistake_name.root_twice": _("√d_k applied twice"),
    "check.mistake_name.exp_skipped": _("e^x skipped"),
    "check.mistake_name.term_left_out": _("a term left out of the total"),
    "check.mistake_name.wrong_row": _("the total of the wrong row"),
    "check.mistake_name.column_softmax": _("softmax over a column"),
    "check.mistake_name.not_divided": _("e^score not divided by the total"),
    "check.mistake_name.wrong_value_row": _("the weight times the wrong value row"),
    "check.mistake_name.matrix_transposed": _("a matrix transposed"),
    "check.mistake_name.wrong_matrix": _("the wrong one of W^Q, W^K, W^V"),
    "check.mistake_name.tanh_skipped": _("tanh skipped"),
    "check.mistake_name.lengths_squared": _("the lengths not square-rooted"),
    "check.mistake_name.lengths_forgotten": _("q · k not divided by ‖q‖ ‖k‖"),
}
