//! Helpers for end-to-end tests: find the built `yomi` binary and talk to it.
//!
//! The tests drive the real binary, exactly as a game client would: they start `yomi serve` as a
//! child process and speak JSON lines over its stdin/stdout or over TCP on 127.0.0.1. Nothing here
//! links the host library, so what is tested is the shipped program and its wire format.
//!
//! The binary and the plugin libraries are the ones `cargo build --release --workspace` put in the
//! target directory this test executable was built into (`target/<profile>/`).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// How long any single reply may take before a test gives up. Generous: CI machines are shared.
pub const REPLY_TIMEOUT: Duration = Duration::from_secs(30);

/// `target/<profile>`: the directory holding this test executable's `deps/` folder, where cargo
/// also puts the `yomi` binary and the plugin libraries.
pub fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("current_exe");
    let deps = exe.parent().expect("test executable has a directory");
    // Integration tests live in target/<profile>/deps; a bench or example may live one level up.
    let dir =
        if deps.file_name().is_some_and(|n| n == "deps") { deps.parent().unwrap() } else { deps };
    dir.to_path_buf()
}

/// The `yomi` binary next to the test executable. Panics with the command to run when missing.
pub fn yomi_bin() -> PathBuf {
    let bin = target_dir().join(format!("yomi{}", std::env::consts::EXE_SUFFIX));
    assert!(
        bin.is_file(),
        "{} is missing: build it first with `cargo build --release --workspace` \
         (the end-to-end tests run the real binary and plugins of the same target directory)",
        bin.display()
    );
    bin
}

/// A library built by the workspace, by crate lib name: `library("fixture_misbehave")` is
/// `target/<profile>/libfixture_misbehave.so` on Linux.
pub fn library(lib_name: &str) -> PathBuf {
    use std::env::consts::{DLL_PREFIX, DLL_SUFFIX};
    let path = target_dir().join(format!("{DLL_PREFIX}{lib_name}{DLL_SUFFIX}"));
    assert!(
        path.is_file(),
        "{} is missing: build it first with `cargo build --release --workspace`",
        path.display()
    );
    path
}

/// The flaws of the broken-bot fixtures (the `nonconform` plugin's bots, the broken engines of
/// tests/engines/broken.py), each with the one check of `yomi check` it fails and the arguments
/// that show it. The unseeded bot plays more games, so that two runs cannot agree by chance.
pub const FLAWS: [(&str, &str, &[&str]); 7] = [
    ("misdeclared", "declaration", &["--games", "1"]),
    ("illegal", "legal play", &["--games", "1"]),
    ("unseeded", "deterministic", &["--games", "4"]),
    ("fragile", "bad observation", &["--games", "1"]),
    ("touchy", "bad options", &["--games", "1"]),
    ("stubborn", "configure", &["--games", "1"]),
    ("slow", "latency", &["--games", "1", "--max-p99-ms", "5"]),
];

/// A fresh empty directory, removed when dropped.
pub fn temp_dir() -> tempfile::TempDir {
    tempfile::Builder::new().prefix("yomi-e2e-").tempdir().expect("temp dir")
}

/// Copies `from` into `dir` as `name`, appending `extra` bytes (a different build of the same
/// code: same behaviour, new hash). Writes a temporary file and renames it into place, as a linker
/// does, so a library the server already mapped is never rewritten under it.
pub fn install_library(from: &Path, dir: &Path, name: &str, extra: &[u8]) -> PathBuf {
    let mut bytes = std::fs::read(from).unwrap_or_else(|e| panic!("{}: {e}", from.display()));
    bytes.extend_from_slice(extra);
    let target = dir.join(name);
    let partial = dir.join(format!(".{name}.partial"));
    std::fs::write(&partial, bytes).expect("write library copy");
    std::fs::rename(&partial, &target).expect("rename library copy");
    target
}

/// Copies the misbehaving test plugin into `dir`; returns the path to give `plugin.load`.
pub fn install_misbehave(dir: &Path) -> PathBuf {
    install_library(&library("fixture_misbehave"), dir, "libfixture_misbehave.so", b"")
}

/// A `yomi` command with its own data directory and the build's plugins plus the misbehaving
/// fixture, logging only errors (for the commands that run to completion).
pub fn yomi_in(data: &Path) -> Command {
    let mut cmd = Command::new(yomi_bin());
    cmd.arg("--plugins").arg(target_dir()).arg("--plugins").arg(library("fixture_misbehave"));
    cmd.arg("--data-dir").arg(data);
    cmd.env("YOMI_LOG", "error");
    cmd
}

/// Runs a command that must succeed; panics with its stderr otherwise.
pub fn run_ok(cmd: &mut Command) -> std::process::Output {
    let out = cmd.output().expect("run yomi");
    assert!(out.status.success(), "{:?} failed: {}", cmd, String::from_utf8_lossy(&out.stderr));
    out
}

/// A command's standard output as JSON.
pub fn json_out(out: &std::process::Output) -> Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)))
}

/// Runs `yomi ARGS...` to completion (for the non-serving commands).
pub fn run_yomi(args: &[&str]) -> std::process::Output {
    Command::new(yomi_bin()).args(args).stdin(Stdio::null()).output().expect("run yomi")
}

/// A running `yomi serve` child. Killed when dropped if it is still running.
pub struct Server {
    child: Child,
    /// Everything the server logged so far (stderr), for assertions and failure messages.
    log: Arc<Mutex<String>>,
    /// The TCP address it listens on, when started with [`Server::tcp`].
    pub addr: Option<SocketAddr>,
    /// The stdio session, when started with [`Server::stdio`].
    stdio: Option<Conn>,
}

impl Server {
    /// `yomi serve --stdio EXTRA...`.
    pub fn stdio(extra: &[&str]) -> Server {
        let mut server = Server::spawn(&[&["serve", "--stdio"], extra].concat());
        server.attach_stdio();
        server
    }

    /// `yomi serve --tcp 127.0.0.1:0 EXTRA...`; waits for the "listening on ADDR" log line.
    /// With --tcp alone the server does not read its stdin.
    pub fn tcp(extra: &[&str]) -> Server {
        let mut server = Server::spawn(&[&["serve", "--tcp", "127.0.0.1:0"], extra].concat());
        server.wait_listening();
        server
    }

    /// Both transports in one process: `yomi serve --stdio --tcp 127.0.0.1:0`.
    pub fn stdio_and_tcp() -> Server {
        let mut server = Server::spawn(&["serve", "--stdio", "--tcp", "127.0.0.1:0"]);
        server.attach_stdio();
        server.wait_listening();
        server
    }

    fn attach_stdio(&mut self) {
        let stdin = self.child.stdin.take().expect("piped stdin");
        let stdout = self.child.stdout.take().expect("piped stdout");
        self.stdio = Some(Conn::new(Box::new(stdin), Box::new(stdout)));
    }

    fn wait_listening(&mut self) {
        let deadline = Instant::now() + REPLY_TIMEOUT;
        loop {
            if let Some(addr) = listening_addr(&self.log()) {
                self.addr = Some(addr);
                return;
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!("yomi exited ({status}) before listening; log:\n{}", self.log());
            }
            assert!(
                Instant::now() < deadline,
                "yomi never logged `listening on`; log:\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// `yomi serve --stdio` with the build's plugins, accepting `plugin.load` from `dir` too.
    pub fn stdio_with_dir(dir: &Path) -> Server {
        Server::stdio(&plugin_dir_args(dir).iter().map(String::as_str).collect::<Vec<_>>())
    }

    /// `yomi serve --tcp 127.0.0.1:0` with the build's plugins, accepting `plugin.load` from `dir` too.
    pub fn tcp_with_dir(dir: &Path) -> Server {
        Server::tcp(&plugin_dir_args(dir).iter().map(String::as_str).collect::<Vec<_>>())
    }

    fn spawn(args: &[&str]) -> Server {
        let mut child = Command::new(yomi_bin())
            .args(args)
            // Info level is what prints the listening address; keep it whatever the caller's env says.
            .env("YOMI_LOG", "info")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start yomi");
        let log = Arc::new(Mutex::new(String::new()));
        let stderr = child.stderr.take().expect("piped stderr");
        let sink = log.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let mut log = sink.lock().unwrap();
                log.push_str(&line);
                log.push('\n');
            }
        });
        Server { child, log, addr: None, stdio: None }
    }

    /// The stdio session.
    pub fn conn(&mut self) -> &mut Conn {
        self.stdio.as_mut().expect("started with Server::stdio")
    }

    /// A new TCP client session.
    pub fn connect(&self) -> Conn {
        let addr = self.addr.expect("started with Server::tcp");
        let stream = TcpStream::connect(addr).unwrap_or_else(|e| panic!("connect {addr}: {e}"));
        Conn::over(stream)
    }

    /// A new TCP client session from the address `from` (any 127.x.y.z reaches the server on
    /// Linux's loopback), to see what the server does per client address.
    pub fn connect_from(&self, from: std::net::Ipv4Addr) -> Conn {
        let addr = self.addr.expect("started with Server::tcp");
        let socket = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None)
            .expect("a socket");
        let local = std::net::SocketAddr::from((from, 0));
        socket.bind(&local.into()).unwrap_or_else(|e| panic!("bind {from}: {e}"));
        socket.connect(&addr.into()).unwrap_or_else(|e| panic!("connect {addr}: {e}"));
        Conn::over(socket.into())
    }

    /// A new TCP client session once the server has room: a full server answers a new client
    /// at once with `limit_exceeded` and closes, so this connects again until a `ping` on the
    /// new session is answered (a refusal is told apart by what comes back, not by how soon:
    /// under load it can take longer than any fixed wait).
    pub fn connect_when_free(&self) -> Conn {
        let deadline = Instant::now() + REPLY_TIMEOUT;
        loop {
            let mut conn = self.connect();
            let id = conn.next_id();
            // A refused session may already be closed: its refusal is still there to read.
            let _ = conn.try_send_raw(format!("{{\"id\":{id},\"op\":\"ping\"}}\n").as_bytes());
            let first = conn.recv();
            if first["id"] == json!(id) {
                assert_eq!(first["result"], json!({"pong": true}), "{first}");
                return conn;
            }
            assert_eq!(error_code(&first).as_deref(), Some("limit_exceeded"), "{first}");
            assert!(Instant::now() < deadline, "the server never had room; log:\n{}", self.log());
        }
    }

    /// The server's stderr so far.
    pub fn log(&self) -> String {
        self.log.lock().unwrap().clone()
    }

    /// Waits until the server's stderr contains every one of `needles` (it is read by a thread, so
    /// a line written before a reply may arrive after it); returns the log.
    pub fn wait_log(&self, needles: &[&str]) -> String {
        let deadline = Instant::now() + REPLY_TIMEOUT;
        loop {
            let log = self.log();
            if needles.iter().all(|n| log.contains(n)) {
                return log;
            }
            assert!(Instant::now() < deadline, "the log never showed {needles:?}:\n{log}");
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// The playground's URL with the token generated at launch, as `yomi serve --http` prints it
    /// (`http://127.0.0.1:PORT/?token=...`).
    pub fn playground_url(&self) -> String {
        let log = self.wait_log(&["open the playground at "]);
        let tail = log.split("open the playground at ").nth(1).expect("the URL follows");
        tail.split_whitespace().next().expect("a URL").to_string()
    }

    /// The token generated at launch for the HTTP listener (an operator's).
    pub fn generated_token(&self) -> String {
        let url = self.playground_url();
        url.split("?token=").nth(1).expect("the URL carries a token").to_string()
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Closes the stdio session's input (end of file), as a parent process that goes away does.
    pub fn close_stdin(&mut self) {
        self.conn().writer = None;
    }

    /// Sends SIGTERM.
    pub fn terminate(&self) {
        self.signal("TERM");
    }

    /// Sends a signal by name (`TERM`, `INT`) with kill(1).
    pub fn signal(&self, name: &str) {
        let status = Command::new("kill")
            .args([&format!("-{name}"), &self.pid().to_string()])
            .status()
            .expect("run kill");
        assert!(status.success(), "kill -{name} failed");
    }

    /// Waits for the process to exit on its own.
    pub fn wait_exit(&mut self, timeout: Duration) -> ExitStatus {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "yomi did not exit within {timeout:?}; log:\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// `--plugins target/<profile> --plugins DIR`.
fn plugin_dir_args(dir: &Path) -> Vec<String> {
    let path = |p: &Path| p.to_str().expect("UTF-8 path").to_string();
    vec!["--plugins".into(), path(&target_dir()), "--plugins".into(), path(dir)]
}

/// Finds `listening on ADDR` in the server's log.
fn listening_addr(log: &str) -> Option<SocketAddr> {
    log.lines().find_map(|line| {
        line.split("listening on ").nth(1)?.split_whitespace().next()?.parse().ok()
    })
}

/// One client session: JSON lines out, JSON lines in.
pub struct Conn {
    /// `None` once the input was closed.
    writer: Option<Box<dyn Write + Send>>,
    /// Lines read by a background thread, so reads can time out on pipes and sockets alike.
    lines: Receiver<String>,
    next_id: u64,
    /// Events received while waiting for replies, in order.
    pub events: Vec<Value>,
    /// The TCP socket, shut down on drop: the reader thread holds a clone, so dropping the writer
    /// alone would not hang up.
    socket: Option<TcpStream>,
}

impl Drop for Conn {
    fn drop(&mut self) {
        if let Some(socket) = &self.socket {
            let _ = socket.shutdown(std::net::Shutdown::Both);
        }
    }
}

impl Conn {
    /// The session over a connected TCP stream.
    fn over(stream: TcpStream) -> Conn {
        stream.set_nodelay(true).expect("nodelay");
        let reader = stream.try_clone().expect("clone stream");
        let mut conn =
            Conn::new(Box::new(stream.try_clone().expect("clone stream")), Box::new(reader));
        conn.socket = Some(stream);
        conn
    }

    fn new(writer: Box<dyn Write + Send>, reader: Box<dyn Read + Send>) -> Conn {
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(reader).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Conn { writer: Some(writer), lines, next_id: 0, events: Vec::new(), socket: None }
    }

    /// Writes raw bytes (a newline is not added).
    pub fn send_raw(&mut self, bytes: &[u8]) {
        self.try_send_raw(bytes).expect("write to yomi");
    }

    /// Writes raw bytes; the error says the server closed the connection.
    pub fn try_send_raw(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        let writer = self.writer.as_mut().expect("input still open");
        writer.write_all(bytes)?;
        writer.flush()
    }

    /// Writes one JSON line.
    pub fn send(&mut self, value: &Value) {
        let mut line = serde_json::to_vec(value).unwrap();
        line.push(b'\n');
        self.send_raw(&line);
    }

    /// The next line from the server, parsed; panics after [`REPLY_TIMEOUT`] or at end of stream.
    pub fn recv(&mut self) -> Value {
        match self.recv_within(REPLY_TIMEOUT) {
            Some(v) => v,
            None => panic!("no line from yomi within {REPLY_TIMEOUT:?} (or the stream ended)"),
        }
    }

    /// The next line within `timeout`, or `None` on timeout or end of stream.
    pub fn recv_within(&mut self, timeout: Duration) -> Option<Value> {
        let line = self.lines.recv_timeout(timeout).ok()?;
        Some(
            serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("yomi sent a line that is not JSON ({e}): {line}")),
        )
    }

    /// True when the server closed the stream (as opposed to a line arriving or a timeout).
    pub fn is_closed_within(&mut self, timeout: Duration) -> bool {
        match self.lines.recv_timeout(timeout) {
            Err(RecvTimeoutError::Disconnected) => true,
            Err(RecvTimeoutError::Timeout) => false,
            Ok(line) => panic!("expected the stream to end, got {line}"),
        }
    }

    /// The next reply (events are set aside in [`Conn::events`]).
    pub fn reply(&mut self) -> Value {
        loop {
            let value = self.recv();
            // Not `id`: a tournament's events carry the tournament's.
            if value.get("event").is_some() && value.get("ok").is_none() {
                self.events.push(value);
            } else {
                return value;
            }
        }
    }

    /// A fresh numeric id.
    pub fn next_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    /// Sends `{"id": <fresh>, "op": op, ...params}` and returns the whole reply, after checking
    /// that it echoes the id.
    pub fn request(&mut self, op: &str, params: Value) -> Value {
        let id = self.next_id();
        let mut request = match params {
            Value::Object(map) => map,
            Value::Null => serde_json::Map::new(),
            other => panic!("params must be an object, got {other}"),
        };
        request.insert("id".into(), json!(id));
        request.insert("op".into(), json!(op));
        self.send(&Value::Object(request));
        let reply = self.reply();
        assert_eq!(reply["id"], json!(id), "reply does not echo the id: {reply}");
        reply
    }

    /// Sends a request that must succeed; returns its `result`.
    pub fn ok(&mut self, op: &str, params: Value) -> Value {
        let reply = self.request(op, params.clone());
        assert_eq!(reply["ok"], json!(true), "`{op}` {params} failed: {reply}");
        assert!(reply.get("error").is_none(), "an ok reply carries no error: {reply}");
        reply["result"].clone()
    }

    /// Sends a request that must fail; returns the error's code (message checked non-empty).
    pub fn err(&mut self, op: &str, params: Value) -> String {
        let reply = self.request(op, params.clone());
        error_code(&reply).unwrap_or_else(|| panic!("`{op}` {params} should have failed: {reply}"))
    }

    /// `ping` answers: the session is alive and in step.
    pub fn assert_alive(&mut self) {
        assert_eq!(self.ok("ping", json!({})), json!({"pong": true}));
    }
}

/// The error code of a failed reply (with the shape checked), or `None` for a success.
pub fn error_code(reply: &Value) -> Option<String> {
    if reply["ok"] == json!(true) {
        return None;
    }
    assert_eq!(reply["ok"], json!(false), "reply without a boolean `ok`: {reply}");
    assert!(reply.get("result").is_none(), "an error reply carries no result: {reply}");
    let message = reply["error"]["message"].as_str().unwrap_or_default();
    assert!(!message.is_empty(), "error without a message: {reply}");
    Some(
        reply["error"]["code"]
            .as_str()
            .unwrap_or_else(|| panic!("error without a code: {reply}"))
            .to_string(),
    )
}

/// The observation the example `rps` bot reads: the opponent's last hand.
pub fn rps_turn(opponent_last: &str, explain: bool) -> Value {
    json!({
        "observation": {"opponent_last": opponent_last},
        "legal": ["rock", "paper", "scissors"],
        "explain": explain,
    })
}

/// The `yomi worker` processes whose parent is `pid` (Linux: read from `/proc`).
pub fn workers_of(pid: u32) -> usize {
    let Ok(entries) = std::fs::read_dir("/proc") else { return 0 };
    entries
        .flatten()
        .filter(|e| {
            let stat = std::fs::read_to_string(e.path().join("stat")).unwrap_or_default();
            // pid (comm) state ppid ...: the comm may hold spaces, so split after its ')'.
            let ppid = stat.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().nth(1));
            let cmdline = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
            ppid == Some(&pid.to_string()) && cmdline.split(|&b| b == 0).any(|w| w == b"worker")
        })
        .count()
}

/// Adds `"agent": id` to a params object.
pub fn with_agent(agent: &str, params: Value) -> Value {
    let mut params = params;
    params["agent"] = json!(agent);
    params
}

/// Reads `columns` of every recorded game of tournament `id` in the data directory `data`, in
/// index order, one `row` call per game: what the tests of records, pairs and openings compare.
pub fn recorded_games<T>(
    data: &Path,
    id: &str,
    columns: &str,
    mut row: impl FnMut(&rusqlite::Row) -> rusqlite::Result<T>,
) -> Vec<T> {
    let db = rusqlite::Connection::open(data.join("records.sqlite3")).unwrap();
    let sql = format!("SELECT {columns} FROM games WHERE tournament = ?1 ORDER BY idx");
    let mut stmt = db.prepare(&sql).unwrap();
    let rows = stmt.query_map([id], |r| row(r)).unwrap();
    rows.collect::<Result<Vec<_>, _>>().unwrap()
}
