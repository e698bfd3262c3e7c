//! A game (referee) instance living in its plugin, called off the reactor (see
//! `runtime::blocking`).

use serde_json::Value;
use yomi_plugin::call::{Call, Open};
use yomi_protocol::{Decision, ErrorCode, ErrorInfo, GameOutcome, Options};

use crate::runtime::blocking::BlockingHandle;
use crate::runtime::registry::GameRef;

/// A game in progress.
pub struct HostedGame {
    handle: BlockingHandle,
}

impl HostedGame {
    pub async fn open(
        game: &GameRef,
        options: Options,
        seed: u64,
    ) -> Result<HostedGame, ErrorInfo> {
        let request = Open::Game { game: game.info.name.clone(), options, seed };
        Ok(HostedGame { handle: BlockingHandle::open(game.plugin.clone(), request).await? })
    }

    async fn invoke(&self, call: Call) -> Result<Value, ErrorInfo> {
        self.handle.invoke(call).await
    }

    pub async fn decisions(&self) -> Result<Vec<Decision>, ErrorInfo> {
        decode(self.invoke(Call::Decisions).await?)
    }

    pub async fn apply(&self, actions: Vec<(usize, Value)>) -> Result<Value, ErrorInfo> {
        self.invoke(Call::Apply { actions }).await
    }

    pub async fn outcome(&self) -> Result<Option<GameOutcome>, ErrorInfo> {
        decode(self.invoke(Call::Outcome).await?)
    }

    pub async fn default_action(&self, seat: usize) -> Result<Option<Value>, ErrorInfo> {
        decode(self.invoke(Call::DefaultAction { seat }).await?)
    }
}

fn decode<T: serde::de::DeserializeOwned>(value: Value) -> Result<T, ErrorInfo> {
    serde_json::from_value(value).map_err(|e| {
        ErrorInfo::new(ErrorCode::Internal, format!("game sent an unreadable reply: {e}"))
    })
}
