"""Any step of any explanation, and the steps as JSON-ready data."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from attncli.explain.calculator import CalculatorStep, MixSteps, ScoreSteps, SoftmaxSteps
from attncli.explain.grad import GradSteps

Step = CalculatorStep | GradSteps

_KINDS = {ScoreSteps: "score", SoftmaxSteps: "softmax", MixSteps: "mix", GradSteps: "grad"}


def steps_as_data(explanation: list[Step]) -> list[dict[str, Any]]:
    """The steps as JSON-ready dictionaries, each tagged with its kind."""
    return [{"step": _KINDS[type(part)], **asdict(part)} for part in explanation]
