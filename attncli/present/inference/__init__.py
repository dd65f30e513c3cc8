"""The screens of attention at inference: the online softmax, the tiled row, the KV cache."""
