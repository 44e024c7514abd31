//! The man page, `packaging/tocada.1`, is written from the command-line
//! definitions (`tocada::cli`) with clap_mangen, plus the sections a
//! command line cannot say: `run`'s standard input on a desktop, signals,
//! files, the environment and the exit codes (`tocada::exit::CODES`).
//!
//! This test fails when the committed page is not what the definitions
//! give; `TOCADA_BLESS=1 cargo test --test manpage` writes it anew. The page
//! describes the packaged binary, which is built without the terminal
//! simulator: `sim` is left out.

use std::fmt::Write as _;
use std::path::Path;

use clap::CommandFactory;
use tocada::cli::Cli;
use tocada::exit::CODES;

const PAGE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/packaging/tocada.1");

/// Text for roff: backslashes and hyphens escaped, no line starting with a
/// control character.
fn roff(text: &str) -> String {
    let escaped = text.replace('\\', "\\\\").replace('-', "\\-");
    escaped
        .lines()
        .map(|line| match line.chars().next() {
            Some('.' | '\'') => format!("\\&{line}"),
            _ => line.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `.SH NAME`, a paragraph per entry of `items` as a tagged paragraph.
fn section(page: &mut String, name: &str, intro: &str, items: &[(String, String)]) {
    writeln!(page, ".SH {name}").unwrap();
    if !intro.is_empty() {
        writeln!(page, "{}", roff(intro)).unwrap();
    }
    for (tag, text) in items {
        let lines: Vec<String> = text.lines().map(roff).collect();
        writeln!(page, ".TP\n{tag}\n{}", lines.join("\n.br\n")).unwrap();
    }
}

/// Each subcommand: its synopsis, what it does, and its arguments.
fn commands(cmd: &clap::Command) -> Vec<(String, String)> {
    cmd.get_subcommands()
        .filter(|sub| !sub.is_hide_set())
        .map(|sub| {
            let mut synopsis = format!("\\fBtocada {}\\fR", roff(sub.get_name()));
            let mut text = sub.get_about().map(|a| format!("{a}.")).unwrap_or_default();
            for arg in sub.get_arguments().filter(|a| !a.is_hide_set()) {
                let value = arg
                    .get_value_names()
                    .and_then(|names| names.first())
                    .map_or_else(|| arg.get_id().as_str().to_uppercase(), |n| n.to_string());
                let usage = match arg.get_long() {
                    Some(long) => format!("\\fB\\-\\-{}\\fR \\fI{}\\fR", roff(long), roff(&value)),
                    None => format!("\\fI{}\\fR", roff(&value)),
                };
                write!(synopsis, " [{usage}]").unwrap();
                let help = arg.get_help().map(|h| h.to_string()).unwrap_or_default();
                let default = arg
                    .get_default_values()
                    .iter()
                    .map(|v| v.to_string_lossy().into_owned())
                    .collect::<Vec<_>>();
                let stop = if help.ends_with('.') { "" } else { "." };
                write!(text, "\n{value}: {help}{stop}").unwrap();
                if !default.is_empty() {
                    write!(text, " Default: {}.", default.join(", ")).unwrap();
                }
            }
            (synopsis, text)
        })
        .collect()
}

fn page() -> String {
    let mut cmd = Cli::command();
    if cmd.find_subcommand("sim").is_some() {
        cmd = cmd.mut_subcommand("sim", |sim| sim.hide(true));
    }
    let man = clap_mangen::Man::new(cmd.clone())
        .title("TOCADA")
        .section("1")
        .manual("tocada")
        .source(format!("tocada {}", env!("CARGO_PKG_VERSION")));
    let mut head = Vec::new();
    man.render_title(&mut head).unwrap();
    man.render_name_section(&mut head).unwrap();
    man.render_synopsis_section(&mut head).unwrap();
    let mut page = String::from_utf8(head).unwrap();

    section(
        &mut page,
        "DESCRIPTION",
        "tocada is a club chess clock that enforces the Laws of Chess by itself. On a \
         Raspberry Pi it reads two levers, front buttons and a sensor chessboard on I2C, \
         draws both clocks on a 128x64 OLED, and rules on touch-move, pressing with the hand \
         that moved, illegal moves, displaced pieces and draw offers. Under systemd it runs \
         as tocada.service (tocada run); every game is kept in SQLite and survives a power cut.",
        &[],
    );
    section(&mut page, "COMMANDS", "", &commands(&cmd));
    section(
        &mut page,
        "STANDARD INPUT",
        "With board.kind = \"sim\" in the configuration, tocada run drives device models \
         of the board, the levers and the OLED instead of the Pi's devices, and plays the \
         replay format (JSON Lines, one event a line, as tocada replay reads) from standard \
         input as the events arrive: {\"t\":1500,\"ev\":\"lift\",\"sq\":\"e2\"}, \
         {\"t\":1700,\"ev\":\"place\",\"sq\":\"e4\"}, {\"t\":1900,\"ev\":\"press\",\"side\":\"white\"}. \
         Each line is played when it is read and its t ignored, or, with board.stdin = \
         \"script\", at its t after the first line's, so that a recorded script piped in \
         at once plays in real time. Such a script given again after a restart goes on \
         from the restored game: its lines already stored are skipped (its inputs must be \
         the stored game's, in order, or it is not played), the lever of the player not to \
         move resumes the game, and the rest follows a second later. Under systemd, a \
         drop-in with StandardInput=file:PATH gives the daemon its script. The referee's \
         decisions go to standard output in the same format. A bad line is reported on \
         standard error and skipped. On the Pi, standard input is not read.",
        &[],
    );
    section(
        &mut page,
        "SIGNALS",
        "",
        &[
            (
                "\\fBSIGTERM\\fR, \\fBSIGINT\\fR".to_owned(),
                "tocada run stops: the game in play stays in the store, paused, and is \
                 resumed by the next start."
                    .to_owned(),
            ),
            (
                "\\fBSIGKILL\\fR, a power cut".to_owned(),
                "Nothing completed is lost: every event is committed as it happens, and the \
                 next start rebuilds the game by replaying them and waits paused for a press."
                    .to_owned(),
            ),
        ],
    );
    section(
        &mut page,
        "FILES",
        "",
        &[
            (
                "\\fI/etc/tocada/tocada.toml\\fR".to_owned(),
                "The configuration: the board, the pins, the I2C bus, the presets and the \
                 enforcement mode. Check it with tocada check-config."
                    .to_owned(),
            ),
            (
                "\\fI/var/lib/tocada/games.sqlite\\fR".to_owned(),
                "The games, every event as a replay line (state.directory in the \
                 configuration, $STATE_DIRECTORY under systemd). tocada export prints them \
                 as PGN."
                    .to_owned(),
            ),
        ],
    );
    section(
        &mut page,
        "ENVIRONMENT",
        "",
        &[
            (
                "\\fBRUST_LOG\\fR".to_owned(),
                "What the log keeps: a level (info, the default) or target=level \
                 directives such as tocada=debug,info."
                    .to_owned(),
            ),
            (
                "\\fBSTATE_DIRECTORY\\fR".to_owned(),
                "Set by systemd: where the games are kept when the configuration does \
                 not say."
                    .to_owned(),
            ),
            (
                "\\fBJOURNAL_STREAM\\fR".to_owned(),
                "Set by systemd: the log goes to the journal with each message's level.".to_owned(),
            ),
        ],
    );
    let codes: Vec<(String, String)> = CODES
        .iter()
        .map(|(code, name, when)| (format!("\\fB{code}\\fR ({})", roff(name)), when.to_string()))
        .chain(std::iter::once((
            "\\fB2\\fR".to_owned(),
            "the command line itself is wrong (an unknown option, a missing argument)".to_owned(),
        )))
        .collect();
    section(&mut page, "EXIT STATUS", tocada::exit::RULE, &codes);
    section(
        &mut page,
        "SEE ALSO",
        "systemctl(1), journalctl(1); the README in /usr/share/doc/tocada/.",
        &[],
    );
    page
}

#[test]
fn the_committed_man_page_is_what_the_command_line_gives() {
    let page = page();
    if std::env::var_os("TOCADA_BLESS").is_some() {
        std::fs::write(PAGE, &page).unwrap();
    }
    let committed = std::fs::read_to_string(Path::new(PAGE)).unwrap_or_default();
    assert!(
        committed == page,
        "packaging/tocada.1 is out of date: run TOCADA_BLESS=1 cargo test --test manpage"
    );
}

#[test]
fn the_page_names_every_packaged_command_and_every_exit_code() {
    let page = page();
    for command in ["run", "replay", "check\\-config", "export"] {
        assert!(
            page.contains(&format!("\\fBtocada {command}\\fR")),
            "{command}"
        );
    }
    assert!(!page.contains("tocada sim"), "the package has no simulator");
    for (code, _, _) in CODES {
        assert!(page.contains(&format!(".TP\n\\fB{code}\\fR")), "{code}");
    }
}
