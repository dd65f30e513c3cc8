"""The explorer's own words, English and Spanish (the grids' and steps' words are
attncli.present.language's, the same as attn selfattn's)."""

from __future__ import annotations

from attncli.present.language import printable

# key -> (English, Spanish); {name} fields are filled by say().
WORDS: dict[str, tuple[str, str]] = {
    "title": ("attn explore", "attn explore"),
    "sentence_hint": (
        "a sentence; Enter computes, Esc goes back to the grid",
        "una frase; Enter calcula, Esc vuelve a la rejilla",
    ),
    "document_hint": (
        "-i {path}; / and a sentence attend over the sentence instead",
        "-i {path}; / y una frase atienden sobre la frase en su lugar",
    ),
    "on": ("on", "sí"),
    "off": ("off", "no"),
    "knob.projections": ("p projections {value}", "p proyecciones {value}"),
    "knob.scale": ("s ÷√d_k {value}", "s ÷√d_k {value}"),
    "knob.causal": ("c causal {value}", "c causal {value}"),
    "knob.heads": ("h/H heads {value}", "h/H cabezas {value}"),
    "knob.head": ("{{/}} head {value}", "{{/}} cabeza {value}"),
    "knob.norm": ("n/N length {value}", "n/N longitud {value}"),
    "knob.d_k": ("d/D d_k {value}", "d/D d_k {value}"),
    "knob.seed": ("r seed {value}", "r semilla {value}"),
    "knob.grid": ("v {value}", "v {value}"),
    "grid.weights": ("weights", "pesos"),
    "grid.scores": ("scores", "puntuaciones"),
    "knob.help": ("? keys", "? teclas"),
    "cell": (
        "{row} → {column}: row {i}, column {j}",
        "{row} → {column}: fila {i}, columna {j}",
    ),
    "cell_masked": (
        "masked (causal): {row} does not look at later tokens; its weight is 0",
        "enmascarada (causal): {row} no mira tokens posteriores; su peso es 0",
    ),
    "mix_term": ("from {column}", "de {column}"),
    "enter_hint": (
        "Enter: the row's three steps (score, softmax, mix)",
        "Enter: los tres pasos de la fila (puntuación, softmax, mezcla)",
    ),
    "not_shown": (
        "column {j} is not drawn (the grid is wider than the screen); its numbers are here",
        "la columna {j} no se dibuja (la rejilla no cabe); sus números están aquí",
    ),
    # notes after a key
    "no_x": (
        "Q, K and V are given: there is no X to project",
        "Q, K y V vienen dados: no hay X que proyectar",
    ),
    "heads_need_w": (
        "heads split the projections: switch them on (p)",
        "las cabezas reparten las proyecciones: enciéndelas (p)",
    ),
    "heads_most": (
        "{heads} heads is the most d_model = {d_model} splits into",
        "{heads} cabezas es lo más que admite d_model = {d_model}",
    ),
    "heads_least": ("one head is the least", "una cabeza es lo mínimo"),
    "norm_given": (
        "the embeddings' length belongs to a typed sentence; this X is the document's",
        "la longitud de los embeddings es de una frase escrita; esta X es la del documento",
    ),
    "norm_edge": ("that is as far as the length goes", "la longitud no va más allá"),
    "seed_given": (
        "W^Q, W^K, W^V are the document's: no seed draws them",
        "W^Q, W^K, W^V son las del documento: ninguna semilla las saca",
    ),
    "d_k_fixed": (
        "d_k is d_model without projections (Q = K = V = X)",
        "d_k es d_model sin proyecciones (Q = K = V = X)",
    ),
    "d_k_edge": ("d_k goes from 1 to {most}", "d_k va de 1 a {most}"),
    "head_edge": ("there are {heads} heads", "hay {heads} cabezas"),
    "one_head": (
        "one head: {{ and }} pick a head when there are more (h)",
        "una cabeza: {{ y }} eligen cabeza cuando hay más (h)",
    ),
    "model_keys": (
        "[ ] and w need --model (a real model's layers; its word pieces or words)",
        "[ ] y w necesitan --model (las capas de un modelo de verdad; sus piezas o palabras)",
    ),
    "model_own": (
        "the model's layer is its own: p s c h n r d shape the seeded layer ([ ] {{ }} w here)",
        "la capa del modelo es suya: p s c h n r d dan forma a la capa sembrada ([ ] {{ }} w aquí)",
    ),
    "layer_edge": ("the model has {layers} layers", "el modelo tiene {layers} capas"),
    "words_weights": (
        "between words there are only weights (merged from the pieces'); w: back to the pieces",
        "entre palabras solo hay pesos (juntados de los de las piezas); w: volver a las piezas",
    ),
    "knob.layer": ("[ ] layer {value}", "[ ] capa {value}"),
    "knob.words": ("w {value}", "w {value}"),
    "words.on": ("words", "palabras"),
    "words.off": ("word pieces", "piezas"),
    "word_cell": (
        "{row} → {column}: the mean over {row}'s pieces of the sum over {column}'s pieces",
        "{row} → {column}: la media sobre las piezas de {row} de la suma sobre las de {column}",
    ),
    "word_enter": (
        "Enter and the cell's arithmetic are a token's: w goes back to the word pieces",
        "Enter y la cuenta de la casilla son de un token: w vuelve a las piezas",
    ),
    "exported": ("wrote {path}", "escrito {path}"),
    "state_written": (
        "wrote {path}: attn selfattn -i {path}{options} reads it back",
        "escrito {path}: attn selfattn -i {path}{options} lo vuelve a leer",
    ),
    "export_prompt": (
        "export the view to (.svg .html .txt .md .tex); Enter writes, Esc cancels",
        "exportar la vista a (.svg .html .txt .md .tex); Enter escribe, Esc cancela",
    ),
    "internal": (
        "internal error (a bug in attn): {error}",
        "error interno (un fallo de attn): {error}",
    ),
    # the chain
    "chain_query": ("query", "consulta"),
    "chain_key": ("key {token}", "clave {token}"),
    "chain_status": (
        "/ or Tab: edit the query and the keys (the tables follow as you type; Enter or Esc: "
        "back) · l en/es · e export · j save · ? keys · q quit",
        "/ o Tab: editar la consulta y las claves (las tablas siguen al teclear; Enter o Esc: "
        "volver) · l en/es · e exportar · j guardar · ? teclas · q salir",
    ),
    "chain_written": (
        "wrote {path}: attn score -i {path} | attn softmax | attn mix --steps reads it back",
        "escrito {path}: attn score -i {path} | attn softmax | attn mix --steps lo vuelve a leer",
    ),
    "help.chain_edit": (
        "edit the query and the keys; Tab / Shift+Tab: the next / previous field",
        "editar la consulta y las claves; Tab / Mayús+Tab: el campo siguiente / anterior",
    ),
    "help.chain_back": ("back to the tables", "volver a las tablas"),
    "help.chain_j": (
        "write the document for attn score -i",
        "guardar el documento para attn score -i",
    ),
    # help
    "help_title": ("Keys", "Teclas"),
    "help_close": ("any key closes this", "cualquier tecla cierra esto"),
    "help.p": ("projections on/off (off: Q = K = V = X)", "proyecciones sí/no (no: Q = K = V = X)"),
    "help.s": ("divide the scores by √d_k, or not", "dividir las puntuaciones por √d_k, o no"),
    "help.c": ("causal mask on/off", "máscara causal sí/no"),
    "help.hH": (
        "more / fewer heads (divisors of d_model)",
        "más / menos cabezas (divisores de d_model)",
    ),
    "help.braces": ("the previous / next head", "la cabeza anterior / siguiente"),
    "help.nN": ("shorter / longer embeddings (×√2)", "embeddings más cortos / más largos (×√2)"),
    "help.r": ("a new seed (new X and W)", "una semilla nueva (X y W nuevas)"),
    "help.dD": ("smaller / larger d_k", "d_k más pequeño / más grande"),
    "help.v": ("weight grid / score grid", "rejilla de pesos / de puntuaciones"),
    "help.l": ("English / Spanish", "inglés / español"),
    "help.arrows": (
        "move the cursor over the grid (or click)",
        "mover el cursor por la rejilla (o pulsar)",
    ),
    "help.enter": ("the cursor row's three steps", "los tres pasos de la fila del cursor"),
    "help.slash": (
        "edit the sentence (Enter or Esc: back)",
        "editar la frase (Enter o Esc: volver)",
    ),
    "help.e": (
        "export the view (svg, html, txt, md, tex)",
        "exportar la vista (svg, html, txt, md, tex)",
    ),
    "help.j": (
        "write the state as JSON for attn selfattn -i",
        "guardar el estado en JSON para attn selfattn -i",
    ),
    "help.model": (
        "with --model: layer, head, word pieces / words",
        "con --model: capa, cabeza, piezas / palabras",
    ),
    "help.q": ("quit", "salir"),
}


def say(lang: str, key: str, **fields: object) -> str:
    """The explorer's phrase `key` in `lang`; text fields made printable."""
    english, spanish = WORDS[key]
    shown = {name: printable(v) if isinstance(v, str) else v for name, v in fields.items()}
    return (spanish if lang == "es" else english).format(**shown)
