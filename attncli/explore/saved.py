"""j: the explorer's state as the JSON document `attn selfattn -i` reads back."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from attncli.errors import PATH_SHOWN, OptionError, shown
from attncli.messages import _

if TYPE_CHECKING:
    from attncli.explore.session import Source
    from attncli.explore.state import State
    from attncli.results.selfattn import SelfAttnResult

STATE_FILE = "attn-explore-state.json"
CHAIN_FILE = "attn-explore-chain.json"
EXPORT_STEM, EXPORT_SUFFIX = "attn-explore-", ".svg"


def free_export_name(folder: str = ".") -> str:
    """e's proposal: the first attn-explore-N.svg that is not in `folder`, so that Enter
    never writes over a file an earlier session exported (a counter from 1 would)."""
    number = 1
    while os.path.lexists(os.path.join(folder, f"{EXPORT_STEM}{number}{EXPORT_SUFFIX}")):
        number += 1
    return f"{EXPORT_STEM}{number}{EXPORT_SUFFIX}"


def check_new_file(path: str) -> None:
    """An export from the explorer goes to a new file only: one that is there is refused,
    never written over (the prompt's Enter is too quick a yes)."""
    if os.path.lexists(path):
        raise OptionError(
            _(
                "{path} is already there, and the explorer never writes over a file; give "
                "another name"
            ),
            path=shown(path, PATH_SHOWN),
        )


def state_document(result: SelfAttnResult) -> dict[str, Any]:
    """The layer's inputs as attn selfattn -i reads them: tokens and X with W^Q, W^K, W^V
    (and W^O), or Q, K, V when they were given; the causal mask as `mask`, an added bias
    as a float `attn_mask`."""
    full = result.to_document()
    if result.x is not None:
        wanted = ["tokens", "x", "w_q", "w_k", "w_v", "w_o", "b_q", "b_k", "b_v", "b_o"]
    else:
        wanted = ["tokens", "queries", "keys", "values"]
    document = {name: full[name] for name in wanted if name in full}
    if result.allowed is not None:
        document["mask"] = result.allowed.astype(int)
    if result.mask_bias is not None:  # what a float attn_mask adds to the scores
        document["attn_mask"] = result.mask_bias
    return document


def options_for(result: SelfAttnResult) -> str:
    """The options the document does not hold: heads, no projections, no scaling, and what
    the layer does to its scores (rotary positions, ALiBi, QK-norm, a softcap, sinks)."""
    options = []
    if result.heads is not None:
        options.append(f"--heads {result.heads}")
        if result.projections and result.projections["w_q"].shape[1] != result.x.shape[-1]:  # type: ignore[union-attr]
            options.append(f"--d-k {result.sizes['d_k']} --d-v {result.sizes['d_v']}")
    if result.x is not None and not result.projections:
        options.append("--no-proj")
    if result.divisor == 1.0:
        options.append("--no-scale")
    if result.rope_base is not None:
        options.append("--positions rope")
    if result.alibi:  # its bias is the layer's, not the document's attn_mask
        options.append("--alibi")
    if result.qk_norm:  # read back only as it was computed
        options.append("--qk-norm")
    if result.softcap is not None:  # what the scores go through: the layer's, not the inputs'
        options.append(f"--softcap {result.softcap:g}")
    if result.sinks is not None:
        options.append("--sinks " + ",".join(f"{sink:g}" for sink in result.sinks))
    return "".join(f" {option}" for option in options)


def _write(path: str, document: dict[str, Any]) -> None:
    import orjson

    from attncli.present.written import write_file

    text = orjson.dumps(document, option=orjson.OPT_SERIALIZE_NUMPY)
    write_file(os.path.abspath(path), text + b"\n", "")


def write_document(document: dict[str, Any]) -> str:
    """The worked chain's document (tokens, query, keys, values) to a file; its name."""
    _write(CHAIN_FILE, document)
    return CHAIN_FILE


def write_state(source: Source, state: State, result: SelfAttnResult | None) -> tuple[str, str]:
    """Write the document to attn-explore-state.json in the working folder; its name and the
    options that read it back."""
    if result is None:
        raise OptionError(_("nothing to write yet"))
    _write(STATE_FILE, state_document(result))
    path = STATE_FILE
    return path, options_for(result)
