"""The explorer's input and its numbers: a state's settings → attncli.selfattn(...).

Nothing here computes a number: every grid, score and weight the explorer shows is a
field of the SelfAttnResult that the layer's operation (api/selfattn, behind
attncli.selfattn and attn selfattn alike) returns for the state's settings, so the screen
and `attn selfattn` with the same options cannot disagree.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from attncli.errors import InputError
from attncli.explore.state import Frame, State
from attncli.messages import _

if TYPE_CHECKING:
    from attncli.layer import SelfAttnSettings
    from attncli.results.selfattn import SelfAttnResult

MAX_TOKENS = 64  # a longer sentence is refused in the status line: its grid cannot be read
# What a document says of the sequences themselves, with or without projections.
SEQUENCES = frozenset({"x", "tokens", "query_tokens", "x_q", "x_kv", "x_k", "x_v", "mask",
                       "attn_mask", "key_padding_mask"})  # fmt: skip


@dataclass(frozen=True)
class Source:
    """What the explorer attends over: a typed sentence, or a document's X (and W), or a
    document's Q, K, V; and the options fixed on the command line."""

    sentence: str | None = None
    document: dict[str, Any] = field(default_factory=dict)
    d_model: int | None = None  # --d-model, for a sentence
    norm: float | None = None  # --norm: the embeddings' length before n/N (√d_model if None)
    path: str | None = None  # the -i file
    model: str | None = None  # --model: a pretrained model's own layer

    def with_sentence(self, sentence: str) -> Source:
        """A typed sentence replaces whatever was attended over."""
        return Source(sentence=sentence, d_model=self.d_model, norm=self.norm, model=self.model)

    def length(self, state: State) -> float | None:
        """The embeddings' length for a sentence: --norm (or attn's √d_model) times √2 for
        each N, ÷ √2 for each n; None leaves attn's default."""
        if self.sentence is None or (state.norm_step == 0 and self.norm is None):
            return None
        base = self.norm if self.norm is not None else math.sqrt(self.d_model or 8)
        return base * 2 ** (state.norm_step / 2)

    @property
    def direct(self) -> bool:
        """Q, K and V are given, not X (a result of X holds its Q, K and V as outputs)."""
        from attncli.reading.parse.layer_inputs import LayerInputs

        inputs = LayerInputs.from_document(self.document)
        return self.sentence is None and inputs.queries is not None and not inputs.from_x


def compute(source: Source, state: State) -> SelfAttnResult:
    """The layer on the source with the state's settings, as attncli.selfattn(...) and
    attn selfattn compute it (the same operation); an AttnError says what it refused."""
    if source.sentence is not None:
        from attncli.reading.parse.sentence import tokenize

        count = len(tokenize(source.sentence))
        if count > MAX_TOKENS:
            raise InputError(
                _(
                    "the sentence has {count} tokens; the explorer shows at most {most} "
                    "(attn selfattn takes longer ones)"
                ),
                count=count,
                most=MAX_TOKENS,
            )
    if source.model is not None:
        from attncli.api.model import model_selfattn

        # One head at a time: its own queries and keys, for the side panel's arithmetic.
        return model_selfattn(
            source.sentence, source.model, layer=state.layer, head=state.head, words=state.words
        )
    from attncli.api.selfattn import selfattn_inputs
    from attncli.reading.parse.layer_inputs import LayerInputs

    settings = layer_settings(source, state)
    # The document as attn selfattn -i reads it: every field used, or refused in one line.
    inputs = LayerInputs()
    if source.sentence is None:
        inputs = LayerInputs.from_document(source.document)
    if not settings.projections and inputs.read_back:
        # p on a trained or saved layer is the lesson's comparison: its X attended over
        # itself, the result's weights and outputs set aside (read back, they would pin it).
        inputs = LayerInputs(**{name: inputs.value(name) for name in SEQUENCES})
    result = selfattn_inputs(inputs, source.sentence, settings)
    if result.batch is not None:
        raise InputError(
            _(
                "x is a batch of {batch} sequences and the explorer shows one; save the "
                "one you want as its own x, e.g. numpy.save('one.npy', x[0])"
            ),
            batch=result.batch,
        )
    return result


def layer_settings(source: Source, state: State) -> SelfAttnSettings:
    """The layer's settings the state's knobs give: a switch is its declared value when on
    or off (layer.py: `s` is √d_k or no division, `c` causal or the layer's own); a stepped
    knob is the state's number where it applies."""
    from attncli.layer import SelfAttnSettings, knobs

    switched = {
        name: knob.on if getattr(state, name) else knob.off
        for name, knob in knobs().items()
        if knob.switch
    }
    projections = state.projections and not source.direct
    return SelfAttnSettings(
        **{**switched, "projections": projections},
        d_model=source.d_model if source.sentence is not None else None,
        d_k=state.d_k if projections else None,
        norm=source.length(state),
        seed=state.seed,
        heads=state.heads if projections and state.heads > 1 else None,
        window=state.window,
        softcap=state.softcap,
        sinks=None if state.sink is None else (state.sink,),
    )


def frame_of(source: Source, result: SelfAttnResult | None) -> Frame:
    """The input's fixed facts, from the last result when there is one."""
    d_model = source.d_model or 8
    tokens = 0
    if result is not None:
        tokens = len(result.tokens)
        d_model = result.x.shape[-1] if result.x is not None else None  # type: ignore[assignment]
    elif source.document.get("x") is not None:
        d_model = len(source.document["x"][0])
    model = getattr(result, "source", None)
    if model is not None:
        words = getattr(result, "words", None)
        return Frame(
            tokens=len(words) if words is not None else tokens,
            d_model=None,
            sentence=False,
            given_w=True,
            layers=model.layers,
            model_heads=model.heads,
        )
    return Frame(
        tokens=tokens,
        d_model=None if source.direct else d_model,
        sentence=source.sentence is not None,
        given_w=any(name in source.document for name in ("w_q", "w_k", "w_v")),
        direct=source.direct,
    )
