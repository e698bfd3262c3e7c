//! The roles crate's integration tests as one test binary (one link instead of one
//! per file); run one module with `cargo test --release -p yomi-roles --test suite MODULE::`.

mod agreement;
mod conformance;
mod service;
