//! An Enochian setup: the options and an optional start position with the
//! state keys of the shared contract, as a table script writes them:
//!
//! ```toml
//! game = "enochian"
//! options = { mode = "four-player", divination = false, rerolls = 3 }
//!
//! [start]
//! to_move = "red"
//! table = """ (8 rows, rank 8 first) """
//! thrones = { h5 = "rK+rN" }
//! state = { prisoners = [["yellow", "blue"]], frozen = ["blue"],
//!           thawed = ["blue"], ally_captured = ["blue"],
//!           controllers = { blue = "black" }, withdrawn = { yellow = "bare" },
//!           patrons = { a7 = "Q" }, annexed = { d5 = "blue" },
//!           roll = 4, rerolls_used = 1 }
//! ```

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::rules::{
    self, KingState, Pos, Sq, TITLES, Unit, Withdrawal, ally, army_named, army_of, enemies,
    in_zone, lane_patron, own_controller, parse_square, sq_of, square_name, team,
};
use super::{Enochian, Options};
use crate::setup::{Part, SetupError};
use crate::table::{Colour, Piece, Token};

/// A Enochian game's setup: players, options, an optional start.
pub type Setup = crate::setup::Setup<Options, StartState>;

/// What a start position cannot show (see the module's example). Armies
/// are named by colour.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StartState {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prisoners: Vec<[String; 2]>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub frozen: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub thawed: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ally_captured: Vec<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub controllers: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub withdrawn: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub patrons: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub annexed: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roll: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rerolls_used: Option<u32>,
}

impl Enochian {
    /// The game a setup describes, once the rules allow it.
    pub fn from_setup(setup: &Setup) -> Result<Enochian, SetupError> {
        if let Some(p) = &setup.players
            && p[..] != [Colour::Blue, Colour::Red, Colour::Black, Colour::Yellow]
        {
            return Err(SetupError::players(
                "Enochian armies play in the order players = [\"blue\", \"red\", \"black\", \"yellow\"]",
            ));
        }
        let opts = setup.options;
        let Some(start) = &setup.start else {
            return Ok(Enochian::new(opts));
        };
        let err = |m: String| SetupError::new(Part::Start, m);
        let state_err = |m: String| SetupError::new(Part::State, m);
        let state = &start.state;
        let four = opts.four();
        let army = |name: &str, key: &str| {
            army_named(name).ok_or_else(|| {
                state_err(format!(
                    "{key} names {name:?}: an army is blue, red, black or yellow"
                ))
            })
        };
        let square = |key: &str, what: &str| {
            parse_square(key)
                .ok_or_else(|| state_err(format!("{what}: {key:?} is not a square such as e1")))
        };

        let mut patrons: BTreeMap<Sq, Piece> = BTreeMap::new();
        for (k, v) in &state.patrons {
            let s = square(k, "patrons")?;
            let p = match v.as_str() {
                "Q" => Piece::Queen,
                "B" => Piece::Bishop,
                "N" => Piece::Knight,
                "R" => Piece::Rook,
                _ => {
                    return Err(state_err(format!(
                        "patrons: {k} = {v:?}: a patron is Q, B, N or R"
                    )));
                }
            };
            patrons.insert(s, p);
        }
        let mut annexed: BTreeMap<Sq, u8> = BTreeMap::new();
        for (k, v) in &state.annexed {
            annexed.insert(square(k, "annexed")?, army(v, "annexed")?);
        }

        let mut pos = Pos::empty(four);
        for (cell, token) in start.table.iter() {
            let Some(s) = sq_of(cell) else {
                return Err(err(format!("{token} at {cell} lies off the 8x8 board")));
            };
            let cards: Vec<_> = match token {
                Token::Up(c) => vec![c],
                Token::Pair(a, b) => vec![a, b],
                Token::Down | Token::Unreadable => {
                    return Err(err(format!(
                        "{token} on {}: a start position shows face-up cards",
                        square_name(s)
                    )));
                }
            };
            for c in &cards {
                let Some(a) = army_of(c.colour) else {
                    return Err(err(format!(
                        "{c} on {}: Enochian armies are blue, red, black and yellow",
                        square_name(s)
                    )));
                };
                let mut u = Unit::new(a, c.piece);
                if c.piece == Piece::Pawn {
                    u.patron = patrons
                        .get(&s)
                        .copied()
                        .unwrap_or_else(|| lane_patron(a, s));
                }
                if let Some(&to) = annexed.get(&s)
                    && c.piece != Piece::King
                {
                    if enemies(to, a) {
                        return Err(state_err(format!(
                            "annexed: the {} piece on {} cannot move for {} (a concourse hands a piece to its own team, EN-CON-4)",
                            TITLES[a as usize],
                            square_name(s),
                            TITLES[to as usize]
                        )));
                    }
                    u.army = to;
                }
                pos.put(s, u);
            }
            if let [x, y] = cards[..] {
                let (king, other) = if x.piece == Piece::King {
                    (x, y)
                } else {
                    (y, x)
                };
                let ka = army_of(king.colour).unwrap_or(0);
                let oa = army_of(other.colour).unwrap_or(0);
                if king.piece != Piece::King
                    || other.piece == Piece::King
                    || other.piece == Piece::Pawn
                    || !rules::THRONES[ka as usize].contains(&s)
                    || enemies(ka, oa)
                {
                    return Err(err(format!(
                        "{token} on {}: two pieces share a square only on a king's own throne, the king with a friendly piece other than a pawn or king (EN-THR-1/3)",
                        square_name(s)
                    )));
                }
            }
        }
        for s in patrons.keys() {
            if pos.unit(*s, Piece::Pawn).is_none() {
                return Err(state_err(format!(
                    "patrons: no pawn stands on {}",
                    square_name(*s)
                )));
            }
        }
        for s in annexed.keys() {
            if pos.main[*s as usize].is_none() {
                return Err(state_err(format!(
                    "annexed: no piece stands on {}",
                    square_name(*s)
                )));
            }
        }

        // Kings: on the board, or accounted for by the state.
        let mut on_board = [false; 4];
        for a in 0..4u8 {
            let n = pos
                .all_units()
                .filter(|(_, u)| u.kind == Piece::King && u.colour == a)
                .count();
            if n > 1 {
                return Err(err(format!("{} has {n} kings", TITLES[a as usize])));
            }
            on_board[a as usize] = n == 1;
        }
        let mut accounted = [false; 4];
        let mut seen_captured = [false; 4];
        for [captor, king] in &state.prisoners {
            let (c, k) = (army(captor, "prisoners")?, army(king, "prisoners")?);
            if !enemies(c, k) {
                return Err(state_err(format!(
                    "prisoners: {captor} cannot hold {king}'s king: only an enemy takes prisoners (EN-FRZ-1)"
                )));
            }
            if on_board[k as usize] || seen_captured[k as usize] {
                return Err(state_err(format!(
                    "prisoners: {}'s king is on the board or listed twice",
                    TITLES[k as usize]
                )));
            }
            seen_captured[k as usize] = true;
            accounted[k as usize] = true;
            pos.add_prisoner(c, k);
            pos.armies[k as usize].king = KingState::Prisoner(c);
            pos.armies[k as usize].frozen = true;
        }
        for name in &state.frozen {
            let a = army(name, "frozen")?;
            if on_board[a as usize] {
                return Err(state_err(format!(
                    "frozen: {}'s king is on the board; an army freezes when its king is taken (list it in prisoners)",
                    TITLES[a as usize]
                )));
            }
            accounted[a as usize] = true;
            if pos.armies[a as usize].king == KingState::OnBoard {
                pos.armies[a as usize].king = KingState::Off;
            }
            pos.armies[a as usize].frozen = true;
        }
        for name in &state.ally_captured {
            let a = army(name, "ally_captured")?;
            if !four {
                return Err(state_err(
                    "ally_captured: an ally's king is taken only in four-player games (EN-CTL-2)"
                        .into(),
                ));
            }
            if on_board[a as usize] || accounted[a as usize] {
                return Err(state_err(format!(
                    "ally_captured: {}'s king is on the board or listed already",
                    TITLES[a as usize]
                )));
            }
            accounted[a as usize] = true;
            let ai = a as usize;
            pos.armies[ai].king = KingState::AllyCaptured;
            pos.armies[ai].frozen = false;
            pos.armies[ai].controller = own_controller(four, ally(a));
            pos.armies[ai].taken_over_by = Some(ally(a));
        }
        for name in &state.thawed {
            let a = army(name, "thawed")?;
            if on_board[a as usize] || !accounted[a as usize] {
                return Err(state_err(format!(
                    "thawed: {}'s king must be off the board (list it in prisoners or frozen)",
                    TITLES[a as usize]
                )));
            }
            pos.armies[a as usize].frozen = false;
            pos.armies[a as usize].taken_over_by = Some(ally(a));
            if four {
                pos.armies[a as usize].controller = ally(a);
            }
        }
        for a in 0..4u8 {
            if !on_board[a as usize] && !accounted[a as usize] {
                return Err(err(format!(
                    "where is {}'s king? It is not on the table; list it in state.prisoners, frozen or ally_captured",
                    TITLES[a as usize]
                )));
            }
        }
        for (k, v) in &state.controllers {
            let (a, b) = (army(k, "controllers")?, army(v, "controllers")?);
            if team(a) != team(b) {
                return Err(state_err(format!(
                    "controllers: {k} = {v:?}: control passes only within a team"
                )));
            }
            pos.armies[a as usize].controller = own_controller(four, b);
            pos.armies[a as usize].taken_over_by = (a != b).then_some(b);
        }
        for (k, v) in &state.withdrawn {
            let a = army(k, "withdrawn")?;
            let ai = a as usize;
            if !four {
                return Err(state_err(
                    "withdrawn: withdrawal is for four-player games only (EN-WDR)".into(),
                ));
            }
            match v.as_str() {
                "bare" => {
                    if !on_board[ai] || pos.army_size(a) != 1 {
                        return Err(state_err(format!(
                            "withdrawn: {k} = \"bare\" needs {}'s king alone on the board (EN-WDR-1)",
                            TITLES[ai]
                        )));
                    }
                    pos.armies[ai].withdrawn = Some(Withdrawal::Bare);
                    pos.armies[ai].frozen = true;
                }
                "voluntary" => {
                    pos.armies[ai].withdrawn = Some(Withdrawal::Voluntary);
                    pos.armies[ai].controller = own_controller(four, ally(a));
                }
                _ => {
                    return Err(state_err(format!(
                        "withdrawn: {k} = {v:?}: \"bare\" (EN-WDR-1) or \"voluntary\" (EN-WDR-2)"
                    )));
                }
            }
        }
        for a in 0..4u8 {
            if pos.count(a, Piece::Pawn) >= 4 {
                continue;
            }
            if let Some((s, _)) = pos
                .all_units()
                .find(|&(s, u)| u.army == a && u.kind == Piece::Pawn && in_zone(a, s))
            {
                return Err(err(format!(
                    "the {} pawn on {} stands on its promotion zone with fewer than four pawns in its army: it would have promoted (EN-PRO-2/3); show the promoted piece",
                    TITLES[a as usize],
                    square_name(s)
                )));
            }
        }
        let to_move = start
            .to_move
            .map_or(Some(0), army_of)
            .ok_or_else(|| err("to_move names no army: blue, red, black or yellow".into()))?;
        let mut g = Enochian::at(opts, pos, to_move);
        if let Some(o) = super::outcome(&g.pos, team(to_move)) {
            return Err(err(format!(
                "the game would already be over ({})",
                super::outcome_text(&o)
            )));
        }
        let mut intro = Vec::new();
        g.begin_turn(&mut intro);
        g.intro = intro;
        if let Some(r) = state.roll {
            if !opts.divination {
                return Err(state_err(
                    "roll: the die is used only with options.divination = true".into(),
                ));
            }
            let r = u8::try_from(r)
                .ok()
                .filter(|r| (1..=6).contains(r))
                .ok_or_else(|| state_err(format!("roll = {r}: a die shows 1 to 6")))?;
            if g.to_move != to_move || g.over.is_some() {
                return Err(state_err(format!(
                    "roll: {}'s turn is skipped, so no die is rolled for it",
                    TITLES[to_move as usize]
                )));
            }
            if !g
                .legal_moves()
                .iter()
                .any(|m| rules::roll_allows(r, m.kind))
            {
                return Err(state_err(format!(
                    "roll = {r}: no {} of {} can move, so the die is rolled again (EN-DIV-2)",
                    rules::roll_needs(r),
                    TITLES[g.acting() as usize]
                )));
            }
            g.roll = Some(r);
        }
        if let Some(n) = state.rerolls_used {
            if !opts.divination {
                return Err(state_err(
                    "rerolls_used: only with options.divination = true".into(),
                ));
            }
            if n > opts.rerolls {
                return Err(state_err(format!(
                    "rerolls_used = {n}: at most {} re-rolls a turn (EN-DIV-2)",
                    opts.rerolls
                )));
            }
            g.rerolls_used = n;
        }
        Ok(g)
    }
}
