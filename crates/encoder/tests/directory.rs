//! Encoders made here, small enough to check by hand: the mean of the tokens' rows,
//! and every way a directory can be wrong refused with its place and the fix.

use std::path::Path;

use safetensors::{Dtype, View};
use verdict_encoder::{EncoderError, StaticEncoder};

/// A word-level tokenizer over `words` (ids in order, `<unk>` first), splitting on
/// whitespace.
fn tokenizer_json(words: &[&str]) -> String {
    let vocab: serde_json::Map<String, serde_json::Value> = std::iter::once("<unk>")
        .chain(words.iter().copied())
        .enumerate()
        .map(|(i, w)| (w.to_owned(), i.into()))
        .collect();
    serde_json::json!({
        "version": "1.0",
        "truncation": null,
        "padding": null,
        "added_tokens": [],
        "normalizer": null,
        "pre_tokenizer": {"type": "WhitespaceSplit"},
        "post_processor": null,
        "decoder": null,
        "model": {"type": "WordLevel", "vocab": vocab, "unk_token": "<unk>"}
    })
    .to_string()
}

/// A tensor to write: its type, shape and little-endian bytes.
struct Tensor {
    dtype: Dtype,
    shape: Vec<usize>,
    bytes: Vec<u8>,
}

impl View for &Tensor {
    fn dtype(&self) -> Dtype {
        self.dtype
    }
    fn shape(&self) -> &[usize] {
        &self.shape
    }
    fn data(&self) -> std::borrow::Cow<'_, [u8]> {
        (&self.bytes[..]).into()
    }
    fn data_len(&self) -> usize {
        self.bytes.len()
    }
}

fn f32_tensor(rows: usize, values: &[f32]) -> Tensor {
    Tensor {
        dtype: Dtype::F32,
        shape: vec![rows, values.len() / rows],
        bytes: values.iter().flat_map(|v| v.to_le_bytes()).collect(),
    }
}

fn write_table(dir: &Path, file: &str, tensors: &[(&str, &Tensor)]) {
    let bytes = safetensors::serialize(tensors.iter().map(|(n, t)| (*n, *t)), None).unwrap();
    std::fs::write(dir.join(file), bytes).unwrap();
}

/// An encoder of three words in two dimensions: `<unk>` (0, 0), `red` (1, 0),
/// `blue` (0, 2), `green` (4, 4).
fn small_encoder(dir: &Path) {
    std::fs::write(
        dir.join("tokenizer.json"),
        tokenizer_json(&["red", "blue", "green"]),
    )
    .unwrap();
    let table = f32_tensor(4, &[0.0, 0.0, 1.0, 0.0, 0.0, 2.0, 4.0, 4.0]);
    write_table(dir, "model.safetensors", &[("embeddings", &table)]);
}

fn refusal(dir: &Path) -> String {
    StaticEncoder::load(dir, false).unwrap_err().to_string()
}

#[test]
fn a_text_is_the_mean_of_its_tokens_rows() {
    let dir = tempfile::tempdir().unwrap();
    small_encoder(dir.path());
    let encoder = StaticEncoder::load(dir.path(), false).unwrap();
    assert_eq!(encoder.dim(), 2);
    // (1, 0) + (0, 2) + (4, 4), over three tokens.
    assert_eq!(
        encoder.embed("red blue green").unwrap(),
        vec![5.0 / 3.0, 2.0]
    );
    // An unknown word is `<unk>`, row 0, and counts in the mean.
    assert_eq!(encoder.embed("red purple").unwrap(), vec![0.5, 0.0]);
    assert_eq!(encoder.embed("").unwrap(), vec![0.0, 0.0]);
    let unit = StaticEncoder::load(dir.path(), true).unwrap();
    // (0.5, 1) / sqrt(1.25).
    let e = unit.embed("red blue").unwrap();
    assert!(
        (e[0] - 0.5 / 1.25_f64.sqrt()).abs() < 1e-15
            && (e[1] - 1.0 / 1.25_f64.sqrt()).abs() < 1e-15
    );
    assert_eq!(
        unit.embed("").unwrap(),
        vec![0.0, 0.0],
        "the zero vector stays zero"
    );
    assert_eq!(encoder.identity().sha256.len(), 64);
}

#[test]
fn f16_and_bf16_tables_are_read_as_their_values() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("tokenizer.json"), tokenizer_json(&["a"])).unwrap();
    let values = [0.5_f32, -1.25, 3.0, 0.0];
    for dtype in [Dtype::F16, Dtype::BF16] {
        let bytes = values
            .iter()
            .flat_map(|&v| match dtype {
                Dtype::F16 => half::f16::from_f32(v).to_le_bytes(),
                _ => half::bf16::from_f32(v).to_le_bytes(),
            })
            .collect();
        let table = Tensor {
            dtype,
            shape: vec![2, 2],
            bytes,
        };
        write_table(dir.path(), "t.safetensors", &[("w", &table)]);
        let encoder = StaticEncoder::load(dir.path(), false).unwrap();
        assert_eq!(encoder.embed("a").unwrap(), vec![3.0, 0.0], "{dtype:?}");
    }
}

#[test]
fn a_tokenizer_named_as_wordllama_names_it_is_found() {
    let dir = tempfile::tempdir().unwrap();
    small_encoder(dir.path());
    std::fs::rename(
        dir.path().join("tokenizer.json"),
        dir.path().join("l2_tokenizer_config.json"),
    )
    .unwrap();
    std::fs::write(dir.path().join("config.json"), "{}").unwrap();
    assert!(StaticEncoder::load(dir.path(), false).is_ok());
    std::fs::write(dir.path().join("other_tokenizer.json"), "{}").unwrap();
    let message = refusal(dir.path());
    assert!(
        message.contains("2 tokenizer candidates") && message.contains("tokenizer.json"),
        "{message}"
    );
}

#[test]
fn a_directory_that_is_not_an_encoder_is_refused_naming_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("absent");
    assert!(refusal(&missing).contains("no such directory"));
    let message = refusal(dir.path());
    assert!(message.contains("no *.safetensors"), "{message}");
    small_encoder(dir.path());
    type Damage = Box<dyn Fn(&Path)>;
    let cases: Vec<(&str, Damage, &str)> = vec![
        (
            "two tables",
            Box::new(|d: &Path| {
                std::fs::copy(d.join("model.safetensors"), d.join("b.safetensors")).unwrap();
            }),
            "2 tables",
        ),
        (
            "no tokenizer",
            Box::new(|d: &Path| std::fs::remove_file(d.join("tokenizer.json")).unwrap()),
            "no tokenizer JSON",
        ),
        (
            "a tokenizer that is not one",
            Box::new(|d: &Path| std::fs::write(d.join("tokenizer.json"), "{\"x\": 1}").unwrap()),
            "not a tokenizer JSON",
        ),
        (
            "a table that is not safetensors",
            Box::new(|d: &Path| {
                std::fs::write(
                    d.join("model.safetensors"),
                    b"\xff\xff\xff\xff\xff\xff\xff\xff{",
                )
                .unwrap()
            }),
            "not a safetensors file",
        ),
        (
            "a table smaller than the vocabulary",
            Box::new(|d: &Path| {
                write_table(
                    d,
                    "model.safetensors",
                    &[("e", &f32_tensor(2, &[0.0, 0.0, 1.0, 1.0]))],
                )
            }),
            "not a pair",
        ),
        (
            "a damaged value",
            Box::new(|d: &Path| {
                write_table(
                    d,
                    "model.safetensors",
                    &[(
                        "e",
                        &f32_tensor(4, &[0.0, 0.0, 1.0, f32::NAN, 0.0, 2.0, 4.0, 4.0]),
                    )],
                )
            }),
            "row 1, column 1",
        ),
        (
            "integers",
            Box::new(|d: &Path| {
                let t = Tensor {
                    dtype: Dtype::I32,
                    shape: vec![4, 1],
                    bytes: vec![0; 16],
                };
                write_table(d, "model.safetensors", &[("e", &t)]);
            }),
            "must be f16, bf16 or f32",
        ),
        (
            "two matrices",
            Box::new(|d: &Path| {
                let t = f32_tensor(4, &[0.0; 8]);
                write_table(d, "model.safetensors", &[("a", &t), ("b", &t)]);
            }),
            "2 2-D tensors (a, b)",
        ),
    ];
    for (name, damage, expected) in cases {
        let case = tempfile::tempdir().unwrap();
        small_encoder(case.path());
        damage(case.path());
        let message = refusal(case.path());
        assert!(message.contains(expected), "{name}: {message}");
        assert!(message.starts_with("encoder "), "{name}: {message}");
    }
}

/// A FIFO where the tokenizer should be is refused without opening it (an open would
/// wait for a writer for ever).
#[cfg(unix)]
#[test]
fn a_fifo_in_place_of_a_file_is_refused_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    small_encoder(dir.path());
    std::fs::remove_file(dir.path().join("tokenizer.json")).unwrap();
    let fifo = dir.path().join("tokenizer.json");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let message = refusal(dir.path());
    assert!(message.contains("not a regular file"), "{message}");
    assert!(matches!(
        StaticEncoder::load(dir.path(), false).unwrap_err(),
        EncoderError::Invalid { .. }
    ));
}

#[test]
fn the_identity_follows_the_files_not_the_directory_name() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    small_encoder(a.path());
    small_encoder(b.path());
    let (x, y) = (
        StaticEncoder::load(a.path(), false).unwrap(),
        StaticEncoder::load(b.path(), false).unwrap(),
    );
    assert_ne!(x.identity().name, y.identity().name);
    assert!(x.identity().same_features_as(y.identity()));
    write_table(
        b.path(),
        "model.safetensors",
        &[(
            "e",
            &f32_tensor(4, &[0.0, 0.0, 1.0, 0.0, 0.0, 2.0, 4.0, 5.0]),
        )],
    );
    let z = StaticEncoder::load(b.path(), false).unwrap();
    assert!(!x.identity().same_features_as(z.identity()));
}
