"""Produces arena_rank_llmfao_sandwich.csv: LMArena's own sandwich intervals for the
bundled LLMFAO log (examples/data/llmfao.csv), computed with the PyPI package
arena-rank 0.1.1 (JAX 0.8.1), the library behind LMArena's published leaderboards.

Run: python3 tests/golden/make_arena_rank_golden.py
Settings: BradleyTerry defaults (scale 400, base 10, init_rating 1000, L-BFGS with
gtol = ftol = 1e-9, hessian_reg 1e-5), outcomes left -> 1, right -> 0, tie -> 0.5,
ci_method="sandwich", significance_level=0.05.
"""
import csv
import pathlib

import jax
import pandas as pd
from arena_rank.models.bradley_terry import BradleyTerry
from arena_rank.utils.data_utils import PairDataset

HERE = pathlib.Path(__file__).parent
df = pd.read_csv(HERE / "../../examples/data/llmfao.csv")
dataset = PairDataset.from_pandas(
    df,
    competitor_cols=["left", "right"],
    outcome_col="winner",
    outcome_map=lambda o: {"left": 1.0, "right": 0.0, "tie": 0.5}[o],
)
model = BradleyTerry(n_competitors=len(dataset.competitors))
result = model.compute_ratings_and_cis(dataset, significance_level=0.05, ci_method="sandwich")
with open(HERE / "arena_rank_llmfao_sandwich.csv", "w", newline="") as f:
    f.write(f"# arena-rank 0.1.1, jax {jax.__version__}: BradleyTerry().compute_ratings_and_cis(ci_method='sandwich', significance_level=0.05) on examples/data/llmfao.csv\n")
    writer = csv.writer(f)
    writer.writerow(["model", "rating", "rating_lower", "rating_upper"])
    for name, r, lo, hi in zip(result["competitors"], result["ratings"], result["rating_lower"], result["rating_upper"]):
        writer.writerow([name, repr(float(r)), repr(float(lo)), repr(float(hi))])
