//! Helpers for end-to-end tests: find the built `yomi` binary and talk to it.
