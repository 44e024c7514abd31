//! The hall's web side (axum): the arbiter's page behind a login, its live
//! updates as server-sent events, one arbiter's action (acknowledging a
//! ruling), and the public PGN feed. Plain HTML, CSS and JavaScript served
//! from the binary: no build step, nothing fetched from elsewhere.
//!
//! | URL | who | what |
//! |---|---|---|
//! | `GET /login`, `POST /login` | anyone, the form's token | the login form; a session cookie (HttpOnly, SameSite=Strict) |
//! | `POST /logout` | arbiter, CSRF token | ends the session |
//! | `GET /arbiter` | arbiter | every board at a glance |
//! | `GET /arbiter/boards` | arbiter | the same as JSON |
//! | `GET /arbiter/boards/{board}` | arbiter | a board's full log of rulings |
//! | `GET /arbiter/events` | arbiter | server-sent events: the boards that changed |
//! | `POST /arbiter/acknowledge` | arbiter, CSRF token | marks a ruling seen, logged with who |
//! | `GET /pgn/round` | anyone, unless `public_pgn = false` | every board's current game |
//! | `GET /pgn/{board}`, `GET /pgn/{board}/{game}` | the same | one game |
//!
//! The public side ([`public_router`], on `public_listen`) serves only
//! what a spectator may see, and nothing of the arbiter's (no login):
//!
//! | URL | what |
//! |---|---|
//! | `GET /` | the spectators' page: every board, read-only |
//! | `GET /boards`, `GET /events` | the boards as JSON, and their changes as server-sent events, without rulings |
//! | `GET /pgn/round`, `GET /pgn/{board}`, `GET /pgn/{board}/{game}` | the feed, without rulings unless `public_rulings = true` |
//!
//! Every PGN answer carries an `ETag` (the hall's change counter); a poll
//! with `If-None-Match` of an unchanged hall gets `304 Not Modified`
//! without the PGN being rebuilt, and the round's PGN is rebuilt once per
//! change, however many poll it.
//!
//! No endpoint changes a game: the hall only reads the clocks.

use std::convert::Infallible;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use axum::Form;
use axum::Json;
use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::FormRejection;
use axum::extract::{DefaultBodyLimit, Extension, Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use serde::Deserialize;
use tokio::sync::watch;

use super::auth::{Attempt, Backoff, FormKey, Logins, same_token, verify_password};
use super::config::{Arbiter, Limits};
use super::ingest::{BoardView, Hall};
use super::serve::ClientAddr;
use crate::pgn::Audience;

/// The session cookie's name.
pub const COOKIE: &str = "tocada_hall";

/// The login form's cookie. Its token is also in the form, and a login is
/// taken only when the two agree: a page of another site can neither read
/// the cookie nor, being SameSite=Strict, have it sent, so it cannot log
/// the arbiter's browser in under another name (login CSRF).
pub const LOGIN_COOKIE: &str = "tocada_login";

/// How long the live page waits after a change to send it with the ones
/// that follow: many events a second become a few messages.
const BATCH: Duration = Duration::from_millis(100);

const PAGE: &str = include_str!("page/arbiter.html");
const LOGIN: &str = include_str!("page/login.html");
const SCRIPT: &str = include_str!("page/arbiter.js");
const STYLE: &str = include_str!("page/hall.css");
const BOARD_SCRIPT: &str = include_str!("page/board.js");
const PUBLIC_PAGE: &str = include_str!("page/public.html");
const PUBLIC_SCRIPT: &str = include_str!("page/public.js");

/// The largest request body taken (a login or an acknowledgement is a
/// few hundred bytes): axum's default, 2 MB, times a few hundred
/// connections would be gigabytes.
pub const MAX_BODY: usize = 16 * 1024;

/// What the web side and the MQTT side share.
pub struct Shared {
    hall: Mutex<Hall>,
    logins: Mutex<Logins>,
    arbiters: Vec<Arbiter>,
    public_pgn: bool,
    changed: watch::Sender<u64>,
    started: Instant,
    form_key: FormKey,
    backoff: Mutex<Backoff>,
    hashes: Arc<tokio::sync::Semaphore>,
    public_rulings: AtomicBool,
    /// When the server started (ms since the epoch): in every `ETag`, so
    /// that a change counter counted again from 0 after a restart never
    /// matches a tag of before.
    boot: u64,
    /// The round's PGN as last built for each audience, with the hall's
    /// change counter it was built at.
    feeds: Mutex<[Option<(u64, Bytes)>; 2]>,
}

impl Shared {
    /// The shared state of a hall served to `arbiters`, with the default
    /// [`Limits`].
    pub fn new(hall: Hall, arbiters: Vec<Arbiter>, public_pgn: bool) -> Arc<Shared> {
        Shared::with_limits(hall, arbiters, public_pgn, &Limits::default())
    }

    /// The same, under `limits`: the hall's quotas, the login's.
    pub fn with_limits(
        mut hall: Hall,
        arbiters: Vec<Arbiter>,
        public_pgn: bool,
        limits: &Limits,
    ) -> Arc<Shared> {
        hall.set_quotas(limits.quotas);
        let (changed, _) = watch::channel(hall.version());
        // Without randomness the hall could not make a session either;
        // a key of zeros still binds tokens to this hall's form, and the
        // login's own randomness failing is reported on every login.
        let form_key = FormKey::random().unwrap_or_else(|err| {
            tracing::error!("no randomness for the login form's key: {err}");
            FormKey::zero()
        });
        Arc::new(Shared {
            hall: Mutex::new(hall),
            logins: Mutex::new(Logins::new()),
            arbiters,
            public_pgn,
            changed,
            started: Instant::now(),
            form_key,
            backoff: Mutex::new(Backoff::new(limits.backoff)),
            hashes: Arc::new(tokio::sync::Semaphore::new(limits.login_hashes)),
            public_rulings: AtomicBool::new(false),
            boot: wall_ms(),
            feeds: Mutex::new([None, None]),
        })
    }

    /// Whether the public side's feed and page show the rulings
    /// (`public_rulings`; off until set).
    pub fn set_public_rulings(&self, shown: bool) {
        self.public_rulings.store(shown, Ordering::Relaxed);
    }

    /// Who the public side writes its PGN for.
    pub fn public_audience(&self) -> Audience {
        if self.public_rulings.load(Ordering::Relaxed) {
            Audience::Arbiter
        } else {
            Audience::Public
        }
    }

    /// The round's PGN for `audience` and its `ETag`: built again only
    /// when the hall changed since it last was.
    pub fn round_feed(&self, audience: Audience) -> (String, Bytes) {
        let mut hall = self.hall();
        let version = hall.version();
        let tag = self.etag(version, audience);
        let slot = audience as usize;
        let mut feeds = self.feeds.lock().unwrap_or_else(|p| p.into_inner());
        match &feeds[slot] {
            Some((built, pgn)) if *built == version => (tag, pgn.clone()),
            _ => {
                let pgn = Bytes::from(hall.round_pgn_for(audience));
                feeds[slot] = Some((version, pgn.clone()));
                (tag, pgn)
            }
        }
    }

    /// The `ETag` of every PGN answer while the hall's change counter
    /// reads `version`.
    fn etag(&self, version: u64, audience: Audience) -> String {
        let who = match audience {
            Audience::Arbiter => 'a',
            Audience::Public => 'p',
        };
        format!("\"{:x}-{version}-{who}\"", self.boot)
    }

    fn backoff(&self) -> MutexGuard<'_, Backoff> {
        self.backoff
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The hall, locked. A panic elsewhere while it was held leaves it as
    /// it was: every change is one store write and one map update.
    pub fn hall(&self) -> MutexGuard<'_, Hall> {
        self.hall
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn logins(&self) -> MutexGuard<'_, Logins> {
        self.logins
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Tells the live pages that the hall changed.
    pub fn notify(&self) {
        let version = self.hall().version();
        self.changed.send_replace(version);
    }

    /// A receiver told of every change of the hall (its version).
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.changed.subscribe()
    }

    /// Milliseconds since the server started: the sessions' clock.
    fn now_ms(&self) -> u64 {
        self.started.elapsed().as_millis() as u64
    }
}

/// Milliseconds since the Unix epoch: when a message arrived, as stored.
pub fn wall_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// The hall's routes.
pub fn router(shared: Arc<Shared>) -> Router {
    Router::new()
        .route("/", get(|| async { Redirect::to("/arbiter") }))
        .route("/login", get(login_page).post(login))
        .route("/logout", post(logout))
        .route("/hall.css", get(|| async { asset(STYLE, "text/css") }))
        .route(
            "/arbiter.js",
            get(|| async { asset(SCRIPT, "text/javascript") }),
        )
        .route("/arbiter", get(arbiter_page))
        .route("/arbiter/boards", get(boards))
        .route("/arbiter/boards/{board}", get(board_log))
        .route("/arbiter/events", get(events))
        .route("/arbiter/acknowledge", post(acknowledge))
        .route(
            "/board.js",
            get(|| async { asset(BOARD_SCRIPT, "text/javascript") }),
        )
        .route("/pgn/round", get(round_pgn))
        .route("/pgn/{board}", get(board_pgn))
        .route("/pgn/{board}/{game}", get(game_pgn))
        .layer(Extension(Listener::Arbiter))
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .with_state(shared)
}

/// The public side's routes: the spectators' page and the PGN feed,
/// nothing else (every other path, the login too, is 404).
pub fn public_router(shared: Arc<Shared>) -> Router {
    Router::new()
        .route("/", get(public_page))
        .route("/hall.css", get(|| async { asset(STYLE, "text/css") }))
        .route(
            "/board.js",
            get(|| async { asset(BOARD_SCRIPT, "text/javascript") }),
        )
        .route(
            "/public.js",
            get(|| async { asset(PUBLIC_SCRIPT, "text/javascript") }),
        )
        .route("/boards", get(public_boards))
        .route("/events", get(public_events))
        .route("/pgn/round", get(round_pgn))
        .route("/pgn/{board}", get(board_pgn))
        .route("/pgn/{board}/{game}", get(game_pgn))
        .layer(Extension(Listener::Public))
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .with_state(shared)
}

/// Which side a request came in on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Listener {
    /// `listen`: the arbiter's page, and the feed with every ruling if
    /// `public_pgn`.
    Arbiter,
    /// `public_listen`: the spectators'.
    Public,
}

impl Listener {
    /// Who its PGN is written for, and whether it serves one at all.
    fn audience(self, shared: &Shared) -> Option<Audience> {
        match self {
            Listener::Arbiter => shared.public_pgn.then_some(Audience::Arbiter),
            Listener::Public => Some(shared.public_audience()),
        }
    }
}

fn asset(body: &'static str, kind: &'static str) -> Response {
    ([(header::CONTENT_TYPE, kind)], body).into_response()
}

/// The pages allow scripts, styles and connections from the hall only.
pub(super) fn html(status: StatusCode, body: String) -> Response {
    (
        status,
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (
                header::CONTENT_SECURITY_POLICY,
                "default-src 'self'; frame-ancestors 'none'",
            ),
            (header::CACHE_CONTROL, "no-store"),
        ],
        body,
    )
        .into_response()
}

pub(super) fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

/// The value of the cookie called `wanted`, if the request has one.
fn cookie(headers: &HeaderMap, wanted: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .find_map(|pair| {
            let (name, value) = pair.trim().split_once('=')?;
            (name == wanted).then(|| value.to_owned())
        })
}

/// The logged-in arbiter and the session's CSRF token, if the cookie is
/// a live session's.
pub(super) fn session(shared: &Shared, headers: &HeaderMap) -> Option<(String, String, String)> {
    let token = cookie(headers, COOKIE)?;
    let session = shared.logins().get(&token, shared.now_ms())?;
    Some((token, session.arbiter, session.csrf))
}

/// The login form with `message`, and a fresh token, the hall's own
/// ([`FormKey`]), in the form and in its cookie.
fn login_form(shared: &Shared, status: StatusCode, message: &str) -> Response {
    let token = match shared.form_key.issue(shared.now_ms()) {
        Ok(token) => token,
        Err(why) => {
            tracing::error!("cannot make a login form: {why}");
            return (StatusCode::INTERNAL_SERVER_ERROR, "no randomness").into_response();
        }
    };
    let page = LOGIN
        .replace("{{message}}", &escape(message))
        .replace("{{csrf}}", &token);
    let mut response = html(status, page);
    set_cookie(
        &mut response,
        &format!("{LOGIN_COOKIE}={token}; Path=/login"),
    );
    response
}

/// Adds a `Set-Cookie` for `cookie` (`name=value; attributes`): every
/// cookie of the hall's is HttpOnly and SameSite=Strict.
fn set_cookie(response: &mut Response, cookie: &str) {
    let cookie = format!("{cookie}; HttpOnly; SameSite=Strict");
    if let Ok(value) = HeaderValue::from_str(&cookie) {
        response.headers_mut().append(header::SET_COOKIE, value);
    }
}

async fn login_page(State(shared): State<Arc<Shared>>) -> Response {
    login_form(&shared, StatusCode::OK, "")
}

#[derive(Deserialize)]
struct LoginForm {
    name: String,
    password: String,
    #[serde(default)]
    csrf: String,
}

async fn login(
    State(shared): State<Arc<Shared>>,
    client: Option<Extension<ClientAddr>>,
    headers: HeaderMap,
    Form(form): Form<LoginForm>,
) -> Response {
    let now = shared.now_ms();
    // Checked before the password: a forged form costs no hash. The token
    // must be the form's cookie's (login CSRF) and one this hall issued
    // within the hour (a script cannot make its own).
    let expected = cookie(&headers, LOGIN_COOKIE).unwrap_or_default();
    if expected.is_empty()
        || !same_token(&expected, &form.csrf)
        || !shared.form_key.verify(&form.csrf, now)
    {
        tracing::warn!(name = %super::capped(&form.name), "arbiter login refused: the form's token is not the hall's");
        return login_form(
            &shared,
            StatusCode::FORBIDDEN,
            "The login form had expired. Please log in again.",
        );
    }
    let address = client.map(|Extension(ClientAddr(addr))| Attempt::Address(addr.ip()));
    let name = Backoff::name(&form.name);
    let wait_ms = {
        let backoff = shared.backoff();
        let by_address = address.as_ref().map_or(0, |a| backoff.wait_ms(a, now));
        by_address.max(backoff.wait_ms(&name, now))
    };
    if wait_ms > 0 {
        tracing::warn!(name = %super::capped(&form.name), wait_ms, "arbiter login refused: too many failures");
        let wait_s = wait_ms.div_ceil(1000);
        let mut response = login_form(
            &shared,
            StatusCode::TOO_MANY_REQUESTS,
            &format!("Too many failed logins. Try again in {wait_s} s."),
        );
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(wait_s));
        return response;
    }
    // At most `login_hashes` argon2 checks at once (19 MiB each): one
    // more is told to come back, never queued.
    let Ok(permit) = Arc::clone(&shared.hashes).try_acquire_owned() else {
        tracing::warn!("arbiter login refused: every password check is busy");
        let mut response = login_form(
            &shared,
            StatusCode::SERVICE_UNAVAILABLE,
            "The hall is busy. Please try again.",
        );
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(1));
        return response;
    };
    let arbiter = shared.arbiters.iter().find(|a| a.name == form.name);
    // An unknown name costs a hash like a known one: the answer's delay
    // does not tell which names exist.
    let hash = arbiter
        .map_or(DECOY_HASH, |a| a.password_hash.as_str())
        .to_owned();
    let password = form.password;
    let good = tokio::task::spawn_blocking(move || {
        let good = verify_password(&hash, &password);
        drop(permit);
        good
    })
    .await
    .unwrap_or(false);
    let Some(arbiter) = arbiter.filter(|_| good) else {
        let now = shared.now_ms();
        let mut backoff = shared.backoff();
        if let Some(address) = address {
            backoff.fail(address, now);
        }
        backoff.fail(name, now);
        drop(backoff);
        tracing::warn!(name = %super::capped(&form.name), "arbiter login refused: wrong name or password");
        return login_form(&shared, StatusCode::UNAUTHORIZED, "Wrong name or password.");
    };
    {
        let mut backoff = shared.backoff();
        if let Some(address) = &address {
            backoff.forgive(address);
        }
        backoff.forgive(&name);
    }
    let now = shared.now_ms();
    let token = match shared.logins().open(&arbiter.name, now) {
        Ok(token) => token,
        Err(why) => {
            tracing::error!("cannot open a session: {why}");
            return login_form(
                &shared,
                StatusCode::INTERNAL_SERVER_ERROR,
                "The hall cannot open a session.",
            );
        }
    };
    tracing::info!(arbiter = %arbiter.name, "arbiter logged in");
    let mut response = Redirect::to("/arbiter").into_response();
    set_cookie(&mut response, &format!("{COOKIE}={token}; Path=/"));
    // The form's token is spent.
    set_cookie(
        &mut response,
        &format!("{LOGIN_COOKIE}=; Path=/login; Max-Age=0"),
    );
    response
}

/// A hash of no one's password, verified when the name is unknown.
const DECOY_HASH: &str = "$argon2id$v=19$m=19456,t=2,p=1$ZGVjb3lzYWx0ZGVjb3k$0K3nQe9y6cTt4a8l0p1Wm2pP8nM0v0Qv5qLr8m3eM0g";

#[derive(Deserialize)]
struct CsrfForm {
    #[serde(default)]
    csrf: String,
}

async fn logout(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    Form(form): Form<CsrfForm>,
) -> Response {
    match session(&shared, &headers) {
        Some((token, arbiter, csrf)) if same_token(&csrf, &form.csrf) => {
            shared.logins().close(&token);
            tracing::info!(arbiter = %arbiter, "arbiter logged out");
            let mut response = Redirect::to("/login").into_response();
            set_cookie(&mut response, &format!("{COOKIE}=; Path=/; Max-Age=0"));
            response
        }
        Some(_) => (StatusCode::FORBIDDEN, "bad CSRF token").into_response(),
        None => (StatusCode::UNAUTHORIZED, "log in first").into_response(),
    }
}

async fn arbiter_page(State(shared): State<Arc<Shared>>, headers: HeaderMap) -> Response {
    let Some((_, arbiter, csrf)) = session(&shared, &headers) else {
        return Redirect::to("/login").into_response();
    };
    let hall = shared.hall().name().to_owned();
    let page = PAGE
        .replace("{{hall}}", &escape(&hall))
        .replace("{{arbiter}}", &escape(&arbiter))
        .replace("{{csrf}}", &escape(&csrf));
    html(StatusCode::OK, page)
}

fn unauthorized() -> Response {
    (StatusCode::UNAUTHORIZED, "log in first").into_response()
}

async fn boards(State(shared): State<Arc<Shared>>, headers: HeaderMap) -> Response {
    if session(&shared, &headers).is_none() {
        return unauthorized();
    }
    let hall = shared.hall();
    Json(serde_json::json!({
        "hall": hall.name(),
        "version": hall.version(),
        "boards": hall.board_views(),
        "counters": hall.counters(),
    }))
    .into_response()
}

async fn board_log(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    Path(board): Path<u32>,
) -> Response {
    if session(&shared, &headers).is_none() {
        return unauthorized();
    }
    let hall = shared.hall();
    match (hall.board_view(board), hall.rulings(board)) {
        (Some(view), Some((game, rulings))) => Json(serde_json::json!({
            "board": view,
            "game": game,
            "moves": view.moves,
            "rulings": rulings,
        }))
        .into_response(),
        (Some(view), None) => {
            Json(serde_json::json!({"board": view, "game": null, "rulings": []})).into_response()
        }
        _ => (StatusCode::NOT_FOUND, "no such board").into_response(),
    }
}

async fn events(State(shared): State<Arc<Shared>>, headers: HeaderMap) -> Response {
    let Some((token, _, _)) = session(&shared, &headers) else {
        return unauthorized();
    };
    board_events(shared, Some(token))
}

/// The boards that change, as server-sent events: for a session's page
/// (`token`), every field, until the session ends; for the public
/// (`None`), the spectators' fields ([`public_views`]).
fn board_events(shared: Arc<Shared>, token: Option<String>) -> Response {
    let receiver = shared.changed.subscribe();
    let seen = *receiver.borrow();
    let stream = futures_util::stream::unfold(
        (receiver, seen, shared, token),
        |(mut receiver, seen, shared, token)| async move {
            receiver.changed().await.ok()?;
            tokio::time::sleep(BATCH).await;
            // A session closed or gone idle ends its stream.
            if let Some(token) = &token {
                shared.logins().get(token, shared.now_ms())?;
            }
            let (version, changed) = {
                let hall = shared.hall();
                (hall.version(), hall.changed_since(seen))
            };
            let data = match token {
                Some(_) => serde_json::to_string(&changed),
                None => serde_json::to_string(&public_views(&shared, changed)),
            }
            .unwrap_or_else(|_| "[]".to_owned());
            let event = Event::default().event("boards").data(data);
            Some((
                Ok::<_, Infallible>(event),
                (receiver, version, shared, token),
            ))
        },
    );
    Sse::new(stream)
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response()
}

#[derive(Deserialize)]
struct AcknowledgeForm {
    /// Missing is refused as a wrong token is (403), not as a bad form.
    #[serde(default)]
    csrf: String,
    board: u32,
    game: i64,
    ruling: usize,
}

async fn acknowledge(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    form: Result<Form<AcknowledgeForm>, FormRejection>,
) -> Response {
    let Some((_, arbiter, csrf)) = session(&shared, &headers) else {
        tracing::warn!("acknowledgement refused: not logged in");
        return unauthorized();
    };
    let Ok(Form(form)) = form else {
        tracing::warn!(arbiter = %arbiter, "acknowledgement refused: a form without its fields");
        return (StatusCode::BAD_REQUEST, "board, game, ruling and csrf").into_response();
    };
    if !same_token(&csrf, &form.csrf) {
        tracing::warn!(arbiter = %arbiter, "acknowledgement refused: bad CSRF token");
        return (StatusCode::FORBIDDEN, "bad CSRF token").into_response();
    }
    let done = shared
        .hall()
        .acknowledge(form.board, form.game, form.ruling, &arbiter, wall_ms());
    match done {
        Ok(true) => {
            tracing::info!(
                arbiter = %arbiter,
                board = form.board,
                game = form.game,
                ruling = form.ruling,
                "ruling acknowledged"
            );
            shared.notify();
            Json(serde_json::json!({"acknowledged_by": arbiter})).into_response()
        }
        Ok(false) => (
            StatusCode::CONFLICT,
            "no such ruling, or already acknowledged",
        )
            .into_response(),
        Err(err) => {
            tracing::error!("cannot store an acknowledgement: {err}");
            (StatusCode::INTERNAL_SERVER_ERROR, "the store failed").into_response()
        }
    }
}

/// Whether `headers` ask with `If-None-Match` for a PGN tagged `tag`.
fn not_modified(headers: &HeaderMap, tag: &str) -> bool {
    headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .map(|t| t.trim())
        .any(|t| t == "*" || t.strip_prefix("W/").unwrap_or(t) == tag)
}

fn pgn_response(tag: &str, pgn: Option<Bytes>) -> Response {
    let headers = [
        (header::CACHE_CONTROL, "no-cache"),
        (header::ACCESS_CONTROL_ALLOW_ORIGIN, "*"),
        (header::ETAG, tag),
    ];
    match pgn {
        Some(pgn) => (
            headers,
            [(
                header::CONTENT_TYPE,
                "application/x-chess-pgn; charset=utf-8",
            )],
            pgn,
        )
            .into_response(),
        None => (StatusCode::NOT_FOUND, "no such game").into_response(),
    }
}

fn unchanged(tag: &str) -> Response {
    (
        StatusCode::NOT_MODIFIED,
        [
            (header::CACHE_CONTROL, "no-cache"),
            (header::ACCESS_CONTROL_ALLOW_ORIGIN, "*"),
            (header::ETAG, tag),
        ],
    )
        .into_response()
}

/// Answers a PGN request for `board` on `listener`: 404 where the feed
/// is off, 304 when the board has not changed since the tag the poller
/// has (a broadcast polls each game of a round every few seconds, and
/// in a 1000-board round some board moves every few hundredths of a
/// second: a tag of the whole hall would never match), else `build`'s
/// PGN.
fn pgn_answer(
    shared: &Shared,
    listener: Listener,
    headers: &HeaderMap,
    board: u32,
    build: impl FnOnce(&mut Hall, Audience) -> Option<String>,
) -> Response {
    let Some(audience) = listener.audience(shared) else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let mut hall = shared.hall();
    let tag = shared.etag(hall.board_version(board), audience);
    if not_modified(headers, &tag) {
        return unchanged(&tag);
    }
    let pgn = build(&mut hall, audience).map(Bytes::from);
    drop(hall);
    pgn_response(&tag, pgn)
}

async fn round_pgn(
    State(shared): State<Arc<Shared>>,
    Extension(listener): Extension<Listener>,
    headers: HeaderMap,
) -> Response {
    let Some(audience) = listener.audience(&shared) else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let tag = shared.etag(shared.hall().version(), audience);
    if not_modified(&headers, &tag) {
        return unchanged(&tag);
    }
    let (tag, pgn) = shared.round_feed(audience);
    pgn_response(&tag, Some(pgn))
}

async fn board_pgn(
    State(shared): State<Arc<Shared>>,
    Extension(listener): Extension<Listener>,
    headers: HeaderMap,
    Path(board): Path<u32>,
) -> Response {
    pgn_answer(&shared, listener, &headers, board, |hall, audience| {
        hall.pgn_for(board, None, audience)
    })
}

async fn game_pgn(
    State(shared): State<Arc<Shared>>,
    Extension(listener): Extension<Listener>,
    headers: HeaderMap,
    Path((board, game)): Path<(u32, i64)>,
) -> Response {
    pgn_answer(&shared, listener, &headers, board, |hall, audience| {
        hall.pgn_for(board, Some(game), audience)
    })
}

/// The boards as a spectator sees them: the arbiter's view without what
/// is the arbiter's (rulings, unless `public_rulings`; the events'
/// bookkeeping; a bad line's words).
fn public_views(shared: &Shared, views: Vec<BoardView>) -> Vec<serde_json::Value> {
    let rulings = shared.public_audience() == Audience::Arbiter;
    views
        .into_iter()
        .filter_map(|view| serde_json::to_value(view).ok())
        .map(|mut value| {
            if let Some(fields) = value.as_object_mut() {
                for key in ["unacknowledged", "events", "waiting", "fault"] {
                    fields.remove(key);
                }
                if !rulings {
                    fields.remove("last_ruling");
                } else if let Some(ruling) = fields
                    .get_mut("last_ruling")
                    .and_then(|r| r.as_object_mut())
                {
                    ruling.remove("acknowledged_by");
                }
            }
            value
        })
        .collect()
}

async fn public_page(State(shared): State<Arc<Shared>>) -> Response {
    let hall = shared.hall().name().to_owned();
    html(
        StatusCode::OK,
        PUBLIC_PAGE.replace("{{hall}}", &escape(&hall)),
    )
}

async fn public_boards(State(shared): State<Arc<Shared>>) -> Response {
    let (name, views) = {
        let hall = shared.hall();
        (hall.name().to_owned(), hall.board_views())
    };
    Json(serde_json::json!({
        "hall": name,
        "boards": public_views(&shared, views),
    }))
    .into_response()
}

async fn public_events(State(shared): State<Arc<Shared>>) -> Response {
    board_events(shared, None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::broadcast::EventMessage;
    use crate::hall::{HallStore, Round};
    use axum::body::Body;
    use axum::http::Request;
    use tower::ServiceExt;

    /// A game on board 1 with an illegal move (a violation and time added
    /// to Black: rulings), then the move made right.
    const LINES: [&str; 8] = [
        r#"{"t":0,"ev":"setup","time_control":"180+2"}"#,
        r#"{"t":0,"ev":"press","side":"black"}"#,
        r#"{"t":1000,"ev":"lift","sq":"e2"}"#,
        r#"{"t":1200,"ev":"place","sq":"e5"}"#,
        r#"{"t":1500,"ev":"press","side":"white"}"#,
        r#"{"t":3000,"ev":"lift","sq":"e5"}"#,
        r#"{"t":3200,"ev":"place","sq":"e4"}"#,
        r#"{"t":3500,"ev":"press","side":"white"}"#,
    ];

    /// Board 1's clock publishes `line`, and the streams are woken.
    fn publish(shared: &Shared, seq: usize, line: &str) {
        receive(shared, 1, seq, line);
        shared.notify();
    }

    /// The hall receives `line` of game 1 from `board`'s clock.
    fn receive(shared: &Shared, board: u32, seq: usize, line: &str) {
        let value: serde_json::Value = serde_json::from_str(line).unwrap();
        let payload = serde_json::to_vec(&EventMessage {
            game: 1,
            seq: seq as i64,
            t: value["t"].as_u64().unwrap(),
            line: value,
            effects: vec![],
        })
        .unwrap();
        shared
            .hall()
            .receive(&format!("tocada/open/{board}/events"), &payload, 1)
            .unwrap();
    }

    fn shared_with_game(lines: usize) -> Arc<Shared> {
        let hall = Hall::with_store(
            "open",
            HallStore::in_memory("open").unwrap(),
            Round::default(),
        )
        .unwrap();
        let shared = Shared::new(hall, Vec::new(), true);
        for (seq, line) in LINES.iter().enumerate().take(lines) {
            publish(&shared, seq, line);
        }
        shared
    }

    struct Answer {
        status: u16,
        etag: Option<String>,
        body: String,
    }

    fn ask(router: &Router, method: &str, path: &str, if_none_match: Option<&str>) -> Answer {
        let mut request = Request::builder().method(method).uri(path);
        if let Some(tag) = if_none_match {
            request = request.header(header::IF_NONE_MATCH, tag);
        }
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let response = router
                .clone()
                .oneshot(request.body(Body::empty()).unwrap())
                .await
                .unwrap();
            let status = response.status().as_u16();
            let etag = response
                .headers()
                .get(header::ETAG)
                .map(|v| v.to_str().unwrap().to_owned());
            let body = axum::body::to_bytes(response.into_body(), 1 << 20)
                .await
                .unwrap();
            Answer {
                status,
                etag,
                body: String::from_utf8_lossy(&body).into_owned(),
            }
        })
    }

    #[test]
    fn the_public_side_serves_the_feed_without_rulings_and_nothing_of_the_arbiters() {
        let shared = shared_with_game(LINES.len());
        let public = public_router(Arc::clone(&shared));
        let arbiter = router(Arc::clone(&shared));

        let theirs = ask(&arbiter, "GET", "/pgn/round", None);
        assert_eq!(theirs.status, 200);
        assert!(theirs.body.contains("Illegal move"), "{}", theirs.body);
        assert!(theirs.body.contains("7.5.5"), "{}", theirs.body);

        for path in ["/pgn/round", "/pgn/1", "/pgn/1/1"] {
            let feed = ask(&public, "GET", path, None);
            assert_eq!(feed.status, 200, "{path}");
            assert!(feed.body.contains("1. e4 {[%clk "), "{path}: {}", feed.body);
            assert!(!feed.body.contains("Illegal"), "{path}: {}", feed.body);
            assert!(!feed.body.contains("7.5"), "{path}: {}", feed.body);
        }
        // The arbiter's routes and the login are not there at all.
        for (method, path) in [
            ("GET", "/login"),
            ("POST", "/login"),
            ("GET", "/arbiter"),
            ("GET", "/arbiter/boards"),
            ("GET", "/arbiter/boards/1"),
            ("GET", "/arbiter/events"),
            ("POST", "/arbiter/acknowledge"),
            ("POST", "/logout"),
        ] {
            assert_eq!(
                ask(&public, method, path, None).status,
                404,
                "{method} {path}"
            );
        }
        // The page and its boards, without the ruling.
        let page = ask(&public, "GET", "/", None);
        assert_eq!(page.status, 200);
        assert!(page.body.contains("/public.js"), "{}", page.body);
        let boards: serde_json::Value =
            serde_json::from_str(&ask(&public, "GET", "/boards", None).body).unwrap();
        let board = &boards["boards"][0];
        assert_eq!(board["board"], 1);
        assert_eq!(board["moves"], 1);
        assert!(board.get("last_ruling").is_none(), "{board}");
        assert!(board.get("unacknowledged").is_none(), "{board}");
        let mine: serde_json::Value =
            serde_json::from_str(&serde_json::to_string(&shared.hall().board_views()).unwrap())
                .unwrap();
        assert!(mine[0]["last_ruling"]["text"].is_string(), "{mine}");

        // Unless the organiser asks.
        shared.set_public_rulings(true);
        assert!(
            ask(&public, "GET", "/pgn/round", None)
                .body
                .contains("Illegal move")
        );
    }

    #[test]
    fn an_unchanged_feed_is_answered_304_and_built_once_per_change() {
        let shared = shared_with_game(5);
        let public = public_router(Arc::clone(&shared));
        let first = ask(&public, "GET", "/pgn/round", None);
        assert_eq!(first.status, 200);
        let tag = first.etag.clone().expect("an ETag");
        let again = ask(&public, "GET", "/pgn/round", Some(&tag));
        assert_eq!((again.status, again.body.as_str()), (304, ""));
        assert_eq!(again.etag.as_deref(), Some(tag.as_str()));
        // Among others, weak or not.
        let listed = format!("\"other\", W/{tag}");
        assert_eq!(ask(&public, "GET", "/pgn/round", Some(&listed)).status, 304);
        assert_eq!(ask(&public, "GET", "/pgn/1", Some(&tag)).status, 304);
        // Polled without a tag while nothing changes: the same text, not
        // built again.
        let (_, built) = shared.round_feed(Audience::Public);
        let (_, kept) = shared.round_feed(Audience::Public);
        assert_eq!(built.as_ptr(), kept.as_ptr());

        // A move: a new tag, the new PGN.
        for (seq, line) in LINES.iter().enumerate().skip(5) {
            publish(&shared, seq, line);
        }
        let changed = ask(&public, "GET", "/pgn/round", Some(&tag));
        assert_eq!(changed.status, 200);
        assert_ne!(changed.etag.as_deref(), Some(tag.as_str()));
        assert!(changed.body.contains("1. e4"), "{}", changed.body);
        assert!(!first.body.contains("1. e4"), "{}", first.body);
        let (_, rebuilt) = shared.round_feed(Audience::Public);
        assert_ne!(built.as_ptr(), rebuilt.as_ptr());
        // The arbiter's side tags its own feed apart.
        let theirs = ask(&router(Arc::clone(&shared)), "GET", "/pgn/round", None);
        assert_ne!(theirs.etag, changed.etag);
    }

    #[test]
    fn a_boards_feed_is_not_modified_while_only_other_boards_move() {
        let shared = shared_with_game(5);
        let public = public_router(Arc::clone(&shared));
        let first = ask(&public, "GET", "/pgn/1", None);
        assert_eq!(first.status, 200);
        let tag = first.etag.clone().expect("an ETag");
        // Board 2 plays its whole game: the round changes, board 1 not.
        for (seq, line) in LINES.iter().enumerate() {
            receive(&shared, 2, seq, line);
        }
        let round = ask(&public, "GET", "/pgn/round", Some(&tag));
        assert_eq!(round.status, 200);
        let again = ask(&public, "GET", "/pgn/1", Some(&tag));
        assert_eq!((again.status, again.body.as_str()), (304, ""));
        assert_eq!(ask(&public, "GET", "/pgn/1/1", Some(&tag)).status, 304);
        assert_eq!(ask(&public, "GET", "/pgn/2", Some(&tag)).status, 200);
        // Board 1 moves: its tag changes, its new PGN is sent.
        for (seq, line) in LINES.iter().enumerate().skip(5) {
            publish(&shared, seq, line);
        }
        let moved = ask(&public, "GET", "/pgn/1", Some(&tag));
        assert_eq!(moved.status, 200);
        assert_ne!(moved.etag.as_deref(), Some(tag.as_str()));
        assert!(moved.body.contains("1. e4"), "{}", moved.body);
    }
}
