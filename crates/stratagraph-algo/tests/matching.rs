//! The Graphalytics `matching/` cases for the three comparison rules: `*_actual1.csv` must
//! pass against `*_expected.csv`, `*_actual2.csv` must fail.
#![allow(clippy::unwrap_used)] // tests may panic on bad fixtures

mod common;

use std::path::PathBuf;

use stratagraph_algo::graphalytics::{
    compare_epsilon, compare_equivalence, compare_exact, parse_double_output, parse_long_output,
    EPSILON,
};

fn file(name: &str) -> (String, PathBuf) {
    let path = common::graphalytics_dir().join("matching").join(name);
    (std::fs::read_to_string(&path).unwrap(), path)
}

fn longs(name: &str) -> Vec<(u64, i64)> {
    let (text, path) = file(name);
    parse_long_output(&text, &path).unwrap()
}

fn doubles(name: &str) -> Vec<(u64, f64)> {
    let (text, path) = file(name);
    parse_double_output(&text, &path).unwrap()
}

#[test]
fn exact_rule() {
    let expected = longs("exact_expected.csv");
    assert_eq!(
        compare_exact(&expected, &longs("exact_actual1.csv")),
        Ok(())
    );
    assert!(compare_exact(&expected, &longs("exact_actual2.csv")).is_err());
}

#[test]
fn epsilon_rule() {
    let expected = doubles("epsilon_expected.csv");
    assert!(
        expected.iter().any(|&(_, x)| x == f64::INFINITY),
        "+Infinity parsed"
    );
    assert_eq!(
        compare_epsilon(&expected, &doubles("epsilon_actual1.csv"), EPSILON),
        Ok(())
    );
    let actual2 = doubles("epsilon_actual2.csv");
    assert!(
        actual2.iter().all(|&(_, x)| x.is_finite()),
        "1.79769e+308 is finite"
    );
    assert!(compare_epsilon(&expected, &actual2, EPSILON).is_err());
}

#[test]
fn equivalence_rule() {
    let expected = longs("equivalence_expected.csv");
    assert_eq!(
        compare_equivalence(&expected, &longs("equivalence_actual1.csv")),
        Ok(())
    );
    assert!(compare_equivalence(&expected, &longs("equivalence_actual2.csv")).is_err());
}
