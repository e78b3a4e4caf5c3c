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

/// A log of `rows` battles among five models, repetitive enough that every codec
/// compresses it.
fn battle_batch(rows: usize) -> RecordBatch {
    let models = ["alpha", "beta", "gamma", "delta", "epsilon"];
    let winners = ["model_a", "model_b", "tie", "tie (bothbad)"];
    // Row r: models r and r + 1 + r mod 4 (mod 5), never the same model twice.
    let a: Vec<&str> = (0..rows).map(|r| models[r % 5]).collect();
    let b: Vec<&str> = (0..rows).map(|r| models[(r + 1 + r % 4) % 5]).collect();
    let winner: Vec<&str> = (0..rows).map(|r| winners[(r * r + 3 * r) % 4]).collect();
    let schema = Arc::new(Schema::new(vec![
        Field::new("model_a", DataType::Utf8, false),
        Field::new("model_b", DataType::Utf8, false),
        Field::new("winner", DataType::Utf8, false),
    ]));
    RecordBatch::try_new(
        schema,
        vec![
            Arc::new(StringArray::from(a)),
            Arc::new(StringArray::from(b)),
            Arc::new(StringArray::from(winner)),
        ],
    )
    .unwrap()
}

/// Spark, Hive, pyarrow and polars write Parquet with any of these codecs (LZ4 is the
/// Hadoop-framed one older writers use, LZ4_RAW the block format newer ones use); each
/// file reads to the battles of the uncompressed one, row for row. The Python suite
/// checks the files pyarrow and polars themselves write.
#[test]
fn every_parquet_codec_reads_to_the_same_battles() {
    use parquet::basic::{BrotliLevel, Compression, GzipLevel, ZstdLevel};
    use parquet::file::properties::WriterProperties;
    let dir = tempfile::tempdir().unwrap();
    let batch = battle_batch(5000);
    let read = |codec: Compression| {
        let path = dir
            .path()
            .join(format!("{codec:?}.parquet").replace(['(', ')'], "_"));
        let properties = WriterProperties::builder().set_compression(codec).build();
        let mut writer = ArrowWriter::try_new(
            std::fs::File::create(&path).unwrap(),
            batch.schema(),
            Some(properties),
        )
        .unwrap();
        writer.write(&batch).unwrap();
        writer.close().unwrap();
        let metadata = parquet::file::reader::FileReader::metadata(
            &parquet::file::serialized_reader::SerializedFileReader::new(
                std::fs::File::open(&path).unwrap(),
            )
            .unwrap(),
        )
        .clone();
        assert_eq!(metadata.row_group(0).column(0).compression(), codec);
        let loaded = read_battles(&Source::File(path), &ReadOptions::default())
            .unwrap_or_else(|e| panic!("{codec:?}: {e}"));
        let named = loaded.log.with_models_by_name();
        let names = named.models().clone();
        named
            .iter()
            .map(|(a, b, outcome)| {
                (
                    names.name(a).to_string(),
                    names.name(b).to_string(),
                    outcome,
                )
            })
            .collect::<Vec<_>>()
    };
    let plain = read(Compression::UNCOMPRESSED);
    assert_eq!(plain.len(), 5000);
    for codec in [
        Compression::SNAPPY,
        Compression::ZSTD(ZstdLevel::default()),
        Compression::LZ4,
        Compression::LZ4_RAW,
        Compression::GZIP(GzipLevel::default()),
        Compression::BROTLI(BrotliLevel::default()),
    ] {
        assert!(read(codec) == plain, "{codec:?} reads to other battles");
    }
}
