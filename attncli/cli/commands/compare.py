"""attn compare-scores: additive against multiplicative scoring, and its options."""

from typing import TYPE_CHECKING, Annotated

from attncli.cli.commands import command
from attncli.cli.declare import Option
from attncli.present.output import Settings

if TYPE_CHECKING:
    pass

# attn compare-scores
TxOption = Annotated[
    int,
    Option(
        "--tx",
        help="Encoder positions T_x (the keys).",
        es="Posiciones del codificador T_x (las claves).",
    ),
]
TyOption = Annotated[
    int,
    Option(
        "--ty",
        help="Decoder positions T_y (the queries).",
        es="Posiciones del decodificador T_y (las consultas).",
    ),
]
DhOption = Annotated[
    int, Option("--d-h", help="Size d_h of every state.", es="Tamaño d_h de cada estado.")
]
DaOption = Annotated[
    int,
    Option(
        "--d-a",
        help="Hidden size d_a of the additive score.",
        es="Tamaño oculto d_a de la puntuación aditiva.",
    ),
]
StatesSeedOption = Annotated[
    int,
    Option(
        "--seed",
        min=0,
        max=2**64 - 1,
        help="Seed for the states and parameters.",
        es="Semilla de los estados y los parámetros.",
    ),
]
RepeatOption = Annotated[
    int,
    Option(
        "--repeat",
        help="Timed runs per method, interleaved, after a warm-up.",
        es=("Ejecuciones medidas por método, intercaladas, tras un calentamiento."),
    ),
]
ThreadsOption = Annotated[
    int,
    Option(
        "--threads",
        help="BLAS threads, the same for every method.",
        es="Hilos BLAS, los mismos para cada método.",
    ),
]
SweepOption = Annotated[
    str,
    Option(
        "--d-k",
        help="d_k values for the scaling sweep, e.g. 8,64,512.",
        es="Valores de d_k para el barrido de escala, p. ej. 8,64,512.",
    ),
]
# The option's earlier name, still read, no longer shown.
OldSweepOption = Annotated[str | None, Option("--dk", hidden=True)]


@command(
    "compare-scores",
    es="""Aditiva (Bahdanau) frente a multiplicativa (Luong): lo que cuesta cada una.

    Puntúa de cuatro maneras (aditiva, general, producto escalar, escalada) una rejilla
    T_y × T_x de estados sembrados y muestra lado a lado los parámetros, los productos y
    sumas, las evaluaciones de tanh, los números del intermedio y el tiempo medido;
    comprueba que puntuar pareja a pareja da la misma rejilla que la forma matricial; y
    recorre d_k para mostrar por qué se divide entre √d_k. Las cuentas son exactas; los
    tiempos dependen de la máquina.

    Ejemplo: attn compare-scores --d-a 64
    """,
)
def compare_scores(
    tx: TxOption = 60,
    ty: TyOption = 60,
    d_h: DhOption = 256,
    d_a: DaOption = 256,
    seed: StatesSeedOption = 0,
    repeat: RepeatOption = 9,
    threads: ThreadsOption = 1,
    d_k: SweepOption = "8,64,512",
    dk: OldSweepOption = None,
    *,
    settings: Settings,
) -> None:
    """Additive (Bahdanau) against multiplicative (Luong) scoring: what each costs.

    Scores a T_y × T_x grid of seeded states four ways (additive, general, dot, scaled)
    and shows side by side the parameters, multiply-adds, tanh evaluations, the numbers
    held in the intermediate, and the measured time; checks that scoring pair by pair
    gives the same grid as the matrix form; and sweeps d_k to show why scores are
    divided by √d_k. Counts are exact; times depend on the machine.

    Example: attn compare-scores --d-a 64
    """
    from attncli.api.calculator import compare_scores as compare
    from attncli.present.output import emit, progress_on_stderr
    from attncli.reading.arguments import parse_dks

    d_ks = parse_dks(d_k if dk is None else dk)
    with progress_on_stderr(settings.lang) as progress:
        result = compare(
            tx,
            ty,
            d_h,
            d_a,
            seed=seed,
            repeat=repeat,
            d_ks=d_ks,
            threads=threads,
            progress=progress,
        )
    emit(result, settings)
