//! The host side of the yomi plugin boundary: opening a plugin library and calling into it
//! safely. Only the host depends on this crate (and on `libloading`); a bot author's crate needs
//! `yomi-plugin` alone, which defines the ABI both sides share.
//!
//! Libraries are never unloaded: a handle or a function pointer into a library must stay valid for
//! as long as any agent made by it lives, and the simplest sound rule is "forever". A newer build
//! of a plugin is loaded beside the old one.

#![deny(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs)]

use std::ffi::c_void;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde_json::Value;
use yomi_protocol::{ErrorCode, ErrorInfo, PluginManifest};

use yomi_plugin::abi::{
    CommandRequest, EntryFn, PluginTable, RawBuffer, ABI_VERSION, ENTRY_SYMBOL, PANIC_ABORT,
    PANIC_UNWIND,
};
use yomi_plugin::api::CommandContext;
use yomi_plugin::call::{Call, CallReply, Open};
use yomi_plugin::cancel::CancelFlag;

/// Why a library could not be used as a plugin.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The dynamic loader refused the file (not a library, wrong architecture, missing
    /// dependency).
    #[error("{path}: not a loadable library: {reason}")]
    NotALibrary {
        /// The file.
        path: PathBuf,
        /// The loader's own words.
        reason: String,
    },
    /// A library, but not a yomi plugin.
    #[error("{path}: not a yomi plugin (no `yomi_plugin_entry` symbol)")]
    MissingSymbol {
        /// The file.
        path: PathBuf,
    },
    /// A plugin built against another version of the ABI.
    #[error(
        "{path}: built for plugin ABI {found}, this host speaks ABI {expected}; rebuild the plugin"
    )]
    AbiMismatch {
        /// The file.
        path: PathBuf,
        /// The plugin's ABI version.
        found: u32,
        /// The host's.
        expected: u32,
    },
    /// A plugin whose function table lacks entries this host calls.
    #[error(
        "{path}: its plugin table is {found} bytes, shorter than the {expected} bytes of ABI \
         {ABI_VERSION}; rebuild the plugin against this host's yomi-plugin"
    )]
    ShortTable {
        /// The file.
        path: PathBuf,
        /// The plugin's table size in bytes.
        found: u32,
        /// The host's.
        expected: usize,
    },
    /// A plugin built with `panic = "abort"`, whose first panic would end the host.
    #[error(
        "{path}: built with {strategy}; a panic in it would kill the host, so yomi only loads \
         plugins built with panic = \"unwind\" (the default; check [profile.*] panic in Cargo.toml)"
    )]
    PanicAbort {
        /// The file.
        path: PathBuf,
        /// The panic strategy the plugin reports.
        strategy: String,
    },
    /// The plugin's manifest is not valid (unreadable JSON, duplicate or malformed names).
    #[error("{path}: bad manifest: {reason}")]
    BadManifest {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
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
    /// The manifest the library returned, read once at load.
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
        // SAFETY: `yomi_plugin_entry` is declared by `export_plugin!` with exactly `EntryFn`'s
        // signature; a library that exports the name with another type is not a yomi plugin.
        let entry: EntryFn = unsafe {
            *library
                .get::<EntryFn>(ENTRY_SYMBOL)
                .map_err(|_| LoadError::MissingSymbol { path: path.into() })?
        };
        // Never unloaded: see the module doc.
        std::mem::forget(library);
        // SAFETY: the entry point of a yomi plugin takes nothing and returns a pointer to a
        // static table (checked below before anything but its header is read).
        let table_ptr = unsafe { entry() };
        // SAFETY: a non-null pointer from the entry point points to a table header at least.
        let table = unsafe { check_table(table_ptr) }.map_err(|e| e.at(path))?;
        // SAFETY: the table passed its checks; `manifest` takes nothing.
        let reply = unsafe { take_reply::<Value>(table, (table.manifest)()) };
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
            take_reply::<Value>(
                self.table,
                (self.table.open)(bytes.as_ptr(), bytes.len(), &mut ptr),
            )
        };
        reply?;
        if ptr.is_null() {
            return Err(ErrorInfo::new(ErrorCode::Internal, "plugin opened no handle"));
        }
        let cancel = match request {
            Open::Agent { cancel, .. } => cancel.clone(),
            Open::Game { .. } => CancelFlag::default(),
        };
        Ok(PluginHandle { table: self.table, ptr, cancel })
    }

    /// Runs one of the plugin's CLI subcommands and returns its output text.
    pub fn command(&self, args: &[String], context: &CommandContext) -> Result<String, ErrorInfo> {
        let request = CommandRequest { args: args.to_vec(), context: context.clone() };
        let bytes = serde_json::to_vec(&request)
            .map_err(|e| ErrorInfo::new(ErrorCode::Internal, e.to_string()))?;
        // SAFETY: the table is valid forever; the request bytes outlive the call.
        let reply = unsafe {
            take_reply::<Value>(self.table, (self.table.command)(bytes.as_ptr(), bytes.len()))
        }?;
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
    /// Lent to the plugin with every call: the opener raises it to stop the running call.
    cancel: CancelFlag,
}

// SAFETY: a handle is used by one thread at a time (`&mut self`), and the plugin contract requires
// agents and games to be `Send`.
unsafe impl Send for PluginHandle {}

impl PluginHandle {
    /// Makes one call on the handle; its result is read as a `T` (a `Value` for any JSON).
    pub fn invoke<T: DeserializeOwned>(&mut self, call: &Call) -> Result<T, ErrorInfo> {
        let bytes = serde_json::to_vec(call)
            .map_err(|e| ErrorInfo::new(ErrorCode::Internal, e.to_string()))?;
        self.invoke_raw(&bytes)
    }

    /// Makes one call whose JSON is already encoded.
    pub fn invoke_raw<T: DeserializeOwned>(&mut self, call_json: &[u8]) -> Result<T, ErrorInfo> {
        // SAFETY: `ptr` is a live handle from this table's `open`; `&mut self` keeps calls serial.
        unsafe {
            take_reply(
                self.table,
                (self.table.invoke_cancellable)(
                    self.ptr,
                    call_json.as_ptr(),
                    call_json.len(),
                    self.cancel.as_ptr(),
                ),
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
///
/// # Safety
/// `buffer` must be a reply just returned by one of `table`'s functions, not yet freed.
unsafe fn take_reply<T: DeserializeOwned>(
    table: &PluginTable,
    buffer: RawBuffer,
) -> Result<T, ErrorInfo> {
    // SAFETY: the buffer is live until `free` below.
    let parsed = serde_json::from_slice::<CallReply<T>>(unsafe { buffer.as_slice() });
    // SAFETY: the buffer came from this table's library and is freed once.
    unsafe { (table.free)(buffer) };
    match parsed {
        Ok(reply) => reply.into(),
        // The plugin's fault: its reply is not JSON, or not what the call answers.
        Err(e) => Err(ErrorInfo::new(
            ErrorCode::BotError,
            format!("plugin sent an unreadable reply: {e}"),
        )),
    }
}

/// Why a table failed its checks, before the path is known to the message.
#[derive(Debug, PartialEq)]
enum TableError {
    Null,
    Version(u32),
    Short(u32),
    Abort(u32),
}

impl TableError {
    fn at(self, path: &Path) -> LoadError {
        let path = path.to_path_buf();
        match self {
            TableError::Null => {
                LoadError::BadManifest { path, reason: "entry point returned null".into() }
            }
            TableError::Version(found) => {
                LoadError::AbiMismatch { path, found, expected: ABI_VERSION }
            }
            TableError::Short(found) => {
                LoadError::ShortTable { path, found, expected: std::mem::size_of::<PluginTable>() }
            }
            TableError::Abort(strategy) => LoadError::PanicAbort {
                path,
                strategy: match strategy {
                    PANIC_ABORT => "panic = \"abort\"".into(),
                    other => format!("an unknown panic strategy ({other})"),
                },
            },
        }
    }
}

/// Reads a table's header field by field, each only once the fields before it allow it: the
/// version (present in every ABI), then the size and panic strategy (present in every table of
/// this version), then the whole table once it is known to be long enough.
///
/// # Safety
/// `ptr` must be null or point to a readable `u32` that stays valid forever; when that `u32` is
/// [`ABI_VERSION`], to a readable header of this version; when the header's size is at least
/// `size_of::<PluginTable>()`, to a whole table.
unsafe fn check_table(ptr: *const PluginTable) -> Result<&'static PluginTable, TableError> {
    if ptr.is_null() {
        return Err(TableError::Null);
    }
    // SAFETY: the version is the first `u32` of every table (see the contract above).
    let version = unsafe { std::ptr::addr_of!((*ptr).abi_version).read_unaligned() };
    if version != ABI_VERSION {
        return Err(TableError::Version(version));
    }
    // SAFETY: a table of this version always has its size and panic strategy after the version.
    let (size, strategy) = unsafe {
        (
            std::ptr::addr_of!((*ptr).table_size).read_unaligned(),
            std::ptr::addr_of!((*ptr).panic_strategy).read_unaligned(),
        )
    };
    if (size as usize) < std::mem::size_of::<PluginTable>() {
        return Err(TableError::Short(size));
    }
    if strategy != PANIC_UNWIND {
        return Err(TableError::Abort(strategy));
    }
    // SAFETY: the header says the table is at least as long as ours; it is static (contract).
    Ok(unsafe { &*ptr })
}

#[cfg(test)]
mod tests {
    use super::*;
    use yomi_plugin::abi::{TableFor, PANIC_ABORT};

    struct Nothing;
    impl yomi_plugin::abi::PluginInstance for Nothing {
        fn get() -> &'static dyn yomi_plugin::Plugin {
            unreachable!("the checks never call into the table")
        }
    }

    const GOOD: PluginTable = TableFor::<Nothing>::TABLE;

    #[test]
    fn a_table_of_this_build_passes() {
        static TABLE: PluginTable = GOOD;
        // SAFETY: a whole static table.
        let table = unsafe { check_table(&TABLE) }.expect("our own table");
        assert_eq!(table.table_size as usize, std::mem::size_of::<PluginTable>());
    }

    #[test]
    fn null_old_short_and_abort_tables_are_refused() {
        // SAFETY: null is allowed by the contract.
        assert_eq!(unsafe { check_table(std::ptr::null()) }.unwrap_err(), TableError::Null);

        // An ABI-1 table: a version and then function pointers, no size field.
        #[repr(C)]
        struct Version1 {
            abi_version: u32,
        }
        static OLD: Version1 = Version1 { abi_version: 1 };
        // SAFETY: only the version is read when it does not match.
        let old = unsafe { check_table(&OLD as *const Version1 as *const PluginTable) };
        assert_eq!(old.unwrap_err(), TableError::Version(1));

        // A table of this version that ends after its header.
        #[repr(C)]
        struct HeaderOnly {
            abi_version: u32,
            table_size: u32,
            panic_strategy: u32,
        }
        static SHORT: HeaderOnly =
            HeaderOnly { abi_version: ABI_VERSION, table_size: 12, panic_strategy: PANIC_UNWIND };
        // SAFETY: only the header is read when the size is short.
        let short = unsafe { check_table(&SHORT as *const HeaderOnly as *const PluginTable) };
        assert_eq!(short.unwrap_err(), TableError::Short(12));

        static ABORT: PluginTable = PluginTable { panic_strategy: PANIC_ABORT, ..GOOD };
        // SAFETY: a whole static table.
        assert_eq!(unsafe { check_table(&ABORT) }.unwrap_err(), TableError::Abort(PANIC_ABORT));
    }

    #[test]
    fn refusals_say_what_to_do() {
        let path = Path::new("libx.so");
        let short = TableError::Short(12).at(path).to_string();
        assert!(short.contains("12 bytes") && short.contains("rebuild"), "{short}");
        let abort = TableError::Abort(PANIC_ABORT).at(path).to_string();
        assert!(abort.contains("panic = \"abort\"") && abort.contains("unwind"), "{abort}");
        let old = TableError::Version(1).at(path).to_string();
        assert!(old.contains("ABI 1") && old.contains("rebuild"), "{old}");
    }
}
