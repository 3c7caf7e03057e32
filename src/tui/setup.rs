//! The setup screen: each player's Battleplan typed in (or shuffled at
//! random), validated as it is typed.

use std::io;

use ratatui::Frame;
use ratatui::crossterm::event::{
    self, Event as TermEvent, KeyCode, KeyEvent, KeyEventKind, KeyModifiers,
};
use ratatui::layout::Rect;
use ratatui::style::{Color, Style, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};

use crate::games::enprise::{BattleplanError, parse_battleplan};
use crate::table::Colour;

pub struct SetupForm {
    players: Vec<Colour>,
    plans: Vec<String>,
    focus: usize,
    /// Shown after Enter when something is still wrong.
    problem: Option<String>,
    seed: u64,
}

/// What a key did to the form.
#[derive(Debug, PartialEq, Eq)]
pub enum SetupOutcome {
    Editing,
    /// Every Battleplan is valid: the texts, by player.
    Done(Vec<(Colour, String)>),
    Cancelled,
}

impl SetupForm {
    /// `plans`: the Battleplans already known (from the command line), by
    /// player; the others start empty.
    pub fn new(players: Vec<Colour>, known: &[(Colour, String)], seed: u64) -> SetupForm {
        let plans = players
            .iter()
            .map(|c| {
                known
                    .iter()
                    .find(|(k, _)| k == c)
                    .map(|(_, p)| p.clone())
                    .unwrap_or_default()
            })
            .collect::<Vec<_>>();
        let focus = plans
            .iter()
            .position(|p| parse_battleplan(p, Colour::White).is_err())
            .unwrap_or(0);
        SetupForm {
            players,
            plans,
            focus,
            problem: None,
            seed,
        }
    }

    fn check(&self, i: usize) -> Result<(), BattleplanError> {
        parse_battleplan(&self.plans[i], self.players[i]).map(|_| ())
    }

    pub fn on_key(&mut self, key: KeyEvent) -> SetupOutcome {
        if key.kind == KeyEventKind::Release {
            return SetupOutcome::Editing;
        }
        self.problem = None;
        let shuffled = matches!(key.code, KeyCode::F(2))
            || (key.code == KeyCode::Char('r') && key.modifiers.contains(KeyModifiers::CONTROL));
        if shuffled {
            let plan = self.shuffle();
            self.plans[self.focus] = plan;
            return SetupOutcome::Editing;
        }
        let field = &mut self.plans[self.focus];
        match key.code {
            KeyCode::Esc => return SetupOutcome::Cancelled,
            KeyCode::Char('c') if key.modifiers.contains(KeyModifiers::CONTROL) => {
                return SetupOutcome::Cancelled;
            }
            KeyCode::Tab | KeyCode::Down => self.focus = (self.focus + 1) % self.plans.len(),
            KeyCode::BackTab | KeyCode::Up => {
                self.focus = (self.focus + self.plans.len() - 1) % self.plans.len();
            }
            KeyCode::Backspace => {
                field.pop();
                while field.ends_with(' ') {
                    field.pop();
                }
            }
            KeyCode::Char(c) => {
                let c = c.to_ascii_uppercase();
                if "QRBNP".contains(c) {
                    if !field.is_empty() {
                        field.push(' ');
                    }
                    field.push(c);
                }
            }
            KeyCode::Enter => {
                let bad = (0..self.plans.len()).find(|&i| self.check(i).is_err());
                match bad {
                    None => {
                        return SetupOutcome::Done(
                            self.players
                                .iter()
                                .copied()
                                .zip(self.plans.iter().cloned())
                                .collect(),
                        );
                    }
                    Some(i) => {
                        self.focus = i;
                        self.problem = Some(format!(
                            "{}: {}",
                            self.players[i].title(),
                            self.check(i).unwrap_err()
                        ));
                    }
                }
            }
            _ => {}
        }
        SetupOutcome::Editing
    }

    /// A random Battleplan, as players shuffle their 15 cards.
    fn shuffle(&mut self) -> String {
        use rand::SeedableRng;
        self.seed = self.seed.wrapping_add(1);
        let mut rng = rand::rngs::StdRng::seed_from_u64(self.seed);
        crate::games::enprise::random_battleplan(&mut rng)
            .iter()
            .map(|p| p.letter().to_string())
            .collect::<Vec<_>>()
            .join(" ")
    }

    pub fn draw(&self, frame: &mut Frame) {
        let area = frame.area();
        let w = area.width.min(80);
        let mut lines = vec![
            Line::from(
                "Each player sets the king aside and lays the other 15 cards in a row: \
                 the queen, 2 rooks, 2 bishops, 2 knights and 8 pawns (Q, 2R, 2B, 2N, 8P), \
                 in any order.",
            ),
            Line::from("Type them in order (Q R B N P), or press F2 to shuffle.").dim(),
            Line::from(""),
        ];
        for (i, c) in self.players.iter().enumerate() {
            let focus = i == self.focus;
            let status = match self.check(i) {
                Ok(()) => Span::styled("  ok", Style::new().fg(Color::Green)),
                Err(e) if self.plans[i].is_empty() => {
                    Span::raw(format!("  {}", short(&e.to_string()))).dim()
                }
                Err(e) => Span::styled(
                    format!("  {}", short(&e.to_string())),
                    Style::new().fg(Color::Yellow),
                ),
            };
            lines.push(Line::from(vec![
                Span::raw(if focus { "▶ " } else { "  " }),
                Span::raw(format!("{:<6}", c.title())).bold(),
                status,
            ]));
            let text = if self.plans[i].is_empty() {
                "…".to_string()
            } else {
                self.plans[i].clone()
            };
            let style = if focus {
                Style::new().reversed()
            } else {
                Style::new()
            };
            lines.push(Line::from(vec![
                Span::raw("    "),
                Span::styled(text, style),
            ]));
            lines.push(Line::from(""));
        }
        if let Some(p) = &self.problem {
            lines.push(Line::styled(p.clone(), Style::new().fg(Color::LightRed)));
        }
        lines
            .push(Line::from("Tab: next player  Backspace: delete  Enter: start  Esc: quit").dim());
        // Long lines (the rule, an error naming the rule broken) wrap, and
        // the box grows to hold them rather than cut them off.
        let inner = w.saturating_sub(2).max(1) as usize;
        let rows: usize = lines
            .iter()
            .map(|l| {
                let text: String = l.spans.iter().map(|s| s.content.as_ref()).collect();
                super::view::wrap_words(&text, inner).len().max(1)
            })
            .sum();
        let h = (rows as u16 + 2).min(area.height);
        let r = Rect::new(
            area.x + (area.width - w) / 2,
            area.y + (area.height - h) / 2,
            w,
            h,
        );
        frame.render_widget(
            Paragraph::new(lines)
                // Not trimmed: the players' rows keep their indent.
                .wrap(Wrap { trim: false })
                .block(Block::bordered().title(" Battleplans ")),
            r,
        );
    }
}

fn short(e: &str) -> &str {
    e.split(" (").next().unwrap_or(e)
}

/// Shows the form until every Battleplan is valid (`Some`) or the players
/// give up (`None`).
pub fn run(
    mut form: SetupForm,
    screen: &mut super::Screen,
) -> io::Result<Option<Vec<(Colour, String)>>> {
    let terminal = screen.terminal();
    {
        loop {
            terminal.draw(|f| form.draw(f))?;
            if let TermEvent::Key(k) = event::read()? {
                match form.on_key(k) {
                    SetupOutcome::Editing => {}
                    SetupOutcome::Done(plans) => return Ok(Some(plans)),
                    SetupOutcome::Cancelled => return Ok(None),
                }
            }
        }
    }
}
