//! Feedback modalities to ordered partitions and verdicts, against NashEval Table 5 and
//! the worked example of Appendix F.1, and Eq. 65 for winner-of-subset feedback.

use serde_json::json;
use verdict_feedback::{OrderedPartition, Response};

fn menu(names: &[&str]) -> Vec<String> {
    names.iter().map(|s| s.to_string()).collect()
}

fn strings(names: &[&str]) -> Vec<String> {
    menu(names)
}

/// Block index of each menu position, as printed in Table 5 (blocks counted from 0).
fn blocks_of(partition: &OrderedPartition, size: usize) -> Vec<usize> {
    (0..size).map(|p| partition.block_of(p)).collect()
}

/// Appendix F.1: menu {1,…,5}, weak ranking {1,2} ≻ {3} ≻ {4,5} gives the printed Z^m.
#[test]
fn appendix_f1_example_gives_the_printed_verdict_matrix() {
    let m = menu(&["1", "2", "3", "4", "5"]);
    let response = Response::WeakRanking(vec![
        strings(&["1", "2"]),
        strings(&["3"]),
        strings(&["4", "5"]),
    ]);
    let partition = response.to_partition(&m).unwrap();
    #[rustfmt::skip]
    let printed: Vec<i8> = vec![
         0,  0,  1,  1,  1,
         0,  0,  1,  1,  1,
        -1, -1,  0,  1,  1,
        -1, -1, -1,  0,  0,
        -1, -1, -1,  0,  0,
    ];
    assert_eq!(partition.verdict_matrix(), printed);
    assert_eq!(partition.blocks(), 3);
}

/// Every row of Table 5: the raw response gives the printed ordered partition.
#[test]
fn table_5_responses_give_the_printed_partitions() {
    let five = menu(&["1", "2", "3", "4", "5"]);
    let cases: Vec<(Response, Vec<String>, Vec<usize>)> = vec![
        // Pairwise duel 1 ≻ 3 on {1, 3}: ({1}, {3}).
        (
            Response::Duel(Some("1".into())),
            menu(&["1", "3"]),
            vec![0, 1],
        ),
        // Full ranking 1 ≻ 2 ≻ 3 ≻ 4 ≻ 5: five singletons.
        (
            Response::FullRanking(strings(&["1", "2", "3", "4", "5"])),
            five.clone(),
            vec![0, 1, 2, 3, 4],
        ),
        // Weak ranking {1,2} ≻ {3} ≻ {4,5}.
        (
            Response::WeakRanking(vec![
                strings(&["1", "2"]),
                strings(&["3"]),
                strings(&["4", "5"]),
            ]),
            five.clone(),
            vec![0, 0, 1, 2, 2],
        ),
        // Top-2 T = {1, 2}: ({1,2}, {3,4,5}).
        (
            Response::Top(strings(&["1", "2"])),
            five.clone(),
            vec![0, 0, 1, 1, 1],
        ),
        // Best 1, worst 5: ({1}, {2,3,4}, {5}).
        (
            Response::BestWorst {
                best: "1".into(),
                worst: "5".into(),
            },
            five.clone(),
            vec![0, 1, 1, 1, 2],
        ),
        // Cardinal scores (5,5,3,1,1): ({1,2}, {3}, {4,5}).
        (
            Response::Scores(vec![
                ("1".into(), 5.0),
                ("2".into(), 5.0),
                ("3".into(), 3.0),
                ("4".into(), 1.0),
                ("5".into(), 1.0),
            ]),
            five.clone(),
            vec![0, 0, 1, 2, 2],
        ),
    ];
    for (response, m, expected) in cases {
        let partition = response.to_partition(&m).unwrap();
        assert_eq!(
            blocks_of(&partition, m.len()),
            expected,
            "{}",
            response.modality()
        );
    }
    // A declared tie is one block: the only zero verdict of a duel.
    let tie = Response::Duel(None)
        .to_partition(&menu(&["a", "b"]))
        .unwrap();
    assert_eq!(tie.verdict_matrix(), vec![0, 0, 0, 0]);
}

/// Eq. 65: `Z_jk = 1[W = j] − 1[W = k]` on every pair, for every winner of a menu of 4.
#[test]
fn winner_of_subset_matches_eq_65() {
    let m = menu(&["a", "b", "c", "d"]);
    for (w, winner) in m.iter().enumerate() {
        let partition = Response::Winner(winner.clone()).to_partition(&m).unwrap();
        for j in 0..4 {
            for k in 0..4 {
                let eq65 = i8::from(w == j) - i8::from(w == k);
                assert_eq!(partition.verdict(j, k), eq65, "winner {winner}, ({j}, {k})");
            }
        }
    }
}

/// Eq. 3 on every ordered partition of a menu of four (all 75 of them, by brute force
/// over block assignments): skew-symmetric, zero diagonal, and `Z_jk = 1` exactly when
/// j's block comes first.
#[test]
fn verdicts_are_skew_symmetric_on_every_partition_of_four() {
    let mut seen = std::collections::HashSet::new();
    for code in 0..4usize.pow(4) {
        let assignment: Vec<usize> = (0..4).map(|p| code / 4usize.pow(p) % 4).collect();
        let used: Vec<usize> = (0..4).filter(|b| assignment.contains(b)).collect();
        // Only assignments whose blocks are 0..r without gaps are ordered partitions.
        if used != (0..used.len()).collect::<Vec<_>>() {
            continue;
        }
        let blocks: Vec<Vec<usize>> = used
            .iter()
            .map(|&b| (0..4).filter(|&p| assignment[p] == b).collect())
            .collect();
        let partition = OrderedPartition::new(&blocks, 4).unwrap();
        let z = partition.verdict_matrix();
        for j in 0..4 {
            assert_eq!(z[j * 4 + j], 0);
            for k in 0..4 {
                assert_eq!(z[j * 4 + k], -z[k * 4 + j]);
                assert_eq!(z[j * 4 + k] == 1, assignment[j] < assignment[k]);
            }
        }
        seen.insert(assignment);
    }
    // The ordered Bell (Fubini) number of 4.
    assert_eq!(seen.len(), 75);
}

#[test]
fn responses_parse_from_their_natural_json_form() {
    let m = menu(&["x", "y", "z"]);
    let cases = [
        ("ranking", json!(["z", "x", "y"]), vec![1, 2, 0]),
        ("weak_ranking", json!([["z"], ["x", "y"]]), vec![1, 1, 0]),
        ("top", json!(["y"]), vec![1, 0, 1]),
        (
            "best_worst",
            json!({"best": "y", "worst": "x"}),
            vec![2, 0, 1],
        ),
        ("best_worst", json!(["y", "x"]), vec![2, 0, 1]),
        (
            "scores",
            json!({"x": 0.5, "y": 0.9, "z": 0.5}),
            vec![1, 0, 1],
        ),
        ("winner", json!("z"), vec![1, 1, 0]),
    ];
    for (modality, value, expected) in cases {
        let response = Response::from_json(modality, &value).unwrap();
        assert_eq!(response.modality(), modality);
        let partition = response.to_partition(&m).unwrap();
        assert_eq!(blocks_of(&partition, 3), expected, "{modality}: {value}");
    }
    let duel = menu(&["x", "y"]);
    let won = Response::from_json("pairwise", &json!("y")).unwrap();
    assert_eq!(won.to_partition(&duel).unwrap().verdict(1, 0), 1);
    let tie = Response::from_json("pairwise", &json!("tie")).unwrap();
    assert_eq!(tie.to_partition(&duel).unwrap().verdict(1, 0), 0);
}

/// Bad feedback is refused with a message naming the problem.
#[test]
fn malformed_feedback_is_a_clear_error() {
    let m = menu(&["a", "b", "c"]);
    let err = |response: Response, m: &[String]| response.to_partition(m).unwrap_err().0;
    assert!(err(Response::Winner("a".into()), &menu(&["a"])).contains("at least two"));
    assert!(err(Response::Winner("a".into()), &menu(&["a", "a"])).contains("twice"));
    assert!(err(Response::Winner("q".into()), &m).contains("\"q\""));
    assert!(err(Response::FullRanking(strings(&["a", "b", "a"])), &m).contains("twice"));
    assert!(err(Response::FullRanking(strings(&["a", "b"])), &m).contains("all 3"));
    assert!(err(Response::Duel(Some("a".into())), &m).contains("menu of two"));
    assert!(err(Response::Top(strings(&["a", "b", "c"])), &m).contains("leave one out"));
    assert!(err(Response::Top(vec![]), &m).contains("at least one"));
    let same = Response::BestWorst {
        best: "b".into(),
        worst: "b".into(),
    };
    assert!(err(same, &m).contains("differ"));
    let nan = Response::Scores(vec![
        ("a".into(), 1.0),
        ("b".into(), f64::NAN),
        ("c".into(), 0.0),
    ]);
    assert!(err(nan, &m).contains("finite"));
    let partial = Response::Scores(vec![("a".into(), 1.0)]);
    assert!(err(partial, &m).contains("cover all 3"));
    let gap = Response::WeakRanking(vec![strings(&["a"]), strings(&["b"])]);
    assert!(err(gap, &m).contains("no block"));
    let twice = Response::WeakRanking(vec![strings(&["a", "b"]), strings(&["b", "c"])]);
    assert!(err(twice, &m).contains("twice"));
    assert!(Response::from_json("stars", &json!(3))
        .unwrap_err()
        .0
        .contains("unknown modality"));
    assert!(Response::from_json("ranking", &json!("a"))
        .unwrap_err()
        .0
        .contains("a list of names"));
    assert!(OrderedPartition::new(&[vec![0], vec![]], 1)
        .unwrap_err()
        .0
        .contains("empty"));
}
