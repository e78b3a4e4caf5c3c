//! α-Rank (Omidshafiei et al. 2019, "α-Rank: Multi-agent evaluation by evolution",
//! Sec. 3): the agents ranked by the mass an evolutionary process of a finite
//! population spends on each monomorphic state.

use crate::GameError;

/// α-Rank's settings, defaulting to those of OpenSpiel's `alpharank.compute`.
///
/// | Name | Default | Meaning | Range |
/// |---|---|---|---|
/// | `alpha` | 100 | selection intensity α | finite, > 0 |
/// | `population` | 50 | population size m | ≥ 2 |
#[derive(Debug, Clone, PartialEq)]
pub struct AlphaRank {
    /// Selection intensity α: 0 would be neutral drift, large α follows the payoffs.
    pub alpha: f64,
    /// Population size m.
    pub population: usize,
}

impl Default for AlphaRank {
    fn default() -> Self {
        Self {
            alpha: 100.0,
            population: 50,
        }
    }
}

impl AlphaRank {
    /// The stationary distribution of the single-population α-Rank chain of the
    /// symmetric game whose payoff to strategy r against s is `payoff[r][s]` (for an
    /// arena, the probability that r beats s). With the local selection model
    /// (OpenSpiel's default), a mutant r invading a population of s fixes with
    /// probability
    ///
    /// ```text
    /// rho_{r,s} = (1 - e^{-u}) / (1 - e^{-m u}),  u = alpha (M_rs - M_sr)   (1/m if u = 0),
    /// ```
    ///
    /// the chain moves from s to r with probability `rho_{r,s} / (K - 1)`, and the
    /// scores are its stationary distribution `pi`.
    ///
    /// The chain is solved by the Grassmann–Taksar–Heyman elimination (GTH, 1985),
    /// which subtracts nothing, carried out on logarithms: at large α the fixation
    /// probabilities of losing mutants fall to `e^{-m α}`, below the smallest double,
    /// where an eigenvector or a linear solve would lose the chain's smallest flows.
    ///
    /// # Errors
    /// [`GameError::Setting`] for α not finite and positive or m below 2; shape and
    /// value errors of the payoffs.
    pub fn stationary(&self, payoff: &[Vec<f64>]) -> Result<Vec<f64>, GameError> {
        if !(self.alpha.is_finite() && self.alpha > 0.0) {
            return Err(GameError::Setting {
                name: "alpha",
                value: self.alpha,
                expected: "a finite number above 0 (OpenSpiel's default is 100)",
            });
        }
        if self.population < 2 {
            return Err(GameError::Setting {
                name: "population",
                value: self.population as f64,
                expected: "at least 2 (OpenSpiel's default is 50)",
            });
        }
        let k = payoff.len();
        if k < 2 {
            return Err(GameError::TooFewAgents(k));
        }
        for (row, values) in payoff.iter().enumerate() {
            if values.len() != k {
                return Err(GameError::Shape {
                    rows: k,
                    row,
                    length: values.len(),
                });
            }
            if let Some(column) = values.iter().position(|x| !x.is_finite()) {
                return Err(GameError::NotFinite {
                    row,
                    column,
                    value: values[column],
                });
            }
        }
        let m = self.population as f64;
        let log_eta = -((k - 1) as f64).ln();
        // log_moves[s][r]: log probability of the move from s to r (r ≠ s).
        let log_moves: Vec<Vec<f64>> = (0..k)
            .map(|s| {
                (0..k)
                    .map(|r| {
                        let u = self.alpha * (payoff[r][s] - payoff[s][r]);
                        log_eta + log_fixation(u, m)
                    })
                    .collect()
            })
            .collect();
        Ok(stationary_by_gth(log_moves))
    }
}

/// `ln rho(u) = ln((1 - e^{-u}) / (1 - e^{-m u}))`, stable for every sign and size of
/// `u`: for `u < 0`, `ln(e^{x} - 1) = x + ln(1 - e^{-x})` with `x = -u`.
fn log_fixation(u: f64, m: f64) -> f64 {
    let log_one_minus_exp_minus = |x: f64| (-(-x).exp_m1()).ln(); // ln(1 - e^{-x}), x > 0
    if u.abs() < 1e-14 {
        -m.ln()
    } else if u > 0.0 {
        log_one_minus_exp_minus(u) - log_one_minus_exp_minus(m * u)
    } else {
        let x = -u;
        (x + log_one_minus_exp_minus(x)) - (m * x + log_one_minus_exp_minus(m * x))
    }
}

fn log_add(a: f64, b: f64) -> f64 {
    let (high, low) = if a >= b { (a, b) } else { (b, a) };
    if low == f64::NEG_INFINITY {
        return high;
    }
    high + (low - high).exp().ln_1p()
}

/// The stationary distribution of an irreducible chain given the logarithms of its
/// off-diagonal move probabilities (the diagonal is not read), by GTH elimination
/// (Grassmann, Taksar & Heyman 1985) in log space.
fn stationary_by_gth(mut log_p: Vec<Vec<f64>>) -> Vec<f64> {
    let k = log_p.len();
    for n in (1..k).rev() {
        let log_out = (0..n).fold(f64::NEG_INFINITY, |acc, j| log_add(acc, log_p[n][j]));
        for row in &mut log_p[..n] {
            row[n] -= log_out;
        }
        for i in 0..n {
            for j in (0..n).filter(|&j| j != i) {
                let through = log_p[i][n] + log_p[n][j];
                log_p[i][j] = log_add(log_p[i][j], through);
            }
        }
    }
    let mut log_x = vec![0.0; k];
    for j in 1..k {
        log_x[j] = (0..j).fold(f64::NEG_INFINITY, |acc, i| {
            log_add(acc, log_x[i] + log_p[i][j])
        });
    }
    let top = log_x.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let weights: Vec<f64> = log_x.iter().map(|x| (x - top).exp()).collect();
    let total: f64 = weights.iter().sum();
    weights.iter().map(|w| w / total).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{DMatrix, DVector};

    fn fixation(u: f64, m: f64) -> f64 {
        if u == 0.0 {
            1.0 / m
        } else {
            (1.0 - (-u).exp()) / (1.0 - (-m * u).exp())
        }
    }

    /// The stationary distribution by a dense linear solve of `pi (C - I) = 0`,
    /// `sum pi = 1`, on the chain built directly from the formula: an independent path
    /// where the numbers stay representable.
    fn by_linear_solve(payoff: &[Vec<f64>], alpha: f64, m: f64) -> Vec<f64> {
        let k = payoff.len();
        let eta = 1.0 / (k - 1) as f64;
        let mut c = DMatrix::<f64>::zeros(k, k);
        for s in 0..k {
            for r in (0..k).filter(|&r| r != s) {
                c[(s, r)] = eta * fixation(alpha * (payoff[r][s] - payoff[s][r]), m);
            }
            c[(s, s)] = 1.0 - (0..k).map(|r| c[(s, r)]).sum::<f64>();
        }
        let mut system = c.transpose() - DMatrix::<f64>::identity(k, k);
        let mut rhs = DVector::<f64>::zeros(k);
        for j in 0..k {
            system[(k - 1, j)] = 1.0;
        }
        rhs[k - 1] = 1.0;
        system.lu().solve(&rhs).unwrap().iter().copied().collect()
    }

    fn win_probabilities(strength: &[f64]) -> Vec<Vec<f64>> {
        strength
            .iter()
            .map(|a| {
                strength
                    .iter()
                    .map(|b| 1.0 / (1.0 + (b - a).exp()))
                    .collect()
            })
            .collect()
    }

    #[test]
    fn two_agents_follow_detailed_balance() {
        // pi_0 / pi_1 = rho_{0,1} / rho_{1,0}, the two moves' fixation probabilities.
        let payoff = vec![vec![0.5, 0.6], vec![0.4, 0.5]];
        let rank = AlphaRank {
            alpha: 2.0,
            population: 10,
        };
        let pi = rank.stationary(&payoff).unwrap();
        let ratio = fixation(2.0 * 0.2, 10.0) / fixation(-2.0 * 0.2, 10.0);
        assert!((pi[0] / pi[1] - ratio).abs() < 1e-12 * ratio);
    }

    #[test]
    fn matches_a_linear_solve_where_numbers_stay_representable() {
        let payoff = win_probabilities(&[0.3, -0.2, 1.1, 0.0, 0.7]);
        let rank = AlphaRank {
            alpha: 5.0,
            population: 20,
        };
        let ours = rank.stationary(&payoff).unwrap();
        let theirs = by_linear_solve(&payoff, 5.0, 20.0);
        for (a, b) in ours.iter().zip(&theirs) {
            assert!((a - b).abs() < 1e-12, "{ours:?} vs {theirs:?}");
        }
    }

    /// Rock–paper–scissors with win probabilities 1 and 0: the chain is a symmetric
    /// cycle and every agent keeps a third, even at α = 10⁴ where the losing moves'
    /// probabilities (about e^{-500000}) are far below the smallest double.
    #[test]
    fn extreme_selection_keeps_a_cycle_uniform() {
        let payoff = vec![
            vec![0.5, 0.0, 1.0],
            vec![1.0, 0.5, 0.0],
            vec![0.0, 1.0, 0.5],
        ];
        let rank = AlphaRank {
            alpha: 1e4,
            population: 50,
        };
        for p in rank.stationary(&payoff).unwrap() {
            assert!((p - 1.0 / 3.0).abs() < 1e-12);
        }
        let strong = rank
            .stationary(&win_probabilities(&[0.0, 3.0, 1.0]))
            .unwrap();
        assert!(strong[1] > 1.0 - 1e-12);
    }

    #[test]
    fn settings_are_checked() {
        let payoff = vec![vec![0.5, 0.5], vec![0.5, 0.5]];
        for (alpha, population) in [(0.0, 50), (f64::NAN, 50), (1.0, 1)] {
            let rank = AlphaRank { alpha, population };
            assert!(matches!(
                rank.stationary(&payoff),
                Err(GameError::Setting { .. })
            ));
        }
    }
}
