"""make.py needs torch and transformers; the suite never imports it."""

collect_ignore = ["make.py"]
