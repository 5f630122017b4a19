//! Latency percentiles over every recorded sample.
//!
//! A W1 insert stream is at most a few million commits, so keeping every
//! sample (8 bytes each) and sorting once is cheap and exact; an HDR
//! histogram would add a dependency to save memory we do not lack, and
//! would round the tail we want to read.

/// p50, p99 and p99.9 of one sample set, in the samples' unit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Percentiles {
    /// Median.
    pub p50: f64,
    /// 99th percentile.
    pub p99: f64,
    /// 99.9th percentile.
    pub p999: f64,
}

/// Nearest-rank percentiles (the smallest sample with at least q of the
/// samples at or below it); NaN for no samples.
pub fn percentiles(samples: &mut [u64]) -> Percentiles {
    samples.sort_unstable();
    let at = |q: f64| -> f64 {
        if samples.is_empty() {
            return f64::NAN;
        }
        let rank = (q * samples.len() as f64).ceil() as usize;
        samples[rank.clamp(1, samples.len()) - 1] as f64
    };
    Percentiles {
        p50: at(0.50),
        p99: at(0.99),
        p999: at(0.999),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_on_a_known_set() {
        let mut s: Vec<u64> = (1..=1000).rev().collect();
        let p = percentiles(&mut s);
        assert_eq!((p.p50, p.p99, p.p999), (500.0, 990.0, 999.0));
        let mut one = vec![7];
        assert_eq!(percentiles(&mut one).p999, 7.0);
        assert!(percentiles(&mut []).p50.is_nan());
    }
}
