"""Any step of any explanation, and the steps as JSON-ready data."""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING, Any, Union

from attncli.explain.calculator import CalculatorStep
from attncli.explain.grad import GradSteps
from attncli.explain.latent import LatentSteps
from attncli.explain.qk_norm import QkNormSteps
from attncli.explain.rope_scaling import RopePairs
from attncli.explain.rotary import QuarterTurnSteps, RotarySteps
from attncli.explain.softcap import SoftcapSteps

if TYPE_CHECKING:
    from attncli.explain.training import TrainSteps

# attn train's steps are named, not imported: they bring the training core with them.
Step = Union[
    CalculatorStep, GradSteps, RotarySteps, QuarterTurnSteps, RopePairs, SoftcapSteps,
    QkNormSteps, LatentSteps, "TrainSteps",
]  # fmt: skip

_KINDS = {
    "ScoreSteps": "score",
    "SoftmaxSteps": "softmax",
    "MixSteps": "mix",
    "ProjectionSteps": "projections",
    "GradSteps": "grad",
    "TrainSteps": "train",
    "RotarySteps": "rotary",
    "QuarterTurnSteps": "quarter_turns",
    "RopePairs": "rope_scaling",
    "SoftcapSteps": "softcap",
    "QkNormSteps": "qk_norm",
    "LatentSteps": "latent",
}


def steps_as_data(explanation: list[Step]) -> list[dict[str, Any]]:
    """The steps as JSON-ready dictionaries, each tagged with its kind."""
    return [{"step": _KINDS[type(part).__name__], **asdict(part)} for part in explanation]
