//! Leaderboards: `verdict rank` on a table or file, and Bradley–Terry and Elo on
//! parallel arrays.

use pyo3::prelude::*;
use pyo3::types::PyDict;

use verdict::arrays::battle_log_from_arrays;
use verdict::rank_params::RankParams;
use verdict::rank_request::{rank_request, RankInput, RankRequest};
use verdict::ratings::{BradleyTerry, Elo, FitStatus, PairCounts};
use verdict::settings::from_document;

use crate::failure;
use crate::tables::TableArg;

/// The leaderboard of `verdict rank --format json` for the same settings: `settings`
/// is a settings document of the ranking's settings by name ([`RankParams`]); the
/// battles are a path or a frame.
#[pyfunction]
pub fn rank_json(py: Python<'_>, settings: &str, battles: TableArg) -> PyResult<String> {
    let params: RankParams = from_document(settings).map_err(failure)?;
    let (reading, settings) = (params.reading(), params.settings().map_err(failure)?);
    let wanted = reading.columns(&settings).map_err(failure)?;
    // A path is read as the command line reads it: a file is one table, a directory or
    // glob of Parquet files a dataset.
    let input = match &battles {
        TableArg::Path(path) => RankInput::path(std::path::Path::new(path)),
        TableArg::Stream(_) => {
            RankInput::Table(battles.source(py, "<battles table>", wanted.as_deref())?)
        }
    };
    let request = RankRequest {
        input,
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
/// Terry 1952), fitted by Newton's method or Zermelo's MM iteration (Hunter 2004);
/// `settings` is a settings document of [`BradleyTerry`]'s settings by name. Returns a
/// dict: `names`, `log_strengths` (`ln p_i`, mean zero), `strengths` (`p_i`, summing
/// to one), `iterations`, `gradient_norm`, `converged`, `log_likelihood`, `theta`
/// (Davidson's tie parameter or None).
#[pyfunction]
pub fn bradley_terry<'py>(
    py: Python<'py>,
    settings: &str,
    xs: Vec<String>,
    ys: Vec<String>,
    winners: Vec<String>,
) -> PyResult<Bound<'py, PyDict>> {
    let model: BradleyTerry = from_document(settings).map_err(failure)?;
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
    result.set_item("converged", fit.status == FitStatus::Converged)?;
    result.set_item("log_likelihood", fit.log_likelihood)?;
    result.set_item("theta", fit.theta)?;
    Ok(result)
}

/// Online Elo over battles given as arrays, in array order: after each battle
/// `r_a += k (S_a - E_a)`, `E_a = 1 / (1 + base^((r_b - r_a) / scale))` (Elo 1978);
/// `settings` is a settings document of [`Elo`]'s settings by name. Returns `(names,
/// ratings)`.
#[pyfunction]
pub fn elo(
    py: Python<'_>,
    settings: &str,
    xs: Vec<String>,
    ys: Vec<String>,
    winners: Vec<String>,
) -> PyResult<(Vec<String>, Vec<f64>)> {
    let model: Elo = from_document(settings).map_err(failure)?;
    py.detach(|| {
        let log = battle_log_from_arrays(&xs, &ys, &winners).map_err(failure)?;
        let ratings = model.run(&log).map_err(failure)?;
        Ok((log.models().names().to_vec(), ratings))
    })
}
