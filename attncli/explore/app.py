"""attn explore: the self-attention grid as a full-screen app (Textual).

The app holds a Source (what is attended over) and a State (the knobs, the grid shown,
the cursor); a key turns the state into the next (explore/state.py), the numbers are
attncli.selfattn(...)'s for the new state (explore/session.py), and the widgets show
attn selfattn's own renderables (explore/views.py). A refusal of the layer is a line in
the status bar, never a crash.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Input, Static

from attncli.errors import AttnError
from attncli.explore import views
from attncli.explore.model_pane import PANE_KEYS, ModelPane
from attncli.explore.session import Source, compute, frame_of
from attncli.explore.state import KEYS, Frame, State, fitted, press
from attncli.explore.widgets import Guarded, GuardedActions, KeyedPane, Overlay, Prompt
from attncli.explore.words import say
from attncli.present.format import Format

if TYPE_CHECKING:
    from attncli.results.selfattn import SelfAttnResult

WIDE = 110  # from this many columns the side panel stands beside the grid, else below it


class GridView(KeyedPane):
    """The grid; it has the focus, so the single keys act on it."""

    def on_click(self, event: events.Click) -> None:
        app = self.app
        assert isinstance(app, Explorer)
        app.guarded(app.click, event.style.meta)


class Explorer(GuardedActions, App[None]):
    """The explorer: a sentence field, attn selfattn's header, the grid with a cursor, the
    cell's arithmetic beside it, and the knobs in the status line."""

    TITLE = "attn explore"
    ENABLE_COMMAND_PALETTE = False
    AUTO_FOCUS = "#grid"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+c", "quit", show=False, priority=True),
        Binding("ctrl+q", "quit", show=False, priority=True),
    ]
    CSS = """
    Screen { layout: vertical; }
    #sentence { border: none; height: 1; padding: 0 1; }
    #sentence:focus { background: $boost; }
    #body { height: 1fr; }
    #left { width: 1fr; height: 1fr; }
    #panel-box { width: 44; height: 1fr; border-left: vkey $panel; padding: 0 1; }
    #grid { width: auto; }
    #header-below { display: none; }
    .narrow #header-below { display: block; }
    .narrow #header { display: none; }
    #message { height: auto; color: $warning; padding: 0 1; }
    #drawn-note { display: none; height: auto; padding: 0 1; color: $text-muted; }
    .narrow #drawn-note.drawn { display: block; }
    #status { height: auto; background: $panel; padding: 0 1; }
    #model-box { display: none; height: 1fr; border-top: hkey $panel; padding: 0 1; }
    .pane #model-box { display: block; }
    .narrow #body { layout: vertical; }
    .narrow #left { height: 1fr; }
    .narrow #panel-box {
        width: 100%; height: auto; max-height: 8; border-left: none; border-top: hkey $panel;
    }
    """

    def __init__(
        self, source: Source, state: State | None = None, digits: int | None = None
    ) -> None:
        super().__init__()
        self.source = source
        self.state = state or State()
        self.digits = digits
        self.result: SelfAttnResult | None = None
        self.frame: Frame = frame_of(source, None)
        self.note = ""
        self._shown: dict[str, object] = {}  # what each widget last showed
        self._computed = 0  # results computed so far: a new one redraws the header
        self.pane = ModelPane()  # m: every layer × head, the arrows moving the shown head
        self.pane_open = False
        self._compute()

    # the numbers

    def _compute(self) -> bool:
        """The result for the current source and state; False (and the reason in the
        status line) when the layer refuses them, keeping the last good grid."""
        try:
            result = compute(self.source, self.state)
        except AttnError as error:
            self.note = error.message(self.state.lang)
            return False
        except Exception as error:  # a bug: said in the status line, the app goes on
            self.note = say(self.state.lang, "internal", error=repr(error))
            return False
        self.result = result
        self._computed += 1
        self.frame = frame_of(self.source, result)
        self.state = fitted(self.state, self.frame)
        return True

    def language(self) -> str:
        return self.state.lang

    @property
    def fmt(self) -> Format:
        return Format.chosen(self.digits, self.state.lang)

    # the widgets

    def compose(self) -> ComposeResult:
        yield Input(
            value=self.source.sentence or "",
            placeholder=(
                say(self.state.lang, "sentence_hint")
                if self.source.path is None
                else say(self.state.lang, "document_hint", path=self.source.path)
            ),
            id="sentence",
        )
        with Horizontal(id="body"):
            with VerticalScroll(id="left", can_focus=False):
                yield Static(id="header", classes="header")
                yield GridView(id="grid")
                yield Static(id="header-below", classes="header")
            with VerticalScroll(id="panel-box", can_focus=False):
                yield Static(id="panel")
        with VerticalScroll(id="model-box", can_focus=False):
            yield Static(id="model-pane")
        yield Static(id="drawn-note")  # on a short screen the header's note is out of sight
        yield Static(id="message")
        yield Static(id="status")

    def on_mount(self) -> None:
        self._narrow(self.size.width)
        self.refresh_view()

    def on_resize(self, event: events.Resize) -> None:
        self._narrow(event.size.width)
        if self.is_mounted(self.screen):
            self._draw_status()

    def _narrow(self, width: int) -> None:
        narrow = width < WIDE
        if narrow != self.screen.has_class("narrow"):
            self.screen.set_class(narrow, "narrow")
            if self.is_mounted(self.screen):
                self.refresh_view()

    def _follow_cursor(self) -> None:
        """On a short screen, the grid scrolled into view when the cursor moves."""
        if self.screen.has_class("narrow"):
            grid = self.query_one("#grid", GridView)
            self.query_one("#left", VerticalScroll).scroll_to_widget(grid, animate=False, top=True)

    def refresh_view(self) -> None:
        """The widgets redrawn from the result and the state: each only when what it shows
        changed (a redraw lays the whole screen out again)."""
        fmt = self.fmt
        if self.result is not None:
            compact = self.screen.has_class("narrow")
            try:
                header = views.header(self.result, fmt)
                grid = views.grid(self.result, self.state, fmt)
                panel = views.panel(self.result, self.state, fmt, compact=compact)
            except Exception as error:  # a bug: said, and the last drawing stays
                self.note = say(self.state.lang, "internal", error=repr(error))
            else:
                if self._shown.get("header") != (self._computed, fmt):
                    self._shown["header"] = (self._computed, fmt)
                    for widget in self.query(".header").results(Static):
                        widget.update(Guarded(header, self.language))
                self.query_one("#grid", GridView).update(Guarded(grid, self.language))
                self.query_one("#panel", Static).update(Guarded(panel, self.language))
            note = views.drawn_note(self.result, fmt.lang)
            if self._shown.get("drawn-note") != (note and note.plain):
                self._shown["drawn-note"] = note and note.plain
                drawn = self.query_one("#drawn-note", Static)
                drawn.update(note or "")
                drawn.set_class(note is not None, "drawn")
            if self.pane_open:
                self._draw_pane()
        if self._shown.get("message") != self.note:
            self._shown["message"] = self.note
            message = self.query_one("#message", Static)
            message.update(Text(self.note))
            message.display = bool(self.note)
        self._draw_status()

    def _draw_status(self) -> None:
        """The knobs, laid in lines of the screen's width (less the bar's padding)."""
        status = views.status(self.state, self.frame, self.result, max(self.size.width - 2, 20))
        if self._shown.get("status") != status.plain:
            self._shown["status"] = status.plain
            self.query_one("#status", Static).update(status)

    # the keys

    def key(self, key: str, character: str | None) -> bool:
        """A key pressed on the grid; True when it was the explorer's."""
        name = character if character and character in KEYS else key
        if self.pane_open and name in PANE_KEYS:
            self.apply(PANE_KEYS[name])
        elif name == "m" or (self.pane_open and name == "escape"):
            self.toggle_pane()
        elif name in ("q", "escape"):
            self.exit()
        elif name in ("slash", "tab"):
            self.query_one("#sentence", Input).focus()
        elif name == "enter":
            self.open_steps()
        elif name == "question_mark":
            self.open_help()
        elif name == "e":
            self.ask_export()
        elif name == "j":
            self.write_state()
        elif name in KEYS:
            self.apply(name)
        else:
            return False
        return True

    def apply(self, name: str) -> None:
        """One knob's key: the next state, its numbers, the redraw; a refusal keeps the
        last state and says why."""
        before = self.state
        state, note = press(before, name, self.frame)
        self.note = "" if note is None else say(state.lang, note[0], **note[1])
        self.state = state
        # A model's head is computed on its own (its queries and keys); a seeded one is shown.
        same = _cursor_only(before, state) and (
            self.frame.layers is None or state.head == before.head
        )
        if state != before and not same and not self._compute():
            self.state = replace(before, lang=state.lang)
        if (state.row, state.column) != (before.row, before.column):
            self._follow_cursor()
        self.refresh_view()

    def click(self, meta: dict[str, Any]) -> None:
        """A click on a cell moves the cursor there; on a row's label, opens its steps."""
        if "cell" in meta:
            row, column = meta["cell"]
            self.move_to(row, column)
        elif "row" in meta:
            self.move_to(meta["row"], self.state.column)
            self.open_steps()

    def move_to(self, row: int, column: int) -> None:
        self.state = fitted(replace(self.state, row=row, column=column), self.frame)
        self.note = ""
        self.refresh_view()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "sentence":
            self.guarded(self.new_sentence, event)

    def new_sentence(self, event: Input.Submitted) -> None:
        """Enter in the sentence field: its grid, and the focus back on it."""
        previous = self.source
        self.source = self.source.with_sentence(event.value)
        if not self._compute():
            self.source = previous
        else:
            self.note = ""
        self.query_one("#grid", GridView).focus()
        self.refresh_view()

    def on_key(self, event: events.Key) -> None:
        # Esc in the sentence field gives the focus back to the grid.
        focused = self.focused
        if (
            isinstance(focused, Input)
            and focused.id == "sentence"
            and event.key
            in (
                "escape",
                "tab",
            )
        ):
            event.stop()
            event.prevent_default()
            self.query_one("#grid", GridView).focus()

    # the model-view pane

    def toggle_pane(self) -> None:
        """m: the model view under the grid, or closed again."""
        self.pane_open = not self.pane_open
        self.screen.set_class(self.pane_open, "pane")
        self.note = ""
        self.refresh_view()

    def _draw_pane(self) -> None:
        """The pane redrawn for the result and the state, scrolled to the shown head; a
        model that refuses (or a bug) is a line in the status bar, the pane closed."""
        from attncli.explore.model_pane import drawing, head_line

        assert self.result is not None
        try:
            drawn = drawing(self.source, self.result, self.state, self.pane)
            weights, _marks = self.pane.weights(self.source, self.result)
        except AttnError as error:
            self.note = error.message(self.state.lang)
        except Exception as error:  # a bug: said, and the grid goes on
            self.note = say(self.state.lang, "internal", error=repr(error))
        else:
            key = ("pane", id(weights), self.state.layer, self.state.head, self.state.lang)
            if self._shown.get("pane") != key:
                self._shown["pane"] = key
                self.query_one("#model-pane", Static).update(Guarded(drawn, self.language))
                box = self.query_one("#model-box", VerticalScroll)
                # its padding and scroll bar (the box may not be laid out yet)
                width = self.size.width - 4
                title = drawn.renderables[0].plain
                line = head_line(self.state, weights.shape, width, title)
                # once the new drawing is laid out, so that its height allows the scroll
                self.call_after_refresh(box.scroll_to, y=line, animate=False)
            return
        self.pane_open = False
        self.screen.set_class(False, "pane")

    # overlays and files

    def open_steps(self) -> None:
        if self.result is None:
            return
        self.push_screen(Overlay(views.explanation(self.result, self.state, self.fmt)))

    def open_help(self) -> None:
        from attncli.explore.keys_help import help_text

        self.push_screen(Overlay(help_text(self.state.lang)))

    def ask_export(self) -> None:
        from attncli.explore.saved import free_export_name

        question = say(self.state.lang, "export_prompt")
        self.push_screen(Prompt(question, free_export_name()), self.export_to)

    def export_to(self, path: str | None) -> None:
        if not path or self.result is None:
            return
        from attncli.explore.saved import check_new_file
        from attncli.present.export import check_export_path, export

        try:
            check_export_path(path)
            check_new_file(path)
            export(self.view_parts(), path)
        except AttnError as error:
            self.note = error.message(self.state.lang)
        else:
            self.note = say(self.state.lang, "exported", path=path)
        self.refresh_view()

    def view_parts(self) -> list[Any]:
        """What the screen shows, for an export: the header, the grid, the panel."""
        assert self.result is not None
        fmt = self.fmt
        return [
            views.header(self.result, fmt),
            views.grid(self.result, self.state, fmt),
            Text(""),
            views.panel(self.result, self.state, fmt),
        ]

    def write_state(self) -> None:
        from attncli.explore.saved import write_state

        try:
            path, options = write_state(self.source, self.state, self.result)
        except AttnError as error:
            self.note = error.message(self.state.lang)
        else:
            self.note = say(self.state.lang, "state_written", path=path, options=options)
        self.refresh_view()


def _cursor_only(before: State, after: State) -> bool:
    """Only the cursor, the grid shown, the head shown or the language changed: the numbers
    stay."""
    same = replace(after, row=before.row, column=before.column, grid=before.grid)
    same = replace(same, head=before.head, lang=before.lang)
    return same == before
