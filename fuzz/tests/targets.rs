//! Runs every fuzz target over its kept corpus (`fuzz/corpus/<target>/`, where every input that
//! once crashed a target is added as a regression) and over random inputs from proptest. The
//! number of random cases per target comes from `PROPTEST_CASES` (default 256): CI keeps it
//! small, a longer local run raises it.

use std::path::PathBuf;
use std::sync::OnceLock;

use proptest::prelude::*;
use yomi_plugin_engine::LoadedPlugin;

/// Every plugin of the build, loaded once through the C ABI as the host loads them.
fn plugins() -> &'static [LoadedPlugin] {
    static PLUGINS: OnceLock<Vec<LoadedPlugin>> = OnceLock::new();
    PLUGINS.get_or_init(|| yomi_fuzz::load_plugins(&yomi_e2e::target_dir()))
}

/// The kept inputs of one target.
fn corpus(target: &str) -> Vec<Vec<u8>> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("corpus").join(target);
    let mut files: Vec<PathBuf> =
        std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    assert!(!files.is_empty(), "no corpus in {}", dir.display());
    files.iter().map(|f| std::fs::read(f).unwrap()).collect()
}

/// Random bytes, and random lines made of JSON-ish fragments (closer to what parsers see).
fn inputs() -> impl Strategy<Value = Vec<u8>> {
    let fragment = prop_oneof![
        Just("{".to_string()),
        Just("}".to_string()),
        Just("\"id\":1,".to_string()),
        Just("\"op\":\"agent.act\",".to_string()),
        Just("\"call\":\"act\",".to_string()),
        Just("\"call\":\"service\",\"method\":".to_string()),
        Just("\"observation\":".to_string()),
        Just("\"legal\":[".to_string()),
        Just("\"params\":".to_string()),
        Just("\n".to_string()),
        "[a-z_]{1,8}".prop_map(|s| format!("\"{s}\":")),
        any::<i64>().prop_map(|n| n.to_string()),
        any::<f64>().prop_map(|x| x.to_string()),
        "\\PC{0,6}".prop_map(|s| serde_json::to_string(&s).unwrap()),
    ];
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..512),
        proptest::collection::vec(fragment, 0..40).prop_map(|parts| parts.concat().into_bytes()),
    ]
}

macro_rules! fuzz_target_tests {
    ($($name:ident => $run:expr;)*) => {$(
        mod $name {
            use super::*;

            #[test]
            fn corpus_inputs() {
                for input in corpus(stringify!($name)) {
                    ($run)(&input[..]);
                }
            }

            proptest! {
                #[test]
                fn random_inputs(input in inputs()) {
                    ($run)(&input[..]);
                }
            }
        }
    )*};
}

fuzz_target_tests! {
    framing => yomi_fuzz::framing;
    request => yomi_fuzz::request;
    options => |data: &[u8]| yomi_fuzz::options(plugins(), data);
    transcript => yomi_fuzz::transcript;
    plugin_call => |data: &[u8]| yomi_fuzz::plugin_call(plugins(), data);
}
