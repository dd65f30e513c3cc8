"""What this year's layers add to the seeded layer's scores, checked against the rest of its
inputs: QK-norm (--qk-norm), a scaled rotary turn (--rope-scaling), softcapped scores
(--softcap), learned sinks (--sinks) and latent attention (--latent-rank, its rotary key
--rope-dim), as grouped heads and rotary positions, have no backward pass in attn yet, and a
softcap comes before any bias a float attn_mask adds."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from attncli.errors import InputError, OptionError
from attncli.messages import OnSurface, Setting, _

if TYPE_CHECKING:
    from attncli.layer import SelfAttnSettings


def asked(settings: SelfAttnSettings | Any) -> list[Setting | OnSurface]:
    """The settings of this year's layers that a run asks for (or that a result was computed
    with: a SelfAttnResult has the same four fields), as the surface spells them."""
    said: list[Setting | OnSurface] = []
    if settings.qk_norm:
        said.append(Setting("qk_norm", True))
    if settings.rope_scaling is not None:
        said.append(Setting("rope_scaling", settings.rope_scaling))
    if settings.softcap is not None:
        said.append(Setting("softcap", settings.softcap))
    if settings.sinks is not None:
        sinks = settings.sinks  # --sinks 0.5,-1 on the command line, sinks=(0.5, -1.0) in Python
        said.append(OnSurface(Setting("sinks", ",".join(map(str, sinks))), Setting("sinks", sinks)))
    if getattr(settings, "latent_rank", None) is not None:
        said.append(Setting("latent_rank", settings.latent_rank))
    return said


def without_backward(settings: SelfAttnSettings) -> list[Setting | OnSurface]:
    """What the layer asks for that has no backward pass in attn yet, as the surface spells
    it: grouped heads, rotary positions, QK-norm, a scaled turn, a softcap, sinks or a
    latent; the gradients would be the plain layer's, not this one's, so a gradient given
    beside them is refused with the fields the layer would not use (fields.UNUSED)."""
    said: list[Setting | OnSurface] = []
    if settings.kv_heads is not None:  # its gradients are not summed over a group yet
        said.append(Setting("kv_heads", settings.kv_heads))
    if settings.positions == "rope":
        said.append(Setting("positions", "rope"))
    return said + asked(settings)


def check_capped_bias(settings: SelfAttnSettings, biased: bool) -> None:
    """A softcap with a float attn_mask (or key_padding_mask) added to the scores: the cap
    comes before the mask is added, as transformers caps Gemma 2's, and attn's steps show
    the bias with the score it caps; refused rather than shown in the wrong order."""
    if biased and settings.softcap is not None:
        raise InputError(
            _("{softcap} with a float attn_mask or key_padding_mask: the cap comes before "
              "what they add to the scores; give a boolean mask instead, or leave out "
              "{softcap}"),
            softcap=Setting("softcap", settings.softcap),
        )  # fmt: skip


def refuse_replay(settings: SelfAttnSettings | Any, option: object) -> None:
    """A replay of the layer (--kv-cache, --tiles, --heads-sum) computes plain scores and a
    plain softmax from x W^Q and x W^K: a layer with QK-norm, a softcap or sinks would be
    replayed into other numbers than its own, so it is refused (`option` as the surface
    names the replay)."""
    said = asked(settings)
    if said:
        raise OptionError(
            _("{option} replays the plain layer; {setting} changes its scores, which the "
              "replay does not do yet: leave out one of them"),
            option=option,
            setting=said[0],
        )  # fmt: skip


def check_latent(settings: SelfAttnSettings) -> None:
    """A latent layer's rotary key, --rope-dim, is even (the settings the seeded latent
    layer does not do are its declaration's, layer.SelfAttnSettings.latent_rank, held by
    settings.check_needs; what it leaves unused of the inputs, fields.UNUSED)."""
    from attncli.reading.check.positions import turned_in_pairs

    if settings.rope_dim is not None:
        turned_in_pairs("d_rope", settings.rope_dim, Setting("rope_dim"))


def check_latent_batch(settings: SelfAttnSettings, batched: bool) -> None:
    """The latent layer takes one sequence (core/latent.py's rows are a sequence's)."""
    if batched and settings.latent_rank is not None:
        raise InputError(
            _("{latent} takes one sequence, not a batch, yet; give one sequence or leave out "
              "{latent}"),
            latent=Setting("latent_rank", settings.latent_rank),
        )  # fmt: skip


def latent_rotary_key(settings: SelfAttnSettings, d_k: int) -> tuple[int, int] | None:
    """A latent layer's decoupled rotary key, (h, d_rope), with --positions rope: --rope-dim,
    or half a head's d_k rounded down to even and at least 2 (DeepSeek-V3: 64 of 128)."""
    if settings.positions != "rope" or settings.heads is None:
        return None
    per_head = d_k // settings.heads
    return settings.heads, settings.rope_dim or max(2, per_head // 4 * 2)
