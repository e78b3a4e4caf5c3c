use crate::{Interner, ModelId, Outcome};

/// A log of pairwise battles in log order: `a[r]` met `b[r]` with outcome `outcome[r]`.
///
/// Invariants (checked by [`BattleLog::push`]): the two sides of a battle differ, and
/// every id is known to `models`.
#[derive(Debug, Clone, Default)]
pub struct BattleLog {
    models: Interner,
    a: Vec<ModelId>,
    b: Vec<ModelId>,
    outcome: Vec<Outcome>,
}

/// A battle that cannot enter a log.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BattleLogError {
    /// Both sides name the same model.
    #[error("model {model:?} battles itself; a battle needs two different models")]
    SelfBattle {
        /// The model named on both sides.
        model: String,
    },
}

impl BattleLog {
    /// An empty log.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends one battle between the named models.
    ///
    /// # Errors
    /// [`BattleLogError::SelfBattle`] when `model_a == model_b`.
    pub fn push(
        &mut self,
        model_a: &str,
        model_b: &str,
        outcome: Outcome,
    ) -> Result<(), BattleLogError> {
        if model_a == model_b {
            return Err(BattleLogError::SelfBattle {
                model: model_a.to_owned(),
            });
        }
        let a = self.models.intern(model_a);
        let b = self.models.intern(model_b);
        self.push_ids(a, b, outcome);
        Ok(())
    }

    /// Appends one battle between interned models (`a != b`, both interned here).
    pub fn push_ids(&mut self, a: ModelId, b: ModelId, outcome: Outcome) {
        assert!(a != b && a.index() < self.models.len() && b.index() < self.models.len());
        self.a.push(a);
        self.b.push(b);
        self.outcome.push(outcome);
    }

    /// The interner naming this log's models.
    pub fn models(&self) -> &Interner {
        &self.models
    }

    /// Mutable access to the interner, to register models before their battles.
    pub fn models_mut(&mut self) -> &mut Interner {
        &mut self.models
    }

    /// Number of battles.
    pub fn len(&self) -> usize {
        self.a.len()
    }

    /// True when the log holds no battle.
    pub fn is_empty(&self) -> bool {
        self.a.is_empty()
    }

    /// Battle `r` as `(a, b, outcome)`.
    pub fn battle(&self, r: usize) -> (ModelId, ModelId, Outcome) {
        (self.a[r], self.b[r], self.outcome[r])
    }

    /// All battles in log order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (ModelId, ModelId, Outcome)> + '_ {
        (0..self.len()).map(move |r| self.battle(r))
    }

    /// The same log with models numbered in name order, so that two logs holding the
    /// same battles in any order get the same ids (and bit-identical fits).
    pub fn with_models_by_name(&self) -> BattleLog {
        let mut sorted: Vec<&str> = self.models.names().iter().map(String::as_str).collect();
        sorted.sort_unstable();
        let mut models = Interner::new();
        for name in sorted {
            models.intern(name);
        }
        let relabel: Vec<ModelId> = self
            .models
            .names()
            .iter()
            .map(|name| models.get(name).expect("every name was interned"))
            .collect();
        BattleLog {
            models,
            a: self.a.iter().map(|id| relabel[id.index()]).collect(),
            b: self.b.iter().map(|id| relabel[id.index()]).collect(),
            outcome: self.outcome.clone(),
        }
    }

    /// The same battles in the order given by `order` (a permutation or any
    /// selection of row indices, repeats allowed), with the same model ids.
    pub fn reordered(&self, order: &[usize]) -> BattleLog {
        BattleLog {
            models: self.models.clone(),
            a: order.iter().map(|&r| self.a[r]).collect(),
            b: order.iter().map(|&r| self.b[r]).collect(),
            outcome: order.iter().map(|&r| self.outcome[r]).collect(),
        }
    }

    /// The battles at `rows` (in that order), with only the models that still play:
    /// the same ids when every model does, else models renumbered in order of
    /// appearance.
    pub fn subset(&self, rows: &[usize]) -> BattleLog {
        let picked = self.reordered(rows);
        let mut plays = vec![false; self.models.len()];
        for (a, b, _) in picked.iter() {
            plays[a.index()] = true;
            plays[b.index()] = true;
        }
        if plays.iter().all(|&p| p) {
            return picked;
        }
        let mut log = BattleLog::new();
        for (a, b, outcome) in picked.iter() {
            let (a, b) = (self.models.name(a), self.models.name(b));
            log.push(a, b, outcome).expect("the log held it");
        }
        log
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_subset_keeps_only_the_models_that_still_play() {
        let mut log = BattleLog::new();
        log.push("x", "y", Outcome::WinA).unwrap();
        log.push("y", "z", Outcome::Tie).unwrap();
        log.push("x", "z", Outcome::WinB).unwrap();
        let all = log.subset(&[2, 0, 1]);
        assert_eq!(all.models().len(), 3);
        assert_eq!(all.battle(0), log.battle(2));
        let some = log.subset(&[0]);
        assert_eq!(some.models().names(), ["x", "y"]);
        assert_eq!(some.len(), 1);
    }

    #[test]
    fn self_battle_is_rejected() {
        let mut log = BattleLog::new();
        let err = log.push("x", "x", Outcome::Tie).unwrap_err();
        assert!(err.to_string().contains("\"x\" battles itself"));
        assert!(log.is_empty());
    }

    #[test]
    fn models_by_name_relabels_consistently() {
        let mut log = BattleLog::new();
        log.push("zeta", "alpha", Outcome::WinA).unwrap();
        let sorted = log.with_models_by_name();
        assert_eq!(sorted.models().names(), ["alpha", "zeta"]);
        assert_eq!(sorted.battle(0), (ModelId(1), ModelId(0), Outcome::WinA));
    }

    #[test]
    fn reorder_keeps_ids() {
        let mut log = BattleLog::new();
        log.push("x", "y", Outcome::WinA).unwrap();
        log.push("y", "z", Outcome::WinB).unwrap();
        let rev = log.reordered(&[1, 0]);
        assert_eq!(rev.battle(0), log.battle(1));
        assert_eq!(rev.models().names(), log.models().names());
    }
}
