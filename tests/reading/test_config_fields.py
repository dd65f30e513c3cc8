"""config_fields' readers (reading/models/config_fields.py): a field under one of its names
(GPT-2's n_layer beside num_hidden_layers), a whole number with its least, each refusal held
by its msgid and the name the config gave."""

from __future__ import annotations

import pytest

from attncli.errors import InputError
from attncli.reading.models.attention_config import shape_of
from attncli.reading.models.config_fields import field, whole
from tests.meaning import WRONG, in_file, told

LAYERS = ("num_hidden_layers", "n_layer")
MISSING = "{path}: the field {name} is missing, and attn needs it to read the model"
POSITIVE = ("a positive whole number", {})
NOT_NEGATIVE = ("a whole number ≥ 0", {})


def test_a_field_is_read_under_the_first_name_the_config_gives():
    assert whole({"n_layer": 3}, LAYERS, "c.json") == 3
    assert whole({"num_hidden_layers": 2, "n_layer": 3}, LAYERS, "c.json") == 2
    assert whole({"num_hidden_layers": None, "n_layer": 3}, LAYERS, "c.json") == 3
    assert whole({}, LAYERS, "c.json", 4) == 4
    assert field({"head_dim": None}, "head_dim", "c.json", 64) == 64


def test_a_missing_field_names_its_first_name():
    with pytest.raises(InputError) as caught:
        whole({"n_embd": 8}, LAYERS, "c.json")
    told(caught.value, InputError, MISSING, name="num_hidden_layers", path="c.json")


@pytest.mark.parametrize("value", [0, -1, True, 2.0, "2"])
def test_a_bad_value_is_refused_under_the_name_the_config_gave_it(value):
    with pytest.raises(InputError) as caught:
        whole({"n_layer": value}, LAYERS, "c.json")
    told(caught.value, InputError, WRONG, where=in_file("c.json", "n_layer"), expected=POSITIVE)


@pytest.mark.parametrize(("value", "least", "read"), [(0, 0, 0), (5, 0, 5), (1, 1, 1)])
def test_the_least_whole_number(value, least, read):
    assert whole({"max_window_layers": value}, "max_window_layers", "c.json", least=least) == read


@pytest.mark.parametrize("value", [-1, False, 1.5, "0"])
def test_a_count_below_zero_or_not_whole_is_refused(value):
    with pytest.raises(InputError) as caught:
        whole({"max_window_layers": value}, "max_window_layers", "c.json", 28, least=0)
    told(caught.value, InputError, WRONG, where=in_file("c.json", "max_window_layers"),
         expected=NOT_NEGATIVE)  # fmt: skip


def test_attn_cost_reads_gpt2_s_names_and_refuses_a_bad_max_window_layers():
    gpt2 = {"model_type": "gpt2", "n_layer": 2, "n_embd": 8, "n_head": 2}
    assert shape_of(gpt2, "c.json").layers == 2
    with pytest.raises(InputError) as caught:
        shape_of({**gpt2, "n_head": 0}, "c.json")
    told(caught.value, InputError, WRONG, where=in_file("c.json", "n_head"), kind="0",
         expected=POSITIVE)  # fmt: skip
    qwen = {"model_type": "qwen2", "num_hidden_layers": 2, "hidden_size": 8,
            "num_attention_heads": 2, "sliding_window": 4, "use_sliding_window": True}  # fmt: skip
    assert shape_of({**qwen, "max_window_layers": 1}, "c.json").windows == (None, 4)
    with pytest.raises(InputError) as caught:  # compared with each layer's number, unread
        shape_of({**qwen, "max_window_layers": "1"}, "c.json")
    told(caught.value, InputError, WRONG, where=in_file("c.json", "max_window_layers"), kind='"1"',
         expected=NOT_NEGATIVE)  # fmt: skip
