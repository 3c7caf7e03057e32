//! `--input camera:http://HOST:PORT/PATH`: a network camera, as phone
//! camera apps (IP Webcam, DroidCam and the like) and IP cameras serve it:
//! one HTTP response that never ends, `multipart/x-mixed-replace`, each
//! part a JPEG frame.
//!
//! Plain `std::net` with timeouts on every read, `http`'s URI parser and
//! `httparse` for the response's and each part's headers (both already in
//! the tree, under the spectator page's hyper): an HTTP client crate would
//! bring a runtime or TLS for what is one GET, and none we found times out
//! a read on an endless body. The parts are framed here, bounded
//! everywhere, since the stream comes from anyone on the room's network.
//!
//! - Opening connects once and reads the response head: a wrong address, a
//!   refused port, a server that answers nothing, an answer that is not a
//!   multipart stream all fail at once, in one line naming the address.
//! - Mid-game, a stream that ends, breaks or sends nothing for
//!   [`READ_IDLE`] is reconnected, after a wait that grows from
//!   [`RECONNECT_FIRST`] to [`RECONNECT_MOST`]; each failed try is a
//!   [`FrameError::Reconnecting`], which the frames loop shows as the
//!   input's health. A shorter silence is the frames loop's stall.
//! - A part that is not a JPEG, or is cut short, is one lost frame. A part
//!   larger than [`MAX_PART`] is no camera's frame: the stream is dropped
//!   and taken up again.
//! - The close delimiter (`--BOUNDARY--`) is the camera saying the stream
//!   is over: the input ends, as a recording's last frame ends it.
//! - A login in the address (`http://USER:PASSWORD@…`) is sent as HTTP
//!   Basic, and the password is left out of the address wherever it is
//!   shown. A camera that asks for a login is answered with what to do.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

use image::{ImageFormat, RgbImage};

use crate::frames::{Frame, FrameError, FrameSource};

/// How long opening waits for the connection and then for the response's
/// head: a camera answers in milliseconds; this fails fast on a wrong
/// address.
pub const OPEN_TIMEOUT: Duration = Duration::from_secs(5);

/// A read that waits this long for a byte gives the connection up: the
/// phone slept, the app went to the background, the Wi-Fi dropped. (The
/// frames loop says "stalled" well before.)
pub const READ_IDLE: Duration = Duration::from_secs(8);

/// The first wait before connecting again, doubled at each failure...
pub const RECONNECT_FIRST: Duration = Duration::from_millis(250);
/// ...up to this.
pub const RECONNECT_MOST: Duration = Duration::from_secs(8);

/// The largest part taken as a frame: a 4K JPEG is a few megabytes.
pub const MAX_PART: usize = 16 << 20;

/// The most bytes of headers (the response's, or a part's).
const MAX_HEAD: usize = 16 << 10;

/// Where a network camera is: parsed from
/// `http://[USER[:PASSWORD]@]HOST[:PORT]/PATH`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CameraUrl {
    /// As given, for messages, with any password left out: the address is
    /// the input's name, on the view, the log, the journal and the
    /// spectator page that strangers read.
    pub text: String,
    host: String,
    port: u16,
    path: String,
    login: Option<Login>,
}

/// A camera's login, sent as HTTP Basic (phone apps and most IP cameras
/// take it; it is plain text on the room's network, as the stream is).
#[derive(Clone, PartialEq, Eq)]
struct Login {
    user: String,
    password: String,
}

impl std::fmt::Debug for Login {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Login({:?}, password left out)", self.user)
    }
}

impl Login {
    /// The `Authorization` header's value.
    fn basic(&self) -> String {
        use base64::Engine;
        let pair = format!("{}:{}", self.user, self.password);
        format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(pair)
        )
    }
}

/// `s` with the password of any `USER:PASSWORD@` left out, for messages.
fn without_password(s: &str) -> String {
    let Some(from) = s.find("://").map(|i| i + 3) else {
        return s.to_string();
    };
    let authority_end = s[from..]
        .find(['/', '?', '#'])
        .map_or(s.len(), |i| from + i);
    let Some(at) = s[from..authority_end].rfind('@').map(|i| from + i) else {
        return s.to_string();
    };
    let user = s[from..at].split(':').next().unwrap_or("");
    format!("{}{user}@{}", &s[..from], &s[at + 1..])
}

/// `%XX` escapes decoded, as a URL's user and password are written
/// (`p%40ss` for `p@ss`); anything else kept as it is.
fn percent_decoded(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2]))
        {
            out.push((h * 16 + l) as u8);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// An address that is no network camera's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BadUrl {
    #[error("{0}: not an address: {1}")]
    Parse(String, String),
    #[error("{0}: only http:// streams are read (a phone app's address starts so); {1} is not")]
    Scheme(String, String),
    #[error("{0}: the address names no host")]
    NoHost(String),
}

impl std::str::FromStr for CameraUrl {
    type Err = BadUrl;

    fn from_str(s: &str) -> Result<CameraUrl, BadUrl> {
        let said = without_password(s);
        let uri: http::Uri = s
            .parse()
            .map_err(|e: http::uri::InvalidUri| BadUrl::Parse(said.clone(), e.to_string()))?;
        match uri.scheme_str() {
            Some("http") => {}
            Some(other) => return Err(BadUrl::Scheme(said, format!("{other}://"))),
            None => return Err(BadUrl::Scheme(said, "an address without one".into())),
        }
        let host = uri
            .host()
            .filter(|h| !h.is_empty())
            .ok_or_else(|| BadUrl::NoHost(said.clone()))?;
        let login = uri
            .authority()
            .and_then(|a| a.as_str().rsplit_once('@'))
            .map(|(userinfo, _)| {
                let (user, password) = userinfo.split_once(':').unwrap_or((userinfo, ""));
                Login {
                    user: percent_decoded(user),
                    password: percent_decoded(password),
                }
            });
        // `[::1]` is written bracketed in a URI, bare to the resolver.
        let host = host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_string();
        Ok(CameraUrl {
            text: said,
            host,
            port: uri.port_u16().unwrap_or(80),
            path: uri
                .path_and_query()
                .map_or("/".to_string(), |p| p.as_str().to_string()),
            login,
        })
    }
}

impl std::fmt::Display for CameraUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.text)
    }
}

/// Why a stream could not be had or went on no further; said with the
/// address in front.
#[derive(Debug)]
enum StreamError {
    /// Nothing to do but try again.
    Lost(String),
    /// The camera closed the stream on purpose (`--BOUNDARY--`).
    Closed,
}

fn lost(e: impl std::fmt::Display) -> StreamError {
    StreamError::Lost(e.to_string())
}

/// A network camera, streaming.
pub struct NetworkCamera {
    url: CameraUrl,
    stream: Option<Parts>,
    started: Instant,
    frames: u64,
    /// Failed tries since the stream was last lost.
    tries: u32,
}

impl NetworkCamera {
    /// Connects to the camera and checks that it serves a multipart
    /// stream, within [`OPEN_TIMEOUT`]: every failure names the address.
    pub fn open(url: &CameraUrl) -> Result<NetworkCamera, FrameError> {
        let stream = Parts::connect(url, OPEN_TIMEOUT)
            .map_err(|e| FrameError::Source(format!("camera:{url}: {e}")))?;
        Ok(NetworkCamera {
            url: url.clone(),
            stream: Some(stream),
            started: Instant::now(),
            frames: 0,
            tries: 0,
        })
    }

    fn label(&self) -> String {
        format!("camera:{} #{}", self.url, self.frames)
    }

    /// The stream is gone (why): the next call tries again. The why is
    /// said after the input's name (the view's status line, `watch`'s
    /// stderr), so it does not repeat the address.
    fn drop_stream(&mut self, why: String) -> FrameError {
        self.stream = None;
        FrameError::Reconnecting(why)
    }

    /// Waits, then connects again; an error says when it tries next.
    fn reconnect(&mut self) -> Result<(), FrameError> {
        let wait = RECONNECT_FIRST
            .saturating_mul(1 << self.tries.min(8))
            .min(RECONNECT_MOST);
        std::thread::sleep(wait);
        self.tries += 1;
        match Parts::connect(&self.url, OPEN_TIMEOUT) {
            Ok(s) => {
                self.stream = Some(s);
                self.tries = 0;
                Ok(())
            }
            Err(e) => {
                let next = RECONNECT_FIRST
                    .saturating_mul(1 << self.tries.min(8))
                    .min(RECONNECT_MOST);
                Err(FrameError::Reconnecting(format!(
                    "{e}; trying again in {:.1} s",
                    next.as_secs_f32()
                )))
            }
        }
    }
}

impl FrameSource for NetworkCamera {
    fn name(&self) -> String {
        format!("camera:{}", self.url)
    }

    fn live(&self) -> bool {
        true
    }

    fn next_frame(&mut self) -> Result<Option<Frame>, FrameError> {
        if self.stream.is_none() {
            self.reconnect()?;
        }
        let Some(parts) = self.stream.as_mut() else {
            return Err(FrameError::Reconnecting("not connected".to_string()));
        };
        match parts.next_part() {
            Ok(bytes) => {
                self.frames += 1;
                let at = self.started.elapsed();
                let image = decode(&bytes).map_err(|e| {
                    FrameError::Frame(format!(
                        "frame #{}: not a whole JPEG frame: {e}",
                        self.frames
                    ))
                })?;
                Ok(Some(Frame {
                    image,
                    at,
                    label: self.label(),
                }))
            }
            Err(StreamError::Closed) => Ok(None),
            Err(StreamError::Lost(why)) => Err(self.drop_stream(why)),
        }
    }
}

/// A part's JPEG, decoded; a part cut short is refused before decoding,
/// since a lenient decoder fills a torn frame's missing rows with grey,
/// which would read as a hand sweeping the table.
fn decode(bytes: &[u8]) -> Result<RgbImage, String> {
    if !bytes.starts_with(&[0xFF, 0xD8]) {
        return Err("it does not begin as a JPEG does".into());
    }
    // The end-of-image marker, before any padding a camera adds.
    let end = bytes
        .iter()
        .rposition(|&b| !matches!(b, 0 | b'\r' | b'\n'))
        .map_or(0, |i| i + 1);
    if !bytes[..end].ends_with(&[0xFF, 0xD9]) {
        return Err(format!(
            "it is cut short ({} bytes, no end-of-image marker)",
            bytes.len()
        ));
    }
    image::load_from_memory_with_format(bytes, ImageFormat::Jpeg)
        .map(|i| i.to_rgb8())
        .map_err(|e| e.to_string())
}

/// One HTTP response's body, split into its parts.
struct Parts {
    body: Body,
    /// The delimiter line, `--BOUNDARY`.
    delimiter: Vec<u8>,
    /// The delimiter before the next part was read already (a part without
    /// a length ends where it begins).
    at_part: bool,
}

impl Parts {
    /// GETs `url` and reads the response head: a multipart stream, or why
    /// not.
    fn connect(url: &CameraUrl, timeout: Duration) -> Result<Parts, String> {
        let addrs: Vec<SocketAddr> = (url.host.as_str(), url.port)
            .to_socket_addrs()
            .map_err(|e| format!("cannot find {}: {e}", url.host))?
            .collect();
        let mut last = format!("{} has no address", url.host);
        let mut tcp = None;
        for a in &addrs {
            match TcpStream::connect_timeout(a, timeout) {
                Ok(s) => {
                    tcp = Some(s);
                    break;
                }
                Err(e) => last = connect_error(&e, a),
            }
        }
        let mut tcp = tcp.ok_or(last)?;
        let io = |e: io::Error| match e.kind() {
            io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => format!(
                "connected, but the server answered nothing in {} s: is this the camera's stream address?",
                timeout.as_secs()
            ),
            _ => format!("the connection failed: {e}"),
        };
        tcp.set_read_timeout(Some(timeout)).map_err(io)?;
        tcp.set_write_timeout(Some(timeout)).map_err(io)?;
        let _ = tcp.set_nodelay(true);
        let host = if url.port == 80 {
            url.host.clone()
        } else {
            format!("{}:{}", url.host, url.port)
        };
        // HTTP/1.1 with the connection closed at the end: a stream that
        // comes chunked is read as such.
        let authorization = url
            .login
            .as_ref()
            .map(|l| format!("Authorization: {}\r\n", l.basic()))
            .unwrap_or_default();
        write!(
            tcp,
            "GET {} HTTP/1.1\r\nHost: {host}\r\nUser-Agent: arbiter/{}\r\nAccept: multipart/x-mixed-replace, image/jpeg\r\n{authorization}Connection: close\r\n\r\n",
            url.path,
            env!("CARGO_PKG_VERSION")
        )
        .map_err(io)?;
        let mut reader = BufReader::with_capacity(64 << 10, tcp);
        let head = read_head(&mut reader).map_err(|e| match e {
            HeadError::Io(e) => io(e),
            HeadError::Ended => "the server closed the connection without answering".into(),
            other => format!("not an HTTP answer: {other}"),
        })?;
        let mut headers = [httparse::EMPTY_HEADER; 64];
        let mut response = httparse::Response::new(&mut headers);
        match response.parse(&head) {
            Ok(httparse::Status::Complete(_)) => {}
            Ok(httparse::Status::Partial) | Err(_) => {
                return Err(
                    "the server's answer is not HTTP: is this a camera's stream address?".into(),
                );
            }
        }
        let code = response.code.unwrap_or(0);
        if code == 401 {
            let asks = response
                .headers
                .iter()
                .filter(|h| h.name.eq_ignore_ascii_case("www-authenticate"))
                .map(|h| String::from_utf8_lossy(h.value).trim().to_ascii_lowercase())
                .collect::<Vec<_>>();
            return Err(refused_login(url.login.as_ref(), &asks));
        }
        if code != 200 {
            return Err(format!(
                "the server answered {code} {}: is the path right? (a phone app shows its stream's address)",
                response.reason.unwrap_or("")
            ));
        }
        let header = |name: &str| {
            response
                .headers
                .iter()
                .find(|h| h.name.eq_ignore_ascii_case(name))
                .map(|h| String::from_utf8_lossy(h.value).trim().to_string())
        };
        let content_type = header("content-type").unwrap_or_default();
        let boundary = boundary_of(&content_type)?;
        let chunked =
            header("transfer-encoding").is_some_and(|t| t.to_ascii_lowercase().contains("chunked"));
        reader
            .get_ref()
            .set_read_timeout(Some(READ_IDLE))
            .map_err(io)?;
        let body = if chunked {
            Body::Chunked(Chunked::new(reader))
        } else {
            Body::Plain(reader)
        };
        let mut delimiter = b"--".to_vec();
        delimiter.extend_from_slice(boundary.as_bytes());
        Ok(Parts {
            body,
            delimiter,
            at_part: false,
        })
    }

    /// The next part of the stream: its bytes.
    fn next_part(&mut self) -> Result<Vec<u8>, StreamError> {
        if !self.at_part {
            self.find_delimiter()?;
        }
        self.at_part = false;
        let head = read_head(&mut self.body).map_err(|e| match e {
            HeadError::Io(e) => lost(describe_read(&e)),
            HeadError::Ended => lost("the stream ended"),
            other => lost(format!("a part's headers: {other}")),
        })?;
        let mut headers = [httparse::EMPTY_HEADER; 32];
        let length = match httparse::parse_headers(&head, &mut headers) {
            Ok(httparse::Status::Complete((_, hs))) => hs
                .iter()
                .find(|h| h.name.eq_ignore_ascii_case("content-length"))
                .map(|h| {
                    std::str::from_utf8(h.value)
                        .ok()
                        .and_then(|v| v.trim().parse::<usize>().ok())
                        .ok_or_else(|| lost("a part's length is not a number"))
                })
                .transpose()?,
            _ => return Err(lost("a part's headers are not headers")),
        };
        match length {
            Some(n) if n > MAX_PART => Err(lost(format!(
                "a part of {} MB is no camera frame (at most {} MB)",
                n >> 20,
                MAX_PART >> 20
            ))),
            Some(n) => {
                let mut bytes = vec![0; n];
                match self.body.read_exact(&mut bytes) {
                    Ok(()) => Ok(bytes),
                    Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => {
                        Err(lost("the stream ended inside a frame"))
                    }
                    Err(e) => Err(lost(describe_read(&e))),
                }
            }
            None => self.read_to_delimiter(),
        }
    }

    /// Reads up to and through the next delimiter line. Anything before it
    /// (the CRLF after a part, a preamble) is passed over, within bounds.
    fn find_delimiter(&mut self) -> Result<(), StreamError> {
        let mut skipped = 0;
        let mut line = Vec::new();
        loop {
            line.clear();
            let n = read_line(&mut self.body, &mut line, MAX_HEAD).map_err(|e| match e {
                HeadError::Io(e) => lost(describe_read(&e)),
                HeadError::Ended => lost("the stream ended"),
                other => lost(other),
            })?;
            skipped += n;
            let text = trim_line(&line);
            if let Some(rest) = text.strip_prefix(self.delimiter.as_slice()) {
                return if rest.starts_with(b"--") {
                    Err(StreamError::Closed)
                } else {
                    Ok(())
                };
            }
            if skipped > MAX_PART {
                return Err(lost(format!(
                    "no part boundary ({}) in {} MB of the stream",
                    String::from_utf8_lossy(&self.delimiter),
                    MAX_PART >> 20
                )));
            }
        }
    }

    /// A part without a length: its bytes up to the next delimiter line,
    /// which is consumed (the CRLF before it belongs to the delimiter).
    fn read_to_delimiter(&mut self) -> Result<Vec<u8>, StreamError> {
        let mut bytes = Vec::new();
        let mut line = Vec::new();
        loop {
            line.clear();
            match read_line(&mut self.body, &mut line, MAX_PART + 1) {
                Ok(_) => {}
                Err(HeadError::Ended) => return Err(lost("the stream ended inside a frame")),
                Err(HeadError::Io(e)) => return Err(lost(describe_read(&e))),
                Err(other) => return Err(lost(other)),
            }
            if let Some(rest) = trim_line(&line).strip_prefix(self.delimiter.as_slice()) {
                // The line break before the delimiter is not the frame's.
                if bytes.ends_with(b"\r\n") {
                    bytes.truncate(bytes.len() - 2);
                } else if bytes.ends_with(b"\n") {
                    bytes.truncate(bytes.len() - 1);
                }
                if rest.starts_with(b"--") {
                    // The last frame, then the end: the frame first.
                    self.at_part = false;
                } else {
                    self.at_part = true;
                }
                return Ok(bytes);
            }
            bytes.extend_from_slice(&line);
            if bytes.len() > MAX_PART {
                return Err(lost(format!(
                    "a part over {} MB is no camera frame",
                    MAX_PART >> 20
                )));
            }
        }
    }
}

fn connect_error(e: &io::Error, a: &SocketAddr) -> String {
    match e.kind() {
        io::ErrorKind::ConnectionRefused => {
            format!("nothing listens at {a}: is the camera app running, and the port right?")
        }
        io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock => format!(
            "no answer from {a} in {} s: is the phone on this network?",
            OPEN_TIMEOUT.as_secs()
        ),
        _ => format!("cannot connect to {a}: {e}"),
    }
}

fn describe_read(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => {
            format!("nothing came for {} s", READ_IDLE.as_secs())
        }
        _ => format!("the stream broke: {e}"),
    }
}

/// What to say when the camera answers 401, by what it asks for
/// (`WWW-Authenticate`, lowercased) and what the address gave.
fn refused_login(login: Option<&Login>, asks: &[String]) -> String {
    let basic = asks.is_empty() || asks.iter().any(|a| a.starts_with("basic"));
    match login {
        _ if !basic => format!(
            "the camera asks for a login arbiter does not speak ({}): allow Basic login, or none, in its settings",
            asks.iter()
                .map(|a| a.split_whitespace().next().unwrap_or(""))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        None => "the camera asks for a login: give it in the address, as http://USER:PASSWORD@HOST:PORT/PATH".to_string(),
        Some(l) => format!(
            "the camera refused the login in the address (user {:?}): check the user and password the app or camera shows",
            l.user
        ),
    }
}

/// The boundary a `multipart/...; boundary=B` content type names.
fn boundary_of(content_type: &str) -> Result<String, String> {
    let lower = content_type.to_ascii_lowercase();
    if !lower.starts_with("multipart/") {
        let what = if content_type.is_empty() {
            "no content type".to_string()
        } else {
            content_type.to_string()
        };
        return Err(format!(
            "the server sends {what}, not a camera's stream (multipart/x-mixed-replace): \
             give the app's video or MJPEG address"
        ));
    }
    let param = content_type
        .split(';')
        .skip(1)
        .filter_map(|p| p.split_once('='))
        .find(|(k, _)| k.trim().eq_ignore_ascii_case("boundary"))
        .map(|(_, v)| v.trim().trim_matches('"').to_string())
        .filter(|b| !b.is_empty());
    match param {
        // Some cameras write the delimiter's dashes into the parameter
        // (`boundary=--b`), and delimit with `--b` or `----b`: both are
        // read as `--b` (see [`trim_line`]).
        Some(b) => Ok(b.strip_prefix("--").map_or(b.clone(), str::to_string)),
        None => Err(format!(
            "the server's multipart stream names no boundary ({content_type:?}), so its frames cannot be told apart"
        )),
    }
}

/// A line without its line break and trailing spaces.
fn trim_line(line: &[u8]) -> &[u8] {
    let mut end = line.len();
    while end > 0 && matches!(line[end - 1], b'\r' | b'\n' | b' ' | b'\t') {
        end -= 1;
    }
    // A delimiter written with the parameter's own leading dashes
    // (`----b` for `boundary=--b`) reads as `--b` once two are dropped.
    let mut start = 0;
    while line.len() >= start + 4 && &line[start..start + 4] == b"----" {
        start += 2;
    }
    &line[start.min(end)..end]
}

#[derive(Debug, thiserror::Error)]
enum HeadError {
    #[error("{0}")]
    Io(io::Error),
    #[error("the stream ended")]
    Ended,
    #[error("headers longer than {MAX_HEAD} bytes")]
    TooLong,
}

/// Reads one line (through its `\n`) into `out`, at most `max` bytes;
/// the bytes read.
fn read_line(r: &mut impl BufRead, out: &mut Vec<u8>, max: usize) -> Result<usize, HeadError> {
    let start = out.len();
    loop {
        let buf = match r.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(HeadError::Io(e)),
        };
        if buf.is_empty() {
            return if out.len() > start {
                Ok(out.len() - start)
            } else {
                Err(HeadError::Ended)
            };
        }
        let (take, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (buf.len(), false),
        };
        out.extend_from_slice(&buf[..take]);
        r.consume(take);
        if done {
            return Ok(out.len() - start);
        }
        if out.len() - start > max {
            return Err(HeadError::TooLong);
        }
    }
}

/// Reads header lines through the empty line that ends them (leading
/// empty lines passed over), at most [`MAX_HEAD`] bytes.
fn read_head(r: &mut impl BufRead) -> Result<Vec<u8>, HeadError> {
    let mut head = Vec::new();
    loop {
        let before = head.len();
        read_line(r, &mut head, MAX_HEAD)?;
        let line = &head[before..];
        if line == b"\r\n" || line == b"\n" {
            if before == 0 {
                head.clear();
                continue;
            }
            return Ok(head);
        }
        if head.len() > MAX_HEAD {
            return Err(HeadError::TooLong);
        }
    }
}

/// The response's body: as sent, or chunked.
enum Body {
    Plain(BufReader<TcpStream>),
    Chunked(Chunked),
}

impl Read for Body {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Body::Plain(r) => r.read(buf),
            Body::Chunked(r) => r.read(buf),
        }
    }
}

impl BufRead for Body {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        match self {
            Body::Plain(r) => r.fill_buf(),
            Body::Chunked(r) => r.fill_buf(),
        }
    }

    fn consume(&mut self, n: usize) {
        match self {
            Body::Plain(r) => r.consume(n),
            Body::Chunked(r) => r.consume(n),
        }
    }
}

/// A `Transfer-Encoding: chunked` body, unchunked.
struct Chunked {
    inner: BufReader<TcpStream>,
    /// Bytes left in the current chunk.
    left: usize,
    ended: bool,
}

impl Chunked {
    fn new(inner: BufReader<TcpStream>) -> Chunked {
        Chunked {
            inner,
            left: 0,
            ended: false,
        }
    }

    /// Reads the next chunk's size line (after the previous chunk's CRLF).
    fn next_chunk(&mut self) -> io::Result<()> {
        let mut line = Vec::new();
        let bad = |what: &str| io::Error::new(io::ErrorKind::InvalidData, what.to_string());
        loop {
            line.clear();
            match read_line(&mut self.inner, &mut line, 1024) {
                Ok(_) => {}
                Err(HeadError::Io(e)) => return Err(e),
                Err(HeadError::Ended) => {
                    self.ended = true;
                    return Ok(());
                }
                Err(HeadError::TooLong) => return Err(bad("a chunk size line too long")),
            }
            let text = String::from_utf8_lossy(&line);
            let size = text.trim().split(';').next().unwrap_or("").trim();
            if size.is_empty() {
                continue; // the CRLF closing the previous chunk
            }
            let n = usize::from_str_radix(size, 16).map_err(|_| bad("a chunk size is not hex"))?;
            if n == 0 {
                self.ended = true;
            }
            self.left = n;
            return Ok(());
        }
    }
}

impl Read for Chunked {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let avail = self.fill_buf()?;
        let n = avail.len().min(buf.len());
        buf[..n].copy_from_slice(&avail[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for Chunked {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.left == 0 && !self.ended {
            self.next_chunk()?;
        }
        if self.ended {
            return Ok(&[]);
        }
        let buf = self.inner.fill_buf()?;
        let n = buf.len().min(self.left);
        Ok(&buf[..n])
    }

    fn consume(&mut self, n: usize) {
        let n = n.min(self.left);
        self.inner.consume(n);
        self.left -= n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_torn_or_foreign_part_is_no_frame() {
        let dir = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../fixtures/recordings/demo/000.jpg"
        );
        let jpeg = std::fs::read(dir).unwrap();
        assert!(decode(&jpeg).is_ok());
        let mut padded = jpeg.clone();
        padded.extend_from_slice(b"\r\n\0");
        assert!(
            decode(&padded).is_ok(),
            "padding after the marker is no tear"
        );
        let torn = decode(&jpeg[..jpeg.len() / 2]).unwrap_err();
        assert!(torn.contains("cut short"), "{torn}");
        assert!(decode(b"<html>").unwrap_err().contains("does not begin"));
    }

    #[test]
    fn addresses_parse_or_say_why() {
        let u: CameraUrl = "http://192.168.1.20:8080/video".parse().unwrap();
        assert_eq!(
            (u.host.as_str(), u.port, u.path.as_str()),
            ("192.168.1.20", 8080, "/video")
        );
        let u: CameraUrl = "http://cam.local/mjpg/video.mjpg?res=720".parse().unwrap();
        assert_eq!((u.port, u.path.as_str()), (80, "/mjpg/video.mjpg?res=720"));
        let u: CameraUrl = "http://[::1]:81/".parse().unwrap();
        assert_eq!(u.host, "::1");
        assert!(matches!(
            "https://x/".parse::<CameraUrl>(),
            Err(BadUrl::Scheme(..))
        ));
        assert!(matches!(
            "rtsp://x/".parse::<CameraUrl>(),
            Err(BadUrl::Scheme(..))
        ));
        assert!("http://".parse::<CameraUrl>().is_err());
        assert!(matches!(
            "http:// x".parse::<CameraUrl>(),
            Err(BadUrl::Parse(..))
        ));
    }

    /// A login in the address is sent as Basic, and its password is in
    /// no message, no name and no debug print.
    #[test]
    fn a_login_in_the_address_is_sent_and_never_shown() {
        let u: CameraUrl = "http://admin:p%40ss:w0rd@192.168.1.20:8080/video"
            .parse()
            .unwrap();
        assert_eq!(
            (u.host.as_str(), u.port, u.path.as_str()),
            ("192.168.1.20", 8080, "/video")
        );
        let login = u.login.clone().unwrap();
        assert_eq!(
            (login.user.as_str(), login.password.as_str()),
            ("admin", "p@ss:w0rd")
        );
        assert_eq!(u.text, "http://admin@192.168.1.20:8080/video");
        assert_eq!(u.to_string(), u.text);
        assert!(!format!("{u:?}").contains("w0rd"), "{u:?}");
        // RFC 7617's example.
        let aladdin = Login {
            user: "Aladdin".into(),
            password: "open sesame".into(),
        };
        assert_eq!(aladdin.basic(), "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==");
        // A user alone, and no login.
        let u: CameraUrl = "http://viewer@cam.local/video".parse().unwrap();
        assert_eq!(u.login.unwrap().password, "");
        assert_eq!(
            "http://cam.local/video".parse::<CameraUrl>().unwrap().login,
            None
        );
        // An address refused still keeps the password to itself.
        let refused = "https://admin:secret@cam.local/"
            .parse::<CameraUrl>()
            .unwrap_err()
            .to_string();
        assert!(
            !refused.contains("secret") && refused.contains("admin@cam.local"),
            "{refused}"
        );
        assert_eq!(without_password("http://a:b@h:1/p@q"), "http://a@h:1/p@q");
        assert_eq!(without_password("http://h/p@q"), "http://h/p@q");
        assert_eq!(percent_decoded("50%"), "50%");
    }

    #[test]
    fn a_refused_login_says_what_to_do() {
        let asks = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(
            refused_login(None, &asks(&["basic realm=\"ip webcam\""]))
                .contains("give it in the address")
        );
        assert!(refused_login(None, &[]).contains("give it in the address"));
        let l = Login {
            user: "admin".into(),
            password: "x".into(),
        };
        let said = refused_login(Some(&l), &asks(&["basic realm=\"cam\""]));
        assert!(
            said.contains("refused the login") && said.contains("\"admin\""),
            "{said}"
        );
        let said = refused_login(Some(&l), &asks(&["digest realm=\"cam\", nonce=\"1\""]));
        assert!(
            said.contains("(digest)") && said.contains("allow Basic"),
            "{said}"
        );
    }

    #[test]
    fn the_boundary_is_found_however_it_is_written() {
        let b = |ct: &str| boundary_of(ct);
        assert_eq!(
            b("multipart/x-mixed-replace; boundary=frame").unwrap(),
            "frame"
        );
        assert_eq!(
            b("multipart/x-mixed-replace;boundary=\"--myboundary\"").unwrap(),
            "myboundary"
        );
        assert_eq!(b("Multipart/X-Mixed-Replace; BOUNDARY=b").unwrap(), "b");
        assert!(
            b("multipart/x-mixed-replace")
                .unwrap_err()
                .contains("names no boundary")
        );
        assert!(
            b("text/html")
                .unwrap_err()
                .contains("text/html, not a camera")
        );
        assert!(b("").unwrap_err().contains("no content type"));
        // Both ways of writing the delimiter read as one.
        assert_eq!(trim_line(b"--b\r\n"), b"--b");
        assert_eq!(trim_line(b"----b\r\n"), b"--b");
        assert_eq!(trim_line(b"--b--\r\n"), b"--b--");
    }
}
