//! The shipped Sevens suite is the generator's 25 deals.

use yomi_plugin::testing::assert_shipped_file;

#[test]
fn shipped_suite_is_the_generators() {
    assert_shipped_file("openings/sevens-paper.txt", &yomi_sevens::openings::suite());
}
