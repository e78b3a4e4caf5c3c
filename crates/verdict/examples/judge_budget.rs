//! Allocate a judging budget: 20 items, 3 simulated judges of different noise and
//! cost (the judge paper's Appendix H.1 instance), scored by the oracle allocation
//! (Theorem 3.2), Est-IVWE (Algorithm 1) and uniform calls under the same budget.
//!
//! `cargo run -p verdict --example judge_budget`

use rand::SeedableRng;
use verdict::judges::{estimate, EstimateSettings, Method, Norm, Scenario, SimulatedJudges};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    let instance = Scenario::Random.draw(20, 3, &mut rng);
    let budget = 200.0;
    let p = Norm::P(2.0);
    println!("judge costs {:?}, budget {budget}", instance.costs());
    let methods = [
        Method::Oracle {
            variances: instance.variances().to_vec(),
        },
        Method::EstIvwe,
        Method::Uniform,
    ];
    for method in methods {
        let mut judges = SimulatedJudges::new(instance.clone(), 11);
        let result = estimate(&mut judges, budget, &method, &EstimateSettings::new(p))?;
        let error = result
            .scores
            .iter()
            .zip(instance.scores())
            .map(|(s, t)| (s - t).powi(2))
            .sum::<f64>()
            .sqrt();
        assert!(result.spent <= budget, "spent past the budget");
        println!(
            "{:<10} spent {:>7.2} on {:>4} calls, L2 error {:.4}",
            method.name(),
            result.spent,
            result.calls,
            error
        );
    }
    Ok(())
}
