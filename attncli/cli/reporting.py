"""The one place where an error becomes a line on stderr and an exit status, for a command
run by Typer (group.AttnGroup) or directly (fastpath)."""

import os
import sys
from collections.abc import Callable

from attncli.errors import AttnError, ExitStatus
from attncli.messages import Message, _


def outcome(
    run: Callable[[], object],
    language: Callable[[], str],
    passthrough: tuple[type[BaseException], ...] = (),
) -> int:
    """Run a command: 0 when it succeeds, else the exit status, once its error is told in
    one line on stderr in `language()`. Exceptions of the `passthrough` types (Click's
    own) are left to the caller."""
    try:
        run()
    except passthrough:
        raise
    except AttnError as error:
        report(error.message(language()))
        return int(error.exit_code)
    except KeyboardInterrupt:
        # Ctrl-C where a command lets it through (attn train around its loop): silent, as
        # attn's own handler ends every other run (cli/entry.main)
        _silence_stdout()
        return int(ExitStatus.INTERRUPTED)
    except MemoryError:
        # past what this machine could give, though the sizes passed the memory check
        # (limits.py measures free memory before reading; another process may take it)
        report(
            Message(
                _(
                    "out of memory: the sizes asked for need more than this machine could give; "
                    "lower them (a sentence's length, --d-model, --d-a, --heads) and try again"
                )
            ).said(language(), "cli")
        )
        return int(ExitStatus.INPUT_ERROR)
    except BrokenPipeError:
        # The reader (head, less) went away: nothing left to say to it, but the output
        # was cut, so not a success (128 + SIGPIPE, as a shell reports it).
        _silence_stdout()
        return int(ExitStatus.BROKEN_PIPE)
    except OSError as error:
        if getattr(error, "filename", None) is not None:
            raise  # a file we were reading; our own readers already say what went wrong
        _silence_stdout()
        reason = (error.strerror or str(error)).lower()  # the system's words
        report(Message(_("cannot write output: {reason}"), reason=reason).said(language(), "cli"))
        return int(ExitStatus.OUTPUT_ERROR)
    except Exception as error:
        if _debugging():
            raise
        bug = Message(
            _(
                "internal error: {kind}: {error} (this is a bug in attn; rerun with "
                "ATTN_DEBUG=1 for the traceback)"
            ),
            kind=type(error).__name__,
            error=str(error),
        )
        report(bug.said(language(), "cli"))
        return int(ExitStatus.INTERNAL_ERROR)
    return int(ExitStatus.SUCCESS)


# A word (a run without spaces) longer than this in an error line is input echoed whole:
# a path or a name of attn's own is shorter. The sites that echo input cut it to about 40
# characters (errors.shown); this is the net under them, Click's own lines included.
LONGEST_WORD = 200


def report(message: str) -> None:
    """The one line on stderr, written as is: no terminal width (COLUMNS=0) can lose it;
    a word of more than LONGEST_WORD characters (a long input echoed) cut, so that no line
    carries a whole file or argument back."""
    from attncli.present.language import printable

    sys.stderr.write(f"attn: error: {cut_long_words(printable(message))}\n")
    sys.stderr.flush()


def cut_long_words(line: str, longest: int = LONGEST_WORD) -> str:
    """`line` with every word (a run between spaces; printable() has made tabs and line
    breaks visible escapes) longer than `longest` cut as errors.shown cuts an echo. It
    reads lengths, never words: no wording changes what it does."""
    if len(line) <= longest:
        return line
    from attncli.errors import shown

    return " ".join(shown(word) if len(word) > longest else word for word in line.split(" "))


def _debugging() -> bool:
    return os.environ.get("ATTN_DEBUG", "") not in ("", "0")


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that the flush at exit cannot fail a second time."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
