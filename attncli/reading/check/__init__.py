"""Checking an operation's inputs against each other: the calculator's, the backward pass's,
and self-attention's by concept (its fields, its sizes, its sequences, its masks, a result
read back)."""
