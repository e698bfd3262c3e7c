//! Transports: JSON lines over stdio and TCP, and the same protocol over WebSocket (with the
//! playground) over HTTP; one session per connection.

pub mod admit;
pub mod connection;
pub mod framing;
pub mod gate;
pub mod http;
pub mod input;
pub mod listen;
pub mod web;
