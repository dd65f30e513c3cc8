"""The pieces of attn compare-scores between parsing and printing: the size check,
the counts, the timing, the loop check, the scaling sweep, and the tables."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

from attncli.core import costs
from attncli.core.timing import Timing, time_call
from attncli.errors import OptionError

if TYPE_CHECKING:
    from attncli.present.render import Format

LOOP_CHECK_PAIRS = 10_000  # pairs scored one by one; beyond that a seeded sample


@dataclass
class Sizes:
    """The options that size the comparison."""

    t_x: int
    t_y: int
    d_h: int
    d_a: int
    seed: int
    repeat: int
    d_ks: list[int] = field(default_factory=lambda: [8, 64, 512])


@dataclass
class Comparison:
    """Everything compare-scores found."""

    sizes: Sizes
    costs: list[costs.Cost]
    timings: dict[str, Timing]
    loop_checks: dict[str, tuple[int, float]]  # method -> (pairs checked, largest difference)
    sweep: list[tuple[int, float, float]]  # (d_k, largest weight unscaled, scaled)


def parse_dks(text: str) -> list[int]:
    """'8,64,512' to [8, 64, 512], each at least 1."""
    try:
        values = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise OptionError(
            f"--dk {text!r}: expected whole numbers separated by commas, e.g. 8,64,512",
            f"--dk {text!r}: se esperan enteros separados por comas, p. ej. 8,64,512",
        ) from None
    if not values or min(values) < 1:
        raise OptionError(
            f"--dk {text!r}: every d_k must be 1 or more, e.g. 8,64,512",
            f"--dk {text!r}: cada d_k debe ser 1 o más, p. ej. 8,64,512",
        )
    return values


def available_memory() -> int:
    """Bytes of memory this machine can still hand out (MemAvailable), else its total."""
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def check_sizes(sizes: Sizes, memory: int | None = None) -> None:
    """Refuse sizes below 1, and sizes whose arrays would not fit, before allocating anything."""
    for name in ("t_x", "t_y", "d_h", "d_a", "repeat"):
        value = getattr(sizes, name)
        if value < 1:
            option = {"t_x": "tx", "t_y": "ty"}.get(name, name).replace("_", "-")
            raise OptionError(
                f"--{option} is {value}; it must be 1 or more",
                f"--{option} es {value}; debe ser 1 o más",
            )
    need = costs.peak_bytes(sizes.t_x, sizes.t_y, sizes.d_h, sizes.d_a)
    memory = available_memory() if memory is None else memory
    if need > memory // 2:
        asked = f"--tx {sizes.t_x} --ty {sizes.t_y} --d-h {sizes.d_h} --d-a {sizes.d_a}"
        raise OptionError(
            f"{asked} would need about {_bytes(need)}, more than half of the {_bytes(memory)} "
            "available; lower --tx, --ty or --d-a (the additive block holds T_y·T_x·d_a numbers)",
            f"{asked} necesitaría unos {_bytes(need)}, más de la mitad de los {_bytes(memory)} "
            "disponibles; baja --tx, --ty o --d-a (el bloque aditivo guarda T_y·T_x·d_a números)",
        )


def _bytes(amount: int, fmt: Format | None = None) -> str:
    for unit, size in (("GB", 10**9), ("MB", 10**6), ("kB", 10**3)):
        if amount >= size:
            text = f"{amount / size:.1f} {unit}"
            return fmt.decimal(text) if fmt is not None else text
    return f"{amount} bytes"


def compare(sizes: Sizes, progress: Callable[[str], None] | None = None) -> Comparison:
    """Count, time and check the four scoring methods, then run the scaling sweep.

    `progress` hears each stage as a phrase key of attncli.present.language, with its fields
    already in the key's text: "progress_timing:additive".
    """
    report = progress or (lambda _: None)
    import numpy as np

    problem = costs.make_problem(sizes.t_x, sizes.t_y, sizes.d_h, sizes.d_a, sizes.seed)
    timings, grids = {}, {}
    for method in costs.METHODS:
        report(f"progress_timing:{method}")
        grids[method] = costs.grid(problem, method)
        timings[method] = time_call(partial(costs.grid, problem, method), sizes.repeat)
    checks = {}
    pairs = costs.check_pairs(sizes.t_x, sizes.t_y, LOOP_CHECK_PAIRS, sizes.seed)
    rows, columns = np.array(pairs).T
    for method in ("general", "additive"):
        report(f"progress_loop:{method}")
        looped = costs.pairwise(problem, method, pairs)
        checks[method] = (len(pairs), float(np.max(np.abs(looped - grids[method][rows, columns]))))
    report("progress_sweep:")
    sweep = [(d_k, *costs.largest_weight(d_k, 6, 2_000, sizes.seed)) for d_k in sizes.d_ks]
    return Comparison(
        sizes, costs.score_costs(sizes.t_x, sizes.t_y, sizes.d_h, sizes.d_a), timings, checks, sweep
    )


def agrees(largest_difference: float) -> bool:
    """Loop and matrix form agree to rounding: float64 sums of a few hundred terms."""
    return largest_difference <= 1e-9


def closing_line(comparison: Comparison, fmt: Format) -> str | None:
    """The lesson's point, said only when this run's numbers show it."""
    by_method = {cost.method: cost for cost in comparison.costs}
    additive, general = by_method["additive"], by_method["general"]
    additive_time = comparison.timings["additive"].median
    general_time = comparison.timings["general"].median
    ratio = fmt.number(additive_time / general_time, 1, whole_bare=False)
    if additive.mult_adds < general.mult_adds and additive_time > general_time:
        return fmt.say(
            "fewer_but_slower",
            additive=_millions(additive.mult_adds, fmt),
            general=_millions(general.mult_adds, fmt),
            ratio=ratio,
        )
    if additive_time > general_time:
        return fmt.say(
            "slower",
            ratio=ratio,
            tanh=fmt.count(additive.tanh),
            numbers=fmt.count(additive.intermediate_numbers),
        )
    return None


def _millions(amount: int, fmt: Format) -> str:
    return fmt.say("million", amount=fmt.number(amount / 1e6, 1, whole_bare=False))


def describe(comparison: Comparison) -> dict[str, Any]:
    """The JSON document: sizes, per method every figure, the loop check and the sweep."""
    sizes = comparison.sizes
    methods = []
    for cost in comparison.costs:
        timing = comparison.timings[cost.method]
        entry: dict[str, Any] = {
            "method": cost.method,
            "params": cost.params,
            "mult_adds": cost.mult_adds,
            "elementwise": cost.elementwise,
            "tanh": cost.tanh,
            "intermediate_numbers": cost.intermediate_numbers,
            "intermediate_bytes": cost.intermediate_bytes,
            "seconds": timing.median,
            "seconds_fastest": timing.fastest,
            "seconds_slowest": timing.slowest,
        }
        if cost.method in comparison.loop_checks:
            checked, difference = comparison.loop_checks[cost.method]
            entry["loop_check"] = {
                "pairs": checked,
                "max_difference": difference,
                "agrees": agrees(difference),
            }
        methods.append(entry)
    fastest = min(entry["seconds"] for entry in methods)
    for entry in methods:
        entry["ratio_to_fastest"] = entry["seconds"] / fastest
    return {
        "tx": sizes.t_x,
        "ty": sizes.t_y,
        "d_h": sizes.d_h,
        "d_a": sizes.d_a,
        "seed": sizes.seed,
        "repeat": sizes.repeat,
        "methods": methods,
        "scaling": [
            {
                "d_k": d_k,
                "keys_per_row": 6,
                "largest_weight": unscaled,
                "largest_weight_scaled": scaled,
            }
            for d_k, unscaled, scaled in comparison.sweep
        ],
        "additive_slower_than_general": (
            comparison.timings["additive"].median > comparison.timings["general"].median
        ),
    }


def tables(comparison: Comparison, document: dict[str, Any]) -> list[Callable[[Format], Any]]:
    """Side by side figures, the loop check, the sweep and the closing line."""
    from attncli.present import render

    sizes = comparison.sizes
    methods = document["methods"]

    def figures(fmt: Format) -> Any:
        def count(amount: int) -> str:
            millions = f" ({fmt.number(amount / 1e6, 1, whole_bare=False)} M)"
            return fmt.count(amount) + (millions if amount >= 10**6 else "")

        def milliseconds(value: float) -> str:
            return fmt.decimal(f"{value * 1e3:.3g}")

        def spread(method: dict[str, Any]) -> str:
            fastest, slowest = method["seconds_fastest"], method["seconds_slowest"]
            return f"{milliseconds(fastest)}–{milliseconds(slowest)}"

        rows: list[tuple[str, list[str]]] = [
            (fmt.say("parameters"), [fmt.count(m["params"]) for m in methods]),
            (fmt.say("mult_adds"), [count(m["mult_adds"]) for m in methods]),
            (fmt.say("elementwise"), [count(m["elementwise"]) for m in methods]),
            (fmt.say("tanh"), [count(m["tanh"]) for m in methods]),
            (fmt.say("intermediate"), [count(m["intermediate_numbers"]) for m in methods]),
            (fmt.say("at_float64"), [_bytes(m["intermediate_bytes"], fmt) for m in methods]),
            (fmt.say("time_median"), [milliseconds(m["seconds"]) for m in methods]),
            (fmt.say("time_spread"), [spread(m) for m in methods]),
            (
                fmt.say("times_fastest"),
                [fmt.number(m["ratio_to_fastest"], 1, whole_bare=False) + "×" for m in methods],
            ),
        ]
        heading = fmt.say(
            "grid_heading",
            ty=sizes.t_y,
            tx=sizes.t_x,
            d_h=sizes.d_h,
            d_a=sizes.d_a,
            repeat=sizes.repeat,
        )
        return render.side_by_side(heading, [m["method"] for m in methods], rows)

    def loop_check(fmt: Format) -> Any:
        lines = []
        total = sizes.t_x * sizes.t_y
        for m in methods:
            if "loop_check" not in m:
                continue
            check = m["loop_check"]
            scope = (
                fmt.say("every_pair")
                if check["pairs"] == total
                else fmt.say(
                    "some_pairs", checked=fmt.count(check["pairs"]), total=fmt.count(total)
                )
            )
            lines.append(
                fmt.say(
                    "loop_check",
                    method=m["method"],
                    scope=scope,
                    verdict=fmt.say("same_grid" if check["agrees"] else "different_grid"),
                    difference=f"{check['max_difference']:.1e}",
                )
            )
        return render.lines("", *lines)

    def sweep(fmt: Format) -> Any:
        rows = [
            (
                str(entry["d_k"]),
                [
                    fmt.number(entry["largest_weight"], 3, whole_bare=False),
                    fmt.number(entry["largest_weight_scaled"], 3, whole_bare=False),
                ],
            )
            for entry in document["scaling"]
        ]
        return render.side_by_side(
            fmt.say("sweep_heading"), [fmt.say("unscaled_column"), "÷ √d_k"], rows, "d_k"
        )

    def conclusion(fmt: Format) -> Any:
        return render.lines(closing_line(comparison, fmt) or "")

    return [figures, loop_check, sweep, conclusion]
