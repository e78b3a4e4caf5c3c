use crate::GameError;

/// Largest `|A_jk + A_kj|` accepted as skew-symmetric (and `|A_jj|` as zero).
pub const SKEW_TOLERANCE: f64 = 1e-12;

/// Checks a per-agent cost vector: one finite cost for each of `agents` agents.
pub(crate) fn check_costs(costs: &[f64], agents: usize) -> Result<(), GameError> {
    if costs.len() != agents || costs.iter().any(|c| !c.is_finite()) {
        return Err(GameError::Solver(format!(
            "{} costs for {agents} agents, or a cost that is not finite",
            costs.len()
        )));
    }
    Ok(())
}

/// `x^T y` with eight independent partial sums, so that the compiler can vectorize
/// it and the additions do not wait on each other (a plain fold is a serial chain).
pub(crate) fn dot(x: &[f64], y: &[f64]) -> f64 {
    const LANES: usize = 8;
    let mut partial = [0.0; LANES];
    let (x_chunks, y_chunks) = (x.chunks_exact(LANES), y.chunks_exact(LANES));
    let tail: f64 = x_chunks
        .remainder()
        .iter()
        .zip(y_chunks.remainder())
        .map(|(a, b)| a * b)
        .sum();
    for (xs, ys) in x_chunks.zip(y_chunks) {
        for lane in 0..LANES {
            partial[lane] += xs[lane] * ys[lane];
        }
    }
    partial.iter().sum::<f64>() + tail
}

/// `value` when it may stand at `(row, column)` of a payoff matrix: finite and in
/// `[-1, 1]`.
fn checked_entry(row: usize, column: usize, value: f64) -> Result<f64, GameError> {
    if !value.is_finite() {
        return Err(GameError::NotFinite { row, column, value });
    }
    if value.abs() > 1.0 {
        return Err(GameError::OutOfRange { row, column, value });
    }
    Ok(value)
}

/// Writes the `K × K` row-major matrix with `A_jk` above the diagonal as
/// `fill(j, entries)` writes them (`A_j,j+1 … A_j,K−1`, a contiguous slice), its
/// negative below and zeros on it, into `out[..K²]`; unchecked (callers check or
/// trust the entries). The mirror is written a row below the diagonal at a time,
/// reading across rows rather than writing across them.
pub fn skew_from_upper_rows_into(
    agents: usize,
    out: &mut [f64],
    mut fill: impl FnMut(usize, &mut [f64]),
) {
    for row in 0..agents {
        out[row * agents + row] = 0.0;
        fill(row, &mut out[row * agents + row + 1..(row + 1) * agents]);
    }
    for row in 1..agents {
        for column in 0..row {
            out[row * agents + column] = -out[column * agents + row];
        }
    }
}

/// A skew-symmetric payoff matrix with entries in `[-1, 1]`, row-major.
/// `A_jk > 0`: agent j is preferred to agent k (NashEval Section 3).
#[derive(Debug, Clone, PartialEq)]
pub struct PayoffMatrix {
    agents: usize,
    values: Vec<f64>,
}

impl PayoffMatrix {
    /// Checks and stores `rows`.
    ///
    /// # Errors
    /// [`GameError`] for a non-square matrix, fewer than two agents, NaN or infinite
    /// values, values outside `[-1, 1]`, or a matrix that is not skew-symmetric within
    /// [`SKEW_TOLERANCE`].
    pub fn new(rows: &[Vec<f64>]) -> Result<Self, GameError> {
        let agents = rows.len();
        if let Some((row, r)) = rows.iter().enumerate().find(|(_, r)| r.len() != agents) {
            return Err(GameError::Shape {
                rows: agents,
                row,
                length: r.len(),
            });
        }
        let values: Vec<f64> = rows.iter().flatten().copied().collect();
        Self::from_row_major(&values, agents)
    }

    /// Checks and stores a K × K matrix given row-major (`values[j * K + k]`), with the
    /// rules of [`PayoffMatrix::new`].
    ///
    /// # Errors
    /// As [`PayoffMatrix::new`], and [`GameError::Length`] unless there are `agents²`
    /// values.
    pub fn from_row_major(values: &[f64], agents: usize) -> Result<Self, GameError> {
        if values.len() != agents * agents {
            return Err(GameError::Length {
                agents,
                length: values.len(),
            });
        }
        if agents < 2 {
            return Err(GameError::TooFewAgents(agents));
        }
        for row in 0..agents {
            for column in 0..agents {
                let value = checked_entry(row, column, values[row * agents + column])?;
                let mirror = values[column * agents + row];
                if (value + mirror).abs() > SKEW_TOLERANCE {
                    return Err(GameError::NotSkewSymmetric {
                        row,
                        column,
                        value,
                        mirror,
                    });
                }
            }
        }
        Ok(Self {
            agents,
            values: values.to_vec(),
        })
    }

    /// The K × K matrix with `A_jk = upper(j, k)` above the diagonal and its negative
    /// below: skew-symmetric by construction, so only finiteness and range are
    /// checked, once per pair. For payoff surfaces that build a game per context
    /// many times over (no row-major copy and no mirror reads).
    ///
    /// # Errors
    /// [`GameError::TooFewAgents`], and [`GameError::NotFinite`] or
    /// [`GameError::OutOfRange`] naming the first bad entry above the diagonal.
    pub fn from_upper(
        agents: usize,
        mut upper: impl FnMut(usize, usize) -> f64,
    ) -> Result<Self, GameError> {
        Self::from_upper_rows(agents, |row, entries| {
            for (offset, entry) in entries.iter_mut().enumerate() {
                *entry = upper(row, row + 1 + offset);
            }
        })
    }

    /// [`Self::from_upper`] a row at a time: `fill(j, entries)` writes
    /// `A_j,j+1 … A_j,K−1` into `entries` (length `K − 1 − j`), a contiguous slice a
    /// surface can compute in one vectorizable loop; the entries are then checked as
    /// a slice and mirrored below the diagonal.
    ///
    /// # Errors
    /// As [`Self::from_upper`].
    pub fn from_upper_rows(
        agents: usize,
        mut fill: impl FnMut(usize, &mut [f64]),
    ) -> Result<Self, GameError> {
        if agents < 2 {
            return Err(GameError::TooFewAgents(agents));
        }
        let mut values = vec![0.0; agents * agents];
        let mut first_error = None;
        skew_from_upper_rows_into(agents, &mut values, |row, entries| {
            fill(row, entries);
            // A fold without early exit, so that it vectorizes; `|v| <= 1` is false
            // for NaN too. The precise error is looked up only when one is there.
            if first_error.is_none() && !entries.iter().fold(true, |ok, v| ok & (v.abs() <= 1.0)) {
                first_error = entries
                    .iter()
                    .enumerate()
                    .find_map(|(offset, &value)| checked_entry(row, row + 1 + offset, value).err());
            }
        });
        match first_error {
            Some(error) => Err(error),
            None => Ok(Self { agents, values }),
        }
    }

    /// The margin matrix of pairwise counts (NashEval Eq. 78): `A_jk` is the mean
    /// verdict of the battles between j and k, `(w_jk - w_kj) / (w_jk + w_kj + t_jk)`,
    /// ties counting 0. Pairs never observed are 0 when `allow_unobserved`, else an
    /// error; either way they are returned, as `(j, k)` with `j < k`.
    ///
    /// # Errors
    /// Shape errors, negative or non-finite counts, unobserved pairs when not allowed.
    pub fn from_counts(
        wins: &[Vec<f64>],
        ties: &[Vec<f64>],
        allow_unobserved: bool,
    ) -> Result<(Self, Vec<(usize, usize)>), GameError> {
        let agents = wins.len();
        let mut rows = vec![vec![0.0; agents]; agents];
        let mut unobserved = Vec::new();
        let pairs = (0..agents).flat_map(|j| ((j + 1)..agents).map(move |k| (j, k)));
        for (j, k) in pairs {
            {
                let get = |m: &[Vec<f64>], r: usize, c: usize| {
                    m.get(r).and_then(|row| row.get(c)).copied()
                };
                let (Some(w_jk), Some(w_kj), Some(t)) =
                    (get(wins, j, k), get(wins, k, j), get(ties, j, k))
                else {
                    return Err(GameError::Shape {
                        rows: agents,
                        row: j,
                        length: wins
                            .get(j)
                            .map_or(0, Vec::len)
                            .min(ties.get(j).map_or(0, Vec::len)),
                    });
                };
                for (value, (r, c)) in [(w_jk, (j, k)), (w_kj, (k, j)), (t, (j, k))] {
                    if !(value.is_finite() && value >= 0.0) {
                        return Err(GameError::NotFinite {
                            row: r,
                            column: c,
                            value,
                        });
                    }
                }
                let total = w_jk + w_kj + t;
                if total == 0.0 {
                    unobserved.push((j, k));
                    continue;
                }
                rows[j][k] = (w_jk - w_kj) / total;
                rows[k][j] = -rows[j][k];
            }
        }
        if let (false, Some(&first_pair)) = (allow_unobserved, unobserved.first()) {
            return Err(GameError::Unobserved {
                count: unobserved.len(),
                first_pair,
            });
        }
        Ok((Self::new(&rows)?, unobserved))
    }

    /// Number of agents K.
    pub fn agents(&self) -> usize {
        self.agents
    }

    /// `A_jk`.
    pub fn get(&self, j: usize, k: usize) -> f64 {
        self.values[j * self.agents + k]
    }

    /// Every entry, row-major (`A_jk` at `j · K + k`).
    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// Row j.
    pub fn row(&self, j: usize) -> &[f64] {
        &self.values[j * self.agents..(j + 1) * self.agents]
    }

    /// `A x` written into `out` (no allocation).
    pub fn apply_into(&self, x: &[f64], out: &mut [f64]) {
        for (j, o) in out.iter_mut().enumerate() {
            *o = dot(self.row(j), x);
        }
    }

    /// `A x`.
    pub fn apply(&self, x: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0; self.agents];
        self.apply_into(x, &mut out);
        out
    }

    /// The sub-game on `agents` (in that order).
    pub fn restricted(&self, agents: &[usize]) -> PayoffMatrix {
        PayoffMatrix {
            agents: agents.len(),
            values: agents
                .iter()
                .flat_map(|&j| agents.iter().map(move |&k| (j, k)))
                .map(|(j, k)| self.get(j, k))
                .collect(),
        }
    }
}
