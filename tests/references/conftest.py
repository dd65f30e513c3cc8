"""The make*.py scripts need torch and transformers; the suite never imports them."""

collect_ignore_glob = ["make*.py"]
