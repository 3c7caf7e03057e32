//! A DoubleCross setup: the options of the spec and an optional start
//! position with its state keys, as a table script writes them:
//!
//! ```toml
//! [start]
//! to_move = "black"                 # the player to draw next
//! table = """..."""                 # 8 rows, rank 8 first
//! state = { castling = "Kq", en_passant = "e3", removed = ["bR"],
//!           drawn = ["wP", "bN"], save_king = "white", switched = false }
//! ```
//!
//! Every key is optional: castling rights default to those whose King and
//! Rook stand on their squares, the removed pool to the standard pieces
//! missing from the board, `drawn` (cards out of the draw pile) to none.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::chess::{Position, Side, parse_square, square_of};
use super::deck::{DcCard, JoustMode, standard_counts};
use super::{DoubleCross, Options, card_of, clear_lost_rights};
use crate::setup::{Part, SetupError, white_against_black};
use crate::table::{Card, Colour, Piece, Token};

/// A DoubleCross game's setup: players, options, an optional start.
pub type Setup = crate::setup::Setup<SetupOptions, StartState>;

/// The house rules as written; [`DoubleCross::from_setup`] checks the deck.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SetupOptions {
    /// Piece cards and how many of each (`{ wP = 8, ... }`); by default the
    /// 32 of a chess set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deck: Option<BTreeMap<String, u32>>,
    #[serde(default)]
    pub joust: JoustMode,
    #[serde(default)]
    pub delayed_promotion: bool,
    #[serde(default)]
    pub free_self_removal: bool,
    #[serde(default)]
    pub announce_checks: bool,
}

impl From<&Options> for SetupOptions {
    /// The options as a setup writes them (the deck only when it is not the
    /// standard one).
    fn from(o: &Options) -> SetupOptions {
        let deck = (o.deck != standard_counts())
            .then(|| o.deck.iter().map(|(c, &n)| (c.to_string(), n)).collect());
        SetupOptions {
            deck,
            joust: o.joust,
            delayed_promotion: o.delayed_promotion,
            free_self_removal: o.free_self_removal,
            announce_checks: o.announce_checks,
        }
    }
}

/// What a start position cannot show (see the module's example).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StartState {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub castling: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub en_passant: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub removed: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub drawn: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub save_king: Option<Colour>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub switched: bool,
}

impl DoubleCross {
    /// The game a setup describes, once the rules allow it.
    pub fn from_setup(setup: &Setup) -> Result<DoubleCross, SetupError> {
        white_against_black(
            &setup.players,
            "DoubleCross is played by white and black: players = [\"white\", \"black\"]",
        )?;
        let opts = options(&setup.options)?;
        let mut game = DoubleCross::new(opts);
        if let Some(start) = &setup.start {
            let err = |m: String| SetupError::new(Part::Start, m);
            let state_err = |m: String| SetupError::new(Part::State, m);
            let state = &start.state;
            let mut pos = Position::empty();
            for (cell, token) in start.table.iter() {
                let sq =
                    square_of(cell).ok_or_else(|| err(format!("{cell} lies off the 8x8 board")))?;
                match token {
                    Token::Up(card) => {
                        let side = Side::from_colour(card.colour).ok_or_else(|| {
                            err(format!(
                                "{card} at {cell}: DoubleCross pieces are white or black"
                            ))
                        })?;
                        pos.set(sq, Some((side, card.piece)));
                    }
                    Token::Down => {
                        return Err(err(format!(
                            "## at {cell}: DoubleCross pieces stand face up"
                        )));
                    }
                    Token::Pair(..) => {
                        return Err(err(format!(
                            "{token} at {cell}: a DoubleCross square holds one piece"
                        )));
                    }
                    Token::Unreadable => {
                        return Err(err(format!("?? at {cell}: a start position is known")));
                    }
                }
            }
            for side in [Side::White, Side::Black] {
                if pos.pieces(side, Piece::King).count_ones() > 1 {
                    return Err(err(format!("{} has two Kings", side.colour().title())));
                }
            }
            pos.castling = match &state.castling {
                None => 0b1111,
                Some(text) => parse_castling(text).ok_or_else(|| {
                    state_err(format!("castling {text:?}: write KQkq, a subset, or -"))
                })?,
            };
            clear_lost_rights(&mut pos);
            if let Some(text) = &state.en_passant {
                let sq = parse_square(text)
                    .filter(|sq| matches!(sq / 8, 2 | 5))
                    .ok_or_else(|| {
                        state_err(format!(
                            "en_passant {text:?}: the square passed over, on rank 3 or 6"
                        ))
                    })?;
                pos.ep = Some(sq);
            }
            game.removed = match &state.removed {
                Some(list) => list
                    .iter()
                    .map(|t| {
                        piece_card(t)
                            .ok_or_else(|| state_err(format!("removed: {t:?} is no piece card")))
                    })
                    .collect::<Result<_, _>>()?,
                None => missing_pieces(&pos),
            };
            for t in &state.drawn {
                let card = DcCard::parse(t).map_err(|e| state_err(format!("drawn: {e}")))?;
                if !game.deck.remove_for_start(card) {
                    return Err(state_err(format!("drawn: no {card} is left in the deck")));
                }
            }
            if let Some(name) = state.save_king {
                let i = player_index(name.name())
                    .ok_or_else(|| state_err(format!("save_king names {name}: white or black")))?;
                if !game.deck.take(DcCard::Joust(super::deck::Joust::SaveKing)) {
                    return Err(state_err(
                        "save_king: Save King is not in the deck (options.joust)".into(),
                    ));
                }
                game.deck.hold_save_king(i);
            }
            if state.switched {
                game.sides = [Side::Black, Side::White];
            }
            if let Some(c) = start.to_move {
                game.to_move = player_index(c.name())
                    .ok_or_else(|| err(format!("to_move is {c}: white or black")))?;
            }
            // PGN numbers turns by player: the FEN's side to move is the
            // player to draw first (White player: "w").
            pos.turn = if game.to_move == 0 {
                Side::White
            } else {
                Side::Black
            };
            game.start_fen = Some(pos.fen());
            game.pos = pos;
        }
        Ok(game)
    }
}

fn options(raw: &SetupOptions) -> Result<Options, SetupError> {
    let deck = match &raw.deck {
        None => standard_counts(),
        Some(map) => {
            let mut counts = BTreeMap::new();
            for (name, &n) in map {
                let card = piece_card(name).ok_or_else(|| {
                    SetupError::options(format!(
                        "deck: {name:?} is no piece card (w or b, then K Q R B N P)"
                    ))
                })?;
                counts.insert(card, n);
            }
            if counts.values().sum::<u32>() == 0 {
                return Err(SetupError::options("deck: the deck holds no card"));
            }
            counts
        }
    };
    Ok(Options {
        deck,
        joust: raw.joust,
        delayed_promotion: raw.delayed_promotion,
        free_self_removal: raw.free_self_removal,
        announce_checks: raw.announce_checks,
    })
}

fn piece_card(text: &str) -> Option<Card> {
    match DcCard::parse(text) {
        Ok(DcCard::Piece(c)) => Some(c),
        _ => None,
    }
}

fn player_index(name: &str) -> Option<usize> {
    ["white", "black"].iter().position(|&p| p == name)
}

fn parse_castling(text: &str) -> Option<u8> {
    use super::chess::{BLACK_KINGSIDE, BLACK_QUEENSIDE, WHITE_KINGSIDE, WHITE_QUEENSIDE};
    if text == "-" {
        return Some(0);
    }
    let mut bits = 0;
    for c in text.chars() {
        bits |= match c {
            'K' => WHITE_KINGSIDE,
            'Q' => WHITE_QUEENSIDE,
            'k' => BLACK_KINGSIDE,
            'q' => BLACK_QUEENSIDE,
            _ => return None,
        };
    }
    Some(bits)
}

/// The standard pieces not on the board: a start without a pool says they
/// were captured (`spec/table-script.md`).
fn missing_pieces(pos: &Position) -> Vec<Card> {
    let mut out = Vec::new();
    for (card, n) in standard_counts() {
        let on = (0..64u8)
            .filter(|&sq| pos.piece_at(sq).map(card_of) == Some(card))
            .count() as u32;
        for _ in on..n {
            out.push(card);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::Colour;

    use crate::script::{Script, ScriptError};

    fn script(text: &str) -> Result<DoubleCross, ScriptError> {
        let s = Script::parse("t.toml", &format!("game = \"doublecross\"\n{text}"))?;
        s.build(|setup| match setup {
            crate::setup::GameSetup::DoubleCross(d) => DoubleCross::from_setup(d),
            _ => unreachable!("a DoubleCross script"),
        })
    }

    #[test]
    fn options_and_start_state_are_read_and_checked() {
        let g = script(
            "options = { joust = \"once\", delayed_promotion = true, deck = { wP = 2, bK = 1 } }\n",
        )
        .unwrap();
        assert_eq!(g.opts.joust, JoustMode::Once);
        assert!(g.opts.delayed_promotion);
        assert_eq!(g.deck.pile_len(), 3 + 7);
        let e = script("options = { joust = \"twice\" }\n").unwrap_err();
        assert!(e.message.contains("options"), "{e}");
        let e = script("options = { deck = { xP = 2 } }\n").unwrap_err();
        assert!(e.message.contains("xP"), "{e}");
        let e = script("options = { colour = 1 }\n").unwrap_err();
        assert!(e.message.contains("colour"), "{e}");

        let g = script(
            "[start]\nto_move = \"black\"\ntable = \"\"\"\nbK .. .. .. .. .. .. ..\n.. .. .. .. .. .. .. ..\n.. .. .. .. .. .. .. ..\n.. .. .. .. .. .. .. ..\n.. .. .. .. .. .. .. ..\n.. .. .. .. .. .. .. ..\n.. .. .. .. .. .. .. ..\n.. .. .. .. wK .. .. wR\n\"\"\"\nstate = { removed = [\"bQ\"] }\n",
        )
        .unwrap();
        assert_eq!(g.to_move, 1);
        assert_eq!(g.removed, vec![Card::new(Colour::Black, Piece::Queen)]);
        assert_eq!(g.pos.castling, super::super::chess::WHITE_KINGSIDE);
        let e = script("[start]\ntable = \"\"\"\nwK wK\n\"\"\"\n").unwrap_err();
        assert!(e.message.contains("two Kings"), "{e}");
        let e = script("[start]\ntable = \"wK\"\nstate = { en_passant = \"e4\" }\n").unwrap_err();
        assert!(e.message.contains("en_passant"), "{e}");
    }
}
