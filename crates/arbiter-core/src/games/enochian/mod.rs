//! Enochian Chess (`spec/enochian.md`): four armies in two teams on one
//! 8x8 board. Every EN rule ID of the spec is enforced here and cited by
//! the flags.
//!
//! The state is a value: [`Enochian::legal_moves`] lists what the army to
//! move may do, [`Enochian::play`] plays one with all its automatic effects
//! and hands the turn on (skips and passes chained), `judge` (in
//! `judge.rs`) reads a settled table as one of them, a part of one, or an
//! attempt the rules forbid, and `judge_input` takes die rolls and calls.
//!
//! Readings settled here beyond the spec (the spec's own House rules and
//! Impl choices are implemented as written):
//!
//! - **Skips at the start**: a `[start]` whose army to move is frozen,
//!   stalemated or without a move skips it at once; those `skip`/`pass`
//!   events are announced with the first observation the referee accepts.
//! - **Events**: a move is announced as `move`, `capture` or
//!   `ally_king_capture`, then its effects in this order: `frozen` notice(s)
//!   (and EN-CTL-3's `control`/`king_returns`/`frozen` notices), `seize`
//!   (only when control or freezing actually changes, so not in two-player
//!   games unless the ally thaws) and `thawed`, `concourse` (one event per
//!   completed block, after the bishop's or queen's own `move`), `promote`
//!   and `demote`, EN-PRO-3's `promote`s of other armies (their `player` is
//!   the pawn's army), `check`s (a king with an attacker it did not have
//!   before the move, the mover's own included), `game_over`, then the
//!   `skip`/`pass` of the armies that follow. An ally-king capture adds a
//!   `control` notice.
//! - **EN-CHK-2** is judged on the position after the move and all its
//!   effects: a king capturing an enemy king freezes that army, whose
//!   pieces then attack nothing.
//! - **EN-STM-2/EN-END-2(c)**: a stalemate "has lasted a full round" once
//!   the same army was found stalemated at two of its turns in a row; then
//!   `agree-draw` calls are taken, one per player controlling an army now,
//!   and the last one draws. Any move clears the agreements.
//! - **EN-END-2(d)**: four turns in a row ending without a move (skips and
//!   passes) draw the game.
//! - **EN-WDR**: `withdraw` by an army on its turn, reduced to its bare king,
//!   with its ally unfrozen, is EN-WDR-1; otherwise it is EN-WDR-2 (any time,
//!   refused when its ally has withdrawn already). On a withdrawn bare
//!   army's turn the ally acts (events name the ally); the turn is skipped
//!   while the ally is frozen, stalemated or without a move. A seize never
//!   thaws a bare-withdrawn army.
//! - **EN-XCH-1 timing**: the proposer may propose while it is to move, or
//!   right after the move that took the later king prisoner (before the
//!   next move): "at that capture"; the answer comes
//!   from any army its opponent's player controls. A move drops an
//!   unanswered proposal. The returning kings are due on the table: until
//!   the next move the table may still lack them; a move without them is
//!   `incomplete_action`. A king placed by EN-CTL-3 is due the same way.
//! - **EN-PRO-3 swaps and due kings** are shown by [`Game::table`] as not
//!   yet made; a table with some of them made is accepted as its own step,
//!   with no event (the `promote` was announced with the move).
//! - **EN-PRO-5 demotion** of an annexed piece keeps its card colour: it
//!   becomes a pawn card of that colour moving for its new army.
//! - **A `[start]` with a pawn waiting on its zone** although its army has
//!   fewer than four pawns is refused (it would have promoted).
//! - **Change of mind** (EN-IO-1): until the next army's roll, call or move
//!   is accepted, a table showing another legal move of the army that just
//!   moved (from the same start) replaces the first reading, and the start
//!   table takes the move back (notice `action_taken_back`).
//! - **Flags**: capturing a frozen piece cites EN-MOV-5; moving a piece of a
//!   frozen army EN-FRZ-1; moving a piece of an army skipped for stalemate
//!   since the last move EN-STM-2; a promoted card of the wrong type
//!   EN-PRO-4 (EN-PRO-2 when the pawn must wait, EN-PRO-5 for a privileged
//!   pawn). A die rolled when none is awaited (no divination, a second
//!   roll, after the end) is a `refused_roll` notice, as a refused call is:
//!   the table has nothing to mend.
//! - **Calls** the rules refuse now give a `refused_call` notice; an
//!   unknown call is `unexplained`.
//! - **Unfinished moves** (`incomplete_action`): a table is read as a legal
//!   move carried out in part when the mover (or its promoted card) shows
//!   on its destination and every other square lies between the start and
//!   the move's result (what both keep is still there, nothing foreign has
//!   come). Cells: from, to, then the squares still to mend. A table that
//!   shows one card lifted and set down elsewhere (nothing else changed
//!   but a victim taken off) is read as that card's attempted move: as
//!   another legal move carried out in part only when that reading asks to
//!   mend no square the table left as it was (issue 59: the queen e6–h5
//!   is `illegal_move`, not the privileged pawn's g5–h5=Q unfinished with
//!   the pawn still on g5). A move of a piece of another army cites
//!   EN-BRD-4 (`wrong_player`).
//! - **Owed squares**: a king returning (EN-XCH-3, EN-CTL-3) may move on
//!   before it was ever put down; its square counts as touched.
//! - **`exchange` event**: `player` is the accepting army, `card` the king
//!   captured earlier, `captured` the other returning king; `thawed`
//!   notices follow with their squares.

mod judge;
#[cfg(any(test, feature = "testkit"))]
pub mod mistakes;
#[cfg(any(test, feature = "testkit"))]
pub mod random;
pub mod rules;
mod setup;

pub use setup::{Setup, StartState};

use crate::event::ActionKind;
use serde::{Deserialize, Serialize};

use crate::event::{EventBody, Flag, FlagKind, GameResult};
use crate::games::{
    ArmiesPanel, ArmyPanel, DiePanel, Game, Panel, PlayerPanel, Verdict, unexplained,
};
use crate::observation::Observation;
use crate::table::{Card, Cell, Piece, Table, Token};

pub use rules::{
    ARIES, BLACK, BLUE, COLOURS, KingState, Move, NAMES, Pos, RED, Sq, THRONES, Unit, Withdrawal,
    YELLOW, cell_of, parse_square, sq_of, square_name,
};
use rules::{
    ELEMENTS, Sink, TEAM_NAMES, TEAM_TITLES, TITLES, action, ally, enemies, notice, own_controller,
    roll_allows, roll_needs, team,
};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    #[default]
    FourPlayer,
    TwoPlayer,
}

/// The spec's named options.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Options {
    pub mode: Mode,
    /// EN-DIV.
    pub divination: bool,
    /// R of EN-DIV-2.
    pub rerolls: u32,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            mode: Mode::FourPlayer,
            divination: false,
            rerolls: 3,
        }
    }
}

impl Options {
    pub fn four(&self) -> bool {
        self.mode == Mode::FourPlayer
    }

    /// The options as a table script writes them.
    pub fn to_toml(&self) -> String {
        format!(
            "{{ mode = \"{}\", divination = {}, rerolls = {} }}",
            if self.four() {
                "four-player"
            } else {
                "two-player"
            },
            self.divination,
            self.rerolls
        )
    }
}

/// How the game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Win { team: u8, why: String },
    Draw { why: String },
}

/// An exchange proposed and not yet answered (EN-XCH-1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Proposal {
    pub proposer: u8,
    pub answerer: u8,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Enochian {
    opts: Options,
    pos: Pos,
    /// The army whose turn it is (a withdrawn bare army's turn is played by
    /// its ally: see [`Enochian::acting`]).
    to_move: u8,
    roll: Option<u8>,
    rerolls_used: u32,
    /// Squares where the table may still differ from the rules' board:
    /// swaps and kings other armies owe (EN-IO-2), with what they show.
    lag: Vec<(Sq, Option<Token>)>,
    proposal: Option<Proposal>,
    /// Players who agreed to a draw (bit per player).
    agreed: u8,
    /// Turns in a row that ended without a move (EN-END-2 d).
    idle: u8,
    /// Turns in a row each army was found stalemated.
    stale_turns: [u8; 4],
    /// Armies skipped for stalemate since the last move.
    stale_skipped: u8,
    /// The army whose last move took a king prisoner: EN-XCH-1 lets it
    /// propose "at that capture", before the next move.
    king_taker: Option<u8>,
    over: Option<Outcome>,
    /// The game before the last move, while that move may be reconsidered.
    snapshot: Option<Box<Enochian>>,
    /// Events of skips at the start, announced with the first accepted
    /// observation.
    intro: Vec<EventBody>,
}

impl Enochian {
    /// The default array (EN-ARR-1), Blue to move.
    pub fn new(opts: Options) -> Enochian {
        let mut g = Enochian::at(opts, Pos::default_array(opts.four()), BLUE);
        let mut ev = Vec::new();
        g.begin_turn(&mut ev);
        g.intro = ev;
        g
    }

    /// A position as it stands, before its turn is begun.
    fn at(opts: Options, pos: Pos, to_move: u8) -> Enochian {
        Enochian {
            opts,
            pos,
            to_move,
            roll: None,
            rerolls_used: 0,
            lag: Vec::new(),
            proposal: None,
            agreed: 0,
            idle: 0,
            stale_turns: [0; 4],
            stale_skipped: 0,
            king_taker: None,
            over: None,
            snapshot: None,
            intro: Vec::new(),
        }
    }

    pub fn options(&self) -> &Options {
        &self.opts
    }

    pub fn position(&self) -> &Pos {
        &self.pos
    }

    /// The army whose turn it is.
    pub fn to_move(&self) -> u8 {
        self.to_move
    }

    /// The army whose pieces move now: the army to move, or the ally of a
    /// withdrawn bare army (EN-WDR-1).
    pub fn acting(&self) -> u8 {
        if self.pos.armies[self.to_move as usize].withdrawn == Some(Withdrawal::Bare) {
            ally(self.to_move)
        } else {
            self.to_move
        }
    }

    /// Events of skips at the start, still to be announced.
    pub fn intro_events(&self) -> &[EventBody] {
        &self.intro
    }

    pub fn roll(&self) -> Option<u8> {
        self.roll
    }

    pub fn rerolls_used(&self) -> u32 {
        self.rerolls_used
    }

    /// Divination: the turn waits for the die.
    pub fn awaits_roll(&self) -> bool {
        self.opts.divination && self.over.is_none() && self.roll.is_none()
    }

    pub fn outcome(&self) -> Option<&Outcome> {
        self.over.as_ref()
    }

    pub fn proposal(&self) -> Option<Proposal> {
        self.proposal
    }

    /// Physical steps still owed: the square and what it may show meanwhile.
    pub fn owed(&self) -> &[(Sq, Option<Token>)] {
        &self.lag
    }

    pub fn player_names(&self) -> Vec<String> {
        if self.opts.four() {
            NAMES.iter().map(|s| s.to_string()).collect()
        } else {
            TEAM_NAMES.iter().map(|s| s.to_string()).collect()
        }
    }

    /// Every legal move of the acting army, whatever the die says.
    pub fn legal_moves(&self) -> Vec<Move> {
        if self.over.is_some() {
            return Vec::new();
        }
        self.pos.legal_moves(self.acting())
    }

    /// The moves a table may show now: none before the die is rolled, and
    /// only the rolled type after (EN-DIV-1).
    pub fn allowed_moves(&self) -> Vec<Move> {
        let mut v = self.legal_moves();
        if self.opts.divination {
            match self.roll {
                None => v.clear(),
                Some(r) => v.retain(|m| roll_allows(r, m.kind)),
            }
        }
        v
    }

    /// The rules' board (owed steps done).
    pub fn board_token(&self, sq: Sq) -> Option<Token> {
        self.pos.token(sq)
    }

    /// What the table shows on `sq` now, owed steps not yet made.
    pub fn shown_token(&self, sq: Sq) -> Option<Token> {
        match self.lag.iter().find(|(s, _)| *s == sq) {
            Some(&(_, t)) => t,
            None => self.pos.token(sq),
        }
    }

    /// The table with every owed step made.
    pub fn settled_table(&self) -> Table {
        (0..64u8)
            .filter_map(|s| self.pos.token(s).map(|t| (cell_of(s), t)))
            .collect()
    }

    /// The game with its owed steps made (the generator's way to show them).
    pub fn settled(&self) -> Enochian {
        let mut g = self.clone();
        g.lag.clear();
        g
    }

    pub fn frozen_squares(&self) -> Vec<Sq> {
        self.pos
            .all_units()
            .filter(|(_, u)| self.pos.frozen(u.army))
            .map(|(s, _)| s)
            .collect()
    }

    fn controller_name(&self, a: u8) -> &'static str {
        self.pos.player_name(self.pos.armies[a as usize].controller)
    }

    /// Plays a legal move: its effects, the check and end tests, and the
    /// turn handed on past every army that must skip or pass.
    pub fn play(&self, mv: Move) -> (Enochian, Vec<EventBody>) {
        let a = self.acting();
        let mut sink = Sink::on();
        let applied = self.pos.apply(a, mv, &mut sink);
        let mut base = self.clone();
        base.snapshot = None;
        base.intro.clear();
        let mut g = base.clone();
        g.pos = applied.pos;
        g.lag = applied.owed;
        check_events(&self.pos, &g.pos, &mut sink.events);
        g.idle = 0;
        g.agreed = 0;
        g.proposal = None;
        g.king_taker = (g.pos.prisoner_list().len() > self.pos.prisoner_list().len()).then_some(a);
        g.stale_skipped = 0;
        g.roll = None;
        g.rerolls_used = 0;
        g.snapshot = Some(Box::new(base));
        let mut events = sink.events;
        if !g.end_test(team(a), &mut events) {
            g.to_move = (g.to_move + 1) % 4;
            g.begin_turn(&mut events);
        }
        (g, events)
    }

    /// EN-END-1/2(a,b); true when the game ended.
    fn end_test(&mut self, mover_team: u8, events: &mut Vec<EventBody>) -> bool {
        if let Some(o) = outcome(&self.pos, mover_team) {
            events.push(game_over(&o));
            self.over = Some(o);
            return true;
        }
        false
    }

    /// Starts the turn of `to_move`: armies that must skip (frozen,
    /// stalemated) or pass (no legal move) are passed over with their
    /// events, until one can move or a whole round went by idle.
    fn begin_turn(&mut self, events: &mut Vec<EventBody>) {
        loop {
            if self.over.is_some() {
                return;
            }
            self.roll = None;
            self.rerolls_used = 0;
            let x = self.to_move;
            // A withdrawn bare army's turn is its ally's: skipped with it.
            let acting = self.acting();
            let skip = if self.pos.frozen(acting) {
                Some(ActionKind::Skip)
            } else if self.pos.stalemated(acting) {
                self.stale_turns[acting as usize] =
                    self.stale_turns[acting as usize].saturating_add(1);
                self.stale_skipped |= 1 << acting;
                Some(ActionKind::Skip)
            } else {
                self.stale_turns[acting as usize] = 0;
                if self.pos.legal_moves(acting).is_empty() {
                    Some(ActionKind::Pass)
                } else {
                    None
                }
            };
            let Some(what) = skip else {
                return;
            };
            events.push(EventBody::Action(action(x, what)));
            if self.idle_turn(events) {
                return;
            }
        }
    }

    /// A turn ended without a move; true when that ended the game.
    fn idle_turn(&mut self, events: &mut Vec<EventBody>) -> bool {
        self.idle += 1;
        if self.idle >= 4 {
            let o = Outcome::Draw {
                why: "a full round passed in which no army moved (EN-END-2)".into(),
            };
            events.push(game_over(&o));
            self.over = Some(o);
            return true;
        }
        self.to_move = (self.to_move + 1) % 4;
        false
    }

    /// The exchanges open now: (proposer, answerer, the kings returning).
    pub fn exchange_open(&self) -> Option<(u8, u8, u8, u8)> {
        let list = self.pos.prisoner_list();
        for j in 0..list.len() {
            for i in 0..j {
                let (p1, c1) = list[i];
                let (p2, c2) = list[j];
                if c1 == ally(p2)
                    && c2 == ally(p1)
                    && enemies(p1, p2)
                    && !self.pos.frozen(p1)
                    && !self.pos.frozen(p2)
                {
                    return Some((p2, p1, c1, c2));
                }
            }
        }
        None
    }

    fn refused(&self, message: String) -> Verdict<Enochian> {
        Verdict::Advance {
            game: self.clone(),
            events: vec![notice("refused_call", message)],
        }
    }

    /// Why `by` may not make `call` now, or None.
    fn call_refusal(&self, call: &str, by: u8) -> Option<String> {
        let name = TITLES[by as usize];
        if let Some(o) = &self.over {
            return Some(format!("The game is over ({})", outcome_text(o)));
        }
        match call {
            "propose-exchange" => {
                let Some((p, _, _, _)) = self.exchange_open() else {
                    return Some(
                        "No exchange of prisoners is possible: each army must hold the king of the other's ally, and neither may be frozen (EN-XCH-1)".into(),
                    );
                };
                if p != by {
                    return Some(format!(
                        "Only {}, which made the later capture, may propose the exchange (EN-XCH-1)",
                        TITLES[p as usize]
                    ));
                }
                if self.acting() != by && self.king_taker != Some(by) {
                    return Some(format!(
                        "{name} proposes on its own turn or right after its capture (EN-XCH-1)"
                    ));
                }
                if self.proposal.is_some() {
                    return Some("An exchange is already proposed: it waits for an answer".into());
                }
                None
            }
            "accept-exchange" | "refuse-exchange" => match self.proposal {
                None => Some("No exchange is proposed".into()),
                Some(p)
                    if self.pos.armies[by as usize].controller
                        != self.pos.armies[p.answerer as usize].controller =>
                {
                    Some(format!(
                        "{}'s player answers the exchange, not {name}'s (EN-XCH-1)",
                        TITLES[p.answerer as usize]
                    ))
                }
                Some(_) => None,
            },
            "withdraw" => {
                if !self.opts.four() {
                    return Some("Withdrawal is for four-player games only (EN-WDR)".into());
                }
                if self.pos.armies[by as usize].withdrawn.is_some() {
                    return Some(format!("{name} has withdrawn already"));
                }
                if self.pos.armies[ally(by) as usize].withdrawn.is_some() {
                    return Some(format!(
                        "{name}'s ally has withdrawn: {name} cannot pass to it (EN-WDR-2)"
                    ));
                }
                None
            }
            "agree-draw" => {
                if !self.stale_turns.iter().any(|&n| n >= 2) {
                    return Some(
                        "A draw is agreed only after a stalemate has lasted a full round (EN-END-2)"
                            .into(),
                    );
                }
                let p = self.pos.armies[by as usize].controller;
                if self.agreed >> p & 1 == 1 {
                    return Some(format!("{}'s player has agreed already", name));
                }
                None
            }
            _ => Some(format!("{call} is not an Enochian call")),
        }
    }

    /// The answer to a call the rules allow.
    fn take_call(&self, call: &str, by: u8) -> (Enochian, Vec<EventBody>) {
        let mut g = self.clone();
        g.snapshot = None;
        let mut events = Vec::new();
        match call {
            "propose-exchange" => {
                let (p, q, _, _) = self.exchange_open().expect("checked");
                g.proposal = Some(Proposal {
                    proposer: p,
                    answerer: q,
                });
                events.push(notice(
                    "exchange_proposed",
                    format!(
                        "{} proposes to exchange prisoners: {}'s player accepts or refuses",
                        TITLES[p as usize], TITLES[q as usize]
                    ),
                ));
            }
            "refuse-exchange" => {
                let p = g.proposal.take().expect("checked");
                events.push(notice(
                    "exchange_refused",
                    format!("{} refuses the exchange", TITLES[p.answerer as usize]),
                ));
            }
            "accept-exchange" => {
                let p = g.proposal.take().expect("checked");
                g.exchange(p, &mut events);
            }
            "withdraw" => g.withdraw(by, &mut events),
            _ => {
                let p = g.pos.armies[by as usize].controller;
                g.agreed |= 1 << p;
                let players: u8 = g.pos.armies.iter().fold(0, |m, s| m | (1 << s.controller));
                if g.agreed & players == players {
                    let o = Outcome::Draw {
                        why: "the players agreed after a stalemate lasted a full round (EN-END-2)"
                            .into(),
                    };
                    events.push(game_over(&o));
                    g.over = Some(o);
                } else {
                    events.push(notice(
                        "draw_agreed",
                        format!(
                            "{}'s player agrees to a draw ({} of {} players)",
                            TITLES[by as usize],
                            (g.agreed & players).count_ones(),
                            players.count_ones()
                        ),
                    ));
                }
            }
        }
        (g, events)
    }

    /// EN-XCH-2/3.
    fn exchange(&mut self, p: Proposal, events: &mut Vec<EventBody>) {
        let before = self.pos;
        let (kings, captors) = {
            let list = self.pos.prisoner_list();
            let k1 = ally(p.proposer);
            let k2 = ally(p.answerer);
            let mut kings = vec![k1, k2];
            // The earlier capture's king first.
            kings.sort_by_key(|k| list.iter().position(|&(_, c)| c == *k));
            (kings, (p.proposer, p.answerer))
        };
        let _ = captors;
        let mut avoid = Vec::new();
        let mut placed = Vec::new();
        for &k in &kings {
            let sq = self.pos.placement(k, &kings, &avoid);
            avoid.push(sq);
            placed.push((k, sq));
        }
        events.push(EventBody::Action({
            let mut e = action(p.answerer, ActionKind::Exchange);
            e.card = Some(Card::new(COLOURS[kings[0] as usize], Piece::King));
            e.captured = Some(Card::new(COLOURS[kings[1] as usize], Piece::King));
            e
        }));
        for (k, sq) in placed {
            let ki = k as usize;
            self.pos.remove_prisoner(k);
            let shown = self.shown_token(sq);
            self.pos.put(sq, Unit::new(k, Piece::King));
            self.pos.armies[ki].king = KingState::OnBoard;
            self.pos.armies[ki].frozen = false;
            self.pos.armies[ki].controller = own_controller(self.opts.four(), k);
            self.pos.armies[ki].taken_over_by = None;
            self.lag.retain(|(s, _)| *s != sq);
            self.lag.push((sq, shown));
            events.push(notice(
                "thawed",
                format!(
                    "{} thaws: its king returns to {} (EN-XCH-3), put it there",
                    TITLES[ki],
                    square_name(sq)
                ),
            ));
        }
        check_events(&before, &self.pos, events);
        let t = team(self.acting());
        self.end_test(t, events);
    }

    /// EN-WDR-1/2.
    fn withdraw(&mut self, by: u8, events: &mut Vec<EventBody>) {
        let bi = by as usize;
        let bare = self.to_move == by
            && self.pos.armies[bi].king == KingState::OnBoard
            && self.pos.army_size(by) == 1
            && !self.pos.frozen(ally(by))
            && !self.pos.frozen(by);
        let mut e = action(by, ActionKind::Withdraw);
        if bare {
            self.pos.armies[bi].withdrawn = Some(Withdrawal::Bare);
            self.pos.armies[bi].frozen = true;
            e.card = Some(Card::new(COLOURS[bi], Piece::King));
            e.from = self.pos.king_square(by).map(cell_of);
            events.push(EventBody::Action(e));
            events.push(notice(
                "withdrawn",
                format!(
                    "{} withdraws its bare king (EN-WDR-1): on its turns {} moves",
                    TITLES[bi],
                    TITLES[ally(by) as usize]
                ),
            ));
            let t = team(ally(by));
            if !self.end_test(t, events) {
                self.begin_turn(events);
            }
        } else {
            self.pos.armies[bi].withdrawn = Some(Withdrawal::Voluntary);
            self.pos.armies[bi].controller = self.pos.armies[ally(by) as usize].controller;
            events.push(EventBody::Action(e));
            events.push(notice(
                "withdrawn",
                format!(
                    "{} withdraws (EN-WDR-2): {}'s player moves it on its turns",
                    TITLES[bi],
                    TITLES[ally(by) as usize]
                ),
            ));
        }
    }

    /// Takes a die roll (EN-DIV-1/2).
    fn take_roll(&self, n: u8) -> Verdict<Enochian> {
        // A die rolled out of place changes nothing on the table, so there
        // is nothing to mend: it is refused as a spoken call is, not
        // flagged.
        let flag = |rule: &str, message: String| Verdict::Advance {
            game: self.clone(),
            events: vec![notice("refused_roll", format!("{message} ({rule})"))],
        };
        if !self.opts.divination {
            return flag(
                "EN-DIV-1",
                "This game is played without divination: no die is rolled".into(),
            );
        }
        if let Some(o) = &self.over {
            return flag(
                "EN-END-3",
                format!("The game is over ({})", outcome_text(o)),
            );
        }
        let a = self.acting();
        if let Some(r) = self.roll {
            return flag(
                "EN-DIV-2",
                format!(
                    "{} already rolled {r} this turn: a {} moves now",
                    TITLES[a as usize],
                    roll_needs(r)
                ),
            );
        }
        let mut g = self.clone();
        g.snapshot = None;
        let mut events = Vec::new();
        if self.legal_moves().iter().any(|m| roll_allows(n, m.kind)) {
            g.roll = Some(n);
            events.push(notice(
                "roll",
                format!(
                    "{} rolled {n}: a {} moves",
                    TITLES[a as usize],
                    roll_needs(n)
                ),
            ));
        } else if g.rerolls_used < g.opts.rerolls {
            g.rerolls_used += 1;
            let mut e = action(a, ActionKind::Reroll);
            e.roll = Some(n);
            events.push(EventBody::Action(e));
        } else {
            let mut e = action(self.to_move, ActionKind::Pass);
            e.roll = Some(n);
            events.push(EventBody::Action(e));
            if !g.idle_turn(&mut events) {
                g.begin_turn(&mut events);
            }
        }
        Verdict::Advance { game: g, events }
    }

    /// The verdict with the start's skip events in front.
    fn with_intro(&self, v: Verdict<Enochian>) -> Verdict<Enochian> {
        match v {
            Verdict::Advance { mut game, events } if !self.intro.is_empty() => {
                game.intro.clear();
                Verdict::Advance {
                    game,
                    events: [self.intro.clone(), events].concat(),
                }
            }
            v => v,
        }
    }

    fn result_text(&self) -> Option<String> {
        self.over.as_ref().map(outcome_text)
    }

    /// A short line on the army's standing, for the panel.
    fn army_notes(&self, a: u8) -> Vec<String> {
        let ai = a as usize;
        let mut notes = Vec::new();
        let pawns = self.pos.count(a, Piece::Pawn);
        let size = self.pos.army_size(a);
        // Pawns apart: their count decides promotion (EN-PRO-2).
        let count = |n: usize, what: &str| match n {
            1 => format!("1 {what}"),
            n => format!("{n} {what}s"),
        };
        let pieces = size.saturating_sub(pawns);
        notes.push(format!(
            "{}, {}",
            count(pieces, "piece"),
            count(pawns, "pawn")
        ));
        match self.pos.armies[ai].king {
            KingState::Prisoner(c) => notes.push(format!("king held by {}", TITLES[c as usize])),
            KingState::AllyCaptured => notes.push("king taken by its ally".into()),
            KingState::Off => notes.push("king off the board".into()),
            KingState::OnBoard => {}
        }
        for (s, u) in self.pos.all_units() {
            if u.army == a && u.colour != a {
                notes.push(format!("annexed {} on {}", u.title(), square_name(s)));
            }
            if u.colour == a && u.army != a {
                notes.push(format!("{} on {} annexed", u.title(), square_name(s)));
            }
            if u.army == a && u.kind == Piece::Pawn && rules::in_zone(a, s) {
                notes.push(format!("pawn on {} waits", square_name(s)));
            }
        }
        if self.stale_turns[ai] > 0 {
            notes.push(format!(
                "stalemated {} turn(s) in a row",
                self.stale_turns[ai]
            ));
        }
        notes
    }
}

/// `check` events for kings that gained an attacker.
fn check_events(before: &Pos, after: &Pos, events: &mut Vec<EventBody>) {
    let (mb, ma) = (before.masks(), after.masks());
    for x in 0..4u8 {
        let Some(k) = after.live_king(&ma, x) else {
            continue;
        };
        let now = after.attackers(&ma, k, x);
        if now == 0 {
            continue;
        }
        let was = before
            .live_king(&mb, x)
            .map_or(0, |kb| before.attackers(&mb, kb, x));
        if now & !was != 0 {
            events.push(EventBody::Check {
                player: NAMES[x as usize].into(),
                attackers: rules::bits(now).map(cell_of).collect(),
                squares: vec![],
            });
        }
    }
}

/// EN-END-1 and EN-END-2 (a, b).
fn outcome(pos: &Pos, mover_team: u8) -> Option<Outcome> {
    let has_king = |t: u8| {
        (0..4u8).any(|a| {
            team(a) == t
                && pos.armies[a as usize].king == KingState::OnBoard
                && pos.armies[a as usize].withdrawn != Some(Withdrawal::Bare)
        })
    };
    let other = 1 - mover_team;
    for (winner, loser) in [(mover_team, other), (other, mover_team)] {
        if !has_king(loser) {
            return Some(Outcome::Win {
                team: winner,
                why: format!(
                    "no {} king stands on the board (EN-END-1)",
                    TEAM_TITLES[loser as usize]
                ),
            });
        }
    }
    let bare = |a: u8| pos.armies[a as usize].king == KingState::OnBoard && pos.army_size(a) == 1;
    if (0..4).all(bare) {
        return Some(Outcome::Draw {
            why: "only four bare kings remain (EN-END-2)".into(),
        });
    }
    for t in 0..2u8 {
        if bare(t) && bare(t + 2) {
            return Some(Outcome::Draw {
                why: format!(
                    "both {} kings stand bare (EN-END-2)",
                    TEAM_TITLES[t as usize]
                ),
            });
        }
    }
    None
}

fn game_over(o: &Outcome) -> EventBody {
    match o {
        Outcome::Win { team, .. } => EventBody::GameOver {
            result: GameResult::Win,
            winner: Some(TEAM_NAMES[*team as usize].into()),
        },
        Outcome::Draw { .. } => EventBody::GameOver {
            result: GameResult::Draw,
            winner: None,
        },
    }
}

fn outcome_text(o: &Outcome) -> String {
    match o {
        Outcome::Win { team, why } => format!("{} wins: {why}", TEAM_TITLES[*team as usize]),
        Outcome::Draw { why } => format!("Drawn: {why}"),
    }
}

impl Game for Enochian {
    fn name(&self) -> &'static str {
        "enochian"
    }

    fn players(&self) -> Vec<String> {
        self.player_names()
    }

    fn table(&self) -> Table {
        (0..64u8)
            .filter_map(|s| self.shown_token(s).map(|t| (cell_of(s), t)))
            .collect()
    }

    fn translation_free(&self) -> bool {
        false
    }

    fn judge(&self, changes: &[crate::table::Change]) -> Verdict<Self> {
        self.with_intro(judge::judge(self, changes))
    }

    fn judge_input(&self, input: &Observation) -> Verdict<Self> {
        let v = match input {
            Observation::Roll(n) => self.take_roll(*n),
            Observation::Call { call, by } => {
                let known = [
                    "propose-exchange",
                    "accept-exchange",
                    "refuse-exchange",
                    "withdraw",
                    "agree-draw",
                ];
                if !known.contains(&call.as_str()) {
                    return Verdict::Flag(unexplained(
                        &[],
                        "TABLE-SCRIPT",
                        &format!(
                            "{call:?} is not an Enochian call (propose-exchange, accept-exchange, refuse-exchange, withdraw, agree-draw)"
                        ),
                    ));
                }
                let Some(by) = by.as_deref().and_then(rules::army_named) else {
                    return self.refused(format!(
                        "A {call} call names the army that speaks: by = \"blue\", \"red\", \"black\" or \"yellow\""
                    ));
                };
                match self.call_refusal(call, by) {
                    Some(why) => self.refused(why),
                    None => {
                        let (game, events) = self.take_call(call, by);
                        Verdict::Advance { game, events }
                    }
                }
            }
            other => Verdict::Flag(Flag {
                kind: FlagKind::Unexplained,
                cells: vec![],
                rule: "TABLE-SCRIPT".into(),
                message: format!("enochian does not use {} observations", other.kind()),
                player: None,
                squares: vec![],
            }),
        };
        self.with_intro(v)
    }

    fn is_over(&self) -> bool {
        self.over.is_some()
    }

    fn square_name(&self, cell: Cell) -> Option<String> {
        cell.square()
    }

    fn panel(&self) -> Panel {
        let acting = self.acting();
        let m = self.pos.masks();
        let armies: Vec<ArmyPanel> = (0..4u8)
            .map(|a| {
                let s = &self.pos.armies[a as usize];
                ArmyPanel {
                    colour: COLOURS[a as usize],
                    element: ELEMENTS[a as usize].into(),
                    team: TEAM_TITLES[team(a) as usize].into(),
                    controller: self.controller_name(a).into(),
                    to_move: self.over.is_none() && a == self.to_move,
                    frozen: s.frozen,
                    withdrawn: s.withdrawn.is_some(),
                    in_check: self.pos.in_check(&m, a),
                    stalemated: self.stale_turns[a as usize] > 0,
                    king_off: s.king != KingState::OnBoard,
                    prisoners: self
                        .pos
                        .prisoner_list()
                        .iter()
                        .filter(|(c, _)| *c == a)
                        .map(|&(_, k)| Card::new(COLOURS[k as usize], Piece::King))
                        .collect(),
                    notes: self.army_notes(a),
                }
            })
            .collect();
        let players = armies
            .iter()
            .map(|ap| PlayerPanel {
                colour: ap.colour,
                to_move: ap.to_move,
                out: ap.frozen || ap.king_off,
                in_check: ap.in_check,
                plan: vec![],
                played: 0,
                notes: {
                    let mut n = vec![format!(
                        "{} ({}, team {}), moved by {}",
                        ap.colour.title(),
                        ap.element,
                        ap.team,
                        ap.controller
                    )];
                    n.extend(ap.notes.iter().cloned());
                    n
                },
            })
            .collect();
        let mut notes = Vec::new();
        if self.over.is_none() {
            if acting != self.to_move {
                notes.push(format!(
                    "{}'s turn: its ally {} moves (EN-WDR-1)",
                    TITLES[self.to_move as usize], TITLES[acting as usize]
                ));
            } else {
                notes.push(format!(
                    "{} to move ({}'s player)",
                    TITLES[acting as usize],
                    self.controller_name(acting)
                ));
            }
            if self.awaits_roll() {
                notes.push("Roll the die before moving".into());
            }
        }
        for &(s, shown) in &self.lag {
            let want = self
                .pos
                .token(s)
                .map_or("nothing".to_string(), |t| t.to_string());
            let now = shown.map_or("nothing".to_string(), |t| t.to_string());
            notes.push(format!(
                "Owed: {} shows {now}; make it {want} before the next move",
                square_name(s)
            ));
        }
        if let Some(p) = self.proposal {
            notes.push(format!(
                "{} proposes an exchange of prisoners: {} accepts or refuses",
                TITLES[p.proposer as usize], TITLES[p.answerer as usize]
            ));
        }
        if self.agreed != 0 {
            notes.push(format!(
                "{} player(s) agreed to a draw",
                self.agreed.count_ones()
            ));
        }
        if self.opts != Options::default() {
            notes.push(format!("Options: {}", self.opts.to_toml()));
        }
        let thrones = (0..4u8)
            .flat_map(|a| {
                THRONES[a as usize]
                    .iter()
                    .map(move |&s| (cell_of(s), COLOURS[a as usize]))
            })
            .collect();
        Panel {
            players,
            notes,
            result: self.result_text(),
            chessboard: true,
            cards: None,
            limit: None,
            take_off: vec![],
            pending: None,
            armies: Some(ArmiesPanel {
                mode: if self.opts.four() {
                    "four players".into()
                } else {
                    "two players".into()
                },
                armies,
                thrones,
                frozen_cells: self.frozen_squares().into_iter().map(cell_of).collect(),
                die: self.opts.divination.then(|| DiePanel {
                    roll: self.roll,
                    needs: self.roll.map(|r| roll_needs(r).to_string()),
                    rerolls_used: self.rerolls_used,
                    rerolls_max: self.opts.rerolls,
                }),
            }),
        }
    }

    fn offered_inputs(&self) -> Vec<Observation> {
        let mut out = Vec::new();
        if self.over.is_some() {
            return out;
        }
        if self.awaits_roll() {
            out.extend((1..=6).map(Observation::Roll));
        }
        for call in [
            "propose-exchange",
            "accept-exchange",
            "refuse-exchange",
            "withdraw",
            "agree-draw",
        ] {
            for by in 0..4u8 {
                if self.call_refusal(call, by).is_none() {
                    out.push(Observation::Call {
                        call: call.into(),
                        by: Some(NAMES[by as usize].into()),
                    });
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests;
