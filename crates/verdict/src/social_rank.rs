//! The social-choice leaderboards of [`crate::rank`]: Copeland, Schulze, ranked pairs
//! and Kemeny–Young on the pairwise margins (NashEval Eq. 78), Nash averaging on the
//! log-odds and α-Rank on the win rates. Each reads the pair counts alone, so a log of
//! any size, a counts table or a dataset gives the same board.

use verdict_game::{
    copeland, kemeny_young, log_odds_from_counts, nash_averaging, ranked_pairs, schulze,
    LotteryStatus, PayoffMatrix, SocialOrder,
};
use verdict_ratings::{RatingKind, UnobservedPairs};
use verdict_report::RankOutput;
use verdict_settings::Setting;

use crate::lottery_rank::MarginGame;
use crate::rank::{Context, Intervals, Method, Pairwise};
use crate::unobserved::{against, filled_words, unmet_of};
use crate::VerdictError;

/// What a social-choice rule gives a leaderboard: each model's score, the equilibrium
/// probabilities and Nash averages where the rule has them, and the notes a reader
/// needs to read the scores.
struct SocialBoard {
    kind: RatingKind,
    scores: Vec<f64>,
    probabilities: bool,
    nash_average: Option<Vec<f64>>,
    notes: Vec<String>,
}

impl SocialBoard {
    fn ordinal(kind: RatingKind, order: SocialOrder, meaning: &str) -> Self {
        let mut notes = vec![format!("{}: {meaning}", kind.title())];
        if !order.unique {
            notes.push(format!(
                "the {} order is not unique: models it cannot separate were ordered by name",
                kind.title()
            ));
        }
        Self {
            kind,
            scores: order.scores,
            probabilities: false,
            nash_average: None,
            notes,
        }
    }
}

/// The kind of board a social-choice method makes.
fn kind_of(method: Method) -> RatingKind {
    match method {
        Method::Copeland => RatingKind::Copeland,
        Method::Schulze => RatingKind::Schulze,
        Method::RankedPairs => RatingKind::RankedPairs,
        Method::Kemeny => RatingKind::KemenyYoung,
        Method::NashAveraging => RatingKind::NashAveraging,
        Method::AlphaRank => RatingKind::AlphaRank,
        _ => unreachable!("only social-choice methods come here"),
    }
}

/// Models named in the note on places that rest on missing pairs.
const SHOWN_RESTING: usize = 12;

impl Context<'_> {
    /// The leaderboard of the social-choice rule `method`
    /// ([`Method::is_social_choice`]).
    pub(crate) fn social_choice(&self, method: Method) -> Result<RankOutput, VerdictError> {
        let title = kind_of(method).title();
        if self.settings.unobserved == UnobservedPairs::Core {
            return Err(VerdictError::Settings(format!(
                "{title} ranks every model, and {} core would leave some out; use bradley-terry, low-rank or ties (the core is for the maximal lottery)",
                Setting("unobserved")
            )));
        }
        let MarginGame {
            game, unobserved, ..
        } = self.margin_game(title)?;
        let board = self.social_board(method, &game)?;
        let mut notes = board.notes.clone();
        if !unobserved.is_empty() {
            notes.push(self.social_diagnosis(method, &game, &unobserved, &board.scores)?);
        }
        if self.settings.lottery_bootstrap || self.settings.intervals == Intervals::Sandwich {
            notes.push(format!(
                "{} is shown without intervals: it orders the models from the margins, it does not estimate a score with a sampling distribution (use {method} bt for intervals)",
                board.kind.title(),
                method = Setting("method")
            ));
        }
        let mut output = self.finish(
            board.kind,
            &board.scores,
            None,
            Pairwise::Margin(&|i, j| game.get(i, j)),
            None,
            notes,
        );
        for standing in &mut output.leaderboard.models {
            let m = self.model_index(&standing.name);
            if board.probabilities {
                standing.probability = Some(board.scores[m]);
            }
            standing.nash_average = board.nash_average.as_ref().map(|n| n[m]);
        }
        Ok(output)
    }

    /// Which models' places rest on pairs they never played: each model with unmet
    /// opponents is ranked again with those pairs counted as its losses (margin −1),
    /// and the models whose place then falls are named with both places. Nash
    /// averaging reads the counts' log-odds, where an unmet pair is at even odds.
    fn social_diagnosis(
        &self,
        method: Method,
        game: &PayoffMatrix,
        unobserved: &[(usize, usize)],
        scores: &[f64],
    ) -> Result<String, VerdictError> {
        let k = game.agents();
        let share = 100.0 * (1.0 - unobserved.len() as f64 / (k * (k - 1) / 2) as f64);
        let filled = filled_words(self.settings.unobserved.name());
        if method == Method::NashAveraging {
            return Ok(format!(
                "{share:.1}% of pairs observed; Nash averaging reads the log-odds of the counts, where a pair that never met is at even odds (log-odds 0) whatever {} says",
                Setting("unobserved")
            ));
        }
        let place =
            |scores: &[f64], m: usize| 1 + scores.iter().filter(|&&s| s > scores[m]).count();
        let mut resting = Vec::new();
        for m in 0..k {
            let unmet = unmet_of(unobserved, m);
            if unmet.is_empty() {
                continue;
            }
            let worst = self.social_board(method, &against(game, m, &unmet)?)?;
            let (now, then) = (place(scores, m), place(&worst.scores, m));
            if then > now {
                resting.push((now, then, m));
            }
        }
        resting.sort_unstable();
        let names = self.models.names();
        let shown: Vec<String> = resting
            .iter()
            .take(SHOWN_RESTING)
            .map(|&(now, then, m)| format!("{} {now} → {then}", names[m]))
            .collect();
        let more = match resting.len().saturating_sub(SHOWN_RESTING) {
            0 => String::new(),
            rest => format!(" and {rest} more"),
        };
        Ok(if resting.is_empty() {
            format!("{share:.1}% of pairs observed; {filled}; no model's place falls when the pairs it never played count as its losses")
        } else {
            format!(
                "{share:.1}% of pairs observed; {filled}; {} models' places rest on pairs they never played (place now → had those pairs gone against them): {}{more}",
                resting.len(),
                shown.join(", ")
            )
        })
    }

    fn social_board(
        &self,
        method: Method,
        game: &PayoffMatrix,
    ) -> Result<SocialBoard, VerdictError> {
        let kind = kind_of(method);
        Ok(match method {
            Method::Copeland => SocialBoard::ordinal(
                kind,
                copeland(game),
                "score = pairs won minus pairs lost (a pair's margin is the mean verdict of its battles; a zero margin counts 0)",
            ),
            Method::Schulze => SocialBoard::ordinal(
                kind,
                schulze(game),
                "a model ranks above another when its strongest path of positive margins to it is stronger than the way back; score = models it ranks above",
            ),
            Method::RankedPairs => SocialBoard::ordinal(
                kind,
                ranked_pairs(game),
                "pairs locked from the largest margin down unless they close a cycle; score = models placed below",
            ),
            Method::Kemeny => {
                let found = kemeny_young(game)?;
                let mut board = SocialBoard::ordinal(
                    kind,
                    found.order,
                    "the order that maximises the margins it agrees with, sum over j placed above k of A_jk; score = models placed below",
                );
                board.notes.push(format!(
                    "Kemeny–Young agreement {:.6}, reached by {} order{}",
                    found.agreement,
                    found.optimal_orders,
                    if found.optimal_orders == 1 { "" } else { "s" }
                ));
                board
            }
            Method::NashAveraging => self.nash_averaging_board()?,
            Method::AlphaRank => {
                let k = game.agents();
                let win_rates: Vec<Vec<f64>> = (0..k)
                    .map(|j| (0..k).map(|l| (1.0 + game.get(j, l)) / 2.0).collect())
                    .collect();
                let settings = &self.settings.alpha_rank;
                SocialBoard {
                    kind,
                    scores: settings.stationary(&win_rates)?,
                    probabilities: true,
                    nash_average: None,
                    notes: vec![format!(
                        "α-Rank: the stationary distribution of the single-population chain (local selection model) on the win rates, ties counting half; alpha = {}, population m = {}",
                        settings.alpha, settings.population
                    )],
                }
            }
            _ => unreachable!("only social-choice methods come here"),
        })
    }

    fn nash_averaging_board(&self) -> Result<SocialBoard, VerdictError> {
        let log_odds =
            log_odds_from_counts(&self.counts.win_matrix(), &self.counts.tie_matrix(), true)?;
        let found = nash_averaging(&log_odds)?;
        let mut notes = vec![
            "Nash averaging: the maximum-entropy equilibrium of the log-odds game L_jk = ln(p_jk / (1 - p_jk)), p_jk = (wins + ties/2 + 1/2) / (battles + 1); the Nash average (L p*)_j is 0 on its support and below 0 off it".to_owned(),
        ];
        if found.status == LotteryStatus::Uncertified {
            notes.push(format!(
                "the equilibrium is not certified: gap {:.3e} on the log-odds scale",
                found.gap
            ));
        }
        Ok(SocialBoard {
            kind: RatingKind::NashAveraging,
            scores: found.probabilities,
            probabilities: true,
            nash_average: Some(found.nash_average),
            notes,
        })
    }
}
