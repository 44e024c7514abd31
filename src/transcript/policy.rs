//! What a caller wants done with input that is not as it should be. The
//! table of who uses which is in the [module's documentation](super).

/// What to do at a bad line: one that does not parse, is not UTF-8, breaks
/// the order of a game (a second `setup`, a line after `end`), or goes back
/// in time under [`OnTimeBackwards::Refuse`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnBadLine {
    /// Read nothing after it. What came before stands; the caller decides
    /// whether that is a failure (`tocada replay` exits 65) or a game to
    /// keep (a restore keeps every move before it).
    Stop,
    /// Report it and go on with the next line, as if it were not there.
    Skip,
}

/// What to do with a line stamped earlier than the line before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnTimeBackwards {
    /// A bad line.
    Refuse,
    /// Take it as happening at the instant of the line before.
    Clamp,
}

/// What the last line means when the input ends without a line ending.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LastLine {
    /// A line like any other: a file whose last line lacks its newline.
    /// If it does not parse it is a bad line.
    Whole,
    /// Possibly cut short by a writer that stopped mid-line: if it does
    /// not parse it is reported and dropped (a [`FaultKind::Cut`]), never a
    /// reason to stop; if it parses it is read.
    ///
    /// [`FaultKind::Cut`]: super::FaultKind::Cut
    MayBeCut,
}

/// How many games the lines make.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Games {
    /// One: `setup`, if any, is the first line, and nothing follows `end`.
    One,
    /// Any number, one after the other: a `setup` line anywhere chooses the
    /// rules of the next game, and `end` ends nothing.
    Many,
}

/// A caller's answer to every way input can be wrong. Use the named
/// constants; the fields are public so a new caller can say what it wants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Policy {
    /// At a bad line.
    pub on_bad_line: OnBadLine,
    /// At a line stamped earlier than the one before.
    pub on_time_backwards: OnTimeBackwards,
    /// A last line without its line ending.
    pub last_line: LastLine,
    /// One game or many.
    pub games: Games,
}

impl Policy {
    /// A script given by a person or a test (`tocada replay`,
    /// `tocada sim --script`): every fault is the script's author's to fix,
    /// so the first stops it.
    pub const REPLAY: Policy = Policy {
        on_bad_line: OnBadLine::Stop,
        on_time_backwards: OnTimeBackwards::Refuse,
        last_line: LastLine::Whole,
        games: Games::One,
    };

    /// A game stored by the daemon, rebuilt after a restart or turned into
    /// PGN: the lines were written in order by the clock itself, so a fault
    /// is damage. Everything before the first bad line is kept (a game
    /// with every move up to there beats no game); a line out of order is
    /// taken at the instant before it rather than losing the rest.
    pub const RESTORE: Policy = Policy {
        on_bad_line: OnBadLine::Stop,
        on_time_backwards: OnTimeBackwards::Clamp,
        last_line: LastLine::Whole,
        games: Games::One,
    };

    /// Lines typed or piped while the simulated clock runs (standard input
    /// of `tocada run` with `board.kind = "sim"`): a typo must not stop the
    /// clock, so a bad line is reported and skipped, and a writer killed
    /// mid-line is expected. Their `t` is not used (the arrival time
    /// counts), and the clock plays one game after another.
    pub const LIVE: Policy = Policy {
        on_bad_line: OnBadLine::Skip,
        on_time_backwards: OnTimeBackwards::Clamp,
        last_line: LastLine::MayBeCut,
        games: Games::Many,
    };
}
