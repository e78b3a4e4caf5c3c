//! Who wins where: the share of contexts of each category of a context attribute whose
//! winner is each agent (NashEval Figure 4: rows are categories, columns agents).

use serde::{Deserialize, Serialize};

/// Probabilities within this of a context's largest count as its winners too; tied
/// winners split the context evenly.
pub const WINNER_TOLERANCE: f64 = 1e-9;

/// Winner shares by category.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WinnerFrequency {
    /// The agents, column order.
    pub agents: Vec<String>,
    /// The categories, sorted.
    pub categories: Vec<String>,
    /// Contexts per category.
    pub contexts: Vec<usize>,
    /// `shares[c][k]`: the share of category `c`'s contexts whose winner is agent `k`
    /// (the agent of largest probability; ties split). Each row sums to 1.
    pub shares: Vec<Vec<f64>>,
}

impl WinnerFrequency {
    /// The shares of `policies` (`contexts × K`, row-major, one distribution per
    /// context), context `i` in category `categories[i]`.
    ///
    /// # Panics
    /// When `policies` does not hold one row of `agents.len()` per category label.
    pub fn new(agents: &[String], categories: &[String], policies: &[f64]) -> Self {
        let k = agents.len();
        assert_eq!(
            policies.len(),
            categories.len() * k,
            "one policy of K probabilities per context"
        );
        let mut names: Vec<String> = categories.to_vec();
        names.sort();
        names.dedup();
        let mut contexts = vec![0usize; names.len()];
        let mut shares = vec![vec![0.0; k]; names.len()];
        for (label, policy) in categories.iter().zip(policies.chunks_exact(k.max(1))) {
            let c = names
                .binary_search(label)
                .expect("every label is a category");
            contexts[c] += 1;
            let best = policy.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let winners: Vec<usize> = (0..k)
                .filter(|&a| policy[a] >= best - WINNER_TOLERANCE)
                .collect();
            for &a in &winners {
                shares[c][a] += 1.0 / winners.len() as f64;
            }
        }
        for (row, &n) in shares.iter_mut().zip(&contexts) {
            row.iter_mut().for_each(|s| *s /= n as f64);
        }
        Self {
            agents: agents.to_vec(),
            categories: names,
            contexts,
            shares,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_count_each_contexts_argmax_and_split_ties() {
        let agents = vec!["a".to_string(), "b".to_string(), "c".to_string()];
        let categories: Vec<String> = ["en", "fr", "en", "en"].map(String::from).to_vec();
        #[rustfmt::skip]
        let policies = [
            0.6, 0.3, 0.1,   // en: a
            0.1, 0.1, 0.8,   // fr: c
            0.2, 0.5, 0.3,   // en: b
            0.4, 0.4, 0.2,   // en: a and b tie
        ];
        let w = WinnerFrequency::new(&agents, &categories, &policies);
        assert_eq!(w.categories, ["en", "fr"]);
        assert_eq!(w.contexts, [3, 1]);
        // en: a wins 1 + 1/2 of 3 contexts, b 1/2 + 1, c none.
        assert_eq!(w.shares[0], [0.5, 0.5, 0.0]);
        assert_eq!(w.shares[1], [0.0, 0.0, 1.0]);
    }
}
