//! A small file replaced atomically: written beside it, synced, renamed
//! over it, and the rename made durable by syncing the directory. A
//! reader sees the old file or the new one, never half of one, and a
//! power cut leaves one of the two. The publisher keeps its acknowledged
//! mark this way ([`super::progress`]) and hands the hall's pairing to
//! the daemon ([`super::pairing_file`]).

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::Path;

/// Replaces the file at `path` with `contents`. With `mode`, the file has
/// exactly that mode whatever the umask (another user reads it); without,
/// the umask decides, as for any new file.
pub fn replace(path: &Path, contents: &[u8], mode: Option<u32>) -> io::Result<()> {
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(".new");
    let temporary = Path::new(&temporary);
    let mut options = OpenOptions::new();
    options.write(true).create(true).truncate(true);
    if let Some(mode) = mode {
        options.mode(mode);
    }
    let mut file = options.open(temporary)?;
    file.write_all(contents)?;
    file.sync_all()?;
    drop(file);
    if let Some(mode) = mode {
        // The umask may have narrowed the mode given above.
        fs::set_permissions(temporary, fs::Permissions::from_mode(mode))?;
    }
    fs::rename(temporary, path)?;
    // The rename is durable once the directory is.
    let directory = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    File::open(directory)?.sync_all()
}
