"""Produces grounded_rk_genai_golden.csv: the grounded Rao-Kupper model of
Prompt-to-Leaderboard (P2L's "bag" loss, lmarena/p2l p2l/model.py) fitted by
scipy.optimize.minimize (BFGS from zeros, gtol 1e-10) on the bundled GenAI-Arena log
(examples/data/genai-arena-battles-20240220.json, self-battles left out), written from
the paper's formulas independently of verdict's Newton solver:

    P(i wins)  = pi_i / (pi_i + theta pi_j + 1)     pi = exp(beta), theta = 1 + exp(eta)
    P(j wins)  = pi_j / (pi_j + theta pi_i + 1)
    P(bad)     = 1 / (1 + pi_i + pi_j)
    P(tie)     = 1 - the three

Standard errors: the sandwich H^-1 (sum_battles s s^T) H^-1, with the Hessian H by
central differences of scipy's gradient-free log-likelihood (step 1e-4) and each
battle's score s by central differences too.

Run: python3 tests/golden/make_grounded_rk_golden.py  (scipy 1.17.1, numpy)
"""
import json
import pathlib

import numpy as np
from scipy.optimize import minimize

ROOT = pathlib.Path(__file__).resolve().parents[2]
LOG = ROOT / "examples" / "data" / "genai-arena-battles-20240220.json"
OUT = pathlib.Path(__file__).with_name("grounded_rk_genai_golden.csv")

battles = [b for b in json.loads(LOG.read_text()) if b["model_a"] != b["model_b"]]
names = sorted({b["model_a"] for b in battles} | {b["model_b"] for b in battles})
index = {n: i for i, n in enumerate(names)}
K = len(names)
a = np.array([index[b["model_a"]] for b in battles])
b = np.array([index[b["model_b"]] for b in battles])
outcome = np.array(
    [{"model_a": 0, "model_b": 1, "tie": 2, "tie (bothbad)": 3}[x["winner"]] for x in battles]
)


def log_probs(params, a, b):
    beta, eta = params[:K], params[K]
    theta = 1.0 + np.exp(eta)
    pa, pb = np.exp(beta[a]), np.exp(beta[b])
    win_a = pa / (pa + theta * pb + 1.0)
    win_b = pb / (pb + theta * pa + 1.0)
    bad = 1.0 / (1.0 + pa + pb)
    tie = 1.0 - win_a - win_b - bad
    return np.log(np.stack([win_a, win_b, tie, bad]))


def per_battle(params):
    return log_probs(params, a, b)[outcome, np.arange(len(outcome))]


def negative(params):
    return -per_battle(params).sum()


fit = minimize(negative, np.zeros(K + 1), method="BFGS", options={"gtol": 1e-10, "maxiter": 10000})
x = fit.x
h = 1e-4
hessian = np.zeros((K + 1, K + 1))
scores = np.zeros((len(outcome), K + 1))
for r in range(K + 1):
    up, down = x.copy(), x.copy()
    up[r] += h
    down[r] -= h
    scores[:, r] = (per_battle(up) - per_battle(down)) / (2 * h)
    for c in range(K + 1):
        uu, ud, du, dd = (x.copy() for _ in range(4))
        uu[r] += h; uu[c] += h
        ud[r] += h; ud[c] -= h
        du[r] -= h; du[c] += h
        dd[r] -= h; dd[c] -= h
        hessian[r, c] = -(negative(uu) - negative(ud) - negative(du) + negative(dd)) / (4 * h * h)
bread = np.linalg.inv(-hessian)
covariance = bread @ (scores.T @ scores) @ bread
with open(OUT, "w") as f:
    f.write("# made by tests/golden/make_grounded_rk_golden.py (scipy BFGS on P2L's grounded Rao-Kupper)\n")
    f.write(f"# loglik {-fit.fun:.10f} theta {1 + np.exp(x[K]):.10f}\n")
    f.write("model,beta,se\n")
    for m, name in enumerate(names):
        f.write(f"{name},{x[m]:.10f},{np.sqrt(covariance[m, m]):.10f}\n")
print(OUT.read_text())
