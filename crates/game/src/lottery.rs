//! The maximal lottery: an equilibrium `pi` of the symmetric zero-sum game, i.e.
//! `pi` on the simplex with `(A pi)_j <= 0` for every agent j (no agent beats it in
//! expectation; the game's value is 0). The set of maximal lotteries is a polytope;
//! when it has more than one point we return the canonical one of minimum Euclidean
//! norm (as in NashEval's LMArena analysis), the unique solution of the QP
//!
//! ```text
//! minimise 1/2 ||pi||^2  subject to  A pi <= 0,  1^T pi = 1,  pi >= 0,
//! ```
//!
//! solved with Clarabel's interior-point method, then polished: on the support found,
//! the minimum-norm solution of `A_SS x = 0, 1^T x = 1` (by SVD) replaces the
//! interior-point answer when it is feasible for the whole game, which brings the gap
//! to rounding level. The result is certified by its exploitability `max_j (A pi)_j`.

use clarabel::algebra::CscMatrix;
use clarabel::solver::{
    DefaultSettingsBuilder, DefaultSolver, IPSolver, NonnegativeConeT, SolverStatus, ZeroConeT,
};
use nalgebra::{DMatrix, DVector};

use crate::{exploitability, GameError, PayoffMatrix};

/// Largest exploitability of a certified equilibrium.
pub const GAP_TOLERANCE: f64 = 1e-9;

/// Entries below this are treated as outside the support when polishing.
const SUPPORT_CUTOFF: f64 = 1e-7;

/// Interior-point tolerances (absolute and relative).
const SOLVER_TOLERANCE: f64 = 1e-10;

/// Whether a lottery met [`GAP_TOLERANCE`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LotteryStatus {
    /// Gap ≤ [`GAP_TOLERANCE`].
    Certified,
    /// The solver's best answer misses the tolerance; its exploitability is reported.
    Uncertified,
}

/// A maximal lottery with its certificate.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Lottery {
    /// Probability of each agent.
    pub probabilities: Vec<f64>,
    /// The certificate: the gap `G_Omega(pi)` (Eq. 30), which for the maximal lottery
    /// (`rho = 0`, no costs) is the exploitability `max_j (A pi)_j` (Eq. 69).
    pub gap: f64,
    /// Certified or not.
    pub status: LotteryStatus,
    /// Interior-point iterations.
    pub iterations: u32,
}

/// The canonical (minimum-norm) maximal lottery of `a`.
///
/// # Errors
/// [`GameError::Solver`] if the interior-point method fails outright (it should not:
/// the problem is always feasible).
pub fn maximal_lottery(a: &PayoffMatrix) -> Result<Lottery, GameError> {
    let k = a.agents();
    let quadratic = CscMatrix::identity(k);
    let linear = vec![0.0; k];
    // Rows: 1^T pi = 1 (zero cone); A pi <= 0 and -pi <= 0 (nonnegative cone).
    let mut columns: Vec<Vec<(usize, f64)>> = vec![Vec::new(); k];
    for (c, column) in columns.iter_mut().enumerate() {
        column.push((0, 1.0));
        for r in 0..k {
            let value = a.get(r, c);
            if value != 0.0 {
                column.push((1 + r, value));
            }
        }
        column.push((1 + k + c, -1.0));
    }
    let mut colptr = vec![0];
    let (mut rowval, mut nzval) = (Vec::new(), Vec::new());
    for column in &columns {
        for &(r, v) in column {
            rowval.push(r);
            nzval.push(v);
        }
        colptr.push(rowval.len());
    }
    let constraints = CscMatrix::new(1 + 2 * k, k, colptr, rowval, nzval);
    let mut bounds = vec![0.0; 1 + 2 * k];
    bounds[0] = 1.0;
    let cones = [ZeroConeT(1), NonnegativeConeT(2 * k)];
    let settings = DefaultSettingsBuilder::default()
        .verbose(false)
        .tol_gap_abs(SOLVER_TOLERANCE)
        .tol_gap_rel(SOLVER_TOLERANCE)
        .tol_feas(SOLVER_TOLERANCE)
        .build()
        .map_err(|e| GameError::Solver(e.to_string()))?;
    let mut solver =
        DefaultSolver::new(&quadratic, &linear, &constraints, &bounds, &cones, settings)
            .map_err(|e| GameError::Solver(e.to_string()))?;
    solver.solve();
    let status = solver.solution.status;
    if !matches!(status, SolverStatus::Solved | SolverStatus::AlmostSolved) {
        return Err(GameError::Solver(format!(
            "interior point stopped with status {status:?}"
        )));
    }
    let mut pi = normalized(&solver.solution.x);
    let mut gap = exploitability(a, &pi);
    if let Some(polished) = polish(a, &pi) {
        let polished_gap = exploitability(a, &polished);
        if polished_gap <= gap.max(GAP_TOLERANCE) {
            pi = polished;
            gap = polished_gap;
        }
    }
    Ok(Lottery {
        status: if gap <= GAP_TOLERANCE {
            LotteryStatus::Certified
        } else {
            LotteryStatus::Uncertified
        },
        probabilities: pi,
        gap,
        iterations: solver.solution.iterations,
    })
}

/// Clips negatives and rescales to sum one.
pub(crate) fn normalized(x: &[f64]) -> Vec<f64> {
    let clipped: Vec<f64> = x.iter().map(|&v| v.max(0.0)).collect();
    let total: f64 = clipped.iter().sum();
    clipped.iter().map(|v| v / total).collect()
}

/// Minimum-norm solution of `A_SS x = 0, 1^T x = 1` on the support of `pi`, if it is
/// a feasible lottery for the whole game.
fn polish(a: &PayoffMatrix, pi: &[f64]) -> Option<Vec<f64>> {
    let support: Vec<usize> = (0..pi.len()).filter(|&j| pi[j] > SUPPORT_CUTOFF).collect();
    let s = support.len();
    let system = DMatrix::from_fn(s + 1, s, |r, c| {
        if r < s {
            a.get(support[r], support[c])
        } else {
            1.0
        }
    });
    let mut rhs = DVector::zeros(s + 1);
    rhs[s] = 1.0;
    let solution = system.svd(true, true).solve(&rhs, 1e-12).ok()?;
    if solution.iter().any(|&x| x < 0.0) {
        return None;
    }
    let mut full = vec![0.0; pi.len()];
    for (i, &j) in support.iter().enumerate() {
        full[j] = solution[i];
    }
    let full = normalized(&full);
    (exploitability(a, &full) <= GAP_TOLERANCE).then_some(full)
}
