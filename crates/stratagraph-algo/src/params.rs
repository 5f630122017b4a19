//! The kernels' parameters, checked once for every front end, so the
//! command line and Python refuse the same values with the same words.
//!
//! The kernels themselves take what they are given (a damping of 5 gives
//! negative ranks, not an error): callers that take parameters from users
//! check them here first.

/// A kernel parameter outside its range.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{name}: expected {expected}, got {value}")]
pub struct InvalidParameter {
    /// The parameter, as the user spells it.
    pub name: &'static str,
    /// The value given.
    pub value: String,
    /// What would have been accepted.
    pub expected: String,
}

/// PageRank's damping factor: a number in `[0, 1]` (not NaN).
pub fn damping(value: f64) -> Result<f64, InvalidParameter> {
    if (0.0..=1.0).contains(&value) {
        Ok(value)
    } else {
        Err(InvalidParameter {
            name: "damping",
            value: value.to_string(),
            expected: "a number in [0, 1]".into(),
        })
    }
}

/// A worker thread count: 0 (all cores) up to [`stratagraph::MAX_THREADS`].
pub fn threads(value: i128) -> Result<usize, InvalidParameter> {
    match usize::try_from(value) {
        Ok(t) if t <= stratagraph::MAX_THREADS => Ok(t),
        _ => Err(InvalidParameter {
            name: "threads",
            value: value.to_string(),
            expected: format!(
                "an integer in 0..={} (0: all cores)",
                stratagraph::MAX_THREADS
            ),
        }),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // tests may panic on bad fixtures
mod tests {
    use super::*;

    #[test]
    fn damping_is_a_number_in_the_unit_interval() {
        for ok in [0.0, 0.85, 1.0] {
            assert_eq!(damping(ok), Ok(ok));
        }
        for bad in [5.0, -0.1, 1.0000001, f64::NAN, f64::INFINITY] {
            let e = damping(bad).unwrap_err();
            assert_eq!(e.name, "damping");
        }
        assert_eq!(
            damping(5.0).unwrap_err().to_string(),
            "damping: expected a number in [0, 1], got 5"
        );
    }

    #[test]
    fn threads_are_bounded() {
        assert_eq!(threads(0), Ok(0));
        assert_eq!(threads(1024), Ok(1024));
        assert!(threads(1025).is_err());
        assert!(threads(65_536).is_err());
        assert!(threads(-1).is_err());
    }
}
