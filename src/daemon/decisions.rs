//! Where the loop's decisions go as they are made: to whoever watches the
//! game, as values (the simulator's log puts them into words), or, at the
//! edge, to standard output as replay-format lines ([`EffectLines`], for
//! `tocada run` and `tocada sim --script`). The loop hands each decision
//! over once, typed; JSON is written only by [`EffectLines`].

use std::io::Write;

use crate::session::GameRestored;
use crate::{Effect, Millis, transcript};

/// Takes the loop's decisions as values, in the order they were made.
pub trait Decisions {
    /// The referee decided `effect` at `t`, on the game's clock.
    fn decision(&mut self, t: Millis, effect: &Effect);

    /// A stored game was taken up after a restart.
    fn restored(&mut self, game: &GameRestored);

    /// The loop is stopping: whatever is held goes out now.
    fn finish(&mut self) {}
}

/// The edge: each decision written to `W` as a replay-format effect line
/// ([`transcript::effect_to_json`]), flushed at once so a reader sees it as
/// it is made. A writer that fails is dropped, never a reason to stop the
/// clock.
pub struct EffectLines<W: Write> {
    out: Option<W>,
}

impl<W: Write> EffectLines<W> {
    /// Writes to `out`.
    pub fn new(out: W) -> EffectLines<W> {
        EffectLines { out: Some(out) }
    }

    fn line(&mut self, line: &str) {
        if let Some(out) = self.out.as_mut()
            && writeln!(out, "{line}").and_then(|()| out.flush()).is_err()
        {
            self.out = None;
        }
    }
}

impl<W: Write> Decisions for EffectLines<W> {
    fn decision(&mut self, t: Millis, effect: &Effect) {
        self.line(&transcript::effect_to_json(t, effect));
    }

    fn restored(&mut self, game: &GameRestored) {
        self.line(&transcript::restored_to_json(
            game.t,
            game.white_ms,
            game.black_ms,
            game.moves,
            &game.fen,
        ));
    }

    fn finish(&mut self) {
        if let Some(out) = self.out.as_mut() {
            let _ = out.flush();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;
    use std::io;
    use std::rc::Rc;

    use shakmaty::Color;

    use super::*;

    #[derive(Clone, Default)]
    struct Shared(Rc<RefCell<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.borrow_mut().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    struct Closed;

    impl Write for Closed {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::ErrorKind::BrokenPipe.into())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn the_edge_writes_the_replay_format_lines() {
        let out = Shared::default();
        let mut lines = EffectLines::new(out.clone());
        lines.decision(0, &Effect::Started { side: Color::White });
        lines.restored(&GameRestored {
            t: 1_900,
            white_ms: 300_100,
            black_ms: 300_000,
            moves: 1,
            fen: "8/8/8/8/8/8/8/K6k w - - 0 1".to_owned(),
        });
        let text = String::from_utf8(out.0.borrow().clone()).unwrap();
        assert_eq!(
            text,
            concat!(
                r#"{"t":0,"effect":"started","side":"white"}"#,
                "\n",
                r#"{"t":1900,"effect":"game_restored","white_ms":300100,"black_ms":300000,"moves":1,"fen":"8/8/8/8/8/8/8/K6k w - - 0 1"}"#,
                "\n",
            )
        );
    }

    #[test]
    fn a_closed_output_is_dropped_without_a_panic() {
        let mut lines = EffectLines::new(Closed);
        lines.decision(0, &Effect::Paused);
        assert!(lines.out.is_none(), "the failed writer is let go");
        lines.decision(1, &Effect::Resumed);
        lines.finish();
    }
}
