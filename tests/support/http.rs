//! A minimal HTTP/1.1 client over a TCP stream for the hall's black-box
//! tests: one request per connection (`Connection: close`), the status,
//! headers and body back; and a reader of a server-sent event stream.

#![allow(dead_code)] // each test binary uses part of it

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

/// A response: its status, its headers (names lower-cased) and its body.
#[derive(Debug)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Response {
    /// The first header called `name` (lower case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The `Set-Cookie` header that sets the cookie called `name`, whole.
    pub fn set_cookie(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .filter(|(n, _)| n == "set-cookie")
            .map(|(_, v)| v.as_str())
            .find(|v| v.split_once('=').is_some_and(|(n, _)| n.trim() == name))
    }

    /// The cookie called `name` as a request sends it back (`name=value`).
    pub fn cookie(&self, name: &str) -> Option<String> {
        let header = self.set_cookie(name)?;
        Some(header.split(';').next()?.trim().to_owned())
    }
}

/// Logs in through the hall's form as a browser does: the login page's
/// token, in its cookie and its hidden field, sent back with `name` and
/// `password`. The answer to the POST.
pub fn log_in(addr: SocketAddr, name: &str, password: &str) -> Response {
    let page = get(addr, "/login", None);
    let cookie = page.cookie("tocada_login").unwrap_or_default();
    let token = page
        .body
        .split_once("name=\"csrf\" value=\"")
        .and_then(|(_, rest)| rest.split_once('"'))
        .map_or("", |(token, _)| token);
    let form = format!(
        "name={}&password={}&csrf={token}",
        form_encode(name),
        form_encode(password)
    );
    post(addr, "/login", Some(&cookie), &form)
}

/// `text` as a value of `application/x-www-form-urlencoded`.
pub fn form_encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b' ' => "+".to_owned(),
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fn write_request(
    stream: &mut TcpStream,
    method: &str,
    path: &str,
    cookie: Option<&str>,
    form: Option<&str>,
) {
    let mut request =
        format!("{method} {path} HTTP/1.1\r\nHost: hall.test\r\nConnection: close\r\n");
    if let Some(cookie) = cookie {
        request.push_str(&format!("Cookie: {cookie}\r\n"));
    }
    if let Some(form) = form {
        request.push_str(&format!(
            "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n",
            form.len()
        ));
    }
    request.push_str("\r\n");
    if let Some(form) = form {
        request.push_str(form);
    }
    stream.write_all(request.as_bytes()).unwrap();
}

fn read_head(reader: &mut impl BufRead) -> (u16, Vec<(String, String)>) {
    let mut status_line = String::new();
    reader.read_line(&mut status_line).unwrap();
    let status = status_line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status in {status_line:?}"));
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            headers.push((name.trim().to_lowercase(), value.trim().to_owned()));
        }
    }
    (status, headers)
}

/// One request; `form` is sent as `application/x-www-form-urlencoded`.
pub fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    cookie: Option<&str>,
    form: Option<&str>,
) -> Response {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    write_request(&mut stream, method, path, cookie, form);
    let mut reader = BufReader::new(stream);
    let (status, headers) = read_head(&mut reader);
    let mut body = Vec::new();
    reader.read_to_end(&mut body).unwrap();
    let body = String::from_utf8_lossy(&body).into_owned();
    // The hall answers with a length or chunks; chunks are unwrapped.
    let chunked = headers
        .iter()
        .any(|(n, v)| n == "transfer-encoding" && v.contains("chunked"));
    let body = if chunked { unchunk(&body) } else { body };
    Response {
        status,
        headers,
        body,
    }
}

fn unchunk(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some((size, after)) = rest.split_once("\r\n") {
        let Ok(size) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if size == 0 || after.len() < size {
            break;
        }
        out.push_str(&after[..size]);
        rest = after[size..].trim_start_matches("\r\n");
    }
    out
}

pub fn get(addr: SocketAddr, path: &str, cookie: Option<&str>) -> Response {
    request(addr, "GET", path, cookie, None)
}

pub fn post(addr: SocketAddr, path: &str, cookie: Option<&str>, form: &str) -> Response {
    request(addr, "POST", path, cookie, Some(form))
}

/// An open stream of server-sent events.
pub struct EventStream {
    reader: BufReader<TcpStream>,
    pub status: u16,
}

impl EventStream {
    pub fn open(addr: SocketAddr, path: &str, cookie: Option<&str>) -> EventStream {
        let mut stream = TcpStream::connect(addr).unwrap();
        write_request(&mut stream, "GET", path, cookie, None);
        let mut reader = BufReader::new(stream);
        let (status, _) = read_head(&mut reader);
        EventStream { reader, status }
    }

    /// The data of the next event called `name` within `within`, if one
    /// comes. Chunk sizes and keep-alive comments are skipped.
    pub fn next(&mut self, name: &str, within: Duration) -> Option<String> {
        let deadline = Instant::now() + within;
        let mut current = None;
        loop {
            let left = deadline.checked_duration_since(Instant::now())?;
            self.reader
                .get_ref()
                .set_read_timeout(Some(left.max(Duration::from_millis(1))))
                .unwrap();
            let mut line = String::new();
            match self.reader.read_line(&mut line) {
                Ok(0) | Err(_) => return None,
                Ok(_) => {}
            }
            let line = line.trim_end();
            if let Some(event) = line.strip_prefix("event:") {
                current = Some(event.trim().to_owned());
            } else if let Some(data) = line.strip_prefix("data:") {
                if current.as_deref() == Some(name) {
                    return Some(data.trim().to_owned());
                }
            } else if line.is_empty() {
                current = None;
            }
        }
    }
}
