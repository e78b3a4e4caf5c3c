//! The linear backbone against closed forms and optimality conditions, and the
//! cross-fitting folds.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, StandardNormal};
use verdict_nasheval::{context_folds, Classifier, Logistic, Regressor, Ridge};

/// With one feature standardized to mean 0 and variance 1, ridge has the closed form
/// `b0 = mean(y)`, `b1 = sum(z y) / (n + lambda)`; with `lambda = 0` and noiseless
/// linear data it reproduces the data.
#[test]
fn ridge_matches_its_closed_form() {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let x: Vec<f64> = (0..200).map(|_| rng.random_range(-3.0..5.0)).collect();
    let y: Vec<f64> = x
        .iter()
        .map(|&v| 1.5 - 0.7 * v + rng.random_range(-0.5..0.5))
        .collect();
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    let sd = (x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n).sqrt();
    let z: Vec<f64> = x.iter().map(|v| (v - mean) / sd).collect();
    for lambda in [0.0, 3.0, 50.0] {
        let ridge = Ridge::new(lambda).fit(&x, 1, &y).unwrap();
        let b0 = y.iter().sum::<f64>() / n;
        let b1 = z.iter().zip(&y).map(|(z, y)| z * y).sum::<f64>() / (n + lambda);
        let c = ridge.coefficients();
        assert!(
            (c[0] - b0).abs() < 1e-10 && (c[1] - b1).abs() < 1e-10,
            "lambda {lambda}: {c:?}"
        );
    }
    // Noiseless, three features: exact.
    let rows = 50;
    let features: Vec<f64> = (0..rows * 3).map(|_| rng.random_range(-1.0..1.0)).collect();
    let targets: Vec<f64> = features
        .chunks(3)
        .map(|r| 0.5 + 2.0 * r[0] - r[1] + 0.25 * r[2])
        .collect();
    let settings = Ridge::new(0.0);
    let ridge = settings.fit(&features, 3, &targets).unwrap();
    // The settings are left unfitted: the fit is what comes back.
    assert!(settings.coefficients().is_empty());
    for (p, t) in ridge.predict(&features).iter().zip(&targets) {
        assert!((p - t).abs() < 1e-10);
    }
    assert!(ridge.fit(&[1.0, f64::NAN], 1, &[0.0, 1.0]).is_err());
    assert!(ridge.fit(&[1.0, 2.0, 3.0], 2, &[0.0]).is_err());
}

/// Logistic regression satisfies its optimality conditions `X^T (y - p) = lambda b`
/// (intercept unpenalized) and recovers the generating coefficients on a large sample.
#[test]
fn logistic_solves_its_score_equations_and_recovers_the_truth() {
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let rows = 20_000;
    let features: Vec<f64> = (0..rows * 2)
        .map(|_| StandardNormal.sample(&mut rng))
        .collect();
    let labels: Vec<f64> = features
        .chunks(2)
        .map(|r| {
            let p = 1.0 / (1.0 + (-(-0.4 + 1.2 * r[0] - 0.8 * r[1])).exp());
            f64::from(u8::from(rng.random::<f64>() < p))
        })
        .collect();
    for lambda in [0.0, 25.0] {
        let model = Logistic::new(lambda).fit(&features, 2, &labels).unwrap();
        let p = model.predict_probability(&features);
        // Score equations on the standardized design the model uses.
        let column = |c: usize| -> Vec<f64> { features.chunks(2).map(|r| r[c]).collect() };
        let standardized = |v: Vec<f64>| -> Vec<f64> {
            let n = v.len() as f64;
            let m = v.iter().sum::<f64>() / n;
            let sd = (v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / n).sqrt();
            v.iter().map(|x| (x - m) / sd).collect()
        };
        let residual: Vec<f64> = labels.iter().zip(&p).map(|(y, p)| y - p).collect();
        assert!(residual.iter().sum::<f64>().abs() < 1e-6, "intercept score");
        for c in 0..2 {
            let z = standardized(column(c));
            let score: f64 = z.iter().zip(&residual).map(|(z, r)| z * r).sum();
            let b = model.coefficients()[c + 1];
            assert!(
                (score - lambda * b).abs() < 1e-6,
                "lambda {lambda}, feature {c}: {score} vs {}",
                lambda * b
            );
        }
    }
    // Unpenalized, back on the raw scale: close to (-0.4, 1.2, -0.8).
    let model = Logistic::new(0.0).fit(&features, 2, &labels).unwrap();
    let probe = [0.0, 0.0, 1.0, 0.0, 0.0, 1.0];
    let logit: Vec<f64> = model
        .predict_probability(&probe)
        .iter()
        .map(|p| (p / (1.0 - p)).ln())
        .collect();
    let (b0, b1, b2) = (logit[0], logit[1] - logit[0], logit[2] - logit[0]);
    assert!(
        (b0 + 0.4).abs() < 0.06 && (b1 - 1.2).abs() < 0.06 && (b2 + 0.8).abs() < 0.06,
        "{b0} {b1} {b2}"
    );
    assert!(model.fit(&[0.0, 1.0], 1, &[0.0, 2.0]).is_err());
}

#[test]
fn folds_are_balanced_seeded_and_checked() {
    let folds = context_folds(103, 5, 7).unwrap();
    let mut sizes = [0usize; 5];
    folds.iter().for_each(|&f| sizes[f] += 1);
    assert!(sizes.iter().all(|&s| s == 20 || s == 21), "{sizes:?}");
    assert_eq!(folds, context_folds(103, 5, 7).unwrap());
    assert_ne!(folds, context_folds(103, 5, 8).unwrap());
    assert!(context_folds(10, 1, 0).is_err());
    assert!(context_folds(3, 5, 0).is_err());
}

/// The grids are the paper's (Table 12: 2·3·2·4·3·3 = 432 points; Table 13:
/// 3·3·2·3·3·3 = 486), and the three-fold search prefers a booster that can fit a
/// step function over one whose leaves are too large to split the data at all.
#[test]
fn grid_search_uses_the_paper_grids_and_picks_the_better_point() {
    use verdict_nasheval::tune::{grid_search, nuisance_grid, payoff_grid, Objective};
    assert_eq!(nuisance_grid(0).len(), 432);
    assert_eq!(payoff_grid(0).len(), 486);
    let rows = 600;
    let features: Vec<f64> = (0..rows).map(|i| i as f64 / rows as f64).collect();
    let targets: Vec<f64> = features
        .iter()
        .map(|&x| if x < 0.5 { -1.0 } else { 1.0 })
        .collect();
    let mut able = nuisance_grid(1)[0].clone();
    able.min_data_in_leaf = 30;
    able.learning_rate = 0.1;
    let mut unable = able.clone();
    unable.min_data_in_leaf = 10_000;
    let tuned = grid_search(
        &features,
        1,
        &targets,
        Objective::SquaredError,
        &[unable, able.clone()],
        1,
        &|_, _| {},
    )
    .unwrap();
    assert_eq!(tuned.params, able);
    assert!(tuned.loss < 0.05, "held-out loss {}", tuned.loss);
    assert_eq!(tuned.points, 2);
}
