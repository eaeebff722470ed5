//! A minimal HTTP/1.1 client over `std::net::TcpStream`: enough for etcd's JSON gateway (a POST
//! with a JSON body, a reply with a length or in chunks), with one kept-alive connection and
//! time limits on connecting, writing and reading. Plain HTTP only: no TLS.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

/// The most a reply may hold: far more than any answer of this lesson.
const MAX_BODY: usize = 16 * 1024 * 1024;
/// The longest status or header line read.
const MAX_LINE: usize = 64 * 1024;

/// An `http://host:port` address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Url {
    pub host: String,
    pub port: u16,
}

impl Url {
    /// Reads `http://host[:port][/]` (port 2379, etcd's, when missing); why not, if it is not
    /// one. `https` is refused: this client speaks no TLS.
    pub fn parse(text: &str) -> Result<Url, String> {
        let text = text.trim();
        if text.starts_with("https://") {
            return Err(format!(
                "{text} uses TLS, which fencing-lab's etcd client does not speak; give the plain \
                 http:// address of a member, or run the lesson on its own etcd (no --etcd)"
            ));
        }
        let rest = text
            .strip_prefix("http://")
            .unwrap_or(text)
            .trim_end_matches('/');
        if rest.is_empty() || rest.contains('/') || rest.contains('@') || rest.contains("://") {
            return Err(format!(
                "'{text}' is not an etcd address like http://127.0.0.1:2379"
            ));
        }
        let (host, port) = match rest.rsplit_once(':') {
            Some((host, port)) if !host.ends_with(':') && !host.is_empty() => {
                let port = port.parse::<u16>().ok().filter(|p| *p > 0).ok_or_else(|| {
                    format!("'{text}' has no port from 1 to 65535 after its host")
                })?;
                (host, port)
            }
            _ => (rest, 2379),
        };
        let host = host.trim_start_matches('[').trim_end_matches(']');
        if host.is_empty() {
            return Err(format!("'{text}' names no host"));
        }
        Ok(Url {
            host: host.to_owned(),
            port,
        })
    }
}

impl std::fmt::Display for Url {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.host.contains(':') {
            write!(f, "http://[{}]:{}", self.host, self.port)
        } else {
            write!(f, "http://{}:{}", self.host, self.port)
        }
    }
}

/// A reply: its status and its body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Response {
    pub status: u16,
    pub body: Vec<u8>,
}

/// One connection to one server, opened when first needed and kept alive between requests.
pub struct Connection {
    url: Url,
    timeout: Duration,
    stream: Option<BufReader<TcpStream>>,
}

impl Connection {
    /// A connection to `url` (not opened yet) whose every step waits at most `timeout`.
    pub fn new(url: Url, timeout: Duration) -> Connection {
        Connection {
            url,
            timeout,
            stream: None,
        }
    }

    /// Where it goes.
    pub fn url(&self) -> &Url {
        &self.url
    }

    /// Closes the connection; the next request opens a new one.
    pub fn close(&mut self) {
        self.stream = None;
    }

    /// Sends one request and reads its reply. A kept-alive connection the server closed while
    /// idle fails before any byte of a reply arrives: then the request goes once more, on a new
    /// connection (the server never read it).
    pub fn request(&mut self, method: &str, path: &str, body: &[u8]) -> io::Result<Response> {
        let reused = self.stream.is_some();
        match self.exchange(method, path, body) {
            Ok(response) => Ok(response),
            Err(Failed::BeforeReply(_)) if reused => {
                self.stream = None;
                self.exchange(method, path, body)
                    .map_err(Failed::into_error)
            }
            Err(failed) => {
                self.stream = None;
                Err(failed.into_error())
            }
        }
    }

    fn open(&mut self) -> io::Result<&mut BufReader<TcpStream>> {
        if self.stream.is_none() {
            let addrs = (self.url.host.as_str(), self.url.port).to_socket_addrs()?;
            let mut last = io::Error::new(io::ErrorKind::NotFound, "the host has no address");
            for addr in addrs {
                match TcpStream::connect_timeout(&addr, self.timeout) {
                    Ok(stream) => {
                        stream.set_read_timeout(Some(self.timeout))?;
                        stream.set_write_timeout(Some(self.timeout))?;
                        stream.set_nodelay(true)?;
                        self.stream = Some(BufReader::new(stream));
                        break;
                    }
                    Err(e) => last = e,
                }
            }
            if self.stream.is_none() {
                return Err(last);
            }
        }
        Ok(self.stream.as_mut().expect("opened above"))
    }

    fn exchange(&mut self, method: &str, path: &str, body: &[u8]) -> Result<Response, Failed> {
        let host = format!("{}:{}", self.url.host, self.url.port);
        let timeout = self.timeout;
        let stream = self.open().map_err(Failed::BeforeReply)?;
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\nAccept: application/json\r\n\r\n",
            body.len()
        );
        let mut request = head.into_bytes();
        request.extend_from_slice(body);
        stream
            .get_mut()
            .write_all(&request)
            .and_then(|()| stream.get_mut().flush())
            .map_err(Failed::BeforeReply)?;
        // The whole reply within the timeout: a server that trickles a byte at a time never
        // lets one read time out.
        let mut reply = Deadline {
            stream,
            until: Instant::now() + timeout,
            timeout,
        };
        let status_line = read_line(&mut reply).map_err(Failed::BeforeReply)?;
        if status_line.is_empty() {
            return Err(Failed::BeforeReply(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the server closed the connection without a reply",
            )));
        }
        let (response, close) = read_rest(&mut reply, &status_line).map_err(Failed::DuringReply)?;
        if close {
            self.stream = None;
        }
        Ok(response)
    }
}

/// A reply read against one deadline: each read waits at most what is left of it.
struct Deadline<'a> {
    stream: &'a mut BufReader<TcpStream>,
    until: Instant,
    timeout: Duration,
}

impl Deadline<'_> {
    fn left(&self) -> io::Result<Duration> {
        let left = self.until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(expired(self.timeout));
        }
        Ok(left)
    }
}

/// The deadline's own error: a read that waited out what was left of it is this one too, not
/// the socket's bare "Resource temporarily unavailable" (EAGAIN, Linux's read timeout).
fn expired(timeout: Duration) -> io::Error {
    io::Error::new(
        io::ErrorKind::TimedOut,
        format!(
            "the server's reply took longer than {:.1} s",
            timeout.as_secs_f64()
        ),
    )
}

/// `result`, with a read timeout told as the deadline's.
fn timed<T>(result: io::Result<T>, timeout: Duration) -> io::Result<T> {
    match result {
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
            ) =>
        {
            Err(expired(timeout))
        }
        other => other,
    }
}

impl Read for Deadline<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = self.left()?;
        self.stream.get_ref().set_read_timeout(Some(left))?;
        timed(self.stream.read(buf), self.timeout)
    }
}

impl BufRead for Deadline<'_> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        let left = self.left()?;
        self.stream.get_ref().set_read_timeout(Some(left))?;
        timed(self.stream.fill_buf(), self.timeout)
    }

    fn consume(&mut self, amount: usize) {
        self.stream.consume(amount);
    }
}

/// How a request failed: before any byte of the reply (it may be sent again on a new
/// connection when the old one was only idle), or during the reply.
enum Failed {
    BeforeReply(io::Error),
    DuringReply(io::Error),
}

impl Failed {
    fn into_error(self) -> io::Error {
        match self {
            Failed::BeforeReply(e) | Failed::DuringReply(e) => e,
        }
    }
}

fn bad(message: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, message.into())
}

/// One line without its CRLF; empty at the end of the stream.
fn read_line(stream: &mut impl BufRead) -> io::Result<String> {
    let mut line = Vec::new();
    stream
        .by_ref()
        .take(MAX_LINE as u64)
        .read_until(b'\n', &mut line)?;
    if line.len() >= MAX_LINE {
        return Err(bad("a reply's line is too long"));
    }
    let text = String::from_utf8(line).map_err(|_| bad("a reply's head is not text"))?;
    Ok(text.trim_end_matches(['\r', '\n']).to_owned())
}

/// The rest of a reply after its status line; and whether the server will close.
fn read_rest(stream: &mut impl BufRead, status_line: &str) -> io::Result<(Response, bool)> {
    let mut words = status_line.split_whitespace();
    let version = words.next().unwrap_or("");
    let status = words
        .next()
        .and_then(|s| s.parse::<u16>().ok())
        .filter(|_| version.starts_with("HTTP/1."))
        .ok_or_else(|| bad(format!("'{status_line}' is not an HTTP status line")))?;
    let mut length = None;
    let mut chunked = false;
    let mut close = version == "HTTP/1.0";
    loop {
        let line = read_line(stream)?;
        if line.is_empty() {
            break;
        }
        let Some((name, value)) = line.split_once(':') else {
            return Err(bad(format!("'{line}' is not an HTTP header")));
        };
        let (name, value) = (name.trim().to_ascii_lowercase(), value.trim());
        match name.as_str() {
            "content-length" => {
                length = Some(
                    value
                        .parse::<usize>()
                        .map_err(|_| bad("a bad Content-Length"))?,
                )
            }
            "transfer-encoding" => chunked = value.eq_ignore_ascii_case("chunked"),
            "connection" => close = value.eq_ignore_ascii_case("close"),
            _ => {}
        }
    }
    let body = if chunked {
        read_chunks(stream)?
    } else if let Some(length) = length {
        if length > MAX_BODY {
            return Err(bad("a reply is larger than 16 MiB"));
        }
        let mut body = vec![0; length];
        stream.read_exact(&mut body)?;
        body
    } else {
        close = true;
        let mut body = Vec::new();
        stream.take(MAX_BODY as u64 + 1).read_to_end(&mut body)?;
        body
    };
    if body.len() > MAX_BODY {
        return Err(bad("a reply is larger than 16 MiB"));
    }
    Ok((Response { status, body }, close))
}

fn read_chunks(stream: &mut impl BufRead) -> io::Result<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let line = read_line(stream)?;
        let size = line.split(';').next().unwrap_or("").trim();
        let size = usize::from_str_radix(size, 16).map_err(|_| bad("a bad chunk size"))?;
        if size == 0 {
            // Trailers, then the blank line.
            while !read_line(stream)?.is_empty() {}
            return Ok(body);
        }
        if body.len() + size > MAX_BODY {
            return Err(bad("a reply is larger than 16 MiB"));
        }
        let start = body.len();
        body.resize(start + size, 0);
        stream.read_exact(&mut body[start..])?;
        read_line(stream)?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    #[test]
    fn addresses_are_read_with_etcd_s_port_by_default() {
        let url = |s: &str| Url::parse(s).map(|u| u.to_string());
        assert_eq!(
            url("http://127.0.0.1:2379").unwrap(),
            "http://127.0.0.1:2379"
        );
        assert_eq!(url("127.0.0.1:23790/").unwrap(), "http://127.0.0.1:23790");
        assert_eq!(url("http://etcd-1").unwrap(), "http://etcd-1:2379");
        assert_eq!(url("http://[::1]:2379").unwrap(), "http://[::1]:2379");
        assert!(url("https://etcd:2379").unwrap_err().contains("TLS"));
        assert!(url("http://etcd:0").is_err());
        assert!(url("http://etcd:2379/v3").is_err());
        assert!(url("").is_err());
    }

    fn read(reply: &str) -> io::Result<(Response, bool)> {
        let mut stream = io::Cursor::new(reply.as_bytes().to_vec());
        let status = read_line(&mut stream)?;
        read_rest(&mut stream, &status)
    }

    #[test]
    fn a_reply_is_read_by_length_in_chunks_or_to_the_end() {
        let (r, close) = read("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}").unwrap();
        assert_eq!(
            (r.status, r.body.as_slice(), close),
            (200, &b"{}"[..], false)
        );
        let chunked = "HTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\n\r\n\
                       3\r\n{\"a\r\n4;x=1\r\n\":1}\r\n0\r\n\r\n";
        let (r, _) = read(chunked).unwrap();
        assert_eq!((r.status, r.body.as_slice()), (404, &br#"{"a":1}"#[..]));
        let (r, close) = read("HTTP/1.0 200 OK\r\n\r\nhello").unwrap();
        assert_eq!((r.body.as_slice(), close), (&b"hello"[..], true));
        assert!(read("SSH-2.0-OpenSSH\r\n\r\n").is_err());
        assert!(read("HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n").is_err());
    }

    #[test]
    fn a_connection_is_kept_alive_and_reopened_after_the_server_closes_it() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let server = std::thread::spawn(move || {
            // The first connection answers once, then closes while idle; the second answers.
            for answer in ["one", "two"] {
                let (stream, _) = listener.accept().unwrap();
                let mut reader = BufReader::new(stream);
                let mut length = 0;
                loop {
                    let line = read_line(&mut reader).unwrap();
                    if line.is_empty() {
                        break;
                    }
                    if let Some(n) = line.strip_prefix("Content-Length: ") {
                        length = n.parse().unwrap();
                    }
                }
                let mut body = vec![0; length];
                reader.read_exact(&mut body).unwrap();
                let reply = format!(
                    "HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n{answer}",
                    answer.len()
                );
                reader.get_mut().write_all(reply.as_bytes()).unwrap();
            }
        });
        let url = Url::parse(&format!("http://127.0.0.1:{port}")).unwrap();
        let mut conn = Connection::new(url, Duration::from_secs(5));
        let first = conn.request("POST", "/v3/kv/range", b"{}").unwrap();
        assert_eq!(first.body, b"one");
        let second = conn.request("POST", "/v3/kv/range", b"{}").unwrap();
        assert_eq!(second.body, b"two");
        server.join().unwrap();
        let refused = conn.request("POST", "/v3/kv/range", b"{}");
        assert!(refused.is_err(), "nobody listens any more");
    }

    /// A server that sends its reply a byte at a time, each within the read timeout, is given
    /// the timeout for the whole reply, not for each byte.
    #[test]
    fn a_trickled_reply_ends_within_the_timeout() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        std::thread::spawn(move || {
            let (mut socket, _) = listener.accept().unwrap();
            for byte in b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n"
                .iter()
                .cycle()
            {
                if socket.write_all(&[*byte]).is_err() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        });
        let url = Url::parse(&format!("http://127.0.0.1:{port}")).unwrap();
        let mut conn = Connection::new(url, Duration::from_millis(700));
        let started = Instant::now();
        let error = conn.request("POST", "/v3/kv/range", b"{}").unwrap_err();
        let took = started.elapsed();
        assert_eq!(error.kind(), io::ErrorKind::TimedOut, "{error}");
        assert!(
            error.to_string().contains("took longer than 0.7 s"),
            "{error}"
        );
        assert!(took < Duration::from_millis(1500), "ended after {took:?}");
    }
}
