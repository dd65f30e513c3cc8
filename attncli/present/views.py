"""One renderer per result kind: what a terminal shows for a result, as rich renderables.

`view_of(result, fmt)` finds the result's renderer in RENDERERS, the one table from a kind
of result to its renderer, importing only that renderer's module; `steps_view` lays out
steps (a worksheet and its key when the format is blank).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

from rich.console import Group, RenderableType

from attncli.present import render
from attncli.present.format import Format

if TYPE_CHECKING:
    from attncli.explain.steps import Step
    from attncli.results.base import Result
    from attncli.results.calculator import MixResult, ScoreResult, SoftmaxResult


def score_view(result: ScoreResult, fmt: Format) -> list[RenderableType]:
    """The scores (a list for one query, a grid for several) and any score parameters."""
    if result.single:
        table = render.vector_rows(
            fmt.say("scores"),
            result.column_labels,
            [[value] for value in result.grid[0]],
            fmt,
            fmt.say("score"),
        )
    else:
        table = render.number_grid(
            fmt.say("scores_grid"), result.row_labels, result.column_labels, result.grid, fmt
        )
    if not result.parameters:
        return [table, *unscaled_note(result, fmt)]
    parameters = {name: value.tolist() for name, value in result.parameters.items()}
    return [table, render.parameter_block(parameters, list(result.drawn), result.seed, fmt)]


def unscaled_note(result: Result, fmt: Format) -> list[RenderableType]:
    """Under plain dot-product scores, one line: real models divide by √d_k first, and
    where that step is (nothing on a worksheet, whose blanks are the student's)."""
    if type(result).__name__ != "ScoreResult" or getattr(result, "method", "") != "dot":
        return []
    if fmt.blank:
        return []
    d_k = result.keys.shape[-1]  # type: ignore[attr-defined]
    return [render.lines(fmt.say("dot_unscaled", d_k=d_k))]


def softmax_view(result: SoftmaxResult, fmt: Format) -> list[RenderableType]:
    """Each token's score and weight, or the heat-shaded weight grid."""
    if result.single:
        return [
            render.score_weight_rows(
                fmt.say("weights"),
                result.column_labels,
                result.score_grid[0],
                result.weight_grid[0],
                fmt,
            )
        ]
    return [
        render.number_grid(
            fmt.say("weights_grid"),
            result.row_labels,
            result.column_labels,
            result.weight_grid,
            fmt,
            heat=True,
            mask=result.masked,
        )
    ]


def mix_view(result: MixResult, fmt: Format) -> list[RenderableType]:
    """The output vector, or an output row per query."""
    return [
        render.vector_rows(
            fmt.say("output") if result.single else fmt.say("outputs"),
            [fmt.say("query")] if result.single else result.row_labels,
            result.output_grid,
            fmt,
            fmt.say("sum_weight_value"),
        )
    ]


def given_parameters(result: Result, fmt: Format) -> list[RenderableType]:
    """The score parameters of a score or gradient run (W_a; W_1, W_2, v_a and any biases),
    drawn or given, to set beside its steps; nothing for the others."""
    if type(result).__name__ not in ("ScoreResult", "GradResult"):
        return []
    parameters = getattr(result, "parameters", None) or {}
    if not parameters:
        return []
    listed = {name: value.tolist() for name, value in parameters.items()}
    drawn = list(getattr(result, "drawn", ()))
    return [render.parameter_block(listed, drawn, getattr(result, "seed", 0), fmt)]


# A kind of result -> (its renderer's module in attncli.present, the function, whether it
# takes `show`). By the class's name, so that choosing one imports no other.
RENDERERS: dict[str, tuple[str, str, bool]] = {
    "ScoreResult": ("views", "score_view", False),
    "SoftmaxResult": ("views", "softmax_view", False),
    "MixResult": ("views", "mix_view", False),
    "ExerciseResult": ("exercise_view", "exercise_view", False),
    "SelfAttnExercise": ("exercise_view", "selfattn_exercise_view", False),
    "ExerciseSet": ("exercise_view", "exercise_set_view", False),
    "GradResult": ("grad.view", "gradient_view", False),
    "SelfAttnResult": ("layer.view", "selfattn_view", True),
    "Comparison": ("comparison_view", "comparison_view", False),
    "ScalingResult": ("scaling_view", "scaling_view", False),
    "CheckResult": ("checking_view", "check_view", False),
    "ClassCheck": ("checking_view", "class_view", False),
    "SamplesResult": ("samples_view", "samples_view", False),
    "ModelAttnResult": ("model.view", "model_selfattn_view", True),
    "HeadsResult": ("model.view", "heads_view", False),
    "RolloutResult": ("model.rollout", "rollout_view", False),
    "TrainResult": ("training.view", "training_view", False),
    "OnlineSoftmaxResult": ("inference.view", "online_softmax_view", True),
    "TiledResult": ("inference.view", "tiled_view", False),
    "CacheLedger": ("inference.view", "cache_view", False),
    "PredictResult": ("inference.view", "predict_view", False),
    "SentencePair": ("pairs.view", "pair_view", True),
    "HeadsChange": ("pairs.view", "heads_change_view", False),
    "HeadsSum": ("heads_sum_view", "heads_sum_view", False),
    "QuestionSheet": ("questions_view", "questions_view", False),
    "QuestionCheck": ("questions_view", "question_check_view", False),
    "CostResult": ("cost.view", "cost_view", True),
}


def view_of(
    result: Result, fmt: Format, show: frozenset[str] = frozenset()
) -> list[RenderableType]:
    """The result tables of any result; `show` adds parts a result can show on demand."""
    module, name, takes_show = RENDERERS[type(result).__name__]
    renderer = getattr(import_module(f"attncli.present.{module}"), name)
    return renderer(result, fmt, show) if takes_show else renderer(result, fmt)


def result_steps_view(
    result: Result,
    explanation: list[Step],
    fmt: Format,
    intro: list[RenderableType] | None = None,
) -> list[RenderableType]:
    """A result's steps as --steps and a notebook show them: the parameters a step multiplies
    by (W_a, or W_1, W_2, v_a) first, so that a student can check the step by hand."""
    return [
        *steps_view(explanation, fmt, intro, given_parameters(result, fmt)),
        *unscaled_note(result, fmt),
    ]


def steps_view(
    explanation: list[Step],
    fmt: Format,
    intro: list[RenderableType] | None = None,
    givens: list[RenderableType] | None = None,
    key_heading: str | None = None,
    sheet_heading: str | None = None,
) -> list[RenderableType]:
    """The steps after `givens` (the score parameters); on a worksheet (blank format) its
    heading (`sheet_heading`, a class set's naming its sheet, or Worksheet), the intro and
    the givens, the empty tables, and with `fmt.answers` the filled key after them, on a
    printed page of its own (a rule on a terminal), headed `key_heading` or Answers."""
    fmt = fmt.for_chain(len(explanation))
    if not fmt.blank:
        return [*(givens or []), explanation_tables(explanation, fmt)]
    heading = render.heading(sheet_heading or fmt.say("worksheet"))
    view = [heading, render.NameLine(fmt.say("name_line")), *(intro or []), *(givens or [])]
    view.append(explanation_tables(explanation, fmt))
    if fmt.asked:  # a cell that repeats an answer shows ↑, said once under the tables
        view.append(render.lines(fmt.say("sheet_carried")))
    if fmt.answers:
        key = explanation_tables(explanation, fmt.filled())
        heading = render.heading(key_heading or fmt.say("answers"))
        view += [render.PageBreak(), heading, key]
    return view


# Central differences in float64 agree with an exact gradient to about 1e-9 relative.
CHECK_TOLERANCE = 1e-6


def check_lines(checks: dict[str, float], fmt: Format) -> RenderableType:
    """A line per gradient: its largest relative difference from finite differences."""
    return render.lines(
        "",
        *(
            fmt.say(
                "check_line",
                name=name,
                difference=fmt.decimal(f"{difference:.1e}"),
                verdict=fmt.say("agree" if difference <= CHECK_TOLERANCE else "disagree"),
            )
            for name, difference in checks.items()
        ),
    )


def explanation_tables(steps: list[Step], fmt: Format) -> RenderableType:
    """Every part of an explanation, one table each, in order."""
    from attncli.present.grad.view import grad_steps_table
    from attncli.present.layer.latent import latent_table
    from attncli.present.layer.rotary import quarter_turns_table, rotary_steps_table
    from attncli.present.model.rope_table import qk_norm_table, rope_pairs_table, softcap_table
    from attncli.present.training.steps import train_steps_table

    renderers = {
        "ScoreSteps": render.score_steps_table,
        "SoftmaxSteps": render.softmax_steps_table,
        "MixSteps": render.mix_steps_table,
        "ProjectionSteps": render.projection_steps_table,
        "GradSteps": grad_steps_table,
        "TrainSteps": train_steps_table,
        "RotarySteps": rotary_steps_table,
        "QuarterTurnSteps": quarter_turns_table,
        "RopePairs": rope_pairs_table,
        "SoftcapSteps": softcap_table,
        "QkNormSteps": qk_norm_table,
        "LatentSteps": latent_table,
    }
    return Group(*(renderers[type(part).__name__](part, fmt) for part in steps))  # type: ignore[operator]
