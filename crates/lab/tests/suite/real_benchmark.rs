//! The real-prompt benchmark's data: AlpacaEval's judgments as the benchmark reads
//! them, against the win rates AlpacaEval publishes. Read from the shared data folder
//! beside the repository; each test says so when the folder is absent.

use verdict::io::{read_table, Source};

use crate::shared_data::shared_data;

/// The first judge's mean preference for each model of `data` against the win rate
/// AlpacaEval publishes for it in `leaderboard` (in percent, over all 805 prompts),
/// within `tolerance` points; returns how many models the leaderboard lists.
fn reproduces_published_win_rates(
    data: &verdict_lab::real_benchmark::AlpacaEval,
    leaderboard: &std::path::Path,
    tolerance: f64,
) -> usize {
    let board = read_table(&Source::File(leaderboard.to_path_buf()), None, None).unwrap();
    let (names, rates) = (
        board.columns()[0].clone(),
        board.column("win_rate").unwrap(),
    );
    let mut checked = 0;
    for (m, model) in data.models.iter().enumerate() {
        let Some(row) = (0..board.rows()).find(|&r| names.value(r) == Some(model.as_str())) else {
            continue;
        };
        let published: f64 = rates.value(row).unwrap().parse().unwrap();
        let mean = data.scores[0][m].iter().sum::<f64>() / data.prompts.len() as f64 * 100.0;
        assert!(
            (mean - published).abs() < tolerance,
            "{model}: {mean:.3} against the published {published:.3}"
        );
        checked += 1;
    }
    checked
}

/// AlpacaEval's judgments as the real-prompt benchmark reads them: every prompt, the
/// models both GPT-4-turbo judges scored on every prompt, and for the weighted judge a
/// mean preference that reproduces AlpacaEval's own published win rate (its
/// leaderboard CSV, in percent) to within 0.1 points.
#[test]
fn alpacaeval_scores_reproduce_the_published_win_rates() {
    use verdict_lab::real_benchmark::{AlpacaEval, TURBO_PANEL};
    let Some(dir) = shared_data("alpacaeval-judges") else {
        return;
    };
    let data = AlpacaEval::read(&dir, &TURBO_PANEL).unwrap();
    assert_eq!(data.prompts.len(), 805);
    assert_eq!(
        data.models,
        [
            "alpaca-7b",
            "chatgpt",
            "claude-2.1",
            "gpt-3.5-turbo-0301",
            "gpt4_turbo"
        ]
    );
    let checked = reproduces_published_win_rates(
        &data,
        &dir.join("leaderboard_AlpacaEval2_weighted_gpt4_turbo.csv"),
        0.1,
    );
    assert!(checked >= 3, "only {checked} models are on the leaderboard");
    // The reference game is skew-symmetric with the judges' mean differences.
    let a = data.reference_game(0).unwrap();
    let expected = (data.scores[0][4][0] - data.scores[0][0][0] + data.scores[1][4][0]
        - data.scores[1][0][0])
        / 2.0;
    assert!((a.get(4, 0) - expected).abs() < 1e-12);
}

/// The second panel (AlpacaEval 1: the GPT-4 and Claude judges against
/// text_davinci_003): the six models both judged on at least 97% of the prompts, the
/// 776 prompts where both judged all six, and the GPT-4 judge's mean preference there
/// against AlpacaEval 1's published win rates over all 805. Leaving out 29 prompts
/// moves a mean of values in [0, 1] by at most 100 · 29/776 = 3.7 points (closed
/// form); the largest gap here is 0.87 points (text_davinci_001), and the check asks
/// for 1.
#[test]
fn alpacaeval_1_panel_reproduces_its_published_win_rates() {
    use verdict_lab::real_benchmark::{AlpacaEval, JudgePanel};
    let Some(dir) = shared_data("alpacaeval-judges") else {
        return;
    };
    let data = AlpacaEval::read(&dir, &JudgePanel::named("v1").unwrap()).unwrap();
    assert_eq!(
        data.models,
        [
            "alpaca-7b",
            "falcon-40b-instruct",
            "guanaco-65b",
            "oasst-rlhf-llama-33b",
            "text_davinci_001",
            "vicuna-13b"
        ]
    );
    let checked = reproduces_published_win_rates(
        &data,
        &dir.join("leaderboard_AlpacaEval1_alpaca_eval_gpt4.csv"),
        1.0,
    );
    assert_eq!(checked, 6);
    assert_eq!(data.prompts.len(), 776);
    assert!(JudgePanel::named("v3").is_err());
}

/// The routers' costs on real prompts are the panel's published mean output lengths
/// (AlpacaEval 1's leaderboard: alpaca-7b 396, falcon-40b-instruct 662, guanaco-65b
/// 1249, oasst-rlhf-llama-33b 1079, text_davinci_001 296, vicuna-13b 1037), each model
/// alone is placed at its own cost whatever order a split's log meets it in, a hard
/// budget is never exceeded, and AlpacaEval 2's panel, two of whose models that
/// leaderboard does not list, is refused naming one.
#[test]
fn routers_on_real_prompts_are_priced_by_published_output_lengths() {
    use verdict_lab::real_benchmark::{
        output_lengths, route_split, AlpacaEval, JudgePanel, RealSettings,
    };
    let Some(dir) = shared_data("alpacaeval-judges") else {
        return;
    };
    let panel = JudgePanel::named("v1").unwrap();
    let data = AlpacaEval::read(&dir, &panel).unwrap();
    let costs = output_lengths(&dir, &panel, &data).unwrap();
    assert_eq!(costs, vec![396.0, 662.0, 1249.0, 1079.0, 296.0, 1037.0]);
    let points = route_split(&data, &RealSettings::default(), 1, &costs).unwrap();
    for (m, &c) in costs.iter().enumerate() {
        let alone: Vec<_> = points
            .iter()
            .filter(|p| p.method == "single" && p.parameter == m as f64)
            .collect();
        assert_eq!(alone.len(), 1, "{}", data.models[m]);
        assert!(
            (alone[0].cost - c).abs() < 1e-9,
            "{}: {}",
            data.models[m],
            alone[0].cost
        );
    }
    for p in points.iter().filter(|p| p.method == "NashEval-budget") {
        assert!(
            p.cost <= p.parameter + 1e-6,
            "spends {} of {}",
            p.cost,
            p.parameter
        );
    }
    let turbo = JudgePanel::named("turbo").unwrap();
    let turbo_data = AlpacaEval::read(&dir, &turbo).unwrap();
    let err = output_lengths(&dir, &turbo, &turbo_data)
        .unwrap_err()
        .to_string();
    assert!(err.contains("no avg_length for model"), "{err}");
}

/// The router benchmark's catalogue: AlpacaEval 2's weighted judge on all 805 prompts,
/// the models with a length on its leaderboard (the four without are named), each
/// model's mean score reproducing its published win rate within 0.11 points. On one
/// split every router is scored against sums over the held-out prompts computed here:
/// the oracle's quality is the mean of each prompt's best score, a single-model
/// router's quality and cost are that model's own, and no router beats the oracle.
#[test]
fn the_router_benchmark_scores_routers_against_the_judges_truth() {
    use verdict_lab::router_benchmark::{
        held_out_prompts, router_split, RouterData, RouterSettings, WEIGHTED_PANEL,
    };
    let Some(dir) = shared_data("alpacaeval-judges") else {
        return;
    };
    let data = RouterData::read(&dir).unwrap();
    assert_eq!(data.data.prompts.len(), 805);
    assert_eq!(data.data.models.len(), 55);
    assert_eq!(
        data.dropped,
        ["chatgpt", "example", "gpt4_turbo", "text_davinci_003"]
    );
    // Seen: at most 0.10 points apart (gpt35_turbo_instruct).
    let checked =
        reproduces_published_win_rates(&data.data, &dir.join(WEIGHTED_PANEL.leaderboard), 0.11);
    assert_eq!(checked, 55);
    let settings = RouterSettings::default();
    let rows = router_split(&data, &settings, 0).unwrap();
    let test = held_out_prompts(&data, &settings, 0);
    assert_eq!(test.len(), 201);
    let k = data.costs.len();
    let s = |m: usize, p: usize| data.data.scores[0][m][p];
    let mean =
        |f: &dyn Fn(usize) -> f64| test.iter().map(|&p| f(p)).sum::<f64>() / test.len() as f64;
    let oracle = rows
        .iter()
        .find(|r| r.router.starts_with("oracle"))
        .unwrap();
    let best_per_prompt = mean(&|p| (0..k).map(|m| s(m, p)).fold(0.0, f64::max));
    assert!(
        (oracle.quality - best_per_prompt).abs() < 1e-12,
        "{oracle:?}"
    );
    for r in &rows {
        assert!(r.quality <= oracle.quality + 1e-12, "{r:?}");
        assert!((0.0..=1.0).contains(&r.arena), "{r:?}");
    }
    for r in rows.iter().filter(|r| r.choice.is_some()) {
        let m = data
            .data
            .models
            .iter()
            .position(|n| Some(n) == r.choice.as_ref())
            .unwrap();
        assert_eq!(r.cost, data.costs[m], "{r:?}");
        assert!((r.quality - mean(&|p| s(m, p))).abs() < 1e-12, "{r:?}");
    }
}
