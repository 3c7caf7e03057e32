//! Building an En Prise game from a table script: players (EP-PLAYERS),
//! Battleplans (EP-DECK, EP-BATTLEPLAN), house-rule options, and an optional
//! `[start]` position.

use serde::Deserialize;

use super::{EnPrise, Options, Sq};
use crate::script::{Script, ScriptError};
use crate::table::{Card, Colour, Piece, Token};

pub const BATTLEPLAN_LEN: usize = 15;

/// The 15 cards besides the king: Q, 2 R, 2 B, 2 N, 8 P (EP-DECK).
const COUNTS: [(Piece, usize); 5] = [
    (Piece::Queen, 1),
    (Piece::Rook, 2),
    (Piece::Bishop, 2),
    (Piece::Knight, 2),
    (Piece::Pawn, 8),
];

/// Parses a Battleplan such as `"N P P B Q R P P N P B P R P P"` (letters or
/// colour-prefixed tokens) and checks the card counts.
pub fn parse_battleplan(text: &str, colour: Colour) -> Result<Vec<Piece>, String> {
    let mut plan = Vec::new();
    // "NPPBQRPPNPBPRPP" is as good as "N P P B ...": easier to type.
    let compact = !text.trim().contains(char::is_whitespace) && text.trim().len() > 2;
    let spaced: String;
    let text = if compact {
        spaced = text.trim().chars().map(|c| format!("{c} ")).collect();
        spaced.as_str()
    } else {
        text
    };
    for tok in text.split_whitespace() {
        let letter = match tok.chars().collect::<Vec<_>>()[..] {
            [p] => p,
            [c, p] if Colour::from_letter(c) == Some(colour) => p,
            _ => {
                return Err(format!(
                    "bad card {tok:?}: write the piece letters K Q R B N P, such as \"N P P B ...\""
                ));
            }
        };
        match Piece::from_letter(letter) {
            Some(Piece::King) => {
                return Err(
                    "the king is set aside, not part of the Battleplan (EP-BATTLEPLAN)".into(),
                );
            }
            Some(p) => plan.push(p),
            None => return Err(format!("bad card {tok:?}: pieces are Q R B N P")),
        }
    }
    if plan.len() != BATTLEPLAN_LEN {
        return Err(format!(
            "a Battleplan has {BATTLEPLAN_LEN} cards, this one has {} (EP-BATTLEPLAN)",
            plan.len()
        ));
    }
    for (piece, want) in COUNTS {
        let have = plan.iter().filter(|&&p| p == piece).count();
        if have != want {
            return Err(format!(
                "a Battleplan holds {want} {}{}, this one has {have} (EP-DECK: Q, 2 R, 2 B, 2 N, 8 P)",
                piece.name(),
                if want == 1 { "" } else { "s" }
            ));
        }
    }
    Ok(plan)
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct StartState {
    /// How many Battleplan cards each player has already played.
    #[serde(default)]
    played: std::collections::BTreeMap<String, usize>,
    /// Players already checkmated out of the game.
    #[serde(default)]
    eliminated: Vec<String>,
}

impl EnPrise {
    pub fn from_script(script: &Script) -> Result<EnPrise, ScriptError> {
        let players: Vec<Colour> = match &script.players {
            Some(p) => p.value.clone(),
            None => Colour::ALL
                .into_iter()
                .filter(|c| script.battleplan.contains_key(c))
                .collect(),
        };
        let players_line = script.players.as_ref().map_or(1, |p| p.line);
        if !(2..=4).contains(&players.len()) {
            return Err(script.error(
                players_line,
                format!(
                    "En Prise is for 2 to 4 players, this script has {} (EP-PLAYERS)",
                    players.len()
                ),
            ));
        }
        if let Some(c) = players.iter().find(|&&c| c == Colour::Yellow) {
            return Err(script.error(
                players_line,
                format!("En Prise colours are white, black, red and blue, not {c} (EP-PLAYERS)"),
            ));
        }
        let mut plans = Vec::new();
        for &c in &players {
            let Some(bp) = script.battleplan.get(&c) else {
                return Err(script.error(players_line, format!("[battleplan] has no line for {c}")));
            };
            plans.push(
                parse_battleplan(&bp.value, c)
                    .map_err(|e| script.error(bp.line, format!("{c}'s Battleplan: {e}")))?,
            );
        }
        if let Some((c, bp)) = script.battleplan.iter().find(|(c, _)| !players.contains(c)) {
            return Err(script.error(
                bp.line,
                format!("[battleplan] names {c}, who is not playing"),
            ));
        }
        let opts: Options = script.options_as()?;

        let mut game = EnPrise::new(&players, plans, opts);
        if let Some(start) = &script.start {
            let state: StartState =
                start
                    .state
                    .value
                    .clone()
                    .try_into()
                    .map_err(|e: toml::de::Error| {
                        script.error(start.state.line, format!("[start] state: {}", e.message()))
                    })?;
            let err = |m: String| script.error(start.line, format!("[start]: {m}"));
            let state_err =
                |m: String| script.error(start.state.line, format!("[start] state: {m}"));
            for name in &state.eliminated {
                let i = Colour::from_name(name)
                    .and_then(|c| game.index_of(c))
                    .ok_or_else(|| {
                        state_err(format!("eliminated names {name:?}, who is not playing"))
                    })?;
                game.out[i] = true;
            }
            for (name, &n) in &state.played {
                let i = Colour::from_name(name)
                    .and_then(|c| game.index_of(c))
                    .ok_or_else(|| {
                        state_err(format!("played names {name:?}, who is not playing"))
                    })?;
                if n > BATTLEPLAN_LEN {
                    return Err(state_err(format!(
                        "{name} cannot have played {n} of {BATTLEPLAN_LEN} cards"
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
        assert!(e.contains("15"), "{e}");
        let e = parse_battleplan("N P P B Q Q P P N P B P R P P", Colour::White).unwrap_err();
        assert!(e.contains("queen"), "{e}");
        let e = parse_battleplan("K P P B Q R P P N P B P R P P", Colour::White).unwrap_err();
        assert!(e.contains("king"), "{e}");
    }
}
