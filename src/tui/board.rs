//! The board: every card of the table drawn where it lies, scaled to the
//! space there is and kept centred as the board grows in any direction.
//! Flags are marked in colour *and* with a symbol, so a colour-blind player
//! misses nothing.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::widgets::{Paragraph, Widget, Wrap};

use crate::table::{Cell, Colour, Table, Token};

/// The table and the marks every board draws on it, card board and
/// chessboard alike.
#[derive(Clone, Copy)]
pub struct Marks<'a> {
    pub table: &'a Table,
    /// Cells a flag is about: `!`.
    pub flagged: &'a [Cell],
    /// The last action's cells: `>`.
    pub last_action: &'a [Cell],
    /// Pieces giving check: `+`.
    pub attackers: &'a [Cell],
    /// The mock device's cursor: `[ ]`.
    pub cursor: Option<Cell>,
    /// The cell a piece in hand came from, or marked for a swap: `*`.
    pub marked: Option<Cell>,
}

/// What the card board shows besides the cards.
pub struct BoardView<'a> {
    pub marks: Marks<'a>,
    /// Cells pieces may still reach (Twelve's area limit), framed; empty
    /// cells outside it get no dots.
    pub limit: Option<(Cell, Cell)>,
    /// Cards out of play still on the table: marked `x` and struck through
    /// until they are taken off.
    pub take_off: &'a [Cell],
    /// Cards an action's second part still concerns (a mated army to turn
    /// face-down, the pieces a Bishop may send back): marked `~` and
    /// underlined, in no alarm colour, since nothing is wrong yet.
    pub pending: &'a [Cell],
}

/// Card sizes tried, largest first: (width, height) in terminal cells.
const SIZES: [(u16, u16); 8] = [
    (8, 4),
    (6, 3),
    (5, 3),
    (6, 2),
    (5, 2),
    (4, 2),
    (4, 1),
    (3, 1),
];

impl Widget for BoardView<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let mut cells: Vec<Cell> = self.marks.table.iter().map(|(c, _)| c).collect();
        cells.extend(
            self.marks
                .flagged
                .iter()
                .chain(self.marks.last_action)
                .chain(self.marks.cursor.iter()),
        );
        if let Some((a, b)) = self.limit {
            cells.extend([a, b]);
        }
        let (lo, hi) = match bounds(&cells) {
            // One empty cell of margin all round: where new cards may go.
            Some((lo, hi)) => (lo.offset(-1, -1), hi.offset(1, 1)),
            None => (Cell::new(-1, -1), Cell::new(1, 1)),
        };
        let cols = (hi.col - lo.col + 1) as u16;
        let rows = (hi.row - lo.row + 1) as u16;
        // Room for the coordinate rulers: 4 columns on the left, 1 row on top.
        let (ruler_w, ruler_h) = (4u16, 1u16);
        let fit = SIZES.iter().copied().find(|&(w, h)| {
            cols.saturating_mul(w) + ruler_w <= area.width
                && rows.saturating_mul(h) + ruler_h <= area.height
        });
        let Some((w, h)) = fit else {
            let msg = format!("Enlarge the window: the board is {cols}x{rows} cells");
            Paragraph::new(msg)
                .style(Style::new().fg(Color::Yellow))
                .wrap(Wrap { trim: true })
                .render(area, buf);
            return;
        };
        let total_w = cols * w + ruler_w;
        let total_h = rows * h + ruler_h;
        let x0 = area.x + (area.width - total_w) / 2 + ruler_w;
        let y0 = area.y + (area.height - total_h) / 2 + ruler_h;
        let ruler = Style::new().fg(Color::DarkGray);
        for i in 0..cols {
            let col = lo.col + i as i32;
            let label = format!("{col:^width$}", width = w as usize);
            buf.set_stringn(x0 + i * w, y0 - 1, label, w as usize, ruler);
        }
        for j in 0..rows {
            let row = lo.row + j as i32;
            buf.set_stringn(
                x0 - ruler_w,
                y0 + j * h + (h - 1) / 2,
                format!("{row:>3} "),
                4,
                ruler,
            );
        }
        for j in 0..rows {
            for i in 0..cols {
                let cell = Cell::new(lo.col + i as i32, lo.row + j as i32);
                let rect = Rect::new(x0 + i * w, y0 + j * h, w, h);
                self.draw_cell(cell, rect, buf);
            }
        }
        if let Some((a, b)) = self.limit {
            // Drawn in the blank cells just outside the area (a card frame
            // leaves its last column free, so the right edge fits inside).
            let left = x0 + ((a.col - lo.col) as u16) * w - 1;
            let right = x0 + ((b.col - lo.col + 1) as u16) * w - 1;
            let top = y0 + ((a.row - lo.row) as u16) * h - 1;
            let bottom = y0 + ((b.row - lo.row + 1) as u16) * h;
            let style = Style::new().fg(Color::Yellow);
            for x in left + 1..right {
                buf.set_stringn(x, top, "┄", 1, style);
                buf.set_stringn(x, bottom, "┄", 1, style);
            }
            for y in top + 1..bottom {
                buf.set_stringn(left, y, "┆", 1, style);
                buf.set_stringn(right, y, "┆", 1, style);
            }
            for (x, y, c) in [
                (left, top, "┌"),
                (right, top, "┐"),
                (left, bottom, "└"),
                (right, bottom, "┘"),
            ] {
                buf.set_stringn(x, y, c, 1, style);
            }
        }
    }
}

impl BoardView<'_> {
    fn draw_cell(&self, cell: Cell, r: Rect, buf: &mut Buffer) {
        let token = self.marks.table.get(cell);
        let flagged = self.marks.flagged.contains(&cell);
        let last = self.marks.last_action.contains(&cell);
        let attacker = self.marks.attackers.contains(&cell);
        let cursor = self.marks.cursor == Some(cell);
        let marked = self.marks.marked == Some(cell);
        let take_off = self.take_off.contains(&cell);
        let pending = self.pending.contains(&cell);

        // Only empty cells where a card could go (touching the board) are
        // dotted; the rest of the rectangle stays blank.
        let touching = || {
            (-1..=1).any(|dr| {
                (-1..=1).any(|dc| {
                    (dc, dr) != (0, 0) && self.marks.table.get(cell.offset(dc, dr)).is_some()
                })
            })
        };
        let inside = self.limit.is_none_or(|(a, b)| {
            (a.col..=b.col).contains(&cell.col) && (a.row..=b.row).contains(&cell.row)
        });
        let (text, mut style) = match token {
            None if inside && (touching() || self.marks.table.is_empty()) => {
                ("··".to_string(), Style::new().fg(Color::DarkGray))
            }
            None => ("  ".to_string(), Style::new()),
            Some(Token::Down) => (
                "░░".to_string(),
                Style::new().fg(Color::Gray).bg(Color::DarkGray),
            ),
            Some(Token::Unreadable) => (
                "??".to_string(),
                Style::new().fg(Color::Black).bg(Color::Yellow),
            ),
            Some(Token::Up(card) | Token::Pair(card, _)) => {
                (card.to_string(), card_style(card.colour))
            }
        };
        // The symbol beside the token says what colour alone would say.
        let mark = if flagged {
            '!'
        } else if attacker {
            '+'
        } else if marked {
            '*'
        } else if take_off {
            'x'
        } else if pending {
            '~'
        } else if last {
            '>'
        } else {
            ' '
        };
        if flagged {
            style = style
                .bg(Color::Red)
                .fg(Color::White)
                .add_modifier(Modifier::BOLD);
        } else if attacker {
            style = style.bg(Color::Magenta).fg(Color::White);
        } else if take_off {
            style = style.add_modifier(Modifier::CROSSED_OUT | Modifier::DIM);
        } else if pending {
            style = style.bg(Color::Cyan).add_modifier(Modifier::UNDERLINED);
        } else if last {
            style = style.add_modifier(Modifier::BOLD | Modifier::UNDERLINED);
        }
        if cursor {
            style = style.add_modifier(Modifier::REVERSED);
        }
        let empty = token.is_none();
        let fill = if empty && !cursor && !flagged {
            Style::new()
        } else {
            style
        };
        for y in r.y..r.y + r.height {
            buf.set_stringn(r.x, y, " ".repeat(r.width as usize), r.width as usize, fill);
        }
        // Cards with room get a frame, its corners carrying the mark; so do a
        // flagged empty cell (where a card is missing) and the cursor.
        if r.height >= 3 && r.width >= 5 && (!empty || flagged || cursor) {
            let inner = (r.width - 2) as usize;
            let c = if mark == ' ' {
                ('┌', '┐', '└', '┘')
            } else {
                (mark, mark, mark, mark)
            };
            buf.set_stringn(
                r.x,
                r.y,
                format!("{}{}{}", c.0, "─".repeat(inner - 1), c.1),
                r.width as usize - 1,
                style,
            );
            buf.set_stringn(
                r.x,
                r.y + r.height - 1,
                format!("{}{}{}", c.2, "─".repeat(inner - 1), c.3),
                r.width as usize - 1,
                style,
            );
            for y in r.y + 1..r.y + r.height - 1 {
                buf.set_stringn(r.x, y, "│", 1, style);
                buf.set_stringn(r.x + r.width - 2, y, "│", 1, style);
            }
        }
        let mid = r.y + (r.height.saturating_sub(1)) / 2;
        let label = if cursor && empty {
            "[]".to_string()
        } else if r.height >= 3 && r.width >= 5 {
            text
        } else {
            format!("{mark}{text}")
        };
        let lw = label.chars().count() as u16;
        let x = r.x + (r.width.saturating_sub(1).saturating_sub(lw)) / 2;
        buf.set_stringn(x, mid, label, r.width as usize, style);
    }
}

pub(super) fn card_style(c: Colour) -> Style {
    let s = Style::new().add_modifier(Modifier::BOLD);
    match c {
        Colour::White => s.fg(Color::Black).bg(Color::White),
        Colour::Black => s.fg(Color::White).bg(Color::Black),
        Colour::Red => s.fg(Color::White).bg(Color::Red),
        Colour::Blue => s.fg(Color::White).bg(Color::Blue),
        Colour::Yellow => s.fg(Color::Black).bg(Color::Yellow),
    }
}

fn bounds(cells: &[Cell]) -> Option<(Cell, Cell)> {
    let first = cells.first()?;
    Some(cells.iter().fold((*first, *first), |(lo, hi), c| {
        (
            Cell::new(lo.col.min(c.col), lo.row.min(c.row)),
            Cell::new(hi.col.max(c.col), hi.row.max(c.row)),
        )
    }))
}
