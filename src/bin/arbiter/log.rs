//! The log: what the devices and the referee did, for a player to send
//! when "it missed my move". A file while the full-screen view runs (the
//! screen is the view's), stderr for the commands that print.
//!
//! While the game's view holds the terminal ([`stderr_to_log`] until
//! [`give_back_stderr`]), whatever else writes to stderr goes to the log
//! file too: a C library's warning among them (the AprilTag detector
//! prints one on a degenerate quad), which would otherwise land on the
//! view.

use std::fs::{self, File, OpenOptions};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::{Context, Result};
use tracing::Level;

use crate::args::{Cli, Command};

/// Where the view logs when no `--log` is named: `arbiter.log` in the
/// user's data folder, beside the journals.
pub fn default_file() -> PathBuf {
    arbiter::journal::journal_dir()
        .parent()
        .map(|d| d.join("arbiter.log"))
        .unwrap_or_else(|| PathBuf::from("arbiter.log"))
}

/// Starts the log the command line asks for; whether it goes to a file
/// (else to stderr, where `main` reports failures itself).
pub fn init(cli: &Cli) -> Result<bool> {
    // The view's log goes to a file, as the view holds the terminal; with
    // no terminal there is no view, and `play` only says so on stderr.
    let view = matches!(cli.command, Command::Play(_)) && arbiter::tui::Screen::check().is_ok();
    let file = cli.log.clone().or_else(|| view.then(default_file));
    match file {
        Some(path) => {
            let file = to_file(&path, cli.log_level.unwrap_or(Level::INFO))?;
            if view && let Ok(mut slot) = VIEW_LOG.lock() {
                *slot = Some(file);
            }
            Ok(true)
        }
        None => {
            use std::io::IsTerminal;
            tracing_subscriber::fmt()
                .with_writer(std::io::stderr)
                // Colour only for a person at a terminal, not in a file or
                // a pipe that stderr was sent to.
                .with_ansi(std::io::stderr().is_terminal())
                .with_max_level(cli.log_level.unwrap_or(Level::WARN))
                .with_target(false)
                .init();
            Ok(false)
        }
    }
}

/// Starts the log in the file at `path`; the file, for stderr to follow.
fn to_file(path: &Path, level: Level) -> Result<File> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        fs::create_dir_all(dir).with_context(|| format!("{}: cannot create", dir.display()))?;
    }
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .with_context(|| format!("--log {}: cannot write", path.display()))?;
    let for_stderr = file
        .try_clone()
        .with_context(|| format!("--log {}: cannot write", path.display()))?;
    tracing_subscriber::fmt()
        .with_writer(Mutex::new(file))
        .with_max_level(level)
        .with_ansi(false)
        .with_target(false)
        .init();
    Ok(for_stderr)
}

/// The view's log file, for stderr to follow while the view runs.
static VIEW_LOG: Mutex<Option<File>> = Mutex::new(None);
/// The terminal's stderr, while [`stderr_to_log`] has sent it to the log.
static TERMINAL_STDERR: Mutex<Option<std::os::fd::OwnedFd>> = Mutex::new(None);

/// Sends this process's stderr (descriptor 2) into the view's log file,
/// keeping the terminal's. Nothing when the view logs nowhere, or when
/// stderr cannot be moved (it then stays the terminal's).
pub fn stderr_to_log() {
    use std::os::fd::{AsFd, AsRawFd};
    let Some(log) = VIEW_LOG
        .lock()
        .ok()
        .and_then(|s| s.as_ref()?.try_clone().ok())
    else {
        return;
    };
    let Ok(terminal) = std::io::stderr().as_fd().try_clone_to_owned() else {
        return;
    };
    // SAFETY: both descriptors are open (`log` is ours, 2 is the process's
    // stderr); dup2 replaces descriptor 2 in one step.
    if unsafe { libc::dup2(log.as_raw_fd(), 2) } >= 0
        && let Ok(mut slot) = TERMINAL_STDERR.lock()
    {
        *slot = Some(terminal);
    }
}

/// Gives stderr back to the terminal, if [`stderr_to_log`] took it.
pub fn give_back_stderr() {
    use std::os::fd::AsRawFd;
    let terminal = TERMINAL_STDERR.lock().ok().and_then(|mut s| s.take());
    if let Some(fd) = terminal {
        // SAFETY: `fd` is an open descriptor we own; dup2 replaces 2.
        unsafe {
            libc::dup2(fd.as_raw_fd(), 2);
        }
    }
}
