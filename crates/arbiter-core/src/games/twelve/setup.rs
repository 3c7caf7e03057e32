//! A Twelve setup: the options of the spec and an optional start position
//! with its state keys, as a table script writes them:
//!
//! ```toml
//! game = "twelve"
//! options = { area = "anchored", surround = 8, side_rule_on_moves = true,
//!             double_surround = "mover_loses" }
//!
//! [start]
//! to_move = "black"                   # default white
//! table = """..."""                   # both Kings, any other pieces
//! state = { queen_out = ["white"],    # Queens out of the game (TW-8.1)
//!           exchanged = ["black"],    # exchanges spent (TW-7.2)
//!           supply = { white = "R B", black = "Q N P" },
//!           anchored = { columns = [0, 3], rows = [-1, 2] } }
//! ```
//!
//! Every key is optional. A piece absent from the table is in its owner's
//! supply (or out of the game, for a Queen in `queen_out`); `supply`, when
//! given for a colour, must say exactly that. `anchored` (only under
//! `area = "anchored"`) fixes four columns or rows; without it a start box
//! already 4 wide (high) fixes its own columns (rows).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{Area, Options, Phase, Pos, SIDES, Spot, Twelve, side_of, title};
use crate::setup::{Part, SetupError, white_against_black};
use crate::table::{Cell, Colour, Piece, Token, parse_pieces};

/// A Twelve game's setup: players, options, an optional start.
pub type Setup = crate::setup::Setup<Options, StartState>;

/// What a start position cannot show (see the module's example).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StartState {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supply: Option<BTreeMap<Colour, String>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub queen_out: Vec<Colour>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exchanged: Vec<Colour>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anchored: Option<Anchored>,
}

/// Columns and rows fixed by an anchored area (TW-1.5).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Anchored {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub columns: Option<[i32; 2]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rows: Option<[i32; 2]>,
}

impl Twelve {
    /// The game a setup describes, once the rules allow it.
    pub fn from_setup(setup: &Setup) -> Result<Twelve, SetupError> {
        white_against_black(
            &setup.players,
            "Twelve is played by white and black, White first: players = [\"white\", \"black\"]",
        )?;
        let opts = setup.options;
        let Some(start) = &setup.start else {
            return Ok(Twelve::new(opts));
        };
        let err = |m: String| SetupError::new(Part::Start, m);
        let state_err = |m: String| SetupError::new(Part::State, m);
        let state = &start.state;

        let mut pos = Pos::default();
        for (cell, token) in start.table.iter() {
            let card = match token {
                Token::Up(card) => card,
                Token::Down => return Err(err(format!("## at {cell}: Twelve cards lie face up"))),
                Token::Pair(..) => {
                    return Err(err(format!(
                        "{token} at {cell}: a Twelve cell holds one card"
                    )));
                }
                Token::Unreadable => {
                    return Err(err(format!("?? at {cell}: a start position is known")));
                }
            };
            let side = side_of(card.colour).ok_or_else(|| {
                err(format!(
                    "{card} at {cell}: Twelve pieces are white or black"
                ))
            })?;
            if let Some(c) = pos.cell_of(side, card.piece) {
                return Err(err(format!(
                    "two cards of the {}, at {c} and {cell}: each colour has one of each piece (TW-1.1)",
                    title(card)
                )));
            }
            pos.set(side, card.piece, Spot::At(cell));
        }
        for (s, colour) in SIDES.iter().enumerate() {
            if pos.cell_of(s, Piece::King).is_none() {
                return Err(err(format!(
                    "the {} King is always in play (TW-1.1)",
                    colour.title()
                )));
            }
        }
        if let Some((lo, hi)) = pos.bbox() {
            let (w, h) = (hi.col - lo.col + 1, hi.row - lo.row + 1);
            if w > 4 || h > 4 {
                return Err(err(format!(
                    "the pieces span {w} columns and {h} rows; the area is at most 4x4 (TW-1.5)"
                )));
            }
        }
        for &name in &state.queen_out {
            let s = side_of(name)
                .ok_or_else(|| state_err(format!("queen_out names {name}: white or black")))?;
            if let Some(c) = pos.cell_of(s, Piece::Queen) {
                return Err(state_err(format!(
                    "queen_out: the {} Queen is on the table at {c}",
                    SIDES[s].title()
                )));
            }
            pos.set(s, Piece::Queen, Spot::Out);
        }
        let mut exchanged = [false; 2];
        for &name in &state.exchanged {
            let s = side_of(name)
                .ok_or_else(|| state_err(format!("exchanged names {name}: white or black")))?;
            exchanged[s] = true;
        }
        if let Some(supply) = &state.supply {
            for (&name, text) in supply {
                let s = side_of(name)
                    .ok_or_else(|| state_err(format!("supply names {name}: white or black")))?;
                let listed = supply_pieces(text, name)?;
                let actual = pos.supply(s);
                for p in &listed {
                    if !actual.contains(p) {
                        let at = match pos.spot(s, *p) {
                            Spot::At(c) => format!("is on the table at {c}"),
                            _ => "is out of the game (queen_out)".to_string(),
                        };
                        return Err(state_err(format!(
                            "supply of {name} lists the {} {}, which {at}",
                            SIDES[s].title(),
                            p.name()
                        )));
                    }
                }
                if let Some(p) = actual.iter().find(|p| !listed.contains(p)) {
                    return Err(state_err(format!(
                        "supply of {name} leaves out the {}, which is on no cell of the table",
                        p.name()
                    )));
                }
            }
        }

        let mut game = Twelve::oriented(opts, Cell::new(0, 1));
        game.pos = pos;
        game.exchanged = exchanged;
        game.phase = Phase::Turn;
        if let Some(c) = start.to_move {
            game.to_move =
                side_of(c).ok_or_else(|| err(format!("to_move is {c}: white or black")))?;
        }
        if let Some(a) = &state.anchored {
            if opts.area != Area::Anchored {
                return Err(state_err(
                    "anchored needs options = { area = \"anchored\" }".into(),
                ));
            }
            for (axis, range) in [(0, a.columns), (1, a.rows)] {
                let Some([lo, hi]) = range else {
                    continue;
                };
                let what = ["columns", "rows"][axis];
                if hi - lo != 3 {
                    return Err(state_err(format!(
                        "anchored {what} [{lo}, {hi}]: four of them, such as [{lo}, {}]",
                        lo + 3
                    )));
                }
                let (blo, bhi) = game
                    .area_limits(axis)
                    .map(|(used, _)| used)
                    .unwrap_or((lo, lo));
                if blo < lo || bhi > hi {
                    return Err(state_err(format!(
                        "anchored {what} [{lo}, {hi}] leave out pieces on {what} {blo}..{bhi}"
                    )));
                }
                game.anchor[axis] = Some(lo);
            }
        }
        if opts.area == Area::Anchored
            && let Some((lo, hi)) = game.pos.bbox()
        {
            if game.anchor[0].is_none() && hi.col - lo.col == 3 {
                game.anchor[0] = Some(lo.col);
            }
            if game.anchor[1].is_none() && hi.row - lo.row == 3 {
                game.anchor[1] = Some(lo.row);
            }
        }
        for (s, colour) in SIDES.iter().enumerate() {
            let king = game.pos.cell_of(s, Piece::King).expect("checked above");
            if game.surrounded(&game.pos, king) {
                return Err(err(format!(
                    "the {} King at {king} is surrounded: the game would be over (TW-9.1)",
                    colour.title()
                )));
            }
            if let Some(q) = game.pos.cell_of(s, Piece::Queen)
                && game.surrounded(&game.pos, q)
            {
                return Err(err(format!(
                    "the {} Queen at {q} is surrounded, so it is out of the game (TW-8.1): take it off and list it in state.queen_out",
                    colour.title()
                )));
            }
        }
        if !game.has_legal_action() {
            return Err(err(format!(
                "{} has no legal action (TW-3.2): a pass comes at the end of a turn, so start with the other player to move",
                SIDES[game.to_move].title()
            )));
        }
        Ok(game)
    }
}

/// A supply: pieces of one colour, each at most once, never the King.
fn supply_pieces(text: &str, colour: Colour) -> Result<Vec<Piece>, SetupError> {
    let bad = |m: String| SetupError::new(Part::State, format!("supply of {colour}: {m}"));
    let pieces = parse_pieces(text, colour).map_err(|e| bad(e.to_string()))?;
    let mut out = Vec::new();
    for p in pieces {
        if p == Piece::King {
            return Err(bad("the King is always in play, never in a supply".into()));
        }
        if out.contains(&p) {
            return Err(bad(format!("the {} is listed twice", p.name())));
        }
        out.push(p);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::script::{Script, ScriptError};

    fn script(text: &str) -> Result<Twelve, ScriptError> {
        let s = Script::parse("t.toml", &format!("game = \"twelve\"\n{text}"))?;
        s.build(|setup| match setup {
            crate::setup::GameSetup::Twelve(t) => Twelve::from_setup(t),
            _ => unreachable!("a Twelve script"),
        })
    }

    #[test]
    fn options_and_start_state_are_read_and_checked() {
        let g = script("options = { area = \"anchored\", surround = 8 }\n").unwrap();
        assert_eq!(g.opts.area, Area::Anchored);
        assert_eq!(g.opts.surround, super::super::Surround::Eight);
        assert!(g.fresh);
        let e = script("options = { surround = 6 }\n").unwrap_err();
        assert!(e.message.contains("surround is 4"), "{e}");
        assert_eq!(e.line, 2);
        let e = script("options = { colour = 1 }\n").unwrap_err();
        assert!(e.message.contains("colour"), "{e}");

        let g = script(
            "[start]\nto_move = \"black\"\ntable = \"\"\"\nwK wR\nbK ..\n\"\"\"\nstate = { queen_out = [\"white\"], exchanged = [\"black\"], supply = { white = \"B N P\" } }\n",
        )
        .unwrap();
        assert_eq!(g.to_move, 1);
        assert_eq!(g.pos.spot(0, Piece::Queen), Spot::Out);
        assert_eq!(g.pos.cell_of(0, Piece::Rook), Some(Cell::new(1, 0)));
        assert!(g.exchanged[1] && !g.exchanged[0]);
        let e =
            script("[start]\ntable = \"wK wR\\nbK ..\"\nstate = { supply = { white = \"R\" } }\n")
                .unwrap_err();
        assert!(e.message.contains("on the table"), "{e}");
        let e = script("[start]\ntable = \"wK wK\\nbK ..\"\n").unwrap_err();
        assert!(e.message.contains("two cards"), "{e}");
        let e = script("[start]\ntable = \"wK\"\n").unwrap_err();
        assert!(e.message.contains("Black King"), "{e}");
        let e = script("[start]\ntable = \"wK bK\"\nstate = { ready = 1 }\n").unwrap_err();
        assert!(e.message.contains("ready"), "{e}");
    }
}
