//! Physical mistakes injected into random legal Enochian games (for the
//! property tests and the soak): a wrong table shown before one of the
//! game's moves, the flag the spec names for it, and the check that the
//! referee raises exactly that flag, clears it when the table is mended
//! (the game's own move shown) or taken back, and reads the rest of the
//! game as before.
//!
//! Each mistake is built from the rules' own move generator, never from
//! the judge, so a judge that reads it wrong fails the check.

use super::Enochian;
use super::random::{Kind as StepKind, RandomGame};
use super::rules::{Move, NAMES, Sq, cell_of, roll_allows};
use crate::event::{Event, EventBody, FlagKind, How, events_at as at, first_difference, sole_flag};
use crate::games::Game;
use crate::games::Uncaught;
use crate::observation::Observation;
use crate::referee::replay_observations;
use crate::table::{Cell, Piece, Table, Token};

/// The mistakes injected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A piece of the army to move goes where its kind never goes
    /// (EN-MOV): `illegal_move`.
    Geometry,
    /// A piece of another army makes a move of its own shape (EN-BRD-4):
    /// `wrong_player`.
    OutOfTurn,
    /// The king is in check and can move, and another piece moves
    /// (EN-CHK-3): `forced_king_move`.
    KingIgnored,
    /// A capture with the captured card left under the capturer (EN-IO-1):
    /// `incomplete_action`.
    VictimLeft,
    /// A legal move of a piece the die did not name (EN-DIV-1):
    /// `divination_mismatch`.
    DieIgnored,
}

impl Kind {
    /// The flag the mistake must raise.
    pub fn flag(self) -> FlagKind {
        match self {
            Kind::Geometry => FlagKind::IllegalMove,
            Kind::OutOfTurn => FlagKind::WrongPlayer,
            Kind::KingIgnored => FlagKind::ForcedKingMove,
            Kind::VictimLeft => FlagKind::IncompleteAction,
            Kind::DieIgnored => FlagKind::DivinationMismatch,
        }
    }
}

/// Every kind, in order.
pub const KINDS: [Kind; 5] = [
    Kind::Geometry,
    Kind::OutOfTurn,
    Kind::KingIgnored,
    Kind::VictimLeft,
    Kind::DieIgnored,
];

/// One mistake: the wrong table shown before step `at`, and the flag it
/// must raise (kind, cells, the army it is charged to).
#[derive(Clone, Debug)]
pub struct Injection {
    pub at: usize,
    pub wrong: Table,
    pub kind: FlagKind,
    pub cells: Vec<Cell>,
    pub army: u8,
    /// The rule it breaks (for a move of the wrong shape, the rules of
    /// movement: `EN-MOV`).
    pub rule: &'static str,
}

/// The first step from `pick` on (cyclically) where `kind` can be made.
pub fn inject(g: &RandomGame, kind: Kind, pick: usize) -> Option<Injection> {
    inject_counted(g, kind, pick).0
}

/// As [`inject`], with the number of steps passed over because the
/// mistake's table there is also a legal reading (see [`AtStep::Ambiguous`]).
pub fn inject_counted(g: &RandomGame, kind: Kind, pick: usize) -> (Option<Injection>, usize) {
    let n = g.steps.len();
    let mut skipped = 0;
    for i in (0..n).map(|k| (k + pick) % n) {
        match inject_at(g, kind, i) {
            AtStep::Made(inj) => return (Some(inj), skipped),
            AtStep::Ambiguous => skipped += 1,
            AtStep::Not => {}
        }
    }
    (None, skipped)
}

/// What injecting a mistake at one step gives.
enum AtStep {
    /// The mistake cannot be made there.
    Not,
    /// Its table is also a legal reading, so no referee could flag it: the
    /// table before the previous army's move (a take-back, EN-IO-1), or one
    /// a legal move of that army leaves (it changed its mind). Skipped,
    /// and counted.
    Ambiguous,
    Made(Injection),
}

impl From<Option<AtStep>> for AtStep {
    fn from(m: Option<AtStep>) -> AtStep {
        m.unwrap_or(AtStep::Not)
    }
}

/// The table `g` shows with one card moved from `f` to the empty `t`.
fn moved(g: &Enochian, f: Sq, t: Sq) -> Table {
    let mut table = g.table();
    let card = table.get(cell_of(f));
    table.set(cell_of(f), None);
    table.set(cell_of(t), card);
    table
}

/// A plain step of a single card onto an empty square: no capture, no
/// join, no promotion.
fn plain(g: &Enochian, m: &Move) -> bool {
    !m.join
        && m.promo.is_none()
        && g.pos.units_at(m.to).next().is_none()
        && g.pos.extra[m.from as usize].is_none()
}

fn inject_at(g: &RandomGame, kind: Kind, i: usize) -> AtStep {
    inject_at_inner(g, kind, i).into()
}

fn inject_at_inner(g: &RandomGame, kind: Kind, i: usize) -> Option<AtStep> {
    let step = &g.steps[i];
    let st = &step.before;
    // A move is awaited, nothing owed from the last one (whose table would
    // read either way), and the last move may not be reconsidered into
    // what the mistake shows.
    if !matches!(step.kind, StepKind::Move(_))
        || !st.lag.is_empty()
        || st.over.is_some()
        || st.awaits_roll()
    {
        return None;
    }
    let a = st.acting();
    let pos = &st.pos;
    let masks = pos.masks();
    let own_moves = |army: u8| {
        let mut v = Vec::new();
        pos.pseudo_moves(&masks, army, &mut v);
        v
    };
    let made = |wrong: Table, kind, rule, m: (Sq, Sq), army| {
        let prev = st.snapshot.as_deref();
        // A table the previous army could have left instead (it changes
        // its mind, or takes its move back) is no mistake of this turn.
        if prev.is_some_and(|p| {
            p.table() == wrong
                || p.allowed_moves()
                    .iter()
                    .any(|&pm| p.play(pm).0.table() == wrong)
        }) {
            return Some(AtStep::Ambiguous);
        }
        Some(AtStep::Made(Injection {
            at: i,
            wrong,
            kind,
            cells: vec![cell_of(m.0), cell_of(m.1)],
            army,
            rule,
        }))
    };
    match kind {
        Kind::Geometry => {
            if pos.frozen(a) {
                return None;
            }
            let reach = own_moves(a);
            // A single card of the army (which one turns with the step),
            // to an empty square no move of its kind reaches from there.
            let units: Vec<Sq> = pos
                .all_units()
                .filter(|&(s, u)| u.army == a && pos.extra[s as usize].is_none())
                .map(|(s, _)| s)
                .collect();
            let f = *units.get(i % units.len().max(1))?;
            let t = (0..64usize).map(|k| ((k + 7 * i) % 64) as Sq).find(|&t| {
                t != f
                    && pos.units_at(t).next().is_none()
                    && !reach.iter().any(|m| m.from == f && m.to == t)
            })?;
            made(moved(st, f, t), FlagKind::IllegalMove, "EN-MOV", (f, t), a)
        }
        Kind::OutOfTurn => {
            let prev = st.snapshot.as_deref().map(|p| p.acting());
            let (b, m) = (0..4u8)
                .filter(|&b| {
                    b != a && Some(b) != prev && !pos.frozen(b) && st.stale_skipped >> b & 1 == 0
                })
                .find_map(|b| {
                    let m = own_moves(b).into_iter().find(|m| plain(st, m))?;
                    Some((b, m))
                })?;
            made(
                moved(st, m.from, m.to),
                FlagKind::WrongPlayer,
                "EN-BRD-4",
                (m.from, m.to),
                b,
            )
        }
        Kind::KingIgnored => {
            if !pos.forced_king(a) || pos.frozen(a) {
                return None;
            }
            let m = own_moves(a)
                .into_iter()
                .find(|m| m.kind != Piece::King && plain(st, m))?;
            made(
                moved(st, m.from, m.to),
                FlagKind::ForcedKingMove,
                "EN-CHK-3",
                (m.from, m.to),
                a,
            )
        }
        Kind::VictimLeft => {
            let m = st.allowed_moves().into_iter().find(|m| {
                let victims: Vec<_> = pos.units_at(m.to).collect();
                !m.join
                    && m.promo.is_none()
                    && pos.extra[m.from as usize].is_none()
                    && matches!(victims[..], [v] if v.kind != Piece::King)
            })?;
            let (after, _) = st.play(m);
            // Only the two squares change: no prisoner taken, nothing
            // frozen or owed.
            let before = st.table();
            let table = after.table();
            let changed: Vec<Cell> = (0..64u8)
                .map(cell_of)
                .filter(|&c| before.get(c) != table.get(c))
                .collect();
            if changed != [cell_of(m.from), cell_of(m.to)]
                && changed != [cell_of(m.to), cell_of(m.from)]
            {
                return None;
            }
            let (Some(Token::Up(victim)), Some(Token::Up(mover))) =
                (before.get(cell_of(m.to)), table.get(cell_of(m.to)))
            else {
                return None;
            };
            let mut wrong = table;
            wrong.set(cell_of(m.to), Some(Token::pair(victim, mover)));
            made(
                wrong,
                FlagKind::IncompleteAction,
                "EN-IO-1",
                (m.from, m.to),
                a,
            )
        }
        Kind::DieIgnored => {
            let r = st.roll?;
            if !st.opts.divination {
                return None;
            }
            let m = st
                .legal_moves()
                .into_iter()
                .find(|m| !roll_allows(r, m.kind) && plain(st, m))?;
            made(
                moved(st, m.from, m.to),
                FlagKind::DivinationMismatch,
                "EN-DIV-1",
                (m.from, m.to),
                a,
            )
        }
    }
}

fn replay(g: &RandomGame, obs: &[Observation]) -> Vec<Event> {
    replay_observations(Enochian::new(g.opts), obs)
}

/// Shows the mistake before step `inj.at` (and, with `take_back`, the
/// table as it was before it) and checks: it raises one flag of its kind,
/// at its cells, charged to its army; the next table clears it, taken back
/// or mended; the rest of the game announces what it did without the
/// mistake.
pub fn check_injection(g: &RandomGame, inj: &Injection, take_back: bool) -> Result<(), Uncaught> {
    let i = inj.at;
    let clean = g.observations();
    let mut obs = clean.clone();
    obs.insert(i, Observation::Table(inj.wrong.clone()));
    let mut extra = 1;
    if take_back {
        obs.insert(i + 1, Observation::Table(g.steps[i].before.table()));
        extra = 2;
    }
    let base = replay(g, &clean);
    let got = replay(g, &obs);
    let ctx = format!("enochian seed {}, step {i}, {}", g.seed, inj.kind.as_str());
    let f = sole_flag(&got, i).map_err(|e| Uncaught(format!("{ctx}: {e}")))?;
    if !f.raises(
        inj.kind,
        inj.rule,
        &inj.cells,
        Some(NAMES[inj.army as usize]),
    ) {
        return Err(Uncaught(format!(
            "{ctx}: got {} ({}) at {:?} charged to {:?} ({}), want {} at {:?} charged to {}",
            f.kind.as_str(),
            f.rule,
            f.cells,
            f.player,
            f.message,
            inj.rule,
            inj.cells,
            NAMES[inj.army as usize]
        )));
    }
    let how = if take_back {
        How::TakenBack
    } else {
        How::Mended
    };
    let next = at(&got, i + 1);
    if !matches!(next.first(), Some(EventBody::Cleared { kind, how: h }) if *kind == inj.kind && *h == how)
    {
        return Err(Uncaught(format!("{ctx}: after the mistake {next:?}")));
    }
    match first_difference(&got, &base, clean.len() + 1, i, extra) {
        Some(step) => Err(Uncaught(format!(
            "{ctx}: step {step} differs after the mistake"
        ))),
        None => Ok(()),
    }
}
