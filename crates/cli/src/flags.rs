//! How the command line spells the library's settings: by the flag that sets each. The
//! library names settings as data in its messages ([`verdict::settings::Setting`]);
//! `main` installs [`flag`] as this process's spelling, so every error, warning and
//! note reads in flags.

/// Library setting → the flag that sets it.
const FLAGS: &[(&str, &str)] = &[
    ("agents", "--agents"),
    ("alpha", "--alpha"),
    ("allow_unobserved", "--allow-unobserved"),
    ("unobserved", "--unobserved"),
    ("completion_rank", "--completion-rank"),
    ("backbone", "--backbone"),
    ("bootstrap", "--bootstrap"),
    ("both_bad", "--both-bad"),
    ("budget", "--budget"),
    ("categorical", "--categorical"),
    ("ci", "--ci"),
    ("context_columns", "--context-cols"),
    ("contexts", "--contexts"),
    ("costs", "--costs"),
    ("covariates", "--covariates"),
    ("filters", "--filter"),
    ("folds", "--folds"),
    ("collapse_duplicates", "--collapse-duplicates"),
    ("force", "--force"),
    ("fragility", "--fragility"),
    ("group_by", "--group-by"),
    ("input_format", "--input-format"),
    ("judge_col", "--judge-col"),
    ("k", "--k"),
    ("l2", "--l2"),
    ("ledger", "--ledger"),
    ("linear_penalty", "--linear-penalty"),
    ("max_iter", "--max-iter"),
    ("max_votes_per_judge_day", "--max-votes-per-judge-day"),
    ("method", "--method"),
    ("model_a_column", "--model-a-col"),
    ("model_b_column", "--model-b-col"),
    ("n0", "--n0"),
    ("nuisance_design", "--nuisance-design"),
    ("surface_rank", "--surface-rank"),
    ("rank_criterion", "--rank-criterion"),
    ("order_by", "--order-by"),
    ("outlier_alpha", "--outlier-alpha"),
    ("policy", "--policy"),
    ("population", "--population"),
    ("popularity_exponent", "--popularity-exponent"),
    ("preference_scale", "--preference-scale"),
    ("prompt_col", "--prompt-col"),
    ("cycle_strength", "--cycle-strength"),
    ("group_rotation", "--group-rotation"),
    ("group_balance", "--group-balance"),
    ("propensity_column", "--propensity-col"),
    ("propensity_floor", "--propensity-floor"),
    ("propensity_floor_share", "--propensity-floor-share"),
    ("propensity_range", "--propensity-range"),
    ("rho", "--rho"),
    ("robust", "--robust"),
    ("rounds", "--bootstrap"),
    ("selection_tilt", "--selection-slope"),
    ("skip_self_battles", "--skip-self-battles"),
    ("style_control", "--style-control"),
    ("target_error", "--target-error"),
    ("text_column", "--text-col"),
    ("text_dim", "--text-dim"),
    ("encoder", "--encoder"),
    ("normalize_embeddings", "--normalize-embeddings"),
    ("tie_rate", "--tie-rate"),
    ("ties", "--ties"),
    ("time_col", "--time-col"),
    ("tol", "--tol"),
    ("truth", "--truth"),
    ("variant", "--variant"),
    ("voters", "--voters"),
    ("warm", "--warm"),
    ("weight_col", "--weight-col"),
    ("winner_column", "--winner-col"),
];

/// The flag that sets library setting `name`; a setting no flag sets keeps the
/// library's spelling.
pub fn flag(name: &str) -> String {
    FLAGS
        .iter()
        .find(|(setting, _)| *setting == name)
        .map_or_else(
            || verdict::settings::library_spelling(name),
            |(_, f)| (*f).to_owned(),
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_are_spelled_as_flags() {
        assert_eq!(flag("allow_unobserved"), "--allow-unobserved");
        assert_eq!(flag("selection_tilt"), "--selection-slope");
        assert_eq!(flag("no_such_setting"), "`no_such_setting`");
        // Each setting once: a second entry would never be reached.
        let mut names: Vec<&str> = FLAGS.iter().map(|(name, _)| *name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), FLAGS.len());
    }
}
