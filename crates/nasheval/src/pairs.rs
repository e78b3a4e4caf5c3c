//! The pairs of a menu catalogue: every unordered pair `j < k` of agents, the menus
//! `Q_jk` that hold it (NashEval Section 4) and where its verdict sits in each menu.

use serde::{Deserialize, Serialize};

use crate::aggregator::Aggregator;

/// One place a pair is compared: menu `menu`, the pair's positions `first < second`
/// in that menu, and the menu's `slot` (its index among the menu's own pairs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PairHolder {
    /// Menu index in the catalogue.
    pub menu: usize,
    /// Position of agent `j` in the menu.
    pub first: usize,
    /// Position of agent `k` in the menu.
    pub second: usize,
    /// This (menu, pair)'s column of the outcome nuisances `mu^m_jk`
    /// ([`crate::Nuisances::outcome`]): `menu`'s pairs are numbered
    /// consecutively over the catalogue.
    #[serde(rename = "outcome")]
    pub column: usize,
}

/// How the menus of one pair are combined (Appendix F.2); a pair held by one menu
/// always uses the identity.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum AggregatorKind {
    /// The mean over the pair's menus (Eq. 49, uniform weights).
    Mean,
    /// The cubic link of Eq. 50–51 with curvature `alpha`, uniform weights.
    Cubic(f64),
}

impl std::str::FromStr for AggregatorKind {
    type Err = String;

    /// `mean`, or `cubic:ALPHA` with `ALPHA >= 0`.
    fn from_str(text: &str) -> Result<Self, String> {
        match text.split_once(':') {
            None if text == "mean" => Ok(Self::Mean),
            Some(("cubic", alpha)) => alpha
                .parse()
                .ok()
                .filter(|a: &f64| a.is_finite() && *a >= 0.0)
                .map(Self::Cubic)
                .ok_or_else(|| format!("cubic:{alpha}: alpha must be a number >= 0")),
            _ => Err(format!("{text}: use mean or cubic:ALPHA")),
        }
    }
}

impl std::fmt::Display for AggregatorKind {
    /// The text [`AggregatorKind::from_str`](std::str::FromStr) reads back.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Mean => f.write_str("mean"),
            Self::Cubic(alpha) => write!(f, "cubic:{alpha}"),
        }
    }
}

/// Pairs of a catalogue, with their menus and aggregators.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairMap {
    /// Number of agents `K`.
    pub agents: usize,
    /// Every pair `(j, k)`, `j < k`, lexicographic.
    pub pairs: Vec<(usize, usize)>,
    /// For each pair, the menus holding it (catalogue order).
    pub holders: Vec<Vec<PairHolder>>,
    /// For each pair, its aggregator over `holders`.
    pub aggregators: Vec<Aggregator>,
    /// For each menu, its (pair, holder) entries in slot order.
    #[serde(rename = "menu_outcomes")]
    pub menu_pairs: Vec<Vec<(usize, PairHolder)>>,
    /// Number of (menu, pair) columns of the outcome nuisances over the catalogue.
    #[serde(rename = "outcomes")]
    pub columns: usize,
}

impl PairMap {
    /// The pairs of `menus` (each sorted by agent index) over `agents` agents.
    ///
    /// # Errors
    /// A message naming the first pair that no menu holds: its payoff cannot be
    /// learned from this catalogue.
    pub fn new(agents: usize, menus: &[Vec<usize>], kind: AggregatorKind) -> Result<Self, String> {
        let pairs: Vec<(usize, usize)> = (0..agents)
            .flat_map(|j| (j + 1..agents).map(move |k| (j, k)))
            .collect();
        let index = |j: usize, k: usize| j * agents - j * (j + 1) / 2 + (k - j - 1);
        let mut holders = vec![Vec::new(); pairs.len()];
        let mut menu_pairs = vec![Vec::new(); menus.len()];
        let mut columns = 0;
        for (m, menu) in menus.iter().enumerate() {
            for first in 0..menu.len() {
                for second in first + 1..menu.len() {
                    let holder = PairHolder {
                        menu: m,
                        first,
                        second,
                        column: columns,
                    };
                    columns += 1;
                    let p = index(menu[first], menu[second]);
                    holders[p].push(holder);
                    menu_pairs[m].push((p, holder));
                }
            }
        }
        if let Some(p) = holders.iter().position(Vec::is_empty) {
            return Err(format!(
                "no menu compares agents {} and {}; every pair needs a menu holding it",
                pairs[p].0, pairs[p].1
            ));
        }
        let aggregators = holders
            .iter()
            .map(|h| match (h.len(), kind) {
                (1, _) => Aggregator::Identity,
                (n, AggregatorKind::Mean) => Aggregator::uniform(n),
                (n, AggregatorKind::Cubic(alpha)) => Aggregator::Cubic {
                    alpha,
                    weights: vec![1.0 / n as f64; n],
                },
            })
            .collect();
        Ok(Self {
            agents,
            pairs,
            holders,
            aggregators,
            menu_pairs,
            columns,
        })
    }

    /// Writes the `K × K` payoff matrix of one context from its upper-triangle pair
    /// values: clipped to `[-1, 1]`, `A_kj = -A_jk`, zero diagonal (Algorithm 1, line
    /// 17).
    pub fn matrix_into(&self, pair_values: &[f64], out: &mut [f64]) {
        let k = self.agents;
        out.fill(0.0);
        for (&(a, b), &v) in self.pairs.iter().zip(pair_values) {
            let v = v.clamp(-1.0, 1.0);
            out[a * k + b] = v;
            out[b * k + a] = -v;
        }
    }
}
