"""--help in Spanish: the app is built per call, so when the command line's language is
Spanish its help texts are swapped before Typer builds the commands.

Every English text has its Spanish one here, keyed by the English (a test checks that
none is missing), and Click's few words of its own (Usage, Options, …) go through the
gettext hook it calls them with.
"""

from __future__ import annotations

import typing
from typing import Any

APP = (
    "Una calculadora de atención, el paso central de un transformer: puntuaciones, "
    "softmax, la mezcla ponderada y la autoatención, con cada paso a la vista.\n\n"
    "Ejemplo: attn score -i samples/tren.json | attn softmax | attn mix"
)

COMMANDS = {
    "score": """Puntúa cada clave frente a la consulta: cuánto se parecen.

    Una consulta da una fila de puntuaciones; varias (queries) dan una rejilla, fila =
    consulta, columna = clave. Lee un documento JSON con query o queries, keys y, si se
    quiere, tokens y values (que pasan tal cual a attn mix).

    Ejemplo: attn score --query 1,0 --keys '[[2,1],[0,2],[1,1]]' --tokens tren,va,lleno --steps
    """,
    "softmax": """Convierte puntuaciones en pesos positivos que suman 1, fila a fila.

    peso_j = e^(s_j / T) / Σ_i e^(s_i / T). De forma estable: primero se resta la mayor
    puntuación de la fila, así que 1000 0 -1000 da 1 0 0, nunca NaN. Una puntuación -inf
    (null en JSON) está enmascarada: su peso es exactamente 0. Una fila con todo
    enmascarado no tiene a quién atender: todos sus pesos son 0 (y su mezcla es el
    vector cero).

    Ejemplo: attn softmax 2 0 1 --tokens tren,va,lleno --steps
    """,
    "mix": """Mezcla los vectores valor con los pesos: salida = Σ_j peso_j × valor_j.

    Una fila de pesos da un vector de salida; una rejilla da una salida por fila.

    Ejemplo: attn mix --weights 0.665,0.090,0.245 --values '[[10,0],[0,10],[5,5]]' --steps
    """,
    "grad": """La pasada hacia atrás: cada gradiente de score → softmax → mix, paso a paso.

    Lee lo mismo que la cadena hacia delante (query o queries, keys, values, los
    parámetros de la puntuación; encadenado tras attn mix, también su método y su
    temperatura) y el gradiente que llega a la salida: --grad-output, o --target para
    ℓ = ½‖c − target‖². Escribe grad_weights, grad_scores, grad_values, grad_query(ies),
    grad_keys y los gradientes de los parámetros. Las puntuaciones null siguen
    enmascaradas (su gradiente es 0).
    Encadenado: attn score -i samples/tren.json | attn softmax | attn mix | attn grad --target 8,2

    Ejemplo: attn grad -i samples/tren.json --target 8,2 --steps
    """,
    "selfattn": """Autoatención sobre una frase: quién mira a quién.

    Cada token recibe un embedding sembrado (una fila de X, la misma en cualquier
    máquina); tres proyecciones dan Q = X W^Q, K = X W^K, V = X W^V; la rejilla T × T de
    pesos es softmax(Q K^T / √d_k) fila a fila (fila = quién pregunta, columna = quién
    contesta); las salidas son la rejilla de pesos por V. El número de parámetros no
    depende de T.

    Ejemplo: attn selfattn "en las llaves del coche están ahí" --steps --token están
    """,
    "compare-scores": """Aditiva (Bahdanau) frente a multiplicativa (Luong): lo que cuesta cada una.

    Puntúa de cuatro maneras (aditiva, general, producto escalar, escalada) una rejilla
    T_y × T_x de estados sembrados y muestra lado a lado los parámetros, los productos y
    sumas, las evaluaciones de tanh, los números del intermedio y el tiempo medido;
    comprueba que puntuar pareja a pareja da la misma rejilla que la forma matricial; y
    recorre d_k para mostrar por qué se divide entre √d_k. Las cuentas son exactas; los
    tiempos dependen de la máquina.

    Ejemplo: attn compare-scores --d-a 64
    """,
    "exercise": """Un problema nuevo para hacer a mano: score, softmax y mix, con celdas vacías.

    Números enteros pequeños, como en el curso: una consulta de 0 y 1, claves de 0 a 2,
    valores de 5 en 5. --answers imprime la solución tras la hoja. Encadenado o con
    --json escribe el problema (y con --answers los resultados), para que el estudiante
    compruebe su trabajo: attn exercise | attn score | attn softmax | attn mix

    Ejemplo: attn exercise --seed 7 --lang es --answers
    """,
}

OPTIONS = {
    "Seed for W_a, W_1, W_2, v_a when the input has none.":
        "Semilla de W_a, W_1, W_2, v_a cuando la entrada no los trae.",
    "Hidden size of the additive score (default: d_k).":
        "Tamaño oculto de la puntuación aditiva (por defecto: d_k).",
    "JSON document to read ('-' for stdin). Without it, piped stdin is read.":
        "Documento JSON que leer ('-' para la entrada estándar). Sin él, se lee lo que "
        "llegue por tubería.",
    "table or json. Default: table on a terminal, JSON when piped.":
        "table o json. Por defecto: tabla en un terminal, JSON por tubería.",
    "Shorthand for --format json.": "Atajo de --format json.",
    "Lay out the computation as a hand-worked table.":
        "Muestra el cálculo como una tabla hecha a mano.",
    "Decimals in tables (default: weights 3, other numbers 2).":
        "Decimales en las tablas (por defecto: pesos 3, el resto 2).",
    "With --steps on a grid: explain row N (1 = first).":
        "Con --steps sobre una rejilla: explica la fila N (1 = la primera).",
    "en or es. Default: ATTN_LANG, else es when the locale is es_*, else en.":
        "en o es. Por defecto: ATTN_LANG, si no es cuando el locale es es_*, si no en.",
    "A worksheet: --steps with the cells a student computes left empty.":
        "Una hoja de ejercicios: --steps con vacías las celdas que calcula el estudiante.",
    "With --blank: print the filled key after it.": "Con --blank: imprime después la solución.",
    "Also write what the terminal shows to FILE: .svg, .html, .txt, .md or .tex.":
        "Escribe además lo que muestra el terminal en FICHERO: .svg, .html, .txt, .md o .tex.",
    "With --steps on a grid: explain the row of this token.":
        "Con --steps sobre una rejilla: explica la fila de este token.",
    "Token names for the keys, e.g. tren,va,lleno.":
        "Nombres de los tokens de las claves, p. ej. tren,va,lleno.",
    "One query vector, e.g. 1,0.": "Un vector consulta, p. ej. 1,0.",
    "Several queries, a row each: '[[0,1],[1,1]]' or '0,1;1,1'.":
        "Varias consultas, una fila cada una: '[[0,1],[1,1]]' o '0,1;1,1'.",
    "Keys, a row per token: '[[2,1],[0,2],[1,1]]'.":
        "Claves, una fila por token: '[[2,1],[0,2],[1,1]]'.",
    "Values, a row per token: '[[10,0],[0,10],[5,5]]'.":
        "Valores, una fila por token: '[[10,0],[0,10],[5,5]]'.",
    "Weights, one per value row (or a grid): 0.665,0.090,0.245.":
        "Pesos, uno por fila de valores (o una rejilla): 0.665,0.090,0.245.",
    "Scores as one option: '2,0,1' or a grid '2,0;1,1'.":
        "Puntuaciones en una opción: '2,0,1' o una rejilla '2,0;1,1'.",
    "The sentence. Split on whitespace; punctuation at the start or end of a word is a "
    "token of its own (¿ dónde ?), inside a word it stays (l'eau).":
        "La frase. Se parte por los espacios; la puntuación al principio o al final de una "
        "palabra es un token propio (¿ dónde ?), dentro de una palabra se queda (l'eau).",
    "Instead of a sentence: JSON, .npy (read as x) or .npz with x (and w_q, w_k, w_v, w_o, "
    "b_q, b_k, b_v, b_o, mask, key_padding_mask, tokens; x may be a batch B × T × d) or with "
    "queries, keys, values. W is d_in × d_out, applied as x @ W (from torch's nn.Linear, "
    "pass weight.T).":
        "En lugar de una frase: JSON, .npy (leído como x) o .npz con x (y w_q, w_k, w_v, w_o, "
        "b_q, b_k, b_v, b_o, mask, key_padding_mask, tokens; x puede ser un lote B × T × d) o "
        "con queries, keys, values. W es d_in × d_out y se aplica como x @ W (de un nn.Linear "
        "de torch, pasa weight.T).",
    "Numbers per token embedding. [default: 8]":
        "Números por embedding de token. [por defecto: 8]",
    "Columns of W^Q and W^K (per head). [default: d_model / h]":
        "Columnas de W^Q y W^K (por cabeza). [por defecto: d_model / h]",
    "Columns of W^V (per head). [default: d_model / h]":
        "Columnas de W^V (por cabeza). [por defecto: d_model / h]",
    "Cross-attention: the keys and values come from this sentence, the queries from the "
    "first.":
        "Atención cruzada: las claves y los valores salen de esta frase, las consultas de "
        "la primera.",
    "Length of every token embedding. [default: √d_model, so each number is about ±1]":
        "Longitud de cada embedding. [por defecto: √d_model, así cada número ronda ±1]",
    "Seed for the embeddings and projections.": "Semilla de los embeddings y las proyecciones.",
    "No projections: Q = K = V = X.": "Sin proyecciones: Q = K = V = X.",
    "Do not divide the scores by √d_k.": "No divide las puntuaciones entre √d_k.",
    "Divide the scores by S instead of √d_k.": "Divide las puntuaciones entre S en vez de √d_k.",
    "Each position sees only itself and earlier ones.":
        "Cada posición solo ve la suya y las anteriores.",
    "Only the first N keys are real; the rest is padding, masked for every query.":
        "Solo las N primeras claves son reales; el resto es relleno, enmascarado para toda "
        "consulta.",
    "h heads (of d_model / h columns each unless --d-k/--d-v), joined, then W^O.":
        "h cabezas (de d_model / h columnas cada una salvo --d-k/--d-v), juntas, luego W^O.",
    "With --heads: join the heads without W^O.": "Con --heads: junta las cabezas sin W^O.",
    "With --steps and --heads: the head to explain.":
        "Con --steps y --heads: la cabeza que explicar.",
    "∂ℓ/∂output, rows as '1,0;0,1': adds the backward pass (grad_x, grad_w_q, …).":
        "∂ℓ/∂salida, filas como '1,0;0,1': añade la pasada hacia atrás (grad_x, grad_w_q, …).",
    "A target output for ℓ = ½‖output − target‖²: the same.":
        "Una salida objetivo para ℓ = ½‖salida − objetivo‖²: lo mismo.",
    "Also show the matrices: x, w, q, k, v, shapes (comma-separated) or all.":
        "Muestra además las matrices: x, w, q, k, v, shapes (separadas por comas) o all.",
    "Also draw the weight grid to FILE (.png, .svg or .pdf); needs attncli[plot].":
        "Dibuja además la rejilla de pesos en FICHERO (.png, .svg o .pdf); necesita "
        "attncli[plot].",
    "Encoder positions T_x (the keys).": "Posiciones del codificador T_x (las claves).",
    "Decoder positions T_y (the queries).": "Posiciones del decodificador T_y (las consultas).",
    "Size d_h of every state.": "Tamaño d_h de cada estado.",
    "Hidden size d_a of the additive score.": "Tamaño oculto d_a de la puntuación aditiva.",
    "Seed for the states and parameters.": "Semilla de los estados y los parámetros.",
    "Timed runs per method, interleaved, after a warm-up.":
        "Ejecuciones medidas por método, intercaladas, tras un calentamiento.",
    "BLAS threads, the same for every method.": "Hilos BLAS, los mismos para cada método.",
    "d_k values for the scaling sweep, e.g. 8,64,512.":
        "Valores de d_k para el barrido de escala, p. ej. 8,64,512.",
    "Which problem: each seed gives another.": "Qué problema: cada semilla da otro.",
    "How many tokens (keys and values).": "Cuántos tokens (claves y valores).",
    "Numbers per vector.": "Números por vector.",
    "dot: q·k. scaled: q·k ÷ √d_k. general (Luong): q^T W_a k. additive (Bahdanau): "
    "v_a^T tanh(W_1 q + W_2 k).":
        "dot: q·k. scaled: q·k ÷ √d_k. general (Luong): q^T W_a k. additive (Bahdanau): "
        "v_a^T tanh(W_1 q + W_2 k).",
    "Scores, e.g. 2 0 1 (-inf marks a masked cell).":
        "Puntuaciones, p. ej. 2 0 1 (-inf marca una celda enmascarada).",
    "Divide scores by T first: T > 1 spreads, T < 1 sharpens.":
        "Divide antes las puntuaciones entre T: T > 1 reparte, T < 1 afila.",
    "∇_c ℓ, the gradient at the output, e.g. 1,0.": "∇_c ℓ, el gradiente en la salida, p. ej. 1,0.",
    "A target for ℓ = ½‖c − target‖², e.g. 8,2.":
        "Un objetivo para ℓ = ½‖c − objetivo‖², p. ej. 8,2.",
    "The score: dot, scaled, general or additive. [default: the input's, else dot]":
        "La puntuación: dot, scaled, general o additive. [por defecto: la de la entrada, si "
        "no dot]",
    "Softmax temperature [default: the input's, else 1].":
        "Temperatura del softmax [por defecto: la de la entrada, si no 1].",
    "Compare every gradient with finite differences.":
        "Compara cada gradiente con diferencias finitas.",
    "Print the version and exit.": "Imprime la versión y termina.",
    "Write only these fields of the JSON document, e.g. weights,output.":
        "Escribe solo estos campos del documento JSON, p. ej. weights,output.",
}  # fmt: skip

# Click's and Typer's own words, as they ask gettext for them.
CLICK = {
    "Options": "Opciones",
    "Arguments": "Argumentos",
    "Commands": "Órdenes",
    "default: {default}": "por defecto: {default}",
    "required": "obligatorio",
    "Install completion for the current shell.": "Instala el autocompletado para este shell.",
    "Show completion for the current shell, to copy it or customize the installation.":
        "Muestra el autocompletado para este shell, para copiarlo o ajustar la instalación.",
}  # fmt: skip


def infos(app: Any) -> list[Any]:
    """The typer.Option and typer.Argument objects of every command of `app` and of its
    callback, as Typer reads them from their signatures."""
    import inspect

    callbacks = [command.callback for command in app.registered_commands]
    if app.registered_callback is not None:
        callbacks.append(app.registered_callback.callback)
    return [
        meta
        for callback in callbacks
        for parameter in inspect.signature(callback).parameters.values()
        for meta in typing.get_args(parameter.annotation)[1:]
        if getattr(meta, "help", None)
    ]


def to_spanish(app: Any) -> None:
    """Swap every help text of `app` (and of Click's own words) for its Spanish one."""
    import typer._click.core
    import typer.core
    from typer._click import formatting

    app.info.help = APP
    for command in app.registered_commands:
        name = command.name or command.callback.__name__
        command.help = COMMANDS.get(name, command.help)
    import typer.completion

    for info in infos(app):
        info.help = OPTIONS.get(info.help, info.help)
    # Typer's completion options are the defaults of a placeholder function of its own.
    placeholder = typer.completion._install_completion_placeholder_function
    for info in placeholder.__defaults__ or ():
        info.help = CLICK.get(info.help, info.help)
    typer.core._ = lambda text: CLICK.get(text, text)  # type: ignore[attr-defined,assignment]
    _spanish_usage(formatting.HelpFormatter)
    _spanish_help_option(typer._click.core.Context)


def _spanish_usage(formatter: Any) -> None:
    """'Uso:' where Click writes 'Usage:'."""
    original = formatter.write_usage

    def write_usage(self: Any, prog: str, args: str = "", prefix: str | None = None) -> None:
        original(self, prog, args, "Uso: " if prefix is None else prefix)

    formatter.write_usage = write_usage


def _spanish_help_option(context: Any) -> None:
    """The -h/--help line, which Click writes without asking gettext."""
    original = context.get_help

    def get_help(self: Any) -> str:
        text: str = original(self)
        return text.replace("Show this message and exit.", "Muestra este mensaje y termina.")

    context.get_help = get_help
