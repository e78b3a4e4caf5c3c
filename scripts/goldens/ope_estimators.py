"""Off-policy estimates of a logged data set from numpy, written from the estimators'
papers, for the golden values crates/verdict/tests/suite/ope.rs checks to 1e-9.

    .venv/bin/python scripts/goldens/ope_estimators.py

(Open Bandit Pipeline, the usual reference, does not install on Python 3.11: its last
release requires < 3.11.) The data: 400 logged rows over 3 agents, drawn here with a
seeded numpy generator — the logger's probabilities of every agent, the agent drawn,
its exact propensity, a 0/1 outcome, a candidate policy and an outcome model's
predictions — written to crates/verdict/tests/data/ope_log.csv; the estimates to
ope_golden.json beside it:
- IPS (Horvitz & Thompson 1952): mean of w_i r_i, w_i = pi(a_i|x_i) / mu_i;
- SNIPS (Swaminathan & Joachims 2015, Eq. 5): sum w_i r_i / sum w_i, its standard
  error by the delta method: sd of w_i (r_i - V) / mean(w), over sqrt(n);
- DR (Dudik, Langford & Li 2011, Eq. 2): mean of sum_a pi(a|x_i) q(x_i,a) +
  w_i (r_i - q(x_i,a_i));
standard errors: sample sd (ddof 1) of the per-row terms over sqrt(n).
"""

import json
from importlib.metadata import version
from pathlib import Path

import numpy as np

root = Path(__file__).resolve().parents[2]
rng = np.random.default_rng(20261207)
n, k = 400, 3
logits = rng.normal(size=(n, k))
logging = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
logging = 0.9 * logging + 0.1 / k
actions = np.array([rng.choice(k, p=row) for row in logging])
propensity = logging[np.arange(n), actions]
truth = rng.uniform(0.2, 0.8, size=(n, k))
outcome = (rng.uniform(size=n) < truth[np.arange(n), actions]).astype(float)
target_logits = rng.normal(size=(n, k)) * 2
target = np.exp(target_logits) / np.exp(target_logits).sum(axis=1, keepdims=True)
model = np.clip(truth + rng.normal(scale=0.1, size=(n, k)), 0, 1)

w = target[np.arange(n), actions] / propensity
ips_terms = w * outcome
dr_terms = (target * model).sum(axis=1) + w * (outcome - model[np.arange(n), actions])
snips = ips_terms.sum() / w.sum()
snips_terms = w * (outcome - snips) / w.mean()


def estimate(value, terms):
    return {"estimate": float(value), "std_error": float(terms.std(ddof=1) / np.sqrt(len(terms)))}


golden = {
    "numpy": version("numpy"),
    "script": "scripts/goldens/ope_estimators.py",
    "ips": estimate(ips_terms.mean(), ips_terms),
    "snips": estimate(snips, snips_terms),
    "dr": estimate(dr_terms.mean(), dr_terms),
    "effective_sample_size": float(w.sum() ** 2 / (w ** 2).sum()),
    "max_weight": float(w.max()),
}
data = root / "crates" / "verdict" / "tests" / "data"
columns = (["action", "propensity", "outcome"] + [f"target_{a}" for a in range(k)]
           + [f"model_{a}" for a in range(k)] + [f"logging_{a}" for a in range(k)])
rows = np.column_stack([actions, propensity, outcome, target, model, logging])
with open(data / "ope_log.csv", "w") as f:
    f.write(",".join(columns) + "\n")
    for row in rows:
        f.write(",".join([str(int(row[0]))] + [repr(float(v)) for v in row[1:]]) + "\n")
(data / "ope_golden.json").write_text(json.dumps(golden, indent=2) + "\n")
print(json.dumps(golden, indent=2))
