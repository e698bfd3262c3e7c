//! Runtime helpers every upper layer uses: where each plugin
//! call runs ([`executor`]), other blocking work off the reactor ([`blocking`]), a client's
//! outgoing queue ([`outbox`]), the settings shared by every connection ([`config`]), its limits
//! and timeouts ([`limits`]), what one request may cost ([`costs`]), a session's running requests and
//! their cancellation ([`requests`]), and the Prometheus metrics
//! ([`metrics`]).

pub mod auth;
pub mod blocking;
pub mod config;
pub mod costs;
pub mod executor;
pub mod limits;
pub mod memory;
pub mod metrics;
pub mod outbox;
pub mod requests;
pub mod url;
