//! Transports and sessions: JSON lines over stdio and TCP, one session per connection.

pub mod connection;
pub mod framing;
pub mod input;
pub mod listen;
