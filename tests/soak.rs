//! A small soak in the suite (`cargo run --release --example soak` runs any
//! count): random legal games of every game, in-between tables included,
//! raise no flag, and every mistake injected into them is flagged right
//! and recovered from.

#[path = "../examples/soak/soak.rs"]
#[allow(dead_code)]
mod soak;

#[test]
fn a_small_soak_of_every_game_raises_no_false_flag_and_catches_every_mistake() {
    for game in soak::GAMES {
        let r = soak::soak(game, 30, &[2, 3, 4], 17);
        assert!(r.ok(), "{}\n{}", soak::row(&r), r.failures.join("\n"));
        assert_eq!(r.games, 30);
        // Cards were lifted wherever the game waits for them.
        assert_eq!(r.lifted > 0, game != "doublecross", "{}", soak::row(&r));
    }
    // En Prise: every kind of mistake occurred.
    let r = soak::soak("enprise", 30, &[2, 3, 4], 17);
    for kind in [
        "missed_swap",
        "missed_flip",
        "wrong_card",
        "illegal_move",
        "illegal_placement",
        "missed_elimination_flip",
        "wrong_player",
    ] {
        assert!(
            r.mistakes.get(kind).is_some_and(|&(n, _)| n > 0),
            "{kind}: {}",
            soak::row(&r)
        );
    }
}
