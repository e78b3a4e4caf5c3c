//! The fast path to the maximal lottery: a dense primal–dual interior-point method on
//! the game's linear complementarity problem, finished by an exact solve on the
//! support that also proves the answer unique.
//!
//! **The LCP.** With `L = 1 1^T - A`, find `x >= 0` with `w = L x - 1 >= 0` and
//! `x_j w_j = 0`. Since `A` is skew, `x^T L x = (1^T x)^2`, so a solution has
//! `(1^T x)^2 = 1^T x`, i.e. `1^T x = 1`, and then `w = -A x`: `x` is a maximal
//! lottery; every maximal lottery solves the LCP. `x^T L x >= 0` for all `x` makes the
//! LCP monotone, so Mehrotra's predictor–corrector converges from the infeasible
//! start `x = 1/K`, `w = 1`. A Newton step solves `(diag(w/x) + L) dx = r`, one dense
//! LU per iteration shared by predictor and corrector.
//!
//! **Purification.** Near the solution the support `S = {j : x_j > w_j}` is read off
//! and the bordered system `[A_SS, -1; 1^T, 0] [p; v] = [0; 1]` (every supported agent
//! earns the value `v` against `p`) is solved by full-pivoting LU. The answer is
//! accepted only with a proof of uniqueness: `p_S > 0`, `(A p)_j < 0` off the support,
//! and the bordered matrix nonsingular. Then every maximal lottery `q` is `p`: from
//! `q^T A p = 0` and `(A p)_j < 0` off `S`, `q` lives on `S`; from `p^T A q = 0` and
//! `p_S > 0`, `(A q)_S = 0`; the nonsingular system then forces `q = p`. A unique
//! lottery is the canonical one under any criterion (minimum norm, maximum entropy).
//! When the proof fails (ties, clones: a face of equilibria) the caller falls back to
//! the canonical QP.
//!
//! Written by hand because no maintained Rust crate solves dense LPs or LCPs by an
//! interior-point method: Clarabel, used for the QPs of this crate, factors the KKT
//! system with a sparse LDL, which on a dense payoff costs 83 s at K = 1000, where
//! this path takes well under a second (BENCHMARKS.md). The linear algebra is faer's.

use faer::dyn_stack::{MemBuffer, MemStack, StackReq};
use faer::linalg::lu::partial_pivoting::{factor, solve};
use faer::perm::PermRef;
use faer::{Conj, Mat, Par};

use crate::certificate::{Lottery, GAP_TOLERANCE};
use crate::payoff::dot;
use crate::PayoffMatrix;

/// Iteration limit; the benchmark games (K = 10 to 1000) need 4 to 16.
const MAX_ITERATIONS: u32 = 80;
/// Purification is tried once the mean complementarity `x^T w / K` is below this.
const PURIFY_BELOW: f64 = 1e-4;
/// The iteration stops when complementarity is below this without a proof.
const COMPLEMENTARITY_FLOOR: f64 = 1e-16;
/// Smallest probability and largest `(A p)_j` off the support accepted as strictly
/// positive and strictly negative: well above the solve's rounding error.
const STRICT_MARGIN: f64 = 1e-9;
/// Smallest `|U_ii| / max |U_ii|` of the full-pivoting LU accepted as nonsingular.
const RANK_TOLERANCE: f64 = 1e-10;
/// Below this many agents the LU runs on one thread: for small games the fork–join
/// costs more than it saves (and batches are parallel over games already).
const PARALLEL_FROM: usize = 200;
/// Fraction of the distance to the boundary a step may travel.
const STEP_DAMPING: f64 = 0.995;

/// The unique maximal lottery of `a`, certified by its exploitability and marked
/// unique, or `None` when uniqueness could not be proved (the caller then solves the
/// canonical QP).
pub(crate) fn unique_maximal_lottery(a: &PayoffMatrix) -> Option<Lottery> {
    let k = a.agents();
    let (mut x, mut w) = starting_point(a);
    let mut state = Workspace::new(k);
    for iteration in 0..MAX_ITERATIONS {
        let mu = dot(&x, &w) / k as f64;
        if mu < PURIFY_BELOW {
            if let Some((p, gap)) = purify(a, &x, &w) {
                return Some(Lottery {
                    unique: true,
                    ..Lottery::with_gap(p, gap, iteration)
                });
            }
        }
        if mu < COMPLEMENTARITY_FLOOR {
            return None;
        }
        state.newton_step(a, &mut x, &mut w, mu)?;
    }
    None
}

/// Mehrotra's starting point adapted to the LCP: the uniform lottery, the `w` that
/// makes it feasible (`w = L x - 1 = -A x`) shifted to be positive, then both moved so
/// that no product `x_j w_j` is far below the others.
fn starting_point(a: &PayoffMatrix) -> (Vec<f64>, Vec<f64>) {
    let k = a.agents();
    let mut x = vec![1.0 / k as f64; k];
    let mut w = a.apply(&x);
    w.iter_mut().for_each(|v| *v = -*v);
    let lowest = w.iter().copied().fold(f64::INFINITY, f64::min);
    let shift = (-1.5 * lowest).max(0.0) + f64::EPSILON;
    w.iter_mut().for_each(|v| *v += shift);
    let products = dot(&x, &w);
    let (x_sum, w_sum): (f64, f64) = (x.iter().sum(), w.iter().sum());
    x.iter_mut().for_each(|v| *v += 0.5 * products / w_sum);
    w.iter_mut().for_each(|v| *v += 0.5 * products / x_sum);
    (x, w)
}

/// A dense LU factorization reused across iterations, on one thread for small games.
struct DenseLu {
    matrix: Mat<f64>,
    forward: Vec<usize>,
    inverse: Vec<usize>,
    scratch: MemBuffer,
    parallelism: Par,
}

impl DenseLu {
    fn new(k: usize) -> Self {
        let parallelism = if k >= PARALLEL_FROM {
            Par::rayon(0)
        } else {
            Par::Seq
        };
        let scratch = StackReq::any_of(&[
            factor::lu_in_place_scratch::<usize, f64>(k, k, parallelism, Default::default()),
            solve::solve_in_place_scratch::<usize, f64>(k, 1, parallelism),
        ]);
        Self {
            matrix: Mat::zeros(k, k),
            forward: vec![0; k],
            inverse: vec![0; k],
            scratch: MemBuffer::new(scratch),
            parallelism,
        }
    }

    /// Factors `self.matrix` in place (partial pivoting).
    fn factor(&mut self) {
        factor::lu_in_place(
            self.matrix.as_mut(),
            &mut self.forward,
            &mut self.inverse,
            self.parallelism,
            MemStack::new(&mut self.scratch),
            Default::default(),
        );
    }

    /// Overwrites `rhs` with the solution of `matrix x = rhs`; `None` if not finite.
    fn solve(&mut self, rhs: &mut Mat<f64>) -> Option<Vec<f64>> {
        let k = self.forward.len();
        let lu = self.matrix.as_ref();
        solve::solve_in_place_with_conj(
            lu,
            lu,
            PermRef::new_checked(&self.forward, &self.inverse, k),
            Conj::No,
            rhs.as_mut(),
            self.parallelism,
            MemStack::new(&mut self.scratch),
        );
        let x: Vec<f64> = (0..k).map(|j| rhs[(j, 0)]).collect();
        x.iter().all(|v| v.is_finite()).then_some(x)
    }
}

/// Buffers of one interior-point run.
struct Workspace {
    lu: DenseLu,
    residual: Vec<f64>,
    lx: Vec<f64>,
    rhs: Mat<f64>,
    dw: Vec<f64>,
}

impl Workspace {
    fn new(k: usize) -> Self {
        Self {
            lu: DenseLu::new(k),
            residual: vec![0.0; k],
            lx: vec![0.0; k],
            rhs: Mat::zeros(k, 1),
            dw: vec![0.0; k],
        }
    }

    /// One predictor–corrector step; `None` if the Newton matrix is singular.
    fn newton_step(
        &mut self,
        a: &PayoffMatrix,
        x: &mut [f64],
        w: &mut [f64],
        mu: f64,
    ) -> Option<()> {
        let k = x.len();
        // r = w - (L x - 1): the distance from w = L x - 1.
        apply_l(a, x, &mut self.lx);
        for ((r, &wj), &lxj) in self.residual.iter_mut().zip(w.iter()).zip(&self.lx) {
            *r = wj - lxj + 1.0;
        }
        // Column l of W/X + L is 1 - A_{., l} = 1 + A_{l, .} (skew), plus the diagonal;
        // faer stores columns contiguously.
        for l in 0..k {
            let column = self.lu.matrix.col_as_slice_mut(l);
            for (entry, &value) in column.iter_mut().zip(a.row(l)) {
                *entry = 1.0 + value;
            }
            column[l] += w[l] / x[l];
        }
        self.lu.factor();
        // Predictor: (W/X + L) dx = r - w.
        for (j, &wj) in w.iter().enumerate() {
            self.rhs[(j, 0)] = self.residual[j] - wj;
        }
        let dx_affine = self.lu.solve(&mut self.rhs)?;
        self.direction_w(a, &dx_affine);
        let dw_affine = self.dw.clone();
        let alpha = max_step(x, &dx_affine).min(max_step(w, &dw_affine));
        let mu_affine = (0..k)
            .map(|j| (x[j] + alpha * dx_affine[j]) * (w[j] + alpha * dw_affine[j]))
            .sum::<f64>()
            / k as f64;
        let sigma = (mu_affine / mu).powi(3);
        // Corrector: (W/X + L) dx = (sigma mu - x w - dx_a dw_a) / x + r.
        for j in 0..k {
            self.rhs[(j, 0)] =
                (sigma * mu - x[j] * w[j] - dx_affine[j] * dw_affine[j]) / x[j] + self.residual[j];
        }
        let dx = self.lu.solve(&mut self.rhs)?;
        self.direction_w(a, &dx);
        let alpha = (STEP_DAMPING * max_step(x, &dx).min(max_step(w, &self.dw))).min(1.0);
        for j in 0..k {
            x[j] += alpha * dx[j];
            w[j] += alpha * self.dw[j];
        }
        Some(())
    }

    /// `dw = L dx - r`, keeping `w - (L x - 1)` on the Newton line.
    fn direction_w(&mut self, a: &PayoffMatrix, dx: &[f64]) {
        apply_l(a, dx, &mut self.lx);
        for j in 0..dx.len() {
            self.dw[j] = self.lx[j] - self.residual[j];
        }
    }
}

/// `out = L x = (1^T x) 1 - A x`.
fn apply_l(a: &PayoffMatrix, x: &[f64], out: &mut [f64]) {
    a.apply_into(x, out);
    let total: f64 = x.iter().sum();
    out.iter_mut().for_each(|v| *v = total - *v);
}

/// Largest step in `[0, 1]` keeping `v + step * dv >= 0`.
fn max_step(v: &[f64], dv: &[f64]) -> f64 {
    v.iter()
        .zip(dv)
        .filter(|(_, &d)| d < 0.0)
        .map(|(&v, &d)| -v / d)
        .fold(1.0, f64::min)
}

/// The exact lottery on the support `{j : x_j > w_j}` and its exploitability, if it is
/// provably the unique maximal lottery (module docs). Failed attempts are cheap: a support of even size is
/// skipped (a bordered skew-symmetric system of odd order `s + 1` is singular), and
/// the candidate is screened with a partial-pivoting LU before the rank-revealing
/// full-pivoting LU proves the system nonsingular.
fn purify(a: &PayoffMatrix, x: &[f64], w: &[f64]) -> Option<(Vec<f64>, f64)> {
    let k = x.len();
    let support: Vec<usize> = (0..k).filter(|&j| x[j] > w[j]).collect();
    let (bordered, p) = solve_on_support(a, &support)?;
    if support.iter().any(|&j| p[j] <= STRICT_MARGIN) {
        return None;
    }
    let payoffs = a.apply(&p);
    let off_support_strict = (0..k)
        .filter(|&j| p[j] == 0.0)
        .all(|j| payoffs[j] < -STRICT_MARGIN);
    let gap = payoffs.iter().copied().fold(0.0, f64::max);
    (off_support_strict && gap <= GAP_TOLERANCE && nonsingular(bordered)).then_some((p, gap))
}

/// The lottery with `A_SS p = v 1`, `1^T p = 1`, zero off `support`, with the
/// bordered matrix it came from; `None` for a support of even size or a singular
/// system.
fn solve_on_support(a: &PayoffMatrix, support: &[usize]) -> Option<(Mat<f64>, Vec<f64>)> {
    let s = support.len();
    if s.is_multiple_of(2) {
        return None;
    }
    let mut lu = DenseLu::new(s + 1);
    for (c, &agent) in support.iter().enumerate() {
        // Column c of A_SS is minus row c (skew), then the bordering 1.
        let column = lu.matrix.col_as_slice_mut(c);
        for (r, &other) in support.iter().enumerate() {
            column[r] = -a.get(agent, other);
        }
        column[s] = 1.0;
    }
    let last = lu.matrix.col_as_slice_mut(s);
    last[..s].iter_mut().for_each(|v| *v = -1.0);
    last[s] = 0.0;
    let bordered = lu.matrix.clone();
    lu.factor();
    let mut rhs = Mat::zeros(s + 1, 1);
    rhs[(s, 0)] = 1.0;
    let solution = lu.solve(&mut rhs)?;
    let total: f64 = solution[..s].iter().sum();
    let mut p = vec![0.0; a.agents()];
    for (&agent, &value) in support.iter().zip(&solution) {
        p[agent] = value / total;
    }
    Some((bordered, p))
}

/// Whether the full-pivoting LU of `m` has no pivot below [`RANK_TOLERANCE`] times the
/// largest.
fn nonsingular(m: Mat<f64>) -> bool {
    let lu = m.full_piv_lu();
    let pivots: Vec<f64> = (0..m.nrows()).map(|i| lu.U()[(i, i)].abs()).collect();
    let largest = pivots.iter().copied().fold(0.0, f64::max);
    pivots.iter().all(|&u| u > RANK_TOLERANCE * largest)
}
