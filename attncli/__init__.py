"""attncli: attention worked step by step, as a Python library and as the `attn` command.

>>> import attncli as attn
>>> s = attn.score(query=[1, 0], keys=[[2, 1], [0, 2], [1, 1]], tokens=["tren", "va", "lleno"])
>>> w = attn.softmax(s)
>>> m = attn.mix(w, values=[[10, 0], [0, 10], [5, 5]])
>>> m.output.round(3)
array([7.876, 2.124])

The operations load on first use, so `import attncli` stays light and imports neither
typer nor rich; rich is imported only when a result is rendered.
"""

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

__all__ = [
    "AttnError",
    "InputError",
    "OptionError",
    "SelfAttnSettings",
    "ShapeError",
    "check",
    "check_files",
    "check_questions",
    "compare_heads",
    "compare_scores",
    "compare_sentences",
    "cost",
    "exercise",
    "grad",
    "heads",
    "heads_sum",
    "kv_cache",
    "mix",
    "online_softmax",
    "options",
    "predict",
    "questions",
    "repeated_random",
    "rollout",
    "samples",
    "scaling",
    "score",
    "selfattn",
    "softmax",
    "tiles",
    "train",
]

if TYPE_CHECKING:
    from attncli.api.calculator import compare_scores, mix, score, softmax
    from attncli.api.checking import check, check_files
    from attncli.api.cost import cost
    from attncli.api.exercise import exercise
    from attncli.api.grad import grad
    from attncli.api.heads import heads, repeated_random
    from attncli.api.heads_sum import heads_sum
    from attncli.api.inference import kv_cache, online_softmax, tiles
    from attncli.api.options import options
    from attncli.api.pairs import compare_heads, compare_sentences
    from attncli.api.predict import predict
    from attncli.api.questions import check_questions, questions
    from attncli.api.rollout import rollout
    from attncli.api.samples import samples
    from attncli.api.scaling import scaling
    from attncli.api.selfattn import selfattn
    from attncli.api.training import train
    from attncli.errors import AttnError, InputError, OptionError, ShapeError
    from attncli.layer import SelfAttnSettings

_HOMES = {
    **dict.fromkeys(("compare_scores", "mix", "score", "softmax"), "api.calculator"),
    "cost": "api.cost",
    "exercise": "api.exercise",
    **dict.fromkeys(("check", "check_files"), "api.checking"),
    **dict.fromkeys(("check_questions", "questions"), "api.questions"),
    "grad": "api.grad",
    **dict.fromkeys(("kv_cache", "online_softmax", "tiles"), "api.inference"),
    **dict.fromkeys(("heads", "repeated_random"), "api.heads"),
    "heads_sum": "api.heads_sum",
    "options": "api.options",
    **dict.fromkeys(("compare_heads", "compare_sentences"), "api.pairs"),
    "predict": "api.predict",
    "rollout": "api.rollout",
    "samples": "api.samples",
    "scaling": "api.scaling",
    "selfattn": "api.selfattn",
    "train": "api.training",
    "SelfAttnSettings": "layer",
    **dict.fromkeys(("AttnError", "InputError", "OptionError", "ShapeError"), "errors"),
}


def __getattr__(name: str) -> Any:
    """Load an operation from its module the first time it is asked for."""
    if name not in _HOMES:
        raise AttributeError(f"module 'attncli' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f"attncli.{_HOMES[name]}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The public API and the module's dunders, as a notebook's completion lists them: not
    the names this file imports for itself (Any, TYPE_CHECKING) or its table of homes."""
    return sorted([*(name for name in globals() if name.startswith("__")), *__all__])
