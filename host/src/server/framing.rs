//! Line framing with a length limit that survives bad lines.
//!
//! `LinesCodec` alone ends the stream on its first error; a client that sends one oversized or
//! non-UTF-8 line must instead get an error reply and keep its connection, so those errors become
//! items here.

use tokio_util::bytes::BytesMut;
use tokio_util::codec::{Decoder, LinesCodec, LinesCodecError};

/// One framed input line.
#[derive(Debug, PartialEq)]
pub enum Line {
    Text(String),
    /// The line exceeded the limit; its bytes were discarded up to the next newline.
    TooLong,
    /// The line was not UTF-8.
    NotUtf8,
    /// A WebSocket binary frame: requests are text.
    Binary,
}

/// `LinesCodec` whose recoverable errors are items.
pub struct BoundedLines {
    inner: LinesCodec,
}

impl BoundedLines {
    pub fn new(limit: usize) -> BoundedLines {
        BoundedLines { inner: LinesCodec::new_with_max_length(limit) }
    }

    /// Changes the length limit for the lines after the one last returned (a client that has
    /// just given its token may send longer lines). Only between lines: a line being skipped
    /// for its length would be read from its middle.
    pub fn set_limit(&mut self, limit: usize) {
        if self.inner.max_length() != limit {
            self.inner = LinesCodec::new_with_max_length(limit);
        }
    }
}

impl Decoder for BoundedLines {
    type Item = Line;
    type Error = std::io::Error;

    fn decode(&mut self, buf: &mut BytesMut) -> Result<Option<Line>, std::io::Error> {
        Self::map(self.inner.decode(buf))
    }

    fn decode_eof(&mut self, buf: &mut BytesMut) -> Result<Option<Line>, std::io::Error> {
        Self::map(self.inner.decode_eof(buf))
    }
}

impl BoundedLines {
    fn map(r: Result<Option<String>, LinesCodecError>) -> Result<Option<Line>, std::io::Error> {
        match r {
            Ok(line) => Ok(line.map(Line::Text)),
            Err(LinesCodecError::MaxLineLengthExceeded) => Ok(Some(Line::TooLong)),
            Err(LinesCodecError::Io(e)) if e.kind() == std::io::ErrorKind::InvalidData => {
                Ok(Some(Line::NotUtf8))
            }
            Err(LinesCodecError::Io(e)) => Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_all(codec: &mut BoundedLines, input: &[u8]) -> Vec<Line> {
        let mut buf = BytesMut::from(input);
        let mut out = vec![];
        while let Some(line) = codec.decode(&mut buf).unwrap() {
            out.push(line);
        }
        out
    }

    #[test]
    fn long_and_bad_lines_are_items_and_reading_goes_on() {
        let mut codec = BoundedLines::new(8);
        let lines = decode_all(&mut codec, b"short\n0123456789abcdef\n\xff\xfe\nafter\n");
        assert_eq!(
            lines,
            vec![
                Line::Text("short".into()),
                Line::TooLong,
                Line::NotUtf8,
                Line::Text("after".into())
            ]
        );
    }
}
