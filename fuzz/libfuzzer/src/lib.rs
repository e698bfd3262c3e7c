//! What the plugin-loading targets share: the workspace's plugins, loaded once per process.

use std::path::PathBuf;
use std::sync::OnceLock;

use yomi_fuzz::LoadedPlugin;

/// The plugins in `YOMI_PLUGIN_DIR`, or the workspace's `target/release` when it is unset.
/// The libraries are the plain release builds: libFuzzer sees coverage of the host side of the
/// boundary, not of the code inside the plugins.
pub fn plugins() -> &'static [LoadedPlugin] {
    static PLUGINS: OnceLock<Vec<LoadedPlugin>> = OnceLock::new();
    PLUGINS.get_or_init(|| {
        let dir = std::env::var_os("YOMI_PLUGIN_DIR").map(PathBuf::from).unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/release")
        });
        yomi_fuzz::load_plugins(&dir)
    })
}
