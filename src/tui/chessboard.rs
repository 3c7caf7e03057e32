//! The chessboard: a fixed 8x8 board for games played on one (DoubleCross),
//! every square drawn, rank 8 at the top, ranks 8–1 on the left and files
//! a–h along the bottom, scaled to the space there is.
//!
//! Nothing here relies on colour alone: dark squares carry a shade (`░`),
//! pieces are their tokens (`wP`, `bK`: the colour is the first letter),
//! and every mark of [`super::board::BoardView`] keeps its symbol (`!`
//! flagged, `+` giving check, `*` the square a piece in hand came from, `>`
//! the last action, `[ ]` the cursor).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::widgets::{Paragraph, Widget, Wrap};

use super::board::card_style;
use crate::table::{Cell, Table, Token};

/// What the board shows besides the pieces (the same as the card board's).
pub struct ChessboardView<'a> {
    pub table: &'a Table,
    pub flagged: &'a [Cell],
    pub last_action: &'a [Cell],
    pub attackers: &'a [Cell],
    pub cursor: Option<Cell>,
    pub marked: Option<Cell>,
}

/// Square sizes tried, largest first: (width, height) in terminal cells.
/// Terminal cells are about twice as tall as wide, so a square is twice as
/// wide as it is tall where there is room.
const SIZES: [(u16, u16); 8] = [
    (10, 5),
    (8, 4),
    (7, 3),
    (6, 3),
    (5, 2),
    (4, 2),
    (4, 1),
    (3, 1),
];

/// The rank numbers take this many columns on the left, the file letters
/// one row below the board.
const RULER_W: u16 = 3;
const RULER_H: u16 = 1;

/// The shade of a dark square, so that the squares read apart on a
/// monochrome screen and in a text capture too.
const DARK_FILL: char = '░';

const LIGHT_BG: Color = Color::Indexed(180);
const DARK_BG: Color = Color::Indexed(137);
const DARK_DOTS: Color = Color::Indexed(95);
/// The last action's squares: a yellowish tint, as chess sites do.
const LAST_BG: Color = Color::Indexed(143);

impl Widget for ChessboardView<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let fit = SIZES
            .iter()
            .copied()
            .find(|&(w, h)| 8 * w + RULER_W <= area.width && 8 * h + RULER_H <= area.height);
        let Some((w, h)) = fit else {
            let (w, h) = SIZES[SIZES.len() - 1];
            let msg = format!(
                "Enlarge the window: the chessboard needs {}x{} cells",
                8 * w + RULER_W,
                8 * h + RULER_H
            );
            Paragraph::new(msg)
                .style(Style::new().fg(Color::Yellow))
                .wrap(Wrap { trim: true })
                .render(area, buf);
            return;
        };
        let total_w = 8 * w + RULER_W;
        let total_h = 8 * h + RULER_H;
        let x0 = area.x + (area.width - total_w) / 2 + RULER_W;
        let y0 = area.y + (area.height - total_h) / 2;
        let ruler = Style::new().fg(Color::DarkGray);
        for i in 0..8u16 {
            let file = (b'a' + i as u8) as char;
            let label = format!("{file:^width$}", width = w as usize);
            buf.set_stringn(x0 + i * w, y0 + 8 * h, label, w as usize, ruler);
        }
        for j in 0..8u16 {
            buf.set_stringn(
                x0 - RULER_W,
                y0 + j * h + (h - 1) / 2,
                format!("{:>2} ", 8 - j),
                RULER_W as usize,
                ruler,
            );
        }
        for j in 0..8u16 {
            for i in 0..8u16 {
                let cell = Cell::new(i as i32, j as i32);
                let rect = Rect::new(x0 + i * w, y0 + j * h, w, h);
                self.draw_square(cell, rect, buf);
            }
        }
    }
}

impl ChessboardView<'_> {
    fn draw_square(&self, cell: Cell, r: Rect, buf: &mut Buffer) {
        // a8 (col 0, row 0) is a light square.
        let dark = (cell.col + cell.row) % 2 == 1;
        let token = self.table.get(cell);
        let flagged = self.flagged.contains(&cell);
        let attacker = self.attackers.contains(&cell);
        let marked = self.marked == Some(cell);
        let last = self.last_action.contains(&cell);
        let cursor = self.cursor == Some(cell);

        // The square itself.
        let mut bg = if dark { DARK_BG } else { LIGHT_BG };
        let mark = if flagged {
            bg = Color::Red;
            '!'
        } else if attacker {
            bg = Color::Magenta;
            '+'
        } else if marked {
            '*'
        } else if last {
            bg = LAST_BG;
            '>'
        } else {
            ' '
        };
        let square = Style::new().bg(bg);
        // A marked dark square keeps its shade: the mark is in its corners.
        let (fill, fill_style) = if dark {
            (DARK_FILL, square.fg(DARK_DOTS))
        } else {
            (' ', square)
        };
        for y in r.y..r.y + r.height {
            for x in r.x..r.x + r.width {
                buf.set_string(x, y, fill.to_string(), fill_style);
            }
        }
        let mark_style = Style::new()
            .bg(bg)
            .fg(if flagged || attacker {
                Color::White
            } else {
                Color::Black
            })
            .add_modifier(Modifier::BOLD);
        // The mark in the corners where there is room, else before the piece.
        if mark != ' ' && r.height >= 2 {
            buf.set_string(r.x, r.y, mark.to_string(), mark_style);
            buf.set_string(r.x + r.width - 1, r.y, mark.to_string(), mark_style);
            buf.set_string(r.x, r.y + r.height - 1, mark.to_string(), mark_style);
            buf.set_string(
                r.x + r.width - 1,
                r.y + r.height - 1,
                mark.to_string(),
                mark_style,
            );
        }

        // The piece: its token on a chip of its colour.
        let (text, mut style) = match token {
            None => ("  ".to_string(), square),
            Some(Token::Up(card) | Token::Pair(card, _)) => (card.to_string(), card_style(card.colour)),
            Some(Token::Down) => (
                "##".to_string(),
                Style::new().fg(Color::Gray).bg(Color::DarkGray),
            ),
            Some(Token::Unreadable) => (
                "??".to_string(),
                Style::new().fg(Color::Black).bg(Color::Yellow),
            ),
        };
        if last && token.is_some() {
            style = style.add_modifier(Modifier::UNDERLINED);
        }
        // The cursor's brackets stand out on their own, so the chip keeps
        // the piece's colours (reversed, a white piece would look black).
        let cursor_style = Style::new()
            .fg(Color::Black)
            .bg(Color::Yellow)
            .add_modifier(Modifier::BOLD);
        if cursor && token.is_none() {
            style = cursor_style;
        }
        let mid = r.y + (r.height - 1) / 2;
        // (opening, closing) and their style; the chip sits between.
        let (ends, ends_style) = if cursor {
            (Some(('[', ']')), cursor_style)
        } else if mark != ' ' && (r.height == 1 || r.width <= 4) {
            // No room for the mark in the corners of this row: it flanks
            // the piece.
            (Some((mark, mark)), mark_style)
        } else if token.is_some() {
            (Some((' ', ' ')), style)
        } else {
            // An empty square keeps its shade.
            (None, style)
        };
        let Some((open, close)) = ends else { return };
        let x = if r.height == 1 {
            r.x
        } else {
            r.x + r.width.saturating_sub(4) / 2
        };
        // Padding only where it frames the chip; on a narrow square the
        // shade stays visible beside the piece.
        let pad = open == ' ' && r.width < 5;
        if !pad {
            buf.set_string(x, mid, open.to_string(), ends_style);
        }
        if token.is_some() || cursor {
            buf.set_string(x + 1, mid, &text, style);
        }
        if !pad && x + 3 < r.x + r.width && (cursor || mark == ' ' || r.height > 1) {
            buf.set_string(x + 3, mid, close.to_string(), ends_style);
        }
    }
}
