"""attn exercise --answer-sheet: the empty answer file of a sheet, CSV or JSON, one row per
blank in the sheet's order (core/exercise names its columns; reading/parse/answer_sheets.py
says the format and reads it back filled)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from attncli.core.exercise import ANSWER_COLUMNS, ANSWER_SHEET_KEY, ANSWER_SHEET_VERSION
from attncli.explain.checking import Blank
from attncli.present.checking_view import question
from attncli.present.format import Format
from attncli.results.checking import sheet_d_k, sheet_kind
from attncli.results.exercise import Sheet


def answer_sheet_text(sheet: Sheet, blanks: list[Blank], fmt: Format, suffix: str) -> str:
    """The empty answer file of `sheet` as `suffix` (.csv or .json) writes it."""
    fields = {
        "seed": sheet.seed,
        "sheet": sheet_kind(sheet),
        "size": len(sheet.tokens),
        "dim": sheet_dim(sheet),
        "lang": fmt.lang,
    }
    rows = [
        {
            "step": blank.step,
            "token": "" if blank.key is None else sheet.tokens[blank.key],
            "question": question(blank, sheet, fmt),
            "answer": "",
        }
        for blank in blanks
    ]
    if suffix == ".json":
        document = {ANSWER_SHEET_KEY: ANSWER_SHEET_VERSION, "student": "", **fields,
                    "answers": [{**row, "answer": None} for row in rows]}  # fmt: skip
        return json.dumps(document, ensure_ascii=False, indent=2) + "\n"
    out = io.StringIO()
    # Every text cell quoted, the empty answer too (""): a Spanish answer typed between the
    # quotes in a text editor ("2,5", "0; 0,777") keeps its decimal comma inside its cell.
    writer = csv.DictWriter(
        out, fieldnames=ANSWER_COLUMNS, lineterminator="\n", quoting=csv.QUOTE_NONNUMERIC
    )
    writer.writeheader()
    for row in rows:
        writer.writerow({"student": "", **fields, **row})
    return out.getvalue()


def sheet_dim(sheet: Sheet) -> int:
    """The numbers per vector attn exercise was given (--dim): x's for self-attention."""
    from attncli.results.exercise import SelfAttnExercise

    if isinstance(sheet, SelfAttnExercise):
        assert sheet.layer.x is not None
        return int(sheet.layer.x.shape[1])
    return sheet_d_k(sheet)


def answer_sheet_paths(path: str, seeds: list[int]) -> list[str]:
    """One file per sheet: `path` itself for one sheet, else the seed before the suffix
    (answers.csv → answers-3.csv, answers-4.csv, …)."""
    if len(seeds) == 1:
        return [path]
    base = Path(path)
    return [str(base.with_name(f"{base.stem}-{seed}{base.suffix}")) for seed in seeds]
