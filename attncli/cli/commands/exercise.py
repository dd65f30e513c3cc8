"""attn exercise: a problem to work by hand, and its options."""

from typing import TYPE_CHECKING, Annotated

from attncli.cli.commands import command
from attncli.cli.declare import Option
from attncli.present.output import Settings

if TYPE_CHECKING:
    pass

# attn exercise
ProblemSeedOption = Annotated[
    int,
    Option(
        "--seed",
        min=0,
        max=2**64 - 1,
        help="Which problem: each seed gives another.",
        es="Qué problema: cada semilla da otro.",
    ),
]
SizeOption = Annotated[
    int,
    Option(
        "--size", help="How many tokens (keys and values).", es="Cuántos tokens (claves y valores)."
    ),
]
DimOption = Annotated[int, Option("--dim", help="Numbers per vector.", es="Números por vector.")]
CountOption = Annotated[
    int,
    Option(
        "--count",
        min=1,
        max=100,
        help="A class set: this many different sheets (seeds --seed, --seed + 1, …), each "
        "numbered with its seed, a page each in .tex and .html.",
        es="Un juego para la clase: tantas hojas distintas (semillas --seed, --seed + 1, …), "
        "cada una numerada con su semilla, una página cada una en .tex y .html.",
    ),
]
AnswersOnlyOption = Annotated[
    bool,
    Option(
        "--answers-only",
        help="The answer keys alone, each numbered as its sheet, to print apart.",
        es="Solo las soluciones, cada una numerada como su hoja, para imprimirlas aparte.",
    ),
]


@command(
    outputs=("answers", "digits"),
    es="""Un problema nuevo para hacer a mano: score, softmax y mix, con celdas vacías.

    Números enteros pequeños, como en el curso: una consulta de 0 y 1, claves de 0 a 2,
    valores de 5 en 5. --answers imprime la solución tras la hoja. Encadenado o con
    --json escribe el problema (y con --answers los resultados), para que el estudiante
    compruebe su trabajo: attn exercise | attn score | attn softmax | attn mix

    Un juego para la clase: attn exercise --count 30 --export hoja.tex, y las soluciones
    aparte: attn exercise --count 30 --answers-only --export soluciones.tex

    Ejemplo: attn exercise --seed 7 --lang es --answers
    """,
)
def exercise(
    seed: ProblemSeedOption = 0,
    size: SizeOption = 3,
    dim: DimOption = 2,
    count: CountOption = 1,
    answers_only: AnswersOnlyOption = False,
    *,
    settings: Settings,
) -> None:
    """A fresh problem to work by hand: score, softmax and mix, with empty cells to fill.

    Small whole numbers, as in the course: a query of 0s and 1s, keys from 0 to 2,
    values in steps of 5. --answers prints the filled key after the worksheet. Piped
    or with --json it writes the problem (and with --answers the results), so a student
    can check the work: attn exercise | attn score | attn softmax | attn mix

    A class set: attn exercise --count 30 --export hoja.tex, and its keys apart:
    attn exercise --count 30 --answers-only --export soluciones.tex

    Example: attn exercise --seed 7 --lang es --answers
    """
    from dataclasses import replace

    from attncli.api.calculator import exercise as make
    from attncli.present.output import emit

    # The worksheet is what a terminal shows, not steps asked for: piped, the problem as JSON.
    settings = replace(settings, steps=False, blank=True)
    if count == 1 and not answers_only:
        result = make(seed, size, dim)
        emit(result, settings, document=result.to_document(answers=settings.answers))
        return
    from attncli.api.calculator import exercise_set

    sheets = exercise_set(seed, size, dim, count, key_only=answers_only)
    emit(sheets, settings, document=sheets.to_document(answers=settings.answers))
