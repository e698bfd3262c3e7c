//! The dice crate's integration tests as one test binary (one link instead of one
//! per file); run one module with `cargo test --release -p yomi-dice --test suite MODULE::`.

mod conformance;
mod features;
mod openings;
mod service;
mod sugoroku;
