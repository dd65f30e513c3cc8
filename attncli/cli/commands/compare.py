"""attn compare-scores: additive against multiplicative scoring, and its options."""

from typing import TYPE_CHECKING, Annotated

from attncli.cli.commands import command
from attncli.cli.declare import Option
from attncli.messages import _
from attncli.present.output import Output

if TYPE_CHECKING:
    pass

# attn compare-scores
TxOption = Annotated[
    int,
    Option(
        "--tx",
        help=_("Encoder positions T_x (the keys)."),
    ),
]
TyOption = Annotated[
    int,
    Option(
        "--ty",
        help=_("Decoder positions T_y (the queries)."),
    ),
]
DhOption = Annotated[int, Option("--d-h", help=_("Size d_h of every state."))]
DaOption = Annotated[
    int,
    Option(
        "--d-a",
        help=_("Hidden size d_a of the additive score."),
    ),
]
StatesSeedOption = Annotated[
    int,
    Option(
        "--seed",
        min=0,
        max=2**64 - 1,
        help=_("Seed for the states and parameters."),
    ),
]
RepeatOption = Annotated[
    int,
    Option(
        "--repeat",
        help=_("Timed runs per method, interleaved, after a warm-up."),
    ),
]
ThreadsOption = Annotated[
    int,
    Option(
        "--threads",
        help=_("BLAS threads, the same for every method."),
    ),
]
SweepOption = Annotated[
    str,
    Option(
        "--d-k",
        help=_("d_k values for the scaling sweep, e.g. 8,64,512."),
    ),
]
# The option's earlier name, still read, no longer shown.
OldSweepOption = Annotated[str | None, Option("--dk", hidden=True)]


@command(
    "compare-scores",
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
    output: Output,
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
    from attncli.reading.parse.arguments import parse_dks

    d_ks = parse_dks(d_k if dk is None else dk)
    with progress_on_stderr(output.lang) as progress:
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
    emit(result, output)
