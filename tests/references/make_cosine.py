"""Regenerate tests/references/cosine.json: the cosine score's chain score → softmax → mix
and every gradient, as torch computes them (the test suite never needs torch):

    python tests/references/make_cosine.py

The score is torch's own cosine_similarity of every query with every key (eps far below
these vectors' lengths), the softmax torch's at a temperature, the loss ½‖c − target‖²
or Σ g ⊙ c for a given ∇_c ℓ; the gradients are autograd's, in float64. Only torch and
numpy are needed. Written with the versions that made it ("made_with").
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import torch

HERE = Path(__file__).resolve().parent


def case(name, queries, keys, values, temperature=1.0, target=None, grad_output=None):
    q = torch.tensor(queries, dtype=torch.float64, requires_grad=True)
    k = torch.tensor(keys, dtype=torch.float64, requires_grad=True)
    v = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    scores = torch.nn.functional.cosine_similarity(q[:, None, :], k[None, :, :], dim=-1)
    scores.retain_grad()
    weights = torch.softmax(scores / temperature, dim=-1)
    weights.retain_grad()
    output = weights @ v
    if target is not None:
        loss = 0.5 * ((output - torch.tensor(target, dtype=torch.float64)) ** 2).sum()
    else:
        loss = (output * torch.tensor(grad_output, dtype=torch.float64)).sum()
    loss.backward()
    found = {
        "scores": scores,
        "weights": weights,
        "output": output,
        "grad_scores": scores.grad,
        "grad_weights": weights.grad,
        "grad_queries": q.grad,
        "grad_keys": k.grad,
        "grad_values": v.grad,
    }
    given = {"queries": queries, "keys": keys, "values": values, "temperature": temperature}
    if target is not None:
        given["target"] = target
        found["loss"] = loss
    else:
        given["grad_output"] = grad_output
    numbers = {n: t.detach().numpy().tolist() for n, t in found.items()}
    return {"name": name, "given": given, **numbers}


def main() -> None:
    rng = np.random.default_rng(2026)
    cases = [
        # lesson 001's tren, va, lleno, its target (8, 2)
        case(
            "tren", [[1, 0]], [[2, 1], [0, 2], [1, 1]], [[10, 0], [0, 10], [5, 5]], target=[[8, 2]]
        ),
        case(
            "three queries at T = 0.7",
            rng.standard_normal((3, 4)).tolist(),
            rng.standard_normal((5, 4)).tolist(),
            rng.standard_normal((5, 2)).tolist(),
            temperature=0.7,
            grad_output=rng.standard_normal((3, 2)).tolist(),
        ),
        case(
            "long and short vectors",
            (rng.standard_normal((2, 3)) * [[30], [0.02]]).tolist(),
            (rng.standard_normal((4, 3)) * [[5], [0.1], [1], [80]]).tolist(),
            rng.standard_normal((4, 3)).tolist(),
            target=rng.standard_normal((2, 3)).tolist(),
        ),
    ]
    made_with = {"torch": torch.__version__, "numpy": np.__version__}
    path = HERE / "cosine.json"
    path.write_text(json.dumps({"made_with": made_with, "cases": cases}), encoding="utf-8")
    print(f"wrote {path.name} ({path.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main()
