//! Shared by the view tests: drawing a screen, and driving an 8x8 board on
//! the mock device with its keys.

// Each test crate uses its own part of this module.
#![allow(dead_code)]

use arbiter::event::{ActionEvent, EventBody};
use arbiter::tui::App;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// The sizes every snapshot is taken at: the smallest terminal the view
/// supports, and a roomy one.
pub const SIZES: [(u16, u16); 2] = [(80, 24), (120, 40)];

/// The screen as text, drawn at `w`x`h`.
pub fn screen(app: &App, (w, h): (u16, u16)) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| arbiter::tui::draw(app, f)).unwrap();
    t.backend().to_string()
}

pub fn actions(events: &[EventBody]) -> Vec<&ActionEvent> {
    events
        .iter()
        .filter_map(|e| match e {
            EventBody::Action(a) => Some(a),
            _ => None,
        })
        .collect()
}

/// A game on the mock chessboard, driven by keys. The cursor is tracked
/// here (the board starts it on e2) so that tests name squares.
pub struct Board {
    pub app: App,
    pub at: (i32, i32),
}

impl Board {
    pub fn new(app: App) -> Board {
        Board { app, at: (4, 6) }
    }

    pub fn press(&mut self, code: KeyCode) {
        self.app.on_key(KeyEvent::new(code, KeyModifiers::NONE));
    }

    /// Types `keys`: the events they caused.
    pub fn chars(&mut self, keys: &str) -> Vec<EventBody> {
        let n = self.app.events().len();
        for c in keys.chars() {
            self.press(KeyCode::Char(c));
        }
        self.since(n)
    }

    /// To `square` with the arrow keys.
    pub fn go(&mut self, square: &str) {
        let b = square.as_bytes();
        let to = (i32::from(b[0] - b'a'), 8 - i32::from(b[1] - b'0'));
        while self.at != to {
            let (code, step) = if self.at.0 < to.0 {
                (KeyCode::Right, (1, 0))
            } else if self.at.0 > to.0 {
                (KeyCode::Left, (-1, 0))
            } else if self.at.1 < to.1 {
                (KeyCode::Down, (0, 1))
            } else {
                (KeyCode::Up, (0, -1))
            };
            self.press(code);
            self.at = (self.at.0 + step.0, self.at.1 + step.1);
        }
    }

    /// Picks the piece on `from` up and puts it down on `to`: the events
    /// this caused.
    pub fn play(&mut self, from: &str, to: &str) -> Vec<EventBody> {
        let n = self.app.events().len();
        self.go(from);
        self.press(KeyCode::Char(' '));
        self.go(to);
        self.press(KeyCode::Char(' '));
        self.since(n)
    }

    /// The events since the `n`th.
    pub fn since(&self, n: usize) -> Vec<EventBody> {
        self.app.events()[n..]
            .iter()
            .map(|e| e.body.clone())
            .collect()
    }
}
