//! The `arbiter` binary on a real pseudo-terminal, as a player at a
//! terminal runs it: keys in, screen out.

use std::io::{Read, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use nix::pty::{OpenptyResult, Winsize, openpty};

mod common;

/// The binary run on a fresh 120×40 terminal in a home of its own.
struct OnTerminal {
    child: std::process::Child,
    master: std::fs::File,
    home: std::path::PathBuf,
    screen: Vec<u8>,
}

impl OnTerminal {
    fn start(args: &[&str]) -> OnTerminal {
        let size = Winsize {
            ws_row: 40,
            ws_col: 120,
            ws_xpixel: 0,
            ws_ypixel: 0,
        };
        let OpenptyResult { master, slave } = openpty(Some(&size), None).expect("a pty");
        let home = std::env::temp_dir().join(format!(
            "arbiter-pty-{}-{}",
            std::process::id(),
            args.join("-").replace('/', "_")
        ));
        let _ = std::fs::remove_dir_all(&home);
        std::fs::create_dir_all(&home).unwrap();
        let io = |fd: &OwnedFd| Stdio::from(fd.as_fd().try_clone_to_owned().unwrap());
        let child = Command::new(env!("CARGO_BIN_EXE_arbiter"))
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env("HOME", &home)
            .env("XDG_DATA_HOME", home.join("data"))
            .env("XDG_CONFIG_HOME", home.join("config"))
            .env("TERM", "xterm-256color")
            .stdin(io(&slave))
            .stdout(io(&slave))
            .stderr(io(&slave))
            .spawn()
            .expect("the binary runs");
        drop(slave);
        let master = std::fs::File::from(master);
        set_nonblocking(&master);
        OnTerminal {
            child,
            master,
            home,
            screen: Vec::new(),
        }
    }

    /// Reads what the program wrote until `text` shows or `limit` passes.
    fn wait_for(&mut self, text: &str, limit: Duration) -> bool {
        let start = Instant::now();
        while start.elapsed() < limit {
            self.drain();
            if String::from_utf8_lossy(&self.screen).contains(text) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }

    fn drain(&mut self) {
        let mut buf = [0u8; 4096];
        loop {
            match self.master.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => self.screen.extend_from_slice(&buf[..n]),
            }
        }
    }

    fn keys(&mut self, bytes: &[u8]) {
        self.master.write_all(bytes).unwrap();
    }

    /// The exit code, waiting at most `limit` (then killed: a hang fails).
    fn exit(&mut self, limit: Duration) -> Option<i32> {
        let start = Instant::now();
        loop {
            self.drain();
            if let Some(status) = self.child.try_wait().unwrap() {
                self.drain();
                return status.code();
            }
            if start.elapsed() > limit {
                let _ = self.child.kill();
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Every file the program left in its home.
    fn files(&self) -> Vec<std::path::PathBuf> {
        common::files_under(&self.home)
    }

    /// The journals the program left in its home.
    fn journals(&self) -> Vec<std::path::PathBuf> {
        self.files()
            .into_iter()
            .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
            .collect()
    }
}

impl Drop for OnTerminal {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.home);
    }
}

fn set_nonblocking(f: &std::fs::File) {
    use nix::fcntl::{FcntlArg, OFlag, fcntl};
    let flags = OFlag::from_bits_truncate(fcntl(f, FcntlArg::F_GETFL).unwrap());
    fcntl(f, FcntlArg::F_SETFL(flags | OFlag::O_NONBLOCK)).unwrap();
}

/// Leaving the Battleplan screen with Esc is a choice: the command says no
/// game started and exits 0, and no journal is left behind.
#[test]
fn esc_on_the_battleplan_screen_starts_no_game_and_is_no_error() {
    let mut t = OnTerminal::start(&["play", "--input", "mock"]);
    assert!(
        t.wait_for("Battleplans", Duration::from_secs(20)),
        "{}",
        String::from_utf8_lossy(&t.screen)
    );
    t.keys(b"\x1b");
    let code = t.exit(Duration::from_secs(20));
    let screen = String::from_utf8_lossy(&t.screen).into_owned();
    assert_eq!(code, Some(0), "{screen}");
    assert!(screen.contains("no game started"), "{screen}");
    let journals = t.journals();
    assert!(journals.is_empty(), "{journals:?}");
}

/// The recorded demo game refereed on the view, as the README's tour runs
/// it: the recording names its own game, the view plays it to its end at
/// the recording's pace, and the journal holds the script's flags, mended.
#[test]
fn the_recorded_game_is_refereed_on_the_view() {
    let mut t = OnTerminal::start(&["play", "--input", "frames:fixtures/recordings/demo"]);
    let ended = t.wait_for("input ended", Duration::from_secs(120));
    assert!(ended, "{}", String::from_utf8_lossy(&t.screen));
    t.keys(b"q");
    assert_eq!(t.exit(Duration::from_secs(20)), Some(0));
    let journal = t
        .files()
        .into_iter()
        .find(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .expect("a journal");
    let text = std::fs::read_to_string(journal).unwrap();
    let kinds: Vec<String> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["event"] == "flag" || v["event"] == "cleared")
        .map(|v| format!("{} {}", v["event"], v["kind"]))
        .collect();
    assert_eq!(
        kinds,
        [
            r#""flag" "wrong_card""#,
            r#""cleared" "wrong_card""#,
            r#""flag" "missed_flip""#,
            r#""cleared" "missed_flip""#
        ],
        "{text}"
    );
}

/// A game quit at its very start, before a card was placed, leaves no
/// journal for `--resume` to pick up in place of the last real game, and
/// says so.
#[test]
fn a_game_quit_before_anything_happened_keeps_no_journal() {
    let mut t = OnTerminal::start(&[
        "play",
        "--input",
        "mock",
        "--setup",
        "fixtures/scenarios/enprise/basics.toml",
    ]);
    assert!(
        t.wait_for("mock", Duration::from_secs(20)),
        "{}",
        String::from_utf8_lossy(&t.screen)
    );
    t.keys(b"q");
    // Quitting asks first only when a game is under way.
    std::thread::sleep(Duration::from_millis(300));
    t.keys(b"y");
    let code = t.exit(Duration::from_secs(20));
    let screen = String::from_utf8_lossy(&t.screen).into_owned();
    assert_eq!(code, Some(0), "{screen}");
    assert!(screen.contains("no journal was kept"), "{screen}");
    let journals = t.journals();
    assert!(journals.is_empty(), "{journals:?}");
}
