//! `verdict simulate`: the NashEval Appendix G data set with its ground truth, as
//! Parquet files and a manifest, staged beside `--out` and published into it only
//! when every file is complete (replacing only files an earlier run wrote).

use std::time::Instant;

use rayon::prelude::*;
use verdict::game::{solve_batch, PayoffMatrix, Regularizer};
use verdict::io::{write_parquet_table, ColumnData, StagedDir};
use verdict::sim::nasheval::{
    replication_contexts, simulate_feedback, truth, Context, FeedbackKind, Truth, World, AGENTS,
};

use crate::args::{SimulateArgs, SimulatedFeedback};

pub fn run(args: &SimulateArgs) -> anyhow::Result<()> {
    anyhow::ensure!(
        (1..=5).contains(&args.voters),
        "--voters {} is outside the pool of five voters; use 1 to 5 (the paper uses 1, 3, 5)",
        args.voters
    );
    anyhow::ensure!(args.contexts > 0, "--contexts must be at least 1");
    anyhow::ensure!(
        args.rho.is_finite() && args.rho >= 0.0,
        "--rho {} must be a finite number >= 0",
        args.rho
    );
    let started = Instant::now();
    let kind = match args.feedback {
        SimulatedFeedback::Pairwise => FeedbackKind::Pairwise,
        SimulatedFeedback::Ranking => FeedbackKind::Ranking,
        SimulatedFeedback::Winner => FeedbackKind::Winner,
    };
    let [low, high] = args.propensity_range[..] else {
        anyhow::bail!(
            "--propensity-range takes two numbers, LO,HI (e.g. 0.25,0.75); got {:?}",
            args.propensity_range
        );
    };
    let world = World::draw(args.seed)
        .with_selection(low, high, args.selection_slope)
        .map_err(|m| anyhow::anyhow!("--propensity-range / --selection-slope: {m}"))?;
    let (training, test) = replication_contexts(args.seed, args.contexts, args.test_contexts);
    let records = simulate_feedback(&world, &training, args.voters, kind, args.seed);
    let agents: Vec<String> = (1..=AGENTS).map(|j| format!("agent_{j}")).collect();
    let menus = kind.menus();
    let regularizer = Regularizer {
        rho: args.rho,
        costs: Vec::new(),
    };
    let out = &args.out;
    let staging = StagedDir::new(out, "manifest.json")?;
    let dir = staging.path();

    write_parquet_table(
        &dir.join("contexts.parquet"),
        &context_columns("c", &training),
    )?;
    write_parquet_table(
        &dir.join("test_contexts.parquet"),
        &context_columns("t", &test),
    )?;
    let name = |a: usize| agents[a].clone();
    let response = |r: &[usize]| match kind {
        FeedbackKind::Ranking => {
            serde_json::to_string(&r.iter().map(|&a| name(a)).collect::<Vec<_>>())
                .expect("names serialise")
        }
        FeedbackKind::Pairwise | FeedbackKind::Winner => name(r[0]),
    };
    write_parquet_table(
        &dir.join("feedback.parquet"),
        &[
            (
                "context_id",
                ColumnData::Text(records.iter().map(|r| format!("c{}", r.context)).collect()),
            ),
            (
                "menu",
                ColumnData::TextList(
                    records
                        .iter()
                        .map(|r| menus[r.menu].iter().map(|&a| name(a)).collect())
                        .collect(),
                ),
            ),
            (
                "modality",
                ColumnData::Text(vec![kind.name().to_string(); records.len()]),
            ),
            (
                "response",
                ColumnData::Text(records.iter().map(|r| response(&r.response)).collect()),
            ),
            (
                "voter",
                ColumnData::UInt(records.iter().map(|r| r.voter as u64).collect()),
            ),
        ],
    )?;
    for (file, prefix, contexts) in [
        ("truth.parquet", "c", &training),
        ("test_truth.parquet", "t", &test),
    ] {
        let truths: Vec<Truth> = contexts
            .par_iter()
            .map(|x| truth(&world, x, args.voters, kind))
            .collect();
        let games = truths
            .iter()
            .map(|t| {
                PayoffMatrix::new(
                    &t.payoff
                        .chunks(AGENTS)
                        .map(<[f64]>::to_vec)
                        .collect::<Vec<_>>(),
                )
            })
            .collect::<Result<Vec<_>, _>>()?;
        let equilibria = solve_batch(&games, &regularizer)
            .into_iter()
            .collect::<Result<Vec<_>, _>>()?;
        write_parquet_table(
            &dir.join(file),
            &[
                (
                    "context_id",
                    ColumnData::Text(
                        (0..contexts.len())
                            .map(|i| format!("{prefix}{i}"))
                            .collect(),
                    ),
                ),
                (
                    "propensity",
                    ColumnData::Float(truths.iter().map(|t| t.propensity).collect()),
                ),
                (
                    "margin",
                    ColumnData::FloatList(truths.iter().map(|t| t.margin.clone()).collect()),
                ),
                (
                    "payoff",
                    ColumnData::FloatList(truths.iter().map(|t| t.payoff.clone()).collect()),
                ),
                (
                    "menu_means",
                    ColumnData::FloatList(truths.iter().map(|t| t.menu_means.concat()).collect()),
                ),
                (
                    "equilibrium",
                    ColumnData::FloatList(
                        equilibria.into_iter().map(|e| e.probabilities).collect(),
                    ),
                ),
            ],
        )?;
    }
    let manifest = serde_json::json!({
        "generator": "NashEval Appendix G",
        "seed": args.seed,
        "feedback": kind.name(),
        "voters": args.voters,
        "contexts": args.contexts,
        "test_contexts": args.test_contexts,
        "equilibrium": {"rho": args.rho, "regularizer": if args.rho > 0.0 { "rho/2 ||pi - 1/K||^2" } else { "none (maximal lottery, minimum norm)" }},
        "agents": agents,
        "menus": menus.iter().map(|m| m.iter().map(|&a| name(a)).collect::<Vec<_>>()).collect::<Vec<_>>(),
        "parameters": {
            "dimensions": verdict::sim::nasheval::DIMENSIONS,
            "criteria": verdict::sim::nasheval::CRITERIA,
            "fourier_features": verdict::sim::nasheval::FOURIER_FEATURES,
            "length_scale": verdict::sim::nasheval::LENGTH_SCALE,
            "calibration_contexts": verdict::sim::nasheval::CALIBRATION_CONTEXTS,
            "amplitudes": verdict::sim::nasheval::AMPLITUDES,
            "offsets": verdict::sim::nasheval::OFFSETS,
            "voter_groups": verdict::sim::nasheval::VOTER_GROUPS,
            "dirichlet_alpha": verdict::sim::nasheval::DIRICHLET_ALPHA,
            "uniform_share": verdict::sim::nasheval::UNIFORM_SHARE,
            "propensity": [low, high, args.selection_slope],
        },
        "files": {
            "contexts.parquet": {"rows": training.len(), "columns": "context_id, x1..x5"},
            "feedback.parquet": {"rows": records.len(), "columns": "context_id, menu (agent names), modality, response (winner name, or a JSON list for rankings), voter (who answered; ground truth, not for learning)"},
            "test_contexts.parquet": {"rows": test.len(), "columns": "context_id, x1..x5"},
            "truth.parquet": {"rows": training.len(), "columns": "context_id, propensity e0 (every menu), margin M (KxK row-major), payoff A (KxK), menu_means mu0 (one KxK block per menu, in manifest order), equilibrium pi*"},
            "test_truth.parquet": {"rows": test.len(), "columns": "as truth.parquet, for the test contexts"},
        },
    });
    let serde_json::Value::Object(manifest) = manifest else {
        unreachable!("a JSON object literal")
    };
    staging.publish(manifest)?;
    eprintln!(
        "{} contexts, {} {} records ({} voters), {} test contexts, ground truth and manifest in {} ({:.2} s)",
        training.len(),
        records.len(),
        kind.name(),
        args.voters,
        test.len(),
        out.display(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// `context_id` and one column per coordinate `x1..x5`.
fn context_columns(prefix: &str, contexts: &[Context]) -> Vec<(&'static str, ColumnData)> {
    const NAMES: [&str; 5] = ["x1", "x2", "x3", "x4", "x5"];
    let mut columns = vec![(
        "context_id",
        ColumnData::Text(
            (0..contexts.len())
                .map(|i| format!("{prefix}{i}"))
                .collect(),
        ),
    )];
    for (d, name) in NAMES.iter().enumerate() {
        columns.push((
            name,
            ColumnData::Float(contexts.iter().map(|x| x[d]).collect()),
        ));
    }
    columns
}
