//! How a card-reader mat would see a table script played on it: the cell
//! changes, in the order hands make them, with the transients a real mat
//! reports (a card lifted before it lands, a swap seen as several changes).
//! The simulator turns this plan into wire frames.

use std::collections::BTreeMap;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::tags::{DECK, SIM_DECKS, sim_tag};
use arbiter_core::observation::Observation;
use arbiter_core::script::Script;
use arbiter_core::table::{Card, Cell, Table, Token};

/// A cell's top as the mat senses it: its card's tag and which face is
/// up, and for a throne pair (two face-up cards that both count) the
/// partner's tag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sensed {
    pub tag: u64,
    pub up: bool,
    pub partner: Option<u64>,
}

/// Which transients to add to the settled changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transients {
    /// A new card hovers over a neighbouring cell before it lands.
    pub lift: bool,
    /// A move is seen as its single lifts and landings (four changes for a
    /// SWAP), not as two cells changing at once.
    pub swap_steps: bool,
}

/// One thing the mat does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MatStep {
    /// The top card of a mat cell changes.
    Change {
        col: u8,
        row: u8,
        top: Option<Sensed>,
    },
    /// The table is settled: the host should now see one observation.
    Settled,
    /// The script says hands are over the table: changes that undo
    /// themselves before the table settles.
    Busy,
}

/// The plan: the mat's size, its cells at the start, and what it reports.
#[derive(Clone, Debug)]
pub struct MatPlan {
    pub cols: u8,
    pub rows: u8,
    pub start: BTreeMap<(u8, u8), Sensed>,
    pub steps: Vec<MatStep>,
    /// The translation from script cells to mat cells.
    pub offset: Cell,
    /// The script's steps a mat does not see (draws, calls, rolls): given
    /// at the view's keys instead.
    pub beside: usize,
}

/// A tag no registry knows: for `??` cells (and face-down cards beyond the
/// deck, whose face nobody sees).
const UNKNOWN_TAG_BASE: u64 = 0x5b00_0000_0000;

struct Tags {
    /// Unused copies of each card.
    free: BTreeMap<Card, Vec<u64>>,
    unknown: u64,
}

impl Tags {
    fn new() -> Tags {
        let mut free = BTreeMap::new();
        for colour in arbiter_core::table::Colour::ALL {
            for (piece, n) in DECK {
                let card = Card::new(colour, piece);
                free.insert(
                    card,
                    (0..SIM_DECKS * n).rev().map(|k| sim_tag(card, k)).collect(),
                );
            }
        }
        Tags {
            free,
            unknown: UNKNOWN_TAG_BASE,
        }
    }

    fn take(&mut self, card: Card) -> u64 {
        match self.free.get_mut(&card).and_then(Vec::pop) {
            Some(t) => t,
            // More of this card than a deck holds: a tag the registry does
            // not know, which the host reads as unreadable.
            None => self.fresh_unknown(),
        }
    }

    fn fresh_unknown(&mut self) -> u64 {
        self.unknown += 1;
        self.unknown
    }

    /// A face-down card whose face nobody has seen (a start position's, a
    /// face-down placement's): its tag is one no registry knows, so the
    /// deck's own copies stay free for the cards the script shows face-up.
    fn take_any(&mut self) -> u64 {
        self.fresh_unknown()
    }

    fn give_back(&mut self, p: Physical) {
        let cards = [(p.tag, p.card)]
            .into_iter()
            .chain(p.partner.map(|(t, c)| (t, Some(c))));
        for (tag, card) in cards {
            if let Some(c) = card
                && tag & 0xffff_0000_0000 == 0x5a00_0000_0000
            {
                // To the back of the pile: the next card of that kind laid
                // is another copy, as a player reaches for a fresh card.
                self.free.entry(c).or_default().insert(0, tag);
            }
        }
    }
}

/// A physical card on the simulated cloth, or a throne pair: two face-up
/// cards lying together that the mat reads as one cell's pair.
#[derive(Clone, Copy, Debug)]
struct Physical {
    tag: u64,
    /// Its face, when known (face-down cards of a start position are not).
    card: Option<Card>,
    up: bool,
    /// The pair's second card: its tag and face.
    partner: Option<(u64, Card)>,
}

fn known(tag: u64) -> bool {
    tag & 0xffff_0000_0000 == 0x5a00_0000_0000
}

impl Physical {
    fn token(self) -> Token {
        match (self.up, self.card, self.partner) {
            (false, _, _) => Token::Down,
            (true, Some(c), None) if known(self.tag) => Token::Up(c),
            (true, Some(a), Some((t, b))) if known(self.tag) && known(t) => Token::pair(a, b),
            _ => Token::Unreadable,
        }
    }

    fn sensed(self) -> Sensed {
        Sensed {
            tag: self.tag,
            up: self.up,
            partner: self.partner.map(|p| p.0),
        }
    }

    /// The face-up cards it shows.
    fn cards(self) -> Vec<Card> {
        if !self.up {
            return Vec::new();
        }
        self.card
            .into_iter()
            .chain(self.partner.map(|p| p.1))
            .collect()
    }

    fn single(tag: u64, card: Card) -> Physical {
        Physical {
            tag,
            card: Some(card),
            up: true,
            partner: None,
        }
    }
}

/// Why a script cannot be played on a mat.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    /// The cells the script uses, with a cell to spare, do not fit.
    #[error("the script spans {cols}x{rows} cells; a mat has at most 255x255")]
    TooLarge { cols: i32, rows: i32 },
}

/// Plans how the mat reports `script`.
pub fn plan(script: &Script, transients: Transients, seed: u64) -> Result<MatPlan, PlanError> {
    // The mat must cover every cell any step uses.
    let mut all: Vec<Cell> = Vec::new();
    let start = script.setup.start_table().map(|(table, _)| table);
    if let Some(table) = start {
        all.extend(table.iter().map(|(c, _)| c));
    }
    for step in &script.steps {
        if let Observation::Table(t) = &step.observation {
            all.extend(t.iter().map(|(c, _)| c));
        }
    }
    // A script on non-negative cells keeps them (a fixed board, such as
    // Enochian's, is laid on the mat square for cell); one reaching below
    // zero is moved onto the mat with a cell to spare for hovering cards.
    let low = |v: i32| if v >= 0 { 0 } else { v - 1 };
    let lo = Cell::new(
        low(all.iter().map(|c| c.col).min().unwrap_or(0)),
        low(all.iter().map(|c| c.row).min().unwrap_or(0)),
    );
    let hi = Cell::new(
        all.iter().map(|c| c.col).max().unwrap_or(0) + 1,
        all.iter().map(|c| c.row).max().unwrap_or(0) + 1,
    );
    let (cols, rows) = (hi.col - lo.col + 1, hi.row - lo.row + 1);
    if cols > 255 || rows > 255 {
        return Err(PlanError::TooLarge { cols, rows });
    }
    let offset = Cell::new(-lo.col, -lo.row);
    let mut sim = Sim {
        stacks: BTreeMap::new(),
        tags: Tags::new(),
        steps: Vec::new(),
        transients,
        rng: StdRng::seed_from_u64(seed),
        cols: cols as u8,
        rows: rows as u8,
    };
    if let Some(table) = start {
        for (c, t) in table.iter() {
            let p = sim.new_card(t);
            sim.stacks.insert(c.plus(offset), vec![p]);
        }
    }
    let start = sim.tops();
    sim.steps.clear();
    let mut beside = 0;
    for step in &script.steps {
        match &step.observation {
            Observation::Table(t) => {
                sim.play(&t.shifted(offset));
                sim.steps.push(MatStep::Settled);
            }
            Observation::Busy => sim.steps.push(MatStep::Busy),
            // A draw, a call, a roll: the mat does not see it; the players
            // give it at the view's keys, between the tables.
            _ => beside += 1,
        }
    }
    Ok(MatPlan {
        cols: cols as u8,
        rows: rows as u8,
        start,
        steps: sim.steps,
        offset,
        beside,
    })
}

struct Sim {
    stacks: BTreeMap<Cell, Vec<Physical>>,
    tags: Tags,
    steps: Vec<MatStep>,
    transients: Transients,
    rng: StdRng,
    cols: u8,
    rows: u8,
}

impl Sim {
    fn new_card(&mut self, t: Token) -> Physical {
        match t {
            Token::Up(c) => Physical::single(self.tags.take(c), c),
            Token::Pair(a, b) => Physical {
                partner: Some((self.tags.take(b), b)),
                ..Physical::single(self.tags.take(a), a)
            },
            Token::Down => Physical {
                tag: self.tags.take_any(),
                card: None,
                up: false,
                partner: None,
            },
            Token::Unreadable => Physical {
                tag: self.tags.fresh_unknown(),
                card: None,
                up: true,
                partner: None,
            },
        }
    }

    fn tops(&self) -> BTreeMap<(u8, u8), Sensed> {
        self.stacks
            .iter()
            .filter_map(|(c, s)| Some(((c.col as u8, c.row as u8), s.last()?.sensed())))
            .collect()
    }

    fn top(&self, c: Cell) -> Option<Physical> {
        self.stacks.get(&c).and_then(|s| s.last().copied())
    }

    fn report(&mut self, c: Cell) {
        let top = self.top(c).map(Physical::sensed);
        self.steps.push(MatStep::Change {
            col: c.col as u8,
            row: c.row as u8,
            top,
        });
    }

    fn lift(&mut self, c: Cell) -> Option<Physical> {
        let s = self.stacks.get_mut(&c)?;
        let p = s.pop();
        if s.is_empty() {
            self.stacks.remove(&c);
        }
        self.report(c);
        p
    }

    fn put(&mut self, c: Cell, p: Physical) {
        self.stacks.entry(c).or_default().push(p);
        self.report(c);
    }

    fn in_mat(&self, c: Cell) -> bool {
        c.col >= 0 && c.row >= 0 && c.col < i32::from(self.cols) && c.row < i32::from(self.rows)
    }

    /// Brings the cloth to `target` (top tokens, mat frame) the way hands
    /// would: moves first (a card that left one cell and arrived at
    /// another), then flips, then new cards and cards taken away.
    fn play(&mut self, target: &Table) {
        self.split_pairs(target);
        let current: Table = self
            .stacks
            .iter()
            .filter_map(|(c, s)| Some((*c, s.last()?.token())))
            .collect();
        let changes = current.diff(target, Cell::default());
        if changes.is_empty() {
            return;
        }
        let todo: Vec<Cell> = changes.iter().map(|c| c.cell).collect();
        let want = |c: Cell| target.get(c);
        if changes.len() > 6 {
            // A rearrangement no single action makes (the whole table slid):
            // everything changed is picked up, then laid down anew, each
            // face-up card keeping its tag where one of its kind was lifted.
            let mut lifted: Vec<Physical> = Vec::new();
            for &c in &todo {
                while self.top(c).is_some() {
                    lifted.extend(self.lift(c));
                }
            }
            for &c in &todo {
                let Some(t) = want(c) else { continue };
                let reuse = lifted.iter().position(|p| p.token() == t);
                let p = match reuse {
                    Some(i) => lifted.swap_remove(i),
                    None => self.new_card(t),
                };
                self.put(c, p);
            }
            for p in lifted {
                self.tags.give_back(p);
            }
            return;
        }

        // Face-up cards that moved: from a cell that lost that token to one
        // that gained it. A SWAP moves the vacant card back the other way.
        let mut moves: Vec<(Cell, Cell)> = Vec::new();
        // A cell gives up its top card at most once and takes one at most
        // once (a whole SWAP cycle can pass through it).
        let cards = |t: Option<Token>| t.map_or_else(Vec::new, |t| t.cards().collect::<Vec<_>>());
        for ch in &changes {
            let had = cards(ch.before);
            for card in cards(ch.after).into_iter().filter(|c| !had.contains(c)) {
                let from = changes.iter().find(|o| {
                    o.cell != ch.cell
                        && cards(o.before).contains(&card)
                        && !cards(o.after).contains(&card)
                        && !moves.iter().any(|&(f, _)| f == o.cell)
                });
                if let Some(o) = from {
                    moves.push((o.cell, ch.cell));
                }
            }
        }
        // With swap_steps the mat reports every lift and landing (four
        // changes for a SWAP); without, only the cells' end states.
        let mark = self.steps.len();
        let mut in_hand: Vec<(Cell, Physical)> = Vec::new();
        for &(from, to) in &moves {
            if let Some(p) = self.lift(from) {
                in_hand.push((to, p));
            }
        }
        // The card under a destination comes back to the origin when the
        // origin should show it: a SWAP's vacant card, a capture's victim.
        let mut back: Vec<(Cell, Physical)> = Vec::new();
        for &(from, to) in &moves {
            let returns = match (want(from), self.top(to)) {
                (Some(Token::Down), Some(_)) => true,
                (Some(Token::Up(c)), Some(u)) => u.card == Some(c),
                _ => false,
            };
            if returns && let Some(u) = self.lift(to) {
                back.push((from, u));
            }
        }
        for (to, p) in in_hand {
            self.put(to, p);
        }
        for (from, mut u) in back {
            match want(from) {
                Some(Token::Down) => u.up = false,
                // A missed FLIP: the captured card lands face-up.
                Some(Token::Up(c)) => u.up = u.card == Some(c),
                _ => {}
            }
            self.put(from, u);
        }
        for &(_, to) in &moves {
            if let Some(Token::Pair(a, b)) = want(to)
                && self.merge_pair(to, a, b)
                && self.transients.swap_steps
            {
                self.report(to);
            }
        }
        if !self.transients.swap_steps && self.steps.len() > mark {
            let touched: std::collections::BTreeSet<Cell> =
                moves.iter().flat_map(|&(f, t)| [f, t]).collect();
            self.steps.truncate(mark);
            for c in touched {
                self.report(c);
            }
        }

        // Cells still wrong: flips where the card is known, else take away
        // and lay down what should be there.
        for c in todo {
            let want = want(c);
            if let Some(Token::Pair(a, b)) = want
                && self.merge_pair(c, a, b)
            {
                self.report(c);
            }
            let have = self.top(c);
            if have.map(Physical::token) == want {
                continue;
            }
            match (have, want) {
                (Some(p), Some(Token::Down)) if p.up => {
                    // Turned face-down where it lies.
                    let mut q = self.lift_quiet(c);
                    q.up = false;
                    self.put(c, q);
                }
                (Some(p), Some(Token::Up(card)))
                    if !p.up && (p.card == Some(card) || p.card.is_none()) =>
                {
                    let q = self.lift_quiet(c);
                    let mut q = if q.card.is_none() {
                        self.identify(q, card)
                    } else {
                        q
                    };
                    q.up = true;
                    self.put(c, q);
                }
                (Some(_), None) => {
                    while self.top(c).is_some() {
                        if let Some(p) = self.lift(c) {
                            self.tags.give_back(p);
                        }
                    }
                }
                // A card joins the one on a throne (a promotion's or a
                // script's new card).
                (Some(p), Some(Token::Pair(a, b)))
                    if p.up && p.partner.is_none() && p.card.is_some_and(|k| k == a || k == b) =>
                {
                    let other = if p.card == Some(a) { b } else { a };
                    let q = self.lift_quiet(c);
                    let tag = self.tags.take(other);
                    self.put(
                        c,
                        Physical {
                            partner: Some((tag, other)),
                            ..q
                        },
                    );
                }
                // Anything else laid on top of what lies there (even on a
                // face-up card: the referee must see that mistake).
                (Some(_), Some(t)) => self.lay(c, t),
                (None, Some(t)) => self.lay(c, t),
                (None, None) => {}
            }
        }
    }

    /// A face-down card of unknown face turns out to be `card`: it carries
    /// that card's tag from now on.
    fn identify(&mut self, p: Physical, card: Card) -> Physical {
        self.tags.give_back(p);
        Physical {
            up: p.up,
            ..Physical::single(self.tags.take(card), card)
        }
    }

    /// A throne pair one of whose cards leaves (the other stays, or is
    /// joined by a new partner) comes apart, quietly, with the leaving card
    /// on top: the move that takes it lifts it off the one that stays.
    fn split_pairs(&mut self, target: &Table) {
        let cells: Vec<Cell> = self.stacks.keys().copied().collect();
        for c in cells {
            let Some(p) = self.top(c) else { continue };
            let (Some(a), Some((tb, b))) = (p.card, p.partner) else {
                continue;
            };
            let stays = match target.get(c) {
                Some(t) if t == p.token() => continue,
                Some(Token::Up(x)) => x,
                Some(Token::Pair(x, y)) if [x, y].contains(&a) != [x, y].contains(&b) => {
                    if [x, y].contains(&a) { a } else { b }
                }
                _ => continue,
            };
            self.lift_quiet(c);
            let (low, high) = if stays == a {
                (Physical::single(p.tag, a), Physical::single(tb, b))
            } else {
                (Physical::single(tb, b), Physical::single(p.tag, a))
            };
            let stack = self.stacks.entry(c).or_default();
            stack.push(low);
            stack.push(high);
        }
    }

    /// Two single face-up cards `a` and `b` on top of one another at `c`
    /// become the throne pair the mat reads as one; says whether they did.
    fn merge_pair(&mut self, c: Cell, a: Card, b: Card) -> bool {
        let Some(s) = self.stacks.get(&c) else {
            return false;
        };
        let n = s.len();
        if n < 2 {
            return false;
        }
        let (low, high) = (s[n - 2], s[n - 1]);
        let single = |p: Physical| p.up && p.partner.is_none();
        let mut got = low.cards();
        got.extend(high.cards());
        got.sort();
        let mut want = vec![a, b];
        want.sort();
        if !(single(low) && single(high) && got == want) {
            return false;
        }
        let s = self.stacks.get_mut(&c).expect("looked at above");
        s.truncate(n - 2);
        s.push(Physical {
            partner: Some((high.tag, high.card.expect("a face-up single has a card"))),
            ..low
        });
        true
    }

    /// Takes the top card off without reporting it (a flip is one change).
    fn lift_quiet(&mut self, c: Cell) -> Physical {
        let s = self.stacks.get_mut(&c).expect("a card is here");
        let p = s.pop().expect("a card is here");
        if s.is_empty() {
            self.stacks.remove(&c);
        }
        p
    }

    /// A new card laid at `c`, hovering over a neighbour first when lifts
    /// are simulated.
    fn lay(&mut self, c: Cell, t: Token) {
        let p = self.new_card(t);
        if self.transients.lift {
            let (dc, dr) = [(1, 0), (-1, 0), (0, 1), (0, -1)][self.rng.random_range(0..4)];
            let n = c.offset(dc, dr);
            if self.in_mat(n) {
                self.put(n, p);
                self.lift_quiet(n);
                self.report(n);
            }
        }
        self.put(c, p);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tags::Registry;

    /// What the host would see at each settle: the mat's top cards read
    /// through the simulated registry, back in the script's frame.
    fn settled_tables(plan: &MatPlan) -> Vec<Table> {
        let registry = Registry::simulated();
        let mut tops = plan.start.clone();
        let mut out = Vec::new();
        for s in &plan.steps {
            match *s {
                MatStep::Change { col, row, top } => {
                    match top {
                        Some(t) => tops.insert((col, row), t),
                        None => tops.remove(&(col, row)),
                    };
                }
                MatStep::Settled => out.push(
                    tops.iter()
                        .map(|(&(c, r), s)| {
                            let partner = s.partner.map(|t| registry.card(t));
                            let tok = match (s.up, registry.card(s.tag), partner) {
                                (false, _, _) => Token::Down,
                                (true, Some(card), None) => Token::Up(card),
                                (true, Some(a), Some(Some(b))) => Token::pair(a, b),
                                (true, _, _) => Token::Unreadable,
                            };
                            (
                                Cell::new(i32::from(c), i32::from(r)).minus(plan.offset),
                                tok,
                            )
                        })
                        .collect(),
                ),
                MatStep::Busy => {}
            }
        }
        out
    }

    /// A throne pair formed, left, rejoined, captured: the mat reports the
    /// pair as one cell holding both tags, and the tags stay the cards'.
    #[test]
    fn throne_pairs_settle_as_pairs() {
        let text = r#"game = "enprise"

[[step]]
table = """
uK .. ..
"""
thrones = { "0,0" = "uK+uN" }

[[step]]
table = """
uN uK ..
"""

[[step]]
table = """
uK .. rQ
"""
thrones = { "0,0" = "uK+uN" }

[[step]]
table = """
uN uK rQ
"""

[[step]]
table = """
uK uN rQ
"""
thrones = { "0,0" = "uK+uB" }

[[step]]
table = """
rQ uN ..
"""
"#;
        let script = Script::parse("thrones.toml", text).unwrap();
        let want: Vec<Table> = script
            .steps
            .iter()
            .filter_map(|s| match &s.observation {
                Observation::Table(t) => Some(t.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(want[0].pairs().count(), 1);
        for lift in [false, true] {
            let t = Transients {
                lift,
                swap_steps: lift,
            };
            let plan = plan(&script, t, 3).unwrap();
            assert_eq!(settled_tables(&plan), want, "transients {t:?}");
            // The king keeps its tag through the whole game.
            let uk = Card::new(
                arbiter_core::table::Colour::Blue,
                arbiter_core::table::Piece::King,
            );
            let tags: std::collections::BTreeSet<u64> = plan
                .steps
                .iter()
                .filter_map(|s| match s {
                    MatStep::Change { top: Some(t), .. } => Some([Some(t.tag), t.partner]),
                    _ => None,
                })
                .flatten()
                .flatten()
                .filter(|&t| Registry::simulated().card(t) == Some(uk))
                .collect();
            assert_eq!(tags.len(), 1, "{tags:x?}");
        }
    }

    #[test]
    fn every_scenario_settles_on_its_own_tables_with_transients_on() {
        let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
        let mut checked = 0;
        for dir in ["fixtures/scenarios/enprise", "fixtures/scenarios/enochian"] {
            let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
                continue;
            };
            for e in entries.flatten() {
                let p = e.path();
                if p.extension().is_none_or(|x| x != "toml") {
                    continue;
                }
                let mut script = Script::load(&p).unwrap();
                // Die rolls and spoken calls reach the referee by other
                // inputs: the mat sees the tables.
                script
                    .steps
                    .retain(|s| matches!(s.observation, Observation::Table(_) | Observation::Busy));
                for t in [
                    Transients {
                        lift: false,
                        swap_steps: false,
                    },
                    Transients {
                        lift: true,
                        swap_steps: true,
                    },
                ] {
                    let plan = plan(&script, t, 7).unwrap();
                    let want: Vec<Table> = script
                        .steps
                        .iter()
                        .filter_map(|s| match &s.observation {
                            Observation::Table(t) => Some(t.clone()),
                            _ => None,
                        })
                        .collect();
                    let got = settled_tables(&plan);
                    assert_eq!(got.len(), want.len(), "{}", p.display());
                    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                        assert_eq!(g, w, "{} step {i}", p.display());
                    }
                }
                checked += 1;
            }
        }
        assert!(checked > 10);
    }
}
