//! The example crate's integration tests as one test binary (one link instead of one
//! per file); run one module with `cargo test --release -p yomi-example --test suite MODULE::`.

mod conformance;
mod policy;
