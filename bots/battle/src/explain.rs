//! What a battle bot's `explain` shows, as one type: each bot fills the parts its decision has
//! (a part left out is not written), and the bot adds the strategy and actions it drew from. The
//! bots build it on every decision and policy draw, so it is plain data, written as JSON only
//! when a caller asks.

use serde::Serialize;

use crate::exploit::Model;
use crate::payload::Action;
use crate::personality::{Bias, Personality};

/// Why a bot chose: the matrix and equilibria behind a δ-Nash or exploiter decision, the
/// playout scores of Monte Carlo, the candidate values of a replacement.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Explanation {
    /// Monte Carlo: each action's playout wins.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scores: Option<Vec<f64>>,
    /// The seat's true win-rate matrix (its actions as rows).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub true_matrix: Option<Vec<Vec<f64>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub true_equilibrium: Option<Vec<f64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<f64>,
    /// A replacement: each candidate's true value for the seat.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub true_values: Option<Vec<f64>>,
    /// The exploiter: its opponent model, whether it exploits it, and what it predicts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub opponent_model: Option<Model>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exploiting: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub predicted_opponent: Option<Vec<f64>>,
    /// δ-Nash: the equilibrium of each noisy matrix, and which actions the bias touched.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub noisy_equilibria: Option<Vec<Vec<f64>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bias: Option<BiasShown>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub personality: Option<Personality>,
    /// The strategy drawn from, over `actions`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub strategy: Option<Vec<f64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub actions: Option<Vec<Action>>,
}

/// The bias of a δ-Nash decision: its kind, strength and the actions it touched.
#[derive(Debug, Clone, Serialize)]
pub struct BiasShown {
    pub kind: Bias,
    pub alpha: f64,
    pub rows: Vec<bool>,
}

impl Explanation {
    /// Only the strategy over `actions` (the random bot's whole reason).
    pub fn drawn(strategy: Vec<f64>, actions: Vec<Action>) -> Explanation {
        Explanation { strategy: Some(strategy), actions: Some(actions), ..Explanation::default() }
    }
}
