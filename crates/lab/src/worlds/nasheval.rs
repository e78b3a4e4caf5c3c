//! The simulated agent-evaluation data of NashEval Appendix G: contexts in `[0,1]^5`,
//! K = 5 agents with context-dependent performance on p = 12 criteria, a finite
//! population of voters with different priorities, menus selected at random with
//! context-dependent propensities, and the exact ground truth — margins `M(x)`
//! (Eq. 61), payoff matrices `A(x)` (Eq. 66–67), nuisances `mu0^m(x)` and `e0^m(x)`.
//!
//! Everything of one replication (fields, specialization, voter pool, selection
//! direction) comes from [`World::draw`] with the replication's seed; contexts and
//! feedback draw from their own seeded streams, so the nine modality–population
//! settings of a replication share the world and the contexts (Appendix G.4).

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Dirichlet, Distribution, Normal, StandardNormal};

/// Agents K.
pub const AGENTS: usize = 5;
/// Context dimensions d.
pub const DIMENSIONS: usize = 5;
/// Performance criteria p, in three groups of four.
pub const CRITERIA: usize = 12;
/// Random Fourier features per field D.
pub const FOURIER_FEATURES: usize = 128;
/// Field length scale `l_f`.
pub const LENGTH_SCALE: f64 = 0.5;
/// Uniform contexts used to standardize the fields.
pub const CALIBRATION_CONTEXTS: usize = 4096;
/// Amplitudes `(a_s, a_c, a_h)` of shared quality, specialization and criterion
/// variation (Eq. 56).
pub const AMPLITUDES: (f64, f64, f64) = (1.0, 2.0, 0.15);
/// Offsets `(o_0, o_1, o_2)` of the three specialization profiles (Eq. 58).
pub const OFFSETS: [usize; 3] = [0, 2, 4];
/// Preferred criterion group of each voter in the pool (Appendix G.2).
pub const VOTER_GROUPS: [usize; 5] = [0, 1, 2, 0, 1];
/// Dirichlet concentration `alpha` of the voters' weights.
pub const DIRICHLET_ALPHA: f64 = 20.0;
/// Uniform share `epsilon` of every voter's weights (Eq. 60).
pub const UNIFORM_SHARE: f64 = 0.1;
/// Propensity bounds and logit scale `(e_min, e_max, eta)` (Eq. 63).
pub const PROPENSITY: (f64, f64, f64) = (0.25, 0.75, 2.0);

/// A context `x ∈ [0,1]^5`.
pub type Context = [f64; DIMENSIONS];

/// Which feedback the voters give (Appendix G.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
#[derive(strum::IntoStaticStr, strum::VariantArray, strum::EnumString, strum::EnumMessage)]
#[strum(serialize_all = "kebab-case")]
pub enum FeedbackKind {
    /// All ten menus of two; the preferred agent is reported.
    Pairwise,
    /// The five menus of three of Eq. 62; the complete order is reported.
    Ranking,
    /// All ten menus of three; only the winner is reported.
    Winner,
}

impl FeedbackKind {
    /// The name used on the command line and in files.
    pub fn name(self) -> &'static str {
        self.into()
    }

    /// The menu catalogue Q (agents from 0).
    pub fn menus(self) -> Vec<Vec<usize>> {
        match self {
            Self::Pairwise => subsets(2),
            // Eq. 62, 1-based in the paper.
            Self::Ranking => vec![
                vec![0, 1, 2],
                vec![0, 1, 4],
                vec![0, 3, 4],
                vec![1, 2, 3],
                vec![2, 3, 4],
            ],
            Self::Winner => subsets(3),
        }
    }
}

/// All subsets of `size` agents, in lexicographic order.
fn subsets(size: usize) -> Vec<Vec<usize>> {
    let mut all = Vec::new();
    let mut current = Vec::with_capacity(size);
    fn extend(start: usize, size: usize, current: &mut Vec<usize>, all: &mut Vec<Vec<usize>>) {
        if current.len() == size {
            all.push(current.clone());
            return;
        }
        for a in start..AGENTS {
            current.push(a);
            extend(a + 1, size, current, all);
            current.pop();
        }
    }
    extend(0, size, &mut current, &mut all);
    all
}

/// A random Fourier feature field with several outputs (Eq. 57), standardized.
#[derive(Debug, Clone)]
struct Field {
    /// `D × d` frequencies `omega_b ~ N(0, l_f^-2 I)`.
    frequencies: Vec<[f64; DIMENSIONS]>,
    /// `D` phases `phi_b ~ U(0, 2 pi)`.
    phases: Vec<f64>,
    /// `D × outputs` coefficients `V_ba ~ N(0, 1)`, row-major.
    coefficients: Vec<f64>,
    outputs: usize,
    /// Per-output centre and scale from the calibration contexts.
    centre: Vec<f64>,
    scale: Vec<f64>,
}

impl Field {
    fn draw(outputs: usize, rng: &mut ChaCha8Rng) -> Self {
        let frequency = Normal::new(0.0, 1.0 / LENGTH_SCALE).expect("valid normal");
        let frequencies = (0..FOURIER_FEATURES)
            .map(|_| std::array::from_fn(|_| frequency.sample(rng)))
            .collect();
        let phases = (0..FOURIER_FEATURES)
            .map(|_| rng.random_range(0.0..std::f64::consts::TAU))
            .collect();
        let coefficients = (0..FOURIER_FEATURES * outputs)
            .map(|_| StandardNormal.sample(rng))
            .collect();
        Self {
            frequencies,
            phases,
            coefficients,
            outputs,
            centre: vec![0.0; outputs],
            scale: vec![1.0; outputs],
        }
    }

    /// `f_a(x) = sqrt(2/D) sum_b V_ba cos(omega_b^T x + phi_b)` for every output,
    /// before standardization.
    fn raw(&self, x: &Context, out: &mut [f64]) {
        out.fill(0.0);
        let norm = (2.0 / FOURIER_FEATURES as f64).sqrt();
        for (b, (omega, phi)) in self.frequencies.iter().zip(&self.phases).enumerate() {
            let angle: f64 = omega.iter().zip(x).map(|(w, x)| w * x).sum::<f64>() + phi;
            let feature = norm * angle.cos();
            let row = &self.coefficients[b * self.outputs..(b + 1) * self.outputs];
            for (o, v) in out.iter_mut().zip(row) {
                *o += v * feature;
            }
        }
    }

    /// Centres each output and scales it to unit empirical (population) standard
    /// deviation over `contexts`.
    fn standardize(&mut self, contexts: &[Context]) {
        let n = contexts.len() as f64;
        let mut sum = vec![0.0; self.outputs];
        let mut squares = vec![0.0; self.outputs];
        let mut out = vec![0.0; self.outputs];
        for x in contexts {
            self.raw(x, &mut out);
            for (a, &v) in out.iter().enumerate() {
                sum[a] += v;
                squares[a] += v * v;
            }
        }
        for a in 0..self.outputs {
            let mean = sum[a] / n;
            self.centre[a] = mean;
            self.scale[a] = (squares[a] / n - mean * mean).max(f64::MIN_POSITIVE).sqrt();
        }
    }

    fn standardized(&self, x: &Context, out: &mut [f64]) {
        self.raw(x, out);
        for (a, v) in out.iter_mut().enumerate() {
            *v = (*v - self.centre[a]) / self.scale[a];
        }
    }
}

/// One replication's latent world: performance fields, specialization, voter pool and
/// selection direction (Appendix G.1–G.3).
#[derive(Debug, Clone)]
pub struct World {
    shared: Field,
    criteria: Field,
    /// `C_jt`, K × p row-major (Eq. 58).
    specialization: Vec<f64>,
    /// The pool of five voters' weights `w_v ∈ Δ_p` (Eq. 60).
    voters: Vec<[f64; CRITERIA]>,
    /// The unit selection direction `b / ||b||`.
    direction: Context,
    /// `(e_min, e_max, eta)` of Eq. 63 (default [`PROPENSITY`]).
    selection: (f64, f64, f64),
}

impl World {
    /// Draws the world of replication `seed`.
    pub fn draw(seed: u64) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x05EE_D0F0_A11D);
        let mut shared = Field::draw(AGENTS, &mut rng);
        let mut criteria = Field::draw(AGENTS * CRITERIA, &mut rng);
        let calibration = uniform_contexts(CALIBRATION_CONTEXTS, &mut rng);
        shared.standardize(&calibration);
        criteria.standardize(&calibration);
        let mut permutation: Vec<usize> = (0..AGENTS).collect();
        permutation.shuffle(&mut rng);
        let mut specialization = vec![0.0; AGENTS * CRITERIA];
        for (j, &a) in permutation.iter().enumerate() {
            for (g, &offset) in OFFSETS.iter().enumerate() {
                let level =
                    2.0 - 2.0 / (AGENTS as f64 - 1.0) * ((a + AGENTS - offset) % AGENTS) as f64;
                for t in 4 * g..4 * g + 4 {
                    specialization[j * CRITERIA + t] = level;
                }
            }
        }
        let dirichlet = Dirichlet::new([DIRICHLET_ALPHA; 4]).expect("valid Dirichlet");
        let voters = VOTER_GROUPS
            .iter()
            .map(|&g| {
                let theta = dirichlet.sample(&mut rng);
                let mut w = [UNIFORM_SHARE / CRITERIA as f64; CRITERIA];
                for (i, t) in theta.iter().enumerate() {
                    w[4 * g + i] += (1.0 - UNIFORM_SHARE) * t;
                }
                w
            })
            .collect();
        let b: Context = std::array::from_fn(|_| StandardNormal.sample(&mut rng));
        let length = b.iter().map(|v| v * v).sum::<f64>().sqrt();
        Self {
            shared,
            criteria,
            specialization,
            voters,
            direction: b.map(|v| v / length),
            selection: PROPENSITY,
        }
    }

    /// The same world with other selection parameters `(e_min, e_max, eta)` of Eq. 63,
    /// to probe how strongly selection depends on the context.
    ///
    /// # Errors
    /// A message unless `0 < e_min <= e_max <= 1` and `eta` is finite.
    pub fn with_selection(mut self, low: f64, high: f64, eta: f64) -> Result<Self, String> {
        if !(low > 0.0 && low <= high && high <= 1.0 && eta.is_finite()) {
            return Err(format!(
                "propensity range {low},{high} and slope {eta}: need 0 < LO <= HI <= 1 and a finite slope"
            ));
        }
        self.selection = (low, high, eta);
        Ok(self)
    }

    /// Performance vectors `r_j(x)`, K × p row-major (Eq. 56).
    pub fn performance(&self, x: &Context) -> Vec<f64> {
        let (a_s, a_c, a_h) = AMPLITUDES;
        let mut s = [0.0; AGENTS];
        let mut h = vec![0.0; AGENTS * CRITERIA];
        self.shared.standardized(x, &mut s);
        self.criteria.standardized(x, &mut h);
        (0..AGENTS * CRITERIA)
            .map(|i| a_s * s[i / CRITERIA] + a_c * self.specialization[i] + a_h * h[i].tanh())
            .collect()
    }

    /// Utilities `u_vj(x) = w_v^T r_j(x)` of the first `voters` voters, voters × K
    /// row-major (Eq. 59).
    pub fn utilities(&self, x: &Context, voters: usize) -> Vec<f64> {
        let r = self.performance(x);
        self.voters[..voters]
            .iter()
            .flat_map(|w| {
                let r = &r;
                (0..AGENTS).map(move |j| {
                    w.iter()
                        .zip(&r[j * CRITERIA..(j + 1) * CRITERIA])
                        .map(|(w, r)| w * r)
                        .sum()
                })
            })
            .collect()
    }

    /// The menu inclusion probability `e0(x) = e_min + (e_max - e_min) sigma(eta
    /// sqrt(12) b^T (x - 1/2))`, the same for every menu (Eq. 63; defaults
    /// [`PROPENSITY`], see [`World::with_selection`]).
    pub fn propensity(&self, x: &Context) -> f64 {
        let (low, high, eta) = self.selection;
        let z: f64 = self
            .direction
            .iter()
            .zip(x)
            .map(|(b, x)| b * (x - 0.5))
            .sum();
        low + (high - low) / (1.0 + (-eta * 12f64.sqrt() * z).exp())
    }
}

/// `n` contexts from `U[0,1]^5`.
pub fn uniform_contexts(n: usize, rng: &mut impl Rng) -> Vec<Context> {
    (0..n)
        .map(|_| std::array::from_fn(|_| rng.random::<f64>()))
        .collect()
}

/// `a ≻ b` for one voter: higher utility, numerical ties to the lower agent index.
fn prefers(utilities: &[f64], a: usize, b: usize) -> bool {
    utilities[a] > utilities[b] || (utilities[a] == utilities[b] && a < b)
}

/// The voter's order of `menu`, best first (numerical ties to the lower index).
fn order(utilities: &[f64], menu: &[usize]) -> Vec<usize> {
    let mut sorted = menu.to_vec();
    sorted.sort_by(|&a, &b| utilities[b].total_cmp(&utilities[a]).then(a.cmp(&b)));
    sorted
}

/// Ground truth at one context for a population of the first `voters` voters.
#[derive(Debug, Clone, PartialEq)]
pub struct Truth {
    /// Latent population margin `M(x)`, K × K row-major (Eq. 61).
    pub margin: Vec<f64>,
    /// Payoff matrix `A(x)`, K × K row-major (Eq. 66–67).
    pub payoff: Vec<f64>,
    /// Mean verdicts `mu0^m_jk(x) = g^m_jk(x)` per menu of the catalogue, each K × K
    /// row-major (zero outside the menu).
    pub menu_means: Vec<Vec<f64>>,
    /// Inclusion probability `e0^m(x)` (equal for every menu, Eq. 63).
    pub propensity: f64,
}

/// The ground truth at `x` (Eq. 61, 64–67).
pub fn truth(world: &World, x: &Context, voters: usize, kind: FeedbackKind) -> Truth {
    let u = world.utilities(x, voters);
    let share = 1.0 / voters as f64;
    let mut margin = vec![0.0; AGENTS * AGENTS];
    for v in 0..voters {
        let uv = &u[v * AGENTS..(v + 1) * AGENTS];
        for j in 0..AGENTS {
            for k in (0..AGENTS).filter(|&k| k != j) {
                margin[j * AGENTS + k] += share * if prefers(uv, j, k) { 1.0 } else { -1.0 };
            }
        }
    }
    let menus = kind.menus();
    let menu_means: Vec<Vec<f64>> = menus
        .iter()
        .map(|menu| {
            let mut g = vec![0.0; AGENTS * AGENTS];
            match kind {
                FeedbackKind::Pairwise | FeedbackKind::Ranking => {
                    for &j in menu {
                        for &k in menu {
                            g[j * AGENTS + k] = margin[j * AGENTS + k];
                        }
                    }
                }
                FeedbackKind::Winner => {
                    // p^m_j: the share of voters whose favourite in m is j (Eq. 67).
                    let mut wins = [0.0; AGENTS];
                    for v in 0..voters {
                        wins[order(&u[v * AGENTS..(v + 1) * AGENTS], menu)[0]] += share;
                    }
                    for &j in menu {
                        for &k in menu {
                            g[j * AGENTS + k] = wins[j] - wins[k];
                        }
                    }
                }
            }
            g
        })
        .collect();
    // Eq. 66: the uniform average over the menus holding each pair.
    let mut payoff = vec![0.0; AGENTS * AGENTS];
    for j in 0..AGENTS {
        for k in (0..AGENTS).filter(|&k| k != j) {
            let holding: Vec<usize> = (0..menus.len())
                .filter(|&m| menus[m].contains(&j) && menus[m].contains(&k))
                .collect();
            payoff[j * AGENTS + k] = holding
                .iter()
                .map(|&m| menu_means[m][j * AGENTS + k])
                .sum::<f64>()
                / holding.len() as f64;
        }
    }
    Truth {
        margin,
        payoff,
        menu_means,
        propensity: world.propensity(x),
    }
}

/// One logged response: context, menu (index in the catalogue), the voter who
/// answered, and what was reported — the winner (pairwise, winner) or the complete
/// order, best first (ranking).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// Context index.
    pub context: usize,
    /// Menu index in [`FeedbackKind::menus`].
    pub menu: usize,
    /// Voter index in the population.
    pub voter: usize,
    /// Reported agents: `[winner]` or the full order.
    pub response: Vec<usize>,
}

/// The feedback log of Appendix G.3: every menu of the catalogue is selected at
/// context `x_i` with probability `e0(x_i)`, independently; a selected menu is
/// answered by a voter drawn uniformly from the first `voters`.
pub fn simulate_feedback(
    world: &World,
    contexts: &[Context],
    voters: usize,
    kind: FeedbackKind,
    seed: u64,
) -> Vec<Record> {
    let menus = kind.menus();
    let mut rng = ChaCha8Rng::seed_from_u64(feedback_seed(seed, voters, kind));
    let mut records = Vec::new();
    for (i, x) in contexts.iter().enumerate() {
        let e = world.propensity(x);
        let u = world.utilities(x, voters);
        for (m, menu) in menus.iter().enumerate() {
            if rng.random::<f64>() >= e {
                continue;
            }
            let voter = rng.random_range(0..voters);
            let ranked = order(&u[voter * AGENTS..(voter + 1) * AGENTS], menu);
            let response = match kind {
                FeedbackKind::Ranking => ranked,
                FeedbackKind::Pairwise | FeedbackKind::Winner => vec![ranked[0]],
            };
            records.push(Record {
                context: i,
                menu: m,
                voter,
                response,
            });
        }
    }
    records
}

/// The feedback stream of one setting of a replication.
fn feedback_seed(seed: u64, voters: usize, kind: FeedbackKind) -> u64 {
    let k = match kind {
        FeedbackKind::Pairwise => 1u64,
        FeedbackKind::Ranking => 2,
        FeedbackKind::Winner => 3,
    };
    seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (k << 40) ^ ((voters as u64) << 48)
}

/// Training and test contexts of replication `seed`, shared by its nine settings.
pub fn replication_contexts(seed: u64, train: usize, test: usize) -> (Vec<Context>, Vec<Context>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0xC047_E775);
    let training = uniform_contexts(train, &mut rng);
    let testing = uniform_contexts(test, &mut rng);
    (training, testing)
}
