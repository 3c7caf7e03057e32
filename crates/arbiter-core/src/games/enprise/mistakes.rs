//! Physical mistakes injected into random legal games (for the property
//! tests and the soak): one wrong table shown in place of an action's,
//! the flag it must raise, and the check that the referee raises it, clears
//! it when the table is mended or taken back, and reads the rest of the
//! game as before.

use super::random::{RandomGame, Turn};
use super::{Action, EnPrise, Options, Sq};
use crate::event::{Event, EventBody, How};
use crate::games::Uncaught;
use crate::observation::Observation;
use crate::referee::Referee;
use crate::table::{Card, Cell, Piece, Table, Token};

/// The physical mistakes injected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Mistake {
    DropSwap,
    DropFlip,
    OutOfOrder,
    KnightAcrossGap,
    TouchingNothing,
    NextToEnemyKing,
    /// The next player acts before a mated player's cards are turned.
    FlipSkipped,
    /// A card of a player whose turn it is not.
    OutOfTurn,
    /// The next Battleplan card placed where the king had to be summoned
    /// (EP-KING-ANSWER).
    KingNotSummoned,
    /// A piece turned face-down where it stands, nothing else changed: no
    /// action does that.
    TurnedDown,
}

/// One mistake injected into a game: the wrong table shown instead of the
/// table of turn `at`, and the flag kind and cell it must raise.
pub struct Injection {
    pub at: usize,
    pub wrong: Table,
    pub kind: &'static str,
    pub cell: Cell,
}

/// The first turn from `pick` on (cyclically) where `mistake` can be made,
/// and the wrong table.
pub fn inject(game: &RandomGame, mistake: Mistake, pick: usize) -> Option<Injection> {
    let n = game.turns.len();
    (0..n).map(|k| (k + pick) % n).find_map(|at| {
        let t = &game.turns[at];
        // The mistake is made once any mated player's cards are turned.
        let before = &t.before.with_flips_done();
        let mut wrong = before.table();
        let (kind, cell) = match (mistake, t.action) {
            (
                Mistake::DropSwap,
                Action::Move {
                    card,
                    from,
                    to,
                    captured: None,
                    ..
                },
            ) => {
                wrong.set(from, None);
                wrong.set(to, Some(Token::Up(card)));
                ("missed_swap", from)
            }
            (
                Mistake::DropFlip,
                Action::Move {
                    card,
                    from,
                    to,
                    captured: Some(c),
                    ..
                },
            ) => {
                wrong.set(from, Some(Token::Up(c)));
                wrong.set(to, Some(Token::Up(card)));
                ("missed_flip", from)
            }
            (
                Mistake::OutOfOrder,
                Action::Place {
                    card,
                    to,
                    down: false,
                    ..
                },
            ) => {
                let other = [
                    Piece::Queen,
                    Piece::Rook,
                    Piece::Bishop,
                    Piece::Knight,
                    Piece::Pawn,
                ]
                .into_iter()
                .find(|&p| p != card.piece)?;
                wrong.set(to, Some(Token::Up(Card::new(card.colour, other))));
                ("wrong_card", to)
            }
            (Mistake::KnightAcrossGap, _)
                if !before.escape_pending() && !before.must_summon(before.to_move()) =>
            {
                let (from, to, card) = knight_across_gap(before)?;
                wrong.set(from, Some(Token::Down));
                wrong.set(to, Some(Token::Up(card)));
                ("illegal_move", from)
            }
            (Mistake::TouchingNothing, Action::Place { card, down, .. })
                if !before.escape_pending() && before.card_count() > 0 =>
            {
                let (lo, _) = wrong.bounds()?;
                let far = lo.offset(-3, -3);
                wrong.set(far, Some(if down { Token::Down } else { Token::Up(card) }));
                ("illegal_placement", far)
            }
            (
                Mistake::NextToEnemyKing,
                Action::Place {
                    card, down: false, ..
                },
            ) if !before.escape_pending() => {
                let cell = beside_enemy_king(before, card)?;
                wrong.set(cell, Some(Token::Up(card)));
                ("illegal_placement", cell)
            }
            // The next action on the table with the mated player's cards
            // still face-up.
            (Mistake::FlipSkipped, _) => {
                let (owed, _) = t.before.owed_flips();
                let &(cell, card) = owed.first()?;
                wrong = t.table.clone();
                for &(c, card) in owed {
                    if wrong.get(c) == Some(Token::Down) {
                        wrong.set(c, Some(Token::Up(card)));
                    }
                }
                if wrong.get(cell) != Some(Token::Up(card)) {
                    return None;
                }
                ("missed_elimination_flip", cell)
            }
            // Another player's next card, where the player to act would
            // place the card they did.
            // Not while the turn before may still be read two ways (a
            // summoning's escape square or the next player's face-down
            // pawn): under the other reading it may be that player's turn.
            (
                Mistake::OutOfTurn,
                Action::Place {
                    to, down: false, ..
                },
            ) if !before.escape_pending()
                && before.card_count() > 0
                && at > 0
                && !matches!(
                    game.turns[at - 1].action,
                    Action::Summon { .. }
                        | Action::Escape { .. }
                        | Action::Place { down: true, .. }
                ) =>
            {
                let me = before.to_move();
                let other = before
                    .player_colours()
                    .iter()
                    .copied()
                    .find(|&c| c != me && !before.is_out(c) && before.king_cell(c).is_some())?;
                let (plan, next) = before.battleplan(other)?;
                let piece = *plan.get(next)?;
                let card = Card::new(other, piece);
                // Not where the card would attack a king (that is another
                // flag first).
                if beside_enemy_king(before, card) == Some(to) || piece == Piece::Knight {
                    return None;
                }
                wrong.set(to, Some(Token::Up(card)));
                ("wrong_player", to)
            }
            (Mistake::KingNotSummoned, Action::Summon { player, to, .. })
                if before.must_summon(player) =>
            {
                let (plan, next) = before.battleplan(player)?;
                let piece = *plan.get(next)?;
                wrong.set(to, Some(Token::Up(Card::new(player, piece))));
                ("king_required", to)
            }
            // The mover's piece that the turn leaves where it is.
            (Mistake::TurnedDown, _) if before.owed_flips().0.is_empty() && at > 0 => {
                let me = before.to_move();
                let (cell, _) = wrong.iter().find(|&(c, tok)| {
                    matches!(tok, Token::Up(card) if card.colour == me)
                        && t.table.get(c) == Some(tok)
                })?;
                wrong.set(cell, Some(Token::Down));
                ("unexplained", cell)
            }
            _ => return None,
        };
        Some(Injection {
            at,
            wrong,
            kind,
            cell,
        })
    })
}

/// A knight of the player to move with a leap to an existing square whose
/// two L routes both have a gap.
fn knight_across_gap(g: &EnPrise) -> Option<(Cell, Cell, Card)> {
    let me = g.to_move();
    let table = g.table();
    for (from, tok) in table.iter() {
        let Token::Up(card) = tok else { continue };
        if card.colour != me || card.piece != Piece::Knight {
            continue;
        }
        for (dc, dr) in crate::games::board::KNIGHT_LEAPS {
            let to = from.offset(dc, dr);
            let dest_ok = match g.at(to) {
                Sq::Vacant => true,
                Sq::Piece(c) => c.colour != me && c.piece != Piece::King,
                Sq::Empty => false,
            };
            let routes = crate::games::board::knight_routes((dc, dr));
            let broken = routes
                .iter()
                .all(|r| r.iter().any(|&(c, rr)| !g.at(from.offset(c, rr)).exists()));
            if dest_ok && broken {
                return Some((from, to, card));
            }
        }
    }
    None
}

/// An empty or vacant cell touching an opponent's king where `card` would
/// otherwise be a fine placement (touching the board, not covering a piece).
fn beside_enemy_king(g: &EnPrise, card: Card) -> Option<Cell> {
    g.player_colours()
        .iter()
        .filter(|&&c| c != card.colour)
        .find_map(|&c| {
            let k = g.king_cell(c)?;
            crate::games::board::DIRECTIONS
                .iter()
                .map(|&(dc, dr)| k.offset(dc, dr))
                .find(|&cell| !matches!(g.at(cell), Sq::Piece(_)))
        })
}

/// Every mistake injected.
pub const MISTAKES: [Mistake; 10] = [
    Mistake::DropSwap,
    Mistake::DropFlip,
    Mistake::OutOfOrder,
    Mistake::KnightAcrossGap,
    Mistake::TouchingNothing,
    Mistake::NextToEnemyKing,
    Mistake::FlipSkipped,
    Mistake::OutOfTurn,
    Mistake::KingNotSummoned,
    Mistake::TurnedDown,
];

/// Plays `game` through a referee with `inj` shown in place of turn
/// `inj.at`, then the mended table, then the rest of the game.
/// With `take_back`, the players first restore the table as it was before
/// the mistake (the flag clears as taken back), then make the action properly.
pub fn check_injection(
    game: &RandomGame,
    mistake: Mistake,
    inj: &Injection,
    take_back: bool,
) -> Result<(), Uncaught> {
    let mut referee = Referee::new(EnPrise::new(
        &game.players,
        game.plans.clone(),
        Options::default(),
    ));
    let mut step = 0;
    let mut observe = |table: &Table| {
        let ev = referee.observe(step, &Observation::Table(table.clone()));
        step += 1;
        ev
    };
    let seed = game.seed;
    for table in game.turns[..inj.at].iter().flat_map(tables) {
        if !flags(&observe(table)).is_empty() {
            return Err(Uncaught(format!("seed {seed}: flag before the mistake")));
        }
    }
    let ev = observe(&inj.wrong);
    let fl = flags(&ev);
    let [flag] = fl.as_slice() else {
        return Err(Uncaught(format!(
            "seed {seed} {mistake:?}: expected one flag, got {ev:?}"
        )));
    };
    let EventBody::Flag(f) = &flag.body else {
        unreachable!()
    };
    // A flag that gives each open reading's mend (the table reads several
    // ways) is right when the mistake's cell is among its cells: its words
    // give the mend of the reading the mistake was made under.
    let several = f.message.starts_with(crate::referee::READ_SEVERAL_WAYS);
    if (f.kind.as_str() != inj.kind && !several) || !f.cells.contains(&inj.cell) {
        return Err(Uncaught(format!(
            "seed {seed} {mistake:?} at turn {}: expected {} at {:?}, got {f:?}",
            inj.at, inj.kind, inj.cell
        )));
    }
    if take_back {
        let ev = observe(&game.turns[inj.at].before.table());
        let cleared = ev.iter().any(|e| {
            matches!(
                &e.body,
                EventBody::Cleared {
                    how: How::TakenBack,
                    ..
                }
            )
        });
        if !cleared || ev.len() != 1 {
            return Err(Uncaught(format!(
                "seed {seed} {mistake:?}: takeback not recognised: {ev:?}"
            )));
        }
    }
    let ev = observe(&game.turns[inj.at].table);
    let cleared = ev
        .iter()
        .any(|e| matches!(&e.body, EventBody::Cleared { .. }));
    // Once taken back there is nothing left to clear.
    if cleared == take_back || !flags(&ev).is_empty() {
        return Err(Uncaught(format!(
            "seed {seed} {mistake:?}: mending did not clear: {ev:?}"
        )));
    }
    // The mended action (after any reading left open from the turn before).
    let want = game.turns[inj.at].events.iter().find_map(|e| match e {
        EventBody::Action(a) => Some(a.clone()),
        _ => None,
    });
    let has_want = |ev: &[Event]| {
        ev.iter()
            .any(|e| matches!(&e.body, EventBody::Action(a) if Some(a) == want.as_ref()))
    };
    // A face-down card left open from the turn before (escape square or
    // the next player's pawn) may still be open after the mend: then the
    // action is announced with the reading, once a later turn decides it.
    let mut seen = ev.clone();
    let mut next = inj.at + 1;
    if let Some(table) = &game.turns[inj.at].then {
        seen.extend(observe(table));
    }
    while !has_want(&seen) && next < game.turns.len() && next <= inj.at + 9 {
        let ev: Vec<_> = tables(&game.turns[next]).flat_map(&mut observe).collect();
        if !flags(&ev).is_empty() {
            return Err(Uncaught(format!(
                "seed {seed} {mistake:?}: flag after mending: {ev:?}"
            )));
        }
        seen.extend(ev);
        next += 1;
    }
    for table in game.turns[next..].iter().flat_map(tables) {
        if !flags(&observe(table)).is_empty() {
            return Err(Uncaught(format!(
                "seed {seed} {mistake:?}: flag after mending"
            )));
        }
    }
    // Readings still open when the game ends (a summoner's face-down
    // cards, each an escape square or a pawn, while the other player can
    // only pass) are settled by the input's end, as a live game's are.
    if !has_want(&seen) && next == game.turns.len() {
        seen.extend(referee.finish(step));
    }
    if !has_want(&seen) {
        return Err(Uncaught(format!(
            "seed {seed} {mistake:?}: mended as {seen:?}, not {want:?}"
        )));
    }
    Ok(())
}

/// The tables a turn leaves: its action's, and the mated player's cards
/// turned in a table of their own when they were.
pub fn tables(t: &Turn) -> impl Iterator<Item = &Table> {
    std::iter::once(&t.table).chain(&t.then)
}

fn flags(events: &[Event]) -> Vec<&Event> {
    events
        .iter()
        .filter(|e| matches!(e.body, EventBody::Flag(_)))
        .collect()
}
