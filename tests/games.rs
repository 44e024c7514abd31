//! Whole games through the referee: every reference game in `tests/data`,
//! turned into the lifts, places and presses of real hands in many physical
//! styles, must be scored exactly as the PGN has it, with no violation and
//! the PGN's result.

mod support {
    pub mod parsed;
    pub mod pgn;
}

use shakmaty::{Chess, Color, KnownOutcome, Position};
use tocada::gesture::{Script, Style, parse_san, san_plus};
use tocada::{Effect, Input, Millis, Reason, Referee, Rules};

use support::pgn::reference_games;

/// The scripts a game is replayed as: orders varied move by move on both
/// kinds of board, and every fixed style.
fn scripts(start: &Chess, seed: u64) -> Vec<(String, Script)> {
    let mut scripts = Vec::new();
    for identifies_pieces in [false, true] {
        scripts.push((
            format!("varied orders, identities {identifies_pieces}"),
            Script::varied(start.clone(), identifies_pieces, seed),
        ));
    }
    for style in Style::all() {
        scripts.push((
            style.to_string(),
            Script::new(start.clone(), style, seed + style.index() as u64),
        ));
    }
    scripts
}

/// Feeds the events to a fresh referee, draining effects as they come.
fn replay(rules: Rules, events: &[(Millis, Input)]) -> Vec<(Millis, Effect)> {
    let mut referee = Referee::new(rules);
    let mut effects = Vec::new();
    for &(t, input) in events {
        referee
            .handle(t, input)
            .unwrap_or_else(|e| panic!("{e} at {input:?}"));
        while let Some(effect) = referee.poll_effect() {
            effects.push(effect);
        }
    }
    effects
}

/// What a replay must give: the SAN list, no violation, one result last.
fn check_replay(
    label: &str,
    effects: &[(Millis, Effect)],
    sans: &[String],
    outcome: KnownOutcome,
    reason: Reason,
    result_tag: &str,
) {
    let violations: Vec<_> = effects
        .iter()
        .filter(|(_, e)| matches!(e, Effect::Violation(_)))
        .collect();
    assert!(violations.is_empty(), "{label}: violations {violations:?}");

    let scored: Vec<&str> = effects
        .iter()
        .filter_map(|(_, e)| match e {
            Effect::Move(m) => Some(m.san.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(scored, sans, "{label}: the score");

    let results: Vec<_> = effects
        .iter()
        .filter_map(|(_, e)| match e {
            Effect::Result { outcome, reason } => Some((*outcome, *reason)),
            _ => None,
        })
        .collect();
    assert_eq!(results, [(outcome, reason)], "{label}: the result");
    assert_eq!(outcome.to_string(), result_tag, "{label}: the Result tag");
    assert!(
        matches!(effects.last(), Some((_, Effect::Result { .. }))),
        "{label}: nothing follows the result"
    );
}

/// The reference games themselves, as read: the test data and the PGN
/// reading must be right before the referee can be judged on them.
#[test]
fn reference_games_are_read_whole() {
    let games = reference_games();
    assert_eq!(
        games.len(),
        8,
        "6 Kasparov–Deep Blue, Molinari–Bordais, Nepomniachtchi–Ding"
    );
    for game in &games {
        assert!(!game.sans.is_empty(), "{}", game.name);
        if let Some(plies) = game.tag("PlyCount") {
            assert_eq!(
                plies.parse::<usize>().ok(),
                Some(game.sans.len()),
                "{}",
                game.name
            );
        }
        // The PGN's SAN is what shakmaty writes, suffixes included, so the
        // referee (which writes with shakmaty) can be held to it exactly.
        let mut pos = game.start();
        for san in &game.sans {
            let m = parse_san(&pos, san).unwrap_or_else(|e| panic!("{}: {e}", game.name));
            assert_eq!(&san_plus(&pos, m), san, "{}", game.name);
            pos.play_unchecked(m);
        }
        let (outcome, _) = game.expected_result();
        assert_eq!(outcome.to_string(), game.result(), "{}", game.name);
    }
    let molinari = games
        .iter()
        .find(|g| g.tag("White") == Some("Molinari"))
        .expect("Molinari–Bordais");
    assert_eq!(molinari.expected_result().1, Reason::Checkmate);
    let nepo = games
        .iter()
        .find(|g| g.tag("TimeControl").is_some())
        .expect("a game with a time control");
    assert_eq!(
        nepo.rules().time_control.to_string(),
        "40/7200:20/3600:900+30"
    );
}

/// The scripts end as the PGN does: no press after a mate, a resignation by
/// the loser, or a draw offered and accepted.
#[test]
fn reference_scripts_end_as_the_games_did() {
    for (i, game) in reference_games().iter().enumerate() {
        let (outcome, reason) = game.expected_result();
        for (label, script) in scripts(&game.start(), i as u64) {
            let script = game.play_into(script);
            let events = script.events();
            let presses = events
                .iter()
                .filter(|(_, e)| matches!(e, Input::Press(_)))
                .count();
            let tail: Vec<Input> = events.iter().rev().take(2).map(|&(_, e)| e).collect();
            match (outcome, reason) {
                (_, Reason::Checkmate) => {
                    assert_eq!(presses, game.sans.len(), "{} {label}", game.name);
                    assert!(matches!(tail[0], Input::Place(..)), "{} {label}", game.name);
                }
                (KnownOutcome::Decisive { winner }, _) => {
                    assert_eq!(tail[0], Input::Resign(!winner), "{} {label}", game.name);
                }
                (KnownOutcome::Draw, _) => {
                    assert!(matches!(tail[0], Input::Draw(_)), "{} {label}", game.name);
                }
            }
        }
    }
}

/// Every reference game, in every style, through the referee.
#[test]
fn reference_games_replay_through_the_referee() {
    for (i, game) in reference_games().iter().enumerate() {
        let (outcome, reason) = game.expected_result();
        for (label, script) in scripts(&game.start(), i as u64) {
            let events = game.play_into(script).into_events();
            let effects = replay(game.rules(), &events);
            check_replay(
                &format!("{} ({label})", game.name),
                &effects,
                &game.sans,
                outcome,
                reason,
                game.result(),
            );
        }
    }
}

/// A game of our own with what the reference games lack: en passant for
/// both sides, castling on both wings, and an underpromotion with capture
/// (to a knight), ended by resignation.
const OWN_GAME: &[&str] = &[
    "e4", "d5", "e5", "f5", "exf6", "Nc6", "fxg7", "Be6", "Nf3", "Qd6", "Bc4", "O-O-O", "O-O",
    "Nf6", "gxh8=N", "Bg4", "Bb3", "d4", "c4", "dxc3", "Nxc3",
];

#[test]
fn own_game_has_every_special_move() {
    let mut pos = Chess::default();
    let (mut en_passant, mut castles, mut underpromotions) = (Vec::new(), Vec::new(), 0);
    for san in OWN_GAME {
        let m = parse_san(&pos, san).unwrap();
        if m.is_en_passant() {
            en_passant.push(pos.turn());
        }
        if m.is_castle() {
            castles.push(*san);
        }
        if m.promotion().is_some_and(|r| r != shakmaty::Role::Queen) {
            underpromotions += 1;
        }
        pos.play_unchecked(m);
    }
    assert_eq!(en_passant, [Color::White, Color::Black]);
    assert_eq!(castles, ["O-O-O", "O-O"]);
    assert_eq!(underpromotions, 1);
}

#[test]
fn own_game_replays_through_the_referee() {
    let sans: Vec<String> = OWN_GAME.iter().map(|s| s.to_string()).collect();
    for (label, mut script) in scripts(&Chess::default(), 99) {
        script.play_sans(OWN_GAME).unwrap();
        script.resign(Color::Black).unwrap();
        let effects = replay(Rules::default(), script.events());
        check_replay(
            &format!("own game ({label})"),
            &effects,
            &sans,
            KnownOutcome::Decisive {
                winner: Color::White,
            },
            Reason::Resignation,
            "1-0",
        );
    }
}
