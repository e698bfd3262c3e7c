//! The sevens crate's integration tests as one test binary (one link instead of one
//! per file); run one module with `cargo test --release -p yomi-sevens --test suite MODULE::`.

mod bots;
mod common;
mod conformance;
mod openings;
mod policy;
mod repro;
mod rules;
mod snapshots;
