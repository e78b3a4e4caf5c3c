//! `verdict bench arena` (a synthetic LMArena-like battle log) and `verdict bench
//! judges` (the judge paper's synthetic experiments).

use verdict::io::{write_battles, StagedDir};
use verdict::judges::{
    run_experiment, BiasWorld, CostStructure, ExperimentSettings, Norm, Scenario, METHODS,
    SHARED_METHODS,
};
use verdict::outputs::Outputs;
use verdict::report::{judges_curves, judges_html, judges_table, plot_curves};

use super::{ArenaArgs, BenchJudgesArgs, DecisionLogArgs, JudgeCosts, Shell, Shown};
use crate::worlds::ArenaSimulation;

pub fn arena(args: &ArenaArgs, shell: Shell) -> anyhow::Result<()> {
    let simulation = ArenaSimulation {
        models: args.models,
        battles: args.battles,
        seed: args.seed,
        ..ArenaSimulation::default()
    };
    anyhow::ensure!(
        (1..=args.battles.max(1)).contains(&args.files),
        "--files must lie between 1 and the number of battles"
    );
    let single = (args.files == 1).then(|| shell.outputs.file(&args.out, "--out"));
    Outputs::check(std::slice::from_ref(&single))?;
    let arena = simulation.simulate()?;
    if let Some(out) = &single {
        out.write_through_path(|temporary| write_battles(temporary, &arena.log))?;
    } else {
        let staged = StagedDir::new(&args.out, "manifest.json")?;
        let per_file = args.battles.div_ceil(args.files);
        let all: Vec<usize> = (0..args.battles).collect();
        for (part, battles) in all.chunks(per_file).enumerate() {
            let file = staged.path().join(format!("part-{part:05}.parquet"));
            write_battles(&file, &arena.log.reordered(battles))?;
        }
        let mut manifest = serde_json::Map::new();
        manifest.insert("command".into(), "bench arena".into());
        manifest.insert("battles".into(), args.battles.into());
        manifest.insert("models".into(), args.models.into());
        manifest.insert("seed".into(), args.seed.into());
        staged.publish(manifest)?;
    }
    eprintln!(
        "wrote {} battles over {} models to {}",
        args.battles,
        args.models,
        args.out.display()
    );
    Ok(())
}

pub fn decision_log(args: &DecisionLogArgs) -> anyhow::Result<()> {
    let truth = crate::decision_world::DecisionWorld {
        rows: args.rows,
        agents: args.agents,
        features: args.features,
        explore: args.explore,
        seed: args.seed,
    }
    .write(&args.out)?;
    eprintln!(
        "wrote {} decisions over {} agents to {} (the logger's true value {:.4})",
        args.rows,
        args.agents,
        args.out.display(),
        truth.logger_value
    );
    Ok(())
}

pub fn judges(args: &BenchJudgesArgs, shell: Shell) -> anyhow::Result<()> {
    let plot = shell.outputs.optional(args.plot.as_deref(), "--plot");
    let page = shell
        .outputs
        .optional_page(args.report.as_deref(), "--report");
    Outputs::check(&[plot.clone(), page.clone()])?;
    let settings = settings(args)?;
    let rows = run_experiment(&settings);
    if let Some(plot) = &plot {
        plot_curves(plot, &judges_curves(&rows, &settings))?;
    }
    let text = match args.format {
        Shown::Json => {
            serde_json::to_string_pretty(
                &serde_json::json!({ "settings": settings, "rows": rows }),
            )? + "\n"
        }
        Shown::Table => judges_table(&rows, &settings),
    };
    if let Some(page) = &page {
        let html = judges_html(
            &judges_table(&rows, &settings),
            &judges_curves(&rows, &settings),
            "verdict bench judges",
        )?;
        verdict::page::write_page(page, &html)?;
    }
    print!("{text}");
    Ok(())
}

fn settings(args: &BenchJudgesArgs) -> anyhow::Result<ExperimentSettings> {
    anyhow::ensure!(
        args.items > 0 && args.judges > 0,
        "--items and --judges must be at least 1"
    );
    anyhow::ensure!(args.reps > 0, "--reps must be at least 1");
    anyhow::ensure!(
        args.target_error.is_none_or(|e| e.is_finite() && e > 0.0),
        "--target-error must be a positive number (the estimated l_p error to stop at)"
    );
    anyhow::ensure!(
        args.budgets.iter().all(|b| b.is_finite() && *b > 0.0),
        "--budgets must be positive numbers, e.g. 2e4,1e5"
    );
    let known = || METHODS.iter().chain(&SHARED_METHODS);
    if let Some(unknown) = args
        .methods
        .iter()
        .find(|m| !known().any(|k| k == &m.as_str()))
    {
        anyhow::bail!(
            "unknown method {unknown:?} in --methods; choose from {}",
            known().copied().collect::<Vec<_>>().join(", ")
        );
    }
    anyhow::ensure!(
        args.target_error.is_none() || !args.methods.iter().any(|m| m == "oracle-shared"),
        "--target-error is not available for oracle-shared: it spends its budget"
    );
    let norms = args
        .p
        .iter()
        .map(|p| p.parse::<Norm>())
        .collect::<Result<Vec<_>, _>>()?;
    let scenario = match args.costs {
        JudgeCosts::Random => Scenario::Random,
        JudgeCosts::BadIsExpensive => Scenario::CostQuality(CostStructure::BadIsExpensive),
        JudgeCosts::BadIsCheap => Scenario::CostQuality(CostStructure::BadIsCheap),
        JudgeCosts::Uniform => Scenario::CostQuality(CostStructure::Uniform),
    };
    let shared_errors = args
        .bias_sd
        .map(|bias_sd| -> anyhow::Result<BiasWorld> {
            let world = BiasWorld {
                bias_sd,
                families: args.families.unwrap_or(args.judges),
                family_correlation: args.family_correlation,
            };
            world.check(args.judges)?;
            Ok(world)
        })
        .transpose()?;
    Ok(ExperimentSettings {
        items: args.items,
        judges: args.judges,
        budgets: args.budgets.clone(),
        norms,
        repetitions: args.reps,
        scenario,
        methods: args.methods.clone(),
        seed: args.seed,
        target_error: args.target_error,
        shared_errors,
    })
}
