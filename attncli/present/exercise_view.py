"""Worksheets: a problem's givens, its empty tables and, when asked, its filled key; a
class set of them, a page each."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from rich.console import RenderableType
from rich.text import Text

from attncli.present import render
from attncli.present.format import Format
from attncli.present.views import explanation_tables, steps_view

if TYPE_CHECKING:
    from attncli.results.exercise import ExerciseResult, ExerciseSet, SelfAttnExercise, Sheet


def exercise_intro(result: ExerciseResult, fmt: Format) -> list[RenderableType]:
    """The line above a worksheet (the query and how many tokens) and the learned score's
    parameters it gives."""
    given = result.query if result.given_query is None else result.given_query
    query = f"({fmt.vector(given.tolist())})"
    said = [fmt.say("exercise_intro", query=query, count=len(result.tokens))]
    if result.given_query is not None:  # rotary positions, by quarter turns
        said.append(fmt.say("rope_exercise", position=len(result.tokens) - 1))
    intro = [render.lines(*said, "")]
    if result.parameters:
        listed = {name: value.tolist() for name, value in result.parameters.items()}
        # nothing of a sheet is drawn, so no seed is said (a lesson's own sheet has none)
        intro.append(render.parameter_block(listed, [], result.seed or 0, fmt))
    return intro


def selfattn_intro(result: SelfAttnExercise, fmt: Format) -> list[RenderableType]:
    """What a self-attention sheet gives besides each token's x (in the first table): the
    three projections side by side, a row per number of x."""
    problem = result.problem()
    token = result.tokens[result.asking]
    line = fmt.say("selfattn_exercise_intro", count=len(result.tokens), token=token)
    rows = [f"{index + 1}" for index in range(len(problem["x"][0]))]
    given = {
        title: problem[name] for name, title in (("w_q", "W^Q"), ("w_k", "W^K"), ("w_v", "W^V"))
    }
    return [
        render.lines(line, ""),
        render.vector_columns(fmt.say("projections_given"), rows, given, fmt),
        Text(""),
    ]


def exercise_view(
    result: ExerciseResult, fmt: Format, headings: tuple[str, str] | None = None
) -> list[RenderableType]:
    """A worksheet and its key: the exercise's own way to be shown.

    From the command line the key follows only with --answers (fmt.blank is set); in a
    notebook, where nothing was asked to be blank, the key follows too."""
    return _sheet_view(result, exercise_intro(result, fmt), fmt, headings)


def selfattn_exercise_view(
    result: SelfAttnExercise, fmt: Format, headings: tuple[str, str] | None = None
) -> list[RenderableType]:
    """A self-attention worksheet and its key, as exercise_view lays them out."""
    return _sheet_view(result, selfattn_intro(result, fmt), fmt, headings)


def _sheet_view(
    sheet: Sheet, intro: list[RenderableType], fmt: Format, headings: tuple[str, str] | None
) -> list[RenderableType]:
    """`headings`: a class set's (the sheet's, its key's), each naming the sheet. A sheet
    attn check corrects has the blanks it asks, no more (`asked`): the printed sheet, the
    answer file and attn check's questions are one list; the key shows every working."""
    from attncli.results.exercise import ExerciseResult

    checked = not (isinstance(sheet, ExerciseResult) and sheet.given_query is not None)
    worksheet = replace(fmt, blank=True, asked=checked, answers=fmt.answers or not fmt.blank)
    sheet_heading, key_heading = headings or (None, None)
    return steps_view(sheet.steps(), worksheet, intro, None, key_heading, sheet_heading)


def exercise_set_view(result: ExerciseSet, fmt: Format) -> list[RenderableType]:
    """A class set: each sheet numbered with its seed, a page each; with the keys alone
    (`key_only`), each key numbered as its sheet, so that they print apart."""
    from attncli.results.exercise import SelfAttnExercise

    view: list[RenderableType] = []
    for number, sheet in enumerate(result.sheets, 1):
        if view:
            view.append(render.PageBreak())
        title = fmt.say("sheet", number=number, count=len(result.sheets), seed=sheet.seed)
        key_heading = f"{fmt.say('answers')} · {title}"
        if result.key_only:
            steps = sheet.steps()
            key = explanation_tables(steps, fmt.filled().for_chain(len(steps)))
            view += [render.heading(key_heading), key]
            continue
        sheet_fmt = replace(fmt, blank=True)
        if isinstance(sheet, SelfAttnExercise):
            view += selfattn_exercise_view(sheet, sheet_fmt, (title, key_heading))
        else:
            view += exercise_view(sheet, sheet_fmt, (title, key_heading))
    return view
