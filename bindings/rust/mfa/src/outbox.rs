//! The development SMS outbox: reading back what a context opened with
//! [`Options::sms_outbox`](crate::Options::sms_outbox) "sent" (one JSON
//! object per line, `{"time": ..., "to": "+1...", "message": "..."}`), so
//! that demos and tests pick up codes without a phone. Do not use an outbox
//! in production: it holds live codes in the clear.

use std::io;
use std::path::Path;

/// One message of an outbox.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutboxMessage {
    /// Unix time of the send.
    pub time: i64,
    /// The number it went to (E.164).
    pub to: String,
    /// The text.
    pub message: String,
    /// The six-digit code in the text, if it is libmfa's message.
    pub code: Option<String>,
}

/// The messages in an outbox file, oldest first (none if the file does not
/// exist yet; an unfinished last line, a writer mid-way, is left out).
///
/// Errors: the file cannot be read, or a finished line is not an outbox entry
/// (`InvalidData`).
pub fn read(path: impl AsRef<Path>) -> io::Result<Vec<OutboxMessage>> {
    let data = match std::fs::read(path.as_ref()) {
        Ok(data) => data,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(error) => return Err(error),
    };
    let mut messages = Vec::new();
    let mut lines: Vec<&[u8]> = data.split(|&byte| byte == b'\n').collect();
    lines.pop(); // "" after the last newline, or an unfinished line
    for (number, line) in lines.iter().enumerate() {
        let line = std::str::from_utf8(line)
            .map_err(|_| invalid(number, "not UTF-8"))?
            .trim();
        if line.is_empty() {
            continue;
        }
        messages.push(parse_entry(line).ok_or_else(|| invalid(number, "not an outbox entry {time, to, message}"))?);
    }
    Ok(messages)
}

/// The code of the newest message (to `phone_number`, if given), or None.
pub fn code(path: impl AsRef<Path>, phone_number: Option<&str>) -> io::Result<Option<String>> {
    Ok(read(path)?
        .into_iter()
        .rev()
        .find(|message| phone_number.map_or(true, |number| message.to == number))
        .and_then(|message| message.code))
}

fn invalid(number: usize, what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("outbox line {}: {}", number + 1, what))
}

/// The code of libmfa's message "<6 digits> is your verification code.".
fn code_of(message: &str) -> Option<String> {
    let code = message.strip_suffix(" is your verification code.")?;
    if code.len() == 6 && code.bytes().all(|byte| byte.is_ascii_digit()) {
        Some(code.to_string())
    } else {
        None
    }
}

/// A flat JSON object with the fields time (an integer), to and message (strings).
fn parse_entry(line: &str) -> Option<OutboxMessage> {
    let mut parser = Json { bytes: line.as_bytes(), at: 0 };
    let (mut time, mut to, mut message) = (None, None, None);
    parser.expect(b'{')?;
    loop {
        parser.space();
        if parser.peek()? == b'}' {
            parser.at += 1;
            break;
        }
        let key = parser.string()?;
        parser.space();
        parser.expect(b':')?;
        parser.space();
        match key.as_str() {
            "time" => time = Some(parser.integer()?),
            "to" => to = Some(parser.string()?),
            "message" => message = Some(parser.string()?),
            _ => parser.skip_value()?,
        }
        parser.space();
        match parser.peek()? {
            b',' => parser.at += 1,
            b'}' => {
                parser.at += 1;
                break;
            }
            _ => return None,
        }
    }
    parser.space();
    if parser.at != parser.bytes.len() {
        return None;
    }
    let message = message?;
    Some(OutboxMessage { time: time?, to: to?, code: code_of(&message), message })
}

/// A reader of the little JSON an outbox line holds (linear in the line).
struct Json<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Json<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\r' | b'\n')) {
            self.at += 1;
        }
    }

    fn expect(&mut self, byte: u8) -> Option<()> {
        self.space();
        if self.peek()? == byte {
            self.at += 1;
            Some(())
        } else {
            None
        }
    }

    fn integer(&mut self) -> Option<i64> {
        let start = self.at;
        if self.peek() == Some(b'-') {
            self.at += 1;
        }
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.at += 1;
        }
        std::str::from_utf8(&self.bytes[start..self.at]).ok()?.parse().ok()
    }

    fn hex4(&mut self) -> Option<u32> {
        let digits = self.bytes.get(self.at..self.at + 4)?;
        self.at += 4;
        u32::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()
    }

    fn string(&mut self) -> Option<String> {
        self.expect(b'"')?;
        let mut out = String::new();
        loop {
            let byte = self.peek()?;
            self.at += 1;
            match byte {
                b'"' => return Some(out),
                b'\\' => {
                    let escape = self.peek()?;
                    self.at += 1;
                    match escape {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => {
                            let first = self.hex4()?;
                            let point = if (0xd800..0xdc00).contains(&first) {
                                if self.bytes.get(self.at..self.at + 2)? != b"\\u" {
                                    return None;
                                }
                                self.at += 2;
                                let second = self.hex4()?;
                                if !(0xdc00..0xe000).contains(&second) {
                                    return None;
                                }
                                0x10000 + ((first - 0xd800) << 10) + (second - 0xdc00)
                            } else {
                                first
                            };
                            out.push(char::from_u32(point)?);
                        }
                        _ => return None,
                    }
                }
                _ => {
                    // Copy the run of plain bytes up to the next quote or backslash (UTF-8 as is).
                    let start = self.at - 1;
                    while matches!(self.peek(), Some(byte) if byte != b'"' && byte != b'\\') {
                        self.at += 1;
                    }
                    out.push_str(std::str::from_utf8(&self.bytes[start..self.at]).ok()?);
                }
            }
        }
    }

    fn skip_value(&mut self) -> Option<()> {
        match self.peek()? {
            b'"' => self.string().map(|_| ()),
            b'-' | b'0'..=b'9' => self.integer().map(|_| ()),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_libmfa_lines_and_escapes() {
        let entry = parse_entry(r#"{"time":1700000000,"to":"+15105551234","message":"123456 is your verification code."}"#)
            .unwrap();
        assert_eq!(entry.time, 1_700_000_000);
        assert_eq!(entry.to, "+15105551234");
        assert_eq!(entry.code.as_deref(), Some("123456"));
        let escaped = parse_entry(r#"{"to":"a\"b\u00e9\ud83d\ude00","time":-5,"message":"x\ny","extra":"z"}"#).unwrap();
        assert_eq!(escaped.to, "a\"b\u{e9}\u{1f600}");
        assert_eq!(escaped.message, "x\ny");
        assert_eq!(escaped.code, None);
    }

    /// Mutations of real lines (bits flipped, lines cut, tails repeated, escapes spliced
    /// in), from a fixed seed: the reader returns an entry or None for each and never
    /// panics; a 120 KB line of escapes reads in well under 2 s (it is linear).
    #[test]
    fn mutated_lines_never_panic() {
        let seeds: [&[u8]; 3] = [
            br#"{"time":1700000000,"to":"+15105551234","message":"123456 is your verification code."}"#,
            br#"{"to":"a\"b\u00e9\ud83d\ude00","time":-5,"message":"x\ny","extra":"z"}"#,
            br#"{"time":1,"to":"+1","message":"\u0041\/\b\f\r\t"}"#,
        ];
        let pieces: [&[u8]; 8] = [b"\\", b"\\u", b"\\ud800", b"\"", b"{", b"}", b",", b"\xff"];
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for round in 0..20_000 {
            let mut line = seeds[round % seeds.len()].to_vec();
            for _ in 0..1 + next() % 4 {
                let at = (next() as usize) % (line.len() + 1);
                match next() % 4 {
                    0 if at < line.len() => line[at] ^= 1 << (next() % 8),
                    1 => line.truncate(at),
                    2 => line.splice(at..at, pieces[(next() % 8) as usize].iter().copied()).for_each(drop),
                    _ => {
                        let copy = line[at..].to_vec();
                        line.extend_from_slice(&copy);
                    }
                }
            }
            if let Ok(text) = std::str::from_utf8(&line) {
                let _ = parse_entry(text);
            }
        }
        let long = format!(r#"{{"time":1,"to":"{}","message":"m"}}"#, "\\u00e9".repeat(20_000));
        let started = std::time::Instant::now();
        assert!(parse_entry(&long).is_some());
        assert!(started.elapsed() < std::time::Duration::from_secs(2));
    }

    #[test]
    fn refuses_what_is_not_an_entry() {
        for line in [
            r#"{"time":1,"to":"+1"}"#,
            r#"{"time":"1","to":"+1","message":"m"}"#,
            r#"{"time":1,"to":"+1","message":"m"} trailing"#,
            r#"{"time":1,"to":"+1","message":"\ud83d"}"#,
            r#"["time"]"#,
            r#"{"time":1,"to":"+1","message":"m""#,
        ] {
            assert!(parse_entry(line).is_none(), "{}", line);
        }
    }
}
