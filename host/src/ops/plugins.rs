//! `catalog`, `plugin.list` and `plugin.load`: the loaded plugins as the protocol describes them.

use yomi_protocol::ops::plugins::{Catalog, CatalogBot, CatalogGame, EngineTag, Load, Plugin};
use yomi_protocol::ErrorInfo;

use crate::registry::engines::ENGINE_PREFIX;
use crate::registry::{PluginEntry, Registry};
use crate::runtime::auth::Role;
use crate::runtime::blocking::blocking;
use crate::runtime::executor;
use crate::runtime::url::plugin_view_path;
use crate::session::Session;

/// One loaded build, as `role` may see it: library paths (where the server's files are) are for
/// operators only.
pub fn describe(entry: &PluginEntry, role: Role) -> Plugin {
    let m = &entry.loaded.manifest;
    Plugin {
        name: m.name.clone(),
        version: m.version.clone(),
        build: entry.build.clone(),
        generation: entry.generation,
        path: (role == Role::Operator).then(|| entry.source.clone()),
        description: m.description.clone(),
        games: m.games.iter().map(|g| g.name.clone()).collect(),
        bots: m.bots.iter().map(|b| b.name.clone()).collect(),
        commands: m.commands.clone(),
        view: m.view.as_ref().map(|_| plugin_view_path(&m.name)),
    }
}

/// The games and bots of the newest build of each plugin, with schemas and presets; its plugins
/// as `role` may see them. A bot's pace sums every client's calls, so it is the operator's: a
/// player would learn from it how busy other clients keep a bot.
pub fn catalog(registry: &Registry, role: Role) -> Catalog {
    let latest = registry.latest();
    let games = latest.iter().flat_map(|p| {
        let plugin = p.name();
        p.loaded
            .manifest
            .games
            .iter()
            .map(move |info| CatalogGame { plugin: plugin.into(), info: info.clone() })
    });
    let bots = latest.iter().flat_map(|p| {
        let plugin = p.name();
        p.loaded.manifest.bots.iter().map(move |info| {
            let id = format!("{plugin}/{}", info.name);
            CatalogBot {
                info: registry.with_fitted(&id, info.clone()),
                pace: (role == Role::Operator).then(|| executor::pace_of(&id)).flatten(),
                id,
                plugin: plugin.into(),
                engine: None,
            }
        })
    });
    // The engines' commands stay with the operator: a client sees what they play.
    let engines = registry.engines().into_iter().map(|e| CatalogBot {
        id: e.qualified(),
        plugin: ENGINE_PREFIX.into(),
        info: e.info.clone(),
        engine: Some(EngineTag { name: e.engine_name.clone(), version: e.version.clone() }),
        pace: None,
    });
    Catalog {
        games: games.collect(),
        bots: bots.chain(engines).collect(),
        plugins: latest.iter().map(|p| describe(p, role)).collect(),
    }
}

pub fn list(session: &Session, role: Role) -> Vec<Plugin> {
    session.shared.registry.list().iter().map(|p| describe(p, role)).collect()
}

pub async fn load(session: &Session, params: Load) -> Result<Plugin, ErrorInfo> {
    let registry = session.shared.registry.clone();
    // Loading runs the library's initialisers and hashes the file: keep it off the reactor.
    let entry = blocking(move || registry.load_path(&params.path)).await?;
    Ok(describe(&entry, Role::Operator))
}
