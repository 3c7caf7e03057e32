//! The spoken words of `--speak` (`arbiter_core::spoken`), for every flag
//! kind of every game: real flags, raised by the referee replaying the
//! project's scenario and regression scripts (and, for the unreadable card
//! every game can meet, a short script per game here), each said as a
//! player hears it: no coordinates, no rule ID, short, not empty. A few are
//! held to the exact sentence, read and checked by hand. And the kinds the
//! games' code can raise are listed from that code, so a kind added there
//! without a phrase tested here fails.
//!
//! `cargo test --test spoken -- --nocapture` prints every phrase beside its
//! flag, to read them all as a player would.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use arbiter::event::{EventBody, Flag, FlagKind};
use arbiter::replay::replay;
use arbiter::script::Script;
use arbiter::setup::GameKind;
use arbiter::spoken::{self, MOST_WORDS};
use proptest::prelude::*;

/// A flag the referee raised, and where.
struct Sample {
    game: GameKind,
    source: String,
    flag: Flag,
}

/// Every `.toml` under `dir`, `invalid/` folders (scripts that must be
/// refused) aside.
fn scripts(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            if p.file_name().is_some_and(|n| n != "invalid") {
                scripts(&p, out);
            }
        } else if p.extension().is_some_and(|e| e == "toml") {
            out.push(p);
        }
    }
}

/// A script's flags.
fn flags_of(game: GameKind, source: &str, script: &Script) -> Vec<Sample> {
    replay(script)
        .unwrap_or_else(|e| panic!("{source} does not replay: {e}"))
        .into_iter()
        .filter_map(|e| match e.body {
            EventBody::Flag(flag) => Some(Sample {
                game,
                source: source.to_string(),
                flag,
            }),
            _ => None,
        })
        .collect()
}

/// A table with a card no input could read (`??`), in each game: the
/// referee's own flag, the same for every game.
const UNREADABLE: [(&str, &str); 3] = [
    (
        "twelve",
        r#"game = "twelve"
[start]
to_move = "white"
table = """
wK
bK
"""
[[step]]
table = """
wK ??
bK ..
"""
"#,
    ),
    (
        "enochian",
        r#"game = "enochian"
[[step]]
table = """
.. .. bR bK bB bQ .. ..
.. .. bP bP bP bP .. ..
yQ yP .. .. .. .. rP rR
yB yP .. .. .. .. rP rK
yK yP .. .. .. .. rP rB
yR yP .. .. .. .. rP rQ
.. .. uP uP uP uP .. ..
.. .. uQ uB uK uR .. ..
"""
thrones = { d8 = "bK+bN", h5 = "rK+rN", a4 = "yK+yN", e1 = "uK+uN" }
[[step]]
table = """
.. .. bR bK bB bQ .. ..
.. .. bP bP bP bP .. ..
yQ yP .. .. .. .. rP rR
yB yP .. .. .. .. rP rK
yK yP .. .. .. .. rP rB
yR yP .. .. .. .. rP rQ
.. .. uP ?? uP uP .. ..
.. .. uQ uB uK uR .. ..
"""
thrones = { d8 = "bK+bN", h5 = "rK+rN", a4 = "yK+yN", e1 = "uK+uN" }
"#,
    ),
    (
        "doublecross",
        r#"game = "doublecross"
[[step]]
table = """
bR bN bB bQ bK bB bN bR
bP bP bP bP bP bP bP bP
.. .. .. .. .. .. .. ..
.. .. .. .. .. .. .. ..
.. .. .. .. .. .. .. ..
.. .. .. .. .. .. .. ..
wP wP wP wP ?? wP wP wP
wR wN wB wQ wK wB wN wR
"""
"#,
    ),
];

/// Every flag the referee raises replaying the fixtures, and the
/// unreadable tables above.
fn samples() -> Vec<Sample> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths = Vec::new();
    scripts(&root.join("fixtures/scenarios"), &mut paths);
    scripts(&root.join("fixtures/regressions"), &mut paths);
    let mut out = Vec::new();
    for path in &paths {
        // fixtures/regressions holds camera images' expected readings too:
        // only table scripts are replayed.
        let Ok(script) = Script::load(path) else {
            assert!(
                !path.starts_with(root.join("fixtures/scenarios")),
                "{} does not load",
                path.display()
            );
            continue;
        };
        let source = path
            .strip_prefix(root)
            .unwrap_or(path)
            .display()
            .to_string();
        out.extend(flags_of(script.game(), &source, &script));
    }
    for (name, text) in UNREADABLE {
        let script = Script::parse(name, text).unwrap_or_else(|e| panic!("{name}: {e}"));
        out.extend(flags_of(
            script.game(),
            &format!("unreadable ({name})"),
            &script,
        ));
    }
    out
}

/// What makes a phrase no speech for a player, if anything.
fn unspeakable(f: &Flag, said: &str) -> Option<String> {
    if said.trim().is_empty() {
        return Some("empty".into());
    }
    if said.contains(['(', ')', '[', ']', '{', '}', '_', '=', '\u{E000}']) {
        return Some("a bracket or screen notation".into());
    }
    // A coordinate left bare: "2,0" or "-1".
    let chars: Vec<char> = said.chars().collect();
    for w in chars.windows(3) {
        if w[0].is_ascii_digit() && w[1] == ',' && (w[2].is_ascii_digit() || w[2] == '-') {
            return Some("a coordinate".into());
        }
    }
    if said.contains("..") {
        return Some("a range".into());
    }
    for rule in f.rule.split(" / ") {
        if !rule.is_empty() && said.contains(rule) {
            return Some(format!("the rule ID {rule}"));
        }
    }
    if let Some(w) = said
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .find(|w| spoken::is_rule_id(w))
    {
        return Some(format!("a rule ID, {w}"));
    }
    let most = if f.reads_several_ways() {
        MOST_WORDS + 6
    } else {
        MOST_WORDS
    };
    let n = spoken::words(said);
    if n > most {
        return Some(format!("{n} words, more than {most}"));
    }
    None
}

#[test]
fn every_flag_of_the_fixtures_is_said_plainly() {
    let samples = samples();
    assert!(samples.len() > 200, "only {} flags found", samples.len());
    let mut problems = Vec::new();
    let mut seen = BTreeSet::new();
    for s in &samples {
        let said = spoken::flag(&s.flag);
        // Each distinct message once, to read.
        if seen.insert(s.flag.message.clone()) {
            println!(
                "{:<12} {:<24} {}\n    screen: {}\n    spoken: {said}",
                s.game.name(),
                s.flag.kind.as_str(),
                s.source,
                s.flag.message
            );
        }
        if let Some(why) = unspeakable(&s.flag, &said) {
            problems.push(format!(
                "{} ({}): {why}\n    screen: {}\n    spoken: {said}",
                s.source,
                s.flag.kind.as_str(),
                s.flag.message
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "{} phrases are no speech:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// The flag kinds each game's rules can raise, read from their code (every
/// `FlagKind::` its modules name, the test support's mistakes and random
/// games aside), and those the referee raises for any game (a card it
/// cannot read, a table nothing explains).
fn kinds_in_code() -> BTreeMap<&'static str, BTreeSet<&'static str>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/arbiter-core/src/games");
    let mut out = BTreeMap::new();
    for game in GameKind::ALL {
        let dir = root.join(game.name());
        let mut kinds: BTreeSet<&'static str> = [FlagKind::Unreadable, FlagKind::Unexplained]
            .into_iter()
            .map(FlagKind::as_str)
            .collect();
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "rs"))
            .filter(|p| {
                p.file_stem().is_some_and(|s| {
                    !["mistakes", "random", "tests"].contains(&&*s.to_string_lossy())
                })
            })
            .collect();
        files.sort();
        assert!(!files.is_empty(), "no code in {}", dir.display());
        for file in files {
            let code = std::fs::read_to_string(&file).unwrap();
            for kind in FlagKind::ALL {
                if code.contains(&format!("FlagKind::{kind:?}")) {
                    kinds.insert(kind.as_str());
                }
            }
        }
        out.insert(game.name(), kinds);
    }
    out
}

#[test]
fn every_flag_kind_of_every_game_has_a_phrase_test() {
    let mut covered: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for s in samples() {
        covered
            .entry(s.game.name())
            .or_default()
            .insert(s.flag.kind.as_str());
    }
    let known = kinds_in_code();
    let mut missing = Vec::new();
    for (game, kinds) in &known {
        let have = covered.get(game).cloned().unwrap_or_default();
        println!(
            "{game:<12} {}",
            kinds
                .iter()
                .map(|k| if have.contains(k) {
                    k.to_string()
                } else {
                    format!("{k} (NOT TESTED)")
                })
                .collect::<Vec<_>>()
                .join(", ")
        );
        missing.extend(
            kinds
                .iter()
                .filter(|k| !have.contains(*k))
                .map(|k| format!("{game}: {k}")),
        );
    }
    assert!(
        missing.is_empty(),
        "flag kinds the code raises with no real flag to phrase (add a fixture that raises each): {missing:?}"
    );
    // And every kind there is, in some game.
    let anywhere: BTreeSet<&str> = covered.values().flatten().copied().collect();
    let unheard: Vec<&str> = FlagKind::ALL
        .into_iter()
        .map(FlagKind::as_str)
        .filter(|k| !anywhere.contains(k))
        .collect();
    assert!(
        unheard.is_empty(),
        "kinds no game's flag covers: {unheard:?}"
    );
}

/// The first flag of `game` and `kind` whose message starts with `start`.
fn find<'a>(samples: &'a [Sample], game: &str, kind: FlagKind, start: &str) -> &'a Flag {
    &samples
        .iter()
        .find(|s| s.game.name() == game && s.flag.kind == kind && s.flag.message.starts_with(start))
        .unwrap_or_else(|| panic!("no {game} {} flag starting {start:?}", kind.as_str()))
        .flag
}

/// A few phrases read by hand and held to the word.
#[test]
fn hand_checked_phrases() {
    let samples = samples();
    let cases = [
        (
            "enprise",
            FlagKind::MissedFlip,
            "Missed FLIP: the black bishop took the white rook",
            "Missed flip: Black's bishop took White's rook. Turn the rook, now on the bishop's old square, face down.",
        ),
        (
            "enprise",
            FlagKind::MissedSwap,
            "Missed SWAP: the black queen moved",
            "Missed swap: Black's queen moved. Put the face-down card it landed on where the queen stood.",
        ),
        (
            "enprise",
            FlagKind::MissedEliminationFlip,
            "Black acted before Red's cards",
            "Red is checkmated and out. Turn all of Red's cards face down. Black's action stands.",
        ),
        (
            "enprise",
            FlagKind::WrongCard,
            "Black's next Battleplan card is the pawn, not the knight",
            "Black's next Battleplan card is the pawn, not the knight. Swap the card.",
        ),
        (
            "enprise",
            FlagKind::IllegalMove,
            "A bishop does not move like that ((3,1)",
            "Black: A bishop does not move like that. Put it back.",
        ),
        (
            "enprise",
            FlagKind::Unreadable,
            "Cannot read the card at",
            "Cannot read the card. Straighten it or clear the view.",
        ),
        (
            "enprise",
            FlagKind::MissedFlip,
            "The table reads two ways",
            "The table reads two ways. If White played, turn Black's queen face down. If Black played, turn White's bishop face down.",
        ),
        (
            "doublecross",
            FlagKind::UncalledCheck,
            "white did not call check: the White Rook on a8",
            "White did not call check. The White Rook on a8 checks the Black King on e8.",
        ),
        (
            "doublecross",
            FlagKind::MissingMove,
            "white drew White Pawn",
            "White drew White Pawn but made no move. The turn is lost.",
        ),
        (
            "doublecross",
            FlagKind::IllegalMove,
            "A piece captures only the other colour",
            "Black: The White Knight cannot take the White Pawn on c2. Put it back.",
        ),
        (
            "twelve",
            FlagKind::MissingRemoval,
            "The White Queen at (0,0) was surrounded",
            "The White Queen was surrounded at the end of the last turn. Take it off the table before White acts.",
        ),
        (
            "twelve",
            FlagKind::IllegalPlacement,
            "The area stays within 4x4: with the White Queen",
            "White: The area stays within 4 by 4. Take it back.",
        ),
        (
            "enochian",
            FlagKind::DivinationMismatch,
            "Yellow rolled 6",
            "Yellow rolled 6. A pawn must move, not the queen. Put it back on a6 and the Black rook back on c8.",
        ),
        (
            "enochian",
            FlagKind::ForcedKingMove,
            "Blue's king is in check and can move",
            "Blue's king is in check and can move, so only the king may move. Put it back on e1.",
        ),
    ];
    let mut wrong = Vec::new();
    for (game, kind, start, want) in cases {
        let said = spoken::flag(find(&samples, game, kind, start));
        if said != want {
            wrong.push(format!(
                "{game} {}:\n   want {want}\n    got {said}",
                kind.as_str()
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

    /// Any message, however it mixes words, cells, rule IDs, asides and
    /// punctuation, is said without any of them, and briefly.
    #[test]
    fn no_message_is_said_with_coordinates_or_rule_ids(
        parts in prop::collection::vec(
            prop_oneof![
                Just("the white knight".to_string()),
                Just("put it back".to_string()),
                Just("take the card".to_string()),
                Just(":".to_string()),
                Just(";".to_string()),
                Just(",".to_string()),
                Just(".".to_string()),
                Just("(".to_string()),
                Just(")".to_string()),
                Just("on".to_string()),
                Just("at".to_string()),
                Just("from".to_string()),
                Just("to".to_string()),
                Just("EP-MOVE-KNIGHT".to_string()),
                Just("(DC-6.6)".to_string()),
                Just("4x4".to_string()),
                Just("-1..2".to_string()),
                Just("e7–e8".to_string()),
                (-20i32..20, -20i32..20).prop_map(|(c, r)| format!("({c},{r})")),
                "[a-z]{1,8}",
            ],
            0..30,
        ),
        kind in prop::sample::select(FlagKind::ALL.to_vec()),
        player in prop::option::of(prop::sample::select(vec!["white", "black", "blue"])),
    ) {
        let f = Flag {
            kind,
            cells: vec![],
            rule: "EP-MOVE-KNIGHT".into(),
            message: parts.join(" "),
            player: player.map(Into::into),
            squares: vec![],
        };
        let said = spoken::flag(&f);
        prop_assert!(unspeakable(&f, &said).is_none(), "{:?} -> {:?}: {:?}", f.message, said, unspeakable(&f, &said));
    }
}
