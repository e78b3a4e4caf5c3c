//! A NashEval fit for people: the summary table of `verdict fit` and the notes (the
//! searches run, floored propensities, a collapsed network) that go with it.

use std::fmt::Write as _;
use verdict_settings::Setting;

use verdict_nasheval::structured::StructuredReport;
use verdict_nasheval::tune::Tuned;
use verdict_nasheval::{
    FitOptions, GlobalDetail, GlobalPolicy, NashEvalModel, NuisanceDesign, PolicyRule, Predictions,
    TrainingReport, Variant, WinnerFrequency,
};

use crate::html::{bar_chart, html_table, note_list, page, section};
use crate::nasheval_figures::{propensity_svg, training_curve_svg, winners_figure};
use crate::{ReportError, TextTable};

/// The propensity floor in words: a number, or relative to each menu's rate
/// ([`verdict_nasheval::menu_floors`]).
pub fn floor_text(options: &FitOptions) -> String {
    if options.propensity_floor_share > 0.0 {
        format!(
            "the smaller of {} and {} times the menu's selection rate",
            options.propensity_floor, options.propensity_floor_share
        )
    } else {
        options.propensity_floor.to_string()
    }
}

/// One LightGBM search over Table 14, in a line.
fn tuning_line(t: &Tuned) -> String {
    format!(
        "tuned over {} grid points: learning rate {}, {} leaves, depth {}, {} rows per leaf, L2 {}, feature fraction {} (3-fold loss {:.5})",
        t.points,
        t.params.learning_rate,
        t.params.num_leaves,
        t.params.max_depth,
        t.params.min_data_in_leaf,
        t.params.lambda_l2,
        t.params.feature_fraction,
        t.loss
    )
}

/// What a person should know about a fit besides its summary: the searches run, the
/// out-of-fold propensities raised to the floor, and a policy network that ignored
/// the contexts (retrained from the solver, or replaced by it). Library setting names
/// are in backticks. `contexts × menus` propensities were estimated.
pub fn fit_notes(model: &NashEvalModel) -> Vec<String> {
    let s = &model.summary;
    let o = &model.options;
    let mut notes: Vec<String> = s.learner_tuning.iter().map(tuning_line).collect();
    if let Some(t) = &s.network_tuning {
        let n = &t.options;
        notes.push(format!(
            "tuned the network over {} grid points on {} contexts: width {}, learning rate {}, weight decay {}, batches of {} (held-out gap {:.5})",
            t.points, t.contexts, n.hidden, n.learning_rate, n.weight_decay, n.batch_size, t.validation_gap
        ));
    }
    if let Some(d) = s
        .context_dependence
        .as_ref()
        .filter(|d| d.argmax_differs == 0.0 && d.mean_total_variation < IGNORES_CONTEXT_TV)
        // A global baseline plays one policy by design.
        .filter(|_| !o.rule.is_global())
    {
        notes.push(format!(
            "warning: the policy ignores the context: at every one of {} training contexts it plays (within total variation {IGNORES_CONTEXT_TV}) the equilibrium of the mean game; a router from it sends every request the same way — compare it with a global lottery before routing on it",
            d.contexts
        ));
    }
    if s.clipped_propensities > 0 {
        let of = if s.feedback_records > 0 {
            format!(" of {}", s.feedback_records)
        } else {
            String::new()
        };
        notes.push(format!(
            "warning: {}{of} out-of-fold propensities of the selected menus were below {} and were raised to it ({propensity_floor}{}); a raised propensity shrinks its correction term: less variance, and less of the outcome model's error corrected",
            s.clipped_propensities,
            floor_text(o),
            if o.propensity_floor_share > 0.0 {
                format!(", {}", Setting("propensity_floor_share"))
            } else {
                String::new()
            },
            propensity_floor = Setting("propensity_floor")
        ));
    }
    if let Some(cold) = &s.collapsed_training {
        let retrained = s.training.as_ref();
        notes.push(format!(
            "warning: the policy network's held-out gap {:.4} was no better than a constant policy's ({:.4}): it ignored the contexts (a saturated softmax), so it was trained again from the solver's equilibria: held-out gap {:.4}{}",
            cold.validation_gap,
            cold.constant_gap.unwrap_or(f64::NAN),
            retrained.map_or(f64::NAN, |t| t.validation_gap),
            if s.solver_fallback {
                format!("; still no better, so the model uses the solver policy (as with {policy} solver)", policy = Setting("policy"))
            } else {
                String::new()
            }
        ));
    } else if s.solver_fallback {
        notes.push(
            format!("warning: the policy network's held-out gap was no better than a constant policy's (it ignored the contexts), so the model uses the solver policy (as with {policy} solver)", policy = Setting("policy")),
        );
    }
    notes
}

/// A network training's epochs (with `detail` after the count), kept epoch and
/// held-out gaps.
fn training_line(t: &TrainingReport, detail: &str) -> String {
    format!(
        "{} epochs{detail} (kept {}), held-out gap {:.5} (best constant policy {:.5})",
        t.epochs,
        t.best_epoch,
        t.validation_gap,
        t.constant_gap.unwrap_or(f64::NAN)
    )
}

/// A structured model's rank and the held-out loss of the global scores and of
/// each candidate rank, e.g. `rank 1 of held-out log loss: global 0.69315, r=0
/// 0.67750, r=1 0.50766`.
fn structure_line(report: &StructuredReport, loss: &str) -> String {
    let candidates: Vec<String> = report
        .candidates
        .iter()
        .map(|c| format!("r={} {:.5}", c.rank, c.held_out_loss))
        .collect();
    format!(
        "rank {} of held-out {loss}: global {:.5}, {}",
        report.rank,
        report.global_held_out_loss,
        candidates.join(", ")
    )
}

/// Below this mean total-variation distance from the global policy, with the same
/// argmax everywhere, a fit's policy is said to ignore the context.
pub const IGNORES_CONTEXT_TV: f64 = 0.01;

/// The summary table of a fit written to `model_name` in `seconds` (when known: a
/// loaded model does not record its time): data, folds,
/// backbones, nuisance losses, stage times, the candidates' held-out risks, the
/// chosen surface, the network's training and the final gap.
pub fn fit_summary(model: &NashEvalModel, model_name: &str, seconds: Option<f64>) -> String {
    let s = &model.summary;
    let o = &model.options;
    let mut text = String::new();
    let _ = writeln!(
        text,
        "NashEval fit: {} contexts, {} agents, {} features, {} menus{}",
        s.contexts,
        model.agents.len(),
        model.feature_names.len(),
        model.menus.len(),
        seconds.map_or(String::new(), |s| format!(" ({s:.1} s)"))
    );
    if !s.fold_sizes.is_empty() {
        let sizes: Vec<String> = s.fold_sizes.iter().map(ToString::to_string).collect();
        let _ = writeln!(text, "folds                 {}", sizes.join(", "));
        // A structured design's outcome and propensity models are its perceptrons,
        // whatever backbone the options name.
        let structured = s.nuisance_design == Some(NuisanceDesign::Structured);
        let name = |backbone: &verdict_nasheval::backbone::Backbone| {
            if structured {
                "structured"
            } else {
                backbone.name()
            }
        };
        let _ = writeln!(
            text,
            "backbones             outcome {}, propensity {}, payoff {} ({:?})",
            name(&o.outcome_backbone),
            name(&o.propensity_backbone),
            o.payoff_backbone.name(),
            o.regression
        );
        if s.logged_propensities {
            let _ = writeln!(
                text,
                "propensities          logged (the log's own, no propensity model)"
            );
        } else {
            let _ = writeln!(
                text,
                "clipped propensities  {} (floor {})",
                s.clipped_propensities,
                floor_text(o)
            );
        }
        if let Some(design) = s.nuisance_design {
            let sparse = s.sparse_menus.len();
            let _ = writeln!(
                text,
                "outcome models        {}{}",
                match design {
                    NuisanceDesign::Pooled => "pooled over menus",
                    NuisanceDesign::Structured =>
                        "structured (agent scores and cyclic coordinates)",
                    _ => "per menu",
                },
                if sparse > 0 {
                    format!(" ({sparse} menus missing from some fold's training contexts)")
                } else {
                    String::new()
                }
            );
        }
        if let Some(outcome) = s.outcome_loss {
            let _ = writeln!(text, "outcome MSE (OOF)     {outcome:.5}");
        }
        if let Some(propensity) = s.propensity_loss {
            let _ = writeln!(text, "propensity log loss   {propensity:.5}");
        }
    }
    if !s.stage_seconds.is_empty() {
        let stages: Vec<String> = s
            .stage_seconds
            .iter()
            .map(|(stage, seconds)| format!("{stage} {seconds:.1}"))
            .collect();
        let _ = writeln!(text, "seconds by stage      {}", stages.join(", "));
    }
    for c in &s.candidates {
        let paired = c.difference.map_or(String::new(), |(d, se)| {
            format!("  ({d:+.5} ± {se:.5} against plugin, paired)")
        });
        let _ = writeln!(
            text,
            "risk {:<16} {:.5} ± {:.5}{paired}",
            c.name, c.risk, c.standard_error
        );
    }
    if let Some(first) = s.outcome_structure.first() {
        let _ = writeln!(
            text,
            "outcome structure     {}",
            structure_line(first, "log loss")
        );
    }
    if let Some(choice) = &s.rank_choice {
        rank_choice_lines(&mut text, choice);
    }
    if let Some(report) = &s.payoff_structure {
        let _ = writeln!(
            text,
            "payoff structure      {}",
            structure_line(report, "squared error")
        );
    }
    if let Some(chosen) = s.chosen {
        let regression = match (chosen, s.chosen_regression) {
            (Variant::Plugin, _) | (_, None) => String::new(),
            (_, Some(r)) => format!(" ({r:?} payoff regression)"),
        };
        let _ = writeln!(text, "payoff surface        {chosen:?}{regression}");
    }
    if o.rule != PolicyRule::Equilibrium {
        let rule = serde_json::to_value(o.rule)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        match &model.global {
            Some(global) => {
                let _ = writeln!(
                    text,
                    "policy                {rule}, one lottery for every context from the training verdicts (NashEval Appendix I.3)"
                );
                global_lines(&mut text, &model.agents, global);
            }
            None => {
                let _ = writeln!(
                    text,
                    "policy                {rule}, a baseline computed per context from the surface (NashEval Appendix I.3)"
                );
            }
        }
    }
    if let Some(t) = &s.collapsed_training {
        let _ = writeln!(text, "network (collapsed)   {}", training_line(t, ""));
    }
    if let Some(t) = &s.training {
        let distilled = if t.distilled_epochs > 0 {
            format!(
                ", the first {} distilling the solver's equilibria",
                t.distilled_epochs
            )
        } else {
            String::new()
        };
        let fallback = if s.solver_fallback {
            "; collapsed, policy is the solver"
        } else {
            ""
        };
        let _ = writeln!(
            text,
            "network               {}{fallback}",
            training_line(t, &distilled)
        );
    }
    let _ = writeln!(text, "final gap (train)     {:.6}", s.final_gap);
    if let Some(d) = &s.context_dependence {
        let _ = writeln!(
            text,
            "context dependence    argmax off the global policy at {:.1}% of {} training contexts, mean TV distance {:.4}",
            100.0 * d.argmax_differs,
            d.contexts,
            d.mean_total_variation
        );
    }
    let _ = writeln!(text, "model                 {model_name}");
    text
}

/// Predictions as JSON: one object per context with `context_id`, `equilibrium` (agent →
/// probability), `winners` and, when present, `payoff` (rows of `Â(x)`).
pub fn predictions_json(p: &Predictions) -> String {
    let rows: Vec<serde_json::Value> = p
        .ids
        .iter()
        .enumerate()
        .map(|(i, id)| {
            let equilibrium: serde_json::Map<String, serde_json::Value> = p
                .agents
                .iter()
                .zip(p.probabilities_of(i))
                .map(|(a, &q)| (a.clone(), serde_json::json!(q)))
                .collect();
            let mut row = serde_json::json!({
                "context_id": id,
                "equilibrium": equilibrium,
                "winners": p.winners[i],
            });
            if let Some(matrix) = p.payoff_rows(i) {
                row["payoff"] = serde_json::json!(matrix);
            }
            row
        })
        .collect();
    serde_json::to_string_pretty(&rows).expect("JSON values serialise") + "\n"
}

/// Predictions as CSV: `context_id`, one column per agent, `winners` joined by `;`,
/// and, when present, `payoff` as a JSON matrix.
///
/// # Errors
/// [`ReportError::Csv`] should the writer fail.
pub fn predictions_csv(p: &Predictions) -> Result<String, ReportError> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    let mut header = vec!["context_id".to_string()];
    header.extend(p.agents.iter().map(|a| crate::spreadsheet_safe(a)));
    header.push("winners".into());
    if p.payoffs.is_some() {
        header.push("payoff".into());
    }
    writer.write_record(&header)?;
    for (i, id) in p.ids.iter().enumerate() {
        let mut record = vec![crate::spreadsheet_safe(id)];
        record.extend(p.probabilities_of(i).iter().map(f64::to_string));
        record.push(crate::spreadsheet_safe(&p.winners[i].join(";")));
        if let Some(matrix) = p.payoff_rows(i) {
            record.push(serde_json::to_string(&matrix).expect("numbers serialise"));
        }
        writer.write_record(&record)?;
    }
    let bytes = writer
        .into_inner()
        .map_err(|e| ReportError::Csv(e.into_error().into()))?;
    Ok(String::from_utf8(bytes).expect("CSV of UTF-8 text is UTF-8"))
}

/// What a NashEval page shows besides the fit itself.
#[derive(Debug, Clone, Default)]
pub struct FitPage<'a> {
    /// Winner frequency of the model's policy by a context attribute, with the
    /// attribute's name (NashEval Figure 4).
    pub winners: Option<(&'a str, &'a WinnerFrequency)>,
    /// The truth's winner frequency over the same contexts (a simulation).
    pub true_winners: Option<&'a WinnerFrequency>,
    /// Scores on a simulation's test contexts, the model's first.
    pub scores: Vec<PolicyScoreRow>,
}

/// One policy scored against a simulation's truth (NashEval Appendix I.1).
#[derive(Debug, Clone, PartialEq)]
pub struct PolicyScoreRow {
    /// The policy, in words.
    pub policy: String,
    /// Mean unregularized exploitability (Eq. 69).
    pub exploitability: f64,
    /// Mean support F1 at `tau = 1e-3` (Eq. 70).
    pub support_f1: f64,
    /// Mean game value against the true equilibrium (Eq. 71).
    pub game_value: f64,
}

/// Policies scored against a simulation's truth as a section ("Against the truth":
/// a table and exploitability as bars); nothing when there are none.
pub fn score_sections(scores: &[PolicyScoreRow]) -> String {
    let mut body = String::new();
    if !scores.is_empty() {
        section(&mut body, "Against the truth", &scores_table(scores));
    }
    body
}

/// The scores as a table and exploitability as bars.
fn scores_table(scores: &[PolicyScoreRow]) -> String {
    let mut table = TextTable::new([
        "policy",
        "exploitability",
        "support F1",
        "game value vs the truth",
    ]);
    for s in scores {
        table.push(vec![
            s.policy.clone(),
            format!("{:.4}", s.exploitability),
            format!("{:.3}", s.support_f1),
            format!("{:+.4}", s.game_value),
        ]);
    }
    let bars: Vec<(String, f64)> = scores
        .iter()
        .map(|s| (s.policy.clone(), s.exploitability))
        .collect();
    format!(
        "<p>On the simulation's test contexts; lower exploitability is better, 0 is the true equilibrium.</p>{}{}",
        html_table(&table),
        bar_chart("exploitability", &bars, "")
    )
}

/// A menu's agents joined: `A vs B` for a pair, `A, B, C` otherwise.
fn menu_name(model: &NashEvalModel, menu: &[usize]) -> String {
    let names: Vec<&str> = menu.iter().map(|&a| model.agents[a].as_str()).collect();
    if names.len() == 2 {
        names.join(" vs ")
    } else {
        names.join(", ")
    }
}

/// The fit's sections (for [`fit_html`] or a page of several parts): the summary
/// `verdict fit` prints, the time of each stage, the held-out risks behind `auto`'s
/// choice of surface, the propensities per menu, the network's training curve, the
/// notes, and what `extras` carries.
pub fn fit_sections(
    model: &NashEvalModel,
    model_name: &str,
    seconds: Option<f64>,
    extras: &FitPage<'_>,
) -> String {
    let s = &model.summary;
    let mut body = String::new();
    let summary = fit_summary(model, model_name, seconds);
    section(
        &mut body,
        "Fit",
        &format!("<pre>{}</pre>", html_escape::encode_text(&summary)),
    );
    if let Some(global) = &model.global {
        let bars: Vec<(String, f64)> = model
            .agents
            .iter()
            .cloned()
            .zip(global.probabilities.iter().copied())
            .collect();
        section(
            &mut body,
            "One lottery for every context",
            &bar_chart("global-lottery", &bars, ""),
        );
    }
    body.push_str(&score_sections(&extras.scores));
    if let Some((column, winners)) = extras.winners {
        section(
            &mut body,
            &format!("Who wins where, by {column}"),
            &winners_figure(column, winners, extras.true_winners),
        );
    }
    if !s.stage_seconds.is_empty() {
        section(
            &mut body,
            "Time per stage",
            &bar_chart("stage-seconds", &s.stage_seconds, "s"),
        );
    }
    if !s.candidates.is_empty() {
        let mut table = TextTable::new([
            "surface",
            "held-out risk",
            "standard error",
            "paired difference from the plug-in",
        ]);
        for c in &s.candidates {
            table.push(vec![
                c.name.clone(),
                format!("{:.5}", c.risk),
                format!("{:.5}", c.standard_error),
                c.difference
                    .map_or_else(|| "-".into(), |(d, e)| format!("{d:+.5} ± {e:.5}")),
            ]);
        }
        // The surface chosen is named in the summary above ("payoff surface").
        section(&mut body, "Held-out choice of surface", &html_table(&table));
    }
    if let Some(histogram) = &s.propensities {
        let names: Vec<String> = model.menus.iter().map(|m| menu_name(model, m)).collect();
        section(
            &mut body,
            "Propensities per menu",
            &propensity_svg(histogram, &names, model.options.propensity_floor),
        );
    }
    if let Some(training) = &s.training {
        section(&mut body, "Network training", &training_curve_svg(training));
    }
    let notes = fit_notes(model);
    if !notes.is_empty() {
        section(&mut body, "Notes", &note_list(&notes));
    }
    body
}

/// The fit as one self-contained HTML page ([`fit_sections`]).
pub fn fit_html(
    model: &NashEvalModel,
    model_name: &str,
    seconds: Option<f64>,
    extras: &FitPage<'_>,
) -> String {
    let body = fit_sections(model, model_name, seconds, extras);
    page(&format!("verdict fit: {model_name}"), &body)
}

/// The lines of a global baseline: its lottery, and the robust lottery's groups and
/// radius or the pluralistic leaderboard's ranking and stability.
fn global_lines(text: &mut String, agents: &[String], global: &GlobalPolicy) {
    let lottery: Vec<String> = global
        .probabilities
        .iter()
        .zip(agents)
        .filter(|(p, _)| **p > 1e-9)
        .map(|(p, a)| format!("{a} {p:.4}"))
        .collect();
    let _ = writeln!(text, "lottery               {}", lottery.join(", "));
    match &global.detail {
        GlobalDetail::Lottery => {}
        GlobalDetail::RobustLottery {
            column,
            groups,
            weights,
            radius,
            worst_case,
        } => {
            let shares: Vec<String> = groups
                .iter()
                .zip(weights)
                .map(|(g, w)| format!("{g} {w:.3}"))
                .collect();
            let label = format!("groups ({column})");
            let _ = writeln!(text, "{label:<22}{}", shares.join(", "));
            let _ = writeln!(
                text,
                "radius                {radius:.4}; worst-case payoff {worst_case:.4}"
            );
        }
        GlobalDetail::Pluralistic(board) => {
            let ranking: Vec<&str> = board.ranking.iter().map(|&j| agents[j].as_str()).collect();
            let _ = writeln!(text, "ranking               {}", ranking.join(" > "));
            let stability: Vec<String> = board
                .prefix_stability
                .iter()
                .enumerate()
                .map(|(k, s)| format!("top {}: {s:.3}", k + 1))
                .collect();
            let _ = writeln!(
                text,
                "local stability       {} (largest share preferring one model to the whole prefix; {} prompts)",
                stability.join(", "),
                board.prompts
            );
            if board.truncated {
                let _ = writeln!(
                    text,
                    "note                  committees past size {} were too many to enumerate; the rest of the ranking is by mean score",
                    board.checkpoints.last().map_or(0, |c| c.size)
                );
            }
        }
    }
}

/// The rank choice's lines: what chose, every candidate's estimate beside its battle
/// log loss and cyclic share, and the transitivity test.
pub fn rank_choice_lines(text: &mut String, choice: &verdict_nasheval::rank_choice::RankChoice) {
    use verdict_nasheval::RankCriterion;
    let how = match choice.criterion {
        RankCriterion::LogLoss => "by the verdicts' held-out log loss",
        RankCriterion::Exploitability if choice.transitivity.rejects => {
            "by held-out exploitability, the simplest cyclic rank within one standard error of the lowest (rank 0 refused: the transitivity test rejects)"
        }
        RankCriterion::Exploitability => {
            "by held-out exploitability, the simplest rank within one standard error of the lowest"
        }
    };
    let _ = writeln!(
        text,
        "rank choice           r = {} {how}, on {} contexts; lowest r = {}, log loss chose r = {}",
        choice.chosen, choice.contexts, choice.lowest, choice.by_log_loss
    );
    for c in &choice.candidates {
        let _ = writeln!(
            text,
            "  r = {:<2} exploitability {:.4} ± {:.4} ({:+.4} ± {:.4} paired, attacked by r = {}), battle log loss {:.5}, cyclic share {:.3}",
            c.rank,
            c.exploitability,
            c.standard_error,
            c.difference.0,
            c.difference.1,
            c.attacker,
            c.battle_log_loss,
            c.cyclic_share
        );
    }
    let t = &choice.transitivity;
    let verdict = if t.rejects {
        "rejected: a cyclic surface predicts held-out battles better than a contextual Bradley–Terry one"
    } else {
        "not rejected: the held-out battles cannot tell the cyclic ranks from a contextual Bradley–Terry surface"
    };
    let _ = writeln!(
        text,
        "transitivity          {verdict} (z = {:.2}, p = {:.3}, level {})",
        t.statistic, t.p_value, t.level
    );
}
