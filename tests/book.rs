//! The book says what is there.
//!
//! Its links lead somewhere: every relative link
//! of the README, the book's chapters (`docs/src/`) and the files the book
//! includes as appendices (`LAWS.md`, `hardware/*.md`, `fuzz/README.md`)
//! names a file that exists and, with `#…`, a heading of that file (as
//! mdBook and GitHub make its id: lower case, letters, digits, `-` and `_`
//! kept, spaces as `-`, the rest dropped), an included file's headings
//! counted as its includer's. And no chapter links out of `docs/src`: the
//! HTML book would carry such a link dead; a file from elsewhere is an
//! appendix chapter that includes it (`docs/src/appendix/`).
//!
//! Its code map ("How it is built") names every file of `src/`, and no
//! file that is gone.

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The files whose links are checked, from the root.
fn sources() -> Vec<PathBuf> {
    let mut found = vec![PathBuf::from("README.md"), PathBuf::from("LAWS.md")];
    found.push(PathBuf::from("fuzz/README.md"));
    found.push(PathBuf::from("hardware/firmware/README.md"));
    for dir in ["hardware", "docs/src"] {
        markdown_under(&root(), Path::new(dir), &mut found);
    }
    found.sort();
    found.dedup();
    found
}

fn markdown_under(root: &Path, dir: &Path, found: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(root.join(dir))
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        let rel = path
            .strip_prefix(root)
            .expect("under the root")
            .to_path_buf();
        if path.is_dir() {
            // hardware/firmware holds the firmware's crates; only its
            // README is the book's, and it is listed by name.
            if dir.starts_with("docs") {
                markdown_under(root, &rel, found);
            }
        } else if rel.extension().is_some_and(|e| e == "md") {
            found.push(rel);
        }
    }
}

/// `a/b/../c` as `a/c`, without asking the file system.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// A file's lines, each `{{#include FILE}}` line replaced by FILE's.
fn expanded(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(root().join(path))
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut out = Vec::new();
    for line in text.lines() {
        let included = line
            .trim()
            .strip_prefix("{{#include ")
            .and_then(|rest| rest.strip_suffix("}}"));
        match included {
            Some(file) => out.extend(expanded(&normalize(
                &path.parent().unwrap_or(Path::new("")).join(file.trim()),
            ))),
            None => out.push(line.to_owned()),
        }
    }
    out
}

/// Text with code spans and the markers of emphasis and links taken out,
/// as a heading is rendered before its id is made.
fn rendered(heading: &str) -> String {
    let mut out = String::new();
    let mut rest = heading;
    while let Some(start) = rest.find('[') {
        let Some(mid) = rest[start..].find("](") else {
            break;
        };
        let Some(end) = rest[start + mid..].find(')') else {
            break;
        };
        out.push_str(&rest[..start]);
        out.push_str(&rest[start + 1..start + mid]);
        rest = &rest[start + mid + end + 1..];
    }
    out.push_str(rest);
    out.replace(['`', '*'], "")
}

/// A heading's id, as mdBook and GitHub make it.
fn slug(heading: &str) -> String {
    rendered(heading)
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The ids of a markdown file's headings, a repeated one numbered.
fn anchors(path: &Path) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut fenced = false;
    for line in expanded(path) {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced || !line.starts_with('#') {
            continue;
        }
        let text = line.trim_start_matches('#');
        if !text.starts_with(' ') {
            continue;
        }
        let id = slug(text.trim_end_matches('#'));
        let mut numbered = id.clone();
        let mut n = 0;
        while found.contains(&numbered) {
            n += 1;
            numbered = format!("{id}-{n}");
        }
        found.insert(numbered);
    }
    found
}

/// The link targets of a markdown file's own text (not its includes),
/// outside code, with their line numbers.
fn links(path: &Path) -> Vec<(usize, String)> {
    let text = std::fs::read_to_string(root().join(path))
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut found = Vec::new();
    let mut fenced = false;
    // Code spans hold `[x](y)` as text, not as a link; one may run on to
    // the next line of its paragraph.
    let mut code = false;
    for (n, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        if line.trim().is_empty() {
            code = false;
        }
        let prose: String = line
            .chars()
            .map(|c| {
                if c == '`' {
                    code = !code;
                }
                if code || c == '`' { ' ' } else { c }
            })
            .collect();
        let mut rest = prose.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let end = after.find(')').unwrap_or(after.len());
            let target = after[..end].split_whitespace().next().unwrap_or("");
            found.push((n + 1, target.to_owned()));
            rest = &after[end..];
        }
    }
    found
}

/// What is wrong with one link of `from`, if anything.
fn broken(from: &Path, target: &str) -> Option<String> {
    if target.contains("://") || target.starts_with("mailto:") || target.is_empty() {
        return None;
    }
    let (file, anchor) = match target.split_once('#') {
        Some((file, anchor)) => (file, Some(anchor)),
        None => (target, None),
    };
    let to = if file.is_empty() {
        from.to_path_buf()
    } else {
        normalize(&from.parent().unwrap_or(Path::new("")).join(file))
    };
    if !root().join(&to).exists() {
        return Some(format!("no file {}", to.display()));
    }
    if from.starts_with("docs/src") && !to.starts_with("docs/src") {
        return Some(format!(
            "{} is outside the book: the HTML book would carry the link dead (include it as an appendix chapter)",
            to.display()
        ));
    }
    let anchor = anchor?;
    if to.extension().is_none_or(|e| e != "md") {
        return Some(format!(
            "#{anchor} in {}, which is not markdown",
            to.display()
        ));
    }
    (!anchors(&to).contains(anchor)).then(|| format!("no heading #{anchor} in {}", to.display()))
}

#[test]
fn every_link_of_the_readme_and_the_book_leads_to_a_file_and_heading_in_the_book() {
    let sources = sources();
    assert!(
        sources.len() > 20,
        "the README, the chapters and the appendices' files: {sources:?}"
    );
    let mut checked = 0;
    let mut bad = Vec::new();
    for from in &sources {
        for (line, target) in links(from) {
            checked += 1;
            if let Some(why) = broken(from, &target) {
                bad.push(format!("{}:{line}: ({target}): {why}", from.display()));
            }
        }
    }
    assert!(checked > 100, "links checked: {checked}");
    assert!(bad.is_empty(), "broken links:\n{}", bad.join("\n"));
}

/// The checker itself: each way a link can break is caught, and its near
/// misses pass.
#[test]
fn the_checker_finds_a_missing_file_a_missing_heading_and_a_link_out_of_the_book() {
    let chapter = Path::new("docs/src/reliability.md");
    assert_eq!(broken(chapter, "run.md"), None);
    assert_eq!(broken(chapter, "run.md#configuration"), None);
    assert_eq!(broken(chapter, "#power-cuts-and-crashes"), None);
    assert_eq!(
        broken(chapter, "appendix/hardware/dgt.md#after-a-fault"),
        None
    );
    assert_eq!(broken(chapter, "https://example.org/x.md#y"), None);
    assert!(broken(chapter, "no-such-chapter.md").is_some());
    assert!(broken(chapter, "run.md#no-such-heading").is_some());
    assert!(broken(chapter, "../../LAWS.md").is_some());
    assert_eq!(broken(Path::new("README.md"), "LAWS.md"), None);
    assert_eq!(slug("The walk of a lift"), "the-walk-of-a-lift");
    assert_eq!(
        slug("How late a DGT board's news is"),
        "how-late-a-dgt-boards-news-is"
    );
    assert_eq!(
        slug("The package booted: `packaging/vm-test`"),
        "the-package-booted-packagingvm-test"
    );
    assert_eq!(
        slug("DIY reed board (4 × MCP23017)"),
        "diy-reed-board-4--mcp23017"
    );
    assert_eq!(
        links(Path::new("docs/src/simulator.md"))
            .iter()
            .filter(|(_, t)| t == "replay.md#one-script-one-ruling")
            .count(),
        1
    );
}

/// The files the code map of "How it is built" (`docs/src/architecture.md`)
/// names under `src/`: its tree read by indentation, an entry being a line
/// whose first phrase (up to two spaces) is names ending in `.rs` or `/`,
/// separated by commas. An entry under a file (`pgn/movetext.rs` under
/// `pgn.rs`) is in that file's directory.
fn code_map() -> BTreeSet<String> {
    let text = std::fs::read_to_string(root().join("docs/src/architecture.md"))
        .expect("docs/src/architecture.md");
    let mut named = BTreeSet::new();
    // The entries above the current line: (indent, path from the root).
    let mut above: Vec<(usize, String)> = Vec::new();
    let mut in_src = false;
    for line in text.lines() {
        let indent = line.len() - line.trim_start().len();
        let phrase = line.trim_start().split("  ").next().unwrap_or("");
        if indent == 0 {
            in_src = phrase == "src/";
            above = vec![(0, "src/".to_owned())];
            continue;
        }
        let names: Vec<&str> = phrase.split(", ").map(str::trim).collect();
        let is_entry = in_src
            && names
                .iter()
                .all(|n| !n.contains(' ') && (n.ends_with(".rs") || n.ends_with('/')));
        if !is_entry {
            continue;
        }
        while above.last().is_some_and(|(i, _)| *i >= indent) {
            above.pop();
        }
        let Some((_, parent)) = above.last() else {
            continue;
        };
        let dir = match parent.rfind('/') {
            Some(at) => parent[..=at].to_owned(),
            None => String::new(),
        };
        for name in &names {
            let path = format!("{dir}{name}");
            if name.ends_with(".rs") {
                named.insert(path.clone());
            }
            if names.len() == 1 {
                above.push((indent, path));
            }
        }
    }
    named
}

fn rust_files_under(dir: &Path, found: &mut BTreeSet<String>) {
    for entry in std::fs::read_dir(root().join(dir)).expect("a directory") {
        let path = entry.expect("an entry").path();
        let rel = path
            .strip_prefix(root())
            .expect("under the root")
            .to_path_buf();
        if path.is_dir() {
            rust_files_under(&rel, found);
        } else if rel.extension().is_some_and(|e| e == "rs") {
            found.insert(rel.to_string_lossy().replace('\\', "/"));
        }
    }
}

#[test]
fn the_code_map_names_every_file_of_src_and_no_other() {
    let named = code_map();
    let mut files = BTreeSet::new();
    rust_files_under(Path::new("src"), &mut files);
    assert!(files.len() > 100, "src/: {} files", files.len());
    let missing: Vec<_> = files.difference(&named).collect();
    let stale: Vec<_> = named.difference(&files).collect();
    assert!(
        missing.is_empty() && stale.is_empty(),
        "docs/src/architecture.md's code map:\n  lacks {missing:?}\n  names what is not there: {stale:?}"
    );
}
