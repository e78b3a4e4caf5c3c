//! Parquet rows with missing or mistyped values get located errors.

use std::sync::Arc;

use arrow::array::{Int64Array, RecordBatch, StringArray};
use arrow::datatypes::{DataType, Field, Schema};
use parquet::arrow::ArrowWriter;
use verdict_io::{read_battles, ReadOptions, Source};

fn write_parquet(path: &std::path::Path, winner_is_number: bool) {
    let winner_type = if winner_is_number {
        DataType::Int64
    } else {
        DataType::Utf8
    };
    let schema = Arc::new(Schema::new(vec![
        Field::new("model_a", DataType::Utf8, true),
        Field::new("model_b", DataType::Utf8, true),
        Field::new("winner", winner_type, true),
    ]));
    let winner: Arc<dyn arrow::array::Array> = if winner_is_number {
        Arc::new(Int64Array::from(vec![1, 2, 3]))
    } else {
        Arc::new(StringArray::from(vec![
            Some("model_a"),
            Some("tie"),
            Some("model_b"),
        ]))
    };
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![
            Arc::new(StringArray::from(vec![Some("x"), Some("y"), Some("x")])),
            Arc::new(StringArray::from(vec![Some("y"), None, Some("z")])),
            winner,
        ],
    )
    .unwrap();
    let mut writer =
        ArrowWriter::try_new(std::fs::File::create(path).unwrap(), schema, None).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
}

#[test]
fn a_null_model_name_names_its_row_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nulls.parquet");
    write_parquet(&path, false);
    let err = read_battles(&Source::File(path.clone()), &ReadOptions::default()).unwrap_err();
    let text = err.to_string();
    assert!(text.ends_with("nulls.parquet: row 2: column \"model_b\": missing model name; every battle needs two models"), "{text}");
}

#[test]
fn a_numeric_winner_column_is_an_unknown_label() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("numbers.parquet");
    write_parquet(&path, true);
    let err = read_battles(&Source::File(path), &ReadOptions::default()).unwrap_err();
    assert!(err.to_string().contains("row 1: column \"winner\": expected model_a | model_b | tie | tie (bothbad), found \"1\""), "{err}");
}
