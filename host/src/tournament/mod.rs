//! Tournaments between bots, as cutechess-cli and fastchess run them for chess engines, for
//! simultaneous, multi-player and imperfect-information games.
//!
//! - [`schedule`]: which bots meet, in which seat orders, on which deals.
//! - [`openings`]: the suites of start positions deals are played from.
//! - [`finished`]: finished games as standings, ratings and statistics read them.
//! - [`standings`]: scores, pairing tables and Elo from finished games.
//! - [`rating`]: Elo arithmetic and the SPRT.
//! - [`stats`]: pentanomial and trinomial statistics (normalized Elo, LOS, GSPRT) as fishtest
//!   computes them.
//! - [`outcomes`]: each two-bot pairing's trinomial or pentanomial counts and their statistics.
//! - [`ladder`]: one Elo per bot fitted to a whole round robin, a reference bot at 0.
//! - [`store`]: the SQLite records that make a tournament survive `kill -9`.
//! - [`shard`]: one block of the schedule per machine, and ids every shard agrees on.
//! - [`merge`]: shards' records into one tournament, with standings over the whole.
//! - [`liveness`]: which tournaments recorded as running a live process is playing.
//! - [`quota`]: the bytes a tournament may write, checked before each commit.
//! - [`runner`]: plays the schedule with games in parallel, committing each before it counts.

pub mod finished;
pub mod history;
pub mod ladder;
pub mod liveness;
pub mod merge;
pub mod openings;
pub mod outcomes;
pub mod quota;
pub mod rating;
pub mod runner;
pub mod schedule;
pub mod shard;
pub mod standings;
pub mod stats;
pub mod store;
