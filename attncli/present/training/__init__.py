"""attn train on a terminal and in files: its screen, its steps, its plot, its progress bar
and its words."""
