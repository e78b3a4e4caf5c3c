//! The regularized best response and gap of NashEval Appendix C.
//!
//! Regularizer (Eq. 74 with costs, Eq. 20): `Omega(q) = rho/2 ||q - 1/K||^2 + c^T q`.
//! Best response (Eq. 29): `T(pi) = argmin_q pi^T A q + Omega(q)`, which for `rho > 0`
//! is the Euclidean projection of `1/K - (A^T pi + c) / rho` onto the simplex.
//! Gap (Eq. 30): `G(pi) = Omega(pi) - pi^T A T(pi) - Omega(T(pi)) >= 0`, zero exactly
//! at the equilibrium; gradient (Eq. 33, Danskin): `-A T(pi) + grad Omega(pi)`.
//! Every function writes into caller buffers (`scratch` keeps its capacity), so
//! batches of contexts run without allocation after the first call.

use crate::PayoffMatrix;

/// Euclidean projection of `v` onto the probability simplex, in place (sort-based,
/// Held et al. 1974; Duchi et al. 2008); `scratch` holds a sorted copy and keeps its
/// capacity between calls.
pub fn project_to_simplex(v: &mut [f64], scratch: &mut Vec<f64>) {
    scratch.clear();
    scratch.extend_from_slice(v);
    scratch.sort_unstable_by(|a, b| b.total_cmp(a));
    let mut cumulative = 0.0;
    let mut theta = 0.0;
    for (i, &u) in scratch.iter().enumerate() {
        cumulative += u;
        let candidate = (cumulative - 1.0) / (i + 1) as f64;
        if u - candidate > 0.0 {
            theta = candidate;
        }
    }
    for x in v.iter_mut() {
        *x = (*x - theta).max(0.0);
    }
}

/// `Omega(q) = rho/2 ||q - 1/K||^2 + c^T q` (NashEval Eq. 74 and Eq. 20).
#[derive(Debug, Clone, PartialEq)]
pub struct Regularizer {
    /// Strength `rho >= 0`.
    pub rho: f64,
    /// Per-agent costs `c` (empty for none).
    pub costs: Vec<f64>,
}

impl Regularizer {
    /// `c_j`; zero when there are no costs.
    pub(crate) fn cost(&self, j: usize) -> f64 {
        self.costs.get(j).copied().unwrap_or(0.0)
    }

    /// `Omega(q)`.
    pub fn value(&self, q: &[f64]) -> f64 {
        let uniform = 1.0 / q.len() as f64;
        q.iter()
            .enumerate()
            .map(|(j, &x)| 0.5 * self.rho * (x - uniform).powi(2) + self.cost(j) * x)
            .sum()
    }

    /// `T(pi)` (Eq. 29) into `out`. For `rho = 0` a vertex on the smallest entry of
    /// `A^T pi + c` (the lowest index among ties).
    pub fn best_response_into(
        &self,
        a: &PayoffMatrix,
        pi: &[f64],
        scratch: &mut Vec<f64>,
        out: &mut [f64],
    ) {
        priced_response_into(a, pi, self.rho, |j| self.cost(j), scratch, out);
    }

    /// `G(pi)` (Eq. 30); `response` receives `T(pi)`.
    pub fn gap(
        &self,
        a: &PayoffMatrix,
        pi: &[f64],
        scratch: &mut Vec<f64>,
        response: &mut [f64],
    ) -> f64 {
        self.best_response_into(a, pi, scratch, response);
        (self.value(pi) - cross_payoff(a, pi, response) - self.value(response)).max(0.0)
    }

    /// The operator of the variational inequality (Lemma 1),
    /// `F(pi) = -A pi + grad Omega(pi) = -A pi + rho (pi - 1/K) + c`, into `out`.
    pub fn operator_into(&self, a: &PayoffMatrix, pi: &[f64], out: &mut [f64]) {
        self.gap_gradient(a, pi, pi, out);
    }

    /// `grad G(pi) = -A T(pi) + grad Omega(pi)` (Eq. 33) into `gradient`, given
    /// `response = T(pi)`.
    pub fn gap_gradient(
        &self,
        a: &PayoffMatrix,
        pi: &[f64],
        response: &[f64],
        gradient: &mut [f64],
    ) {
        priced_gap_gradient(a, pi, response, self.rho, |j| self.cost(j), gradient);
    }
}

/// `-A T + rho (pi - 1/K) + c` into `gradient`, the gap's gradient (Eq. 33) under the
/// linear price `cost(j)`, given `response = T`.
pub(crate) fn priced_gap_gradient(
    a: &PayoffMatrix,
    pi: &[f64],
    response: &[f64],
    rho: f64,
    cost: impl Fn(usize) -> f64,
    gradient: &mut [f64],
) {
    let uniform = 1.0 / pi.len() as f64;
    a.apply_into(response, gradient);
    for (j, g) in gradient.iter_mut().enumerate() {
        *g = -*g + rho * (pi[j] - uniform) + cost(j);
    }
}

/// `argmin_q pi^T A q + rho/2 ||q - 1/K||^2 + sum_j cost(j) q_j` into `out`: for
/// `rho > 0` the projection of `1/K - (A^T pi + c) / rho` onto the simplex, for
/// `rho = 0` the vertex on the smallest entry of `A^T pi + c` (lowest index among ties).
pub(crate) fn priced_response_into(
    a: &PayoffMatrix,
    pi: &[f64],
    rho: f64,
    cost: impl Fn(usize) -> f64,
    scratch: &mut Vec<f64>,
    out: &mut [f64],
) {
    let k = a.agents();
    // (A^T pi)_j = -(A pi)_j by skew-symmetry.
    a.apply_into(pi, out);
    for (j, o) in out.iter_mut().enumerate() {
        *o = -*o + cost(j);
    }
    if rho > 0.0 {
        let uniform = 1.0 / k as f64;
        out.iter_mut().for_each(|g| *g = uniform - *g / rho);
        project_to_simplex(out, scratch);
    } else {
        let best = (0..k)
            .min_by(|&x, &y| out[x].total_cmp(&out[y]))
            .unwrap_or(0);
        out.iter_mut()
            .enumerate()
            .for_each(|(j, o)| *o = f64::from(u8::from(j == best)));
    }
}

/// `pi^T A q`.
pub(crate) fn cross_payoff(a: &PayoffMatrix, pi: &[f64], q: &[f64]) -> f64 {
    pi.iter()
        .enumerate()
        .map(|(j, p)| p * a.row(j).iter().zip(q).map(|(x, t)| x * t).sum::<f64>())
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn projection_matches_hand_values() {
        let mut scratch = Vec::new();
        let mut v = [0.5, 0.5, 0.5];
        project_to_simplex(&mut v, &mut scratch);
        assert!(v.iter().all(|&x| (x - 1.0 / 3.0).abs() < 1e-15));
        let mut v = [2.0, 0.0, -1.0];
        project_to_simplex(&mut v, &mut scratch);
        assert_eq!(v, [1.0, 0.0, 0.0]);
        let mut v = [0.6, 0.6, -5.0];
        project_to_simplex(&mut v, &mut scratch);
        assert!((v[0] - 0.5).abs() < 1e-15 && v[2] == 0.0);
    }

    /// Danskin's gradient (Eq. 33) against central finite differences of the gap.
    #[test]
    fn gap_gradient_matches_finite_differences() {
        let a = PayoffMatrix::new(&[
            vec![0.0, 0.6, -0.3],
            vec![-0.6, 0.0, 0.8],
            vec![0.3, -0.8, 0.0],
        ])
        .unwrap();
        let regularizer = Regularizer {
            rho: 0.7,
            costs: vec![0.05, 0.0, 0.1],
        };
        let pi = [0.5, 0.3, 0.2];
        let (mut scratch, mut response) = (Vec::new(), [0.0; 3]);
        regularizer.gap(&a, &pi, &mut scratch, &mut response);
        let mut gradient = [0.0; 3];
        regularizer.gap_gradient(&a, &pi, &response, &mut gradient);
        let h = 1e-6;
        for j in 0..3 {
            let (mut up, mut down) = (pi, pi);
            up[j] += h;
            down[j] -= h;
            let numeric = (regularizer.gap(&a, &up, &mut scratch, &mut response)
                - regularizer.gap(&a, &down, &mut scratch, &mut response))
                / (2.0 * h);
            // Step 1e-6 on a piecewise-quadratic function: agreement to 1e-6.
            assert!(
                (numeric - gradient[j]).abs() < 1e-6,
                "{j}: {numeric} vs {}",
                gradient[j]
            );
        }
    }
}
