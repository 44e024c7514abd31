//! The round's pages for the logged-in arbiter: the rounds imported and
//! the form that imports one (a TRF-16 or CSV pasted, with the session's
//! CSRF token), and each round's results for the pairing program
//! (`/round/N/results.trf`, `/round/N/results.csv`) and its PGN
//! (`/round/N.pgn`). The page's looks are the page's; this is the data.

use std::sync::Arc;

use axum::Form;
use axum::Router;
use axum::extract::rejection::FormRejection;
use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;
use serde::Deserialize;

use super::auth::same_token;
use super::pairings;
use super::results::ResultsFormat;
use super::web::{Shared, escape, html, session, wall_ms};

/// The largest pairings form taken: a 2000-board TRF, URL-encoded.
pub const MAX_PAIRINGS_BODY: usize = 2 * 1024 * 1024;

/// The routes of the rounds, beside [`super::web::router`]'s (the runner
/// merges them: this file uses the web's session, not the other way).
pub fn routes(shared: Arc<Shared>) -> Router {
    Router::new()
        .route(
            "/rounds",
            get(rounds_page)
                .post(import)
                .layer(DefaultBodyLimit::max(MAX_PAIRINGS_BODY)),
        )
        .route("/round/{round}/{file}", get(results))
        .route("/round/{file}", get(round_pgn))
        .with_state(shared)
}

fn log_in_first() -> Response {
    Redirect::to("/login").into_response()
}

/// The rounds imported, each with its results' links, and the form.
fn page(shared: &Shared, csrf: &str, message: &str) -> Response {
    let hall = shared.hall();
    let playing = hall.round_number().to_owned();
    let mut rows = String::new();
    match hall.store().rounds() {
        Ok(rounds) => {
            for round in rounds {
                let n = round.round;
                let boards = hall.store().pairings(n).map_or(0, |p| p.len());
                rows.push_str(&format!(
                    "<li>Round {n}{}: {boards} board(s), {} — \
                     <a href=\"/round/{n}/results.trf\">results.trf</a> \
                     <a href=\"/round/{n}/results.csv\">results.csv</a> \
                     <a href=\"/round/{n}.pgn\">PGN</a></li>\n",
                    if playing == n.to_string() {
                        " (played now)"
                    } else {
                        ""
                    },
                    escape(&round.format),
                ));
            }
        }
        Err(err) => rows.push_str(&format!(
            "<li>the store failed: {}</li>",
            escape(&err.to_string())
        )),
    }
    let body = format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>Rounds</title>\
         <link rel=\"stylesheet\" href=\"/hall.css\"></head><body>\
         <h1>Rounds of {hall}</h1><p><a href=\"/arbiter\">Boards</a></p>\
         <p class=\"message\">{message}</p><ul id=\"rounds\">{rows}</ul>\
         <h2>Import a round's pairings</h2>\
         <form method=\"post\" action=\"/rounds\">\
         <input type=\"hidden\" name=\"csrf\" value=\"{csrf}\">\
         <label>Round <input name=\"round\" type=\"number\" min=\"1\" max=\"99\" required></label>\
         <label>TRF-16 or CSV (board,white,black,…)<textarea name=\"pairings\" rows=\"12\" cols=\"100\" required></textarea></label>\
         <button>Import</button></form></body></html>",
        hall = escape(hall.name()),
        message = escape(message),
        csrf = escape(csrf),
    );
    html(StatusCode::OK, body)
}

async fn rounds_page(State(shared): State<Arc<Shared>>, headers: HeaderMap) -> Response {
    let Some((_, _, csrf)) = session(&shared, &headers) else {
        return log_in_first();
    };
    page(&shared, &csrf, "")
}

#[derive(Deserialize)]
struct ImportForm {
    #[serde(default)]
    csrf: String,
    round: u32,
    pairings: String,
}

async fn import(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    form: Result<Form<ImportForm>, FormRejection>,
) -> Response {
    let Some((_, arbiter, csrf)) = session(&shared, &headers) else {
        return (StatusCode::UNAUTHORIZED, "log in first").into_response();
    };
    let Ok(Form(form)) = form else {
        return (StatusCode::BAD_REQUEST, "round, pairings and csrf").into_response();
    };
    if !same_token(&csrf, &form.csrf) {
        return (StatusCode::FORBIDDEN, "bad CSRF token").into_response();
    }
    let boards = match pairings::parse(&form.pairings, form.round) {
        Ok(boards) => boards,
        Err(err) => {
            let mut response = page(&shared, &csrf, &format!("Not imported: {err}"));
            *response.status_mut() = StatusCode::UNPROCESSABLE_ENTITY;
            return response;
        }
    };
    let format = if pairings::is_trf(&form.pairings) {
        "trf"
    } else {
        "csv"
    };
    let imported =
        shared
            .hall()
            .import_pairings(form.round, format, &form.pairings, &boards, wall_ms());
    match imported {
        Ok(()) => {
            tracing::info!(arbiter = %arbiter, round = form.round, boards = boards.len(), "round imported");
            shared.notify();
            page(
                &shared,
                &csrf,
                &format!("Round {}: {} board(s) imported.", form.round, boards.len()),
            )
        }
        Err(err) => {
            tracing::error!("cannot store a round's pairings: {err}");
            (StatusCode::INTERNAL_SERVER_ERROR, "the store failed").into_response()
        }
    }
}

fn text(kind: &'static str, body: String) -> Response {
    (
        [
            (header::CONTENT_TYPE, kind),
            (header::CACHE_CONTROL, "no-store"),
        ],
        body,
    )
        .into_response()
}

fn round_text(shared: &Shared, round: u32, format: ResultsFormat) -> Response {
    let kind = match format {
        ResultsFormat::Trf => "text/plain; charset=utf-8",
        ResultsFormat::Csv => "text/csv; charset=utf-8",
        ResultsFormat::Pgn => "application/x-chess-pgn; charset=utf-8",
    };
    match shared.hall().results_text(round, format) {
        Ok(body) => text(kind, body),
        Err(err) => {
            tracing::error!("cannot read round {round}'s results: {err}");
            (StatusCode::INTERNAL_SERVER_ERROR, "the store failed").into_response()
        }
    }
}

async fn results(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    Path((round, file)): Path<(u32, String)>,
) -> Response {
    if session(&shared, &headers).is_none() {
        return (StatusCode::UNAUTHORIZED, "log in first").into_response();
    }
    let format = match file.as_str() {
        "results.trf" => ResultsFormat::Trf,
        "results.csv" => ResultsFormat::Csv,
        _ => return StatusCode::NOT_FOUND.into_response(),
    };
    round_text(&shared, round, format)
}

async fn round_pgn(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    Path(file): Path<String>,
) -> Response {
    if session(&shared, &headers).is_none() {
        return (StatusCode::UNAUTHORIZED, "log in first").into_response();
    }
    match file.strip_suffix(".pgn").and_then(|n| n.parse().ok()) {
        Some(round) => round_text(&shared, round, ResultsFormat::Pgn),
        None => StatusCode::NOT_FOUND.into_response(),
    }
}
