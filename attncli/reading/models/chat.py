"""A message put in a model's chat template: the prompt an instruct model was trained to
answer, as transformers' apply_chat_template writes it.

The template is the Jinja text of tokenizer_config.json's chat_template (a GGUF file's
tokenizer.chat_template, carried there when it is converted), rendered in Jinja's sandbox
with the message as the one user turn and the assistant's turn opened
(add_generation_prompt), the model's special tokens (bos_token, eos_token) at hand:

    <|im_start|>system
    You are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>
    <|im_start|>user
    What is the capital of France?<|im_end|>
    <|im_start|>assistant
"""

from __future__ import annotations

from typing import Any

from attncli.errors import InputError, first_line, imported
from attncli.messages import Message, Setting, _

NO_TEMPLATE = _(
    "{model} has no chat template (tokenizer_config.json's chat_template, a GGUF file's "
    "tokenizer.chat_template); {chat} needs an instruct model that carries one"
)
BROKEN_TEMPLATE = _("{model}: its chat template could not be applied ({reason})")


def chat_prompt(folder: str, model: str, message: str) -> str:
    """`message` as the user's turn of the chat template of the model in `folder`."""
    from attncli.reading.models.tokens import tokenizer_config

    config = tokenizer_config(folder)
    template = config.get("chat_template")
    if isinstance(template, list):  # several named templates: the default one
        named = {t.get("name"): t.get("template") for t in template if isinstance(t, dict)}
        template = named.get("default")
    if not isinstance(template, str) or not template.strip():
        raise InputError(NO_TEMPLATE, model=model, chat=Setting("chat"))
    sandbox = imported("jinja2.sandbox", Message(_("a chat template")))
    from jinja2.exceptions import TemplateError

    def raise_exception(text: str) -> Any:  # the templates' own way of refusing
        raise TemplateError(text)

    environment = sandbox.ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
    environment.globals["raise_exception"] = raise_exception
    specials = {name: _token(config.get(name)) for name in ("bos_token", "eos_token")}
    try:
        return environment.from_string(template).render(
            messages=[{"role": "user", "content": message}],
            add_generation_prompt=True,
            **specials,
        )
    except TemplateError as error:
        raise InputError(BROKEN_TEMPLATE, model=model, reason=first_line(error, 80)) from None


def _token(value: Any) -> str:
    """A special token as tokenizer_config.json gives it (a string, or an AddedToken's
    content), else none."""
    from attncli.reading.models.tokens import content

    token = content(value)
    return token if isinstance(token, str) else ""
