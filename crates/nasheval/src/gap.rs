//! The empirical gap loss of NashEval Eq. 17,
//! `L_n(theta) = (1/n) sum_i G_Omega(pi_theta(X_i); Â(X_i))`, with the Danskin gradient
//! of Eq. 33 (`-A T(pi) + grad Omega(pi)`: no derivative through the best response)
//! taken through a softmax output layer, for the linear price of Eq. 20 or the soft
//! budget of Eq. 52–53.

use std::borrow::Cow;

use verdict_game::{PayoffMatrix, Regularizer, SoftRegularizer};

use crate::structured::HeadTable;

/// The payoff games a policy is trained and scored on, one per context, read one
/// at a time: held as matrices, or built when read from a structured surface's head
/// rows, which are linear in the agents where the matrices are quadratic.
pub trait GameSet: Sync {
    /// Contexts.
    fn len(&self) -> usize;
    /// Whether there is no game.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Agents K (0 without a game).
    fn agents(&self) -> usize;
    /// The game of context `i`.
    fn game(&self, i: usize) -> Cow<'_, PayoffMatrix>;
    /// The games of contexts `range`, held (for the solver, a chunk at a time).
    fn games(&self, range: std::ops::Range<usize>) -> Vec<PayoffMatrix> {
        range.map(|i| self.game(i).into_owned()).collect()
    }
    /// Numbers held.
    fn values_held(&self) -> usize;
}

/// The games of a fit's training contexts: matrices held, or a structured surface's
/// head rows (held by the fit or borrowed from the cross-fit) built into a game when
/// read.
#[derive(Debug)]
pub enum Games<'a> {
    /// One matrix per context.
    Matrices(Vec<PayoffMatrix>),
    /// One head row per context.
    Heads(Cow<'a, HeadTable>),
}

impl Games<'_> {
    fn set(&self) -> &dyn GameSet {
        match self {
            Self::Matrices(games) => games,
            Self::Heads(table) => table.as_ref(),
        }
    }
}

impl GameSet for Games<'_> {
    fn len(&self) -> usize {
        self.set().len()
    }
    fn agents(&self) -> usize {
        self.set().agents()
    }
    fn game(&self, i: usize) -> Cow<'_, PayoffMatrix> {
        self.set().game(i)
    }
    /// Numbers held by the games themselves (a borrowed table is held by its
    /// owner).
    fn values_held(&self) -> usize {
        match self {
            Self::Heads(Cow::Borrowed(_)) => 0,
            _ => self.set().values_held(),
        }
    }
}

impl GameSet for [PayoffMatrix] {
    fn len(&self) -> usize {
        <[PayoffMatrix]>::len(self)
    }
    fn agents(&self) -> usize {
        self.first().map_or(0, PayoffMatrix::agents)
    }
    fn game(&self, i: usize) -> Cow<'_, PayoffMatrix> {
        Cow::Borrowed(&self[i])
    }
    fn values_held(&self) -> usize {
        self.iter().map(|a| a.agents() * a.agents()).sum()
    }
}

impl GameSet for Vec<PayoffMatrix> {
    fn len(&self) -> usize {
        self.as_slice().len()
    }
    fn agents(&self) -> usize {
        GameSet::agents(self.as_slice())
    }
    fn game(&self, i: usize) -> Cow<'_, PayoffMatrix> {
        Cow::Borrowed(&self[i])
    }
    fn values_held(&self) -> usize {
        GameSet::values_held(self.as_slice())
    }
}

impl GameSet for HeadTable {
    fn len(&self) -> usize {
        self.contexts()
    }
    fn agents(&self) -> usize {
        HeadTable::agents(self)
    }
    fn game(&self, i: usize) -> Cow<'_, PayoffMatrix> {
        Cow::Owned(HeadTable::game(self, i))
    }
    fn values_held(&self) -> usize {
        HeadTable::values_held(self)
    }
}

/// Reusable buffers for [`GapLoss::softmax_gradient`].
#[derive(Debug, Default)]
pub struct GapScratch {
    sort: Vec<f64>,
    response: Vec<f64>,
    gradient: Vec<f64>,
}

/// The per-context gap and its gradient for the fit's regularizer `Omega`.
#[derive(Debug, Clone, PartialEq)]
pub enum GapLoss {
    /// `rho/2 ||pi - 1/K||^2 + c^T pi` (Eq. 74 with the linear price of Eq. 20).
    Priced(Regularizer),
    /// `rho/2 ||pi - 1/K||^2 + phi(c^T pi)` (the soft budget, Eq. 52–53).
    SoftBudget(SoftRegularizer),
}

impl GapLoss {
    /// `G_Omega(pi; A)` (Eq. 30).
    pub fn value(&self, a: &PayoffMatrix, pi: &[f64], scratch: &mut GapScratch) -> f64 {
        scratch.response.resize(pi.len(), 0.0);
        let (sort, response) = (&mut scratch.sort, &mut scratch.response);
        match self {
            Self::Priced(regularizer) => regularizer.gap(a, pi, sort, response),
            Self::SoftBudget(regularizer) => regularizer.gap(a, pi, sort, response),
        }
    }

    /// `G_Omega(softmax(z); A)` and its gradient with respect to the logits `z`,
    /// written into `logit_gradient`: with `g = grad_pi G` (Eq. 33),
    /// `dG/dz = pi ⊙ (g - <pi, g>)` (the softmax Jacobian).
    pub fn softmax_gradient(
        &self,
        a: &PayoffMatrix,
        pi: &[f64],
        scratch: &mut GapScratch,
        logit_gradient: &mut [f64],
    ) -> f64 {
        let gap = self.value(a, pi, scratch);
        scratch.gradient.resize(pi.len(), 0.0);
        let (response, gradient) = (&scratch.response, &mut scratch.gradient);
        match self {
            Self::Priced(regularizer) => regularizer.gap_gradient(a, pi, response, gradient),
            Self::SoftBudget(regularizer) => regularizer.gap_gradient(a, pi, response, gradient),
        }
        let mean: f64 = pi.iter().zip(&scratch.gradient).map(|(p, g)| p * g).sum();
        for ((out, p), g) in logit_gradient.iter_mut().zip(pi).zip(&scratch.gradient) {
            *out = p * (g - mean);
        }
        gap
    }

    /// The mean gap of `policies` (`contexts × K`) on `games`.
    pub fn mean<G: GameSet + ?Sized>(&self, games: &G, policies: &[f64]) -> f64 {
        let mut scratch = GapScratch::default();
        let k = games.agents().max(1);
        let total: f64 = policies
            .chunks(k)
            .take(games.len())
            .enumerate()
            .map(|(i, pi)| self.value(&games.game(i), pi, &mut scratch))
            .sum();
        total / games.len().max(1) as f64
    }
}

/// `K × K` row-major matrices as [`PayoffMatrix`] values.
///
/// # Panics
/// When a matrix is not a valid payoff matrix (the payoff surfaces build them
/// clipped and antisymmetric, so this is a bug).
pub fn payoff_matrices(values: &[f64], agents: usize) -> Vec<PayoffMatrix> {
    values
        .chunks(agents * agents)
        .map(|m| {
            PayoffMatrix::from_row_major(m, agents).expect("a clipped antisymmetric payoff matrix")
        })
        .collect()
}
