//! Baselines scored on a simulation's test contexts against the truth, beside NashEval
//! (Appendix I.3): one maximal lottery of the training battles per value of a context
//! column (a per-language lottery; the global lottery when no column is named), and
//! the per-context Bradley–Terry argmax of a fitted surface (BT-plug-in, Eq. 75).

use std::collections::HashMap;
use std::path::Path;

use verdict::game::{borda_winners, PayoffMatrix};
use verdict::io::{read_battles, read_table, ReadOptions, Source};
pub use verdict::nasheval::baselines::{bradley_terry_of_payoff, BT_RIDGE};
use verdict::nasheval::NashEvalModel;

use super::evaluate::{same_contexts, test_split};
use super::{score, Evaluation, Split, Truth};
use verdict::equilibrium::EquilibriumSettings;
use verdict::rank::{rank, Intervals, Method, RankSettings};
use verdict::VerdictError;

/// The BT-argmax policy (all mass on the agent with the largest Eq. 75 score, the
/// first on ties) at each context of `features` from `model`'s surface `Â(x)`.
///
/// # Errors
/// As [`bradley_terry_of_payoff`].
pub fn bt_argmax_policies(
    model: &NashEvalModel,
    features: &[f64],
) -> Result<Vec<f64>, VerdictError> {
    let k = model.agents.len();
    let mut policies = vec![0.0; features.len() / model.feature_names.len().max(1) * k];
    for (matrix, policy) in model
        .payoffs(features)
        .chunks(k * k)
        .zip(policies.chunks_mut(k))
    {
        policy[bt_argmax(matrix, k)?] = 1.0;
    }
    Ok(policies)
}

/// BT-plug-in (or BT-debiased, by the surface `model` was fitted with) scored on the
/// test contexts of simulation `dir`.
///
/// # Errors
/// As [`super::evaluate_model`].
pub fn evaluate_bt_argmax(model: &NashEvalModel, dir: &Path) -> Result<Evaluation, VerdictError> {
    let (truth, read) = test_split(model, dir)?;
    let policies = bt_argmax_policies(model, &read.features)?;
    Ok(Evaluation {
        score: score(&model.agents, &policies, &truth)?,
        notes: read.unseen_warning().into_iter().collect(),
    })
}

/// A rule that reads one agent off a payoff matrix (`K × K` row-major).
type ArgmaxRule = fn(&[f64], usize) -> Result<usize, VerdictError>;

/// The agent with the largest average row margin (the first Borda winner).
fn borda_argmax(matrix: &[f64], k: usize) -> Result<usize, VerdictError> {
    let winners = borda_winners(&PayoffMatrix::from_row_major(matrix, k)?);
    Ok(winners.first().copied().unwrap_or(0))
}

/// The agent with the largest Bradley–Terry score of Eq. 75 (the first on ties).
fn bt_argmax(matrix: &[f64], k: usize) -> Result<usize, VerdictError> {
    let scores = bradley_terry_of_payoff(matrix, k)?;
    Ok((0..k).fold(0, |best, j| if scores[j] > scores[best] { j } else { best }))
}

/// What a context-by-context argmax could reach knowing the *true* surface: the
/// Borda argmax and the Bradley–Terry argmax of each test context's true `A(x)`,
/// scored against the same truth. Where majorities cycle no single agent is safe, so
/// even these are exploitable; the equilibrium of the true surface is 0.
///
/// # Errors
/// [`VerdictError`] when `dir` holds no test truth.
pub fn evaluate_true_surface_argmax(dir: &Path) -> Result<Vec<(String, Evaluation)>, VerdictError> {
    let truth = Truth::open(dir, Split::Test)?;
    let agents = truth.agents().to_vec();
    let k = agents.len();
    let rules: [(&str, ArgmaxRule); 2] = [
        ("Borda argmax of the true surface", borda_argmax),
        ("BT argmax of the true surface", bt_argmax),
    ];
    rules
        .into_iter()
        .map(|(name, rule)| {
            let mut policies = vec![0.0; truth.ids.len() * k];
            for (matrix, policy) in truth.payoff.chunks(k * k).zip(policies.chunks_mut(k)) {
                policy[rule(matrix, k)?] = 1.0;
            }
            Ok((
                name.to_owned(),
                Evaluation {
                    score: score(&agents, &policies, &truth)?,
                    notes: Vec::new(),
                },
            ))
        })
        .collect()
}

/// The maximal lottery (regularized by `rho`, unobserved pairs as ties) of the
/// battles `rows` of `log`, as probabilities by agent name.
fn lottery_of(
    log: &verdict::feedback::BattleLog,
    rows: &[usize],
    rho: f64,
) -> Result<HashMap<String, f64>, VerdictError> {
    let settings = RankSettings {
        method: Method::Lottery,
        intervals: Intervals::None,
        unobserved: verdict::ratings::UnobservedPairs::Ties,
        equilibrium: EquilibriumSettings {
            rho,
            ..EquilibriumSettings::default()
        },
        ..RankSettings::default()
    };
    let report = rank(&log.reordered(rows), "battles", &settings, &|| {})?;
    Ok(report
        .outputs()
        .iter()
        .flat_map(|output| &output.leaderboard.models)
        .map(|m| (m.name.clone(), m.probability.unwrap_or(0.0)))
        .collect())
}

/// One maximal lottery of the training battles (`battles.parquet`, the arena world's
/// log) per value of context column `by`, played at every test context with that
/// value (the global lottery where a value never occurred in training); with `by`
/// `None`, the global lottery everywhere. Regularized by `rho` (`None`: the truth's
/// own, as the simulation's manifest records it), pairs that never met count as ties
/// (NashEval Eq. 78 per group), scored against the test truth of `dir`.
///
/// # Errors
/// [`VerdictError`] when `dir` holds no battle log or lacks the column.
pub fn evaluate_lottery_by(
    dir: &Path,
    by: Option<&str>,
    rho: Option<f64>,
) -> Result<Evaluation, VerdictError> {
    let truth = Truth::open(dir, Split::Test)?;
    let rho = rho.unwrap_or(truth.manifest.equilibrium.rho);
    let options = ReadOptions {
        keep: by.map(str::to_owned).into_iter().collect(),
        ..ReadOptions::default()
    };
    let loaded = read_battles(&Source::File(dir.join("battles.parquet")), &options)?;
    let everything: Vec<usize> = (0..loaded.log.len()).collect();
    let global = lottery_of(&loaded.log, &everything, rho)?;
    let mut notes = Vec::new();
    let group_of_test: Vec<Option<String>> = match by {
        None => vec![None; truth.ids.len()],
        Some(column) => {
            let wanted = ["context_id".to_owned(), column.to_owned()];
            let test = read_table(
                &Source::File(dir.join(Split::Test.contexts_file())),
                None,
                Some(&wanted),
            )?;
            let ids: Vec<String> = (0..test.rows())
                .map(|r| {
                    test.column("context_id")
                        .and_then(|c| c.value(r))
                        .unwrap_or_default()
                        .to_owned()
                })
                .collect();
            same_contexts(&ids, &truth, dir)?;
            let values = test.column(column).ok_or_else(|| {
                VerdictError::Data(format!(
                    "{}: the test contexts have no column {column:?}",
                    dir.display()
                ))
            })?;
            (0..test.rows())
                .map(|r| values.value(r).map(str::to_owned))
                .collect()
        }
    };
    let mut lotteries: HashMap<String, HashMap<String, f64>> = HashMap::new();
    if let Some(column) = by {
        let values = loaded.metadata.column(column).expect("kept when read");
        let mut rows: HashMap<String, Vec<usize>> = HashMap::new();
        for r in 0..values.len() {
            if let Some(value) = values.value(r) {
                rows.entry(value.to_owned()).or_default().push(r);
            }
        }
        for (value, rows) in rows {
            lotteries.insert(value, lottery_of(&loaded.log, &rows, rho)?);
        }
        let unseen = group_of_test
            .iter()
            .filter(|g| g.as_ref().is_none_or(|g| !lotteries.contains_key(g)))
            .count();
        if unseen > 0 {
            notes.push(format!(
                "note: {unseen} test contexts have a {column} no training battle had; they get the global lottery"
            ));
        }
    }
    let agents = truth.agents().to_vec();
    let mut policies = Vec::with_capacity(truth.ids.len() * agents.len());
    for group in &group_of_test {
        let lottery = group
            .as_ref()
            .and_then(|g| lotteries.get(g))
            .unwrap_or(&global);
        policies.extend(
            agents
                .iter()
                .map(|a| lottery.get(a).copied().unwrap_or(0.0)),
        );
    }
    Ok(Evaluation {
        score: score(&agents, &policies, &truth)?,
        notes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bradley_terry_of_a_bt_matrix_recovers_its_scores() {
        // B_jk = 2σ(t_j − t_k) − 1 is exactly a BT matrix: the Eq. 75 minimiser is t
        // (centred) up to the ridge's shrinkage, about κ over the loss's curvature
        // (~0.1 per score here): 0.1% of each score.
        let t = [1.2, 0.4, -0.1, -1.5];
        let k = t.len();
        let sigma = |d: f64| 1.0 / (1.0 + (-d).exp());
        let b: Vec<f64> = (0..k * k)
            .map(|c| 2.0 * sigma(t[c / k] - t[c % k]) - 1.0)
            .collect();
        let s = bradley_terry_of_payoff(&b, k).unwrap();
        let mean = t.iter().sum::<f64>() / k as f64;
        for (got, want) in s.iter().zip(t) {
            assert!(
                (got - (want - mean)).abs() < 3e-3 * want.abs().max(0.1),
                "{s:?}"
            );
        }
        // The stationarity condition of Eq. 75 holds at the result: for each j,
        // (1/C) Σ_k [σ(s_j − s_k) − (1 + B_jk)/2] + κ s_j = 0.
        let c = (k * (k - 1) / 2) as f64;
        for j in 0..k {
            let g: f64 = (0..k)
                .filter(|&l| l != j)
                .map(|l| sigma(s[j] - s[l]) - (1.0 + b[j * k + l]) / 2.0)
                .sum::<f64>()
                / c
                + BT_RIDGE * s[j];
            assert!(g.abs() < 1e-9, "gradient {g} at {j}");
        }
    }

    #[test]
    fn the_borda_argmax_is_the_largest_row_sum_and_the_first_on_ties() {
        // Rows sum to 0.2, 0.0 and −0.2: agent 0 beats 1, 1 beats 2, 2 beats 0.
        let a = [0.0, 0.6, -0.4, -0.6, 0.0, 0.6, 0.4, -0.6, 0.0];
        assert_eq!(borda_argmax(&a, 3).unwrap(), 0);
        let rps = [0.0, 0.5, -0.5, -0.5, 0.0, 0.5, 0.5, -0.5, 0.0];
        assert_eq!(borda_argmax(&rps, 3).unwrap(), 0);
    }

    #[test]
    fn on_a_complete_transitive_matrix_bt_orders_agents_as_borda() {
        // Appendix I.3: with complete, equally weighted pairs the BT order is the
        // Borda order (largest average row margin).
        let k = 5;
        let margins = [[0.0, 0.3, 0.5, 0.6, 0.9], [0.0, 0.0, 0.2, 0.4, 0.7]];
        let mut b = vec![0.0; k * k];
        for j in 0..k {
            for l in j + 1..k {
                let m = if j < 2 {
                    margins[j][l]
                } else {
                    0.1 * (l - j) as f64
                };
                b[j * k + l] = m;
                b[l * k + j] = -m;
            }
        }
        let s = bradley_terry_of_payoff(&b, k).unwrap();
        let borda: Vec<f64> = (0..k).map(|j| (0..k).map(|l| b[j * k + l]).sum()).collect();
        let order = |v: &[f64]| {
            let mut idx: Vec<usize> = (0..k).collect();
            idx.sort_by(|&x, &y| v[y].total_cmp(&v[x]));
            idx
        };
        assert_eq!(order(&s), order(&borda));
    }
}
