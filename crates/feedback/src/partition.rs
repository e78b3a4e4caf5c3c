//! Relative feedback as an ordered partition of the menu (NashEval Eq. 2), its pairwise
//! verdicts (Eq. 3), and the conversion of every feedback modality of NashEval Table 5
//! (Appendix F.1), plus winner-of-subset feedback (Eq. 65).
//!
//! A menu `m` is a set of at least two agents shown together. Feedback on it is an
//! ordered partition `Y_m = (B_1 ≻ … ≻ B_r)`: non-empty, disjoint blocks covering the
//! menu, agents in one block tied, earlier blocks preferred. With `b(a)` the index of
//! the block holding agent `a`, the verdict on a pair is
//!
//! ```text
//! Z_jk = 1[j ≻ k] − 1[k ≻ j] = sign(b(k) − b(j)) ∈ {−1, 0, 1}     (Eq. 3)
//! ```
//!
//! so `Z_kj = −Z_jk`, and a zero means "same block" — a declared tie, a revealed
//! indifference, or a comparison the modality never asked for (censoring), depending on
//! the modality (see [`Response`]).

use std::collections::HashMap;

/// Feedback on one menu: blocks of positions in the menu, best block first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderedPartition {
    /// Block index `b(a)` of each menu position.
    block_of: Vec<usize>,
    /// Number of blocks `r`.
    blocks: usize,
}

impl OrderedPartition {
    /// Blocks of menu positions, best first; checks Eq. 2 for a menu of `menu_size`.
    ///
    /// # Errors
    /// [`FeedbackError`] for an empty block, a position outside the menu, a position
    /// in two blocks, or positions in no block.
    pub fn new(blocks: &[Vec<usize>], menu_size: usize) -> Result<Self, FeedbackError> {
        let mut block_of = vec![usize::MAX; menu_size];
        for (b, block) in blocks.iter().enumerate() {
            if block.is_empty() {
                return Err(FeedbackError(format!(
                    "block {} is empty; every block of an ordered partition needs an agent",
                    b + 1
                )));
            }
            for &position in block {
                let slot = block_of.get_mut(position).ok_or_else(|| {
                    FeedbackError(format!(
                        "position {position} is outside a menu of {menu_size}"
                    ))
                })?;
                if *slot != usize::MAX {
                    return Err(FeedbackError(format!(
                        "menu position {position} appears in two blocks"
                    )));
                }
                *slot = b;
            }
        }
        if let Some(missing) = block_of.iter().position(|&b| b == usize::MAX) {
            return Err(FeedbackError(format!(
                "menu position {missing} is in no block; the blocks must cover the menu"
            )));
        }
        Ok(Self {
            block_of,
            blocks: blocks.len(),
        })
    }

    /// Number of blocks `r`.
    pub fn blocks(&self) -> usize {
        self.blocks
    }

    /// Block index `b(a)` (0 = best) of menu position `a`.
    pub fn block_of(&self, position: usize) -> usize {
        self.block_of[position]
    }

    /// `Z_jk = sign(b(k) − b(j))` for menu positions `j` and `k` (Eq. 3).
    pub fn verdict(&self, j: usize, k: usize) -> i8 {
        match self.block_of[k].cmp(&self.block_of[j]) {
            std::cmp::Ordering::Greater => 1,
            std::cmp::Ordering::Less => -1,
            std::cmp::Ordering::Equal => 0,
        }
    }

    /// The `|m| × |m|` verdict matrix `Z^m` in menu order, row-major (skew-symmetric,
    /// zero diagonal).
    pub fn verdict_matrix(&self) -> Vec<i8> {
        let n = self.block_of.len();
        (0..n * n).map(|i| self.verdict(i / n, i % n)).collect()
    }
}

/// Malformed feedback, with what is wrong and where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct FeedbackError(pub String);

/// A raw response in the natural form of its modality (NashEval Table 5), with agents
/// named. Each converts to an ordered partition of the menu; the zero verdicts it
/// yields mean different things.
#[derive(Debug, Clone, PartialEq)]
pub enum Response {
    /// Pairwise duel on a menu of two: the winner, or `None` for a declared tie
    /// (`({1}, {3})`, or one block). Zero verdict: a declared tie.
    Duel(Option<String>),
    /// Full ranking of the whole menu, best first (`({1}, …, {5})`). No zero verdicts.
    FullRanking(Vec<String>),
    /// Weak ranking: blocks of tied agents, best first (`({1,2}, {3}, {4,5})`). Zero
    /// verdict: revealed indifference.
    WeakRanking(Vec<Vec<String>>),
    /// Top-r: the set of the r best, unordered (`({1,2}, {3,4,5})`). Zero verdict:
    /// censoring — the order inside the top set and inside the rest is never asked.
    Top(Vec<String>),
    /// Best–worst: the best and the worst agent (`({1}, {2,3,4}, {5})`). Zero verdict:
    /// censoring within the middle block.
    BestWorst {
        /// The best agent.
        best: String,
        /// The worst agent.
        worst: String,
    },
    /// Cardinal scores for every agent, higher better (`(5,5,3,1,1)` gives
    /// `({1,2}, {3}, {4,5})`). Zero verdict: equal scores.
    Scores(Vec<(String, f64)>),
    /// Winner of the subset (Eq. 65): `({w}, m \ {w})`. Zero verdict: a pair neither
    /// of whose agents won — winner-only feedback does not rank the others.
    Winner(String),
}

impl Response {
    /// The modality's name as used in logs.
    pub fn modality(&self) -> &'static str {
        match self {
            Self::Duel(_) => "pairwise",
            Self::FullRanking(_) => "ranking",
            Self::WeakRanking(_) => "weak_ranking",
            Self::Top(_) => "top",
            Self::BestWorst { .. } => "best_worst",
            Self::Scores(_) => "scores",
            Self::Winner(_) => "winner",
        }
    }

    /// The ordered partition of `menu` this response reports (NashEval Table 5).
    ///
    /// # Errors
    /// [`FeedbackError`] naming the problem: a menu of fewer than two agents or with
    /// an agent twice, an agent not in the menu, an agent named twice, a ranking or
    /// score map that leaves agents out, a duel on a menu that is not a pair, a top
    /// set that is empty or the whole menu, best equal to worst, a score that is not
    /// finite.
    pub fn to_partition(&self, menu: &[String]) -> Result<OrderedPartition, FeedbackError> {
        let index = menu_index(menu)?;
        let position = |agent: &str| -> Result<usize, FeedbackError> {
            index.get(agent).copied().ok_or_else(|| {
                FeedbackError(format!(
                    "{} response names {agent:?}, which is not in the menu {menu:?}",
                    self.modality()
                ))
            })
        };
        let positions = |agents: &[String]| -> Result<Vec<usize>, FeedbackError> {
            let mut seen = vec![false; menu.len()];
            agents
                .iter()
                .map(|a| {
                    let p = position(a)?;
                    if std::mem::replace(&mut seen[p], true) {
                        return Err(FeedbackError(format!(
                            "{} response names {a:?} twice",
                            self.modality()
                        )));
                    }
                    Ok(p)
                })
                .collect()
        };
        let all = || (0..menu.len()).collect::<Vec<_>>();
        let rest = |taken: &[usize]| -> Vec<usize> {
            all().into_iter().filter(|p| !taken.contains(p)).collect()
        };
        let blocks: Vec<Vec<usize>> = match self {
            Self::Duel(winner) => {
                if menu.len() != 2 {
                    return Err(FeedbackError(format!(
                        "a pairwise duel needs a menu of two agents, not {menu:?}"
                    )));
                }
                match winner {
                    Some(w) => {
                        let w = position(w)?;
                        vec![vec![w], vec![1 - w]]
                    }
                    None => vec![vec![0, 1]],
                }
            }
            Self::FullRanking(order) => {
                let order = positions(order)?;
                if order.len() != menu.len() {
                    return Err(FeedbackError(format!(
                        "a full ranking must list all {} agents of the menu once; it lists {}",
                        menu.len(),
                        order.len()
                    )));
                }
                order.into_iter().map(|p| vec![p]).collect()
            }
            Self::WeakRanking(blocks) => {
                let flat: Vec<String> = blocks.concat();
                positions(&flat)?;
                blocks
                    .iter()
                    .map(|b| positions(b))
                    .collect::<Result<_, _>>()?
            }
            Self::Top(top) => {
                let top = positions(top)?;
                if top.is_empty() || top.len() >= menu.len() {
                    return Err(FeedbackError(format!(
                        "a top set must hold at least one agent and leave one out of the {} in the menu; it holds {}",
                        menu.len(),
                        top.len()
                    )));
                }
                let others = rest(&top);
                vec![top, others]
            }
            Self::BestWorst { best, worst } => {
                let (b, w) = (position(best)?, position(worst)?);
                if b == w {
                    return Err(FeedbackError(format!(
                        "best and worst are both {best:?}; they must differ"
                    )));
                }
                let middle = rest(&[b, w]);
                let mut blocks = vec![vec![b]];
                if !middle.is_empty() {
                    blocks.push(middle);
                }
                blocks.push(vec![w]);
                blocks
            }
            Self::Scores(scores) => {
                let mut scored = Vec::with_capacity(scores.len());
                for (agent, score) in scores {
                    if !score.is_finite() {
                        return Err(FeedbackError(format!(
                            "the score of {agent:?} is {score}; scores must be finite numbers"
                        )));
                    }
                    scored.push((position(agent)?, *score));
                }
                if scored.len() != menu.len() {
                    return Err(FeedbackError(format!(
                        "cardinal scores must cover all {} agents of the menu; {} are given",
                        menu.len(),
                        scored.len()
                    )));
                }
                scored.sort_by(|a, b| b.1.total_cmp(&a.1));
                let mut blocks: Vec<Vec<usize>> = Vec::new();
                let mut last = f64::NAN;
                for (p, s) in scored {
                    match blocks.last_mut() {
                        Some(block) if s == last => block.push(p),
                        _ => blocks.push(vec![p]),
                    }
                    last = s;
                }
                blocks
            }
            Self::Winner(winner) => {
                let w = position(winner)?;
                vec![vec![w], rest(&[w])]
            }
        };
        OrderedPartition::new(&blocks, menu.len())
            .map_err(|e| FeedbackError(format!("{} response on {menu:?}: {e}", self.modality())))
    }
}

impl Response {
    /// A response from its modality's name and its natural JSON form: `pairwise` a
    /// winner name or `"tie"`; `ranking` and `top` a list of names; `weak_ranking` a
    /// list of lists; `best_worst` `{"best": a, "worst": b}` or `[a, b]`; `scores` an
    /// object of name → number; `winner` a name.
    ///
    /// # Errors
    /// [`FeedbackError`] for an unknown modality or a value of the wrong shape, saying
    /// which shape is expected.
    pub fn from_json(modality: &str, value: &serde_json::Value) -> Result<Self, FeedbackError> {
        use serde_json::Value;
        let shape = |expected: &str| {
            FeedbackError(format!(
                "a {modality} response must be {expected}, not {value}"
            ))
        };
        let names = |v: &Value| -> Option<Vec<String>> {
            v.as_array()?
                .iter()
                .map(|x| x.as_str().map(str::to_string))
                .collect()
        };
        Ok(match modality {
            "pairwise" => match value.as_str() {
                Some("tie") => Self::Duel(None),
                Some(w) => Self::Duel(Some(w.to_string())),
                None => return Err(shape("the winner's name or \"tie\"")),
            },
            "ranking" => Self::FullRanking(names(value).ok_or_else(|| shape("a list of names"))?),
            "top" => Self::Top(names(value).ok_or_else(|| shape("a list of names"))?),
            "weak_ranking" => Self::WeakRanking(
                value
                    .as_array()
                    .and_then(|blocks| blocks.iter().map(names).collect())
                    .ok_or_else(|| shape("a list of lists of names"))?,
            ),
            "best_worst" => {
                let pair = match value {
                    Value::Object(o) => o
                        .get("best")
                        .and_then(Value::as_str)
                        .zip(o.get("worst").and_then(Value::as_str)),
                    Value::Array(a) if a.len() == 2 => a[0].as_str().zip(a[1].as_str()),
                    _ => None,
                };
                let (best, worst) =
                    pair.ok_or_else(|| shape("{\"best\": name, \"worst\": name}"))?;
                Self::BestWorst {
                    best: best.to_string(),
                    worst: worst.to_string(),
                }
            }
            "scores" => Self::Scores(
                value
                    .as_object()
                    .and_then(|o| {
                        o.iter()
                            .map(|(k, v)| v.as_f64().map(|s| (k.clone(), s)))
                            .collect()
                    })
                    .ok_or_else(|| shape("an object of name → number"))?,
            ),
            "winner" => {
                Self::Winner(value.as_str().ok_or_else(|| shape("the winner's name"))?.to_string())
            }
            other => {
                return Err(FeedbackError(format!(
                    "unknown modality {other:?}; use pairwise, ranking, weak_ranking, top, best_worst, scores or winner"
                )))
            }
        })
    }
}

/// Menu positions by agent name; a menu needs two distinct agents or more.
fn menu_index(menu: &[String]) -> Result<HashMap<&str, usize>, FeedbackError> {
    if menu.len() < 2 {
        return Err(FeedbackError(format!(
            "the menu {menu:?} has {} agent(s); a comparison needs at least two",
            menu.len()
        )));
    }
    let mut index = HashMap::with_capacity(menu.len());
    for (p, agent) in menu.iter().enumerate() {
        if index.insert(agent.as_str(), p).is_some() {
            return Err(FeedbackError(format!(
                "the menu {menu:?} lists {agent:?} twice"
            )));
        }
    }
    Ok(index)
}
