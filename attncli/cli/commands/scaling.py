"""attn scaling: the experiment behind the divisor √d_k, and its options."""

from typing import Annotated

from attncli.cli.commands import command
from attncli.cli.declare import Option
from attncli.messages import _
from attncli.present.output import Output

ScalingDkOption = Annotated[
    str,
    Option("--d-k", help=_("d_k values to try, e.g. 8,64,512.")),
]
KeysOption = Annotated[
    int,
    Option("--keys", help=_("Keys in each row (the lesson's sentence has 6).")),
]
RowsOption = Annotated[
    int,
    Option("--rows", help=_("Seeded rows averaged at each d_k.")),
]
ScalingSeedOption = Annotated[
    int,
    Option("--seed", min=0, max=2**64 - 1, help=_("Seed for the queries and keys.")),
]


@command()
def scaling(
    d_k: ScalingDkOption = "8,16,32,64,128,256,512",
    keys: KeysOption = 6,
    rows: RowsOption = 2000,
    seed: ScalingSeedOption = 0,
    *,
    output: Output,
) -> None:
    """Why the scores are divided by √d_k: the experiment, with numbers.

    For each d_k, seeded rows of a query against a few keys, every coordinate drawn from
    N(0, 1): the spread of the raw scores q · k (it grows as √d_k), a row's largest
    weight unscaled and ÷√d_k (the mean over the rows, and one row), the share of rows
    that are saturated (largest weight 0.95 or more), and what a row passes back to its
    scores, max α(1 − α), which vanishes when the row saturates.

    Example: attn scaling --lang es
    """
    from attncli.api.scaling import scaling as run
    from attncli.present.output import emit
    from attncli.reading.parse.arguments import parse_dks

    emit(run(parse_dks(d_k), keys=keys, rows=rows, seed=seed), output)
