"""Phrases few screens need (compare-scores' progress, the plot's axes, attn samples, a
grid's note on tiny numbers or on its cursor, worksheets' extras), English and Spanish;
present/language.py joins them to its table."""

EXTRA_PHRASES: dict[str, tuple[str, str]] = {
    # compare-scores progress, on stderr
    "progress_timing": ("timing {method}", "midiendo {method}"),
    "progress_loop": ("scoring {method} pair by pair", "puntuando {method} pareja a pareja"),
    "progress_sweep": ("scaling sweep", "barrido de d_k"),
    # plot
    "plot_columns": ("who answers (key)", "quién contesta (clave)"),
    "plot_rows": ("who asks (query)", "quién pregunta (consulta)"),
    # a grid with a cursor (attn explore)
    "elided_cursor": (
        "{mark} showing {rows} of {all_rows} rows and {columns} of {all_columns} columns; "
        "the cursor brings the others into sight",
        "{mark} se ven {rows} de {all_rows} filas y {columns} de {all_columns} columnas; "
        "el cursor trae las demás a la vista",
    ),
    "sample_name": ("Sample", "Ejemplo"),
    "sample_holds": ("What it holds", "Qué contiene"),
    "sample_try": ("Try", "Prueba"),
    "samples_where": (
        "Installed in {folder}; -i NAME reads one from any folder",
        "Instalados en {folder}; -i NOMBRE lee uno desde cualquier carpeta",
    ),
    "legend_flat": (
        "one shade: every weight is {weight} to the digits shown",
        "un solo tono: todos los pesos son {weight} con los decimales mostrados",
    ),
    "scientific": (
        "every number here rounds to 0 at {digits} decimals, so they are written as {example}",
        "cada número de aquí se redondea a 0 con {digits} decimales: se escriben como {example}",
    ),
    "sheet": (
        "Sheet {number} of {count} · seed {seed}",
        "Hoja {number} de {count} · semilla {seed}",
    ),
    # attn exercise --method, --selfattn
    "exercise_given": ("Given:", "Datos:"),
    "selfattn_exercise_intro": (
        "Self-attention over {count} tokens, each with its x. Work out every token's q, k "
        "and v, then the scores (÷ √d_k), weights and output of «{token}».",
        "Autoatención sobre {count} tokens, cada uno con su x. Calcula q, k y v de cada "
        "token, y luego las puntuaciones (÷ √d_k), los pesos y la salida de «{token}».",
    ),
    "projections_given": (
        "W^Q, W^K and W^V, a row for each number of x",
        "W^Q, W^K y W^V, una fila por cada número de x",
    ),
    "projection_steps": (
        "Queries, keys and values: each row of X times W^Q, W^K and W^V",
        "Consultas, claves y valores: cada fila de X por W^Q, W^K y W^V",
    ),
    "times_general": ("× general", "× la general"),
    "peak_mean": ("Largest weight of a row at init", "Mayor peso de una fila al iniciar"),
    "peak_range": ("  rows' range; uniform {uniform}", "  rango; uniforme {uniform}"),
    "draw_unscaled": ("one row, unscaled", "una fila, sin escalar"),
    "draw_scaled": ("one row, ÷ √d_k", "una fila, ÷ √d_k"),
    "draw_note": (
        "The average over many rows is what ÷√d_k guarantees (flat); one seeded row, as one "
        "run of the lesson draws, wanders around it.",
        "La media sobre muchas filas es lo que garantiza ÷√d_k (plana); una fila sembrada, como "
        "la que saca una ejecución de la lección, oscila a su alrededor.",
    ),
}
