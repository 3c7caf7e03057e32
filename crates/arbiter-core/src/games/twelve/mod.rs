//! Twelve (`spec/twelve.md`): two players, six piece cards each, no board.
//! Pieces lie on an unbounded grid whose occupied area may never exceed 4x4;
//! a player places a piece from his supply, moves one, or (once) swaps his
//! Rook and King; a King whose side neighbours are all taken or off-limits
//! loses, a Queen in that state leaves the game. Every rule ID of the spec is
//! enforced here and cited by the flags.
//!
//! The state is a value, as for every game: [`Twelve::legal_actions`] lists
//! what the player to act may do, [`Twelve::apply`] plays one (with the end
//! of the turn: victory, Queen removal, passes), and `judge` (in `judge.rs`)
//! reads a settled table as one of them, a part of one, or an attempt the
//! rules forbid.
//!
//! House rules settled here, beyond the spec's own (documented in place):
//!
//! - **Start orientation** (TW-2.1): the Kings may start side by side in
//!   either orientation and either way round; the first table fixes it.
//!   Cells count from the start's White King on (0,0), wherever the cards
//!   lie. The first table may already show White's first action: any
//!   action after the standard start (which the referee may have seen
//!   unchanged, and is never told of), only a placement after a start
//!   turned another way (never seen, or it would have been judged). With
//!   only the Kings out, one King's step is the other's opposite step
//!   shifted: the referee keeps both readings (the start turned first)
//!   until a placement shows whose turn it is. Kings not side by side on
//!   the first table are a wrong start (`unexplained`, TW-2.1).
//! - **Pawn entry** (TW-4.4): the step may be seen with the placement or in
//!   the next table. A Pawn seen on a cell where it could be placed is read
//!   as a placement whose step may still follow; the referee keeps both
//!   readings (turn over / step to come) until the next table decides. When
//!   the placement cell of a placement-and-step cannot be seen, the first
//!   possible one in reading order is assumed (it changes nothing). The
//!   step never obeys TW-4.2, even under `side_rule_on_moves`, as TW-4.4
//!   says; connectivity is judged against the position right after the
//!   placement.
//! - **Anchored area**: the limits are fixed by the box at the end of an
//!   action (a Pawn entry with its step and a Bishop entry with its
//!   send-back are one action each).
//! - **Exchange**: TW-4.2 never binds it, even under `side_rule_on_moves`
//!   (it is no move, TW-7).
//! - **Nobody can act** (TW-3.2): if, after a pass, the player who passed
//!   back cannot act either, the game is drawn.
//! - **Flags**: taking off a Queen that is not surrounded is an
//!   `illegal_move` (TW-8.3); placing a Queen that is out of the game is an
//!   `illegal_placement` (TW-8.3); a Bishop's send-back of a piece that may
//!   not go (a King, or one that would split a colour) is an `illegal_move`
//!   (the Bishop itself stands legally); any other piece taken off the table
//!   is an `illegal_move` (TW-1.4).
//! - **remove_queen** names the Queen's owner as `player` (either player
//!   takes it off, TW-8.3).
//! - **queen_out**: the turn that leaves a Queen surrounded says so in a
//!   `notice` (after the action and before any `pass`), so that the stream
//!   tells the table to take the card off before its `remove_queen`.
//!
//! A `[start]` in a table script may carry `state` (see `setup.rs`):
//! `queen_out = ["white"]`, `exchanged = ["black"]`, `supply = { white =
//! "Q R B N P", black = "..." }` (checked against the table: a piece absent
//! from the table is in its owner's supply unless its Queen is out), and,
//! under `area = "anchored"`, `anchored = { columns = [0, 3], rows = [-1, 2] }`.

mod judge;
#[cfg(any(test, feature = "testkit"))]
pub mod mistakes;
#[cfg(any(test, feature = "testkit"))]
pub mod random;
mod rules;
mod setup;

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::event::ActionKind;
use crate::event::{ActionEvent, EventBody, GameResult};
use crate::games::{Panel, PlayerPanel, Verdict};
use crate::table::{Card, Cell, Colour, Piece, Table, Token};

pub use rules::Violation;
pub use setup::{Anchored, Setup, StartState};

/// The two colours, White first (TW-2.2); a side is an index into this.
pub const SIDES: [Colour; 2] = [Colour::White, Colour::Black];

/// The Black King's start cell beside the White King on (0,0): the spec's
/// own first (TW-2.1), then the other ways round the house rule allows.
pub const ORIENTATIONS: [Cell; 4] = [
    Cell::new(0, 1),
    Cell::new(0, -1),
    Cell::new(1, 0),
    Cell::new(-1, 0),
];

/// The pieces a supply can hold, in the order the panel lists them.
pub const SUPPLY_ORDER: [Piece; 5] = [
    Piece::Queen,
    Piece::Rook,
    Piece::Bishop,
    Piece::Knight,
    Piece::Pawn,
];

/// The spec's named options (defaults as in the spec).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Options {
    /// TW-1.5.
    pub area: Area,
    /// TW-1.7.
    pub surround: Surround,
    /// TW-5.9: TW-4.2 applies to moves too.
    pub side_rule_on_moves: bool,
    /// TW-9.2.
    pub double_surround: DoubleSurround,
}

impl Options {
    /// Every combination of the options, for tests that must cover them.
    pub fn all() -> Vec<Options> {
        let mut out = Vec::new();
        for area in [Area::Floating, Area::Anchored] {
            for surround in [Surround::Four, Surround::Eight] {
                for side_rule_on_moves in [false, true] {
                    for double_surround in [DoubleSurround::Draw, DoubleSurround::MoverLoses] {
                        out.push(Options {
                            area,
                            surround,
                            side_rule_on_moves,
                            double_surround,
                        });
                    }
                }
            }
        }
        out
    }

    /// The options as a table script writes them (`{ }` for the defaults).
    pub fn to_toml(&self) -> String {
        let mut parts = Vec::new();
        if self.area == Area::Anchored {
            parts.push("area = \"anchored\"".to_string());
        }
        if self.surround == Surround::Eight {
            parts.push("surround = 8".to_string());
        }
        if self.side_rule_on_moves {
            parts.push("side_rule_on_moves = true".to_string());
        }
        if self.double_surround == DoubleSurround::MoverLoses {
            parts.push("double_surround = \"mover_loses\"".to_string());
        }
        format!("{{ {} }}", parts.join(", "))
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Area {
    /// The 4x4 limit is measured afresh after each action.
    #[default]
    Floating,
    /// Once the box first reaches width (height) 4, those columns (rows)
    /// are fixed.
    Anchored,
}

/// Which neighbours must be taken or off-limits for a piece to be
/// surrounded: written `4` or `8` in a script.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "i64", into = "i64")]
pub enum Surround {
    #[default]
    Four,
    Eight,
}

impl From<Surround> for i64 {
    fn from(s: Surround) -> i64 {
        match s {
            Surround::Four => 4,
            Surround::Eight => 8,
        }
    }
}

impl TryFrom<i64> for Surround {
    type Error = BadSurround;
    fn try_from(n: i64) -> Result<Self, BadSurround> {
        match n {
            4 => Ok(Surround::Four),
            8 => Ok(Surround::Eight),
            _ => Err(BadSurround(n)),
        }
    }
}

/// A `surround` option that is neither 4 nor 8.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("surround is 4 (side neighbours) or 8 (all neighbours), not {0}")]
pub struct BadSurround(pub i64);

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DoubleSurround {
    #[default]
    Draw,
    MoverLoses,
}

/// Where one piece is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Spot {
    #[default]
    Supply,
    /// A Queen removed from the game (TW-8.1).
    Out,
    At(Cell),
}

/// The twelve pieces: index `side * 6 + piece`. Lookups scan twelve entries,
/// which is faster than any map at this size.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Pos {
    spots: [Spot; 12],
}

/// A side's index (White 0, Black 1); `None` for the other colours.
pub fn side_of(c: Colour) -> Option<usize> {
    SIDES.iter().position(|&s| s == c)
}

fn index(side: usize, piece: Piece) -> usize {
    side * 6 + piece as usize
}

fn card_of(i: usize) -> Card {
    Card::new(SIDES[i / 6], Piece::ALL[i % 6])
}

impl Pos {
    pub fn spot(&self, side: usize, piece: Piece) -> Spot {
        self.spots[index(side, piece)]
    }

    pub fn set(&mut self, side: usize, piece: Piece, spot: Spot) {
        self.spots[index(side, piece)] = spot;
    }

    pub fn cell_of(&self, side: usize, piece: Piece) -> Option<Cell> {
        match self.spot(side, piece) {
            Spot::At(c) => Some(c),
            _ => None,
        }
    }

    /// The card on `cell`, if any.
    pub fn at(&self, cell: Cell) -> Option<Card> {
        self.spots
            .iter()
            .position(|s| *s == Spot::At(cell))
            .map(card_of)
    }

    /// Every piece in play, White's first.
    pub fn in_play(&self) -> impl Iterator<Item = (Card, Cell)> + '_ {
        self.spots.iter().enumerate().filter_map(|(i, s)| match s {
            Spot::At(c) => Some((card_of(i), *c)),
            _ => None,
        })
    }

    /// One side's pieces in play.
    pub fn side_in_play(&self, side: usize) -> impl Iterator<Item = (Piece, Cell)> + '_ {
        (0..6).filter_map(move |p| match self.spots[side * 6 + p] {
            Spot::At(c) => Some((Piece::ALL[p], c)),
            _ => None,
        })
    }

    /// The pieces of a side's supply, in [`SUPPLY_ORDER`].
    pub fn supply(&self, side: usize) -> Vec<Piece> {
        SUPPLY_ORDER
            .into_iter()
            .filter(|&p| self.spot(side, p) == Spot::Supply)
            .collect()
    }

    /// Bounding box of the pieces in play: (min col, min row), (max col, max row).
    pub fn bbox(&self) -> Option<(Cell, Cell)> {
        let mut it = self.in_play().map(|(_, c)| c);
        let first = it.next()?;
        Some(it.fold((first, first), |(lo, hi), c| {
            (
                Cell::new(lo.col.min(c.col), lo.row.min(c.row)),
                Cell::new(hi.col.max(c.col), hi.row.max(c.row)),
            )
        }))
    }

    /// How many groups a side's pieces form under adjacency (TW-1.8).
    pub fn groups(&self, side: usize) -> usize {
        let cells: Vec<Cell> = self.side_in_play(side).map(|(_, c)| c).collect();
        let n = cells.len();
        let mut seen = [false; 6];
        let mut groups = 0;
        let mut stack = [0usize; 6];
        for start in 0..n {
            if seen[start] {
                continue;
            }
            groups += 1;
            seen[start] = true;
            let mut top = 1;
            stack[0] = start;
            while top > 0 {
                top -= 1;
                let a = stack[top];
                for b in 0..n {
                    if !seen[b] && cells[a].king_distance(cells[b]) == 1 {
                        seen[b] = true;
                        stack[top] = b;
                        top += 1;
                    }
                }
            }
        }
        groups
    }

    /// The same position moved by `d`.
    pub fn shifted(&self, d: Cell) -> Pos {
        let mut p = *self;
        for s in &mut p.spots {
            if let Spot::At(c) = s {
                *c = c.plus(d);
            }
        }
        p
    }
}

/// What the current turn is waiting for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Phase {
    /// The player to move acts.
    #[default]
    Turn,
    /// The player to move has just placed the Pawn on `pawn` and may still
    /// step it (TW-4.4); only that step can follow in this reading.
    Entry { pawn: Cell },
    /// The player to move has just placed the Bishop on `bishop` and is
    /// still to send a piece back (TW-4.5): the table showed the Bishop
    /// alone, the send-back's hand not yet done. It is owed before the
    /// opponent acts (TW-10.2).
    SendBack { bishop: Cell },
}

/// How the game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// `winner` surrounded the other King; `both` when both Kings were
    /// surrounded and the mover lost (`double_surround = "mover_loses"`).
    Win { winner: usize, both: bool },
    /// Both Kings surrounded at once (TW-9.2), or nobody could act.
    Draw { both_surrounded: bool },
}

/// One action of a turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// A piece of the supply put on an empty cell (TW-4.1). A Bishop only
    /// when no piece could be sent back; a Pawn ends the turn here (its
    /// step not taken).
    Place { side: usize, piece: Piece, to: Cell },
    /// A Pawn placed on `at` and stepped to `to` in the same turn (TW-4.4).
    PawnEntry { side: usize, at: Cell, to: Cell },
    /// A Bishop placed on `at`, and the piece on `send_back` returned to its
    /// owner's supply (TW-4.5).
    BishopEntry {
        side: usize,
        at: Cell,
        send_back: Cell,
    },
    /// A piece in play moved (TW-5).
    Move {
        side: usize,
        piece: Piece,
        from: Cell,
        to: Cell,
    },
    /// The Rook and the King swap cells (TW-7).
    Exchange { side: usize, rook: Cell, king: Cell },
    /// In [`Phase::Entry`]: the placed Pawn's step.
    Step { side: usize, from: Cell, to: Cell },
}

impl Action {
    pub fn side(self) -> usize {
        match self {
            Action::Place { side, .. }
            | Action::PawnEntry { side, .. }
            | Action::BishopEntry { side, .. }
            | Action::Move { side, .. }
            | Action::Exchange { side, .. }
            | Action::Step { side, .. } => side,
        }
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let l = |side: usize| SIDES[side].letter();
        match *self {
            Action::Place { side, piece, to } => write!(f, "{}{} at {to}", l(side), piece.letter()),
            Action::PawnEntry { side, at, to } => write!(f, "{}P at {at} -> {to}", l(side)),
            Action::BishopEntry {
                side,
                at,
                send_back,
            } => write!(f, "{}B at {at}, {send_back} back", l(side)),
            Action::Move {
                side,
                piece,
                from,
                to,
            } => write!(f, "{}{} {from} -> {to}", l(side), piece.letter()),
            Action::Exchange { side, rook, king } => {
                write!(f, "{}R {rook} <-> {}K {king}", l(side), l(side))
            }
            Action::Step { side, from, to } => write!(f, "{}P step {from} -> {to}", l(side)),
        }
    }
}

/// A Twelve game: the position, whose turn it is, and what the rules
/// remember.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Twelve {
    opts: Options,
    pos: Pos,
    to_move: usize,
    /// TW-7.2: each side's exchange is spent.
    exchanged: [bool; 2],
    /// Queens out of the game (TW-8.1) whose card still lies on this cell:
    /// the table keeps them until someone takes them off.
    lingering: [Option<Cell>; 2],
    /// `area = "anchored"`: the first fixed column and row, once fixed.
    anchor: [Option<i32>; 2],
    phase: Phase,
    over: Option<Outcome>,
    /// The standard start, before the first table fixed the Kings'
    /// orientation (TW-2.1 house rule).
    fresh: bool,
}

/// "White Queen", for sentences.
pub fn title(card: Card) -> String {
    let p = card.piece.name();
    format!(
        "{} {}{}",
        card.colour.title(),
        p[..1].to_uppercase(),
        &p[1..]
    )
}

/// Cells as "(0,1), (2,1)".
pub fn list(cells: &[Cell]) -> String {
    cells
        .iter()
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

impl Twelve {
    /// The standard start: White King (0,0), Black King (0,1), White to
    /// move (TW-2.1, TW-2.2). The first table may turn the Kings.
    pub fn new(opts: Options) -> Twelve {
        let mut g = Twelve::oriented(opts, Cell::new(0, 1));
        g.fresh = true;
        g
    }

    /// A start with the White King on (0,0) and the Black King on `black`
    /// (a side neighbour).
    pub fn oriented(opts: Options, black: Cell) -> Twelve {
        let mut pos = Pos::default();
        pos.set(0, Piece::King, Spot::At(Cell::new(0, 0)));
        pos.set(1, Piece::King, Spot::At(black));
        Twelve {
            opts,
            pos,
            to_move: 0,
            exchanged: [false; 2],
            lingering: [None; 2],
            anchor: [None; 2],
            phase: Phase::Turn,
            over: None,
            fresh: false,
        }
    }

    pub fn options(&self) -> &Options {
        &self.opts
    }

    pub fn position(&self) -> &Pos {
        &self.pos
    }

    /// The side to act (in [`Phase::Entry`], the one who placed the Pawn).
    pub fn to_move(&self) -> usize {
        self.to_move
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    pub fn outcome(&self) -> Option<Outcome> {
        self.over
    }

    pub fn exchanged(&self, side: usize) -> bool {
        self.exchanged[side]
    }

    /// The cell of a side's Queen that is out of the game but still on the
    /// table.
    pub fn lingering(&self, side: usize) -> Option<Cell> {
        self.lingering[side]
    }

    pub fn supply(&self, side: usize) -> Vec<Piece> {
        self.pos.supply(side)
    }

    /// The same game moved by `d` on the table.
    pub fn shifted(&self, d: Cell) -> Twelve {
        let mut g = self.clone();
        g.pos = g.pos.shifted(d);
        for q in g.lingering.iter_mut().flatten() {
            *q = q.plus(d);
        }
        g.anchor = [
            g.anchor[0].map(|c| c + d.col),
            g.anchor[1].map(|r| r + d.row),
        ];
        match &mut g.phase {
            Phase::Entry { pawn: c } | Phase::SendBack { bishop: c } => *c = c.plus(d),
            Phase::Turn => {}
        }
        g
    }

    /// The table the players must leave now: the pieces in play, and Queens
    /// out of the game not yet taken off.
    pub fn table(&self) -> Table {
        let queens = (0..2).filter_map(|s| {
            self.lingering[s].map(|c| (c, Token::Up(Card::new(SIDES[s], Piece::Queen))))
        });
        self.pos
            .in_play()
            .map(|(card, c)| (c, Token::Up(card)))
            .chain(queens)
            .collect()
    }

    /// The columns (`axis` 0) or rows (1) in use, and the widest range the
    /// pieces may still reach under TW-1.5.
    pub fn area_limits(&self, axis: usize) -> Option<((i32, i32), (i32, i32))> {
        let (lo, hi) = self.pos.bbox()?;
        let (lo, hi) = if axis == 0 {
            (lo.col, hi.col)
        } else {
            (lo.row, hi.row)
        };
        let reach = match self.anchor[axis] {
            Some(a) => (a, a + 3),
            None => (hi - 3, lo + 3),
        };
        Some(((lo, hi), reach))
    }

    fn result_text(&self) -> Option<String> {
        self.over.map(|o| match o {
            Outcome::Win { winner, both } => {
                let loser = SIDES[1 - winner].title();
                if both {
                    format!(
                        "{} wins: both Kings are surrounded and {loser} made the last move",
                        SIDES[winner].title()
                    )
                } else {
                    format!(
                        "{} wins: the {loser} King is surrounded",
                        SIDES[winner].title()
                    )
                }
            }
            Outcome::Draw {
                both_surrounded: true,
            } => "Drawn: both Kings are surrounded".to_string(),
            Outcome::Draw {
                both_surrounded: false,
            } => "Drawn: neither player can act".to_string(),
        })
    }
}

pub(crate) fn action_event(
    side: usize,
    action: ActionKind,
    card: Card,
    from: Option<Cell>,
    to: Option<Cell>,
) -> EventBody {
    EventBody::Action(ActionEvent {
        player: SIDES[side].name().into(),
        action,
        card: Some(card),
        from,
        to,
        ..Default::default()
    })
}

pub(crate) fn game_over(outcome: Outcome) -> EventBody {
    match outcome {
        Outcome::Win { winner, .. } => EventBody::GameOver {
            result: GameResult::Win,
            winner: Some(SIDES[winner].name().into()),
        },
        Outcome::Draw { .. } => EventBody::GameOver {
            result: GameResult::Draw,
            winner: None,
        },
    }
}

impl crate::games::Game for Twelve {
    fn name(&self) -> &'static str {
        "twelve"
    }

    fn players(&self) -> Vec<String> {
        SIDES.iter().map(|c| c.name().to_string()).collect()
    }

    fn table(&self) -> Table {
        Twelve::table(self)
    }

    fn judge(&self, changes: &[crate::table::Change]) -> Verdict<Self> {
        judge::judge(self, changes)
    }

    fn is_over(&self) -> bool {
        self.over.is_some()
    }

    fn panel(&self) -> Panel {
        let players = (0..2)
            .map(|s| {
                let mut notes = vec![format!(
                    "Rook–King exchange: {}",
                    if self.exchanged[s] {
                        "used"
                    } else {
                        "available"
                    }
                )];
                if self.pos.spot(s, Piece::Queen) == Spot::Out {
                    notes.push(match self.lingering[s] {
                        Some(c) => {
                            format!("Queen out of the game: take it off the table at {c}")
                        }
                        None => "Queen out of the game".to_string(),
                    });
                }
                if let (Phase::Entry { pawn }, true) = (self.phase, s == self.to_move) {
                    notes.push(format!("the Pawn at {pawn} may still take its entry step"));
                }
                if let (Phase::SendBack { bishop }, true) = (self.phase, s == self.to_move) {
                    notes.push(format!(
                        "the Bishop at {bishop} sends a piece back before {} acts",
                        SIDES[1 - s].title()
                    ));
                }
                PlayerPanel {
                    colour: SIDES[s],
                    to_move: s == self.to_move && self.over.is_none(),
                    out: matches!(self.over, Some(Outcome::Win { winner, .. }) if winner != s),
                    in_check: false,
                    plan: self
                        .pos
                        .supply(s)
                        .into_iter()
                        .map(|p| Card::new(SIDES[s], p))
                        .collect(),
                    played: 0,
                    notes,
                }
            })
            .collect();
        let mut notes = Vec::new();
        for axis in [0, 1] {
            let Some(((lo, hi), (a, b))) = self.area_limits(axis) else {
                continue;
            };
            let fixed = if self.anchor[axis].is_some() {
                " (anchored)"
            } else {
                ""
            };
            // Short enough for the view's side panel.
            notes.push(format!(
                "{} {lo}..{hi} ({}/4) · reach {a}..{b}{fixed}",
                if axis == 0 { "Columns" } else { "Rows" },
                hi - lo + 1
            ));
        }
        let limit = match (self.area_limits(0), self.area_limits(1)) {
            (Some((_, (c0, c1))), Some((_, (r0, r1)))) => {
                Some((Cell::new(c0, r0), Cell::new(c1, r1)))
            }
            _ => None,
        };
        if self.opts != Options::default() {
            notes.push(format!("Options: {}", self.opts.to_toml()));
        }
        Panel {
            players,
            notes,
            result: self.result_text(),
            chessboard: false,
            cards: None,
            limit,
            take_off: self.lingering.iter().flatten().copied().collect(),
            armies: None,
            pending: self.send_back_pending(),
        }
    }

    /// A piece taken off is the action itself while a Bishop's send-back
    /// or a surrounded Queen's removal is due: judged at once then.
    fn lifted_cards_wait(&self) -> bool {
        !matches!(self.phase, Phase::SendBack { .. }) && self.lingering.iter().all(Option::is_none)
    }

    /// The first card of the supply, Queen to Pawn: a placement's legality
    /// does not depend on the piece, so any card the player holds is as
    /// placeable as another.
    fn next_card(&self) -> Option<Card> {
        if self.over.is_some() || self.phase != Phase::Turn {
            return None;
        }
        let s = self.to_move;
        let first = *self.pos.supply(s).first()?;
        Some(Card::new(SIDES[s], first))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::Game;

    #[test]
    fn the_panel_shows_supplies_exchanges_queens_and_the_area() {
        let g = Twelve::new(Options::default());
        let p = g.panel();
        assert_eq!(p.players.len(), 2);
        assert!(p.players[0].to_move && !p.players[1].to_move);
        let plan: Vec<String> = p.players[1].plan.iter().map(|c| c.to_string()).collect();
        assert_eq!(plan, ["bQ", "bR", "bB", "bN", "bP"]);
        assert_eq!(p.players[0].notes, ["Rook–King exchange: available"]);
        assert_eq!(
            p.notes,
            [
                "Columns 0..0 (1/4) · reach -3..3",
                "Rows 0..1 (2/4) · reach -2..3",
            ]
        );
        assert_eq!(g.next_card(), Some(Card::new(Colour::White, Piece::Queen)));

        let mut g = g;
        g.pos.set(0, Piece::Queen, Spot::Out);
        g.lingering[0] = Some(Cell::new(1, 0));
        g.exchanged[1] = true;
        g.over = Some(Outcome::Win {
            winner: 1,
            both: false,
        });
        let p = g.panel();
        assert!(p.players[0].out && !p.players[1].out);
        assert_eq!(p.take_off, [Cell::new(1, 0)], "the view marks the Queen");
        assert!(!p.players[0].to_move, "nobody moves once the game is over");
        assert!(
            p.players[0].notes[1].contains("take it off the table at (1,0)"),
            "{:?}",
            p.players[0].notes
        );
        assert_eq!(p.players[1].notes, ["Rook–King exchange: used"]);
        assert_eq!(
            p.players[0].plan.len(),
            4,
            "the Queen is out, not in the supply"
        );
        assert_eq!(
            p.result.as_deref(),
            Some("Black wins: the White King is surrounded")
        );
        assert_eq!(g.next_card(), None);
    }

    #[test]
    fn anchored_limits_show_in_the_panel() {
        let mut g = Twelve::new(Options {
            area: Area::Anchored,
            ..Options::default()
        });
        g.anchor[0] = Some(-1);
        assert_eq!(g.area_limits(0), Some(((0, 0), (-1, 2))));
        assert!(g.panel().notes[0].ends_with("reach -1..2 (anchored)"));
    }
}
