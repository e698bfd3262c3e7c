//! Runtime helpers every upper layer uses: the loaded plugins ([`registry`]), calling plugin code
//! off the reactor ([`blocking`]), a client's outgoing queue ([`outbox`]), and the settings
//! shared by every connection ([`config`]).

pub mod blocking;
pub mod config;
pub mod outbox;
pub mod registry;
