//! The games arbiter referees, each behind the one [`Game`] trait the referee
//! speaks. A game is pure state: no I/O, no devices, no screen.

pub mod board;
pub mod doublecross;
pub mod enochian;
pub mod enprise;
pub mod twelve;

use crate::event::{EventBody, Flag, FlagKind};
use crate::observation::Observation;
use crate::table::{Card, Cell, Change, Colour, Table};

/// Why an injected mistake was not flagged and recovered from as its spec
/// says: the mistake checks' report (tests and the soak).
#[cfg(any(test, feature = "testkit"))]
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Uncaught(pub String);

/// The referee's answer about one observation that differs from the table
/// the game expects.
#[derive(Clone, Debug)]
pub enum Verdict<G> {
    /// A legal action (or several, such as a king and its escape square):
    /// the new state and the events to announce.
    Advance { game: G, events: Vec<EventBody> },
    /// The table shows something the rules forbid or a physical mistake. The
    /// game stays where it was.
    Flag(Flag),
    /// Several legal readings leave this very table (En Prise: the
    /// summoner's escape square, or the next player's face-down pawn), best
    /// first. The referee keeps them all and lets later observations decide.
    Ambiguous(Vec<Reading<G>>),
}

/// One reading of an observation: the state it leads to and what it
/// announces.
#[derive(Clone, Debug)]
pub struct Reading<G> {
    pub game: G,
    pub events: Vec<EventBody>,
}

/// One game's rules as the referee needs them. Implementations are values:
/// `judge` never mutates, it returns the next state.
pub trait Game: Clone + std::fmt::Debug {
    /// The script name of the game (`enprise`, ...).
    fn name(&self) -> &'static str;

    /// Player names in turn order.
    fn players(&self) -> Vec<String>;

    /// The table the players must leave now, in the board's frame.
    fn table(&self) -> Table;

    /// Whether a whole-table translation of an observation is no change (true
    /// for every card game on a cloth; the camera or cloth may move).
    fn translation_free(&self) -> bool {
        true
    }

    /// Judges a settled table that differs from [`Game::table`] by `changes`
    /// (never empty; in the board's frame, sorted row-major).
    fn judge(&self, changes: &[Change]) -> Verdict<Self>;

    /// Whether a table with a card or two only lifted off, which the rules
    /// flag, is a hand at work rather than a mistake: the referee then
    /// waits for the next input before flagging it. True where no action
    /// is a card taken off alone; DoubleCross, whose removals are actions
    /// judged as the table shows them (DC-3.5, DC-6.7), says false.
    fn lifted_cards_wait(&self) -> bool {
        true
    }

    /// Judges an observation that is not a table (a draw, a call, a roll).
    fn judge_input(&self, input: &Observation) -> Verdict<Self> {
        Verdict::Flag(Flag {
            kind: FlagKind::Unexplained,
            cells: vec![],
            rule: "TABLE-SCRIPT".into(),
            message: format!("{} does not use {} observations", self.name(), input.kind()),
            player: None,
            squares: vec![],
        })
    }

    fn is_over(&self) -> bool;

    /// What the players need to see beside the board, for any view.
    fn panel(&self) -> Panel;

    /// The card the player to act would place next, if any (the mock
    /// device offers it).
    fn next_card(&self) -> Option<Card> {
        None
    }

    /// The algebraic square of a cell, for games on a chessboard: their
    /// events then name squares beside cells (`spec/table-script.md`).
    fn square_name(&self, _cell: Cell) -> Option<String> {
        None
    }

    /// The game record in the game's own standard notation (PGN for the
    /// chess games), where it has one.
    fn record(&self) -> Option<String> {
        None
    }

    /// The non-table inputs the game would accept now (DoubleCross: a draw
    /// of each card the pile can hold, a check call, Save King): what the
    /// mock device and the view offer the players.
    fn offered_inputs(&self) -> Vec<Observation> {
        Vec::new()
    }
}

/// A view model of the game's state beside the board: plain data, so the
/// referee and rules stay free of any UI.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Panel {
    pub players: Vec<PlayerPanel>,
    /// Game-wide facts worth a line ("Vacant squares: 4 of the 6 needed").
    pub notes: Vec<String>,
    /// The result, once the game is over ("White wins").
    pub result: Option<String>,
    /// The game is played on a fixed 8x8 chessboard (rank 8 on row 0): the
    /// view draws every square, files a–h and ranks 8–1.
    pub chessboard: bool,
    /// Games driven by drawn cards (DoubleCross): the card in hand, the
    /// pile, and what the view puts beside them.
    pub cards: Option<CardPanel>,
    /// Boardless games with an area limit (Twelve's 4x4): the corners of
    /// the cells pieces may still reach; the view frames them.
    pub limit: Option<(Cell, Cell)>,
    /// Cards the rules have put out of play that still lie on the table
    /// (Twelve's surrounded Queen): the view marks them to be taken off.
    pub take_off: Vec<Cell>,
    /// Games of four armies in two teams (Enochian): who controls what, what
    /// is frozen, the thrones and the die.
    pub armies: Option<ArmiesPanel>,
    /// The second part of an action still to do by hand (En Prise: a mated
    /// player's cards to turn face-down; Twelve: a Bishop's send-back):
    /// what to do, and the cells it concerns. Nothing is wrong yet; the view
    /// prompts for it, and marks the cells.
    pub pending: Option<Pending>,
}

/// See [`Panel::pending`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Pending {
    /// "Turn Red's cards face-down", as a player reads it.
    pub message: String,
    pub cells: Vec<Cell>,
}

/// The four-army side of a game (Enochian Chess), as plain data.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ArmiesPanel {
    /// "four players" or "two players".
    pub mode: String,
    /// Every army, in turn order.
    pub armies: Vec<ArmyPanel>,
    /// Each throne square and the army whose thrones they are; the view
    /// marks them.
    pub thrones: Vec<(Cell, Colour)>,
    /// Cells whose pieces are frozen (their army's king is a prisoner, or a
    /// withdrawn bare king): the view greys them.
    pub frozen_cells: Vec<Cell>,
    /// Divination mode: the die, when the game plays with it.
    pub die: Option<DiePanel>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ArmyPanel {
    pub colour: Colour,
    /// The army's element and team ("Air", "Fire", ...; team "Air" or
    /// "Earth").
    pub element: String,
    pub team: String,
    /// Who moves it now: a player's name (the army itself in four-player
    /// games until it changes hands).
    pub controller: String,
    pub to_move: bool,
    pub frozen: bool,
    pub withdrawn: bool,
    pub in_check: bool,
    pub stalemated: bool,
    /// Its king is off the board (prisoner, or removed by its ally).
    pub king_off: bool,
    /// Enemy kings this army holds prisoner.
    pub prisoners: Vec<Card>,
    /// Anything else worth a line ("3 pawns", "pawn on a8 waits").
    pub notes: Vec<String>,
}

/// The divination die, as the view shows it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DiePanel {
    /// The roll of the turn under way, if rolled.
    pub roll: Option<u8>,
    /// What the roll makes move ("knight", "king or pawn").
    pub needs: Option<String>,
    /// Re-rolls used this turn, and the most allowed.
    pub rerolls_used: u32,
    pub rerolls_max: u32,
}

/// The card side of a game played with a drawn deck, as plain data.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CardPanel {
    /// The card drawn and not yet acted on ("Black Knight", a Joust card's
    /// title) and the player who must act.
    pub drawn: Option<(String, String)>,
    /// The colour of the drawn card's pieces (None for a Joust card).
    pub drawn_colour: Option<Colour>,
    /// The player to draw next, when no card is in hand.
    pub next_draw: Option<String>,
    /// That draw is the second of a turn (Save King was drawn and kept).
    pub draws_again: bool,
    /// A decision the game waits for ("white may play Save King ...").
    pub pending: Option<String>,
    /// Cards in the draw pile.
    pub pile: u32,
    /// Decks used: 1, then one more per reshuffle.
    pub decks_used: u32,
    /// An open removal right ("black may remove b5 before drawing").
    pub removal_right: Option<String>,
    /// Pieces that left the board, in the form they left it.
    pub removed: Vec<Card>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct PlayerPanel {
    pub colour: Colour,
    pub to_move: bool,
    pub out: bool,
    pub in_check: bool,
    /// The cards still to come, in order (the Battleplan from the next card).
    pub plan: Vec<Card>,
    /// Cards already played from the plan.
    pub played: usize,
    /// Facts about this player ("king on the board", "must summon now").
    pub notes: Vec<String>,
}

/// A flag for changes no action explains, legal or not.
pub fn unexplained(changes: &[Change], rule: &str, why: &str) -> Flag {
    let cells: Vec<_> = changes.iter().map(|c| c.cell).collect();
    let list = cells
        .iter()
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    Flag {
        kind: FlagKind::Unexplained,
        cells,
        rule: rule.into(),
        message: format!("{why}: the cards at {list} match no action; put them back as they were"),
        player: None,
        squares: vec![],
    }
}
