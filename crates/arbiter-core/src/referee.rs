//! The referee: holds one game and reconciles each settled observation with
//! it, the way move-detecting chessboards do: never event by event, always
//! the whole settled table against the tables the game allows.
//!
//! It is generic over [`Game`]: alignment (a whole-table shift is no change),
//! holding the game after a flag, takebacks, mending and unreadable input are
//! the same for every game; what an observed change *means* is the game's.

use crate::event::{Event, EventBody, Flag, FlagKind, How};
use crate::games::{Game, Reading, Verdict};
use crate::observation::Observation;
use crate::table::{Cell, Change, Table, Token};

/// Above this many differing cells an alignment is not worth judging: no
/// action of any game changes that much at once.
const MAX_JUDGED_DIFF: usize = 40;

pub struct Referee<G: Game> {
    game: G,
    /// `game.table()`, cached: it is compared with every observation.
    expected: Table,
    /// The open flag, if the table shows something wrong. The game does not
    /// advance until the table is mended or taken back.
    open: Option<Flag>,
    unreadable: Option<Flag>,
    /// Readings of recent observations that the table cannot yet tell apart,
    /// best first; `game` is the first of them. Their events wait until a
    /// later observation leaves one reading standing: that is the step that
    /// makes them certain.
    undecided: Vec<Reading<G>>,
    /// Changes of the table seen since the readings opened.
    undecided_changes: usize,
    /// The translation that carried the last judged table onto the board.
    last_offset: Cell,
    /// The flag a table with cards only lifted off it would raise, held:
    /// a hand moving a card lifts it first, and may leave the table
    /// settled for a moment before putting it down. Raised when the next
    /// input is no table (a draw, a call: the cards stayed off into it) or
    /// the input ends; a later table is judged on its own.
    in_hand: Option<Flag>,
    started: bool,
}

/// The most cards a table may show lifted off and still be a hand at work
/// (a move's card, and the face-down card it swaps with).
const MOST_LIFTED: usize = 2;

/// At most this many readings are kept open at once; beyond, the best win.
const MAX_READINGS: usize = 8;

/// Readings still open after this many more changes of the table are
/// settled on the best: players should not wait long to see an action
/// announced, and most ambiguities end with the very next action.
const MAX_UNDECIDED_CHANGES: usize = 8;

/// Every event a fresh referee of `game` emits for `obs`, observation `i`
/// judged as step `i`, then the end of the input (step `obs.len()`): the
/// replay the property tests, the soak and the mistake checks compare.
pub fn replay_observations<G: Game>(game: G, obs: &[Observation]) -> Vec<Event> {
    let mut r = Referee::new(game);
    let mut events = r.start();
    for (i, o) in obs.iter().enumerate() {
        events.extend(r.observe(i, o));
    }
    events.extend(r.finish(obs.len()));
    events
}

impl<G: Game> Referee<G> {
    pub fn new(game: G) -> Self {
        let expected = game.table();
        Referee {
            game,
            expected,
            open: None,
            unreadable: None,
            undecided: Vec::new(),
            undecided_changes: 0,
            last_offset: Cell::default(),
            in_hand: None,
            started: false,
        }
    }

    pub fn game(&self) -> &G {
        &self.game
    }

    pub fn expected_table(&self) -> &Table {
        &self.expected
    }

    pub fn open_flag(&self) -> Option<&Flag> {
        self.open.as_ref().or(self.unreadable.as_ref())
    }

    /// The `game_started` event, once.
    pub fn start(&mut self) -> Vec<Event> {
        if self.started {
            return vec![];
        }
        self.started = true;
        vec![Event {
            step: 0,
            body: EventBody::GameStarted {
                game: self.game.name().to_string(),
                players: self.game.players(),
            },
        }]
    }

    /// Judges one observation; `step` stamps the events it causes.
    pub fn observe(&mut self, step: usize, obs: &Observation) -> Vec<Event> {
        #[cfg(any(test, feature = "testkit"))]
        let expected_before = self.expected.clone();
        let mut out = Vec::new();
        let mut emit = |body| out.push(Event { step, body });
        match obs {
            Observation::Busy => {}
            Observation::Table(table) => {
                if let Some(flag) = self.unreadable_in(table) {
                    if !self
                        .unreadable
                        .as_ref()
                        .is_some_and(|f| f.same_complaint(&flag))
                    {
                        emit(EventBody::Flag(flag.clone()));
                        self.unreadable = Some(flag);
                    }
                    return out;
                }
                if self.unreadable.take().is_some() {
                    emit(EventBody::Cleared {
                        kind: FlagKind::Unreadable,
                        how: How::Mended,
                    });
                }
                self.in_hand = None;
                let before = self.last_offset;
                if self.undecided.is_empty() {
                    let (mut verdict, mut offset) = judge_table(&self.game, &self.expected, table);
                    if matches!(verdict, Some(Verdict::Flag(_)))
                        && let Some((both, d)) = missed_actions(&self.game, &self.expected, table)
                    {
                        (verdict, offset) = (Some(both), d);
                    }
                    self.last_offset = offset;
                    match verdict {
                        Some(Verdict::Flag(f)) if self.lifted_only(table, before) => {
                            self.in_hand = Some(f);
                        }
                        verdict => self.settle(verdict, &mut emit),
                    }
                } else {
                    self.decide(table, before, &mut emit);
                }
            }
            other => {
                // Cards lifted off stayed off into this input: no hand at
                // work any more.
                if let Some(flag) = self.in_hand.take() {
                    self.settle(Some(Verdict::Flag(flag)), &mut emit);
                }
                // Non-table inputs belong to games without ambiguous readings.
                self.commit_best(&mut emit);
                match self.game.judge_input(other) {
                    // A draw or a call does not mend the table: a table flag
                    // stays open until the table is put right.
                    Verdict::Advance { game, events } => {
                        for e in events {
                            emit(e);
                        }
                        self.game = game;
                        self.expected = self.game.table();
                    }
                    // An input the rules refuse is said once; there is
                    // nothing on the table to mend.
                    Verdict::Flag(flag) => emit(EventBody::Flag(flag)),
                    Verdict::Ambiguous(readings) => {
                        let verdict = Some(Verdict::Ambiguous(readings));
                        self.settle(verdict, &mut emit);
                    }
                }
            }
        }
        self.name_squares(&mut out);
        #[cfg(any(test, feature = "testkit"))]
        if let Observation::Table(table) = obs {
            let now = table.shifted(self.last_offset);
            for e in &out {
                if let EventBody::Flag(f) = &e.body
                    && let Err(why) = crate::message_check::check(f, &now, &expected_before)
                {
                    crate::message_check::record(format!("step {step}: {why}"));
                }
            }
        }
        out
    }

    /// Adds algebraic squares beside cells, for games on a chessboard.
    fn name_squares(&self, events: &mut [Event]) {
        let names = |cells: &[Cell]| -> Vec<String> {
            let names: Vec<String> = cells
                .iter()
                .filter_map(|&c| self.game.square_name(c))
                .collect();
            // All or nothing: a list that skips a cell would misalign.
            if names.len() == cells.len() {
                names
            } else {
                vec![]
            }
        };
        for e in events {
            match &mut e.body {
                EventBody::Action(a) => {
                    let cells: Vec<Cell> = a.from.iter().chain(a.to.iter()).copied().collect();
                    a.squares = names(&cells);
                }
                EventBody::Flag(f) => f.squares = names(&f.cells),
                EventBody::Check {
                    attackers, squares, ..
                } => *squares = names(attackers),
                _ => {}
            }
        }
    }

    /// A flag when the input could not read the table: cells it marked
    /// unreadable (named in the board's frame), or a cell out of range.
    fn unreadable_in(&self, table: &Table) -> Option<Flag> {
        if let Some((c, _)) = table.iter().find(|(c, _)| !c.in_range()) {
            // No input reports such a cell; judging it could overflow.
            return Some(unreadable_flag(
                vec![],
                format!("The input reported a cell out of range, {c}"),
            ));
        }
        let cells = table.unreadable_cells();
        if cells.is_empty() {
            return None;
        }
        let d = self.best_offset(table);
        let cells: Vec<Cell> = cells.into_iter().map(|c| c.plus(d)).collect();
        let list = cells
            .iter()
            .map(|c| c.to_string())
            .collect::<Vec<_>>()
            .join(", ");
        Some(unreadable_flag(
            cells,
            format!("Cannot read the card at {list}: straighten it or clear the view"),
        ))
    }

    /// Whether `table`, under `offset`, is the expected one with a card or
    /// two lifted off it and nothing else, where the game waits for lifted
    /// cards. `offset` is the alignment of the table judged before it: the
    /// cards a hand leaves do not move while it holds one. (Under another,
    /// a small table can read as a lift that hides a missed SWAP, or the
    /// lift read as a move of a lone card onto its neighbour's cell.)
    fn lifted_only(&self, table: &Table, offset: Cell) -> bool {
        self.game.lifted_cards_wait() && only_lifted(&self.expected, table, offset)
    }

    /// The candidate translation under which the fewest cells differ (no
    /// shift, then the smallest, on ties).
    fn best_offset(&self, observed: &Table) -> Cell {
        candidate_offsets(&self.game, &self.expected, observed)
            .into_iter()
            .min_by_key(|&d| {
                (
                    self.expected.diff_count(observed, d, usize::MAX),
                    !d.is_zero(),
                    d.norm(),
                    d,
                )
            })
            .unwrap_or_default()
    }

    fn settle(&mut self, verdict: Option<Verdict<G>>, emit: &mut impl FnMut(EventBody)) {
        match verdict {
            None => {
                if let Some(f) = self.open.take() {
                    emit(EventBody::Cleared {
                        kind: f.kind,
                        how: How::TakenBack,
                    });
                }
            }
            Some(Verdict::Advance { game, events }) => {
                if let Some(f) = self.open.take() {
                    emit(EventBody::Cleared {
                        kind: f.kind,
                        how: How::Mended,
                    });
                }
                for e in events {
                    emit(e);
                }
                self.game = game;
                self.expected = self.game.table();
            }
            Some(Verdict::Flag(flag)) => {
                if !self.open.as_ref().is_some_and(|f| f.same_complaint(&flag)) {
                    emit(EventBody::Flag(flag.clone()));
                    self.open = Some(flag);
                }
            }
            Some(Verdict::Ambiguous(mut readings)) => {
                if let Some(f) = self.open.take() {
                    emit(EventBody::Cleared {
                        kind: f.kind,
                        how: How::Mended,
                    });
                }
                readings.truncate(MAX_READINGS);
                self.undecided = readings;
                self.undecided_changes = 0;
                self.game = self.undecided[0].game.clone();
                self.expected = self.game.table();
                self.announce_certain(emit);
            }
        }
    }

    /// Announces the events every open reading begins with: whichever of
    /// them the table settles on, those happened, and an event belongs to
    /// the first step that makes it certain (a Twelve Pawn placed, once
    /// the opponent's placement rules out its step, though that placement
    /// leaves readings of its own open).
    fn announce_certain(&mut self, emit: &mut impl FnMut(EventBody)) {
        let Some(first) = self.undecided.first() else {
            return;
        };
        let shared = (0..first.events.len())
            .take_while(|&k| {
                self.undecided
                    .iter()
                    .all(|r| r.events.get(k) == Some(&first.events[k]))
            })
            .count();
        let certain: Vec<EventBody> = first.events[..shared].to_vec();
        for r in &mut self.undecided {
            r.events.drain(..shared);
        }
        for e in certain {
            emit(e);
        }
    }

    /// Judges a table against every open reading (they all expect the same
    /// table). Readings that cannot explain a change fall away; when one is
    /// left, its events are announced now. When every reading flags the
    /// table, all stay open and the most telling flag is raised: the table
    /// that mends it will also tell the readings apart.
    fn decide(&mut self, table: &Table, before: Cell, emit: &mut impl FnMut(EventBody)) {
        let mut advanced: Vec<Reading<G>> = Vec::new();
        let mut flags: Vec<Flag> = Vec::new();
        let mut unchanged = false;
        for r in &self.undecided {
            let (verdict, offset) = judge_table(&r.game, &self.expected, table);
            self.last_offset = offset;
            match verdict {
                None => unchanged = true,
                Some(Verdict::Advance { game, events }) => {
                    advanced.push(Reading {
                        game,
                        events: [r.events.clone(), events].concat(),
                    });
                }
                Some(Verdict::Ambiguous(more)) => {
                    advanced.extend(more.into_iter().map(|m| Reading {
                        game: m.game,
                        events: [r.events.clone(), m.events].concat(),
                    }));
                }
                Some(Verdict::Flag(f)) => flags.push(f),
            }
        }
        if unchanged {
            self.settle(None, emit);
        } else if !advanced.is_empty() {
            if let Some(f) = self.open.take() {
                emit(EventBody::Cleared {
                    kind: f.kind,
                    how: How::Mended,
                });
            }
            advanced.truncate(MAX_READINGS);
            self.undecided = advanced;
            self.undecided_changes += 1;
            if self.undecided.len() == 1 || self.undecided_changes >= MAX_UNDECIDED_CHANGES {
                self.commit_best(emit);
            } else {
                self.game = self.undecided[0].game.clone();
                self.expected = self.game.table();
                self.announce_certain(emit);
            }
        } else {
            // A turn complaint is the weakest: another reading may make it
            // that player's turn. The others are given in the readings'
            // order, best first: the reading the referee would settle on
            // leads.
            let turn_only = flags.iter().all(|f| f.kind == FlagKind::WrongPlayer);
            let best = one_flag_for_readings(
                flags
                    .into_iter()
                    .filter(|f| turn_only || f.kind != FlagKind::WrongPlayer)
                    .collect(),
            );
            if self.lifted_only(table, before) {
                self.in_hand = Some(best);
            } else {
                self.settle(Some(Verdict::Flag(best)), emit);
            }
        }
    }

    /// Takes the best open reading as what happened and announces it.
    fn commit_best(&mut self, emit: &mut impl FnMut(EventBody)) {
        if self.undecided.is_empty() {
            return;
        }
        let best = self.undecided.swap_remove(0);
        self.undecided.clear();
        for e in best.events {
            emit(e);
        }
        self.game = best.game;
        self.expected = self.game.table();
    }

    /// The input has ended: readings still open are settled on the best one,
    /// and its events announced (stamped `step`).
    pub fn finish(&mut self, step: usize) -> Vec<Event> {
        let mut out = Vec::new();
        if let Some(flag) = self.in_hand.take() {
            self.settle(Some(Verdict::Flag(flag)), &mut |body| {
                out.push(Event { step, body })
            });
        }
        self.commit_best(&mut |body| out.push(Event { step, body }));
        self.name_squares(&mut out);
        out
    }
}

/// `None` means the table shows the expected position (up to a shift).
/// The verdict on one table and the translation that carried it onto the
/// board. `None` means the table shows the expected position (up to a shift).
fn judge_table<G: Game>(
    game: &G,
    expected: &Table,
    observed: &Table,
) -> (Option<Verdict<G>>, Cell) {
    let offsets = candidate_offsets(game, expected, observed);
    let mut scored: Vec<(usize, Cell)> = offsets
        .into_iter()
        .map(|d| (expected.diff_count(observed, d, MAX_JUDGED_DIFF + 1), d))
        .collect();
    // A legal reading at no shift wins outright (the spec prefers no
    // shift); otherwise fewest differing cells first, then no shift, then
    // the smallest shift.
    scored.sort_by_key(|&(n, d)| (!d.is_zero(), n, d.norm(), d));
    if let Some(&(_, d)) = scored.iter().find(|&&(n, _)| n == 0) {
        return (None, d);
    }
    let mut best: Option<((u8, usize, i32), Flag, Cell)> = None;
    for &(n, d) in &scored {
        if n > MAX_JUDGED_DIFF {
            continue;
        }
        let changes = expected.diff(observed, d);
        match game.judge(&changes) {
            v @ (Verdict::Advance { .. } | Verdict::Ambiguous(_)) => return (Some(v), d),
            Verdict::Flag(f) => {
                let key = (flag_rank(&f), n, d.norm());
                if best.as_ref().is_none_or(|(k, _, _)| key < *k) {
                    best = Some((key, f, d));
                }
            }
        }
    }
    let (flag, d) = match best {
        Some((_, f, d)) => (f, d),
        None => {
            let (_, d) = scored
                .iter()
                .min_by_key(|(n, d)| (*n, d.norm()))
                .copied()
                .unwrap_or_default();
            let f = crate::games::unexplained(
                &expected.diff(observed, d),
                "TABLE",
                "Too much changed at once",
            );
            (f, d)
        }
    };
    (Some(Verdict::Flag(flag)), d)
}

/// The most actions in turn one table is read as, when the input missed
/// the settled tables between them.
const MOST_CAUGHT_UP: usize = 3;

/// The most cells those actions may change between them: three moves,
/// each with its SWAP and a capture's FLIP.
const MOST_CAUGHT_UP_CELLS: usize = 9;

/// A table that two or three actions in turn explain, each by its own
/// player, when the input missed the settled tables between them: a
/// camera misread them (a card it did not find until the next card lay
/// beside it), or hands never left the table. All are announced, in turn,
/// and nothing is flagged: the players did nothing wrong. Only the
/// alignment that changes the fewest cells is tried, and only when each
/// action shows its own card face-up where it put it: a face-down card is
/// anyone's, so two laid at once stay one player's mistake (EP-TURN).
/// Readings that end in different tables leave the table flagged.
fn missed_actions<G: Game>(
    game: &G,
    expected: &Table,
    observed: &Table,
) -> Option<(Verdict<G>, Cell)> {
    // On a small board a shifted table differs in a few cells too, which
    // actions may happen to explain.
    let offsets: Vec<(usize, Cell)> = candidate_offsets(game, expected, observed)
        .into_iter()
        .map(|d| {
            (
                expected.diff_count(observed, d, MOST_CAUGHT_UP_CELLS + 1),
                d,
            )
        })
        .collect();
    let fewest = offsets.iter().map(|&(n, _)| n).min()?;
    if !(2..=MOST_CAUGHT_UP_CELLS).contains(&fewest) {
        return None;
    }
    for d in offsets
        .into_iter()
        .filter(|&(n, _)| n == fewest)
        .map(|(_, d)| d)
    {
        let mut found: Option<(G, Vec<EventBody>)> = None;
        let mut apart = false;
        in_turn(
            game,
            observed,
            d,
            MOST_CAUGHT_UP,
            &mut |g, events| match &found {
                Some((f, _)) if f.table() != g.table() => apart = true,
                Some(_) => {}
                None => found = Some((g.clone(), events.to_vec())),
            },
        );
        if apart {
            return None;
        }
        if let Some((game, events)) = found {
            return Some((Verdict::Advance { game, events }, d));
        }
    }
    None
}

/// Calls `done` with each way `game` reaches `observed` (moved by `d`) in
/// two to `most` actions in turn, each showing its card face-up where it
/// went (see [`missed_actions`]), and the events of them all.
fn in_turn<G: Game>(
    game: &G,
    observed: &Table,
    d: Cell,
    most: usize,
    done: &mut dyn FnMut(&G, &[EventBody]),
) {
    // Shows the card of each of its actions face-up where it went.
    let shown = |events: &[EventBody]| {
        let mut actions = events
            .iter()
            .filter_map(|e| match e {
                EventBody::Action(a) => Some(a),
                _ => None,
            })
            .peekable();
        actions.peek().is_some()
            && actions.all(|a| {
                let (Some(card), Some(to)) = (a.card, a.to) else {
                    return false;
                };
                card.colour.name() == a.player && observed.get(to.minus(d)) == Some(Token::Up(card))
            })
    };
    let changes = game.table().diff(observed, d);
    let n = changes.len();
    if most < 2 || !(2..=MOST_CAUGHT_UP_CELLS).contains(&n) {
        return;
    }
    // Each split of the changes into the first action's and the rest.
    for mask in 1..(1u32 << n) - 1 {
        let first: Vec<Change> = changes
            .iter()
            .enumerate()
            .filter(|(i, _)| mask >> i & 1 == 1)
            .map(|(_, c)| *c)
            .collect();
        let Verdict::Advance {
            game: g1,
            events: e1,
        } = game.judge(&first)
        else {
            continue;
        };
        if !shown(&e1) {
            continue;
        }
        let rest = g1.table().diff(observed, d);
        if rest.is_empty() {
            continue;
        }
        if let Verdict::Advance {
            game: g2,
            events: e2,
        } = g1.judge(&rest)
            && shown(&e2)
        {
            done(&g2, &[e1.clone(), e2].concat());
        }
        in_turn(&g1, observed, d, most - 1, &mut |g, more| {
            done(g, &[e1.clone(), more.to_vec()].concat());
        });
    }
}

/// The translations worth trying. Every action adds, removes or changes
/// only a few cards, so the first card of the expected table lands on
/// one of the first few cards of the observation, or the other way
/// round; when neither fits (a large upheaval), the translation that
/// matches the most cards.
fn candidate_offsets<G: Game>(game: &G, expected: &Table, observed: &Table) -> Vec<Cell> {
    let mut out = vec![Cell::default()];
    if !game.translation_free() {
        return out;
    }
    let (b, o) = (expected.cells(), observed.cells());
    if b.is_empty() || o.is_empty() {
        return out;
    }
    // Any of the first three cards of one table onto any of the first
    // three of the other: the first card may be the one that moved (small
    // boards, such as Twelve's, often start with it).
    for (bc, _) in b.iter().take(3) {
        out.extend(o.iter().take(3).map(|(oc, _)| bc.minus(*oc)));
    }
    out.sort();
    out.dedup();
    let best = out
        .iter()
        .map(|&d| expected.diff_count(observed, d, 8))
        .min()
        .unwrap_or(0);
    if best > 6 {
        out.push(max_match_offset(expected, observed));
        out.dedup();
    }
    out
}

/// Whether `observed` (moved by `d`) is the expected table with a card or
/// two lifted off it and nothing else changed: a hand at work. A throne
/// pair lifted together is a card lifted.
fn only_lifted(expected: &Table, observed: &Table, d: Cell) -> bool {
    let changes = expected.diff(observed, d);
    (1..=MOST_LIFTED).contains(&changes.len())
        && changes
            .iter()
            .all(|c| c.after.is_none() && c.before.is_some_and(|t| t != Token::Unreadable))
}

/// The words a flag that gives several readings' mends begins with.
pub const READ_SEVERAL_WAYS: &str = "The table reads";

/// The flag for a table every open reading flags (in the readings' order,
/// best first): the one they agree on, or, where they ask for different
/// mends (a FLIP's card on one cell if White moved, on another if Black
/// did, when the turn before left whose turn it is open; a wrong placement
/// under one reading, a mated army's cards still to turn under the other),
/// one flag that gives each reading's mend, under the player it belongs to
/// where they differ, on all their cells. Its kind and rule lead with the
/// best reading's. Naming one reading's mend as certain would send the
/// players to the wrong card; the table that mends either tells the
/// readings apart.
fn one_flag_for_readings(mut flags: Vec<Flag>) -> Flag {
    let mut distinct: Vec<Flag> = Vec::new();
    for f in flags.drain(..) {
        if !distinct.iter().any(|d| d.same_complaint(&f)) {
            distinct.push(f);
        }
    }
    if distinct.len() == 1 {
        return distinct.remove(0);
    }
    let first = &distinct[0];
    let same = |get: fn(&Flag) -> &str| distinct.iter().all(|f| get(f) == get(first));
    let mut cells: Vec<Cell> = Vec::new();
    for f in &distinct {
        for &c in &f.cells {
            if !cells.contains(&c) {
                cells.push(c);
            }
        }
    }
    let whose = |f: &Flag| {
        f.player
            .as_deref()
            .and_then(crate::table::Colour::from_name)
            .map(|c| format!("if {} acted", c.title()))
    };
    let players_differ = distinct.iter().all(|f| whose(f).is_some())
        && distinct
            .iter()
            .enumerate()
            .all(|(i, f)| distinct[..i].iter().all(|g| g.player != f.player));
    let parts: Vec<String> = distinct
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let head = match (players_differ, i) {
                (true, 0) => whose(f).unwrap_or_default().replacen("if", "If", 1),
                (true, _) => whose(f).unwrap_or_default(),
                (false, 0) => "Read one way".to_string(),
                (false, _) => "read another".to_string(),
            };
            format!("{head}: {}", f.message)
        })
        .collect();
    Flag {
        kind: first.kind,
        cells,
        rule: if same(|f| &f.rule) {
            first.rule.clone()
        } else {
            distinct
                .iter()
                .map(|f| f.rule.as_str())
                .collect::<Vec<_>>()
                .join(" / ")
        },
        message: format!(
            "{READ_SEVERAL_WAYS} {} ways{}. {}",
            if distinct.len() == 2 {
                "two"
            } else {
                "several"
            },
            if players_differ {
                ", as whose turn it was is still open"
            } else {
                ""
            },
            parts.join(". Or, ")
        ),
        player: if distinct.iter().all(|f| f.player == first.player) {
            first.player.clone()
        } else {
            None
        },
        squares: vec![],
    }
}

/// Physical slips first (they name the one step to mend), then explained
/// illegal attempts, then changes nothing explains.
fn flag_rank(f: &Flag) -> u8 {
    if f.kind.is_physical_slip() {
        0
    } else if f.kind == FlagKind::Unexplained {
        2
    } else {
        1
    }
}

fn unreadable_flag(cells: Vec<Cell>, message: String) -> Flag {
    Flag {
        kind: FlagKind::Unreadable,
        cells,
        rule: "INPUT".into(),
        message,
        player: None,
        squares: vec![],
    }
}

/// The translation under which the most cards coincide, preferring no shift
/// and then the smallest.
fn max_match_offset(expected: &Table, observed: &Table) -> Cell {
    let mut counts: std::collections::HashMap<Cell, usize> = Default::default();
    for (cb, tb) in expected.iter() {
        for (co, to) in observed.iter() {
            if tb == to && to != Token::Unreadable {
                *counts.entry(cb.minus(co)).or_default() += 1;
            }
        }
    }
    counts
        .into_iter()
        .max_by_key(|&(d, n)| (n, std::cmp::Reverse((d.norm(), d))))
        .map(|(d, _)| d)
        .unwrap_or_default()
}

/// A referee whose game is chosen at run time (from a script or the command
/// line). Outputs only need events.
pub trait AnyReferee {
    fn start(&mut self) -> Vec<Event>;
    fn observe(&mut self, step: usize, obs: &Observation) -> Vec<Event>;
    /// The input has ended; announce what is still undecided.
    fn finish(&mut self, step: usize) -> Vec<Event>;
    fn expected_table(&self) -> &Table;
    /// The open flags: a game flag and an unreadable input, at most one each.
    fn open_flags(&self) -> Vec<&Flag>;
    /// The translation that carried the last judged table onto the board.
    fn last_offset(&self) -> Cell;
    fn panel(&self) -> crate::games::Panel;
    fn next_card(&self) -> Option<crate::table::Card>;
    fn is_over(&self) -> bool;
    /// The game record in the game's standard notation, where it has one.
    fn record(&self) -> Option<String>;
    /// The non-table inputs the game would accept now.
    fn offered_inputs(&self) -> Vec<Observation>;
}

impl<G: Game> AnyReferee for Referee<G> {
    fn start(&mut self) -> Vec<Event> {
        Referee::start(self)
    }
    fn observe(&mut self, step: usize, obs: &Observation) -> Vec<Event> {
        Referee::observe(self, step, obs)
    }
    fn finish(&mut self, step: usize) -> Vec<Event> {
        Referee::finish(self, step)
    }
    fn open_flags(&self) -> Vec<&Flag> {
        self.open.iter().chain(self.unreadable.iter()).collect()
    }
    fn last_offset(&self) -> Cell {
        self.last_offset
    }
    fn panel(&self) -> crate::games::Panel {
        self.game.panel()
    }
    fn next_card(&self) -> Option<crate::table::Card> {
        self.game.next_card()
    }
    fn expected_table(&self) -> &Table {
        &self.expected
    }
    fn is_over(&self) -> bool {
        self.game.is_over()
    }
    fn record(&self) -> Option<String> {
        self.game.record()
    }
    fn offered_inputs(&self) -> Vec<Observation> {
        self.game.offered_inputs()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::enprise::{EnPrise, Options};
    use crate::table::{Card, Colour, Piece};

    fn referee() -> Referee<EnPrise> {
        let plan = |text| crate::games::enprise::parse_battleplan(text, Colour::White).unwrap();
        let white = plan("N P P B Q R P P N P B P R P P");
        let black = plan("P N P P B Q P R P N P B P R P");
        Referee::new(EnPrise::new(
            &[Colour::White, Colour::Black],
            vec![white, black],
            Options::default(),
        ))
    }

    fn table(cells: &[(i32, i32, Token)]) -> Observation {
        Observation::Table(
            cells
                .iter()
                .map(|&(c, r, t)| (Cell::new(c, r), t))
                .collect(),
        )
    }

    const WN: Token = Token::Up(Card::new(Colour::White, Piece::Knight));
    const BP: Token = Token::Down;

    #[test]
    fn a_shifted_table_is_no_change_and_a_shifted_action_is_read_in_the_board_frame() {
        let mut r = referee();
        assert_eq!(r.observe(0, &table(&[(0, 0, WN)])).len(), 1);
        assert!(r.observe(1, &table(&[(9, -4, WN)])).is_empty());
        let ev = r.observe(2, &table(&[(5, 5, WN), (6, 5, BP)]));
        let [
            Event {
                body: EventBody::Action(a),
                ..
            },
        ] = ev.as_slice()
        else {
            panic!("{ev:?}")
        };
        assert_eq!(a.to, Some(Cell::new(1, 0)));
    }

    /// A card lifted off is a hand at work: nothing is said while the next
    /// table may still show where it went. Left off until the input ends,
    /// it is flagged then.
    #[test]
    fn a_lifted_card_waits_and_is_flagged_only_when_it_stays_off() {
        let mut r = referee();
        assert_eq!(r.observe(0, &table(&[(0, 0, WN)])).len(), 1);
        assert_eq!(r.observe(1, &table(&[(0, 0, WN), (1, 0, BP)])).len(), 1);
        assert!(r.observe(2, &table(&[(1, 0, BP)])).is_empty());
        assert!(r.open_flag().is_none());
        // Put back: nothing either.
        assert!(r.observe(3, &table(&[(0, 0, WN), (1, 0, BP)])).is_empty());
        assert!(r.observe(4, &table(&[(1, 0, BP)])).is_empty());
        let ev = r.finish(5);
        assert!(
            matches!(&ev[..], [Event { step: 5, body: EventBody::Flag(f) }] if f.cells == [Cell::new(0, 0)]),
            "{ev:?}"
        );
    }

    #[test]
    fn unreadable_and_out_of_range_tables_are_flagged_and_judged_later() {
        let mut r = referee();
        r.observe(0, &table(&[(0, 0, WN)]));
        let ev = r.observe(1, &table(&[(3, 3, WN), (4, 3, Token::Unreadable)]));
        let [
            Event {
                body: EventBody::Flag(f),
                ..
            },
        ] = ev.as_slice()
        else {
            panic!("{ev:?}")
        };
        assert_eq!(
            (f.kind, f.cells.clone()),
            (FlagKind::Unreadable, vec![Cell::new(1, 0)])
        );
        // The same unreadable table again: nothing new to say.
        assert!(
            r.observe(2, &table(&[(3, 3, WN), (4, 3, Token::Unreadable)]))
                .is_empty()
        );
        let ev = r.observe(3, &table(&[(0, 0, WN), (i32::MIN, 0, BP)]));
        assert!(
            matches!(&ev[..], [Event { body: EventBody::Flag(f), .. }] if f.kind == FlagKind::Unreadable),
            "{ev:?}"
        );
        let ev = r.observe(4, &table(&[(0, 0, WN), (1, 0, BP)]));
        assert!(matches!(
            ev[0].body,
            EventBody::Cleared {
                kind: FlagKind::Unreadable,
                how: How::Mended
            }
        ));
        assert!(
            matches!(&ev[1].body, EventBody::Action(a) if a.action == crate::event::ActionKind::PlaceVacant),
            "{ev:?}"
        );
    }

    #[test]
    fn a_flag_holds_the_game_until_taken_back_and_is_not_repeated() {
        let mut r = referee();
        r.observe(0, &table(&[(0, 0, WN)]));
        // Black's card far from the board: touching nothing.
        let far = table(&[(0, 0, WN), (5, 5, BP)]);
        let ev = r.observe(1, &far);
        assert!(
            matches!(&ev[..], [Event { body: EventBody::Flag(f), .. }] if f.rule == "EP-PLACE-ADJ"),
            "{ev:?}"
        );
        assert!(
            r.observe(2, &far).is_empty(),
            "the same complaint is not repeated"
        );
        assert_eq!(r.game().card_count(), 1, "the game did not advance");
        let ev = r.observe(3, &table(&[(0, 0, WN)]));
        assert!(
            matches!(
                ev[..],
                [Event {
                    body: EventBody::Cleared {
                        how: How::TakenBack,
                        ..
                    },
                    ..
                }]
            ),
            "{ev:?}"
        );
    }
}
