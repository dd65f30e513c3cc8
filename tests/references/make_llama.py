"""The tiny Llama, Mistral, Qwen2 and Gemma of tests/models/, and what transformers computes.

Run once, where torch and transformers are installed (the test suite never needs them):

    python tests/references/make_llama.py

It builds each model with transformers (LlamaForCausalLM, MistralForCausalLM,
Qwen2ForCausalLM, GemmaForCausalLM: 2 layers, 4 query heads sharing 2 key/value heads of
8, Gemma's one of 16), fills
its weights with seeded numpy draws (transformers' own initialisation, a normal of 0.02,
gives near-uniform attention), and saves it with save_pretrained beside a small byte-level
BPE tokenizer.json: tests/models/tiny-llama and tiny-gemma in bfloat16 (as real checkpoints
of the family are stored), tiny-mistral and tiny-qwen2 in float32. Each folder differs where the
families differ:

    tiny-llama    untied lm_head, rope_parameters llama3 (all three of its frequency bands)
    tiny-mistral  untied lm_head, sliding_window 4, rope_parameters linear (factor 2)
    tiny-qwen2    tied lm_head, q/k/v biases, rope_theta 1e6, sliding_window 4 with
                  use_sliding_window false (no window: Qwen2 applies it only when asked)
    tiny-gemma    bfloat16, tied, one key/value head, head_dim 16 (4 × 16 > 32), GELU gate,
                  embeddings × √32, RMSNorm weights 1 + w

Then it reads each folder back in float64 with attn_implementation="eager" and writes
tests/references/llama.json: per model the token ids of tests/tiny_models.SENTENCES (from
AutoTokenizer), and for the first sentence every layer's attention weights, the hidden
states and every position's logits, twice:

    "shipped"  transformers as it is: its RMSNorm, rotary angles and eager softmax are
               computed in float32 even in a float64 model, so attn (float64 throughout)
               differs from it by float32's rounding (about 1e-7)
    "float64"  the same forward pass with those three steps in float64 (the RMSNorm's
               and the rotary embedding's forward replaced by float64 twins below, and
               eager_attention_forward called with a softmax that keeps float64; Gemma's
               √d_model scale a float64 number), so
               every other step is held to attn's to about 1e-12

and "qwen2-window": tiny-qwen2's weights with use_sliding_window true and
max_window_layers 1 (layer 2 windowed), for the test that rewrites its config.json.
"""

from __future__ import annotations

import json
import shutil
import sys
import warnings
from pathlib import Path

import numpy as np
import torch

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT))

from tests import tiny_models  # noqa: E402

warnings.filterwarnings("ignore")
MODELS = ROOT / "tests" / "models"
WIDTH, HEADS, KV_HEADS, LAYERS, FFN, POSITIONS = 32, 4, 2, 2, 64, 48

COMMON = {
    "hidden_size": WIDTH,
    "intermediate_size": FFN,
    "num_hidden_layers": LAYERS,
    "num_attention_heads": HEADS,
    "num_key_value_heads": KV_HEADS,
    "max_position_embeddings": POSITIONS,
    "rms_norm_eps": 1e-6,
    "hidden_act": "silu",
    "attention_dropout": 0.0,
}
FAMILIES = {
    "tiny-llama": {
        "class": "LlamaForCausalLM",
        "config": "LlamaConfig",
        "seed": 11,
        "dtype": torch.bfloat16,
        "bos": True,
        "config_fields": {
            "tie_word_embeddings": False,
            "rope_parameters": {
                "rope_type": "llama3",
                "rope_theta": 10000.0,
                "factor": 8.0,
                "low_freq_factor": 0.5,
                "high_freq_factor": 5.0,
                "original_max_position_embeddings": 40,
            },
        },
    },
    "tiny-mistral": {
        "class": "MistralForCausalLM",
        "config": "MistralConfig",
        "seed": 12,
        "dtype": torch.float32,
        "bos": True,
        "config_fields": {
            "tie_word_embeddings": False,
            "sliding_window": 4,
            "rope_parameters": {"rope_type": "linear", "rope_theta": 10000.0, "factor": 2.0},
        },
    },
    "tiny-gemma": {
        "class": "GemmaForCausalLM",
        "config": "GemmaConfig",
        "seed": 14,
        "dtype": torch.bfloat16,
        "bos": True,
        "config_fields": {
            "tie_word_embeddings": True,
            "num_key_value_heads": 1,  # one key/value head for all four (multi-query)
            "head_dim": 16,  # 4 heads of 16: wider than the model's 32
            "hidden_act": "gelu_pytorch_tanh",
            "rope_parameters": {"rope_type": "default", "rope_theta": 10000.0},
        },
    },
    "tiny-qwen2": {
        "class": "Qwen2ForCausalLM",
        "config": "Qwen2Config",
        "seed": 13,
        "dtype": torch.float32,
        "bos": False,
        "config_fields": {
            "tie_word_embeddings": True,
            "use_sliding_window": False,
            "sliding_window": 4,
            "max_window_layers": 1,
            "rope_parameters": {"rope_type": "default", "rope_theta": 1000000.0},
        },
    },
}
BOS, EOS = "<s>", "</s>"
END = "<|endoftext|>"


def write_tokenizer(folder: Path, bos: bool) -> dict[str, int]:
    """tiny_models' byte-level BPE, with <s> put before every sentence (Llama, Mistral) or
    no special token added (Qwen2)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors

    specials = [BOS, EOS] if bos else [END]
    vocab, merges = tiny_models._bpe(specials, specials_first=bos)
    pairs = [tuple(m.split(" ")) for m in merges]
    tokenizer = Tokenizer(models.BPE(vocab, pairs, unk_token=None))
    tokenizer.add_special_tokens(specials)
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    if bos:
        tokenizer.post_processor = processors.TemplateProcessing(
            single=f"{BOS} $A", pair=f"{BOS} $A {BOS} $B", special_tokens=[(BOS, vocab[BOS])]
        )
    else:
        tokenizer.post_processor = processors.ByteLevel(trim_offsets=False)
    tokenizer.save(str(folder / "tokenizer.json"))
    config = {"tokenizer_class": "PreTrainedTokenizerFast", "model_max_length": POSITIONS}
    config.update({"bos_token": BOS, "eos_token": EOS} if bos else {"eos_token": END})
    (folder / "tokenizer_config.json").write_text(json.dumps(config, indent=1) + "\n")
    return vocab


def seeded_weights(model: torch.nn.Module, seed: int) -> None:
    """Every parameter drawn from a seeded numpy generator: norms 1 ± 0.2, biases ± 0.1,
    embeddings ± 1, matrices ± 1.6/√fan_in (tests/tiny_models.py's scales)."""
    rng = np.random.Generator(np.random.PCG64(seed))
    with torch.no_grad():
        for name, parameter in sorted(model.named_parameters()):
            shape = tuple(parameter.shape)
            if name.endswith("norm.weight"):
                drawn = 1.0 + tiny_models._uniform(rng, shape, 0.2)
            elif name.endswith(".bias"):
                drawn = tiny_models._uniform(rng, shape, 0.1)
            elif "embed_tokens" in name:
                drawn = tiny_models._uniform(rng, shape, 1.0)
            else:
                drawn = tiny_models._uniform(rng, shape, 1.6 / np.sqrt(shape[-1]))
            parameter.copy_(torch.from_numpy(drawn))


def build(name: str, spec: dict) -> None:
    import transformers

    folder = MODELS / name
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    vocab = write_tokenizer(folder, spec["bos"])
    ids = (
        {"bos_token_id": vocab[BOS], "eos_token_id": vocab[EOS]}
        if spec["bos"]
        else {"eos_token_id": vocab[END]}
    )
    fields = {**COMMON, **spec["config_fields"], **ids}  # a family's own fields win
    config = getattr(transformers, spec["config"])(vocab_size=len(vocab), **fields)
    torch.manual_seed(0)
    model = getattr(transformers, spec["class"])(config).eval()
    seeded_weights(model, spec["seed"])
    model.to(spec["dtype"]).save_pretrained(folder)
    (folder / "generation_config.json").unlink(missing_ok=True)
    if "use_sliding_window" in spec["config_fields"]:
        # Qwen2Config drops a sliding_window it will not use; Qwen2 checkpoints keep theirs
        # beside "use_sliding_window": false, which is what attn must respect
        path = folder / "config.json"
        saved = json.loads(path.read_text())
        saved["sliding_window"] = spec["config_fields"]["sliding_window"]
        path.write_text(json.dumps(saved, indent=2, sort_keys=True) + "\n")


def float64_steps(module) -> None:
    """RMSNorm, the rotary angles and the softmax in float64 (transformers keeps all three
    in float32)."""

    def rms_forward(self, hidden):
        variance = hidden.pow(2).mean(-1, keepdim=True)
        if type(self).__name__.startswith("Gemma"):  # 1 + w, and eps by another name
            return (1.0 + self.weight) * (hidden * torch.rsqrt(variance + self.eps))
        return self.weight * (hidden * torch.rsqrt(variance + self.variance_epsilon))

    def rotary_forward(self, x, position_ids):
        inv_freq = self.float64_inv_freq[None, :, None].expand(position_ids.shape[0], -1, 1)
        freqs = (inv_freq @ position_ids[:, None, :].double()).transpose(1, 2)
        emb = torch.cat((freqs, freqs), dim=-1)
        cos = emb.cos() * self.attention_scaling
        sin = emb.sin() * self.attention_scaling
        return cos.to(x.dtype), sin.to(x.dtype)

    eager = module.eager_attention_forward

    def eager_float64(*args, **kwargs):
        softmax = torch.nn.functional.softmax
        torch.nn.functional.softmax = lambda x, dim=-1, dtype=None: softmax(x, dim=dim)
        try:
            return eager(*args, **kwargs)
        finally:
            torch.nn.functional.softmax = softmax

    module.eager_attention_forward = eager_float64
    for cls in list(vars(module).values()):
        if isinstance(cls, type) and cls.__name__.endswith("RMSNorm"):
            cls.forward = rms_forward
        if isinstance(cls, type) and cls.__name__.endswith("RotaryEmbedding"):
            cls.forward = rotary_forward


def float64_inv_freq(model) -> None:
    """The rotary embedding's inverse frequencies computed again in float64 (transformers'
    own rope functions, called with torch.float, which they cast to, standing for float64)."""
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    rotary = model.model.rotary_emb
    single = torch.float
    torch.float = torch.float64
    try:
        if rotary.rope_type == "default":
            inv_freq, _ = rotary.compute_default_rope_parameters(model.config)
        else:
            inv_freq, _ = ROPE_INIT_FUNCTIONS[rotary.rope_type](model.config)
    finally:
        torch.float = single
    assert inv_freq.dtype == torch.float64, inv_freq.dtype
    rotary.float64_inv_freq = inv_freq


def plain(tensor: torch.Tensor) -> list:
    return tensor.detach().cpu().numpy().tolist()


def run(folder: Path, exact: bool, overrides: dict | None = None) -> dict:
    import importlib

    import transformers
    from transformers import AutoConfig, AutoTokenizer

    config = AutoConfig.from_pretrained(folder)
    if overrides:  # config.json's fields with these in their place, read as a new config
        fields = {**json.loads((folder / "config.json").read_text()), **overrides}
        fields = {name: value for name, value in fields.items() if value is not None}
        config = type(config)(**fields)
    family = config.model_type
    module = importlib.import_module(f"transformers.models.{family}.modeling_{family}")
    importlib.reload(module)  # undo an earlier run's float64 steps
    cls = getattr(transformers, type(config).__name__.replace("Config", "ForCausalLM"))
    cls = getattr(module, cls.__name__)
    if exact:
        float64_steps(module)
    model = cls.from_pretrained(
        folder, config=config, torch_dtype=torch.float64, attn_implementation="eager"
    ).eval()
    if exact:
        float64_inv_freq(model)
        scaled = model.model.embed_tokens
        if hasattr(scaled, "embed_scale"):  # Gemma's √d_model, a float32 buffer: in float64
            scaled.embed_scale = torch.tensor(scaled.scalar_embed_scale, dtype=torch.float64)
    tokenizer = AutoTokenizer.from_pretrained(folder)
    sentence = tiny_models.SENTENCES[0]
    encoded = tokenizer(sentence, return_tensors="pt")
    with torch.no_grad():
        out = model(**encoded, output_attentions=True, output_hidden_states=True)
    return {
        "sentence": sentence,
        "ids": encoded["input_ids"][0].tolist(),
        "attentions": [plain(a[0]) for a in out.attentions],
        "hidden_states": [plain(h[0]) for h in out.hidden_states],
        "logits": plain(out.logits[0, -1]),  # the next token's: attn predict's row
    }


def main() -> None:
    import safetensors
    import tokenizers
    import transformers
    from transformers import AutoTokenizer

    for name, spec in FAMILIES.items():
        build(name, spec)
    models = {}
    for name in FAMILIES:
        folder = MODELS / name
        tokenizer = AutoTokenizer.from_pretrained(folder)
        models[name] = {
            "ids": [
                {"sentence": s, "ids": tokenizer(s)["input_ids"]} for s in tiny_models.SENTENCES
            ],
            "shipped": run(folder, exact=False),
            "float64": run(folder, exact=True),
        }
    # layer_types None: worked out again from use_sliding_window and max_window_layers, as
    # for a config.json written before transformers wrote layer_types
    window = {"use_sliding_window": True, "max_window_layers": 1, "layer_types": None}
    assert MODELS.joinpath("tiny-qwen2", "config.json").read_text().count('"sliding_window": 4')
    models["qwen2-window"] = {
        "config": window,
        "float64": run(MODELS / "tiny-qwen2", exact=True, overrides=window),
    }
    document = {
        "made_with": {
            "torch": torch.__version__,
            "transformers": transformers.__version__,
            "tokenizers": tokenizers.__version__,
            "safetensors": safetensors.__version__,
        },
        "models": models,
    }
    path = HERE / "llama.json"
    path.write_text(json.dumps(document) + "\n", encoding="utf-8")
    print(f"wrote {path.relative_to(ROOT)} ({path.stat().st_size:,} bytes)")
    for name in FAMILIES:
        for file in sorted((MODELS / name).iterdir()):
            print(f"  {file.relative_to(ROOT)} {file.stat().st_size:,} bytes")


if __name__ == "__main__":
    main()
