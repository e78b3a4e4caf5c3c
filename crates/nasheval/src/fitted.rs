//! A fitted NashEval model ([`NashEvalModel`]): the payoff surface `Â(x)` and the
//! policy `pi(x)` — a trained network or the per-context equilibrium solver — with
//! the settings and summary of the fit that made it.

use serde::{Deserialize, Serialize};
use verdict_game::{
    support, Equilibrium, Regularizer, SoftBudget, SoftRegularizer, SUPPORT_THRESHOLD,
};

use crate::baselines::{rule_policy, RulePolicy};
use crate::error::FitError;
use crate::gap::{payoff_matrices, GameSet, GapLoss};
use crate::global::GlobalPolicy;
use crate::network::{Network, NetworkOptions};
use crate::options::{FitOptions, NetworkInit, PolicyKind};
use crate::pairs::PairMap;
use crate::payoff::PayoffSurface;
use crate::settings::PolicyRule;
use crate::summary::{FitSummary, Stage};
use crate::tune::{network_grid, tune_network};

/// The model file's format name.
pub const FORMAT: &str = "verdict-nasheval";
/// The model file's version; files of other versions are refused.
pub const VERSION: u32 = 1;

/// A model's predictions at new contexts: each context's distribution over agents
/// `pi(x)`, its winner set (the support, probabilities above
/// [`SUPPORT_THRESHOLD`]) and, when asked, its payoff matrix `Â(x)`.
#[derive(Debug, Clone, PartialEq)]
pub struct Predictions {
    /// Context ids, in order.
    pub ids: Vec<String>,
    /// Agent names, the column order of `probabilities`.
    pub agents: Vec<String>,
    /// `contexts × agents`, row-major.
    pub probabilities: Vec<f64>,
    /// Each context's winners, by name, in agent order.
    pub winners: Vec<Vec<String>>,
    /// `contexts × agents × agents`, row-major, when asked for.
    pub payoffs: Option<Vec<f64>>,
}

impl Predictions {
    /// Appends `more`'s contexts (predicted by the same model) after this one's.
    pub fn append(&mut self, more: Predictions) {
        self.ids.extend(more.ids);
        self.probabilities.extend(more.probabilities);
        self.winners.extend(more.winners);
        if let (Some(payoffs), Some(more)) = (&mut self.payoffs, more.payoffs) {
            payoffs.extend(more);
        }
    }

    /// Context `i`'s distribution over agents.
    pub fn probabilities_of(&self, i: usize) -> &[f64] {
        let k = self.agents.len();
        &self.probabilities[i * k..(i + 1) * k]
    }

    /// Context `i`'s payoff matrix as rows, when payoffs were asked for.
    pub fn payoff_rows(&self, i: usize) -> Option<Vec<Vec<f64>>> {
        let k = self.agents.len();
        self.payoffs.as_ref().map(|p| {
            p[i * k * k..(i + 1) * k * k]
                .chunks(k)
                .map(<[f64]>::to_vec)
                .collect()
        })
    }
}

/// A fitted NashEval model: the schema it expects, how it was fitted, the payoff
/// surface and the policy.
#[derive(Debug, Serialize, Deserialize)]
pub struct NashEvalModel {
    /// Always [`FORMAT`].
    pub format: String,
    /// [`VERSION`] when written.
    pub version: u32,
    /// Agent names, in the order of every output.
    pub agents: Vec<String>,
    /// Feature names the model expects, in order.
    pub feature_names: Vec<String>,
    /// How the caller turned context tables into features (opaque here; the
    /// command line records its text featurizer and categorical settings).
    pub featurizer: serde_json::Value,
    /// Menu catalogue, as agent indices.
    pub menus: Vec<Vec<usize>>,
    /// The settings of the fit.
    pub options: FitOptions,
    /// Pairs, menus holding them and their aggregators.
    pub pairs: PairMap,
    /// `Â(x)`.
    pub payoff: PayoffSurface,
    /// The policy network (network policy).
    pub network: Option<Network>,
    /// What the fit measured.
    pub summary: FitSummary,
    /// The one lottery of a global baseline ([`PolicyRule::is_global`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub global: Option<GlobalPolicy>,
}

/// Games the solver holds at once: what a fit holds of them is `SOLVER_CHUNK × K²`
/// however many contexts it solves.
const SOLVER_CHUNK: usize = 4096;

impl NashEvalModel {
    /// This model with its policy network trained on the surface's games at the
    /// training contexts `features` (one game each), after searching Table 14 when
    /// [`FitOptions::tune_network`] asks: the model is returned trained, never left
    /// half-made.
    ///
    /// Training starts where [`FitOptions::network_init`] says. When a randomly
    /// initialized network collapses ([`TrainingReport::collapsed`]: no better than
    /// a constant policy), it is trained again from the solver's equilibria of the
    /// same games ([`Network::train_from`]), and the first report is kept in
    /// [`FitSummary::collapsed_training`]. Should a network started from the solver
    /// collapse too, the model falls back to the solver policy
    /// ([`FitSummary::solver_fallback`]).
    ///
    /// # Errors
    /// [`FitError`] when the solver fails on a context while computing the start or
    /// rescuing a collapse.
    pub(crate) fn with_trained_network<G: GameSet + ?Sized>(
        mut self,
        features: &[f64],
        games: &G,
        progress: &dyn Fn(Stage, usize, usize),
    ) -> Result<Self, FitError> {
        let columns = self.feature_names.len();
        let loss = self.loss();
        // The solver's equilibria: where a solver start begins.
        let start = match self.options.network_init {
            NetworkInit::Solver => Some(self.solve(games)?.0),
            NetworkInit::Random => None,
        };
        if self.options.tune_network {
            let base = NetworkOptions {
                seed: self.options.seed,
                ..self.options.network.clone()
            };
            let tuned = tune_network(
                features,
                columns,
                games,
                &loss,
                &network_grid(&base),
                start.as_deref(),
                &|done, total| progress(Stage::NetworkTuning, done, total),
            );
            self.options.network = tuned.options.clone();
            self.summary.network_tuning = Some(tuned);
        }
        let options = NetworkOptions {
            seed: self.options.seed,
            ..self.options.network.clone()
        };
        let report_epochs = |done, total| progress(Stage::Policy, done, total);
        let train = |start: Option<&[f64]>| {
            Network::train_from(
                features,
                columns,
                games,
                &loss,
                &options,
                start,
                &report_epochs,
            )
        };
        let (mut network, mut report) = train(start.as_deref());
        self.summary.collapsed_training = None;
        if start.is_none() && report.collapsed() {
            let targets = self.solve(games)?.0;
            self.summary.collapsed_training = Some(report);
            (network, report) = train(Some(&targets));
        }
        self.summary.solver_fallback = report.collapsed();
        self.summary.training = Some(report);
        if self.summary.solver_fallback {
            self.network = None;
            self.options.policy = PolicyKind::Solver;
        } else {
            self.network = Some(network);
            self.options.policy = PolicyKind::Network;
        }
        Ok(self)
    }

    /// The gap loss of the fit's regularizer `Omega`: `rho` and the costs as a
    /// linear price (Eq. 20), or priced by the soft budget (Eq. 52–53); with a hard
    /// budget the costs constrain the simplex instead (Eq. 54–55) and `Omega` is
    /// `rho` alone.
    pub fn loss(&self) -> GapLoss {
        let rho = self.options.rho;
        match self.options.soft_budget {
            Some(prices) => GapLoss::SoftBudget(SoftRegularizer {
                rho,
                budget: SoftBudget {
                    costs: self.options.costs.clone(),
                    prices,
                },
            }),
            None => GapLoss::Priced(Regularizer {
                rho,
                costs: if self.options.budget.is_some() {
                    Vec::new()
                } else {
                    self.options.costs.clone()
                },
            }),
        }
    }

    /// `Â(x)` for every row of `features` (`contexts × K × K`).
    pub fn payoffs(&self, features: &[f64]) -> Vec<f64> {
        self.payoff
            .matrices(features, self.feature_names.len(), &self.pairs)
    }

    /// `pi(x)` for every row of `features` (`contexts × K`).
    ///
    /// # Errors
    /// [`FitError`] when the solver fails on a context (naming it), and for a
    /// probability that is not a finite number (a damaged model): no NaN is returned.
    pub fn policy(&self, features: &[f64]) -> Result<Vec<f64>, FitError> {
        let policies = match &self.network {
            _ if self.options.rule != PolicyRule::Equilibrium => {
                self.baseline_policies(self.options.rule, features)?
            }
            // The network needs no payoff surface at inference.
            Some(network) => network.predict(features),
            None => {
                let games = payoff_matrices(&self.payoffs(features), self.agents.len());
                self.policies_for_games(features, &games)?.0
            }
        };
        let k = self.agents.len();
        if let Some(bad) = policies.iter().position(|p| !p.is_finite()) {
            return Err(FitError::Model(format!(
                "the model gives context {} a probability that is not a number (agent {:?}); the model is damaged: refit it",
                bad / k + 1,
                self.agents[bad % k]
            )));
        }
        Ok(policies)
    }

    /// Predictions at contexts `ids` with `features` (in the model's order, see
    /// [`NashEvalModel::align_features`]); `with_payoffs` adds each context's `Â(x)`.
    ///
    /// # Errors
    /// As [`NashEvalModel::policy`].
    pub fn predict(
        &self,
        ids: Vec<String>,
        features: &[f64],
        with_payoffs: bool,
    ) -> Result<Predictions, FitError> {
        let probabilities = self.policy(features)?;
        let k = self.agents.len();
        let winners = probabilities
            .chunks(k)
            .map(|pi| {
                support(pi, SUPPORT_THRESHOLD)
                    .into_iter()
                    .map(|j| self.agents[j].clone())
                    .collect()
            })
            .collect();
        Ok(Predictions {
            ids,
            agents: self.agents.clone(),
            probabilities,
            winners,
            payoffs: with_payoffs.then(|| self.payoffs(features)),
        })
    }

    /// The policies of the baseline `rule` on this model's surface at `features`
    /// (`contexts × K`), whatever the model's own policy: the paper's baselines
    /// scored on one fitted surface without refitting it.
    ///
    /// # Errors
    /// As [`NashEvalModel::rule_policies`]; `rule` must not be the equilibrium.
    pub fn baseline_policies(
        &self,
        rule: PolicyRule,
        features: &[f64],
    ) -> Result<Vec<f64>, FitError> {
        if rule == PolicyRule::Equilibrium {
            return Err(FitError::setting(
                "rule",
                "the equilibrium is the model's own policy: use policy()",
            ));
        }
        if rule.is_global() {
            // One lottery everywhere: no payoff surface to predict.
            let contexts = features.len() / self.feature_names.len().max(1);
            return self.global_policies(rule, contexts);
        }
        let surfaces = payoff_matrices(&self.payoffs(features), self.agents.len());
        self.rule_policies(rule, &surfaces)
    }

    /// The global rule's lottery (a global baseline's model) at each of `contexts`
    /// contexts.
    ///
    /// # Errors
    /// [`FitError::Model`] when the model was not fitted with `rule`.
    fn global_policies(&self, rule: PolicyRule, contexts: usize) -> Result<Vec<f64>, FitError> {
        match &self.global {
            Some(global) if rule == self.options.rule => Ok(global.probabilities.repeat(contexts)),
            _ => Err(FitError::Model(format!(
                "the model holds no {rule:?} lottery: fit one with that method"
            ))),
        }
    }

    /// The policies of baseline `rule` ([`PolicyRule`]) at the surfaces `surfaces`
    /// (one game per context): computed per context, BT-Reg's transitive games solved
    /// with the fit's regularizer.
    ///
    /// # Errors
    /// [`FitError`] from a rule or the solver, naming the context.
    pub(crate) fn rule_policies<G: GameSet + ?Sized>(
        &self,
        rule: PolicyRule,
        surfaces: &G,
    ) -> Result<Vec<f64>, FitError> {
        let k = self.agents.len();
        if rule.is_global() {
            return self.global_policies(rule, surfaces.len());
        }
        let o = &self.options;
        let mut out = Vec::with_capacity(surfaces.len() * k);
        let mut games = Vec::new();
        let mut slots = Vec::new();
        let mut a = Vec::with_capacity(k * k);
        for i in 0..surfaces.len() {
            let game = surfaces.game(i);
            a.clear();
            (0..k).for_each(|j| a.extend_from_slice(game.row(j)));
            match rule_policy(rule, &a, k, &o.costs, o.budget)? {
                RulePolicy::Ready(pi) => out.extend(pi),
                RulePolicy::Solve(game) => {
                    slots.push(i);
                    games.push(game);
                    out.extend(std::iter::repeat_n(0.0, k));
                }
            }
        }
        for (&i, lottery) in slots.iter().zip(self.equilibrium().solve_all(&games)) {
            let lottery = lottery.map_err(|e| FitError::Solver {
                context: i,
                message: e.to_string(),
            })?;
            out[i * k..(i + 1) * k].copy_from_slice(&lottery.probabilities);
        }
        Ok(out)
    }

    /// Policies at `features` given their payoff games; for the solver also each
    /// equilibrium's certified gap.
    pub(crate) fn policies_for_games<G: GameSet + ?Sized>(
        &self,
        features: &[f64],
        games: &G,
    ) -> Result<(Vec<f64>, Option<Vec<f64>>), FitError> {
        if let Some(network) = &self.network {
            return Ok((network.predict(features), None));
        }
        let (policies, gaps) = self.solve(games)?;
        Ok((policies, Some(gaps)))
    }

    /// The equilibrium problem of the fit's settings ([`Equilibrium::new`]: `rho`, the
    /// costs, a hard or soft budget).
    pub fn equilibrium(&self) -> Equilibrium {
        let o = &self.options;
        Equilibrium::new(o.rho, o.costs.clone(), o.budget, o.soft_budget)
    }

    /// The regularized (and budgeted, when asked) equilibrium of every game
    /// (`contexts × K`) and each one's certified gap, [`SOLVER_CHUNK`] games held at
    /// a time.
    fn solve<G: GameSet + ?Sized>(&self, games: &G) -> Result<(Vec<f64>, Vec<f64>), FitError> {
        let equilibrium = self.equilibrium();
        let mut out = Vec::with_capacity(games.len() * self.agents.len());
        let mut gaps = Vec::with_capacity(games.len());
        for start in (0..games.len()).step_by(SOLVER_CHUNK) {
            let chunk = games.games(start..games.len().min(start + SOLVER_CHUNK));
            for (i, lottery) in equilibrium.solve_all(&chunk).into_iter().enumerate() {
                let lottery = lottery.map_err(|e| FitError::Solver {
                    context: start + i,
                    message: e.to_string(),
                })?;
                out.extend(lottery.probabilities);
                gaps.push(lottery.gap);
            }
        }
        Ok((out, gaps))
    }

    /// This model with `policy` as its policy, on the same payoff surface: a network
    /// trained on the surface's games at the training contexts `features` (as
    /// [`crate::fit_prepared`] trains it, collapse rescue included), or the per-context
    /// solver. The model is consumed and a new one returned, so a fitted model is never
    /// changed in place; used to score both policies of one surface without fitting
    /// the surface twice.
    ///
    /// # Errors
    /// [`FitError`] when the network policy is asked for with `rho = 0`, or the solver
    /// fails on a context.
    pub fn with_policy(
        mut self,
        policy: PolicyKind,
        features: &[f64],
        progress: &dyn Fn(Stage, usize, usize),
    ) -> Result<Self, FitError> {
        match policy {
            PolicyKind::Solver => {
                self.network = None;
                self.options.policy = PolicyKind::Solver;
                self.summary.training = None;
                self.summary.collapsed_training = None;
                self.summary.solver_fallback = false;
            }
            PolicyKind::Network => {
                if self.options.rho <= 0.0 {
                    return Err(FitError::setting(
                        "rho",
                        "the network policy needs rho > 0 (a strongly convex regularizer)",
                    ));
                }
                let games = payoff_matrices(&self.payoffs(features), self.agents.len());
                return self.with_trained_network(features, &games, progress);
            }
        }
        Ok(self)
    }
}
