"""What the explorer shows, as plain data, and what each key does to it.

No Textual and no numbers here: a key turns one State into the next (and maybe a note
for the status line), so every key sequence can be replayed and checked without a
terminal. The numbers come from the layer's operation on the state's settings (explore/session.py).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

MAX_D_K = 64  # d/D stop here: a wider query no longer fits the side panel's sum
NORM_STEPS = 6  # n/N halve or double the embeddings' length in steps of √2, three times each way
SOFTCAPS = (50.0, 20.0, 10.0, 5.0, 2.0, 1.0)  # ( and ) step through them: Gemma 2's 50 first
SINKS = (-2.0, 0.0, 2.0, 4.0)  # - and + step one sink logit for every head through them


@dataclass(frozen=True)
class Frame:
    """What the input fixes and the keys cannot change: how many tokens, d_model, and which
    knobs apply (a typed sentence has a length to change; given W have a fixed d_k)."""

    tokens: int
    d_model: int | None  # None when Q, K, V were given
    sentence: bool  # the embeddings are attn's own (their length can change)
    given_w: bool  # W^Q, W^K, W^V come from the document (their d_k is theirs)
    direct: bool = False  # Q, K, V given: no X, no projections to switch
    layers: int | None = None  # with --model: the model's layers and heads per layer
    model_heads: int | None = None


@dataclass(frozen=True)
class State:
    """The lesson's knobs, the grid shown and the cursor."""

    projections: bool = True
    scale: bool = True
    causal: bool = False
    heads: int = 1  # 1: one head without W^O, as attn selfattn without --heads
    d_k: int | None = None  # None: d_model / heads
    norm_step: int = 0  # the embeddings' length is --norm (or √d_model) · 2^(step / 2)
    seed: int = 0
    lang: str = "en"
    grid: str = "weights"  # or "scores"
    head: int = 1  # the head shown, 1-based
    layer: int | None = None  # with --model: the layer shown, 1-based; None: the last
    words: bool = False  # with --model: word pieces merged into words
    positions: bool = False  # rotary positions (RoPE) on
    window: int | None = None  # the sliding window W; None: every key in reach
    alibi: bool = False
    qk_norm: bool = False  # each head's q and k RMSNormed before the score
    softcap: float | None = None  # cap · tanh(score ÷ cap); None: no cap
    sink: float | None = None  # every head's sink logit, one more softmax column; None: none
    row: int = 0
    column: int = 0


# The layer's knobs in the order the explorer lists them; their keys are the layer's
# declaration's (layer.SelfAttnSettings: `knob=`), read here once.
LAYER_KNOBS = (
    "projections",
    "scale",
    "causal",
    "heads",
    "norm",
    "seed",
    "d_k",
    "positions",
    "window",
    "alibi",
    "qk_norm",
    "softcap",
    "sinks",
)


def knob_keys(name: str) -> tuple[str, ...]:
    """The keys of a layer knob, as the declaration gives them (a pair: down, up)."""
    from attncli.layer import knobs

    return tuple(key for key in knobs()[name].keys if key)


def knob_label(name: str) -> str:
    """The keys as the help overlay writes them: "p", "h / H" (the lower case first)."""
    return " / ".join(sorted(knob_keys(name), key=str.isupper))


def _layer_keys() -> dict[str, tuple[str, int]]:
    """key -> (the setting it turns, its step: 0 switches, -1 and +1 step down and up)."""
    from attncli.layer import knobs

    declared, keys = knobs(), {}
    for name in LAYER_KNOBS:
        knob = declared[name]
        if knob.switch:
            keys[knob.keys[0]] = (name, 0)
            continue
        down, up = knob.keys
        keys.update({key: (name, step) for key, step in ((down, -1), (up, +1)) if key})
    return keys


# key -> (action, argument): the layer's knobs, then the explorer's own keys.
KEYS: dict[str, tuple[str, int]] = {
    **_layer_keys(),
    "v": ("grid", 0),
    "{": ("head", -1),
    "}": ("head", +1),
    "l": ("lang", 0),
    "[": ("layer", -1),
    "]": ("layer", +1),
    "w": ("words", 0),
    "up": ("move", 0),
    "down": ("move", 1),
    "left": ("move", 2),
    "right": ("move", 3),
    "home": ("move", 4),
    "end": ("move", 5),
}


def divisors(number: int) -> list[int]:
    """The head counts d_model splits into evenly: 1, 2, 4, 8 for 8."""
    return [h for h in range(1, number + 1) if number % h == 0]


def press(state: State, key: str, frame: Frame) -> tuple[State, tuple[str, dict] | None]:
    """The state after `key`, and a note for the status line (a phrase key and its fields)
    when the key changed nothing or needs saying; keys it does not know change nothing."""
    if key not in KEYS:
        return state, None
    action, step = KEYS[key]
    if frame.layers is not None and action in SEEDED_ONLY:
        seeded = " ".join(key for name in LAYER_KNOBS for key in knob_keys(name))
        return state, ("model_own", {"keys": seeded})
    if frame.layers is None and action in ("layer", "words"):
        return state, ("model_keys", {})
    return _ACTIONS[action](state, step, frame)


# The knobs of the seeded layer; a model's layer has its own projections, scale and sizes.
SEEDED_ONLY = frozenset(LAYER_KNOBS)


def _projections(state: State, _step: int, frame: Frame) -> tuple[State, tuple[str, dict] | None]:
    if frame.direct:
        return state, ("no_x", {})
    return replace(state, projections=not state.projections, d_k=None), None


def _scale(state: State, _step: int, _frame: Frame) -> tuple[State, tuple[str, dict] | None]:
    return replace(state, scale=not state.scale), None


def _causal(state: State, _step: int, _frame: Frame) -> tuple[State, tuple[str, dict] | None]:
    return replace(state, causal=not state.causal), None


def _heads(state: State, step: int, frame: Frame) -> tuple[State, tuple[str, dict] | None]:
    width = frame.d_model if frame.d_model is not None else None
    if width is None or not state.projections:
        return state, ("heads_need_w", {})
    choices = divisors(width)
    index = choices.index(state.heads) if state.heads in choices else 0
    moved = min(max(index + step, 0), len(choices) - 1)
    if moved == index:
        edge = "heads_most" if step > 0 else "heads_least"
        return state, (edge, {"heads": choices[index], "d_model": width})
    return replace(state, heads=choices[moved], d_k=None, head=1), None


def _norm(state: State, step: int, frame: Frame) -> tuple[State, tuple[str, dict] | None]:
    if not frame.sentence:
        return state, ("norm_given", {})
    moved = min(max(state.norm_step + step, -NORM_STEPS), NORM_STEPS)
    if moved == state.norm_step:
        return state, ("norm_edge", {})
    return replace(state, norm_step=moved), None


def _seed(state: State, step: int, frame: Frame) -> tuple[State, tuple[str, dict] | None]:
    if not frame.sentence and frame.given_w:
        return state, ("seed_given", {})
    return replace(state, seed=state.seed + step), None


def _d_k(state: State, step: int, frame: Frame) -> tuple[State, tuple[str, dict] | None]:
    if frame.d_model is None or not state.projections:
        return state, ("d_k_fixed", {})
    current = state.d_k if state.d_k is not None else frame.d_model // state.heads
    moved = min(max(current + step, 1), MAX_D_K)
    if moved == current:
        return state, ("d_k_edge", {"d_k": current, "most": MAX_D_K})
    # The layer refuses a d_k its given W cannot have; the status line says so.
    return replace(state, d_k=moved), None


def _positions(state: State, _step: int, _frame: Frame) -> tuple[State, tuple[str, dict] | None]:
    return replace(state, positions=not state.positions), None


def _window(state: State, step: int, frame: Frame) -> tuple[State, tuple[str, dict] | None]:
    """Narrower or wider by one key; a window of T or more keys is no window (|i − j| < W
    holds for every pair), so widening T − 1 takes it off, and narrowing none gives T − 1."""
    if state.window is None and step > 0:
        return state, ("window_none", {})
    moved = frame.tokens - 1 if state.window is None else min(state.window, frame.tokens) + step
    if moved < 1:
        return state, ("window_edge", {})
    return replace(state, window=None if moved >= frame.tokens else moved), None


def _alibi(state: State, _step: int, _frame: Frame) -> tuple[State, tuple[str, dict] | None]:
    return replace(state, alibi=not state.alibi), None


def _qk_norm(state: State, _step: int, _frame: Frame) -> tuple[State, tuple[str, dict] | None]:
    return replace(state, qk_norm=not state.qk_norm), None


def _softcap(state: State, step: int, _frame: Frame) -> tuple[State, tuple[str, dict] | None]:
    """A tighter cap (step −1) or a looser one, through SOFTCAPS; looser than the loosest is
    no cap, and tighter than none is the loosest."""
    if state.softcap is None:
        if step > 0:
            return state, ("softcap_none", {})
        return replace(state, softcap=SOFTCAPS[0]), None
    index = SOFTCAPS.index(state.softcap) - step  # tighter: further along the list
    if index >= len(SOFTCAPS):
        return state, ("softcap_edge", {"cap": int(SOFTCAPS[-1])})
    return replace(state, softcap=None if index < 0 else SOFTCAPS[index]), None


def _sinks(state: State, step: int, _frame: Frame) -> tuple[State, tuple[str, dict] | None]:
    """A higher sink logit (step +1: more of each row's weight dropped) or a lower one,
    through SINKS; lower than the lowest is no sink."""
    if state.sink is None:
        if step < 0:
            return state, ("sink_none", {})
        return replace(state, sink=SINKS[0]), None
    index = SINKS.index(state.sink) + step
    if index >= len(SINKS):
        return state, ("sink_edge", {"sink": int(SINKS[-1])})
    return replace(state, sink=None if index < 0 else SINKS[index]), None


def _grid(state: State, _step: int, _frame: Frame) -> tuple[State, tuple[str, dict] | None]:
    if state.words:
        return state, ("words_weights", {})
    return replace(state, grid="scores" if state.grid == "weights" else "weights"), None


def _head(state: State, step: int, frame: Frame) -> tuple[State, tuple[str, dict] | None]:
    heads = frame.model_heads or state.heads
    moved = min(max(state.head + step, 1), heads)
    if heads == 1:
        return state, ("one_head", {})
    if moved == state.head:
        return state, ("head_edge", {"heads": heads})
    return replace(state, head=moved), None


def _layer(state: State, step: int, frame: Frame) -> tuple[State, tuple[str, dict] | None]:
    last = frame.layers or 1
    current = state.layer or last
    moved = min(max(current + step, 1), last)
    if moved == current:
        return state, ("layer_edge", {"layers": last})
    return replace(state, layer=moved), None


def _words(state: State, _step: int, _frame: Frame) -> tuple[State, tuple[str, dict] | None]:
    return replace(state, words=not state.words, grid="weights"), None


def _lang(state: State, _step: int, _frame: Frame) -> tuple[State, tuple[str, dict] | None]:
    return replace(state, lang="es" if state.lang == "en" else "en"), None


def _move(state: State, way: int, frame: Frame) -> tuple[State, tuple[str, dict] | None]:
    last = frame.tokens - 1
    row, column = state.row, state.column
    if way == 0:
        row -= 1
    elif way == 1:
        row += 1
    elif way == 2:
        column -= 1
    elif way == 3:
        column += 1
    elif way == 4:
        column = 0
    else:
        column = last
    return replace(state, row=min(max(row, 0), last), column=min(max(column, 0), last)), None


_ACTIONS = {
    "projections": _projections,
    "scale": _scale,
    "causal": _causal,
    "heads": _heads,
    "norm": _norm,
    "seed": _seed,
    "d_k": _d_k,
    "positions": _positions,
    "window": _window,
    "alibi": _alibi,
    "qk_norm": _qk_norm,
    "softcap": _softcap,
    "sinks": _sinks,
    "grid": _grid,
    "head": _head,
    "lang": _lang,
    "move": _move,
    "layer": _layer,
    "words": _words,
}


def fitted(state: State, frame: Frame) -> State:
    """The state with its cursor inside a grid of `frame.tokens` (after a new sentence)."""
    last = max(frame.tokens - 1, 0)
    return replace(state, row=min(state.row, last), column=min(state.column, last))


def valid(state: State, frame: Frame) -> bool:
    """What every reachable state satisfies (the random key sequences are held to it)."""
    return (
        0 <= state.row < max(frame.tokens, 1)
        and 0 <= state.column < max(frame.tokens, 1)
        and 1 <= state.head <= (frame.model_heads or state.heads)
        and (state.layer is None or 1 <= state.layer <= (frame.layers or 0))
        and (frame.d_model is None or frame.d_model % state.heads == 0)
        and (state.d_k is None or 1 <= state.d_k <= MAX_D_K)
        and abs(state.norm_step) <= NORM_STEPS
        and (state.softcap is None or state.softcap in SOFTCAPS)
        and (state.sink is None or state.sink in SINKS)
        and state.lang in ("en", "es")
        and state.grid in ("weights", "scores")
    )
