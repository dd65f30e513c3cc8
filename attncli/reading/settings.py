"""The settings of the self-attention layer: every choice that shapes its computation, in
one keyword-only value that the command line, the Python API and the explorer all build."""

from __future__ import annotations

from dataclasses import dataclass

# The document fields that hold a T × T grid (see grids_needed).
GRID_FIELDS = frozenset({"raw_scores", "scores", "weights", "weights_mean"})


@dataclass(frozen=True, kw_only=True)
class SelfAttnSettings:
    """The options of attn selfattn that shape the computation."""

    d_model: int | None = None  # numbers per seeded embedding [default: 8]
    d_k: int | None = None  # columns of W^Q, W^K per head [default: d_model / h]
    d_v: int | None = None  # columns of W^V per head [default: d_model / h]
    norm: float | None = None  # length of every seeded embedding [default: √d_model]
    seed: int = 0  # seed of the embeddings and of the projections left out
    draw_missing: bool = False  # draw the projections a document leaves out, if it gives some
    heads: int | None = None  # h heads; None: one, without a head axis
    projections: bool = True  # False: Q = K = V = X
    out_proj: bool = True  # with heads: join them through W^O (torch's out_proj)
    scale: bool = True  # divide the scores by √d_k (or by scale_by)
    scale_by: float | None = None  # divide by this instead of √d_k
    causal: bool = False  # each position sees only itself and the ones before it
    no_causal: bool = False  # a checkpoint's causal layer (GPT-2's) without its mask
    zero_attn: bool = False  # torch's add_zero_attn: a zero key and value row per head
    dtype: str = "float64"  # "float32": the layer computed in float32 from the inputs on
    valid_len: int | None = None  # keys from this count on are padding, masked for every row
    context: str | None = None  # cross-attention: the sentence the keys and values come from
    positions: str | None = None  # a positional encoding added to X (core.positions.KINDS)
    grids: bool = True  # False: only the output is wanted, computed in row blocks


def grids_needed(fields: tuple[str, ...] | None, plot: str | None, upstream: str | None) -> bool:
    """Whether the T × T grids must exist: not when only other fields are written (--fields
    output), with nothing to plot and no backward pass; the output is then computed in row
    blocks and a long input fits."""
    return fields is None or bool(GRID_FIELDS & set(fields)) or bool(plot) or bool(upstream)


def dtype_name(dtype: object) -> str:
    """The Python API's dtype= as the layer names it: "float32" or "float64" from a str,
    a numpy type or dtype (np.float32, np.dtype("float32")) or a torch dtype (torch.float32,
    read by its name, without importing torch); anything else as given, for the check."""
    if isinstance(dtype, str):
        return dtype
    name = getattr(dtype, "name", None)  # np.dtype("float32").name
    if not isinstance(name, str):
        name = getattr(dtype, "__name__", None)  # np.float32.__name__
    if not isinstance(name, str):
        name = str(dtype).removeprefix("torch.")  # str(torch.float32)
    return name
