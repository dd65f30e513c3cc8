"""Reading input, in three packages: parse (bytes and text → values and float64 arrays,
with the place of any fault), check (an operation's inputs held against each other) and
models (what a pretrained model stores: its folder, weights and tokenizer)."""
