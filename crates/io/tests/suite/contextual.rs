//! Contextual feedback logs: the same log in CSV, JSON Lines and Parquet reads to the
//! same verdicts, repeats are averaged, features are built from numbers, categories
//! and text, and malformed logs are refused with the place and the fix.

use verdict_io::{
    category_code, read_contexts, read_contextual_log, text_features, write_parquet_table,
    CategoricalEncoding, ColumnData, ContextualOptions, Source,
};

fn bytes(label: &str, text: &str) -> Source {
    Source::Bytes {
        label: label.into(),
        data: text.as_bytes().to_vec(),
    }
}

const CONTEXTS_CSV: &str = "context_id,length,domain,prompt
p1,0.5,code,Write a sorting function in Rust
p2,1.5,math,Prove that the square root of two is irrational
p3,2.5,code,Write a parser for CSV files
";

/// One feedback row: context, menu, modality, response as JSON text.
type Row = (
    &'static str,
    &'static [&'static str],
    &'static str,
    &'static str,
);

const FEEDBACK: [Row; 9] = [
    ("p1", &["a", "b"], "pairwise", "\"a\""),
    ("p1", &["b", "a"], "pairwise", "\"b\""),
    ("p1", &["a", "b"], "pairwise", "\"tie\""),
    ("p2", &["a", "b", "c"], "ranking", "[\"c\",\"a\",\"b\"]"),
    (
        "p2",
        &["a", "b", "c", "d"],
        "weak_ranking",
        "[[\"a\",\"b\"],[\"c\"],[\"d\"]]",
    ),
    ("p3", &["a", "b", "c", "d"], "top", "[\"d\"]"),
    (
        "p3",
        &["a", "c", "d"],
        "best_worst",
        "{\"best\":\"d\",\"worst\":\"a\"}",
    ),
    (
        "p3",
        &["a", "b", "c"],
        "scores",
        "{\"a\":1,\"b\":3,\"c\":1}",
    ),
    ("p1", &["b", "c", "d"], "winner", "\"c\""),
];

fn feedback_csv() -> String {
    let mut text = String::from("context_id,menu,modality,response\n");
    for (context, menu, modality, response) in FEEDBACK {
        let quoted = |s: &str| format!("\"{}\"", s.replace('"', "\"\""));
        text += &format!(
            "{context},{},{modality},{}\n",
            quoted(&menu.join("|")),
            quoted(response)
        );
    }
    text
}

fn feedback_jsonl() -> String {
    FEEDBACK
        .iter()
        .map(|(context, menu, modality, response)| {
            let value: serde_json::Value = serde_json::from_str(response).unwrap();
            serde_json::json!({"context_id": context, "menu": menu, "modality": modality, "response": value})
                .to_string()
                + "\n"
        })
        .collect()
}

fn options() -> ContextualOptions {
    ContextualOptions {
        text_column: Some("prompt".into()),
        text_dim: 16,
        ..ContextualOptions::default()
    }
}

#[test]
fn csv_json_lines_and_parquet_give_the_same_log() {
    let contexts = bytes("contexts.csv", CONTEXTS_CSV);
    let from_csv = read_contextual_log(
        &contexts,
        &bytes("feedback.csv", &feedback_csv()),
        &options(),
    )
    .unwrap();
    let from_jsonl = read_contextual_log(
        &contexts,
        &bytes("feedback.jsonl", &feedback_jsonl()),
        &options(),
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let parquet = dir.path().join("feedback.parquet");
    let column = |f: fn(&Row) -> String| ColumnData::Text(FEEDBACK.iter().map(f).collect());
    write_parquet_table(
        &parquet,
        &[
            ("context_id", column(|r| r.0.to_string())),
            (
                "menu",
                ColumnData::TextList(
                    FEEDBACK
                        .iter()
                        .map(|r| r.1.iter().map(|s| s.to_string()).collect())
                        .collect(),
                ),
            ),
            ("modality", column(|r| r.2.to_string())),
            ("response", column(|r| r.3.to_string())),
        ],
    )
    .unwrap();
    let from_parquet = read_contextual_log(&contexts, &Source::File(parquet), &options()).unwrap();
    assert_eq!(from_csv, from_jsonl);
    assert_eq!(from_csv, from_parquet);

    let log = from_csv;
    assert_eq!(log.agents, ["a", "b", "c", "d"]);
    assert_eq!(log.contexts, ["p1", "p2", "p3"]);
    // Three responses on {a, b} at p1 (a wins, b wins, tie) average to zero.
    let ab = log.menus.iter().position(|m| m == &[0, 1]).unwrap();
    let repeated = log
        .feedback
        .iter()
        .find(|f| f.context == 0 && f.menu == ab)
        .unwrap();
    assert_eq!(repeated.responses, 3);
    assert_eq!(repeated.verdicts, vec![0.0; 4]);
    assert!(log.selected(0, ab) && !log.selected(1, ab));
    // The ranking c ≻ a ≻ b on {a, b, c}: Z in menu order (a, b, c).
    let abc = log.menus.iter().position(|m| m == &[0, 1, 2]).unwrap();
    let ranked = log
        .feedback
        .iter()
        .find(|f| f.context == 1 && f.menu == abc)
        .unwrap();
    assert_eq!(
        ranked.verdicts,
        vec![0.0, 1.0, -1.0, -1.0, 0.0, -1.0, 1.0, 1.0, 0.0]
    );
    // Features: length, domain one-hot (code, math), 16 text dimensions.
    assert_eq!(log.feature_names.len(), 1 + 2 + 16);
    assert_eq!(
        &log.feature_names[..3],
        ["length", "domain=code", "domain=math"]
    );
    let width = log.feature_names.len();
    assert_eq!(&log.features[width..width + 3], [1.5, 0.0, 1.0]);
    let codes = ContextualOptions {
        categorical: CategoricalEncoding::Codes,
        ..options()
    };
    let coded = read_contextual_log(&contexts, &bytes("f.csv", &feedback_csv()), &codes).unwrap();
    assert_eq!(coded.feature_names[1], "domain");
    assert_eq!(
        (0..3)
            .map(|r| coded.features[r * 18 + 1])
            .collect::<Vec<_>>(),
        [
            category_code("code"),
            category_code("math"),
            category_code("code")
        ]
    );
    // The code depends on the value alone: a table listing the categories in another
    // order codes them alike (codes by order of appearance would swap them).
    let reordered = read_contexts(
        &bytes("c.csv", "context_id,domain\nq,math\nr,code\n"),
        &ContextualOptions {
            categorical: CategoricalEncoding::Codes,
            ..ContextualOptions::default()
        },
    )
    .unwrap();
    assert_eq!(
        reordered.features,
        [category_code("math"), category_code("code")]
    );
    // FNV-1a's published 64-bit test vector: "a" hashes to 0xaf63dc4c8601ec8c.
    assert_eq!(
        category_code("a"),
        0xaf63_dc4c_8601_ec8c_u64 as f64 / 2f64.powi(64)
    );
    assert!(category_code("code") != category_code("math"));
}

#[test]
fn text_features_are_deterministic_unit_vectors_that_separate_topics() {
    let a = text_features("Write a sorting function in Rust", 64);
    let b = text_features("write a sorting function in rust!", 64);
    let c = text_features("Prove that the square root of two is irrational", 64);
    assert_eq!(a, b, "case and punctuation do not matter");
    assert_eq!(a, text_features("Write a sorting function in Rust", 64));
    let dot = |x: &[f64], y: &[f64]| x.iter().zip(y).map(|(x, y)| x * y).sum::<f64>();
    assert!((dot(&a, &a) - 1.0).abs() < 1e-12);
    let similar = text_features("Write a sorting function in Python", 64);
    assert!(dot(&a, &similar) > dot(&a, &c) + 0.3);
    assert_eq!(text_features("", 8), vec![0.0; 8]);
}

#[test]
fn malformed_logs_are_refused_with_the_place() {
    let contexts = bytes("contexts.csv", CONTEXTS_CSV);
    let fails = |feedback: &str| {
        read_contextual_log(&contexts, &bytes("feedback.csv", feedback), &options())
            .unwrap_err()
            .to_string()
    };
    let header = "context_id,menu,modality,response\n";
    let cases = [
        ("p9,a|b,pairwise,a\n", "\"p9\" is not in the contexts table"),
        ("p1,a,pairwise,a\n", "at least two"),
        ("p1,a|a,pairwise,a\n", "twice"),
        ("p1,a|b,pairwise,z\n", "\"z\""),
        (
            "p1,a|b|c,ranking,\"[\"\"a\"\",\"\"a\"\",\"\"b\"\"]\"\n",
            "twice",
        ),
        ("p1,a|b,stars,a\n", "unknown modality"),
    ];
    for (row, expected) in cases {
        let message = fails(&format!("{header}{row}"));
        assert!(message.contains(expected), "{row}: {message}");
        assert!(message.contains("feedback.csv"), "{message}");
        assert!(message.contains("feedback.csv:2"), "{message}");
    }
    assert!(fails(header).contains("empty"));
    assert!(fails("context_id,menu\np1,a|b\n").contains("missing column \"modality\""));
    // Contexts: a duplicate id, no feature at all.
    let twice = bytes("c.csv", "context_id,x\np1,1\np1,2\n");
    let err = read_contextual_log(&twice, &bytes("f.csv", &feedback_csv()), &options())
        .unwrap_err()
        .to_string();
    assert!(err.contains("appears twice"), "{err}");
    let bare = bytes("c.csv", "context_id\np1\n");
    let err = read_contextual_log(
        &bare,
        &bytes(
            "f.csv",
            "context_id,menu,modality,response\np1,a|b,pairwise,a\n",
        ),
        &ContextualOptions::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("no features"), "{err}");
    // A menu outside a given catalogue.
    let fixed = ContextualOptions {
        catalogue: Some(vec![vec!["a".into(), "b".into()]]),
        ..options()
    };
    let err = read_contextual_log(
        &contexts,
        &bytes(
            "f.csv",
            "context_id,menu,modality,response\np1,a|c,pairwise,a\n",
        ),
        &fixed,
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("catalogue"), "{err}");
}

/// An LMArena battle log is a contextual log of duels: battles with the same values
/// of the context columns share a context; ties are declared ties.
#[test]
fn battle_logs_read_as_contextual_logs() {
    let battles = bytes(
        "battles.csv",
        "model_a,model_b,winner,language,turns
x,y,model_a,en,1
y,x,model_a,en,1
x,y,tie,de,2
x,z,model_b,en,1
y,z,tie (bothbad),de,2
",
    );
    let cols = ["language".to_string(), "turns".to_string()];
    let log =
        verdict_io::read_battles_as_contextual(&battles, &cols, &ContextualOptions::default())
            .unwrap();
    assert_eq!(log.contexts, ["en|1", "de|2"]);
    assert_eq!(log.feature_names, ["language=en", "language=de", "turns"]);
    assert_eq!(log.features, [1.0, 0.0, 1.0, 0.0, 1.0, 2.0]);
    assert_eq!(log.agents, ["x", "y", "z"]);
    // {x, y} at "en|1": x won once, y won once: mean verdict 0 over two responses.
    let xy = log.menus.iter().position(|m| m == &[0, 1]).unwrap();
    let en = log
        .feedback
        .iter()
        .find(|f| f.context == 0 && f.menu == xy)
        .unwrap();
    assert_eq!((en.responses, en.verdicts.clone()), (2, vec![0.0; 4]));
    // {x, z} at "en|1": z won.
    let xz = log.menus.iter().position(|m| m == &[0, 2]).unwrap();
    let won = log
        .feedback
        .iter()
        .find(|f| f.context == 0 && f.menu == xz)
        .unwrap();
    assert_eq!(won.verdicts, vec![0.0, -1.0, 1.0, 0.0]);
    let err = verdict_io::read_battles_as_contextual(
        &battles,
        &["region".to_string()],
        &ContextualOptions::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("missing column \"region\""), "{err}");
}

/// Precomputed embeddings (a JSON array per row, or a Parquet list) are used as they
/// are, one feature per dimension.
#[test]
fn embedding_columns_are_used_as_they_are() {
    let feedback = bytes(
        "f.csv",
        "context_id,menu,modality,response\nu,a|b,pairwise,a\nv,a|b,pairwise,b\n",
    );
    let jsonl = bytes(
        "contexts.jsonl",
        "{\"context_id\": \"u\", \"emb\": [0.25, -1.5, 3.0]}\n{\"context_id\": \"v\", \"emb\": [1.0, 0.0, -0.125]}\n",
    );
    let from_jsonl = read_contextual_log(&jsonl, &feedback, &ContextualOptions::default()).unwrap();
    assert_eq!(from_jsonl.feature_names, ["emb_0", "emb_1", "emb_2"]);
    assert_eq!(from_jsonl.features, [0.25, -1.5, 3.0, 1.0, 0.0, -0.125]);
    let dir = tempfile::tempdir().unwrap();
    let parquet = dir.path().join("contexts.parquet");
    write_parquet_table(
        &parquet,
        &[
            ("context_id", ColumnData::Text(vec!["u".into(), "v".into()])),
            (
                "emb",
                ColumnData::FloatList(vec![vec![0.25, -1.5, 3.0], vec![1.0, 0.0, -0.125]]),
            ),
        ],
    )
    .unwrap();
    let from_parquet = read_contextual_log(
        &Source::File(parquet),
        &feedback,
        &ContextualOptions::default(),
    )
    .unwrap();
    assert_eq!(from_parquet, from_jsonl);
}

/// The contexts `u`, `v`, `w` with a three-dimensional embedding each, as a record
/// batch whose `emb` column is a `fixed_size_list<float64, 3>` (what pyarrow writes
/// for a 2-D numpy array) with `rows` as its values.
fn fixed_size_embeddings(rows: [[f64; 3]; 3]) -> arrow::record_batch::RecordBatch {
    use std::sync::Arc;

    use arrow::array::{ArrayRef, FixedSizeListArray, Float64Array, StringArray};
    use arrow::datatypes::{DataType, Field};
    let item = Arc::new(Field::new("item", DataType::Float64, false));
    let values = Float64Array::from(rows.iter().flatten().copied().collect::<Vec<_>>());
    let emb = FixedSizeListArray::new(item, 3, Arc::new(values), None);
    let ids = StringArray::from(vec!["u", "v", "w"]);
    arrow::record_batch::RecordBatch::try_from_iter([
        ("context_id", Arc::new(ids) as ArrayRef),
        ("emb", Arc::new(emb) as ArrayRef),
    ])
    .unwrap()
}

/// An embedding column stored as a fixed-size list, in Parquet and in an Arrow IPC
/// (Feather) file, reads to the same features as the JSON arrays of JSON Lines.
#[test]
fn fixed_size_list_embeddings_read_from_parquet_and_arrow() {
    let rows = [[0.25, -1.5, 3.0], [1.0, 0.0, -0.125], [2.0, 0.5, 0.75]];
    let batch = fixed_size_embeddings(rows);
    let dir = tempfile::tempdir().unwrap();
    let parquet = dir.path().join("contexts.parquet");
    let mut writer = parquet::arrow::ArrowWriter::try_new(
        std::fs::File::create(&parquet).unwrap(),
        batch.schema(),
        None,
    )
    .unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
    let arrow_file = dir.path().join("contexts.arrow");
    let mut writer = arrow::ipc::writer::FileWriter::try_new(
        std::fs::File::create(&arrow_file).unwrap(),
        &batch.schema(),
    )
    .unwrap();
    writer.write(&batch).unwrap();
    writer.finish().unwrap();
    let jsonl = bytes(
        "contexts.jsonl",
        "{\"context_id\": \"u\", \"emb\": [0.25, -1.5, 3.0]}\n{\"context_id\": \"v\", \"emb\": [1.0, 0.0, -0.125]}\n{\"context_id\": \"w\", \"emb\": [2.0, 0.5, 0.75]}\n",
    );
    let options = ContextualOptions::default();
    let expected = read_contexts(&jsonl, &options).unwrap();
    assert_eq!(expected.feature_names, ["emb_0", "emb_1", "emb_2"]);
    assert_eq!(expected.features, rows.concat());
    for file in [parquet, arrow_file] {
        let read = read_contexts(&Source::File(file.clone()), &options).unwrap();
        assert_eq!(read.features, expected.features, "{}", file.display());
        assert_eq!(read.feature_names, expected.feature_names);
    }
}

/// An embedding of another length, or with a word in it, or not a list, is refused
/// naming its row and the fix in JSON Lines (which has no NaN), and a NaN in a
/// Parquet float list likewise — instead of the column turning into categories.
#[test]
fn a_ragged_or_nan_embedding_is_refused_naming_the_row() {
    let row = |id: usize, emb: &str| format!("{{\"context_id\": \"c{id}\", \"emb\": {emb}}}\n");
    for (bad, expected) in [
        ("[1.0, 2.0]", "2 numbers where the first row's has 3"),
        ("[1.0, \"x\", 2.0]", "in an embedding"),
        ("\"none\"", "is not a list of numbers"),
    ] {
        let text: String = (0..6)
            .map(|i| row(i, if i == 4 { bad } else { "[0.5, 1.5, 2.5]" }))
            .collect();
        let message = read_contexts(
            &bytes("contexts.jsonl", &text),
            &ContextualOptions::default(),
        )
        .unwrap_err()
        .to_string();
        assert!(message.contains("contexts.jsonl:5"), "{bad}: {message}");
        assert!(message.contains("\"emb\""), "{bad}: {message}");
        assert!(message.contains(expected), "{bad}: {message}");
    }
    let dir = tempfile::tempdir().unwrap();
    let parquet = dir.path().join("contexts.parquet");
    let ids = (0..4).map(|i| format!("c{i}")).collect();
    write_parquet_table(
        &parquet,
        &[
            ("context_id", ColumnData::Text(ids)),
            (
                "emb",
                ColumnData::FloatList(vec![
                    vec![0.5, 1.5],
                    vec![0.5, 1.5],
                    vec![0.5, f64::NAN],
                    vec![0.5, 1.5],
                ]),
            ),
        ],
    )
    .unwrap();
    let message = read_contexts(&Source::File(parquet), &ContextualOptions::default())
        .unwrap_err()
        .to_string();
    assert!(message.contains("row 3"), "{message}");
    assert!(message.contains("NaN in an embedding"), "{message}");
}

/// One NaN, inf, 1e400 or word in a numeric column is an error naming its row, not a
/// silent switch of the whole column to one-hot categories; a column of free text read
/// as a category with hundreds of levels is refused with the fix.
#[test]
fn a_bad_cell_in_a_numeric_column_is_an_error() {
    let options = ContextualOptions::default();
    for bad in ["NaN", "inf", "1e400", "n/a"] {
        let mut text = String::from("context_id,x1,x2\n");
        for i in 0..20 {
            let x2 = if i == 7 {
                bad.to_string()
            } else {
                format!("0.{i}")
            };
            text.push_str(&format!("c{i},{i},{x2}\n"));
        }
        let err = read_contexts(&bytes("contexts.csv", &text), &options).unwrap_err();
        let message = err.to_string();
        assert!(message.contains("contexts.csv:9"), "{bad}: {message}");
        assert!(message.contains("\"x2\""), "{bad}: {message}");
        assert!(message.contains("numeric column"), "{bad}: {message}");
    }
    let mut text = String::from("context_id,x1,prompt\n");
    for i in 0..300 {
        text.push_str(&format!(
            "c{i},{i},question number {i} about topic {}\n",
            i * 7
        ));
    }
    let message = read_contexts(&bytes("contexts.csv", &text), &options)
        .unwrap_err()
        .to_string();
    assert!(message.contains("`text_column` prompt"), "{message}");
    assert!(message.contains("`categorical` codes"), "{message}");
    // With the fix, it reads.
    let coded = ContextualOptions {
        categorical: CategoricalEncoding::Codes,
        ..ContextualOptions::default()
    };
    assert!(read_contexts(&bytes("contexts.csv", &text), &coded).is_ok());
}

/// A propensity column gives each (context, menu) the probability it was offered
/// with: kept on its feedback, the same for repeats (in either menu order), and
/// refused with its row when it is no probability or contradicts an earlier row.
#[test]
fn logged_propensities_are_read_checked_and_kept_per_offer() {
    let contexts = bytes("c.csv", CONTEXTS_CSV);
    let options = ContextualOptions {
        propensity_column: Some("propensity".into()),
        ..options()
    };
    let feedback = "context_id,menu,modality,response,propensity
p1,a|b,pairwise,a,0.25
p1,b|a,pairwise,b,0.25
p2,a|c,pairwise,c,1
";
    let log = read_contextual_log(&contexts, &bytes("f.csv", feedback), &options).unwrap();
    let logged: Vec<Option<f64>> = log.feedback.iter().map(|f| f.logged_propensity).collect();
    assert_eq!(logged, vec![Some(0.25), Some(1.0)]);
    assert_eq!(log.feedback[0].responses, 2);
    let without =
        read_contextual_log(&contexts, &bytes("f.csv", feedback), &self::options()).unwrap();
    assert!(without
        .feedback
        .iter()
        .all(|f| f.logged_propensity.is_none()));
    for (bad, says) in [
        (
            "p1,a|b,pairwise,a,0.25\np1,a|b,pairwise,b,0.5\n",
            "differs from 0.25",
        ),
        ("p1,a|b,pairwise,a,0\n", "(0, 1]"),
        ("p1,a|b,pairwise,a,1.5\n", "(0, 1]"),
        ("p1,a|b,pairwise,a,NaN\n", "(0, 1]"),
        ("p1,a|b,pairwise,a,often\n", "not a number"),
        ("p1,a|b,pairwise,a,\n", "missing value"),
    ] {
        let text = format!("context_id,menu,modality,response,propensity\n{bad}");
        let err = read_contextual_log(&contexts, &bytes("f.csv", &text), &options)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(says) && err.contains("propensity"),
            "{bad}: {err}"
        );
    }
    let err = read_contextual_log(
        &contexts,
        &bytes(
            "f.csv",
            "context_id,menu,modality,response\np1,a|b,pairwise,a\n",
        ),
        &options,
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("propensity"), "{err}");
}
