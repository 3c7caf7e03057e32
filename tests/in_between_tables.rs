//! The tables between two actions, as hands leave them: actions done in
//! two physical parts (`spec/table-script.md`: a mated army's flip in En
//! Prise, EP-MATE; a Bishop's send-back in Twelve, TW-4.5, TW-10.2), and
//! cards lifted on their way elsewhere. The scenario harness checks that
//! the expected events are there; these tests check that nothing else is,
//! step by step: a first part is announced at once with a `pending`
//! notice, the in-between tables say nothing, and events come at the first
//! step that makes them certain, never later.

use std::path::Path;

use arbiter::event::{Event, EventBody};
use arbiter::replay::replay;
use arbiter::script::Script;

/// Each step's events in short form (`action place wP`, `flag
/// missed_elimination_flip`, `notice pending`, ...), `game_started` aside.
fn steps_of(script: &str) -> Vec<Vec<String>> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/scenarios")
        .join(script);
    let script = Script::load(&path).expect("the scenario loads");
    let events: Vec<Event> = replay(&script).expect("the scenario starts");
    let mut out = vec![Vec::new(); script.steps.len()];
    for e in events {
        let short = match &e.body {
            EventBody::GameStarted { .. } => continue,
            EventBody::Action(a) => format!(
                "action {} {}",
                a.action,
                a.card.map(|c| c.to_string()).unwrap_or_default()
            ),
            EventBody::Flag(f) => format!("flag {}", f.kind.as_str()),
            EventBody::Cleared { kind, .. } => format!("cleared {}", kind.as_str()),
            EventBody::Check { player, .. } => format!("check {player}"),
            EventBody::Checkmate { player } => format!("checkmate {player}"),
            EventBody::Eliminated { player } => format!("eliminated {player}"),
            EventBody::GameOver { .. } => "game_over".into(),
            EventBody::Notice { kind, .. } => format!("notice {kind}"),
        };
        out[e.step].push(short);
    }
    out
}

fn expect(script: &str, want: &[&[&str]]) {
    let got = steps_of(script);
    let want: Vec<Vec<String>> = want
        .iter()
        .map(|s| s.iter().map(|e| e.to_string()).collect())
        .collect();
    assert_eq!(got, want, "{script}");
}

#[test]
fn a_mate_is_announced_at_once_and_its_flip_done_late_says_nothing() {
    expect(
        "enprise/mate-elimination-missed.toml",
        &[
            &[
                "action move wN",
                "check red",
                "checkmate red",
                "eliminated red",
                "check black",
                "notice pending",
            ],
            &[],
            &[],
            &["action move bK"],
        ],
    );
}

#[test]
fn the_next_player_acting_before_the_flip_is_flagged_until_it_is_done() {
    expect(
        "enprise/mate-elimination-next-acts-first.toml",
        &[
            &[
                "action move wN",
                "check red",
                "checkmate red",
                "eliminated red",
                "check black",
                "notice pending",
            ],
            &["flag missed_elimination_flip"],
            &["flag missed_elimination_flip"],
            &["cleared missed_elimination_flip", "action move bK"],
            &["action place wP"],
        ],
    );
    expect(
        "enprise/mate-elimination-four-players.toml",
        &[
            &[
                "action move wN",
                "check black",
                "checkmate black",
                "eliminated black",
                "notice pending",
            ],
            &["flag missed_elimination_flip"],
            &["cleared missed_elimination_flip", "action summon_king rK"],
            &["action place uN"],
        ],
    );
}

#[test]
fn four_players_a_flip_done_late_or_with_the_next_action_is_no_mistake() {
    let mate: &[&str] = &[
        "action move wN",
        "check black",
        "checkmate black",
        "eliminated black",
        "notice pending",
    ];
    expect(
        "enprise/mate-elimination-four-players-late.toml",
        &[mate, &[], &["action summon_king rK"]],
    );
    expect(
        "enprise/mate-elimination-four-players-with-next.toml",
        &[mate, &["action summon_king rK"]],
    );
}

#[test]
fn a_flip_done_with_the_next_action_is_no_mistake() {
    expect(
        "enprise/mate-elimination-with-next.toml",
        &[
            &[
                "action move wN",
                "check red",
                "checkmate red",
                "eliminated red",
                "check black",
                "notice pending",
            ],
            &["action move bK"],
        ],
    );
}

#[test]
fn a_bishop_alone_is_accepted_and_its_send_back_owed_before_the_opponent_acts() {
    expect(
        "twelve/tw-10-2-bishop-send-back-late.toml",
        &[
            &["action place wB", "notice pending"],
            &["action return_to_supply bP"],
            &[],
            &["action place bP", "action place wN"],
        ],
    );
    expect(
        "twelve/tw-10-2-bishop-send-back-owed.toml",
        &[
            &["action place wB", "notice pending"],
            &["flag incomplete_action"],
            &[
                "cleared incomplete_action",
                "action return_to_supply wR",
                "action place bN",
            ],
        ],
    );
}

#[test]
fn a_pawn_placement_is_announced_when_the_opponent_acts() {
    expect(
        "twelve/tw-10-2-pawn-placements-in-turn.toml",
        &[
            &[],
            &["action place wP"],
            &["action place bP", "action place wN"],
        ],
    );
}

#[test]
fn cards_lifted_on_their_way_say_nothing() {
    expect(
        "enprise/lifted-cards.toml",
        &[
            &[],
            &[],
            &["action move wR"],
            &[],
            &[],
            &["flag unexplained"],
            &["cleared unexplained", "action place bP"],
        ],
    );
    expect(
        "twelve/tw-8-3-queen-not-surrounded.toml",
        &[
            &[],
            &["flag illegal_move"],
            &["cleared illegal_move", "action place bN"],
        ],
    );
}
