//! Reading an observed change as an En Prise action.
//!
//! The changed cells suggest a handful of attempts (this card moved from
//! there to here; this card was placed here). Each attempt is checked by the
//! rules; a legal one predicts exactly which cells change and how. The
//! observation is then compared with that prediction, allowing for the
//! physical slips the spec names: a missed SWAP (no card left at the
//! origin), a missed FLIP (the captured card face-up at the origin), and a
//! mated player's cards not yet turned face-down.
//!
//! Turning a mated player's cards face-down (EP-MATE) is the mating
//! action's second part, done by hand after it: the action is accepted
//! with the cards still face-up, and a `pending` notice names them. Only
//! when the next player acts before they are all turned is it a
//! `missed_elimination_flip`; turning them then, alone or with that action,
//! mends it.

use super::{Action, Applied, EnPrise, Outcome, Sq, Violation};
use crate::event::{EventBody, Flag, FlagKind};
use crate::games::{Reading, Verdict, unexplained};
use crate::table::{Card, Cell, Change, Piece, Token};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Attempt {
    Move {
        from: Cell,
        to: Cell,
    },
    Place {
        cell: Cell,
        token: Token,
    },
    /// A king and its escape square seen in one observation.
    KingAndEscape {
        king: Cell,
        card: Card,
        escape: Cell,
    },
}

/// How closely the table shows an attempt.
#[derive(Debug, PartialEq, Eq)]
enum Fit {
    Exact,
    MissedSwap,
    MissedFlip,
    Unflipped(Vec<Cell>),
}

pub(super) fn judge(g: &EnPrise, changes: &[Change]) -> Verdict<EnPrise> {
    if g.owed.is_empty() {
        judge_action(g, changes)
    } else {
        judge_owing(g, changes)
    }
}

/// Judges a table while an eliminated player's cards are still owed
/// face-down: the flips alone (all or some) are the mating action's second
/// part; anything else is the next action, judged as if the flips were
/// done, and flagged while some are not.
fn judge_owing(g: &EnPrise, changes: &[Change]) -> Verdict<EnPrise> {
    let at = |c: Cell| {
        changes
            .binary_search_by(|ch| ch.cell.cmp(&c))
            .ok()
            .map(|i| changes[i])
    };
    let mut unflipped = Vec::new();
    // The changes as the rules see them, whose board has the owed cards
    // vacant already.
    let mut rest: Vec<Change> = changes
        .iter()
        .filter(|ch| !g.owed.iter().any(|&(c, _)| c == ch.cell))
        .copied()
        .collect();
    for &(c, _) in &g.owed {
        match at(c) {
            None => unflipped.push(c),
            Some(ch) if ch.after == Some(Token::Down) => {}
            Some(ch) => rest.push(Change {
                cell: c,
                before: Some(Token::Down),
                after: ch.after,
            }),
        }
    }
    rest.sort_by_key(|ch| ch.cell);
    if rest.is_empty() {
        return Verdict::Advance {
            game: g.clone().owing_only(&unflipped),
            events: vec![],
        };
    }
    let next = judge_action(&g.with_flips_done(), &rest);
    if !unflipped.is_empty() {
        let mut flag = unflipped_flag(g, &unflipped);
        // What is on the table besides is no legal action either: say
        // both mends, the owed flips first, rather than let it stand.
        if let Verdict::Flag(also) = next {
            let whose = flag_owner_title(g, &unflipped);
            flag.message = format!(
                "{whose} is checkmated and out: turn {whose}'s cards at {} face-down. And: {}",
                list(&unflipped),
                also.message
            );
            for c in also.cells {
                if !flag.cells.contains(&c) {
                    flag.cells.push(c);
                }
            }
        }
        return Verdict::Flag(flag);
    }
    next
}

/// The colour, as a title, of the mated player whose cards are at `cells`.
fn flag_owner_title(g: &EnPrise, cells: &[Cell]) -> &'static str {
    g.owed
        .iter()
        .find(|(c, _)| cells.contains(c))
        .map_or("The mated player", |(_, card)| card.colour.title())
}

/// Whether `g` owes the flips of all of `cells`: the action just applied
/// eliminated their player.
fn owes(g: &EnPrise, cells: &[Cell]) -> bool {
    cells.iter().all(|c| g.owed.iter().any(|(o, _)| o == c))
}

/// The flag for an eliminated player's cards still face-up at `cells`
/// when the next action is already on the table.
fn unflipped_flag(g: &EnPrise, cells: &[Cell]) -> Flag {
    let whose = flag_owner_title(g, cells);
    Flag {
        kind: FlagKind::MissedEliminationFlip,
        cells: cells.to_vec(),
        rule: "EP-MATE".into(),
        message: format!(
            "{next} acted before {whose}'s cards were all turned face-down ({whose} is checkmated and out): turn those at {} face-down, and {next}'s action stands",
            list(cells),
            next = g.to_move().title(),
        ),
        player: g.owed_by.map(|c| c.name().into()),
        squares: vec![],
    }
}

fn list(cells: &[Cell]) -> String {
    cells
        .iter()
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The `pending` notice of an elimination whose cards still lie face-up.
pub(super) fn pending_notice(g: &EnPrise) -> Option<EventBody> {
    let (&(_, card), cells) = (g.owed.first()?, g.owed.iter().map(|&(c, _)| c));
    let cells: Vec<Cell> = cells.collect();
    let whose = card.colour.title();
    Some(EventBody::Notice {
        kind: "pending".into(),
        message: format!(
            "{whose} is out: turn {whose}'s cards face-down at {} before {} acts",
            list(&cells),
            g.to_move().title()
        ),
        cells,
    })
}

/// A reading of a table that showed the action just applied: the
/// eliminated cards the table already shows face-down are owed no more,
/// and those still face-up are announced as pending.
fn owing_as_seen(mut r: Reading<EnPrise>, changes: &[Change]) -> Reading<EnPrise> {
    if r.game.owed.is_empty() {
        return r;
    }
    let still: Vec<Cell> = r
        .game
        .owed
        .iter()
        .map(|&(c, _)| c)
        .filter(|&c| {
            changes
                .iter()
                .find(|ch| ch.cell == c)
                .is_none_or(|ch| ch.after != Some(Token::Down))
        })
        .collect();
    r.game = r.game.owing_only(&still);
    r.events.extend(pending_notice(&r.game));
    r
}

fn judge_action(g: &EnPrise, changes: &[Change]) -> Verdict<EnPrise> {
    let verdict = judge_fresh(g, changes);
    match verdict {
        Verdict::Advance { game, events } => {
            let r = owing_as_seen(Reading { game, events }, changes);
            Verdict::Advance {
                game: r.game,
                events: r.events,
            }
        }
        Verdict::Ambiguous(rs) => {
            Verdict::Ambiguous(rs.into_iter().map(|r| owing_as_seen(r, changes)).collect())
        }
        flag => flag,
    }
}

/// Judges a table with no flip owed.
fn judge_fresh(g: &EnPrise, changes: &[Change]) -> Verdict<EnPrise> {
    if let Some(outcome) = g.over {
        let rule = match outcome {
            Outcome::Win(_) => "EP-MATE",
            Outcome::Draw => "EP-NOACTION",
        };
        return Verdict::Flag(unexplained(changes, rule, "The game is over"));
    }
    let mut slip: Option<Flag> = None;
    let mut illegal: Option<Flag> = None;
    for attempt in attempts(changes) {
        match try_attempt(g, attempt) {
            Ok((actions, applied)) => {
                let prediction = predict(g, &actions, &applied);
                match fit(&prediction, changes) {
                    Some(Fit::Exact) => {
                        let reading = Reading {
                            game: applied.state,
                            events: applied.events,
                        };
                        return match other_reading(g, attempt, &actions, changes) {
                            Some(other) => Verdict::Ambiguous(vec![reading, other]),
                            None => Verdict::Advance {
                                game: reading.game,
                                events: reading.events,
                            },
                        };
                    }
                    // The mating action with its flips still to do: its
                    // second part, pending (see `owing_as_seen`).
                    Some(Fit::Unflipped(cells)) if owes(&applied.state, &cells) => {
                        return Verdict::Advance {
                            game: applied.state,
                            events: applied.events,
                        };
                    }
                    Some(f) if slip.is_none() => slip = Some(slip_flag(g, &actions, f)),
                    _ => {}
                }
            }
            Err(v) => {
                if illegal.is_none()
                    && physical(g, attempt).is_some_and(|p| fit(&p, changes).is_some())
                {
                    illegal = Some(Flag {
                        kind: v.kind,
                        cells: v.cells,
                        rule: v.rule.into(),
                        message: v.message,
                        player: Some(v.player.name().into()),
                        squares: vec![],
                    });
                }
            }
        }
    }
    if let Some(f) = slip.or(illegal) {
        return Verdict::Flag(f);
    }
    // Cards only added (new cards, or face-up cards on vacant squares): more
    // than one placement at once.
    let added = |c: &Change| {
        matches!(
            (c.before, c.after),
            (None, Some(_)) | (Some(Token::Down), Some(Token::Up(_)))
        )
    };
    if changes.len() >= 2 && changes.iter().all(added) {
        return Verdict::Flag(Flag {
            kind: FlagKind::IllegalPlacement,
            cells: changes.iter().map(|c| c.cell).collect(),
            rule: "EP-TURN".into(),
            message: format!(
                "One action per turn: {} cards appeared at once; take back all but one",
                changes.len()
            ),
            player: Some(g.to_move().name().into()),
            squares: vec![],
        });
    }
    Verdict::Flag(unexplained(
        changes,
        "EP-TURN",
        "Nothing the rules allow or forbid explains this",
    ))
}

/// A face-down card right after a summoning reads first as the summoner's
/// escape square; if the summoner's turn could also have closed and the
/// next player laid a face-down pawn there, the table cannot tell which.
fn other_reading(
    g: &EnPrise,
    attempt: Attempt,
    actions: &[Action],
    changes: &[Change],
) -> Option<Reading<EnPrise>> {
    if !g.escape_pending || !matches!(actions, [Action::Escape { .. }]) {
        return None;
    }
    let (actions, applied) = try_closed(g, attempt).ok()?;
    // The pawn may mate a player whose cards are still to turn (pending).
    let fits = match fit(&predict(g, &actions, &applied), changes) {
        Some(Fit::Exact) => true,
        Some(Fit::Unflipped(cells)) => owes(&applied.state, &cells),
        _ => false,
    };
    fits.then_some(Reading {
        game: applied.state,
        events: applied.events,
    })
}

/// The attempts the changed cells suggest, moves first.
fn attempts(changes: &[Change]) -> Vec<Attempt> {
    let mut out = Vec::new();
    for d in changes {
        let Some(Token::Up(card)) = d.after else {
            continue;
        };
        for o in changes {
            if o.cell != d.cell && o.before == Some(Token::Up(card)) {
                out.push(Attempt::Move {
                    from: o.cell,
                    to: d.cell,
                });
            }
        }
    }
    for d in changes {
        match d.after {
            Some(t @ Token::Up(_)) => out.push(Attempt::Place {
                cell: d.cell,
                token: t,
            }),
            Some(Token::Down) if d.before.is_none() => out.push(Attempt::Place {
                cell: d.cell,
                token: Token::Down,
            }),
            _ => {}
        }
    }
    if let [a, b] = changes {
        let king = |c: &Change| match c.after {
            Some(Token::Up(card)) if card.piece == Piece::King && c.before != c.after => Some(card),
            _ => None,
        };
        let is_escape = |c: &Change| c.before.is_none() && c.after == Some(Token::Down);
        for (k, e) in [(a, b), (b, a)] {
            if let Some(card) = king(k)
                && is_escape(e)
            {
                out.push(Attempt::KingAndEscape {
                    king: k.cell,
                    card,
                    escape: e.cell,
                });
            }
        }
    }
    out
}

/// Checks and applies an attempt; the actions it amounts to and the result.
fn try_attempt(g: &EnPrise, attempt: Attempt) -> Result<(Vec<Action>, Applied), Violation> {
    if g.escape_pending {
        // The summoner may add an escape square; anything else is the next
        // player's, once the summoner's turn closes. A face-down card right
        // after a summoning reads as the escape square when it can be one.
        if let Attempt::Place {
            cell,
            token: Token::Down,
        } = attempt
        {
            match g.check_escape(cell) {
                Ok(a) => return Ok((vec![a], g.apply(a))),
                Err(e) if g.plans[g.turn].len() > g.next[g.turn] => {
                    return try_closed(g, attempt).map_err(|_| e);
                }
                Err(_) => {}
            }
        }
        return try_closed(g, attempt);
    }
    match attempt {
        Attempt::Move { from, to } => {
            let a = g.check_move(from, to)?;
            Ok((vec![a], g.apply(a)))
        }
        Attempt::Place { cell, token } => {
            let a = g.check_place(cell, token)?;
            Ok((vec![a], g.apply(a)))
        }
        Attempt::KingAndEscape { king, card, escape } => {
            let k = g.check_place(king, Token::Up(card))?;
            let first = g.apply(k);
            if !first.state.escape_pending {
                let me = card.colour;
                return Err(Violation {
                    kind: FlagKind::IllegalPlacement,
                    rule: "EP-KING-ESCAPE",
                    message: format!(
                        "{}'s Battleplan is empty, so there is no escape square: take the card at {escape} back",
                        me.title()
                    ),
                    player: me,
                    cells: vec![escape],
                });
            }
            let e = first.state.check_escape(escape)?;
            let mut second = first.state.apply(e);
            let mut events = first.events;
            events.append(&mut second.events);
            second.events = events;
            Ok((vec![k, e], second))
        }
    }
}

fn try_closed(g: &EnPrise, attempt: Attempt) -> Result<(Vec<Action>, Applied), Violation> {
    let closed = g.closed();
    if closed.state.over.is_some() {
        return Err(Violation {
            kind: FlagKind::Unexplained,
            rule: "EP-MATE",
            message: "The game is over".into(),
            player: g.to_move(),
            cells: vec![],
        });
    }
    let (actions, mut applied) = try_attempt(&closed.state, attempt)?;
    let mut events = closed.events;
    events.append(&mut applied.events);
    applied.events = events;
    let mut flips = closed.flips;
    flips.append(&mut applied.flips);
    applied.flips = flips;
    Ok((actions, applied))
}

/// What the table must show after a legal attempt: each touched cell's new
/// top card, with the origin of a move and the elimination flips marked so
/// the slips can be recognised.
struct Prediction {
    cells: Vec<(Cell, Option<Token>)>,
    /// A move's origin, and the card it captured.
    origin: Option<(Cell, Option<Card>)>,
    flips: Vec<Cell>,
}

fn predict(g: &EnPrise, actions: &[Action], applied: &Applied) -> Prediction {
    let mut cells: Vec<(Cell, Option<Token>)> = Vec::new();
    let mut origin = None;
    for &a in actions {
        for c in EnPrise::cells_of(a) {
            cells.push((c, applied.state.at(c).token()));
        }
        if let Action::Move { from, captured, .. } = a {
            origin = Some((from, captured));
        }
    }
    for &c in &applied.flips {
        cells.push((c, applied.state.at(c).token()));
    }
    cells.sort_by_key(|(c, _)| *c);
    cells.dedup_by_key(|(c, _)| *c);
    // A cell whose top card ends as it began is no change at all.
    cells.retain(|&(c, t)| g.at(c).token() != t);
    Prediction {
        cells,
        origin,
        flips: applied.flips.clone(),
    }
}

/// What the table would show after an illegal attempt carried out properly
/// (`None` for a move from a cell with no piece).
fn physical(g: &EnPrise, attempt: Attempt) -> Option<Prediction> {
    Some(match attempt {
        Attempt::Move { from, to } => {
            let captured = match g.at(to) {
                Sq::Piece(c) => Some(c),
                _ => None,
            };
            let Sq::Piece(card) = g.at(from) else {
                return None;
            };
            let mut cells = vec![(from, Some(Token::Down)), (to, Some(Token::Up(card)))];
            cells.sort_by_key(|(c, _)| *c);
            Prediction {
                cells,
                origin: Some((from, captured)),
                flips: vec![],
            }
        }
        Attempt::Place { cell, token } => Prediction {
            cells: vec![(cell, Some(token))],
            origin: None,
            flips: vec![],
        },
        Attempt::KingAndEscape { king, card, escape } => {
            let mut cells = vec![(king, Some(Token::Up(card))), (escape, Some(Token::Down))];
            cells.sort_by_key(|(c, _)| *c);
            Prediction {
                cells,
                origin: None,
                flips: vec![],
            }
        }
    })
}

/// Compares the observed changes with a prediction. `None`: the observation
/// shows something else as well.
fn fit(p: &Prediction, changes: &[Change]) -> Option<Fit> {
    let observed = |c: Cell| -> Option<&Change> {
        changes
            .binary_search_by(|ch| ch.cell.cmp(&c))
            .ok()
            .map(|i| &changes[i])
    };
    if !changes
        .iter()
        .all(|ch| p.cells.iter().any(|(c, _)| *c == ch.cell))
    {
        return None;
    }
    let mut result = Fit::Exact;
    let mut unflipped = Vec::new();
    for &(c, want) in &p.cells {
        let got = observed(c).map(|ch| ch.after);
        if got == Some(want) {
            continue;
        }
        match p.origin {
            Some((o, captured)) if o == c => match got {
                Some(None) => result = Fit::MissedSwap,
                Some(Some(Token::Up(t))) if Some(t) == captured => result = Fit::MissedFlip,
                _ => return None,
            },
            _ if p.flips.contains(&c) && got.is_none() => unflipped.push(c),
            _ => return None,
        }
    }
    if result == Fit::Exact && !unflipped.is_empty() {
        result = Fit::Unflipped(unflipped);
    }
    Some(result)
}

fn slip_flag(g: &EnPrise, actions: &[Action], fit: Fit) -> Flag {
    let mover = actions[0].player();
    let mv = actions.iter().find_map(|a| match *a {
        Action::Move {
            card,
            from,
            to,
            captured,
            ..
        } => Some((card, from, to, captured)),
        _ => None,
    });
    let (kind, rule, cells, message) = match (fit, mv) {
        (Fit::MissedSwap, Some((card, from, to, captured))) => (
            FlagKind::MissedSwap,
            "EP-MISSED-SWAP",
            vec![from],
            match captured {
                Some(c) => format!(
                    "Missed SWAP: the {} took the {} on {to}; put the captured {} face-down on {from}, where the {} stood",
                    card.describe(),
                    c.describe(),
                    c.piece.name(),
                    card.piece.name()
                ),
                None => format!(
                    "Missed SWAP: the {} moved {from} to {to}; put the face-down card from {to} on {from}, where it stood",
                    card.describe()
                ),
            },
        ),
        (Fit::MissedFlip, Some((card, from, to, captured))) => (
            FlagKind::MissedFlip,
            "EP-MISSED-FLIP",
            vec![from],
            format!(
                "Missed FLIP: the {} took the {} on {to}; turn the {} on {from} face-down",
                card.describe(),
                captured.map(|c| c.describe()).unwrap_or_default(),
                captured.map(|c| c.piece.name()).unwrap_or("card"),
            ),
        ),
        (Fit::Unflipped(cells), _) => {
            let whose = cells
                .first()
                .and_then(|&c| g.at(c).token().and_then(Token::card))
                .map(|c| c.colour.title())
                .unwrap_or("The mated player");
            let list = cells
                .iter()
                .map(|c| c.to_string())
                .collect::<Vec<_>>()
                .join(", ");
            (
                FlagKind::MissedEliminationFlip,
                "EP-MATE",
                cells,
                format!("{whose} is checkmated and out: turn {whose}'s cards face-down at {list}"),
            )
        }
        (_, _) => unreachable!("slips other than elimination flips come from moves"),
    };
    Flag {
        kind,
        cells,
        rule: rule.into(),
        message,
        player: Some(mover.name().into()),
        squares: vec![],
    }
}
