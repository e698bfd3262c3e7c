//! The shipped battle suites are the generator's nine set-ups per party preset, and an opening's
//! `actives` start the battle where it says.

use yomi_plugin::testing::assert_shipped_file;

#[test]
fn shipped_suites_are_the_generators() {
    assert_shipped_file("openings/battle-thesis.txt", &yomi_battle::openings::suite("thesis"));
    let delta = yomi_battle::openings::suite("delta-experiment");
    assert_shipped_file("openings/battle-delta.txt", &delta);
}
