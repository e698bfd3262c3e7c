//! `plugin.list` and `plugin.load`.

use std::path::PathBuf;

use serde::Deserialize;
use serde_json::Value;
use yomi_protocol::ErrorInfo;

use crate::runtime::blocking::blocking;
use crate::session::Session;

pub fn list(session: &Session) -> Value {
    Value::Array(session.shared.registry.list().iter().map(|p| p.describe()).collect())
}

#[derive(Debug, Deserialize)]
pub struct Load {
    /// A library file inside one of the plugin directories (relative paths are looked up there).
    pub path: PathBuf,
}

pub async fn load(session: &Session, params: Load) -> Result<Value, ErrorInfo> {
    let registry = session.shared.registry.clone();
    // Loading runs the library's initialisers and hashes the file: keep it off the reactor.
    let entry = blocking(move || registry.load_path(&params.path)).await?;
    Ok(entry.describe())
}
