//! The C ABI between the host and a plugin library.
//!
//! A plugin exports one symbol, [`ENTRY_SYMBOL`], an `extern "C" fn() -> *const PluginTable`.
//! The table starts with a header of three `u32`s that keeps its place in every ABI version: the
//! ABI version, the table's size in bytes, and the panic strategy the plugin was built with. The
//! host reads the version first and nothing else until it matches [`ABI_VERSION`]; then it checks
//! that the table is at least as long as the one it knows (a table may grow at its end within one
//! version, never shrink or change a field) and that panics unwind, since `catch_unwind` is what
//! turns a panicking bot into an error reply instead of a dead host.
//!
//! Every function takes and returns UTF-8 JSON: requests are borrowed from the caller, replies
//! are [`RawBuffer`]s allocated by the plugin and handed back to its `free`. Every function catches
//! panics and turns them into `plugin_panic` error replies.

use std::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::AtomicBool;

use serde::Serialize;
use serde_json::Value;
use yomi_protocol::{ErrorCode, ErrorInfo};

use crate::api::{CommandContext, Plugin};
use crate::call::{unreadable, CallReply, Incoming, Open};
use crate::dispatch::Handle;

/// Bumped on any change to an existing field of [`PluginTable`] or to the meaning of its calls.
/// Appending a field at the end keeps the version: `table_size` tells the host how far it may read.
pub const ABI_VERSION: u32 = 2;

/// [`PluginTable::panic_strategy`] of a plugin built with `panic = "unwind"`: the only one a host
/// accepts.
pub const PANIC_UNWIND: u32 = 1;

/// [`PluginTable::panic_strategy`] of a plugin built with `panic = "abort"`: a panic would kill
/// the host process, so the host refuses it.
pub const PANIC_ABORT: u32 = 2;

/// The panic strategy of the crate being compiled: what [`TableFor`] records.
pub const fn panic_strategy() -> u32 {
    if cfg!(panic = "unwind") {
        PANIC_UNWIND
    } else {
        PANIC_ABORT
    }
}

/// The name of the exported entry point (NUL-terminated for `dlsym`).
pub const ENTRY_SYMBOL: &[u8] = b"yomi_plugin_entry\0";

/// Signature of the entry point.
pub type EntryFn = unsafe extern "C" fn() -> *const PluginTable;

/// Bytes owned by the side that allocated them (a `Vec<u8>` taken apart).
#[repr(C)]
pub struct RawBuffer {
    /// Start of the bytes.
    pub ptr: *mut u8,
    /// Bytes in use.
    pub len: usize,
    /// Bytes allocated, which the owner's `free` needs to rebuild the `Vec`.
    pub cap: usize,
}

impl RawBuffer {
    /// Gives up ownership of `bytes`; only the same library's `free` may take it back.
    pub fn from_vec(bytes: Vec<u8>) -> RawBuffer {
        let mut bytes = std::mem::ManuallyDrop::new(bytes);
        RawBuffer { ptr: bytes.as_mut_ptr(), len: bytes.len(), cap: bytes.capacity() }
    }

    /// Reassembles the `Vec`.
    ///
    /// # Safety
    /// `self` must come from [`RawBuffer::from_vec`] in this same library and not be used again.
    pub unsafe fn into_vec(self) -> Vec<u8> {
        if self.ptr.is_null() {
            return Vec::new();
        }
        // SAFETY: the caller guarantees the parts come from `from_vec` in this library's
        // allocator and are given back once.
        unsafe { Vec::from_raw_parts(self.ptr, self.len, self.cap) }
    }

    /// Views the bytes.
    ///
    /// # Safety
    /// The buffer must be live (not yet freed) and `len` bytes long from `ptr`.
    pub unsafe fn as_slice(&self) -> &[u8] {
        if self.ptr.is_null() {
            &[]
        } else {
            // SAFETY: non-null, and the caller guarantees the buffer is live and `len` long.
            unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
        }
    }
}

/// The function table a plugin exports. `#[repr(C)]`; within one ABI version fields are only ever
/// appended, and `table_size` says how many bytes this plugin's table has.
#[repr(C)]
pub struct PluginTable {
    /// Must equal the host's [`ABI_VERSION`].
    pub abi_version: u32,
    /// `size_of::<PluginTable>()` in the plugin's build; the host refuses a table shorter than its
    /// own.
    pub table_size: u32,
    /// [`PANIC_UNWIND`] or [`PANIC_ABORT`]; the host refuses anything but [`PANIC_UNWIND`].
    pub panic_strategy: u32,
    /// `() -> CallReply` whose result is the [`yomi_protocol::PluginManifest`].
    pub manifest: unsafe extern "C" fn() -> RawBuffer,
    /// `(Open JSON, out handle) -> CallReply`; on success `*out` is the new handle.
    pub open: unsafe extern "C" fn(*const u8, usize, *mut *mut c_void) -> RawBuffer,
    /// `(handle, Call JSON) -> CallReply`. One call per handle at a time.
    pub invoke: unsafe extern "C" fn(*mut c_void, *const u8, usize) -> RawBuffer,
    /// Destroys a handle.
    pub close: unsafe extern "C" fn(*mut c_void),
    /// `(Command JSON) -> CallReply` whose result is the text to print.
    pub command: unsafe extern "C" fn(*const u8, usize) -> RawBuffer,
    /// Frees a buffer this library returned.
    pub free: unsafe extern "C" fn(RawBuffer),
    /// `invoke` with a cancel flag: `(handle, Call JSON, flag) -> CallReply`. `flag` is null or an
    /// `AtomicBool` the host keeps alive during the call and raises to ask it to stop; the
    /// plugin's code reads it through [`crate::cancel::cancelled`].
    pub invoke_cancellable:
        unsafe extern "C" fn(*mut c_void, *const u8, usize, *const AtomicBool) -> RawBuffer,
}

// SAFETY: the table holds only function pointers and a number.
unsafe impl Sync for PluginTable {}

impl std::fmt::Debug for PluginTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PluginTable")
            .field("abi_version", &self.abi_version)
            .field("table_size", &self.table_size)
            .field("panic_strategy", &self.panic_strategy)
            .finish_non_exhaustive()
    }
}

/// A CLI command request crossing the ABI.
#[derive(serde::Serialize, serde::Deserialize)]
pub struct CommandRequest {
    /// The words after `yomi <plugin> <command>`.
    pub args: Vec<String>,
    /// What the host gives every command (its data directory).
    pub context: CommandContext,
}

/// Gives the generated ABI functions access to the plugin instance of one library.
pub trait PluginInstance {
    /// The library's one plugin, made on first use and kept for the library's lifetime.
    fn get() -> &'static dyn Plugin;
}

/// The table for one plugin type; `export_plugin!` puts it in a static.
pub struct TableFor<E>(std::marker::PhantomData<E>);

impl<E: PluginInstance> TableFor<E> {
    /// The table the entry point returns: this plugin's functions behind the C ABI.
    pub const TABLE: PluginTable = PluginTable {
        abi_version: ABI_VERSION,
        table_size: std::mem::size_of::<PluginTable>() as u32,
        panic_strategy: panic_strategy(),
        manifest: manifest::<E>,
        open: open::<E>,
        invoke,
        close,
        command: command::<E>,
        free,
        invoke_cancellable,
    };
}

fn reply_buffer<T: Serialize>(reply: Result<T, ErrorInfo>) -> RawBuffer {
    let reply = CallReply::from(reply);
    let bytes = serde_json::to_vec(&reply).unwrap_or_else(|e| {
        let error = ErrorInfo::new(ErrorCode::Internal, format!("reply does not serialize: {e}"));
        serde_json::to_vec(&CallReply::<Value>::from(Err(error)))
            .expect("an error reply serializes")
    });
    RawBuffer::from_vec(bytes)
}

/// Runs `f`, turning a panic into a `plugin_panic` error.
pub fn guarded<T>(f: impl FnOnce() -> Result<T, ErrorInfo>) -> Result<T, ErrorInfo> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(payload) => {
            let msg = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "non-string panic payload".into());
            Err(ErrorInfo::new(ErrorCode::PluginPanic, format!("the plugin panicked: {msg}")))
        }
    }
}

/// Decodes a request the host lent us; the result may borrow from its bytes.
///
/// # Safety
/// `ptr` must be null or point to `len` readable bytes that stay valid during the call, and the
/// result must not outlive the call.
unsafe fn parse<'a, T: serde::Deserialize<'a>>(ptr: *const u8, len: usize) -> Result<T, ErrorInfo> {
    let bytes = if ptr.is_null() {
        &[][..]
    } else {
        // SAFETY: non-null, and the caller guarantees `len` readable bytes.
        unsafe { std::slice::from_raw_parts(ptr, len) }
    };
    serde_json::from_slice(bytes).map_err(|e| unreadable(&e))
}

/// # Safety
/// Always safe to call; `unsafe` only because it is an ABI entry.
unsafe extern "C" fn manifest<E: PluginInstance>() -> RawBuffer {
    reply_buffer(guarded(|| {
        serde_json::to_value(E::get().manifest())
            .map_err(|e| ErrorInfo::new(ErrorCode::Internal, e.to_string()))
    }))
}

/// # Safety
/// `ptr`/`len` as in [`parse`]; `out` must be null (refused) or valid for one pointer write.
unsafe extern "C" fn open<E: PluginInstance>(
    ptr: *const u8,
    len: usize,
    out: *mut *mut c_void,
) -> RawBuffer {
    reply_buffer(guarded(|| {
        if out.is_null() {
            return Err(null_pointer("open", "out"));
        }
        // SAFETY: forwarded from this function's contract.
        let request: Open = unsafe { parse(ptr, len)? };
        let handle = match request {
            Open::Agent { bot, options, context, .. } => {
                Handle::Agent(E::get().new_agent(&bot, &options, &context)?)
            }
            Open::Game { game, options, seed } => {
                Handle::Game(E::get().new_game(&game, &options, seed)?)
            }
        };
        // SAFETY: `out` is non-null and the caller guarantees it is writable.
        unsafe { *out = Box::into_raw(Box::new(handle)) as *mut c_void };
        Ok(Value::Null)
    }))
}

/// # Safety
/// `handle` must be null (refused) or a live handle from this library's `open`, used by no other
/// call at the same time; `ptr`/`len` as in [`parse`].
unsafe extern "C" fn invoke(handle: *mut c_void, ptr: *const u8, len: usize) -> RawBuffer {
    reply_buffer(guarded(|| {
        if handle.is_null() {
            return Err(null_pointer("invoke", "handle"));
        }
        // SAFETY: forwarded from this function's contract.
        let call: Incoming = unsafe { parse(ptr, len)? };
        // SAFETY: a live `Box<Handle>` from `open`, borrowed by this call alone.
        let handle = unsafe { &mut *(handle as *mut Handle) };
        handle.dispatch_incoming(call)
    }))
}

/// # Safety
/// As [`invoke`]; `flag` must be null or an `AtomicBool` that stays alive during the call.
unsafe extern "C" fn invoke_cancellable(
    handle: *mut c_void,
    ptr: *const u8,
    len: usize,
    flag: *const AtomicBool,
) -> RawBuffer {
    // SAFETY: forwarded from this function's contract.
    unsafe { crate::cancel::during(flag, || invoke(handle, ptr, len)) }
}

/// # Safety
/// `handle` must be null (ignored) or a live handle from this library's `open`, closed once.
unsafe extern "C" fn close(handle: *mut c_void) {
    if !handle.is_null() {
        // A panicking Drop must not unwind into the host.
        // SAFETY: the caller gives back ownership of the `Box<Handle>` made by `open`.
        let _ = catch_unwind(AssertUnwindSafe(|| {
            drop(unsafe { Box::from_raw(handle as *mut Handle) })
        }));
    }
}

/// # Safety
/// `ptr`/`len` as in [`parse`].
unsafe extern "C" fn command<E: PluginInstance>(ptr: *const u8, len: usize) -> RawBuffer {
    reply_buffer(guarded(|| {
        // SAFETY: forwarded from this function's contract.
        let request: CommandRequest = unsafe { parse(ptr, len)? };
        E::get().command(&request.args, &request.context).map(Value::String)
    }))
}

/// # Safety
/// `buffer` must be a reply this library returned, freed once.
unsafe extern "C" fn free(buffer: RawBuffer) {
    // SAFETY: forwarded from this function's contract.
    drop(unsafe { buffer.into_vec() });
}

/// The error for a null pointer where the ABI requires a valid one: a host bug, never the bot's.
fn null_pointer(function: &str, argument: &str) -> ErrorInfo {
    ErrorInfo::new(
        ErrorCode::InvalidRequest,
        format!("null `{argument}` pointer passed to the plugin's `{function}`"),
    )
}

/// Exports a plugin type (which must implement [`Plugin`] and `Default`) as a yomi plugin library:
/// `yomi_plugin::export_plugin!(RpsPlugin);` at the crate root of a `cdylib` crate.
#[macro_export]
macro_rules! export_plugin {
    ($plugin:ty) => {
        #[doc(hidden)]
        pub struct __YomiExport;

        impl $crate::abi::PluginInstance for __YomiExport {
            fn get() -> &'static dyn $crate::Plugin {
                static INSTANCE: ::std::sync::OnceLock<$plugin> = ::std::sync::OnceLock::new();
                INSTANCE.get_or_init(<$plugin as ::std::default::Default>::default)
            }
        }

        /// The entry point the yomi host looks up.
        #[no_mangle]
        pub extern "C" fn yomi_plugin_entry() -> *const $crate::abi::PluginTable {
            static TABLE: $crate::abi::PluginTable = $crate::abi::TableFor::<__YomiExport>::TABLE;
            &TABLE
        }
    };
}
