//! An En Prise setup: players (EP-PLAYERS), Battleplans (EP-DECK,
//! EP-BATTLEPLAN), house-rule options, and an optional start position.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{EnPrise, Options, Sq};
use crate::setup::{Part, SetupError, Start};
use crate::table::{BadPiece, Card, Colour, Piece, Token, parse_pieces};

pub const BATTLEPLAN_LEN: usize = 15;

/// The 15 cards besides the king: Q, 2 R, 2 B, 2 N, 8 P (EP-DECK).
const COUNTS: [(Piece, usize); 5] = [
    (Piece::Queen, 1),
    (Piece::Rook, 2),
    (Piece::Bishop, 2),
    (Piece::Knight, 2),
    (Piece::Pawn, 8),
];

/// An En Prise game's setup, as a script or the command line gives it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Setup {
    /// The players in turn order; by default those with a Battleplan, in
    /// the order white, black, red, blue.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub players: Option<Vec<Colour>>,
    /// Each player's Battleplan as written (`"N P P B Q R P P N P B P R P P"`).
    #[serde(
        default,
        rename = "battleplan",
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    pub battleplans: BTreeMap<Colour, String>,
    #[serde(default)]
    pub options: Options,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<Start<StartState>>,
}

/// What a start position cannot show: how far each player is through the
/// Battleplan, and who is out.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StartState {
    /// How many Battleplan cards each player has already played.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub played: BTreeMap<Colour, usize>,
    /// Players already checkmated out of the game.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub eliminated: Vec<Colour>,
}

/// A Battleplan dealt at random (EP-BATTLEPLAN: a player may shuffle).
pub fn random_battleplan(rng: &mut impl rand::Rng) -> Vec<Piece> {
    use rand::seq::SliceRandom;
    let mut plan: Vec<Piece> = COUNTS
        .iter()
        .flat_map(|&(piece, n)| std::iter::repeat_n(piece, n))
        .collect();
    plan.shuffle(rng);
    plan
}

/// Why a Battleplan is not one.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BattleplanError {
    #[error("bad card {:?}: write the piece letters K Q R B N P, such as \"N P P B ...\"", .0.0)]
    BadCard(#[from] BadPiece),
    #[error("the king is set aside, not part of the Battleplan (EP-BATTLEPLAN)")]
    King,
    #[error("a Battleplan has {BATTLEPLAN_LEN} cards, this one has {0} (EP-BATTLEPLAN)")]
    Length(usize),
    #[error(
        "a Battleplan holds {want} {}{}, this one has {have} (EP-DECK: Q, 2 R, 2 B, 2 N, 8 P)",
        piece.name(),
        if *want == 1 { "" } else { "s" }
    )]
    Count {
        piece: Piece,
        want: usize,
        have: usize,
    },
}

/// Parses a Battleplan such as `"N P P B Q R P P N P B P R P P"` (letters or
/// colour-prefixed tokens) and checks the card counts.
pub fn parse_battleplan(text: &str, colour: Colour) -> Result<Vec<Piece>, BattleplanError> {
    let plan = parse_pieces(text, colour)?;
    if plan.contains(&Piece::King) {
        return Err(BattleplanError::King);
    }
    if plan.len() != BATTLEPLAN_LEN {
        return Err(BattleplanError::Length(plan.len()));
    }
    for (piece, want) in COUNTS {
        let have = plan.iter().filter(|&&p| p == piece).count();
        if have != want {
            return Err(BattleplanError::Count { piece, want, have });
        }
    }
    Ok(plan)
}

impl EnPrise {
    /// The game a setup describes, once the rules allow it.
    pub fn from_setup(setup: &Setup) -> Result<EnPrise, SetupError> {
        let players: Vec<Colour> = match &setup.players {
            Some(p) => p.clone(),
            None => Colour::ALL
                .into_iter()
                .filter(|c| setup.battleplans.contains_key(c))
                .collect(),
        };
        if !(2..=4).contains(&players.len()) {
            return Err(SetupError::players(format!(
                "En Prise is for 2 to 4 players, this script has {} (EP-PLAYERS)",
                players.len()
            )));
        }
        if let Some(c) = players.iter().find(|&&c| c == Colour::Yellow) {
            return Err(SetupError::players(format!(
                "En Prise colours are white, black, red and blue, not {c} (EP-PLAYERS)"
            )));
        }
        let mut plans = Vec::new();
        for &c in &players {
            let Some(text) = setup.battleplans.get(&c) else {
                return Err(SetupError::players(format!(
                    "[battleplan] has no line for {c}"
                )));
            };
            plans.push(parse_battleplan(text, c).map_err(|e| {
                SetupError::new(Part::Battleplan(c), format!("{c}'s Battleplan: {e}"))
            })?);
        }
        if let Some(c) = setup.battleplans.keys().find(|c| !players.contains(c)) {
            return Err(SetupError::new(
                Part::Battleplan(*c),
                format!("[battleplan] names {c}, who is not playing"),
            ));
        }

        let mut game = EnPrise::new(&players, plans, setup.options.clone());
        if let Some(start) = &setup.start {
            let state = &start.state;
            let err = |m: String| SetupError::new(Part::Start, m);
            let state_err = |m: String| SetupError::new(Part::State, m);
            for &c in &state.eliminated {
                let i = game.index_of(c).ok_or_else(|| {
                    state_err(format!("eliminated names {c}, who is not playing"))
                })?;
                game.out[i] = true;
            }
            for (&c, &n) in &state.played {
                let i = game
                    .index_of(c)
                    .ok_or_else(|| state_err(format!("played names {c}, who is not playing")))?;
                if n > BATTLEPLAN_LEN {
                    return Err(state_err(format!(
                        "{c} cannot have played {n} of {BATTLEPLAN_LEN} cards"
                    )));
                }
                game.next[i] = n;
            }
            for (cell, token) in start.table.iter() {
                let sq = match token {
                    Token::Down => Sq::Vacant,
                    Token::Up(card) => {
                        let i = game
                            .index_of(card.colour)
                            .filter(|&i| !game.out[i])
                            .ok_or_else(|| {
                                err(format!(
                                    "the {} at {cell} belongs to no player in the game",
                                    card.describe()
                                ))
                            })?;
                        if card.piece == Piece::King {
                            if game.king[i].is_some() {
                                return Err(err(format!("{} has two kings", card.colour)));
                            }
                            game.king[i] = Some(cell);
                        }
                        Sq::Piece(Card::new(card.colour, card.piece))
                    }
                    Token::Unreadable => {
                        return Err(err(format!("?? at {cell}: a start position is known")));
                    }
                    Token::Pair(..) => {
                        return Err(err(format!("{token} at {cell}: a square is one card")));
                    }
                };
                game.set(cell, sq);
            }
            if let Some(c) = start.to_move {
                game.turn = game
                    .index_of(c)
                    .filter(|&i| !game.out[i])
                    .ok_or_else(|| err(format!("to_move is {c}, who is not playing")))?;
            } else if game.out[0] {
                let first = game.active().next();
                game.turn = first.ok_or_else(|| err("everyone is eliminated".into()))?;
            }
            // EP-KING-ANSWER: once any king stands, the others must follow.
            if game.king.iter().any(Option::is_some) {
                for i in 0..players.len() {
                    game.must_summon[i] = !game.out[i] && game.king[i].is_none();
                }
            }
            for (i, &colour) in players.iter().enumerate() {
                if let Some(k) = game.king[i] {
                    game.checked[i] = super::moves::attackers(&game.board, k, colour, &game.opts);
                }
            }
        }
        Ok(game)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn battleplans_are_checked_for_length_and_counts() {
        let ok = parse_battleplan("N P P B Q R P P N P B P R P P", Colour::White).unwrap();
        assert_eq!(ok.len(), 15);
        assert_eq!(ok[0], Piece::Knight);
        assert!(
            parse_battleplan(
                "wN wP wP wB wQ wR wP wP wN wP wB wP wR wP wP",
                Colour::White
            )
            .is_ok()
        );
        assert!(parse_battleplan("bN P P B Q R P P N P B P R P P", Colour::White).is_err());
        assert_eq!(
            parse_battleplan("NPPBQRPPNPBPRPP", Colour::White).unwrap(),
            ok
        );
        assert!(parse_battleplan("NPPBQRPPNPBPRP", Colour::White).is_err());
        let e = parse_battleplan("N P P B Q R P P N P B P R P", Colour::White).unwrap_err();
        assert!(e.to_string().contains("15"), "{e}");
        let e = parse_battleplan("N P P B Q Q P P N P B P R P P", Colour::White).unwrap_err();
        assert!(e.to_string().contains("queen"), "{e}");
        let e = parse_battleplan("K P P B Q R P P N P B P R P P", Colour::White).unwrap_err();
        assert!(e.to_string().contains("king"), "{e}");
    }
}
