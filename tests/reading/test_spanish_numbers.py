"""Spanish numbers that read: the comma is the decimal mark, «;» separates a vector's
numbers and «|» a matrix's rows in an option, on every Spanish screen and in what a Spanish
student types back; a line that reads two ways is refused naming both; English unchanged."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attncli.errors import InputError
from attncli.explore.chain import ChainExplorer, read_numbers
from attncli.present.format import Format
from attncli.reading.parse.arguments import parse_inline
from tests.meaning import told


@pytest.mark.parametrize(
    ("text", "lang", "read"),
    [
        ("0,5", "es", [0.5]),
        ("0,5; 1", "es", [0.5, 1]),
        ("-2,11; 0,26", "es", [-2.11, 0.26]),
        ("0,5;1", "es", [0.5, 1]),
        ("2; 1 | 0; 2", "es", [[2, 1], [0, 2]]),
        ("2; 0,5 | 0; 2", "es", [[2, 0.5], [0, 2]]),
        ("[[2, 1], [0, 2]]", "es", [[2, 1], [0, 2]]),
        ("1,0", "en", [1, 0]),
        ("2,1;0,2", "en", [[2, 1], [0, 2]]),
        ("2,0.5;0,2", "en", [[2, 0.5], [0, 2]]),
    ],
)
def test_an_option_reads_numbers_as_its_language_writes_them(text, lang, read):
    assert parse_inline(text, "keys", lang) == read


def test_a_spanish_line_that_reads_two_ways_is_refused_naming_both():
    with pytest.raises(InputError) as raised:
        parse_inline("1,0;0,1", "keys", "es")
    told(raised.value, InputError,
         "{option} {text!r} reads two ways: the numbers {numbers}, or the rows {rows} written the "
         "English way; write the rows with '{rows_mark}' between them, or give JSON",
         text="1,0;0,1", numbers="(1,0; 0,1)", rows="(1, 0) | (0, 1)", rows_mark="|")  # fmt: skip
    said = raised.value.message("es")  # said in Spanish, both readings with their marks
    assert "(1,0; 0,1)" in said and "(1, 0) | (0, 1)" in said and "'|'" in said
    with pytest.raises(InputError):
        parse_inline("-2,11;0,26", "query", "es")
    # as a Spanish screen prints them, a space after each «;»: one reading only
    assert parse_inline("1,50; 1,50", "query", "es") == [1.5, 1.5]


def test_a_spanish_vector_is_written_with_semicolons_an_english_one_with_commas():
    assert Format(lang="es").vector([0.26, 0.61, -2.11]) == "0,26; 0,61; -2,11"
    assert Format(lang="en").vector([0.26, 0.61, -2.11]) == "0.26, 0.61, -2.11"


@pytest.mark.slow  # hypothesis at length: the full run's
@settings(max_examples=200, deadline=None)
@given(
    values=st.lists(
        st.floats(-999, 999, allow_nan=False).map(lambda x: round(x, 2)), min_size=1, max_size=6
    ),
    lang=st.sampled_from(["es", "en"]),
)
def test_what_a_screen_prints_types_back_as_the_same_numbers(values, lang):
    printed = Format(lang=lang).vector(values)
    read = parse_inline(printed, "query", lang)
    read = read if isinstance(read, list) else [read]
    assert read == pytest.approx(values, abs=1e-9)


def test_the_mix_steps_in_spanish_type_back(run, run_json):
    steps = run("mix", "--weights", "0,665; 0,090; 0,245", "--values", "10; 0 | 0; 10 | 5; 5",
                "--steps", "--lang", "es").stdout  # fmt: skip
    assert "10; 0" in steps and "6,65; 0" in steps and "unos 7,88; 2,12" in steps
    again = run_json("score", "--query", "7,88; 2,12", "--keys", "1; 0 | 0; 1", "--lang", "es")
    assert again["scores"] == [7.88, 2.12]


def test_the_explorers_fields_speak_the_language_and_switch_with_it():
    assert read_numbers("0,5; 1", "query", "es") == [0.5, 1]

    async def run_it():
        document = {"query": [0.5, 1], "keys": [[2, 1], [0, 2]], "values": [[1, 0], [0, 1]]}
        app = ChainExplorer(document, lang="es")
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            spanish = (app.query_text, list(app.key_texts), app.chain is not None)
            app.switch_language("en")
            await pilot.pause()
            english = (app.query_text, list(app.key_texts), app.chain is not None)
        return spanish, english

    spanish, english = asyncio.run(run_it())
    assert spanish == ("0,5; 1", ["2; 1", "0; 2"], True)
    assert english == ("0.5, 1", ["2, 1", "0, 2"], True)
