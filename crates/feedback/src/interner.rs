use std::collections::HashMap;

/// Dense index of a model (agent) inside one log; names live in an [`Interner`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ModelId(pub u32);

impl ModelId {
    /// The index as a `usize`, for vectors and matrices.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Two-way map between model names and dense ids `0..len`, in order of first appearance.
#[derive(Debug, Clone, Default)]
pub struct Interner {
    names: Vec<String>,
    ids: HashMap<String, ModelId>,
}

impl Interner {
    /// An empty interner.
    pub fn new() -> Self {
        Self::default()
    }

    /// The id of `name`, adding it if it is new.
    pub fn intern(&mut self, name: &str) -> ModelId {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = ModelId(u32::try_from(self.names.len()).expect("fewer than 2^32 models"));
        self.names.push(name.to_owned());
        self.ids.insert(name.to_owned(), id);
        id
    }

    /// The id of `name`, if known.
    pub fn get(&self, name: &str) -> Option<ModelId> {
        self.ids.get(name).copied()
    }

    /// The name behind `id`.
    pub fn name(&self, id: ModelId) -> &str {
        &self.names[id.index()]
    }

    /// All names, indexed by id.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Number of distinct models.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// True when no model has been interned.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_dense_in_order_of_first_appearance() {
        let mut interner = Interner::new();
        assert_eq!(interner.intern("b"), ModelId(0));
        assert_eq!(interner.intern("a"), ModelId(1));
        assert_eq!(interner.intern("b"), ModelId(0));
        assert_eq!(interner.name(ModelId(1)), "a");
        assert_eq!(interner.get("c"), None);
        assert_eq!(interner.len(), 2);
    }
}
