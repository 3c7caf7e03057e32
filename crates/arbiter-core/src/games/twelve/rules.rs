//! The rules as pure functions over a [`Twelve`]: the area limit and
//! surrounding (TW-1), placement (TW-4), movement (TW-5), connectivity
//! (TW-6), the exchange (TW-7), and the end of a turn (TW-3.3: victory,
//! then Queen removal, then a pass when the next player cannot act).
//!
//! Legality lives in one place: the `check_*` functions say whether one
//! attempted action is legal and, if not, which rule it breaks, in a
//! sentence; [`Twelve::legal_actions`] lists the candidates that pass them,
//! so what the engine lists and what the referee accepts cannot drift apart.

use super::{
    Action, Outcome, Phase, Pos, SIDES, Spot, Twelve, action_event, game_over, list, title,
};
use crate::event::ActionKind;
use crate::event::{ActionEvent, EventBody, FlagKind};
use crate::games::board::{DIRECTIONS, KNIGHT_LEAPS, line_between};
use crate::table::{Card, Cell, Piece};

/// Why an attempted action is illegal: the rule, in words, and the cells to
/// look at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    pub kind: FlagKind,
    pub rule: &'static str,
    pub message: String,
    /// The side that acted (not always the one whose turn it is).
    pub side: usize,
    pub cells: Vec<Cell>,
}

fn violation(
    kind: FlagKind,
    rule: &'static str,
    side: usize,
    cells: Vec<Cell>,
    message: String,
) -> Violation {
    Violation {
        kind,
        rule,
        message,
        side,
        cells,
    }
}

const SIDE_STEPS: [(i32, i32); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];

/// The farthest a slider need look: a legal destination stays within the
/// 4x4 box of the other pieces, at most 6 cells from where it starts.
const MAX_SLIDE: i32 = 7;

pub(super) fn side_neighbours(c: Cell) -> impl Iterator<Item = Cell> {
    SIDE_STEPS.into_iter().map(move |(dc, dr)| c.offset(dc, dr))
}

fn adjacent(c: Cell) -> impl Iterator<Item = Cell> {
    DIRECTIONS.into_iter().map(move |(dc, dr)| c.offset(dc, dr))
}

fn is_side_neighbour(a: Cell, b: Cell) -> bool {
    (a.col - b.col).abs() + (a.row - b.row).abs() == 1
}

/// How a position breaks TW-1.5, for messages.
enum AreaBreak {
    Wide(i32),
    High(i32),
    OffColumns(i32, i32),
    OffRows(i32, i32),
}

impl AreaBreak {
    fn says(&self) -> String {
        match *self {
            AreaBreak::Wide(w) => format!("the pieces would span {w} columns, and 4 is the limit"),
            AreaBreak::High(h) => format!("the pieces would span {h} rows, and 4 is the limit"),
            AreaBreak::OffColumns(a, b) => {
                format!("the columns are anchored at {a}..{b} (area = anchored)")
            }
            AreaBreak::OffRows(a, b) => {
                format!("the rows are anchored at {a}..{b} (area = anchored)")
            }
        }
    }
}

impl Twelve {
    /// TW-1.5 for a box, with the anchored limits.
    fn box_fits(&self, lo: Cell, hi: Cell) -> Result<(), AreaBreak> {
        if let Some(a) = self.anchor[0]
            && (lo.col < a || hi.col > a + 3)
        {
            return Err(AreaBreak::OffColumns(a, a + 3));
        }
        if let Some(a) = self.anchor[1]
            && (lo.row < a || hi.row > a + 3)
        {
            return Err(AreaBreak::OffRows(a, a + 3));
        }
        let (w, h) = (hi.col - lo.col + 1, hi.row - lo.row + 1);
        if w > 4 {
            return Err(AreaBreak::Wide(w));
        }
        if h > 4 {
            return Err(AreaBreak::High(h));
        }
        Ok(())
    }

    fn fits(&self, pos: &Pos) -> Result<(), AreaBreak> {
        match pos.bbox() {
            Some((lo, hi)) => self.box_fits(lo, hi),
            None => Ok(()),
        }
    }

    /// TW-1.6: an empty cell where a piece would break TW-1.5.
    fn off_limits(&self, pos: &Pos, c: Cell) -> bool {
        let Some((lo, hi)) = pos.bbox() else {
            return false;
        };
        let lo = Cell::new(lo.col.min(c.col), lo.row.min(c.row));
        let hi = Cell::new(hi.col.max(c.col), hi.row.max(c.row));
        self.box_fits(lo, hi).is_err()
    }

    /// TW-1.7 under the `surround` option.
    pub(super) fn surrounded(&self, pos: &Pos, c: Cell) -> bool {
        let n = match self.opts.surround {
            super::Surround::Four => 4,
            super::Surround::Eight => 8,
        };
        DIRECTIONS[..n].iter().all(|&(dc, dr)| {
            let x = c.offset(dc, dr);
            pos.at(x).is_some() || self.off_limits(pos, x)
        })
    }

    fn king(&self, pos: &Pos, side: usize) -> Option<Cell> {
        pos.cell_of(side, Piece::King)
    }

    /// TW-4.2: `c` is a side neighbour of `side`'s opponent's King.
    fn beside_enemy_king(&self, pos: &Pos, side: usize, c: Cell) -> Option<Cell> {
        self.king(pos, 1 - side)
            .filter(|&k| is_side_neighbour(k, c))
    }

    /// Empty cells adjacent to `side`'s pieces: where TW-4.1 allows a
    /// placement before TW-4.2 and TW-4.3.
    fn frontier(&self, side: usize) -> Vec<Cell> {
        let mut out: Vec<Cell> = self
            .pos
            .side_in_play(side)
            .flat_map(|(_, c)| adjacent(c))
            .filter(|&c| self.pos.at(c).is_none())
            .collect();
        out.sort();
        out.dedup();
        out
    }

    /// Cells where `side` may place a piece of its supply now (which piece
    /// does not matter to TW-4.1 to TW-4.3); none if the supply is empty.
    pub(super) fn placement_cells(&self, side: usize) -> Vec<Cell> {
        let Some(&piece) = self.pos.supply(side).first() else {
            return Vec::new();
        };
        let mut cells = self.frontier(side);
        cells.retain(|&c| self.place_ok(side, piece, c).is_ok());
        cells
    }

    /// TW-4.1 (adjacency, empty cell), TW-4.2, TW-4.3 for a piece of
    /// `side` on `to`; the position after placing.
    fn place_ok(&self, side: usize, piece: Piece, to: Cell) -> Result<Pos, Violation> {
        let card = Card::new(SIDES[side], piece);
        let name = title(card);
        if let Some(other) = self.pos.at(to) {
            return Err(violation(
                FlagKind::IllegalPlacement,
                "TW-1.4",
                side,
                vec![to],
                format!(
                    "One piece per cell: the {name} cannot go on the {} at {to}; put it back",
                    title(other)
                ),
            ));
        }
        let touches = self
            .pos
            .side_in_play(side)
            .any(|(_, c)| c.king_distance(to) == 1);
        if !touches {
            return Err(violation(
                FlagKind::IllegalPlacement,
                "TW-4.1",
                side,
                vec![to],
                format!(
                    "A piece is placed next to one of its own colour (side or corner): no {} piece touches {to}; take the {name} back",
                    SIDES[side].title()
                ),
            ));
        }
        if let Some(k) = self.beside_enemy_king(&self.pos, side, to) {
            return Err(violation(
                FlagKind::IllegalPlacement,
                "TW-4.2",
                side,
                vec![to],
                format!(
                    "No piece is placed on a side of the opposing King: {to} is beside the {} King at {k} (its corners are allowed); take the {name} back",
                    SIDES[1 - side].title()
                ),
            ));
        }
        let mut pos = self.pos;
        pos.set(side, piece, Spot::At(to));
        if let Err(b) = self.fits(&pos) {
            return Err(violation(
                FlagKind::IllegalPlacement,
                "TW-4.3",
                side,
                vec![to],
                format!(
                    "The area stays within 4x4: with the {name} on {to} {}; take it back",
                    b.says()
                ),
            ));
        }
        Ok(pos)
    }

    /// TW-3.4: the table cannot tell acting out of turn from handling the
    /// opponent's piece, so one sentence covers both.
    fn wrong_player(&self, side: usize, cells: Vec<Cell>, what: String) -> Violation {
        let me = SIDES[self.to_move].title();
        violation(
            FlagKind::WrongPlayer,
            "TW-3.4",
            side,
            cells,
            format!(
                "It is {me}'s turn, and each player acts only with his own pieces: {what}; put it back"
            ),
        )
    }

    /// A card of `card` appearing on `to` as a placement by its owner.
    pub(super) fn check_place(&self, card: Card, to: Cell) -> Result<Pos, Violation> {
        let Some(side) = super::side_of(card.colour) else {
            return Err(violation(
                FlagKind::Unexplained,
                "TW-1.1",
                self.to_move,
                vec![to],
                format!(
                    "Twelve is played with White and Black pieces: take the {} off {to}",
                    title(card)
                ),
            ));
        };
        match self.pos.spot(side, card.piece) {
            Spot::At(c) => {
                return Err(violation(
                    FlagKind::Unexplained,
                    "TW-1.1",
                    side,
                    vec![to, c],
                    format!(
                        "There is one {} and it stands at {c}: the card at {to} cannot be it; take it away",
                        title(card)
                    ),
                ));
            }
            _ if side != self.to_move => {
                return Err(self.wrong_player(
                    side,
                    vec![to],
                    format!("the {} placed at {to}", title(card)),
                ));
            }
            Spot::Out => {
                return Err(violation(
                    FlagKind::IllegalPlacement,
                    "TW-8.3",
                    side,
                    vec![to],
                    format!(
                        "The {} was surrounded and is out of the game (TW-8.1); take it off {to}",
                        title(card)
                    ),
                ));
            }
            Spot::Supply => {}
        }
        self.place_ok(side, card.piece, to)
    }

    /// The geometry of a move (TW-5.2 to TW-5.8), with the slider's path.
    fn reaches(&self, side: usize, piece: Piece, from: Cell, to: Cell) -> Result<(), Violation> {
        let card = Card::new(SIDES[side], piece);
        let name = title(card);
        let (dc, dr) = (to.col - from.col, to.row - from.row);
        let bad = |rule: &'static str, how: &str| {
            Err(violation(
                FlagKind::IllegalMove,
                rule,
                side,
                vec![from, to],
                format!(
                    "The {name} {how}: it cannot go from {from} to {to}; put it back on {from}"
                ),
            ))
        };
        let line = line_between(from, to);
        match piece {
            Piece::King if from.king_distance(to) != 1 => {
                return bad("TW-5.2", "moves one cell to any adjacent cell");
            }
            Piece::Queen if line.is_none() => {
                return bad("TW-5.3", "moves along a row, column or diagonal");
            }
            Piece::Rook if dc != 0 && dr != 0 => {
                return bad("TW-5.4", "moves along a row or column");
            }
            Piece::Bishop if dc.abs() != dr.abs() => {
                return bad("TW-5.5", "moves along a diagonal");
            }
            Piece::Knight if !matches!((dc.abs(), dr.abs()), (1, 2) | (2, 1)) => {
                return bad(
                    "TW-5.7",
                    "leaps one cell straight then one diagonally onward, (±1,±2) or (±2,±1)",
                );
            }
            Piece::Pawn if !is_side_neighbour(from, to) => {
                return bad("TW-5.8", "steps one cell to a side neighbour");
            }
            _ => {}
        }
        if matches!(piece, Piece::Queen | Piece::Rook | Piece::Bishop)
            && let Some(((sc, sr), n)) = line
        {
            for k in 1..n {
                let c = from.offset(sc * k, sr * k);
                if let Some(other) = self.pos.at(c)
                    && other.colour != SIDES[side]
                {
                    return Err(violation(
                        FlagKind::IllegalMove,
                        "TW-5.6",
                        side,
                        vec![from, to],
                        format!(
                            "The {name} passes over its own colour only: the {} at {c} blocks {from} to {to}; put it back on {from}",
                            title(other)
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// TW-1.5 and TW-6 after a piece of `side` moved: `before` and `after`
    /// are the positions either side of the move.
    fn settle_move(
        &self,
        side: usize,
        name: &str,
        before: &Pos,
        after: Pos,
        (from, to): (Cell, Cell),
    ) -> Result<Pos, Violation> {
        let cells = vec![from, to];
        if let Err(b) = self.fits(&after) {
            return Err(violation(
                FlagKind::IllegalMove,
                "TW-1.5",
                side,
                cells,
                format!(
                    "The area stays within 4x4 after every action (TW-5.1): after this move of the {name} {}; put it back",
                    b.says()
                ),
            ));
        }
        let (was, now) = (before.groups(side), after.groups(side));
        if now > was {
            let (rule, why) = if was > 1 {
                (
                    "TW-6.3",
                    format!(
                        "{} is already in {was} groups and this would make {now}",
                        SIDES[side].title()
                    ),
                )
            } else {
                (
                    "TW-6.1",
                    format!("it would split {} in two", SIDES[side].title()),
                )
            };
            return Err(violation(
                FlagKind::IllegalMove,
                rule,
                side,
                cells,
                format!(
                    "Every colour stays connected: moving the {name} from {from} to {to} is not allowed, {why}; put it back on {from}"
                ),
            ));
        }
        Ok(after)
    }

    /// A move of the piece on `from` to the empty cell `to`.
    pub(super) fn check_move(&self, from: Cell, to: Cell) -> Result<Pos, Violation> {
        let Some(card) = self.pos.at(from) else {
            return Err(violation(
                FlagKind::Unexplained,
                "TW-10.1",
                self.to_move,
                vec![from, to],
                format!("Nothing stood at {from}"),
            ));
        };
        let side = super::side_of(card.colour).unwrap_or(self.to_move);
        let name = title(card);
        if side != self.to_move {
            return Err(self.wrong_player(
                side,
                vec![from, to],
                format!("the {name} moved from {from} to {to}"),
            ));
        }
        if let Some(other) = self.pos.at(to) {
            return Err(violation(
                FlagKind::IllegalMove,
                "TW-1.4",
                side,
                vec![from, to],
                format!(
                    "Nothing is captured: the {name} cannot go onto the {} at {to}; put both back",
                    title(other)
                ),
            ));
        }
        self.reaches(side, card.piece, from, to)?;
        if self.opts.side_rule_on_moves
            && let Some(k) = self.beside_enemy_king(&self.pos, side, to)
        {
            return Err(violation(
                FlagKind::IllegalMove,
                "TW-5.9",
                side,
                vec![from, to],
                format!(
                    "With side_rule_on_moves no piece moves onto a side of the opposing King: {to} is beside the {} King at {k}; put the {name} back on {from}",
                    SIDES[1 - side].title()
                ),
            ));
        }
        let mut after = self.pos;
        after.set(side, card.piece, Spot::At(to));
        self.settle_move(side, &name, &self.pos, after, (from, to))
    }

    /// In [`Phase::Entry`]: the placed Pawn's step from `from` to `to`
    /// (TW-4.4: a Pawn move under TW-5, TW-4.2 aside).
    pub(super) fn check_step(&self, from: Cell, to: Cell) -> Result<Pos, Violation> {
        let side = self.to_move;
        let name = title(Card::new(SIDES[side], Piece::Pawn));
        if !is_side_neighbour(from, to) {
            return Err(violation(
                FlagKind::IllegalMove,
                "TW-4.4",
                side,
                vec![from, to],
                format!(
                    "The Pawn's entry step is one cell to a side neighbour (TW-5.8): {from} to {to} is not; put the {name} back on {from}"
                ),
            ));
        }
        if let Some(other) = self.pos.at(to) {
            return Err(violation(
                FlagKind::IllegalMove,
                "TW-1.4",
                side,
                vec![from, to],
                format!(
                    "One piece per cell: the {name} cannot step onto the {} at {to}",
                    title(other)
                ),
            ));
        }
        let mut after = self.pos;
        after.set(side, Piece::Pawn, Spot::At(to));
        self.settle_move(side, &name, &self.pos, after, (from, to))
    }

    /// The Pawn entry from `at` to `to` in one table: the placement, then
    /// the step from the position it leaves.
    pub(super) fn check_pawn_entry(
        &self,
        side: usize,
        at: Cell,
        to: Cell,
    ) -> Result<Pos, Violation> {
        let placed = self.place_ok(side, Piece::Pawn, at)?;
        let mut open = self.clone();
        open.pos = placed;
        open.phase = Phase::Entry { pawn: at };
        open.to_move = side;
        open.check_step(at, to)
    }

    /// The exchange of `side`'s Rook on `rook` and King on `king`.
    pub(super) fn check_exchange(
        &self,
        side: usize,
        rook: Cell,
        king: Cell,
    ) -> Result<Pos, Violation> {
        if side != self.to_move {
            return Err(self.wrong_player(
                side,
                vec![rook, king],
                format!(
                    "the {} Rook and King swapped at {rook} and {king}",
                    SIDES[side].title()
                ),
            ));
        }
        if self.exchanged[side] {
            return Err(violation(
                FlagKind::IllegalMove,
                "TW-7.2",
                side,
                vec![rook, king],
                format!(
                    "{} has already made the Rook–King exchange, which is once per game; swap the Rook at {king} and the King at {rook} back",
                    SIDES[side].title()
                ),
            ));
        }
        let mut after = self.pos;
        after.set(side, Piece::Rook, Spot::At(king));
        after.set(side, Piece::King, Spot::At(rook));
        Ok(after)
    }

    /// TW-4.5 and TW-6.1: after a Bishop entered on `bishop` (`placed` is
    /// that position), the piece on `victim` goes back to its owner's
    /// supply.
    pub(super) fn check_send_back(
        &self,
        placed: &Pos,
        bishop: Cell,
        victim: Cell,
    ) -> Result<Pos, Violation> {
        let side = self.to_move;
        let Some(card) = placed.at(victim) else {
            return Err(violation(
                FlagKind::Unexplained,
                "TW-4.5",
                side,
                vec![victim],
                format!("Nothing stood at {victim} to send back"),
            ));
        };
        let name = title(card);
        if card.piece == Piece::King {
            return Err(violation(
                FlagKind::IllegalMove,
                "TW-4.5",
                side,
                vec![bishop, victim],
                format!(
                    "The Bishop entering at {bishop} sends back any piece but a King: put the {name} back on {victim} and send back another"
                ),
            ));
        }
        if victim == bishop {
            return Err(violation(
                FlagKind::IllegalMove,
                "TW-4.5",
                side,
                vec![bishop],
                "The Bishop entering sends back another piece, not itself".into(),
            ));
        }
        let owner = super::side_of(card.colour).unwrap_or(side);
        let mut after = *placed;
        after.set(owner, card.piece, Spot::Supply);
        for (s, colour) in SIDES.iter().enumerate() {
            let (was, now) = (placed.groups(s), after.groups(s));
            if now > was {
                let rule = if was > 1 { "TW-6.3" } else { "TW-6.1" };
                return Err(violation(
                    FlagKind::IllegalMove,
                    rule,
                    side,
                    vec![bishop, victim],
                    format!(
                        "Sending back the {name} from {victim} would split {} (every colour stays connected after a send-back); put it back and send back another{}",
                        colour.title(),
                        match self.send_back_choices(placed, bishop).as_slice() {
                            [] => String::new(),
                            c => format!(" (allowed: {})", list(c)),
                        }
                    ),
                ));
            }
        }
        Ok(after)
    }

    /// The pieces a Bishop entering on `bishop` may send back.
    pub(super) fn send_back_choices(&self, placed: &Pos, bishop: Cell) -> Vec<Cell> {
        let mut out: Vec<Cell> = placed
            .in_play()
            .filter(|&(card, c)| card.piece != Piece::King && c != bishop)
            .map(|(_, c)| c)
            .filter(|&c| {
                let Some(card) = placed.at(c) else {
                    return false;
                };
                let owner = super::side_of(card.colour).unwrap_or(0);
                let mut after = *placed;
                after.set(owner, card.piece, Spot::Supply);
                (0..2).all(|s| after.groups(s) <= placed.groups(s))
            })
            .collect();
        out.sort();
        out
    }

    /// Destinations the movement rule allows a piece (before area,
    /// connectivity and the side rule).
    fn destinations(&self, side: usize, piece: Piece, from: Cell, out: &mut Vec<Cell>) {
        let empty = |c: Cell| self.pos.at(c).is_none();
        match piece {
            Piece::King => out.extend(adjacent(from).filter(|&c| empty(c))),
            Piece::Knight => out.extend(
                KNIGHT_LEAPS
                    .iter()
                    .map(|&(dc, dr)| from.offset(dc, dr))
                    .filter(|&c| empty(c)),
            ),
            Piece::Pawn => out.extend(side_neighbours(from).filter(|&c| empty(c))),
            Piece::Queen | Piece::Rook | Piece::Bishop => {
                let dirs = match piece {
                    Piece::Rook => &DIRECTIONS[..4],
                    Piece::Bishop => &DIRECTIONS[4..],
                    _ => &DIRECTIONS[..],
                };
                for &(dc, dr) in dirs {
                    for k in 1..=MAX_SLIDE {
                        let c = from.offset(dc * k, dr * k);
                        match self.pos.at(c) {
                            None => out.push(c),
                            Some(o) if o.colour == SIDES[side] => {}
                            Some(_) => break,
                        }
                    }
                }
            }
        }
    }

    /// Every legal action of the player to act.
    pub fn legal_actions(&self) -> Vec<Action> {
        let mut out = Vec::new();
        self.each_action(&mut |a| {
            out.push(a);
            true
        });
        out
    }

    /// Whether the player to act has any legal action.
    pub fn has_legal_action(&self) -> bool {
        let mut any = false;
        self.each_action(&mut |_| {
            any = true;
            false
        });
        any
    }

    /// Calls `emit` with each legal action until it returns false.
    fn each_action(&self, emit: &mut dyn FnMut(Action) -> bool) {
        if self.over.is_some() {
            return;
        }
        let side = self.to_move;
        // The send-back is the only thing left of the turn; it is read from
        // the table, not listed (its choices are `send_back_choices`).
        if let super::Phase::SendBack { .. } = self.phase {
            return;
        }
        if let super::Phase::Entry { pawn } = self.phase {
            for to in side_neighbours(pawn) {
                if self.pos.at(to).is_none()
                    && self.check_step(pawn, to).is_ok()
                    && !emit(Action::Step {
                        side,
                        from: pawn,
                        to,
                    })
                {
                    return;
                }
            }
            return;
        }
        let supply = self.pos.supply(side);
        if !supply.is_empty() {
            let cells = self.placement_cells(side);
            for &piece in &supply {
                for &to in &cells {
                    match piece {
                        Piece::Bishop => {
                            let Ok(placed) = self.place_ok(side, piece, to) else {
                                continue;
                            };
                            let choices = self.send_back_choices(&placed, to);
                            if choices.is_empty() && !emit(Action::Place { side, piece, to }) {
                                return;
                            }
                            for send_back in choices {
                                if !emit(Action::BishopEntry {
                                    side,
                                    at: to,
                                    send_back,
                                }) {
                                    return;
                                }
                            }
                        }
                        _ => {
                            if !emit(Action::Place { side, piece, to }) {
                                return;
                            }
                        }
                    }
                }
            }
            if supply.contains(&Piece::Pawn) {
                // One entry per final cell: the first placement cell in
                // reading order, as the referee reads a table that cannot
                // show it; a final cell the Pawn could be placed on directly
                // reads as that placement.
                let mut seen: Vec<Cell> = Vec::new();
                for &at in &cells {
                    for to in side_neighbours(at) {
                        if self.pos.at(to).is_none()
                            && !cells.contains(&to)
                            && !seen.contains(&to)
                            && self.pawn_entry_cell(side, to, &cells) == Some(at)
                        {
                            seen.push(to);
                            if !emit(Action::PawnEntry { side, at, to }) {
                                return;
                            }
                        }
                    }
                }
            }
        }
        let mut dests = Vec::new();
        for (piece, from) in self.pos.side_in_play(side) {
            dests.clear();
            self.destinations(side, piece, from, &mut dests);
            for &to in &dests {
                if self.check_move(from, to).is_ok()
                    && !emit(Action::Move {
                        side,
                        piece,
                        from,
                        to,
                    })
                {
                    return;
                }
            }
        }
        if !self.exchanged[side]
            && let (Some(rook), Some(king)) = (
                self.pos.cell_of(side, Piece::Rook),
                self.pos.cell_of(side, Piece::King),
            )
        {
            emit(Action::Exchange { side, rook, king });
        }
    }

    /// The placement cell of a Pawn seen on `to` that cannot have been
    /// placed there directly: the first side neighbour, in reading order,
    /// from which the entry step is legal. `cells` are the legal placement
    /// cells.
    pub(super) fn pawn_entry_cell(&self, side: usize, to: Cell, cells: &[Cell]) -> Option<Cell> {
        let mut from: Vec<Cell> = side_neighbours(to).filter(|c| cells.contains(c)).collect();
        from.sort();
        from.into_iter()
            .find(|&at| self.check_pawn_entry(side, at, to).is_ok())
    }

    /// Plays a legal action (one [`Twelve::legal_actions`] lists or a
    /// `check_*` accepted) and ends the turn: the new state and the events
    /// to announce.
    pub fn apply(&self, action: Action) -> (Twelve, Vec<EventBody>) {
        let mut g = self.clone();
        g.fresh = false;
        let mut events = Vec::new();
        let side = action.side();
        let card = |p| Card::new(SIDES[side], p);
        let placed = |p, at| action_event(side, ActionKind::Place, card(p), None, Some(at));
        let moved =
            |p, from, to| action_event(side, ActionKind::Move, card(p), Some(from), Some(to));
        match action {
            Action::Place { piece, to, .. } => {
                g.pos.set(side, piece, Spot::At(to));
                events.push(placed(piece, to));
            }
            Action::PawnEntry { at, to, .. } => {
                g.pos.set(side, Piece::Pawn, Spot::At(to));
                events.push(placed(Piece::Pawn, at));
                events.push(moved(Piece::Pawn, at, to));
            }
            Action::BishopEntry { at, send_back, .. } => {
                let victim = g.pos.at(send_back);
                g.pos.set(side, Piece::Bishop, Spot::At(at));
                events.push(placed(Piece::Bishop, at));
                if let Some(v) = victim
                    && let Some(owner) = super::side_of(v.colour)
                {
                    g.pos.set(owner, v.piece, Spot::Supply);
                    let back =
                        action_event(side, ActionKind::ReturnToSupply, v, Some(send_back), None);
                    events.push(back);
                }
            }
            Action::Move {
                piece, from, to, ..
            } => {
                g.pos.set(side, piece, Spot::At(to));
                events.push(moved(piece, from, to));
            }
            // The placement is announced with its step: until the turn
            // ends, it was not certain which action the Pawn's was.
            Action::Step { from, to, .. } => {
                g.pos.set(side, Piece::Pawn, Spot::At(to));
                events.push(placed(Piece::Pawn, from));
                events.push(moved(Piece::Pawn, from, to));
            }
            Action::Exchange { rook, king, .. } => {
                g.pos.set(side, Piece::Rook, Spot::At(king));
                g.pos.set(side, Piece::King, Spot::At(rook));
                g.exchanged[side] = true;
                let swap = action_event(
                    side,
                    ActionKind::RookSwap,
                    card(Piece::Rook),
                    Some(rook),
                    Some(king),
                );
                events.push(swap);
            }
        }
        g.end_turn(side, &mut events);
        (g, events)
    }

    /// The Bishop's send-back still to do, as the view prompts for it.
    pub(super) fn send_back_pending(&self) -> Option<crate::games::Pending> {
        let Phase::SendBack { bishop } = self.phase else {
            return None;
        };
        let cells = self.send_back_choices(&self.pos, bishop);
        Some(crate::games::Pending {
            message: format!(
                "{}: the Bishop at {bishop} sends one piece back to its owner's supply: take one of those at {} off the table",
                SIDES[self.to_move].title(),
                list(&cells)
            ),
            cells,
        })
    }

    /// A Bishop placed on `at` with its send-back still to come (TW-4.5):
    /// the turn stays open in [`Phase::SendBack`]. Its events are the
    /// placement's; [`Self::apply_send_back`] then closes the turn as
    /// [`Action::BishopEntry`] would have.
    pub fn apply_bishop_alone(&self, at: Cell) -> (Twelve, Vec<EventBody>) {
        let side = self.to_move;
        let mut g = self.clone();
        g.fresh = false;
        g.pos.set(side, Piece::Bishop, Spot::At(at));
        g.phase = Phase::SendBack { bishop: at };
        let card = Card::new(SIDES[side], Piece::Bishop);
        (
            g,
            vec![action_event(side, ActionKind::Place, card, None, Some(at))],
        )
    }

    /// In [`Phase::SendBack`]: the piece on `victim` sent back, and the turn
    /// closed. The send-back must be legal ([`Self::check_send_back`]).
    pub fn apply_send_back(&self, victim: Cell) -> (Twelve, Vec<EventBody>) {
        let side = self.to_move;
        let mut g = self.clone();
        let mut events = Vec::new();
        if let Some(v) = g.pos.at(victim)
            && let Some(owner) = super::side_of(v.colour)
        {
            g.pos.set(owner, v.piece, Spot::Supply);
            events.push(action_event(
                side,
                ActionKind::ReturnToSupply,
                v,
                Some(victim),
                None,
            ));
        }
        g.end_turn(side, &mut events);
        (g, events)
    }

    /// A Pawn placement whose entry step may still follow (TW-4.4): the
    /// turn stays open. `None` for any other action, or when the Pawn has no
    /// legal step. Nothing is announced yet: the placement is announced
    /// with its step ([`Action::Step`]) or, when the turn closes without
    /// one, by the reading in which it did.
    pub fn apply_open(&self, action: Action) -> Option<(Twelve, Vec<EventBody>)> {
        let Action::Place {
            side,
            piece: Piece::Pawn,
            to,
        } = action
        else {
            return None;
        };
        let mut g = self.clone();
        g.fresh = false;
        g.pos.set(side, Piece::Pawn, Spot::At(to));
        g.phase = Phase::Entry { pawn: to };
        if !g.has_legal_action() {
            return None;
        }
        Some((g, vec![]))
    }

    /// TW-3.3: the end of `mover`'s turn. Anchors the area, judges victory
    /// (TW-9), takes surrounded Queens out of the game (TW-8.1; their cards
    /// stay on the table until taken off), and hands the turn on, passing
    /// (TW-3.2) a player who cannot act.
    fn end_turn(&mut self, mover: usize, events: &mut Vec<EventBody>) {
        self.phase = Phase::Turn;
        if self.opts.area == super::Area::Anchored
            && let Some((lo, hi)) = self.pos.bbox()
        {
            if self.anchor[0].is_none() && hi.col - lo.col + 1 >= 4 {
                self.anchor[0] = Some(lo.col);
            }
            if self.anchor[1].is_none() && hi.row - lo.row + 1 >= 4 {
                self.anchor[1] = Some(lo.row);
            }
        }
        let surrounded = |s: usize| {
            self.king(&self.pos, s)
                .is_some_and(|k| self.surrounded(&self.pos, k))
        };
        let outcome = match (surrounded(0), surrounded(1)) {
            (true, true) => Some(match self.opts.double_surround {
                super::DoubleSurround::Draw => Outcome::Draw {
                    both_surrounded: true,
                },
                super::DoubleSurround::MoverLoses => Outcome::Win {
                    winner: 1 - mover,
                    both: true,
                },
            }),
            (true, false) => Some(Outcome::Win {
                winner: 1,
                both: false,
            }),
            (false, true) => Some(Outcome::Win {
                winner: 0,
                both: false,
            }),
            (false, false) => None,
        };
        if let Some(o) = outcome {
            self.finish(o, events);
            return;
        }
        // Both Queens are judged on the same position before either leaves.
        let due: Vec<(usize, Cell)> = (0..2)
            .filter_map(|s| self.pos.cell_of(s, Piece::Queen).map(|c| (s, c)))
            .filter(|&(_, c)| self.surrounded(&self.pos, c))
            .collect();
        for (s, c) in due {
            self.pos.set(s, Piece::Queen, Spot::Out);
            self.lingering[s] = Some(c);
            // Said in the stream as well as the panel: the table must be
            // told to take the card off, and a journal should show why the
            // Queen left before its `remove_queen`.
            events.push(EventBody::Notice {
                kind: "queen_out".into(),
                message: format!(
                    "the {} Queen at {c} is surrounded and leaves the game (TW-8.1): take it off the table",
                    SIDES[s].title()
                ),
                cells: vec![],
            });
        }
        self.to_move = 1 - mover;
        if !self.has_legal_action() {
            events.push(pass(self.to_move));
            self.to_move = mover;
            if !self.has_legal_action() {
                self.finish(
                    Outcome::Draw {
                        both_surrounded: false,
                    },
                    events,
                );
            }
        }
    }

    fn finish(&mut self, o: Outcome, events: &mut Vec<EventBody>) {
        self.over = Some(o);
        events.push(game_over(o));
    }
}

fn pass(side: usize) -> EventBody {
    EventBody::Action(ActionEvent {
        player: SIDES[side].name().into(),
        action: ActionKind::Pass,
        ..Default::default()
    })
}
