//! End-to-end tests of the protocol over WebSocket (`yomi serve --http`, `GET /ws`) with a
//! minimal hand-written client, so each frame on the wire is the test's own.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;

use serde_json::Value;
use yomi_e2e::Server;

/// The address of the server's HTTP listener, from its log.
fn http_addr(server: &Server) -> String {
    let log = server.wait_log(&["listening on http://"]);
    let tail = log.split("listening on http://").nth(1).unwrap();
    tail.split_whitespace().next().unwrap().to_string()
}

/// A WebSocket client over a blocking socket: masked text frames out, frames in.
struct Socket {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

impl Socket {
    fn connect(addr: &str, token: &str) -> Socket {
        let mut writer = TcpStream::connect(addr).unwrap();
        writer.set_read_timeout(Some(yomi_e2e::REPLY_TIMEOUT)).unwrap();
        write!(
            writer,
            "GET /ws?token={token} HTTP/1.1\r\nHost: {addr}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
             Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        .unwrap();
        let mut reader = BufReader::new(writer.try_clone().unwrap());
        let mut status = String::new();
        reader.read_line(&mut status).unwrap();
        assert!(status.starts_with("HTTP/1.1 101"), "{status}");
        loop {
            let mut header = String::new();
            reader.read_line(&mut header).unwrap();
            if header == "\r\n" {
                break;
            }
        }
        Socket { reader, writer }
    }

    /// One masked text frame (RFC 6455 §5.2), as a client must send it.
    fn frame(text: &str) -> Vec<u8> {
        let payload = text.as_bytes();
        let mut frame = vec![0x81];
        match payload.len() {
            n if n < 126 => frame.push(0x80 | n as u8),
            n if n <= 0xffff => {
                frame.push(0x80 | 126);
                frame.extend_from_slice(&(n as u16).to_be_bytes());
            }
            n => {
                frame.push(0x80 | 127);
                frame.extend_from_slice(&(n as u64).to_be_bytes());
            }
        }
        let mask = [0x12, 0x34, 0x56, 0x78];
        frame.extend_from_slice(&mask);
        frame.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
        frame
    }

    fn send(&mut self, text: &str) {
        self.writer.write_all(&Socket::frame(text)).unwrap();
    }

    /// The next text frame, parsed.
    fn recv(&mut self) -> Value {
        let mut head = [0u8; 2];
        self.reader.read_exact(&mut head).unwrap();
        assert_eq!(head[0], 0x81, "a final text frame");
        let len = match head[1] & 0x7f {
            126 => {
                let mut n = [0u8; 2];
                self.reader.read_exact(&mut n).unwrap();
                u16::from_be_bytes(n) as usize
            }
            127 => {
                let mut n = [0u8; 8];
                self.reader.read_exact(&mut n).unwrap();
                u64::from_be_bytes(n) as usize
            }
            n => n as usize,
        };
        let mut payload = vec![0u8; len];
        self.reader.read_exact(&mut payload).unwrap();
        serde_json::from_slice(&payload).unwrap()
    }
}

/// A client that sends many requests with large replies before reading any fills the socket's
/// buffers, so the server's writer must wait for the socket and be woken when it drains: every
/// reply still arrives, in order.
#[test]
fn replies_held_up_by_a_full_socket_all_arrive_once_the_client_reads() {
    let server = Server::tcp(&["--http", "127.0.0.1:0"]);
    let mut socket = Socket::connect(&http_addr(&server), &server.generated_token());
    socket.send(r#"{"id":0,"op":"catalog"}"#);
    let size = socket.recv().to_string().len();
    // Enough replies to overfill the loopback socket's buffers several times over.
    let requests = (64 << 20) / size + 1;
    let batch: Vec<u8> = (1..=requests)
        .flat_map(|id| Socket::frame(&format!(r#"{{"id":{id},"op":"catalog"}}"#)))
        .collect();
    let mut writer = socket.writer.try_clone().unwrap();
    // The server stops reading while its outbox is full, so the requests go out from a thread.
    let sending = std::thread::spawn(move || writer.write_all(&batch).unwrap());
    std::thread::sleep(std::time::Duration::from_millis(500));
    for id in 1..=requests {
        let reply = socket.recv();
        assert_eq!((reply["id"].as_u64(), &reply["ok"]), (Some(id as u64), &Value::Bool(true)));
    }
    sending.join().unwrap();
}
