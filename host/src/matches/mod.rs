//! Matches: the host as referee between any bots (and connected clients) of any game plugin.
//!
//! - [`seat`]: who sits in a seat — a bot (in process or isolated in a worker) or a client.
//! - [`game`]: a game handle in a plugin, called off the reactor.
//! - [`policy`]: the deadline and what a timeout, an illegal action, an error, a crash or a
//!   disconnect costs the seat.
//! - [`served`]: a bot seat the server plays for a client: explained, paced.
//! - [`referee`]: plays one game and records it.
//! - [`log`]: the transcript being written, as values or straight as text.
//! - [`transcript`]: the recorded form of a match as JSON-lines text.
//! - [`replay`]: playing a transcript again to check it plays out identically.
//! - [`runner`]: a match of several games with persistent agents.

pub mod clock;
pub mod game;
pub mod log;
pub mod policy;
pub mod referee;
pub mod replay;
pub mod runner;
pub mod seat;
pub mod served;
pub mod transcript;
