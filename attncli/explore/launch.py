"""From the command line's options to the app on the screen: the input read and checked
before the screen changes, so a bad one is one line on stderr, never a broken screen."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from attncli.errors import InputError
from attncli.messages import _

if TYPE_CHECKING:
    from textual.app import App

SEEDED_SIZES = ("d_model", "d_k", "norm", "heads")  # options of the seeded layer alone


def prepare(
    sentence: str | None,
    input_path: str | None,
    sizes: dict[str, Any],
    switches: dict[str, bool],
    lang: str = "en",
    digits: int | None = None,
) -> App[None]:
    """The app for these options, its first numbers already computed (an AttnError
    says what is wrong with the input)."""
    from attncli.explore.session import Source, compute
    from attncli.explore.state import State

    check_options(sentence, input_path, sizes, switches)
    document: dict[str, Any] = {}
    if input_path is not None:
        from attncli.reading.parse.sources import load_document

        document = dict(load_document(input_path, None, read_stdin=False))
    if document.get("query") is not None:
        from attncli.explore.chain import ChainExplorer, start

        return ChainExplorer(start(document), lang=lang, digits=digits)
    if sentence is None and not document:
        from attncli.reading.parse.samples import LESSON

        sentence = LESSON
    model = sizes.get("model")
    source = Source(
        sentence=sentence,
        document=document,
        d_model=sizes.get("d_model"),
        norm=sizes.get("norm"),
        path=input_path,
        model=model,
    )
    heads = sizes.get("heads") or 1
    state = State(
        projections=switches.get("projections", True),
        scale=switches.get("scale", True),
        causal=switches.get("causal", False),
        heads=heads,
        d_k=sizes.get("d_k"),
        seed=sizes.get("seed") or 0,
        lang=lang,
        layer=sizes.get("layer"),
        words=bool(sizes.get("words")),
    )
    compute(source, state)  # refused here, before the screen is taken
    from attncli.explore.app import Explorer

    return Explorer(source, state, digits=digits)


def check_options(
    sentence: str | None, input_path: str | None, sizes: dict[str, Any], switches: dict[str, bool]
) -> None:
    """The options' own mistakes, told before anything is read or imported (and so before
    what a terminal lacks: fixing one should not reveal another)."""
    if sentence is not None and input_path is not None:
        raise InputError(_("give a sentence or -i FILE, not both"))
    if input_path == "-":
        raise InputError(_("-i -: the explorer's standard input is the keyboard; give a file"))
    from attncli.api.model import refuse_model_mismatch

    seeded = [f"--{name.replace('_', '-')}" for name in SEEDED_SIZES if sizes.get(name)]
    flags = {"projections": "--no-proj", "scale": "--no-scale", "causal": "--causal"}
    seeded += [flags[name] for name, on in switches.items() if on != (name != "causal")]
    picks = {"layer": sizes.get("layer"), "words": sizes.get("words") or None}
    refuse_model_mismatch(sizes.get("model"), picks, seeded + ["-i"] * (input_path is not None))


def launch(*arguments: Any) -> None:
    """Run the app for the command line's options until the user quits."""
    prepare(*arguments).run()
