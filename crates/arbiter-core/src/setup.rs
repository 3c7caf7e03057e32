//! A game's setup as typed values: who plays, the house-rule options, and
//! an optional start position. Each game has a `Setup` (the generic
//! [`Setup`] over its own options and start state; En Prise's adds the
//! Battleplans) and a `from_setup` constructor that validates it. This
//! module holds what they share, and [`GameSetup`], the one registry of the
//! games arbiter referees.
//!
//! Setups know nothing of the file they came from: the table-script format
//! ([`crate::script`]) builds them from TOML and turns a [`SetupError`]'s
//! [`Part`] back into a line of the file.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::games::doublecross::{self, DoubleCross};
use crate::games::enochian::{self, Enochian};
use crate::games::enprise::{self, EnPrise};
use crate::games::twelve::{self, Twelve};
use crate::referee::{AnyReferee, Referee};
use crate::table::{Cell, Colour, GridError, Table, Token, TokenError};

/// The games arbiter referees.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum GameKind {
    EnPrise,
    DoubleCross,
    Twelve,
    Enochian,
}

impl GameKind {
    pub const ALL: [GameKind; 4] = [
        GameKind::EnPrise,
        GameKind::DoubleCross,
        GameKind::Twelve,
        GameKind::Enochian,
    ];

    /// The game's name in scripts and on the command line.
    pub fn parse(s: &str) -> Option<GameKind> {
        GameKind::ALL.into_iter().find(|g| g.name() == s)
    }

    pub fn name(self) -> &'static str {
        match self {
            GameKind::EnPrise => "enprise",
            GameKind::DoubleCross => "doublecross",
            GameKind::Twelve => "twelve",
            GameKind::Enochian => "enochian",
        }
    }

    /// The game's name as players write it.
    pub fn title(self) -> &'static str {
        match self {
            GameKind::EnPrise => "En Prise",
            GameKind::DoubleCross => "DoubleCross",
            GameKind::Twelve => "Twelve",
            GameKind::Enochian => "Enochian",
        }
    }

    /// Whether the game is played on a fixed 8x8 chessboard.
    pub fn chessboard(self) -> bool {
        matches!(self, GameKind::DoubleCross | GameKind::Enochian)
    }

    /// The game's setup with every default: the usual players, no house
    /// rule, the usual start (En Prise has no default Battleplans; its
    /// default setup needs them filled in).
    pub fn default_setup(self) -> GameSetup {
        match self {
            GameKind::EnPrise => GameSetup::EnPrise(Default::default()),
            GameKind::DoubleCross => GameSetup::DoubleCross(Default::default()),
            GameKind::Twelve => GameSetup::Twelve(Default::default()),
            GameKind::Enochian => GameSetup::Enochian(Default::default()),
        }
    }
}

impl fmt::Display for GameKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One game's setup: the registry of games. Everything that must treat
/// each game in turn (building its referee, writing its setup) goes
/// through here, so a fifth game is one more arm in one place.
#[derive(Clone, Debug, PartialEq)]
pub enum GameSetup {
    EnPrise(enprise::Setup),
    DoubleCross(doublecross::Setup),
    Twelve(twelve::Setup),
    Enochian(enochian::Setup),
}

impl GameSetup {
    pub fn kind(&self) -> GameKind {
        match self {
            GameSetup::EnPrise(_) => GameKind::EnPrise,
            GameSetup::DoubleCross(_) => GameKind::DoubleCross,
            GameSetup::Twelve(_) => GameKind::Twelve,
            GameSetup::Enochian(_) => GameKind::Enochian,
        }
    }

    /// Validates the setup and builds the referee of its game.
    pub fn referee(&self) -> Result<Box<dyn AnyReferee>, SetupError> {
        Ok(match self {
            GameSetup::EnPrise(s) => Box::new(Referee::new(EnPrise::from_setup(s)?)),
            GameSetup::DoubleCross(s) => Box::new(Referee::new(DoubleCross::from_setup(s)?)),
            GameSetup::Twelve(s) => Box::new(Referee::new(Twelve::from_setup(s)?)),
            GameSetup::Enochian(s) => Box::new(Referee::new(Enochian::from_setup(s)?)),
        })
    }

    /// The players named by the setup, if it names them.
    pub fn players(&self) -> Option<&[Colour]> {
        match self {
            GameSetup::EnPrise(s) => s.players.as_deref(),
            GameSetup::DoubleCross(s) => s.players.as_deref(),
            GameSetup::Twelve(s) => s.players.as_deref(),
            GameSetup::Enochian(s) => s.players.as_deref(),
        }
    }

    /// Each player's Battleplan as written, for the game that has them.
    pub fn battleplans(&self) -> Option<&BTreeMap<Colour, String>> {
        match self {
            GameSetup::EnPrise(s) => Some(&s.battleplans),
            _ => None,
        }
    }

    /// The start position, if the setup sets one.
    pub fn start_table(&self) -> Option<(&Table, Option<Colour>)> {
        fn of<S>(s: &Option<Start<S>>) -> Option<(&Table, Option<Colour>)> {
            s.as_ref().map(|s| (&s.table, s.to_move))
        }
        match self {
            GameSetup::EnPrise(s) => of(&s.start),
            GameSetup::DoubleCross(s) => of(&s.start),
            GameSetup::Twelve(s) => of(&s.start),
            GameSetup::Enochian(s) => of(&s.start),
        }
    }

    /// The options that differ from the game's defaults, as `key = value`
    /// pairs: what a record or a title shows.
    pub fn options_changed(&self) -> toml::Table {
        match self {
            GameSetup::EnPrise(s) => changed(&s.options),
            GameSetup::DoubleCross(s) => changed(&s.options),
            GameSetup::Twelve(s) => changed(&s.options),
            GameSetup::Enochian(s) => changed(&s.options),
        }
    }

    /// The setup as TOML: a table script without steps (what a journal
    /// keeps to rebuild the game). Options at their defaults and empty
    /// state keys are left out, as a person would write it.
    pub fn to_toml(&self) -> String {
        let mut doc = toml::Table::new();
        doc.insert("game".into(), self.kind().name().into());
        let body = match self {
            GameSetup::EnPrise(s) => toml::Table::try_from(s),
            GameSetup::DoubleCross(s) => toml::Table::try_from(s),
            GameSetup::Twelve(s) => toml::Table::try_from(s),
            GameSetup::Enochian(s) => toml::Table::try_from(s),
        }
        .expect("a setup always serialises to a TOML table");
        doc.extend(body);
        let options = self.options_changed();
        if options.is_empty() {
            doc.remove("options");
        } else {
            doc.insert("options".into(), options.into());
        }
        toml::to_string(&doc).expect("a TOML table always serialises")
    }
}

/// The fields of `value` that differ from `T::default()`, as TOML.
fn changed<T: Serialize + Default>(value: &T) -> toml::Table {
    let ours = toml::Table::try_from(value).unwrap_or_default();
    let default = toml::Table::try_from(T::default()).unwrap_or_default();
    ours.into_iter()
        .filter(|(k, v)| default.get(k) != Some(v))
        .collect()
}

/// A game's setup: who plays, its options `O`, and an optional start
/// position with its state keys `S`. Twelve, DoubleCross and Enochian use
/// it as it is; En Prise adds the Battleplans.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(bound(
    serialize = "O: Serialize, S: Serialize + Clone",
    deserialize = "O: Deserialize<'de> + Default, S: Deserialize<'de> + Default"
))]
pub struct Setup<O, S> {
    /// The players in turn order, if the setup names them (each game
    /// checks them against its own).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub players: Option<Vec<Colour>>,
    #[serde(default)]
    pub options: O,
    /// A position to start from; by default the game's usual start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<Start<S>>,
}

/// A start position: the table, who acts first, and the game's own state
/// keys (`[start]` in a script).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "RawStart<S>", into = "RawStart<S>")]
#[serde(bound(
    serialize = "S: Serialize + Clone",
    deserialize = "S: Deserialize<'de> + Default"
))]
pub struct Start<S> {
    pub table: Table,
    pub to_move: Option<Colour>,
    pub state: S,
}

/// [`Start`] as it is written: the table as a grid with its origin, and the
/// Enochian thrones (two cards on one square) beside it.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStart<S> {
    table: String,
    #[serde(default)]
    origin: [i32; 2],
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    thrones: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    to_move: Option<Colour>,
    #[serde(default)]
    state: S,
}

/// A start position as written that is no table.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BadStart {
    #[error("table, its line {}: {}", .0.line + 1, .0.message)]
    Grid(GridError),
    #[error(transparent)]
    Throne(#[from] BadThrone),
}

impl<S> TryFrom<RawStart<S>> for Start<S> {
    type Error = BadStart;

    fn try_from(raw: RawStart<S>) -> Result<Self, BadStart> {
        let origin = Cell::new(raw.origin[0], raw.origin[1]);
        let mut table = Table::parse_grid(&raw.table, origin).map_err(BadStart::Grid)?;
        for (key, pair) in &raw.thrones {
            lay_throne(&mut table, key, pair)?;
        }
        Ok(Start {
            table,
            to_move: raw.to_move,
            state: raw.state,
        })
    }
}

impl<S: Clone> From<Start<S>> for RawStart<S> {
    fn from(start: Start<S>) -> RawStart<S> {
        let (origin, table) = start.table.to_grid();
        let thrones = start
            .table
            .pairs()
            .map(|(cell, t)| (cell_key(cell), t.to_string()))
            .collect();
        RawStart {
            table,
            origin: [origin.col, origin.row],
            thrones,
            to_move: start.to_move,
            state: start.state,
        }
    }
}

/// The key of a throne: its algebraic square on the 8x8 board, or
/// `"col,row"` off it.
pub fn cell_key(cell: Cell) -> String {
    cell.square()
        .unwrap_or_else(|| format!("{},{}", cell.col, cell.row))
}

/// Parses a throne key written by [`cell_key`] (or by a person).
pub fn parse_cell_key(key: &str) -> Option<Cell> {
    if let Some((c, r)) = key.split_once(',') {
        let cell = Cell::new(c.trim().parse().ok()?, r.trim().parse().ok()?);
        return cell.in_range().then_some(cell);
    }
    match key.as_bytes() {
        [f @ b'a'..=b'h', r @ b'1'..=b'8'] => {
            Some(Cell::new(i32::from(f - b'a'), 8 - i32::from(r - b'0')))
        }
        _ => None,
    }
}

/// Lays a throne (`e1 = "uK+uN"`) over a grid: the cell holds both cards,
/// and the grid must show one of them there.
pub fn lay_throne(table: &mut Table, key: &str, text: &str) -> Result<(), BadThrone> {
    let cell = parse_cell_key(key).ok_or_else(|| BadThrone::Key(key.to_string()))?;
    let pair = Token::parse_pair(text).map_err(|e| BadThrone::Pair(key.to_string(), e))?;
    let shown = table.get(cell);
    if !shown
        .and_then(Token::card)
        .is_some_and(|c| pair.cards().any(|p| p == c))
    {
        return Err(BadThrone::NotShown {
            key: key.to_string(),
            pair: text.to_string(),
            shown: shown.map_or("..".to_string(), |t| t.to_string()),
        });
    }
    table.set(cell, Some(pair));
    Ok(())
}

/// A throne (two cards on one square) that cannot be laid.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BadThrone {
    #[error("thrones: {0:?} is not a square (such as e1) or a cell (such as \"4,7\")")]
    Key(String),
    #[error("thrones: {0} must be a pair such as \"uK+uN\"")]
    NotText(String),
    #[error("thrones: {0}: {1}")]
    Pair(String, TokenError),
    #[error(
        "thrones: {key} = {pair:?}, but the grid shows {shown} there (it shows one of the pair)"
    )]
    NotShown {
        key: String,
        pair: String,
        shown: String,
    },
}

/// The part of a setup a problem lies in, so that a format can point at it
/// (a script names its line).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    Players,
    /// One player's Battleplan (En Prise).
    Battleplan(Colour),
    Options,
    /// The start position: its table or `to_move`.
    Start,
    /// The start's state keys.
    State,
}

impl fmt::Display for Part {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Part::Players => f.write_str("players"),
            Part::Battleplan(c) => write!(f, "{c}'s Battleplan"),
            Part::Options => f.write_str("options"),
            Part::Start => f.write_str("[start]"),
            Part::State => f.write_str("[start] state"),
        }
    }
}

/// A setup the rules cannot start from: where, and what is wrong, in the
/// words of the rules (with the rule's id where one applies). Problems with
/// the players and the Battleplans say whose they are themselves; the
/// others are told with their part (`options: ...`, `[start]: ...`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct SetupError {
    pub part: Part,
    pub problem: String,
}

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.part {
            Part::Players | Part::Battleplan(_) => f.write_str(&self.problem),
            part => write!(f, "{part}: {}", self.problem),
        }
    }
}

impl SetupError {
    pub fn new(part: Part, problem: impl Into<String>) -> SetupError {
        SetupError {
            part,
            problem: problem.into(),
        }
    }

    pub fn players(problem: impl Into<String>) -> SetupError {
        SetupError::new(Part::Players, problem)
    }

    pub fn options(problem: impl Into<String>) -> SetupError {
        SetupError::new(Part::Options, problem)
    }
}

/// For the two-player games of White against Black: `players`, if given,
/// must be exactly that (`wrong_players` says so).
pub fn white_against_black(
    players: &Option<Vec<Colour>>,
    wrong_players: &str,
) -> Result<(), SetupError> {
    match players {
        Some(p) if p[..] != [Colour::White, Colour::Black] => {
            Err(SetupError::players(wrong_players))
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_start_round_trips_through_toml_with_its_thrones() {
        let mut table = Table::parse_grid("uN .. ##\n.. wK ..", Cell::new(4, 6)).unwrap();
        lay_throne(&mut table, "e2", "uN+uK").unwrap();
        let start = Start {
            table,
            to_move: Some(Colour::Blue),
            state: twelve::StartState::default(),
        };
        let text = toml::to_string(&start).unwrap();
        let back: Start<twelve::StartState> = toml::from_str(&text).unwrap();
        assert_eq!(back, start, "{text}");
    }

    #[test]
    fn an_unknown_start_key_is_an_error() {
        let e = toml::from_str::<Start<twelve::StartState>>(
            "table = \"wK\"\norigin = [0, 0]\nto_mve = \"white\"\n",
        )
        .unwrap_err();
        assert!(e.message().contains("to_mve"), "{e}");
    }

    #[test]
    fn every_game_is_in_the_registry_once_by_name() {
        for g in GameKind::ALL {
            assert_eq!(GameKind::parse(g.name()), Some(g));
            assert_eq!(g.default_setup().kind(), g);
        }
        assert_eq!(GameKind::parse("chess"), None);
    }
}
