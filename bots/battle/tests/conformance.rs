//! Every bot of the battle plugin passes the conformance check `yomi check` makes (seeded legal
//! play against random players in every seat, determinism, bad input, configure): see
//! `yomi_plugin::testing`.

#[test]
fn every_bot_conforms() {
    yomi_plugin::testing::assert_conforms(&yomi_battle::BattlePlugin);
}
