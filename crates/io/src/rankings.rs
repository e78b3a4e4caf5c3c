//! Rankings for Plackett–Luce, read from the feedback table of a contextual log: the
//! columns `menu`, `modality` and `response` in the forms NashEval reads (a duel, a
//! full or weak ranking, a top set, best–worst, scores, a winner of the menu);
//! `context_id` and any other column are ignored. Each row becomes the blocks of its
//! ordered partition, best first, as model indices.

use std::collections::HashMap;

use crate::contextual::FeedbackColumns;
use crate::{read_table, Format, IoError, Source};

/// Rankings with their model names.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedRankings {
    /// Model names, in order of first appearance.
    pub models: Vec<String>,
    /// One ranking per feedback row: blocks of model indices, best first.
    pub rankings: Vec<Vec<Vec<usize>>>,
}

/// Reads the rankings of a feedback table (format from the extension unless given).
///
/// # Errors
/// [`IoError`] naming file, row and column: a missing column, a malformed menu or a
/// response that does not fit its menu.
pub fn read_rankings(source: &Source, format: Option<Format>) -> Result<LoadedRankings, IoError> {
    let table = read_table(source, format, None)?;
    let columns = FeedbackColumns::new(
        &table,
        "rankings need columns menu, modality, response (the feedback table of a contextual log)",
    )?;
    let mut models: Vec<String> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut rankings = Vec::with_capacity(table.rows());
    for row in 0..table.rows() {
        let (menu, response) = columns.row(row)?;
        let partition = response
            .to_partition(&menu)
            .map_err(|e| IoError::invalid(table.location(row, Some("response")), e.0))?;
        let mut blocks = vec![Vec::new(); partition.blocks()];
        for (position, name) in menu.iter().enumerate() {
            let next = models.len();
            let model = *index.entry(name.clone()).or_insert(next);
            if model == next {
                models.push(name.clone());
            }
            blocks[partition.block_of(position)].push(model);
        }
        rankings.push(blocks);
    }
    Ok(LoadedRankings { models, rankings })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<LoadedRankings, IoError> {
        read_rankings(
            &Source::Bytes {
                label: "r.csv".into(),
                data: text.as_bytes().to_vec(),
            },
            None,
        )
    }

    #[test]
    fn every_modality_becomes_blocks_best_first() {
        let loaded = read(concat!(
            "context_id,menu,modality,response\n",
            "1,a|b|c,ranking,\"[\"\"c\"\",\"\"a\"\",\"\"b\"\"]\"\n",
            "2,a|b,pairwise,b\n",
            "3,a|b|c,winner,a\n",
            "4,a|b|c,weak_ranking,\"[[\"\"a\"\",\"\"c\"\"],[\"\"b\"\"]]\"\n",
        ))
        .unwrap();
        assert_eq!(loaded.models, ["a", "b", "c"]);
        assert_eq!(
            loaded.rankings,
            vec![
                vec![vec![2], vec![0], vec![1]],
                vec![vec![1], vec![0]],
                vec![vec![0], vec![1, 2]],
                vec![vec![0, 2], vec![1]],
            ]
        );
    }

    #[test]
    fn bad_rows_are_located() {
        let e = read("menu,modality,response\na|b,ranking,\"[\"\"a\"\",\"\"z\"\"]\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("r.csv:2") && e.contains("\"z\""), "{e}");
        let e = read("menu,response\na|b,a\n").unwrap_err().to_string();
        assert!(e.contains("modality"), "{e}");
    }
}
