//! Helpers shared by the integration tests: agents and games from option overrides.

#![allow(dead_code)]

use serde_json::{json, Value};
use yomi_plugin::{ActRequest, Agent, AgentContext, Decision, Game, Options, Plugin};
use yomi_sevens::card::CardSet;
use yomi_sevens::game::Sevens;
use yomi_sevens::rules::Rules;
use yomi_sevens::table::Table;
use yomi_sevens::SevensPlugin;

pub fn agent(bot: &str, preset: Option<&str>, overrides: Value, seed: u64) -> Box<dyn Agent> {
    let plugin = SevensPlugin;
    let overrides: Options = serde_json::from_value(overrides).unwrap();
    let options = plugin.bot_options(bot, preset, &overrides).unwrap();
    plugin.new_agent(bot, &options, &AgentContext { seed, ..AgentContext::default() }).unwrap()
}

pub fn game(overrides: Value, seed: u64) -> Box<dyn Game> {
    let plugin = SevensPlugin;
    let options = plugin.game_options(&serde_json::from_value(overrides).unwrap()).unwrap();
    plugin.new_game("sevens", &options, seed).unwrap()
}

pub fn cards(list: &[&str]) -> CardSet {
    CardSet::parse_list(list.iter().copied()).unwrap()
}

/// A three-player position: the hands given (seat 0 to act), the extra table cards, and the
/// passes left of each seat written into the observation.
pub fn position(hands: [&[&str]; 3], table: &[&str], passes_left: [u32; 3]) -> Decision {
    let mut t = Table::default();
    t.place(cards(table));
    let game = Sevens::with_hands(Rules::default(), hands.iter().map(|h| cards(h)).collect(), t, 0);
    let mut d = game.decisions().remove(0);
    d.observation["passes_left"] = json!(passes_left);
    d
}

pub fn act(agent: &mut dyn Agent, d: &Decision) -> Value {
    agent.act(&ActRequest::new(d.observation.clone(), d.legal.clone())).unwrap().action
}
