"""attn samples: the samples installed with attn."""

from attncli.cli.commands import command
from attncli.present.output import Output


@command()
def samples(*, output: Output) -> None:
    """The samples installed with attn: what each holds and a command that reads it.

    -i NAME (or -i samples/NAME.json where no such file exists) reads the installed one,
    so the --help examples work from any folder.

    Example: attn samples, then attn score -i tren --steps
    """
    from attncli.api.samples import samples as installed
    from attncli.present.output import emit

    emit(installed(), output)
