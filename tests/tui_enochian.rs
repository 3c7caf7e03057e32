//! The referee view of Enochian Chess: snapshots of its screens at 80x24
//! and 120x40 (the default array, a frozen army beside a throne pair and a
//! rolled die, the networks shown, a flag), and turns played through the
//! mock board's keys with the referee's events checked.

use arbiter::event::ActionKind;
use arbiter::event::{EventBody, FlagKind};
use arbiter::input::mock::MockTable;
use arbiter::replay::referee_for;
use arbiter::script::Script;
use arbiter::tui::{App, Source};
use ratatui::crossterm::event::KeyCode;

mod view;

use view::{Board, SIZES, actions, screen};

fn setup(text: &str) -> Script {
    Script::parse("setup", &format!("game = \"enochian\"\n{text}")).expect("the setup parses")
}

/// The game in `setup` on the mock board, its die seeded.
fn table(setup: &Script, seed: u64) -> Board {
    let referee = referee_for(setup).unwrap();
    let mock = MockTable::enochian(referee.expected_table());
    Board::new(App::new(referee, Source::Mock(mock), "mock".into(), None, true).with_seed(seed))
}

fn flags(events: &[EventBody]) -> Vec<(FlagKind, String)> {
    events
        .iter()
        .filter_map(|e| match e {
            EventBody::Flag(f) => Some((f.kind, f.rule.clone())),
            _ => None,
        })
        .collect()
}

fn snapshots(name: &str, app: &App) {
    for size in SIZES {
        insta::assert_snapshot!(format!("{name}_{}x{}", size.0, size.1), screen(app, size));
    }
}

/// Red's king is Blue's prisoner (Red frozen), Blue's king shares its
/// throne with its knight, and the die, rolled, asks for a knight.
const FROZEN_PAIR_ROLL: &str = r#"
options = { divination = true }
[start]
to_move = "blue"
table = """
.. .. .. bK bB .. .. rR
.. .. .. .. .. .. .. ..
yQ .. .. .. .. .. .. ..
.. .. .. .. .. .. rP ..
yK .. .. .. .. .. .. ..
.. .. .. .. .. .. .. ..
uP .. .. .. .. .. .. ..
.. .. uQ .. uK .. .. ..
"""
thrones = { e1 = "uK+uN" }
state = { prisoners = [["blue", "red"]], roll = 2 }
"#;

#[test]
fn the_default_array() {
    let t = table(&setup(""), 1);
    let s = screen(&t.app, (120, 40));
    for want in ["uK+N", "rK+N", "bK+N", "yK+N", "Moved by", "Blue"] {
        assert!(s.contains(want), "{want:?} missing:\n{s}");
    }
    let s = screen(&t.app, (80, 24));
    for want in ["Yellow", "Earth", "uK", "uN"] {
        assert!(s.contains(want), "{want:?} missing at 80x24:\n{s}");
    }
    snapshots("en_start", &t.app);
}

#[test]
fn a_frozen_army_a_throne_pair_and_a_rolled_die() {
    let t = table(&setup(FROZEN_PAIR_ROLL), 1);
    let s = screen(&t.app, (120, 40));
    for want in ["FROZEN", "holds rK", "uK+N", "re-rolls 0/3", "knight"] {
        assert!(s.contains(want), "{want:?} missing:\n{s}");
    }
    snapshots("en_frozen_pair_roll", &t.app);
}

#[test]
fn the_networks_on_request() {
    let mut t = table(&setup(""), 1);
    t.chars("w");
    let s = screen(&t.app, (120, 40));
    assert!(s.contains("Aries  uB d1 rQ h3 bB e8 yQ a6"), "{s}");
    assert!(s.contains("Cancer uQ c1 rB h4 bQ f8 yB a5"), "{s}");
    snapshots("en_networks", &t.app);
    t.chars("w");
    assert!(!screen(&t.app, (120, 40)).contains("Aries  uB"));
}

#[test]
fn a_queen_leap_then_an_illegal_move_flagged() {
    let mut t = table(&setup(""), 1);
    // T01: the Blue queen leaps c1–c3 over its pawn.
    let ev = t.play("c1", "c3");
    let a = actions(&ev);
    assert_eq!(a.len(), 1, "{ev:?}");
    assert_eq!(
        (a[0].player.as_str(), a[0].action.as_str()),
        ("blue", "move")
    );
    assert_eq!(a[0].squares, ["c1", "c3"]);
    assert!(flags(&ev).is_empty(), "{ev:?}");
    // Red's queen one square diagonally: a queen only leaps two.
    let ev = t.play("h3", "g2");
    let f = flags(&ev);
    assert_eq!(f.len(), 1, "{ev:?}");
    assert_eq!(f[0].0, FlagKind::IllegalMove, "{ev:?}");
    assert_eq!(f[0].1, "EN-MOV-2", "{ev:?}");
    let s = screen(&t.app, (80, 24));
    assert!(s.contains("Illegal move") && s.contains('!'), "{s}");
    snapshots("en_illegal_move", &t.app);
    // Put back, the flag clears; the legal leap h3–f1 takes Blue's rook.
    let ev = t.play("g2", "h3");
    assert!(
        ev.iter().any(|e| matches!(e, EventBody::Cleared { .. })),
        "{ev:?}"
    );
    let ev = t.play("h3", "f1");
    let a = actions(&ev);
    assert_eq!(
        (a[0].action.as_str(), a[0].squares.clone()),
        ("capture", vec!["h3".to_string(), "f1".to_string()]),
        "{ev:?}"
    );
}

#[test]
fn the_roll_key_rolls_the_die_in_divination_mode() {
    let mut t = table(&setup("options = { divination = true }\n"), 3);
    let s = screen(&t.app, (80, 24));
    assert!(s.contains("r: roll the die"), "{s}");
    // Moving before the roll is flagged (EN-DIV-1); put back, it clears.
    let ev = t.play("e2", "e3");
    assert_eq!(flags(&ev).len(), 1, "{ev:?}");
    t.play("e3", "e2");
    // While a piece is in hand the die waits.
    t.go("e2");
    t.press(KeyCode::Char(' '));
    assert!(t.chars("r").is_empty());
    t.press(KeyCode::Esc);
    let ev = t.chars("r");
    assert!(
        ev.iter()
            .any(|e| matches!(e, EventBody::Notice { kind, .. } if kind == "roll"))
            || actions(&ev).iter().any(|a| a.action == ActionKind::Reroll),
        "{ev:?}"
    );
    // Rolled: the key says so instead of rolling again.
    let n = t.app.events().len();
    if !screen(&t.app, (120, 40)).contains("not rolled") {
        t.chars("r");
        assert_eq!(t.app.events().len(), n);
    }
    snapshots("en_rolled", &t.app);
}

#[test]
fn calls_not_open_say_why_and_send_nothing() {
    let mut t = table(&setup(""), 1);
    for key in ["E", "A", "X", "=", "r"] {
        assert!(t.chars(key).is_empty(), "{key}");
    }
    // Without divination, the digits and r name the reason.
    let s = screen(&t.app, (120, 40));
    assert!(s.contains("divination"), "{s}");
}

#[test]
fn withdraw_speaks_for_the_army_to_move() {
    let mut t = table(&setup(""), 1);
    let ev = t.chars("W");
    let a = actions(&ev);
    assert_eq!(a.len(), 1, "{ev:?}");
    assert_eq!(
        (a[0].player.as_str(), a[0].action.as_str()),
        ("blue", "withdraw")
    );
}

#[test]
fn a_throne_pair_on_the_mock_board_leaves_one_card_at_a_time() {
    let mut t = table(&setup(""), 1);
    // The knight leaves Blue's throne: the king stays.
    let ev = t.play("e1", "f3");
    let a = actions(&ev);
    assert_eq!(a.len(), 1, "{ev:?}");
    assert_eq!(a[0].card.map(|c| c.to_string()).as_deref(), Some("uN"));
    let s = screen(&t.app, (120, 40));
    assert!(!s.contains("uK+N"), "{s}");
    // Tab on Red's pair chooses its king; the pair itself stays on screen.
    t.go("h5");
    t.press(KeyCode::Tab);
    let s = screen(&t.app, (120, 40));
    assert!(s.contains("space lifts rK (Tab: rN)"), "{s}");
}
