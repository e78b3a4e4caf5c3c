use std::str::FromStr;

/// How a [`Filter`] compares a row's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FilterOp {
    /// `COLUMN=VALUE`: equal (booleans compare case-insensitively).
    Equals,
    /// `COLUMN!=VALUE`: not equal, or missing.
    NotEquals,
    /// `COLUMN~TEXT`: the value contains TEXT.
    Contains,
}

/// A row selector given on the command line as `COLUMN=VALUE`, `COLUMN!=VALUE` or
/// `COLUMN~TEXT` (e.g. `anony=true`, `language=English`, `model_a~_generation`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Filter {
    /// The column compared.
    pub column: String,
    /// The comparison.
    pub op: FilterOp,
    /// The value compared with.
    pub value: String,
}

impl Filter {
    /// True when a row whose `column` holds `value` (`None`: missing) passes.
    pub fn accepts(&self, value: Option<&str>) -> bool {
        match (self.op, value) {
            (FilterOp::Equals, Some(v)) => same_value(v, &self.value),
            (FilterOp::NotEquals, Some(v)) => !same_value(v, &self.value),
            (FilterOp::Contains, Some(v)) => v.contains(&self.value),
            (FilterOp::NotEquals, None) => true,
            (_, None) => false,
        }
    }
}

/// Exact equality, except that boolean spellings (`true`, `True`, `TRUE`) agree.
fn same_value(found: &str, wanted: &str) -> bool {
    found == wanted
        || (is_boolean(found) && is_boolean(wanted) && found.eq_ignore_ascii_case(wanted))
}

fn is_boolean(text: &str) -> bool {
    text.eq_ignore_ascii_case("true") || text.eq_ignore_ascii_case("false")
}

impl FromStr for Filter {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let (column, op, value) = if let Some((c, v)) = text.split_once("!=") {
            (c, FilterOp::NotEquals, v)
        } else if let Some((c, v)) = text.split_once('=') {
            (c, FilterOp::Equals, v)
        } else if let Some((c, v)) = text.split_once('~') {
            (c, FilterOp::Contains, v)
        } else {
            return Err(format!(
                "filter {text:?} is not COLUMN=VALUE, COLUMN!=VALUE or COLUMN~TEXT (e.g. anony=true)"
            ));
        };
        let column = column.trim();
        if column.is_empty() {
            return Err(format!("filter {text:?} names no column (e.g. anony=true)"));
        }
        Ok(Filter {
            column: column.to_owned(),
            op,
            value: value.to_owned(),
        })
    }
}

impl std::fmt::Display for Filter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let op = match self.op {
            FilterOp::Equals => "=",
            FilterOp::NotEquals => "!=",
            FilterOp::Contains => "~",
        };
        write!(f, "{}{}{}", self.column, op, self.value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_applies_each_operator() {
        let eq: Filter = "anony=true".parse().unwrap();
        assert!(eq.accepts(Some("True")) && !eq.accepts(Some("false")) && !eq.accepts(None));
        let ne: Filter = "language!=English".parse().unwrap();
        assert!(ne.accepts(Some("German")) && ne.accepts(None) && !ne.accepts(Some("English")));
        let contains: Filter = "model_a~_generation".parse().unwrap();
        assert!(contains.accepts(Some("imagenhub_SDXL_generation")));
        assert_eq!(contains.to_string(), "model_a~_generation");
        assert!("anony".parse::<Filter>().is_err());
        assert!("=x".parse::<Filter>().is_err());
    }

    #[test]
    fn value_comparison_is_exact_for_non_booleans() {
        let eq: Filter = "category=Math".parse().unwrap();
        assert!(!eq.accepts(Some("math")));
    }
}
