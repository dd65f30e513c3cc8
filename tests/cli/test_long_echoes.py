"""A long bad input is never echoed whole: every error line that quotes what the user gave
(an option's value, a name, a path, Click's own usage errors) cuts it to about 40
characters, 200 for a file's path, and the line under them all cuts any word longer than
200 characters, so that a 100 KB argument gives a line of a few hundred bytes."""

from __future__ import annotations

import pytest

from attncli.cli.reporting import LONGEST_WORD, cut_long_words
from attncli.errors import AttnError

LONG = "z" * 5000
SPACED = "ab " * 3000
HEADLINE = "las llaves"

CASES = [
    ("selfattn", HEADLINE, "--show", LONG),
    ("selfattn", HEADLINE, "--show", SPACED),
    ("selfattn", HEADLINE, "--model", LONG),
    ("selfattn", HEADLINE, "--model", "org/" + LONG),
    ("selfattn", HEADLINE, "--model", SPACED),
    ("selfattn", HEADLINE, "--fields", "x," + LONG),
    ("train", HEADLINE, "--want", "las=" + LONG),
    ("train", HEADLINE, "--want", LONG + "=las"),
    ("train", HEADLINE, "--want", SPACED + "=las"),
    ("train", "ab " * 3000 + "z", "--want", "ab=z"),  # a token 3,000 times: its positions
    ("selfattn", HEADLINE, "--weights", "samples/mha.safetensors", "--prefix", LONG),
    ("selfattn", "-i", LONG),
    ("selfattn", "-i", SPACED),
    ("selfattn", HEADLINE, "--export", "a." + LONG[:200]),
    ("selfattn", HEADLINE, "--export", SPACED + ".zz"),
    ("selfattn", HEADLINE, "--lang", LONG),
    ("selfattn", HEADLINE, "--lang", SPACED),
    ("selfattn", HEADLINE, "--positions", SPACED),
    ("exercise", "--method", SPACED),
    ("samples", LONG),
    ("selfattn", HEADLINE, "--" + LONG),
    (LONG,),
]


@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize("args", CASES, ids=lambda args: " ".join(a[:12] for a in args))
def test_a_long_input_is_cut_in_its_error_line(run, args, lang):
    chosen = len(args) > 1 and "--lang" not in args  # else the case's own --lang
    result = run(*args, "--lang", lang) if chosen else run(*args)
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1
    assert len(result.stderr) < 600, result.stderr[:300]
    if result.error is not None:  # attn's own error (else one of Click's)
        assert isinstance(result.error, AttnError)
        for value in result.error.fields.values():
            assert not isinstance(value, str) or len(value) <= 200


def test_the_net_cuts_only_words_past_the_longest():
    path = "/home/user/.cache/huggingface/hub/models--org--name/snapshots/" + "a" * 40
    assert cut_long_words(f"cannot read {path}") == f"cannot read {path}"
    cut = cut_long_words("bad 'x" + "y" * 10_000 + "' here")
    assert cut.startswith("bad 'xyy") and cut.endswith("... here") and len(cut) < 60
    word = "w" * (LONGEST_WORD + 1)
    assert cut_long_words(f"{word} and {word}").count("...") == 2
