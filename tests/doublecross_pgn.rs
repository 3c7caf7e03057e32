//! The DoubleCross game record as PGN, read back by a chess tool's parser
//! (pgn-reader, the reader behind lichess, with shakmaty for legality):
//!
//! - any refereed game parses: one SAN (or the null move `--`) per turn, the
//!   drawn card as the comment after it, the result as the game's;
//! - a DoubleCross game whose moves happen to be legal chess replays move by
//!   move in shakmaty and ends on the same board.

use std::io::Cursor;
use std::ops::ControlFlow;

use arbiter::event::EventBody;
use arbiter::games::Game;
use arbiter::games::doublecross::chess::{Position, Side};
use arbiter::games::doublecross::deck::DcCard;
use arbiter::games::doublecross::{DoubleCross, Options, table_of};
use arbiter::observation::Observation;
use arbiter::referee::Referee;
use arbiter::table::Card;
use arbiter_testkit::games::doublecross::random::{random_game, random_options};
use pgn_reader::shakmaty::{Chess, Position as _};
use pgn_reader::{Outcome, RawComment, RawTag, Reader, SanPlus, Visitor};
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;

/// What a PGN reader makes of one game.
#[derive(Debug, Default)]
struct Read {
    tags: Vec<(String, String)>,
    sans: Vec<String>,
    comments: Vec<String>,
    outcome: Option<String>,
    /// shakmaty's replay: the position, or the first move it refused.
    chess: Option<Result<Chess, String>>,
}

struct Collect {
    legal: bool,
}

impl Visitor for Collect {
    type Tags = Read;
    type Movetext = Read;
    type Output = Read;

    fn begin_tags(&mut self) -> ControlFlow<Read, Read> {
        ControlFlow::Continue(Read::default())
    }

    fn tag(&mut self, tags: &mut Read, name: &[u8], value: RawTag<'_>) -> ControlFlow<Read> {
        tags.tags.push((
            String::from_utf8_lossy(name).into(),
            String::from_utf8_lossy(value.as_bytes()).into(),
        ));
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, mut tags: Read) -> ControlFlow<Read, Read> {
        if self.legal {
            tags.chess = Some(Ok(Chess::default()));
        }
        ControlFlow::Continue(tags)
    }

    fn san(&mut self, m: &mut Read, san: SanPlus) -> ControlFlow<Read> {
        m.sans.push(san.to_string());
        if let Some(Ok(pos)) = &mut m.chess {
            match san.san.to_move(pos) {
                Ok(mv) => pos.play_unchecked(mv),
                Err(e) => m.chess = Some(Err(format!("{san}: {e}"))),
            }
        }
        ControlFlow::Continue(())
    }

    fn comment(&mut self, m: &mut Read, c: RawComment<'_>) -> ControlFlow<Read> {
        m.comments
            .push(String::from_utf8_lossy(c.as_bytes()).trim().to_string());
        ControlFlow::Continue(())
    }

    fn outcome(&mut self, m: &mut Read, o: Outcome) -> ControlFlow<Read> {
        m.outcome = Some(o.to_string());
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, m: Read) -> Read {
        m
    }
}

fn read(pgn: &str, legal: bool) -> Read {
    Reader::new(Cursor::new(pgn.as_bytes()))
        .read_game(&mut Collect { legal })
        .expect("reading from memory cannot fail")
        .expect("one game")
}

fn referee_over(opts: &Options, obs: &[Observation]) -> (Referee<DoubleCross>, Vec<EventBody>) {
    let mut r = Referee::new(DoubleCross::new(opts.clone()));
    let mut events = Vec::new();
    for (i, o) in obs.iter().enumerate() {
        events.extend(r.observe(i, o).into_iter().map(|e| e.body));
    }
    (r, events)
}

#[test]
fn every_refereed_game_reads_back_turn_by_turn() {
    for seed in 0..40u64 {
        let mut rng = StdRng::seed_from_u64(seed);
        let g = random_game(seed, random_options(&mut rng), 120);
        let obs: Vec<Observation> = g.steps.iter().map(|s| s.observation.clone()).collect();
        let (r, events) = referee_over(&g.opts, &obs);
        let pgn = r.game().record().expect("DoubleCross keeps a record");
        let mut got = read(&pgn, false);
        let tag = |k: &str| {
            got.tags
                .iter()
                .find(|(n, _)| n == k)
                .map(|(_, v)| v.as_str())
        };
        assert_eq!(tag("Variant"), Some("DoubleCross"), "{pgn}");
        assert_eq!((tag("White"), tag("Black")), (Some("white"), Some("black")));
        let entries = r.game().record_entries();
        // A player with two turns in a row gets a null move between them.
        let skipped = got.comments.iter().filter(|c| *c == "no turn").count();
        assert_eq!(
            got.sans.len(),
            entries.len() + skipped,
            "seed {seed}:\n{pgn}"
        );
        assert_eq!(
            got.comments.len(),
            entries.len() + skipped,
            "seed {seed}:\n{pgn}"
        );
        got.comments.retain(|c| c != "no turn");
        // The moves' SAN are those the action events announced, in order.
        let announced: Vec<&str> = events
            .iter()
            .filter_map(|e| match e {
                EventBody::Action(a) => a.san.as_deref(),
                _ => None,
            })
            .collect();
        let moves: Vec<&str> = got
            .sans
            .iter()
            .map(String::as_str)
            .filter(|s| *s != "--")
            .collect();
        assert_eq!(moves, announced, "seed {seed}");
        // Each comment opens with the card drawn that turn.
        for (c, e) in got.comments.iter().zip(entries) {
            assert!(c.starts_with(&e.card.to_string()), "{c:?} for {:?}", e.card);
            DcCard::parse(c.split(';').next().unwrap()).expect("the comment names a card");
        }
        let want = match r.game().winner() {
            Some(0) => "1-0",
            Some(_) => "0-1",
            None => "*",
        };
        assert_eq!(got.outcome.as_deref(), Some(want), "seed {seed}");
        assert_eq!(tag("Result"), Some(want));
    }
}

/// A DoubleCross game in which each player draws his own colour's cards and
/// plays legal chess: the White player's turns are White's moves.
fn chess_like_game(seed: u64, plies: usize) -> (Vec<Observation>, Position) {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut game = DoubleCross::new(Options::default());
    let mut chess = Position::startpos();
    let mut obs = vec![Observation::Table(game.table())];
    let step = |game: &mut DoubleCross, o: Observation, obs: &mut Vec<Observation>| {
        let mut r = Referee::new(game.clone());
        let events = r.observe(0, &o);
        assert!(
            !events.iter().any(|e| matches!(e.body, EventBody::Flag(_))),
            "{events:?}"
        );
        *game = r.game().clone();
        obs.push(o);
    };
    for _ in 0..plies {
        let drawable = game.drawable();
        let moves: Vec<_> = chess
            .legal_moves()
            .into_iter()
            .filter(|m| {
                let (side, piece) = chess.piece_at(m.from).unwrap();
                drawable.contains(&DcCard::Piece(Card::new(side.colour(), piece)))
            })
            .collect();
        let Some(&m) = moves.choose(&mut rng) else {
            break;
        };
        let (side, piece) = chess.piece_at(m.from).unwrap();
        assert_eq!(side, chess.turn);
        step(
            &mut game,
            Observation::Draw(Card::new(side.colour(), piece).to_string()),
            &mut obs,
        );
        chess.play(m);
        step(&mut game, Observation::Table(table_of(&chess)), &mut obs);
        if game.due_call() {
            let by = if side == Side::White {
                "white"
            } else {
                "black"
            };
            step(
                &mut game,
                Observation::Call {
                    call: "check".into(),
                    by: Some(by.into()),
                },
                &mut obs,
            );
        }
        if chess.legal_moves().is_empty() {
            break;
        }
    }
    (obs, chess)
}

#[test]
fn a_game_of_legal_chess_replays_in_shakmaty_to_the_same_board() {
    let mut total = 0;
    for seed in 0..12u64 {
        let (obs, chess) = chess_like_game(seed, 80);
        let (r, _) = referee_over(&Options::default(), &obs);
        let pgn = r.game().record().unwrap();
        let got = read(&pgn, true);
        let end = match got.chess {
            Some(Ok(p)) => p,
            other => panic!("seed {seed}: shakmaty refused the record: {other:?}\n{pgn}"),
        };
        let theirs = pgn_reader::shakmaty::fen::Fen::from_position(
            &end,
            pgn_reader::shakmaty::EnPassantMode::Legal,
        )
        .to_string();
        let ours = chess.fen();
        assert_eq!(
            theirs.split(' ').next(),
            ours.split(' ').next(),
            "seed {seed}:\n{pgn}"
        );
        total += got.sans.len();
    }
    assert!(total >= 300, "only {total} moves checked");
}
