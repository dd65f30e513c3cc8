"""The options of one command each: selfattn's, compare-scores', exercise's and the
calculator's own (score, softmax, grad), as Annotated aliases the commands declare.

The options every command shares, and the decorator that gathers them, are in options.py.
"""

from __future__ import annotations

from typing import Annotated

from attncli.cli.declare import Argument, Option
from attncli.cli.options import ScoreMethod

# attn selfattn
SentenceArgument = Annotated[
    str | None,
    Argument(
        help="The sentence. Split on whitespace; punctuation at the start or end of a "
        "word is a token of its own (¿ dónde ?), inside a word it stays (l'eau).",
        show_default=False,
    ),
]
SelfAttnInputOption = Annotated[
    str | None,
    Option(
        "--input",
        "-i",
        metavar="FILE",
        help="Instead of a sentence: JSON, .npy (read as x) or .npz with x (and w_q, w_k, "
        "w_v, w_o, b_q, b_k, b_v, b_o, mask, key_padding_mask, tokens; x may be a batch "
        "B × T × d) or with queries, keys, values. "
        "W is d_in × d_out, applied as x @ W (from torch's nn.Linear, pass weight.T).",
    ),
]
DModelOption = Annotated[
    int | None, Option("--d-model", help="Numbers per token embedding. [default: 8]")
]
DKOption = Annotated[
    int | None,
    Option("--d-k", help="Columns of W^Q and W^K (per head). [default: d_model / h]"),
]
DVOption = Annotated[
    int | None, Option("--d-v", help="Columns of W^V (per head). [default: d_model / h]")
]
ContextOption = Annotated[
    str | None,
    Option(
        "--context",
        metavar="SENTENCE",
        help="Cross-attention: the keys and values come from this sentence, the queries "
        "from the first.",
    ),
]
NormOption = Annotated[
    float | None,
    Option(
        "--norm",
        help="Length of every token embedding. [default: √d_model, so each number is about ±1]",
    ),
]
EmbeddingSeedOption = Annotated[
    int,
    Option("--seed", min=0, max=2**64 - 1, help="Seed for the embeddings and projections."),
]
NoProjOption = Annotated[bool, Option("--no-proj", help="No projections: Q = K = V = X.")]
NoScaleOption = Annotated[bool, Option("--no-scale", help="Do not divide the scores by √d_k.")]
ScaleByOption = Annotated[
    float | None,
    Option("--scale", metavar="S", help="Divide the scores by S instead of √d_k."),
]
CausalOption = Annotated[
    bool, Option("--causal", help="Each position sees only itself and earlier ones.")
]
ValidLenOption = Annotated[
    int | None,
    Option(
        "--valid-len",
        metavar="N",
        help="Only the first N keys are real; the rest is padding, masked for every query.",
    ),
]
HeadsOption = Annotated[
    int | None,
    Option(
        "--heads",
        help="h heads (of d_model / h columns each unless --d-k/--d-v), joined, then W^O.",
    ),
]
NoOutProjOption = Annotated[
    bool, Option("--no-out-proj", help="With --heads: join the heads without W^O.")
]
HeadOption = Annotated[int, Option("--head", help="With --steps and --heads: the head to explain.")]
SelfAttnGradOutputOption = Annotated[
    str | None,
    Option(
        "--grad-output",
        help="∂ℓ/∂output, rows as '1,0;0,1': adds the backward pass (grad_x, grad_w_q, …).",
    ),
]
SelfAttnTargetOption = Annotated[
    str | None,
    Option("--target", help="A target output for ℓ = ½‖output − target‖²: the same."),
]
ShowOption = Annotated[
    str | None,
    Option(
        "--show",
        metavar="PARTS",
        help="Also show the matrices: x, w, q, k, v, shapes (comma-separated) or all.",
    ),
]
PlotOption = Annotated[
    str | None,
    Option(
        "--plot",
        metavar="FILE",
        help="Also draw the weight grid to FILE (.png, .svg or .pdf); needs attncli[plot].",
    ),
]


# attn compare-scores
TxOption = Annotated[int, Option("--tx", help="Encoder positions T_x (the keys).")]
TyOption = Annotated[int, Option("--ty", help="Decoder positions T_y (the queries).")]
DhOption = Annotated[int, Option("--d-h", help="Size d_h of every state.")]
DaOption = Annotated[int, Option("--d-a", help="Hidden size d_a of the additive score.")]
StatesSeedOption = Annotated[
    int, Option("--seed", min=0, max=2**64 - 1, help="Seed for the states and parameters.")
]
RepeatOption = Annotated[
    int, Option("--repeat", help="Timed runs per method, interleaved, after a warm-up.")
]
ThreadsOption = Annotated[int, Option("--threads", help="BLAS threads, the same for every method.")]
SweepOption = Annotated[
    str, Option("--d-k", help="d_k values for the scaling sweep, e.g. 8,64,512.")
]
# The option's earlier name, still read, no longer shown.
OldSweepOption = Annotated[str | None, Option("--dk", hidden=True)]

# attn exercise
ProblemSeedOption = Annotated[
    int,
    Option("--seed", min=0, max=2**64 - 1, help="Which problem: each seed gives another."),
]
SizeOption = Annotated[int, Option("--size", help="How many tokens (keys and values).")]
DimOption = Annotated[int, Option("--dim", help="Numbers per vector.")]


# attn score, softmax, grad
MethodOption = Annotated[
    ScoreMethod,
    Option(
        "--method",
        "-m",
        help="dot: q·k. scaled: q·k ÷ √d_k. general (Luong): q^T W_a k. "
        "additive (Bahdanau): v_a^T tanh(W_1 q + W_2 k).",
    ),
]
ScoreArguments = Annotated[
    list[str] | None,
    Argument(
        metavar="[SCORE]...",
        help="Scores, e.g. 2 0 1 (-inf marks a masked cell).",
        show_default=False,
    ),
]
TemperatureOption = Annotated[
    float,
    Option("--temperature", "-t", help="Divide scores by T first: T > 1 spreads, T < 1 sharpens."),
]
GradOutputOption = Annotated[
    str | None,
    Option("--grad-output", "-g", help="∇_c ℓ, the gradient at the output, e.g. 1,0."),
]
TargetOption = Annotated[
    str | None, Option("--target", help="A target for ℓ = ½‖c − target‖², e.g. 8,2.")
]
ChainMethodOption = Annotated[
    ScoreMethod | None,
    Option(
        "--method",
        "-m",
        help="The score: dot, scaled, general or additive. [default: the input's, else dot]",
    ),
]
ChainTemperatureOption = Annotated[
    float | None,
    Option("--temperature", "-t", help="Softmax temperature [default: the input's, else 1]."),
]
CheckOption = Annotated[
    bool, Option("--check", help="Compare every gradient with finite differences.")
]
