//! Every setting of each job's settings document is a flag of the command that runs
//! the job, under the same name (`model_a_col` is `--model-a-col`) and with the same
//! default — and every flag is a setting, or one of the few that say what to read,
//! where to write or how to show it. The settings come from the documents themselves
//! ([`verdict::documents::default_documents`], the library's defaults), not from a
//! hand list; Python's keyword arguments are checked against the same documents in
//! `python/tests/test_settings_parity.py`.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::common::succeed;

/// The command of each job.
const COMMANDS: [(&str, &str); 4] = [
    ("rank", "rank"),
    ("judge", "judge"),
    ("fit", "fit"),
    ("simulate", "simulate"),
];

/// Flags that are not settings: what a command reads, where it writes and how it
/// shows the result, and the process's own (threads, progress, help).
fn not_settings(job: &str) -> &'static [&'static str] {
    const PROCESS: [&str; 5] = ["quiet", "threads", "force", "help", "version"];
    let own: &'static [&'static str] = match job {
        "rank" => &["out", "format", "report", "plot", "save_counts", "dropped"],
        "judge" => &[
            "items", "judges", "ledger", "gold", "out", "format", "report",
        ],
        // `truth` is the simulator's oracle, read by the lab, not a setting of a fit.
        "fit" => &[
            "contexts",
            "feedback",
            "battles",
            "out",
            "format",
            "report",
            "winners_by",
            "truth",
        ],
        "simulate" => &["out"],
        _ => &[],
    };
    Box::leak([own, &PROCESS[..]].concat().into_boxed_slice())
}

/// Settings a job's document has that its command takes elsewhere.
fn elsewhere(job: &str) -> &'static [&'static str] {
    match job {
        // The score range of a judging run is its judges file's `range`.
        "judge" => &["range"],
        _ => &[],
    }
}

/// The flags of `verdict COMMAND --help`, each with its shown default.
fn flags(command: &str) -> BTreeMap<String, Option<String>> {
    let help = succeed(&[command, "--help"]);
    let mut flags = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in help.lines() {
        let trimmed = line.trim_start();
        let flag = trimmed
            .strip_prefix("-")
            .filter(|_| line.starts_with("  "))
            .and_then(|rest| {
                let rest = rest.split_once(", --").map_or(rest, |(_, long)| long);
                rest.strip_prefix('-')
            });
        if let Some(name) = flag {
            let name = name.split([' ', '<']).next().unwrap().replace('-', "_");
            flags.insert(name.clone(), None);
            current = Some(name);
        }
        if let (Some(at), Some(name)) = (line.find("[default: "), &current) {
            let value = &line[at + "[default: ".len()..];
            let value = value[..value.find(']').unwrap()].to_owned();
            flags.insert(name.clone(), Some(value));
        }
    }
    flags
}

/// The document's default against the flag's shown default: none, false and an
/// empty list show none; numbers compare as numbers, names and text as text.
fn same_default(document: &Value, shown: Option<&str>) -> bool {
    match (document, shown) {
        (Value::Null | Value::Bool(false), None) => true,
        (Value::Array(items), None) => items.is_empty(),
        (Value::Number(number), Some(text)) => text.parse::<f64>().ok() == number.as_f64(),
        (Value::String(name), Some(text)) => name == text,
        _ => false,
    }
}

#[test]
fn every_setting_is_a_flag_with_the_same_default_and_every_flag_a_setting() {
    let mut documents = verdict::documents::default_documents();
    // The lab's job (simulations with their truth) has its document in the lab.
    documents["simulate"] =
        serde_json::to_value(verdict_lab::simulation::SimulateParams::default()).unwrap();
    let mut problems = Vec::new();
    for (job, command) in COMMANDS {
        let document = documents[job].as_object().expect("a document per job");
        let flags = flags(command);
        for (setting, default) in document {
            if elsewhere(job).contains(&setting.as_str()) {
                continue;
            }
            match flags.get(setting) {
                None => problems.push(format!("{job}: no flag --{}", setting.replace('_', "-"))),
                Some(shown) if !same_default(default, shown.as_deref()) => problems.push(format!(
                    "{job}: --{} shows default {shown:?}, the document {default}",
                    setting.replace('_', "-")
                )),
                Some(_) => {}
            }
        }
        for flag in flags.keys() {
            if !document.contains_key(flag) && !not_settings(job).contains(&flag.as_str()) {
                problems.push(format!(
                    "{job}: flag --{} is no setting of the document",
                    flag.replace('_', "-")
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // The parser read the help: a flag with a default and a flag without.
    let rank = flags("rank");
    assert_eq!(rank["method"].as_deref(), Some("bt"));
    assert_eq!(rank["anchor"], None);
}
