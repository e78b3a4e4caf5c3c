//! Routing on prompts: a battle log with its prompt column fitted with a real text
//! encoder (WordLlama's table, which `scripts/setup.sh` copies from its PyPI wheel),
//! the same text giving the same features in `embed`, `predict` and `serve`, held-out
//! prompts routed by their topic, and an encoder that is not the model's refused.

use std::path::Path;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Value};

use crate::common::{failure, json, succeed, write};
use crate::serving::{client, post, FakeUpstream, Server};

/// The default encoder's directory, as text.
pub fn wordllama() -> String {
    crate::default_encoder::wordllama_dir()
        .display()
        .to_string()
}

const MATH: [&str; 7] = [
    "Solve for x: {a}x + {b} = {c}.",
    "What is the derivative of x^{a} + {b}x?",
    "Compute the integral of {a}x^2 from 0 to {b}.",
    "Prove that the sum of the first {a} odd numbers is a perfect square.",
    "Factor the polynomial x^2 + {a}x + {b}.",
    "What is {a} times {b} plus {c}?",
    "Find the probability of rolling a sum of {a} with two dice.",
];
const POETRY: [&str; 7] = [
    "Write a poem about {w} in the style of a sonnet.",
    "Compose a haiku about {w} at dawn.",
    "Write a short story about {w} that learns to fly.",
    "Describe {w} in vivid, lyrical prose.",
    "Write song lyrics about longing for {w}.",
    "Craft a limerick about {w} and a cat.",
    "Write a free-verse poem on the sorrow of {w}.",
];
const WORDS: [&str; 8] = [
    "the sea",
    "autumn leaves",
    "a lighthouse",
    "the moon",
    "an old oak",
    "winter",
    "a lost letter",
    "the desert",
];

/// A prompt of `topic` (0 math, 1 poetry) from its templates.
fn prompt(topic: usize, rng: &mut ChaCha8Rng) -> String {
    let templates = if topic == 0 { &MATH } else { &POETRY };
    templates[rng.random_range(0..templates.len())]
        .replace("{a}", &rng.random_range(2..10).to_string())
        .replace("{b}", &rng.random_range(2..21).to_string())
        .replace("{c}", &rng.random_range(2..51).to_string())
        .replace("{w}", WORDS[rng.random_range(0..WORDS.len())])
}

const AGENTS: [&str; 3] = ["mathwiz", "bard", "generalist"];

/// Each agent's Bradley–Terry strength on a topic: `mathwiz` best at math and worst
/// at poetry, `bard` the reverse, `generalist` between.
fn strength(topic: usize, agent: usize) -> f64 {
    [[2.0, -1.5, 0.5], [-1.5, 2.0, 0.5]][topic][agent]
}

/// A battle log of `battles` rows with a `prompt` column, whose winners follow the
/// prompt's topic, and a `language` column (`en` or `fr`, drawn apart from the
/// winners); returns its path.
fn topic_battles(dir: &Path, battles: usize) -> String {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let mut languages = ChaCha8Rng::seed_from_u64(6);
    let mut csv = csv::Writer::from_writer(Vec::new());
    csv.write_record(["model_a", "model_b", "winner", "prompt", "language"])
        .unwrap();
    for _ in 0..battles {
        let topic = rng.random_range(0..2);
        let text = prompt(topic, &mut rng);
        let a = rng.random_range(0..3);
        let b = (a + rng.random_range(1..3)) % 3;
        let p = 1.0 / (1.0 + (strength(topic, b) - strength(topic, a)).exp());
        let winner = if rng.random::<f64>() < p {
            "model_a"
        } else {
            "model_b"
        };
        let language = ["en", "fr"][languages.random_range(0..2)];
        csv.write_record([AGENTS[a], AGENTS[b], winner, &text, language])
            .unwrap();
    }
    let bytes = csv.into_inner().unwrap();
    write(dir, "battles.csv", std::str::from_utf8(&bytes).unwrap())
}

/// Held-out prompts, alternating math and poetry: (id, prompt, topic).
fn held_out(n: usize) -> Vec<(String, String, usize)> {
    let mut rng = ChaCha8Rng::seed_from_u64(99);
    (0..n)
        .map(|i| (format!("t{i}"), prompt(i % 2, &mut rng), i % 2))
        .collect()
}

fn held_out_table(dir: &Path, rows: &[(String, String, usize)]) -> String {
    let mut csv = csv::Writer::from_writer(Vec::new());
    csv.write_record(["context_id", "prompt"]).unwrap();
    for (id, text, _) in rows {
        csv.write_record([id, text]).unwrap();
    }
    let bytes = csv.into_inner().unwrap();
    write(dir, "held_out.csv", std::str::from_utf8(&bytes).unwrap())
}

/// `verdict serve model --encoder encoder` routing to a fake upstream of the topic
/// world's agents (its upstreams file written in `dir`); the upstream lives as long as
/// it is kept.
fn serve_with_encoder(model: &str, dir: &Path, encoder: &str) -> (FakeUpstream, Server) {
    let upstream = FakeUpstream::start();
    let agents: Vec<String> = AGENTS.iter().map(|a| (*a).to_owned()).collect();
    let upstreams = upstream.upstreams_file(dir, &agents);
    let server = Server::routing(
        Path::new(model),
        &upstreams,
        &["--encoder", encoder],
        "sk-test",
    );
    (upstream, server)
}

/// The arguments of `verdict --quiet fit` on `battles` with its prompt as the text, the
/// linear backbone, the solver policy and `folds`, written to `out`, then `extra`.
fn linear_fit<'a>(
    battles: &'a str,
    out: &'a str,
    folds: &'a str,
    extra: &[&'a str],
) -> Vec<&'a str> {
    let mut args = vec![
        "--quiet",
        "fit",
        "--battles",
        battles,
        "--text-col",
        "prompt",
        "--backbone",
        "linear",
        "--policy",
        "solver",
        "--folds",
        folds,
        "--out",
        out,
    ];
    args.extend_from_slice(extra);
    args
}

/// The best agent by topic: index 0 math, 1 poetry.
const BEST: [&str; 2] = ["mathwiz", "bard"];

/// `fit --battles --text-col prompt --encoder` learns who wins on which topic: every
/// held-out prompt's argmax is its topic's best agent in `predict`, in `/v1/route`
/// and in a chat routed through `/v1/chat/completions`, and the model records the
/// encoder (name, dimension, SHA-256).
#[test]
fn battles_with_prompts_route_held_out_prompts_by_topic() {
    let dir = tempfile::tempdir().unwrap();
    let encoder = wordllama();
    let battles = topic_battles(dir.path(), 3000);
    let model = dir.path().join("model.json").display().to_string();
    succeed(&linear_fit(&battles, &model, "3", &["--encoder", &encoder]));
    let recorded: Value = serde_json::from_str(&std::fs::read_to_string(&model).unwrap()).unwrap();
    let identity = &recorded["featurizer"]["encoder"];
    assert_eq!(identity["name"], "wordllama-l2-supercat");
    assert_eq!(identity["dim"], 256);
    assert_eq!(identity["sha256"].as_str().unwrap().len(), 64);

    let rows = held_out(40);
    let table = held_out_table(dir.path(), &rows);
    let predicted = json(&[
        "predict",
        &model,
        "--contexts",
        &table,
        "--encoder",
        &encoder,
    ]);
    // Each held-out prompt's argmax; at least 36 of the 40 are their topic's best (a
    // linear fit on 3,000 noisy battles may miss a prompt or two).
    let mut argmax = Vec::new();
    for ((id, _, _), row) in rows.iter().zip(predicted.as_array().unwrap()) {
        assert_eq!(row["context_id"], id.as_str());
        let p = |name: &str| row["equilibrium"][name].as_f64().unwrap();
        let best = AGENTS
            .iter()
            .max_by(|a, b| p(a).partial_cmp(&p(b)).unwrap())
            .unwrap();
        argmax.push(*best);
    }
    let by_topic = rows
        .iter()
        .zip(&argmax)
        .filter(|((_, _, topic), best)| **best == BEST[*topic])
        .count();
    assert!(
        by_topic >= 36,
        "{by_topic} of 40 routed by topic: {argmax:?}"
    );

    let (_upstream, server) = serve_with_encoder(&model, dir.path(), &encoder);
    let agent = client();
    // The server reads the same text to the same features: /v1/predict answers the
    // numbers `verdict predict` printed, to the last digit.
    let served: Vec<Value> = rows
        .iter()
        .map(|(id, text, _)| json!({"context_id": id, "prompt": text}))
        .collect();
    let reply = server.post("/v1/predict", &json!({"contexts": served}));
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(reply.json(), predicted);
    // Its routes follow: the argmax is predict's.
    for ((_, text, _), best) in rows.iter().zip(&argmax).take(10) {
        let body = json!({"context": {"prompt": text}, "rule": "argmax"}).to_string();
        let routed = post(&agent, &format!("{}/v1/route", server.base), &body, None);
        assert_eq!(routed.status, 200, "{}", routed.body);
        assert_eq!(routed.json()["model"], *best, "{text}");
        let chat = json!({
            "model": "verdict",
            "messages": [{"role": "user", "content": text}],
            "rule": "argmax",
        })
        .to_string();
        let reply = post(
            &agent,
            &format!("{}/v1/chat/completions", server.base),
            &chat,
            None,
        );
        assert_eq!(reply.status, 200, "{}", reply.body);
        assert_eq!(reply.header("x-verdict-model"), Some(*best), "{text}");
    }
    // A context without the text column is refused naming it as an HTTP client
    // names things — the library's setting names — never as a command-line flag.
    let reply = server.post("/v1/predict", &json!({"contexts": [{"context_id": "x"}]}));
    assert_eq!(reply.status, 422, "{}", reply.body);
    assert!(reply.body.contains("prompt"), "{}", reply.body);
    assert!(!reply.body.contains("--"), "{}", reply.body);
    server.stop();
}

/// One text, one vector: `verdict embed` writes, in CSV, JSON Lines and Parquet, the
/// library encoder's embedding of each row (the features a model fitted with the
/// encoder reads); and a model is refused with another encoder or without its own,
/// and an encoder is refused for a model that hashes its text.
#[test]
fn embed_writes_the_features_and_models_refuse_another_encoder() {
    let dir = tempfile::tempdir().unwrap();
    let encoder = wordllama();
    let rows = held_out(6);
    let table = held_out_table(dir.path(), &rows);
    let library = verdict::io::TextEncoder::load(Path::new(&encoder), false).unwrap();
    let out = |extension: &str| {
        dir.path()
            .join(format!("embedded.{extension}"))
            .display()
            .to_string()
    };
    for extension in ["csv", "jsonl", "parquet"] {
        succeed(&[
            "embed",
            &table,
            "--text-col",
            "prompt",
            "--encoder",
            &encoder,
            "--out",
            &out(extension),
        ]);
    }
    let from_jsonl: Vec<(String, Vec<f64>)> = std::fs::read_to_string(out("jsonl"))
        .unwrap()
        .lines()
        .map(|line| {
            let v: Value = serde_json::from_str(line).unwrap();
            let numbers = v["embedding"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap())
                .collect();
            (v["context_id"].as_str().unwrap().to_owned(), numbers)
        })
        .collect();
    let from_csv: Vec<(String, Vec<f64>)> = csv::Reader::from_path(out("csv"))
        .unwrap()
        .records()
        .map(|r| {
            let r = r.unwrap();
            (r[0].to_owned(), serde_json::from_str(&r[1]).unwrap())
        })
        .collect();
    assert_eq!(from_csv, from_jsonl, "CSV and JSON Lines differ");
    for ((id, text, _), (written_id, vector)) in rows.iter().zip(&from_jsonl) {
        assert_eq!(id, written_id);
        assert_eq!(vector, &library.0.embed(text).unwrap(), "{text}");
    }
    assert!(std::fs::metadata(out("parquet")).unwrap().len() > 0);

    // A model fitted with the encoder, and one that hashes.
    let battles = topic_battles(dir.path(), 600);
    let fit = |out: &str, extra: &[&str]| succeed(&linear_fit(&battles, out, "2", extra));
    let embedded = dir.path().join("embedded.json").display().to_string();
    let hashed = dir.path().join("hashed.json").display().to_string();
    fit(&embedded, &["--encoder", &encoder]);
    fit(&hashed, &[]);
    let message = failure(&["predict", &embedded, "--contexts", &table]);
    assert!(
        message.contains("wordllama-l2-supercat") && message.contains("--encoder"),
        "{message}"
    );
    let message = failure(&[
        "predict",
        &hashed,
        "--contexts",
        &table,
        "--encoder",
        &encoder,
    ]);
    assert!(
        message.contains("hashes its text") && message.contains("drop --encoder"),
        "{message}"
    );
    // Another encoder: the same tokenizer with a table of other values.
    let other = dir.path().join("other-encoder");
    std::fs::create_dir(&other).unwrap();
    for entry in std::fs::read_dir(&encoder).unwrap().flatten() {
        std::fs::copy(entry.path(), other.join(entry.file_name())).unwrap();
    }
    let table_file = std::fs::read_dir(&other)
        .unwrap()
        .flatten()
        .find(|e| e.file_name().to_string_lossy().ends_with(".safetensors"))
        .unwrap()
        .path();
    let mut bytes = std::fs::read(&table_file).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x01;
    std::fs::write(&table_file, bytes).unwrap();
    let other = other.display().to_string();
    let message = failure(&[
        "predict",
        &embedded,
        "--contexts",
        &table,
        "--encoder",
        &other,
    ]);
    assert!(message.contains("not other-encoder"), "{message}");
    // serve refuses to start with it, naming the model file.
    let output = crate::common::verdict(&[
        "serve",
        &embedded,
        "--listen",
        "127.0.0.1:0",
        "--encoder",
        &other,
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("not other-encoder"));
}

/// The hints name the flag for the column at hand: a prompt given as a context column
/// and as the text column is named once; an identifier column is no feature.
#[test]
fn a_misplaced_prompt_or_id_column_gets_the_right_hint() {
    let dir = tempfile::tempdir().unwrap();
    let battles = topic_battles(dir.path(), 300);
    let both = failure(&[
        "log",
        "--battles",
        &battles,
        "--context-cols",
        "prompt",
        "--text-col",
        "prompt",
    ]);
    assert!(both.contains("name it once, as the --text-col"), "{both}");
    let as_context = failure(&["log", "--battles", &battles, "--context-cols", "prompt"]);
    assert!(
        as_context.contains("name it with --text-col prompt"),
        "{as_context}"
    );
    let ids: String = std::iter::once("context_id,question_id,x\n".to_owned())
        .chain((0..150).map(|i| format!("c{i},q{i},{}\n", i % 3)))
        .collect();
    let contexts = write(dir.path(), "contexts.csv", &ids);
    let feedback: String = std::iter::once("context_id,menu,modality,response\n".to_owned())
        .chain((0..150).map(|i| format!("c{i},a|b,pairwise,a\n")))
        .collect();
    let feedback = write(dir.path(), "feedback.csv", &feedback);
    let message = failure(&["log", "--contexts", &contexts, "--feedback", &feedback]);
    assert!(
        message.contains("question_id looks like an identifier"),
        "{message}"
    );
    assert!(!message.contains("--text-col question_id"), "{message}");
}

/// A context that leaves out a categorical column the model was fitted with is refused
/// (422 naming it) on `/v1/route` and in a chat, never routed as "no known category";
/// a category the model never saw is routed with the warning in `x-verdict-warning`,
/// as `/v1/predict` gives it.
#[test]
fn a_missing_column_is_refused_and_an_unseen_category_warned_on_every_endpoint() {
    let dir = tempfile::tempdir().unwrap();
    let encoder = wordllama();
    let battles = topic_battles(dir.path(), 600);
    let model = dir.path().join("model.json").display().to_string();
    succeed(&linear_fit(
        &battles,
        &model,
        "2",
        &["--context-cols", "language", "--encoder", &encoder],
    ));
    let (_upstream, server) = serve_with_encoder(&model, dir.path(), &encoder);
    let agent = client();
    let route = |context: Value| {
        let body = json!({"context": context}).to_string();
        post(&agent, &format!("{}/v1/route", server.base), &body, None)
    };
    let chat = |context: Value| {
        let body = json!({
            "model": "verdict",
            "messages": [{"role": "user", "content": "Solve 2x = 8."}],
            "verdict": {"context": context},
        })
        .to_string();
        post(
            &agent,
            &format!("{}/v1/chat/completions", server.base),
            &body,
            None,
        )
    };
    let prompt = "Solve 2x = 8.";
    for reply in [route(json!({"prompt": prompt})), chat(json!({}))] {
        assert_eq!(reply.status, 422, "{}", reply.body);
        assert!(
            reply.body.contains("lack column") && reply.body.contains("language"),
            "{}",
            reply.body
        );
    }
    for reply in [
        route(json!({"prompt": prompt, "language": "de"})),
        chat(json!({"language": "de"})),
    ] {
        assert_eq!(reply.status, 200, "{}", reply.body);
        let warning = reply.header("x-verdict-warning").unwrap_or_default();
        assert!(warning.contains("language=de"), "{warning:?}");
    }
    let known = route(json!({"prompt": prompt, "language": "fr"}));
    assert_eq!(known.status, 200);
    assert!(known.header("x-verdict-warning").is_none());
    server.stop();
}

/// The fit says how much its policy depends on the context: on the topic world its
/// argmax leaves the global policy's (the mean game's equilibrium, here `mathwiz`, as
/// most distinct prompts are math) exactly at the poetry prompts, counted here from
/// the log; a plug-in fit whose ridge penalty (1e9) flattens every outcome model to a
/// constant plays one policy everywhere and is said to ignore the context.
#[test]
fn a_fit_says_how_much_its_policy_depends_on_the_context() {
    let dir = tempfile::tempdir().unwrap();
    let encoder = wordllama();
    let battles = topic_battles(dir.path(), 3000);
    let mut prompts = std::collections::HashSet::new();
    let mut poetry = 0;
    for record in csv::Reader::from_path(&battles).unwrap().records() {
        let prompt = record.unwrap()[3].to_owned();
        if POETRY.iter().any(|t| {
            let head = t.split('{').next().unwrap();
            prompt.starts_with(head)
        }) && prompts.insert(prompt.clone())
        {
            poetry += 1;
        } else {
            prompts.insert(prompt);
        }
    }
    let share = f64::from(poetry) / prompts.len() as f64;
    let fit = |out: &str, extra: &[&str]| {
        let mut args = vec![
            "fit",
            "--battles",
            &battles,
            "--text-col",
            "prompt",
            "--backbone",
            "linear",
            "--folds",
            "3",
            "--out",
            out,
        ];
        args.extend_from_slice(extra);
        crate::common::verdict(&args)
    };
    let routed = dir.path().join("routed.json").display().to_string();
    let output = fit(&routed, &["--policy", "solver", "--encoder", &encoder]);
    assert!(output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("ignores the context"), "{stderr}");
    let model: Value = serde_json::from_str(&std::fs::read_to_string(&routed).unwrap()).unwrap();
    let dependence = &model["summary"]["context_dependence"];
    assert_eq!(dependence["contexts"], prompts.len());
    let differs = dependence["argmax_differs"].as_f64().unwrap();
    assert!(
        (differs - share).abs() < 0.02,
        "{differs} vs the poetry share {share}"
    );
    let flat = dir.path().join("flat.json").display().to_string();
    let output = fit(
        &flat,
        &[
            "--policy",
            "solver",
            "--variant",
            "plugin",
            "--linear-penalty",
            "1e9",
            "--encoder",
            &encoder,
        ],
    );
    assert!(output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("the policy ignores the context"),
        "{stderr}"
    );
}
