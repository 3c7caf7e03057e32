//! The chessboard: a fixed 8x8 board for games played on one (DoubleCross),
//! every square drawn, rank 8 at the top, ranks 8–1 on the left and files
//! a–h along the bottom, scaled to the space there is.
//!
//! Nothing here relies on colour alone: dark squares carry a shade (`░`),
//! pieces are their tokens (`wP`, `bK`: the colour is the first letter),
//! and every mark of [`super::board::BoardView`] keeps its symbol (`!`
//! flagged, `+` giving check, `*` the square a piece in hand came from, `>`
//! the last action, `[ ]` the cursor).
//!
//! Enochian Chess adds four armies (`u r b y`, each its own chip colour),
//! throne pairs (`uK+N`, or the partner on the row below on a narrow
//! square), thrones (the owner's letter on a tab of its colour in the
//! bottom-left corner), frozen pieces (a grey chip, the letters still in
//! their army's colour) and, on request, the two diagonal networks (Aries
//! on the light squares, Cancer on the dark: tinted, and `A`/`C` in the
//! bottom-right corner).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::widgets::{Paragraph, Widget, Wrap};

use super::board::{Marks, card_style};
use crate::table::{Card, Cell, Colour, Token};

/// What the chessboard shows besides the pieces: the card board's marks,
/// and Enochian's.
pub struct ChessboardView<'a> {
    pub marks: Marks<'a>,
    /// Throne squares and their army (Enochian).
    pub thrones: &'a [(Cell, Colour)],
    /// Squares whose pieces are frozen (Enochian).
    pub frozen: &'a [Cell],
    /// Tint the diagonal networks (Enochian, on request).
    pub networks: bool,
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
/// The networks shown: Aries (the light squares) pale sky, Cancer (the
/// dark ones) slate, far from both the board's browns and the chips.
const ARIES_BG: Color = Color::Indexed(152);
const CANCER_BG: Color = Color::Indexed(103);
const CANCER_DOTS: Color = Color::Indexed(60);
/// A frozen piece's chip: grey, whatever its army.
const FROZEN_BG: Color = Color::Indexed(248);

/// A piece's chip: the card's colours, each Enochian army its own (White
/// and Black as on any card board).
pub(super) fn chip_style(c: Colour) -> Style {
    let s = Style::new().add_modifier(Modifier::BOLD);
    match c {
        Colour::White | Colour::Black => card_style(c),
        Colour::Blue => s.fg(Color::Indexed(231)).bg(Color::Indexed(26)),
        Colour::Red => s.fg(Color::Indexed(231)).bg(Color::Indexed(160)),
        // An earth tone rather than a lemon: Yellow is the Earth army.
        Colour::Yellow => s.fg(Color::Indexed(16)).bg(Color::Indexed(178)),
    }
}

/// A frozen piece: a grey chip whose letters keep a dark shade of the
/// army's colour, so that whose piece it is still reads.
fn frozen_style(c: Colour) -> Style {
    let fg = match c {
        Colour::Blue => Color::Indexed(18),
        Colour::Red => Color::Indexed(88),
        Colour::Yellow => Color::Indexed(94),
        Colour::White => Color::Indexed(255),
        Colour::Black => Color::Indexed(16),
    };
    Style::new().fg(fg).bg(FROZEN_BG)
}

/// How a throne pair fits its square.
#[derive(Clone, Copy, PartialEq, Eq)]
enum PairFit {
    /// `uK+N` (or `uK+bB` with an ally's piece) on one row.
    Inline,
    /// The king on the middle row, the partner's token below it.
    Stacked,
    /// One row and no room: `uK+`.
    Marked,
}

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
    fn chip(&self, card: Card, frozen: bool) -> Style {
        if frozen {
            frozen_style(card.colour)
        } else {
            chip_style(card.colour)
        }
    }

    fn draw_square(&self, cell: Cell, r: Rect, buf: &mut Buffer) {
        // a8 (col 0, row 0) is a light square: Aries (EN-NET-1).
        let dark = (cell.col + cell.row) % 2 == 1;
        let token = self.marks.table.get(cell);
        let flagged = self.marks.flagged.contains(&cell);
        let attacker = self.marks.attackers.contains(&cell);
        let marked = self.marks.marked == Some(cell);
        let last = self.marks.last_action.contains(&cell);
        let cursor = self.marks.cursor == Some(cell);
        let frozen = self.frozen.contains(&cell);
        let throne = self
            .thrones
            .iter()
            .find(|(c, _)| *c == cell)
            .map(|&(_, army)| army);

        // The square itself.
        let (light_bg, dark_bg, dots) = if self.networks {
            (ARIES_BG, CANCER_BG, CANCER_DOTS)
        } else {
            (LIGHT_BG, DARK_BG, DARK_DOTS)
        };
        let mut bg = if dark { dark_bg } else { light_bg };
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
            (DARK_FILL, square.fg(dots))
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

        // The piece: its token on a chip of its colour; a throne pair, the
        // king and then its partner.
        let mut segments: Vec<(String, Style)> = match token {
            None => vec![("  ".to_string(), square)],
            Some(Token::Up(card) | Token::Pair(card, _)) => {
                vec![(card.to_string(), self.chip(card, frozen))]
            }
            Some(Token::Down) => vec![(
                "##".to_string(),
                Style::new().fg(Color::Gray).bg(Color::DarkGray),
            )],
            Some(Token::Unreadable) => vec![(
                "??".to_string(),
                Style::new().fg(Color::Black).bg(Color::Yellow),
            )],
        };
        let partner = match token {
            Some(Token::Pair(king, p)) => Some((king, p)),
            _ => None,
        };
        // The partner of the king's own army is its letter; an ally's piece
        // keeps its whole token.
        let partner_text = partner.map(|(king, p)| {
            if p.colour == king.colour {
                format!("+{}", p.piece.letter())
            } else {
                format!("+{p}")
            }
        });
        let fit = partner_text.as_ref().map(|t| {
            if 2 + t.chars().count() + 2 <= r.width as usize {
                PairFit::Inline
            } else if r.height >= 2 {
                PairFit::Stacked
            } else {
                PairFit::Marked
            }
        });
        if let (Some(PairFit::Inline), Some((_, p)), Some(t)) = (fit, partner, &partner_text) {
            segments.push((t.clone(), self.chip(p, frozen)));
        }
        if last && token.is_some() {
            for (_, st) in &mut segments {
                *st = st.add_modifier(Modifier::UNDERLINED);
            }
        }
        // The cursor's brackets stand out on their own, so the chip keeps
        // the piece's colours (reversed, a white piece would look black).
        let cursor_style = Style::new()
            .fg(Color::Black)
            .bg(Color::Yellow)
            .add_modifier(Modifier::BOLD);
        if cursor && token.is_none() {
            segments[0].1 = cursor_style;
        }
        let text_w: u16 = segments.iter().map(|(t, _)| t.chars().count() as u16).sum();
        let mid = r.y + (r.height - 1) / 2;

        // The bottom corners, free on a square two rows high or more: the
        // throne's tab on the left, the network's letter on the right. A
        // pair needs no tab (only thrones hold one), and a stacked pair
        // needs the row.
        if r.height >= 2 && mark == ' ' && fit != Some(PairFit::Stacked) {
            let bottom = r.y + r.height - 1;
            if let Some(army) = throne.filter(|_| partner.is_none()) {
                buf.set_string(r.x, bottom, army.letter().to_string(), chip_style(army));
            }
        }
        // The network's letter on every square, the marked ones too: one
        // in from the bottom-right corner (a corner may hold a mark), with
        // a blank either side, so it stands apart from the dotted fill and
        // from the next square's letter.
        if self.networks && r.height >= 2 && r.width >= 4 && fit != Some(PairFit::Stacked) {
            let bottom = r.y + r.height - 1;
            let x = r.x + r.width - 2;
            let letter = if dark { "C" } else { "A" };
            let plain = Style::new().bg(bg);
            buf.set_string(x - 1, bottom, " ", plain);
            let ink = plain.fg(Color::Indexed(16)).add_modifier(Modifier::BOLD);
            buf.set_string(x, bottom, letter, ink);
            if mark == ' ' {
                buf.set_string(x + 1, bottom, " ", plain);
            }
        }

        // (opening, closing) and their style; the chip sits between.
        let chip_style0 = segments[0].1;
        let (ends, ends_style) = if cursor {
            (Some(('[', ']')), cursor_style)
        } else if mark != ' ' && (r.height == 1 || r.width <= 4) {
            // No room for the mark in the corners of this row: it flanks
            // the piece.
            (Some((mark, mark)), mark_style)
        } else if token.is_some() {
            (Some((' ', ' ')), chip_style0)
        } else {
            // An empty square keeps its shade.
            (None, chip_style0)
        };
        let Some((open, close)) = ends else { return };
        let x = if r.height == 1 {
            r.x
        } else {
            r.x + r.width.saturating_sub(text_w + 2) / 2
        };
        // Padding only where it frames the chip; on a narrow square the
        // shade stays visible beside the piece.
        let pad = open == ' ' && r.width < 5;
        if !pad {
            buf.set_string(x, mid, open.to_string(), ends_style);
        }
        if token.is_some() || cursor {
            let mut at = x + 1;
            for (t, st) in &segments {
                buf.set_string(at, mid, t, *st);
                at += t.chars().count() as u16;
            }
        }
        let end = x + 1 + text_w;
        let closing_room = end < r.x + r.width;
        if fit == Some(PairFit::Marked) && closing_room && !cursor && mark == ' ' {
            // One row: the partner is only a `+` after the king.
            buf.set_string(end, mid, "+", chip_style0);
        } else if !pad && closing_room && (cursor || mark == ' ' || r.height > 1) {
            // The padding after a pair takes the partner's colours, so the
            // chip reads as one.
            let st = if open == ' ' {
                segments.last().map_or(ends_style, |(_, st)| *st)
            } else {
                ends_style
            };
            buf.set_string(end, mid, close.to_string(), st);
        }
        // A stacked pair: the partner's token on the row below the king.
        if let (Some(PairFit::Stacked), Some((_, p))) = (fit, partner) {
            let mut st = self.chip(p, frozen);
            if last {
                st = st.add_modifier(Modifier::UNDERLINED);
            }
            let px = r.x + r.width.saturating_sub(4) / 2;
            if r.width >= 5 {
                buf.set_string(px, mid + 1, " ", st);
                buf.set_string(px + 3, mid + 1, " ", st);
            }
            buf.set_string(px + 1, mid + 1, p.to_string(), st);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::Table;

    fn parse(grid: &str) -> Table {
        Table::parse_grid(grid, Cell::default()).unwrap()
    }

    fn sq(square: &str) -> Cell {
        let b = square.as_bytes();
        Cell::new(i32::from(b[0] - b'a'), 8 - i32::from(b[1] - b'0'))
    }

    const EMPTY: &str = ".. .. .. .. .. .. .. ..";

    /// The board drawn in a `w`x`h` area, as text rows.
    fn draw(view: ChessboardView, w: u16, h: u16) -> (Vec<String>, Buffer) {
        let area = Rect::new(0, 0, w, h);
        let mut buf = Buffer::empty(area);
        view.render(area, &mut buf);
        let rows = (0..h)
            .map(|y| (0..w).map(|x| buf[(x, y)].symbol().to_string()).collect())
            .collect();
        (rows, buf)
    }

    fn view<'a>(
        table: &'a Table,
        thrones: &'a [(Cell, Colour)],
        frozen: &'a [Cell],
        networks: bool,
    ) -> ChessboardView<'a> {
        ChessboardView {
            marks: Marks {
                table,
                flagged: &[],
                last_action: &[],
                attackers: &[],
                cursor: None,
                marked: None,
            },
            thrones,
            frozen,
            networks,
        }
    }

    fn enochian_table() -> Table {
        let mut t = parse(&[EMPTY; 8].join("\n"));
        let uk = Card::new(Colour::Blue, crate::table::Piece::King);
        let un = Card::new(Colour::Blue, crate::table::Piece::Knight);
        let bb = Card::new(Colour::Black, crate::table::Piece::Bishop);
        let rk = Card::new(Colour::Red, crate::table::Piece::King);
        t.set(sq("e1"), Some(Token::pair(uk, un)));
        t.set(sq("d8"), Some(Token::pair(bb, uk)));
        t.set(sq("h5"), Some(Token::Up(rk)));
        t
    }

    #[test]
    fn a_wide_square_shows_both_cards_of_a_pair_on_one_row() {
        let t = enochian_table();
        let thrones = [(sq("h5"), Colour::Red), (sq("e1"), Colour::Blue)];
        let (rows, _) = draw(view(&t, &thrones, &[], false), 83, 41);
        let all = rows.join("\n");
        assert!(all.contains("uK+N"), "{all}");
        // An ally's piece keeps its colour letter.
        assert!(all.contains("uK+bB"), "{all}");
        // The lone king's throne carries its army's tab; the pair needs none.
        let h5_bottom = &rows[3 * 5 + 4];
        assert!(h5_bottom.contains('r'), "{h5_bottom:?}");
    }

    #[test]
    fn a_narrow_square_stacks_the_partner_under_the_king() {
        let t = enochian_table();
        // 80x24's board: squares 4x2.
        let (rows, _) = draw(view(&t, &[], &[], false), 38, 21);
        let e1 = rows.iter().position(|r| r.starts_with("  1")).unwrap();
        assert!(rows[e1].contains("uK"), "{rows:#?}");
        assert!(rows[e1 + 1].contains("uN"), "{rows:#?}");
        // One row only: a `+` after the king.
        let (rows, _) = draw(view(&t, &[], &[], false), 35, 9);
        assert!(rows.join("\n").contains("uK+"), "{rows:#?}");
    }

    #[test]
    fn frozen_pieces_are_grey_and_still_read() {
        let t = enochian_table();
        let (rows, buf) = draw(view(&t, &[], &[sq("h5")], false), 83, 41);
        let y = 3 * 5 + 2;
        let x = rows[y].find("rK").expect("the token reads");
        let x = rows[y][..x].chars().count() as u16;
        assert_eq!(buf[(x, y as u16)].bg, FROZEN_BG);
    }

    #[test]
    fn the_networks_letter_and_tint_every_square() {
        let t = enochian_table();
        // h5 flagged: its letter shows too, beside the mark.
        let flagged = [sq("h5")];
        let mut v = view(&t, &[], &[], true);
        v.marks.flagged = &flagged;
        let (rows, buf) = draw(v, 83, 41);
        assert_eq!(buf[(3, 0)].bg, ARIES_BG);
        assert_eq!(buf[(13, 0)].bg, CANCER_BG);
        // Each square's bottom row: its letter one in from the right
        // corner, a blank before it, never touching the fill or the next
        // square's letter. a8 is light (Aries), b8 dark (Cancer).
        for rank in 0..8 {
            let row: Vec<char> = rows[rank * 5 + 4].chars().collect();
            for file in 0..8 {
                let x = 3 + file * 10 + 8;
                let want = if (file + rank) % 2 == 0 { 'A' } else { 'C' };
                assert_eq!(
                    row[x],
                    want,
                    "rank {} file {file}: {:?}",
                    8 - rank,
                    rows[rank * 5 + 4]
                );
                assert_eq!(row[x - 1], ' ', "rank {} file {file}", 8 - rank);
                assert!(
                    matches!(row[x + 1], ' ' | '!'),
                    "rank {} file {file}",
                    8 - rank
                );
            }
        }
    }
}
