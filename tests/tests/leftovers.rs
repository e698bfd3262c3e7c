//! What yomi leaves behind: the shadow copies of hot-swapped plugin libraries are removed when
//! the server exits.

use std::time::Duration;

use serde_json::json;
use yomi_e2e::{install_library, install_misbehave, library, temp_dir, Server};

#[test]
fn shadow_copies_of_hot_swapped_libraries_are_removed_at_exit() {
    let dir = temp_dir();
    let first = install_misbehave(dir.path());
    let mut server = Server::stdio_with_dir(dir.path());
    server.conn().ok("plugin.load", json!({"path": first}));
    // A rebuild in place: the same path with new bytes is loaded from a shadow copy.
    let rebuilt = install_library(
        &library("fixture_misbehave"),
        dir.path(),
        "libfixture_misbehave.so",
        b"rebuilt",
    );
    let loaded = server.conn().ok("plugin.load", json!({"path": rebuilt}));
    assert_eq!(loaded["generation"], json!(2), "{loaded}");
    let shadows = std::env::temp_dir().join(format!("yomi-shadow-{}", server.pid()));
    let copies = std::fs::read_dir(&shadows).map(|d| d.count()).unwrap_or(0);
    assert_eq!(copies, 1, "one shadow copy in {} while serving", shadows.display());
    server.close_stdin();
    assert!(server.wait_exit(Duration::from_secs(20)).success(), "{}", server.log());
    assert!(!shadows.exists(), "{} is left after exit", shadows.display());
}
