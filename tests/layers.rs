//! The layers of the crate, kept: a lower layer never uses a higher one.
//!
//! A black-box check over the source tree: every `src/**/*.rs` is read as
//! text, comments, string and char literals and `#[cfg(test)] mod … { … }`
//! blocks are blanked out, and every path that leaves its own top-level
//! module (`crate::…`, `$crate::…`, a `super::…` that climbs to the crate
//! root) is resolved to the top-level module it uses. Root re-exports count
//! as the module they come from (`crate::Millis` is the referee's), read
//! from `src/lib.rs`; those of other crates (`crate::KnownOutcome`) are not
//! the crate's at all.
//!
//! The layers, bottom up: the referee; the leaves (the face, and the types
//! two layers share: `controls`, the front's buttons and the link's
//! changes, `players`, the players a game begins under, and `broker`, the
//! broker's URL and login); the hardware
//! drivers and the device models; the PGN; the session, which rules on
//! `controls` without the drivers; the replay format; the rig; the daemon;
//! the simulator; at the edge, the hall and the publisher (feature `net`),
//! which the clock's layers never use and which share only `broadcast` and
//! `broker`, not each other. The hall's messages (`broadcast`) are the
//! edge's: the clock's core (the referee, the drivers and models, the PGN,
//! the session, the replay format, the store and the rig) never uses them;
//! the daemon reads the publisher's pairing file at its edge and keeps
//! `players`. Within a room (a directory of `src/`), no two
//! files use each other, however far round. Each rule below is one test, which fails
//! naming every file and line that breaks it, and each can fail: the
//! checker's own tests break every rule on a small fake source.
//!
//! Inside one top-level module, no two files import each other in a
//! circle: `super::x`, `self::x`, `crate::room::x` and a child's name are
//! resolved to the files they name, and a name the parent re-exports
//! (`super::Law`, from `pub use law::Law`) to the file it comes from. A
//! file using its own parents' items is no circle: the parent declares it.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// A module the rule does not let its files use.
#[derive(Debug, Clone, Copy)]
enum Forbidden {
    /// These top-level modules.
    These(&'static [&'static str]),
    /// Every top-level module but these (and the files' own).
    AllBut(&'static [&'static str]),
}

/// One rule: the files it covers may not use what it forbids.
#[derive(Debug, Clone, Copy)]
struct Rule {
    /// Files whose path (from the crate root, `/`-separated) starts with
    /// one of these.
    covers: &'static [&'static str],
    forbidden: Forbidden,
    /// Why, for the failure message.
    why: &'static str,
}

const DAEMON_WITHOUT_SIM: Rule = Rule {
    covers: &["src/daemon/", "src/daemon.rs"],
    forbidden: Forbidden::These(&["sim"]),
    why: "the daemon builds without the simulator (feature `sim`)",
};

const DRIVERS_BELOW_THE_SHELL: Rule = Rule {
    covers: &[
        "src/hardware/",
        "src/hardware.rs",
        "src/models/",
        "src/models.rs",
        "src/referee/",
        "src/referee.rs",
        "src/rig/",
        "src/rig.rs",
    ],
    forbidden: Forbidden::These(&["daemon", "sim", "session"]),
    why: "the referee, the drivers, the device models and the rig sit below the session, the daemon and the simulator",
};

const HARDWARE_WITHOUT_FACE: Rule = Rule {
    covers: &["src/hardware/", "src/hardware.rs"],
    forbidden: Forbidden::These(&["face"]),
    why: "a driver shows frames, not the face",
};

const FACE_IS_A_LEAF: Rule = Rule {
    covers: &["src/face"],
    forbidden: Forbidden::AllBut(&["frame"]),
    why: "the face is a leaf: it uses nothing of the crate but `crate::frame`",
};

const SESSION_BELOW_ITS_USERS: Rule = Rule {
    covers: &["src/session/", "src/session.rs"],
    forbidden: Forbidden::These(&["transcript", "daemon", "rig", "sim"]),
    why: "the session is sans-IO and knows no wire format: the replay format, the rig, the daemon and the simulator use it, not the other way round",
};

const SESSION_WITHOUT_HARDWARE: Rule = Rule {
    covers: &["src/session/", "src/session.rs"],
    forbidden: Forbidden::These(&["hardware", "models"]),
    why: "the session rules on buttons and link changes as plain values (`crate::controls`), not on the drivers or the device models that make them",
};

const SHARED_TYPES_ARE_LEAVES: Rule = Rule {
    covers: &["src/controls.rs", "src/broker.rs", "src/players.rs"],
    forbidden: Forbidden::AllBut(&[]),
    why: "the types two layers share (the front's controls and link changes, the broker's URL and login, the players a game begins under) live in leaves that use nothing of the crate, so sharing them ties neither layer to the other",
};

const THE_CLOCKS_CORE_WITHOUT_THE_HALLS_MESSAGES: Rule = Rule {
    covers: &[
        "src/referee/",
        "src/referee.rs",
        "src/session/",
        "src/session.rs",
        "src/transcript/",
        "src/transcript.rs",
        "src/pgn/",
        "src/pgn.rs",
        "src/store/",
        "src/store.rs",
        "src/rig/",
        "src/rig.rs",
        "src/hardware/",
        "src/hardware.rs",
        "src/models/",
        "src/models.rs",
    ],
    forbidden: Forbidden::These(&["broadcast"]),
    why: "the hall's messages (`crate::broadcast`) are the edge's, the hall's and the publisher's: the clock's core keeps who plays as `crate::players`, which a message converts into at the edge (the daemon reading the pairing file)",
};

const THE_HALL_WITHOUT_THE_PUBLISHER_OR_THE_CLOCK: Rule = Rule {
    covers: &["src/hall/", "src/hall.rs"],
    forbidden: Forbidden::These(&[
        "publish", "daemon", "rig", "hardware", "models", "sim", "session",
    ]),
    why: "the hall shares only the broadcast contract and the broker's login with the publisher (`crate::broadcast`, `crate::broker`), and rebuilds games through the transcript, with no device, model or session",
};

const REFEREE_AT_THE_BOTTOM: Rule = Rule {
    covers: &["src/referee/", "src/referee.rs"],
    forbidden: Forbidden::AllBut(&[]),
    why: "the referee is the core: it uses nothing of the crate but itself",
};

const PGN_BELOW_THE_SESSION: Rule = Rule {
    covers: &["src/pgn/", "src/pgn.rs"],
    forbidden: Forbidden::These(&["transcript", "session", "daemon", "rig", "sim"]),
    why: "the session writes its PGN with crate::pgn, so the PGN may not reach back up through the replay format (session -> pgn -> transcript -> session)",
};

const THE_CLOCK_HAS_NO_NETWORK: Rule = Rule {
    covers: &[
        "src/daemon/",
        "src/daemon.rs",
        "src/session/",
        "src/session.rs",
        "src/referee/",
        "src/referee.rs",
        "src/hardware/",
        "src/hardware.rs",
        "src/models/",
        "src/models.rs",
        "src/rig/",
        "src/rig.rs",
        "src/store.rs",
        "src/store/",
        "src/transcript/",
        "src/transcript.rs",
    ],
    forbidden: Forbidden::These(&["publish", "hall"]),
    why: "the clock has no network: the publisher and the hall (feature `net`) use the store and the replay format, never the other way round",
};

const THE_PUBLISHER_WITHOUT_THE_CLOCKS_DEVICES: Rule = Rule {
    covers: &["src/publish/", "src/publish.rs"],
    forbidden: Forbidden::These(&[
        "daemon", "rig", "hardware", "models", "sim", "session", "hall",
    ]),
    why: "the publisher runs with no device and beside the clock: it reads the store and replays through the transcript, and drives no hardware, model or session",
};

/// What `src/lib.rs` declares: its modules, and which module each root
/// re-export comes from.
#[derive(Debug, Default)]
struct Crate {
    modules: BTreeSet<String>,
    /// A re-exported name and the path's first segment it comes from
    /// (a module of the crate, or another crate).
    reexports: HashMap<String, String>,
}

impl Crate {
    fn from_lib(lib: &str) -> Crate {
        let code = code_only(lib);
        let mut krate = Crate::default();
        for stmt in code.split(';') {
            let words: Vec<&str> = stmt.split_whitespace().collect();
            let Some(kw) = words.iter().position(|w| *w == "mod" || *w == "use") else {
                continue;
            };
            let rest = words[kw + 1..].join(" ");
            if words[kw] == "mod" {
                krate.modules.insert(rest.trim().to_owned());
                continue;
            }
            let Some((from, items)) = rest.split_once("::") else {
                continue;
            };
            let items = items.trim().trim_start_matches('{').trim_end_matches('}');
            for item in items.split(',') {
                let name = item.rsplit(" as ").next().unwrap_or(item);
                let name = name.rsplit("::").next().unwrap_or(name).trim();
                if !name.is_empty() {
                    krate
                        .reexports
                        .insert(name.to_owned(), from.trim().to_owned());
                }
            }
        }
        krate
    }

    /// The top-level module of the crate that a root path's first segment
    /// names, if it is the crate's at all.
    fn module_of(&self, segment: &str) -> Option<String> {
        if self.modules.contains(segment) {
            return Some(segment.to_owned());
        }
        match self.reexports.get(segment) {
            Some(from) if self.modules.contains(from) => Some(from.clone()),
            Some(_) => None, // another crate's, re-exported
            None => Some(segment.to_owned()),
        }
    }
}

/// One use of a top-level module: the line it is on and the module.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Use {
    line: usize,
    module: String,
}

/// The module path of a source file: `src/daemon/shell.rs` is
/// `daemon::shell`, `src/session/mod.rs` is `session`.
fn module_path(path: &str) -> Vec<String> {
    let rel = path.strip_prefix("src/").unwrap_or(path);
    let rel = rel.strip_suffix(".rs").unwrap_or(rel);
    let mut parts: Vec<String> = rel.split('/').map(str::to_owned).collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The source with comments and the insides of string and char literals
/// turned to spaces, line breaks kept, so that offsets still give lines.
fn code_only(src: &str) -> String {
    let s: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    let blank = |out: &mut String, c: char| out.push(if c == '\n' { '\n' } else { ' ' });
    let mut i = 0;
    while i < s.len() {
        let c = s[i];
        let next = s.get(i + 1).copied();
        let prev_ident = i > 0 && is_ident(s[i - 1]);
        if c == '/' && next == Some('/') {
            while i < s.len() && s[i] != '\n' {
                blank(&mut out, s[i]);
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < s.len() {
                if s[i] == '/' && s.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if s[i] == '*' && s.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, s[i]);
                    i += 1;
                }
            }
        } else if c == 'r'
            && (!prev_ident || (i > 0 && s[i - 1] == 'b' && (i < 2 || !is_ident(s[i - 2]))))
            && matches!(next, Some('#' | '"'))
        {
            // A raw string, r"…" or r#"…"#, or a raw identifier r#name.
            let mut j = i + 1;
            while s.get(j) == Some(&'#') {
                j += 1;
            }
            if s.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            let hashes = j - i - 1;
            out.extend(std::iter::repeat_n(' ', j - i + 1));
            i = j + 1;
            while i < s.len() {
                if s[i] == '"' && (1..=hashes).all(|k| s.get(i + k) == Some(&'#')) {
                    out.extend(std::iter::repeat_n(' ', hashes + 1));
                    i += hashes + 1;
                    break;
                }
                blank(&mut out, s[i]);
                i += 1;
            }
        } else if c == '"' {
            out.push(' ');
            i += 1;
            while i < s.len() && s[i] != '"' {
                if s[i] == '\\' {
                    blank(&mut out, s[i]);
                    i += 1;
                }
                if i < s.len() {
                    blank(&mut out, s[i]);
                    i += 1;
                }
            }
            out.push(' ');
            i += 1;
        } else if c == '\'' && next == Some('\\') {
            // An escaped char literal: '\n', '\'', '\u{7f}'.
            out.push_str("  ");
            i += 2;
            while i < s.len() && s[i] != '\'' {
                blank(&mut out, s[i]);
                i += 1;
            }
            out.push(' ');
            i += 1;
        } else if c == '\'' && s.get(i + 2) == Some(&'\'') {
            out.push_str("   ");
            i += 3;
        } else {
            // Anything else, lifetimes ('a) included.
            out.push(c);
            i += 1;
        }
    }
    out
}

/// Blanks every `#[cfg(test)] mod name { … }` of code already through
/// [`code_only`], line breaks kept.
fn without_test_modules(code: &str) -> String {
    let mut out: Vec<char> = code.chars().collect();
    let attr: Vec<char> = "#[cfg(test)]".chars().collect();
    let mut i = 0;
    while i + attr.len() <= out.len() {
        if out[i..i + attr.len()] != attr[..] {
            i += 1;
            continue;
        }
        let start = i;
        let mut j = i + attr.len();
        let rest: String = out[j..].iter().collect();
        let trimmed = rest.trim_start();
        j += rest.len() - trimmed.len();
        let is_mod = trimmed.starts_with("mod ") || trimmed.starts_with("pub mod ");
        let Some(open) = trimmed.find(['{', ';']) else {
            break;
        };
        if !is_mod || trimmed.as_bytes()[open] != b'{' {
            i = j;
            continue;
        }
        let mut k = j + trimmed[..open].chars().count();
        let mut depth = 0;
        while k < out.len() {
            match out[k] {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                _ => {}
            }
            k += 1;
        }
        let end = k.min(out.len() - 1);
        for c in &mut out[start..=end] {
            if *c != '\n' {
                *c = ' ';
            }
        }
        i = k + 1;
    }
    out.into_iter().collect()
}

/// The first segments of the paths after a root (`crate::` or a `super::`
/// that climbed to it) at char offset `at`, with their offsets: one for a
/// plain path, one per item of a `{…}` group.
fn first_segments(code: &[char], at: usize) -> Vec<(usize, String)> {
    let ident_at = |mut i: usize| {
        while i < code.len() && code[i].is_whitespace() {
            i += 1;
        }
        let start = i;
        while i < code.len() && is_ident(code[i]) {
            i += 1;
        }
        (start, code[start..i].iter().collect::<String>(), i)
    };
    let mut i = at;
    while i < code.len() && code[i].is_whitespace() {
        i += 1;
    }
    if code.get(i) != Some(&'{') {
        let (start, name, _) = ident_at(i);
        return vec![(start, name)];
    }
    // A group: the first segment of each top-level item.
    let mut found = Vec::new();
    let mut depth = 0;
    let mut item_start = true;
    while i < code.len() {
        match code[i] {
            '{' => {
                depth += 1;
                if depth == 1 {
                    item_start = true;
                }
            }
            '}' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            ',' if depth == 1 => item_start = true,
            c if depth == 1 && item_start && !c.is_whitespace() => {
                let (start, name, end) = ident_at(i);
                if !name.is_empty() {
                    found.push((start, name));
                    i = end;
                    item_start = false;
                    continue;
                }
                item_start = false;
            }
            _ => {}
        }
        i += 1;
    }
    found
}

/// Every use of another top-level module in the file at `path` (from the
/// crate root) holding `src`, test modules left out.
fn uses(krate: &Crate, path: &str, src: &str) -> Vec<Use> {
    let own = module_path(path);
    let code: Vec<char> = without_test_modules(&code_only(src)).chars().collect();
    let line_of = |at: usize| 1 + code[..at].iter().filter(|c| **c == '\n').count();
    let starts_with = |i: usize, word: &str| {
        word.chars()
            .enumerate()
            .all(|(k, w)| code.get(i + k) == Some(&w))
    };
    let mut found = Vec::new();
    let mut i = 0;
    while i < code.len() {
        let boundary = i == 0 || !(is_ident(code[i - 1]) || code[i - 1] == ':');
        let root = if boundary && starts_with(i, "crate::") {
            Some(i + "crate::".len())
        } else if boundary && starts_with(i, "super::") {
            let mut j = i;
            let mut climbs = 0;
            while starts_with(j, "super::") {
                climbs += 1;
                j += "super::".len();
            }
            // Only a climb to the crate root leaves the file's top-level
            // module (inline modules are not counted: an approximation).
            (climbs == own.len()).then_some(j)
        } else {
            None
        };
        let Some(after) = root else {
            i += 1;
            continue;
        };
        for (at, segment) in first_segments(&code, after) {
            if segment.is_empty() || segment == "self" || segment == "super" {
                continue;
            }
            if let Some(module) = krate.module_of(&segment)
                && own.first() != Some(&module)
            {
                found.push(Use {
                    line: line_of(at),
                    module,
                });
            }
        }
        i = after;
    }
    found
}

/// What breaks `rule` in the file at `path` holding `src`: `file:line`
/// and the module used, one per line.
fn violations(krate: &Crate, rule: &Rule, path: &str, src: &str) -> Vec<String> {
    if !rule.covers.iter().any(|prefix| path.starts_with(prefix)) {
        return Vec::new();
    }
    let mut found: Vec<String> = uses(krate, path, src)
        .into_iter()
        .filter(|u| match rule.forbidden {
            Forbidden::These(these) => these.contains(&u.module.as_str()),
            Forbidden::AllBut(allowed) => !allowed.contains(&u.module.as_str()),
        })
        .map(|u| format!("{path}:{}: uses crate::{}", u.line, u.module))
        .collect();
    // `use crate::{Effect, Millis}` is one use of the referee.
    found.dedup();
    found
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn sources(dir: &Path, found: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            sources(&path, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
}

/// Checks `rule` over the whole of `src/`, failing with every file and
/// line that breaks it.
fn check(rule: Rule) {
    let root = root();
    let lib = std::fs::read_to_string(root.join("src/lib.rs")).expect("src/lib.rs");
    let krate = Crate::from_lib(&lib);
    let mut files = Vec::new();
    sources(&root.join("src"), &mut files);
    let mut covered = 0;
    let mut report = String::new();
    for file in files {
        let rel = file
            .strip_prefix(&root)
            .expect("under the root")
            .to_string_lossy()
            .replace('\\', "/");
        if !rule.covers.iter().any(|prefix| rel.starts_with(prefix)) {
            continue;
        }
        covered += 1;
        let src = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{rel}: {e}"));
        for v in violations(&krate, &rule, &rel, &src) {
            writeln!(report, "  {v}").unwrap();
        }
    }
    assert!(covered > 0, "the rule covers no file: {:?}", rule.covers);
    assert!(report.is_empty(), "{}:\n{report}", rule.why);
}

/// Circles known and allowed for now, each the files of one, sorted: a
/// room another branch is mending. Remove an entry once its circle is
/// gone (the test does not fail when it is).
const KNOWN_CIRCLES: &[&[&str]] = &[];

/// One path to a module of the crate: where it is written and the module
/// (its path from the crate root) it resolves to.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Import {
    line: usize,
    module: Vec<String>,
}

/// The full paths written at char offset `at` (just after a root such as
/// `super::`), each as its segments with the offset of its first: one for
/// a plain path, one per leaf of a `{…}` group, nested groups flattened.
fn paths_at(code: &[char], at: usize) -> Vec<(usize, Vec<String>)> {
    fn skip_ws(code: &[char], mut i: usize) -> usize {
        while i < code.len() && code[i].is_whitespace() {
            i += 1;
        }
        i
    }
    fn walk(
        code: &[char],
        mut i: usize,
        prefix: &[String],
        found: &mut Vec<(usize, Vec<String>)>,
    ) -> usize {
        let mut segments = prefix.to_vec();
        let mut first = None;
        loop {
            i = skip_ws(code, i);
            if code.get(i) == Some(&'{') {
                i += 1;
                loop {
                    i = skip_ws(code, i);
                    match code.get(i) {
                        None => return i,
                        Some('}') => return i + 1,
                        Some(',') => i += 1,
                        Some(_) => {
                            let before = i;
                            i = walk(code, i, &segments, found);
                            if i == before {
                                i += 1;
                            }
                        }
                    }
                }
            }
            let start = i;
            while i < code.len() && is_ident(code[i]) {
                i += 1;
            }
            if i == start {
                break;
            }
            first.get_or_insert(start);
            segments.push(code[start..i].iter().collect());
            let j = skip_ws(code, i);
            if code.get(j) == Some(&':') && code.get(j + 1) == Some(&':') {
                i = j + 2;
            } else {
                break;
            }
        }
        if segments.len() > prefix.len() {
            found.push((first.unwrap_or(i), segments));
        }
        i
    }
    let mut found = Vec::new();
    walk(code, at, &[], &mut found);
    found
}

/// The files of the crate, as module paths, with their code (comments,
/// literals and test modules blanked) and their paths from the crate root.
struct Tree {
    files: BTreeMap<Vec<String>, (String, Vec<char>)>,
    /// For each module, the names its `use` items bring from its children
    /// (`pub use law::{Law, ParseLawError}`, `use legal::Legal`).
    reexports: HashMap<Vec<String>, HashMap<String, Vec<String>>>,
}

impl Tree {
    /// `files` are (path from the crate root, source) pairs.
    fn new(files: &[(String, String)]) -> Tree {
        let mut tree = Tree {
            files: BTreeMap::new(),
            reexports: HashMap::new(),
        };
        for (path, src) in files {
            let code: Vec<char> = without_test_modules(&code_only(src)).chars().collect();
            tree.files.insert(module_path(path), (path.clone(), code));
        }
        let modules: Vec<Vec<String>> = tree.files.keys().cloned().collect();
        for module in modules {
            let code = tree.files[&module].1.clone();
            let mut names = HashMap::new();
            let mut i = 0;
            while let Some(at) = find_word(&code, i, "use") {
                for (_, path) in paths_at(&code, at + "use".len()) {
                    let path: Vec<String> = match path.first().map(String::as_str) {
                        Some("self") => path[1..].to_vec(),
                        _ => path,
                    };
                    let Some(child) = path.first() else { continue };
                    let mut child_module = module.clone();
                    child_module.push(child.clone());
                    if !tree.files.contains_key(&child_module) || path.len() < 2 {
                        continue;
                    }
                    let name = path.last().expect("two segments");
                    let name = if name == "self" { child } else { name };
                    names.insert(name.clone(), child_module);
                }
                i = at + 1;
            }
            tree.reexports.insert(module, names);
        }
        tree
    }

    /// The module `segments` name from `base`: the longest run of them
    /// that is a file of the crate, then a name re-exported from a child.
    fn resolve(&self, base: &[String], segments: &[String]) -> Vec<String> {
        let mut module = base.to_vec();
        for segment in segments {
            let mut child = module.clone();
            child.push(segment.clone());
            if self.files.contains_key(&child) {
                module = child;
                continue;
            }
            if let Some(from) = self.reexports.get(&module).and_then(|r| r.get(segment)) {
                module = from.clone();
            }
            break;
        }
        module
    }

    /// Every path in the file of `module` to another module of the crate.
    fn imports(&self, module: &[String]) -> Vec<Import> {
        let code = &self.files[module].1;
        let line_of = |at: usize| 1 + code[..at].iter().filter(|c| **c == '\n').count();
        let starts_with = |i: usize, word: &str| {
            word.chars()
                .enumerate()
                .all(|(k, w)| code.get(i + k) == Some(&w))
        };
        let mut found = Vec::new();
        let mut i = 0;
        while i < code.len() {
            let boundary = i == 0 || !(is_ident(code[i - 1]) || code[i - 1] == ':');
            if !boundary || !is_ident(code[i]) {
                i += 1;
                continue;
            }
            // `crate::`, `self::`, `super::super::`, or a child's name.
            let (base, after) = if starts_with(i, "crate::") {
                (Vec::new(), i + "crate::".len())
            } else if starts_with(i, "self::") {
                (module.to_vec(), i + "self::".len())
            } else if starts_with(i, "super::") {
                let mut j = i;
                let mut base = module.to_vec();
                while starts_with(j, "super::") {
                    base.pop();
                    j += "super::".len();
                }
                (base, j)
            } else {
                let end = (i..code.len())
                    .find(|&k| !is_ident(code[k]))
                    .unwrap_or(code.len());
                let name: String = code[i..end].iter().collect();
                let mut child = module.to_vec();
                child.push(name);
                if !(starts_with(end, "::") && self.files.contains_key(&child)) {
                    i = end;
                    continue;
                }
                (module.to_vec(), i)
            };
            for (at, segments) in paths_at(code, after) {
                found.push(Import {
                    line: line_of(at),
                    module: self.resolve(&base, &segments),
                });
            }
            // A child's name starts its own path: step past its first letter.
            i = after.max(i + 1);
        }
        found
    }

    /// The circles of imports between files of one top-level module: each
    /// as the files in it, sorted, with the imports that make it.
    fn circles(&self) -> Vec<(Vec<String>, Vec<String>)> {
        // Edges between files of one top-level module, none to a parent.
        let mut edges: BTreeMap<&Vec<String>, BTreeMap<Vec<String>, usize>> = BTreeMap::new();
        for module in self.files.keys() {
            let out = edges.entry(module).or_default();
            for import in self.imports(module) {
                let target = import.module;
                if target.first() != module.first()
                    || module.starts_with(&target)
                    || !self.files.contains_key(&target)
                {
                    continue;
                }
                out.entry(target).or_insert(import.line);
            }
        }
        // Files that reach each other are in one circle.
        let reach = |from: &Vec<String>| {
            let mut seen = BTreeSet::new();
            let mut todo = vec![from.clone()];
            while let Some(m) = todo.pop() {
                for next in edges.get(&m).into_iter().flat_map(|e| e.keys()) {
                    if seen.insert(next.clone()) {
                        todo.push(next.clone());
                    }
                }
            }
            seen
        };
        let reached: BTreeMap<&Vec<String>, BTreeSet<Vec<String>>> =
            self.files.keys().map(|m| (m, reach(m))).collect();
        let mut circles = Vec::new();
        let mut placed = BTreeSet::new();
        for module in self.files.keys() {
            if placed.contains(module) || !reached[module].contains(module) {
                continue;
            }
            let members: BTreeSet<&Vec<String>> = self
                .files
                .keys()
                .filter(|m| reached[module].contains(*m) && reached[*m].contains(module))
                .collect();
            let mut files = Vec::new();
            let mut how = Vec::new();
            for m in &members {
                placed.insert((*m).clone());
                let path = &self.files[*m].0;
                files.push(path.clone());
                for (target, line) in &edges[*m] {
                    if members.contains(target) {
                        how.push(format!("{path}:{line}: imports {}", self.files[target].0));
                    }
                }
            }
            files.sort();
            circles.push((files, how));
        }
        circles
    }
}

/// The first `word` at or after `from` standing alone (not part of a
/// longer name or path).
fn find_word(code: &[char], from: usize, word: &str) -> Option<usize> {
    let word: Vec<char> = word.chars().collect();
    (from..code.len().saturating_sub(word.len() - 1)).find(|&i| {
        code[i..i + word.len()] == word[..]
            && (i == 0 || !(is_ident(code[i - 1]) || code[i - 1] == ':'))
            && code.get(i + word.len()).is_none_or(|c| !is_ident(*c))
    })
}

/// The circles of imports inside the rooms of the crate, less those known.
fn unknown_circles(files: &[(String, String)]) -> Vec<String> {
    Tree::new(files)
        .circles()
        .into_iter()
        .filter(|(members, _)| !KNOWN_CIRCLES.iter().any(|known| known == members))
        .map(|(members, how)| format!("{}:\n    {}", members.join(" "), how.join("\n    ")))
        .collect()
}

#[test]
fn no_files_of_one_module_import_each_other_in_a_circle() {
    let root = root();
    let mut paths = Vec::new();
    sources(&root.join("src"), &mut paths);
    let files: Vec<(String, String)> = paths
        .iter()
        .map(|file| {
            let rel = file
                .strip_prefix(&root)
                .expect("under the root")
                .to_string_lossy()
                .replace('\\', "/");
            let src = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{rel}: {e}"));
            (rel, src)
        })
        .collect();
    assert!(files.len() > 50, "the crate's files: {}", files.len());
    let circles = unknown_circles(&files);
    assert!(
        circles.is_empty(),
        "files that import each other in a circle (move what both need to a leaf):\n{}",
        circles.join("\n")
    );
}

#[test]
fn the_daemon_does_not_use_the_simulator() {
    check(DAEMON_WITHOUT_SIM);
}

#[test]
fn the_referee_drivers_models_and_rig_do_not_use_the_session_daemon_or_simulator() {
    check(DRIVERS_BELOW_THE_SHELL);
}

#[test]
fn the_hardware_does_not_use_the_face() {
    check(HARDWARE_WITHOUT_FACE);
}

#[test]
fn the_face_uses_nothing_but_the_frame() {
    check(FACE_IS_A_LEAF);
}

#[test]
fn the_session_does_not_use_the_replay_format_rig_daemon_or_simulator() {
    check(SESSION_BELOW_ITS_USERS);
}

#[test]
fn the_pgn_does_not_reach_back_up_through_the_replay_format() {
    check(PGN_BELOW_THE_SESSION);
}

#[test]
fn the_referee_uses_nothing_of_the_crate_but_itself() {
    check(REFEREE_AT_THE_BOTTOM);
}

#[test]
fn the_clock_does_not_use_the_publisher_or_the_hall() {
    check(THE_CLOCK_HAS_NO_NETWORK);
}

#[test]
fn the_publisher_does_not_use_the_clocks_devices() {
    check(THE_PUBLISHER_WITHOUT_THE_CLOCKS_DEVICES);
}

#[test]
fn the_session_does_not_use_the_hardware_or_the_models() {
    check(SESSION_WITHOUT_HARDWARE);
}

#[test]
fn the_shared_controls_and_broker_types_use_nothing_of_the_crate() {
    check(SHARED_TYPES_ARE_LEAVES);
}

#[test]
fn the_clocks_core_does_not_use_the_halls_messages() {
    check(THE_CLOCKS_CORE_WITHOUT_THE_HALLS_MESSAGES);
}

#[test]
fn the_hall_does_not_use_the_publisher_or_the_clocks_layers() {
    check(THE_HALL_WITHOUT_THE_PUBLISHER_OR_THE_CLOCK);
}

/// The checker itself: each rule fails on a fake source that breaks it,
/// and passes its near misses.
mod checker {
    use super::*;

    const LIB: &str = "pub mod daemon;\npub mod face;\npub mod frame;\npub mod referee;\n\
        pub mod session;\npub mod sim;\npub mod transcript;\npub mod rig;\n\
        #[cfg(feature = \"net\")]\npub mod publish;\n\
        pub use referee::{\n    Effect, Millis,\n    Referee,\n};\npub use shakmaty::KnownOutcome;\n";

    fn krate() -> Crate {
        Crate::from_lib(LIB)
    }

    fn broken(rule: Rule, path: &str, src: &str) -> Vec<String> {
        violations(&krate(), &rule, path, src)
    }

    #[test]
    fn the_network_rules_catch_the_clock_using_the_publisher_and_back() {
        let daemon = broken(
            THE_CLOCK_HAS_NO_NETWORK,
            "src/daemon/shell.rs",
            "use crate::publish::Follower;\nfn f() {}\n",
        );
        assert_eq!(daemon.len(), 1, "{daemon:?}");
        assert!(
            broken(
                THE_CLOCK_HAS_NO_NETWORK,
                "src/store.rs",
                "// the publisher (crate::publish) reads this\nfn f() {}\n",
            )
            .is_empty()
        );
        let publisher = broken(
            THE_PUBLISHER_WITHOUT_THE_CLOCKS_DEVICES,
            "src/publish/runner.rs",
            "use crate::rig::Rig;\nuse crate::transcript::Feed;\n",
        );
        assert_eq!(publisher.len(), 1, "{publisher:?}");
        assert!(krate().modules.contains("publish"));
    }

    #[test]
    fn the_crate_is_read_from_lib_rs() {
        let k = krate();
        assert!(k.modules.contains("session"));
        assert_eq!(k.module_of("Millis").as_deref(), Some("referee"));
        assert_eq!(k.module_of("Referee").as_deref(), Some("referee"));
        assert_eq!(k.module_of("KnownOutcome"), None);
        assert_eq!(k.module_of("sim").as_deref(), Some("sim"));
    }

    #[test]
    fn the_daemon_rule_fails_on_a_use_of_the_simulator() {
        let src = "use std::io;\n\nuse crate::sim::Script;\n";
        assert_eq!(
            broken(DAEMON_WITHOUT_SIM, "src/daemon/shell.rs", src),
            ["src/daemon/shell.rs:3: uses crate::sim"]
        );
        // A full path in an expression, and a climb to the root.
        let src = "fn f() {\n    let _ = crate::sim::run();\n    super::super::sim::x();\n}\n";
        assert_eq!(
            broken(DAEMON_WITHOUT_SIM, "src/daemon/shell.rs", src),
            [
                "src/daemon/shell.rs:2: uses crate::sim",
                "src/daemon/shell.rs:3: uses crate::sim"
            ]
        );
        // Not a climb to the root from daemon/shell.rs: daemon::sim.
        assert!(
            broken(
                DAEMON_WITHOUT_SIM,
                "src/daemon/shell.rs",
                "use super::sim;\n"
            )
            .is_empty()
        );
        assert_eq!(
            broken(DAEMON_WITHOUT_SIM, "src/daemon/mod.rs", "use super::sim;\n"),
            ["src/daemon/mod.rs:1: uses crate::sim"]
        );
    }

    #[test]
    fn the_network_rule_fails_on_a_use_of_the_hall_or_the_publisher() {
        assert_eq!(
            broken(
                THE_CLOCK_HAS_NO_NETWORK,
                "src/daemon/shell.rs",
                "use crate::hall::Hall;\nuse crate::publish;\n"
            ),
            [
                "src/daemon/shell.rs:1: uses crate::hall",
                "src/daemon/shell.rs:2: uses crate::publish"
            ]
        );
        assert!(
            broken(
                THE_CLOCK_HAS_NO_NETWORK,
                "src/hall/web.rs",
                "use crate::session;\n"
            )
            .is_empty()
        );
    }

    #[test]
    fn comments_strings_and_test_modules_are_not_uses() {
        let src = "//! See [`crate::sim`].\n/* crate::sim /* nested */ crate::sim */\n\
            const A: &str = \"crate::sim\";\nconst B: &str = r#\"crate::sim \"quoted\"\"#;\n\
            const C: char = '{';\nfn f<'a>(x: &'a str) {}\n\
            #[cfg(test)]\nmod tests {\n    use crate::sim;\n    fn g() { if true { crate::sim::x(); } }\n}\n\
            use crate::daemon::Shell;\n";
        assert!(broken(DAEMON_WITHOUT_SIM, "src/daemon/shell.rs", src).is_empty());
        // The same use, outside the test module, is one.
        let src = format!("{src}use crate::sim;\n");
        assert_eq!(
            broken(DAEMON_WITHOUT_SIM, "src/daemon/shell.rs", &src),
            ["src/daemon/shell.rs:13: uses crate::sim"]
        );
    }

    #[test]
    fn the_lower_layers_rule_fails_on_a_use_of_the_session_daemon_or_simulator() {
        for path in [
            "src/hardware/link.rs",
            "src/models/bus.rs",
            "src/referee/clock.rs",
            "src/rig/models.rs",
        ] {
            let src = "use crate::{Millis, session::Session, session};\nuse crate::daemon;\n\
                fn f() { crate::sim::go() }\n";
            assert_eq!(
                broken(DRIVERS_BELOW_THE_SHELL, path, src),
                [
                    format!("{path}:1: uses crate::session"),
                    format!("{path}:2: uses crate::daemon"),
                    format!("{path}:3: uses crate::sim"),
                ]
            );
        }
        let near = "use crate::transcript::Event;\nuse crate::Millis;\n";
        assert!(broken(DRIVERS_BELOW_THE_SHELL, "src/rig/models.rs", near).is_empty());
        // Files out of the rule's reach are not its business.
        let src = "use crate::session::Session;\n";
        assert!(broken(DRIVERS_BELOW_THE_SHELL, "src/transcript/feed.rs", src).is_empty());
    }

    #[test]
    fn the_hardware_rule_fails_on_a_use_of_the_face() {
        let src = "use crate::frame::Frame;\nuse crate::face::{self, View};\n";
        assert_eq!(
            broken(HARDWARE_WITHOUT_FACE, "src/hardware/oled.rs", src),
            ["src/hardware/oled.rs:2: uses crate::face"]
        );
    }

    #[test]
    fn the_face_rule_fails_on_anything_but_the_frame() {
        let src = "use crate::frame::{Frame, WIDTH};\nuse shakmaty::Color;\n\
            use crate::{\n    Effect,\n    Millis,\n    KnownOutcome,\n};\n";
        assert_eq!(
            broken(FACE_IS_A_LEAF, "src/face.rs", src),
            [
                "src/face.rs:4: uses crate::referee",
                "src/face.rs:5: uses crate::referee"
            ]
        );
        assert_eq!(
            broken(
                FACE_IS_A_LEAF,
                "src/face/draw.rs",
                "fn f() { crate::words::clock(0) }\n"
            ),
            ["src/face/draw.rs:1: uses crate::words"]
        );
        let near = "use crate::frame::Frame;\nuse super::View;\nuse crate::KnownOutcome;\n";
        assert!(broken(FACE_IS_A_LEAF, "src/face/draw.rs", near).is_empty());
    }

    #[test]
    fn the_session_rule_fails_on_the_replay_format_rig_daemon_or_simulator() {
        let src = "use crate::transcript::{self, Event, Line};\npub use crate::transcript::RestoreError;\n\
            use crate::rig::Rig;\nuse crate::daemon::Shell;\nuse crate::sim;\n\
            use crate::{Effect, Referee};\nuse crate::face::View;\n";
        assert_eq!(
            broken(SESSION_BELOW_ITS_USERS, "src/session/mod.rs", src),
            [
                "src/session/mod.rs:1: uses crate::transcript",
                "src/session/mod.rs:2: uses crate::transcript",
                "src/session/mod.rs:3: uses crate::rig",
                "src/session/mod.rs:4: uses crate::daemon",
                "src/session/mod.rs:5: uses crate::sim",
            ]
        );
        // The doc text may name the replay format.
        let near = "//! Read back by [`crate::transcript::restore`].\nuse crate::Referee;\n";
        assert!(broken(SESSION_BELOW_ITS_USERS, "src/session/record.rs", near).is_empty());
    }

    #[test]
    fn the_session_hardware_rule_fails_on_the_drivers_and_the_models() {
        let src = "use crate::hardware::buttons::Button;\nuse crate::controls::{Button, LinkChange};\n\
            fn f() { crate::models::bus::Bus::new(); }\n";
        assert_eq!(
            broken(SESSION_WITHOUT_HARDWARE, "src/session/input.rs", src),
            [
                "src/session/input.rs:1: uses crate::hardware",
                "src/session/input.rs:3: uses crate::models",
            ]
        );
        let near = "use crate::controls::LinkChange;\nuse crate::config::Config;\n";
        assert!(broken(SESSION_WITHOUT_HARDWARE, "src/session/mod.rs", near).is_empty());
    }

    #[test]
    fn the_leaf_rule_fails_on_anything_of_the_crate() {
        let src = "use shakmaty::Color;\nuse crate::Millis;\n";
        assert_eq!(
            broken(SHARED_TYPES_ARE_LEAVES, "src/controls.rs", src),
            ["src/controls.rs:2: uses crate::referee"]
        );
        let src = "use std::fmt;\nfn f() -> u8 { crate::exit::EX_CONFIG }\n";
        assert_eq!(
            broken(SHARED_TYPES_ARE_LEAVES, "src/broker.rs", src),
            ["src/broker.rs:2: uses crate::exit"]
        );
        let near = "//! Read by [`crate::hall`] and [`crate::publish`].\nuse std::fmt;\n";
        assert!(broken(SHARED_TYPES_ARE_LEAVES, "src/broker.rs", near).is_empty());
        let src = "use std::fmt;\nimpl From<crate::broadcast::BoardPairing> for Players {}\n";
        assert_eq!(
            broken(SHARED_TYPES_ARE_LEAVES, "src/players.rs", src),
            ["src/players.rs:2: uses crate::broadcast"]
        );
    }

    #[test]
    fn the_core_rule_fails_on_the_halls_messages() {
        let rule = THE_CLOCKS_CORE_WITHOUT_THE_HALLS_MESSAGES;
        for path in [
            "src/session/mod.rs",
            "src/transcript/line/event_read.rs",
            "src/pgn.rs",
            "src/referee/mod.rs",
            "src/rig/mod.rs",
        ] {
            let src =
                "use crate::players::Players;\nuse crate::broadcast::{BoardPairing, printable};\n";
            assert_eq!(
                broken(rule, path, src),
                [format!("{path}:2: uses crate::broadcast")]
            );
        }
        let src = "fn f(p: &crate::broadcast::BoardPairing) {}\n";
        assert_eq!(
            broken(rule, "src/transcript/feed.rs", src),
            ["src/transcript/feed.rs:1: uses crate::broadcast"]
        );
        // The edge converts: the daemon's pairing file, the publisher.
        let edge = "use crate::broadcast::BoardPairing;\nuse crate::players::Players;\n";
        assert!(broken(rule, "src/daemon/pairing.rs", edge).is_empty());
        assert!(broken(rule, "src/publish/runner.rs", edge).is_empty());
        let near =
            "//! Bounded as [`crate::broadcast::BoardPairing`] is.\nuse crate::players::Players;\n";
        assert!(broken(rule, "src/session/mod.rs", near).is_empty());
    }

    #[test]
    fn the_hall_rule_fails_on_the_publisher_and_the_clocks_layers() {
        let src = "use crate::broker::Credentials;\nuse crate::publish::Credentials;\n\
            use crate::session::Session;\nuse crate::transcript::Feed;\n";
        assert_eq!(
            broken(
                THE_HALL_WITHOUT_THE_PUBLISHER_OR_THE_CLOCK,
                "src/hall/config.rs",
                src
            ),
            [
                "src/hall/config.rs:2: uses crate::publish",
                "src/hall/config.rs:3: uses crate::session",
            ]
        );
        let near = "use crate::broadcast::BoardAddress;\nuse crate::config::ConfigError;\n";
        assert!(
            broken(
                THE_HALL_WITHOUT_THE_PUBLISHER_OR_THE_CLOCK,
                "src/hall/mqtt.rs",
                near
            )
            .is_empty()
        );
    }

    #[test]
    fn the_pgn_rule_fails_on_the_replay_format() {
        let src = "use crate::face::duration_text;\nuse crate::transcript::{Fault, Feed};\n";
        assert_eq!(
            broken(PGN_BELOW_THE_SESSION, "src/pgn.rs", src),
            ["src/pgn.rs:2: uses crate::transcript"]
        );
        let near = "use crate::face::clock_text;\nuse crate::{Effect, Rules};\n";
        assert!(broken(PGN_BELOW_THE_SESSION, "src/pgn/movetext.rs", near).is_empty());
    }

    fn files(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(path, src)| (path.to_string(), src.to_string()))
            .collect()
    }

    #[test]
    fn a_circle_between_two_files_is_found_through_every_kind_of_path() {
        let lib = ("src/lib.rs", "pub mod referee;\npub mod config;\n");
        let root = (
            "src/referee/mod.rs",
            "mod law;\nmod legal;\nmod touch;\npub use law::{Law, ParseLawError};\n\
             use touch::Turn;\npub type Millis = u64;\npub struct Referee;\n",
        );
        let law = ("src/referee/law.rs", "pub enum Law {}\n");
        let legal_clean = ("src/referee/legal.rs", "use shakmaty::Move;\n");
        // The paths one file may take to another, each making a circle
        // with touch.rs using legal.rs.
        for legal in [
            "use super::touch::capture_square;\n",
            "use super::{Millis, touch::{self, Turn}};\n",
            "fn f() { crate::referee::touch::check() }\n",
            "use super::Turn;\n",
            "fn f() { super::super::referee::touch::check() }\n",
        ] {
            let touch = (
                "src/referee/touch.rs",
                "use super::legal::Legal;\nuse super::{Law, Millis};\n",
            );
            let tree = files(&[lib, root, law, ("src/referee/legal.rs", legal), touch]);
            let circles = unknown_circles(&tree);
            assert_eq!(circles.len(), 1, "{legal}: {circles:?}");
            assert!(
                circles[0].starts_with("src/referee/legal.rs src/referee/touch.rs:"),
                "{circles:?}"
            );
            assert!(circles[0].contains("src/referee/touch.rs:1: imports src/referee/legal.rs"));
        }
        // The same files without the way back: no circle. The parent using
        // its children and the children the parent's items are none, nor a
        // name in a comment, a string or a test module.
        let touch = (
            "src/referee/touch.rs",
            "use super::legal::Legal;\nuse super::{Law, Millis, Referee};\n",
        );
        let legal = (
            "src/referee/legal.rs",
            "// super::touch::check\nconst A: &str = \"super::touch\";\n\
             #[cfg(test)]\nmod tests {\n    use super::super::touch::Turn;\n}\n",
        );
        assert!(unknown_circles(&files(&[lib, root, law, legal, touch])).is_empty());
        assert!(unknown_circles(&files(&[lib, root, law, legal_clean, touch])).is_empty());
        // A circle of three.
        let three = files(&[
            lib,
            ("src/referee/mod.rs", "mod a;\nmod b;\nmod c;\n"),
            ("src/referee/a.rs", "use super::b::B;\n"),
            ("src/referee/b.rs", "use super::c::C;\n"),
            ("src/referee/c.rs", "use crate::referee::a::A;\n"),
        ]);
        let circles = unknown_circles(&three);
        assert_eq!(circles.len(), 1, "{circles:?}");
        assert!(circles[0].starts_with("src/referee/a.rs src/referee/b.rs src/referee/c.rs:"));
        // Files of two rooms are the layers' business, not a circle here.
        let rooms = files(&[
            lib,
            ("src/referee/mod.rs", "mod a;\n"),
            ("src/referee/a.rs", "use crate::config::b::B;\n"),
            ("src/config/mod.rs", "mod b;\n"),
            ("src/config/b.rs", "use crate::referee::a::A;\n"),
        ]);
        assert!(unknown_circles(&rooms).is_empty());
    }

    #[test]
    fn the_referee_rule_fails_on_anything_of_the_crate() {
        let src = "use super::{Law, Millis};\nuse crate::referee::Input;\nuse crate::Millis as Ms;\n\
            use crate::face::View;\nfn f() { crate::gesture::moves() }\n";
        assert_eq!(
            broken(REFEREE_AT_THE_BOTTOM, "src/referee/clock.rs", src),
            [
                "src/referee/clock.rs:4: uses crate::face",
                "src/referee/clock.rs:5: uses crate::gesture",
            ]
        );
        assert_eq!(
            broken(
                REFEREE_AT_THE_BOTTOM,
                "src/referee/mod.rs",
                "use super::exit;\n"
            ),
            ["src/referee/mod.rs:1: uses crate::exit"]
        );
    }
}
