//! The referee view of DoubleCross: snapshots of its screens at 80x24 and
//! 120x40 (the chessboard, the card panel, a flag, a called check, the end,
//! the draw chooser), and whole turns played through the mock board's keys
//! with the referee's events checked.

use arbiter::event::ActionKind;
use arbiter::event::{EventBody, FlagKind};
use arbiter::input::mock::MockTable;
use arbiter::input::script::ScriptInput;
use arbiter::replay::referee_for;
use arbiter::script::Script;
use arbiter::tui::{App, Source};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

mod view;

use view::{Board, SIZES, actions, screen};

/// A DoubleCross setup: the standard game, or a start position.
fn setup(start: Option<&str>) -> Script {
    let mut text = "game = \"doublecross\"\n".to_string();
    if let Some(table) = start {
        text += &format!(
            "[start]\ntable = \"\"\"\n{table}\n\"\"\"\nto_move = \"white\"\nstate = {{ castling = \"-\" }}\n"
        );
    }
    Script::parse("setup", &text).expect("the setup parses")
}

/// The game on the mock chessboard, its draws seeded with 7.
fn table(start: Option<&str>) -> Board {
    seeded(start, 7)
}

fn seeded(start: Option<&str>, seed: u64) -> Board {
    from_setup(&setup(start), seed)
}

fn from_setup(setup: &Script, seed: u64) -> Board {
    let referee = referee_for(setup).unwrap();
    let mock = MockTable::chessboard(referee.expected_table());
    Board::new(App::new(referee, Source::Mock(mock), "mock".into(), None, true).with_seed(seed))
}

/// DoubleCross's draw chooser.
impl Board {
    /// Opens the draw chooser and moves to `card` (`wQ`, `bN`): the grid
    /// has a row per colour, K Q R B N P.
    fn open_chooser_at(&mut self, card: &str) {
        self.press(KeyCode::Char('N'));
        for _ in 0..20 {
            self.press(KeyCode::Left);
        }
        if card.starts_with('b') {
            self.press(KeyCode::Down);
        }
        let col = "KQRBNP".find(&card[1..]).expect("a piece card");
        for _ in 0..col {
            self.press(KeyCode::Right);
        }
    }

    /// Draws `card` through the chooser: the events.
    fn draw(&mut self, card: &str) -> Vec<EventBody> {
        let n = self.app.events().len();
        self.open_chooser_at(card);
        self.press(KeyCode::Enter);
        self.since(n)
    }
}

fn flags(events: &[EventBody]) -> Vec<FlagKind> {
    events
        .iter()
        .filter_map(|e| match e {
            EventBody::Flag(f) => Some(f.kind),
            _ => None,
        })
        .collect()
}

fn snapshots(name: &str, app: &App) {
    for size in SIZES {
        insta::assert_snapshot!(format!("{name}_{}x{}", size.0, size.1), screen(app, size));
    }
}

/// A check position: the White Bishop f1 can check the Black King e8 from
/// b5 (spec §11.6).
const CHECK_START: &str = "\
.. .. .. .. bK .. .. ..
bP .. .. .. .. .. .. bP
.. .. .. .. .. .. .. ..
.. .. .. .. .. .. .. ..
.. .. .. .. .. .. .. ..
.. .. .. .. .. .. .. ..
.. .. .. .. .. .. .. ..
.. .. .. wQ wK wB .. ..";

/// Two Kings a step apart (spec §11.8).
const KINGS_START: &str = "\
.. .. .. .. .. .. .. ..
bP .. .. .. .. .. .. ..
.. .. .. .. bK .. .. ..
.. .. .. .. .. .. .. ..
.. .. .. .. wK .. .. ..
.. .. .. .. .. .. .. ..
wP .. .. .. .. .. .. ..
.. .. .. .. .. .. .. ..";

#[test]
fn the_start_position_with_a_drawn_card() {
    let mut t = table(None);
    let ev = t.draw("wN");
    assert_eq!(actions(&ev)[0].action, "draw");
    let s = screen(&t.app, (80, 24));
    assert!(
        s.contains("White Knight"),
        "the drawn card stands out:\n{s}"
    );
    for label in ["8", "1", "a   b", "wK", "bQ", "░"] {
        assert!(s.contains(label), "{label:?} missing:\n{s}");
    }
    snapshots("dc_start_drawn", &t.app);
}

#[test]
fn the_draw_chooser_lists_what_the_pile_can_give() {
    let mut t = table(None);
    t.draw("bQ");
    // White could not move the Black Queen: Black draws next, and the one
    // Black Queen is gone from the pile.
    t.open_chooser_at("bK");
    let s = screen(&t.app, (120, 40));
    assert!(s.contains("black draws"), "{s}");
    assert!(s.contains("··"), "the drawn queen shows as gone:\n{s}");
    snapshots("dc_chooser", &t.app);
    // Esc closes it with nothing drawn.
    let n = t.app.events().len();
    t.press(KeyCode::Esc);
    assert_eq!(t.app.events().len(), n);
    assert!(!screen(&t.app, (120, 40)).contains("Which card"));
}

#[test]
fn a_wrong_piece_is_flagged_on_its_squares() {
    let mut t = table(None);
    t.draw("bN");
    // Spec §11.2: the card is the Black Knight; the White Knight moves.
    let ev = t.play("b1", "c3");
    assert_eq!(flags(&ev), [FlagKind::IllegalMove], "{ev:?}");
    let s = screen(&t.app, (80, 24));
    assert!(s.contains("Illegal move"), "{s}");
    assert!(s.contains('!'), "the squares carry a symbol:\n{s}");
    snapshots("dc_illegal_move", &t.app);
}

#[test]
fn a_called_check_marks_the_checking_piece() {
    let mut t = table(Some(CHECK_START));
    t.draw("wB");
    let ev = t.play("f1", "b5");
    assert_eq!(actions(&ev)[0].squares, ["f1", "b5"]);
    let n = t.app.events().len();
    t.chars("!");
    let ev = t.since(n);
    assert!(
        ev.iter()
            .any(|e| matches!(e, EventBody::Check { player, squares, .. }
            if player == "black" && squares == &["b5"])),
        "{ev:?}"
    );
    let s = screen(&t.app, (120, 40));
    assert!(s.contains("CHECK") && s.contains("from b5"), "{s}");
    assert!(s.contains('+'), "{s}");
    snapshots("dc_check_called", &t.app);
}

#[test]
fn a_king_removed_ends_the_game() {
    let mut t = table(Some(KINGS_START));
    t.draw("wK");
    t.play("e4", "e5");
    // No call: Black may remove the White King (spec §11.8).
    t.go("e5");
    let n = t.app.events().len();
    t.chars("x");
    let ev = t.since(n);
    assert!(
        ev.iter()
            .any(|e| matches!(e, EventBody::GameOver { winner: Some(w), .. } if w == "black")),
        "{ev:?}"
    );
    let s = screen(&t.app, (80, 24));
    assert!(s.contains("Result") && s.contains("Black wins"), "{s}");
    snapshots("dc_game_over", &t.app);
    // No more draws.
    let n = t.app.events().len();
    t.chars("n");
    assert_eq!(t.app.events().len(), n);
}

#[test]
fn a_few_turns_through_the_mock_keys() {
    let mut t = table(None);
    // Spec §11.2: the White player moves a Black Knight.
    let ev = t.draw("bN");
    let a = actions(&ev);
    assert_eq!(
        (a[0].player.as_str(), a[0].action.as_str()),
        ("white", "draw")
    );
    let ev = t.play("g8", "f6");
    assert_eq!(flags(&ev), []);
    assert_eq!(actions(&ev)[0].squares, ["g8", "f6"]);
    // The Black player: a Black Pawn card, but a knight moves: flagged,
    // taken back, then a pawn.
    t.draw("bP");
    let ev = t.play("b8", "c6");
    assert_eq!(flags(&ev), [FlagKind::IllegalMove]);
    let ev = t.play("c6", "b8");
    assert!(
        ev.iter().any(|e| matches!(e, EventBody::Cleared { .. })),
        "{ev:?}"
    );
    let ev = t.play("d7", "d5");
    assert_eq!(flags(&ev), []);
    assert_eq!(actions(&ev)[0].san.as_deref(), Some("d5"));
    // A call with no new check is a false call, no flag.
    let n = t.app.events().len();
    t.chars("!");
    let ev = t.since(n);
    assert!(
        ev.iter()
            .any(|e| matches!(e, EventBody::Notice { kind, .. } if kind == "false_call")),
        "{ev:?}"
    );
    // White: a White Pawn, a capture on the board: nothing stacks.
    t.draw("wP");
    t.play("e2", "e4");
    t.draw("bP");
    let ev = t.play("d5", "e4");
    assert_eq!(flags(&ev), []);
    assert_eq!(actions(&ev)[0].action, "capture");
    // No draw with a piece in hand: the board is in mid-move.
    t.draw("wN");
    t.go("g1");
    t.press(KeyCode::Char(' '));
    let n = t.app.events().len();
    t.chars("n");
    assert_eq!(t.since(n).len(), 0);
    assert!(screen(&t.app, (120, 40)).contains("Put the piece in hand down first"));
    t.go("f3");
    t.press(KeyCode::Char(' '));
    // Save King is not offered: K says why and does nothing.
    let n = t.app.events().len();
    t.chars("KD");
    assert_eq!(t.app.events().len(), n);
    assert!(screen(&t.app, (120, 40)).contains("Save King"));
    // The help lists the keys of the board and of draws and calls.
    t.chars("?");
    let s = screen(&t.app, (120, 40));
    assert!(s.contains("Mock board") && s.contains("call check"), "{s}");
}

#[test]
fn save_king_and_switch_sides_from_the_keys() {
    // Spec §11.12: White holds Save King; the Black Queen takes the King.
    let text = "game = \"doublecross\"\noptions = { joust = \"once\" }\n[start]\ntable = \"\"\"\n\
        .. .. .. .. .. .. .. bK\n.. .. .. .. .. .. .. bP\n.. .. .. .. .. .. .. ..\n\
        .. .. .. .. bQ .. .. ..\n.. .. .. .. .. .. .. ..\n.. .. .. .. .. .. .. ..\n\
        wP .. .. .. .. .. .. ..\n.. .. .. .. wK .. .. ..\n\"\"\"\n\
        to_move = \"black\"\nstate = { castling = \"-\", save_king = \"white\" }\n";
    let mut t = from_setup(&Script::parse("save-king.toml", text).unwrap(), 1);
    assert!(screen(&t.app, (120, 40)).contains("holds Save King"));
    t.draw("bQ");
    t.play("e5", "e1");
    let s = screen(&t.app, (120, 40));
    assert!(
        s.contains("K: play Save King"),
        "the footer says what to do:\n{s}"
    );
    let n = t.app.events().len();
    t.chars("K");
    let ev = t.since(n);
    assert!(
        actions(&ev)
            .iter()
            .any(|a| a.action == ActionKind::Joust && a.joust.as_deref() == Some("save-king")),
        "{ev:?}"
    );
    // The board put back: the King from the box (u), the Queen to e5.
    t.play("e1", "e5");
    t.go("e1");
    let n = t.app.events().len();
    t.chars("u");
    assert_eq!(flags(&t.since(n)), []);
    // Black draws again (White's turn went on Save King): Switch Sides.
    let n = t.app.events().len();
    t.press(KeyCode::Char('N'));
    for _ in 0..40 {
        t.press(KeyCode::Right);
    }
    t.press(KeyCode::Enter);
    let ev = t.since(n);
    assert!(
        actions(&ev)
            .iter()
            .any(|a| a.joust.as_deref() == Some("switch-sides")),
        "{ev:?}"
    );
    let s = screen(&t.app, (120, 40));
    assert!(
        s.contains("White player · plays BLACK"),
        "a switched colour stands out:\n{s}"
    );
}

#[test]
fn n_draws_at_random_and_a_seed_deals_the_same_cards() {
    let draws = |seed| {
        let mut t = seeded(None, seed);
        let mut cards = Vec::new();
        for _ in 0..4 {
            let n = t.app.events().len();
            t.chars("n");
            let ev = t.since(n);
            let a = actions(&ev);
            assert_eq!(a[0].action, "draw", "{ev:?}");
            cards.push(a[0].card.map(|c| c.to_string()).unwrap_or_default());
        }
        cards
    };
    assert_eq!(draws(1), draws(1));
    assert_ne!(draws(1), draws(2), "another seed, other cards");
}

#[test]
fn a_script_steps_with_space_and_takes_no_draw_keys() {
    let text = format!(
        "game = \"doublecross\"\n[start]\ntable = \"\"\"\n{KINGS_START}\n\"\"\"\nto_move = \"white\"\nstate = {{ castling = \"-\" }}\n\n[[step]]\ndraw = \"wK\"\n"
    );
    let script = Script::parse("kings.toml", &text).unwrap();
    let referee = referee_for(&script).unwrap();
    let mut app = App::new(
        referee,
        Source::Script(ScriptInput::new(script, None)),
        "kings.toml".into(),
        None,
        true,
    );
    // `n` steps a script, as space does: the script holds its draws.
    app.on_key(KeyEvent::new(KeyCode::Char('n'), KeyModifiers::NONE));
    let drawn: Vec<_> = app
        .events()
        .iter()
        .filter(|e| matches!(&e.body, EventBody::Action(a) if a.action == ActionKind::Draw))
        .collect();
    assert_eq!(drawn.len(), 1);
    let s = screen(&app, (80, 24));
    assert!(s.contains("White King") && s.contains("kings.toml"), "{s}");
    assert!(!s.contains("n: draw"), "no draw keys for a script:\n{s}");
}

#[test]
fn any_window_size_draws_the_chessboard_without_panic() {
    let mut t = table(None);
    t.draw("wP");
    for (w, h) in [(1, 1), (10, 5), (40, 12), (60, 20), (80, 24), (250, 80)] {
        let s = screen(&t.app, (w, h));
        assert_eq!(s.lines().count(), h as usize);
    }
    assert!(screen(&t.app, (40, 12)).contains("Enlarge"));
    assert!(!screen(&t.app, (80, 24)).contains("Enlarge"));
}
