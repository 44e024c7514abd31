//! The man page, `packaging/tocada.1`, is written from the command-line
//! definitions (`tocada::cli`) with clap_mangen, plus the sections a
//! command line cannot say: `run`'s standard input on a desktop, signals,
//! files, the environment and the exit codes (`tocada::exit::CODES`).
//!
//! `packaging/tocada-hall.1` and `packaging/tocada-publish.1` are written
//! the same way, each with every command inline and its exit statuses.
//!
//! This test fails when a committed page is not what the definitions
//! give; `TOCADA_BLESS=1 cargo test --test manpage` writes them anew. The
//! packaged binary is built without the terminal simulator: `sim` is
//! documented all the same, its text saying so.

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

/// Each subcommand of `program`: its synopsis, what it does, and its
/// arguments, on this page: no page is referred to for a command.
fn commands(program: &str, cmd: &clap::Command) -> Vec<(String, String)> {
    cmd.get_subcommands()
        .filter(|sub| !sub.is_hide_set())
        .map(|sub| {
            let mut synopsis = format!("\\fB{} {}\\fR", roff(program), roff(sub.get_name()));
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

/// The EXIT STATUS section's entries: `codes`, then clap's 2.
fn exit_codes(codes: &[(u8, &str, &str)]) -> Vec<(String, String)> {
    codes
        .iter()
        .map(|(code, name, when)| (format!("\\fB{code}\\fR ({})", roff(name)), when.to_string()))
        .chain(std::iter::once((
            "\\fB2\\fR".to_owned(),
            "the command line itself is wrong (an unknown option, a missing argument)".to_owned(),
        )))
        .collect()
}

/// The title, NAME and SYNOPSIS of `cmd`'s page, as clap_mangen writes them.
fn head(cmd: &clap::Command, title: &str, program: &str) -> String {
    let man = clap_mangen::Man::new(cmd.clone())
        .title(title)
        .section("1")
        .manual("tocada")
        .source(format!("{program} {}", env!("CARGO_PKG_VERSION")));
    let mut head = Vec::new();
    man.render_title(&mut head).unwrap();
    man.render_name_section(&mut head).unwrap();
    man.render_synopsis_section(&mut head).unwrap();
    String::from_utf8(head).unwrap()
}

/// The top-level options of `cmd`, as clap_mangen writes them.
fn options(cmd: &clap::Command) -> String {
    let man = clap_mangen::Man::new(cmd.clone());
    let mut out = Vec::new();
    man.render_options_section(&mut out).unwrap();
    String::from_utf8(out).unwrap()
}

fn page() -> String {
    let cmd = Cli::command();
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
    section(&mut page, "COMMANDS", "", &commands("tocada", &cmd));
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
    section(
        &mut page,
        "EXIT STATUS",
        tocada::exit::RULE,
        &exit_codes(&CODES),
    );
    section(
        &mut page,
        "SEE ALSO",
        "tocada-publish(1), tocada-hall(1), systemctl(1), journalctl(1); the README in \
         /usr/share/doc/tocada/ and the book beside it (docs/src/).",
        &[],
    );
    page
}

const HALL_PAGE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/packaging/tocada-hall.1");

fn hall_page() -> String {
    let cmd = tocada::hall::cli::HallCli::command();
    let mut page = head(&cmd, "TOCADA-HALL", "tocada-hall");
    section(
        &mut page,
        "DESCRIPTION",
        "tocada-hall runs on the arbiter's machine: it subscribes to a tournament hall's \
         MQTT broker, to which every clock's tocada-publish sends its games, and serves \
         the arbiter's page (every board, its clocks and rulings, behind a login) and the \
         round's live PGN feed. Under systemd it runs as tocada-hall.service (tocada-hall \
         run), installed neither enabled nor started.",
        &[],
    );
    section(
        &mut page,
        "COMMANDS",
        "Without a command, run.",
        &commands("tocada-hall", &cmd),
    );
    section(
        &mut page,
        "FILES",
        "",
        &[
            (
                "\\fI/etc/tocada/hall.toml\\fR".to_owned(),
                "The hall's configuration: its name, the broker, the listen address, the \
                 arbiters, the round's pairings, the push. Check it with tocada-hall \
                 check-config."
                    .to_owned(),
            ),
            (
                "\\fI/etc/ssl/certs\\fR".to_owned(),
                "The OS's root certificates (ca-certificates), read at start, which an \
                 https:// push's server is checked against unless push.ca_file names a \
                 CA of its own."
                    .to_owned(),
            ),
            (
                "\\fI/etc/tocada/hall.credentials\\fR".to_owned(),
                "The hall's login on the broker, one line user:password (credentials in \
                 the configuration), readable by the hall's user."
                    .to_owned(),
            ),
        ],
    );
    section(
        &mut page,
        "EXIT STATUS",
        tocada::exit::RULE,
        &exit_codes(&tocada::exit::HALL_CODES),
    );
    section(
        &mut page,
        "SEE ALSO",
        "tocada(1), tocada-publish(1), systemctl(1), journalctl(1); the book's hall \
         chapter in /usr/share/doc/tocada/docs/src/hall.md.",
        &[],
    );
    page
}

const PUBLISH_PAGE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/packaging/tocada-publish.1");

fn publish_page() -> String {
    let cmd = tocada::publish::PublishCli::command();
    let mut page = head(&cmd, "TOCADA-PUBLISH", "tocada-publish");
    section(
        &mut page,
        "DESCRIPTION",
        &cmd.get_long_about()
            .or(cmd.get_about())
            .map(|about| about.to_string())
            .unwrap_or_default(),
        &[],
    );
    page.push_str(&options(&cmd));
    section(
        &mut page,
        "COMMANDS",
        "Without a command, publish until stopped. tocada publish ARGS runs tocada-publish \
         with the same ARGS.",
        &commands("tocada-publish", &cmd),
    );
    section(
        &mut page,
        "FILES",
        "",
        &[
            (
                "\\fI/etc/tocada/tocada.toml\\fR".to_owned(),
                "The clock's configuration, whose [publish] section says where to publish."
                    .to_owned(),
            ),
            (
                "\\fI/var/lib/tocada/games.sqlite\\fR".to_owned(),
                "The clock's game store, read only.".to_owned(),
            ),
            (
                "\\fI/var/lib/tocada\\-publish/\\fR".to_owned(),
                "The publisher's state: the last event the broker acknowledged.".to_owned(),
            ),
        ],
    );
    section(
        &mut page,
        "EXIT STATUS",
        tocada::exit::RULE,
        &exit_codes(&tocada::exit::PUBLISH_CODES),
    );
    section(
        &mut page,
        "SEE ALSO",
        "tocada(1), tocada-hall(1), systemctl(1), journalctl(1).",
        &[],
    );
    page
}

/// Every page shipped: its path and what the command lines give.
fn pages() -> [(&'static str, String); 3] {
    [
        (PAGE, page()),
        (HALL_PAGE, hall_page()),
        (PUBLISH_PAGE, publish_page()),
    ]
}

#[test]
fn the_committed_man_pages_are_what_the_command_lines_give() {
    for (path, page) in pages() {
        if std::env::var_os("TOCADA_BLESS").is_some() {
            std::fs::write(path, &page).unwrap();
        }
        let committed = std::fs::read_to_string(Path::new(path)).unwrap_or_default();
        assert!(
            committed == page,
            "{path} is out of date: run TOCADA_BLESS=1 cargo test --test manpage"
        );
    }
}

#[test]
fn every_page_has_every_command_and_exit_status_and_names_only_shipped_pages() {
    let shipped: Vec<String> = pages()
        .iter()
        .map(|(path, _)| {
            let name = Path::new(path).file_stem().unwrap().to_string_lossy();
            roff(&format!("{name}(1)"))
        })
        .collect();
    let system = ["systemctl(1)", "journalctl(1)"];
    let programs = [
        ("tocada", Cli::command()),
        ("tocada-hall", tocada::hall::cli::HallCli::command()),
        ("tocada-publish", tocada::publish::PublishCli::command()),
    ];
    for ((path, page), (program, cmd)) in pages().iter().zip(programs) {
        for sub in cmd.get_subcommands() {
            let synopsis = format!("\\fB{} {}\\fR", roff(program), roff(sub.get_name()));
            assert!(page.contains(&synopsis), "{path}: {synopsis}");
        }
        assert!(page.contains(".SH EXIT STATUS"), "{path}");
        assert!(page.contains(".TP\n\\fB0\\fR"), "{path}: 0");
        assert!(page.contains(".TP\n\\fB78\\fR"), "{path}: 78");
        assert!(page.contains(".TP\n\\fB2\\fR"), "{path}: 2");
        // Every NAME(1) the page refers to is one of ours or systemd's.
        for (i, _) in page.match_indices("(1)") {
            let start = page[..i]
                .rfind(|c: char| c.is_whitespace() || c == ',')
                .map_or(0, |s| s + 1);
            let name = format!("{}(1)", &page[start..i]);
            assert!(
                shipped.contains(&name) || system.contains(&name.as_str()),
                "{path} refers to {name}, which is not shipped"
            );
        }
    }
    assert!(pages()[2].1.contains("from\\-start"));
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
    // The simulator is documented too, saying the package leaves it out.
    assert!(page.contains("\\fBtocada sim\\fR"));
    assert!(page.contains("Not in the Debian package"));
    for (code, _, _) in CODES {
        assert!(page.contains(&format!(".TP\n\\fB{code}\\fR")), "{code}");
    }
}
