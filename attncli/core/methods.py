"""The ways of scoring a query against a key, one object each, looked up by name.

Each method carries everything about itself that is arithmetic: its parameters (their
shapes in named sizes and how the seed draws them), its score, its gradient, what a
hand-worked table sums for each key, the steps of its worksheet and the mistakes a
student makes there, the small whole parameters of an exercise, and what it costs on a
T_y × T_x grid. Its words are catalog msgids (its name, its tables' headings); how its
tables and spreadsheet cells look is the presentation's (present/method_looks.py), by
the same name. Rows are vectors, as in core.attention; the sources are cited there.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from attncli.core.attention import (
    additive_hidden,
    additive_hidden_grid,
    additive_scores,
    dot_scores,
    general_projected_keys,
    general_scores,
    scaled_dot_scores,
)
from attncli.messages import Setting, _

Parameters = dict[str, np.ndarray]
# A mistake a worksheet's step may hold: its key (a sentence of present/checking_words),
# its fields, and the number it gives.
Mistake = tuple[str, dict[str, object], np.ndarray]


@dataclass(frozen=True)
class Parameter:
    """A learned parameter of a score: its shape in the named sizes d_q, d_k and d_a, the
    size its draw is scaled by, and how the seed draws it (core.seeding: `uniform`, variance
    1/fan_in; `linear`, as torch's nn.Linear starts a weight)."""

    name: str
    shape: tuple[str, ...]
    fan_in: str
    draw: str


@dataclass
class Cost:
    """Counted costs of one scoring method for one grid (core.costs)."""

    method: str
    params: int
    mult_adds: int
    elementwise: int  # additive: the broadcast sums W_1 s + W_2 h; scaled: the divisions
    tanh: int
    intermediate_numbers: int
    # The states projected once and held beside the grid (lesson 001's «los 60 estados ya
    # proyectados»): additive W_1 s and W_2 h, general s W_a; each `projected_width` numbers.
    projected: int = 0
    projected_width: int = 0

    @property
    def intermediate_bytes(self) -> int:
        return self.intermediate_numbers * 8  # float64


@dataclass(frozen=True)
class Worked:
    """One query's score against each key as a table works it: the pairs whose products
    are summed (lefts[j] · rights[j]), and the vectors a column shows (W_a k, tanh(…))."""

    lefts: np.ndarray  # [T_k, n]
    rights: np.ndarray  # [T_k, n]
    transformed: np.ndarray | None  # [T_k, n]
    # [T_k, 2]: ‖q‖ and ‖k_j‖, whose product divides key j's sum; None: nothing per key
    lengths: np.ndarray | None = None


@dataclass(frozen=True)
class WorkedBack:
    """One query's way back through the score, per key: what ∂ℓ/∂e_j multiplies on its way
    to the query (the column a student sums), and what the table shows beside it."""

    to_query: np.ndarray  # [T_k, d_q] (additive: δ_j, [T_k, d_a])
    transformed: np.ndarray | None = None  # W_a h_j; tanh(W_1 q + W_2 h_j)
    slope: np.ndarray | None = None  # 1 − tanh²
    shared: np.ndarray | None = None  # W_aᵀ q; v_a: what every key's row uses
    divisor: float | None = None  # √d_k


@dataclass(frozen=True)
class SheetView:
    """A worksheet's numbers as a step of it reads them: the query, key j, an earlier
    step's value (the sheet's own or the student's, `get`), how many keys, the parameters."""

    query: np.ndarray
    key: Callable[[int], np.ndarray]
    get: Callable[[str, int | None], np.ndarray]
    count: int
    parameters: Parameters

    def keys(self) -> np.ndarray:
        return np.array([self.key(i) for i in range(self.count)])  # [T, d_k]


def _products(view: SheetView, j: int, others: list[int], rows: np.ndarray, divisor: float):
    """q paired with another token's row, and q times a column of the rows (Kᵀ not
    transposed: a column is a row only when the rows are square)."""
    found: list[Mistake] = [
        ("wrong_key", {"other": i}, np.asarray(view.query @ rows[i] / divisor)) for i in others
    ]
    if rows.shape[0] == rows.shape[1]:
        found.append(("not_transposed", {}, np.asarray(view.query @ rows[:, j] / divisor)))
    return found


class ScoreMethod(ABC):
    """What every method has; each method below overrides what is its own, and must
    give its score and its gradient."""

    name: str = ""
    title: str = ""  # its name in the catalog (compare-scores' columns)
    summary: str = ""  # its name and formula, for --method's help
    heading: str = ""  # the score table's heading: {query}, {vector}
    grad_heading: str = ""  # the backward table's heading: {row}
    grad_note: str = ""  # the line under it: the score's derivatives
    parameters: tuple[Parameter, ...] = ()
    optional: tuple[str, ...] = ()  # parameters that may be left out (zero): b_1, b_2
    same_size: bool = True  # the query's and the keys' sizes must agree
    hidden: bool = False  # a hidden layer of d_a numbers (--d-a)
    exercise_dim: int = 2  # numbers per vector of a worksheet, unless --dim says
    sheet_steps: tuple[str, ...] = ("score",)  # a worksheet's blanks before the softmax
    compared_at: int | None = None  # its column in compare-scores, left to right
    looped: bool = False  # compare-scores checks its grid against `pairwise`, pair by pair

    @abstractmethod
    def score(self, queries: np.ndarray, keys: np.ndarray, parameters: Parameters) -> np.ndarray:
        """The score grid."""
        # [T_q, d_q], [T_k, d_k] -> [T_q, T_k]

    @abstractmethod
    def backward(
        self, queries: np.ndarray, keys: np.ndarray, parameters: Parameters, g: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, Parameters]:
        """∂ℓ/∂Q, ∂ℓ/∂K and ∂ℓ/∂ of each parameter from g = ∂ℓ/∂e."""
        # [T_q, d_q], [T_k, d_k], [T_q, T_k] -> [T_q, d_q], [T_k, d_k], {name: its shape}

    def check(self, queries: np.ndarray, keys: np.ndarray, single: bool) -> None:  # noqa: B027
        """Refuse queries or keys this score has no number for (one line, naming the row);
        most scores have a number for every row and refuse none."""

    def sheet_keys(self, rng: np.random.Generator, keys: np.ndarray) -> np.ndarray:
        """A worksheet's drawn keys, mended where this method has no score for one."""
        return keys

    def sheet_scores(self, query: np.ndarray, keys: np.ndarray) -> np.ndarray:
        """A worksheet's scores before its parameters are drawn, to tell whether they spread."""
        return keys @ query

    def divisor(self, keys: np.ndarray) -> float | None:
        """What the summed products are divided by to make the score: None, the sum is it."""
        return None

    def worked(self, query: np.ndarray, keys: np.ndarray, parameters: Parameters) -> Worked:
        """The products a table sums for each key."""
        # [d_q], [T_k, d_k] -> Worked
        return Worked(np.broadcast_to(query, keys.shape), keys, None)

    def worked_back(
        self, query: np.ndarray, keys: np.ndarray, parameters: Parameters, g: np.ndarray
    ) -> WorkedBack:
        """One query's way back through the score, from its row g = ∂ℓ/∂e [T_k]."""
        divisor = self.divisor(keys)
        return WorkedBack(g[:, None] * keys / (divisor or 1.0), divisor=divisor)

    def sheet_value(self, step: str, j: int, view: SheetView) -> np.ndarray:
        """A worksheet's step of key j (one of sheet_steps) from the steps before it."""
        return np.asarray(view.query @ view.key(j))

    def sheet_mistakes(self, step: str, j: int, others: list[int], view: SheetView) -> list:
        """What each known mistake of the step gives (the steps from power on included)."""
        if step == "score":
            return _products(view, j, others, view.keys(), 1.0)
        return []

    def sheet_parameters(
        self, rng: np.random.Generator, dim: int, small_matrix: Callable[[int, int], np.ndarray]
    ) -> dict[str, np.ndarray]:
        """A worksheet's parameters, small whole numbers (`small_matrix`: -1, 0, 1)."""
        return {}

    def cost(self, t_x: int, t_y: int, d_h: int, d_a: int) -> Cost:
        """What scoring a T_y × T_x grid of d_h-numbered states costs, counted."""
        pairs = t_y * t_x
        return Cost(self.name, 0, pairs * d_h, 0, 0, pairs)

    def pairwise(
        self, s: np.ndarray, h: np.ndarray, parameters: Parameters, pairs: list[tuple[int, int]]
    ) -> np.ndarray | None:
        """The same scores one pair at a time, straight from the formula, for the loop
        check of compare-scores; None where the matrix form is the formula itself."""
        return None


class Dot(ScoreMethod):
    """q·k."""

    name = "dot"
    title = _("dot")
    summary = _("dot: q·k.")
    heading = _("Scores: {query} ({vector}) · each key")
    grad_heading = _("Back through the score q · k: {row}")
    grad_note = _("∂e/∂q = k and ∂e/∂k = q: no 1 − tanh² factor.")
    compared_at: int | None = 2

    def score(self, queries: np.ndarray, keys: np.ndarray, parameters: Parameters) -> np.ndarray:
        return dot_scores(queries, keys)

    def backward(
        self, queries: np.ndarray, keys: np.ndarray, parameters: Parameters, g: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, Parameters]:
        divisor = self.divisor(keys) or 1.0
        return g @ keys / divisor, g.T @ queries / divisor, {}


class Scaled(Dot):
    """q·k ÷ √d_k (Vaswani et al.)."""

    name = "scaled"
    title = _("scaled")
    summary = _("scaled: q·k ÷ √d_k.")
    heading = _("Scaled scores: {query} ({vector}) · each key ÷ √d_k")
    grad_heading = _("Back through the score q · k ÷ √d_k: {row}")
    grad_note = _("∂e/∂q = k ÷ √d_k and ∂e/∂k = q ÷ √d_k: no 1 − tanh² factor.")
    exercise_dim = 4  # √d_k = 2 divides by hand
    sheet_steps = ("product", "score")
    compared_at = 3

    def score(self, queries: np.ndarray, keys: np.ndarray, parameters: Parameters) -> np.ndarray:
        return scaled_dot_scores(queries, keys)

    def divisor(self, keys: np.ndarray) -> float | None:
        return float(np.sqrt(keys.shape[-1]))

    def sheet_value(self, step: str, j: int, view: SheetView) -> np.ndarray:
        if step == "product":
            return np.asarray(view.query @ view.key(j))
        return view.get("product", j) / np.sqrt(len(view.key(j)))

    def sheet_mistakes(self, step: str, j: int, others: list[int], view: SheetView) -> list:
        root = float(np.sqrt(len(view.key(j))))
        if step == "product":
            return _products(view, j, others, view.keys(), 1.0)
        if step == "score":
            product = view.get("product", j)
            return [
                *_products(view, j, others, view.keys(), root),
                ("root_forgotten", {}, product),
                ("root_twice", {}, product / root**2),
            ]
        if step == "power":
            return [("root_forgotten", {}, np.exp(view.get("product", j)))]
        return []

    def cost(self, t_x: int, t_y: int, d_h: int, d_a: int) -> Cost:
        pairs = t_y * t_x
        return Cost(self.name, 0, pairs * d_h, pairs, 0, pairs)


class General(ScoreMethod):
    """Luong's sᵀ W_a h."""

    name = "general"
    title = _("general")
    summary = _("general (Luong): q^T W_a k.")
    heading = _("General scores: {query} ({vector}) · (W_a · key)")
    grad_heading = _("Back through the general score qᵀ W_a k: {row}")
    grad_note = _("∂e/∂q = W_a k, ∂e/∂k = W_aᵀ q, ∂e/∂W_a = q kᵀ: no 1 − tanh² factor.")
    parameters = (Parameter("w_a", ("d_q", "d_k"), "d_k", "uniform"),)
    same_size = False
    sheet_steps = ("mapped", "score")
    compared_at = 1
    looped = True

    def score(self, queries: np.ndarray, keys: np.ndarray, parameters: Parameters) -> np.ndarray:
        return general_scores(queries, keys, parameters["w_a"])

    def backward(
        self, queries: np.ndarray, keys: np.ndarray, parameters: Parameters, g: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, Parameters]:
        w_a = parameters["w_a"]  # [d_q, d_k]
        return g @ keys @ w_a.T, g.T @ queries @ w_a, {"w_a": queries.T @ g @ keys}

    def worked(self, query: np.ndarray, keys: np.ndarray, parameters: Parameters) -> Worked:
        mapped = general_projected_keys(keys, parameters["w_a"])  # [T_k, d_q]
        return Worked(np.broadcast_to(query, mapped.shape), mapped, mapped)

    def worked_back(
        self, query: np.ndarray, keys: np.ndarray, parameters: Parameters, g: np.ndarray
    ) -> WorkedBack:
        mapped = general_projected_keys(keys, parameters["w_a"])  # W_a h_j: [T_k, d_q]
        shared = parameters["w_a"].T @ query  # W_aᵀ s: [d_k], which every ∂ℓ/∂h_j uses
        return WorkedBack(g[:, None] * mapped, mapped, shared=shared)

    def sheet_value(self, step: str, j: int, view: SheetView) -> np.ndarray:
        if step == "mapped":
            return view.parameters["w_a"] @ view.key(j)
        return np.asarray(view.query @ view.get("mapped", j))

    def sheet_mistakes(self, step: str, j: int, others: list[int], view: SheetView) -> list:
        if step == "mapped":  # k · W_a: W_a's rows and columns swapped
            return [
                ("matrix_transposed", {"matrix": "W_a"}, view.parameters["w_a"].T @ view.key(j))
            ]
        if step == "score":
            mapped = np.array([view.get("mapped", i) for i in range(view.count)])
            return _products(view, j, others, mapped, 1.0)
        return []

    def sheet_parameters(
        self, rng: np.random.Generator, dim: int, small_matrix: Callable[[int, int], np.ndarray]
    ) -> dict[str, np.ndarray]:
        return {"w_a": small_matrix(dim, dim)}  # [d_q, d_k]

    def cost(self, t_x: int, t_y: int, d_h: int, d_a: int) -> Cost:
        pairs = t_y * t_x
        return Cost(self.name, d_h * d_h, t_y * d_h * d_h + pairs * d_h, 0, 0, pairs, t_y, d_h)

    def pairwise(
        self, s: np.ndarray, h: np.ndarray, parameters: Parameters, pairs: list[tuple[int, int]]
    ) -> np.ndarray | None:
        # W_a h_j made once per key, as the lesson does («los 60 estados ya proyectados»)
        projected_keys = h @ parameters["w_a"].T  # [T_x, d_h]: row j is W_a h_j
        return np.array([s[i] @ projected_keys[j] for i, j in pairs])


class Additive(ScoreMethod):
    """Bahdanau's v_aᵀ tanh(W_1 s + b_1 + W_2 h + b_2)."""

    name = "additive"
    title = _("additive")
    summary = _("additive (Bahdanau): v_a^T tanh(W_1 q + W_2 k).")
    heading = _("Additive scores: v_a · tanh(W_1 · {query} + W_2 · key)")
    grad_heading = _("Back through the additive score v_aᵀ tanh(W_1 q + W_2 k): {row}")
    grad_note = _(
        "Every derivative passes through tanh and carries its factor 1 − tanh²; ∂ℓ/∂k = W_2ᵀ "
        "δ, ∂ℓ/∂v_a = Σ ∂ℓ/∂e tanh(…)."
    )
    parameters = (
        Parameter("w_1", ("d_a", "d_q"), "d_q", "linear"),
        Parameter("w_2", ("d_a", "d_k"), "d_k", "linear"),
        Parameter("v_a", ("d_a",), "d_a", "linear"),
    )
    optional = ("b_1", "b_2")
    same_size = False
    hidden = True
    sheet_steps = ("hidden", "score")
    compared_at = 0
    looped = True

    def score(self, queries: np.ndarray, keys: np.ndarray, parameters: Parameters) -> np.ndarray:
        p = parameters
        return additive_scores(
            queries, keys, p["w_1"], p["w_2"], p["v_a"], p.get("b_1"), p.get("b_2")
        )

    def backward(
        self, queries: np.ndarray, keys: np.ndarray, parameters: Parameters, g: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, Parameters]:
        w_1, w_2, v_a = parameters["w_1"], parameters["w_2"], parameters["v_a"]
        hidden = additive_hidden_grid(queries, keys, parameters)  # [T_q, T_k, d_a]
        # δ_ij = ∂ℓ/∂e_ij (1 − tanh²) ⊙ v_a: the gradient at the sum W_1 s_i + W_2 h_j
        delta = g[:, :, None] * (1.0 - hidden**2) * v_a  # [T_q, T_k, d_a]
        per_query, per_key = delta.sum(axis=1), delta.sum(axis=0)  # [T_q, d_a], [T_k, d_a]
        found = {
            "w_1": per_query.T @ queries,
            "w_2": per_key.T @ keys,
            "v_a": np.einsum("ij,ija->a", g, hidden),
        }
        # b_1 is added once per query row and b_2 once per key row: their gradients sum those.
        if "b_1" in parameters:
            found["b_1"] = per_query.sum(axis=0)
        if "b_2" in parameters:
            found["b_2"] = per_key.sum(axis=0)
        return per_query @ w_1, per_key @ w_2, found

    def worked(self, query: np.ndarray, keys: np.ndarray, parameters: Parameters) -> Worked:
        hidden = additive_hidden(query, keys, parameters)  # [T_k, d_a]
        return Worked(np.broadcast_to(parameters["v_a"], hidden.shape), hidden, hidden)

    def worked_back(
        self, query: np.ndarray, keys: np.ndarray, parameters: Parameters, g: np.ndarray
    ) -> WorkedBack:
        hidden = additive_hidden(query, keys, parameters)  # [T_k, d_a]
        slope = 1.0 - hidden**2
        v_a = parameters["v_a"]
        return WorkedBack(g[:, None] * slope * v_a, hidden, slope, v_a)  # δ_j: [T_k, d_a]

    def sheet_value(self, step: str, j: int, view: SheetView) -> np.ndarray:
        p = view.parameters
        if step == "hidden":
            return np.tanh(p["w_1"] @ view.query + p["w_2"] @ view.key(j))
        return np.asarray(p["v_a"] @ view.get("hidden", j))

    def sheet_mistakes(self, step: str, j: int, others: list[int], view: SheetView) -> list:
        p = view.parameters
        if step == "hidden":
            return [("tanh_skipped", {}, p["w_1"] @ view.query + p["w_2"] @ view.key(j))]
        if step == "score":  # v_a · tanh(…) of another key
            return [
                ("wrong_key", {"other": i}, np.asarray(p["v_a"] @ view.get("hidden", i)))
                for i in others
            ]
        return []

    def sheet_parameters(
        self, rng: np.random.Generator, dim: int, small_matrix: Callable[[int, int], np.ndarray]
    ) -> dict[str, np.ndarray]:
        return {
            "w_1": small_matrix(dim, dim),  # [d_a, d_q], d_a = d
            "w_2": small_matrix(dim, dim),  # [d_a, d_k]
            "v_a": rng.integers(0, 2, size=dim) * 2 - 1,  # [d_a] of ±1
        }

    def cost(self, t_x: int, t_y: int, d_h: int, d_a: int) -> Cost:
        pairs = t_y * t_x
        return Cost(
            self.name,
            params=2 * d_h * d_a + d_a,
            mult_adds=t_y * d_a * d_h + t_x * d_a * d_h + pairs * d_a,
            elementwise=pairs * d_a,
            tanh=pairs * d_a,
            intermediate_numbers=pairs * d_a,
            projected=t_y + t_x,
            projected_width=d_a,
        )

    def pairwise(
        self, s: np.ndarray, h: np.ndarray, parameters: Parameters, pairs: list[tuple[int, int]]
    ) -> np.ndarray | None:
        # W_1 s_i per query and W_2 h_j per key made once, as the lesson does
        p = parameters
        projected_queries, projected_keys = s @ p["w_1"].T, h @ p["w_2"].T  # [T, d_a]
        return np.array(
            [p["v_a"] @ np.tanh(projected_queries[i] + projected_keys[j]) for i, j in pairs]
        )


def _lengths(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row's direction (its unit vector) and its length ‖x‖, taken after dividing by
    the row's largest |number|: a row of 1e-200s or 1e200s neither underflows to a length
    of 0 nor overflows to ∞."""
    # [T, d] -> [T, d], [T]
    largest = np.abs(rows).max(axis=1, keepdims=True)
    scaled = rows / largest
    norms = np.sqrt(np.einsum("ij,ij->i", scaled, scaled))
    return scaled / norms[:, None], norms * largest[:, 0]


class Cosine(Dot):
    """q·k ÷ (‖q‖ ‖k‖): lesson 001's dot product of the directions alone, from −1 to 1."""

    name = "cosine"
    title = _("cosine")
    summary = _("cosine: q·k ÷ (‖q‖ ‖k‖).")
    heading = _("Cosine scores: {query} ({vector}) · each key ÷ (‖q‖ ‖k‖)")
    grad_heading = _("Back through the cosine score q · k ÷ (‖q‖ ‖k‖): {row}")
    grad_note = _(
        "∂e/∂q = (k ÷ ‖k‖ − e q ÷ ‖q‖) ÷ ‖q‖ and ∂e/∂k = (q ÷ ‖q‖ − e k ÷ ‖k‖) ÷ ‖k‖: only "
        "what turns the direction counts; no 1 − tanh² factor."
    )
    sheet_steps = ("product", "lengths", "score")
    compared_at = None

    def check(self, queries: np.ndarray, keys: np.ndarray, single: bool) -> None:
        """A zero query or key has no direction: its cosine is 0 ÷ 0, refused."""
        from attncli.errors import InputError

        for field, rows in (("query" if single else "queries", queries), ("keys", keys)):
            zero = np.flatnonzero(~np.any(rows != 0, axis=1))
            if zero.size:
                raise InputError(
                    _(
                        "{field}: row {row} is all zeros, which has no direction: the cosine "
                        "score divides by its length, 0; give it a number that is not 0, or "
                        "score with {dot}"
                    ),
                    field=field,
                    row=int(zero[0]) + 1,
                    dot=Setting("method", "dot"),
                )

    def sheet_keys(self, rng: np.random.Generator, keys: np.ndarray) -> np.ndarray:
        for row in np.flatnonzero(~np.any(keys != 0, axis=1)):  # a zero key has no length
            keys[row, rng.integers(0, keys.shape[1])] = 1
        return keys

    def sheet_scores(self, query: np.ndarray, keys: np.ndarray) -> np.ndarray:
        return self.score(query[None, :].astype(np.float64), keys.astype(np.float64), {})[0]

    def score(self, queries: np.ndarray, keys: np.ndarray, parameters: Parameters) -> np.ndarray:
        # [T_q, d], [T_k, d] -> [T_q, T_k]
        return _lengths(queries)[0] @ _lengths(keys)[0].T

    def backward(
        self, queries: np.ndarray, keys: np.ndarray, parameters: Parameters, g: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, Parameters]:
        # e_ij = q̂_i · k̂_j: ∂e_ij/∂q_i = (k̂_j − e_ij q̂_i) ÷ ‖q_i‖, and the same for k_j
        (unit_q, norm_q), (unit_k, norm_k) = _lengths(queries), _lengths(keys)
        e = unit_q @ unit_k.T  # [T_q, T_k]
        weighted = g * e
        grad_q = (g @ unit_k - weighted.sum(axis=1)[:, None] * unit_q) / norm_q[:, None]
        grad_k = (g.T @ unit_q - weighted.sum(axis=0)[:, None] * unit_k) / norm_k[:, None]
        return grad_q, grad_k, {}

    def worked(self, query: np.ndarray, keys: np.ndarray, parameters: Parameters) -> Worked:
        norm_q = _lengths(query[None, :])[1][0]
        lengths = np.stack([np.full(len(keys), norm_q), _lengths(keys)[1]], axis=1)
        return Worked(np.broadcast_to(query, keys.shape), keys, None, lengths)

    def worked_back(
        self, query: np.ndarray, keys: np.ndarray, parameters: Parameters, g: np.ndarray
    ) -> WorkedBack:
        (unit_q, norm_q), (unit_k, _norm_k) = _lengths(query[None, :]), _lengths(keys)
        e = unit_k @ unit_q[0]  # [T_k]
        return WorkedBack(g[:, None] * (unit_k - e[:, None] * unit_q) / norm_q[0])

    def sheet_value(self, step: str, j: int, view: SheetView) -> np.ndarray:
        if step == "product":
            return np.asarray(view.query @ view.key(j))
        if step == "lengths":
            return np.asarray(np.linalg.norm(view.query) * np.linalg.norm(view.key(j)))
        return view.get("product", j) / view.get("lengths", j)

    def sheet_mistakes(self, step: str, j: int, others: list[int], view: SheetView) -> list:
        if step == "product":
            return _products(view, j, others, view.keys(), 1.0)
        if step == "lengths":  # ‖q‖² ‖k‖²: the lengths' square roots left out
            squares = (view.query @ view.query) * (view.key(j) @ view.key(j))
            return [("lengths_squared", {}, np.asarray(squares))]
        if step == "score":
            lengths = view.get("lengths", j)
            return [
                *(
                    ("wrong_key", {"other": i}, np.asarray(view.get("product", i) / lengths))
                    for i in others
                ),
                ("lengths_forgotten", {}, view.get("product", j)),
            ]
        if step == "power":
            return [("lengths_forgotten", {}, np.exp(view.get("product", j)))]
        return []

    def cost(self, t_x: int, t_y: int, d_h: int, d_a: int) -> Cost:
        # the products, and each state's length once (d_h multiply-adds and a root each)
        pairs = t_y * t_x
        return Cost(self.name, 0, pairs * d_h + (t_x + t_y) * d_h, pairs, 0, pairs)


METHODS: dict[str, ScoreMethod] = {
    method.name: method for method in (Dot(), Scaled(), General(), Additive(), Cosine())
}
NAMES = tuple(METHODS)


def method(name: str) -> ScoreMethod:
    """The method of that name (one of NAMES; a name is checked where it is read)."""
    return METHODS[name]


def score(name: str, queries: np.ndarray, keys: np.ndarray, parameters: Parameters) -> np.ndarray:
    """The score grid by the method `name`, with the parameters it needs."""
    # [T_q, d_q], [T_k, d_k] -> [T_q, T_k]
    return METHODS[name].score(queries, keys, parameters)


def parameter_names() -> tuple[str, ...]:
    """Every method's parameters, the optional ones too, in the methods' order."""
    return tuple(
        name for m in METHODS.values() for name in (*(p.name for p in m.parameters), *m.optional)
    )


def compared() -> tuple[ScoreMethod, ...]:
    """The methods compare-scores sets side by side, in its order."""
    placed = [m for m in METHODS.values() if m.compared_at is not None]
    return tuple(sorted(placed, key=lambda m: m.compared_at or 0))


def owner_of(parameter: str) -> str | None:
    """The method whose parameter this is, if any."""
    for m in METHODS.values():
        if parameter in (*(p.name for p in m.parameters), *m.optional):
            return m.name
    return None
