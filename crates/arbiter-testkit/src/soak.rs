//! The soak: random legal games of every game played through the referee
//! from settled tables, in-between tables included, and physical mistakes
//! injected into them. A legal game must raise no flag at all; a mistake
//! must raise the flag its spec names, at its cells, and clear when the
//! table is mended or taken back, the rest of the game reading as before.
//!
//! The in-between tables are those hands leave: an action's second part
//! still to do (a mated army not yet turned, a Bishop's send-back, a
//! Pawn's entry step, all drawn by the games' generators), and a card or
//! two lifted on their way elsewhere (added here before a table that moves
//! them, wherever the game waits for lifted cards; DoubleCross judges a
//! card taken off at once, DC-3.5).
//!
//! Shared by `examples/soak.rs` (`cargo soak`, any count) and
//! `tests/soak.rs` (a small count, in the suite).

use std::collections::BTreeMap;

use arbiter_core::event::{ActionKind, Event, EventBody, FlagKind, How};
use arbiter_core::games::doublecross::DoubleCross;
use arbiter_core::games::doublecross::mistakes::Kind;
use arbiter_core::games::enochian::Enochian;
use arbiter_core::games::enprise::EnPrise;
use arbiter_core::games::enprise::mistakes::{self, MISTAKES};
use arbiter_core::games::twelve::random::RandomGame as TwelveGame;
use arbiter_core::games::twelve::{Action as TwelveAction, Phase, SIDES, Twelve};
use arbiter_core::games::{Game, Uncaught};
use arbiter_core::games::{doublecross, enochian, enprise, twelve};
use arbiter_core::observation::Observation;
use arbiter_core::referee::Referee;
use arbiter_core::table::{Card, Cell, Piece, Table, Token};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// The games the soak plays.
pub const GAMES: [&str; 4] = ["enprise", "twelve", "doublecross", "enochian"];

/// What a soak of one game found.
#[derive(Debug, Default)]
pub struct Report {
    pub game: &'static str,
    pub games: usize,
    pub observations: usize,
    /// Tables with a card or two lifted, added before the table that moves
    /// them.
    pub lifted: usize,
    /// Flags raised in legal games (must be 0).
    pub false_flags: usize,
    /// Per flag kind: mistakes injected, and those flagged right and
    /// recovered from.
    pub mistakes: BTreeMap<&'static str, (usize, usize)>,
    /// Per flag kind: mistakes not injected where the injector would have
    /// put them, because their table is also a legal reading there
    /// (docs/referee.md, "What the soak skips").
    pub skipped: BTreeMap<&'static str, usize>,
    /// Flag messages that named a card on a cell that does not hold it
    /// (`arbiter_core::message_check`): each is a miss.
    pub misdirected: usize,
    /// What went wrong, a line each (the first few).
    pub failures: Vec<String>,
}

impl Report {
    fn fail(&mut self, why: String) {
        if self.failures.len() < 10 {
            self.failures.push(why);
        }
    }

    /// Counts one legal game replayed (`label` names it in failures): its
    /// observations, the lifted tables added, any flag it raised, and
    /// whether the referee's game ended where the generator's did.
    fn legal<G: Game>(
        &mut self,
        label: &str,
        observed: usize,
        lifted: usize,
        events: &[Event],
        referee: &Referee<G>,
        end: &Table,
    ) {
        self.games += 1;
        self.observations += observed + lifted;
        self.lifted += lifted;
        let flags = flag_count(events);
        if flags > 0 {
            self.false_flags += flags;
            self.fail(format!("{label}: {}", first_flag(events)));
        }
        if referee.game().table() != *end {
            self.fail(format!("{label}: the referee's game ends elsewhere"));
        }
    }

    /// Counts one mistake of `kind` injected, and caught and recovered
    /// from if `result` is `Ok`; what went wrong otherwise.
    fn tally(&mut self, kind: &'static str, result: Result<(), Uncaught>) {
        let entry = self.mistakes.entry(kind).or_default();
        entry.0 += 1;
        match result {
            Ok(()) => entry.1 += 1,
            Err(e) => self.fail(e.0),
        }
    }

    pub fn injected(&self) -> usize {
        self.mistakes.values().map(|v| v.0).sum()
    }

    pub fn caught(&self) -> usize {
        self.mistakes.values().map(|v| v.1).sum()
    }

    pub fn ok(&self) -> bool {
        self.false_flags == 0
            && self.misdirected == 0
            && self.failures.is_empty()
            && self.injected() == self.caught()
    }

    pub fn skipped_count(&self) -> usize {
        self.skipped.values().sum()
    }

    fn skip(&mut self, kind: &'static str, n: usize) {
        if n > 0 {
            *self.skipped.entry(kind).or_default() += n;
        }
    }

    /// Adds another part's counts (its failures after this one's).
    fn absorb(&mut self, other: Report) {
        self.games += other.games;
        self.observations += other.observations;
        self.lifted += other.lifted;
        self.false_flags += other.false_flags;
        self.misdirected += other.misdirected;
        for (k, (n, ok)) in other.mistakes {
            let e = self.mistakes.entry(k).or_default();
            e.0 += n;
            e.1 += ok;
        }
        for (k, n) in other.skipped {
            *self.skipped.entry(k).or_default() += n;
        }
        for f in other.failures {
            self.fail(f);
        }
    }
}

/// The seed of game `k` of a soak seeded `seed`: game `k` itself under
/// seed 0, far apart for other seeds, so that soaks of neighbouring seeds
/// play different games.
pub fn game_seed(seed: u64, k: usize) -> u64 {
    seed.wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add(k as u64)
}

/// The one-line command that plays game `k` of a soak again, alone.
pub fn reproduce(game: &str, seed: u64, k: usize, players: &[usize]) -> String {
    let players = match players {
        [n] => format!(" --players {n}"),
        [2, 3, 4] => String::new(),
        _ => format!(
            " --players {}..{}",
            players.first().unwrap_or(&2),
            players.last().unwrap_or(&4)
        ),
    };
    format!(
        "cargo run --release --example soak -- --game {game} --seed {seed} --first {k} --games 1{players}"
    )
}

/// Plays `obs` through a referee of `game`, adding before a table a copy of
/// the table expected then with a card or two lifted off it (a card the
/// table moves or turns), where the game waits for lifted cards, with
/// probability `lift`. The events, the referee, and how many tables were
/// added.
fn replay_lifting<G: Game>(
    game: G,
    obs: &[Observation],
    lift: f64,
    rng: &mut StdRng,
) -> (Vec<Event>, Referee<G>, usize) {
    let mut referee = Referee::new(game);
    let mut events = referee.start();
    let mut step = 0;
    let mut lifted = 0;
    for o in obs {
        if let Observation::Table(next) = o
            && referee.game().lifted_cards_wait()
            && rng.random_bool(lift)
        {
            let expected = referee.expected_table().clone();
            // Cards that leave their cell in the next table (it holds
            // something else there now): the hand lifts them first.
            let leaving: Vec<Cell> = expected
                .iter()
                .filter(|&(c, t)| next.get(c) != Some(t) && next.get(c).is_some())
                .map(|(c, _)| c)
                .collect();
            let gone: Vec<Cell> = expected
                .iter()
                .filter(|&(c, _)| next.get(c).is_none())
                .map(|(c, _)| c)
                .collect();
            if let Some(&c) = leaving.first().or(gone.first()) {
                let mut up = expected.clone();
                up.set(c, None);
                if let Some(&d) = leaving.get(1)
                    && rng.random_bool(0.3)
                {
                    up.set(d, None);
                }
                events.extend(referee.observe(step, &Observation::Table(up)));
                step += 1;
                lifted += 1;
            }
        }
        events.extend(referee.observe(step, o));
        step += 1;
    }
    events.extend(referee.finish(step));
    (events, referee, lifted)
}

fn flag_count(events: &[Event]) -> usize {
    events
        .iter()
        .filter(|e| matches!(e.body, EventBody::Flag(_)))
        .count()
}

fn first_flag(events: &[Event]) -> String {
    events
        .iter()
        .find_map(|e| match &e.body {
            EventBody::Flag(f) => Some(format!("step {}: {}", e.step, f.message)),
            _ => None,
        })
        .unwrap_or_default()
}

/// The action events, as (player, action, card) in order.
fn actions(events: impl IntoIterator<Item = EventBody>) -> Vec<(String, ActionKind, Option<Card>)> {
    events
        .into_iter()
        .filter_map(|e| match e {
            EventBody::Action(a) => Some((a.player, a.action, a.card)),
            _ => None,
        })
        .collect()
}

/// Soaks one game: `games` legal games, and as many with one mistake each,
/// on as many threads as the machine has cores.
pub fn soak(game: &str, games: usize, players: &[usize], seed: u64) -> Report {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    soak_range(game, seed, 0..games, players, threads)
}

/// Soaks games `range` of the soak seeded `seed`, on `threads` threads.
/// Each game draws from its own generator (seeded by [`game_seed`]), so a
/// game plays the same whatever the range, the thread count or the order:
/// the report is the same for one thread or many, and `--first K --games
/// 1` replays game K alone.
pub fn soak_range(
    game: &str,
    seed: u64,
    range: std::ops::Range<usize>,
    players: &[usize],
    threads: usize,
) -> Report {
    let game: &'static str = GAMES
        .into_iter()
        .find(|&g| g == game)
        .unwrap_or_else(|| panic!("no game {game}"));
    let threads = threads.clamp(1, range.len().max(1));
    let mut parts: Vec<(usize, Report)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|w| {
                let range = range.clone();
                scope.spawn(move || {
                    range
                        .skip(w)
                        .step_by(threads)
                        .map(|k| (k, one_game(game, seed, k, players)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|h| h.join().expect("a soak worker panicked"))
            .collect()
    });
    parts.sort_by_key(|(k, _)| *k);
    let mut r = Report {
        game,
        ..Report::default()
    };
    for (_, part) in parts {
        r.absorb(part);
    }
    r
}

/// Game `k` of the soak seeded `seed`: the legal game, its mistakes, and
/// any message that pointed at the wrong card.
fn one_game(game: &'static str, seed: u64, k: usize, players: &[usize]) -> Report {
    let mut r = Report {
        game,
        ..Report::default()
    };
    let s = game_seed(seed, k);
    // The mistakes' own generator, apart from the game's.
    let mut rng = StdRng::seed_from_u64(s ^ 0x50A4_5EED_D1CE_0001);
    arbiter_core::message_check::take_misdirected();
    match game {
        "enprise" => enprise_game(&mut r, s, players[k % players.len()], &mut rng),
        "twelve" => twelve_game(&mut r, s, &mut rng),
        "doublecross" => doublecross_game(&mut r, s, &mut rng),
        "enochian" => enochian_game(&mut r, s, &mut rng),
        other => unreachable!("checked above: {other}"),
    }
    for why in arbiter_core::message_check::take_misdirected() {
        r.misdirected += 1;
        r.fail(format!(
            "{game} seed {s}: a message points at the wrong card: {why}"
        ));
    }
    if !r.failures.is_empty() {
        let again = reproduce(game, seed, k, players);
        for f in &mut r.failures {
            *f = format!("{f}\n      again: {again}");
        }
    }
    r
}

fn enprise_game(r: &mut Report, s: u64, n: usize, rng: &mut StdRng) {
    let g = enprise::random::random_game(s, n, 200);
    let obs: Vec<Observation> = g
        .turns
        .iter()
        .flat_map(mistakes::tables)
        .map(|t| Observation::Table(t.clone()))
        .collect();
    let start = EnPrise::new(&g.players, g.plans.clone(), Default::default());
    let (events, referee, lifted) = replay_lifting(start, &obs, 0.3, rng);
    r.legal(
        &format!("enprise seed {s} ({n} players)"),
        obs.len(),
        lifted,
        &events,
        &referee,
        &g.end.table(),
    );
    // A pass and a face-down pawn may be read as the escape square they
    // look like: the count of non-pass actions is what must agree.
    let placed = |a: &[(String, ActionKind, Option<Card>)]| {
        a.iter()
            .filter(|(_, act, _)| *act != ActionKind::Pass)
            .count()
    };
    let want = actions(g.turns.iter().flat_map(|t| t.events.clone()));
    let got = actions(events.into_iter().map(|e| e.body));
    if placed(&got) != placed(&want) {
        r.fail(format!(
            "enprise seed {s}: {} actions announced, {} played",
            placed(&got),
            placed(&want)
        ));
    }
    // One mistake of each kind the game offers, at a turn chosen by the
    // seed.
    for m in MISTAKES {
        let pick = rng.random_range(0..g.turns.len().max(1));
        let Some(inj) = mistakes::inject(&g, m, pick) else {
            continue;
        };
        r.tally(
            inj.kind,
            mistakes::check_injection(&g, m, &inj, rng.random_bool(0.5)),
        );
    }
}

fn twelve_game(r: &mut Report, s: u64, rng: &mut StdRng) {
    let opts = twelve::random::random_options(rng);
    let g = twelve::random::random_game(s, opts, 80);
    let obs = g.observations();
    let (events, referee, lifted) = replay_lifting(Twelve::new(opts), &obs, 0.3, rng);
    r.legal(
        &format!("twelve seed {s}"),
        obs.len(),
        lifted,
        &events,
        &referee,
        &g.end.table(),
    );
    let want = actions(g.steps.iter().flat_map(|st| st.events.clone()));
    let got = actions(events.into_iter().map(|e| e.body));
    if got != want {
        r.fail(format!("twelve seed {s}: the actions announced differ"));
    }
    // One mistake of each kind, at a state chosen at random among
    // those that offer it (not right after a Pawn placement, whose two
    // readings would choose the flag between them).
    let states: Vec<(usize, &Twelve)> = twelve::mistakes::plain_states(&g)
        .filter(|&(i, _)| {
            !matches!(
                g.steps[i - 1].action,
                Some(TwelveAction::Place {
                    piece: Piece::Pawn,
                    ..
                })
            )
        })
        .collect();
    for kind in twelve::mistakes::KINDS {
        let offered: Vec<(usize, twelve::mistakes::Mistake)> = states
            .iter()
            .filter_map(|&(i, st)| Some((i, twelve::mistakes::make(kind, st)?)))
            .collect();
        if offered.is_empty() {
            continue;
        }
        let (i, (table, want)) = offered[rng.random_range(0..offered.len())].clone();
        r.tally(
            want.kind.as_str(),
            twelve::mistakes::check_injection(&g, i, table, &want),
        );
    }
    let removals = twelve::mistakes::removal_tables(&g);
    if !removals.is_empty() {
        let r_at = removals[rng.random_range(0..removals.len())];
        r.tally(
            "missing_removal",
            twelve::mistakes::check_queen_left(&g, r_at),
        );
    }
    if let Some(result) = overtaken_send_back(&g, rng) {
        r.tally(
            "incomplete_action",
            result.map_err(|e| Uncaught(format!("twelve seed {s}: {e}"))),
        );
    }
}

/// A Twelve Bishop entry seen in three tables: the Bishop alone, the
/// opponent's next action with the send-back undone (`incomplete_action`
/// at the Bishop, owed by its side), then that action with the send-back
/// done, which mends it. `None` where the game has no such entry.
fn overtaken_send_back(g: &TwelveGame, rng: &mut StdRng) -> Option<Result<(), Uncaught>> {
    let entries: Vec<usize> = (1..g.steps.len().saturating_sub(1))
        .filter(|&i| {
            let Some(TwelveAction::BishopEntry {
                side, send_back, ..
            }) = g.steps[i].action
            else {
                return false;
            };
            let next = &g.steps[i + 1];
            let victim = g.steps[i].before.table().get(send_back);
            // The opponent's own action, not putting the piece sent back
            // down again, nor sending one back itself.
            next.action
                .is_some_and(|a| a.side() != side && !matches!(a, TwelveAction::BishopEntry { .. }))
                && !next.removal
                && !g.steps[i].removal
                && g.steps[i].before.phase() == Phase::Turn
                && next.table.get(send_back).is_none()
                && !next.table.iter().any(|(_, t)| Some(t) == victim)
        })
        .collect();
    if entries.is_empty() {
        return None;
    }
    let i = entries[rng.random_range(0..entries.len())];
    let Some(TwelveAction::BishopEntry {
        side,
        at,
        send_back,
    }) = g.steps[i].action
    else {
        unreachable!("chosen as an entry")
    };
    let before = &g.steps[i].before;
    let mut alone = before.table();
    alone.set(at, Some(Token::Up(Card::new(SIDES[side], Piece::Bishop))));
    let mut overtaken = g.steps[i + 1].table.clone();
    overtaken.set(send_back, before.table().get(send_back));
    let mut obs: Vec<Observation> = g
        .steps
        .iter()
        .map(|st| Observation::Table(st.table.clone()))
        .collect();
    obs[i] = Observation::Table(alone);
    obs.insert(i + 1, Observation::Table(overtaken));
    let mut referee = Referee::new(Twelve::new(g.opts));
    let mut events = Vec::new();
    for (k, o) in obs.iter().enumerate() {
        events.push(referee.observe(k, o));
    }
    let flagged: Vec<_> = events[i + 1]
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::Flag(f) => Some(f),
            _ => None,
        })
        .collect();
    let right = matches!(flagged[..], [f] if f.kind == FlagKind::IncompleteAction
        && f.rule == "TW-10.2" && f.cells == [at] && f.player.as_deref() == Some(SIDES[side].name()));
    if !right {
        return Some(Err(Uncaught(format!(
            "step {}: the send-back overtaken gave {flagged:?}",
            i + 1
        ))));
    }
    let mended = events[i + 2].first().is_some_and(|e| {
        matches!(
            e.body,
            EventBody::Cleared {
                kind: FlagKind::IncompleteAction,
                how: How::Mended
            }
        )
    });
    let later = events[i + 2..]
        .iter()
        .flatten()
        .filter(|e| matches!(e.body, EventBody::Flag(_)))
        .count();
    if !mended || later > 0 {
        return Some(Err(Uncaught(format!(
            "step {}: not mended, or {later} flags after",
            i + 2
        ))));
    }
    Some(Ok(()))
}

fn doublecross_game(r: &mut Report, s: u64, rng: &mut StdRng) {
    let opts = doublecross::random::random_options(rng);
    let g = doublecross::random::random_game(s, opts.clone(), 150);
    let obs: Vec<Observation> = g.steps.iter().map(|st| st.observation.clone()).collect();
    let (events, referee, lifted) = replay_lifting(DoubleCross::new(opts), &obs, 0.3, rng);
    r.legal(
        &format!("doublecross seed {s}"),
        obs.len(),
        lifted,
        &events,
        &referee,
        &g.end.table(),
    );
    // One mistake of each kind the game offers; a castling or en
    // passant capture spoiled in a game that makes them when it can.
    let lively = doublecross::mistakes::lively_game(s);
    for kind in doublecross::mistakes::KINDS {
        let g = match kind {
            Kind::CastleRookLeft | Kind::EnPassantPawnLeft => &lively,
            Kind::Undesignated | Kind::Removal => &g,
        };
        let pick = rng.random_range(0..g.steps.len().max(1));
        let Some(inj) = doublecross::mistakes::inject(g, kind, pick) else {
            continue;
        };
        r.tally(
            inj.kind.as_str(),
            doublecross::mistakes::check_injection(g, &inj),
        );
    }
    // A check left uncalled, a card not in the pile, a move not made.
    for kind in doublecross::mistakes::INPUT_KINDS {
        let pick = rng.random_range(0..g.steps.len().max(1));
        let Some(result) = doublecross::mistakes::check_input_mistake(&g, kind, pick) else {
            continue;
        };
        r.tally(kind.flag().as_str(), result);
    }
}

fn enochian_game(r: &mut Report, s: u64, rng: &mut StdRng) {
    let opts = enochian::random::random_options(rng);
    let g = enochian::random::random_game(s, opts, 200);
    let obs = g.observations();
    let (events, referee, lifted) = replay_lifting(Enochian::new(opts), &obs, 0.3, rng);
    r.legal(
        &format!("enochian seed {s}"),
        obs.len(),
        lifted,
        &events,
        &referee,
        &g.end.table(),
    );
    let want = actions(g.steps.iter().flat_map(|st| st.events.clone()));
    let got = actions(events.into_iter().map(|e| e.body));
    if got != want {
        r.fail(format!("enochian seed {s}: the actions announced differ"));
    }
    for kind in enochian::mistakes::KINDS {
        let pick = rng.random_range(0..g.steps.len().max(1));
        let (inj, skipped) = enochian::mistakes::inject_counted(&g, kind, pick);
        r.skip(kind.flag().as_str(), skipped);
        let Some(inj) = inj else {
            continue;
        };
        r.tally(
            inj.kind.as_str(),
            enochian::mistakes::check_injection(&g, &inj, rng.random_bool(0.5)),
        );
    }
}

/// The report as a table row.
pub fn row(r: &Report) -> String {
    let kinds = r
        .mistakes
        .iter()
        .map(|(k, (n, ok))| match r.skipped.get(k) {
            Some(skip) => format!("{k} {ok}/{n} (+{skip} skipped)"),
            None => format!("{k} {ok}/{n}"),
        })
        .collect::<Vec<_>>()
        .join(", ");
    format!(
        "{:<12} {:>7} {:>12} {:>8} {:>11} {:>9} {:>8} {:>8} {:>11}  {}",
        r.game,
        r.games,
        r.observations,
        r.lifted,
        r.false_flags,
        r.injected(),
        r.caught(),
        r.skipped_count(),
        r.misdirected,
        if kinds.is_empty() { "-".into() } else { kinds }
    )
}

pub const HEADER: &str = "game           games observations   lifted false flags  mistakes   caught  skipped misdirected  per kind (caught/injected)";
