"""The explorer's own words, English and Spanish (the grids' and steps' words are
attncli.present.language's, the same as attn selfattn's)."""

from __future__ import annotations

from attncli.messages import _
from attncli.present.language import shown_in

# key -> the English msgid (its translations: locale/); {name} fields are filled by say().
WORDS: dict[str, str] = {
    "title": _("attn explore"),
    "sentence_hint": _("a sentence; Enter computes, Esc goes back to the grid"),
    "document_hint": _("-i {path}; / and a sentence attend over the sentence instead"),
    "on": _("on"),
    "off": _("off"),
    "knob.projections": _("p projections {value}"),
    "knob.scale": _("s ÷√d_k {value}"),
    "knob.causal": _("c causal {value}"),
    "knob.heads": _("h/H heads {value}"),
    "knob.head": _("{{/}} head {value}"),
    "knob.norm": _("n/N length {value}"),
    "knob.d_k": _("d/D d_k {value}"),
    "knob.seed": _("r seed {value}"),
    "knob.positions": _("o rotary {value}"),
    "knob.window": _("</> window {value}"),
    "knob.alibi": _("a ALiBi {value}"),
    "knob.qk_norm": _("k QK-norm {value}"),
    "knob.softcap": _("(/) softcap {value}"),
    "knob.sink": _("-/+ sink logit {value}"),
    "knob.sink_rate": _("sink rate (first token) {value}"),
    "knob.grid": _("v {value}"),
    "grid.weights": _("weights"),
    "grid.scores": _("scores"),
    "knob.help": _("? keys"),
    "cell": _("{row} → {column}: row {i}, column {j}"),
    "cell_masked": _("masked (causal): {row} does not look at later tokens; its weight is 0"),
    "mix_term": _("from {column}"),
    "enter_hint": _("Enter: the row's three steps (score, softmax, mix)"),
    "not_shown": _(
        "column {j} is not drawn (the grid is wider than the screen); its numbers are here"
    ),
    # notes after a key
    "no_x": _("Q, K and V are given: there is no X to project"),
    "heads_need_w": _("heads split the projections: switch them on (p)"),
    "heads_most": _("{heads} heads is the most d_model = {d_model} splits into"),
    "heads_least": _("one head is the least"),
    "norm_given": _("the embeddings' length belongs to a typed sentence; this X is the document's"),
    "norm_edge": _("that is as far as the length goes"),
    "seed_given": _("W^Q, W^K, W^V are the document's: no seed draws them"),
    # under the grid while the seed draws the W: why the lesson's «están» → «llaves» is not
    # on screen, and where to see it
    "drawn_note": _(
        "These W are random (seed {seed}), not trained: no row means anything yet. The "
        "lesson's grid: attn explore -i llaves; W learned: attn train"
    ),
    "d_k_fixed": _("d_k is d_model without projections (Q = K = V = X)"),
    "d_k_edge": _("d_k goes from 1 to {most}"),
    "window_none": _("no window: every query already sees every key; < narrows it"),
    "softcap_none": _("no softcap: the scores are as they are; ( caps them at 50, then tighter"),
    "softcap_edge": _("the tightest cap here is {cap}: every score within ±{cap}"),
    "sink_total": _("+ sink e^{sink}"),
    "sink_none": _("no sink: each row's weights sum to 1; + adds one of -2, then higher"),
    "sink_edge": _("the highest sink here is {sink}: most of each row's weight goes to it"),
    "window_edge": _("the narrowest window is 1: each query sees only its own key"),
    "head_edge": _("there are {heads} heads"),
    "one_head": _("one head: {{ and }} pick a head when there are more (h)"),
    "model_keys": _("[ ] and w need --model (a real model's layers; its word pieces or words)"),
    "model_own": _(
        "the model's layer is its own: {keys} shape the seeded layer ([ ] {{ }} w here)"
    ),
    "layer_edge": _("the model has {layers} layers"),
    "words_weights": _(
        "between words there are only weights (merged from the pieces'); w: back to the pieces"
    ),
    "knob.layer": _("[ ] layer {value}"),
    "knob.words": _("w {value}"),
    "words.on": _("words"),
    "words.off": _("word pieces"),
    "word_cell": _(
        "{row} → {column}: the mean over {row}'s pieces of the sum over {column}'s pieces"
    ),
    "word_enter": _(
        "Enter and the cell's arithmetic are a token's: w goes back to the word pieces"
    ),
    "exported": _("wrote {path}"),
    "state_written": _("wrote {path}: attn selfattn -i {path}{options} reads it back"),
    "export_prompt": _("export the view to (.svg .html .txt .md .tex); Enter writes, Esc cancels"),
    "internal": _("internal error (a bug in attn): {error}"),
    # the chain
    "chain_query": _("query"),
    "chain_key": _("key {token}"),
    "chain_status": _(
        "/ or Tab: edit the query and the keys (the tables follow as you type; Enter or Esc: "
        "back) · l en/es · e export · j save · ? keys · q quit"
    ),
    "chain_written": _(
        "wrote {path}: attn score -i {path} | attn softmax | attn mix --steps reads it back"
    ),
    "help.chain_edit": _("edit the query and the keys; Tab / Shift+Tab: the next / previous field"),
    "help.chain_back": _("back to the tables"),
    "help.chain_j": _("write the document for attn score -i"),
    # help
    "help_title": _("Keys"),
    "help_close": _("any key closes this"),
    "help.projections": _("projections on/off (off: Q = K = V = X)"),
    "help.scale": _("divide the scores by √d_k, or not"),
    "help.causal": _("causal mask on/off"),
    "help.heads": _("more / fewer heads (divisors of d_model)"),
    "help.braces": _("the previous / next head"),
    "help.norm": _("shorter / longer embeddings (×√2)"),
    "help.seed": _("a new seed (new X and W)"),
    "help.d_k": _("smaller / larger d_k"),
    "help.positions": _("rotary positions (RoPE) on/off: q and k turned"),
    "help.sinks": _("a lower / higher sink for every head: weight the rows drop"),
    "help.window_softcap": _("narrower / wider window; tighter / looser softcap, 50 to 1"),
    "help.alibi_qk_norm": _("ALiBi / QK-norm on/off: a bias by distance / q and k normed"),
    "help.v_l": _("weight / score grid; English / Spanish"),
    "help.l": _("English / Spanish"),
    "help.arrows": _("move the cursor over the grid (or click)"),
    "help.enter": _("the cursor row's three steps"),
    "help.slash": _("edit the sentence (Enter or Esc: back)"),
    "help.e": _("export the view (svg, html, txt, md, tex)"),
    "help.j": _("write the state as JSON for attn selfattn -i"),
    "help.model": _("--model's layer, head, words; m: the model view, every head"),
    "help.q": _("quit"),
}


def say(lang: str, key: str, **fields: object) -> str:
    """The explorer's phrase `key` in `lang`; text fields made printable."""
    return shown_in(lang, WORDS[key], **fields)
