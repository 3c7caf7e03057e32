//! The log: what the devices and the referee did, for a player to send
//! when "it missed my move". A file while the full-screen view runs (the
//! screen is the view's), stderr for the commands that print.

use std::fs::{self, OpenOptions};
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
        Some(path) => to_file(&path, cli.log_level.unwrap_or(Level::INFO)).map(|()| true),
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

fn to_file(path: &Path, level: Level) -> Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        fs::create_dir_all(dir).with_context(|| format!("{}: cannot create", dir.display()))?;
    }
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .with_context(|| format!("--log {}: cannot write", path.display()))?;
    tracing_subscriber::fmt()
        .with_writer(Mutex::new(file))
        .with_max_level(level)
        .with_ansi(false)
        .with_target(false)
        .init();
    Ok(())
}
