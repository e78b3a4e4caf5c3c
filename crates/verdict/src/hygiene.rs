//! Vote hygiene before a fit, as arena leaderboards filter their logs: duplicate
//! battles collapsed, a cap on each judge's votes per day, and the anomalous-judge test
//! of the Chatbot Arena paper (Chiang et al. 2024, §5.3). Each step drops rows, counts
//! them, and says why row by row, so the dropped rows can be written out and read.
//!
//! In order, with battles taken in time order (log order without a time column):
//! 1. Duplicates: battles with the same judge, the same prompt and the same pair of
//!    models (either side) keep only the first. The prompt is compared as text (a
//!    column of prompts or of prompt hashes, both work).
//! 2. `max_votes_per_judge_day = N`: a judge's battles of one day beyond the first N
//!    are dropped. A day is the UTC day of a time in seconds since 1970 (LMArena's
//!    `tstamp`), or the date of a `YYYY-MM-DD...` text.
//! 3. `outlier_alpha = a`, in the manner of the paper's test (per-vote p-values against
//!    the other users' votes on the same pair, combined as e-values): a decisive vote
//!    for side s of a pair whose n other decisive-or-tied votes went to s `k` times
//!    has the two-sided p-value `p = min(1, 2 (1 + k) / (1 + n))` (the crowd's rate of
//!    agreeing, with one pseudo-vote; valid when the judge votes like the crowd: each
//!    side contributes at most t/2 to `P(p <= t)`); a tie has `p = 1`. Each p-value
//!    becomes the e-value `e = 1 / (2 sqrt p)` (a calibrator: `E[e] <= 1` for a valid
//!    p-value), and a judge whose running product of e-values, in time order, ever
//!    reaches `J / a` (J judges: Ville's inequality, Bonferroni over judges) is flagged
//!    and all their battles dropped — the chance of flagging any judge who votes like
//!    the crowd is then at most about `a` (about: the crowd's rate is estimated).

use std::collections::HashMap;

use verdict_feedback::{BattleLog, Outcome};
use verdict_io::{IoError, LoadedBattles};
use verdict_settings::Setting;

use crate::VerdictError;

/// What to clean (all off by default).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Hygiene {
    /// The column naming each battle's judge (LMArena's `judge`).
    pub judge_col: Option<String>,
    /// The column of each battle's time: seconds since 1970 or `YYYY-MM-DD...` text.
    pub time_col: Option<String>,
    /// The column of each battle's prompt (its text or a hash of it).
    pub prompt_col: Option<String>,
    /// Collapse battles with the same judge, prompt and pair to the first.
    pub collapse_duplicates: bool,
    /// Keep at most this many battles per judge and day.
    pub max_votes_per_judge_day: Option<usize>,
    /// Drop every battle of judges the anomalous-judge test flags at this level.
    pub outlier_alpha: Option<f64>,
}

/// Why a row was dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DropReason {
    /// The same judge, prompt and pair as an earlier battle.
    Duplicate,
    /// Beyond the judge's daily cap.
    OverDailyCap,
    /// A battle of a judge the anomalous-judge test flagged.
    OutlierJudge,
}

impl DropReason {
    /// The reason as the dropped-rows file writes it.
    pub fn label(self) -> &'static str {
        match self {
            DropReason::Duplicate => "duplicate",
            DropReason::OverDailyCap => "over daily cap",
            DropReason::OutlierJudge => "outlier judge",
        }
    }
}

/// What the cleaning did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HygieneReport {
    /// Each dropped row (an index into the log as read) and why, in row order.
    pub dropped: Vec<(usize, DropReason)>,
    /// The judges the anomalous-judge test flagged, with the largest running product
    /// of their e-values.
    pub flagged_judges: Vec<(String, f64)>,
    /// A judge casting more than half of the battles read, with their count: a sign
    /// that the column is anonymised (public arena logs name every voter alike), so a
    /// per-judge step acts on the whole log.
    pub dominant_judge: Option<(String, usize)>,
}

impl HygieneReport {
    /// Rows dropped for `reason`.
    pub fn count(&self, reason: DropReason) -> usize {
        self.dropped.iter().filter(|(_, r)| *r == reason).count()
    }

    /// The report's note: the counts dropped by each step.
    pub fn note(&self, rows: usize) -> String {
        let mut note = format!(
            "vote hygiene: {} of {rows} battles dropped ({} duplicates, {} over the daily cap, {} from {} outlier judges",
            self.dropped.len(),
            self.count(DropReason::Duplicate),
            self.count(DropReason::OverDailyCap),
            self.count(DropReason::OutlierJudge),
            self.flagged_judges.len()
        );
        if !self.flagged_judges.is_empty() {
            let names: Vec<String> = self
                .flagged_judges
                .iter()
                .take(5)
                .map(|(name, _)| format!("{name:?}"))
                .collect();
            note.push_str(&format!(": {}", names.join(", ")));
            if self.flagged_judges.len() > 5 {
                note.push_str(", ...");
            }
        }
        note.push(')');
        if let Some((name, battles)) = &self.dominant_judge {
            note.push_str(&format!(
                "; judge {name:?} casts {battles} of the {rows} battles: if the judge column is anonymised, per-judge steps act on the whole log"
            ));
        }
        note
    }
}

impl Hygiene {
    /// Whether any step is asked for.
    pub fn is_active(&self) -> bool {
        self.collapse_duplicates
            || self.max_votes_per_judge_day.is_some()
            || self.outlier_alpha.is_some()
    }

    /// The columns the steps read.
    pub fn columns(&self) -> Vec<String> {
        [&self.judge_col, &self.time_col, &self.prompt_col]
            .into_iter()
            .flatten()
            .cloned()
            .collect()
    }

    /// Checks that each step has the columns and settings it needs.
    ///
    /// # Errors
    /// [`VerdictError::Settings`] naming the missing setting.
    pub fn validate(&self) -> Result<(), VerdictError> {
        let need = |what: &str, column: &Option<String>, setting: &str| {
            if column.is_none() {
                Err(VerdictError::Settings(format!(
                    "{what} needs {}",
                    Setting(setting)
                )))
            } else {
                Ok(())
            }
        };
        if self.collapse_duplicates {
            need("collapsing duplicates", &self.judge_col, "judge_col")?;
            need("collapsing duplicates", &self.prompt_col, "prompt_col")?;
        }
        if let Some(cap) = self.max_votes_per_judge_day {
            need("a daily cap", &self.judge_col, "judge_col")?;
            need("a daily cap", &self.time_col, "time_col")?;
            if cap == 0 {
                return Err(VerdictError::Settings(format!(
                    "{} must be at least 1",
                    Setting("max_votes_per_judge_day")
                )));
            }
        }
        if let Some(alpha) = self.outlier_alpha {
            need("the outlier-judge test", &self.judge_col, "judge_col")?;
            if !(alpha > 0.0 && alpha < 1.0) {
                return Err(VerdictError::Settings(format!(
                    "{} {alpha} must lie strictly between 0 and 1 (e.g. 0.01)",
                    Setting("outlier_alpha")
                )));
            }
        }
        Ok(())
    }

    /// The battles of `loaded` that pass every step, and what was dropped.
    ///
    /// # Errors
    /// Bad settings ([`Hygiene::validate`]); a missing judge, time or prompt at a row
    /// (named); a time that is neither a number nor a date.
    pub fn apply(
        &self,
        loaded: &LoadedBattles,
    ) -> Result<(LoadedBattles, HygieneReport), VerdictError> {
        self.validate()?;
        let table = &loaded.metadata;
        let rows = loaded.log.len();
        let codes = |column: &Option<String>| -> Result<Option<Vec<usize>>, VerdictError> {
            let Some(name) = column else { return Ok(None) };
            let values = table
                .column(name)
                .ok_or_else(|| VerdictError::Data(format!("column {name:?} was not read")))?;
            (0..rows)
                .map(|row| {
                    values.code(row).ok_or_else(|| {
                        IoError::invalid(table.location(row, Some(name)), "missing value; every battle needs one for vote hygiene (filter the row out)").into()
                    })
                })
                .collect::<Result<Vec<_>, VerdictError>>()
                .map(Some)
        };
        let judges = codes(&self.judge_col)?;
        let prompts = codes(&self.prompt_col)?;
        let (keys, days) = match &self.time_col {
            Some(column) => {
                let (keys, days) = times(loaded, column)?;
                (Some(keys), Some(days))
            }
            None => (None, None),
        };
        let order = time_order(rows, keys.as_deref());
        let mut dropped: Vec<Option<DropReason>> = vec![None; rows];
        if self.collapse_duplicates {
            let (judges, prompts) = (
                judges.as_ref().expect("checked"),
                prompts.as_ref().expect("checked"),
            );
            let mut seen = std::collections::HashSet::new();
            for &r in &order {
                let (a, b, _) = loaded.log.battle(r);
                let pair = (a.min(b), a.max(b));
                if !seen.insert((judges[r], prompts[r], pair)) {
                    dropped[r] = Some(DropReason::Duplicate);
                }
            }
        }
        if let Some(cap) = self.max_votes_per_judge_day {
            let (judges, days) = (
                judges.as_ref().expect("checked"),
                days.as_ref().expect("checked"),
            );
            let mut votes: HashMap<(usize, i64), usize> = HashMap::new();
            for &r in &order {
                if dropped[r].is_some() {
                    continue;
                }
                let count = votes.entry((judges[r], days[r])).or_insert(0);
                *count += 1;
                if *count > cap {
                    dropped[r] = Some(DropReason::OverDailyCap);
                }
            }
        }
        let mut flagged_judges = Vec::new();
        if let Some(alpha) = self.outlier_alpha {
            let judges = judges.as_ref().expect("checked");
            let kept: Vec<usize> = order
                .iter()
                .copied()
                .filter(|&r| dropped[r].is_none())
                .collect();
            let names = table
                .column(self.judge_col.as_deref().expect("checked"))
                .expect("read")
                .dictionary();
            let evidence = judge_evidence(&loaded.log, judges, &kept);
            let judge_count = evidence.len().max(1) as f64;
            let threshold = judge_count / alpha;
            let mut flagged: Vec<usize> = evidence
                .iter()
                .filter(|(_, &peak)| peak >= threshold)
                .map(|(&judge, _)| judge)
                .collect();
            flagged.sort_unstable();
            for &r in &kept {
                if flagged.binary_search(&judges[r]).is_ok() {
                    dropped[r] = Some(DropReason::OutlierJudge);
                }
            }
            flagged_judges = flagged
                .iter()
                .map(|&j| (names[j].clone(), evidence[&j]))
                .collect();
        }
        let dominant_judge = judges.as_ref().and_then(|judges| {
            let mut casts: HashMap<usize, usize> = HashMap::new();
            for &judge in judges {
                *casts.entry(judge).or_insert(0) += 1;
            }
            let (&judge, &battles) = casts.iter().max_by_key(|(_, &n)| n)?;
            let names = table
                .column(self.judge_col.as_deref()?)
                .map(|c| c.dictionary())?;
            (rows >= 20 && 2 * battles > rows).then(|| (names[judge].clone(), battles))
        });
        let kept: Vec<usize> = (0..rows).filter(|&r| dropped[r].is_none()).collect();
        let log = loaded.log.subset(&kept);
        let cleaned = LoadedBattles {
            log,
            metadata: table.select_rows(&kept),
            rows_read: loaded.rows_read,
            self_battles_skipped: loaded.self_battles_skipped,
        };
        let report = HygieneReport {
            dropped: (0..rows)
                .filter_map(|r| dropped[r].map(|why| (r, why)))
                .collect(),
            flagged_judges,
            dominant_judge,
        };
        Ok((cleaned, report))
    }
}

/// The dropped rows of `loaded` (the log as read) as CSV — `location, reason,
/// model_a, model_b, winner` and the judge when there is a judge column — for a person
/// to read why each went.
///
/// # Errors
/// [`IoError::Invalid`] if the CSV cannot be made (it always can).
pub fn dropped_rows_csv(
    loaded: &LoadedBattles,
    report: &HygieneReport,
    judge_col: Option<&str>,
) -> Result<Vec<u8>, VerdictError> {
    let table = &loaded.metadata;
    let judges = judge_col.and_then(|c| table.column(c));
    let mut writer = csv::Writer::from_writer(Vec::new());
    let mut header = vec!["location", "reason", "model_a", "model_b", "winner"];
    if judges.is_some() {
        header.push("judge");
    }
    let mut write = |record: Vec<String>| {
        writer
            .write_record(record)
            .map_err(|e| VerdictError::Data(format!("cannot write the dropped rows: {e}")))
    };
    write(header.into_iter().map(str::to_owned).collect())?;
    for &(row, reason) in &report.dropped {
        let (a, b, outcome) = loaded.log.battle(row);
        let names = loaded.log.models();
        // The file by its base name: the table is a result, shared like a page.
        let mut location = table.location(row, None);
        location.file = verdict_io::shown_name(std::path::Path::new(&location.file));
        let mut record = vec![
            location.to_string(),
            reason.label().to_owned(),
            names.name(a).to_owned(),
            names.name(b).to_owned(),
            outcome.label().to_owned(),
        ];
        if let Some(judges) = judges {
            record.push(judges.value(row).unwrap_or("").to_owned());
        }
        write(record)?;
    }
    writer
        .into_inner()
        .map_err(|e| VerdictError::Data(format!("cannot write the dropped rows: {e}")))
}

/// Each row's time, as a sortable key (seconds since 1970) and its UTC day, each
/// dictionary value parsed once.
///
/// # Errors
/// A value that is neither a number nor a date, named by its row.
fn times(loaded: &LoadedBattles, column: &str) -> Result<(Vec<f64>, Vec<i64>), VerdictError> {
    let table = &loaded.metadata;
    let values = table
        .column(column)
        .ok_or_else(|| VerdictError::Data(format!("column {column:?} was not read")))?;
    let parsed: Vec<Option<(f64, i64)>> = values
        .dictionary()
        .iter()
        .map(|text| {
            let day = day_of(text)?;
            let seconds = text.parse::<f64>().unwrap_or(day as f64 * 86_400.0);
            Some((seconds, day))
        })
        .collect();
    let mut keys = Vec::with_capacity(table.rows());
    let mut days = Vec::with_capacity(table.rows());
    for row in 0..table.rows() {
        match values.code(row).and_then(|code| parsed[code]) {
            Some((seconds, day)) => {
                keys.push(seconds);
                days.push(day);
            }
            None => {
                let text = values.value(row).unwrap_or("");
                return Err(IoError::invalid(
                    table.location(row, Some(column)),
                    format!("{text:?} is no time: give seconds since 1970 or a YYYY-MM-DD date"),
                )
                .into());
            }
        }
    }
    Ok((keys, days))
}

/// The rows in time order: stable, so log order among equal times and without times.
fn time_order(rows: usize, keys: Option<&[f64]>) -> Vec<usize> {
    let mut order: Vec<usize> = (0..rows).collect();
    if let Some(keys) = keys {
        order.sort_by(|&x, &y| keys[x].total_cmp(&keys[y]));
    }
    order
}

/// The day number of a time text (module docs).
fn day_of(text: &str) -> Option<i64> {
    if let Ok(seconds) = text.parse::<f64>() {
        return seconds
            .is_finite()
            .then(|| (seconds / 86_400.0).floor() as i64);
    }
    let date = text.get(..10)?;
    let mut parts = date.split('-');
    let (y, m, d) = (parts.next()?, parts.next()?, parts.next()?);
    let (y, m, d): (i64, u32, u32) = (y.parse().ok()?, m.parse().ok()?, d.parse().ok()?);
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    Some(days_from_civil(y, m, d))
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
/// `days_from_civil`; written out because it is a few lines and no date crate is a
/// dependency).
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let (m, d) = (i64::from(m), i64::from(d));
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Each judge's largest running product of e-values over `rows` (time order), each
/// vote scored against the other judges' votes on its pair (module docs).
fn judge_evidence(log: &BattleLog, judges: &[usize], rows: &[usize]) -> HashMap<usize, f64> {
    // Votes per pair and per (judge, pair): [wins of the smaller id, of the larger, ties].
    let mut pair_votes: HashMap<(u32, u32), [f64; 3]> = HashMap::new();
    let mut judge_votes: HashMap<(usize, (u32, u32)), [f64; 3]> = HashMap::new();
    let vote = |r: usize| {
        let (a, b, outcome) = log.battle(r);
        let (i, j, outcome) = if a < b {
            (a, b, outcome)
        } else {
            (b, a, outcome.swapped())
        };
        let cell = match outcome {
            Outcome::WinA => 0,
            Outcome::WinB => 1,
            Outcome::Tie | Outcome::TieBothBad => 2,
        };
        ((i.0, j.0), cell)
    };
    for &r in rows {
        let (pair, cell) = vote(r);
        pair_votes.entry(pair).or_insert([0.0; 3])[cell] += 1.0;
        judge_votes.entry((judges[r], pair)).or_insert([0.0; 3])[cell] += 1.0;
    }
    let mut log_product: HashMap<usize, f64> = HashMap::new();
    let mut peak: HashMap<usize, f64> = HashMap::new();
    for &r in rows {
        let (pair, cell) = vote(r);
        let judge = judges[r];
        let all = pair_votes[&pair];
        let own = judge_votes[&(judge, pair)];
        let others: Vec<f64> = (0..3).map(|c| all[c] - own[c]).collect();
        let p = if cell == 2 {
            1.0
        } else {
            (2.0 * (1.0 + others[cell]) / (1.0 + others.iter().sum::<f64>())).min(1.0)
        };
        let running = log_product.entry(judge).or_insert(0.0);
        *running += -(2.0 * p.sqrt()).ln();
        let best = peak.entry(judge).or_insert(f64::NEG_INFINITY);
        *best = best.max(*running);
    }
    peak.into_iter()
        .map(|(judge, log_peak)| (judge, log_peak.exp()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_are_utc_days_of_seconds_and_dates() {
        // 1707700514 s is 2024-02-12 01:15:14 UTC: day 19765 (date -u -d @1707700514).
        assert_eq!(day_of("1707700514.3167"), Some(19_765));
        assert_eq!(day_of("2024-02-12"), Some(19_765));
        assert_eq!(day_of("2024-02-12T23:59:59Z"), Some(19_765));
        assert_eq!(day_of("1970-01-01"), Some(0));
        assert_eq!(day_of("2000-03-01"), Some(11_017)); // a leap year's March
        assert_eq!(day_of("yesterday"), None);
        assert_eq!(day_of("2024-13-01"), None);
    }
}
