//! A game (referee) instance living in its plugin, called off the reactor (see
//! `runtime::executor`).

use async_trait::async_trait;
use serde::de::DeserializeOwned;
use serde_json::Value;
use yomi_plugin::call::{Apply, Call, DefaultAction, Open};
use yomi_protocol::{Decision, ErrorInfo, GameOutcome, Options};

use crate::registry::GameRef;
use crate::runtime::executor::{self, Scope};

/// A game in progress.
pub struct HostedGame {
    handle: executor::Handle,
}

impl HostedGame {
    pub async fn open(
        game: &GameRef,
        options: Options,
        seed: u64,
        scope: Scope,
    ) -> Result<HostedGame, ErrorInfo> {
        let request = Open::Game { game: game.info.name.clone(), options, seed };
        Ok(HostedGame {
            handle: executor::Handle::open(game.plugin.clone(), request, None, scope).await?,
        })
    }

    async fn invoke<T: DeserializeOwned + Send + 'static>(
        &self,
        call: Call,
    ) -> Result<T, ErrorInfo> {
        self.handle.invoke(&call, None).await
    }
}

/// What the referee needs of a game. A game lives in its plugin ([`HostedGame`]); the trait lets
/// the referee's failure policy be tested against a small game written in the test.
#[async_trait]
pub trait RefereedGame: Send + Sync {
    /// Who must act now, with what they see and may do; empty when the game is over.
    async fn decisions(&self) -> Result<Vec<Decision>, ErrorInfo>;
    /// Plays the seats' actions; the public event they caused, or `illegal_action`.
    async fn apply(&self, actions: Vec<(usize, Value)>) -> Result<Value, ErrorInfo>;
    async fn outcome(&self) -> Result<Option<GameOutcome>, ErrorInfo>;
    /// The action played for a failed seat when the policy says `default`; None if there is none.
    async fn default_action(&self, seat: usize) -> Result<Option<Value>, ErrorInfo>;
}

#[async_trait]
impl RefereedGame for HostedGame {
    async fn decisions(&self) -> Result<Vec<Decision>, ErrorInfo> {
        self.invoke(Call::Decisions).await
    }

    async fn apply(&self, actions: Vec<(usize, Value)>) -> Result<Value, ErrorInfo> {
        self.invoke(Call::Apply(Apply { actions })).await
    }

    async fn outcome(&self) -> Result<Option<GameOutcome>, ErrorInfo> {
        self.invoke(Call::Outcome).await
    }

    async fn default_action(&self, seat: usize) -> Result<Option<Value>, ErrorInfo> {
        self.invoke(Call::DefaultAction(DefaultAction { seat })).await
    }
}
