//! The arena world's exact truth against Monte Carlo draws from the same world: the
//! closed forms of `e0` and `μ0` are checked by the battles they generate.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use verdict_lab::worlds::arena_world::{ArenaVerdict, ArenaWorld, ArenaWorldSettings};

#[test]
fn selection_rates_and_mean_verdicts_match_the_truth_on_repeated_draws() {
    let world = ArenaWorld::draw(&ArenaWorldSettings {
        agents: 6,
        seed: 5,
        ..ArenaWorldSettings::default()
    })
    .unwrap();
    let menus = world.menus().len();
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    for x in world.draw_contexts(3, 2) {
        let truth = world.truth(&x);
        let draws = 200_000;
        let (mut shown, mut verdicts) = (vec![0usize; menus], vec![0.0; menus]);
        for _ in 0..draws {
            let battle = world.battle(&x, &mut rng);
            shown[battle.menu] += 1;
            verdicts[battle.menu] += match battle.verdict {
                ArenaVerdict::First => 1.0,
                ArenaVerdict::Second => -1.0,
                ArenaVerdict::Tie | ArenaVerdict::BothBad => 0.0,
            };
        }
        let k = world.agents();
        for (m, &[j, l]) in world.menus().iter().enumerate() {
            let e = truth.propensity[m];
            let rate = shown[m] as f64 / draws as f64;
            let se = (e * (1.0 - e) / draws as f64).sqrt();
            assert!((rate - e).abs() < 5.0 * se, "menu {m}: rate {rate}, e0 {e}");
            let mean = verdicts[m] / shown[m] as f64;
            let mu = truth.payoff[j * k + l];
            // A verdict in [-1, 1] has variance at most 1.
            let se = (1.0 / shown[m] as f64).sqrt();
            assert!(
                (mean - mu).abs() < 5.0 * se,
                "menu {m}: mean {mean}, mu0 {mu}"
            );
        }
    }
}

#[test]
fn the_same_seeds_draw_the_same_log() {
    let world = |seed| {
        ArenaWorld::draw(&ArenaWorldSettings {
            seed,
            ..ArenaWorldSettings::default()
        })
        .unwrap()
    };
    let (a, b) = (world(3), world(3));
    let (xa, xb) = (a.draw_contexts(500, 9), b.draw_contexts(500, 9));
    assert_eq!(xa, xb);
    assert_eq!(a.battles(&xa, 4), b.battles(&xb, 4));
    assert_ne!(a.battles(&xa, 4), a.battles(&xa, 5));
    assert_ne!(world(4).truth(&xa[0]), a.truth(&xa[0]));
}

#[test]
fn the_population_is_intransitive_somewhere() {
    // Voter groups that disagree make majority cycles: at some prompt some triple of
    // agents beats each other in a circle (the reason for an equilibrium, not a rating).
    let world = ArenaWorld::draw(&ArenaWorldSettings::default()).unwrap();
    let k = world.agents();
    let cyclic = world.draw_contexts(400, 1).iter().any(|x| {
        let a = world.truth(x).payoff;
        (0..k).any(|i| {
            (0..k).any(|j| {
                (0..k).any(|l| a[i * k + j] > 0.0 && a[j * k + l] > 0.0 && a[l * k + i] > 0.0)
            })
        })
    });
    assert!(cyclic);
}
