use serde::{Deserialize, Serialize};
use verdict_ratings::{BtFit, FitStatus, Flip, Leaderboard, Regularization, Solver, TieModel};

/// The iterative fit behind a Bradley–Terry leaderboard.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FitSummary {
    /// Newton or MM.
    pub solver: Solver,
    /// Tie model.
    pub ties: TieModel,
    /// Iterations run.
    pub iterations: usize,
    /// `‖∇f‖∞` at the result.
    pub gradient_norm: f64,
    /// Converged or stopped at the cap.
    pub status: FitStatus,
    /// The penalty carried (and why, for the fallback prior).
    pub regularization: Regularization,
    /// Log-likelihood at the result.
    pub log_likelihood: f64,
    /// Davidson's `nu`, for the Davidson tie model.
    pub tie_parameter: Option<f64>,
}

impl From<&BtFit> for FitSummary {
    fn from(fit: &BtFit) -> Self {
        Self {
            solver: fit.solver,
            ties: fit.ties,
            iterations: fit.iterations,
            gradient_norm: fit.gradient_norm,
            status: fit.status,
            regularization: fit.regularization.clone(),
            log_likelihood: fit.log_likelihood,
            tie_parameter: fit.theta.map(f64::exp),
        }
    }
}

/// Observed and predicted pairwise matrices, rows and columns in leaderboard order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Matrices {
    /// Row and column names.
    pub models: Vec<String>,
    /// `wins[r][c]`: battles r won against c.
    pub wins: Vec<Vec<f64>>,
    /// `ties[r][c]`: battles r and c tied.
    pub ties: Vec<Vec<f64>>,
    /// `win_probability[r][c]`: predicted P(r beats c) (Bradley–Terry and Elo).
    pub win_probability: Option<Vec<Vec<f64>>>,
    /// `margins[r][c]`: mean verdict of r against c, the lottery's payoff matrix.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub margins: Option<Vec<Vec<f64>>>,
}

/// The equilibrium behind a maximal-lottery leaderboard.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LotterySummary {
    /// The winner set: models with probability above the support threshold.
    pub support: Vec<String>,
    /// Unregularized exploitability `max_j (A pi)_j` (NashEval Eq. 69).
    pub exploitability: f64,
    /// The certificate: the gap of the solved game (Eq. 30; equals the exploitability
    /// for the plain maximal lottery). For a robust lottery, the pooled game's
    /// exploitability, which need not be zero.
    pub gap: f64,
    /// Regularizer strength used.
    pub rho: f64,
    /// Hard budget used, if any.
    pub budget: Option<f64>,
    /// The robust lottery's groups, radius and worst case, if robust.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub robust: Option<RobustSummary>,
    /// Certified (gap ≤ 1e-9) or not.
    pub status: verdict_game::LotteryStatus,
    /// Proved to be the only equilibrium (else the canonical one of several).
    pub unique: bool,
    /// The model preferred to every other, if any.
    pub condorcet_winner: Option<String>,
    /// Pairs never observed; how their margins entered is
    /// `unobserved_diagnosis.filled_by`.
    pub unobserved_pairs: Vec<(String, String)>,
    /// When pairs never met: which members of the winner set owe their place to them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unobserved_diagnosis: Option<UnobservedDiagnosis>,
}

/// Which members of a lottery's winner set owe their place to pairs that never met.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UnobservedDiagnosis {
    /// The share of pairs of models that met at least once.
    pub observed_share: f64,
    /// How the missing pairs entered the game (`ties`, `bradley-terry`, `low-rank`,
    /// `core`).
    pub filled_by: String,
    /// `core`: the models the lottery was restricted to, whose pairs all met.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub core: Option<Vec<String>>,
    /// Each member of the winner set (none under `core`: no pair in it is missing).
    pub members: Vec<UnobservedMember>,
}

impl UnobservedDiagnosis {
    /// The members that leave the winner set when the pairs they never played take the
    /// margins Bradley–Terry predicts: likely artefacts of the fill.
    pub fn likely_artefacts(&self) -> Vec<&str> {
        self.members
            .iter()
            .filter(|m| m.leaves_when_predicted)
            .map(|m| m.model.as_str())
            .collect()
    }
}

/// One member of the winner set and the pairs it never played.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UnobservedMember {
    /// The model.
    pub model: String,
    /// Opponents it never met.
    pub unmet: usize,
    /// Of the opponents that do not beat it (margin ≥ 0, unmet pairs as filled), the
    /// share it never met: near 1, its place rests on games never played.
    pub unbeaten_unmet_share: f64,
    /// Whether it leaves the winner set when the pairs it never played count as its
    /// losses.
    pub owes_place: bool,
    /// Whether it leaves the winner set when the pairs it never played take the
    /// margins Bradley–Terry predicts from every battle: its place is likely an
    /// artefact of the fill (always false when the fill is Bradley–Terry's).
    #[serde(default)]
    pub leaves_when_predicted: bool,
}

/// A robust lottery's ambiguity set and guarantee (NashEval Eq. 79–81).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RobustSummary {
    /// The groups, in the order of their weights.
    pub groups: Vec<String>,
    /// Total-variation radius around the empirical group weights.
    pub radius: f64,
    /// Worst-case payoff over the ambiguity set (0 when unbeaten under every mixture).
    pub worst_case: f64,
}

/// One method's leaderboard with everything reported beside it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RankOutput {
    /// The leaderboard.
    #[serde(flatten)]
    pub leaderboard: Leaderboard,
    /// The fit, for Bradley–Terry.
    pub fit: Option<FitSummary>,
    /// The equilibrium, for the maximal lottery.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lottery: Option<LotterySummary>,
    /// The matrices, when asked for.
    pub matrices: Option<Matrices>,
    /// Battles used.
    pub battles: usize,
    /// The input file.
    pub source: String,
    /// The covariates' coefficients (Bradley–Terry with covariates only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coefficients: Option<Vec<Coefficient>>,
    /// How few battles take the top spot (Bradley–Terry with fragility asked for; each
    /// model's [`verdict_ratings::Standing::flip`] says it for the model below).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_flip: Option<TopFlip>,
    /// Warnings and remarks a reader must see (prior used, unconverged rounds, ...).
    pub notes: Vec<String>,
}

/// The challenger of the top model that the fewest battle removals put level with or
/// above it ([`verdict_ratings::fragility`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TopFlip {
    /// The top model.
    pub top: String,
    /// The challenger.
    pub challenger: String,
    /// The battles, confirmed by a refit, and the first-order count.
    #[serde(flatten)]
    pub flip: Flip,
}

/// One covariate's coefficient in a Bradley–Terry model with covariates: the change
/// in the log-odds that `model_a` wins per standard deviation of the covariate (per
/// unit when not standardized).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Coefficient {
    /// The covariate.
    pub name: String,
    /// The estimate.
    pub estimate: f64,
    /// Lower interval bound.
    pub ci_low: Option<f64>,
    /// Upper interval bound.
    pub ci_high: Option<f64>,
    /// The covariate's mean over the battles, subtracted before the fit.
    pub mean: f64,
    /// The covariate's standard deviation, the unit of the estimate.
    pub sd: f64,
}

/// What `verdict rank` prints: one leaderboard, or several side by side.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum RankReport {
    /// One method.
    Single(Box<RankOutput>),
    /// `--method all`.
    All {
        /// Always `"all"`.
        method: &'static str,
        /// One per method.
        leaderboards: Vec<RankOutput>,
        /// Remarks on the set as a whole (a method left out, and why).
        notes: Vec<String>,
    },
}

impl RankReport {
    /// The report without its matrices (computed for a page, not asked for in print).
    pub fn without_matrices(&self) -> RankReport {
        let strip = |output: &RankOutput| RankOutput {
            matrices: None,
            ..output.clone()
        };
        match self {
            RankReport::Single(output) => RankReport::Single(Box::new(strip(output))),
            RankReport::All {
                method,
                leaderboards,
                notes,
            } => RankReport::All {
                method,
                leaderboards: leaderboards.iter().map(strip).collect(),
                notes: notes.clone(),
            },
        }
    }

    /// The leaderboards in the report.
    pub fn outputs(&self) -> Vec<&RankOutput> {
        match self {
            RankReport::Single(output) => vec![output],
            RankReport::All { leaderboards, .. } => leaderboards.iter().collect(),
        }
    }

    /// Adds a note about the input as a whole (the board's, or the set's).
    pub fn push_note(&mut self, note: String) {
        match self {
            RankReport::Single(output) => output.notes.insert(0, note),
            RankReport::All { notes, .. } => notes.insert(0, note),
        }
    }
}

/// One group's leaderboard in a per-category set (`--group-by` with `--report`): the
/// board of the group's battles alone, or the reason it has none.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupBoard {
    /// The group's name.
    pub group: String,
    /// Battles in the group.
    pub battles: usize,
    /// The group's board, or why there is none (one model only, say).
    pub board: Result<RankReport, String>,
}
