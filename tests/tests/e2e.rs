//! yomi's end-to-end suite as one test binary: each module drives the real `yomi` through its
//! protocol (see ../README.md). One binary links once, where one per file made CI link 37 times.
//! Run one module with `cargo test --release -p yomi-e2e --test e2e MODULE::`.

mod arena;
mod arena_page;
mod bad_input;
mod batch;
mod battle_analyze;
mod cancel;
mod check;
mod cli_output;
mod clock;
mod concurrency;
mod engine_limits;
mod engines;
mod events;
mod fair_seats;
mod fit;
mod humans;
mod humans_ops;
mod ladder;
mod leftovers;
mod lifecycle;
mod matches;
mod metrics;
mod newcomer;
mod observations;
mod openings;
mod plugins;
mod policy;
mod recording;
mod records;
mod security_bots;
mod security_costs;
mod security_edge;
mod security_parse;
mod session;
mod sharding;
mod slow_clients;
mod web;
