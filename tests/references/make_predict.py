"""The next token's reference values: transformers' GPT2LMHeadModel on the tiny GPT-2 of
tests/tiny_models.py, the last position's logits and the logit lens (each hidden state
through ln_f and the tied head). Run where torch and transformers are installed:

    python tests/references/make_predict.py

It writes tests/references/predict.json; the suite reads it and never needs torch.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

from tests import tiny_models  # noqa: E402

SENTENCES = ["the keys of the car", "the keys"]


def main() -> None:
    import transformers
    from transformers import GPT2LMHeadModel, PreTrainedTokenizerFast

    cases = []
    with tempfile.TemporaryDirectory() as folder:
        tiny_models.write_gpt2(Path(folder) / "gpt2")
        path = str(Path(folder) / "gpt2")
        model = GPT2LMHeadModel.from_pretrained(path, torch_dtype=torch.float64).eval()
        tokenizer = PreTrainedTokenizerFast(tokenizer_file=str(Path(path) / "tokenizer.json"))
        for sentence in SENTENCES:
            ids = tokenizer(sentence, return_tensors="pt").input_ids
            with torch.no_grad():
                out = model(ids, output_hidden_states=True)
                hidden = out.hidden_states
                lens = [model.lm_head(model.transformer.ln_f(h))[0, -1] for h in hidden[:-1]]
                lens.append(model.lm_head(hidden[-1])[0, -1])
            cases.append(
                {
                    "sentence": sentence,
                    "ids": ids[0].tolist(),
                    "logits": out.logits[0, -1].tolist(),
                    "lens": [row.tolist() for row in lens],
                }
            )
    document = {
        "made_with": {"torch": torch.__version__, "transformers": transformers.__version__},
        "model": "tests/tiny_models.py write_gpt2 (seed 2)",
        "cases": cases,
    }
    (HERE / "predict.json").write_text(json.dumps(document) + "\n")


if __name__ == "__main__":
    main()
