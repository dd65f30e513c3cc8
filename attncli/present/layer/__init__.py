"""The self-attention layer on a terminal (attn selfattn): its header and grids, its
progress bar and its words."""
