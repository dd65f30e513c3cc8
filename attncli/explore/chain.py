"""attn explore -i DOCUMENT with a query, keys and values: the worked example's three
tables (score → softmax → mix), the query's and the keys' numbers editable in place and
everything below recomputed as they are typed.

The numbers are attncli.score, attncli.softmax and attncli.mix's, laid out by the same
step tables as `attn score --steps | attn softmax --steps | attn mix --steps`.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any, ClassVar

from rich.console import Group, RenderableType
from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Input, Label, Static

from attncli.errors import AttnError
from attncli.explore.widgets import Guarded, GuardedActions, KeyedPane, Overlay, Prompt
from attncli.explore.words import say
from attncli.messages import component_mark, in_decimals
from attncli.present.format import Format


@dataclass(frozen=True)
class Chain:
    """The three results of one query through score, softmax and mix."""

    score: Any
    softmax: Any
    mix: Any

    def steps(self) -> list[Any]:
        return [*self.score.steps(), *self.softmax.steps(), *self.mix.steps()]


def run_chain(document: dict[str, Any], query: Any, keys: Any) -> Chain:
    """attncli.score → softmax → mix on the document with this query and these keys."""
    import attncli

    tokens = document.get("tokens")
    scored = attncli.score(query=query, keys=keys, tokens=tokens)
    weighted = attncli.softmax(scored)
    mixed = attncli.mix(weighted, values=document.get("values"))
    return Chain(scored, weighted, mixed)


def start(document: dict[str, Any]) -> dict[str, Any]:
    """The document, once its chain computes (an AttnError says what is wrong)."""
    run_chain(document, document.get("query"), document.get("keys"))
    return document


def read_numbers(text: str, field: str, lang: str = "en") -> Any:
    """A field's text ('1, 0'; '0,5; 1' in Spanish) as attn reads --query in `lang`."""
    from attncli.reading.parse.arguments import parse_inline

    return parse_inline(text, field, lang)


def tables(chain: Chain, fmt: Format) -> RenderableType:
    """The worked example's three tables."""
    from attncli.present.views import steps_view

    return Group(*steps_view(chain.steps(), fmt))


class Tables(KeyedPane):
    """The three tables; with the focus, the single keys act."""


class ChainExplorer(GuardedActions, App[None]):
    """The hand-worked chain for one query, editable."""

    TITLE = "attn explore"
    ENABLE_COMMAND_PALETTE = False
    AUTO_FOCUS = "#tables"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+c", "quit", show=False, priority=True),
        Binding("ctrl+q", "quit", show=False, priority=True),
    ]
    CSS = """
    .field { height: 1; }
    .field Label { width: 14; padding: 0 1; }
    .field Input { border: none; height: 1; width: 1fr; padding: 0 1; }
    .field Input:focus { background: $boost; }
    #scroll { height: 1fr; }
    #message { height: auto; color: $warning; padding: 0 1; }
    #status { height: auto; background: $panel; padding: 0 1; }
    """

    def __init__(
        self, document: dict[str, Any], lang: str = "en", digits: int | None = None
    ) -> None:
        super().__init__()
        self.document = document
        self.lang = lang
        self.digits = digits
        self.query_text = _vector_text(document.get("query"), lang)
        self.key_texts = [_vector_text(key, lang) for key in document.get("keys") or []]
        self.chain: Chain | None = None
        self.note = ""
        self.recompute()

    def language(self) -> str:
        return self.lang

    def recompute(self) -> bool:
        """The chain for the fields' numbers; False (the reason in the status line) when
        attn refuses them, keeping the last good tables."""
        try:
            query = read_numbers(self.query_text, "query", self.lang)
            keys = [read_numbers(text, "keys", self.lang) for text in self.key_texts]
            self.chain = run_chain(self.document, query, keys)
        except AttnError as error:
            self.note = error.message(self.lang)
            return False
        self.note = ""
        return True

    def compose(self) -> ComposeResult:
        labels = list(self.document.get("tokens") or [])
        with Horizontal(classes="field"):
            yield Label(say(self.lang, "chain_query"))
            yield Input(self.query_text, id="field-query")
        for index, text in enumerate(self.key_texts):
            name = labels[index] if index < len(labels) else f"k{index + 1}"
            with Horizontal(classes="field"):
                yield Label(Text(say(self.lang, "chain_key", token=name)))
                yield Input(text, id=f"field-key-{index}")
        with VerticalScroll(id="scroll", can_focus=False):
            yield Tables(id="tables")
        yield Static(id="message")
        yield Static(id="status")

    def switch_language(self, lang: str) -> None:
        """Speak `lang`, the fields rewritten as it writes numbers (0.5, 1 → 0,5; 1), so that
        what the screen shows can be typed back; a field that does not read stays as typed."""
        texts = [("field-query", self.query_text, "query")]
        texts += [(f"field-key-{i}", text, "keys") for i, text in enumerate(self.key_texts)]
        rewritten = []
        for name, text, field in texts:
            with contextlib.suppress(AttnError):
                text = _vector_text(read_numbers(text, field, self.lang), lang)
            rewritten.append(text)
            with self.prevent(Input.Changed):
                self.query_one(f"#{name}", Input).value = text
        self.lang = lang
        self.query_text, self.key_texts = rewritten[0], rewritten[1:]
        self.recompute()
        self.refresh_view()

    def on_mount(self) -> None:
        self.refresh_view()

    def refresh_view(self) -> None:
        fmt = Format.chosen(self.digits, self.lang)
        if self.chain is not None:
            self.query_one("#tables", Tables).update(
                Guarded(tables(self.chain, fmt), self.language)
            )
        self.query_one("#message", Static).update(Text(self.note))
        self.query_one("#status", Static).update(Text(say(self.lang, "chain_status")))

    def on_input_changed(self, event: Input.Changed) -> None:
        self.guarded(self.edited, event)

    def edited(self, event: Input.Changed) -> None:
        """A field typed into: the tables below recomputed at once."""
        name = event.input.id or ""
        if name == "field-query":
            self.query_text = event.value
        elif name.startswith("field-key-"):
            self.key_texts[int(name.rsplit("-", 1)[1])] = event.value
        else:
            return
        self.recompute()
        self.refresh_view()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if (event.input.id or "").startswith("field-"):
            self.query_one("#tables", Tables).focus()

    def on_key(self, event: events.Key) -> None:
        focused = self.focused
        in_field = isinstance(focused, Input) and (focused.id or "").startswith("field-")
        if in_field and event.key == "escape":
            event.stop()
            self.query_one("#tables", Tables).focus()

    def key(self, key: str, character: str | None) -> bool:
        name = character or key
        if name in ("q",) or key == "escape":
            self.exit()
        elif key in ("slash", "tab") or name == "/":
            self.query_one("#field-query", Input).focus()
        elif name == "l":
            self.switch_language("es" if self.lang == "en" else "en")
        elif name == "?":
            from attncli.explore.keys_help import chain_help

            self.push_screen(Overlay(chain_help(self.lang)))
        elif name == "e":
            from attncli.explore.saved import free_export_name

            prompt = Prompt(say(self.lang, "export_prompt"), free_export_name())
            self.push_screen(prompt, self.export_to)
        elif name == "j":
            self.write_document()
        else:
            return False
        return True

    def export_to(self, path: str | None) -> None:
        if not path or self.chain is None:
            return
        from attncli.explore.saved import check_new_file
        from attncli.present.export import check_export_path, export

        try:
            check_export_path(path)
            check_new_file(path)
            export([tables(self.chain, Format.chosen(self.digits, self.lang))], path)
        except AttnError as error:
            self.note = error.message(self.lang)
        else:
            self.note = say(self.lang, "exported", path=path)
        self.refresh_view()

    def write_document(self) -> None:
        """j: the document with the fields' numbers, as attn score -i reads it."""
        from attncli.explore.saved import write_document

        if self.chain is None:
            return
        full = self.chain.mix.to_document()
        document = {
            name: full[name] for name in ("tokens", "query", "keys", "values") if name in full
        }
        try:
            path = write_document(document)
        except AttnError as error:
            self.note = error.message(self.lang)
        else:
            self.note = say(self.lang, "chain_written", path=path)
        self.refresh_view()


def _vector_text(vector: Any, lang: str = "en") -> str:
    """A vector as a field shows it: '1, 0.5' ('1; 0,5' in Spanish), every digit kept."""
    if vector is None:
        return ""
    return (component_mark(lang) + " ").join(
        in_decimals(_number_text(value), lang) for value in vector
    )


def _number_text(value: Any) -> str:
    number = float(value)
    return str(int(number)) if number.is_integer() and abs(number) < 1e15 else repr(number)
