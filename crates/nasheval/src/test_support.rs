//! Helpers for the crate's unit tests.

/// Every point of the 3-simplex on the grid of step `1/n`, for brute-force checks
/// of small optimisations.
pub(crate) fn simplex_grid3(n: usize) -> impl Iterator<Item = [f64; 3]> {
    (0..=n)
        .flat_map(move |i| (0..=n - i).map(move |j| [i, j, n - i - j].map(|v| v as f64 / n as f64)))
}
