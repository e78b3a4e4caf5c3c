"""Produces the style-control test data and arena-rank's answers on it.

- style_control_log.csv: a generated LMArena-shaped log with known style effects.
  8 models with strengths beta (natural-log units) and their own habits (mean answer
  length, rates of headers, lists and bold spans); pairs drawn with popularity
  weights; per battle, the two answers' counts; the outcome is a tie with
  probability 0.15, else model_a wins with probability
  sigmoid(beta_a - beta_b + sum_j gamma_j d_j), d_j the normalized difference
  (a - b)/(a + b + 1) of feature j's counts (FastChat's preprocess_for_style).
- style_control_truth.csv: beta and gamma.
- style_control_golden.csv: arena-rank 0.1.1's ContextualBradleyTerry on the four
  style features (z-scored by ContextualPairDataset.from_pandas), for
  (reg 0, no pair weights) and (reg 1, pair weights with min_pair_count 50: the
  package's defaults), and (reg 0, pair weights), with L-BFGS tolerances tightened to gtol 1e-13, ftol 1e-15 so
  that its optimum is reached to the digits compared; ratings centred (natural-log
  units), coefficients, and sandwich standard errors (natural-log units).

Run once in a scratch environment: pip install arena-rank==0.1.1 (pulls JAX), then
python3 tests/golden/make_style_control_golden.py
"""
import csv
import math
import pathlib

import jax
import numpy as np
import pandas as pd
from arena_rank.models.contextual_bradley_terry import ContextualBradleyTerry
from arena_rank.utils.data_utils import ContextualPairDataset

HERE = pathlib.Path(__file__).parent
rng = np.random.default_rng(20241201)

MODELS = [f"model-{m}" for m in range(8)]
BETA = rng.normal(0.0, 0.7, len(MODELS))
BETA -= BETA.mean()
# Per model: mean answer length (tokens) and Poisson rates of headers, list items, bold.
LENGTH = rng.uniform(200, 900, len(MODELS))
RATES = rng.uniform(0.2, 6.0, (len(MODELS), 3))
GAMMA = np.array([1.2, 0.4, 0.25, 0.3])  # length, headers, lists, bold
FEATURES = [
    ("sum_assistant_a_tokens", "sum_assistant_b_tokens"),
    ("header_count_a", "header_count_b"),
    ("list_count_a", "list_count_b"),
    ("bold_count_a", "bold_count_b"),
]
BATTLES = 4000

popularity = (np.arange(len(MODELS)) + 1.0) ** -0.6
popularity /= popularity.sum()
rows = []
for _ in range(BATTLES):
    a, b = rng.choice(len(MODELS), size=2, replace=False, p=popularity)
    counts = {}
    for side, m in (("a", a), ("b", b)):
        counts[side] = [
            int(rng.lognormal(math.log(LENGTH[m]), 0.5)),
            *[int(rng.poisson(rate)) for rate in RATES[m]],
        ]
    d = np.array(
        [(x - y) / (x + y + 1.0) for x, y in zip(counts["a"], counts["b"])]
    )
    if rng.random() < 0.15:
        winner = "tie" if rng.random() < 0.6 else "tie (bothbad)"
    else:
        p = 1.0 / (1.0 + math.exp(-(BETA[a] - BETA[b] + GAMMA @ d)))
        winner = "model_a" if rng.random() < p else "model_b"
    row = {"model_a": MODELS[a], "model_b": MODELS[b], "winner": winner}
    for j, (col_a, col_b) in enumerate(FEATURES):
        row[col_a] = counts["a"][j]
        row[col_b] = counts["b"][j]
    rows.append(row)

log = pd.DataFrame(rows)
log.to_csv(HERE / "style_control_log.csv", index=False)
with open(HERE / "style_control_truth.csv", "w", newline="") as f:
    writer = csv.writer(f)
    writer.writerow(["parameter", "value"])
    for name, beta in zip(MODELS, BETA):
        writer.writerow([name, repr(float(beta))])
    for name, gamma in zip(["length", "headers", "lists", "bold"], GAMMA):
        writer.writerow([name, repr(float(gamma))])

names = ["length", "headers", "lists", "bold"]
for name, (col_a, col_b) in zip(names, FEATURES):
    log[name] = (log[col_a] - log[col_b]) / (log[col_a] + log[col_b] + 1.0)


def outcome(label):
    return {"model_a": 1.0, "model_b": 0.0}.get(label, 0.5)


with open(HERE / "style_control_golden.csv", "w", newline="") as f:
    f.write(
        f"# arena-rank 0.1.1, jax {jax.__version__}: ContextualBradleyTerry(reg, gtol=1e-13, "
        "ftol=1e-15, max_iter=10000) on ContextualPairDataset.from_pandas(feature_cols="
        "[length, headers, lists, bold], reweighted, min_pair_count=50); sandwich at 0.05\n"
    )
    writer = csv.writer(f)
    writer.writerow(["setting", "parameter", "estimate", "standard_error"])
    settings = (
        ("mle", 0.0, False),
        ("weighted_mle", 0.0, True),
        ("arena_rank_defaults", 1.0, True),
    )
    for setting, reg, reweighted in settings:
        dataset = ContextualPairDataset.from_pandas(
            log,
            feature_cols=names,
            outcome_map=outcome,
            reweighted=reweighted,
            min_pair_count=50,
        )
        model = ContextualBradleyTerry(
            n_competitors=len(dataset.competitors),
            n_features=len(names),
            reg=reg,
            gtol=1e-13,
            ftol=1e-15,
            max_iter=10000,
        )
        result = model.compute_ratings_and_cis(
            dataset, significance_level=0.05, ci_method="sandwich"
        )
        alpha = model.alpha
        ratings = (np.asarray(result["ratings"]) - model.init_rating) / alpha
        ratings -= ratings.mean()
        errors = np.sqrt(np.asarray(result["variances"])) / alpha
        for name, r, se in zip(result["competitors"], ratings, errors):
            writer.writerow([setting, name, repr(float(r)), repr(float(se))])
        # Coefficient standard errors from the same sandwich, as the package computes it.
        params = model.params
        hessian, gradient_cov = model.compute_hessian_and_covariance(
            params["ratings"], params["coeffs"], dataset.pairs, dataset.features,
            dataset.outcomes, dataset.weights, model.reg, model.hessian_reg,
            model.n_competitors, model.n_features, dataset.pairs.shape[0],
        )
        inverse = np.linalg.inv(np.asarray(hessian))
        covariance = inverse @ np.asarray(gradient_cov) @ inverse / dataset.pairs.shape[0]
        k = len(dataset.competitors)
        for j, name in enumerate(names):
            se = math.sqrt(covariance[k + j, k + j])
            writer.writerow([setting, name, repr(float(params["coeffs"][j])), repr(se)])
