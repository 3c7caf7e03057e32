//! The test support's one driver over the four games' random games: each
//! writes a script that reads back as the same setup and observations, and
//! replays through a fresh referee without a flag.

use arbiter::event::EventBody;
use arbiter::script::Script;
use arbiter_testkit::{Played, games};

#[test]
fn every_random_game_writes_a_script_that_replays_clean() {
    let played: Vec<Box<dyn Played>> = vec![
        Box::new(games::enprise::random::random_game(5, 3, 60)),
        Box::new(games::twelve::random::random_game(
            5,
            Default::default(),
            40,
        )),
        Box::new(games::doublecross::random::random_game(
            5,
            Default::default(),
            40,
        )),
        Box::new(games::enochian::random::random_game(
            5,
            Default::default(),
            40,
        )),
    ];
    for g in played {
        let text = g.script();
        let s = Script::parse("random.toml", &text).unwrap();
        assert_eq!(s.setup, g.setup(), "{text}");
        let observations = g.observations();
        assert_eq!(s.observations().cloned().collect::<Vec<_>>(), observations);
        let events = g.replay().unwrap();
        let actions = events
            .iter()
            .filter(|e| matches!(e.body, EventBody::Action(_)))
            .count();
        assert!(
            actions >= observations.len() / 3,
            "{actions} actions for {} observations",
            observations.len()
        );
        let flags: Vec<_> = events
            .iter()
            .filter(|e| matches!(e.body, EventBody::Flag(_)))
            .collect();
        assert!(flags.is_empty(), "{flags:?}\n{text}");
    }
}
