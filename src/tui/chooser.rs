//! The draw chooser: the cards the game would accept as the next draw, to
//! say exactly which card was drawn (a live board cannot read the draw
//! pile; the mock device can draw at random, or as a test needs).
//!
//! Piece cards stand in a grid, a row per colour and a column per piece,
//! so each keeps its place whether or not the pile still holds it; cards
//! the pile cannot give show as `··`. Other cards (Joust) follow by name.

use ratatui::crossterm::event::KeyCode;
use ratatui::style::{Modifier, Style, Stylize};
use ratatui::text::{Line, Span};

use crate::games::doublecross::deck::DcCard;
use crate::observation::Observation;
use crate::table::{Card, Colour, Piece};

/// The pieces in the order of a card grid (as the deck lists them).
const PIECES: [Piece; 6] = [
    Piece::King,
    Piece::Queen,
    Piece::Rook,
    Piece::Bishop,
    Piece::Knight,
    Piece::Pawn,
];

/// Named cards stand this many to a row.
const NAMED_PER_ROW: usize = 2;

#[derive(Clone, Debug)]
struct Entry {
    /// The draw as inputs write it (`wQ`, `joust:wild-move`).
    draw: String,
    /// What the grid shows.
    label: String,
    available: bool,
}

#[derive(Clone, Debug)]
struct Row {
    head: String,
    entries: Vec<Entry>,
    /// A piece row: short labels in fixed columns.
    grid: bool,
}

/// What a key did to the chooser.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChooserOutcome {
    /// Still open.
    Open,
    Closed,
    /// This card was chosen: draw it.
    Draw(String),
    /// The key did nothing, and why.
    Nothing(&'static str),
}

#[derive(Clone, Debug)]
pub struct DrawChooser {
    rows: Vec<Row>,
    at: (usize, usize),
    /// Who draws, if the view knows ("black").
    drawer: Option<String>,
}

impl DrawChooser {
    /// A chooser over the draws among `offered`; `None` when the game
    /// offers no draw now.
    pub fn new(offered: &[Observation], drawer: Option<String>) -> Option<DrawChooser> {
        let draws: Vec<&str> = offered
            .iter()
            .filter_map(|o| match o {
                Observation::Draw(d) => Some(d.as_str()),
                _ => None,
            })
            .collect();
        if draws.is_empty() {
            return None;
        }
        let mut rows = Vec::new();
        let mut gridded = Vec::new();
        for colour in [Colour::White, Colour::Black] {
            let entries: Vec<Entry> = PIECES
                .iter()
                .map(|&p| {
                    let draw = Card::new(colour, p).to_string();
                    Entry {
                        available: draws.contains(&draw.as_str()),
                        label: draw.clone(),
                        draw,
                    }
                })
                .collect();
            gridded.extend(entries.iter().map(|e| e.draw.clone()));
            if entries.iter().any(|e| e.available) {
                rows.push(Row {
                    head: colour.title().to_string(),
                    entries,
                    grid: true,
                });
            }
        }
        let named: Vec<Entry> = draws
            .iter()
            .filter(|d| !gridded.iter().any(|g| g == *d))
            .map(|&d| Entry {
                draw: d.to_string(),
                label: DcCard::parse(d).map_or_else(|_| d.to_string(), |c| c.title()),
                available: true,
            })
            .collect();
        for (i, chunk) in named.chunks(NAMED_PER_ROW).enumerate() {
            rows.push(Row {
                head: if i == 0 {
                    "Joust".into()
                } else {
                    String::new()
                },
                entries: chunk.to_vec(),
                grid: false,
            });
        }
        let mut c = DrawChooser {
            rows,
            at: (0, 0),
            drawer,
        };
        // Start on the first card the pile can give.
        while !c.current().available && c.step(1) {}
        Some(c)
    }

    fn current(&self) -> &Entry {
        &self.rows[self.at.0].entries[self.at.1]
    }

    /// Moves along the rows, `by` entries; false at either end.
    fn step(&mut self, by: isize) -> bool {
        let flat: Vec<(usize, usize)> = self
            .rows
            .iter()
            .enumerate()
            .flat_map(|(r, row)| (0..row.entries.len()).map(move |c| (r, c)))
            .collect();
        let i = flat.iter().position(|&p| p == self.at).unwrap_or(0) as isize + by;
        match usize::try_from(i).ok().and_then(|i| flat.get(i)) {
            Some(&p) => {
                self.at = p;
                true
            }
            None => false,
        }
    }

    /// Up or down a row, keeping the column where the row has it.
    fn row(&mut self, by: isize) {
        let r = self.at.0 as isize + by;
        if let Some(row) = usize::try_from(r).ok().and_then(|r| self.rows.get(r)) {
            let col = if row.grid == self.rows[self.at.0].grid {
                self.at.1.min(row.entries.len() - 1)
            } else {
                0
            };
            self.at = (r as usize, col);
        }
    }

    pub fn on_key(&mut self, code: KeyCode) -> ChooserOutcome {
        match code {
            KeyCode::Left | KeyCode::Char('h') => {
                self.step(-1);
            }
            KeyCode::Right | KeyCode::Char('l') | KeyCode::Tab => {
                self.step(1);
            }
            KeyCode::Up | KeyCode::Char('k') => self.row(-1),
            KeyCode::Down | KeyCode::Char('j') => self.row(1),
            KeyCode::Enter | KeyCode::Char(' ') => {
                return if self.current().available {
                    ChooserOutcome::Draw(self.current().draw.clone())
                } else {
                    ChooserOutcome::Nothing("none of these is left in the draw pile")
                };
            }
            KeyCode::Esc | KeyCode::Char('q') | KeyCode::Char('N') => {
                return ChooserOutcome::Closed;
            }
            _ => return ChooserOutcome::Nothing("arrows choose, Enter draws, Esc closes"),
        }
        ChooserOutcome::Open
    }

    /// The popup's title.
    pub fn title(&self) -> String {
        match &self.drawer {
            Some(d) => format!(" Draw a card: {d} draws "),
            None => " Draw a card ".to_string(),
        }
    }

    /// The popup's lines.
    pub fn lines(&self) -> Vec<Line<'static>> {
        let mut lines = vec![Line::from("Which card was drawn?").italic()];
        if self.rows.iter().any(|r| r.grid) {
            let head: String = PIECES
                .iter()
                .map(|p| format!("  {} ", p.letter()))
                .collect();
            lines.push(Line::from(format!("       {head}")).dim());
        }
        for (r, row) in self.rows.iter().enumerate() {
            let mut spans = vec![Span::raw(format!(" {:<6}", row.head))];
            for (c, e) in row.entries.iter().enumerate() {
                let selected = self.at == (r, c);
                let text = if !e.available {
                    "··".to_string()
                } else {
                    e.label.clone()
                };
                let text = if selected {
                    format!("[{text}]")
                } else {
                    format!(" {text} ")
                };
                let text = if row.grid {
                    text
                } else {
                    format!("{text:<19}")
                };
                let mut style = Style::new();
                if selected {
                    style = style.add_modifier(Modifier::REVERSED | Modifier::BOLD);
                }
                if !e.available {
                    style = style.add_modifier(Modifier::DIM);
                }
                spans.push(Span::styled(text, style));
            }
            lines.push(Line::from(spans));
        }
        lines.push(Line::from(""));
        lines.push(Line::from("arrows: choose  Enter: draw it  Esc: cancel").dim());
        if self
            .rows
            .iter()
            .flat_map(|r| &r.entries)
            .any(|e| !e.available)
        {
            lines.push(Line::from("··  none left in the draw pile").dim());
        }
        lines
    }
}
