//! verdict's embeddings of real prompts against the WordLlama package's own: the
//! first 200 AlpacaEval prompts, embedded by `WordLlamaInference.embed` (wordllama
//! 0.4.0.post1; the golden file's first line records the versions, and
//! `scripts/goldens/wordllama_embeddings.py` writes it), equal to 1e-4 in every
//! coordinate.

#[path = "../../verdict/tests/suite/shared_data.rs"]
mod shared_data;

#[path = "support/default_encoder.rs"]
mod default_encoder;

use std::path::Path;

use default_encoder::wordllama_dir;
use verdict_encoder::StaticEncoder;

#[test]
fn embeddings_equal_the_wordllama_package_on_200_real_prompts() {
    let Some(alpaca) = shared_data::shared_data("alpacaeval-judges") else {
        return;
    };
    let mut prompts = std::collections::HashMap::new();
    let mut reader = csv::Reader::from_path(alpaca.join("instructions.csv")).unwrap();
    for record in reader.records() {
        let record = record.unwrap();
        prompts.insert(record[0].to_owned(), record[2].to_owned());
    }
    let golden =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/wordllama_alpacaeval_200.csv");
    let text = std::fs::read_to_string(golden).unwrap();
    let body: String = text.lines().skip(1).map(|l| format!("{l}\n")).collect();
    let mut golden = csv::Reader::from_reader(body.as_bytes());
    let encoder = StaticEncoder::load(&wordllama_dir(), false).unwrap();
    assert_eq!(encoder.dim(), 256);
    assert_eq!(encoder.identity().name, "wordllama-l2-supercat");
    let mut checked = 0;
    let mut worst: f64 = 0.0;
    for record in golden.records() {
        let record = record.unwrap();
        let prompt = &prompts[&record[0]];
        let ours = encoder.embed(prompt).unwrap();
        let theirs: Vec<f64> = record.iter().skip(1).map(|v| v.parse().unwrap()).collect();
        assert_eq!(ours.len(), theirs.len());
        for (a, b) in ours.iter().zip(&theirs) {
            worst = worst.max((a - b).abs());
        }
        checked += 1;
    }
    assert_eq!(checked, 200);
    assert!(worst < 1e-4, "largest difference {worst}");
}

/// The same texts embedded one by one and as a batch are the same numbers, and the
/// normalized encoder gives unit vectors in the same directions.
#[test]
fn batches_single_texts_and_normalization_agree() {
    let plain = StaticEncoder::load(&wordllama_dir(), false).unwrap();
    let unit = StaticEncoder::load(&wordllama_dir(), true).unwrap();
    assert_ne!(plain.identity(), unit.identity());
    assert_eq!(plain.identity().sha256, unit.identity().sha256);
    let texts = [
        "Write a haiku about rust.",
        "",
        "Solve 2x + 3 = 7 for x.",
        "日本語のテキスト",
    ];
    let batch = plain.embed_all(&texts).unwrap();
    for (i, text) in texts.iter().enumerate() {
        let one = plain.embed(text).unwrap();
        assert_eq!(&batch[i * 256..(i + 1) * 256], one.as_slice());
        let norm = one.iter().map(|x| x * x).sum::<f64>().sqrt();
        let scaled = unit.embed(text).unwrap();
        if norm == 0.0 {
            assert!(text.is_empty() && scaled.iter().all(|&x| x == 0.0));
            continue;
        }
        for (a, b) in one.iter().zip(&scaled) {
            assert!((a / norm - b).abs() < 1e-12);
        }
    }
}
