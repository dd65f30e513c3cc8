"""attn samples: the samples installed with attn."""

from attncli.cli.commands import command
from attncli.present.output import Settings


@command(
    es="""Los ejemplos instalados con attn: qué contiene cada uno y una orden que lo lee.

    -i NOMBRE (o -i samples/NOMBRE.json donde no exista ese fichero) lee el instalado, así
    que los ejemplos de --help funcionan desde cualquier carpeta.

    Ejemplo: attn samples, y luego attn score -i tren --steps
    """,
)
def samples(*, settings: Settings) -> None:
    """The samples installed with attn: what each holds and a command that reads it.

    -i NAME (or -i samples/NAME.json where no such file exists) reads the installed one,
    so the --help examples work from any folder.

    Example: attn samples, then attn score -i tren --steps
    """
    from attncli.api.samples import samples as installed
    from attncli.present.output import emit

    emit(installed(), settings)
