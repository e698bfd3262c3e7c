//! Fuzz targets: each takes arbitrary bytes, must never panic, and checks what must hold whatever
//! the input. They are plain functions with two drivers: on stable, the `tests/targets.rs`
//! property tests (the kept corpus in `fuzz/corpus/<target>/` plus random inputs); on nightly,
//! the coverage-guided libFuzzer targets of `libfuzzer/` (`scripts/fuzz.sh`).

use std::path::Path;

use serde_json::Value;
use tokio_util::bytes::BytesMut;
use tokio_util::codec::Decoder;
use yomi_host::matches::transcript;
use yomi_host::server::framing::{BoundedLines, Line};
use yomi_plugin::call::Open;
use yomi_plugin::AgentContext;
pub use yomi_plugin_engine::LoadedPlugin;
use yomi_protocol::{options, Request};

/// The plugins of the workspace, by library name (`libyomi_<name>.so`).
const PLUGINS: [&str; 6] = ["battle", "dice", "example", "roles", "sevens", "stud"];

/// Every plugin of the workspace, loaded from `dir` (a `target/<profile>` directory that
/// `cargo build --workspace` filled) through the C ABI, as the host loads them.
pub fn load_plugins(dir: &Path) -> Vec<LoadedPlugin> {
    use std::env::consts::{DLL_PREFIX, DLL_SUFFIX};
    PLUGINS
        .iter()
        .map(|name| {
            let path = dir.join(format!("{DLL_PREFIX}yomi_{name}{DLL_SUFFIX}"));
            LoadedPlugin::load(&path).unwrap_or_else(|e| {
                panic!(
                    "{}: {e:?} (build the plugins with `cargo build --release --workspace`)",
                    path.display()
                )
            })
        })
        .collect()
}

/// The line limit the framing target uses: small, so long lines are common.
const LINE_LIMIT: usize = 64;

/// Line framing: every decoded text line is within the limit and holds no newline; decoding
/// consumes the input.
pub fn framing(data: &[u8]) {
    let mut codec = BoundedLines::new(LINE_LIMIT);
    let mut buf = BytesMut::from(data);
    let mut lines = vec![];
    while let Some(line) = codec.decode(&mut buf).expect("framing errors are items") {
        lines.push(line);
    }
    while let Some(line) = codec.decode_eof(&mut buf).expect("framing errors are items") {
        lines.push(line);
    }
    for line in lines {
        if let Line::Text(text) = line {
            assert!(text.len() <= LINE_LIMIT && !text.contains('\n'), "bad line {text:?}");
        }
    }
}

/// Request parsing: a request or a coded error with a message, never a panic.
pub fn request(data: &[u8]) {
    if let Err((_, error)) = Request::parse(&String::from_utf8_lossy(data)) {
        assert!(!error.message.is_empty());
    }
}

/// Option validation against every bot's schema: a resolved set has exactly the schema's names.
pub fn options(plugins: &[LoadedPlugin], data: &[u8]) {
    let Ok(Value::Object(overrides)) = serde_json::from_slice::<Value>(data) else { return };
    let overrides = overrides.into_iter().collect();
    for bot in plugins.iter().flat_map(|p| &p.manifest.bots) {
        if let Ok(resolved) = options::resolve(&bot.options, &bot.presets, None, &overrides) {
            assert_eq!(resolved.len(), bot.options.len(), "bot {}", bot.name);
        }
    }
}

/// The transcript reader: lines or a coded error, never a panic.
pub fn transcript(data: &[u8]) {
    let _ = transcript::parse(&String::from_utf8_lossy(data));
}

/// The plugin boundary: arbitrary call bytes (observations, actions, service parameters) sent
/// to an agent of every bot of every plugin; each answers a value or a coded error.
pub fn plugin_call(plugins: &[LoadedPlugin], data: &[u8]) {
    for plugin in plugins {
        for bot in &plugin.manifest.bots {
            let open = Open::Agent {
                bot: bot.name.clone(),
                options: options::defaults(&bot.options),
                context: AgentContext { seed: 1, ..AgentContext::default() },
                cancel: Default::default(),
            };
            let mut agent = plugin.open(&open).expect("a bot opens with its defaults");
            let _ = agent.invoke_raw::<serde_json::Value>(data);
        }
    }
}
