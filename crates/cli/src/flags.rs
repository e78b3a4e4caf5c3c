//! The library names its settings in backticks (`` `allow_unobserved` ``); the command
//! line says which flag sets each. Messages and notes pass through [`in_flags`].

/// Library setting → the flag that sets it.
const FLAGS: &[(&str, &str)] = &[
    ("agents", "--agents"),
    ("allow_unobserved", "--allow-unobserved"),
    ("bootstrap", "--bootstrap"),
    ("budget", "--budget"),
    ("categorical", "--categorical"),
    ("ci", "--ci"),
    ("context_columns", "--context-cols"),
    ("contexts", "--contexts"),
    ("costs", "--costs"),
    ("covariates", "--covariates"),
    ("filters", "--filter"),
    ("force", "--force"),
    ("group_by", "--group-by"),
    ("input_format", "--input-format"),
    ("l2", "--l2"),
    ("ledger", "--ledger"),
    ("linear_penalty", "--linear-penalty"),
    ("max_iter", "--max-iter"),
    ("method", "--method"),
    ("model_a_column", "--model-a-col"),
    ("model_b_column", "--model-b-col"),
    ("nuisance_design", "--nuisance-design"),
    ("order_by", "--order-by"),
    ("policy", "--policy"),
    ("popularity_exponent", "--popularity-exponent"),
    ("preference_scale", "--preference-scale"),
    ("propensity_floor", "--propensity-floor"),
    ("propensity_floor_share", "--propensity-floor-share"),
    ("propensity_range", "--propensity-range"),
    ("rho", "--rho"),
    ("robust", "--robust"),
    ("selection_tilt", "--selection-slope"),
    ("skip_self_battles", "--skip-self-battles"),
    ("style_control", "--style-control"),
    ("text_column", "--text-col"),
    ("text_dim", "--text-dim"),
    ("tie_rate", "--tie-rate"),
    ("ties", "--ties"),
    ("truth", "--truth"),
    ("variant", "--variant"),
    ("voters", "--voters"),
    ("winner_column", "--winner-col"),
];

/// `text` with every backticked library setting replaced by its flag.
pub fn in_flags(text: &str) -> String {
    FLAGS
        .iter()
        .fold(text.to_string(), |text, (setting, flag)| {
            text.replace(&format!("`{setting}`"), flag)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_become_flags_and_other_text_stays() {
        assert_eq!(
            in_flags("set `allow_unobserved` to count them; use `ties` half; `other`"),
            "set --allow-unobserved to count them; use --ties half; `other`"
        );
    }
}
