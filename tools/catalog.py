"""attn's message catalogs: what the code says, what each catalog translates, the .mo files.

    python tools/catalog.py extract         # attncli/locale/attncli.pot from the code
    python tools/catalog.py update          # each .po gains the new msgids, empty
    python tools/catalog.py compile         # each .po -> its .mo, which attn reads
    python tools/catalog.py check           # what is missing or differs, one line each

A msgid is found where the code writes it: `_("…")`, `Message("…")`,
`Message.counted("…", "…", n)`, an error's first argument, and the docstring of every
`@command` (the command's help). Click's and Typer's own words are found the same way in
their installed source, so a catalog may translate them too. Babel reads and writes the
files (gettext's formats, as every gettext tool writes them).
"""

from __future__ import annotations

import ast
import inspect
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "attncli"
LOCALE_DIR = PACKAGE / "locale"
DOMAIN = "attncli"
MARKERS = {"_", "Message"}
ERRORS = {"AttnError", "InputError", "ShapeError", "OptionError", "Interrupted"}
PLACEHOLDER_WHOLE = re.compile(r"\{[^{}]*\}")
PLACEHOLDER = re.compile(r"(?<!\{)\{([A-Za-z_][A-Za-z_0-9]*)")


@dataclass
class Found:
    """One msgid the code says, and where."""

    msgid: str
    plural: str | None = None
    places: list[str] = field(default_factory=list)


def placeholders(text: str) -> set[str]:
    """The {fields} of a message ({{ and }} are literal braces)."""
    return set(PLACEHOLDER.findall(text.replace("{{", "")))


def _string(node: ast.AST | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _called(node: ast.Call) -> str:
    if isinstance(node.func, ast.Name):
        return node.func.id
    if isinstance(node.func, ast.Attribute):
        return node.func.attr
    return ""


def said_in(tree: ast.AST) -> Iterator[tuple[str, str | None, int]]:
    """(msgid, plural, line) of every message written in one module."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = _called(node)
            args = node.args
            if name in ("counted", "_n") and len(args) >= 2:
                singular, plural = _string(args[0]), _string(args[1])
                if singular and plural:
                    yield singular, plural, node.lineno
            elif (name in MARKERS or name in ERRORS) and args and _string(args[0]):
                yield _string(args[0]) or "", None, node.lineno
            elif name == "ngettext" and len(args) >= 2 and _string(args[0]) and _string(args[1]):
                yield _string(args[0]) or "", _string(args[1]), node.lineno
        elif isinstance(node, ast.FunctionDef) and any(
            _decorator_name(decorator) == "command" for decorator in node.decorator_list
        ):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                yield inspect.cleandoc(doc), None, node.lineno


def _decorator_name(node: ast.AST) -> str:
    if isinstance(node, ast.Call):
        node = node.func
    return node.id if isinstance(node, ast.Name) else getattr(node, "attr", "")


def extract(folders: list[Path] | None = None) -> dict[str, Found]:
    """Every msgid the package says, with the places that say it."""
    found: dict[str, Found] = {}
    for folder in folders or [PACKAGE]:
        for path in sorted(folder.rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for msgid, plural, line in said_in(tree):
                entry = found.setdefault(msgid, Found(msgid, plural))
                entry.places.append(f"{path.relative_to(folder.parent)}:{line}")
    return found


def framework_words() -> set[str]:
    """The msgids Click and Typer say themselves (their own `_()` and ngettext calls)."""
    import click
    import typer

    words: set[str] = set()
    for package in (click, typer):
        folder = Path(package.__file__).parent
        for msgid, plural, _line in _framework_calls(folder):
            words.add(msgid)
            if plural:
                words.add(plural)
    return words


def _framework_calls(folder: Path) -> Iterator[tuple[str, str | None, int]]:
    for path in sorted(folder.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and _called(node) in ("_", "ngettext") and node.args:
                first = _string(node.args[0])
                second = _string(node.args[1]) if len(node.args) > 1 else None
                if first:
                    yield first, second if _called(node) == "ngettext" else None, node.lineno


def catalogs() -> list[Path]:
    """Every language's .po file."""
    return sorted(LOCALE_DIR.glob(f"*/LC_MESSAGES/{DOMAIN}.po"))


def read(path: Path):  # -> babel.messages.Catalog
    from babel.messages.pofile import read_po

    with path.open("rb") as handle:
        return read_po(handle, abort_invalid=True)


def compiled(po: Path) -> bytes:
    """The .mo that `po` compiles to (the bytes gettext reads)."""
    from babel.messages.mofile import write_mo

    buffer = BytesIO()
    write_mo(buffer, read(po), use_fuzzy=False)
    return buffer.getvalue()


def problems() -> list[str]:
    """What is wrong with the catalogs, one line each (empty when every catalog is whole)."""
    said = extract()
    framework = framework_words()
    lines = []
    for po in catalogs():
        lang = po.parent.parent.name
        catalog = read(po)
        translated = {}
        for message in catalog:
            if not message.id:
                continue
            key = message.id[0] if isinstance(message.id, tuple) else message.id
            translated[key] = message
        for msgid, found in said.items():
            if not re.sub(PLACEHOLDER_WHOLE, "", msgid).strip():
                continue  # fields alone ("{value}"): nothing to translate
            message = translated.get(msgid)
            if message is None or not message.string or message.fuzzy:
                lines.append(f"{lang}: not translated: {msgid!r} ({found.places[0]})")
                continue
            strings = message.string if isinstance(message.string, tuple) else (message.string,)
            for form, text in enumerate(strings):
                source = found.plural if form and found.plural else msgid
                if placeholders(text) != placeholders(source):
                    lines.append(
                        f"{lang}: other fields in {source!r}: {sorted(placeholders(text))} "
                        f"against {sorted(placeholders(source))}"
                    )
        for msgid, message in translated.items():
            if msgid not in said and msgid not in framework and message.context is None:
                lines.append(f"{lang}: no longer said: {msgid!r}")
        mo = po.with_suffix(".mo")
        if not mo.exists() or mo.read_bytes() != compiled(po):
            lines.append(f"{lang}: {mo.relative_to(ROOT)} is not the compiled {po.name}")
    return lines


def update() -> None:
    """Each .po gains every msgid the code says and does not yet translate (empty)."""
    from babel.messages.pofile import write_po

    said = extract()
    for po in catalogs():
        catalog = read(po)
        for msgid, found in said.items():
            key = (msgid, found.plural) if found.plural else msgid
            if catalog.get(msgid) is None:
                catalog.add(key, ("", "") if found.plural else "")
        with po.open("wb") as handle:
            write_po(handle, catalog, width=100, omit_header=False, sort_output=False)


def compile_all() -> None:
    for po in catalogs():
        po.with_suffix(".mo").write_bytes(compiled(po))


def main(argv: list[str]) -> int:
    verb = argv[1] if len(argv) > 1 else "check"
    if verb == "compile":
        compile_all()
    elif verb == "update":
        update()
    elif verb == "extract":
        for msgid in extract():
            print(repr(msgid))
    elif verb == "check":
        found = problems()
        print("\n".join(found) or "every catalog is whole")
        return 1 if found else 0
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
