//! The shipped stud suite is the reproduction's deal set 0, one deal per opening.

use yomi_plugin::testing::assert_shipped_file;

#[test]
fn shipped_suite_is_the_generators() {
    assert_shipped_file("openings/stud-table-4-1.txt", &yomi_stud::openings::suite());
}
