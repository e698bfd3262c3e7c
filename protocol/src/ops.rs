//! The operations a client can ask for. The enum and the list of names come from one table, so
//! the list `hello` advertises cannot drift from what the host dispatches.

/// Declares [`Op`], its wire names and [`OPERATIONS`] from one `Variant => "name"` table.
macro_rules! operations {
    ($($variant:ident => $name:literal,)*) => {
        /// One protocol operation.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Op {
            $(#[doc = concat!("`", $name, "`: see PROTOCOL.md.")] $variant,)*
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
    };
}

operations! {
    Hello => "hello",
    Ping => "ping",
    Catalog => "catalog",
    AgentNew => "agent.new",
    AgentConfigure => "agent.configure",
    AgentSwap => "agent.swap",
    AgentAct => "agent.act",
    AgentObserve => "agent.observe",
    AgentCall => "agent.call",
    AgentDrop => "agent.drop",
    AgentList => "agent.list",
    PluginList => "plugin.list",
    PluginLoad => "plugin.load",
    MatchRun => "match.run",
    MatchMove => "match.move",
    MatchReplay => "match.replay",
    TournamentRun => "tournament.run",
    TournamentList => "tournament.list",
    Cancel => "cancel",
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
