//! The operations a client can ask for, with each one's parameters and reply as types.
//!
//! One table below names every operation: its [`Op`] variant, its wire name, its parameters'
//! type and its reply's type. The enum, the list `hello` advertises ([`OPERATIONS`]) and the
//! JSON Schema of the protocol ([`crate::schema`]) all come from it, so none can drift from
//! another; the host's dispatch matches on [`Op`] exhaustively, so a new row does not compile
//! until the host answers it. PROTOCOL.md ("Adding an operation") has the whole recipe.
//!
//! Each row also makes a marker type of the variant's name implementing [`Operation`], which a
//! host's dispatch names to type the reply, and a variant of [`Command`], a request's operation
//! with its parameters read: a host reads a request once ([`Command::read`]) and matches on the
//! command, so a handler that takes or returns other types than the row's does not compile, and
//! the schema cannot drift from what the host reads and writes.
//!
//! `match.run` and `tournament.run` carry a match or tournament spec that the host's runners
//! define; their rows name them through [`Specs`], which the host implements.

pub mod agents;
pub mod humans;
pub mod matches;
pub mod meta;
pub mod plugins;
pub mod tournaments;

use schemars::{JsonSchema, SchemaGenerator};
use serde::Deserialize;
use serde_json::Value;

use crate::envelope::Request;
use crate::error::ErrorInfo;

/// The match and tournament specs a host's `match.run` and `tournament.run` carry.
pub trait Specs {
    /// A match: game, seats, games, policy.
    type Match;
    /// A tournament: game, bots, format, games per pair ...
    type Tournament;
}

/// One operation's types, as the table gives them, for a host with specs `S`.
pub trait Operation<S: Specs> {
    /// The operation.
    const OP: Op;
    /// Its parameters, borrowing from the request's text where they can.
    type Params<'a>;
    /// Its reply's `result`.
    type Reply;
}

/// Declares [`Op`], its wire names, [`OPERATIONS`], a marker type implementing [`Operation`]
/// per operation, [`Command`] and [`shapes`] from one table of `Variant => "name": Params => Reply` rows
/// (where `'a` is the request's lifetime and `S` the host's [`Specs`]).
macro_rules! operations {
    ($($variant:ident => $name:literal: $params:ty => $reply:ty,)*) => {
        $(
            #[doc = concat!("`", $name, "` (see [`Operation`]).")]
            #[derive(Debug, Clone, Copy)]
            pub struct $variant;

            impl<S: Specs> Operation<S> for $variant {
                const OP: Op = Op::$variant;
                type Params<'a> = $params;
                type Reply = $reply;
            }
        )*

        /// One protocol operation.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Op {
            $(#[doc = concat!("`", $name, "`: see [`", stringify!($variant), "`](struct@", stringify!($variant), ").")] $variant,)*
        }

        /// A request's operation with its parameters, read once from the request's text.
        #[derive(Debug)]
        pub enum Command<'a, S: Specs> {
            $(#[doc = concat!("`", $name, "` with its parameters.")] $variant($params),)*
        }

        impl<'a, S: Specs> Command<'a, S> {
            /// Reads `request`'s parameters as operation `op`'s (the operation named by
            /// `request.op`, parsed by the caller, which may refuse it before any parameter is
            /// read): `invalid_params` naming the operation when they do not fit.
            pub fn read(op: Op, request: Request<'a>) -> Result<Command<'a, S>, ErrorInfo>
            where
                S::Match: Deserialize<'a>,
                S::Tournament: serde::de::DeserializeOwned,
            {
                Ok(match op {
                    $(Op::$variant => Command::$variant(request.params()?),)*
                })
            }
        }

        /// Every operation's wire name, in the order `hello` lists them.
        pub const OPERATIONS: &[&str] = &[$($name,)*];

        impl Op {
            /// Every operation, in the order of [`OPERATIONS`].
            pub const ALL: &[Op] = &[$(Op::$variant,)*];

            /// The name on the wire.
            pub const fn name(self) -> &'static str {
                match self {
                    $(Op::$variant => $name,)*
                }
            }

            /// The operation named `name`, if there is one.
            pub fn parse(name: &str) -> Option<Op> {
                match name {
                    $($name => Some(Op::$variant),)*
                    _ => None,
                }
            }
        }

        /// Every operation's name with the schemas of its parameters (from `params`, read as the
        /// host reads them) and of its reply (from `replies`, as the host writes them).
        pub fn shapes<S: Specs>(
            params: &mut SchemaGenerator,
            replies: &mut SchemaGenerator,
        ) -> Vec<(&'static str, Value, Value)>
        where
            S::Match: JsonSchema,
            S::Tournament: JsonSchema,
        {
            vec![$((
                $name,
                params.subschema_for::<<$variant as Operation<S>>::Params<'static>>().to_value(),
                replies.subschema_for::<<$variant as Operation<S>>::Reply>().to_value(),
            ),)*]
        }
    };
}

operations! {
    Hello => "hello": meta::Hello => meta::Welcome,
    Ping => "ping": meta::NoParams => meta::Pong,
    Catalog => "catalog": meta::NoParams => plugins::Catalog,
    AgentNew => "agent.new": agents::New => agents::Agent,
    AgentConfigure => "agent.configure": agents::Configure => agents::Agent,
    AgentSwap => "agent.swap": agents::Swap => agents::Agent,
    AgentAct => "agent.act": agents::Act<'a> => agents::Acted,
    AgentObserve => "agent.observe": agents::Observe => meta::Done,
    AgentCall => "agent.call": agents::Call => Value,
    AgentDrop => "agent.drop": agents::Drop => agents::Dropped,
    AgentList => "agent.list": meta::NoParams => Vec<agents::Agent>,
    PluginList => "plugin.list": meta::NoParams => Vec<plugins::Plugin>,
    PluginLoad => "plugin.load": plugins::Load => plugins::Plugin,
    MatchRun => "match.run": matches::Run<S::Match> => matches::Summary,
    MatchMove => "match.move": matches::Move => meta::Done,
    MatchReplay => "match.replay": matches::Replay => matches::Replayed,
    TournamentRun => "tournament.run": tournaments::Run<S::Tournament> => tournaments::Summary,
    TournamentList => "tournament.list": meta::NoParams => Vec<tournaments::Listed>,
    TournamentShow => "tournament.show": tournaments::Show => tournaments::Shown,
    TournamentGames => "tournament.games": tournaments::Games => tournaments::GamesPage,
    TournamentGame => "tournament.game": tournaments::Game => tournaments::GameRecord,
    OpeningsList => "openings.list": meta::NoParams => Vec<tournaments::SuiteListed>,
    HumanlikeRun => "humanlike.run": humans::Humanlike => Value,
    FitRun => "fit.run": humans::Fit => Value,
    Cancel => "cancel": meta::Cancel => meta::Stopped,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_parses_back_to_its_operation() {
        assert_eq!(Op::ALL.len(), OPERATIONS.len());
        for (op, name) in Op::ALL.iter().zip(OPERATIONS) {
            assert_eq!(op.name(), *name);
            assert_eq!(Op::parse(name), Some(*op));
        }
        assert_eq!(Op::parse("agent.fly"), None);
    }
}
