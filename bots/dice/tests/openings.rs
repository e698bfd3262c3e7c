//! The shipped sugoroku suite is the generator's boards.

use yomi_plugin::testing::assert_shipped_file;

#[test]
fn shipped_suite_is_the_generators() {
    assert_shipped_file("openings/sugoroku-paper.txt", &yomi_dice::openings::suite());
}
