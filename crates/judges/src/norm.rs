/// The error norm `l_p`, `p in [1, inf]`; saved as its text (`"2"`, `"inf"`).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum Norm {
    /// Finite `p >= 1`.
    P(f64),
    /// `p = inf`.
    Infinity,
}

impl Norm {
    /// A finite `p >= 1`, or `inf`.
    ///
    /// # Errors
    /// [`crate::JudgeError::Setting`] for `p < 1` or NaN.
    pub fn new(p: f64) -> Result<Self, crate::JudgeError> {
        if p.is_infinite() && p > 0.0 {
            Ok(Self::Infinity)
        } else if p >= 1.0 {
            Ok(Self::P(p))
        } else {
            Err(crate::JudgeError::Setting(format!(
                "p = {p}: the error norm needs p >= 1 (or inf)"
            )))
        }
    }

    /// The oracle weight exponent `p / (p + 2)` (Theorem 3.2); 1 at `p = inf`.
    pub fn weight_exponent(self) -> f64 {
        match self {
            Self::P(p) => p / (p + 2.0),
            Self::Infinity => 1.0,
        }
    }

    /// `||x||_p`.
    pub fn length(self, x: &[f64]) -> f64 {
        match self {
            Self::P(p) => x.iter().map(|v| v.abs().powf(p)).sum::<f64>().powf(1.0 / p),
            Self::Infinity => x.iter().fold(0.0, |m, v| m.max(v.abs())),
        }
    }

    /// `||a - b||_p`.
    pub fn distance(self, a: &[f64], b: &[f64]) -> f64 {
        let difference: Vec<f64> = a.iter().zip(b).map(|(x, y)| x - y).collect();
        self.length(&difference)
    }

    /// `p` as a number (`inf` for infinity).
    pub fn value(self) -> f64 {
        match self {
            Self::P(p) => p,
            Self::Infinity => f64::INFINITY,
        }
    }
}

impl std::fmt::Display for Norm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::P(p) => write!(f, "{p}"),
            Self::Infinity => write!(f, "inf"),
        }
    }
}

impl std::str::FromStr for Norm {
    type Err = crate::JudgeError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim() {
            "inf" | "infinity" | "Inf" => Ok(Self::Infinity),
            other => {
                let p: f64 = other.parse().map_err(|_| {
                    crate::JudgeError::Setting(format!(
                        "p = {other:?}: expected a number >= 1 or inf"
                    ))
                })?;
                Self::new(p)
            }
        }
    }
}

impl From<Norm> for String {
    fn from(norm: Norm) -> String {
        norm.to_string()
    }
}

impl TryFrom<String> for Norm {
    type Error = crate::JudgeError;

    fn try_from(text: String) -> Result<Self, Self::Error> {
        text.parse()
    }
}
