"""Make samples/mha.safetensors and samples/mha_x.npy, the README's "As a model writes it"
example: an nn.MultiheadAttention's state_dict() saved straight with safetensors, and the x
it reads; print the layer's output as torch computes it, to set beside attn's.

Run once, where torch and safetensors are installed (the test suite never needs them):

    python tests/references/make_weights.py

The committed files were made with torch 2.13.0 (CPU) and safetensors 0.8.0.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
from safetensors.torch import save_file

SAMPLES = Path(__file__).resolve().parent.parent.parent / "samples"


def main() -> None:
    torch.manual_seed(0)
    mha = torch.nn.MultiheadAttention(embed_dim=4, num_heads=2, dtype=torch.float64).eval()
    x = torch.randn(3, 4, dtype=torch.float64)
    save_file(mha.state_dict(), str(SAMPLES / "mha.safetensors"))
    np.save(SAMPLES / "mha_x.npy", x.numpy())
    output, weights = mha(x, x, x)  # weights averaged over the heads, torch's default
    torch.set_printoptions(precision=4)
    print(f"torch {torch.__version__}")
    print(output)
    print(weights)


if __name__ == "__main__":
    main()
