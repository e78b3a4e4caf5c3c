//! Routing one context with a fitted NashEval model: the policy `pi(x)` (the model's
//! own, or re-solved under a request's cost budget), a model — or a menu of models
//! to compare — drawn from it reproducibly per request id, and the exact probability
//! with which that menu was offered, so that a log of routed decisions is a NashEval
//! log whose propensities are known (NashEval §3: the menu's selection probability
//! `e(m | x)` enters the debiased payoff only through its inverse).
//!
//! What `verdict serve` answers on `/v1/route` and uses in `/v1/chat/completions`.

use rand::{Rng, SeedableRng};
use verdict_game::Equilibrium;
use verdict_nasheval::{payoff_matrices, NashEvalModel};

use crate::VerdictError;

/// How the routed model is picked from `pi(x)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RouteRule {
    /// A draw from `pi(x)`, seeded by the request's draw seed (a server's own, fresh
    /// for every request): over many requests the models come up with frequencies
    /// `pi(x)` — a mixed equilibrium is only unexploitable when it is played as a
    /// mixture.
    Sample,
    /// The model of highest probability (the first in agent order among equals): the
    /// same answer for every request of this context.
    Argmax,
}

/// A cost limit for one request, solved with the cost-aware equilibrium of
/// [`Equilibrium`] on the context's payoff matrix `Â(x)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RouteBudget {
    /// Both players held to `c^T pi <= limit` (NashEval Eq. 54–55).
    MaxCost(f64),
    /// The costs as a linear price of strength `lambda`: the equilibrium of
    /// `Â(x) − λ(1 c^T − c 1^T)` (NashEval Eq. 20, regularized by the model's `rho`).
    Surcharge(f64),
}

/// One routing request.
#[derive(Debug, Clone, PartialEq)]
pub struct RouteRequest {
    /// How the model is picked.
    pub rule: RouteRule,
    /// A cost limit; `None` plays the model's own policy, as `verdict predict` gives it.
    pub budget: Option<RouteBudget>,
    /// How many distinct models to offer: 1 routes, 2 asks for a duel (a pairwise
    /// comparison whose verdict can feed the next fit).
    pub menu_size: usize,
    /// Names the request in the decision log and the answer.
    pub request_id: String,
    /// Seeds the draw of a `sample` rule: the same seed, the same draw. A server
    /// gives every request a fresh one (never derived from what a client sends), so
    /// each draw is independent as the logged propensities say.
    pub draw_seed: u64,
    /// The exploration share `ε ∈ [0, 1]`: with probability `ε` the menu is drawn
    /// uniformly — one of the `K` agents, or one of the `K(K−1)/2` pairs — instead of
    /// by the rule, so every menu is offered with probability at least
    /// [`exploration_floor`] and a decision log covers every agent and pair.
    pub explore: f64,
    /// A per-call cap: no agent whose cost is above it is ever chosen — not routed,
    /// explored or fallen back to. `pi(x)` is then the equilibrium of `Â(x)` among the
    /// agents within the cap (under the budget too, when one is given).
    pub cost_cap: Option<f64>,
}

/// The smallest probability with which exploration `explore` offers any menu of
/// `menu_size` among `agents` (those within a request's cost cap): `ε / K` for one
/// model, `ε / (K(K−1)/2)` for a duel.
pub fn exploration_floor(explore: f64, agents: usize, menu_size: usize) -> f64 {
    let menus = if menu_size == 2 {
        agents * agents.saturating_sub(1) / 2
    } else {
        agents
    };
    if menus == 0 {
        0.0
    } else {
        explore / menus as f64
    }
}

/// A routing decision.
#[derive(Debug, Clone, PartialEq)]
pub struct Route {
    /// `pi(x)`, in agent order.
    pub probabilities: Vec<f64>,
    /// The agents offered, as indices; the first is the routed model.
    pub menu: Vec<usize>,
    /// The probability that this menu (as a set) was offered: `(1 − ε) r(menu) + ε u`,
    /// `u` the uniform menu's (`1/K`, or `2/(K(K−1))` for a duel) and `r` the rule's:
    /// for `sample`, `pi_j` for one model and, for a duel drawn without replacement,
    /// `pi_j q_k|j + pi_k q_j|k` with `q_k|j = pi_k / Σ_{l≠j} pi_l`; for `argmax`, 1
    /// for its menu and 0 for any other.
    pub propensity: f64,
    /// `c^T pi`, when costs are known.
    pub expected_cost: Option<f64>,
    /// Each agent's probability of being the routed model (the menu's first) under
    /// the rule mixed with exploration: `(1 − ε) r(a) + ε u(a)`, `r` the rule's (`pi_a`
    /// for `sample`, 1 at the argmax for `argmax`) and `u` uniform over the agents
    /// within the cap. The logging policy an off-policy evaluation reweights by.
    pub routed_probabilities: Vec<f64>,
    /// The agents by falling probability after the routed one (ties in agent order):
    /// where a router turns when the routed model fails.
    pub fallbacks: Vec<usize>,
}

/// Routes one context, given as one row of `features` in the model's feature order;
/// `costs` are per agent in agent order (empty: none known).
///
/// # Errors
/// [`VerdictError::Settings`] for a budget without costs, a menu larger than the
/// catalogue or of size 0, a negative or non-finite limit; [`VerdictError::Game`] for
/// a budget below the cheapest model; the policy's errors.
pub fn route(
    model: &NashEvalModel,
    features: &[f64],
    costs: &[f64],
    request: &RouteRequest,
) -> Result<Route, VerdictError> {
    let agents = model.agents.len();
    if request.menu_size == 0 || request.menu_size > agents.min(2) {
        return Err(VerdictError::Settings(format!(
            "menu_size {} is not offered: 1 routes to one model, 2 asks for a duel (the model has {agents} agents)",
            request.menu_size
        )));
    }
    if !costs.is_empty() && costs.len() != agents {
        return Err(VerdictError::Settings(format!(
            "{} costs for {agents} agents",
            costs.len()
        )));
    }
    let allowed = within_cap(costs, request.cost_cap, agents)?;
    if request.menu_size > allowed.len() {
        return Err(VerdictError::Settings(format!(
            "a duel needs two models within the cost cap, and {} costs at most {}",
            allowed.len(),
            request.cost_cap.unwrap_or(f64::INFINITY)
        )));
    }
    let mut eligible = vec![false; agents];
    allowed.iter().for_each(|&j| eligible[j] = true);
    let probabilities = match (request.budget, request.cost_cap) {
        (None, None) => model.policy(features)?,
        (budget, _) => solved_policy(model, features, costs, budget, &allowed)?,
    };
    if !(0.0..=1.0).contains(&request.explore) {
        return Err(VerdictError::Settings(format!(
            "explore {} is not a share: give a number from 0 (never) to 1 (always a uniform menu)",
            request.explore
        )));
    }
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(request.draw_seed);
    let explored = request.explore > 0.0 && rng.random::<f64>() < request.explore;
    let menu = if explored {
        uniform_menu(&allowed, request.menu_size, &mut rng)
    } else {
        rule_menu(&probabilities, &eligible, request, &mut rng)
    };
    let uniform = exploration_floor(1.0, allowed.len(), request.menu_size);
    let propensity = (1.0 - request.explore)
        * rule_propensity(&probabilities, &eligible, request, &menu)
        + request.explore * uniform;
    let first = menu[0];
    let best = argmax(&probabilities, &eligible);
    let routed_probabilities = (0..agents)
        .map(|a| {
            let rule = match request.rule {
                RouteRule::Sample => probabilities[a],
                RouteRule::Argmax => f64::from(u8::from(a == best)),
            };
            let uniform = if eligible[a] {
                1.0 / allowed.len() as f64
            } else {
                0.0
            };
            (1.0 - request.explore) * rule + request.explore * uniform
        })
        .collect();
    let expected_cost =
        (!costs.is_empty()).then(|| costs.iter().zip(&probabilities).map(|(c, p)| c * p).sum());
    let mut fallbacks: Vec<usize> = allowed.iter().copied().filter(|&j| j != first).collect();
    fallbacks.sort_by(|&a, &b| probabilities[b].total_cmp(&probabilities[a]));
    Ok(Route {
        probabilities,
        menu,
        propensity,
        expected_cost,
        fallbacks,
        routed_probabilities,
    })
}

/// The agents a request may be routed to: those whose cost is at most its cap, or all.
///
/// # Errors
/// [`VerdictError::Settings`] for a cap without costs, a cap that is not a finite
/// number ≥ 0, or one below every cost.
fn within_cap(costs: &[f64], cap: Option<f64>, agents: usize) -> Result<Vec<usize>, VerdictError> {
    let Some(cap) = cap else {
        return Ok((0..agents).collect());
    };
    if costs.is_empty() {
        return Err(VerdictError::Settings(NO_COSTS.into()));
    }
    if !(cap.is_finite() && cap >= 0.0) {
        return Err(VerdictError::Settings(format!(
            "a cost cap of {cap}: give a finite number ≥ 0"
        )));
    }
    let allowed: Vec<usize> = (0..agents).filter(|&j| costs[j] <= cap).collect();
    if allowed.is_empty() {
        let cheapest = costs.iter().copied().fold(f64::INFINITY, f64::min);
        return Err(VerdictError::Settings(format!(
            "no model costs at most {cap} (the cheapest costs {cheapest}); raise the cap"
        )));
    }
    Ok(allowed)
}

/// What a budget or a cap without the models' costs is told.
const NO_COSTS: &str = "a budget or a cost cap needs each model's cost: give the server costs (an upstreams file with a cost per model) or fit the model with --costs";

/// `pi(x)` re-solved on the context's `Â(x)` among the `allowed` agents (zero for the
/// others), under a request's budget when it has one.
fn solved_policy(
    model: &NashEvalModel,
    features: &[f64],
    costs: &[f64],
    budget: Option<RouteBudget>,
    allowed: &[usize],
) -> Result<Vec<f64>, VerdictError> {
    let agents = model.agents.len();
    let payoffs = model.payoffs(features);
    let game = payoff_matrices(&payoffs, agents)
        .pop()
        .ok_or_else(|| VerdictError::Data("no context to route".into()))?;
    let values: Vec<f64> = allowed
        .iter()
        .flat_map(|&j| allowed.iter().map(move |&l| (j, l)))
        .map(|(j, l)| game.get(j, l))
        .collect();
    let game = verdict_game::PayoffMatrix::from_row_major(&values, allowed.len())?;
    let costs: Vec<f64> = if costs.is_empty() {
        Vec::new()
    } else {
        allowed.iter().map(|&j| costs[j]).collect()
    };
    let restricted = match budget {
        None => {
            Equilibrium::new(model.options.rho, Vec::new(), None, None)
                .solve(&game)?
                .probabilities
        }
        Some(budget) => budgeted_policy(model.options.rho, &game, &costs, budget)?,
    };
    let mut probabilities = vec![0.0; agents];
    for (&j, p) in allowed.iter().zip(restricted) {
        probabilities[j] = p;
    }
    Ok(probabilities)
}

/// The equilibrium of `game` under a request's budget, `costs` its agents' costs.
fn budgeted_policy(
    rho: f64,
    game: &verdict_game::PayoffMatrix,
    costs: &[f64],
    budget: RouteBudget,
) -> Result<Vec<f64>, VerdictError> {
    if costs.is_empty() {
        return Err(VerdictError::Settings(NO_COSTS.into()));
    }
    let dearest = costs.iter().copied().fold(0.0, f64::max);
    let problem = match budget {
        RouteBudget::MaxCost(limit) if limit.is_finite() && limit >= 0.0 => {
            Equilibrium::new(rho, costs.to_vec(), Some(limit), None)
        }
        RouteBudget::Surcharge(lambda)
            if lambda.is_finite() && lambda >= 0.0 && lambda * dearest <= MAX_SURCHARGE =>
        {
            Equilibrium::new(rho, costs.iter().map(|c| lambda * c).collect(), None, None)
        }
        RouteBudget::Surcharge(lambda) if lambda.is_finite() && lambda >= 0.0 => {
            return Err(VerdictError::Settings(format!(
                "a surcharge of {lambda} makes the dearest model's charge {} where payoffs lie in [-1, 1]; give a surcharge of at most {} (charges of at most {MAX_SURCHARGE:e})",
                lambda * dearest,
                MAX_SURCHARGE / dearest
            )))
        }
        RouteBudget::MaxCost(x) | RouteBudget::Surcharge(x) => {
            return Err(VerdictError::Settings(format!(
                "a budget of {x}: give a finite number ≥ 0"
            )))
        }
    };
    let probabilities = problem.solve(game)?.probabilities;
    let total: f64 = probabilities.iter().sum();
    if probabilities.iter().any(|p| !(p.is_finite() && *p >= 0.0)) || (total - 1.0).abs() > 1e-6 {
        return Err(VerdictError::Data(format!(
            "the budgeted game's solver gave no distribution (sum {total}); give a smaller surcharge or another limit"
        )));
    }
    Ok(probabilities)
}

/// The largest charge a surcharge may put on a model (λ × its cost), against payoffs
/// in [-1, 1]: past it every model but the cheapest is priced out long before, and
/// the solver's arithmetic loses the payoffs (a surcharge of 1e100 answered 500).
pub const MAX_SURCHARGE: f64 = 1e6;

/// The first index of the largest probability among the `eligible` agents.
fn argmax(probabilities: &[f64], eligible: &[bool]) -> usize {
    argmax_except(probabilities, eligible, usize::MAX)
}

/// The first index of the largest probability among the `eligible` agents other than
/// `skip`.
fn argmax_except(probabilities: &[f64], eligible: &[bool], skip: usize) -> usize {
    let mut best = usize::MAX;
    for (j, &p) in probabilities.iter().enumerate() {
        if j != skip && eligible[j] && (best == usize::MAX || p > probabilities[best]) {
            best = j;
        }
    }
    best
}

/// The weight of `j` in a draw that excludes `skip` and the agents not `eligible`: its
/// probability, or — when the others hold no mass (`pi_skip = 1`) — the same for every
/// other eligible agent.
fn weights(probabilities: &[f64], eligible: &[bool], skip: Option<usize>) -> Vec<f64> {
    let kept = |j: usize| Some(j) != skip && eligible[j];
    let mass: f64 = (0..probabilities.len())
        .filter(|&j| kept(j))
        .map(|j| probabilities[j].max(0.0))
        .sum();
    (0..probabilities.len())
        .map(|j| match (kept(j), mass > 1e-12) {
            (false, _) => 0.0,
            (true, true) => probabilities[j].max(0.0) / mass,
            (true, false) => 1.0,
        })
        .collect()
}

/// `q_k|j`: the probability that the second draw is `k` when the first was `j`.
fn second_given_first(
    probabilities: &[f64],
    eligible: &[bool],
    first: usize,
    second: usize,
) -> f64 {
    let w = weights(probabilities, eligible, Some(first));
    w[second] / w.iter().sum::<f64>()
}

/// The menu the rule picks: the argmax (and the runner-up for a duel), or draws from
/// `pi(x)` (the second without replacement).
fn rule_menu(
    probabilities: &[f64],
    eligible: &[bool],
    request: &RouteRequest,
    rng: &mut impl Rng,
) -> Vec<usize> {
    let first = match request.rule {
        RouteRule::Argmax => argmax(probabilities, eligible),
        RouteRule::Sample => draw(probabilities, eligible, None, rng.random()),
    };
    let mut menu = vec![first];
    if request.menu_size == 2 {
        menu.push(match request.rule {
            RouteRule::Argmax => argmax_except(probabilities, eligible, first),
            RouteRule::Sample => draw(probabilities, eligible, Some(first), rng.random()),
        });
    }
    menu
}

/// The probability that the rule picks `menu` (as a set), before exploration.
fn rule_propensity(
    probabilities: &[f64],
    eligible: &[bool],
    request: &RouteRequest,
    menu: &[usize],
) -> f64 {
    match (request.rule, menu) {
        (RouteRule::Argmax, _) => {
            let mut picked = vec![argmax(probabilities, eligible)];
            if menu.len() == 2 {
                picked.push(argmax_except(probabilities, eligible, picked[0]));
            }
            let same = menu.iter().all(|j| picked.contains(j)) && picked.len() == menu.len();
            f64::from(u8::from(same))
        }
        (RouteRule::Sample, &[j]) => probabilities[j],
        (RouteRule::Sample, &[j, k]) => {
            probabilities[j] * second_given_first(probabilities, eligible, j, k)
                + probabilities[k] * second_given_first(probabilities, eligible, k, j)
        }
        (RouteRule::Sample, _) => 0.0,
    }
}

/// A uniformly drawn menu: one of the `allowed` agents, or two distinct ones (each
/// pair equally likely, in a random order).
fn uniform_menu(allowed: &[usize], menu_size: usize, rng: &mut impl Rng) -> Vec<usize> {
    let n = allowed.len();
    let first = rng.random_range(0..n);
    if menu_size < 2 {
        return vec![allowed[first]];
    }
    let second = (first + rng.random_range(1..n)) % n;
    vec![allowed[first], allowed[second]]
}

/// Inverse-CDF draw at `u ∈ [0, 1)` from the weights excluding `skip`; rounding at the
/// top end lands on the last agent of positive weight.
fn draw(probabilities: &[f64], eligible: &[bool], skip: Option<usize>, u: f64) -> usize {
    let w = weights(probabilities, eligible, skip);
    let target = u * w.iter().sum::<f64>();
    let mut cumulative = 0.0;
    let mut last = 0;
    for (j, &weight) in w.iter().enumerate() {
        if weight > 0.0 {
            cumulative += weight;
            last = j;
            if target < cumulative {
                return j;
            }
        }
    }
    last
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every agent eligible (no cost cap), for up to eight agents.
    const ALL: [bool; 8] = [true; 8];

    #[test]
    fn draws_follow_the_inverse_cdf() {
        let p = [0.2, 0.0, 0.5, 0.3];
        assert_eq!(draw(&p, &ALL, None, 0.0), 0);
        assert_eq!(draw(&p, &ALL, None, 0.19), 0);
        assert_eq!(draw(&p, &ALL, None, 0.21), 2);
        assert_eq!(draw(&p, &ALL, None, 0.69), 2);
        assert_eq!(draw(&p, &ALL, None, 0.71), 3);
        // Rounding at the top never lands on a zero-probability agent.
        assert_eq!(draw(&p, &ALL, None, 1.0 - 1e-17), 3);
        // Without agent 2: weights 0.4, 0, 0, 0.6.
        assert_eq!(draw(&p, &ALL, Some(2), 0.39), 0);
        assert_eq!(draw(&p, &ALL, Some(2), 0.41), 3);
    }

    /// Closed form: over every menu the explored propensities add up to 1, and none
    /// is below the floor `ε / (number of menus)`, for both rules and both menu sizes.
    #[test]
    fn explored_propensities_sum_to_one_and_keep_the_floor() {
        let p = [0.7, 0.3, 0.0, 0.0];
        for rule in [RouteRule::Sample, RouteRule::Argmax] {
            for menu_size in [1, 2] {
                for explore in [0.0, 0.2, 1.0] {
                    let request = RouteRequest {
                        rule,
                        budget: None,
                        menu_size,
                        request_id: "r".into(),
                        draw_seed: 0,
                        explore,
                        cost_cap: None,
                    };
                    let menus: Vec<Vec<usize>> = if menu_size == 1 {
                        (0..4).map(|j| vec![j]).collect()
                    } else {
                        (0..4)
                            .flat_map(|j| (j + 1..4).map(move |k| vec![j, k]))
                            .collect()
                    };
                    let floor = exploration_floor(explore, 4, menu_size);
                    let uniform = exploration_floor(1.0, 4, menu_size);
                    let mut total = 0.0;
                    for menu in &menus {
                        let e = (1.0 - explore) * rule_propensity(&p, &ALL, &request, menu)
                            + explore * uniform;
                        assert!(e >= floor - 1e-15, "{rule:?} {menu:?} {e} < {floor}");
                        total += e;
                    }
                    assert!(
                        (total - 1.0).abs() < 1e-12,
                        "{rule:?} {menu_size} {explore}: {total}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_duels_propensity_sums_to_one_over_all_pairs() {
        // Closed form: the unordered pairs' probabilities of a draw without
        // replacement add up to 1.
        for p in [
            vec![0.1, 0.2, 0.3, 0.4],
            vec![1.0, 0.0, 0.0],
            vec![0.5, 0.5, 0.0],
        ] {
            let k = p.len();
            let mut total = 0.0;
            for a in 0..k {
                for b in a + 1..k {
                    total += p[a] * second_given_first(&p, &ALL[..p.len()], a, b)
                        + p[b] * second_given_first(&p, &ALL[..p.len()], b, a);
                }
            }
            assert!((total - 1.0).abs() < 1e-12, "{p:?}: {total}");
        }
        // By hand: pi = (0.1, 0.2, 0.3, 0.4), pair {0, 3}:
        // 0.1 · 0.4/0.9 + 0.4 · 0.1/0.6 = 0.0444… + 0.0666… = 0.1111….
        let p = [0.1, 0.2, 0.3, 0.4];
        let pair = p[0] * second_given_first(&p, &ALL[..p.len()], 0, 3)
            + p[3] * second_given_first(&p, &ALL[..p.len()], 3, 0);
        assert!((pair - (0.04 / 0.9 + 0.04 / 0.6)).abs() < 1e-15);
    }

    #[test]
    fn argmax_takes_the_first_of_equals() {
        assert_eq!(argmax(&[0.25, 0.5, 0.5], &ALL[..3]), 1);
        assert_eq!(argmax_except(&[0.25, 0.5, 0.5], &ALL[..3], 1), 2);
    }
}
