//! Binomial variates for the multinomial bootstrap.
//!
//! Written by hand because the bootstrap draws tens of millions of binomials with a
//! new `(n, p)` each time, and `rand_distr`'s BTPE sampler (setup plus sampling, about
//! 80 ns a draw here) was half of the whole `verdict rank` run. Three samplers, each
//! where it is cheapest:
//! - up to 128 trials, all of them at once bit by bit ([`bitwise`]): the splits at
//!   the bottom of the bootstrap's tree, most of its draws;
//! - means of 10 or more, Hörmann's BTRS, transformed rejection with squeeze (W.
//!   Hörmann, "The generation of binomial random variates", J. Statist. Comput. Simul.
//!   46, 1993, algorithm BTRS), whose setup is a few square roots and logarithms;
//! - smaller means, inversion (Kachitvichyanukul and Schmeiser's BINV, "Binomial
//!   random variate generation", CACM 31, 1988): one uniform walked down the
//!   probabilities `f(k) = f(k-1) ((n+1) s / k - s)`, `s = p/q`, from `f(0) = q^n`.
//!
//! The tests check each against the exact probabilities by chi-square.

use rand::Rng;
use statrs::function::gamma::ln_gamma;

/// Below this mean (and above 128 trials), inversion is faster than rejection.
const REJECTION_MIN_MEAN: f64 = 10.0;

/// One draw from Binomial(n, p), exact in distribution.
pub(crate) fn sample_binomial<R: Rng + ?Sized>(n: u64, p: f64, rng: &mut R) -> u64 {
    debug_assert!((0.0..=1.0).contains(&p));
    if p > 0.5 {
        return n - sample_binomial(n, 1.0 - p, rng);
    }
    if n == 0 || p == 0.0 {
        return 0;
    }
    if n <= ONE_WORD_TRIALS {
        return bitwise::<u64, R>(n as u32, p, rng);
    }
    if n <= TWO_WORD_TRIALS {
        return bitwise::<u128, R>(n as u32, p, rng);
    }
    let mean = n as f64 * p;
    if mean < REJECTION_MIN_MEAN {
        return inversion(n, p, rng);
    }
    btrs(n, p, rng)
}

/// Up to this many trials, [`bitwise`] draws all of them in one 64-bit word.
const ONE_WORD_TRIALS: u64 = 64;

/// Up to this many trials, [`bitwise`] draws them in a 128-bit word: twice the random
/// bits of one word, still about half the time of BTRS at these sizes.
const TWO_WORD_TRIALS: u64 = 128;

/// A word of Bernoulli trials for [`bitwise`], one bit per trial.
trait Trials:
    Copy
    + PartialEq
    + std::ops::BitAnd<Output = Self>
    + std::ops::BitXor<Output = Self>
    + std::ops::Not<Output = Self>
{
    /// No trial.
    const NONE: Self;
    /// Every bit.
    const ALL: Self;
    /// The first `n` trials.
    fn first(n: u32) -> Self;
    /// A uniformly random word.
    fn random<R: Rng + ?Sized>(rng: &mut R) -> Self;
    /// How many trials are set.
    fn count(self) -> u32;
}

/// [`Trials`] for an unsigned integer type, given how a random word of it is made.
macro_rules! trials_word {
    ($word:ty, $bits:literal, |$rng:ident| $random:expr) => {
        impl Trials for $word {
            const NONE: Self = 0;
            const ALL: Self = <$word>::MAX;
            fn first(n: u32) -> Self {
                <$word>::MAX.checked_shr($bits - n).unwrap_or(0)
            }
            fn random<R: Rng + ?Sized>($rng: &mut R) -> Self {
                $random
            }
            fn count(self) -> u32 {
                self.count_ones()
            }
        }
    };
}

trials_word!(u64, 64, |rng| rng.next_u64());
trials_word!(u128, 128, |rng| (u128::from(rng.next_u64()) << 64)
    | u128::from(rng.next_u64()));

/// `n` Bernoulli(p) trials at once (`n` at most the bits of `T`), by comparing each
/// trial's uniform with `p` one binary digit at a time: at digit `t`, a random word
/// gives each undecided trial its uniform's digit; where it differs from `p`'s, the
/// trial is decided (a 0 under a 1 of `p` means `U < p`, a success; a 1 over a 0 a
/// failure). About `log2 n + 2` words decide all `n`, whatever `p` — no logarithm, no
/// branch on the digits, and none of the rejection samplers' poor acceptance at small
/// means. Exact: `p`'s digits are read exactly (its first 64 as the integer `p 2^64`,
/// any further ones by doubling, which loses nothing), and once they are all zero the
/// undecided uniforms are at least `p`.
fn bitwise<T: Trials, R: Rng + ?Sized>(n: u32, p: f64, rng: &mut R) -> u64 {
    debug_assert!((0.0..1.0).contains(&p));
    let mut undecided = T::first(n);
    let scaled = p * TWO_TO_64;
    let digits = scaled as u64;
    let mut rest = scaled - digits as f64;
    let mut successes = 0u32;
    let mut decide = |undecided: &mut T, digit: bool| {
        let digit = if digit { T::ALL } else { T::NONE };
        let word = T::random(rng);
        successes += (*undecided & !word & digit).count();
        *undecided = *undecided & !(word ^ digit);
    };
    for t in 0..64 {
        if undecided == T::NONE || (digits << t == 0 && rest == 0.0) {
            return u64::from(successes);
        }
        decide(&mut undecided, (digits >> (63 - t)) & 1 == 1);
    }
    // Digits past the 64th (p under 2^-11 with a long expansion): by doubling.
    while undecided != T::NONE && rest > 0.0 {
        rest *= 2.0;
        let digit = rest >= 1.0;
        if digit {
            rest -= 1.0;
        }
        decide(&mut undecided, digit);
    }
    u64::from(successes)
}

/// `2^64`, which scales `p` to its first 64 binary digits.
const TWO_TO_64: f64 = 18_446_744_073_709_551_616.0;

/// Past this many steps an inversion starts again with a new uniform (BINV's bound:
/// for a mean under 10 the chance of getting here is below 1e-40, so the draw stays
/// exact to double precision).
const INVERSION_MAX_STEPS: u64 = 110;

/// BINV for `p ≤ 1/2` and `n p < 10` (module docs).
fn inversion<R: Rng + ?Sized>(n: u64, p: f64, rng: &mut R) -> u64 {
    let nf = n as f64;
    let s = p / (1.0 - p);
    let a = (nf + 1.0) * s;
    let first = (nf * (-p).ln_1p()).exp();
    'draw: loop {
        let mut u: f64 = rng.random();
        let mut f = first;
        let mut k = 0u64;
        while u > f {
            u -= f;
            k += 1;
            if k > INVERSION_MAX_STEPS.min(n) {
                continue 'draw;
            }
            f *= a / k as f64 - s;
        }
        return k;
    }
}

/// Largest argument whose `ln k!` is tabulated; above it Stirling's series is exact
/// to better than 1e-13.
const TABLE_MAX: usize = 1024;

/// `ln k!` (k a non-negative integer held in an f64): a table below `TABLE_MAX`, else
/// Stirling's series `(x - 1/2) ln x - x + ln(2 pi)/2 + 1/(12x) - 1/(360x^3) +
/// 1/(1260x^5)` at `x = k + 1`, one logarithm instead of a Lanczos sum.
fn ln_factorial(k: f64) -> f64 {
    static TABLE: std::sync::OnceLock<[f64; TABLE_MAX + 1]> = std::sync::OnceLock::new();
    if k <= TABLE_MAX as f64 {
        let table = TABLE.get_or_init(|| std::array::from_fn(|i| ln_gamma(i as f64 + 1.0)));
        return table[k as usize];
    }
    let x = k + 1.0;
    let x2 = x * x;
    (x - 0.5) * x.ln() - x
        + 0.5 * (2.0 * std::f64::consts::PI).ln()
        + (1.0 / 12.0 - (1.0 / 360.0 - 1.0 / (1260.0 * x2)) / x2) / x
}

/// Hörmann's BTRS for `p ≤ 1/2` and `n p ≥ 10`. The constants of the exact
/// acceptance test (two log-gammas, two logarithms) are computed only when a draw
/// first falls outside the squeeze, which most draws never do.
fn btrs<R: Rng + ?Sized>(n: u64, p: f64, rng: &mut R) -> u64 {
    let nf = n as f64;
    let q = 1.0 - p;
    let spq = (nf * p * q).sqrt();
    let b = 1.15 + 2.53 * spq;
    let a = -0.0873 + 0.0248 * b + 0.01 * p;
    let c = nf * p + 0.5;
    let v_r = 0.92 - 4.2 / b;
    let mut exact: Option<(f64, f64, f64, f64)> = None;
    loop {
        let u: f64 = rng.random::<f64>() - 0.5;
        let v: f64 = rng.random();
        let us = 0.5 - u.abs();
        // floor(x) lies in [0, n] exactly when x lies in [0, n + 1); a cast then
        // floors it without a call to libm's floor.
        let x = (2.0 * a / us + b) * u + c;
        if !(0.0..nf + 1.0).contains(&x) {
            continue;
        }
        let k = (x as u64) as f64;
        if us >= 0.07 && v <= v_r {
            return k as u64;
        }
        let (alpha, lpq, m, h) = *exact.get_or_insert_with(|| {
            let m = ((nf + 1.0) * p).floor();
            (
                (2.83 + 5.1 / b) * spq,
                (p / q).ln(),
                m,
                ln_factorial(m) + ln_factorial(nf - m),
            )
        });
        let v = (v * alpha / (a / (us * us) + b)).ln();
        if v <= h - ln_factorial(k) - ln_factorial(nf - k) + (k - m) * lpq {
            return k as u64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn ln_pmf(n: u64, p: f64, k: u64) -> f64 {
        let (n, k) = (n as f64, k as f64);
        ln_gamma(n + 1.0) - ln_gamma(k + 1.0) - ln_gamma(n - k + 1.0)
            + k * p.ln()
            + (n - k) * (1.0 - p).ln()
    }

    /// Pearson chi-square of `draws` samples against the exact pmf, bins with
    /// expected count ≥ 5 (tails pooled). Returns (statistic, degrees of freedom).
    fn chi_square(n: u64, p: f64, draws: usize, seed: u64) -> (f64, usize) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mean = n as f64 * p;
        let sd = (mean * (1.0 - p)).sqrt();
        let lo = (mean - 6.0 * sd).max(0.0) as u64;
        let hi = ((mean + 6.0 * sd) as u64).min(n);
        let mut observed = vec![0.0; (hi - lo + 1) as usize];
        for _ in 0..draws {
            let k = sample_binomial(n, p, &mut rng).clamp(lo, hi);
            observed[(k - lo) as usize] += 1.0;
        }
        let mut expected: Vec<f64> = (lo..=hi)
            .map(|k| draws as f64 * ln_pmf(n, p, k).exp())
            .collect();
        // Pool tails into the end bins so that they carry the whole mass.
        let covered: f64 = expected.iter().sum();
        let last = expected.len() - 1;
        expected[last] += draws as f64 - covered;
        let (mut statistic, mut bins, mut pooled_o, mut pooled_e) = (0.0, 0, 0.0, 0.0);
        for (o, e) in observed.iter().zip(&expected) {
            pooled_o += o;
            pooled_e += e;
            if pooled_e >= 5.0 {
                statistic += (pooled_o - pooled_e) * (pooled_o - pooled_e) / pooled_e;
                bins += 1;
                pooled_o = 0.0;
                pooled_e = 0.0;
            }
        }
        statistic += if pooled_e > 0.0 {
            (pooled_o - pooled_e).powi(2) / pooled_e
        } else {
            0.0
        };
        (statistic, bins.max(2) - 1)
    }

    /// Draws match the exact distribution: the chi-square statistic stays below the
    /// 0.999 quantile, approximated as df + 3.1 sqrt(2 df) + 10 (Wilson–Hilferty is
    /// tighter; this bound is conservative for df from 10 to 200). Seeds are fixed, so
    /// the test is deterministic.
    #[test]
    fn draws_match_the_exact_distribution() {
        for &(n, p) in &[
            (60u64, 0.3),
            (1000, 0.02),
            (5_000_000, 3e-5),
            (5_000_000, 0.2),
            (40, 0.5),
            (100, 0.9),
            (150, 0.5),
            (200, 0.1),
            // Inversion: means under 10.
            (5, 0.3),
            (30, 0.2),
            (1_000_000, 4e-6),
            (3, 0.95),
            // Bitwise: 128 trials or fewer, any p.
            (128, 0.3),
            (65, 0.02),
            (64, 0.5),
            (64, 0.013),
            (17, 0.37),
            (1, 0.2),
        ] {
            let (statistic, df) = chi_square(n, p, 200_000, n ^ p.to_bits());
            let bound = df as f64 + 3.1 * (2.0 * df as f64).sqrt() + 10.0;
            assert!(
                statistic < bound,
                "n={n} p={p}: chi2 {statistic:.1} on {df} df, bound {bound:.1}"
            );
        }
    }

    /// Stirling's series against the Lanczos log-gamma of statrs.
    #[test]
    fn ln_factorial_matches_log_gamma() {
        for k in [
            0.0, 1.0, 15.0, 16.0, 17.0, 100.0, 1024.0, 1025.0, 12345.0, 4.9e6,
        ] {
            let exact = ln_gamma(k + 1.0);
            assert!(
                (ln_factorial(k) - exact).abs() <= 1e-13 * exact.abs().max(1.0),
                "{k}"
            );
        }
    }

    #[test]
    fn edge_cases_are_exact() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        assert_eq!(sample_binomial(0, 0.3, &mut rng), 0);
        assert_eq!(sample_binomial(10, 0.0, &mut rng), 0);
        assert_eq!(sample_binomial(10, 1.0, &mut rng), 10);
        assert!(sample_binomial(10, 0.5, &mut rng) <= 10);
    }
}
