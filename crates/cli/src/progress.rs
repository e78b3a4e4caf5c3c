use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A progress bar on standard error, hidden when `quiet`, when stderr is not a
/// terminal, or when there is nothing to count.
pub fn bar(total: usize, message: &str, quiet: bool) -> ProgressBar {
    if quiet || total == 0 || !std::io::stderr().is_terminal() {
        return ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::hidden());
    }
    let bar = ProgressBar::new(total as u64);
    bar.set_style(
        ProgressStyle::with_template("{msg} [{bar:40}] {pos}/{len} ({eta})")
            .expect("valid template")
            .progress_chars("=> "),
    );
    bar.set_message(message.to_owned());
    bar
}
