//! One place that builds and runs Clarabel's interior-point QP solver for the game
//! layer: `minimise 1/2 x^T P x + q^T x  s.t.  A x + s = b, s in K`, with `K` a zero
//! cone (equalities) followed by a nonnegative cone (inequalities).

use clarabel::algebra::CscMatrix;
use clarabel::solver::{
    DefaultSettingsBuilder, DefaultSolver, ExponentialConeT, IPSolver, NonnegativeConeT,
    SolverStatus, ZeroConeT,
};

use crate::GameError;

/// Interior-point tolerances (absolute and relative gap, feasibility).
const SOLVER_TOLERANCE: f64 = 1e-10;

/// A QP in triplet form.
pub(crate) struct Qp {
    /// Number of variables.
    pub variables: usize,
    /// Upper triangle of `P` as (row, column, value).
    pub quadratic: Vec<(usize, usize, f64)>,
    /// `q`.
    pub linear: Vec<f64>,
    /// Rows of `A` as (row, column, value): the first `equalities` rows are equalities.
    pub constraints: Vec<(usize, usize, f64)>,
    /// `b`.
    pub bounds: Vec<f64>,
    /// How many leading rows are equalities.
    pub equalities: usize,
    /// How many exponential cones close the rows (3 rows each, `(x, y, z)` with
    /// `y e^(x/y) <= z`); the rows between are nonnegative.
    pub exponential_cones: usize,
}

/// Sparse matrix from (row, column, value) triplets (duplicates are summed by the
/// solver's ordering: callers give each entry once).
fn csc(rows: usize, columns: usize, mut triplets: Vec<(usize, usize, f64)>) -> CscMatrix<f64> {
    triplets.sort_by_key(|&(r, c, _)| (c, r));
    let mut colptr = vec![0; columns + 1];
    for &(_, c, _) in &triplets {
        colptr[c + 1] += 1;
    }
    for c in 0..columns {
        colptr[c + 1] += colptr[c];
    }
    let rowval = triplets.iter().map(|t| t.0).collect();
    let nzval = triplets.iter().map(|t| t.2).collect();
    CscMatrix::new(rows, columns, colptr, rowval, nzval)
}

impl Qp {
    /// Solves the QP; returns the primal solution and the iteration count.
    ///
    /// # Errors
    /// [`GameError::Solver`] when the solver cannot be set up or stops without a
    /// solution.
    pub(crate) fn solve(self) -> Result<(Vec<f64>, u32), GameError> {
        let rows = self.bounds.len();
        let nonnegative = rows - self.equalities - 3 * self.exponential_cones;
        let mut cones = vec![ZeroConeT(self.equalities), NonnegativeConeT(nonnegative)];
        cones.extend((0..self.exponential_cones).map(|_| ExponentialConeT()));
        let settings = DefaultSettingsBuilder::default()
            .verbose(false)
            .tol_gap_abs(SOLVER_TOLERANCE)
            .tol_gap_rel(SOLVER_TOLERANCE)
            .tol_feas(SOLVER_TOLERANCE)
            .build()
            .map_err(|e| GameError::Solver(e.to_string()))?;
        let mut solver = DefaultSolver::new(
            &csc(self.variables, self.variables, self.quadratic),
            &self.linear,
            &csc(rows, self.variables, self.constraints),
            &self.bounds,
            &cones,
            settings,
        )
        .map_err(|e| GameError::Solver(e.to_string()))?;
        solver.solve();
        let status = solver.solution.status;
        if !matches!(status, SolverStatus::Solved | SolverStatus::AlmostSolved) {
            return Err(GameError::Solver(format!(
                "interior point stopped with status {status:?}"
            )));
        }
        Ok((solver.solution.x.clone(), solver.solution.iterations))
    }
}
