"""Loading what a model stores: a folder found by path or name, its checkpoint's weights by the
name table, state dicts and weight files, and its own tokenizer."""
