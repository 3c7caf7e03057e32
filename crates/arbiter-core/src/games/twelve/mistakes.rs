//! Physical mistakes injected into random legal Twelve games (for the
//! property tests and the soak): a wrong table shown before one of the
//! game's tables, the flag it must raise, and the check that the referee
//! raises exactly that flag, that the game's own table then mends it, and
//! that the rest of the game reads as before.

use super::random::RandomGame;
use super::{Phase, SIDES, Spot, Twelve};
use crate::event::{Event, EventBody, FlagKind, How, first_difference, sole_flag};
use crate::games::Uncaught;

/// The events of one step, `game_started` aside (for the tests).
pub use crate::event::events_at as at;
use crate::games::board::{DIRECTIONS, KNIGHT_LEAPS};
use crate::observation::Observation;
use crate::referee::replay_observations;
use crate::table::{Card, Cell, Piece, Table, Token};

/// What to look for after a mistake: the flag's kind, the start of its
/// rule ID, and its cells (as a set).
#[derive(Clone, Debug)]
pub struct Expect {
    pub kind: FlagKind,
    pub rule: &'static str,
    pub cells: Vec<Cell>,
}

/// A mistaken table and what the referee must say of it.
pub type Mistake = (Table, Expect);

/// The mistakes made in a plain state (see [`plain_states`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// A placement touching no piece of its colour (TW-4.1).
    TouchingNoOwn,
    /// A placement beside the enemy King (TW-4.2).
    BesideEnemyKing,
    /// A move that splits its colour (TW-6).
    SplittingMove,
    /// A Queen, Rook or Bishop passing an enemy piece (TW-5.6).
    SliderPassing,
    /// The opponent's piece moved (TW-3.4).
    OpponentsPiece,
    /// A second Rook–King exchange (TW-7.2).
    SecondExchange,
}

/// Every kind, in order.
pub const KINDS: [Kind; 6] = [
    Kind::TouchingNoOwn,
    Kind::BesideEnemyKing,
    Kind::SplittingMove,
    Kind::SliderPassing,
    Kind::OpponentsPiece,
    Kind::SecondExchange,
];

/// The mistake of kind `kind` in `state`, if the state offers one.
pub fn make(kind: Kind, state: &Twelve) -> Option<Mistake> {
    match kind {
        Kind::TouchingNoOwn => touching_no_own(state),
        Kind::BesideEnemyKing => beside_enemy_king(state),
        Kind::SplittingMove => splitting_move(state),
        Kind::SliderPassing => slider_passing(state),
        Kind::OpponentsPiece => opponents_piece(state),
        Kind::SecondExchange => second_exchange(state),
    }
}

/// The states of a game where the player to move acts afresh: not the
/// start, not a Pawn's open step or a Bishop's send-back, no Queen to take
/// off, the game not over.
pub fn plain_states(g: &RandomGame) -> impl Iterator<Item = (usize, &Twelve)> {
    g.steps.iter().enumerate().filter_map(|(i, s)| {
        let t = &s.before;
        let plain = i > 0
            && s.action.is_some()
            && t.outcome().is_none()
            && t.phase() == Phase::Turn
            && (0..2).all(|side| t.lingering(side).is_none());
        plain.then_some((i, t))
    })
}

/// The events of a replay of `obs` in `g`'s options.
pub fn replay(g: &RandomGame, obs: &[Observation]) -> Vec<Event> {
    replay_observations(Twelve::new(g.opts), obs)
}

pub use crate::event::same_cells;

/// Puts `mistake` before table `i` and checks: it raises exactly the
/// expected flag; table `i` then clears it as mended; every later table
/// announces what it announced without the mistake.
pub fn check_injection(
    g: &RandomGame,
    i: usize,
    mistake: Table,
    want: &Expect,
) -> Result<(), Uncaught> {
    let clean = g.observations();
    let mut obs = clean.clone();
    obs.insert(i, Observation::Table(mistake));
    let base = replay(g, &clean);
    let got = replay(g, &obs);
    let ctx = format!("seed {}, table {i}, {:?}", g.seed, want.kind);
    let f = sole_flag(&got, i).map_err(|e| Uncaught(format!("{ctx}: {e}")))?;
    if !f.raises(want.kind, want.rule, &want.cells, None) {
        return Err(Uncaught(format!(
            "{ctx}: got {} {} {:?} ({}), want {} {:?}",
            f.kind.as_str(),
            f.rule,
            f.cells,
            f.message,
            want.rule,
            want.cells
        )));
    }
    let mended = at(&got, i + 1);
    if !matches!(mended.first(), Some(EventBody::Cleared { kind, how: How::Mended }) if *kind == want.kind)
    {
        return Err(Uncaught(format!("{ctx}: after the mistake {mended:?}")));
    }
    if let Some(step) = first_difference(&got, &base, clean.len(), i, 1) {
        return Err(Uncaught(format!(
            "{ctx}: table {step} differs after the mistake"
        )));
    }
    Ok(())
}

/// The table of `state` with `card` put on `cell`.
pub fn with(state: &Twelve, cell: Cell, card: Card) -> Table {
    let mut t = state.table();
    t.set(cell, Some(Token::Up(card)));
    t
}

/// A card of the mover's supply other than a Pawn (whose entry step could
/// make a wrong cell right).
fn placeable(state: &Twelve) -> Option<Card> {
    let side = state.to_move();
    state
        .supply(side)
        .into_iter()
        .find(|&p| p != Piece::Pawn)
        .map(|p| Card::new(SIDES[side], p))
}

/// Cells of the current bounding box, row-major.
fn box_cells(state: &Twelve) -> Vec<Cell> {
    let Some((lo, hi)) = state.position().bbox() else {
        return vec![];
    };
    (lo.row..=hi.row)
        .flat_map(|r| (lo.col..=hi.col).map(move |c| Cell::new(c, r)))
        .collect()
}

/// Within the box and the limits the area may still reach.
fn reachable(state: &Twelve, c: Cell) -> bool {
    [(0, c.col), (1, c.row)].into_iter().all(|(axis, v)| {
        state
            .area_limits(axis)
            .is_some_and(|(_, (lo, hi))| (lo..=hi).contains(&v))
    })
}

/// The table with the piece on `from` moved to `to`.
fn moved(state: &Twelve, from: Cell, to: Cell) -> Table {
    let mut t = state.table();
    let card = t.get(from);
    t.set(from, None);
    t.set(to, card);
    t
}

/// A placement touching no piece of its colour (TW-4.1).
fn touching_no_own(state: &Twelve) -> Option<Mistake> {
    let card = placeable(state)?;
    let side = state.to_move();
    let pos = state.position();
    let c = box_cells(state).into_iter().find(|&c| {
        pos.at(c).is_none() && pos.side_in_play(side).all(|(_, o)| o.king_distance(c) > 1)
    })?;
    Some((
        with(state, c, card),
        Expect {
            kind: FlagKind::IllegalPlacement,
            rule: "TW-4.1",
            cells: vec![c],
        },
    ))
}

/// A placement beside the enemy King (TW-4.2).
fn beside_enemy_king(state: &Twelve) -> Option<Mistake> {
    let card = placeable(state)?;
    let side = state.to_move();
    let pos = state.position();
    let king = pos.cell_of(1 - side, Piece::King)?;
    let c = [(1, 0), (-1, 0), (0, 1), (0, -1)]
        .into_iter()
        .map(|(dc, dr)| king.offset(dc, dr))
        .find(|&c| {
            pos.at(c).is_none()
                && reachable(state, c)
                && pos.side_in_play(side).any(|(_, o)| o.king_distance(c) == 1)
        })?;
    Some((
        with(state, c, card),
        Expect {
            kind: FlagKind::IllegalPlacement,
            rule: "TW-4.2",
            cells: vec![c],
        },
    ))
}

/// A move that splits its colour (TW-6).
fn splitting_move(state: &Twelve) -> Option<Mistake> {
    let side = state.to_move();
    let pos = state.position();
    let inside = box_cells(state);
    for (piece, from) in pos.side_in_play(side) {
        let steps: Vec<(i32, i32)> = match piece {
            Piece::King => DIRECTIONS.to_vec(),
            Piece::Knight => KNIGHT_LEAPS.to_vec(),
            Piece::Pawn => DIRECTIONS[..4].to_vec(),
            _ => continue,
        };
        for (dc, dr) in steps {
            let to = from.offset(dc, dr);
            let beside = pos
                .cell_of(1 - side, Piece::King)
                .is_some_and(|k| (k.col - to.col).abs() + (k.row - to.row).abs() == 1);
            if pos.at(to).is_some()
                || !inside.contains(&to)
                || (state.options().side_rule_on_moves && beside)
            {
                continue;
            }
            let mut after = *pos;
            after.set(side, piece, Spot::At(to));
            if after.groups(side) > pos.groups(side) {
                return Some((
                    moved(state, from, to),
                    Expect {
                        kind: FlagKind::IllegalMove,
                        rule: "TW-6.",
                        cells: vec![from, to],
                    },
                ));
            }
        }
    }
    None
}

/// A Queen, Rook or Bishop passing an enemy piece (TW-5.6).
fn slider_passing(state: &Twelve) -> Option<Mistake> {
    let side = state.to_move();
    let pos = state.position();
    let inside = box_cells(state);
    for (piece, from) in pos.side_in_play(side) {
        let dirs: &[(i32, i32)] = match piece {
            Piece::Rook => &DIRECTIONS[..4],
            Piece::Bishop => &DIRECTIONS[4..],
            Piece::Queen => &DIRECTIONS,
            _ => continue,
        };
        for &(dc, dr) in dirs {
            let mut blocked = false;
            for k in 1..4 {
                let c = from.offset(dc * k, dr * k);
                match pos.at(c) {
                    Some(card) if card.colour != SIDES[side] => blocked = true,
                    Some(_) => {}
                    None if blocked && inside.contains(&c) => {
                        return Some((
                            moved(state, from, c),
                            Expect {
                                kind: FlagKind::IllegalMove,
                                rule: "TW-5.6",
                                cells: vec![from, c],
                            },
                        ));
                    }
                    None => {}
                }
            }
        }
    }
    None
}

/// The opponent's piece moved (TW-3.4).
fn opponents_piece(state: &Twelve) -> Option<Mistake> {
    let side = 1 - state.to_move();
    let pos = state.position();
    let inside = box_cells(state);
    let (from, to) = pos.side_in_play(side).find_map(|(_, from)| {
        [(1, 0), (-1, 0), (0, 1), (0, -1)]
            .into_iter()
            .map(|(dc, dr)| from.offset(dc, dr))
            .find(|&to| pos.at(to).is_none() && inside.contains(&to))
            .map(|to| (from, to))
    })?;
    Some((
        moved(state, from, to),
        Expect {
            kind: FlagKind::WrongPlayer,
            rule: "TW-3.4",
            cells: vec![from, to],
        },
    ))
}

/// A second Rook–King exchange (TW-7.2).
fn second_exchange(state: &Twelve) -> Option<Mistake> {
    let side = state.to_move();
    let pos = state.position();
    if !state.exchanged(side) {
        return None;
    }
    let (rook, king) = (
        pos.cell_of(side, Piece::Rook)?,
        pos.cell_of(side, Piece::King)?,
    );
    let mut t = state.table();
    t.set(rook, Some(Token::Up(Card::new(SIDES[side], Piece::King))));
    t.set(king, Some(Token::Up(Card::new(SIDES[side], Piece::Rook))));
    Some((
        t,
        Expect {
            kind: FlagKind::IllegalMove,
            rule: "TW-7.2",
            cells: vec![rook, king],
        },
    ))
}

/// The tables of `g` where a Queen's removal (TW-8.3) may be skipped: a
/// table that only takes surrounded Queens off, followed by an action that
/// puts nothing where a Queen stood (a card put there would hide whether
/// the Queen was ever taken off).
pub fn removal_tables(g: &RandomGame) -> Vec<usize> {
    (1..g.steps.len().saturating_sub(1))
        .filter(|&r| {
            let (s, next) = (&g.steps[r], &g.steps[r + 1]);
            s.removal
                && s.action.is_none()
                && next.action.is_some()
                && !next.removal
                && (0..2)
                    .filter_map(|side| s.before.lingering(side))
                    .all(|c| next.table.get(c).is_none())
        })
        .collect()
}

/// The Queens of removal table `r` left on the table into the next action,
/// in place of table `r`: it must raise `missing_removal` (TW-8.3) at the
/// Queens, and wait; the next table, the Queens taken off as well, mends
/// it and announces the removal and the action together; every later
/// table reads as before.
pub fn check_queen_left(g: &RandomGame, r: usize) -> Result<(), Uncaught> {
    let before = &g.steps[r].before;
    let queens: Vec<(usize, Cell)> = (0..2)
        .filter_map(|s| before.lingering(s).map(|c| (s, c)))
        .collect();
    let mut mistake = g.steps[r + 1].table.clone();
    for &(s, c) in &queens {
        mistake.set(c, Some(Token::Up(Card::new(SIDES[s], Piece::Queen))));
    }
    let clean = g.observations();
    let mut obs = clean.clone();
    obs[r] = Observation::Table(mistake);
    let base = replay(g, &clean);
    let got = replay(g, &obs);
    let ctx = format!("seed {}, table {r}, a Queen left", g.seed);
    let f = sole_flag(&got, r).map_err(|e| Uncaught(format!("{ctx}: {e}")))?;
    let cells: Vec<Cell> = queens.iter().map(|&(_, c)| c).collect();
    if !f.raises(FlagKind::MissingRemoval, "TW-8.3", &cells, None) {
        return Err(Uncaught(format!(
            "{ctx}: got {} {} {:?} ({}), want missing_removal TW-8.3 {cells:?}",
            f.kind.as_str(),
            f.rule,
            f.cells,
            f.message
        )));
    }
    let mended = at(&got, r + 1);
    if !matches!(
        mended.first(),
        Some(EventBody::Cleared {
            kind: FlagKind::MissingRemoval,
            how: How::Mended
        })
    ) {
        return Err(Uncaught(format!("{ctx}: after the mistake {mended:?}")));
    }
    // The removal and the action, announced together.
    let want: Vec<&EventBody> = at(&base, r).into_iter().chain(at(&base, r + 1)).collect();
    if mended[1..] != want[..] {
        return Err(Uncaught(format!(
            "{ctx}: the mending table announced {:?}, want {want:?}",
            &mended[1..]
        )));
    }
    match (r + 2..=clean.len()).find(|&step| at(&got, step) != at(&base, step)) {
        Some(step) => Err(Uncaught(format!(
            "{ctx}: table {step} differs after the mistake"
        ))),
        None => Ok(()),
    }
}
