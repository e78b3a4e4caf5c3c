//! Leaderboards controlled for battle covariates: LMArena's "style control" and any
//! signed per-battle feature (see [`verdict_ratings::CovariateBradleyTerry`]).
//!
//! Style features follow FastChat's `preprocess_for_style`: for each kind (answer
//! length in tokens, markdown headers, list items, bold spans) the normalized
//! difference `(a − b) / (a + b + 1)` of the two answers' counts, then standardized
//! by the fit.

use verdict_feedback::BattleLog;
use verdict_io::{
    battle_columns, battles_from_table, has_path, numeric_columns, path_column, read_table,
};
use verdict_io::{LoadedBattles, ReadOptions, Source};
use verdict_ratings::{
    BootstrapDraws, CovariateBattles, CovariateBradleyTerry, CovariateFit, FitStatus,
    IntervalMethod, RatingKind, Solver, TieModel,
};
use verdict_report::{Coefficient, FitSummary, RankReport};
use verdict_settings::Setting;

use crate::rank::{
    anchor_index, percentile_intervals, refit_notes, Context, Intervals, Method, Pairwise,
    RankSettings,
};
use crate::VerdictError;

/// One LMArena style feature and the per-side columns it is built from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StyleFeature {
    /// The covariate's name in reports.
    pub name: &'static str,
    /// Column with model_a's count.
    pub column_a: &'static str,
    /// Column with model_b's count.
    pub column_b: &'static str,
}

/// LMArena's style features (FastChat `STYLE_CONTROL_ELEMENTS_V1`), in its order: the
/// per-side counts of its published battle dumps, read as flat columns or as fields of
/// their `conv_metadata` objects.
pub const STYLE_FEATURES: [StyleFeature; 4] = [
    StyleFeature {
        name: "length",
        column_a: "sum_assistant_a_tokens",
        column_b: "sum_assistant_b_tokens",
    },
    StyleFeature {
        name: "headers",
        column_a: "header_count_a",
        column_b: "header_count_b",
    },
    StyleFeature {
        name: "lists",
        column_a: "list_count_a",
        column_b: "list_count_b",
    },
    StyleFeature {
        name: "bold",
        column_a: "bold_count_a",
        column_b: "bold_count_b",
    },
];

/// FastChat's normalized difference of two non-negative counts, `(a − b)/(a + b + 1)`:
/// in (−1, 1), 0 for equal counts.
pub fn normalized_difference(a: &[f64], b: &[f64]) -> Vec<f64> {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y) / (x + y + 1.0))
        .collect()
}

/// The column of LMArena's dumps that nests the per-side style counts.
pub const STYLE_METADATA: &str = "conv_metadata";

/// The style features `table` holds, each with the paths of its two per-side counts:
/// flat columns, or fields of [`STYLE_METADATA`]'s JSON objects.
fn style_paths(
    table: &verdict_io::Table,
) -> Result<Vec<(&'static str, String, String)>, VerdictError> {
    let mut found = Vec::new();
    for feature in STYLE_FEATURES {
        let flat = (feature.column_a.to_owned(), feature.column_b.to_owned());
        let nested = (
            format!("{STYLE_METADATA}.{}", feature.column_a),
            format!("{STYLE_METADATA}.{}", feature.column_b),
        );
        let present = |(a, b): &(String, String)| has_path(table, a) && has_path(table, b);
        if let Some((a, b)) = [flat, nested].into_iter().find(present) {
            found.push((feature.name, a, b));
        }
    }
    if found.is_empty() {
        let expected: Vec<String> = STYLE_FEATURES
            .iter()
            .map(|f| format!("{}/{}", f.column_a, f.column_b))
            .collect();
        return Err(VerdictError::Settings(format!(
            "{}: style control needs per-side counts of LMArena's battle dumps ({}), as columns or as fields of {STYLE_METADATA}, and none are there; name your own covariates with {covariates}",
            table.file(),
            expected.join(", "), covariates = Setting("covariates")
        )));
    }
    Ok(found)
}

/// Which covariates a leaderboard controls for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CovariateRequest {
    /// Columns taken as given (signed from model_a's side).
    pub columns: Vec<String>,
    /// Build LMArena's style features from the per-side columns present.
    pub style_control: bool,
}

impl CovariateRequest {
    /// True when no covariate is asked for.
    pub fn is_empty(&self) -> bool {
        self.columns.is_empty() && !self.style_control
    }
}

/// A battle log with its covariates, row for row.
#[derive(Debug, Clone)]
pub struct CovariateLog {
    /// The battles as read (filters applied).
    pub loaded: LoadedBattles,
    /// Covariate names.
    pub names: Vec<String>,
    /// `columns[j][r]`: covariate j at battle r.
    pub columns: Vec<Vec<f64>>,
}

/// Every column [`read_covariate_log`] may read with `options` and `request`: the
/// battle log's, each covariate (and, for a dotted path `outer.field`, its column
/// `outer`), and for style control the per-side columns and [`STYLE_METADATA`].
/// Reading only these keeps a wide table (an LMArena dump with its conversations)
/// cheap.
pub fn covariate_columns(options: &ReadOptions, request: &CovariateRequest) -> Vec<String> {
    let mut wanted = battle_columns(options);
    for column in &request.columns {
        wanted.push(column.clone());
        if let Some((outer, _)) = column.split_once('.') {
            wanted.push(outer.to_owned());
        }
    }
    if request.style_control {
        wanted.push(STYLE_METADATA.to_owned());
        wanted.extend(
            STYLE_FEATURES
                .iter()
                .flat_map(|f| [f.column_a.to_owned(), f.column_b.to_owned()]),
        );
    }
    wanted
}

/// Reads a battle log with the covariates `request` names, built as described in the
/// module documentation.
///
/// # Errors
/// Errors of the reader; a covariate column that is missing or not numeric (named by
/// row and column); style control on a log with none of the per-side columns.
pub fn read_covariate_log(
    source: &Source,
    options: &ReadOptions,
    request: &CovariateRequest,
) -> Result<CovariateLog, VerdictError> {
    let wanted = covariate_columns(options, request);
    let table = read_table(source, options.format, Some(&wanted))?;
    let style = if request.style_control {
        style_paths(&table)?
    } else {
        Vec::new()
    };
    let mut paths = request.columns.clone();
    for (_, a, b) in &style {
        paths.extend([a.clone(), b.clone()]);
    }
    let mut options = options.clone();
    for path in &paths {
        let column = path_column(&table, path).to_owned();
        if !options.keep.contains(&column) {
            options.keep.push(column);
        }
    }
    let loaded = battles_from_table(&table, &options)?;
    let mut values = numeric_columns(&loaded.metadata, &paths)?.into_iter();
    let mut names = Vec::new();
    let mut columns = Vec::new();
    for name in &request.columns {
        names.push(name.clone());
        columns.push(values.next().expect("one column per name"));
    }
    for (name, _, _) in &style {
        let (a, b) = (values.next(), values.next());
        let (a, b) = (a.expect("column a"), b.expect("column b"));
        names.push((*name).to_owned());
        columns.push(normalized_difference(&a, &b));
    }
    Ok(CovariateLog {
        loaded,
        names,
        columns,
    })
}

/// The Bradley–Terry leaderboard of `log` controlled for covariates (`names[j]` with
/// values `columns[j]`, row for row with the log), fitted with `model`: scores with
/// the covariates at their mean, each model's rank change against the plain
/// Bradley–Terry board of the same battles (`settings.bradley_terry`), and the
/// coefficients. Intervals as `settings.intervals` says: percentile bootstrap over
/// battles (ratings and coefficients from the same replicates) or sandwich.
///
/// # Errors
/// A method other than Bradley–Terry, bad settings, covariates that do not match the
/// log or are collinear, an unknown anchor.
pub fn rank_with_covariates(
    log: &BattleLog,
    names: &[String],
    columns: &[Vec<f64>],
    model: &CovariateBradleyTerry,
    source: &str,
    settings: &RankSettings,
    on_round: &(dyn Fn() + Sync),
) -> Result<RankReport, VerdictError> {
    settings.validate()?;
    if settings.method != Method::BradleyTerry {
        return Err(VerdictError::Settings(
            "covariates (style control) apply to the Bradley–Terry method only".into(),
        ));
    }
    // Models numbered by name, as the readers number them; the battles keep their
    // order, so the covariates still line up.
    let log = log.with_models_by_name();
    let battles = CovariateBattles::new(&log, names.to_vec(), columns)?;
    let fit = model.fit(&battles)?;
    let counts = battles.pair_counts();
    let context = Context {
        models: log.models(),
        log: Some(&log),
        battles: log.len(),
        counts: &counts,
        source,
        settings,
        anchor: anchor_index(log.models().names(), &settings.anchor)?,
        groups: None,
        weights: None,
    };
    let scale = context.rating_scale();
    let scores = scale.scores(&fit.beta);
    let mut notes = describe_model(model, &fit);
    let (intervals, coefficient_bounds) = match &settings.intervals {
        Intervals::None => (None, None),
        Intervals::Bootstrap(bootstrap) => {
            let draws = model.bootstrap(&battles, &fit, &scale, bootstrap, on_round)?;
            notes.extend(refit_notes(&draws.ratings));
            let coefficients = BootstrapDraws {
                scores: draws.coefficients,
                prior_rounds: 0,
                unconverged_rounds: 0,
            };
            (
                Some(percentile_intervals(
                    bootstrap,
                    settings.confidence,
                    &draws.ratings,
                )),
                Some(coefficients.intervals(settings.confidence)),
            )
        }
        Intervals::Sandwich => {
            let variances = model.sandwich(&battles, &fit)?;
            let z = verdict_ratings::normal_quantile(settings.confidence);
            let around = |centre: f64, variance: f64, unit: f64| {
                let half = z * variance.sqrt() * unit;
                (centre - half, centre + half)
            };
            let ratings = scores
                .iter()
                .zip(&variances.ratings)
                .map(|(&s, &v)| around(s, v, scale.factor()))
                .collect();
            let coefficients = fit
                .theta
                .iter()
                .zip(&variances.coefficients)
                .map(|(&t, &v)| around(t, v, 1.0))
                .collect();
            let interval = verdict_ratings::Interval {
                method: IntervalMethod::Sandwich,
                confidence: settings.confidence,
            };
            (Some((interval, ratings)), Some(coefficients))
        }
    };
    let summary = FitSummary {
        solver: Solver::Newton,
        ties: TieModel::Half,
        iterations: fit.iterations,
        gradient_norm: fit.gradient_norm,
        status: fit.status,
        regularization: fit.regularization.clone(),
        log_likelihood: fit.log_likelihood,
        tie_parameter: None,
    };
    let mut output = context.finish(
        RatingKind::BradleyTerryCovariates,
        &scores,
        intervals,
        Pairwise::WinProbability(&|i, j| fit.win_probability(i, j)),
        Some(summary),
        notes,
    );
    let plain = ranks(&settings.bradley_terry.fit(&counts)?.beta);
    let controlled = ranks(&fit.beta);
    for standing in &mut output.leaderboard.models {
        let m = log
            .models()
            .get(&standing.name)
            .expect("names come from the log")
            .index();
        standing.rank_change = Some(plain[m] as i64 - controlled[m] as i64);
    }
    output.coefficients = Some(coefficients(&fit, names, coefficient_bounds));
    Ok(RankReport::Single(Box::new(output)))
}

/// 1 + the number of strictly higher values, for each value.
fn ranks(values: &[f64]) -> Vec<usize> {
    values
        .iter()
        .map(|v| 1 + values.iter().filter(|w| *w > v).count())
        .collect()
}

fn coefficients(
    fit: &CovariateFit,
    names: &[String],
    bounds: Option<Vec<(f64, f64)>>,
) -> Vec<Coefficient> {
    names
        .iter()
        .enumerate()
        .map(|(j, name)| Coefficient {
            name: name.clone(),
            estimate: fit.theta[j],
            ci_low: bounds.as_ref().map(|b| b[j].0),
            ci_high: bounds.as_ref().map(|b| b[j].1),
            mean: fit.standardization[j].0,
            sd: fit.standardization[j].1,
        })
        .collect()
}

/// What a reader must know of the model behind the scores.
fn describe_model(model: &CovariateBradleyTerry, fit: &CovariateFit) -> Vec<String> {
    let mut notes = vec![
        "scores are model strengths with every covariate at its mean; `vs plain` is the rank change against Bradley–Terry without covariates on the same battles".to_owned(),
    ];
    if model.reg > 0.0 {
        notes.push(format!(
            "coefficients penalized: reg = {} on the mean log-loss (arena-rank's objective); they shrink toward 0 by about 1 + 4·reg",
            model.reg
        ));
    }
    if let Some(minimum) = model.pair_weights {
        notes.push(format!(
            "battles weighted by 1/max(battles of their pair, {minimum}), normalized to mean 1 (arena-rank's reweighting)"
        ));
    }
    if fit.status == FitStatus::MaxIterations {
        notes.push(format!(
            "the fit STOPPED AT THE ITERATION CAP with |grad| = {:.2e}; the covariates may separate the outcomes",
            fit.gradient_norm
        ));
    }
    notes
}
