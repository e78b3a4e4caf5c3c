/// Errors of the game layer: bad matrices, strategies or settings.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GameError {
    /// The matrix is not square, or has fewer than two agents.
    #[error("a payoff matrix must be square with at least 2 agents; found {rows} rows and row {row} of length {length}")]
    Shape {
        /// Number of rows.
        rows: usize,
        /// The first offending row.
        row: usize,
        /// Its length.
        length: usize,
    },
    /// A row-major matrix of the wrong length.
    #[error("a payoff matrix of {agents} agents needs {agents}² = {} values; found {length}", agents * agents)]
    Length {
        /// Agents K.
        agents: usize,
        /// Values given.
        length: usize,
    },
    /// A game needs at least two agents.
    #[error("a game needs at least 2 agents, found {0}")]
    TooFewAgents(usize),
    /// A value is NaN or infinite.
    #[error(
        "payoff ({row}, {column}) is {value}; every payoff must be a finite number in [-1, 1]"
    )]
    NotFinite {
        /// Row.
        row: usize,
        /// Column.
        column: usize,
        /// The value.
        value: f64,
    },
    /// A value lies outside [-1, 1].
    #[error("payoff ({row}, {column}) = {value} lies outside [-1, 1]")]
    OutOfRange {
        /// Row.
        row: usize,
        /// Column.
        column: usize,
        /// The value.
        value: f64,
    },
    /// `A_jk != -A_kj` (or a nonzero diagonal).
    #[error("the matrix is not skew-symmetric: A[{row}][{column}] = {value} but A[{column}][{row}] = {mirror}; payoffs must satisfy A = -A^T with a zero diagonal")]
    NotSkewSymmetric {
        /// Row.
        row: usize,
        /// Column.
        column: usize,
        /// `A[row][column]`.
        value: f64,
        /// `A[column][row]`.
        mirror: f64,
    },
    /// Some pairs were never observed and the caller did not allow treating them as 0.
    #[error("{count} pairs were never observed (first: {first_pair:?}); allow unobserved pairs to treat them as ties (margin 0)")]
    Unobserved {
        /// Number of unobserved pairs.
        count: usize,
        /// The first one, as indices.
        first_pair: (usize, usize),
    },
    /// A strategy that is not a probability vector of the right length.
    #[error("strategy of length {length} for {agents} agents, or with a negative or non-finite entry, or not summing to 1")]
    BadStrategy {
        /// Its length.
        length: usize,
        /// The game's agents.
        agents: usize,
    },
    /// A hard budget below the cheapest agent's cost.
    #[error(
        "budget {limit} is below the cheapest agent's cost {cheapest}; no strategy can meet it"
    )]
    InfeasibleBudget {
        /// The limit given.
        limit: f64,
        /// The cheapest agent's cost.
        cheapest: f64,
    },
    /// A rule that cannot handle this many agents.
    #[error("{rule} orders at most {limit} agents, and this game has {agents}: {reason}")]
    TooManyAgents {
        /// The rule.
        rule: &'static str,
        /// Agents in the game.
        agents: usize,
        /// The most it handles.
        limit: usize,
        /// Why.
        reason: &'static str,
    },
    /// A setting outside its range.
    #[error("{name} = {value} is out of range: {expected}")]
    Setting {
        /// The setting.
        name: &'static str,
        /// Its value.
        value: f64,
        /// What it must be.
        expected: &'static str,
    },
    /// The solver failed.
    #[error("the equilibrium solver failed: {0}")]
    Solver(String),
}
