"""The Bradley-Terry maximum-likelihood strengths of the tutorial's 4-model table, from
two outside solvers, for the golden values in crates/ratings/tests/suite/ratings.rs.

    .venv/bin/python scripts/goldens/tutorial_mle.py

choix's iterative Luce spectral ranking (ilsr_pairwise, which converges to the MLE) and
a direct maximisation of the log-likelihood with scipy.optimize.minimize (BFGS on the
log-strengths, strengths normalised to sum to 1). Both print the versions they ran.
"""

from importlib.metadata import version

import choix
import numpy as np
import scipy
from scipy.optimize import minimize

# wins[i][j]: battles model i won against model j (the tutorial's table; A, B, C, D).
WINS = [[0, 2, 3, 3], [1, 0, 2, 3], [0, 1, 0, 2], [0, 0, 1, 0]]

pairs = [(i, j) for i, row in enumerate(WINS) for j, n in enumerate(row) for _ in range(n)]
params = choix.ilsr_pairwise(4, pairs, alpha=0.0, tol=1e-14, max_iter=10_000)
strengths = np.exp(params) / np.exp(params).sum()
print("choix", version("choix"), np.round(strengths, 4), strengths)


def negative_log_likelihood(theta: np.ndarray) -> float:
    total = 0.0
    for i, row in enumerate(WINS):
        for j, n in enumerate(row):
            if n:
                total -= n * (theta[i] - np.logaddexp(theta[i], theta[j]))
    return total


found = minimize(negative_log_likelihood, np.zeros(4), method="BFGS", options={"gtol": 1e-12})
direct = np.exp(found.x) / np.exp(found.x).sum()
print("scipy", scipy.__version__, np.round(direct, 4), direct)
print("P(A beats D) at the MLE", round(direct[0] / (direct[0] + direct[3]), 4))
