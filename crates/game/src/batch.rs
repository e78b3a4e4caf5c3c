//! Many small games at once, as the contextual learner needs (one game per context):
//! each solved independently on the thread pool, results in input order.

use rayon::prelude::*;

use crate::{
    maximal_lottery, regularized_equilibrium, GameError, Lottery, PayoffMatrix, Regularizer,
};

/// The maximal lottery of every game (`rho = 0`) or the regularized equilibrium
/// (`rho > 0`), in parallel; the same answers as solving them one by one.
pub fn solve_batch(
    games: &[PayoffMatrix],
    regularizer: &Regularizer,
) -> Vec<Result<Lottery, GameError>> {
    solve_each(games, |game| {
        if regularizer.rho > 0.0 {
            regularized_equilibrium(game, regularizer)
        } else {
            maximal_lottery(game)
        }
    })
}

/// `solve` applied to every game on the thread pool, results in input order.
pub fn solve_each(
    games: &[PayoffMatrix],
    solve: impl Fn(&PayoffMatrix) -> Result<Lottery, GameError> + Sync + Send,
) -> Vec<Result<Lottery, GameError>> {
    games.par_iter().map(solve).collect()
}
