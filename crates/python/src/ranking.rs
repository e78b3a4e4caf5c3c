//! Leaderboards: `verdict rank` on a table or file, and Bradley–Terry and Elo on
//! parallel arrays.

use pyo3::prelude::*;
use pyo3::types::PyDict;

use verdict::arrays::battle_log_from_arrays;
use verdict::equilibrium::EquilibriumSettings;
use verdict::io::{BattleSchema, Filter, ReadOptions};
use verdict::rank::{Intervals, Method, RankSettings};
use verdict::rank_request::{rank_request, RankInput, RankRequest, Reading};
use verdict::ratings::{
    Bootstrap, BradleyTerry, CovariateBradleyTerry, Elo, PairCounts, Solver, TieModel,
};
use verdict::style::CovariateRequest;

use crate::tables::TableArg;
use crate::{choice, failure};

/// The leaderboard of `verdict rank --format json` for the same settings (see
/// `verdict.rank` for each argument). `sandwich` asks for sandwich normal intervals in
/// place of the bootstrap; `filters` are `COLUMN=VALUE`, `COLUMN!=VALUE` or
/// `COLUMN~TEXT`; `costs` and `budget` constrain the lottery; `covariates`,
/// `style_control`, `covariate_penalty` and `pair_weights` ask for Bradley–Terry with
/// covariates.
#[pyfunction]
#[pyo3(signature = (battles, *, method="bt", model_a=None, model_b=None, winner=None, ties="half", bootstrap=None, ci=0.95, sandwich=false, seed=0, anchor=None, l2=None, filters=Vec::new(), skip_self_battles=false, allow_unobserved=false, rho=0.0, costs=None, budget=None, covariates=Vec::new(), style_control=false, covariate_penalty=0.0, pair_weights=None))]
#[allow(clippy::too_many_arguments)]
pub fn rank_json(
    py: Python<'_>,
    battles: TableArg,
    method: &str,
    model_a: Option<String>,
    model_b: Option<String>,
    winner: Option<String>,
    ties: &str,
    bootstrap: Option<usize>,
    ci: f64,
    sandwich: bool,
    seed: u64,
    anchor: Option<(String, f64)>,
    l2: Option<f64>,
    filters: Vec<String>,
    skip_self_battles: bool,
    allow_unobserved: bool,
    rho: f64,
    costs: Option<Vec<(String, f64)>>,
    budget: Option<f64>,
    covariates: Vec<String>,
    style_control: bool,
    covariate_penalty: f64,
    pair_weights: Option<f64>,
) -> PyResult<String> {
    let filters = filters
        .iter()
        .map(|f| f.parse::<Filter>().map_err(failure))
        .collect::<PyResult<Vec<_>>>()?;
    let options = ReadOptions {
        schema: BattleSchema::named(model_a, model_b, winner),
        filters,
        skip_self_battles,
        ..ReadOptions::default()
    };
    let settings = RankSettings {
        method: choice::<Method>("method", method)?,
        bradley_terry: BradleyTerry {
            ties: choice::<TieModel>("ties", ties)?,
            l2,
            ..BradleyTerry::default()
        },
        anchor,
        intervals: if sandwich {
            Intervals::Sandwich
        } else if bootstrap == Some(0) {
            Intervals::None
        } else {
            Intervals::Bootstrap(Bootstrap {
                rounds: bootstrap.unwrap_or(Bootstrap::default().rounds),
                seed,
            })
        },
        lottery_bootstrap: bootstrap.is_some_and(|rounds| rounds > 0),
        confidence: ci,
        allow_unobserved,
        equilibrium: EquilibriumSettings {
            rho,
            costs,
            budget,
            ..EquilibriumSettings::default()
        },
        ..RankSettings::default()
    };
    let reading = Reading {
        options,
        covariates: CovariateRequest {
            columns: covariates,
            style_control,
        },
        covariate_model: CovariateBradleyTerry {
            reg: covariate_penalty,
            pair_weights,
            ..CovariateBradleyTerry::default()
        },
        ..Reading::default()
    };
    let wanted = reading.columns(&settings).map_err(failure)?;
    let source = battles.source(py, "<battles table>", wanted.as_deref())?;
    let request = RankRequest {
        input: RankInput::Table(source),
        reading,
        settings,
        group_boards: false,
    };
    let ranked = crate::interruptible(py, move || rank_request(&request, &|| {}))?;
    let mut text =
        serde_json::to_string_pretty(&ranked.map_err(failure)?.report).map_err(failure)?;
    text.push('\n');
    Ok(text)
}

/// Bradley–Terry by maximum likelihood on battles given as arrays (`xs[i]` against
/// `ys[i]`, outcome label `winners[i]`): `P(i beats j) = p_i / (p_i + p_j)` (Bradley &
/// Terry 1952), fitted by Newton's method or Zermelo's MM iteration (Hunter 2004).
/// Returns a dict: `names`, `log_strengths` (`ln p_i`, mean zero), `strengths` (`p_i`,
/// summing to one), `iterations`, `gradient_norm`, `converged`, `log_likelihood`,
/// `theta` (Davidson's tie parameter or None).
#[pyfunction]
#[pyo3(signature = (xs, ys, winners, *, ties="half", l2=None, solver="newton", tol=None, max_iter=None))]
#[allow(clippy::too_many_arguments)]
pub fn bradley_terry<'py>(
    py: Python<'py>,
    xs: Vec<String>,
    ys: Vec<String>,
    winners: Vec<String>,
    ties: &str,
    l2: Option<f64>,
    solver: &str,
    tol: Option<f64>,
    max_iter: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    let model = BradleyTerry {
        ties: choice::<TieModel>("ties", ties)?,
        solver: choice::<Solver>("solver", solver)?,
        tol: tol.unwrap_or(BradleyTerry::default().tol),
        max_iter,
        l2,
    };
    let (names, fit) = py.detach(|| {
        let log = battle_log_from_arrays(&xs, &ys, &winners).map_err(failure)?;
        let fit = model.fit(&PairCounts::from_log(&log)).map_err(failure)?;
        PyResult::Ok((log.models().names().to_vec(), fit))
    })?;
    let result = PyDict::new(py);
    result.set_item("names", names)?;
    result.set_item("strengths", fit.strengths())?;
    result.set_item("log_strengths", &fit.beta)?;
    result.set_item("iterations", fit.iterations)?;
    result.set_item("gradient_norm", fit.gradient_norm)?;
    result.set_item(
        "converged",
        fit.status == verdict::ratings::FitStatus::Converged,
    )?;
    result.set_item("log_likelihood", fit.log_likelihood)?;
    result.set_item("theta", fit.theta)?;
    Ok(result)
}

/// Online Elo over battles given as arrays, in array order: after each battle
/// `r_a += k (S_a - E_a)`, `E_a = 1 / (1 + base^((r_b - r_a) / scale))` (Elo 1978).
/// Returns `(names, ratings)`.
#[pyfunction]
#[pyo3(signature = (xs, ys, winners, *, k=32.0, initial=1000.0, base=10.0, scale=400.0))]
#[allow(clippy::too_many_arguments)]
pub fn elo(
    py: Python<'_>,
    xs: Vec<String>,
    ys: Vec<String>,
    winners: Vec<String>,
    k: f64,
    initial: f64,
    base: f64,
    scale: f64,
) -> PyResult<(Vec<String>, Vec<f64>)> {
    let model = Elo {
        initial,
        k,
        base,
        scale,
    };
    py.detach(|| {
        let log = battle_log_from_arrays(&xs, &ys, &winners).map_err(failure)?;
        let ratings = model.run(&log).map_err(failure)?;
        Ok((log.models().names().to_vec(), ratings))
    })
}
