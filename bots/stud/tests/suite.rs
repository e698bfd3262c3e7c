//! The stud crate's integration tests as one test binary (one link instead of one
//! per file); run one module with `cargo test --release -p yomi-stud --test suite MODULE::`.

mod conformance;
mod evaluator;
mod openings;
mod player;
mod policy;
mod records;
mod referee;
