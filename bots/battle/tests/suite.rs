//! The battle crate's integration tests as one test binary (one link instead of one
//! per file); run one module with `cargo test --release -p yomi-battle --test suite MODULE::`.

mod battle;
mod conformance;
mod openings;
mod players;
mod policy;
