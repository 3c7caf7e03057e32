//! The referee view of Twelve: the boardless table with its 4x4 area limit
//! framed, both supplies, a flagged placement, played through the mock
//! table's keys with the referee's events checked; snapshots at 80x24 and
//! 120x40.

use arbiter::event::{EventBody, FlagKind};
use arbiter::input::mock::MockTable;
use arbiter::replay::referee_for;
use arbiter::script::Script;
use arbiter::tui::{App, Source};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

mod view;

use view::{SIZES, screen};

fn app() -> App {
    let setup = Script::parse("setup", "game = \"twelve\"\n").unwrap();
    let referee = referee_for(&setup).unwrap();
    let mock = MockTable::new(referee.expected_table());
    App::new(referee, Source::Mock(mock), "mock".into(), None, true)
}

fn keys(app: &mut App, codes: &[KeyCode]) {
    for &c in codes {
        app.on_key(KeyEvent::new(c, KeyModifiers::NONE));
    }
}

use KeyCode::{Char, Down, Right, Up};

#[test]
fn placements_through_the_mock_table_are_refereed_and_the_area_is_framed() {
    let mut app = app();
    // The cursor starts on the White King at (0,0); the Black King is below.
    keys(&mut app, &[Right, Char('u')]); // wQ at (1,0)
    keys(&mut app, &[Down, Char('u')]); // bQ at (1,1)
    keys(&mut app, &[Up, Right, Char('u')]); // wR at (2,0)
    let actions: Vec<(String, String)> = app
        .events()
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::Action(a) => Some((a.player.clone(), a.action.to_string())),
            _ => None,
        })
        .collect();
    assert_eq!(
        actions,
        [("white", "place"), ("black", "place"), ("white", "place")]
            .map(|(p, a)| (p.to_string(), a.to_string()))
    );
    assert!(
        !app.events()
            .iter()
            .any(|e| matches!(e.body, EventBody::Flag(_)))
    );
    for size in SIZES {
        insta::assert_snapshot!(
            format!("tw_three_placed_{}x{}", size.0, size.1),
            screen(&app, size)
        );
    }
    let text = screen(&app, (120, 40));
    assert!(
        text.contains('┄') && text.contains('┆'),
        "the area is framed"
    );

    // Black places beside the White King's side: TW-4.2.
    keys(&mut app, &[Char('h'), Char('h'), Char('h'), Char('u')]); // bR at (-1,0)
    let flag = app
        .events()
        .iter()
        .rev()
        .find_map(|e| match &e.body {
            EventBody::Flag(f) => Some(f.clone()),
            _ => None,
        })
        .expect("the placement is flagged");
    assert_eq!(flag.kind, FlagKind::IllegalPlacement);
    assert_eq!(flag.rule, "TW-4.2");
    for size in SIZES {
        insta::assert_snapshot!(
            format!("tw_flagged_{}x{}", size.0, size.1),
            screen(&app, size)
        );
    }
}

/// Spec §11.11 through the view: after Black's Pawn surrounds the White
/// Queen, the players panel tells the table to take it off, in full at
/// either size (the note wraps under its indent rather than being cut),
/// and the log shows the `queen_out` notice.
#[test]
fn a_surrounded_queen_is_announced_in_full() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/scenarios/twelve/spec-11-queen-removal.toml"
    );
    let script = Script::load(path.as_ref()).unwrap();
    let referee = referee_for(&script).unwrap();
    let input = arbiter::input::script::ScriptInput::new(script, None);
    let mut app = App::new(referee, Source::Script(input), "spec-11".into(), None, true);
    keys(&mut app, &[Char(' ')]);
    assert!(app.events().iter().any(|e| matches!(
        &e.body,
        EventBody::Notice { kind, .. } if kind == "queen_out"
    )));
    for size in SIZES {
        let text = screen(&app, size);
        // The panel's rows, joined back into one text, hold the whole note.
        let panel: String = text
            .lines()
            .filter_map(|l| l.split('│').nth(3))
            .map(str::trim)
            .collect::<Vec<_>>()
            .join(" ");
        assert!(
            panel.contains("Queen out of the game: take it off the table at (0,0)"),
            "{panel}"
        );
        insta::assert_snapshot!(format!("tw_queen_out_{}x{}", size.0, size.1), text);
    }
    // The help's legend explains the struck-through card and leaves out
    // the check mark Twelve never shows.
    keys(&mut app, &[Char('?')]);
    let help = screen(&app, (120, 40));
    assert!(
        help.contains("a surrounded Queen, out: take it off"),
        "{help}"
    );
    assert!(!help.contains("giving check"), "{help}");
}
