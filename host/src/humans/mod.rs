//! Human records: people's decisions kept in the data directory ([`store`]), read from yomi's
//! own transcripts ([`from_transcript`]) or from plain JSON lines ([`record`]), and how likely
//! a bot finds them ([`likeness`]).

pub mod fit;
pub mod from_transcript;
pub mod likeness;
pub mod record;
pub mod recording;
pub mod replay;
pub mod report;
pub mod store;
pub mod think_time;
