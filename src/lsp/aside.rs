//! Large answers and log messages taken aside before async-lsp reads them.
//!
//! async-lsp decodes every message as an untagged enum: serde first copies
//! the whole message into its `Content` tree, then builds the result as a
//! `Value`, which `Transport::request` decodes once more into the request's
//! type. For a list of thousands of references that is most of what
//! sextant spends on the answer. So the server's output passes through
//! [`AsideReader`] first: a response of at least [`ASIDE_BYTES`] whose
//! `result` is there and `error` is not reaches async-lsp with
//! a token for its result (a string no server writes: `"\u0000aside:7"`),
//! and its result's JSON is kept in [`Aside`] under that request id, for
//! `Transport::request` to decode once, straight into its type. In an
//! answer written plainly, as servers write them, where the result ends
//! is found without parsing it ([`plain_answer`]), and an `error` written
//! after it (which no server does) fails that decode. The token
//! names the entry: no count of ours has to agree with async-lsp's
//! numbering of requests (which it assigns as requests reach its loop).
//!
//! Log messages do not reach async-lsp at all: its parse costs as much per
//! message whatever the message is (an untagged enum tries each kind of
//! message in turn, building a value and an error string for each that
//! does not fit), and TypeScript 7 writes about 50 `window/logMessage`s
//! around every references request on a monorepo (the snapshot it cloned
//! and its runtime metrics, for each project it asks). A frame that names
//! `window/logMessage` near its start is read here, in one typed parse
//! (its text decoded by [`json_text`]), and handed to a [`LogSink`],
//! which may leave it to async-lsp (a line that says the server died must
//! keep its place after the answers before it). A log line taken here is
//! recorded before async-lsp has handled the messages read before it;
//! nothing waits on log lines.
//!
//! Everything else passes through as it came: requests and other
//! notifications from the server, errors, small answers, and any bytes
//! that are not a well-formed frame (after which the stream is passed on
//! untouched, so async-lsp sees and reports what it always did).

use std::borrow::Cow;
use std::collections::HashMap;
use std::pin::Pin;
use std::sync::{LazyLock, Mutex};
use std::task::{Context, Poll};

use serde::Deserialize;
use serde_json::value::RawValue;
use tokio::io::{AsyncRead, ReadBuf};

use crate::sync::lock;

/// Answers smaller than this go through async-lsp as they are: the copies
/// cost little there. A references answer of 84 spots is 12 KB; at 16 KB
/// it was decoded twice. (A first try at 1 KB failed to decode answers
/// that came at their request's first poll: that path took the token for
/// the result, mended since in `Transport::decode`.)
pub const ASIDE_BYTES: usize = 1024;

/// How near the start of a frame a log message names its method: servers
/// write `jsonrpc` and `method` before `params`. One that does not is
/// left to async-lsp's parse.
const LOG_METHOD_WITHIN: usize = 64;

/// The method of a log message, as it is looked for near a frame's start:
/// made once, where `memmem::find` made a searcher for every frame (about
/// 50 log messages come with each TypeScript 7 request on a monorepo).
static LOG_METHOD: LazyLock<memchr::memmem::Finder<'static>> =
    LazyLock::new(|| memchr::memmem::Finder::new(br#""window/logMessage""#));

/// Where the log messages read from the server go: each one's type and
/// text. `false` leaves the message to async-lsp, in its place in the
/// stream.
pub type LogSink = Box<dyn Fn(lsp_types::MessageType, &str) -> bool + Send>;

/// The most read from the server at once.
const READ_BYTES: usize = 64 * 1024;

/// How far behind the newest an answer kept aside may be before it is
/// forgotten: one whose request was cancelled is never taken.
const KEPT_IDS: i64 = 4096;

/// Results taken aside, by the id of the request they answer.
#[derive(Debug, Default)]
pub struct Aside(Mutex<HashMap<i64, String>>);

impl Aside {
    /// The result taken aside for request `id`, if there is one.
    pub fn take(&self, id: i64) -> Option<String> {
        lock(&self.0).remove(&id)
    }

    /// What `value`, an answer async-lsp handed over, stands for: `Ok(None)`
    /// for an answer as it came, the result taken aside for a token, and
    /// `Err` for a token whose result is gone (never taken as `null`).
    pub fn taken(&self, value: &serde_json::Value) -> Result<Option<String>, String> {
        let Some(id) = value
            .as_str()
            .and_then(|token| token.strip_prefix(TOKEN))
            .and_then(|id| id.parse::<i64>().ok())
        else {
            return Ok(None);
        };
        self.take(id)
            .map(Some)
            .ok_or_else(|| format!("the answer to request {id} was lost on its way"))
    }

    fn keep(&self, id: i64, result: String) {
        let mut kept = lock(&self.0);
        kept.retain(|&other, _| other > id - KEPT_IDS);
        kept.insert(id, result);
    }
}

/// What the result of an answer taken aside becomes, before its id.
const TOKEN: &str = "\u{0}aside:";

/// Request `R` whose result async-lsp hands over as a `Value`: a result
/// taken aside comes as its token, whatever `R`'s type allows.
pub struct AnyResult<R>(std::marker::PhantomData<R>);

impl<R: lsp_types::request::Request> lsp_types::request::Request for AnyResult<R> {
    type Params = R::Params;
    type Result = serde_json::Value;
    const METHOD: &'static str = R::METHOD;
}

/// A `window/logMessage` notification, its text as written (decoded by
/// [`json_text`]).
#[derive(Deserialize)]
struct LogFrame<'a> {
    #[serde(borrow)]
    method: Cow<'a, str>,
    params: LogParams<'a>,
    /// A request or a response is no log message.
    #[serde(borrow)]
    id: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct LogParams<'a> {
    #[serde(rename = "type")]
    kind: lsp_types::MessageType,
    #[serde(borrow)]
    message: &'a RawValue,
}

/// What a response is made of, read without building it.
#[derive(Deserialize)]
struct Peek<'a> {
    id: Option<i64>,
    #[serde(borrow)]
    method: Option<&'a RawValue>,
    #[serde(borrow)]
    result: Option<&'a RawValue>,
    #[serde(borrow)]
    error: Option<&'a RawValue>,
}

/// The server's output, with large results taken aside and log messages
/// handed to the sink (see the module header).
pub struct AsideReader<R> {
    inner: R,
    aside: std::sync::Arc<Aside>,
    log: LogSink,
    /// Where the server's bytes are read to: made once, since zeroing
    /// 64 KB for every read (most are a few hundred bytes, and a read that
    /// finds nothing ready is one too) cost more than the frames' copies.
    chunk: Box<[u8]>,
    /// Bytes read and not yet made into a frame.
    input: Vec<u8>,
    /// Bytes ready for async-lsp, from `output[sent..]`.
    output: Vec<u8>,
    sent: usize,
    /// Bytes that were not a frame were seen: all is passed on as it is.
    passing: bool,
    ended: bool,
}

impl<R> AsideReader<R> {
    pub fn new(inner: R, aside: std::sync::Arc<Aside>, log: LogSink) -> AsideReader<R> {
        AsideReader {
            inner,
            aside,
            log,
            chunk: vec![0; READ_BYTES].into_boxed_slice(),
            input: Vec::new(),
            output: Vec::new(),
            sent: 0,
            passing: false,
            ended: false,
        }
    }

    /// Moves what `input` holds to `output`: each whole frame (its result
    /// taken aside when large; none for a log message the sink took), or
    /// everything once a frame is malformed or the stream has ended.
    fn make_output(&mut self) {
        // Frames are read from `input[used..]` and what they used is
        // dropped once: dropping each frame as it was read moved the rest
        // of the input every time, and dozens of log lines come in a read.
        let mut used = 0;
        while !self.passing {
            match frame_at(&self.input[used..]) {
                Some(Ok((header, length))) => {
                    let frame = used..used + header + length;
                    let body = &self.input[used + header..frame.end];
                    if !self.logged(body) {
                        match self.taken_aside(body) {
                            Some(small) => {
                                let header = format!("Content-Length: {}\r\n\r\n", small.len());
                                self.output.extend_from_slice(header.as_bytes());
                                self.output.extend_from_slice(small.as_bytes());
                            }
                            None => self.output.extend_from_slice(&self.input[frame.clone()]),
                        }
                    }
                    used = frame.end;
                }
                Some(Err(())) => self.passing = true,
                None => break,
            }
        }
        self.input.drain(..used);
        if self.passing || self.ended {
            self.output.append(&mut self.input);
        }
    }

    /// Whether `body` was a log message the sink took.
    fn logged(&self, body: &[u8]) -> bool {
        let head = &body[..body.len().min(LOG_METHOD_WITHIN)];
        if LOG_METHOD.find(head).is_none() {
            return false;
        }
        match serde_json::from_slice::<LogFrame>(body) {
            Ok(frame) if frame.method == "window/logMessage" && frame.id.is_none() => {
                match json_text(frame.params.message.get()) {
                    Some(message) => (self.log)(frame.params.kind, &message),
                    None => false,
                }
            }
            _ => false,
        }
    }

    /// The frame to send instead of `body` when its result is taken aside.
    fn taken_aside(&self, body: &[u8]) -> Option<String> {
        if body.len() < ASIDE_BYTES {
            return None;
        }
        let (id, result) = match plain_answer(body) {
            Some((id, result)) => (id, String::from_utf8(result.to_vec()).ok()?),
            None => {
                let peek: Peek = serde_json::from_slice(body).ok()?;
                let (Some(id), None, Some(result), None) =
                    (peek.id, peek.method, peek.result, peek.error)
                else {
                    return None;
                };
                (id, result.get().to_string())
            }
        };
        self.aside.keep(id, result);
        Some(format!(
            r#"{{"jsonrpc":"2.0","id":{id},"result":"\u0000aside:{id}"}}"#
        ))
    }
}

/// The text of the JSON string `raw` (JSON already: it was parsed as a
/// value), borrowed where it holds no escape, else decoded into a string
/// made its length at once: serde_json decodes a string with escapes into
/// a buffer it grows from nothing, and TypeScript 7's log lines are
/// kilobytes of escaped JSON each (the growing was half of reading them).
/// An escape this does not decode (a lone surrogate) is left to serde;
/// `None` for what serde does not take as a string either.
fn json_text(raw: &str) -> Option<Cow<'_, str>> {
    let inner = raw.strip_prefix('"')?.strip_suffix('"')?;
    if memchr::memchr(b'\\', inner.as_bytes()).is_none() {
        return Some(Cow::Borrowed(inner));
    }
    let text = decoded(inner).or_else(|| serde_json::from_str(raw).ok())?;
    Some(Cow::Owned(text))
}

/// `inner`, a JSON string's text between its quotes, with its escapes
/// decoded; `None` at an escape [`unescape`] does not decode.
fn decoded(inner: &str) -> Option<String> {
    // Never longer than as written.
    let mut text = String::with_capacity(inner.len());
    let mut rest = inner;
    while let Some(at) = memchr::memchr(b'\\', rest.as_bytes()) {
        text.push_str(&rest[..at]);
        let (decoded, after) = unescape(&rest[at + 1..])?;
        text.push(decoded);
        rest = after;
    }
    text.push_str(rest);
    Some(text)
}

/// The character of the JSON escape `escape` begins with (the text after
/// its backslash), and the text after it; `None` for one that is not a
/// character (a lone surrogate) or not an escape.
fn unescape(escape: &str) -> Option<(char, &str)> {
    let hex = |at: usize| {
        let digits = escape.get(at..at + 4)?;
        let digits_only = digits.bytes().all(|b| b.is_ascii_hexdigit());
        u32::from_str_radix(digits, 16).ok().filter(|_| digits_only)
    };
    let simple = match escape.as_bytes().first()? {
        b'"' => '"',
        b'\\' => '\\',
        b'/' => '/',
        b'b' => '\u{8}',
        b'f' => '\u{c}',
        b'n' => '\n',
        b'r' => '\r',
        b't' => '\t',
        b'u' => {
            let unit = hex(1)?;
            if !(0xD800..0xDC00).contains(&unit) {
                return Some((char::from_u32(unit)?, &escape[5..]));
            }
            // A surrogate pair: its low half is the next escape.
            if escape.get(5..7)? != "\\u" {
                return None;
            }
            let low = hex(7).filter(|low| (0xDC00..0xE000).contains(low))?;
            let code = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
            return Some((char::from_u32(code)?, &escape[11..]));
        }
        _ => return None,
    };
    Some((simple, &escape[1..]))
}

/// How TypeScript 7 and rust-analyzer begin an answer, before its id.
const PLAIN_ANSWER: &[u8] = br#"{"jsonrpc":"2.0","id":"#;

/// The id and the result of an answer written plainly (`PLAIN_ANSWER`,
/// the id, then `"result":` and the result to the closing brace), found
/// without parsing the result: telling where it ends by parsing it was a
/// tenth of sextant's CPU for a references answer of 137 KB. The result
/// is parsed anyway when its request's type is decoded from it, which
/// refuses what is not JSON (or an `"error"` written after it, which no
/// server does); any other answer is peeked at whole.
fn plain_answer(body: &[u8]) -> Option<(i64, &[u8])> {
    let rest = body.strip_prefix(PLAIN_ANSWER)?;
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    let id = std::str::from_utf8(&rest[..digits]).ok()?.parse().ok()?;
    let result = rest[digits..].strip_prefix(br#","result":"#)?;
    Some((id, result.trim_ascii_end().strip_suffix(b"}")?))
}

/// The frame at the start of `input`: the length of its header and of its
/// body, once both are there. `Err` for a header line async-lsp refuses
/// (its rule: `Name: value` and CRLF, a numeric `Content-Length`), as soon
/// as the line is whole, so async-lsp sees it as soon as it would have.
fn frame_at(input: &[u8]) -> Option<Result<(usize, usize), ()>> {
    let mut length = None;
    let mut at = 0;
    loop {
        let end = at + memchr::memchr(b'\n', &input[at..])? + 1;
        let line = &input[at..end];
        at = end;
        if line == b"\r\n" {
            break;
        }
        // Split at the first `: `, found bytewise: `str::split_once`
        // builds a substring searcher for every header line.
        let field = std::str::from_utf8(line)
            .ok()
            .and_then(|line| line.strip_suffix("\r\n"))
            .and_then(|line| {
                let bytes = line.as_bytes();
                let colon = memchr::memchr_iter(b':', bytes)
                    .find(|&at| bytes.get(at + 1) == Some(&b' '))?;
                Some((&line[..colon], &line[colon + 2..]))
            });
        let Some((name, value)) = field else {
            return Some(Err(()));
        };
        if name.eq_ignore_ascii_case("Content-Length") {
            match value.parse::<usize>() {
                Ok(value) => length = Some(value),
                Err(_) => return Some(Err(())),
            }
        }
    }
    let Some(length) = length else {
        return Some(Err(()));
    };
    // A length past what memory can hold is no frame either.
    let Some(end) = at.checked_add(length) else {
        return Some(Err(()));
    };
    (input.len() >= end).then_some(Ok((at, length)))
}

impl<R: AsyncRead + Unpin> AsyncRead for AsideReader<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = &mut *self;
        loop {
            if this.sent < this.output.len() {
                let ready = &this.output[this.sent..];
                let n = ready.len().min(buf.remaining());
                buf.put_slice(&ready[..n]);
                this.sent += n;
                if this.sent == this.output.len() {
                    this.output.clear();
                    this.sent = 0;
                }
                return Poll::Ready(Ok(()));
            }
            if this.ended {
                return Poll::Ready(Ok(()));
            }
            let mut read = ReadBuf::new(&mut this.chunk);
            match Pin::new(&mut this.inner).poll_read(cx, &mut read) {
                Poll::Ready(Ok(())) => {
                    if read.filled().is_empty() {
                        this.ended = true;
                    } else {
                        this.input.extend_from_slice(read.filled());
                    }
                    this.make_output();
                }
                Poll::Ready(Err(err)) => return Poll::Ready(Err(err)),
                Poll::Pending => return Poll::Pending,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use tokio::io::AsyncReadExt;

    fn frame(body: &str) -> String {
        format!("Content-Length: {}\r\n\r\n{body}", body.len())
    }

    /// What async-lsp reads of `input` fed in pieces of `piece` bytes, and
    /// what was taken aside.
    async fn through(input: &str, piece: usize) -> (String, Arc<Aside>) {
        let (out, aside, _) = through_logging(input, piece).await;
        (out, aside)
    }

    /// Log lines the sink takes: all but those holding "died".
    type Logged = Arc<Mutex<Vec<(lsp_types::MessageType, String)>>>;

    fn sink() -> (LogSink, Logged) {
        let logged = Logged::default();
        let kept = Arc::clone(&logged);
        let sink = Box::new(move |kind, message: &str| {
            let taken = !message.contains("died");
            if taken {
                lock(&kept).push((kind, message.to_string()));
            }
            taken
        });
        (sink, logged)
    }

    /// [`through`], and the log lines the sink took.
    async fn through_logging(
        input: &str,
        piece: usize,
    ) -> (String, Arc<Aside>, Vec<(lsp_types::MessageType, String)>) {
        let aside = Arc::new(Aside::default());
        let pieces: Vec<Vec<u8>> = input.as_bytes().chunks(piece).map(<[u8]>::to_vec).collect();
        let mut stream = pieces_of(pieces, false);
        let (sink, logged) = sink();
        let mut reader = AsideReader::new(&mut stream, Arc::clone(&aside), sink);
        let mut out = String::new();
        reader.read_to_string(&mut out).await.unwrap();
        let logged = lock(&logged).clone();
        (out, aside, logged)
    }

    /// A reader that gives `pieces` one read at a time, then the end of
    /// the stream (or, `open`, nothing more ever).
    fn pieces_of(pieces: Vec<Vec<u8>>, open: bool) -> Pieces {
        Pieces(pieces.into(), open)
    }

    struct Pieces(std::collections::VecDeque<Vec<u8>>, bool);

    impl AsyncRead for Pieces {
        fn poll_read(
            mut self: Pin<&mut Self>,
            _: &mut Context<'_>,
            buf: &mut ReadBuf<'_>,
        ) -> Poll<std::io::Result<()>> {
            if self.0.is_empty() && self.1 {
                return Poll::Pending;
            }
            if let Some(mut piece) = self.0.pop_front() {
                let n = piece.len().min(buf.remaining());
                buf.put_slice(&piece[..n]);
                if n < piece.len() {
                    self.0.push_front(piece.split_off(n));
                }
            }
            Poll::Ready(Ok(()))
        }
    }

    #[tokio::test]
    async fn a_large_result_is_taken_aside_and_the_rest_passes_as_it_came() {
        let locations = format!(
            "[{}]",
            vec![r#"{"uri":"file:///a.rs","n":1}"#; 1000].join(",")
        );
        let large = format!(r#"{{"jsonrpc":"2.0","id":7,"result":{locations}}}"#);
        let small = r#"{"jsonrpc":"2.0","id":8,"result":[1,2]}"#;
        let error = format!(
            r#"{{"jsonrpc":"2.0","id":9,"error":{{"code":-1,"message":"{}"}}}}"#,
            "x".repeat(ASIDE_BYTES)
        );
        let notification = format!(
            r#"{{"jsonrpc":"2.0","method":"textDocument/publishDiagnostics","params":{{"uri":"file:///{}","diagnostics":[]}}}}"#,
            "y".repeat(ASIDE_BYTES)
        );
        let input = [
            frame(&large),
            frame(small),
            frame(&error),
            frame(&notification),
        ]
        .concat();
        for piece in [1, 7, 4096, input.len()] {
            let (out, aside) = through(&input, piece).await;
            let expected = [
                frame(r#"{"jsonrpc":"2.0","id":7,"result":"\u0000aside:7"}"#),
                frame(small),
                frame(&error),
                frame(&notification),
            ]
            .concat();
            assert_eq!(out, expected, "in pieces of {piece}");
            // The token as async-lsp hands it over names the result.
            let token: serde_json::Value = serde_json::from_str(r#""\u0000aside:7""#).unwrap();
            let taken = aside.taken(&token).unwrap();
            assert_eq!(taken, Some(locations.clone()));
            assert!(aside.take(8).is_none() && aside.take(9).is_none());
            // Taken once: a second time it is an error, never a null.
            assert!(aside.taken(&token).is_err());
            assert!(matches!(aside.taken(&serde_json::json!([1, 2])), Ok(None)));
        }
    }

    #[tokio::test]
    async fn answers_not_written_plainly_are_taken_aside_too() {
        let result = format!("[{}]", vec!["1"; ASIDE_BYTES].join(","));
        for (id, body) in [
            (
                10,
                format!(r#"{{"id":10,"jsonrpc":"2.0","result":{result}}}"#),
            ),
            (
                11,
                format!("{{\"jsonrpc\": \"2.0\", \"id\": 11, \"result\": {result} }}\n"),
            ),
        ] {
            let (out, aside) = through(&frame(&body), 4096).await;
            let token = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":"\u0000aside:{id}"}}"#);
            assert_eq!(out, frame(&token));
            assert_eq!(aside.take(id), Some(result.clone()));
        }
    }

    #[test]
    fn a_plain_answer_is_cut_at_its_ends_and_nothing_else_is() {
        assert_eq!(
            plain_answer(b"{\"jsonrpc\":\"2.0\",\"id\":42,\"result\":{\"a\":[1]}} \r\n"),
            Some((42, &b"{\"a\":[1]}"[..]))
        );
        for other in [
            &br#"{"jsonrpc":"2.0","id":42,"error":{"code":1}}"#[..],
            br#"{"jsonrpc":"2.0","id":"x","result":1}"#,
            br#"{"jsonrpc":"2.0","id":4,"method":"a","params":{}}"#,
            br#"{"jsonrpc":"2.0","id":4,"result":[1]"#,
            br#"{"id":4,"jsonrpc":"2.0","result":[1]}"#,
        ] {
            assert_eq!(
                plain_answer(other),
                None,
                "{}",
                String::from_utf8_lossy(other)
            );
        }
    }

    /// A log line's text is what serde_json decodes of it: every escape,
    /// surrogate pairs, and what serde refuses (a lone surrogate) or does
    /// not take as a string refused alike.
    #[test]
    fn a_log_text_is_decoded_as_serde_decodes_it() {
        let mut cases: Vec<String> = [
            r#""plain, é 😀""#,
            r#""\"\\\/\b\f\n\r\t""#,
            r#""\u0041\u00e9\u00E9\u20ac x \ud83d\ude00 y \uD83D\uDE00""#,
            r#""a\ud83d""#,
            r#""a\ud83d\u0041""#,
            r#""a\ud83dz""#,
            r#""\ude00 low first""#,
            r#""\u0000 nul""#,
            r#""""#,
            r#""\\u0041 not an escape""#,
            "7",
            "null",
            r#"["x"]"#,
        ]
        .map(str::to_string)
        .into();
        // Every character class JSON may escape, written by serde and with
        // each non-ASCII character as \u escapes.
        let text: String = ('\u{0}'..'\u{80}')
            .chain(['é', '\u{2028}', '😀', '\u{10ffff}'])
            .collect();
        let written = serde_json::to_string(&text).unwrap();
        let escaped: String = written
            .chars()
            .map(|c| {
                if c.is_ascii() {
                    c.to_string()
                } else {
                    c.encode_utf16(&mut [0; 2])
                        .iter()
                        .map(|unit| format!("\\u{unit:04x}"))
                        .collect()
                }
            })
            .collect();
        cases.extend([written, escaped]);
        for raw in &cases {
            assert!(serde_json::from_str::<&RawValue>(raw).is_ok(), "{raw}");
            let serde: Option<String> = serde_json::from_str(raw).ok();
            assert_eq!(json_text(raw).map(Cow::into_owned), serde, "{raw}");
            // A string serde takes is decoded here, not left to serde.
            if let Some(serde) = serde {
                assert_eq!(decoded(&raw[1..raw.len() - 1]), Some(serde), "{raw}");
            }
        }
        // The lone surrogates are left to serde (which refuses them).
        for raw in &cases[3..7] {
            assert_eq!(decoded(&raw[1..raw.len() - 1]), None, "{raw}");
        }
        assert!(matches!(
            json_text(r#""plain""#),
            Some(Cow::Borrowed("plain"))
        ));
        // Each kind of escape, and what follows it.
        assert_eq!(unescape(r"ud83d\ude00x"), Some(('😀', "x")));
        assert_eq!(unescape(r"u00E9"), Some(('é', "")));
        assert_eq!(unescape(r"n\t"), Some(('\n', r"\t")));
        assert_eq!(unescape(r"ud83dx"), None);
        assert_eq!(unescape(r"u+041"), None);
    }

    /// Headers as async-lsp reads them: split at the first `: `, the
    /// length's name in any case, the whole line UTF-8.
    #[test]
    fn a_frame_is_found_by_the_header_rule_async_lsp_keeps() {
        assert_eq!(frame_at(b"Content-Length: 2\r\n\r\n{}"), Some(Ok((21, 2))));
        let odd = b"X-A:b: c\r\ncontent-length: 2\r\n\r\n{}";
        assert_eq!(frame_at(odd), Some(Ok((odd.len() - 2, 2))));
        assert_eq!(
            frame_at(b"Content-Length: 2\r\n\r\n{"),
            None,
            "not all there"
        );
        for refused in [
            &b"Content-Length:2\r\n\r\n{}"[..],
            b"X-A:b\r\nContent-Length: 2\r\n\r\n{}",
            b"X-\xff: b\r\nContent-Length: 2\r\n\r\n{}",
            b"Content-Length: 2\n\r\n{}",
            b"Content-Length: two\r\n\r\n{}",
            b"X-A: b\r\n\r\n{}",
            b"Content-Length: 18446744073709551615\r\n\r\n{}",
        ] {
            assert_eq!(
                frame_at(refused),
                Some(Err(())),
                "{}",
                refused.escape_ascii()
            );
        }
    }

    #[tokio::test]
    async fn bytes_that_are_no_frame_pass_on_untouched() {
        let large = format!(
            r#"{{"jsonrpc":"2.0","id":1,"result":"{}"}}"#,
            "z".repeat(ASIDE_BYTES)
        );
        // A header without a length, then a frame that would be taken aside.
        let input = format!("Garbage: 1\r\n\r\n{}", frame(&large));
        let (out, aside) = through(&input, 1000).await;
        assert_eq!(out, input);
        assert!(aside.take(1).is_none());
        // A line that is no header passes on at once, the stream open.
        let aside = Arc::new(Aside::default());
        let mut stream = pieces_of(vec![b"oops\n".to_vec()], true);
        let mut reader = AsideReader::new(&mut stream, aside, sink().0);
        let mut first = [0u8; 16];
        let n = reader.read(&mut first).await.unwrap();
        assert_eq!(&first[..n], b"oops\n");
        // A frame cut short by the end of the stream.
        let cut = &frame(&large)[..100];
        assert_eq!(through(cut, 10).await.0, cut);
    }

    #[tokio::test]
    async fn log_messages_go_to_the_sink_unless_it_leaves_them() {
        // A long line, with what JSON escapes (a line end, a quote, a
        // character outside the BMP as a surrogate pair) decoded once.
        let text = format!(
            "\n== Runtime Metrics ==\n\"{}\" é 😀",
            "m".repeat(ASIDE_BYTES)
        );
        let escaped = serde_json::to_string(&text)
            .unwrap()
            .replace('😀', r"\ud83d\ude00");
        let log = |kind: i32, message: &str| {
            frame(&format!(
                r#"{{"jsonrpc":"2.0","method":"window/logMessage","params":{{"type":{kind},"message":{message}}}}}"#
            ))
        };
        let answer = frame(r#"{"jsonrpc":"2.0","id":3,"result":[1]}"#);
        let left = [
            // The sink leaves it.
            log(1, r#""the server died""#),
            // Not a log message's params.
            log(1, "7"),
            frame(
                r#"{"jsonrpc":"2.0","method":"window/logMessage","params":{"type":"info","message":"x"}}"#,
            ),
            // A request of that name.
            frame(
                r#"{"jsonrpc":"2.0","id":4,"method":"window/logMessage","params":{"type":3,"message":"x"}}"#,
            ),
            // Its method named past where it is looked for.
            frame(&format!(
                r#"{{"jsonrpc":"2.0","params":{{"type":3,"message":"{}"}},"method":"window/logMessage"}}"#,
                "z".repeat(LOG_METHOD_WITHIN)
            )),
        ];
        let input = [
            log(4, &escaped),
            answer.clone(),
            log(3, r#""short""#),
            left.concat(),
            log(1, r#""last""#),
        ]
        .concat();
        for piece in [1, 5, 4096, input.len()] {
            let (out, _, logged) = through_logging(&input, piece).await;
            assert_eq!(
                out,
                [answer.clone(), left.concat()].concat(),
                "in pieces of {piece}"
            );
            let expected = vec![
                (lsp_types::MessageType::LOG, text.clone()),
                (lsp_types::MessageType::INFO, "short".to_string()),
                (lsp_types::MessageType::ERROR, "last".to_string()),
            ];
            assert_eq!(logged, expected, "in pieces of {piece}");
        }
    }
}
