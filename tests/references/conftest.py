"""make.py and make_weights.py need torch and transformers; the suite never imports them."""

collect_ignore = ["make.py", "make_weights.py", "make_modern.py"]
