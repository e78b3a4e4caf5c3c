//! Damaged Parquet files are refused with an error, never a panic. The parquet crate
//! asserts on some damaged footers and pages (a negative column-chunk offset, an
//! over-long varint in a page); the fuzz harness found both. Here every byte of a small
//! file is overwritten in turn with values that make such damage.
//!
//! This test is a file of its own because it silences the panic hook for its process:
//! the decoder's caught panics would otherwise print thousands of messages.

use verdict_io::{read_battles, write_parquet_table, ColumnData, Format, ReadOptions, Source};

#[test]
fn every_single_byte_damage_of_a_parquet_log_is_a_value_or_an_error() {
    std::panic::set_hook(Box::new(|_| {}));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("battles.parquet");
    let text = |f: &dyn Fn(usize) -> String| ColumnData::Text((0..24).map(f).collect());
    write_parquet_table(
        &path,
        &[
            ("model_a", text(&|i| format!("m{}", i % 4))),
            ("model_b", text(&|i| format!("m{}", (i + 1) % 4))),
            (
                "winner",
                text(&|i| ["model_a", "model_b", "tie"][i % 3].into()),
            ),
        ],
    )
    .unwrap();
    let original = std::fs::read(&path).unwrap();
    let options = ReadOptions {
        format: Some(Format::Parquet),
        ..ReadOptions::default()
    };
    let mut damaged_messages = 0;
    for position in 0..original.len() {
        // 13 and 123 made negative chunk offsets; 0xff runs make over-long varints.
        for byte in [0x00, 13, 123, 0x83, 0xff] {
            let mut data = original.clone();
            data[position] = byte;
            let source = Source::Bytes {
                label: "battles.parquet".into(),
                data,
            };
            let outcome = std::panic::catch_unwind(|| read_battles(&source, &options));
            let Ok(result) = outcome else {
                panic!("byte {position} set to {byte}: the reader panicked");
            };
            if let Err(e) = result {
                let message = e.to_string();
                assert!(message.starts_with("battles.parquet"), "{message}");
                damaged_messages += usize::from(message.contains("damaged"));
            }
        }
    }
    // The checks that turn the crate's assertions into errors were reached.
    assert!(damaged_messages > 0);
}
