//! Solve a payoff matrix: the maximal lottery of rock–paper–scissors with a fourth,
//! dominated agent, certified by its exploitability, then the same game with a
//! regularizer and per-agent costs (NashEval Eq. 20).
//!
//! `cargo run -p verdict --example solve_game`

use verdict::game::{maximal_lottery, Equilibrium, PayoffMatrix};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let names = ["rock", "paper", "scissors", "well"];
    // Row beats column with margin A[row][col]; "well" loses to everyone.
    let game = PayoffMatrix::from_row_major(
        &[
            0.0, -1.0, 1.0, 0.5, //
            1.0, 0.0, -1.0, 0.5, //
            -1.0, 1.0, 0.0, 0.5, //
            -0.5, -0.5, -0.5, 0.0,
        ],
        names.len(),
    )?;
    let lottery = maximal_lottery(&game)?;
    println!("maximal lottery (exploitability {:.2e}):", lottery.gap);
    for (name, p) in names.iter().zip(&lottery.probabilities) {
        println!("  {name:<9} {p:.4}");
    }
    // Closed form: a third on each of rock, paper and scissors, nothing on "well".
    let expected = [1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0, 0.0];
    let off = lottery
        .probabilities
        .iter()
        .zip(expected)
        .map(|(p, e)| (p - e).abs())
        .fold(0.0, f64::max);
    assert!(off < 1e-6, "the lottery is off the closed form by {off}");

    let priced = Equilibrium::new(0.1, vec![0.0, 0.2, 0.0, 0.0], None, None).solve(&game)?;
    println!("rho = 0.1, paper costs 0.2 (gap {:.2e}):", priced.gap);
    for (name, p) in names.iter().zip(&priced.probabilities) {
        println!("  {name:<9} {p:.4}");
    }
    Ok(())
}
