//! Plugin library files: which files discovery takes as plugins, what `plugin.load` refuses to
//! read, a file's build id (its digest), and the shadow copies that let a rebuilt file at a path
//! already loaded be mapped again.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use yomi_protocol::{ErrorCode, ErrorInfo};

/// True for files discovery loads by itself: the platform's library naming with a `yomi_` stem.
pub(super) fn is_plugin_file(path: &Path) -> bool {
    has_plugin_name(path) && path.is_file()
}

/// Whether a file is named as a plugin library: `libyomi_*.so` (`.dylib`, `yomi_*.dll`).
pub(super) fn has_plugin_name(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else { return false };
    let ext_ok = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e == std::env::consts::DLL_EXTENSION);
    ext_ok && name.starts_with(&format!("{}yomi_", std::env::consts::DLL_PREFIX))
}

/// Largest library file `plugin.load` reads (the bundled plugins are a few MB each).
pub const MAX_LIBRARY_BYTES: u64 = 256 << 20;

/// Refuses, before a byte is read, what cannot be a plugin library: a FIFO or device (reading
/// one would hang a thread for ever or never end), a directory, a file too large to hash.
pub(super) fn check_library_file(file: &Path) -> Result<(), ErrorInfo> {
    let refuse =
        |why: String| ErrorInfo::new(ErrorCode::PluginLoad, format!("{}: {why}", file.display()));
    let meta = std::fs::metadata(file).map_err(|e| refuse(e.to_string()))?;
    if !meta.is_file() {
        return Err(refuse("not a regular file".into()));
    }
    if meta.len() > MAX_LIBRARY_BYTES {
        return Err(refuse(format!(
            "{} bytes, larger than a plugin library may be ({MAX_LIBRARY_BYTES})",
            meta.len()
        )));
    }
    Ok(())
}

/// The build id of a library file: its SHA-256, streamed through a small reused buffer. Reading
/// whole libraries (about 100 MB for the bundled plugins) into fresh memory cost more in copies and
/// page faults than the hash itself, at every start of every one-shot command.
pub(super) fn file_build(file: &Path) -> std::io::Result<String> {
    use std::io::Read;
    let mut reader = std::fs::File::open(file)?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 1 << 18];
    loop {
        match reader.read(&mut buffer) {
            Ok(0) => return Ok(hex_prefix(&hasher.finalize())),
            Ok(n) => hasher.update(&buffer[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

fn hex_prefix(digest: &[u8]) -> String {
    digest.iter().take(6).map(|b| format!("{b:02x}")).collect()
}

/// This process's private directory of shadow copies.
fn shadow_dir() -> PathBuf {
    std::env::temp_dir().join(format!("yomi-shadow-{}", std::process::id()))
}

/// Removes this process's shadow copies; called as the process exits. A library still mapped
/// stays usable: removing a file only removes its name.
pub fn remove_shadow_copies() {
    let dir = shadow_dir();
    match std::fs::remove_dir_all(&dir) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            tracing::warn!("could not remove the plugin shadow copies in {}: {e}", dir.display())
        }
        _ => {}
    }
}

/// Copies a rebuilt library to a unique name so the dynamic loader maps the new bytes.
pub(super) fn shadow_copy(file: &Path, build: &str) -> Result<PathBuf, ErrorInfo> {
    let dir = shadow_dir();
    std::fs::create_dir_all(&dir)
        .map_err(|e| ErrorInfo::new(ErrorCode::Internal, format!("{}: {e}", dir.display())))?;
    let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or("plugin");
    let target = dir.join(format!("{stem}-{build}.{}", std::env::consts::DLL_EXTENSION));
    std::fs::copy(file, &target)
        .map_err(|e| ErrorInfo::new(ErrorCode::Internal, format!("{}: {e}", target.display())))?;
    Ok(target)
}
