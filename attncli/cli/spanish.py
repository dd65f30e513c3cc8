"""Click's own words in Spanish: the one seam where `attn --help` reaches inside Click.

Every help text of attn's own (a command's, an option's) is declared in both languages
beside it (attncli.cli.declare) and handed to Typer in the language asked for. What is
left are the few words Click and Typer write themselves: "Usage:", the section headings,
"[default: …]", the -h/--help line and the completion options. A help screen is written
through the context's HelpFormatter, so a Spanish command is built with a context class
(Click's public `Command.context_class`) whose `formatter_class` (Click's public hook for
this) says those words in Spanish. Nothing of Click or Typer is patched.
"""

import re
from typing import Any

from typer.core import TyperCommand

from attncli.cli.group import AttnGroup, NumbersCommand

# The words Click and Typer write themselves, as they write them.
HEADINGS = {"Options": "Opciones", "Arguments": "Argumentos", "Commands": "Órdenes"}
PHRASES = {
    "[default: ": "[por defecto: ",
    "[required]": "[obligatorio]",
    "Show this message and exit.": "Muestra este mensaje y termina.",
    "Install completion for the current shell.": "Instala el autocompletado para este shell.",
    "Show completion for the current shell, to copy it or customize the installation.": (
        "Muestra el autocompletado para este shell, para copiarlo o ajustar la instalación."
    ),
}
USAGE_ARGUMENTS = {
    "[OPTIONS]": "[OPCIONES]",
    "COMMAND [ARGS]...": "ORDEN [ARGUMENTOS]...",
    "[sentence]": "[frase]",
    "[SCORE]...": "[PUNTUACIÓN]...",
}
# The placeholders of values (attn's metavars and Click's type names), in Spanish.
METAVARS = {
    "FILE": "FICHERO",
    "NAMES": "NOMBRES",
    "PARTS": "PARTES",
    "SENTENCE": "FRASE",
    "QUERY=KEY": "CONSULTA=CLAVE",
    "FLOAT": "NÚMERO",
    "<str>": "<texto>",
    "<int>": "<entero>",
    "<int range>": "<entero>",
    "<float>": "<número>",
    "sentence": "frase",
    "[SCORE]...": "[PUNTUACIÓN]...",
}
_METAVAR = re.compile(
    "|".join(rf"(?<![\w<-]){re.escape(word)}(?![\w>])" for word in METAVARS if word[0] != "<")
)


def term_in_spanish(term: str) -> str:
    """An option's or argument's term (--input FILE, sentence) with its placeholder in
    Spanish (--input FICHERO, frase)."""
    for english, spanish in METAVARS.items():
        if english.startswith("<"):
            term = term.replace(english, spanish)
    return _METAVAR.sub(lambda found: METAVARS[found.group(0)], term)


def in_spanish(text: str) -> str:
    """`text` with every one of Click's own phrases in it said in Spanish."""
    for english, spanish in PHRASES.items():
        text = text.replace(english, spanish)
    return text


def _formatter_class() -> type:
    import typer

    formatter: Any = typer.Context.formatter_class  # Click's HelpFormatter

    class SpanishFormatter(formatter):  # type: ignore[misc,valid-type]
        """Click's help formatter, writing Click's own words in Spanish."""

        def write_usage(self, prog: str, args: str = "", prefix: str | None = None) -> None:
            for english, spanish in USAGE_ARGUMENTS.items():
                args = args.replace(english, spanish)
            super().write_usage(prog, args, "Uso: " if prefix is None else prefix)

        def write_heading(self, heading: str) -> None:
            super().write_heading(HEADINGS.get(heading, heading))

        def write_dl(self, rows: Any, col_max: int = 30, col_spacing: int = 2) -> None:
            spanish = [(term_in_spanish(term), in_spanish(text)) for term, text in rows]
            super().write_dl(spanish, col_max, col_spacing)

    return SpanishFormatter


def command_classes(lang: str) -> tuple[type, type, type]:
    """The Click classes of the group, of a command and of a numbers command, for help in
    `lang`."""
    if lang != "es":
        return AttnGroup, TyperCommand, NumbersCommand
    import typer

    class SpanishContext(typer.Context):
        formatter_class = _formatter_class()

    def spanish(base: type) -> type:
        return type(f"Spanish{base.__name__}", (base,), {"context_class": SpanishContext})

    return spanish(AttnGroup), spanish(TyperCommand), spanish(NumbersCommand)
