//! What each check is worth to a course: `--points FILE`, a TOML table of check id to points,
//! one point each by default.

use std::collections::BTreeMap;

use super::check::{CheckId, Report};
use crate::sim::text::printable;

/// Points per check.
#[derive(Clone, Debug, PartialEq)]
pub struct Points {
    of: BTreeMap<CheckId, f64>,
}

impl Default for Points {
    /// One point a check.
    fn default() -> Self {
        Points {
            of: CheckId::all().into_iter().map(|c| (c, 1.0)).collect(),
        }
    }
}

/// The most a check may be worth: a typo of a few zeros is refused, not graded.
const MOST: f64 = 1000.0;

impl Points {
    /// Reads a points file's text (`file` names it in errors). A check the file leaves out is
    /// worth one point; give it 0 to leave it out of the grade.
    pub fn parse(text: &str, file: &str) -> Result<Points, String> {
        let file = printable(file);
        let table: toml::Table = text.parse().map_err(|e: toml::de::Error| {
            // Where toml says it went wrong: "line 3: duplicate key".
            let line = e
                .span()
                .map(|span| text[..span.start.min(text.len())].matches('\n').count() + 1);
            let place = line.map_or(String::new(), |n| format!(", line {n}"));
            format!(
                "{file}{place}: not a TOML table of check to points: {}",
                crate::sim::text::one_line(e.message())
            )
        })?;
        let mut points = Points::default();
        for (key, value) in &table {
            let shown = printable(key);
            let check = CheckId::from_id(key).ok_or_else(|| {
                let ids: Vec<&str> = CheckId::all().iter().map(|c| c.id()).collect();
                format!(
                    "{file}: `{}` names no check; the checks are {}",
                    printable(key),
                    ids.join(", ")
                )
            })?;
            let worth = match value {
                toml::Value::Integer(n) => *n as f64,
                toml::Value::Float(x) => *x,
                other => {
                    return Err(format!(
                        "{file}: `{shown}` must be a number of points, not {}",
                        other.type_str()
                    ))
                }
            };
            if !(0.0..=MOST).contains(&worth) {
                // Written as given only while it is short: 1e308 is no number to print whole.
                let said = if worth.is_finite() && worth.abs() < 1e9 {
                    format!("{worth}")
                } else {
                    format!("{worth:e}")
                };
                return Err(format!(
                    "{file}: `{shown}` is worth {said} points; a check is worth 0 to {MOST}"
                ));
            }
            points.of.insert(check, worth);
        }
        Ok(points)
    }

    /// What `check` is worth.
    pub fn of(&self, check: CheckId) -> f64 {
        self.of.get(&check).copied().unwrap_or(1.0)
    }

    /// The points of the checks `report` passed.
    pub fn score(&self, report: &Report) -> f64 {
        let passed = report.outcomes.iter().filter(|o| o.passed());
        // A fold from 0.0: a float `sum` of nothing is -0.0, which a grade sheet prints.
        passed.fold(0.0, |total, o| total + self.of(o.check))
    }

    /// The points of every check `report` ran or was to run.
    pub fn max_score(&self, report: &Report) -> f64 {
        let all = report.outcomes.iter();
        all.fold(0.0, |total, o| total + self.of(o.check))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::Rule;

    #[test]
    fn a_check_the_file_leaves_out_is_worth_one_point() {
        let points = Points::parse("late-renew = 3\nchaos = 0.5\nrandom = 0\n", "p.toml").unwrap();
        assert_eq!(points.of(CheckId::Rule(Rule::LateRenew)), 3.0);
        assert_eq!(points.of(CheckId::Chaos), 0.5);
        assert_eq!(points.of(CheckId::Random), 0.0);
        assert_eq!(points.of(CheckId::Exhaustive), 1.0);
        assert_eq!(Points::default().of(CheckId::Chaos), 1.0);
    }

    #[test]
    fn a_bad_points_file_is_one_sentence_naming_the_file() {
        for (text, says) in [
            (
                "late-renw = 1",
                "p.toml: `late-renw` names no check; the checks are new-starts-over",
            ),
            (
                "chaos = \"two\"",
                "p.toml: `chaos` must be a number of points, not string",
            ),
            (
                "chaos = -1",
                "p.toml: `chaos` is worth -1 points; a check is worth 0 to 1000",
            ),
            ("chaos = 1e8", "is worth 100000000 points"),
            ("chaos = 999999999", "is worth 999999999 points"),
            ("chaos = 1e9", "is worth 1e9 points"),
            ("chaos = 1e308", "is worth 1e308 points"),
            ("chaos = nan", "p.toml: `chaos` is worth NaN points"),
            ("chaos = ", "p.toml, line 1: not a TOML table"),
            (
                "chaos = 1\nchaos = 2",
                "p.toml, line 2: not a TOML table of check to points: duplicate key",
            ),
        ] {
            let error = Points::parse(text, "p.toml").unwrap_err();
            assert!(error.contains(says), "{text}: {error}");
            assert_eq!(error.lines().count(), 1, "{error}");
        }
    }
}
