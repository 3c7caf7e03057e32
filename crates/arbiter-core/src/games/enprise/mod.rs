//! En Prise (`spec/enprise.md`): chess with cards, on a board that grows as it
//! is played. Every rule ID of the spec is enforced here; flags cite them.
//!
//! The state is a value. [`EnPrise::legal_actions`] lists what the player to
//! act may do, [`EnPrise::check`] says whether one attempted action is legal
//! (and if not, which rule it breaks, in a sentence), and [`EnPrise::apply`]
//! returns the next state, with the events that follow (checks, mate,
//! elimination, passes, the end of the game).

mod judge;
#[cfg(any(test, feature = "testkit"))]
pub mod mistakes;
mod moves;
#[cfg(any(test, feature = "testkit"))]
pub mod random;
mod setup;

use crate::event::ActionKind;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::event::{ActionEvent, EventBody, FlagKind, GameResult};
use crate::games::board::Grid;
use crate::table::{Card, Cell, Colour, Piece, Table, Token};

pub use setup::{
    BATTLEPLAN_LEN, BattleplanError, Setup, StartState, parse_battleplan, random_battleplan,
};

/// The house rules of the spec, as named options (defaults as in the spec).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Options {
    /// EP-PAWN-NOATTACK: pawns never attack. With `true`, a pawn attacks the
    /// four cells diagonally next to it (a card has no forward direction).
    pub pawns_attack: bool,
    /// EP-NOACTION: what a player not in check with no legal action does.
    pub no_action: NoAction,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            pawns_attack: false,
            no_action: NoAction::Pass,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NoAction {
    /// The player passes; if nobody can act the game is drawn.
    Pass,
    /// The game is drawn at once, as stalemate in chess.
    Draw,
}

/// What a cell of the logical board holds (the top card).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Sq {
    #[default]
    Empty,
    /// A face-down card: a vacant square.
    Vacant,
    /// A face-up card: an occupied square.
    Piece(Card),
}

impl Sq {
    pub fn exists(self) -> bool {
        self != Sq::Empty
    }

    pub fn token(self) -> Option<Token> {
        match self {
            Sq::Empty => None,
            Sq::Vacant => Some(Token::Down),
            Sq::Piece(c) => Some(Token::Up(c)),
        }
    }
}

/// One action a player takes at the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// The next Battleplan card, face-up on an empty cell or on a vacant
    /// square (`onto`), or (`down`, pawns only) face-down on an empty cell.
    Place {
        player: Colour,
        card: Card,
        to: Cell,
        down: bool,
        onto: bool,
    },
    /// The king, face-up, on an empty cell or a vacant square.
    Summon {
        player: Colour,
        to: Cell,
        onto: bool,
    },
    /// Right after summoning: the next Battleplan card, face-down.
    Escape {
        player: Colour,
        card: Card,
        to: Cell,
    },
    /// A piece moves to a vacant square or captures an opponent's piece.
    Move {
        player: Colour,
        card: Card,
        from: Cell,
        to: Cell,
        captured: Option<Card>,
    },
}

impl Action {
    pub fn player(self) -> Colour {
        match self {
            Action::Place { player, .. }
            | Action::Summon { player, .. }
            | Action::Escape { player, .. }
            | Action::Move { player, .. } => player,
        }
    }

    /// The action's name in the event stream.
    pub fn name(self) -> ActionKind {
        match self {
            Action::Place { down: true, .. } => ActionKind::PlaceVacant,
            Action::Place { onto: true, .. } => ActionKind::Occupy,
            Action::Place { .. } => ActionKind::Place,
            Action::Summon { .. } => ActionKind::SummonKing,
            Action::Escape { .. } => ActionKind::EscapeSquare,
            Action::Move { captured: None, .. } => ActionKind::Move,
            Action::Move {
                captured: Some(_), ..
            } => ActionKind::Capture,
        }
    }

    pub fn event(self) -> EventBody {
        let (card, from, to, captured) = match self {
            Action::Place { card, to, .. } | Action::Escape { card, to, .. } => {
                (Some(card), None, Some(to), None)
            }
            Action::Summon { player, to, .. } => {
                (Some(Card::new(player, Piece::King)), None, Some(to), None)
            }
            Action::Move {
                card,
                from,
                to,
                captured,
                ..
            } => (Some(card), Some(from), Some(to), captured),
        };
        EventBody::Action(ActionEvent {
            player: self.player().name().into(),
            action: self.name(),
            card,
            from,
            to,
            captured,
            ..Default::default()
        })
    }

    /// The cells whose top card the action changes.
    fn cells(self) -> [Option<Cell>; 2] {
        match self {
            Action::Move { from, to, .. } => [Some(from), Some(to)],
            Action::Place { to, .. } | Action::Summon { to, .. } | Action::Escape { to, .. } => {
                [Some(to), None]
            }
        }
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Action::Move {
                card,
                from,
                to,
                captured,
                ..
            } => {
                write!(f, "{card} {from}->{to}")?;
                if let Some(c) = captured {
                    write!(f, " x{c}")?;
                }
                Ok(())
            }
            Action::Place { card, to, down, .. } => {
                write!(
                    f,
                    "{} at {to}",
                    if down {
                        "##".to_string()
                    } else {
                        card.to_string()
                    }
                )
            }
            Action::Summon { player, to, .. } => write!(f, "{}K at {to}", player.letter()),
            Action::Escape { to, .. } => write!(f, "escape ## at {to}"),
        }
    }
}

/// Why an attempted action is illegal: the rule, in words, and the cells to
/// look at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    pub kind: FlagKind,
    pub rule: &'static str,
    pub message: String,
    /// The player who acted (not always the one whose turn it is).
    pub player: Colour,
    pub cells: Vec<Cell>,
}

/// How the game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Win(Colour),
    Draw,
}

/// One applied action: the new state, the events it caused, and the cards
/// that must be turned face-down because a player was eliminated.
#[derive(Clone, Debug)]
pub struct Applied {
    pub state: EnPrise,
    pub events: Vec<EventBody>,
    pub flips: Vec<Cell>,
}

#[derive(Clone, Debug)]
pub struct EnPrise {
    opts: Options,
    players: Vec<Colour>,
    plans: Vec<Vec<Piece>>,
    /// Index of each player's next Battleplan card.
    next: Vec<usize>,
    king: Vec<Option<Cell>>,
    out: Vec<bool>,
    /// EP-KING-ANSWER: an opponent has summoned; this player must summon now.
    must_summon: Vec<bool>,
    /// The attackers last announced for each king, so a check is announced
    /// as it arises rather than after every action.
    checked: Vec<Vec<Cell>>,
    board: Grid<Sq>,
    cards: usize,
    vacant: usize,
    turn: usize,
    /// The player to act has just summoned and may place an escape square.
    escape_pending: bool,
    over: Option<Outcome>,
    /// EP-MATE's second part: the cards of a player just eliminated, each
    /// with the card still face-up on it, that the table may show so until
    /// they are turned face-down. The rules count them vacant already; the
    /// table the players must leave is the one with them still face-up, so
    /// that the mating action is accepted before the flip is done (see
    /// [`EnPrise::owed_flips`]).
    owed: Vec<(Cell, Card)>,
    /// The player whose action eliminated them, who owes the flip.
    owed_by: Option<Colour>,
}

impl EnPrise {
    /// A new game: an empty table, full Battleplans, the first listed player
    /// to act.
    pub fn new(players: &[Colour], plans: Vec<Vec<Piece>>, opts: Options) -> EnPrise {
        let n = players.len();
        EnPrise {
            opts,
            players: players.to_vec(),
            plans,
            next: vec![0; n],
            king: vec![None; n],
            out: vec![false; n],
            must_summon: vec![false; n],
            checked: vec![Vec::new(); n],
            board: Grid::default(),
            cards: 0,
            vacant: 0,
            turn: 0,
            escape_pending: false,
            over: None,
            owed: Vec::new(),
            owed_by: None,
        }
    }

    pub fn options(&self) -> &Options {
        &self.opts
    }

    pub fn player_colours(&self) -> &[Colour] {
        &self.players
    }

    /// The player who acts next (the summoner, while an escape square may
    /// still follow).
    pub fn to_move(&self) -> Colour {
        self.players[self.turn]
    }

    pub fn escape_pending(&self) -> bool {
        self.escape_pending
    }

    pub fn outcome(&self) -> Option<Outcome> {
        self.over
    }

    /// The cards of an eliminated player still to be turned face-down
    /// (EP-MATE), each where it lies, and the player who owes the flip:
    /// the one whose action mated. Empty once the table shows them turned.
    pub fn owed_flips(&self) -> (&[(Cell, Card)], Option<Colour>) {
        (&self.owed, self.owed_by)
    }

    /// The same state with the owed flips done (or, to the rules, never
    /// owed): the state every next action is judged and applied in.
    pub fn with_flips_done(&self) -> EnPrise {
        let mut s = self.clone();
        s.owed.clear();
        s.owed_by = None;
        s
    }

    /// The state with only the owed cards still at `unflipped` owed.
    pub(super) fn owing_only(mut self, unflipped: &[Cell]) -> EnPrise {
        self.owed.retain(|(c, _)| unflipped.contains(c));
        if self.owed.is_empty() {
            self.owed_by = None;
        }
        self
    }

    pub fn battleplan(&self, c: Colour) -> Option<(&[Piece], usize)> {
        let i = self.index_of(c)?;
        Some((&self.plans[i], self.next[i]))
    }

    pub fn king_cell(&self, c: Colour) -> Option<Cell> {
        self.index_of(c).and_then(|i| self.king[i])
    }

    pub fn is_out(&self, c: Colour) -> bool {
        self.index_of(c).is_some_and(|i| self.out[i])
    }

    pub fn must_summon(&self, c: Colour) -> bool {
        self.index_of(c).is_some_and(|i| self.must_summon[i])
    }

    pub fn vacant_count(&self) -> usize {
        self.vacant
    }

    pub fn card_count(&self) -> usize {
        self.cards
    }

    pub fn at(&self, c: Cell) -> Sq {
        self.board.get(c)
    }

    /// The table the players must leave now: an eliminated player's cards
    /// still to turn face-down lie face-up on it.
    pub fn table(&self) -> Table {
        let mut table: Table = self
            .board
            .iter()
            .filter_map(|(c, s)| Some((c, s.token()?)))
            .collect();
        for &(c, card) in &self.owed {
            table.set(c, Some(Token::Up(card)));
        }
        table
    }

    fn index_of(&self, c: Colour) -> Option<usize> {
        self.players.iter().position(|&p| p == c)
    }

    fn active(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.players.len()).filter(|&i| !self.out[i])
    }

    fn set(&mut self, c: Cell, s: Sq) {
        let old = self.board.get(c);
        self.cards = self.cards + s.exists() as usize - old.exists() as usize;
        self.vacant = self.vacant + (s == Sq::Vacant) as usize - (old == Sq::Vacant) as usize;
        self.board.set(c, s);
    }

    /// Applies a legal action (one that [`EnPrise::check`] accepted or
    /// [`EnPrise::legal_actions`] listed). While an escape square may still
    /// follow a summoning, any other action first closes the summoner's turn.
    pub fn apply(&self, action: Action) -> Applied {
        if !self.owed.is_empty() {
            return self.with_flips_done().apply(action);
        }
        if self.escape_pending && !matches!(action, Action::Escape { .. }) {
            let mut closed = self.clone();
            let mut events = Vec::new();
            let mut flips = Vec::new();
            closed.escape_pending = false;
            closed.finish_turn(&mut events, &mut flips);
            let mut rest = closed.apply(action);
            events.append(&mut rest.events);
            flips.append(&mut rest.flips);
            rest.events = events;
            rest.flips = flips;
            return rest;
        }
        let mut s = self.clone();
        let mut events = vec![action.event()];
        let mut flips = Vec::new();
        let i = s.turn;
        match action {
            Action::Place { card, to, down, .. } => {
                s.set(to, if down { Sq::Vacant } else { Sq::Piece(card) });
                s.next[i] += 1;
            }
            Action::Summon { player, to, .. } => {
                s.set(to, Sq::Piece(Card::new(player, Piece::King)));
                s.king[i] = Some(to);
                s.must_summon[i] = false;
                for j in 0..s.players.len() {
                    if j != i && !s.out[j] && s.king[j].is_none() {
                        s.must_summon[j] = true;
                    }
                }
                if s.next[i] < s.plans[i].len() {
                    // EP-KING-ESCAPE: the turn ends when the next player acts.
                    s.escape_pending = true;
                    return Applied {
                        state: s,
                        events,
                        flips,
                    };
                }
            }
            Action::Escape { to, .. } => {
                s.set(to, Sq::Vacant);
                s.next[i] += 1;
                s.escape_pending = false;
            }
            Action::Move { card, from, to, .. } => {
                s.set(from, Sq::Vacant);
                s.set(to, Sq::Piece(card));
                if card.piece == Piece::King {
                    s.king[i] = Some(to);
                }
            }
        }
        s.finish_turn(&mut events, &mut flips);
        Applied {
            state: s,
            events,
            flips,
        }
    }

    /// The state once the summoner declines the escape square.
    fn closed(&self) -> Applied {
        let mut s = self.clone();
        let mut events = Vec::new();
        let mut flips = Vec::new();
        s.escape_pending = false;
        s.finish_turn(&mut events, &mut flips);
        Applied {
            state: s,
            events,
            flips,
        }
    }

    /// Announces new checks, then hands the turn on: passing players with no
    /// action, checkmating (and, with two or more opponents left,
    /// eliminating) players in check with none, until someone can act or the
    /// game is over.
    fn finish_turn(&mut self, events: &mut Vec<EventBody>, flips: &mut Vec<Cell>) {
        let mover = self.players[self.turn];
        self.announce_checks(events);
        let mut passes = 0;
        loop {
            let active: Vec<usize> = self.active().collect();
            if active.len() <= 1 {
                let winner = active.first().map(|&i| self.players[i]);
                self.end(winner.map_or(Outcome::Draw, Outcome::Win), events);
                return;
            }
            self.turn = (1..=self.players.len())
                .map(|k| (self.turn + k) % self.players.len())
                .find(|&j| !self.out[j])
                .expect("two or more players are active");
            if self.has_legal_action() {
                return;
            }
            let me = self.players[self.turn];
            if self.in_check(self.turn) {
                events.push(EventBody::Checkmate {
                    player: me.name().into(),
                });
                if active.len() == 2 {
                    let winner = active.into_iter().find(|&j| j != self.turn).unwrap();
                    self.end(Outcome::Win(self.players[winner]), events);
                    return;
                }
                // EP-MATE: all of the mated player's cards go face-down.
                let mine: Vec<(Cell, Card)> = self
                    .board
                    .iter()
                    .filter_map(|(c, s)| match s {
                        Sq::Piece(card) if card.colour == me => Some((c, card)),
                        _ => None,
                    })
                    .collect();
                for &(c, _) in &mine {
                    self.set(c, Sq::Vacant);
                }
                flips.extend(mine.iter().map(|&(c, _)| c));
                self.owed.extend(mine);
                self.owed_by = Some(mover);
                let t = self.turn;
                self.out[t] = true;
                self.king[t] = None;
                self.must_summon[t] = false;
                self.checked[t].clear();
                events.push(EventBody::Eliminated {
                    player: me.name().into(),
                });
                // Vacant squares where the cards were may open lines.
                self.announce_checks(events);
                passes = 0;
                continue;
            }
            if self.opts.no_action == NoAction::Draw {
                self.end(Outcome::Draw, events);
                return;
            }
            events.push(EventBody::Action(ActionEvent {
                player: me.name().into(),
                action: ActionKind::Pass,
                ..Default::default()
            }));
            passes += 1;
            if passes >= active.len() {
                self.end(Outcome::Draw, events);
                return;
            }
        }
    }

    fn end(&mut self, outcome: Outcome, events: &mut Vec<EventBody>) {
        self.over = Some(outcome);
        events.push(match outcome {
            Outcome::Win(w) => EventBody::GameOver {
                result: GameResult::Win,
                winner: Some(w.name().into()),
            },
            Outcome::Draw => EventBody::GameOver {
                result: GameResult::Draw,
                winner: None,
            },
        });
    }

    fn announce_checks(&mut self, events: &mut Vec<EventBody>) {
        for j in 0..self.players.len() {
            if self.out[j] {
                continue;
            }
            let attackers = match self.king[j] {
                Some(k) => moves::attackers(&self.board, k, self.players[j], &self.opts),
                None => Vec::new(),
            };
            if !attackers.is_empty() && attackers != self.checked[j] {
                events.push(EventBody::Check {
                    player: self.players[j].name().into(),
                    attackers: attackers.clone(),
                    squares: vec![],
                });
            }
            self.checked[j] = attackers;
        }
    }

    pub fn in_check(&self, i: usize) -> bool {
        self.king[i]
            .is_some_and(|k| moves::is_attacked(&self.board, k, self.players[i], &self.opts))
    }

    /// Whether `colour`'s king is attacked now.
    pub fn is_in_check(&self, colour: Colour) -> bool {
        self.index_of(colour).is_some_and(|i| self.in_check(i))
    }
}

impl crate::games::Game for EnPrise {
    fn name(&self) -> &'static str {
        "enprise"
    }

    fn players(&self) -> Vec<String> {
        self.players.iter().map(|c| c.name().to_string()).collect()
    }

    fn table(&self) -> Table {
        EnPrise::table(self)
    }

    fn judge(&self, changes: &[crate::table::Change]) -> crate::games::Verdict<Self> {
        judge::judge(self, changes)
    }

    fn is_over(&self) -> bool {
        self.over.is_some()
    }

    fn panel(&self) -> crate::games::Panel {
        let players = (0..self.players.len())
            .map(|i| {
                let c = self.players[i];
                let mut notes = Vec::new();
                if self.out[i] {
                    notes.push("checkmated: out of the game".to_string());
                } else if let Some(k) = self.king[i] {
                    notes.push(format!("king on the board at {k}"));
                } else if self.must_summon[i] {
                    notes.push("must summon the king at the next turn".to_string());
                } else {
                    notes.push("king set aside".to_string());
                }
                if i == self.turn && self.escape_pending {
                    notes.push("may add an escape square (next card, face-down)".to_string());
                }
                crate::games::PlayerPanel {
                    colour: c,
                    to_move: i == self.turn && self.over.is_none(),
                    out: self.out[i],
                    in_check: !self.out[i] && self.in_check(i),
                    plan: self.plans[i][self.next[i]..]
                        .iter()
                        .map(|&p| Card::new(c, p))
                        .collect(),
                    played: self.next[i],
                    notes,
                }
            })
            .collect();
        let mut notes = vec![if self.king.iter().all(Option::is_none) {
            format!("Vacant squares: {} (a king needs 6)", self.vacant)
        } else {
            format!("Vacant squares: {}", self.vacant)
        }];
        notes.push(format!("Cards on the table: {}", self.cards));
        crate::games::Panel {
            players,
            notes,
            result: self.over.map(|o| match o {
                Outcome::Win(w) => format!("{} wins", w.title()),
                Outcome::Draw => "Drawn: nobody can act".to_string(),
            }),
            chessboard: false,
            cards: None,
            limit: None,
            take_off: vec![],
            armies: None,
            pending: self.owed.first().map(|&(_, card)| {
                let whose = card.colour.title();
                crate::games::Pending {
                    message: format!(
                        "{whose} is out: turn {whose}'s cards face-down at {}",
                        self.owed
                            .iter()
                            .map(|(c, _)| c.to_string())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                    cells: self.owed.iter().map(|&(c, _)| c).collect(),
                }
            }),
        }
    }

    fn next_card(&self) -> Option<Card> {
        if self.over.is_some() {
            return None;
        }
        let i = self.turn;
        if self.king[i].is_none() && (self.must_summon[i] || self.plans[i].len() == self.next[i]) {
            return Some(Card::new(self.players[i], Piece::King));
        }
        self.plans[i]
            .get(self.next[i])
            .map(|&p| Card::new(self.players[i], p))
    }
}
