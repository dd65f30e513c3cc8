"""The self-attention layer's settings, declared once: every choice that shapes its
computation, with what it means (an English msgid) and how the command line spells it.

The command line's options (cli/commands/layer_options.py), the Python API's keywords
(api/selfattn.selfattn) and the explorer's knobs (explore/state.py's keys,
explore/session.py's settings) all come from this one declaration. A field is typed as
what it means: the divisor is "sqrt", a number or None; causal is True, False or None (the
layer's own: a GPT-2 checkpoint's is causal).
"""

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

from attncli.messages import _
from attncli.settings import Needs, Real, check_declared, check_real, refuse_unknown, setting

# The document fields that hold a T × T grid (see grids_needed).
GRID_FIELDS = frozenset({"raw_scores", "scores", "weights", "weights_mean"})
SQRT = "sqrt"  # the divisor √d_k, per head
POSITIONS = (None, "sinusoidal", "rope")  # --positions: none, added to X, or rotary
ROPE_BASE = 10000.0  # the rotary angles' base, as Llama's rope_theta


@dataclass(frozen=True)
class Knob:
    """How the explorer turns a setting: one key switches it between `on` and `off`; two
    keys step it down and up (through the values the explorer allows for it)."""

    keys: tuple[str, ...]
    on: Any = True
    off: Any = False

    @property
    def switch(self) -> bool:
        return len(self.keys) == 1


@dataclass(frozen=True, kw_only=True)
class SelfAttnSettings:
    """What shapes the self-attention layer's computation (attn selfattn's options)."""

    context: str | None = setting(
        None,
        _("Cross-attention: the keys and values come from this sentence, the queries from "
          "the first."),
        option="--context",
        metavar=_("SENTENCE"),
    )  # fmt: skip
    d_model: int | None = setting(
        None,
        _("Numbers per token embedding. [default: 8]"),
        option="--d-model",
        metavar="N",
        min=1,
    )
    d_k: int | None = setting(
        None,
        _("Columns of W^Q and W^K (per head). [default: d_model / h]"),
        option="--d-k",
        metavar="N",
        min=1,
        knob=Knob(("d", "D")),
    )
    d_v: int | None = setting(
        None,
        _("Columns of W^V (per head). [default: d_model / h]"),
        option="--d-v",
        metavar="N",
        min=1,
    )
    norm: float | None = setting(
        None,
        _("Length of every token embedding. [default: √d_model, so each number is about ±1]"),
        option="--norm",
        knob=Knob(("n", "N")),  # in steps of √2 (explore/state.py's norm_step)
        real=Real(0),
    )
    seed: int = setting(
        0,
        _("Seed for the embeddings and projections."),
        option="--seed",
        knob=Knob(("", "r")),  # r draws the next seed; there is no key back
        min=0,
        max=2**64 - 1,
    )
    draw_missing: bool = setting(
        False,
        _("With -i FILE giving some of w_q, w_k, w_v, w_o: draw the others from --seed "
          "(without it, a missing one is an error)."),
        option="--draw-missing",
    )  # fmt: skip
    add_zero_attn: bool = setting(
        False,
        _("As torch's add_zero_attn: a zero key and value row per head, after the tokens' "
          "(a state dict does not record it)."),
        option="--add-zero-attn",
    )  # fmt: skip
    dtype: str = setting(
        "float64",
        _("The type the layer is computed in, from the inputs on (projections, scores, "
          "softmax, mix, gradients); float32 agrees with torch's float32 to about 1e-6, "
          "not bit for bit."),
        option="--dtype",
        metavar="float32|float64",
        choices=("float32", "float64"),
    )  # fmt: skip
    projections: bool = setting(
        True,
        flags=(("--no-proj", False, _("No projections: Q = K = V = X.")),),
        knob=Knob(("p",)),
    )
    # "sqrt": divide the scores by √d_k; a number: by it; None: not at all
    scale: float | str | None = setting(
        SQRT,
        _("Divide the scores by S instead of √d_k."),
        option="--scale",
        metavar="S",
        flags=(("--no-scale", None, _("Do not divide the scores by √d_k.")),),
        knob=Knob(("s",), on=SQRT, off=None),
    )
    # True: each position sees itself and the ones before it; False: every position; None:
    # the layer's own (a GPT-2 checkpoint's layer is causal, any other not)
    causal: bool | None = setting(
        None,
        flags=(
            ("--causal", True, _("Each position sees only itself and earlier ones.")),
            ("--no-causal", False,
             _("A GPT-2 layer without its causal mask: every token sees every other (GPT-2's "
               "attention is causal by itself).")),
        ),
        knob=Knob(("c",), on=True, off=None),  # off: the layer's own (a GPT-2 layer is causal)
    )  # fmt: skip
    valid_len: int | None = setting(
        None,
        _("Only the first N keys are real; the rest is padding, masked for every query."),
        option="--valid-len",
        metavar="N",
    )
    window: int | None = setting(
        None,
        _("Sliding window: each query sees only the keys within W positions (with --causal, "
          "itself and the W − 1 before it, as Mistral's sliding_window)."),
        option="--window",
        metavar="W",
        min=1,
        knob=Knob(("<", ">")),  # narrower / wider, from T − 1 down to 1; wider than T − 1: none
    )  # fmt: skip
    alibi: bool = setting(
        False,
        flags=(("--alibi", True,
                _("ALiBi (Press et al.): add −m·|i − j| to each head's scores, its slope m "
                  "2^(−8h/H) as transformers' build_alibi_tensor.")),),
        knob=Knob(("a",)),
    )  # fmt: skip
    heads: int | None = setting(
        None,
        _("h heads (of d_model / h columns each unless --d-k/--d-v), joined, then W^O."),
        option="--heads",
        metavar="H",
        min=1,
        knob=Knob(("H", "h")),  # through the divisors of d_model
    )
    kv_heads: int | None = setting(
        None,
        _("With --heads H: G key/value heads, each read by H/G query heads (grouped-query, "
          "as Llama 2 70B and Mistral; 1: multi-query). W^K and W^V have G heads' columns."),
        option="--kv-heads",
        metavar="G",
        min=1,
        needs=Needs(_("the number of key/value heads a group of query heads reads"),
                    (("heads", None),)),
    )  # fmt: skip
    out_proj: bool = setting(
        True, flags=(("--no-out-proj", False, _("With --heads: join the heads without W^O.")),)
    )
    positions: str | None = setting(
        None,
        _("Give the layer the order of the words: sinusoidal adds Vaswani et al.'s encoding "
          "to X; rope turns each query and key by its position (rotary, as Llama), inside "
          "the score."),
        option="--positions",
        knob=Knob(("o",), on="rope", off=None),  # rotary on, or no positions
        choices=POSITIONS,
    )  # fmt: skip
    rope_base: float = setting(
        ROPE_BASE,
        _("With --positions rope: the base of the rotary angles, pair i turning by "
          "position · base^(−2i/d_k) (a model's rope_theta)."),
        option="--rope-base",
        metavar="B",
        real=Real(1),  # base^(−2i/d_k) turns slower for each pair only above 1
        needs=Needs(_("the base of rotary positions' angles"), (("positions", "rope"),)),
    )  # fmt: skip
    rope_scaling: str | None = setting(
        None,
        _("With --positions rope: scale the rotary frequencies as a long-context model's "
          "rope_scaling does, TYPE:FACTOR[:L], L the length it was trained on [default: "
          "8192]: linear, dynamic, yarn or llama3, as transformers computes them; longrope "
          "also takes each pair's short and long factors, longrope:FACTOR:L:S1,S2,…:L1,L2,…. "
          "E.g. --positions rope --rope-scaling yarn:4:4"),
        option="--rope-scaling",
        metavar="TYPE:FACTOR[:L]",
        needs=Needs(_("a scaling of the rotary positions' frequencies"), (("positions", "rope"),)),
    )  # fmt: skip
    qk_norm: bool = setting(
        False,
        flags=(("--qk-norm", True,
                _("QK-norm (Qwen3, OLMo 2, Gemma 3): each head's q and k RMSNormed, q ÷ "
                  "√(mean(q²) + 1e-6) with weights of ones, before the rotation and the "
                  "score.")),),
        knob=Knob(("k",)),
    )  # fmt: skip
    softcap: float | None = setting(
        None,
        _("Softcap the scores, as Gemma 2 (attn_logit_softcapping, 50 there): each score, "
          "after its division, becomes CAP · tanh(score ÷ CAP) before the softmax, never past "
          "±CAP. E.g. --softcap 2"),
        option="--softcap",
        metavar="CAP",
        knob=Knob(("(", ")")),  # tighter / looser, through explore/state.py's SOFTCAPS
        real=Real(0, infinite=True),  # +∞: no cap, its limit
    )  # fmt: skip
    sinks: tuple[float, ...] | None = setting(
        None,
        _("Learned attention sinks, as gpt-oss: a logit per head, one more column of each "
          "row's softmax that takes weight and is dropped, so the row sums to less than 1 "
          "over the keys. One number for every head, or one per head: --sinks 0.5, or with "
          "--heads 4, --sinks 0.5,-1,2,0"),
        option="--sinks",
        metavar="S[,S…]",
        knob=Knob(("-", "+")),  # one sink for every head, through explore/state.py's SINKS
    )  # fmt: skip
    latent_rank: int | None = setting(
        None,
        _("With --heads: multi-head latent attention (DeepSeek-V2/V3's MLA): each token's "
          "keys and values read back from a latent of R numbers, c_KV = RMSNorm(x W^DKV) "
          "(weights of ones), k_h = c_KV W^UK_h, v_h = c_KV W^UV_h, W^DKV, W^UK and W^UV "
          "drawn from --seed; the cache keeps R numbers a token instead of h · (d_k + d_v). "
          "With --positions rope, DeepSeek's decoupled rotary key beside them. E.g. --heads 2 "
          "--latent-rank 3"),
        option="--latent-rank",
        metavar="R",
        min=1,
        # what the seeded latent layer does not do: QK-norm (its keys would no longer be
        # linear in c_KV), grouped heads, cross-attention and a zero key; W^DKV is a projection
        needs=Needs(_("the size of the latent each head reads its keys and values from"),
                    (("heads", None),),
                    (("projections", False), ("qk_norm", True), ("kv_heads", None),
                     ("context", None), ("add_zero_attn", True))),
    )  # fmt: skip
    rope_dim: int | None = setting(
        None,
        _("With --latent-rank and --positions rope: the decoupled rotary key's numbers, an "
          "even number (DeepSeek-V3: 64 beside a d_k of 128). Each head's query gains d_rope "
          "numbers, q^R = RoPE(x W^QR), every head's key the one k^R = RoPE(x W^KR), the "
          "scores are divided by √(d_k + d_rope) and the cache keeps R + d_rope numbers a "
          "token. [default: d_k ÷ 2 rounded down to even, at least 2]"),
        option="--rope-dim",
        metavar="D",
        min=2,
        needs=Needs(_("the width of a latent layer's decoupled rotary key"),
                    (("latent_rank", None), ("positions", "rope"))),
    )  # fmt: skip
    grids: bool = True  # False: only the output is wanted, computed in row blocks

    def __post_init__(self) -> None:
        """What the command line's types and ranges refuse, refused here too, so that the
        Python API's keywords cannot ask for what the command line cannot (window=0 would
        mask every key): each field as its declaration says (settings.check_declared: the
        sizes 1 or more, a known kind of positions and dtype, a positive norm, …), a divisor
        that is a positive number, a softcap not with ALiBi and a sink logit for every
        head. What a setting needs beside it (a rotary base, rotary positions) is held
        where the seeded layer is read (settings.check_needs)."""

        check_declared(self)
        self._check_scale()
        self._check_softcap()
        self._read_sinks()

    def _check_scale(self) -> None:
        """The divisor: "sqrt" (√d_k), None (none) or a positive finite number."""

        from attncli.errors import OptionError
        from attncli.messages import Setting

        scale = self.scale
        if scale == SQRT or scale is None:
            return
        if isinstance(scale, bool) or not isinstance(scale, (int, float)):
            raise OptionError(
                _("scale is {scale}; expected True (√d_k), False (none) or a number"), scale=scale
            )
        check_real(Setting("scale", scale), Real(0))

    def _check_softcap(self) -> None:
        """The softcap (a number above 0 or +∞, no cap, by its declaration) not with
        ALiBi, whose distances the cap would have to come before (no model softcaps them)."""
        import math

        from attncli.errors import OptionError
        from attncli.messages import Setting

        cap = self.softcap
        if cap is not None and self.alibi and math.isfinite(cap):
            raise OptionError(
                _("{softcap} with {alibi}: the cap comes before any bias is added, and no "
                  "model softcaps ALiBi's scores; give one of them"),
                softcap=Setting("softcap", cap),
                alibi=Setting("alibi", True),
            )  # fmt: skip

    def _read_sinks(self) -> None:
        """The sinks as a tuple of numbers: from the command line's text (0.5 or
        0.5,-1,2,0), a number or a sequence of them; one for every head, or one per head
        (--heads); none NaN or +∞ (−∞ is no sink)."""
        import math

        from attncli.errors import OptionError, count
        from attncli.messages import Setting

        given = self.sinks
        if given is None:
            return
        words: list[Any]
        if isinstance(given, str):
            words = [word.strip() for word in given.split(",")]
        elif isinstance(given, (int, float)) and not isinstance(given, bool):
            words = [given]
        else:
            try:
                words = list(given)
            except TypeError:
                words = [given]
        read = []
        for word in words:
            try:
                value = float(word) if not isinstance(word, bool) else math.nan
            except (TypeError, ValueError):
                value = math.nan
            if math.isnan(value) or value == math.inf:
                raise OptionError(
                    _("{option}: {value} is not a sink logit; give a number for every head, "
                      "or one per head separated by commas, e.g. 0.5,-1"),
                    option=Setting("sinks"),
                    value=str(word)[:40],
                )  # fmt: skip
            read.append(value)
        heads = self.heads or 1
        if len(read) not in (1, heads):
            raise OptionError(
                _("{option} gives {count} sink logits; the layer has {heads}: give one for "
                  "every head, or one per head"),
                option=Setting("sinks"),
                count=len(read),
                heads=count(heads, "head"),
            )  # fmt: skip
        object.__setattr__(self, "sinks", tuple(read))  # frozen: read once, here

    @property
    def scale_by(self) -> float | None:
        """The divisor when it is a number of the user's (--scale S), else None."""
        return None if self.scale is None or self.scale == SQRT else float(self.scale)

    def changed(self) -> list[str]:
        """The fields whose value is not the default, in the declaration's order."""
        return list(self.given())

    def given(self) -> dict[str, Any]:
        """The fields whose value is not the default, by name, in the declaration's order:
        the keywords attncli.selfattn would be given for these settings."""
        return {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if getattr(self, f.name) != f.default
        }

    def command_line(self) -> list[str]:
        """What a command line gives for each field that is not the default, as the
        declaration spells it: the flag that sets its value (--no-scale, --causal,
        --no-causal), else its option and the value (--heads 4, --positions rope)."""
        said = []
        for declared in fields(self):
            value = getattr(self, declared.name)
            if value == declared.default:
                continue
            meta = declared.metadata
            flag = next((f for f, set_to, _help in meta.get("flags", ()) if set_to == value), None)
            if flag is not None:
                said.append(flag)
            elif isinstance(value, tuple):  # --sinks 0.5,-1
                said.append(f"{meta['option']} {','.join(map(str, value))}")
            elif meta.get("option"):
                said.append(f"{meta['option']} {value}")
        return said


def knobs() -> dict[str, Knob]:
    """The explorer's knobs, by setting, in the declaration's order."""
    return {f.name: f.metadata["knob"] for f in fields(SelfAttnSettings) if f.metadata.get("knob")}


# The Python API's spellings of the command line's flag pairs, kept as keywords: each
# sets one field (scale_by=S is scale=S; no_causal=True is causal=False).
ALIASES = {"scale_by": "scale", "no_causal": "causal"}
OPPOSITE = _("{first} and {second} ask for opposite things; give one")


def not_with_model(name: Any) -> Exception:
    """The one refusal of a seeded layer's setting beside a pretrained model: `name` as the
    surface writes it (an option on the command line, `--heads`; a keyword in Python,
    `heads`; or an OnSurface of both)."""
    from attncli.errors import OptionError
    from attncli.messages import OnSurface

    return OptionError(
        _(
            "{name} shapes the seeded layer and does not apply with {model}, whose tokenizer, "
            "sizes and weights are the model's own; leave it out"
        ),
        name=name,
        model=OnSurface("--model", "model="),
    )


def settings_from_keywords(function: Callable[..., Any], /, **given: Any) -> SelfAttnSettings:
    """The settings the Python API's keywords ask for: the fields by name, scale=True or
    False as √d_k or no division, and the aliases scale_by= and no_causal=; an unknown
    keyword is refused, naming the `function` it was given to and the closest of its
    keywords (the settings and the function's own), if one is close (positional only, so
    that a keyword function= is refused as unknown like any other)."""
    from attncli.errors import OptionError
    from attncli.messages import Setting

    refuse_unknown(function, given, [*(f.name for f in fields(SelfAttnSettings)), *ALIASES])
    settings = dict(given)
    scale = settings.get("scale", SQRT)
    if isinstance(scale, bool):
        scale = SQRT if scale else None
    scale_by, no_causal = settings.pop("scale_by", None), settings.pop("no_causal", False)
    opposite = (
        (scale_by is not None and scale is None,
         Setting("scale_by", scale_by, "--scale"), Setting("scale", False)),
        (no_causal and settings.get("causal"), Setting("causal", True), Setting("no_causal", True)),
    )  # fmt: skip
    for both, first, second in opposite:
        if both:
            raise OptionError(OPPOSITE, first=first, second=second)
    settings["scale"] = scale if scale_by is None else scale_by
    if "dtype" in settings:
        settings["dtype"] = dtype_name(settings["dtype"])
    if no_causal:
        settings["causal"] = False
    return SelfAttnSettings(**settings)


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
