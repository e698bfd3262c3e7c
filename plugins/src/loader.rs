//! The host side of the boundary: opening a plugin library and calling into it safely.
//!
//! Libraries are never unloaded: a handle or a function pointer into a library must stay valid for
//! as long as any agent made by it lives, and the simplest sound rule is "forever". A newer build
//! of a plugin is loaded beside the old one.

use std::ffi::c_void;
use std::path::{Path, PathBuf};

use serde_json::Value;
use yomi_protocol::{ErrorCode, ErrorInfo, PluginManifest};

use crate::abi::{CommandRequest, EntryFn, PluginTable, RawBuffer, ABI_VERSION, ENTRY_SYMBOL};
use crate::api::CommandContext;
use crate::call::{Call, CallReply, Open};

/// Why a library could not be used as a plugin.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("{path}: not a loadable library: {reason}")]
    NotALibrary { path: PathBuf, reason: String },
    #[error("{path}: not a yomi plugin (no `yomi_plugin_entry` symbol)")]
    MissingSymbol { path: PathBuf },
    #[error(
        "{path}: built for plugin ABI {found}, this host speaks ABI {expected}; rebuild the plugin"
    )]
    AbiMismatch { path: PathBuf, found: u32, expected: u32 },
    #[error("{path}: bad manifest: {reason}")]
    BadManifest { path: PathBuf, reason: String },
}

impl From<LoadError> for ErrorInfo {
    fn from(e: LoadError) -> ErrorInfo {
        ErrorInfo::new(ErrorCode::PluginLoad, e.to_string())
    }
}

/// A loaded plugin library. Cheap to share; the library itself stays mapped forever.
#[derive(Debug)]
pub struct LoadedPlugin {
    /// The file that was opened (a shadow copy when a second build of the same file was loaded).
    pub path: PathBuf,
    pub manifest: PluginManifest,
    table: &'static PluginTable,
}

impl LoadedPlugin {
    /// Opens a library and checks that it is a yomi plugin of this host's ABI.
    pub fn load(path: &Path) -> Result<LoadedPlugin, LoadError> {
        // SAFETY: loading a library runs its initialisers; plugin directories are trusted by the
        // operator (the host only loads from the directories it was told to use).
        let library = unsafe { libloading::Library::new(path) }
            .map_err(|e| LoadError::NotALibrary { path: path.into(), reason: e.to_string() })?;
        let entry: EntryFn = unsafe {
            *library
                .get::<EntryFn>(ENTRY_SYMBOL)
                .map_err(|_| LoadError::MissingSymbol { path: path.into() })?
        };
        // Never unloaded: see the module doc.
        std::mem::forget(library);
        // SAFETY: the entry point of a yomi plugin returns a pointer to a static table whose first
        // field is a u32 in every ABI version; we read only that until it matches.
        let table_ptr = unsafe { entry() };
        if table_ptr.is_null() {
            return Err(LoadError::BadManifest {
                path: path.into(),
                reason: "entry point returned null".into(),
            });
        }
        let found = unsafe { std::ptr::read(table_ptr as *const u32) };
        if found != ABI_VERSION {
            return Err(LoadError::AbiMismatch { path: path.into(), found, expected: ABI_VERSION });
        }
        let table: &'static PluginTable = unsafe { &*table_ptr };
        let reply = unsafe { take_reply(table, (table.manifest)()) };
        let manifest = reply
            .and_then(|v| {
                serde_json::from_value::<PluginManifest>(v)
                    .map_err(|e| ErrorInfo::new(ErrorCode::PluginLoad, e.to_string()))
            })
            .map_err(|e| LoadError::BadManifest { path: path.into(), reason: e.message })?;
        if manifest.name.is_empty() || manifest.name.contains('/') {
            return Err(LoadError::BadManifest {
                path: path.into(),
                reason: format!(
                    "plugin name `{}` must be non-empty and contain no `/`",
                    manifest.name
                ),
            });
        }
        Ok(LoadedPlugin { path: path.into(), manifest, table })
    }

    /// Opens an agent or game handle.
    pub fn open(&self, request: &Open) -> Result<PluginHandle, ErrorInfo> {
        let bytes = serde_json::to_vec(request)
            .map_err(|e| ErrorInfo::new(ErrorCode::Internal, e.to_string()))?;
        let mut ptr: *mut c_void = std::ptr::null_mut();
        // SAFETY: the table is valid forever; the request bytes outlive the call.
        let reply = unsafe {
            take_reply(self.table, (self.table.open)(bytes.as_ptr(), bytes.len(), &mut ptr))
        };
        reply?;
        if ptr.is_null() {
            return Err(ErrorInfo::new(ErrorCode::Internal, "plugin opened no handle"));
        }
        Ok(PluginHandle { table: self.table, ptr })
    }

    /// Runs one of the plugin's CLI subcommands and returns its output text.
    pub fn command(&self, args: &[String], context: &CommandContext) -> Result<String, ErrorInfo> {
        let request = CommandRequest { args: args.to_vec(), context: context.clone() };
        let bytes = serde_json::to_vec(&request)
            .map_err(|e| ErrorInfo::new(ErrorCode::Internal, e.to_string()))?;
        let reply =
            unsafe { take_reply(self.table, (self.table.command)(bytes.as_ptr(), bytes.len())) }?;
        match reply {
            Value::String(s) => Ok(s),
            other => Ok(other.to_string()),
        }
    }
}

/// An open agent or game inside a plugin. Closed when dropped.
pub struct PluginHandle {
    table: &'static PluginTable,
    ptr: *mut c_void,
}

// SAFETY: a handle is used by one thread at a time (`&mut self`), and the plugin contract requires
// agents and games to be `Send`.
unsafe impl Send for PluginHandle {}

impl PluginHandle {
    /// Makes one call on the handle.
    pub fn invoke(&mut self, call: &Call) -> Result<Value, ErrorInfo> {
        let bytes = serde_json::to_vec(call)
            .map_err(|e| ErrorInfo::new(ErrorCode::Internal, e.to_string()))?;
        self.invoke_raw(&bytes)
    }

    /// Makes one call whose JSON is already encoded.
    pub fn invoke_raw(&mut self, call_json: &[u8]) -> Result<Value, ErrorInfo> {
        // SAFETY: `ptr` is a live handle from this table's `open`; `&mut self` keeps calls serial.
        unsafe {
            take_reply(
                self.table,
                (self.table.invoke)(self.ptr, call_json.as_ptr(), call_json.len()),
            )
        }
    }
}

impl Drop for PluginHandle {
    fn drop(&mut self) {
        // SAFETY: the handle came from this table's `open` and is closed exactly once.
        unsafe { (self.table.close)(self.ptr) }
    }
}

/// Decodes a reply buffer and returns it to the plugin's allocator.
unsafe fn take_reply(table: &PluginTable, buffer: RawBuffer) -> Result<Value, ErrorInfo> {
    let parsed = serde_json::from_slice::<CallReply>(buffer.as_slice());
    (table.free)(buffer);
    match parsed {
        Ok(reply) => reply.into(),
        Err(e) => Err(ErrorInfo::new(
            ErrorCode::Internal,
            format!("plugin sent an unreadable reply: {e}"),
        )),
    }
}
