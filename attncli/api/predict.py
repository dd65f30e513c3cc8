"""attn predict: the next token of a causal language model (--model), its logits' softmax,
what temperature, top-k and top-p do to it, and the logit lens layer by layer."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from attncli.api.keywords import MODEL, OWN_READER, Hinted, keywords
from attncli.errors import OptionError
from attncli.messages import OnSurface, _
from attncli.settings import Real, Whole

if TYPE_CHECKING:
    from attncli.reading.models.model import Model
    from attncli.reading.models.tokens import Encoded
    from attncli.results.predict import PredictResult

PREDICT = OnSurface("attn predict", "attncli.predict()")  # the command, the function


@keywords(sentence=OWN_READER, model=MODEL, top=Hinted(Whole(1), 5),
          top_k=Hinted(Whole(1), 5), top_p=Hinted(Real(0, most=1), 0.9))  # fmt: skip
def predict(
    sentence: str | None,
    model: str,
    *,
    top: int = 5,
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
    by_layer: bool = False,
    chat: bool = False,
) -> PredictResult:
    """The next token after `sentence` by a causal language model (GPT-2, Llama, Mistral,
    Qwen2): the top tokens by probability, and the distribution temperature, top-k and
    top-p leave to draw from;
    `by_layer` adds the logit lens (each layer's residual through the final norm and head);
    `chat` puts the sentence in the model's chat template as the user's turn (an instruct
    model's prompt), the assistant's turn opened.
    A model without a language-model head (an encoder such as all-MiniLM-L6-v2) is refused.
    """
    from attncli.api.calculator import check_temperature
    from attncli.api.model import _forward
    from attncli.core import predict as core
    from attncli.results.predict import PredictResult

    check_temperature(temperature)  # top_p is held to its Real by @keywords
    loaded, encoded = _prompt(sentence, model, chat)
    run = _forward(loaded, encoded, None)
    assert run.last is not None
    logits = core.head_logits(loaded.network, run.last[-1:], normed=True)[0]
    lens = None
    if by_layer:
        # every layer's last row through the head at once: the head's table is read once
        rows = np.concatenate([h[-1:] for h in run.hidden[:-1]])
        lens = np.concatenate([core.head_logits(loaded.network, rows), logits[None, :]])
    plain = core.sampling_probabilities(logits, 1.0, None, None)
    sampled = core.sampling_probabilities(logits, temperature, top_k, top_p)
    order = np.argsort(-logits, kind="stable")[:top]
    word = _words(loaded.tokenizer.tokenizer, logits.size)
    lens_top = None
    if lens is not None:
        lens_top = [[word(i) for i in np.argsort(-row, kind="stable")[:top]] for row in lens]
    return PredictResult(
        model=loaded.name,
        tokens=tuple(encoded.tokens),
        logits=logits,
        probabilities=plain,
        sampled=sampled,
        top_ids=tuple(int(i) for i in order),
        top_words=tuple(word(i) for i in order),
        temperature=temperature,
        top_k=top_k,
        top_p=top_p,
        lens=lens,
        lens_words=lens_top,
        vocabulary=tuple(word(i) for i in range(logits.size)),
    )


def _prompt(sentence: str | None, model: str, chat: bool) -> tuple[Model, Encoded]:
    """The causal model and the sentence as it reads it (in its chat template with `chat`);
    a model without a language-model head is refused, an encoder before its sentence is
    asked for."""
    from attncli.api.model import example_for, model_sentence
    from attncli.reading.models.model import load_model

    loaded = load_model(model)
    if not loaded.architecture.causal or loaded.network.final_norm is None:
        raise OptionError(
            _(
                "{model} has no language-model head (it is an encoder, {kind}): {predict} "
                "needs a causal model such as GPT-2"
            ),
            model=loaded.name,
            kind=loaded.model_type,
            predict=PREDICT,
        )
    text = model_sentence(sentence, example_for("predict", model))
    if chat:
        from attncli.reading.models.chat import chat_prompt

        text = chat_prompt(loaded.folder, loaded.name, text)
    encoded = loaded.tokenizer.encode(text)
    arch = loaded.architecture
    if arch.rms and not arch.tied and loaded.network.head is None:
        raise OptionError(
            _(
                "{model} has no language-model head: its weights hold no lm_head.weight and "
                "its config.json does not tie the head to the word embeddings "
                "(tie_word_embeddings); {predict} needs the model saved with its head "
                "(e.g. LlamaForCausalLM, not LlamaModel)"
            ),
            model=loaded.name,
            predict=PREDICT,
        )
    return loaded, encoded


def _words(vocabulary: Any, size: int) -> Callable[[int], str]:
    """A token id's text, every one of the vocabulary's `size` decoded at once (the
    tokenizers package does a batch in one call); a piece of a character reads as the
    vocabulary writes it, a special token as itself (<|im_end|>: an instruct model's end of
    turn, which decoding would leave empty)."""
    decoded = vocabulary.decode_batch([[i] for i in range(size)], skip_special_tokens=False)

    def word(i: int) -> str:
        text = str(decoded[int(i)])
        return str(vocabulary.id_to_token(int(i))) if "\ufffd" in text else text

    return word
