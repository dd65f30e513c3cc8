"""The phrases of a pretrained model's screens (attn selfattn --model, attn heads), English
and Spanish; present/language.py adds them to its table."""

from __future__ import annotations

MODEL_PHRASES: dict[str, tuple[str, str]] = {
    "more_terms": (
        "… stands for {count} products left out; each sum is over all {total}",
        "… son {count} productos omitidos; cada suma es de los {total}",
    ),
    "model_layer": (
        "{model} ({kind}) · layer {layer} of {layers} · {heads}",
        "{model} ({kind}) · capa {layer} de {layers} · {heads}",
    ),
    "model_head": ("head {head} of {heads}", "cabeza {head} de {heads}"),
    "model_heads": ("all {heads} heads", "las {heads} cabezas"),
    "model_input": (
        "X is the hidden state that layer {layer}'s attention reads{after}",
        "X es el estado oculto que lee la atención de la capa {layer}{after}",
    ),
    "model_trained": (
        "W^Q, W^K, W^V are the model's own, trained: this is what the model does",
        "W^Q, W^K, W^V son los del modelo, entrenados: esto es lo que hace el modelo",
    ),
    "model_after_norm": (" (after its LayerNorm)", " (tras su LayerNorm)"),
    "model_causal": (
        "causal: each token sees itself and the ones before",
        "causal: cada token ve el suyo y los anteriores",
    ),
    "model_hint": (
        "--head H shows one head alone; attn heads finds the head you look for",
        "--head H muestra una cabeza sola; attn heads encuentra la que buscas",
    ),
    "model_head_hint": (
        "--steps --token T explains a row; --show q,k,v adds Q, K and V",
        "--steps --token T explica una fila; --show q,k,v añade Q, K y V",
    ),
    "model_words": (
        "Words: a word's row is the mean of its pieces' rows (it still sums to 1), its column "
        "the sum of its pieces' columns",
        "Palabras: la fila de una palabra es la media de las filas de sus piezas (sigue "
        "sumando 1), su columna la suma de las columnas de sus piezas",
    ),
    "model_word_weights": (
        "Weights between words (row = who asks, column = who answers)",
        "Pesos entre palabras (fila = quién pregunta, columna = quién contesta)",
    ),
    "heads_title": (
        "Heads of {model} ranked by {asked}",
        "Cabezas de {model} ordenadas por {asked}",
    ),
    "heads_from_to": (
        "the weight from «{source}» (token {start}) to «{target}» (token {end})",
        "el peso de «{source}» (token {start}) a «{target}» (token {end})",
    ),
    "heads_pattern.previous": (
        "the mean weight on the previous token",
        "el peso medio sobre el token anterior",
    ),
    "heads_pattern.first": (
        "the mean weight on the first token",
        "el peso medio sobre el primer token",
    ),
    "heads_pattern.self": (
        "the mean weight on the token itself",
        "el peso medio sobre el propio token",
    ),
    "heads_rank": ("Rank", "Puesto"),
    "heads_layer": ("Layer", "Capa"),
    "heads_head": ("Head", "Cabeza"),
    "heads_weight": ("Weight", "Peso"),
    "heads_more": (
        "… {more} more of {total}; --all shows them all, --json has them all",
        "… {more} más de {total}; --all las muestra todas, --json las tiene todas",
    ),
    "heads_tokens": ("tokens: {tokens}", "tokens: {tokens}"),
    "heads_next": (
        "explain the first: attn selfattn {sentence} --model {model} --layer {layer} "
        "--head {head} --steps --token {token}",
        "explica la primera: attn selfattn {sentence} --model {model} --layer {layer} "
        "--head {head} --steps --token {token}",
    ),
}
