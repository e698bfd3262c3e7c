//! Natural dice for yomi (seed 000, Nomura, Temsiririkkul & Ikeda): die sequences that carry the
//! biases people expect of "random" dice, so that they look random to players, while each face
//! stays equally likely in the long run.

pub mod features;
pub mod ranges;
pub mod search;
pub mod tracker;

/// Largest die the service rolls (a sanity limit: faces are bytes, counts are per face).
pub const MAX_SIDES: u8 = 100;
