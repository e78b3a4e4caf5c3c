//! A model's schema checks: a loaded file is a NashEval model of this version whose
//! sizes agree ([`NashEvalModel::check_format`]), and new contexts are rearranged into
//! the model's features or refused, naming the feature ([`NashEvalModel::align_features`]).

use crate::error::FitError;
use crate::fitted::{NashEvalModel, FORMAT, VERSION};

impl NashEvalModel {
    /// Checks a loaded model's format and version.
    ///
    /// # Errors
    /// [`FitError`] saying what the file is and what was expected.
    pub fn check_format(&self) -> Result<(), FitError> {
        if self.format != FORMAT {
            return Err(FitError::Model(format!(
                "not a NashEval model (format {:?}, expected {FORMAT:?})",
                self.format
            )));
        }
        if self.version != VERSION {
            return Err(FitError::Model(format!(
                "model file version {} is not supported (this build reads version {VERSION}); refit the model",
                self.version
            )));
        }
        self.check_dimensions().map_err(|m| {
            FitError::Model(format!(
                "inconsistent model ({m}); the file was edited or damaged: refit the model"
            ))
        })
    }

    /// Every size in the model agrees with the others: agents, menus, pairs, features,
    /// the payoff models and the network.
    fn check_dimensions(&self) -> Result<(), String> {
        let k = self.agents.len();
        if k < 2 {
            return Err(format!("{k} agents"));
        }
        let mut seen = std::collections::HashSet::new();
        if let Some(twice) = self.agents.iter().find(|a| !seen.insert(*a)) {
            return Err(format!("agent {twice:?} is listed twice"));
        }
        for (m, menu) in self.menus.iter().enumerate() {
            let distinct: std::collections::HashSet<_> = menu.iter().collect();
            if menu.len() < 2 || distinct.len() != menu.len() || menu.iter().any(|&a| a >= k) {
                return Err(format!(
                    "menu {m} {menu:?} is not a set of 2+ of the {k} agents"
                ));
            }
        }
        let pairs = &self.pairs;
        if pairs.agents != k
            || pairs.pairs.iter().any(|&(a, b)| a >= b || b >= k)
            || pairs.holders.len() != pairs.pairs.len()
            || pairs.aggregators.len() != pairs.pairs.len()
            || pairs.menu_pairs.len() != self.menus.len()
        {
            return Err(format!(
                "the pair map does not fit {k} agents and {} menus",
                self.menus.len()
            ));
        }
        let columns = self.feature_names.len();
        self.payoff.check(columns, pairs)?;
        if let Some(network) = &self.network {
            network.check(columns, k)?;
        }
        if let Some(histogram) = &self.summary.propensities {
            histogram.check(self.menus.len())?;
        }
        Ok(())
    }
}

/// Features of new contexts in a model's schema.
#[derive(Debug, Clone, PartialEq)]
pub struct AlignedFeatures {
    /// `contexts × features`, in the model's feature order.
    pub features: Vec<f64>,
    /// One-hot columns of categories the model never saw (dropped: the model treats
    /// such a context as having none of its known categories).
    pub unseen_categories: Vec<String>,
}

impl NashEvalModel {
    /// Rearranges `features` (named `names`) into the model's feature order. A
    /// one-hot category column (`column=value`) the new table lacks is all zeros; one
    /// the model never saw is dropped and listed.
    ///
    /// # Errors
    /// [`FitError`] when a feature the model needs is missing, or a numeric feature
    /// the model was not fitted with is present: a different feature schema.
    pub fn align_features(
        &self,
        names: &[String],
        features: &[f64],
    ) -> Result<AlignedFeatures, FitError> {
        let category_of = |name: &str| name.split_once('=').map(|(c, _)| c.to_string());
        let known_columns: std::collections::HashSet<String> = self
            .feature_names
            .iter()
            .filter_map(|n| category_of(n))
            .collect();
        let given: std::collections::HashMap<&str, usize> = names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.as_str(), i))
            .collect();
        let mut unseen_categories = Vec::new();
        for name in names {
            if self.feature_names.contains(name) {
                continue;
            }
            match category_of(name) {
                Some(column) if known_columns.contains(&column) => {
                    unseen_categories.push(name.clone())
                }
                _ => {
                    return Err(FitError::Schema {
                        feature: name.clone(),
                        message: format!(
                        "the contexts have feature {name:?}, which the model was not fitted with \
                         (model features: {}); use contexts with the training schema or refit",
                        shown_features(&self.feature_names)
                    ),
                    })
                }
            }
        }
        // A categorical column the model knows must be there, with a value (seen or
        // not): a column left out is a mistake, never "no known category".
        let mut known_sorted: Vec<&String> = known_columns.iter().collect();
        known_sorted.sort();
        for column in known_sorted {
            let prefix = format!("{column}=");
            if !names.iter().any(|n| n.starts_with(&prefix)) {
                return Err(FitError::Schema {
                    feature: column.clone(),
                    message: format!(
                        "the contexts lack column {column:?}, which the model was fitted with \
                         (a category: give each context its value; one the model has not seen \
                         is read as none of the known ones)"
                    ),
                });
            }
        }
        let mut sources = Vec::with_capacity(self.feature_names.len());
        for name in &self.feature_names {
            match given.get(name.as_str()) {
                Some(&i) => sources.push(Some(i)),
                None if category_of(name).is_some() => sources.push(None),
                None => {
                    return Err(FitError::Schema {
                        feature: name.clone(),
                        message: format!(
                            "the contexts lack feature {name:?}, which the model was fitted with; \
                         use contexts with the training schema or refit"
                        ),
                    })
                }
            }
        }
        let width = names.len().max(1);
        let rows = features.len() / width;
        let mut out = Vec::with_capacity(rows * sources.len());
        for row in features.chunks(width).take(rows) {
            out.extend(sources.iter().map(|s| s.map_or(0.0, |i| row[i])));
        }
        Ok(AlignedFeatures {
            features: out,
            unseen_categories,
        })
    }
}

/// Feature names for a message: a run of numbered names with one prefix
/// (`embedding_0` … `embedding_255`) shown as its first and last, at most 20 entries.
fn shown_features(names: &[String]) -> String {
    let numbered = |name: &str| {
        let (prefix, number) = name.rsplit_once('_')?;
        Some((prefix.to_owned(), number.parse::<usize>().ok()?))
    };
    let mut entries: Vec<String> = Vec::new();
    let mut i = 0;
    while i < names.len() {
        let mut j = i;
        if let Some((prefix, first)) = numbered(&names[i]) {
            while j + 1 < names.len()
                && numbered(&names[j + 1]) == Some((prefix.clone(), first + (j + 1 - i)))
            {
                j += 1;
            }
        }
        entries.push(if j > i + 1 {
            format!("{} … {}", names[i], names[j])
        } else {
            names[i].clone()
        });
        i = if j > i + 1 { j + 1 } else { i + 1 };
    }
    const SHOWN: usize = 20;
    if entries.len() > SHOWN {
        let more = entries.len() - SHOWN;
        entries.truncate(SHOWN);
        entries.push(format!("and {more} more"));
    }
    entries.join(", ")
}

#[cfg(test)]
mod shown_tests {
    use super::shown_features;

    #[test]
    fn numbered_runs_are_shown_by_their_ends() {
        let mut names: Vec<String> = vec!["is_code".into()];
        names.extend((0..256).map(|d| format!("embedding_{d}")));
        names.push("x_7".into());
        assert_eq!(
            shown_features(&names),
            "is_code, embedding_0 … embedding_255, x_7"
        );
        let many: Vec<String> = (0..30).map(|i| format!("f{i}")).collect();
        assert!(shown_features(&many).ends_with("f19, and 10 more"));
    }
}
