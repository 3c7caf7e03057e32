//! A small soak in the suite (`cargo run --release --example soak` runs any
//! count): random legal games of every game, in-between tables included,
//! raise no flag, and every mistake injected into them is flagged right
//! and recovered from.

use arbiter_testkit::soak;

/// The flag kinds each game's soak must have injected, and caught.
const KINDS: [(&str, &[&str]); 4] = [
    (
        "enprise",
        &[
            "missed_swap",
            "missed_flip",
            "wrong_card",
            "illegal_move",
            "illegal_placement",
            "missed_elimination_flip",
            "wrong_player",
            "king_required",
            "unexplained",
        ],
    ),
    (
        "twelve",
        &[
            "illegal_placement",
            "illegal_move",
            "wrong_player",
            "incomplete_action",
            "missing_removal",
        ],
    ),
    (
        "doublecross",
        &[
            "illegal_move",
            "illegal_removal",
            "incomplete_action",
            "uncalled_check",
            "impossible_card",
            "missing_move",
        ],
    ),
    (
        "enochian",
        &[
            "illegal_move",
            "wrong_player",
            "forced_king_move",
            "incomplete_action",
            "divination_mismatch",
        ],
    ),
];

#[test]
fn a_small_soak_of_every_game_raises_no_false_flag_and_catches_every_mistake() {
    assert_eq!(KINDS.map(|(g, _)| g), soak::GAMES);
    for (game, kinds) in KINDS {
        let r = soak::soak(game, 30, &[2, 3, 4], 17);
        assert!(r.ok(), "{}\n{}", soak::row(&r), r.failures.join("\n"));
        assert_eq!(r.games, 30);
        // Cards were lifted wherever the game waits for them.
        assert_eq!(r.lifted > 0, game != "doublecross", "{}", soak::row(&r));
        for kind in kinds {
            assert!(
                r.mistakes.get(kind).is_some_and(|&(n, _)| n > 0),
                "{game} {kind}: {}",
                soak::row(&r)
            );
        }
    }
}
