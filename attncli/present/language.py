"""The two languages attn speaks, and every phrase a table, a note or a step shows.

Spanish follows the course's vocabulary: consulta, clave, valor, puntuación, peso,
salida; «token» and «softmax» stay as they are. JSON is the same in both languages.
"""

from __future__ import annotations

from collections.abc import Mapping

from attncli.present.grad.words import GRAD_PHRASES
from attncli.present.language_extra import EXTRA_PHRASES
from attncli.present.layer.words import LAYER_PHRASES
from attncli.present.model.words import MODEL_PHRASES
from attncli.present.training.words import TRAIN_PHRASES

LANGUAGES = ("en", "es")

# key -> (English, Spanish); {name} fields are filled by say().
PHRASES: dict[str, tuple[str, str]] = {
    # Step tables: scores
    "scores.dot": (
        "Scores: {query} ({vector}) · each key",
        "Puntuaciones: {query} ({vector}) · cada clave",
    ),
    "scores.scaled": (
        "Scaled scores: {query} ({vector}) · each key ÷ √d_k",
        "Puntuaciones escaladas: {query} ({vector}) · cada clave ÷ √d_k",
    ),
    "scores.general": (
        "General scores: {query} ({vector}) · (W_a · key)",
        "Puntuaciones generales: {query} ({vector}) · (W_a · clave)",
    ),
    "scores.additive": (
        "Additive scores: v_a · tanh(W_1 · {query} + W_2 · key)",
        "Puntuaciones aditivas: v_a · tanh(W_1 · {query} + W_2 · clave)",
    ),
    "query": ("query", "consulta"),
    "token": ("Token", "Token"),
    "key": ("Key", "Clave"),
    "w_a_key": ("W_a · key", "W_a · clave"),
    "query_key": ("Query · key", "Consulta · clave"),
    "query_w_a_key": ("Query · (W_a · key)", "Consulta · (W_a · clave)"),
    "score": ("Score", "Puntuación"),
    # Step tables: softmax
    "softmax": ("Softmax", "Softmax"),
    "softmax_of": ("Softmax of {row}", "Softmax de {row}"),
    "score_over_t": ("Score ÷ T ({t})", "Puntuación ÷ T ({t})"),
    "power": ("e^score", "e elevado a la puntuación"),
    "power_over_t": ("e^(score ÷ T)", "e elevado a (puntuación ÷ T)"),
    "power_shifted": ("e^({exponent} − {shift})", "e elevado a ({exponent} − {shift})"),
    "exponent": ("score", "puntuación"),
    "exponent_over_t": ("score ÷ T", "puntuación ÷ T"),
    "weight_is": ("Weight = e^… ÷ {total}", "Peso: dividir por {total}"),
    "total": ("Total", "Total"),
    # Step tables: mix
    "mix": ("Mix", "Mezcla"),
    "mix_for": ("Mix for {row}", "Mezcla para {row}"),
    "weight": ("Weight", "Peso"),
    "value": ("Value", "Valor"),
    "weight_value": ("Weight × value", "Peso por valor"),
    "output": ("Output", "Salida"),
    "about": ("≈ {vector}", "unos {vector}"),
    # Result tables
    "scores": ("Scores", "Puntuaciones"),
    "scores_grid": (
        "Scores (row = query, column = key)",
        "Puntuaciones (fila = consulta, columna = clave)",
    ),
    "weights": ("Weights", "Pesos"),
    "weights_grid": (
        "Weights (row = query, column = key)",
        "Pesos (fila = consulta, columna = clave)",
    ),
    "outputs": ("Outputs (a row per query)", "Salidas (una fila por consulta)"),
    "sum_weight_value": ("Σ weight × value", "Σ peso × valor"),
    "drawn": ("{name} (drawn from seed {seed})", "{name} (al azar con la semilla {seed})"),
    "row_max": ("{mark} the row's largest weight", "{mark} el mayor peso de la fila"),
    "legend": (
        "lighter = more weight ({low} darkest, {high} lightest)",
        "más claro = más peso ({low} lo más oscuro, {high} lo más claro)",
    ),
    "largest_column": ("largest", "mayor"),
    "masked": ("{mark} masked", "{mark} enmascarada"),
    "elided_rows": (
        "{mark} showing {rows} of {all_rows} rows; --json has them all",
        "{mark} se ven {rows} de {all_rows} filas; --json las tiene todas",
    ),
    "elided": (
        "{mark} showing {rows} of {all_rows} rows and {columns} of {all_columns} columns; "
        "--json has them all",
        "{mark} se ven {rows} de {all_rows} filas y {columns} de {all_columns} columnas; "
        "--json las tiene todas",
    ),
    # selfattn
    "tokens_count": ("T = {count} tokens", "T = {count} tokens"),
    "heads_of": ("{heads} heads", "{heads} cabezas"),
    "head_of": ("1 head", "1 cabeza"),
    "no_out_proj": ("joined without W^O", "juntas sin W^O"),
    "unscaled": ("no scaling", "sin escalar"),
    "divided_by": ("scores ÷ {divisor}", "puntuaciones ÷ {divisor}"),
    "causal": ("causal mask", "máscara causal"),
    "causal_from": (
        "causal mask, as {kind}'s layers are (--no-causal without it)",
        "máscara causal, como las capas de {kind} (--no-causal sin ella)",
    ),
    "norm": ("every embedding has length {norm}", "cada embedding mide {norm}"),
    "no_proj": (
        "no projections: Q = K = V = X, 0 parameters",
        "sin proyecciones: Q = K = V = X, 0 parámetros",
    ),
    "direct": ("Q, K and V given directly", "Q, K y V dados directamente"),
    "params": (
        "parameters: {formula} = {params}, the same for any T",
        "parámetros: {formula} = {params}, los mismos para cualquier T",
    ),
    "params_heads": (
        "parameters: {formula} = {params}, the same for any number of heads and any T",
        "parámetros: {formula} = {params}, los mismos para cualquier número de cabezas y "
        "cualquier T",
    ),
    "shapes": ("Shapes", "Formas"),
    "matrix": ("Matrix", "Matriz"),
    "shape": ("Shape", "Forma"),
    "holds": ("What it holds", "Qué contiene"),
    "row_per_token": ("a row per token", "una fila por token"),
    "row_per_query": ("a row per query token", "una fila por token que pregunta"),
    "row_per_key": ("a row per key token", "una fila por token que contesta"),
    "batch_first": (
        "a batch of {batch} sequences, computed together; shown: the first (--json has all)",
        "un lote de {batch} secuencias, calculadas juntas; se muestra la primera (--json las "
        "tiene todas)",
    ),
    "cross": (
        "cross-attention: {queries} queries over {keys} keys",
        "atención cruzada: {queries} consultas sobre {keys} claves",
    ),
    "drawn_from": ("drawn from seed {seed}", "al azar con la semilla {seed}"),
    "given": ("given", "dada"),
    "per_head": ("per head", "por cabeza"),
    "who_asks": (
        "row = who asks, column = who answers",
        "fila = quién pregunta, columna = quién contesta",
    ),
    "a_v": ("A V", "A V"),
    "a_v_heads": ("A V per head, joined, × W^O", "A V por cabeza, juntas, × W^O"),
    "weights_who": (
        "Weights (row = who asks, column = who answers)",
        "Pesos (fila = quién pregunta, columna = quién contesta)",
    ),
    "head": ("Head {head}: {title}", "Cabeza {head}: {title}"),
    "scores_who": (
        "Scores Q K^T / {divisor} (row = who asks, column = who answers)",
        "Puntuaciones Q K^T / {divisor} (fila = quién pregunta, columna = quién contesta)",
    ),
    "scores_who_unscaled": (
        "Scores Q K^T (row = who asks, column = who answers)",
        "Puntuaciones Q K^T (fila = quién pregunta, columna = quién contesta)",
    ),
    "untrained": (
        "{names} are random (seed {seed}), not trained: which token looks at which means "
        "nothing yet; -i samples/llaves.json has weights set by hand so that «están» looks for "
        "«llaves»",
        "{names} son aleatorias (semilla {seed}), no entrenadas: qué token mira a cuál aún "
        "no significa nada; -i samples/llaves.json trae pesos puestos a mano para que «están» "
        "busque «llaves»",
    ),
    "show_hint": (
        "--show x,w,q,k,v (or all) adds the matrices; --steps --token T explains a row",
        "--show x,w,q,k,v (o all) añade las matrices; --steps --token T explica una fila",
    ),
    "joined": (
        "Heads joined ({heads} × {size} = {width} columns), before W^O",
        "Cabezas juntas ({heads} × {size} = {width} columnas), antes de W^O",
    ),
    "output_shape": ("Output ({rows} × {columns})", "Salida ({rows} × {columns})"),
    # compare-scores
    "grid_heading": (
        "Scoring a {ty} × {tx} grid: d_h = {d_h}, d_a = {d_a}, float64, {threads}; {runs} after "
        "a warm-up",
        "Puntuar una rejilla de {ty} × {tx}: d_h = {d_h}, d_a = {d_a}, float64, {threads}; "
        "{runs} tras un calentamiento",
    ),
    "runs_one": ("one run", "una ejecución"),
    "runs_many": (
        "median of {repeat} interleaved runs",
        "mediana de {repeat} ejecuciones intercaladas",
    ),
    "threads_one": ("1 BLAS thread", "1 hilo BLAS"),
    "threads_many": ("{threads} BLAS threads", "{threads} hilos BLAS"),
    "busy": (
        "warning: the runs of one method spread more than 3× (the machine was busy); the ratios "
        "are unreliable: rerun on a quieter machine or with a larger --repeat",
        "aviso: las ejecuciones de un método varían más de 3× (la máquina estaba ocupada); las "
        "razones no son fiables: repite en una máquina más tranquila o con más --repeat",
    ),
    "parameters": ("Parameters", "Parámetros"),
    "mult_adds": ("Multiply-adds", "Productos y sumas"),
    "elementwise": ("Sums or divisions", "Sumas o divisiones"),
    "tanh": ("tanh evaluations", "Evaluaciones de tanh"),
    "intermediate": ("Intermediate", "Intermedio"),
    "at_float64": ("  at float64", "  en float64"),
    "time_median": ("Time, median (ms)", "Tiempo, mediana (ms)"),
    "time_fastest": ("  fastest", "  más rápido"),
    "time_slowest": ("  slowest", "  más lento"),
    "method.additive": ("additive", "aditiva"),
    "method.general": ("general", "general"),
    "method.dot": ("dot", "producto escalar"),
    "method.scaled": ("scaled", "escalada"),
    "times_fastest": ("× the fastest", "× el más rápido"),
    "millions": ("{amount} M", "{amount} M"),
    "loop_check": (
        "{method}: pair by pair (a loop) against the matrix form, {scope}: {verdict} "
        "(largest difference {difference})",
        "{method}: pareja a pareja (un bucle) contra la forma matricial, {scope}: {verdict} "
        "(mayor diferencia {difference})",
    ),
    "every_pair": ("every pair", "todas las parejas"),
    "some_pairs": ("{checked} of {total} pairs", "{checked} de {total} parejas"),
    "same_grid": ("the same grid", "la misma rejilla"),
    "different_grid": ("DIFFERENT grids", "rejillas DISTINTAS"),
    "sweep_heading": (
        "Why ÷√d_k: average largest weight in a row of 6 random keys",
        "Por qué ÷√d_k: mayor peso medio en una fila de 6 claves aleatorias",
    ),
    "unscaled_column": ("unscaled", "sin escalar"),
    "fewer_but_slower": (
        "Additive does fewer multiply-adds than general here ({additive} against {general}) and "
        "still measures {ratio}× slower: what is measured is not the count of operations but their "
        "shape (a tanh over a T_y × T_x × d_a block against two matrix products).",
        "La aditiva hace aquí menos productos y sumas que la general ({additive} contra {general}) "
        "y aun así tarda {ratio} veces más: lo que se mide no es cuántas operaciones hay sino su "
        "forma (un tanh sobre un bloque T_y × T_x × d_a contra dos productos de matrices).",
    ),
    "slower": (
        "Additive measures {ratio}× slower than general, with {tanh} tanh evaluations and a "
        "{numbers}-number intermediate that general does without.",
        "La aditiva tarda {ratio} veces más que la general, con {tanh} evaluaciones de tanh y un "
        "intermedio de {numbers} números que la general no necesita.",
    ),
    "million": ("{amount} million", "{amount} millones"),
    # worksheets
    "worksheet": ("Worksheet", "Hoja de ejercicios"),
    "answers": ("Answers", "Soluciones"),
    "exercise_intro": (
        "Query {query} · keys and values of {count} tokens. Fill in the empty cells.",
        "Consulta {query} · claves y valores de {count} tokens. Rellena las celdas vacías.",
    ),
    # errors
    "error": ("attn: error: {message}", "attn: error: {message}"),
}


def _joined(common: dict[str, tuple[str, str]], *tables: Mapping[str, tuple[str, str]]) -> None:
    """Every phrase in one table, each screen's kept beside it (model/words.py, …); a key
    said twice is a mistake, not an override."""
    for table in tables:
        twice = sorted(common.keys() & table.keys())
        if twice:
            raise KeyError(f"phrases defined twice: {', '.join(twice)}")
        common.update(table)


_joined(
    PHRASES,
    EXTRA_PHRASES,  # attn samples, tiny numbers, worksheets' extras
    GRAD_PHRASES,  # attn grad and the backward pass's steps
    MODEL_PHRASES,  # attn selfattn --model and attn heads
    TRAIN_PHRASES,  # attn train
    LAYER_PHRASES,  # the layer's weights, masks, batches and extra keys
)


# Click's usage errors, which it writes in English, as (pattern, Spanish replacement).
_USAGE_ERRORS_ES = (
    (r"Invalid value for (.+?): ", r"valor no válido para \1: "),
    (r"'(.*?)' is not one of (.+)\.", r"'\1' no es ninguno de \2."),
    (r"'(.*?)' is not a valid int range\.", r"'\1' no es un entero válido."),
    (r"'(.*?)' is not a valid int(eger)?\.", r"'\1' no es un entero válido."),
    (r"'(.*?)' is not a valid float\.", r"'\1' no es un número válido."),
    (r"(\S+) is not in the range (.+)\.", r"\1 está fuera del rango \2."),
    (r"No such command '(.*?)'\.", r"no existe la orden '\1'."),
    (r"Missing command\.", r"falta la orden."),
    (r"No such option: (\S+)", r"no existe la opción \1"),
    (r"\(Possible options: (.*?)\)", r"(opciones posibles: \1)"),
    (r"Did you mean (\S+?)\?", r"¿querías decir \1?"),
    (r"Option '(.*?)' requires an argument\.", r"la opción '\1' necesita un valor."),
    (r"Missing argument '(.*?)'\.", r"falta el argumento '\1'."),
    # Click writes "argument(s)" since 8.2, "argument"/"arguments" before.
    (r"Got unexpected extra argument(?:\(s\)|s)? \((.*?)\)", r"argumentos de más: (\1)"),
)


def usage_error(lang: str, message: str, command: str) -> str:
    """One of Click's usage errors, with where to look for help, in `lang`."""
    if lang != "es":
        return f"{message} (see {command} --help)"
    import re

    for pattern, replacement in _USAGE_ERRORS_ES:
        message = re.sub(pattern, replacement, message)
    return f"{message} (ver {command} --help)"


def say(lang: str, key: str, **fields: object) -> str:
    """The phrase `key` in `lang`, with its fields filled in; text fields (tokens, paths)
    made printable, so a heading that names a token cannot drive the terminal."""
    english, spanish = PHRASES[key]
    shown = {name: printable(v) if isinstance(v, str) else v for name, v in fields.items()}
    return (spanish if lang == "es" else english).format(**shown)


# Control, format, surrogate, private and unassigned characters, and line breaks.
_UNSHOWN = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def printable(text: str) -> str:
    """The text with control and format characters shown as escapes (\\n, \\x1b, \\x9b):
    it stays on one line and nothing from the user's input can drive the terminal. Text that
    came in as undecodable bytes (lone surrogates) is shown the same way."""
    if text.isprintable():
        return text
    import unicodedata

    return "".join(
        repr(char)[1:-1] if unicodedata.category(char) in _UNSHOWN else char for char in text
    )


def resolve(option: str | None, environ: Mapping[str, str]) -> str:
    """--lang, else ATTN_LANG, else Spanish when the locale (LC_ALL, then LANG) is es_*."""
    if option is not None:
        return option
    chosen = environ.get("ATTN_LANG", "").strip().lower()
    if chosen in LANGUAGES:
        return chosen
    for variable in ("LC_ALL", "LANG"):
        locale = environ.get(variable, "")
        if locale:
            return "es" if locale.lower().startswith("es") else "en"
    return "en"
