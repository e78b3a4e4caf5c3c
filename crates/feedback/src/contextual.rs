//! A contextual feedback log (NashEval Section 4): contexts with features, a menu
//! catalogue Q, and for every context the menus it has feedback on (`S^m_i = 1`) with
//! the verdict matrix `Z^m` of that feedback, averaged when one (context, menu) was
//! judged more than once.

use std::collections::HashMap;

use crate::{FeedbackError, Response};

/// Feedback on one menu at one context, averaged over repeats.
#[derive(Debug, Clone, PartialEq)]
pub struct MenuFeedback {
    /// Context index.
    pub context: usize,
    /// Menu index in the catalogue.
    pub menu: usize,
    /// Mean verdicts `Z^m_jk` over the repeats, `|m| × |m|` row-major in menu order.
    pub verdicts: Vec<f64>,
    /// Number of responses averaged.
    pub responses: usize,
    /// The probability with which this menu was offered at this context, when the log
    /// records it (a router's decision log does: `verdict fit --propensity-col`);
    /// NashEval's debiased payoff then divides by it instead of a learned `e^m(x)`.
    pub logged_propensity: Option<f64>,
}

/// Contexts, catalogue and observed feedback.
#[derive(Debug, Clone, PartialEq)]
pub struct ContextualLog {
    /// Agent names; menus hold indices into it.
    pub agents: Vec<String>,
    /// Context ids, in order.
    pub contexts: Vec<String>,
    /// Names of the feature columns.
    pub feature_names: Vec<String>,
    /// Features, contexts × features row-major.
    pub features: Vec<f64>,
    /// The menu catalogue Q: each menu's agents, sorted by index.
    pub menus: Vec<Vec<usize>>,
    /// Observed (context, menu) pairs, sorted by context then menu.
    pub feedback: Vec<MenuFeedback>,
}

impl ContextualLog {
    /// The pairs `(j, k)`, `j < k`, that no menu of the catalogue holds: their payoff
    /// cannot be identified from this log (positivity fails).
    pub fn unheld_pairs(&self) -> Vec<(usize, usize)> {
        let k = self.agents.len();
        let mut held = vec![false; k * k];
        for menu in &self.menus {
            for (a, &j) in menu.iter().enumerate() {
                for &l in &menu[a + 1..] {
                    held[j * k + l] = true;
                    held[l * k + j] = true;
                }
            }
        }
        (0..k)
            .flat_map(|j| (j + 1..k).map(move |l| (j, l)))
            .filter(|&(j, l)| !held[j * k + l])
            .collect()
    }

    /// Adds a two-agent menu, with no feedback, for every pair no menu holds, and
    /// returns those pairs. A learner that pools over agents (NashEval's pooled
    /// outcome model) can then extrapolate their payoffs; nothing in the log
    /// supports those values, so callers should say so.
    pub fn hold_every_pair(&mut self) -> Vec<(usize, usize)> {
        let unheld = self.unheld_pairs();
        self.menus.extend(unheld.iter().map(|&(j, l)| vec![j, l]));
        unheld
    }

    /// `S^m_i`: whether context `i` has feedback on menu `m`.
    pub fn selected(&self, context: usize, menu: usize) -> bool {
        self.feedback
            .binary_search_by(|f| (f.context, f.menu).cmp(&(context, menu)))
            .is_ok()
    }
}

/// One menu of a [`LogSummary`].
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct MenuSummary {
    /// The menu's agents, by name.
    pub agents: Vec<String>,
    /// Contexts with feedback on the menu.
    pub contexts: usize,
    /// `contexts` over all contexts: the menu's selection rate.
    pub selection_rate: f64,
    /// Responses on the menu.
    pub responses: usize,
}

/// What a contextual log holds, for a person checking it before a fit.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct LogSummary {
    /// Contexts.
    pub contexts: usize,
    /// Agent names.
    pub agents: Vec<String>,
    /// Feature names.
    pub features: Vec<String>,
    /// Observed (context, menu) pairs.
    pub observed_context_menus: usize,
    /// Responses in all.
    pub responses: usize,
    /// Menu by menu, in catalogue order.
    pub menus: Vec<MenuSummary>,
    /// Pairs of agents no menu holds ([`ContextualLog::unheld_pairs`]), by name.
    pub unmet_pairs: Vec<[String; 2]>,
}

impl ContextualLog {
    /// Counts per menu and overall.
    pub fn summary(&self) -> LogSummary {
        let mut per_menu = vec![(0usize, 0usize); self.menus.len()];
        for f in &self.feedback {
            per_menu[f.menu].0 += 1;
            per_menu[f.menu].1 += f.responses;
        }
        let name = |a: usize| self.agents[a].clone();
        LogSummary {
            contexts: self.contexts.len(),
            agents: self.agents.clone(),
            features: self.feature_names.clone(),
            observed_context_menus: self.feedback.len(),
            responses: self.feedback.iter().map(|f| f.responses).sum(),
            menus: self
                .menus
                .iter()
                .zip(per_menu)
                .map(|(menu, (contexts, responses))| MenuSummary {
                    agents: menu.iter().map(|&a| name(a)).collect(),
                    contexts,
                    selection_rate: contexts as f64 / self.contexts.len() as f64,
                    responses,
                })
                .collect(),
            unmet_pairs: self
                .unheld_pairs()
                .into_iter()
                .map(|(j, k)| [name(j), name(k)])
                .collect(),
        }
    }
}

/// Builds a [`ContextualLog`] record by record: menus named by agent names are
/// interned into the catalogue (or must be in a given one), responses are converted
/// to verdicts (NashEval Eq. 2–3) and repeats averaged.
#[derive(Debug, Default)]
pub struct ContextualLogBuilder {
    agents: Vec<String>,
    agent_index: HashMap<String, usize>,
    fixed_catalogue: bool,
    menus: Vec<Vec<usize>>,
    menu_index: HashMap<Vec<usize>, usize>,
    sums: HashMap<(usize, usize), (Vec<f64>, usize)>,
    propensities: HashMap<(usize, usize), f64>,
}

impl ContextualLogBuilder {
    /// A builder that infers agents and menus from the records.
    pub fn new() -> Self {
        Self::default()
    }

    /// A builder with the catalogue Q given: records on other menus are refused.
    ///
    /// # Errors
    /// A menu that is invalid (fewer than two agents, an agent twice).
    pub fn with_catalogue(menus: &[Vec<String>]) -> Result<Self, FeedbackError> {
        let mut builder = Self::new();
        for menu in menus {
            builder.menu_of(menu)?;
        }
        builder.fixed_catalogue = true;
        Ok(builder)
    }

    /// The catalogue index of `menu` (agent names in any order), adding it if the
    /// catalogue is inferred.
    ///
    /// # Errors
    /// [`FeedbackError`] for fewer than two agents, an agent twice, or (with a given
    /// catalogue) an unknown agent or menu.
    pub fn menu_of(&mut self, menu: &[String]) -> Result<usize, FeedbackError> {
        if menu.len() < 2 {
            return Err(FeedbackError(format!(
                "the menu {menu:?} has {} agent(s); a comparison needs at least two",
                menu.len()
            )));
        }
        let mut ids = Vec::with_capacity(menu.len());
        for name in menu {
            let id = match self.agent_index.get(name) {
                Some(&id) => id,
                None if self.fixed_catalogue => {
                    return Err(FeedbackError(format!(
                        "agent {name:?} is in no menu of the catalogue"
                    )))
                }
                None => {
                    self.agents.push(name.clone());
                    self.agent_index.insert(name.clone(), self.agents.len() - 1);
                    self.agents.len() - 1
                }
            };
            if ids.contains(&id) {
                return Err(FeedbackError(format!(
                    "the menu {menu:?} lists {name:?} twice"
                )));
            }
            ids.push(id);
        }
        ids.sort_unstable();
        if let Some(&m) = self.menu_index.get(&ids) {
            return Ok(m);
        }
        if self.fixed_catalogue {
            return Err(FeedbackError(format!(
                "the menu {menu:?} is not in the catalogue; add it or infer the catalogue from the log"
            )));
        }
        self.menus.push(ids.clone());
        self.menu_index.insert(ids, self.menus.len() - 1);
        Ok(self.menus.len() - 1)
    }

    /// Adds one response on `menu` at context index `context`.
    ///
    /// # Errors
    /// [`FeedbackError`] from the menu ([`Self::menu_of`]) or the response (see
    /// [`Response::to_partition`]).
    pub fn add(
        &mut self,
        context: usize,
        menu: &[String],
        response: &Response,
    ) -> Result<(), FeedbackError> {
        let m = self.menu_of(menu)?;
        self.add_to_menu(context, m, response)
    }

    /// Adds one response on catalogue menu `menu` (from [`Self::menu_of`]).
    ///
    /// # Errors
    /// [`FeedbackError`] from the response (see [`Response::to_partition`]).
    pub fn add_to_menu(
        &mut self,
        context: usize,
        menu: usize,
        response: &Response,
    ) -> Result<(), FeedbackError> {
        // Verdicts in catalogue order (agents sorted by index).
        let ordered: Vec<String> = self.menus[menu]
            .iter()
            .map(|&a| self.agents[a].clone())
            .collect();
        let partition = response.to_partition(&ordered)?;
        let z = partition.verdict_matrix();
        let (sum, count) = self
            .sums
            .entry((context, menu))
            .or_insert_with(|| (vec![0.0; z.len()], 0));
        for (s, v) in sum.iter_mut().zip(z) {
            *s += f64::from(v);
        }
        *count += 1;
        Ok(())
    }

    /// Records that menu `menu` was offered at context index `context` with
    /// probability `propensity` (in (0, 1]); every record of one (context, menu) must
    /// give the same value.
    ///
    /// # Errors
    /// [`FeedbackError`] for a value outside (0, 1] or one that differs from the value
    /// already recorded for this (context, menu).
    pub fn log_propensity(
        &mut self,
        context: usize,
        menu: usize,
        propensity: f64,
    ) -> Result<(), FeedbackError> {
        if !(propensity > 0.0 && propensity <= 1.0) {
            return Err(FeedbackError(format!(
                "propensity {propensity} is not a probability in (0, 1]: it is the probability with which the menu was offered"
            )));
        }
        match self.propensities.insert((context, menu), propensity) {
            Some(before) if before != propensity => Err(FeedbackError(format!(
                "propensity {propensity} differs from {before}, given for the same context and menu earlier; one offer has one probability"
            ))),
            _ => Ok(()),
        }
    }

    /// The log over `contexts` (ids) with their features.
    pub fn finish(
        self,
        contexts: Vec<String>,
        feature_names: Vec<String>,
        features: Vec<f64>,
    ) -> ContextualLog {
        let mut feedback: Vec<MenuFeedback> = self
            .sums
            .into_iter()
            .map(|((context, menu), (sum, responses))| MenuFeedback {
                context,
                menu,
                verdicts: sum.iter().map(|s| s / responses as f64).collect(),
                responses,
                logged_propensity: self.propensities.get(&(context, menu)).copied(),
            })
            .collect();
        feedback.sort_by_key(|f| (f.context, f.menu));
        ContextualLog {
            agents: self.agents,
            contexts,
            feature_names,
            features,
            menus: self.menus,
            feedback,
        }
    }
}
