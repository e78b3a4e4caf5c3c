//! Nash averaging (Balduzzi, Tuyls, Pérolat & Graepel 2018, "Re-evaluating
//! evaluation", Sec. 4): agents rated against the maximum-entropy Nash equilibrium of
//! the log-odds game, which makes the ratings invariant to redundant copies of an agent.

use crate::{max_entropy_lottery, GameError, LotteryStatus, PayoffMatrix};

/// Nash averaging of a log-odds matrix.
#[derive(Debug, Clone, PartialEq)]
pub struct NashAverage {
    /// `p*`: the maximum-entropy Nash equilibrium of the game `L`.
    pub probabilities: Vec<f64>,
    /// Each agent's Nash average `(L p*)_j`: its expected log-odds against the
    /// equilibrium; 0 on the equilibrium's support and below 0 off it (Balduzzi et al.,
    /// Proposition 4 and Sec. 4.2).
    pub nash_average: Vec<f64>,
    /// `max_j (L p*)_j` on the log-odds scale: 0 at an exact equilibrium.
    pub gap: f64,
    /// Whether the equilibrium was certified by its gap.
    pub status: LotteryStatus,
}

/// The log-odds matrix of pairwise counts Balduzzi et al. (Sec. 4.2) evaluate agents
/// on, `L_jk = ln(p_jk / (1 - p_jk))`, with the win rate `p_jk` corrected by half a win
/// and half a loss (Haldane–Anscombe) so that a pair one agent always won stays finite:
/// `p_jk = (w_jk + t_jk/2 + 1/2) / (n_jk + 1)`, ties counting half. Unobserved pairs
/// are 0 when `allow_unobserved`, else an error.
///
/// # Errors
/// As [`PayoffMatrix::from_counts`].
pub fn log_odds_from_counts(
    wins: &[Vec<f64>],
    ties: &[Vec<f64>],
    allow_unobserved: bool,
) -> Result<Vec<Vec<f64>>, GameError> {
    // The margins check the counts' shape and values and the unobserved pairs.
    PayoffMatrix::from_counts(wins, ties, allow_unobserved)?;
    let k = wins.len();
    let mut rows = vec![vec![0.0; k]; k];
    for j in 0..k {
        for l in j + 1..k {
            let n = wins[j][l] + wins[l][j] + ties[j][l];
            if n == 0.0 {
                continue;
            }
            let rate = (wins[j][l] + ties[j][l] / 2.0 + 0.5) / (n + 1.0);
            rows[j][l] = (rate / (1.0 - rate)).ln();
            rows[l][j] = -rows[j][l];
        }
    }
    Ok(rows)
}

/// Nash averaging of the skew-symmetric evaluation matrix `l` (any finite scale: the
/// equilibria of a zero-sum game do not change when its payoffs are multiplied by a
/// positive number, so the game is solved on `l / max |l|`, inside `[-1, 1]`). The
/// equilibrium is [`max_entropy_lottery`]: unique when the game's equilibrium is, and
/// otherwise the one that spreads mass over every agent that can carry some.
///
/// # Errors
/// [`GameError`] for a matrix that is not square, finite and skew-symmetric; solver
/// failures.
pub fn nash_averaging(l: &[Vec<f64>]) -> Result<NashAverage, GameError> {
    let largest = l.iter().flatten().map(|x| x.abs()).fold(0.0, f64::max);
    if !largest.is_finite() {
        let (row, column) = (0..l.len())
            .flat_map(|j| (0..l[j].len()).map(move |c| (j, c)))
            .find(|&(j, c)| !l[j][c].is_finite())
            .expect("a value is not finite");
        return Err(GameError::NotFinite {
            row,
            column,
            value: l[row][column],
        });
    }
    let scale = if largest > 0.0 { largest } else { 1.0 };
    let scaled: Vec<Vec<f64>> = l
        .iter()
        .map(|row| row.iter().map(|x| x / scale).collect())
        .collect();
    let game = PayoffMatrix::new(&scaled)?;
    let lottery = max_entropy_lottery(&game)?;
    let nash_average: Vec<f64> = game
        .apply(&lottery.probabilities)
        .iter()
        .map(|x| x * scale)
        .collect();
    Ok(NashAverage {
        gap: lottery.gap * scale,
        status: lottery.status,
        probabilities: lottery.probabilities,
        nash_average,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Balduzzi et al.'s motivating property (Sec. 4.1): rock–paper–scissors has the
    /// uniform equilibrium; adding a copy of rock splits rock's third between the two
    /// copies (the maximum-entropy equilibrium), and paper and scissors keep theirs.
    #[test]
    fn a_copy_of_an_agent_shares_its_mass() {
        let w = 2.0;
        let rps = vec![vec![0.0, -w, w], vec![w, 0.0, -w], vec![-w, w, 0.0]];
        let plain = nash_averaging(&rps).unwrap();
        for p in &plain.probabilities {
            assert!((p - 1.0 / 3.0).abs() < 1e-7);
        }
        let with_copy = vec![
            vec![0.0, 0.0, -w, w],
            vec![0.0, 0.0, -w, w],
            vec![w, w, 0.0, -w],
            vec![-w, -w, w, 0.0],
        ];
        let copied = nash_averaging(&with_copy).unwrap();
        let expected = [1.0 / 6.0, 1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0];
        for (p, e) in copied.probabilities.iter().zip(expected) {
            assert!((p - e).abs() < 1e-6, "{:?}", copied.probabilities);
        }
        assert!(copied.nash_average.iter().all(|x| x.abs() < 1e-6));
    }

    /// A transitive game: the best agent is the equilibrium, the others' Nash averages
    /// are minus their log-odds against it.
    #[test]
    fn a_dominant_agent_takes_all_and_rates_the_others() {
        let l = vec![
            vec![0.0, 1.5, 3.0],
            vec![-1.5, 0.0, 0.5],
            vec![-3.0, -0.5, 0.0],
        ];
        let found = nash_averaging(&l).unwrap();
        assert!((found.probabilities[0] - 1.0).abs() < 1e-9);
        for (got, want) in found.nash_average.iter().zip([0.0, -1.5, -3.0]) {
            assert!((got - want).abs() < 1e-8);
        }
    }

    /// The correction by half a win and half a loss: 3 wins and 1 tie of 4 battles
    /// give `p = 4 / 5`, log-odds `ln 4`.
    #[test]
    fn log_odds_of_counts() {
        let wins = vec![vec![0.0, 3.0], vec![0.0, 0.0]];
        let ties = vec![vec![0.0, 1.0], vec![1.0, 0.0]];
        let l = log_odds_from_counts(&wins, &ties, false).unwrap();
        assert!((l[0][1] - 4f64.ln()).abs() < 1e-15);
        assert_eq!(l[1][0], -l[0][1]);
        let none = vec![vec![0.0; 2]; 2];
        assert!(log_odds_from_counts(&none, &none, false).is_err());
    }
}
