//! The leaderboard pipeline: battle log → counts → Bradley–Terry and/or Elo →
//! intervals → [`RankReport`].

use verdict_feedback::{BattleLog, Interner, Outcome};
use verdict_game::AlphaRank;
use verdict_ratings::{
    bootstrap, Bootstrap, BootstrapDraws, BothBad, BradleyTerry, Elo, EloScale, Interval,
    IntervalMethod, MarginFill, PairCounts, RatingMethod, RatingsError, SkewLowRank,
    UnobservedPairs,
};
use verdict_report::{GroupBoard, RankReport};
use verdict_settings::Setting;

use crate::equilibrium::EquilibriumSettings;
use crate::VerdictError;

mod board;
mod bradley_terry;
mod elo;
#[cfg(test)]
mod test_support;

/// Which leaderboards to compute.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    strum::IntoStaticStr,
    strum::VariantArray,
    strum::EnumString,
    strum::EnumMessage,
)]
#[strum(serialize_all = "kebab-case")]
pub enum Method {
    /// Bradley–Terry by maximum likelihood.
    #[strum(to_string = "bt", serialize = "bradley-terry")]
    BradleyTerry,
    /// Online Elo.
    Elo,
    /// The maximal lottery of the margin matrix (NashEval Eq. 78).
    Lottery,
    /// All three, side by side.
    All,
    /// Plackett–Luce on rankings (a feedback table, not a battle log; see
    /// [`crate::plackett_luce::rank_rankings`]).
    #[strum(to_string = "plackett-luce", serialize = "pl")]
    PlackettLuce,
    /// Copeland's rule on the pairwise margins: wins minus losses over pairs.
    Copeland,
    /// Schulze's method on the pairwise margins (strongest paths).
    Schulze,
    /// Tideman's ranked pairs on the pairwise margins.
    RankedPairs,
    /// The Kemeny–Young order of the pairwise margins, exact up to
    /// [`verdict_game::KEMENY_MAX_AGENTS`] models.
    #[strum(to_string = "kemeny", serialize = "kemeny-young")]
    Kemeny,
    /// Nash averaging: the maximum-entropy equilibrium of the log-odds game
    /// (Balduzzi et al. 2018).
    NashAveraging,
    /// α-Rank's stationary distribution (Omidshafiei et al. 2019).
    AlphaRank,
}

impl Method {
    /// Whether the method is one of the social-choice orders of
    /// [`crate::social_rank`], which read only the pairwise margins.
    pub fn is_social_choice(self) -> bool {
        matches!(
            self,
            Self::Copeland
                | Self::Schulze
                | Self::RankedPairs
                | Self::Kemeny
                | Self::NashAveraging
                | Self::AlphaRank
        )
    }
}

/// The order in which Elo replays the battles.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EloOrder {
    /// The log's order.
    Log,
    /// The log's order after it was sorted (stably) by this column when it was read.
    SortedBy(String),
    /// A seeded permutation of it.
    Shuffled(u64),
}

/// How intervals are made.
#[derive(Debug, Clone, PartialEq)]
pub enum Intervals {
    /// No intervals.
    None,
    /// Percentile bootstrap.
    Bootstrap(Bootstrap),
    /// Sandwich normal intervals (Bradley–Terry only).
    Sandwich,
}

/// Settings of [`rank`].
///
/// | Name | Default | Meaning |
/// |---|---|---|
/// | `method` | Bradley–Terry | which leaderboards |
/// | `bradley_terry` | [`BradleyTerry::default`] | ties, solver, tolerance, L2 |
/// | `elo` | [`Elo::default`] | K = 32, start 1000, base 10, scale 400 |
/// | `elo_order` | log order | order of the Elo replay |
/// | `mean_rating` | 1000 | mean of the Bradley–Terry scores, unless anchored |
/// | `anchor` | none | `(model, rating)` pinned exactly (both methods) |
/// | `intervals` | bootstrap, 1000 rounds, seed 0 | |
/// | `confidence` | 0.95 | interval coverage, in (0, 1) |
/// | `matrices` | false | add win / tie / predicted matrices |
/// | `unobserved` | refuse | lottery and social choice: pairs that never met are refused, ties, predicted (`bradley-terry`, `low-rank`) or avoided (`core`) — [`UnobservedPairs`] |
/// | `completion_rank` | 1 | cyclic components of the `low-rank` completion, 0–16 |
/// | `equilibrium` | maximal lottery | lottery: rho, costs, hard budget |
/// | `robust` | none | lottery: robust over battle groups, with a radius or Eq. 80's |
/// | `lottery_bootstrap` | false | lottery: bootstrap it too (`intervals`' rounds and seed) |
/// | `alpha_rank` | α = 100, m = 50 | α-Rank's selection intensity and population |
/// | `fragility` | false | Bradley–Terry: battles whose removal flips each adjacent pair and the top |
/// | `both_bad` | tie | "both bad" verdicts: a tie, dropped, or the grounded Rao–Kupper model |
#[derive(Debug, Clone, PartialEq)]
pub struct RankSettings {
    /// Which leaderboards.
    pub method: Method,
    /// Bradley–Terry settings.
    pub bradley_terry: BradleyTerry,
    /// Elo settings.
    pub elo: Elo,
    /// Elo replay order.
    pub elo_order: EloOrder,
    /// Mean Bradley–Terry score when no anchor is given.
    pub mean_rating: f64,
    /// A model pinned at a rating.
    pub anchor: Option<(String, f64)>,
    /// Interval method.
    pub intervals: Intervals,
    /// Interval coverage.
    pub confidence: f64,
    /// Whether to add the matrices.
    pub matrices: bool,
    /// How pairs that never met enter the margin game of the lottery and the
    /// social-choice rules ([`UnobservedPairs`]). Refused by default: every remedy
    /// assumes something the battles do not show, and the refusal names them all.
    pub unobserved: UnobservedPairs,
    /// Cyclic components of the `low-rank` completion ([`verdict_ratings::SkewLowRank`]);
    /// one is the smallest that holds a cycle.
    pub completion_rank: usize,
    /// How the lottery's game is solved (rho, costs, budget).
    pub equilibrium: EquilibriumSettings,
    /// Robust lottery over battle groups (NashEval Eq. 79–81): `Some(radius)`, the
    /// radius `None` for the default of Eq. 80.
    pub robust: Option<Option<f64>>,
    /// Bootstrap the lottery too, with the rounds and seed of `intervals` (see
    /// [`crate::lottery_bootstrap`]); off by default because every replicate solves a
    /// game.
    pub lottery_bootstrap: bool,
    /// α-Rank's settings (OpenSpiel's defaults).
    pub alpha_rank: AlphaRank,
    /// Bradley–Terry: the fewest battles found whose removal puts each model's
    /// successor level with or above it, and the top model's most fragile challenger
    /// ([`verdict_ratings::fragility`]).
    pub fragility: bool,
    /// How "both bad" verdicts enter: as ties, dropped, or (Bradley–Terry) as their
    /// own outcome in the grounded Rao–Kupper model ([`GroundedRaoKupper`]).
    pub both_bad: BothBad,
}

impl Default for RankSettings {
    fn default() -> Self {
        Self {
            method: Method::BradleyTerry,
            bradley_terry: BradleyTerry::default(),
            elo: Elo::default(),
            elo_order: EloOrder::Log,
            mean_rating: 1000.0,
            anchor: None,
            intervals: Intervals::Bootstrap(Bootstrap::default()),
            confidence: 0.95,
            matrices: false,
            unobserved: UnobservedPairs::Refuse,
            completion_rank: SkewLowRank::default().rank,
            equilibrium: EquilibriumSettings::default(),
            robust: None,
            lottery_bootstrap: false,
            alpha_rank: AlphaRank::default(),
            fragility: false,
            both_bad: BothBad::Tie,
        }
    }
}

/// Most bootstrap rounds a ranking runs: each round keeps one score per model, so the
/// bound keeps memory to a few hundred megabytes even for a thousand models.
pub const MAX_BOOTSTRAP_ROUNDS: usize = 100_000;

impl RankSettings {
    /// Number of bootstrap rounds the settings will run (for progress bars).
    pub fn bootstrap_rounds(&self) -> usize {
        let methods = match self.method {
            Method::All => 2 + usize::from(self.lottery_bootstrap),
            Method::Lottery => usize::from(self.lottery_bootstrap),
            method if method.is_social_choice() => 0,
            _ => 1,
        };
        match &self.intervals {
            Intervals::Bootstrap(b) => b.rounds.saturating_mul(methods),
            _ => 0,
        }
    }

    /// How the margin game fills the pairs that never met.
    pub fn margin_fill(&self) -> MarginFill {
        MarginFill {
            unobserved: self.unobserved,
            completion_rank: self.completion_rank,
            bradley_terry: self.bradley_terry.clone(),
        }
    }

    pub(crate) fn validate(&self) -> Result<(), VerdictError> {
        self.margin_fill().validate()?;
        if self.robust.is_some() && self.unobserved == UnobservedPairs::Core {
            return Err(VerdictError::Settings(format!(
                "the robust lottery weighs every battle group's own margins, and a core of the pooled battles is not one of each group's; use {} bradley-terry, low-rank or ties with {}",
                Setting("unobserved"),
                Setting("robust")
            )));
        }
        if let Intervals::Bootstrap(b) = &self.intervals {
            if b.rounds > MAX_BOOTSTRAP_ROUNDS {
                return Err(VerdictError::Settings(format!(
                    "{} bootstrap rounds is more than the {MAX_BOOTSTRAP_ROUNDS} verdict runs (percentile intervals settle long before: 1000 to 10000 is usual)",
                    b.rounds
                )));
            }
        }
        if !(self.confidence > 0.0 && self.confidence < 1.0) {
            return Err(VerdictError::Settings(format!(
                "confidence level {} must lie strictly between 0 and 1 (e.g. {ci} 0.95)",
                self.confidence,
                ci = Setting("ci")
            )));
        }
        if !self.mean_rating.is_finite() {
            return Err(VerdictError::Settings(
                "the mean rating must be finite".into(),
            ));
        }
        if let Some((_, rating)) = &self.anchor {
            if !rating.is_finite() {
                return Err(VerdictError::Settings(
                    "the anchor rating must be finite".into(),
                ));
            }
        }
        if self.fragility && !matches!(self.method, Method::BradleyTerry | Method::All) {
            return Err(VerdictError::Settings(format!(
                "{fragility} refits Bradley–Terry without the battles it removes; use {method} bt (or all)",
                fragility = Setting("fragility"),
                method = Setting("method")
            )));
        }
        if self.both_bad == BothBad::Bad {
            let refused = if self.method != Method::BradleyTerry {
                Some(format!("{} other than bt", Setting("method")))
            } else if self.anchor.is_some() {
                Some(format!(
                    "{} (the ground fixes the scale)",
                    Setting("anchor")
                ))
            } else if self.fragility {
                Some(Setting("fragility").to_string())
            } else {
                None
            };
            if let Some(refused) = refused {
                return Err(VerdictError::Settings(format!(
                    "{both_bad} bad fits the grounded Rao–Kupper model, a Bradley–Terry board; it takes no {refused}",
                    both_bad = Setting("both_bad")
                )));
            }
        }
        self.bradley_terry.validate()?;
        self.elo.validate()?;
        Ok(())
    }
}

/// The percentile intervals at `confidence` of the `draws` of `bootstrap`, labelled.
pub(crate) fn percentile_intervals(
    bootstrap: &Bootstrap,
    confidence: f64,
    draws: &BootstrapDraws,
) -> (Interval, Vec<(f64, f64)>) {
    let interval = Interval {
        method: IntervalMethod::Bootstrap {
            rounds: bootstrap.rounds,
            seed: bootstrap.seed,
        },
        confidence,
    };
    (interval, draws.intervals(confidence))
}

/// The percentile intervals at `confidence` of a refitting method's bootstrap
/// (Bradley–Terry, Plackett–Luce) around `fit`, scores on `scale`, with what a
/// reader must know of the replicates added to `notes` ([`refit_notes`]).
#[allow(clippy::too_many_arguments)]
pub(crate) fn refit_intervals<M: RatingMethod>(
    method: &M,
    data: &M::Data,
    fit: &M::Fit,
    scale: &EloScale,
    settings: &Bootstrap,
    confidence: f64,
    notes: &mut Vec<String>,
    on_round: &(dyn Fn() + Sync),
) -> Result<(Interval, Vec<(f64, f64)>), VerdictError> {
    let draws = bootstrap(method, data, fit, scale, settings, on_round)?;
    notes.extend(refit_notes(&draws));
    Ok(percentile_intervals(settings, confidence, &draws))
}

/// What a reader must know of refitted bootstrap replicates (Bradley–Terry,
/// Plackett–Luce): how many carried the fallback prior, how many hit the cap.
pub(crate) fn refit_notes(draws: &BootstrapDraws) -> Vec<String> {
    let rounds = draws.scores.len();
    let mut notes = Vec::new();
    if draws.prior_rounds > 0 {
        notes.push(format!(
            "{} of {rounds} bootstrap replicates had no maximum-likelihood estimate and carried the fallback prior",
            draws.prior_rounds
        ));
    }
    if draws.unconverged_rounds > 0 {
        notes.push(format!(
            "{} of {rounds} bootstrap replicates stopped at the iteration cap",
            draws.unconverged_rounds
        ));
    }
    notes
}

/// Resolves the anchor's model name to its index among `names`.
pub(crate) fn anchor_index(
    names: &[String],
    anchor: &Option<(String, f64)>,
) -> Result<Option<(usize, f64)>, RatingsError> {
    let Some((name, rating)) = anchor else {
        return Ok(None);
    };
    match names.iter().position(|n| n == name) {
        Some(index) => Ok(Some((index, *rating))),
        None => {
            let mut known: Vec<&str> = names.iter().map(String::as_str).collect();
            known.sort_unstable();
            let shown = known.iter().take(8).copied().collect::<Vec<_>>().join(", ");
            let more = if known.len() > 8 {
                format!(" and {} more", known.len() - 8)
            } else {
                String::new()
            };
            Err(RatingsError::UnknownAnchor {
                model: name.clone(),
                known: format!("{shown}{more}"),
            })
        }
    }
}

/// Fits the leaderboards `settings` asks for; `on_round` is called once per bootstrap
/// replicate.
///
/// ```
/// use verdict::io::{read_battles, ReadOptions, Source};
/// use verdict::rank::{rank, RankSettings};
///
/// let csv = "model_a,model_b,winner\na,b,model_a\nb,c,model_a\nc,a,model_b\na,b,tie\nb,c,model_b\n";
/// let source = Source::Bytes { label: "battles.csv".into(), data: csv.as_bytes().to_vec() };
/// let log = read_battles(&source, &ReadOptions::default())?.log;
/// let report = rank(&log, "battles.csv", &RankSettings::default(), &|| {})?;
/// let board = &report.outputs()[0].leaderboard;
/// assert_eq!(board.models[0].name, "a"); // a won twice, tied once and never lost
/// # Ok::<(), verdict::VerdictError>(())
/// ```
///
/// # Errors
/// Bad settings, an unknown anchor, too few models, or a method/interval mismatch.
pub fn rank(
    log: &BattleLog,
    source: &str,
    settings: &RankSettings,
    on_round: &(dyn Fn() + Sync),
) -> Result<RankReport, VerdictError> {
    rank_with_groups(log, None, None, source, settings, on_round)
}

/// The group of each battle (e.g. a category or language column), for the robust
/// maximal lottery.
#[derive(Debug, Clone, PartialEq)]
pub struct BattleGroups {
    /// Group names.
    pub names: Vec<String>,
    /// `of_battle[r]`: index into `names` of battle r's group.
    pub of_battle: Vec<usize>,
}

/// Each battle's weight (an inverse-propensity weight for unequal sampling, say): the
/// fits then maximise `sum_r w_r l_r` ([`PairCounts::from_weighted_log`]), the
/// sandwich's middle is `sum_r w_r^2 s_r s_r^T` and the bootstrap resamples battles —
/// arena-rank's weighted Bradley–Terry.
#[derive(Debug, Clone, PartialEq)]
pub struct BattleWeights {
    /// Where the weights came from (a column name), for the notes.
    pub column: String,
    /// `of_battle[r]`: battle r's weight, finite and non-negative.
    pub of_battle: Vec<f64>,
}

impl BattleGroups {
    /// One group, of those named, per battle of a log of `battles`.
    fn check(&self, battles: usize) -> Result<(), VerdictError> {
        if self.of_battle.len() != battles || self.of_battle.iter().any(|&g| g >= self.names.len())
        {
            return Err(VerdictError::Settings(
                "battle groups do not match the log".into(),
            ));
        }
        Ok(())
    }
}

impl BattleWeights {
    /// Checks the weights against a log of `battles` battles.
    fn check(&self, battles: usize) -> Result<(), VerdictError> {
        if self.of_battle.len() != battles {
            return Err(VerdictError::Settings(format!(
                "{} weights for a log of {battles} battles; give one weight per battle",
                self.of_battle.len()
            )));
        }
        if let Some(r) = self
            .of_battle
            .iter()
            .position(|w| !(w.is_finite() && *w >= 0.0))
        {
            return Err(VerdictError::Settings(format!(
                "battle {r} weighs {}; weights must be finite and non-negative",
                self.of_battle[r]
            )));
        }
        if self.of_battle.iter().all(|&w| w == 0.0) {
            return Err(VerdictError::Settings(
                "every battle weighs 0; a weighted fit needs some weight".into(),
            ));
        }
        Ok(())
    }
}

/// Like [`rank`], with each battle's group for `settings.robust` and each battle's
/// weight. Weights apply to the methods that read pair counts (Bradley–Terry, the
/// maximal lottery, the social-choice orders); Elo and the robust lottery, which
/// replay or split the battles, are refused with them (and left out of `all`).
///
/// # Errors
/// As [`rank`]; also `robust` without groups, groups or weights not matching the log,
/// weights that are negative, not finite or all zero, or a method that takes none.
pub fn rank_with_groups(
    log: &BattleLog,
    groups: Option<&BattleGroups>,
    weights: Option<&BattleWeights>,
    source: &str,
    settings: &RankSettings,
    on_round: &(dyn Fn() + Sync),
) -> Result<RankReport, VerdictError> {
    settings.validate()?;
    if let Some(groups) = groups {
        groups.check(log.len())?;
    }
    if let Some(weights) = weights {
        weights.check(log.len())?;
    }
    if settings.both_bad == BothBad::Drop {
        return rank_without_both_bad(log, groups, weights, source, settings, on_round);
    }
    // Models numbered by name, as the readers number them: a log built by hand then
    // gives the same fits and bootstrap draws as the same battles read from a file or
    // as counts.
    let by_name;
    let log = if log.models().names().is_sorted() {
        log
    } else {
        by_name = log.with_models_by_name();
        &by_name
    };
    let counts = match weights {
        Some(weights) => PairCounts::from_weighted_log(log, &weights.of_battle),
        None => PairCounts::from_log(log),
    };
    let context = Context {
        models: log.models(),
        // A weighted log is its weighted counts: what replays or splits the battles
        // themselves would drop the weights, and is refused.
        log: weights.is_none().then_some(log),
        battles: log.len(),
        counts: &counts,
        source,
        settings,
        anchor: anchor_index(log.models().names(), &settings.anchor)?,
        groups,
        weights,
    };
    context.rank(on_round)
}

/// [`rank_with_groups`] of the battles not judged "both bad", with a note of how many
/// were left out.
fn rank_without_both_bad(
    log: &BattleLog,
    groups: Option<&BattleGroups>,
    weights: Option<&BattleWeights>,
    source: &str,
    settings: &RankSettings,
    on_round: &(dyn Fn() + Sync),
) -> Result<RankReport, VerdictError> {
    let kept: Vec<usize> = (0..log.len())
        .filter(|&r| log.battle(r).2 != Outcome::TieBothBad)
        .collect();
    let kept_log = log.subset(&kept);
    let kept_groups = groups.map(|g| BattleGroups {
        names: g.names.clone(),
        of_battle: kept.iter().map(|&r| g.of_battle[r]).collect(),
    });
    let kept_weights = weights.map(|w| BattleWeights {
        column: w.column.clone(),
        of_battle: kept.iter().map(|&r| w.of_battle[r]).collect(),
    });
    let as_ties = RankSettings {
        both_bad: BothBad::Tie,
        ..settings.clone()
    };
    let mut report = rank_with_groups(
        &kept_log,
        kept_groups.as_ref(),
        kept_weights.as_ref(),
        source,
        &as_ties,
        on_round,
    )?;
    report.push_note(format!(
        "{} of {} battles judged \"both bad\" left out ({both_bad} drop)",
        log.len() - kept.len(),
        log.len(),
        both_bad = Setting("both_bad")
    ));
    Ok(report)
}

/// The leaderboards of each group's battles on their own (a per-category board: one
/// per language, say), fitted with `settings` like the whole log, each battle with its
/// weight when `weights` are given. Models that never play in a group are not on its
/// board; a group whose board cannot be made (fewer than two models, pairs that never
/// met for the lottery) carries the reason instead of stopping the others.
///
/// # Errors
/// Groups or weights that do not match the log.
pub fn rank_each_group(
    log: &BattleLog,
    groups: &BattleGroups,
    weights: Option<&BattleWeights>,
    source: &str,
    settings: &RankSettings,
) -> Result<Vec<GroupBoard>, VerdictError> {
    groups.check(log.len())?;
    if let Some(weights) = weights {
        weights.check(log.len())?;
    }
    let mut logs: Vec<BattleLog> = groups.names.iter().map(|_| BattleLog::new()).collect();
    let mut group_weights: Vec<BattleWeights> = groups
        .names
        .iter()
        .map(|_| BattleWeights {
            column: weights.map_or_else(String::new, |w| w.column.clone()),
            of_battle: Vec::new(),
        })
        .collect();
    for (r, (a, b, outcome)) in log.iter().enumerate() {
        let g = groups.of_battle[r];
        let group = &mut logs[g];
        let a = group.models_mut().intern(log.models().name(a));
        let b = group.models_mut().intern(log.models().name(b));
        group.push_ids(a, b, outcome);
        if let Some(weights) = weights {
            group_weights[g].of_battle.push(weights.of_battle[r]);
        }
    }
    let settings = RankSettings {
        robust: None,
        ..settings.clone()
    };
    Ok(groups
        .names
        .iter()
        .zip(logs.iter().zip(&group_weights))
        .map(|(name, (group_log, group_weights))| GroupBoard {
            group: name.clone(),
            battles: group_log.len(),
            board: rank_with_groups(
                group_log,
                None,
                weights.map(|_| group_weights),
                &format!("{source} [{name}]"),
                &settings,
                &|| {},
            )
            .map_err(|e| e.to_string()),
        })
        .collect())
}

/// Fits the leaderboards `settings` asks for from pair counts alone (a counts table, or
/// a log of any size reduced while it was read): Bradley–Terry with its bootstrap and
/// sandwich intervals, and the maximal lottery. Elo and the robust lottery need the
/// battles and are refused; `Method::All` gives the other two with a note. The same
/// battles as a log (see [`rank`]) give the same numbers, bootstrap included.
///
/// # Errors
/// As [`rank`]; also Elo or the robust lottery.
pub fn rank_counts(
    models: &Interner,
    counts: &PairCounts,
    source: &str,
    settings: &RankSettings,
    on_round: &(dyn Fn() + Sync),
) -> Result<RankReport, VerdictError> {
    settings.validate()?;
    if settings.both_bad != BothBad::Tie {
        return Err(VerdictError::Settings(format!(
            "pair counts hold \"both bad\" among the ties; {both_bad} drop or bad needs the battles themselves",
            both_bad = Setting("both_bad")
        )));
    }
    let (names, counts) = counts.with_models_by_name(models.names());
    let mut models = Interner::new();
    for name in &names {
        models.intern(name);
    }
    let context = Context {
        models: &models,
        log: None,
        battles: counts.battles().round() as usize,
        counts: &counts,
        source,
        settings,
        anchor: anchor_index(&names, &settings.anchor)?,
        groups: None,
        weights: None,
    };
    context.rank(on_round)
}

impl Context<'_> {
    /// The leaderboards of `self.settings.method`.
    fn rank(&self, on_round: &(dyn Fn() + Sync)) -> Result<RankReport, VerdictError> {
        let settings = self.settings;
        let models = self.models.len();
        if models < 2 {
            return Err(RatingsError::NotEnoughData(format!(
                "a leaderboard needs at least 2 models, found {models}"
            ))
            .into());
        }
        Ok(match settings.method {
            Method::BradleyTerry if settings.both_bad == BothBad::Bad => {
                RankReport::Single(Box::new(self.grounded()?))
            }
            Method::BradleyTerry => RankReport::Single(Box::new(self.bradley_terry(on_round)?)),
            Method::Elo => RankReport::Single(Box::new(self.elo(on_round)?)),
            Method::Lottery => RankReport::Single(Box::new(self.lottery(on_round)?)),
            method @ (Method::Copeland
            | Method::Schulze
            | Method::RankedPairs
            | Method::Kemeny
            | Method::NashAveraging
            | Method::AlphaRank) => RankReport::Single(Box::new(self.social_choice(method)?)),
            Method::PlackettLuce => {
                return Err(VerdictError::Settings(
                    "Plackett–Luce reads rankings (a feedback table with menu, modality, response), not a battle log".into(),
                ))
            }
            Method::All => {
                let mut leaderboards = vec![self.bradley_terry(on_round)?];
                let mut notes = Vec::new();
                if self.log.is_some() {
                    leaderboards.push(self.elo(on_round)?);
                } else if self.weights.is_some() {
                    notes.push("Elo left out: it replays the battles one by one and takes no weights".to_owned());
                } else {
                    notes.push("Elo left out: it replays the battles in order, and pair counts keep none".to_owned());
                }
                let unplayed = models * (models - 1) / 2 - self.counts.pairs().len();
                if unplayed > 0 && settings.unobserved == UnobservedPairs::Refuse {
                    notes.push(format!(
                        "maximal lottery left out: {unplayed} pairs of models never met; {}",
                        UnobservedPairs::remedies()
                    ));
                } else {
                    leaderboards.push(self.lottery(on_round)?);
                }
                RankReport::All {
                    method: "all",
                    leaderboards,
                    notes,
                }
            }
        })
    }
}

/// A method's pairwise matrix for `--matrix`.
#[derive(Clone, Copy)]
pub(crate) enum Pairwise<'a> {
    /// Predicted P(row beats column).
    WinProbability(&'a dyn Fn(usize, usize) -> f64),
    /// Margins `A_jk` (the lottery's payoff matrix).
    Margin(&'a dyn Fn(usize, usize) -> f64),
}

/// What every leaderboard of one input shares.
pub(crate) struct Context<'a> {
    /// The models, numbered as in `counts` (and `log`).
    pub models: &'a Interner,
    /// The battles themselves, when the input was a log (Elo and the robust lottery
    /// need them); `None` for counts.
    pub log: Option<&'a BattleLog>,
    /// Number of battles.
    pub battles: usize,
    pub counts: &'a PairCounts,
    pub source: &'a str,
    pub settings: &'a RankSettings,
    pub anchor: Option<(usize, f64)>,
    pub groups: Option<&'a BattleGroups>,
    /// The battles' weights, when the counts are weighted.
    pub weights: Option<&'a BattleWeights>,
}
