//! Every job's settings document with its defaults: the settings of `rank`
//! ([`RankParams`]), `judge` ([`JudgeParams`]) and `fit` ([`FitParams`], with
//! NashEval) under their names, as the faces take them. The command line's and
//! Python's parity tests read this, so a setting or a default a face lacks is found
//! from the documents themselves, not from a list kept by hand.

use serde_json::{Map, Value};

use crate::judge_request::JudgeParams;
use crate::rank_params::RankParams;

/// `{"rank": {...}, "judge": {...}, "fit": {...}}`: each job's settings with their
/// default values (`null` for none), in the documents' own spelling — enum choices
/// by name, filters and aggregators as text.
pub fn default_documents() -> Value {
    let mut documents = Map::new();
    documents.insert("rank".into(), document(&RankParams::default()));
    documents.insert("judge".into(), document(&JudgeParams::default()));
    #[cfg(feature = "nasheval")]
    documents.insert(
        "fit".into(),
        document(&crate::fit_params::FitParams::default()),
    );
    Value::Object(documents)
}

fn document<T: serde::Serialize>(settings: &T) -> Value {
    serde_json::to_value(settings).expect("a settings document serializes")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::from_document;

    /// A document written back reads as the same settings: the spelling the documents
    /// show is the one they take.
    #[test]
    fn each_default_document_reads_back_as_the_defaults() {
        let documents = default_documents();
        let text = |job: &str| documents[job].to_string();
        assert_eq!(
            from_document::<RankParams>(&text("rank")).unwrap(),
            RankParams::default()
        );
        assert_eq!(
            from_document::<JudgeParams>(&text("judge")).unwrap(),
            JudgeParams::default()
        );
        #[cfg(feature = "nasheval")]
        assert_eq!(
            from_document::<crate::fit_params::FitParams>(&text("fit")).unwrap(),
            crate::fit_params::FitParams::default()
        );
        assert_eq!(documents["rank"]["method"], "bt");
        assert_eq!(documents["rank"]["ci"], 0.95);
        assert_eq!(documents["judge"]["method"], "est-ivwe");
    }
}
