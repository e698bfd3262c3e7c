//! Presets kept in the data directory (`presets/PLUGIN/BOT/NAME.json`, one [`Preset`] each),
//! written by `yomi fit`: the registry offers them beside the bot's shipped presets, so
//! `bot:preset=NAME`, `agent.new`, tournaments, ladders and the catalog see them alike. Their
//! description starts with [`MARK`].

use std::path::{Path, PathBuf};

use yomi_protocol::{ErrorCode, ErrorInfo, Options, Preset};

/// How a data-directory preset's description starts.
pub const MARK: &str = "fitted: ";

fn dir_in(data_dir: &Path) -> PathBuf {
    data_dir.join("presets")
}

fn io(what: &Path, e: std::io::Error) -> ErrorInfo {
    ErrorInfo::new(ErrorCode::Internal, format!("{}: {e}", what.display()))
}

/// Writes preset `name` of bot `plugin/bot` (replacing one of that name); returns its file.
pub fn write(
    data_dir: &Path,
    qualified: &str,
    name: &str,
    description: &str,
    options: &Options,
) -> Result<PathBuf, ErrorInfo> {
    let dir = qualified.split('/').fold(dir_in(data_dir), |d, part| d.join(part));
    std::fs::create_dir_all(&dir).map_err(|e| io(&dir, e))?;
    let preset = Preset {
        name: name.into(),
        description: format!("{MARK}{description}"),
        options: options.clone(),
        elo: None,
        elo_ci95: None,
    };
    let path = dir.join(format!("{name}.json"));
    let text = serde_json::to_string_pretty(&preset).expect("a preset is JSON");
    std::fs::write(&path, text).map_err(|e| io(&path, e))?;
    Ok(path)
}

/// Every preset of the data directory as (`plugin/bot`, preset); a file that does not read as
/// a preset named as its file is skipped with a warning, so one bad file hides no other.
pub fn read_all(data_dir: &Path) -> Vec<(String, Preset)> {
    let mut out = Vec::new();
    let list = |d: &Path| -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(d)
            .map(|r| r.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        v.sort();
        v
    };
    for plugin in list(&dir_in(data_dir)).iter().filter(|p| p.is_dir()) {
        for bot in list(plugin).iter().filter(|p| p.is_dir()) {
            for file in list(bot).iter().filter(|p| p.extension().is_some_and(|e| e == "json")) {
                let read = std::fs::read_to_string(file).ok();
                let preset = read.and_then(|t| serde_json::from_str::<Preset>(&t).ok());
                match preset {
                    Some(p) if file.file_stem().is_some_and(|s| *s == *p.name) => {
                        let name = |p: &Path| {
                            p.file_name().unwrap_or_default().to_string_lossy().into_owned()
                        };
                        out.push((format!("{}/{}", name(plugin), name(bot)), p));
                    }
                    _ => tracing::warn!(
                        "{}: not a preset named as its file; skipped",
                        file.display()
                    ),
                }
            }
        }
    }
    out
}
