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


@command(
    outputs=("answers", "digits"),
    es="""Un problema nuevo para hacer a mano: score, softmax y mix, con celdas vacías.

    Números enteros pequeños, como en el curso: una consulta de 0 y 1, claves de 0 a 2,
    valores de 5 en 5. --answers imprime la solución tras la hoja. Encadenado o con
    --json escribe el problema (y con --answers los resultados), para que el estudiante
    compruebe su trabajo: attn exercise | attn score | attn softmax | attn mix

    Ejemplo: attn exercise --seed 7 --lang es --answers
    """,
)
def exercise(
    seed: ProblemSeedOption = 0,
    size: SizeOption = 3,
    dim: DimOption = 2,
    *,
    settings: Settings,
) -> None:
    """A fresh problem to work by hand: score, softmax and mix, with empty cells to fill.

    Small whole numbers, as in the course: a query of 0s and 1s, keys from 0 to 2,
    values in steps of 5. --answers prints the filled key after the worksheet. Piped
    or with --json it writes the problem (and with --answers the results), so a student
    can check the work: attn exercise | attn score | attn softmax | attn mix

    Example: attn exercise --seed 7 --lang es --answers
    """
    from dataclasses import replace

    from attncli.api.calculator import exercise as make
    from attncli.present.output import emit

    result = make(seed, size, dim)
    # The worksheet is what a terminal shows, not steps asked for: piped, the problem as JSON.
    settings = replace(settings, steps=False, blank=True)
    emit(result, settings, document=result.to_document(answers=settings.answers))
