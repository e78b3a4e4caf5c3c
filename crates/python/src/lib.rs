//! The native half of the `verdict` Python module: each function turns Python values
//! into library settings, makes one library call with the interpreter released, and
//! hands back the same JSON the command line prints (`python/verdict` turns it into
//! frames). No computation lives here.

use clap::ValueEnum;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use verdict::equilibrium::{game_report, named_game, EquilibriumSettings};
use verdict::io::{read_battles, ReadOptions, Source};
use verdict::rank::{rank, Intervals, Method, RankSettings};
use verdict::ratings::{Bootstrap, TieModel};

/// A library error as the exception for bad input: its message names the place.
fn bad_input(error: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(error.to_string())
}

/// `value` of setting `setting` as the library's enum, by the names the command line
/// takes (aliases included).
fn choice<T: ValueEnum>(setting: &str, value: &str) -> PyResult<T> {
    T::from_str(value, false).map_err(|_| {
        let names: Vec<String> = T::value_variants()
            .iter()
            .filter_map(|v| v.to_possible_value().map(|p| format!("{:?}", p.get_name())))
            .collect();
        PyValueError::new_err(format!("{setting} {value:?}: use {}", names.join(", ")))
    })
}

/// The source of a battle log: a file path, or CSV text already in memory.
fn battle_source(path: Option<String>, csv: Option<Vec<u8>>) -> PyResult<Source> {
    match (path, csv) {
        (Some(path), None) => Ok(Source::File(path.into())),
        (None, Some(data)) => Ok(Source::Bytes {
            label: "<frame>.csv".into(),
            data,
        }),
        _ => Err(PyValueError::new_err(
            "give a battle log as a path or as a table, not both",
        )),
    }
}

/// The leaderboard of `verdict rank --format json` for the same settings: Bradley–Terry
/// by maximum likelihood (`bt`), online Elo (`elo`), the maximal lottery (`lottery`) or
/// all three (`all`); percentile bootstrap intervals of `bootstrap` rounds seeded with
/// `seed` (0 rounds: none) at confidence `ci`.
#[pyfunction]
#[pyo3(signature = (path=None, csv=None, *, method="bt", ties="half", bootstrap=1000, ci=0.95, seed=0, allow_unobserved=false))]
#[allow(clippy::too_many_arguments)]
fn rank_json(
    py: Python<'_>,
    path: Option<String>,
    csv: Option<Vec<u8>>,
    method: &str,
    ties: &str,
    bootstrap: usize,
    ci: f64,
    seed: u64,
    allow_unobserved: bool,
) -> PyResult<String> {
    let method: Method = choice("method", method)?;
    let ties: TieModel = choice("ties", ties)?;
    let source = battle_source(path, csv)?;
    let label = source.label();
    let mut settings = RankSettings {
        method,
        intervals: if bootstrap == 0 {
            Intervals::None
        } else {
            Intervals::Bootstrap(Bootstrap {
                rounds: bootstrap,
                seed,
            })
        },
        confidence: ci,
        allow_unobserved,
        ..RankSettings::default()
    };
    settings.bradley_terry.ties = ties;
    py.detach(|| {
        let log = read_battles(&source, &ReadOptions::default())
            .map_err(bad_input)?
            .log;
        let report = rank(&log, &label, &settings, &|| {}).map_err(bad_input)?;
        let mut text = serde_json::to_string_pretty(&report).map_err(bad_input)?;
        text.push('\n');
        Ok(text)
    })
}

/// The equilibrium of a payoff matrix as `verdict game --format json` reports it: each
/// agent's probability, the certificate `gap`, the unregularized exploitability
/// (NashEval Eq. 69), the game value (Eq. 71) and whether it is proved unique; `rho`
/// regularizes (Eq. 74).
#[pyfunction]
#[pyo3(signature = (matrix, names, *, rho=0.0))]
fn maximal_lottery_json(
    py: Python<'_>,
    matrix: Vec<Vec<f64>>,
    names: Vec<String>,
    rho: f64,
) -> PyResult<String> {
    py.detach(|| {
        let game = named_game(&names, &matrix, "matrix").map_err(bad_input)?;
        let settings = EquilibriumSettings {
            rho,
            ..EquilibriumSettings::default()
        };
        let report = game_report(&game, &names, &settings).map_err(bad_input)?;
        serde_json::to_string(&report).map_err(bad_input)
    })
}

/// The module `verdict._native`.
#[pymodule]
fn _native(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(rank_json, module)?)?;
    module.add_function(wrap_pyfunction!(maximal_lottery_json, module)?)?;
    Ok(())
}
