//! Physical mistakes injected into random legal DoubleCross games (for the
//! property tests and the soak): a wrong board shown before one of the
//! game's observations, the flag it must raise, and the check that the
//! referee raises exactly that flag, clears it when the board is mended or
//! restored, and reads the rest of the game as before.

use super::PLAYERS;
use super::chess::{MoveKind, Position, Side, cell_of};
use super::deck::{DcCard, JoustMode};
use super::random::{RandomGame, random_game_with};
use super::{Action, DoubleCross, Options, table_of};
use crate::event::ActionKind;
use crate::event::{Event, EventBody, FlagKind, How, events_at as at, first_difference, sole_flag};
use crate::games::Game;
use crate::games::Uncaught;
use crate::observation::Observation;
use crate::referee::replay_observations;
use crate::table::{Cell, Piece};

/// One mistake: the wrong observation shown before step `at`, the flag it
/// must raise, and how the game's own observation then clears it.
#[derive(Clone, Debug)]
pub struct Injection {
    pub at: usize,
    pub mistake: Observation,
    pub kind: FlagKind,
    pub cells: Vec<Cell>,
    pub how: How,
    /// The players restore the board as it was before the mistake, then
    /// go on (the flag clears as taken back).
    pub restore_first: bool,
}

/// The mistakes injected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A piece of another type or colour than the card designates moved.
    Undesignated,
    /// A castling King moved, its Rook left behind (DC-3.5).
    CastleRookLeft,
    /// An en passant capture with the captured pawn left (DC-3.5).
    EnPassantPawnLeft,
    /// A piece removed between turns with no uncalled check (DC-6.7).
    Removal,
}

/// Every kind, in order.
pub const KINDS: [Kind; 4] = [
    Kind::Undesignated,
    Kind::CastleRookLeft,
    Kind::EnPassantPawnLeft,
    Kind::Removal,
];

/// A game that castles and captures en passant whenever it can (and makes
/// double steps so that it can), without Joust cards.
pub fn lively_game(seed: u64) -> RandomGame {
    let opts = Options {
        joust: JoustMode::Off,
        ..Options::default()
    };
    random_game_with(seed, opts, 150, &|_, actions| {
        let of = |kinds: &[MoveKind]| {
            actions
                .iter()
                .copied()
                .find(|a| matches!(a, Action::Move(m) if kinds.contains(&m.kind)))
        };
        of(&[MoveKind::Castle, MoveKind::EnPassant]).or_else(|| of(&[MoveKind::DoubleStep]))
    })
}

fn board_after(before: &Position, f: impl FnOnce(&mut Position)) -> Observation {
    let mut p = before.clone();
    f(&mut p);
    Observation::Table(table_of(&p))
}

/// The first step from `pick` on (cyclically) where `kind` can be made.
pub fn inject(g: &RandomGame, kind: Kind, pick: usize) -> Option<Injection> {
    let n = g.steps.len();
    (0..n)
        .map(|k| (k + pick) % n)
        .find_map(|i| inject_at(g, kind, i))
}

fn inject_at(g: &RandomGame, kind: Kind, i: usize) -> Option<Injection> {
    let s = &g.steps[i];
    let pos = s.before.position();
    let made = |mistake, kind, cells, how, restore_first| Injection {
        at: i,
        mistake,
        kind,
        cells,
        how,
        restore_first,
    };
    match kind {
        Kind::Undesignated => {
            let (Some(Action::Move(_)), Some(DcCard::Piece(card))) =
                (s.action, s.before.card_to_act())
            else {
                return None;
            };
            // A pseudo-legal move of a piece of another type or colour.
            let mut wrong = Vec::new();
            for side in [Side::White, Side::Black] {
                pos.gen_moves(side, None, Default::default(), &mut wrong);
            }
            let m = wrong.into_iter().find(|m| {
                pos.piece_at(m.from).is_some_and(|(side, piece)| {
                    (side.colour(), piece) != (card.colour, card.piece)
                }) && matches!(m.kind, MoveKind::Normal | MoveKind::DoubleStep)
                    && !matches!(pos.piece_at(m.to), Some((_, Piece::King)))
                    // A rook leaving its corner may be a castle begun with
                    // the rook (incomplete, DC-3.5), not a wrong piece.
                    && !(matches!(pos.piece_at(m.from), Some((_, Piece::Rook)))
                        && [0, 7, 56, 63].contains(&m.from))
            })?;
            Some(made(
                board_after(pos, |p| p.play(m)),
                FlagKind::IllegalMove,
                vec![cell_of(m.from), cell_of(m.to)],
                How::Mended,
                false,
            ))
        }
        Kind::CastleRookLeft => {
            let Some(Action::Move(m)) = s.action else {
                return None;
            };
            if m.kind != MoveKind::Castle {
                return None;
            }
            let (rf, rt) = m.rook_squares()?;
            let mistake = board_after(pos, |p| {
                let king = p.piece_at(m.from);
                p.set(m.from, None);
                p.set(m.to, king);
            });
            Some(made(
                mistake,
                FlagKind::IncompleteAction,
                vec![cell_of(rf), cell_of(rt)],
                How::Mended,
                false,
            ))
        }
        Kind::EnPassantPawnLeft => {
            let Some(Action::Move(m)) = s.action else {
                return None;
            };
            if m.kind != MoveKind::EnPassant {
                return None;
            }
            let victim = if m.to >= 32 { m.to - 8 } else { m.to + 8 };
            let mistake = board_after(pos, |p| {
                let pawn = p.piece_at(m.from);
                p.set(m.from, None);
                p.set(m.to, pawn);
            });
            Some(made(
                mistake,
                FlagKind::IncompleteAction,
                vec![cell_of(victim)],
                How::Mended,
                false,
            ))
        }
        Kind::Removal => {
            // A draw after a turn that changed the board: every check was
            // called, so nothing may be removed.
            let after_turn = i >= 3
                && matches!(s.observation, Observation::Draw(_))
                && s.before.awaits_draw()
                && s.before.turn_start().is_some_and(|t| t != pos);
            // Not after a Save King: a piece gone then reads as the King's
            // restoring half done (DC-9.1).
            let saved = g.steps[..i]
                .iter()
                .rev()
                .take_while(|p| !matches!(p.observation, Observation::Draw(_)))
                .any(|p| matches!(&p.observation, Observation::Call { call, .. } if call == "save-king"));
            if !after_turn || saved {
                return None;
            }
            let start = s.before.turn_start()?;
            let x = (0..64u8).find(|&sq| {
                matches!(pos.piece_at(sq), Some((_, p)) if p != Piece::King)
                    && pos.piece_at(sq) == start.piece_at(sq)
            })?;
            Some(made(
                board_after(pos, |p| p.set(x, None)),
                FlagKind::IllegalRemoval,
                vec![cell_of(x)],
                How::TakenBack,
                true,
            ))
        }
    }
}

fn replay(g: &RandomGame, obs: &[Observation]) -> Vec<Event> {
    replay_observations(DoubleCross::new(g.opts.clone()), obs)
}

/// Shows the mistake before step `inj.at` and checks: it raises one flag
/// of its kind at its cells; the step after it clears the flag as it
/// should; the rest of the game announces what it did without the mistake.
pub fn check_injection(g: &RandomGame, inj: &Injection) -> Result<(), Uncaught> {
    let i = inj.at;
    let clean: Vec<Observation> = g.steps.iter().map(|s| s.observation.clone()).collect();
    let mut obs = clean.clone();
    obs.insert(i, inj.mistake.clone());
    let mut extra = 1;
    if inj.restore_first {
        obs.insert(i + 1, Observation::Table(g.steps[i].before.table()));
        extra = 2;
    }
    let base = replay(g, &clean);
    let got = replay(g, &obs);
    let ctx = format!("seed {}, step {i}, {:?}", g.seed, inj.kind);
    let f = sole_flag(&got, i).map_err(|e| Uncaught(format!("{ctx}: {e}")))?;
    if !f.raises(inj.kind, "", &inj.cells, None) {
        return Err(Uncaught(format!(
            "{ctx}: got {} at {:?} ({}), want {:?}",
            f.kind.as_str(),
            f.cells,
            f.message,
            inj.cells
        )));
    }
    let mended = at(&got, i + 1);
    if !matches!(mended.first(), Some(EventBody::Cleared { kind, how }) if *kind == inj.kind && *how == inj.how)
    {
        return Err(Uncaught(format!("{ctx}: after the mistake {mended:?}")));
    }
    match first_difference(&got, &base, clean.len(), i, extra) {
        Some(step) => Err(Uncaught(format!(
            "{ctx}: step {step} differs after the mistake"
        ))),
        None => Ok(()),
    }
}

/// Mistakes of the game's other inputs: what was said and drawn, not the
/// board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputKind {
    /// A new check left uncalled into the opponent's draw (DC-6.3):
    /// `uncalled_check` at the checking and checked pieces.
    CheckNotCalled,
    /// A card drawn that is not in the draw pile (DC-3.1):
    /// `impossible_card`, said once; the right draw then goes on.
    CardNotInPile,
    /// A piece card drawn and no move made although one existed (DC-3.5):
    /// `missing_move` at the opponent's draw, and the turn is lost.
    MoveNotMade,
}

/// Every input kind, in order.
pub const INPUT_KINDS: [InputKind; 3] = [
    InputKind::CheckNotCalled,
    InputKind::CardNotInPile,
    InputKind::MoveNotMade,
];

impl InputKind {
    /// The flag it raises.
    pub fn flag(self) -> FlagKind {
        match self {
            InputKind::CheckNotCalled => FlagKind::UncalledCheck,
            InputKind::CardNotInPile => FlagKind::ImpossibleCard,
            InputKind::MoveNotMade => FlagKind::MissingMove,
        }
    }
}

/// Makes the input mistake `kind` at the first step from `pick` on
/// (cyclically) that offers it, and checks what the referee says of it
/// (see [`InputKind`]). `None` when the game offers no such step.
pub fn check_input_mistake(
    g: &RandomGame,
    kind: InputKind,
    pick: usize,
) -> Option<Result<(), Uncaught>> {
    let n = g.steps.len();
    (0..n).map(|k| (k + pick) % n).find_map(|i| match kind {
        InputKind::CheckNotCalled => check_not_called(g, i),
        InputKind::CardNotInPile => card_not_in_pile(g, i),
        InputKind::MoveNotMade => move_not_made(g, i),
    })
}

fn is_draw(o: &Observation) -> bool {
    matches!(o, Observation::Draw(_))
}

/// The one flag among `events`, if it is of `kind` and rule `rule`, charged
/// to `player`; an error saying what was seen otherwise.
fn the_flag<'a>(
    events: &[&'a EventBody],
    kind: FlagKind,
    rule: &str,
    player: &str,
    ctx: &str,
) -> Result<&'a crate::event::Flag, Uncaught> {
    let flags: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            EventBody::Flag(f) => Some(f),
            _ => None,
        })
        .collect();
    match flags[..] {
        [f] if f.kind == kind && f.rule == rule && f.player.as_deref() == Some(player) => Ok(f),
        _ => Err(Uncaught(format!(
            "{ctx}: want one {} ({rule}) charged to {player}, got {events:?}",
            kind.as_str()
        ))),
    }
}

/// The new checks at the end of a turn (DC-6.1, DC-6.2), found from the
/// positions alone: a piece attacking a King of the other colour that did
/// not attack it at the turn's start, or that moved, or whose King moved.
fn new_check_cells(start: &Position, end: &Position) -> Vec<Cell> {
    let mut cells = Vec::new();
    for side in [Side::White, Side::Black] {
        let Some(k) = end.king(side) else { continue };
        let now = end.attackers(k, side.other());
        for x in (0..64u8).filter(|x| now >> x & 1 == 1) {
            let moved =
                start.piece_at(x) != end.piece_at(x) || start.piece_at(k) != end.piece_at(k);
            let before =
                start.king(side) == Some(k) && start.attackers(k, side.other()) >> x & 1 == 1;
            if moved || !before {
                for c in [cell_of(x), cell_of(k)] {
                    if !cells.contains(&c) {
                        cells.push(c);
                    }
                }
            }
        }
    }
    cells.sort();
    cells
}

/// The check called at step `i` left uncalled, the opponent drawing next.
fn check_not_called(g: &RandomGame, i: usize) -> Option<Result<(), Uncaught>> {
    let s = &g.steps[i];
    let Observation::Call {
        call,
        by: Some(mover),
    } = &s.observation
    else {
        return None;
    };
    if call != "check" || !g.steps.get(i + 1).is_some_and(|n| is_draw(&n.observation)) {
        return None;
    }
    let want = new_check_cells(s.before.turn_start()?, s.before.position());
    if want.is_empty() {
        return None;
    }
    let clean: Vec<Observation> = g.steps.iter().map(|s| s.observation.clone()).collect();
    let mut obs = clean.clone();
    obs.remove(i);
    let (base, got) = (replay(g, &clean), replay(g, &obs));
    let ctx = format!("doublecross seed {}, step {i}, uncalled_check", g.seed);
    let here = at(&got, i);
    Some((|| {
        // The mover is charged (DC-6.3), at the opponent's draw.
        let f = the_flag(&here, FlagKind::UncalledCheck, "DC-6.3", mover, &ctx)?;
        let mut have = f.cells.clone();
        have.sort();
        if have != want {
            return Err(Uncaught(format!(
                "{ctx}: flagged at {have:?}, want {want:?} ({})",
                f.message
            )));
        }
        if !here
            .iter()
            .any(|e| matches!(e, EventBody::Notice { kind, .. } if kind == "removal_right_lapsed"))
        {
            return Err(Uncaught(format!(
                "{ctx}: no removal_right_lapsed in {here:?}"
            )));
        }
        // The draw itself, then the rest of the game, as before.
        let actions = |v: Vec<&EventBody>| -> Vec<EventBody> {
            v.into_iter()
                .filter(|e| matches!(e, EventBody::Action(_)))
                .cloned()
                .collect()
        };
        if actions(here.clone()) != actions(at(&base, i + 1)) {
            return Err(Uncaught(format!("{ctx}: the draw announced {here:?}")));
        }
        match (i + 2..=clean.len()).find(|&step| at(&got, step - 1) != at(&base, step)) {
            Some(step) => Err(Uncaught(format!(
                "{ctx}: step {step} differs after the mistake"
            ))),
            None => Ok(()),
        }
    })())
}

/// A Joust card drawn where none is left: none in a game without them, or
/// one already drawn in a game that sets them aside for good (DC-2.3).
fn card_not_in_pile(g: &RandomGame, i: usize) -> Option<Result<(), Uncaught>> {
    let s = &g.steps[i];
    if !is_draw(&s.observation) || !s.before.awaits_draw() {
        return None;
    }
    let card = match g.opts.joust {
        JoustMode::Off => "joust:wild-move".to_string(),
        JoustMode::Once => g.steps[..i].iter().find_map(|p| match &p.observation {
            Observation::Draw(c) if c.starts_with("joust:") => Some(c.clone()),
            _ => None,
        })?,
        JoustMode::Recycle => return None,
    };
    let drawer = PLAYERS[s.before.to_move()];
    let clean: Vec<Observation> = g.steps.iter().map(|s| s.observation.clone()).collect();
    let mut obs = clean.clone();
    obs.insert(i, Observation::Draw(card.clone()));
    let (base, got) = (replay(g, &clean), replay(g, &obs));
    let ctx = format!(
        "doublecross seed {}, step {i}, impossible_card {card}",
        g.seed
    );
    let here = at(&got, i);
    Some((|| {
        if here.len() != 1 {
            return Err(Uncaught(format!("{ctx}: the draw gave {here:?}")));
        }
        the_flag(&here, FlagKind::ImpossibleCard, "DC-3.1", drawer, &ctx)?;
        match first_difference(&got, &base, clean.len(), i, 1) {
            Some(step) => Err(Uncaught(format!(
                "{ctx}: step {step} differs after the mistake"
            ))),
            None => Ok(()),
        }
    })())
}

/// The move of the turn drawn at step `i` left unmade: its tables gone,
/// the opponent draws next.
fn move_not_made(g: &RandomGame, i: usize) -> Option<Result<(), Uncaught>> {
    let s = &g.steps[i];
    if !matches!(&s.observation, Observation::Draw(c) if !c.starts_with("joust:"))
        || !s.before.awaits_draw()
    {
        return None;
    }
    // The turn's tables, up to the next draw.
    let e = (i + 1..g.steps.len())
        .find(|&j| !matches!(g.steps[j].observation, Observation::Table(_)))?;
    if e == i + 1
        || !is_draw(&g.steps[e].observation)
        || !g.steps[i + 1..e]
            .iter()
            .any(|t| matches!(t.action, Some(Action::Move(_))))
    {
        return None;
    }
    let drawer = s.before.to_move();
    let mut obs: Vec<Observation> = g.steps[..=i]
        .iter()
        .map(|s| s.observation.clone())
        .collect();
    obs.push(g.steps[e].observation.clone());
    let got = replay(g, &obs);
    let ctx = format!("doublecross seed {}, step {i}, missing_move", g.seed);
    let here = at(&got, i + 1);
    Some((|| {
        the_flag(
            &here,
            FlagKind::MissingMove,
            "DC-3.5",
            PLAYERS[drawer],
            &ctx,
        )?;
        if !matches!(here.first(), Some(EventBody::Flag(_))) {
            return Err(Uncaught(format!("{ctx}: the flag comes after {here:?}")));
        }
        // The turn is lost: the opponent's draw is announced.
        let drew = here.iter().any(|e| matches!(e, EventBody::Action(a) if a.action == ActionKind::Draw && a.player == PLAYERS[1 - drawer]));
        if !drew {
            return Err(Uncaught(format!(
                "{ctx}: the opponent's draw is not announced: {here:?}"
            )));
        }
        Ok(())
    })())
}
