"""Write a notebook-style page of every kind of result as Jupyter shows it (each result's
_repr_html_ under the line that made it), for looking at in a browser:

    python docs/notebook_page.py notebook.html
    chromium --headless --screenshot=notebook.png --window-size=1100,2000 notebook.html
"""

from __future__ import annotations

import sys
from html import escape

import attncli as attn

CELLS = [
    "attn.score(query=[1, 0], keys=[[2, 1], [0, 2], [1, 1]], tokens=['tren', 'va', 'lleno'])",
    "attn.softmax([2, 0, 1], tokens=['tren', 'va', 'lleno']).view(lang='es', digits=4)",
    "attn.selfattn('el tren va lleno', heads=2, causal=True)",
    "attn.softmax([2, 0, 1], tokens=['tren', 'va', 'lleno']).steps()",
    "attn.softmax([[2, 0, 1], [1, 2, -float('inf')]], tokens=['tren', 'va', 'lleno'])",
    "attn.mix([0.665, 0.090, 0.245], values=[[10, 0], [0, 10], [5, 5]])",
    "attn.grad([1, 0], [[2, 1], [0, 2], [1, 1]], [[10, 0], [0, 10], [5, 5]], target=[8, 2])",
    "attn.exercise(seed=7)",
    "attn.compare_scores(tx=6, ty=6, d_h=8, d_a=8, repeat=1, d_ks=[4, 64])",
]

PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>attncli in a notebook</title>
<style>
body {{ font-family: sans-serif; max-width: 980px; margin: 1em auto; background: #fff; }}
.cell {{ margin: 0.8em 0; }}
.input {{ font-family: monospace; background: #f5f5f5; border: 1px solid #ddd;
          padding: 0.4em 0.6em; white-space: pre-wrap; }}
.prompt {{ color: #307fc1; }}
</style></head><body>
{cells}
</body></html>
"""


def cell(number: int, source: str, html: str) -> str:
    return (
        f'<div class="cell"><div class="input"><span class="prompt">In [{number}]:</span> '
        f"{escape(source)}</div>{html}</div>"
    )


def main(path: str) -> None:
    namespace = {"attn": attn}
    cells = [cell(n, source, eval(source, namespace)._repr_html_())  # noqa: S307
             for n, source in enumerate(CELLS, 1)]  # fmt: skip
    with open(path, "w", encoding="utf-8") as page:
        page.write(PAGE.format(cells="\n".join(cells)))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "notebook.html")
