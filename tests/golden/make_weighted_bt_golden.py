"""Produces weighted_bt_llmfao_golden.csv: arena-rank 0.1.1's (JAX 0.8.1) weighted
Bradley-Terry on the bundled LLMFAO log (examples/data/llmfao.csv), each battle weighing
1 / max(n_pair, 5) with n_pair the battles of its unordered pair — arena-rank's own
inverse-propensity reweighting (PairDataset.from_pandas(reweighted=True)).

Run: python3 tests/golden/make_weighted_bt_golden.py
Settings: BradleyTerry(gtol=1e-13, ftol=1e-15, max_iter=10000), outcomes left -> 1,
right -> 0, tie -> 0.5, ci_method="sandwich", significance_level=0.05. arena-rank adds
hessian_reg = 1e-5 to the Hessian's diagonal for weighted data (not scaled by N).
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
    reweighted=True,
    min_pair_count=5,
)
model = BradleyTerry(
    n_competitors=len(dataset.competitors), gtol=1e-13, ftol=1e-15, max_iter=10000
)
result = model.compute_ratings_and_cis(dataset, significance_level=0.05, ci_method="sandwich")
with open(HERE / "weighted_bt_llmfao_golden.csv", "w", newline="") as f:
    f.write(
        f"# arena-rank 0.1.1, jax {jax.__version__}: BradleyTerry(gtol=1e-13, ftol=1e-15, max_iter=10000)"
        ".compute_ratings_and_cis(ci_method='sandwich', significance_level=0.05) on"
        " PairDataset.from_pandas(examples/data/llmfao.csv, reweighted=True, min_pair_count=5)\n"
    )
    writer = csv.writer(f)
    writer.writerow(["model", "rating", "rating_lower", "rating_upper"])
    for name, r, lo, hi in zip(
        result["competitors"], result["ratings"], result["rating_lower"], result["rating_upper"]
    ):
        writer.writerow([name, repr(float(r)), repr(float(lo)), repr(float(hi))])
