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

Duels (a second data set, ope_duels.csv): 300 logged pairs over 4 agents, each pair
offered with a known probability mu_i, y_i = 1 when the first won; a candidate pi and
an opponent rho per row, and a margin model D(a, b) = P(a beats b) - 1/2 per row. The
payoff V(pi, rho) = sum_{a,b} pi(a) rho(b) P(a beats b) = 1/2 + sum_{a<b} g_ab D_ab,
g_ab = pi(a) rho(b) - pi(b) rho(a), estimated by
- IPS: 1/2 + g_{a_i b_i} (y_i - 1/2) / mu_i;
- DR: 1/2 + sum_{a<b} g_ab D_ab(x_i) + g_{a_i b_i} (y_i - 1/2 - D_{a_i b_i}(x_i)) / mu_i
(Dudik, Langford & Li 2011's estimator with the pair as the action).
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

# Duels: written from the formulas above with explicit loops over the pairs.
nd, kd = 300, 4
pair_list = [(a, b) for a in range(kd) for b in range(a + 1, kd)]
strength = rng.normal(size=(nd, kd))
true_margin = np.array([[0.4 * np.tanh(strength[i, a] - strength[i, b]) for (a, b) in pair_list]
                        for i in range(nd)])
pair_logits = rng.normal(size=(nd, len(pair_list)))
pair_mu = np.exp(pair_logits) / np.exp(pair_logits).sum(axis=1, keepdims=True)
pair_mu = 0.8 * pair_mu + 0.2 / len(pair_list)
drawn = np.array([rng.choice(len(pair_list), p=row) for row in pair_mu])
flip = rng.uniform(size=nd) < 0.5
firsts = np.array([pair_list[c][1] if f else pair_list[c][0] for c, f in zip(drawn, flip)])
seconds = np.array([pair_list[c][0] if f else pair_list[c][1] for c, f in zip(drawn, flip)])
mu_d = pair_mu[np.arange(nd), drawn]
p_first = 0.5 + np.where(flip, -1, 1) * true_margin[np.arange(nd), drawn]
verdicts = (rng.uniform(size=nd) < p_first).astype(float)
def softmax(z):
    return np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
pi_d = softmax(rng.normal(size=(nd, kd)) * 1.5)
rho_d = softmax(rng.normal(size=(nd, kd)))
margins_d = np.clip(true_margin + rng.normal(scale=0.05, size=true_margin.shape), -0.5, 0.5)
duel_ips, duel_dr = np.zeros(nd), np.zeros(nd)
for i in range(nd):
    a, b = firsts[i], seconds[i]
    g = pi_d[i, a] * rho_d[i, b] - pi_d[i, b] * rho_d[i, a]
    column = pair_list.index((min(a, b), max(a, b)))
    predicted = margins_d[i, column] * (1 if a < b else -1)
    direct = sum((pi_d[i, x] * rho_d[i, y] - pi_d[i, y] * rho_d[i, x]) * margins_d[i, c]
                 for c, (x, y) in enumerate(pair_list))
    duel_ips[i] = 0.5 + g * (verdicts[i] - 0.5) / mu_d[i]
    duel_dr[i] = 0.5 + direct + g * (verdicts[i] - 0.5 - predicted) / mu_d[i]
golden["duel_ips"] = estimate(duel_ips.mean(), duel_ips)
golden["duel_dr"] = estimate(duel_dr.mean(), duel_dr)
duel_columns = (["first", "second", "propensity", "outcome"] + [f"target_{a}" for a in range(kd)]
                + [f"opponent_{a}" for a in range(kd)]
                + [f"margin_{a}_{b}" for (a, b) in pair_list])
duel_rows = np.column_stack([firsts, seconds, mu_d, verdicts, pi_d, rho_d, margins_d])
with open(data / "ope_duels.csv", "w") as f:
    f.write(",".join(duel_columns) + "\n")
    for row in duel_rows:
        f.write(",".join([str(int(row[0])), str(int(row[1]))] + [repr(float(v)) for v in row[2:]]) + "\n")
(data / "ope_golden.json").write_text(json.dumps(golden, indent=2) + "\n")
print(json.dumps(golden, indent=2))
