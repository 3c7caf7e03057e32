//! The referee view at the table: a full-screen terminal view of the board,
//! each game's panel (En Prise Battleplans, DoubleCross cards and piles,
//! Twelve supplies, Enochian armies and die), the open flags and the log,
//! fed by an input (a script, the mock device, a live device).
//!
//! Games that take inputs beside the table (DoubleCross: draws, calls of
//! check, Save King; Enochian Chess: the divination die, exchanges,
//! withdrawals, draws agreed) get them from keys when the input cannot read
//! them: a random draw or roll, a chosen one, and the calls the game offers
//! ([`AnyReferee::offered_inputs`]).
//!
//! [`App`] is all the state; the `view` module draws it (a function of the state, so
//! snapshot tests draw it on a test backend); [`App::on_key`] handles keys.
//! The loop in [`run`] only waits for keys and timers.

mod board;
mod chessboard;
mod chooser;
pub mod setup;
mod view;

pub use view::draw;

use std::io::{self, Write};
use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use ratatui::crossterm::event::{
    self, Event as TermEvent, KeyCode, KeyEvent, KeyEventKind, KeyModifiers,
};

use chooser::{ChooserOutcome, DrawChooser};

use crate::event::{Event, EventBody, Flag};
use crate::input::live::{Health, Live, LiveEvent};
use crate::input::mock::{MockKey, MockOutcome, MockTable};
use crate::input::script::ScriptInput;
use crate::journal::{Input, Journal, Record};
use crate::observation::Observation;
use crate::referee::AnyReferee;
use crate::session::{Judged, Output, OutputError, Session};
use crate::table::{Beneath, Cell};

/// Where the observations come from.
pub enum Source {
    Script(ScriptInput),
    Mock(MockTable),
    /// A device on its own thread (the card-reader mat).
    Live(Live),
}

pub use crate::shown::Banner;

pub struct App {
    /// The game: its referee, step numbers and outputs (the journal, a
    /// mat's lights); the view is its output too, through `shown`.
    session: Session,
    /// What the view keeps of the game, as the session tells it.
    shown: Shown,
    game: String,
    players: Vec<String>,
    source: Source,
    source_name: String,
    /// Where the spectator page is served, shown on the status line.
    serving: Option<String>,
    /// Why the last key did nothing, or a hint.
    hint: Option<String>,
    quiet: bool,
    help: bool,
    confirm_quit: bool,
    quit: bool,
    /// The game takes draws and calls from keys (it offered some at the
    /// start: DoubleCross).
    inputs: bool,
    /// The game is played on a fixed chessboard: cells are named as squares.
    chessboard: bool,
    /// A game of four armies (Enochian Chess): its own keys.
    armies: bool,
    /// The draw chooser, while open.
    chooser: Option<DrawChooser>,
    /// Enochian: the diagonal networks shown on the board and listed in
    /// the panel (the `w` key).
    networks: bool,
    /// The mock device's random draws: seeded, so that a test (or
    /// `--seed`) draws the same cards again.
    rng: StdRng,
}

/// The keys of non-table inputs, for the help overlay and the footer.
pub const INPUT_HELP: &[(&str, &str)] = &[
    (
        "n",
        "draw a card: at random (mock), or say which (a live board)",
    ),
    ("N", "choose the card drawn from a list"),
    ("!", "call check (the player who just moved)"),
    ("K", "play Save King (its holder, his King just captured)"),
    ("D", "decline Save King"),
];

/// The keys of Enochian Chess's inputs beside the board.
pub const ENOCHIAN_INPUT_HELP: &[(&str, &str)] = &[
    (
        "r  1 … 6",
        "roll the die at random (mock); type what a real die shows",
    ),
    (
        "E  A  X",
        "exchange of prisoners: propose, accept, refuse (EN-XCH)",
    ),
    (
        "W  =",
        "withdraw the army to move (EN-WDR); agree to a draw",
    ),
];

/// The view's own key for Enochian Chess, with any input.
pub const NETWORKS_HELP: (&str, &str) =
    ("w", "show the networks: Aries light, Cancer dark squares");

/// What the view keeps of the game: the account every output shares
/// (`crate::shown`: the log, the last action, the banners, the table last
/// seen), and the view's own: the input's health, the bell, the input's
/// last word. It is the view's own output of the game's session, lent to
/// each step.
struct Shown {
    game: crate::shown::Shown,
    health: Health,
    /// A new flag or check since the last bell.
    bell: bool,
    /// What the input said of itself last, not yet shown as a hint.
    note: Option<String>,
}

impl Shown {
    fn new() -> Shown {
        Shown {
            game: crate::shown::Shown::default(),
            health: Health::Connected,
            bell: false,
            note: None,
        }
    }

    fn take_events(&mut self, events: &[Event]) {
        if self.game.take(events) {
            self.bell = true;
        }
    }
}

impl Output for Shown {
    fn started(&mut self, events: &[Event], _: &dyn AnyReferee) -> Result<(), OutputError> {
        self.take_events(events);
        Ok(())
    }

    fn judged(&mut self, j: &Judged<'_>) -> Result<(), OutputError> {
        self.health = Health::implied_by(j.observation).unwrap_or(Health::Connected);
        match j.observation {
            Observation::Table(t) => self.game.seen(j.step, t, j.referee.last_offset()),
            _ => self.game.at_step(j.step),
        }
        self.take_events(j.events);
        Ok(())
    }

    fn health(&mut self, health: &Health) {
        self.health = health.clone();
    }

    fn note(&mut self, note: &str) {
        self.note = Some(note.to_string());
    }

    fn finished(
        &mut self,
        _: usize,
        events: &[Event],
        _: &dyn AnyReferee,
    ) -> Result<(), OutputError> {
        self.take_events(events);
        self.game.ended();
        self.health = Health::Ended;
        Ok(())
    }
}

impl App {
    pub fn new(
        referee: Box<dyn AnyReferee>,
        source: Source,
        source_name: String,
        journal: Option<Journal>,
        quiet: bool,
    ) -> App {
        App::with_outputs(referee, source, source_name, journal, Vec::new(), quiet)
    }

    /// [`App::new`], with more outputs for the game's session (a mat's
    /// lights, the spectator page), which hear it from its start.
    pub fn with_outputs(
        referee: Box<dyn AnyReferee>,
        source: Source,
        source_name: String,
        journal: Option<Journal>,
        outputs: Vec<Box<dyn Output>>,
        quiet: bool,
    ) -> App {
        let mut session = Session::new(referee);
        if let Some(j) = journal {
            session.add_output(Box::new(j));
        }
        for o in outputs {
            session.add_output(o);
        }
        let mut shown = Shown::new();
        // The view's own output cannot fail, and the journal wrote its
        // start when it was made.
        let _ = session.start(&mut shown);
        let (game, players) = match shown.game.log.first().map(|e| &e.body) {
            Some(EventBody::GameStarted { game, players }) => (game.clone(), players.clone()),
            _ => (String::new(), Vec::new()),
        };
        App {
            session,
            shown,
            game,
            players,
            source,
            source_name,
            serving: None,
            hint: None,
            quiet,
            help: false,
            confirm_quit: false,
            quit: false,
            inputs: false,
            chessboard: false,
            armies: false,
            chooser: None,
            networks: false,
            rng: StdRng::seed_from_u64(DEFAULT_SEED),
        }
        .with_inputs()
    }

    fn with_inputs(mut self) -> App {
        let panel = self.session.referee().panel();
        self.chessboard = panel.chessboard;
        self.armies = panel.armies.is_some();
        // Enochian calls come and go during the game (none may be open at
        // the start): its keys are always there, and say why when idle.
        self.inputs = !self.session.referee().offered_inputs().is_empty() || self.armies;
        self
    }

    /// A cell as the players name it: a square on a chessboard.
    fn cell_name(&self, c: Cell) -> String {
        match c.square() {
            Some(sq) if self.chessboard => sq,
            _ => c.to_string(),
        }
    }

    /// Seeds the mock device's random draws.
    pub fn with_seed(mut self, seed: u64) -> App {
        self.rng = StdRng::seed_from_u64(seed);
        self
    }

    /// Says on the status line where the spectator page is served.
    pub fn serving(mut self, url: String) -> App {
        self.serving = Some(url);
        self
    }

    /// Replays what a journal holds (a resumed game) without journaling it
    /// again: its observations, and the points where an input ended.
    pub fn restore(&mut self, records: &[Record]) {
        let mut beneath = None;
        for r in records {
            // The view's own output cannot fail.
            let _ = match &r.input {
                Input::Start => Ok(Vec::new()),
                Input::Observation {
                    step,
                    observation,
                    beneath: under,
                } => {
                    if let Observation::Table(_) = observation {
                        beneath = Some(under);
                    }
                    self.session.replay(*step, observation, &mut self.shown)
                }
                Input::Finish { step } => self.session.replay_finish(*step, &mut self.shown),
            };
        }
        self.shown.bell = false;
        if let Source::Script(s) = &mut self.source {
            s.skip(self.session.next_step());
        }
        if let (Source::Mock(m), Some(t)) = (&mut self.source, &self.shown.game.observed) {
            // The mock starts again from the cards that show, with the
            // stacks under them, in the frame the table is now read in.
            let offset = self.session.referee().last_offset();
            let under: Beneath = beneath
                .into_iter()
                .flatten()
                .map(|(&c, cards)| (c.plus(offset), cards.clone()))
                .collect();
            *m = m.restarted_with(t, &under);
        }
    }

    /// Where the observations come from.
    pub fn source(&self) -> &Source {
        &self.source
    }

    pub fn should_quit(&self) -> bool {
        self.quit
    }

    pub fn events(&self) -> &[Event] {
        &self.shown.game.log
    }

    /// Judges one observation through the game's session.
    pub fn observe(&mut self, obs: Observation) {
        let beneath = match (&self.source, &obs) {
            (Source::Mock(m), Observation::Table(_)) => m.beneath(),
            _ => Beneath::new(),
        };
        let result = self.session.observe(&obs, &beneath, &mut self.shown);
        self.after(result.map(drop));
    }

    /// After a step: an output that failed (the journal) is told to the
    /// players, and the game goes on; what the input said is shown.
    fn after(&mut self, result: Result<(), OutputError>) {
        if let Err(e) = result {
            self.hint = Some(format!("JOURNAL NOT WRITTEN: {e}"));
        } else if let Some(note) = self.shown.note.take() {
            self.hint = Some(note);
        }
    }

    /// Time passes: a timed script steps; a live input reports.
    pub fn on_tick(&mut self, now: Instant) {
        self.drain_live();
        if let Source::Script(s) = &mut self.source
            && s.due(now)
            && let Some((_, obs)) = s.step()
        {
            self.observe(obs);
        }
        self.update_ended();
    }

    /// Takes what a live input has sent since the last look.
    fn drain_live(&mut self) {
        loop {
            let Source::Live(live) = &self.source else {
                return;
            };
            let Ok(ev) = live.events.try_recv() else {
                return;
            };
            let ended = matches!(ev, LiveEvent::Ended);
            let result = self.session.input(ev, &mut self.shown);
            self.after(result.map(drop));
            if ended {
                return;
            }
        }
    }

    /// How long the loop may sleep before `on_tick` has work.
    pub fn time_left(&self, now: Instant) -> Option<Duration> {
        match &self.source {
            Source::Script(s) => s.time_left(now),
            Source::Mock(_) => None,
            // A live input reports at any time: look often.
            Source::Live(_) => Some(Duration::from_millis(30)),
        }
    }

    fn update_ended(&mut self) {
        if let Source::Script(s) = &mut self.source
            && s.ended()
            && !self.session.is_finished()
        {
            let result = self.session.finish(&mut self.shown);
            self.after(result.map(drop));
        }
    }

    pub fn on_key(&mut self, key: KeyEvent) {
        if key.kind == KeyEventKind::Release {
            return;
        }
        self.hint = None;
        if self.confirm_quit {
            match key.code {
                KeyCode::Char('y') | KeyCode::Char('q') => self.quit = true,
                _ => self.confirm_quit = false,
            }
            return;
        }
        let interrupt =
            key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c');
        if self.help {
            // As the help says: any key closes it, and does nothing else
            // (a `q` read there must not also start quitting), but Ctrl+C,
            // which quits from anywhere.
            self.help = false;
            self.quit = interrupt;
            return;
        }
        if interrupt {
            self.quit = true;
            return;
        }
        if let Some(c) = &mut self.chooser {
            match c.on_key(key.code) {
                ChooserOutcome::Open => {}
                ChooserOutcome::Closed => self.chooser = None,
                ChooserOutcome::Nothing(why) => self.hint = Some(why.into()),
                ChooserOutcome::Draw(card) => {
                    self.chooser = None;
                    self.observe(Observation::Draw(card));
                }
            }
            return;
        }
        match key.code {
            KeyCode::Char('?') => self.help = true,
            KeyCode::Char('w') if self.armies => {
                self.networks = !self.networks;
                self.hint = Some(if self.networks {
                    "Networks: A Aries, C Cancer (w: off)".into()
                } else {
                    "Networks off".into()
                });
            }
            KeyCode::Char('q') => {
                if self.in_progress() {
                    self.confirm_quit = true;
                } else {
                    self.quit = true;
                }
            }
            _ => self.source_key(key),
        }
    }

    /// Whether quitting would leave a game unfinished.
    fn in_progress(&self) -> bool {
        self.session.next_step() > 0
            && !self.session.referee().is_over()
            && self.shown.health != Health::Ended
    }

    fn source_key(&mut self, key: KeyEvent) {
        if let KeyCode::Char(c) = key.code
            && self.inputs
            && !matches!(self.source, Source::Script(_))
            && self.input_key(c)
        {
            return;
        }
        let next = self.session.referee().next_card();
        match &mut self.source {
            Source::Script(s) => {
                if key.code == KeyCode::Char(' ') || key.code == KeyCode::Char('n') {
                    match s.step() {
                        Some((_, obs)) => self.observe(obs),
                        None => self.hint = Some("The script has no more steps".into()),
                    }
                    self.update_ended();
                }
            }
            Source::Live(_) => {}
            Source::Mock(m) => {
                let Some(k) = mock_key(key) else { return };
                let panel = self.session.referee().panel();
                if let Some(p) = panel.players.iter().find(|p| p.to_move) {
                    m.set_preferred(p.plan.clone());
                }
                match m.handle(k, next) {
                    MockOutcome::Table(obs) => self.observe(obs),
                    // A card in hand is no step: the table it leaves is
                    // judged when it is put down.
                    MockOutcome::Busy => self.session.busy(&mut self.shown),
                    MockOutcome::Cursor => {}
                    MockOutcome::Nothing(why) => self.hint = Some(why.to_string()),
                }
            }
        }
    }

    /// The keys of [`INPUT_HELP`]: a draw, a call. False if `c` is none of
    /// them. A script brings its own draws and calls, so it has no such
    /// keys.
    fn input_key(&mut self, c: char) -> bool {
        if self.armies {
            return self.army_key(c);
        }
        let offered = self.session.referee().offered_inputs();
        let holding = matches!(&self.source, Source::Mock(m) if m.held().is_some());
        match c {
            // The draw would end the turn with the board in mid-move.
            'n' | 'N' if holding => {
                self.hint = Some("Put the piece in hand down first (space, or Esc)".into());
            }
            'n' if matches!(self.source, Source::Mock(_)) => {
                let draws: Vec<&Observation> = offered
                    .iter()
                    .filter(|o| matches!(o, Observation::Draw(_)))
                    .collect();
                if draws.is_empty() {
                    self.hint = Some(self.no_draw_why());
                } else {
                    // Each card the pile can give, alike: the game says
                    // which cards are left, not how many of each.
                    let i = self.rng.random_range(0..draws.len());
                    let obs = draws[i].clone();
                    self.observe(obs);
                }
            }
            // A live board's pile is real: say which card came.
            'n' | 'N' => match DrawChooser::new(&offered, self.drawer()) {
                Some(ch) => self.chooser = Some(ch),
                None => self.hint = Some(self.no_draw_why()),
            },
            '!' => self.call(
                &offered,
                "check",
                "No turn yet: check is called after a move",
            ),
            'K' => self.call(
                &offered,
                "save-king",
                "Save King is played only by its holder, when his King was just captured",
            ),
            'D' => self.call(
                &offered,
                "decline-save-king",
                "No Save King to decline: no King of its holder was just captured",
            ),
            _ => return false,
        }
        true
    }

    /// The keys of [`ENOCHIAN_INPUT_HELP`]. False if `c` is none of them.
    fn army_key(&mut self, c: char) -> bool {
        if !matches!(c, 'r' | '1'..='6' | 'E' | 'A' | 'X' | 'W' | '=') {
            return false;
        }
        if matches!(&self.source, Source::Mock(m) if m.held().is_some()) {
            // A roll or a call belongs between moves, not in the middle of one.
            self.hint = Some("Put the piece in hand down first (space, or Esc)".into());
            return true;
        }
        let offered = self.session.referee().offered_inputs();
        let rolls: Vec<u8> = offered
            .iter()
            .filter_map(|o| match o {
                Observation::Roll(n) => Some(*n),
                _ => None,
            })
            .collect();
        match c {
            'r' | '1'..='6' if rolls.is_empty() => self.hint = Some(self.no_roll_why()),
            'r' if matches!(self.source, Source::Mock(_)) => {
                let n = rolls[self.rng.random_range(0..rolls.len())];
                self.observe(Observation::Roll(n));
            }
            // A real die: the players say what it shows.
            'r' => self.hint = Some("Roll the die, then type what it shows: 1 to 6".into()),
            d => {
                let n = d as u8 - b'0';
                if rolls.contains(&n) {
                    self.observe(Observation::Roll(n));
                } else {
                    self.hint = Some(format!("The die cannot show {n} now"));
                }
            }
        }
        if matches!(c, 'r' | '1'..='6') {
            return true;
        }
        let offered = &offered;
        match c {
            'E' => self.call(
                offered,
                "propose-exchange",
                "No exchange to propose: each side must hold the king of the other's ally, and the later captor proposes (EN-XCH-1)",
            ),
            'A' => self.call(
                offered,
                "accept-exchange",
                "No exchange proposed: nothing to accept (EN-XCH-1)",
            ),
            'X' => self.call(
                offered,
                "refuse-exchange",
                "No exchange proposed: nothing to refuse (EN-XCH-1)",
            ),
            'W' => {
                // Any army may withdraw (EN-WDR-2), but one keyboard serves
                // the whole table: the key speaks for the army to move.
                let mover = self
                    .session
                    .referee()
                    .panel()
                    .armies
                    .and_then(|a| a.armies.into_iter().find(|a| a.to_move))
                    .map(|a| a.colour.name().to_string());
                let mine: Vec<Observation> = offered
                    .iter()
                    .filter(|o| matches!(o, Observation::Call { by, .. } if *by == mover))
                    .cloned()
                    .collect();
                self.call(
                    &mine,
                    "withdraw",
                    "No withdrawal now: only in four-player games, by the army to move (EN-WDR)",
                )
            }
            _ => self.call(
                offered,
                "agree-draw",
                "No draw to agree: only once a stalemate has lasted a full round (EN-END-2)",
            ),
        }
        true
    }

    fn no_roll_why(&self) -> String {
        let panel = self.session.referee().panel();
        let die = panel.armies.and_then(|a| a.die);
        match die {
            _ if self.session.referee().is_over() => "The game is over: no more rolls".into(),
            None => "No die: this game is played without divination (EN-DIV)".into(),
            Some(d) => match (d.roll, d.needs) {
                (Some(n), Some(needs)) => {
                    format!("The die is rolled ({n}: {needs}): move that piece")
                }
                (Some(n), None) => format!("The die is rolled ({n}): move"),
                _ => "No roll now: the game waits for something else (see the panel)".into(),
            },
        }
    }

    fn call(&mut self, offered: &[Observation], call: &str, why_not: &str) {
        match offered
            .iter()
            .find(|o| matches!(o, Observation::Call { call: c, .. } if c == call))
        {
            Some(obs) => self.observe(obs.clone()),
            None => self.hint = Some(why_not.into()),
        }
    }

    fn no_draw_why(&self) -> String {
        if self.session.referee().is_over() {
            "The game is over: no more draws".into()
        } else {
            "No draw now: the game waits for something else (see the panel)".into()
        }
    }

    /// The player who would draw next: the one to act when a draw is due,
    /// else the other (a draw ends the turn under way).
    fn drawer(&self) -> Option<String> {
        let panel = self.session.referee().panel();
        let i = panel.players.iter().position(|p| p.to_move)?;
        let acting = panel.cards.as_ref().is_some_and(|c| c.drawn.is_some());
        let i = if acting {
            (i + 1) % self.players.len().max(1)
        } else {
            i
        };
        self.players.get(i).cloned()
    }

    /// Rings the terminal bell if something new deserves it.
    pub fn take_bell(&mut self) -> bool {
        std::mem::take(&mut self.shown.bell) && !self.quiet
    }

    fn open_flags(&self) -> Vec<&Flag> {
        self.session.referee().open_flags()
    }
}

/// The mock's draws when no seed is given (tests).
const DEFAULT_SEED: u64 = 0x0D0B_1EC5;

fn title(name: &str) -> String {
    let mut c = name.chars();
    c.next()
        .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
        .unwrap_or_default()
}

/// The mock device's keys: arrows, Enter and Esc here, letters as the mock
/// labels them.
fn mock_key(key: KeyEvent) -> Option<MockKey> {
    Some(match key.code {
        KeyCode::Up => MockKey::Up,
        KeyCode::Down => MockKey::Down,
        KeyCode::Left => MockKey::Left,
        KeyCode::Right => MockKey::Right,
        KeyCode::Enter => MockKey::PlaceUp,
        KeyCode::Delete => MockKey::Remove,
        KeyCode::Esc => MockKey::Cancel,
        KeyCode::Tab | KeyCode::BackTab => MockKey::OtherInCell,
        KeyCode::Char(c) => return MockKey::from_char(c),
        _ => return None,
    })
}

/// The terminal the view draws on, in raw mode on the alternate screen;
/// given back as it was when dropped (and on a panic: ratatui's hook).
/// Opened before anything of a game is written, so that a run with no
/// terminal leaves nothing behind.
pub struct Screen(ratatui::DefaultTerminal);

/// Why the view cannot be shown.
#[derive(Debug, thiserror::Error)]
pub enum NoScreen {
    #[error(
        "the view needs a terminal, and standard {0} is not one: referee without it with \
         `arbiter watch --input …`, or replay a script with `arbiter replay FILE`"
    )]
    NotATerminal(&'static str),
    #[error("cannot open the terminal: {0}")]
    Open(io::Error),
}

impl Screen {
    /// Whether the view could be shown here: standard input and output are
    /// both a terminal. Opens nothing.
    pub fn check() -> Result<(), NoScreen> {
        use std::io::IsTerminal;
        if !io::stdin().is_terminal() {
            return Err(NoScreen::NotATerminal("input"));
        }
        if !io::stdout().is_terminal() {
            return Err(NoScreen::NotATerminal("output"));
        }
        Ok(())
    }

    pub fn open() -> Result<Screen, NoScreen> {
        Screen::check()?;
        match ratatui::try_init() {
            Ok(terminal) => Ok(Screen(terminal)),
            Err(e) => {
                // Raw mode may be on though the alternate screen failed.
                ratatui::restore();
                Err(NoScreen::Open(e))
            }
        }
    }

    pub(crate) fn terminal(&mut self) -> &mut ratatui::DefaultTerminal {
        &mut self.0
    }
}

impl Drop for Screen {
    fn drop(&mut self) {
        ratatui::restore();
    }
}

/// Runs the view on `screen` until the players quit.
pub fn run(mut app: App, screen: &mut Screen) -> io::Result<()> {
    let terminal = screen.terminal();
    {
        loop {
            terminal.draw(|frame| view::draw(&app, frame))?;
            if app.take_bell() {
                // BEL: a sound (or a flash) at the table on a flag or check.
                let mut out = io::stdout();
                out.write_all(b"\x07")?;
                out.flush()?;
            }
            if app.should_quit() {
                return Ok(());
            }
            let now = Instant::now();
            let wait = app
                .time_left(now)
                .unwrap_or(Duration::from_millis(500))
                .min(Duration::from_millis(500));
            if event::poll(wait)? {
                match event::read()? {
                    TermEvent::Key(key) => app.on_key(key),
                    TermEvent::Resize(..) => {}
                    _ => {}
                }
            }
            app.on_tick(Instant::now());
        }
    }
}
