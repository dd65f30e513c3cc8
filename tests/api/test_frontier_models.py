"""Qwen3 and OLMo 2 (QK-norm), Gemma 2 and 3 (softcapping, query_pre_attn_scalar, norms
around each block, sliding and full layers, a rotary base per layer type) and scaled rotary
positions under --model: attn's numpy pass on
the tiny checkpoints of tests/models against what transformers computed on them
(tests/references/frontier.json, made by tests/references/make_frontier.py; no torch).

As for the Llama family (tests/api/test_llama_models.py), each model is held twice: to
transformers as shipped (its RMSNorms, QK-norm among them, its rotary angles and softmax in
float32) within float32's rounding, and to the same pass with those steps in float64 to
the last digits."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from attncli.core.predict import head_logits
from attncli.core.rotary import Scaling
from attncli.core.transformer import forward
from attncli.errors import InputError, ShapeError
from attncli.reading.models.checkpoint import MISSING_PART
from attncli.reading.models.model import load_model
from tests import tiny_models
from tests.meaning import told
from tests.model_runs import held, run_model

MODELS = Path(__file__).resolve().parent.parent / "models"
REFERENCE = json.loads(
    (Path(__file__).resolve().parent.parent / "references" / "frontier.json").read_text()
)["models"]
NAMES = ("tiny-qwen3", "tiny-olmo2", "tiny-gemma2", "tiny-gemma3", "tiny-gpt-oss",
         "tiny-deepseek-v3")  # fmt: skip


@pytest.mark.parametrize("name", NAMES)
def test_the_token_ids_are_transformers(name):
    model = load_model(str(MODELS / name))
    for case in REFERENCE[name]["ids"]:
        assert model.tokenizer.encode(case["sentence"]).ids.tolist() == case["ids"]


@pytest.mark.parametrize("name", NAMES)
def test_every_layer_equals_transformers_as_shipped(name):
    reference = REFERENCE[name]["shipped"]
    model, encoded, run = run_model(MODELS / name, reference["sentence"])
    assert encoded.ids.tolist() == reference["ids"]
    held(run, model, reference, attention=1e-5, hidden=1e-5, logits=1e-5, layers=2)


@pytest.mark.parametrize("name", NAMES)
def test_every_layer_equals_transformers_in_float64_to_the_last_digits(name):
    reference = REFERENCE[name]["float64"]
    model, _encoded, run = run_model(MODELS / name, reference["sentence"])
    held(run, model, reference, attention=1e-12, hidden=1e-12, logits=1e-12, layers=2)


def test_the_families_differ_where_their_configs_do():
    qwen3 = load_model(str(MODELS / "tiny-qwen3")).architecture
    olmo2 = load_model(str(MODELS / "tiny-olmo2")).architecture
    assert (qwen3.qk_norm, qwen3.head_dim, qwen3.tied) == ("head", 16, True)
    assert qwen3.rope_scaling == Scaling(
        "yarn", 4.0, original_positions=16, beta_fast=2.0, beta_slow=0.25
    )
    assert qwen3.rope_attention_factor() == pytest.approx(1.1386294361119891)
    assert (olmo2.qk_norm, olmo2.tied, olmo2.rope_base) == ("projection", False, 500000.0)
    block = load_model(str(MODELS / "tiny-olmo2")).network.blocks[0]
    assert block.norm_1 is None and block.norm_2 is None
    assert block.q_norm is not None and block.q_norm.shape == (32,)
    assert block.k_norm is not None and block.k_norm.shape == (16,)


def _copy(tmp_path: Path, name: str, change) -> Path:
    folder = tmp_path / name
    shutil.copytree(MODELS / name, folder)
    path = folder / "config.json"
    config = json.loads(path.read_text())
    change(config)
    path.write_text(json.dumps(config))
    return folder


def test_longrope_takes_its_long_factors_on_a_sentence_past_the_original_length(tmp_path):
    reference = REFERENCE["qwen3-longrope"]
    folder = _copy(tmp_path, "tiny-qwen3", lambda config: config.update(reference["config"]))
    model, encoded, run = run_model(folder, reference["float64"]["sentence"])
    assert len(encoded.ids) > 6  # past original_max_position_embeddings
    held(run, model, reference["float64"], attention=1e-12, hidden=1e-12, logits=1e-12, layers=2)
    held(run, model, reference["shipped"], attention=1e-5, hidden=1e-5, logits=1e-5, layers=2)


def test_without_its_scaling_qwen3_would_differ():
    # the yarn scaling is felt: the same weights with plain rotary positions are another
    # model, far from the reference
    reference = REFERENCE["tiny-qwen3"]["float64"]
    model = load_model(str(MODELS / "tiny-qwen3"))
    from dataclasses import replace

    model.network.architecture = replace(model.architecture, rope_scaling=None)
    run = forward(model.network, model.tokenizer.encode(reference["sentence"]).ids)
    gap = np.abs(run.layers[1].attention.weights - np.array(reference["attentions"][1])).max()
    assert gap > 1e-3


def test_a_missing_qk_norm_is_named(tmp_path):
    from safetensors.numpy import save_file

    from attncli.reading.parse.tensor_files import open_tensors

    folder = tmp_path / "tiny-qwen3"
    shutil.copytree(MODELS / "tiny-qwen3", folder)
    path = folder / "model.safetensors"
    held = open_tensors(str(path))
    tensors = {k: np.asarray(held[k]) for k in held if "layers.1.self_attn.k_norm" not in k}
    save_file(tensors, str(path))
    model = load_model(str(folder))
    with pytest.raises(InputError) as caught:
        model.network.blocks[1]
    told(caught.value, InputError, MISSING_PART, name="model.layers.1.self_attn.k_norm.weight")


def test_a_qk_norm_of_another_size_is_refused(tmp_path):
    from safetensors.numpy import save_file

    from attncli.reading.parse.tensor_files import open_tensors

    folder = tmp_path / "tiny-olmo2"
    shutil.copytree(MODELS / "tiny-olmo2", folder)
    path = folder / "model.safetensors"
    held = open_tensors(str(path))
    tensors = {k: np.asarray(held[k]) for k in held}
    name = "model.layers.0.self_attn.q_norm.weight"
    tensors[name] = tensors[name][:8]
    save_file(tensors, str(path))
    with pytest.raises(ShapeError) as caught:
        load_model(str(folder)).network.blocks[0]
    assert caught.value.fields["where"] == name


def test_the_sentences_come_from_the_shared_list():
    assert REFERENCE["tiny-qwen3"]["shipped"]["sentence"] == tiny_models.SENTENCES[0]


def test_the_steps_show_each_pair_before_and_after_the_scaling():
    from attncli.api.model import model_selfattn
    from attncli.explain.rope_scaling import RopePairs

    result = model_selfattn(tiny_models.SENTENCES[0], str(MODELS / "tiny-qwen3"), head=2)
    table = result.steps(token="table")[0]
    assert isinstance(table, RopePairs) and table.tokens == 9 and len(table.rows) == 8
    case = json.loads(
        (Path(__file__).resolve().parent.parent / "references" / "frontier.json").read_text()
    )["rope"]["yarn-tiny-qwen3"]["runs"][0]["float64"]
    np.testing.assert_allclose([row.scaled for row in table.rows], case["inv_freq"], rtol=1e-12)
    assert table.attention_factor == pytest.approx(case["attention_factor"], abs=1e-12)
    # the first pair is kept (it turns often over 16 positions), the last divided by 4
    assert table.rows[0].divided_by == 1.0 and table.rows[-1].divided_by == pytest.approx(4.0)
    document = result.to_document()
    assert document["rope_parameters"]["rope_type"] == "yarn"
    assert document["rope_parameters"]["original_max_position_embeddings"] == 16
    np.testing.assert_allclose(document["rope_frequencies"], case["inv_freq"], rtol=1e-12)
    assert document["qk_norm"] == "head"


def test_a_model_without_scaling_has_no_such_step():
    from attncli.api.model import model_selfattn
    from attncli.explain.rope_scaling import RopePairs

    result = model_selfattn(tiny_models.SENTENCES[0], str(MODELS / "tiny-olmo2"), head=1)
    assert not any(isinstance(step, RopePairs) for step in result.steps(token="table"))


def test_gemmas_layers_and_their_settings_are_their_configs():
    gemma2 = load_model(str(MODELS / "tiny-gemma2")).architecture
    gemma3 = load_model(str(MODELS / "tiny-gemma3")).architecture
    assert gemma2.windows == (4, None) and gemma3.windows == (4, None)  # sliding, then full
    assert (gemma2.query_scalar, gemma2.attn_softcap, gemma2.final_softcap) == (24.0, 2.0, 5.0)
    assert (gemma3.query_scalar, gemma3.attn_softcap, gemma3.final_softcap) == (20.0, None, None)
    assert gemma3.qk_norm == "head" and gemma2.qk_norm is None
    # Gemma 3: the sliding layer turns by its own base, the full one by rope_theta scaled ×8
    assert gemma3.rope(0) == (10000.0, None)
    assert gemma3.rope(1) == (1e6, Scaling("linear", 8.0))


def test_without_its_softcaps_gemma2_would_differ():
    from dataclasses import replace

    reference = REFERENCE["tiny-gemma2"]["float64"]
    model = load_model(str(MODELS / "tiny-gemma2"))
    assert max(reference["logits"]) < 5.0  # the final cap is felt: no logit reaches it
    model.network.architecture = replace(model.architecture, attn_softcap=None,
                                         final_softcap=None)  # fmt: skip
    run = forward(model.network, model.tokenizer.encode(reference["sentence"]).ids)
    gap = np.abs(run.layers[0].attention.weights - np.array(reference["attentions"][0])).max()
    assert gap > 1e-2
    logits = head_logits(model.network, run.last[-1:], normed=True)[0]
    assert logits.max() > 5.0


def test_predict_takes_gemma2s_softcapped_logits():
    from attncli.api.predict import predict

    reference = REFERENCE["tiny-gemma2"]["float64"]
    result = predict(reference["sentence"], model=str(MODELS / "tiny-gemma2"))
    np.testing.assert_allclose(result.logits, reference["logits"], rtol=0, atol=1e-12)
    assert result.top_ids[0] == int(np.argmax(reference["logits"]))


def test_the_softcap_step_bends_the_scores_the_softmax_takes():
    from attncli.api.model import model_selfattn
    from attncli.explain.calculator import ScoreSteps, SoftmaxSteps
    from attncli.explain.softcap import SoftcapSteps

    result = model_selfattn(tiny_models.SENTENCES[0], str(MODELS / "tiny-gemma2"), layer=1,
                            head=1)  # fmt: skip
    steps = result.steps(token="table")
    kinds = [type(step) for step in steps]
    assert kinds.index(ScoreSteps) < kinds.index(SoftcapSteps) < kinds.index(SoftmaxSteps)
    capped = steps[kinds.index(SoftcapSteps)]
    assert isinstance(capped, SoftcapSteps) and capped.cap == 2.0
    scored = steps[kinds.index(ScoreSteps)]
    assert isinstance(scored, ScoreSteps)
    row = result.scores[-1]
    shown = [r.capped for r in capped.rows]
    np.testing.assert_allclose(shown, row, rtol=0, atol=1e-15)
    # the raw scores are the score step's own, and every capped one is within ±2
    raw = [r.score for r in capped.rows]
    np.testing.assert_allclose([r.score for r in scored.rows], raw, rtol=1e-12)
    assert max(abs(x) for x in shown if np.isfinite(x)) < 2.0
    assert max(abs(x) for x in raw if np.isfinite(x)) > 2.0  # a score the cap bent


def test_gemma3s_header_says_each_layers_kind_and_its_rotary_base():
    from attncli.api.model import model_selfattn

    sliding = model_selfattn(tiny_models.SENTENCES[0], str(MODELS / "tiny-gemma3"), layer=1)
    full = model_selfattn(tiny_models.SENTENCES[0], str(MODELS / "tiny-gemma3"), layer=2)
    assert sliding.source.layer_types == ("sliding_attention", "full_attention")
    assert sliding.window == 4 and full.window is None
    assert sliding.source.rope == (10000.0, None) and full.source.other_rope == (10000.0, None)
    assert full.source.rope == (1e6, Scaling("linear", 8.0))
    document = full.to_document()
    assert document["layer_types"] == ["sliding_attention", "full_attention"]
    assert document["query_pre_attn_scalar"] == 20.0
    assert document["rope_parameters"] == {"rope_type": "linear", "rope_theta": 1e6, "factor": 8.0}


def test_gpt_oss_sinks_take_weight_from_every_row():
    from attncli.api.model import model_selfattn

    reference = REFERENCE["tiny-gpt-oss"]["float64"]
    result = model_selfattn(reference["sentence"], str(MODELS / "tiny-gpt-oss"), layer=2)
    sums = np.asarray(result.weights).sum(axis=-1)
    expected = np.array(reference["attentions"][1]).sum(axis=-1)
    np.testing.assert_allclose(sums, expected, rtol=0, atol=1e-12)
    assert (sums < 1.0).all() and sums.min() < 0.5  # the sink takes weight in every row
    document = result.to_document()
    np.testing.assert_allclose(document["sink_weights"], 1.0 - expected, rtol=0, atol=1e-12)
    assert len(document["sinks"]) == 4


def test_the_softmax_step_of_a_sink_model_has_the_sink_column():
    from attncli.api.model import model_selfattn
    from attncli.explain.calculator import SoftmaxSteps

    reference = REFERENCE["tiny-gpt-oss"]["float64"]
    result = model_selfattn(reference["sentence"], str(MODELS / "tiny-gpt-oss"), layer=2, head=3)
    softmax = next(s for s in result.steps(token="table") if isinstance(s, SoftmaxSteps))
    assert [row.token for row in softmax.rows][-1] == "sinks"
    weights = [row.weight for row in softmax.rows]
    assert sum(weights) == pytest.approx(1.0, abs=1e-12)
    expected = np.array(reference["attentions"][1])[2, -1]
    np.testing.assert_allclose(weights[:-1], expected, rtol=0, atol=1e-12)
    assert weights[-1] == pytest.approx(1.0 - expected.sum(), abs=1e-12)
    assert softmax.rows[-1].score == result.source.sinks[0]


def test_without_its_sinks_or_its_clamp_gpt_oss_would_differ():
    from dataclasses import replace

    reference = REFERENCE["tiny-gpt-oss"]["float64"]
    model = load_model(str(MODELS / "tiny-gpt-oss"))
    ids = model.tokenizer.encode(reference["sentence"]).ids
    blocks = [replace(model.network.blocks[i], sinks=None) for i in range(2)]
    unsunk = replace(model.network, blocks=blocks)
    run = forward(unsunk, ids)
    np.testing.assert_allclose(run.layers[0].attention.weights.sum(axis=-1), 1.0, atol=1e-12)
    loose = replace(model.network, architecture=replace(model.architecture, swiglu_limit=1e9))
    gap = np.abs(forward(loose, ids).hidden[1] - np.array(reference["hidden_states"][1])).max()
    assert gap > 1e-3  # the experts' clamp at 1.5 is felt


def test_gpt_oss_is_its_config():
    arch = load_model(str(MODELS / "tiny-gpt-oss")).architecture
    assert arch.sinks and arch.experts_per_token == 2 and arch.swiglu_limit == 1.5
    assert arch.windows == (4, None) and arch.biases == ("q", "k", "v", "o") and not arch.tied
    assert arch.rope_scaling is not None and arch.rope_scaling.truncate is False


def test_quantized_experts_are_refused(tmp_path):
    quantized = {"quantization_config": {"quant_method": "mxfp4"}}
    folder = _copy(tmp_path, "tiny-gpt-oss", lambda config: config.update(quantized))
    with pytest.raises(InputError) as caught:
        load_model(str(folder))
    assert caught.value.fields["method"] == '"mxfp4"'


def test_deepseeks_latent_attention_says_its_cache_and_its_absorbed_scores():
    from attncli.api.model import model_selfattn

    result = model_selfattn(tiny_models.SENTENCES[0], str(MODELS / "tiny-deepseek-v3"))
    latent = result.source.latent
    assert latent is not None and (latent.rank, latent.rope, latent.nope, latent.v) == (12, 4, 8, 6)
    assert latent.cache_numbers() == (12 + 4, 4 * (8 + 4 + 6))
    assert result.source.absorbed_gap is not None and result.source.absorbed_gap < 1e-13
    assert result.projections == {}  # no W^K or W^V: the keys come from the latent
    document = result.to_document()
    assert document["cache_numbers_per_token"] == 16 and document["kv_lora_rank"] == 12


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"n_group": 4}, "groups"),
        ({"topk_group": 4}, "top_groups"),
        ({"num_key_value_heads": 2}, "where"),  # values.WRONG, as its field
    ],
)
def test_a_deepseek_config_attn_would_misread_is_refused(tmp_path, change, field):
    folder = _copy(tmp_path, "tiny-deepseek-v3", lambda config: config.update(change))
    with pytest.raises(InputError) as caught:
        load_model(str(folder))
    assert field in caught.value.fields


def test_deepseeks_router_keeps_its_best_groups_and_adds_its_correction():
    from dataclasses import replace

    from attncli.core.experts import GroupedExperts, grouped_route

    reference = REFERENCE["tiny-deepseek-v3"]["float64"]
    model = load_model(str(MODELS / "tiny-deepseek-v3"))
    assert model.architecture.dense_layers == 1
    assert model.network.blocks[0].experts is None  # layer 1 dense
    experts = model.network.blocks[1].experts
    assert isinstance(experts, GroupedExperts) and experts.routing.groups == 3
    run = forward(model.network, model.tokenizer.encode(reference["sentence"]).ids)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(200, 32))
    chosen, _weights = grouped_route(x, experts)
    free, _w = grouped_route(x, replace(experts, routing=replace(experts.routing, top_groups=3)))
    plain, _w = grouped_route(x, replace(experts, correction=np.zeros(6)))
    assert (chosen != free).any() and (chosen != plain).any()  # both are felt
    np.testing.assert_allclose(run.hidden[2], reference["hidden_states"][2], rtol=0, atol=1e-12)


def test_the_model_view_of_local_and_global_layers_holds_each_layer_s_window():
    import attncli

    sentence = "the keys to the cabinet are on the table"
    gemma = attncli.heads(sentence, str(MODELS / "tiny-gemma2"), grid=True)
    config = json.loads((MODELS / "tiny-gemma2" / "config.json").read_text(encoding="utf-8"))
    expected = tuple(config["sliding_window"] if kind == "sliding_attention" else None
                     for kind in config["layer_types"])  # fmt: skip
    assert gemma.layer_windows == expected and len(set(expected)) == 2
    assert gemma.to_document()["layer_types"] == config["layer_types"]
    # every layer alike: nothing to tell apart
    assert attncli.heads(sentence, str(MODELS / "tiny-llama"), grid=True).layer_windows == ()
