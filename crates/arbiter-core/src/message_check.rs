//! The soak's message check: a flag's words must point at the cards they
//! name. "Turn the queen on (2,0) face-down" is worse than no flag when the
//! queen is not on (2,0): the players turn the wrong card over.
//!
//! Every piece a message places on a cell or square ("the black queen on
//! (1,1)", "the rook on e4") must be there, face up (alone or sharing a
//! throne), in the table the flag was raised on or in the table the
//! referee expected before it: a message tells what was and what is.
//! Destinations of a mend ("put the bishop on e4") are not yet true and
//! are not checked.
//!
//! The referee runs the check on every flag it raises in a build with the
//! `testkit` feature (the tests, the soak) and keeps what fails, per
//! thread, for [`take_misdirected`].

use std::cell::RefCell;

use crate::event::Flag;
use crate::table::{Cell, Colour, Piece, Table, Token};

thread_local! {
    static MISDIRECTED: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

/// Notes a message that points at the wrong card.
pub(crate) fn record(why: String) {
    MISDIRECTED.with(|m| m.borrow_mut().push(why));
}

/// The messages that pointed at a wrong card since the last call, on this
/// thread.
pub fn take_misdirected() -> Vec<String> {
    MISDIRECTED.with(|m| std::mem::take(&mut *m.borrow_mut()))
}

/// A piece a message says stands somewhere.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mention {
    pub colour: Option<Colour>,
    pub piece: Piece,
    pub cell: Cell,
}

/// The pieces `message` places on cells, except mends' destinations.
pub fn mentions(message: &str) -> Vec<Mention> {
    let words: Vec<String> = message
        .split_whitespace()
        .map(|w| w.to_lowercase())
        .collect();
    let mut out = Vec::new();
    for i in 0..words.len() {
        let Some(piece) = piece_named(&words[i]) else {
            continue;
        };
        if words.get(i + 1).map(String::as_str) != Some("on") {
            continue;
        }
        let Some(cell) = words.get(i + 2).and_then(|w| place(w)) else {
            continue;
        };
        // "put the red bishop on e4": where it is to go, not where it is.
        if words[i.saturating_sub(4)..i].iter().any(|w| w == "put") {
            continue;
        }
        let colour = i
            .checked_sub(1)
            .and_then(|j| Colour::from_name(words[j].trim_end_matches("'s")));
        out.push(Mention {
            colour,
            piece,
            cell,
        });
    }
    out
}

/// Whether every piece `flag`'s message places on a cell is there, face
/// up, in `now` (the table it was raised on, in the board's frame) or
/// `before` (the table expected before it). `Err` says which is not.
pub fn check(flag: &Flag, now: &Table, before: &Table) -> Result<(), String> {
    for m in mentions(&flag.message) {
        let holds = |t: &Table| match t.get(m.cell) {
            Some(Token::Up(c)) => matches(m.colour, m.piece, c.colour, c.piece),
            Some(Token::Pair(a, b)) => {
                matches(m.colour, m.piece, a.colour, a.piece)
                    || matches(m.colour, m.piece, b.colour, b.piece)
            }
            _ => false,
        };
        if !holds(now) && !holds(before) {
            return Err(format!(
                "{:?} \"{}\" names a {}{} on {}, which holds {:?} (before: {:?})",
                flag.kind,
                flag.message,
                m.colour
                    .map(|c| format!("{} ", c.name()))
                    .unwrap_or_default(),
                m.piece.name(),
                m.cell,
                now.get(m.cell),
                before.get(m.cell)
            ));
        }
    }
    Ok(())
}

fn matches(want_colour: Option<Colour>, want: Piece, colour: Colour, piece: Piece) -> bool {
    piece == want && want_colour.is_none_or(|c| c == colour)
}

fn piece_named(word: &str) -> Option<Piece> {
    Piece::ALL.into_iter().find(|p| p.name() == word)
}

/// A cell as messages write it: `(2,-1)` or an 8x8 square such as `e4`.
fn place(word: &str) -> Option<Cell> {
    let w = word.trim_end_matches([',', ';', '.', ':', '!']);
    if let Some(inner) = w.strip_prefix('(').and_then(|s| s.strip_suffix(')')) {
        let (c, r) = inner.split_once(',')?;
        return Some(Cell::new(c.trim().parse().ok()?, r.trim().parse().ok()?));
    }
    match w.as_bytes() {
        [f @ b'a'..=b'h', r @ b'1'..=b'8'] => {
            Some(Cell::new(i32::from(f - b'a'), 8 - i32::from(r - b'0')))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::FlagKind;
    use crate::table::Card;

    fn flag(message: &str) -> Flag {
        Flag {
            kind: FlagKind::MissedFlip,
            cells: vec![],
            rule: "EP-MISSED-FLIP".into(),
            message: message.into(),
            player: None,
            squares: vec![],
        }
    }

    #[test]
    fn mentions_read_cells_squares_and_colours_but_not_destinations() {
        let m = mentions(
            "Missed FLIP: the white bishop took the black queen on (1,1); turn the queen on (2,0) face-down",
        );
        assert_eq!(
            m,
            vec![
                Mention {
                    colour: Some(Colour::Black),
                    piece: Piece::Queen,
                    cell: Cell::new(1, 1)
                },
                Mention {
                    colour: None,
                    piece: Piece::Queen,
                    cell: Cell::new(2, 0)
                },
            ]
        );
        assert_eq!(
            mentions("Red's bishop on e4 cannot go to e6")[0].cell,
            Cell::new(4, 4)
        );
        assert!(mentions("Return Any Piece: put the white rook on a1 (DC-9.3)").is_empty());
    }

    #[test]
    fn a_message_naming_a_card_where_it_is_not_fails_the_check() {
        let mut now = Table::default();
        now.set(
            Cell::new(2, 0),
            Some(Token::Up(Card::new(Colour::Black, Piece::Queen))),
        );
        now.set(
            Cell::new(1, 1),
            Some(Token::Up(Card::new(Colour::White, Piece::Bishop))),
        );
        let mut before = Table::default();
        before.set(
            Cell::new(1, 1),
            Some(Token::Up(Card::new(Colour::Black, Piece::Queen))),
        );
        before.set(
            Cell::new(2, 0),
            Some(Token::Up(Card::new(Colour::White, Piece::Bishop))),
        );
        let right = flag(
            "Missed FLIP: the white bishop took the black queen on (1,1); turn the queen on (2,0) face-down",
        );
        assert!(check(&right, &now, &before).is_ok());
        let wrong = flag("Missed FLIP: turn the queen on (0,0) face-down");
        assert!(check(&wrong, &now, &before).is_err());
        let wrong_colour = flag("Missed FLIP: turn the white queen on (2,0) face-down");
        assert!(check(&wrong_colour, &now, &before).is_err());
    }
}
