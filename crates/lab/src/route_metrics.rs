//! How routers are scored on a cost–quality plane, as their sources define it:
//!
//! - **AIQ** (RouterBench, Hu et al. 2024, §3.2): the area under the router's
//!   non-decreasing convex hull `R̃(c)` over a cost range, divided by its width:
//!   `AIQ = 1/(c_max − c_min) ∫ R̃(c) dc`.
//! - **PGR / APGR** (RouteLLM, Ong et al. 2024, §5.1): the performance gap recovered
//!   `PGR = (q − q_weak) / (q_strong − q_weak)`, and its average over the share of
//!   spend on the strong model from 0 to 1 (APGR: the area under PGR against that
//!   share).
//! - **CPT(x%)** (RouteLLM): the smallest share at which PGR reaches `x%` (50, 80
//!   and 95% here).
//!
//! RouteLLM routes between two models and counts calls to the strong one; with `K`
//! priced models we take the *weak* model to be the cheapest, the *strong* one the best
//! single model, and the share of calls to be the share of the cost range between
//! them, `(c − c_weak) / (c_strong − c_weak)`. Every curve includes the point of the
//! cheapest model alone — any router can meet a budget below its own spend by sending
//! everything there — and extends flat to the right of its last point (a router
//! given more than it spends spends what it spends).

/// A cost–quality point.
pub type Point = (f64, f64);

/// The non-decreasing concave hull of `points`: the upper hull from the cheapest
/// point, cut where it would fall (a dearer point no better than a cheaper one adds
/// nothing). Ascending in cost.
pub fn hull(points: &[Point]) -> Vec<Point> {
    let mut sorted: Vec<Point> = points
        .iter()
        .copied()
        .filter(|(c, q)| c.is_finite() && q.is_finite())
        .collect();
    sorted.sort_by(|a, b| a.0.total_cmp(&b.0).then(b.1.total_cmp(&a.1)));
    let mut upper: Vec<Point> = Vec::new();
    for p in sorted {
        if upper.last().is_some_and(|last| last.0 == p.0) {
            continue; // the better of equal costs came first
        }
        while upper.len() >= 2 {
            let (a, b) = (upper[upper.len() - 2], upper[upper.len() - 1]);
            // b lies on or below the segment a → p: not on the concave hull.
            if (b.0 - a.0) * (p.1 - a.1) - (b.1 - a.1) * (p.0 - a.0) >= 0.0 {
                upper.pop();
            } else {
                break;
            }
        }
        upper.push(p);
    }
    // Non-decreasing: stop at the best point.
    if let Some(best) =
        (0..upper.len()).max_by(|&a, &b| upper[a].1.total_cmp(&upper[b].1).then(b.cmp(&a)))
    {
        upper.truncate(best + 1);
    }
    upper
}

/// `R̃(c)` of a hull at cost `c`: linear between its points, flat after the last,
/// the first point's quality before it.
pub fn hull_at(hull: &[Point], c: f64) -> f64 {
    match hull {
        [] => f64::NAN,
        [first, ..] if c <= first.0 => first.1,
        _ => {
            for w in hull.windows(2) {
                if c <= w[1].0 {
                    let t = (c - w[0].0) / (w[1].0 - w[0].0);
                    return w[0].1 + t * (w[1].1 - w[0].1);
                }
            }
            hull[hull.len() - 1].1
        }
    }
}

/// `∫_lo^hi R̃(c) dc`, exact for the piecewise-linear hull.
fn integral(hull: &[Point], lo: f64, hi: f64) -> f64 {
    let mut knots: Vec<f64> = vec![lo, hi];
    knots.extend(hull.iter().map(|p| p.0).filter(|&c| c > lo && c < hi));
    knots.sort_by(f64::total_cmp);
    knots
        .windows(2)
        .map(|w| (w[1] - w[0]) * (hull_at(hull, w[0]) + hull_at(hull, w[1])) / 2.0)
        .sum()
}

/// A router's scores against the single models.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RouterScores {
    /// AIQ over `[c_weak, c_max]`, the cheapest and the dearest single model's costs.
    pub aiq: f64,
    /// APGR over the share `[0, 1]` of the cost range from weak to strong.
    pub apgr: f64,
    /// CPT(50%): the share of spend at which half the gap is recovered (`None`: never).
    pub cpt50: Option<f64>,
    /// CPT(80%).
    pub cpt80: Option<f64>,
    /// CPT(95%).
    pub cpt95: Option<f64>,
}

/// Scores the router whose points are `router` against the single models `singles`
/// (one point each).
///
/// # Panics
/// When `singles` is empty.
pub fn score_router(router: &[Point], singles: &[Point]) -> RouterScores {
    let weak = *singles
        .iter()
        .min_by(|a, b| a.0.total_cmp(&b.0).then(b.1.total_cmp(&a.1)))
        .expect("single models");
    let strong = *singles
        .iter()
        .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.total_cmp(&a.0)))
        .expect("single models");
    let c_max = singles
        .iter()
        .map(|p| p.0)
        .fold(f64::NEG_INFINITY, f64::max);
    let mut points = router.to_vec();
    points.push(weak);
    let h = hull(&points);
    let aiq = if c_max > weak.0 {
        integral(&h, weak.0, c_max) / (c_max - weak.0)
    } else {
        hull_at(&h, weak.0)
    };
    let gap = strong.1 - weak.1;
    let span = strong.0 - weak.0;
    let pgr = |share: f64| (hull_at(&h, weak.0 + share * span) - weak.1) / gap;
    let (apgr, [cpt50, cpt80, cpt95]) = if gap > 0.0 && span > 0.0 {
        let apgr = (integral(&h, weak.0, strong.0) / span - weak.1) / gap;
        (
            apgr,
            [0.5, 0.8, 0.95].map(|target| first_share(&h, weak, span, gap, target)),
        )
    } else {
        // The cheapest model is the best: nothing to recover.
        (pgr(0.0).max(1.0), [Some(0.0); 3])
    };
    RouterScores {
        aiq,
        apgr,
        cpt50,
        cpt80,
        cpt95,
    }
}

/// The smallest share `s ∈ [0, 1]` with `PGR(s) ≥ target` on the hull (which is
/// non-decreasing, so the first crossing is found segment by segment).
fn first_share(h: &[Point], weak: Point, span: f64, gap: f64, target: f64) -> Option<f64> {
    let want = weak.1 + target * gap;
    let share = |c: f64| ((c - weak.0) / span).clamp(0.0, 1.0);
    if hull_at(h, weak.0) >= want {
        return Some(0.0);
    }
    for w in h.windows(2) {
        if w[1].1 >= want {
            let t = (want - w[0].1) / (w[1].1 - w[0].1);
            let c = w[0].0 + t * (w[1].0 - w[0].0);
            return (c <= weak.0 + span + 1e-12).then(|| share(c));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hand-worked: a router at (2, 0.7) between a weak model (1, 0.5) and a
    /// strong one (3, 0.9) that it matches: the hull is the line through all three.
    #[test]
    fn a_router_on_the_line_between_two_models_recovers_half_the_gap_on_average() {
        let singles = [(1.0, 0.5), (3.0, 0.9)];
        let s = score_router(&[(2.0, 0.7), (3.0, 0.9)], &singles);
        // R̃ rises linearly from 0.5 to 0.9 over [1, 3]: AIQ is its mean, 0.7.
        assert!((s.aiq - 0.7).abs() < 1e-12, "{s:?}");
        // PGR(s) = s: its mean is 1/2; it reaches 50% at s = 0.5, 80% at 0.8.
        assert!((s.apgr - 0.5).abs() < 1e-12);
        assert!((s.cpt50.unwrap() - 0.5).abs() < 1e-12);
        assert!((s.cpt80.unwrap() - 0.8).abs() < 1e-12);
        assert!((s.cpt95.unwrap() - 0.95).abs() < 1e-12);
    }

    /// A router that reaches the strong model's quality at a quarter of the way:
    /// PGR rises from 0 to 1 over [0, 1/4], then stays at 1 — APGR = 1 − 1/8.
    #[test]
    fn a_cheap_router_recovers_the_gap_early() {
        let singles = [(0.0, 0.0), (4.0, 1.0)];
        let s = score_router(&[(1.0, 1.0)], &singles);
        assert!((s.apgr - 0.875).abs() < 1e-12, "{s:?}");
        assert!((s.cpt50.unwrap() - 0.125).abs() < 1e-12);
        assert!((s.cpt80.unwrap() - 0.2).abs() < 1e-12);
        assert!((s.aiq - 0.875).abs() < 1e-12);
    }

    /// Points under the hull and dearer points that are worse drop out; the hull
    /// never falls.
    #[test]
    fn the_hull_is_concave_and_never_falls() {
        let h = hull(&[
            (0.0, 0.0),
            (1.0, 0.2),
            (2.0, 1.0),
            (3.0, 0.5),
            (1.5, 0.1),
            (2.0, 0.3),
        ]);
        assert_eq!(h, vec![(0.0, 0.0), (2.0, 1.0)]);
        assert_eq!(hull_at(&h, 1.0), 0.5);
        assert_eq!(hull_at(&h, 5.0), 1.0);
        assert_eq!(hull_at(&h, -1.0), 0.0);
    }

    /// A router that never reaches half the gap has no CPT(50%).
    #[test]
    fn a_gap_never_recovered_has_no_cpt() {
        let s = score_router(&[(2.0, 0.55)], &[(1.0, 0.5), (3.0, 0.9)]);
        assert_eq!(s.cpt50, None);
        assert_eq!(s.cpt80, None);
    }
}
