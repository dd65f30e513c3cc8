"""The help overlay: every key of the explorer, in the screen's language."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from attncli.explore.state import knob_keys, knob_label
from attncli.explore.words import say

# (keys as typed, the phrase that says what they do); a layer knob's keys are the
# layer's declaration's, its phrase help.<setting>
HELP = (
    (knob_label("projections"), "help.projections"),
    (knob_label("scale"), "help.scale"),
    (knob_label("causal"), "help.causal"),
    (knob_label("heads"), "help.heads"),
    ("{ / }", "help.braces"),
    (knob_label("norm"), "help.norm"),
    (knob_label("seed"), "help.seed"),
    (knob_label("d_k"), "help.d_k"),
    (knob_label("positions"), "help.positions"),
    # two knobs of the scores on one line, as a pair's keys are: 24 rows hold the list
    (" ".join([*knob_keys("window"), *knob_keys("softcap")]), "help.window_softcap"),
    (f"{knob_label('alibi')} / {knob_label('qk_norm')}", "help.alibi_qk_norm"),
    (" ".join(knob_keys("sinks")), "help.sinks"),
    ("v  l", "help.v_l"),
    ("← ↑ → ↓", "help.arrows"),
    ("Enter", "help.enter"),
    ("/  Tab", "help.slash"),
    ("e", "help.e"),
    ("j", "help.j"),
    ("[ ] { } w m", "help.model"),
    ("q  Esc", "help.q"),
)


CHAIN_HELP = (
    ("/  Tab", "help.chain_edit"),
    ("Enter  Esc", "help.chain_back"),
    ("l", "help.l"),
    ("e", "help.e"),
    ("j", "help.chain_j"),
    ("q  Esc", "help.q"),
)


def help_text(lang: str, listed: tuple[tuple[str, str], ...] = HELP) -> RenderableType:
    """The keys and what each does."""
    table = Table(box=None, show_header=False, padding=(0, 2, 0, 0))
    table.add_column(style="bold", no_wrap=True)
    table.add_column()
    for keys, phrase in listed:
        table.add_row(keys, say(lang, phrase))
    return Group(
        Text(say(lang, "help_title"), style="bold"),
        table,
        Text(say(lang, "help_close"), style="dim"),  # the last of 24 rows: none to spare
    )


def chain_help(lang: str) -> RenderableType:
    """The keys of the worked chain."""
    return help_text(lang, CHAIN_HELP)
