//! Margins of pairs that never met. The maximal lottery and the social-choice rules
//! read every pair's margin (NashEval Eq. 78: the mean verdict of the pair's battles),
//! but a real arena is sparse — models arrive and retire, and most pairs never meet.
//! A missing margin has to come from somewhere, and each source is an assumption the
//! output names:
//!
//! - `refuse` (the default): nothing is assumed; the caller stops and names the others.
//! - `ties`: margin 0. Model-free, but a weak model that never met the models that
//!   would beat it looks unbeaten, and can enter a winner set for that reason alone.
//! - `bradley-terry`: the margin `P(j ≻ k) − P(k ≻ j)` predicted by Bradley–Terry fitted
//!   to every battle. Defensible where the game is close to transitive; it cannot
//!   predict a cycle through a missing pair (the observed pairs keep their cycles).
//! - `low-rank`: the margin predicted by Bradley–Terry plus a low-rank cyclic part
//!   ([`SkewLowRank`]), a skew-symmetric completion of the log-odds that can carry a
//!   cycle seen among observed pairs over to the missing ones.
//! - `core`: no prediction at all — the game is restricted to a core of models whose
//!   pairs all met ([`observed_core`]), and the models outside it are left out.
//!
//! Observed pairs keep their observed margins under every option.

use serde::{Deserialize, Serialize};
use verdict_settings::Setting;

use crate::{BradleyTerry, BtFit, PairCounts, RatingsError, SkewLowRank, SkewLowRankFit};

/// Predicted margins smaller than this are ties (rounding of a symmetric fit).
const PREDICTED_TIE: f64 = 1e-12;

/// How pairs of models that never met enter a game of margins.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[derive(strum::IntoStaticStr, strum::VariantArray, strum::EnumString, strum::EnumMessage)]
#[strum(serialize_all = "kebab-case")]
pub enum UnobservedPairs {
    /// Stop and name the options: nothing is assumed unless the user chooses it.
    #[default]
    Refuse,
    /// Margin 0, as if every battle had been a tie.
    Ties,
    /// The margin Bradley–Terry, fitted to every battle, predicts.
    #[strum(to_string = "bradley-terry", serialize = "bt")]
    BradleyTerry,
    /// The margin a skew-symmetric low-rank completion of the log-odds predicts.
    LowRank,
    /// Only a core of models whose pairs all met.
    Core,
}

impl UnobservedPairs {
    /// The option's name, as every face spells its value.
    pub fn name(self) -> &'static str {
        self.into()
    }

    /// What the option puts in place of a missing margin, for notes and refusals.
    pub fn meaning(self) -> &'static str {
        match self {
            Self::Refuse => "stop, as now",
            Self::Ties => "count them as ties (margin 0; a weak model that never met its betters looks unbeaten)",
            Self::BradleyTerry => "predict their margins by Bradley–Terry fitted to every battle (no cycle through a missing pair)",
            Self::LowRank => "predict their margins by Bradley–Terry plus a low-rank cyclic part (carries observed cycles over)",
            Self::Core => "keep only a core of models whose pairs all met, leaving the others out",
        }
    }

    /// Every option but `refuse`, for a refusal that names them.
    pub const REMEDIES: [Self; 4] = [Self::BradleyTerry, Self::LowRank, Self::Core, Self::Ties];

    /// What a refusal over missing pairs offers: every remedy by its value, with what it
    /// assumes, and why none is the default.
    pub fn remedies() -> String {
        let options: Vec<String> = Self::REMEDIES
            .iter()
            .map(|option| format!("{} — {}", option.name(), option.meaning()))
            .collect();
        format!(
            "choose how with {}: {}. None is the default because each assumes something the battles do not show; bradley-terry is the usual choice for an arena close to transitive, core the one that assumes nothing",
            Setting("unobserved"),
            options.join("; ")
        )
    }
}

/// Settings of a completion: the option, and the models behind the predicting ones.
#[derive(Debug, Clone, PartialEq)]
pub struct MarginFill {
    /// How the missing pairs enter.
    pub unobserved: UnobservedPairs,
    /// Cyclic components of the `low-rank` completion ([`SkewLowRank::rank`]).
    pub completion_rank: usize,
    /// The Bradley–Terry model whose predictions `bradley-terry` uses (the board's).
    pub bradley_terry: BradleyTerry,
}

impl Default for MarginFill {
    fn default() -> Self {
        Self {
            unobserved: UnobservedPairs::Refuse,
            completion_rank: SkewLowRank::default().rank,
            bradley_terry: BradleyTerry::default(),
        }
    }
}

/// The model a completion fitted, kept so that a bootstrap replicate can start from it.
#[derive(Debug, Clone, PartialEq)]
pub enum FillModel {
    /// Nothing was fitted.
    None,
    /// Bradley–Terry.
    BradleyTerry(Box<BtFit>),
    /// The low-rank completion.
    LowRank(Box<SkewLowRankFit>),
}

/// Every pair's margin, `k × k` row-major and skew-symmetric, with the pairs that
/// were filled.
#[derive(Debug, Clone, PartialEq)]
pub struct CompletedMargins {
    /// `A_jk`: observed margins (Eq. 78) and, for pairs that never met, the option's.
    pub margins: Vec<f64>,
    /// The pairs that never met, `(j, k)` with `j < k`.
    pub unobserved: Vec<(usize, usize)>,
    /// `core` only: the models kept, in index order.
    pub core: Option<Vec<usize>>,
    /// The model behind the predictions.
    pub model: FillModel,
}

/// The margins of the observed pairs (NashEval Eq. 78: `(w_jk − w_kj) / n_jk`, ties
/// counting 0), 0 elsewhere, and the pairs that never met.
pub fn observed_margins(counts: &PairCounts) -> (Vec<f64>, Vec<(usize, usize)>) {
    let k = counts.models();
    let mut margins = vec![0.0; k * k];
    let mut met = vec![false; k * k];
    for p in counts.pairs().iter().filter(|p| p.total() > 0.0) {
        let (i, j) = (p.i as usize, p.j as usize);
        let margin = (p.wins_i - p.wins_j) / p.total();
        margins[i * k + j] = margin;
        margins[j * k + i] = -margin;
        met[i * k + j] = true;
    }
    let unobserved = (0..k)
        .flat_map(|j| (j + 1..k).map(move |l| (j, l)))
        .filter(|&(j, l)| !met[j * k + l])
        .collect();
    (margins, unobserved)
}

/// A core of models whose pairs all met: a maximal set (no model left out met every
/// member), found greedily because the largest such set is a maximum clique, which no
/// known method finds quickly. Peels the model with the most unmet partners among
/// those left (fewer battles first on a tie, then the later index) until every pair
/// left met, then takes back, most battles first, each peeled model that met every
/// member.
pub fn observed_core(counts: &PairCounts) -> Vec<usize> {
    let k = counts.models();
    let mut met = vec![false; k * k];
    let mut battles = vec![0.0; k];
    for p in counts.pairs().iter().filter(|p| p.total() > 0.0) {
        let (i, j) = (p.i as usize, p.j as usize);
        met[i * k + j] = true;
        met[j * k + i] = true;
        battles[i] += p.total();
        battles[j] += p.total();
    }
    let mut inside = vec![true; k];
    let mut unmet: Vec<usize> = (0..k)
        .map(|m| (0..k).filter(|&o| o != m && !met[m * k + o]).count())
        .collect();
    let mut peeled = Vec::new();
    loop {
        let worst = (0..k)
            .filter(|&m| inside[m] && unmet[m] > 0)
            .max_by(|&a, &b| {
                unmet[a]
                    .cmp(&unmet[b])
                    .then(battles[b].total_cmp(&battles[a]))
                    .then(a.cmp(&b))
            });
        let Some(m) = worst else { break };
        inside[m] = false;
        peeled.push(m);
        for o in (0..k).filter(|&o| inside[o] && o != m && !met[m * k + o]) {
            unmet[o] -= 1;
        }
    }
    peeled.sort_by(|&a, &b| battles[b].total_cmp(&battles[a]).then(a.cmp(&b)));
    for m in peeled {
        if (0..k).all(|o| !inside[o] || met[m * k + o]) {
            inside[m] = true;
        }
    }
    (0..k).filter(|&m| inside[m]).collect()
}

impl MarginFill {
    /// The low-rank completion's settings.
    pub fn low_rank(&self) -> SkewLowRank {
        SkewLowRank {
            rank: self.completion_rank,
            ..SkewLowRank::default()
        }
    }

    /// How each group of a robust lottery fills its own missing pairs: from the
    /// group's own battles under `bradley-terry` and `low-rank`, as ties otherwise (a
    /// group's gaps are not refused; a core of all the battles is not one of each
    /// group's).
    pub fn for_groups(&self) -> MarginFill {
        match self.unobserved {
            UnobservedPairs::BradleyTerry | UnobservedPairs::LowRank => self.clone(),
            _ => MarginFill {
                unobserved: UnobservedPairs::Ties,
                ..self.clone()
            },
        }
    }

    /// Checks the settings.
    ///
    /// # Errors
    /// [`RatingsError::Setting`] for a completion rank out of range, or Bradley–Terry
    /// settings out of range.
    pub fn validate(&self) -> Result<(), RatingsError> {
        self.low_rank().validate()?;
        self.bradley_terry.validate()
    }

    /// Every pair's margin of `counts` under this option. `refuse` and `ties` both give
    /// 0 for the missing pairs; the caller refuses on `refuse`.
    ///
    /// # Errors
    /// The fitted model's errors.
    pub fn complete(&self, counts: &PairCounts) -> Result<CompletedMargins, RatingsError> {
        self.complete_from(counts, &FillModel::None)
    }

    /// As [`Self::complete`], the low-rank completion starting from `start` when it is
    /// one of the same dimensions (a bootstrap replicate from the full data's fit).
    ///
    /// # Errors
    /// As [`Self::complete`].
    pub fn complete_from(
        &self,
        counts: &PairCounts,
        start: &FillModel,
    ) -> Result<CompletedMargins, RatingsError> {
        let k = counts.models();
        let (mut margins, unobserved) = observed_margins(counts);
        // A prediction within rounding of 0 is a tie: two models the fit cannot tell
        // apart must not make a Condorcet winner of one of them by a last bit.
        let mut fill = |margin: &dyn Fn(usize, usize) -> f64| {
            for &(j, l) in &unobserved {
                let predicted = margin(j, l);
                let predicted = if predicted.abs() < PREDICTED_TIE {
                    0.0
                } else {
                    predicted
                };
                margins[j * k + l] = predicted;
                margins[l * k + j] = -predicted;
            }
        };
        let (model, core) = match self.unobserved {
            _ if unobserved.is_empty() => (FillModel::None, None),
            UnobservedPairs::Refuse | UnobservedPairs::Ties => (FillModel::None, None),
            UnobservedPairs::Core => (FillModel::None, Some(observed_core(counts))),
            UnobservedPairs::BradleyTerry => {
                let fit = self.bradley_terry.fit(counts)?;
                fill(&|j, l| fit.win_probability(j, l) - fit.win_probability(l, j));
                (FillModel::BradleyTerry(Box::new(fit)), None)
            }
            UnobservedPairs::LowRank => {
                let settings = self.low_rank();
                let fit = match start {
                    FillModel::LowRank(start) if start.rank == settings.rank => {
                        settings.fit_from(counts, (**start).clone())?
                    }
                    _ => settings.fit(counts)?,
                };
                fill(&|j, l| fit.margin(j, l));
                (FillModel::LowRank(Box::new(fit)), None)
            }
        };
        Ok(CompletedMargins {
            margins,
            unobserved,
            core,
            model,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use verdict_feedback::PairCountsBuilder;

    fn counts_of(models: usize, pairs: &[(u32, u32, [f64; 3])]) -> PairCounts {
        let mut builder = PairCountsBuilder::default();
        for &(a, b, cells) in pairs {
            builder.add(a, b, cells);
        }
        builder.finish(models)
    }

    #[test]
    fn the_core_is_the_complete_block_of_a_two_era_arena() {
        // Two eras: models 0–3 all met, models 3–5 all met; model 3 bridges them. The
        // largest set whose pairs all met is {0, 1, 2, 3} (checked by hand: any set
        // with a model of each era but 3 holds a pair that never met).
        let mut pairs = Vec::new();
        for a in 0..4 {
            for b in a + 1..4 {
                pairs.push((a, b, [5.0, 5.0, 0.0]));
            }
        }
        pairs.extend([
            (3, 4, [5.0, 5.0, 0.0]),
            (3, 5, [5.0, 5.0, 0.0]),
            (4, 5, [5.0, 5.0, 0.0]),
        ]);
        let counts = counts_of(6, &pairs);
        assert_eq!(observed_core(&counts), vec![0, 1, 2, 3]);
        let (_, unobserved) = observed_margins(&counts);
        assert_eq!(unobserved.len(), 15 - 9);
    }

    #[test]
    fn observed_margins_are_eq_78_and_missing_ones_are_filled_by_the_option() {
        // 0 beat 1 six times in ten with two ties: margin (6 − 2) / 10 = 0.4.
        let counts = counts_of(3, &[(0, 1, [6.0, 2.0, 2.0]), (1, 2, [7.0, 3.0, 0.0])]);
        let ties = MarginFill {
            unobserved: UnobservedPairs::Ties,
            ..MarginFill::default()
        }
        .complete(&counts)
        .unwrap();
        assert_eq!(ties.unobserved, vec![(0, 2)]);
        assert!((ties.margins[1] - 0.4).abs() < 1e-15);
        assert_eq!(ties.margins[2], 0.0);
        let bt = MarginFill {
            unobserved: UnobservedPairs::BradleyTerry,
            ..MarginFill::default()
        }
        .complete(&counts)
        .unwrap();
        // 0 ≻ 1 ≻ 2 transitively: the prediction for (0, 2) is a clear win for 0,
        // and it is Bradley–Terry's own: P(0 ≻ 2) − P(2 ≻ 0) of the same fit.
        let FillModel::BradleyTerry(fit) = &bt.model else {
            panic!("Bradley–Terry was fitted")
        };
        let want = fit.win_probability(0, 2) - fit.win_probability(2, 0);
        assert!(bt.margins[2] > 0.5 && (bt.margins[2] - want).abs() < 1e-15);
        assert_eq!(bt.margins[2 * 3], -bt.margins[2]);
        assert!(
            (bt.margins[1] - 0.4).abs() < 1e-15,
            "observed margins are kept"
        );
    }
}
