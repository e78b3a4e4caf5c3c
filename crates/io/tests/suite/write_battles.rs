//! A battle log written by `write_battles` reads back as the same log, in CSV (names
//! with commas and quotes are quoted) and in Parquet; another extension is refused
//! without writing anything.

use verdict_io::{read_battles, write_battles, ReadOptions, Source};

#[test]
fn written_battle_logs_read_back_unchanged() {
    let csv = "model_a,model_b,winner\n\"Llama, 70B\",gpt,model_a\ngpt,\"say \"\"hi\"\"\",tie\n\"say \"\"hi\"\"\",\"Llama, 70B\",model_b\n";
    let source = Source::Bytes {
        label: "given.csv".into(),
        data: csv.as_bytes().to_vec(),
    };
    let log = read_battles(&source, &ReadOptions::default()).unwrap().log;
    let dir = tempfile::tempdir().unwrap();
    for name in ["log.csv", "log.parquet"] {
        let path = dir.path().join(name);
        write_battles(&path, &log).unwrap();
        let back = read_battles(&Source::File(path), &ReadOptions::default())
            .unwrap()
            .log;
        let rows = |l: &verdict_feedback::BattleLog| -> Vec<(String, String, &'static str)> {
            let names = l.models();
            l.iter()
                .map(|(a, b, o)| (names.name(a).into(), names.name(b).into(), o.label()))
                .collect()
        };
        assert_eq!(rows(&back), rows(&log), "{name}");
        assert_eq!(rows(&log).len(), 3);
    }
    let other = dir.path().join("log.txt");
    let e = write_battles(&other, &log).unwrap_err().to_string();
    assert!(e.contains(".csv or .parquet"), "{e}");
    assert!(!other.exists());
}
