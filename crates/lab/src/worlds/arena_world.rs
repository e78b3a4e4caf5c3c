//! An arena-shaped contextual world with exact ground truth: K agents, every pair of
//! them a menu, exactly one pair shown per prompt with a probability skewed by the
//! agents' popularity and tilted by the prompt (as LMArena samples), voter groups whose
//! mix depends on the prompt and who disagree (so the population's preferences can be
//! intransitive), ties and "both bad", and the context columns real logs carry: a
//! language, task flags, a length and the prompt's text.
//!
//! The model (every quantity exact, so the truth needs no sampling):
//! - context `x`: language `ℓ ~ Cat(LANGUAGE_SHARES)`, `code ~ B(0.25)`, `math ~ B(0.12)`,
//!   `length = round(exp(N(4 + 0.6 code, 0.8²)))` tokens, and a prompt text drawn from
//!   the language's and the task's words; the latent features are
//!   `φ(x) = (1, onehot(ℓ), code, math, (ln length − 4.2) / 0.9)`;
//! - voter groups `g = 0, 1, 2` (general, technical, non-English) with shares
//!   `w(x) = softmax(0, −1 + 2.5 code + 1.5 math, −1 + 2.5 [ℓ ≠ en] + 0.5 z_len)`;
//! - utilities `u_gj(x) = s (β_gj + γ_j · φ(x))` with group tastes `β_gj ~ N(0, 1)`,
//!   agent skills `γ_jf ~ N(0, 0.6²)` (`γ_j0 = 0`) and scale `s` ([`ArenaWorldSettings::
//!   preference_scale`]);
//! - a group's margin of `j` over `k` is `m_gjk = u_gj − u_gk + c(x) sin(θ_j − θ_k)`:
//!   the utilities' difference plus, when [`ArenaWorldSettings::cycle_strength`] `c`
//!   is not 0, a cyclic preference every group shares — each agent has one of three
//!   styles at angles `θ ∈ {0, 2π/3, 4π/3}` (assigned in turn over a random order of
//!   the agents), each style beating the next as rock beats scissors, strongest on
//!   code and non-English prompts: `c(x) = c (0.5 + code + 0.5 [ℓ ≠ en])`;
//! - when [`ArenaWorldSettings::group_rotation`] `R` is not 0, each group also ranks
//!   the three styles in its own order, the orders rotated as in Condorcet's paradox:
//!   group `g` adds `R (((t_j − g) mod 3) − 1)` to the utility of an agent of style
//!   `t_j` (group 0 ranks the styles 2 ≻ 1 ≻ 0, group 1 0 ≻ 2 ≻ 1, group 2
//!   1 ≻ 0 ≻ 2). Every group stays transitive — a utility — so the population's
//!   cycles come only from mixing them: where no group holds a majority of the
//!   voters, the styles' majorities cycle (2 over 1 over 0 over 2), and the prompt
//!   decides the mix. [`ArenaWorldSettings::group_balance`] `b` evens the mix out:
//!   the shares' logits below are multiplied by `1 − b`, so `b = 1` is three equal
//!   groups everywhere and `b = 0` the shares as written;
//! - a battle of `j` and `k` judged by group `g` is a tie with probability
//!   `t_g = τ · 2 σ(−|m_gjk|)` (close answers tie more; a share of ties is "both
//!   bad"), else `j` wins with probability `σ(m_gjk)`; so the mean verdict is
//!   `μ0_jk(x) = Σ_g w_g(x) (1 − t_g) (2 σ(m_gjk) − 1)`, and since every pair is
//!   exactly one menu the payoff is `A_jk(x) = μ0_jk(x)` (NashEval Eq. 66);
//! - the pair shown: `e0^{jk}(x) ∝ p_j p_k exp(η (γ_j + γ_k) · φ_task(x))` with
//!   popularity `p_j = (r_j + 1)^(−α)` (`r` a random order of the agents) and `φ_task`
//!   the code, math and length coordinates: popular agents meet often, agents strong
//!   at a task are shown more on it (selection confounded with the outcome, which is
//!   what the debiased payoff corrects).

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Normal, StandardNormal};

use super::SimulationError;

/// Languages of the prompts.
pub const LANGUAGES: [&str; 8] = ["en", "zh", "ru", "de", "es", "ja", "fr", "ko"];
/// Share of prompts in each language (LMArena-like: English first, a long tail).
pub const LANGUAGE_SHARES: [f64; 8] = [0.45, 0.15, 0.10, 0.08, 0.08, 0.06, 0.05, 0.03];
/// Probability that a prompt is a coding task.
pub const CODE_SHARE: f64 = 0.25;
/// Probability that a prompt is a math task.
pub const MATH_SHARE: f64 = 0.12;
/// Voter groups: general, technical, non-English.
pub const GROUPS: usize = 3;
/// Latent features: intercept, eight languages, code, math, standardized log length.
pub const LATENT: usize = 1 + LANGUAGES.len() + 3;
/// Standard deviation of the agents' context skills `γ_jf`.
pub const SKILL_SPREAD: f64 = 0.6;
/// Share of ties that are "both bad".
pub const BOTHBAD_SHARE: f64 = 0.4;

const CODE: usize = 1 + LANGUAGES.len();
const MATH: usize = CODE + 1;
const LENGTH: usize = CODE + 2;

/// Settings of the arena world.
///
/// | Name | Default | Meaning | Range |
/// |---|---|---|---|
/// | `agents` | 16 | agents K (menus: all K(K−1)/2 pairs) | 2..=256 |
/// | `popularity_exponent` | 1.0 | `α`: the most shown pair over the rarest is about (K(K−1)/2)^α | ≥ 0 |
/// | `selection_tilt` | 1.0 | `η`: how much the prompt moves which pair is shown | finite |
/// | `tie_rate` | 0.3 | `τ`: tie probability of two equal answers | [0, 1) |
/// | `preference_scale` | 1.5 | `s`: how decided voters are | > 0 |
/// | `cycle_strength` | 0 | `c`: the shared cyclic preference among the three styles | finite, ≥ 0 |
/// | `group_rotation` | 0 | `R`: each group's own order of the styles, rotated between groups | finite, ≥ 0 |
/// | `group_balance` | 0 | `b`: the groups' shares' logits times `1 − b` (1: equal shares) | [0, 1] |
/// | `seed` | 0 | the world (tastes, skills, popularity) | any |
#[derive(Debug, Clone, PartialEq)]
pub struct ArenaWorldSettings {
    /// Agents K.
    pub agents: usize,
    /// Popularity exponent `α`.
    pub popularity_exponent: f64,
    /// Context tilt `η` of the selection.
    pub selection_tilt: f64,
    /// Tie probability `τ` of equal utilities.
    pub tie_rate: f64,
    /// Utility scale `s`.
    pub preference_scale: f64,
    /// Strength `c` of the cyclic preference among styles (0: none; the world's
    /// draws do not depend on it, so `c = 0` is the world as before).
    pub cycle_strength: f64,
    /// Utility step `R` between consecutive styles in each group's own rotated order
    /// (0: none; like `cycle_strength`, the world's draws do not depend on it).
    pub group_rotation: f64,
    /// How even the groups' mix is: their shares' logits are multiplied by `1 − b`.
    pub group_balance: f64,
    /// Seed of the world.
    pub seed: u64,
}

impl Default for ArenaWorldSettings {
    fn default() -> Self {
        Self {
            agents: 16,
            popularity_exponent: 1.0,
            selection_tilt: 1.0,
            tie_rate: 0.3,
            preference_scale: 1.5,
            cycle_strength: 0.0,
            group_rotation: 0.0,
            group_balance: 0.0,
            seed: 0,
        }
    }
}

/// One prompt: what a log records about it.
#[derive(Debug, Clone, PartialEq)]
pub struct ArenaContext {
    /// Index into [`LANGUAGES`].
    pub language: usize,
    /// A coding task.
    pub code: bool,
    /// A math task.
    pub math: bool,
    /// Prompt length in tokens.
    pub length: u32,
    /// The prompt's text.
    pub prompt: String,
}

impl ArenaContext {
    /// `φ(x)`: intercept, language one-hot, code, math, standardized log length.
    pub fn latent(&self) -> [f64; LATENT] {
        let mut phi = [0.0; LATENT];
        phi[0] = 1.0;
        phi[1 + self.language] = 1.0;
        phi[CODE] = f64::from(u8::from(self.code));
        phi[MATH] = f64::from(u8::from(self.math));
        phi[LENGTH] = (f64::from(self.length).ln() - 4.2) / 0.9;
        phi
    }
}

/// How a battle ended, in LMArena's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArenaVerdict {
    /// The first agent of the pair won.
    First,
    /// The second agent won.
    Second,
    /// A tie.
    Tie,
    /// A tie where both answers were bad.
    BothBad,
}

impl ArenaVerdict {
    /// `model_a`, `model_b`, `tie` or `tie (bothbad)`.
    pub fn label(self) -> &'static str {
        match self {
            Self::First => "model_a",
            Self::Second => "model_b",
            Self::Tie => "tie",
            Self::BothBad => "tie (bothbad)",
        }
    }
}

/// One battle: the pair shown (menu index into [`ArenaWorld::menus`]), the voter group
/// that judged it, the verdict on the pair in menu order, and which seat each agent
/// took.
#[derive(Debug, Clone, PartialEq)]
pub struct ArenaBattle {
    /// Menu index: the pair shown.
    pub menu: usize,
    /// Voter group (ground truth; not in a real log).
    pub group: usize,
    /// The verdict, `First` meaning the menu's first (lower-index) agent won.
    pub verdict: ArenaVerdict,
    /// The menu's second agent sat in the `model_a` seat.
    pub swapped: bool,
}

impl ArenaBattle {
    /// `(model_a, model_b, winner)` as an LMArena log row records it.
    pub fn seats(&self, menus: &[[usize; 2]]) -> (usize, usize, ArenaVerdict) {
        let [j, l] = menus[self.menu];
        if !self.swapped {
            return (j, l, self.verdict);
        }
        let verdict = match self.verdict {
            ArenaVerdict::First => ArenaVerdict::Second,
            ArenaVerdict::Second => ArenaVerdict::First,
            tie => tie,
        };
        (l, j, verdict)
    }
}

/// Exact ground truth at one prompt.
#[derive(Debug, Clone, PartialEq)]
pub struct ArenaTruth {
    /// Voter-group shares `w(x)`.
    pub group_shares: [f64; GROUPS],
    /// `e0^m(x)` for every menu (sums to 1: one pair per prompt).
    pub propensity: Vec<f64>,
    /// `A(x) = μ0(x)`, K × K row-major, skew-symmetric.
    pub payoff: Vec<f64>,
}

/// A drawn arena world.
#[derive(Debug, Clone)]
pub struct ArenaWorld {
    settings: ArenaWorldSettings,
    /// `β_gj`, groups × K.
    tastes: Vec<f64>,
    /// `γ_jf`, K × LATENT.
    skills: Vec<f64>,
    /// `p_j`.
    popularity: Vec<f64>,
    /// Style `t_j ∈ {0, 1, 2}`.
    styles: Vec<usize>,
    /// Style angle `θ_j = 2π t_j / 3`.
    angles: Vec<f64>,
    menus: Vec<[usize; 2]>,
}

fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

/// Words of each language (transliterated), of coding and math tasks, and of other
/// requests, from which prompts are drawn.
const LANGUAGE_WORDS: [&[&str]; 8] = [
    &["please", "the", "how", "what", "can", "you"],
    &["qing", "ni", "zenme", "shenme", "de", "ma"],
    &["pozhaluysta", "kak", "chto", "eto", "mne", "nuzhno"],
    &["bitte", "wie", "was", "der", "die", "und"],
    &["por", "favor", "como", "que", "el", "una"],
    &["kudasai", "desu", "nan", "dou", "no", "wa"],
    &["s'il", "vous", "comment", "quoi", "le", "une"],
    &["juseyo", "haseyo", "mwo", "eotteoke", "i", "ga"],
];
const CODE_WORDS: &[&str] = &[
    "function", "python", "error", "compile", "array", "rust", "class", "debug", "sql", "api",
];
const MATH_WORDS: &[&str] = &[
    "integral",
    "prove",
    "equation",
    "matrix",
    "probability",
    "derivative",
    "sum",
    "solve",
];
const OTHER_WORDS: &[&str] = &[
    "write", "story", "explain", "travel", "recipe", "history", "email", "poem", "advice",
    "summary", "movie", "health",
];

impl ArenaWorld {
    /// Draws the world of `settings.seed`.
    ///
    /// # Errors
    /// [`SimulationError`] naming a setting outside its range.
    pub fn draw(settings: &ArenaWorldSettings) -> Result<Self, SimulationError> {
        let bad = |name, value: String, expected| SimulationError {
            name,
            value,
            expected,
        };
        let s = settings;
        if !(2..=256).contains(&s.agents) {
            return Err(bad("agents", s.agents.to_string(), "2 to 256"));
        }
        if !(s.popularity_exponent.is_finite() && s.popularity_exponent >= 0.0) {
            return Err(bad(
                "popularity_exponent",
                s.popularity_exponent.to_string(),
                "a finite number >= 0",
            ));
        }
        if !s.selection_tilt.is_finite() {
            return Err(bad(
                "selection_tilt",
                s.selection_tilt.to_string(),
                "a finite number",
            ));
        }
        if !(0.0..1.0).contains(&s.tie_rate) {
            return Err(bad("tie_rate", s.tie_rate.to_string(), "in [0, 1)"));
        }
        if !(s.cycle_strength.is_finite() && s.cycle_strength >= 0.0) {
            return Err(bad(
                "cycle_strength",
                s.cycle_strength.to_string(),
                "a finite number >= 0",
            ));
        }
        if !(s.group_rotation.is_finite() && s.group_rotation >= 0.0) {
            return Err(bad(
                "group_rotation",
                s.group_rotation.to_string(),
                "a finite number >= 0",
            ));
        }
        if !(0.0..=1.0).contains(&s.group_balance) {
            return Err(bad(
                "group_balance",
                s.group_balance.to_string(),
                "in [0, 1]",
            ));
        }
        if !(s.preference_scale.is_finite() && s.preference_scale > 0.0) {
            return Err(bad(
                "preference_scale",
                s.preference_scale.to_string(),
                "a finite number > 0",
            ));
        }
        let k = s.agents;
        let mut rng = ChaCha8Rng::seed_from_u64(s.seed ^ 0x000A_4E7A_0F1D);
        let tastes = (0..GROUPS * k)
            .map(|_| StandardNormal.sample(&mut rng))
            .collect();
        let skill = Normal::new(0.0, SKILL_SPREAD).expect("a valid normal");
        let skills = (0..k * LATENT)
            .map(|i| {
                let draw = skill.sample(&mut rng);
                if i % LATENT == 0 {
                    0.0
                } else {
                    draw
                }
            })
            .collect();
        let mut order: Vec<usize> = (0..k).collect();
        order.shuffle(&mut rng);
        let mut popularity = vec![0.0; k];
        for (rank, &agent) in order.iter().enumerate() {
            popularity[agent] = (rank as f64 + 1.0).powf(-s.popularity_exponent);
        }
        let menus = (0..k)
            .flat_map(|j| (j + 1..k).map(move |l| [j, l]))
            .collect();
        // Styles from a stream of their own, so the rest of the world is the same
        // whatever the cycle strength.
        let mut styles: Vec<usize> = (0..k).collect();
        styles.shuffle(&mut ChaCha8Rng::seed_from_u64(s.seed ^ 0x0C1C_1E57));
        let mut style_of = vec![0; k];
        for (turn, &agent) in styles.iter().enumerate() {
            style_of[agent] = turn % 3;
        }
        let angles = style_of
            .iter()
            .map(|&t| 2.0 * std::f64::consts::PI * t as f64 / 3.0)
            .collect();
        Ok(Self {
            settings: s.clone(),
            tastes,
            skills,
            popularity,
            styles: style_of,
            angles,
            menus,
        })
    }

    /// The settings the world was drawn with.
    pub fn settings(&self) -> &ArenaWorldSettings {
        &self.settings
    }

    /// Agents K.
    pub fn agents(&self) -> usize {
        self.settings.agents
    }

    /// The menus: every pair `[j, k]`, `j < k`, in lexicographic order.
    pub fn menus(&self) -> &[[usize; 2]] {
        &self.menus
    }

    /// Popularity weight `p_j` of each agent.
    pub fn popularity(&self) -> &[f64] {
        &self.popularity
    }

    /// Draws one prompt.
    pub fn draw_context(&self, rng: &mut impl Rng) -> ArenaContext {
        let u: f64 = rng.random();
        let mut language = LANGUAGES.len() - 1;
        let mut cumulative = 0.0;
        for (l, share) in LANGUAGE_SHARES.iter().enumerate() {
            cumulative += share;
            if u < cumulative {
                language = l;
                break;
            }
        }
        let code = rng.random::<f64>() < CODE_SHARE;
        let math = rng.random::<f64>() < MATH_SHARE;
        let log_length: f64 = Normal::new(4.0 + if code { 0.6 } else { 0.0 }, 0.8)
            .expect("a valid normal")
            .sample(rng);
        let length = log_length.exp().round().clamp(1.0, 100_000.0) as u32;
        let words = rng.random_range(4..=14usize);
        let prompt = (0..words)
            .map(|_| {
                let pool = match rng.random_range(0..4u8) {
                    0 | 1 => LANGUAGE_WORDS[language],
                    _ if code => CODE_WORDS,
                    _ if math => MATH_WORDS,
                    _ => OTHER_WORDS,
                };
                pool[rng.random_range(0..pool.len())]
            })
            .collect::<Vec<_>>()
            .join(" ");
        ArenaContext {
            language,
            code,
            math,
            length,
            prompt,
        }
    }

    /// `n` prompts from a seeded stream.
    pub fn draw_contexts(&self, n: usize, seed: u64) -> Vec<ArenaContext> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        (0..n).map(|_| self.draw_context(&mut rng)).collect()
    }

    /// Voter-group shares `w(x)` (their logits times `1 − b`).
    fn group_shares(&self, phi: &[f64; LATENT]) -> [f64; GROUPS] {
        let english = phi[1];
        let unevenness = 1.0 - self.settings.group_balance;
        let logits = [
            0.0,
            -1.0 + 2.5 * phi[CODE] + 1.5 * phi[MATH],
            -1.0 + 2.5 * (1.0 - english) + 0.5 * phi[LENGTH],
        ]
        .map(|z| z * unevenness);
        let top = logits.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let weights = logits.map(|z| (z - top).exp());
        let total: f64 = weights.iter().sum();
        weights.map(|w| w / total)
    }

    /// Utilities `u_gj(x)`, groups × K.
    fn utilities(&self, phi: &[f64; LATENT]) -> Vec<f64> {
        let k = self.agents();
        let s = self.settings.preference_scale;
        (0..GROUPS * k)
            .map(|i| {
                let (g, j) = (i / k, i % k);
                let skill: f64 = self.skills[j * LATENT..(j + 1) * LATENT]
                    .iter()
                    .zip(phi)
                    .map(|(a, b)| a * b)
                    .sum();
                s * (self.tastes[g * k + j] + skill) + self.rotated_taste(g, j)
            })
            .collect()
    }

    /// Group `g`'s utility for agent `j`'s style in its rotated order:
    /// `R (((t_j − g) mod 3) − 1)`.
    fn rotated_taste(&self, g: usize, j: usize) -> f64 {
        let r = self.settings.group_rotation;
        if r == 0.0 {
            return 0.0;
        }
        r * (((self.styles[j] + 3 - g % 3) % 3) as f64 - 1.0)
    }

    /// The margin `m_gjk` of `j` over `l` for group `g`, from the utilities `u`
    /// (groups × K) at `phi`.
    fn margin(&self, u: &[f64], phi: &[f64; LATENT], g: usize, j: usize, l: usize) -> f64 {
        let k = self.agents();
        let c = self.settings.cycle_strength;
        let cyclic = if c == 0.0 {
            0.0
        } else {
            c * (0.5 + phi[CODE] + 0.5 * (1.0 - phi[1])) * (self.angles[j] - self.angles[l]).sin()
        };
        u[g * k + j] - u[g * k + l] + cyclic
    }

    /// Tie probability of a group whose margin is `difference`.
    fn tie_probability(&self, difference: f64) -> f64 {
        self.settings.tie_rate * 2.0 * sigmoid(-difference.abs())
    }

    /// `e0^m(x)` of every menu.
    fn propensity(&self, phi: &[f64; LATENT]) -> Vec<f64> {
        let eta = self.settings.selection_tilt;
        let task = |j: usize| -> f64 {
            [CODE, MATH, LENGTH]
                .iter()
                .map(|&f| self.skills[j * LATENT + f] * phi[f])
                .sum()
        };
        let tilt: Vec<f64> = (0..self.agents()).map(task).collect();
        let weights: Vec<f64> = self
            .menus
            .iter()
            .map(|&[j, k]| {
                self.popularity[j] * self.popularity[k] * (eta * (tilt[j] + tilt[k])).exp()
            })
            .collect();
        let total: f64 = weights.iter().sum();
        weights.into_iter().map(|w| w / total).collect()
    }

    /// The exact truth at `x`.
    pub fn truth(&self, x: &ArenaContext) -> ArenaTruth {
        let phi = x.latent();
        let k = self.agents();
        let shares = self.group_shares(&phi);
        let u = self.utilities(&phi);
        let mut payoff = vec![0.0; k * k];
        for j in 0..k {
            for l in j + 1..k {
                let mean: f64 = (0..GROUPS)
                    .map(|g| {
                        let d = self.margin(&u, &phi, g, j, l);
                        shares[g] * (1.0 - self.tie_probability(d)) * (2.0 * sigmoid(d) - 1.0)
                    })
                    .sum();
                payoff[j * k + l] = mean;
                payoff[l * k + j] = -mean;
            }
        }
        ArenaTruth {
            group_shares: shares,
            propensity: self.propensity(&phi),
            payoff,
        }
    }

    /// One battle at `x`: a pair drawn from `e0(x)`, a group from `w(x)`, and the
    /// verdict; each agent takes the `model_a` seat with probability 1/2.
    pub fn battle(&self, x: &ArenaContext, rng: &mut impl Rng) -> ArenaBattle {
        let phi = x.latent();
        let pick = |weights: &[f64], rng: &mut dyn rand::RngCore| -> usize {
            let u: f64 = rng.random();
            let mut cumulative = 0.0;
            for (i, w) in weights.iter().enumerate() {
                cumulative += w;
                if u < cumulative {
                    return i;
                }
            }
            weights.len() - 1
        };
        let menu = pick(&self.propensity(&phi), rng);
        let group = pick(&self.group_shares(&phi), rng);
        let [j, l] = self.menus[menu];
        let u = self.utilities(&phi);
        let d = self.margin(&u, &phi, group, j, l);
        let verdict = if rng.random::<f64>() < self.tie_probability(d) {
            if rng.random::<f64>() < BOTHBAD_SHARE {
                ArenaVerdict::BothBad
            } else {
                ArenaVerdict::Tie
            }
        } else if rng.random::<f64>() < sigmoid(d) {
            ArenaVerdict::First
        } else {
            ArenaVerdict::Second
        };
        ArenaBattle {
            menu,
            group,
            verdict,
            swapped: rng.random::<bool>(),
        }
    }

    /// One battle per prompt, from a seeded stream.
    pub fn battles(&self, contexts: &[ArenaContext], seed: u64) -> Vec<ArenaBattle> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xBA7);
        contexts.iter().map(|x| self.battle(x, &mut rng)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn world() -> ArenaWorld {
        ArenaWorld::draw(&ArenaWorldSettings {
            agents: 6,
            ..ArenaWorldSettings::default()
        })
        .unwrap()
    }

    #[test]
    fn payoffs_are_skew_symmetric_and_propensities_a_distribution() {
        let world = world();
        for x in world.draw_contexts(200, 1) {
            let t = world.truth(&x);
            let k = world.agents();
            for j in 0..k {
                for l in 0..k {
                    assert_eq!(t.payoff[j * k + l], -t.payoff[l * k + j]);
                    assert!(t.payoff[j * k + l].abs() < 1.0);
                }
            }
            assert!((t.propensity.iter().sum::<f64>() - 1.0).abs() < 1e-12);
            assert!((t.group_shares.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        }
    }

    #[test]
    fn the_rarest_pair_is_about_a_hundred_times_rarer_at_sixteen_agents() {
        let world = ArenaWorld::draw(&ArenaWorldSettings {
            selection_tilt: 0.0,
            ..ArenaWorldSettings::default()
        })
        .unwrap();
        let x = world.draw_contexts(1, 3).remove(0);
        let e = world.truth(&x).propensity;
        let (low, high) = e
            .iter()
            .fold((f64::INFINITY, 0.0f64), |(l, h), &p| (l.min(p), h.max(p)));
        // Without tilt the ratio is (first two ranks) / (last two) = (15·16 / 2)^1.
        assert!((high / low - 120.0).abs() < 1e-9, "{}", high / low);
    }

    /// Where the three groups are equally many and the rotation dominates every
    /// other taste, the styles' majorities cycle as in Condorcet's paradox (closed
    /// form: each pair of styles is decided by the two groups that agree on it, two
    /// thirds of the voters), while each group alone is transitive.
    #[test]
    fn rotated_group_orders_cycle_only_in_the_mix() {
        let world = ArenaWorld::draw(&ArenaWorldSettings {
            agents: 3,
            preference_scale: 1e-9,
            tie_rate: 0.0,
            group_rotation: 40.0,
            ..ArenaWorldSettings::default()
        })
        .unwrap();
        let phi = world.draw_contexts(1, 5)[0].latent();
        let u = world.utilities(&phi);
        let style = |t: usize| world.styles.iter().position(|&s| s == t).unwrap();
        for g in 0..GROUPS {
            // Group g's order: styles (g + 2) ≻ (g + 1) ≻ g, mod 3.
            let [best, middle, worst] = [(g + 2) % 3, (g + 1) % 3, g].map(style);
            assert!(u[g * 3 + best] > u[g * 3 + middle] && u[g * 3 + middle] > u[g * 3 + worst]);
        }
        // Equal shares: each style beats the one below it in the rotation with two
        // groups of three, the third against: mean verdict (2 − 1) / 3 at a sure margin.
        let equal = [1.0 / 3.0; GROUPS];
        let mean = |j: usize, l: usize| -> f64 {
            (0..GROUPS)
                .map(|g| equal[g] * (2.0 * sigmoid(world.margin(&u, &phi, g, j, l)) - 1.0))
                .sum()
        };
        let (s0, s1, s2) = (style(0), style(1), style(2));
        for (winner, loser) in [(s2, s1), (s1, s0), (s0, s2)] {
            assert!(
                (mean(winner, loser) - 1.0 / 3.0).abs() < 1e-9,
                "{}",
                mean(winner, loser)
            );
        }
    }

    #[test]
    fn bad_settings_are_named() {
        let e = ArenaWorld::draw(&ArenaWorldSettings {
            tie_rate: 1.0,
            ..ArenaWorldSettings::default()
        })
        .unwrap_err();
        assert_eq!(e.name, "tie_rate");
    }
}
