"""The pieces both explorer screens use: a guarded renderable and guarded actions, the
focused pane whose keys go to its app, an overlay (help, a row's steps) and a one-line
prompt."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.segment import Segment
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from attncli.errors import AttnError
from attncli.explore.words import say


class GuardedActions:
    """What both explorers do with a key's or a click's action: run it; a refusal or a bug
    is a line in the status bar and the app goes on (the terminal never gets a traceback).
    The app gives its language, its status `note`, its `key` handler and `refresh_view`
    (declared here as what it must have: a Textual app's metaclass is not abc's)."""

    note: str
    language: Callable[[], str]
    refresh_view: Callable[[], None]
    key: Callable[[str, str | None], bool]

    def guarded(self, action: Callable[..., Any], *arguments: Any) -> Any:
        try:
            return action(*arguments)
        except AttnError as error:
            self.note = error.message(self.language())
        except Exception as error:
            self.note = say(self.language(), "internal", error=repr(error))
        self.refresh_view()
        return True


class KeyedPane(Static, can_focus=True):
    """A pane that, with the focus, hands the single keys to its app's guarded `key`."""

    def on_key(self, event: events.Key) -> None:
        app = self.app
        assert isinstance(app, GuardedActions)
        if app.guarded(app.key, event.key, event.character):
            event.stop()
            event.prevent_default()


class Guarded:
    """A renderable drawn inside a guard: if drawing it fails (a bug), one line says so in
    its place instead of the app ending with a traceback."""

    def __init__(self, inner: Any, lang: Callable[[], str]) -> None:
        self.inner, self.lang = inner, lang
        # Textual draws a widget more than once per frame (its height, then its lines):
        # the lines are drawn once per width and kept.
        self._drawn: dict[int, list[list[Segment]]] = {}

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        key = options.max_width
        try:
            if key not in self._drawn:
                self._drawn[key] = console.render_lines(
                    self.inner, options, pad=False, new_lines=True
                )
        except Exception as error:
            yield Text(say(self.lang(), "internal", error=repr(error)))
            return
        for line in self._drawn[key]:
            yield from line

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        try:
            return Measurement.get(console, options, self.inner)
        except Exception:
            return Measurement(1, options.max_width)


class _Closing:
    """A modal screen closed once: two keys that arrive together (a quick q q, a paste)
    would otherwise both dismiss it, and the second would pop the app's own screen."""

    _closed = False

    def close(self, value: Any = None) -> None:
        if self._closed:
            return
        self._closed = True
        self.dismiss(value)  # type: ignore[attr-defined]


class Overlay(_Closing, ModalScreen[None]):
    """Text over the app (the help, a row's three steps); a key or a click closes it."""

    DEFAULT_CSS = """
    Overlay { align: center middle; }
    Overlay > VerticalScroll {
        width: 100%; max-width: 104; height: 100%;
        border: round $accent; background: $surface; padding: 0 1;
    }
    """

    def __init__(self, content: Any) -> None:
        super().__init__()
        self.content = content

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(self.content)

    def on_key(self, event: events.Key) -> None:
        if event.key in ("up", "down", "pageup", "pagedown", "home", "end"):
            return  # scrolls a long explanation
        event.stop()
        self.close()

    def on_click(self, event: events.Click) -> None:
        self.close()


class Prompt(_Closing, ModalScreen[str | None]):
    """One line asked for (the export's file name): Enter gives it, Esc cancels."""

    AUTO_FOCUS = "Input"

    DEFAULT_CSS = """
    Prompt { align: center bottom; }
    Prompt > Static { width: 100%; }
    Prompt > Input { width: 100%; }
    """

    def __init__(self, question: str, value: str) -> None:
        super().__init__()
        self.question, self.value = question, value

    def compose(self) -> ComposeResult:
        yield Static(self.question)
        yield Input(value=self.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.close(event.value)

    def on_key(self, event: events.Key) -> None:
        if event.key == "escape":
            event.stop()
            self.close()
